//! Whole-process cost of a dynamic read, for issue 24's target (`read_dyn` of a 1M-record file
//! at most 1.0× `np.load`'s time, peak at most 1.3× the data):
//! `dyn_peak dyn FILE` reads FILE with `npy_core::read_dyn` (one typed column per leaf field)
//! and prints one JSON line: the read's seconds, the data size, the peak resident set
//! (`VmHWM`) and its ratio to the data. Time the whole process from outside as well
//! (`/usr/bin/time`), as `np.load` is timed.

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, file] = args.as_slice() else {
        eprintln!("usage: dyn_peak dyn FILE");
        return ExitCode::FAILURE;
    };
    let start = Instant::now();
    let (nbytes, count) = match mode.as_str() {
        "dyn" => match npy_core::read_dyn(file) {
            Ok(a) => (a.meta().nbytes(), a.len()),
            Err(e) => {
                eprintln!("dyn_peak: {e}");
                return ExitCode::FAILURE;
            }
        },
        _ => {
            eprintln!("dyn_peak: the mode is dyn");
            return ExitCode::FAILURE;
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let peak = npy_bench::status_kib("VmHWM:").unwrap_or(0) * 1024;
    println!(
        "{{\"mode\":\"{mode}\",\"seconds\":{secs:.4},\"data_bytes\":{nbytes},\"peak_bytes\":{peak},\"peak_ratio\":{:.3},\"items\":{count}}}",
        peak as f64 / nbytes.max(1) as f64
    );
    ExitCode::SUCCESS
}
