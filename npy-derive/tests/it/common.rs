//! The manifest's record values as the derive tests compare them (expected values are numpy's,
//! from `fixtures/manifest.json`).

use serde_json::Value;

pub use npy_test_support::{entry, fixture};

/// The manifest's `data` of `file`: its records (a 0-d array's one record as a list of one).
pub fn records(file: &str) -> Vec<Value> {
    match &entry(file)["data"] {
        Value::Array(a) => a.clone(),
        one => vec![one.clone()],
    }
}

/// A manifest float: a number, or "nan" / "inf" / "-inf".
pub fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            s => panic!("unexpected float {s}"),
        },
        v => v.as_f64().unwrap(),
    }
}

/// `a` is the manifest's float, bit for bit (any NaN for a NaN).
pub fn same_f64(a: f64, v: &Value) {
    let b = num(v);
    assert!(
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
        "{a} != {b}"
    );
}

/// [`same_f64`] of an `f32`.
pub fn same_f32(a: f32, v: &Value) {
    same_f64(f64::from(a), v);
}

/// A manifest integer.
pub fn int(v: &Value) -> i64 {
    v.as_i64().unwrap()
}
