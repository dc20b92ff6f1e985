//! The project's own Python: the one place tests and xtask find an interpreter with the pinned
//! numpy (and the other packages `xtask/requirements.txt` pins), never whatever `python3` happens
//! to be on `PATH`.
//!
//! The environment is a virtual environment in `<target>/xtask-venv`, made by `cargo xtask venv`
//! (every xtask subcommand that runs Python makes it too). Tests look it up with
//! [`python_for`]:
//!
//! - `NPY_PYTHON` names an interpreter to use instead (it must have the pinned numpy);
//! - when no pinned interpreter is found, the check that needs it says so on stderr and the test
//!   goes on without that check, unless `NPY_REQUIRE_PYTHON=1` is set, as `.ci/run` sets it for
//!   its second run: there a missing interpreter fails the test.
//!
//! So `cargo test` (and `--workspace`) passes on a machine whose Python has no numpy, and CI proves both
//! halves: the README's command with no numpy anywhere, then every numpy-backed check.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The numpy version every fixture and interop check is pinned to.
pub const NUMPY_VERSION: &str = "2.4.6";

/// The pinned requirements of the project's Python environment (`xtask/requirements.txt`).
pub const REQUIREMENTS: &str = include_str!("../../xtask/requirements.txt");

/// The variable that names an interpreter to use instead of the venv.
pub const PYTHON_VAR: &str = "NPY_PYTHON";

/// The variable that turns a missing interpreter into a test failure (`1`).
pub const REQUIRE_VAR: &str = "NPY_REQUIRE_PYTHON";

/// The workspace's target directory: `CARGO_TARGET_DIR` if set (relative to the workspace
/// root), else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => crate::workspace_root().join(dir),
        _ => crate::workspace_root().join("target"),
    }
}

/// `<target>/xtask-venv`, the project's Python environment.
pub fn venv_dir() -> PathBuf {
    target_dir().join("xtask-venv")
}

/// The interpreter inside the virtual environment `venv`.
pub fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// The numpy version `python` imports, or `None` when it does not run or has no numpy.
pub fn numpy_version(python: &Path) -> Option<String> {
    let out = Command::new(python)
        .args(["-c", "import numpy; print(numpy.__version__)"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

/// The project's pinned interpreter, if there is one: `NPY_PYTHON`, else the venv's, in either
/// case only when it imports numpy [`NUMPY_VERSION`]. Looked up once per process.
///
/// # Errors
/// The reason there is none, to print.
pub fn pinned_python() -> Result<PathBuf, String> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let python = match std::env::var_os(PYTHON_VAR) {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => {
                    // A venv installed from other pins (before a package was added to
                    // requirements.txt) lacks what the checks import: stale, not pinned.
                    let venv = venv_dir();
                    let stamp = venv.join("npy-requirements.txt");
                    if venv.exists()
                        && !std::fs::read_to_string(&stamp).is_ok_and(|s| s == REQUIREMENTS)
                    {
                        return Err(format!(
                            "{} was installed from other pins than xtask/requirements.txt (run `cargo xtask venv`)",
                            venv.display()
                        ));
                    }
                    venv_python(&venv)
                }
            };
            match numpy_version(&python) {
                Some(v) if v == NUMPY_VERSION => Ok(python),
                Some(v) => Err(format!(
                    "{} has numpy {v}, not the pinned {NUMPY_VERSION}",
                    python.display()
                )),
                None => Err(format!(
                    "{} is missing or has no numpy (run `cargo xtask venv` to make it)",
                    python.display()
                )),
            }
        })
        .clone()
}

/// The pinned interpreter for the check named `what`, or `None` after saying on stderr that
/// the check did not run and why.
///
/// # Panics
/// When `NPY_REQUIRE_PYTHON=1` and there is no pinned interpreter: CI must run every check.
pub fn python_for(what: &str) -> Option<PathBuf> {
    match pinned_python() {
        Ok(p) => Some(p),
        Err(why) => {
            assert!(
                std::env::var_os(REQUIRE_VAR).is_none_or(|v| v != "1"),
                "{what} needs the project's Python and {REQUIRE_VAR}=1 is set: {why}"
            );
            // Written to the process's stderr directly, not through `eprintln!`, which the test
            // harness captures and shows only for failing tests: a skipped check must show.
            let _ = writeln!(std::io::stderr(), "NOT CHECKED: {what}: {why}");
            None
        }
    }
}

/// Runs `script` (`python -c`) with `args` and returns its stdout.
///
/// # Panics
/// When the interpreter cannot start or the script fails (its stderr in the message), or its
/// stdout is not UTF-8: a check against Python must not pass on a broken run.
pub fn run_script<A: AsRef<std::ffi::OsStr>>(
    python: &Path,
    script: &str,
    args: impl IntoIterator<Item = A>,
) -> String {
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("the pinned Python starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the script prints UTF-8")
}
