//! npy-arrow's integration tests: the mapping checked against pyarrow (`pyarrow.rs`), the
//! rules the format fixes without Python (`rules.rs`), and hostile Arrow/Parquet input
//! (`hostile.rs`; `budgets.rs`, issue 42's inputs that would size memory, disk, time or stack,
//! the Parquet ones built by `pq.rs`), and arrays that are no file (`streams.rs`).

mod budgets;
mod hostile;
mod layout;
#[cfg(feature = "parquet")]
mod pq;
#[cfg(feature = "parquet")]
mod pyarrow;
#[cfg(feature = "parquet")]
mod roundtrip;
mod rules;
mod streams;

use std::path::PathBuf;
use std::process::Command;

/// The project's Python when it also imports pyarrow, else `None` after saying NOT CHECKED
/// (a failure under `NPY_REQUIRE_PYTHON=1`, as for numpy).
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn pyarrow_python(what: &str) -> Option<PathBuf> {
    let python = npy_test_support::python::python_for(what)?;
    let ok = Command::new(&python)
        .args(["-c", "import pyarrow"])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var_os("NPY_REQUIRE_PYTHON").is_none_or(|v| v != "1"),
        "{what} needs pyarrow in the project's Python (xtask/requirements.txt; `cargo xtask venv`)"
    );
    eprintln!(
        "NOT CHECKED: {what}: {} has no pyarrow (run `cargo xtask venv`)",
        python.display()
    );
    None
}
