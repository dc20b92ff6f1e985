//! `cargo xtask miri`: npy-core's tests that reach byte reinterpretation (bulk casts, byte
//! swaps, views) under Miri, to catch undefined behaviour the compiler would not.
//!
//! Runs `cargo +nightly miri test -p npy-core` over the library's unit tests, `tests/view.rs`
//! (its manifest-parsing tests are `#[cfg_attr(miri, ignore)]`: minutes under Miri) and
//! `tests/miri_paths.rs` (every bulk type in both byte orders through in-memory buffers), then
//! npy-derive's `tests/pod.rs` (`#[npy(pod)]` records read, written and viewed in bulk).
//! Isolation is disabled because the view tests read fixture files. Needs the nightly
//! toolchain with the `miri` component (`rustup +nightly component add miri`).
//!
//! Not in `.ci/run`: about 3 minutes on an idle 2-core machine, but 12 when other builds
//! share it, and CI would need nightly and Miri installed.

use std::process::Command;
use std::time::Instant;

use crate::workspace_root;

/// Runs the Miri test set; the flags' test arguments are passed to the test binaries.
pub fn run(flags: &crate::flags::Miri) -> Result<(), String> {
    let args = &flags.test_args;
    let start = Instant::now();
    let mut flags = std::env::var("MIRIFLAGS").unwrap_or_default();
    if !flags.contains("-Zmiri-disable-isolation") {
        flags.push_str(" -Zmiri-disable-isolation");
    }
    let sets: [&[&str]; 2] = [
        &[
            "-p",
            "npy-core",
            "--lib",
            "--test",
            "view",
            "--test",
            "miri_paths",
        ],
        // `#[npy(pod)]` records cast to and from bytes (the manifest tests are ignored).
        &["-p", "npy-derive", "--test", "pod"],
    ];
    for set in sets {
        let mut cmd = Command::new("cargo");
        cmd.current_dir(workspace_root())
            .args(["+nightly", "miri", "test"])
            .args(set);
        if !args.is_empty() {
            cmd.arg("--").args(args);
        }
        cmd.env("MIRIFLAGS", flags.trim());
        let status = cmd
            .status()
            .map_err(|e| format!("running cargo +nightly miri: {e}"))?;
        if !status.success() {
            return Err(format!(
                "cargo +nightly miri test failed ({status}); is the miri component installed? \
                 `rustup +nightly component add miri`"
            ));
        }
    }
    eprintln!("xtask miri: passed in {:.0?}", start.elapsed());
    Ok(())
}
