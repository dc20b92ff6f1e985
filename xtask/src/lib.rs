//! Maintainer tasks for the npy workspace, run as `cargo xtask <subcommand>`
//! (the alias lives in `.cargo/config.toml`).
//!
//! The command line is declared once in [`flags`] (its doc comments are the `--help`); each
//! subcommand is a module with a `run` entry point taking its flags:
//!
//! - [`fixtures`]: regenerate (or `--check`) the NumPy fixture set in `fixtures/`
//!   with `xtask/fixtures.py`.
//! - [`interop`]: write every simple-dtype fixture again with npy-core and check with numpy
//!   (`xtask/interop.py`) that it loads the same and that the bytes are numpy's;
//!   [`interop_npz`] does the same for the `.npz` archives (through `np.load` and `zipfile`).
//! - [`bench`](mod@bench): the npy-bench criterion suite, numpy's `np.load`/`np.save` (`xtask/bench_numpy.py`)
//!   and peak memory in one table, written into `npy-bench/README.md`.
//! - [`msrv`]: every resolved dependency declares a `rust-version` no newer than ours.
//! - [`miri`]: npy-core's byte-reinterpreting paths (bulk casts, swaps, views) under Miri.
//! - [`unicode`]: the table of code points Python's `repr` escapes, from Python's own
//!   Unicode database.
//! - [`fuzz`](mod@fuzz): the cargo-fuzz targets of `fuzz/`, seeded and bounded, for N minutes each.
//! - [`size`]: each published crate's non-test lines and root names (issue 40's measures).
//!
//! Shared helpers:
//!
//! - [`python`]: the project's Python environment (`target/xtask-venv`, from
//!   `xtask/requirements.txt`), made by `cargo xtask venv` or by any subcommand that runs
//!   Python ([`python::numpy_python`]).
//!
//! The crate depends on `std`, on npy-core (`interop`), and on npy-bench and `serde_json`
//! (`bench`).

// Lint policy for xtask (see README.md "Checks"): its public items are public only for the
// `cargo xtask` binary; every step's error is the message printed to the maintainer, so a
// per-function `# Errors` section would repeat "the step failed".
#![allow(clippy::missing_errors_doc)]

pub mod bench;
pub mod fixtures;
pub mod flags;
pub mod fuzz;
pub mod interop;
pub mod interop_npz;
pub mod miri;
pub mod msrv;
pub mod python;
pub mod size;
pub mod unicode;

use std::path::PathBuf;

/// The workspace root (the parent of the `xtask` crate directory).
pub fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set (relative paths are taken
/// from the workspace root), otherwise `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    npy_test_support::python::target_dir()
}
