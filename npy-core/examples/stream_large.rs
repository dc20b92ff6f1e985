//! Stream a large file: write rows whose count is not known in advance, then read the file
//! back in bounded memory, one buffer at a time.
//!
//! `cargo run -p npy-core --example stream_large --all-features [MiB]` (default 64 MiB)
use npy_core::{NpyReader, WriteOptions};

fn main() -> Result<(), npy_core::Error> {
    let mib: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.npy");
    let cols = 1024usize;
    let rows = mib * (1 << 20) / (cols as u64 * 4);

    // Rows go to a temporary file; the file appears under `path` only at finish().
    let mut w = WriteOptions::new().create_stream::<f32>(&path, &[cols as u64])?;
    let mut row = vec![0f32; cols];
    for r in 0..rows {
        row.fill(r as f32);
        w.push_row(&row)?;
    }
    w.finish()?; // without this, nothing is written

    // Read back 1 MiB at a time into one reused buffer.
    let mut reader = NpyReader::open(&path)?;
    println!("{:?} {}", reader.shape(), reader.dtype());
    let mut buf = vec![0f32; 1 << 18];
    let mut sum = 0f64;
    while reader.remaining() > 0 {
        let n = (reader.remaining() as usize).min(buf.len());
        reader.read_into(&mut buf[..n])?;
        sum += buf[..n].iter().map(|&v| f64::from(v)).sum::<f64>();
    }
    let want = (0..rows).map(|r| r as f64 * cols as f64).sum::<f64>();
    println!("sum {sum}");
    assert_eq!(sum, want);
    Ok(())
}
