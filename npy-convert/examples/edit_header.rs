//! Edit a header: reshape a file without touching its data, then change its byte order and
//! memory order (which rewrites the data as well).
//!
//! `cargo run -p npy-convert --example edit_header`
use std::fs;

use npy_convert::{convert_file, ConvertOptions};
use npy_core::{ByteOrder, Header, MemoryOrder};

fn main() -> Result<(), npy_core::Error> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("a.npy");
    npy_core::write(&path, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;

    // Reshape (2, 3) -> (3, 2): same elements in the same C order, so only the header changes.
    let bytes = fs::read(&path)?;
    let parsed = Header::read(&mut &bytes[..])?;
    let mut header = parsed.header.clone();
    header.shape = vec![3, 2];
    let mut out = header.to_bytes(None)?; // padded as np.save pads it
    out.extend_from_slice(&bytes[parsed.data_offset() as usize..]);
    fs::write(&path, out)?;
    println!(
        "{}",
        Header::read(&mut &fs::read(&path)?[..])?.text.trim_end()
    );
    assert_eq!(npy_core::read::<i32>(&path)?.shape(), [3, 2]);

    // Byte order and memory order: the data is converted with the header (atomically).
    let options = ConvertOptions::new()
        .byte_order(ByteOrder::Big)
        .order(MemoryOrder::Fortran);
    convert_file(&path, &path, &options)?;
    let a = npy_core::read::<i32>(&path)?;
    println!("{} fortran_order={}", a.dtype(), a.header().fortran_order);
    assert_eq!(a.get(&[2, 1]), Some(&6));
    Ok(())
}
