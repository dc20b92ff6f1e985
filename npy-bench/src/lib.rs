//! Benchmarks of `npy-core` against peer crates (npyz, ndarray-npy), numpy and the limit
//! (`std::fs::read` / `fs::write` / `memcpy` of the same bytes).
//!
//! The criterion suite is `benches/npy.rs` (`cargo bench -p npy-bench`); `cargo xtask bench`
//! runs it together with numpy's timings and prints one table. This library holds the shared
//! input generation so benches and tools make the same files.

use std::path::{Path, PathBuf};

/// A float32 `.npy` file of `bytes` data bytes (C order, 1-d), written by npy-core into `dir`
/// once and reused; returns its path.
///
/// # Errors
/// I/O and write errors.
pub fn f32_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f32_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 4;
        let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        npy_core::write(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// A big-endian float64 `.npy` file of `bytes` data bytes.
///
/// # Errors
/// I/O and write errors.
pub fn f64_be_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f64be_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 8;
        let data: Vec<f64> = (0..n).map(|i| i as f64 * 0.25).collect();
        npy_core::WriteOptions::new()
            .byte_order(npy_core::ByteOrder::Big)
            .write_path(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// A float16 `.npy` file of `bytes` data bytes.
///
/// # Errors
/// I/O and write errors.
pub fn f16_file(dir: &Path, bytes: usize) -> Result<PathBuf, npy_core::Error> {
    let path = dir.join(format!("f16_{bytes}.npy"));
    if !path.exists() {
        let n = bytes / 2;
        let data: Vec<npy_core::half::f16> = (0..n)
            .map(|i| npy_core::half::f16::from_f32((i % 2048) as f32))
            .collect();
        npy_core::write(&path, &data, &[n as u64])?;
    }
    Ok(path)
}

/// The folder benchmark inputs live in: `target/bench-data` of the workspace.
///
/// # Errors
/// I/O errors creating it.
pub fn data_dir() -> std::io::Result<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
