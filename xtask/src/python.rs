//! Finding a Python interpreter with the pinned numpy version.
//!
//! [`numpy_python`] prefers the system `python3` when its numpy is exactly
//! [`NUMPY_VERSION`]; otherwise it uses (creating it if needed) a virtual
//! environment in `target/xtask-venv` with `numpy==NUMPY_VERSION` installed
//! from PyPI. numpy is never installed system-wide.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The numpy version every fixture and interop check is pinned to.
pub const NUMPY_VERSION: &str = "2.4.6";

/// The system interpreter that is tried first and used to create the venv.
const SYSTEM_PYTHON: &str = "python3";

/// Directory of the xtask virtual environment: `<target>/xtask-venv`.
pub fn venv_dir() -> PathBuf {
    crate::target_dir().join("xtask-venv")
}

/// Path of the Python interpreter inside a virtual environment.
pub fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// What `python -c 'import numpy'` reports: the numpy version and the absolute
/// path of the interpreter (`sys.executable`), or `None` if Python cannot run or
/// has no numpy.
pub fn probe_numpy(python: &Path) -> Option<(String, PathBuf)> {
    let output = Command::new(python)
        .args([
            "-c",
            "import sys, numpy; print(numpy.__version__); print(sys.executable)",
        ])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let stdout = String::from_utf8(output.stdout).ok()?;
    let mut lines = stdout.lines();
    let version = lines.next()?.trim().to_string();
    let executable = lines.next().map(str::trim).unwrap_or_default();
    let executable = if executable.is_empty() {
        python.to_path_buf()
    } else {
        PathBuf::from(executable)
    };
    Some((version, executable))
}

/// Returns a Python interpreter whose numpy is exactly [`NUMPY_VERSION`].
///
/// 1. `python3`, if its numpy is exactly [`NUMPY_VERSION`];
/// 2. otherwise the venv in [`venv_dir`], created with `python3 -m venv` if it
///    does not exist (or is broken), with `numpy==NUMPY_VERSION` installed by pip
///    if it is missing or a different version.
///
/// Prints what it does to stderr.
pub fn numpy_python() -> Result<PathBuf, String> {
    match probe_numpy(Path::new(SYSTEM_PYTHON)) {
        Some((version, exe)) if version == NUMPY_VERSION => {
            eprintln!("xtask: using {} (numpy {version})", exe.display());
            return Ok(exe);
        }
        Some((version, exe)) => eprintln!(
            "xtask: {} has numpy {version}, need {NUMPY_VERSION}; using the xtask venv",
            exe.display()
        ),
        None => eprintln!(
            "xtask: `{SYSTEM_PYTHON}` has no numpy (or did not run); using the xtask venv"
        ),
    }

    let venv = venv_dir();
    let python = venv_python(&venv);
    if let Some((version, _)) = probe_numpy(&python) {
        if version == NUMPY_VERSION {
            eprintln!("xtask: reusing venv {} (numpy {version})", venv.display());
            return Ok(python);
        }
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

    eprintln!(
        "xtask: installing numpy=={NUMPY_VERSION} into {}",
        venv.display()
    );
    let status = Command::new(&python)
        .args(["-m", "pip", "install", "--disable-pip-version-check"])
        .arg(format!("numpy=={NUMPY_VERSION}"))
        .status()
        .map_err(|e| format!("cannot run pip in {}: {e}", venv.display()))?;
    if !status.success() {
        return Err(format!(
            "`pip install numpy=={NUMPY_VERSION}` failed in {} ({status})",
            venv.display()
        ));
    }

    match probe_numpy(&python) {
        Some((version, _)) if version == NUMPY_VERSION => Ok(python),
        Some((version, _)) => Err(format!(
            "venv {} has numpy {version} after installing {NUMPY_VERSION}",
            venv.display()
        )),
        None => Err(format!(
            "numpy is not importable in venv {} after installing it",
            venv.display()
        )),
    }
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
