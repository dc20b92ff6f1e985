//! `npy show` against numpy on random arrays: the differential check of the text and JSON
//! forms.
//!
//! Builds the `npy` binary, then `xtask/show_numpy.py` writes seeded random arrays over every
//! dtype, shape and value class into `<target>/interop/show/` and compares `npy show` with
//! numpy's `str()` and `npy show --json` with `tolist()` (its docstring lists the cases and
//! the narrow exclusions); mismatches print the file, both texts and a diff.

use std::fs;
use std::process::Command;

use crate::python::numpy_python;
use crate::{target_dir, workspace_root};

/// Compares `count` random arrays made from `seed`.
pub fn run(seed: u64, count: u32) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["build", "-q", "-p", "npy-cli", "--bin", "npy"])
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("building npy failed ({status})"));
    }
    let npy = target_dir().join("debug").join("npy");
    let out_dir = target_dir().join("interop").join("show");
    if out_dir.exists() {
        fs::remove_dir_all(&out_dir)
            .map_err(|e| format!("cannot remove {}: {e}", out_dir.display()))?;
    }
    fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let args = [
        out_dir.into_os_string(),
        npy.into_os_string(),
        seed.to_string().into(),
        count.to_string().into(),
    ];
    crate::python::run_script(&numpy_python()?, "show_numpy.py", args)
}
