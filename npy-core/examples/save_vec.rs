//! Save a `Vec` as an array numpy loads with `np.load`, and read it back.
//!
//! `cargo run -p npy-core --example save_vec --all-features`
use npy_core::{ByteOrder, MemoryOrder, WriteOptions};

fn main() -> Result<(), npy_core::Error> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("v.npy");
    let v: Vec<f64> = (0..6).map(f64::from).collect();

    npy_core::write(&path, &v, &[2, 3])?; // C order, shape (2, 3)
    let back = npy_core::read::<f64>(&path)?;
    assert_eq!((back.shape(), back.data()), (&[2, 3][..], &v[..]));

    // Shapes may be usize too (ndarray's `a.shape()`), and every option is explicit.
    let shape: Vec<usize> = vec![3, 2];
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .order(MemoryOrder::Fortran)
        .write_path(&path, &v, &shape[..])?;
    let back = npy_core::read::<f64>(&path)?;
    println!("{:?} {:?} {}", back.shape(), back.order(), back.dtype());
    assert_eq!(back.into_c_order_vec(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]); // what numpy's a.flat gives
    Ok(())
}
