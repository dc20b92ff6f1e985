//! The `npy show` targets of issue 10, measured as whole processes: wall time and peak
//! resident set (`wait4`'s rusage) of `npy show` (release build) and of numpy doing the same,
//! on `np.arange(100_000_000, dtype=np.float32)` (400 MB, N23).
//!
//! - summary: `npy show FILE` against `python -c "print(np.load(f, mmap_mode='r'))"`;
//! - JSON: `npy show --json FILE > /dev/null` against
//!   `json.dump(np.load(f).tolist(), devnull)`.
//!
//! Each is run `runs` times (the median time and the largest peak are kept); numpy's JSON
//! takes minutes and gigabytes, so it runs once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use npy_core::WriteOptions;
use serde_json::{json, Value};

use crate::python::numpy_python;
use crate::target_dir;

/// Elements of the input: N23's 100,000,000 float32 values.
const ELEMENTS: u64 = 100_000_000;

/// Measures the targets; returns `{"summary": {...}, "json": {...}}` with seconds and bytes.
pub fn measure(data: &Path, quick: bool) -> Result<Value, String> {
    let file = data.join("show_f32_100M.npy");
    if std::fs::metadata(&file).map_or(0, |m| m.len()) < ELEMENTS * 4 {
        eprintln!("xtask: writing {}", file.display());
        write_arange(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    let npy = build_npy()?;
    let python = numpy_python()?;
    let runs = if quick { 3 } else { 5 };
    let f = file.display().to_string();
    let py_summary = format!("import numpy as np; print(np.load({f:?}, mmap_mode='r'))");
    let py_json = format!(
        "import json, os, numpy as np\nwith open(os.devnull, 'w') as d: \
         json.dump(np.load({f:?}).tolist(), d)"
    );
    eprintln!("xtask: timing npy show and numpy on {f}");
    let summary = json!({
        "ours": run(Command::new(&npy).args(["show", &f]), runs)?,
        "numpy": run(Command::new(&python).args(["-c", &py_summary]), runs)?,
    });
    let json_ = json!({
        "ours": run(Command::new(&npy).args(["show", "--json", &f]), runs.min(3))?,
        "numpy": run(Command::new(&python).args(["-c", &py_json]), 1)?,
    });
    Ok(json!({ "summary": summary, "json": json_, "load": load_average() }))
}

/// Builds `npy` (release, `--features full`: the columnar and remote benches run its
/// Parquet and URL paths); returns its path.
pub(super) fn build_npy() -> Result<PathBuf, String> {
    build_npy_with("full")
}

/// Builds the `npy` command (release) with `features`; returns the binary's path.
pub(super) fn build_npy_with(features: &str) -> Result<PathBuf, String> {
    let status = crate::bench::cargo()
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "npy-cli",
            "--features",
            features,
        ])
        .args(["--bin", "npy"])
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building npy --features {features} failed ({status})"
        ));
    }
    Ok(target_dir().join("release").join("npy"))
}

/// `np.arange(ELEMENTS, dtype=np.float32)`, written in rows of 1 Mi elements.
fn write_arange(path: &Path) -> Result<(), npy_core::Error> {
    let row = 1u64 << 20;
    let mut w = WriteOptions::new().create_stream::<f32>(path, &[])?;
    let mut buf = Vec::with_capacity(row as usize);
    let mut i = 0;
    while i < ELEMENTS {
        buf.clear();
        buf.extend((i..(i + row).min(ELEMENTS)).map(|x| x as f32));
        w.extend_from_slice(&buf)?;
        i += row;
    }
    w.finish()
}

/// Runs `cmd` `runs` times with its output to /dev/null: `{"seconds": median, "peak_bytes":
/// largest}`.
pub(super) fn run(cmd: &mut Command, runs: usize) -> Result<Value, String> {
    let mut times = Vec::new();
    let mut peak = 0u64;
    for _ in 0..runs {
        let start = Instant::now();
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
        let (ok, rss) = wait_rusage(child.id())?;
        times.push(start.elapsed().as_secs_f64());
        if !ok {
            return Err(format!("{cmd:?} failed"));
        }
        peak = peak.max(rss);
    }
    Ok(json!({ "seconds": median(&mut times), "peak_bytes": peak }))
}

/// The median of `v` (the upper one of an even count), sorting it; NaN when empty.
pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Waits for the child `pid`: (exited with 0, peak resident set in bytes).
pub(super) fn wait_rusage(pid: u32) -> Result<(bool, u64), String> {
    let pid = pid as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is a child of this process that nobody else waits for; the pointers are
    // to live locals of the right types.
    let got = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    if got != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    // Linux reports ru_maxrss in KiB.
    Ok((ok, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024))
}

pub(super) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

/// The table's section: the four figures against the targets.
pub fn render(show: &Value) -> String {
    let mut out = format!(
        "`npy show` of `np.arange(100_000_000, dtype=np.float32)` (400 MB), whole processes \
         (load average {} when measured):\n\n\
         | operation | ours | numpy | ours/numpy (target) | our peak RSS (target) |\n\
         |---|--:|--:|--:|--:|\n",
        show["load"].as_str().unwrap_or("?")
    );
    for (case, name, numpy, limit) in [
        (
            "summary",
            "`npy show` (summary)",
            "`print(np.load(f, mmap_mode='r'))`",
            50.0,
        ),
        (
            "json",
            "`npy show --json` > /dev/null",
            "`json.dump(np.load(f).tolist(), devnull)`",
            64.0,
        ),
    ] {
        let name = format!("{name} vs {numpy}");
        out.push_str(&target_row(
            &name,
            &show[case]["ours"],
            &show[case]["numpy"],
            1.0,
            limit,
        ));
    }
    out
}

/// A row of a whole-process table: `ours` and `peer` (`{"seconds", "peak_bytes"}`), their
/// time ratio against `max_ratio` and our peak resident set against `limit_mib`, each marked
/// met or missed.
pub(super) fn target_row(
    name: &str,
    ours: &Value,
    peer: &Value,
    max_ratio: f64,
    limit_mib: f64,
) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let seconds = |v: &Value| v["seconds"].as_f64();
    let (a, b) = (seconds(ours), seconds(peer));
    let rss = ours["peak_bytes"].as_f64().map(|b| b / MIB);
    let ratio = a.zip(b).map(|(a, b)| a / b);
    let verdict = |ok: Option<bool>| match ok {
        Some(true) => "met",
        Some(false) => "missed",
        None => "not measured",
    };
    format!(
        "| {name} | {} | {} (peak {}) | {} (≤ {max_ratio:.1}×: **{}**) | {} (< {limit_mib} MiB: **{}**) |\n",
        super::cell(a),
        super::cell(b),
        peer["peak_bytes"].as_f64().map_or("?".into(), |b| format!("{:.0} MiB", b / MIB)),
        ratio.map_or("–".into(), |r| format!("{r:.3}×")),
        verdict(ratio.map(|r| r <= max_ratio)),
        rss.map_or("–".into(), |r| format!("{r:.1} MiB")),
        verdict(rss.map(|r| r < limit_mib)),
    )
}

/// Where the measurements are kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("show.json")
}
