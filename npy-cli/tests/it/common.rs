//! What every module here needs: running the `npy` binary from the workspace root, its output
//! as text, and the fixtures and comparators of `npy-test-support`.

use std::process::{Command, Output};

pub use npy_test_support::dyn_json::same;
pub use npy_test_support::{fixture, manifest};

/// The workspace root: `npy` runs there, so fixture paths may be relative to it.
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `npy ARGS` from the workspace root and waits for it.
pub fn npy<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("run the npy binary")
}

/// The command's standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// The command's standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}
