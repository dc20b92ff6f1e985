//! The non-contiguous write target of issue 10 (report R9): `npy_core::write_ndarray` of a
//! 1 GiB `u8` view that is neither C- nor F-contiguous, against numpy's `np.save` of the same
//! transposed array. Each side measures itself in its own process (npy-bench's `write_view`
//! binary, `xtask/bench_write_view.py`): the write's wall time and the peak resident set
//! (`VmHWM`) before and after it, so that building the array does not count as the write.
//! Both files are then compared byte for byte and deleted.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::python::numpy_python;
use crate::{target_dir, workspace_root};

/// Side of the cube: 1024³ bytes = 1 GiB (the size).
const N: &str = "1024";

/// Measures both writes once each; `{"ours": {...}, "numpy": {...}, "same_bytes": bool}`.
pub fn measure() -> Result<Value, String> {
    let status = super::cargo()
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "npy-bench",
            "--bin",
            "write_view",
        ])
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("building write_view failed ({status})"));
    }
    let dir = npy_bench::write_dir().map_err(|e| format!("write directory: {e}"))?;
    let (ours_path, numpy_path) = (
        dir.join("write_view_ours.npy"),
        dir.join("write_view_numpy.npy"),
    );
    eprintln!("xtask: write_ndarray of a non-contiguous 1 GiB view, then numpy's np.save");
    let ours = run(Command::new(target_dir().join("release").join("write_view")).arg(&ours_path))?;
    let numpy = run(Command::new(numpy_python()?)
        .arg(workspace_root().join("xtask").join("bench_write_view.py"))
        .arg(&numpy_path))?;
    let same = same_bytes(&ours_path, &numpy_path);
    let _ = std::fs::remove_file(&ours_path);
    let _ = std::fs::remove_file(&numpy_path);
    Ok(json!({ "ours": ours, "numpy": numpy, "same_bytes": same? }))
}

fn run(cmd: &mut Command) -> Result<Value, String> {
    let out = cmd
        .args([N])
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{cmd:?}: {e}"))
}

/// Whether the two files hold the same bytes (read 8 MiB at a time).
fn same_bytes(a: &Path, b: &Path) -> Result<bool, String> {
    let open = |p: &Path| std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()));
    let (mut fa, mut fb) = (open(a)?, open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 8 << 20], vec![0u8; 8 << 20]);
    loop {
        let na = read_full(&mut fa, &mut ba).map_err(|e| format!("{}: {e}", a.display()))?;
        let nb = read_full(&mut fb, &mut bb).map_err(|e| format!("{}: {e}", b.display()))?;
        if na != nb || ba[..na] != bb[..nb] {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
    }
}

fn read_full(f: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The table's section: time against numpy's, peak against the array's size.
pub fn render(v: &Value) -> String {
    let seconds = |who: &str| v[who]["seconds"].as_f64();
    let array = v["ours"]["array_bytes"].as_f64();
    let peak = |who: &str| v[who]["hwm_after_kib"].as_f64().map(|k| k * 1024.0);
    let ratio = seconds("ours").zip(seconds("numpy")).map(|(a, b)| a / b);
    let mem = peak("ours").zip(array).map(|(p, a)| p / a);
    let verdict = |ok: Option<bool>| match ok {
        Some(true) => "met",
        Some(false) => "missed",
        None => "not measured",
    };
    format!(
        "`write_ndarray` of a non-contiguous 1 GiB view (`u8`, shape (1024, 1024, 1024) in \
         Fortran order, `permuted_axes([1, 2, 0])`) against `np.save(f, a.transpose(1, 2, 0))`, \
         one run each, peak resident set of the whole process over the array's size:\n\n\
         | operation | ours | numpy | ours/numpy (target ≤ 1.0×) | our peak / array (target ≤ 1.1×) | numpy's peak / array | same bytes |\n\
         |---|--:|--:|--:|--:|--:|---|\n\
         | write a non-contiguous 1 GiB view | {} | {} | {} (**{}**) | {} (**{}**) | {} | {} |\n",
        super::cell(seconds("ours")),
        super::cell(seconds("numpy")),
        ratio.map_or("–".into(), |r| format!("{r:.3}×")),
        verdict(ratio.map(|r| r <= 1.0)),
        mem.map_or("–".into(), |r| format!("{r:.3}×")),
        verdict(mem.map(|r| r <= 1.1)),
        peak("numpy")
            .zip(array)
            .map_or("–".into(), |(p, a)| format!("{:.3}×", p / a)),
        match v["same_bytes"].as_bool() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "?",
        },
    )
}

/// Where the measurement is kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("write_view.json")
}
