//! Shared by the memory tests: run `npy` and read the child's peak resident set (`wait4`'s
//! rusage; std has none).

use std::process::{Command, Stdio};

/// Runs `npy ARGS`; returns (exit code, stdout when `stdout`, peak resident set in bytes).
pub fn run_npy(args: &[&std::ffi::OsStr], stdout: bool) -> (i32, String, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(args)
        .stdout(if stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run npy");
    // Waited for by wait4 below, which clippy's zombie check does not see.
    let mut child = child;
    let mut out = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        std::io::Read::read_to_string(&mut pipe, &mut out).expect("read stdout");
    }
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for (`child` is never waited on); the
    // pointers are to live locals of the right types.
    let got = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(got, pid, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    // Linux reports ru_maxrss in KiB.
    (code, out, usage.ru_maxrss as u64 * 1024)
}
