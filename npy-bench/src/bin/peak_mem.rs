//! Peak memory of reading a 256 MiB float32 file into a `Vec` with `npy_core::read`.
//!
//! Prints one JSON line: the data size, the resident set before the read (`VmRSS`), the peak
//! resident set after it (`VmHWM`, from `/proc/self/status`), the peak minus the baseline and
//! its ratio to the data size (the target is at most 1.05).
//!
//! `peak_mem [FILE]`: without `FILE`, the suite's `target/bench-data/f32_268435456.npy`. A
//! missing default file is made by a child process first, so that making it does not count.

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let path = match std::env::args_os().nth(1) {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let dir = npy_bench::data_dir().expect("bench-data dir");
            let path = dir.join(format!("f32_{}.npy", 256 * npy_bench::MIB));
            if !path.exists() {
                if std::env::var_os("PEAK_MEM_CHILD").is_some() {
                    npy_bench::f32_file(&dir, 256 * npy_bench::MIB).expect("write input");
                    return ExitCode::SUCCESS;
                }
                // Make the file in a child so this process's peak is only the read.
                let exe = std::env::current_exe().expect("current exe");
                let ok = Command::new(exe)
                    .env("PEAK_MEM_CHILD", "1")
                    .status()
                    .is_ok_and(|s| s.success());
                if !ok {
                    eprintln!("peak_mem: cannot make {}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            path
        }
    };
    let (Some(baseline), Some(_)) = (
        npy_bench::status_kib("VmRSS:"),
        npy_bench::status_kib("VmHWM:"),
    ) else {
        eprintln!("peak_mem: no VmRSS/VmHWM in /proc/self/status (Linux only)");
        return ExitCode::FAILURE;
    };
    let array = match npy_core::read::<f32>(&path) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("peak_mem: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let peak = npy_bench::status_kib("VmHWM:").unwrap_or(0);
    let data = std::mem::size_of_val(array.data()) as u64;
    let extra = peak.saturating_sub(baseline) * 1024;
    println!(
        "{{\"file\": \"{}\", \"data_bytes\": {data}, \"baseline_kib\": {baseline}, \
         \"peak_kib\": {peak}, \"extra_bytes\": {extra}, \"ratio\": {:.4}}}",
        path.display(),
        extra as f64 / data.max(1) as f64
    );
    std::hint::black_box(array);
    ExitCode::SUCCESS
}
