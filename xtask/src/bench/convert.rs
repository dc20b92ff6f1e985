//! The `npy convert` targets of issue 10, measured as whole processes like [`super::show`]:
//! wall time and peak resident set of `npy convert` (release build) against numpy and `cp`,
//! on a 512 MiB float32 file of shape (8192, 16384) in C order, written to the write
//! benchmarks' folder (`npy_bench::write_dir`: tmpfs `/dev/shm` where it exists, so the
//! figures are the programs' and the page cache's, not the disk's; the output's fsync is then
//! free).
//!
//! - order: `npy convert --order F` against
//!   `np.save(out, np.asfortranarray(np.load(f)))` (target: at most half numpy's time, peak
//!   under 128 MiB);
//! - byte order: `npy convert --byte-order big` against `cp` of the file (target: at most
//!   1.3 × `cp`'s time, peak under 128 MiB).
//!
//! The input and outputs are removed afterwards (1.5 GiB of tmpfs otherwise).

use std::path::{Path, PathBuf};
use std::process::Command;

use npy_core::WriteOptions;
use serde_json::{json, Value};

use super::show::{build_npy, load_average, run, target_row};
use crate::python::numpy_python;

/// The input's shape: 8192 × 16384 float32 values, 512 MiB.
const SHAPE: [u64; 2] = [8192, 16384];

/// Measures the targets; returns `{"order": {...}, "byte_order": {...}, "load": ...}`.
pub fn measure(quick: bool) -> Result<Value, String> {
    let dir = npy_bench::write_dir().map_err(|e| format!("write directory: {e}"))?;
    let input = dir.join("convert_f32_8192x16384.npy");
    let outputs = ["ours_f.npy", "numpy_f.npy", "ours_be.npy", "cp.npy"].map(|o| dir.join(o));
    let result = measure_in(&input, &outputs, quick);
    for f in outputs.iter().chain([&input]) {
        let _ = std::fs::remove_file(f);
    }
    result
}

fn measure_in(input: &Path, outputs: &[PathBuf; 4], quick: bool) -> Result<Value, String> {
    eprintln!("xtask: writing {}", input.display());
    write_input(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let npy = build_npy()?;
    let python = numpy_python()?;
    let runs = if quick { 3 } else { 5 };
    let [ours_f, numpy_f, ours_be, cp] = outputs;
    let py = format!(
        "import numpy as np; np.save({:?}, np.asfortranarray(np.load({:?})))",
        numpy_f.display().to_string(),
        input.display().to_string()
    );
    eprintln!(
        "xtask: timing npy convert, numpy and cp on {}",
        input.display()
    );
    let order = json!({
        "ours": timed(Command::new(&npy).args(["convert", "--order", "F"]).arg(input).arg(ours_f), ours_f, runs)?,
        "numpy": timed(Command::new(&python).args(["-c", &py]), numpy_f, runs.min(3))?,
    });
    let byte_order = json!({
        "ours": timed(Command::new(&npy).args(["convert", "--byte-order", "big"]).arg(input).arg(ours_be), ours_be, runs)?,
        "cp": timed(Command::new("cp").arg(input).arg(cp), cp, runs)?,
    });
    Ok(json!({ "order": order, "byte_order": byte_order, "load": load_average() }))
}

/// [`run`] `runs` times, each after removing `output`: every program writes into free tmpfs
/// pages. (Overwriting is not equal: `cp` truncates its old output, freeing 512 MiB, before it
/// writes; an atomic replacement frees the old file only at its rename, so while it writes the
/// kernel may have to reclaim memory. Measured: `npy convert --byte-order big` 0.21–0.24 s
/// after a `cp`, 0.35–0.58 s run after itself.)
fn timed(cmd: &mut Command, output: &Path, runs: usize) -> Result<Value, String> {
    let mut times = Vec::new();
    let mut peak = 0f64;
    for _ in 0..runs {
        let _ = std::fs::remove_file(output);
        let one = run(cmd, 1)?;
        times.push(one["seconds"].as_f64().unwrap_or(f64::NAN));
        peak = peak.max(one["peak_bytes"].as_f64().unwrap_or(0.0));
    }
    Ok(json!({ "seconds": super::show::median(&mut times), "peak_bytes": peak }))
}

/// Values `i as f32` at C index `i`, written in rows.
fn write_input(path: &Path) -> Result<(), npy_core::Error> {
    let mut w = WriteOptions::new().create_stream::<f32>(path, &SHAPE)?;
    let mut row = Vec::with_capacity(SHAPE[1] as usize);
    for r in 0..SHAPE[0] {
        row.clear();
        row.extend((0..SHAPE[1]).map(|c| (r * SHAPE[1] + c) as f32));
        w.extend_from_slice(&row)?;
    }
    w.finish()
}

/// The table's section: both conversions against their targets.
pub fn render(convert: &Value) -> String {
    let mut out = format!(
        "`npy convert` of a 512 MiB (8192, 16384) float32 C-order file in tmpfs, whole processes \
         (load average {} when measured):\n\n\
         | operation | ours | peer | ours/peer (target) | our peak RSS (target) |\n\
         |---|--:|--:|--:|--:|\n",
        convert["load"].as_str().unwrap_or("?")
    );
    for (name, case, peer, max_ratio) in [
        (
            "`npy convert --order F` vs `np.save(out, np.asfortranarray(np.load(f)))`",
            "order",
            "numpy",
            0.5,
        ),
        (
            "`npy convert --byte-order big` vs `cp`",
            "byte_order",
            "cp",
            1.3,
        ),
    ] {
        let (ours, peer) = (&convert[case]["ours"], &convert[case][peer]);
        out.push_str(&target_row(name, ours, peer, max_ratio, 128.0));
    }
    out
}

/// Where the measurements are kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("convert.json")
}
