//! Time and peak memory of `npy_core::write_ndarray` of a view that is neither C- nor
//! F-contiguous (issue 10, from the report R9): a `u8` array of shape `(n, n, n)` in Fortran
//! order (1 GiB for the default `n = 1024`), viewed with `permuted_axes([1, 2, 0])`.
//!
//! `write_view OUT [N]` prints one JSON line: the array's bytes, the peak resident set before
//! the write (`VmHWM` once the array exists) and after it, and the write's wall time. The
//! target is a peak of at most 1.1× the array (the write itself adds a bounded buffer, never a
//! copy of the array); `xtask/bench_write_view.py` does the same with numpy's `np.save` of
//! `a.transpose(1, 2, 0)` on the same values, and `cargo xtask bench` compares the two files.

use std::process::ExitCode;
use std::time::Instant;

use ndarray::{Array3, ShapeBuilder};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(out) = args.next().map(std::path::PathBuf::from) else {
        eprintln!("usage: write_view OUT [N]");
        return ExitCode::FAILURE;
    };
    let n: usize = match args.next().map(|a| a.to_string_lossy().parse()) {
        None => 1024,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("write_view: N: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The values of R9 (and of the numpy script): a[i, j, k] = (i ^ j ^ k) mod 256.
    #[allow(clippy::cast_possible_truncation)] // mod 256 is the point
    let a = Array3::<u8>::from_shape_fn((n, n, n).f(), |(i, j, k)| (i ^ j ^ k) as u8);
    let view = a.view().permuted_axes([1, 2, 0]);
    assert!(view.as_slice().is_none() && view.t().as_slice().is_none());
    let Some(before) = npy_bench::status_kib("VmHWM:") else {
        eprintln!("write_view: no VmHWM in /proc/self/status (Linux only)");
        return ExitCode::FAILURE;
    };
    let start = Instant::now();
    if let Err(e) = npy_core::write_ndarray(&out, &view) {
        eprintln!("write_view: {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let seconds = start.elapsed().as_secs_f64();
    let after = npy_bench::status_kib("VmHWM:").unwrap_or(0);
    println!(
        "{{\"array_bytes\": {}, \"hwm_before_kib\": {before}, \"hwm_after_kib\": {after}, \
         \"seconds\": {seconds}}}",
        a.len()
    );
    ExitCode::SUCCESS
}
