//! The fixture directory and its JSON tables.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// `fixtures/parity/`.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/parity")
}

/// The path of a file of `fixtures/parity/`.
pub fn path(name: &str) -> PathBuf {
    dir().join(name)
}

/// The rows under `key` of the table `name`.
pub fn rows(name: &str, key: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let table: Json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    table[key]
        .as_array()
        .unwrap_or_else(|| panic!("{name} has no {key:?} list"))
        .clone()
}

/// Panics listing every failure (at most 40 shown) when there are any.
pub fn report(what: &str, checked: usize, failures: &[String]) {
    assert!(checked > 0, "{what}: nothing checked");
    if failures.is_empty() {
        return;
    }
    let shown: Vec<&str> = failures.iter().take(40).map(String::as_str).collect();
    panic!(
        "{what}: {} of {checked} rows differ from numpy:\n  {}",
        failures.len(),
        shown.join("\n  ")
    );
}
