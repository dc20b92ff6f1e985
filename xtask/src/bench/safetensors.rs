//! The safetensors targets of issue 26, measured as whole processes like [`super::convert`]:
//! `npy convert A.npz A.safetensors` (release build) against Python's
//! `save_file(dict(np.load(f)), out)` (safetensors 0.8.0), on an archive of 1 GiB of float32
//! (16 random members of (4096, 4096)), stored (`np.savez`) and deflated
//! (`np.savez_compressed`), in the write benchmarks' folder (tmpfs where it exists).
//! Targets: at most half Python's time, peak RSS under 64 MiB. `--quick` uses a quarter of the
//! size (4 members) and 3 runs. Inputs and outputs are removed afterwards.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::show::{build_npy, load_average, run, target_row};
use crate::python::numpy_python;

/// Measures both archives; returns `{"stored": {...}, "deflated": {...}, "gib": .., "load": ..}`.
pub fn measure(quick: bool) -> Result<Value, String> {
    let dir = npy_bench::write_dir().map_err(|e| format!("write directory: {e}"))?;
    let members = if quick { 4 } else { 16 };
    let files: Vec<PathBuf> = [
        "st_in.npz",
        "st_in_z.npz",
        "st_ours.safetensors",
        "st_py.safetensors",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    let result = measure_in(&files, members, quick);
    for f in &files {
        let _ = std::fs::remove_file(f);
    }
    result
}

fn measure_in(files: &[PathBuf], members: usize, quick: bool) -> Result<Value, String> {
    let [stored, deflated, ours, py] = [&files[0], &files[1], &files[2], &files[3]];
    let python = numpy_python()?;
    eprintln!(
        "xtask: writing {} and {}",
        stored.display(),
        deflated.display()
    );
    let make = format!(
        "import numpy as np\nrng = np.random.default_rng(26)\n\
         a = {{f'w{{i:02}}': rng.standard_normal((4096, 4096), dtype=np.float32) for i in range({members})}}\n\
         np.savez({:?}, **a)\nnp.savez_compressed({:?}, **a)\n",
        stored.display().to_string(),
        deflated.display().to_string()
    );
    let status = Command::new(&python)
        .args(["-c", &make])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("making the archives failed ({status})"));
    }
    let npy = build_npy()?;
    let runs = if quick { 3 } else { 5 };
    let mut out = serde_json::Map::new();
    for (case, input) in [("stored", stored), ("deflated", deflated)] {
        eprintln!(
            "xtask: timing npy convert and save_file on {}",
            input.display()
        );
        let code = format!(
            "import numpy as np\nfrom safetensors.numpy import save_file\n\
             save_file(dict(np.load({:?})), {:?})\n",
            input.display().to_string(),
            py.display().to_string()
        );
        let ours_t = timed(
            Command::new(&npy).arg("convert").arg(input).arg(ours),
            ours,
            runs,
        )?;
        let py_t = timed(Command::new(&python).args(["-c", &code]), py, runs.min(3))?;
        if !same_bytes(ours, py).map_err(|e| format!("comparing the outputs: {e}"))? {
            return Err(format!("{case}: our output differs from save_file's"));
        }
        out.insert(case.to_owned(), json!({ "ours": ours_t, "python": py_t }));
    }
    out.insert("gib".to_owned(), json!(members as f64 / 16.0));
    out.insert("load".to_owned(), json!(load_average()));
    Ok(Value::Object(out))
}

/// Whether two files hold the same bytes, compared 1 MiB at a time: reading them whole would
/// grow this process, and a child forked afterwards starts its peak RSS from its parent's
/// (Linux's `ru_maxrss`), which would corrupt the next measurements.
fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(false);
    }
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = fa.read(&mut ba)?;
        if n == 0 {
            return Ok(true);
        }
        fb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// [`run`] `runs` times, each after removing `output`; the median time, the largest peak.
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

/// The table's section: both archives against their targets.
pub fn render(v: &Value) -> String {
    let mut out = format!(
        "`npy convert A.npz A.safetensors` of {} GiB of float32 (4096 x 4096 members) in tmpfs, \
         whole processes, output identical to Python's (load average {} when measured):\n\n\
         | operation | ours | peer | ours/peer (target) | our peak RSS (target) |\n\
         |---|--:|--:|--:|--:|\n",
        v["gib"],
        v["load"].as_str().unwrap_or("?")
    );
    for (name, case) in [
        ("stored `.npz` vs `save_file(dict(np.load(f)))`", "stored"),
        (
            "deflated `.npz` vs `save_file(dict(np.load(f)))`",
            "deflated",
        ),
    ] {
        out.push_str(&target_row(
            name,
            &v[case]["ours"],
            &v[case]["python"],
            0.5,
            64.0,
        ));
    }
    out
}

/// Where the measurements are kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("safetensors.json")
}
