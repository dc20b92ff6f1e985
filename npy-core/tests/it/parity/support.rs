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

/// The manifest entries of `fixtures/parity/manifest.json` of one `kind`.
pub fn files(kind: &str) -> Vec<Json> {
    let files: Vec<Json> = rows("manifest.json", "files")
        .into_iter()
        .filter(|f| f["kind"] == kind)
        .collect();
    assert!(!files.is_empty(), "no {kind:?} files in the manifest");
    files
}

/// `a.tolist()` as `fixtures_parity.py` writes it to JSON (`tolist_json`): nested lists in C
/// order, records and subarrays as lists. Bools and integers only (the kinds compared this
/// way); anything else is `null`, which no numpy row holds.
pub fn tolist(a: &npy_core::DynArray) -> Json {
    fn leaf(v: &npy_core::DynValue) -> Json {
        use npy_core::DynValue;
        match v {
            DynValue::Bool(b) => Json::from(*b),
            DynValue::Int(i) => Json::from(*i),
            DynValue::UInt(u) => Json::from(*u),
            DynValue::Record(fields) => fields.iter().map(|(_, v)| leaf(v)).collect(),
            DynValue::SubArray { shape, values } => nest(shape, &mut values.iter().map(leaf)),
            _ => Json::Null,
        }
    }
    nest(a.shape(), &mut a.iter_c_order().map(|v| leaf(&v)))
}

/// Nested lists of `shape` from leaves in C order (the leaf itself for an empty shape).
fn nest(shape: &[u64], leaves: &mut impl Iterator<Item = Json>) -> Json {
    match shape.split_first() {
        None => leaves.next().unwrap_or(Json::Null),
        Some((&n, rest)) => Json::Array((0..n).map(|_| nest(rest, leaves)).collect()),
    }
}
