//! The project's Python environment for xtask: a virtual environment in `target/xtask-venv`
//! with the packages `xtask/requirements.txt` pins (numpy [`NUMPY_VERSION`] among them),
//! made from the system `python3` when missing and brought up to date when a pin changes.
//! Tests find the same environment through `npy_test_support::python`; the system Python's own
//! packages are never used.

use std::path::{Path, PathBuf};
use std::process::Command;

pub use npy_test_support::python::{venv_dir, venv_python, NUMPY_VERSION, REQUIREMENTS};

/// The system interpreter the venv is made with.
const SYSTEM_PYTHON: &str = "python3";

/// Returns the venv's interpreter, making the venv (`python3 -m venv`) and installing
/// `xtask/requirements.txt` into it when it is missing, broken or installed from other pins.
/// A stamp file in the venv holds the requirements last installed.
///
/// Prints what it does to stderr.
pub fn numpy_python() -> Result<PathBuf, String> {
    let venv = venv_dir();
    let python = venv_python(&venv);
    let stamp = venv.join("npy-requirements.txt");
    if runs(&python) && std::fs::read_to_string(&stamp).is_ok_and(|s| s == REQUIREMENTS) {
        return Ok(python);
    }
    if !runs(&python) {
        if venv.exists() {
            eprintln!("xtask: venv {} is broken; recreating it", venv.display());
            std::fs::remove_dir_all(&venv)
                .map_err(|e| format!("cannot remove {}: {e}", venv.display()))?;
        }
        eprintln!(
            "xtask: creating venv {} ({SYSTEM_PYTHON} -m venv)",
            venv.display()
        );
        let status = Command::new(SYSTEM_PYTHON)
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status()
            .map_err(|e| format!("cannot run `{SYSTEM_PYTHON} -m venv`: {e}"))?;
        if !status.success() {
            return Err(format!(
                "`{SYSTEM_PYTHON} -m venv {}` failed ({status})",
                venv.display()
            ));
        }
    }
    let requirements = crate::workspace_root()
        .join("xtask")
        .join("requirements.txt");
    eprintln!(
        "xtask: installing {} into {}",
        requirements.display(),
        venv.display()
    );
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "--disable-pip-version-check", "-r"])
        .arg(&requirements)
        .status()
        .map_err(|e| format!("cannot run pip in {}: {e}", venv.display()))?;
    if !status.success() {
        return Err(format!(
            "`pip install -r {}` failed in {} ({status})",
            requirements.display(),
            venv.display()
        ));
    }
    match npy_test_support::python::numpy_version(&python) {
        Some(version) if version == NUMPY_VERSION => {}
        Some(version) => {
            return Err(format!(
                "venv {} has numpy {version} after installing {NUMPY_VERSION}",
                venv.display()
            ))
        }
        None => {
            return Err(format!(
                "numpy is not importable in venv {} after installing it",
                venv.display()
            ))
        }
    }
    std::fs::write(&stamp, REQUIREMENTS)
        .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(python)
}

/// Whether `python --version` runs successfully.
fn runs(python: &Path) -> bool {
    Command::new(python)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `xtask/<script>` with `python` and `args`, from the workspace root, with a fixed hash
/// seed and no bytecode files.
///
/// # Errors
/// When Python cannot start, or the script exits with a failure (it printed why).
pub fn run_script<I, S>(python: &Path, script: &str, args: I) -> Result<(), String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let path = crate::workspace_root().join("xtask").join(script);
    let status = Command::new(python)
        .arg(&path)
        .args(args)
        .current_dir(crate::workspace_root())
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} reported failures ({status})", path.display()))
    }
}
