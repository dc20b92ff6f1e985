//! The manifest's JSON encoding of values (fixtures/README.md), for the tests that compare
//! what `read_dyn` gives with what numpy lists.

use npy_core::{DynArray, DynValue};
use serde_json::{json, Value as Json};

/// A float as the manifest writes it: a number, or "nan", "inf", "-inf".
pub fn float(x: f64) -> Json {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The manifest's encoding of one value (fixtures/README.md).
pub fn to_json(v: &DynValue) -> Json {
    match v {
        DynValue::Bool(b) => json!(b),
        DynValue::Int(i) => json!(i),
        DynValue::UInt(u) => json!(u),
        DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => float(*x),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            json!([float(*re), float(*im)])
        }
        DynValue::Datetime { ticks, .. } | DynValue::Timedelta { ticks, .. } => json!(ticks),
        DynValue::Bytes(b) => json!(b.iter().map(|&c| char::from(c)).collect::<String>()),
        DynValue::Str(s) => json!(s.to_string_lossy()),
        DynValue::Void(b) => json!(hex(b)),
        DynValue::Record(fields) => Json::Object(
            fields
                .iter()
                .map(|(name, v)| (name.clone(), to_json(v)))
                .collect(),
        ),
        DynValue::SubArray { shape, values } => {
            let leaves: Vec<Json> = values.iter().map(to_json).collect();
            nest(shape, &mut leaves.into_iter())
        }
        DynValue::Object(o) => panic!("an object where the manifest lists plain values: {o:?}"),
    }
}

/// Nested lists of `shape` from leaves in C order (a bare leaf for an empty shape).
pub fn nest(shape: &[u64], leaves: &mut impl Iterator<Item = Json>) -> Json {
    match shape.split_first() {
        None => leaves.next().unwrap_or(Json::Null),
        Some((&n, rest)) => Json::Array((0..n).map(|_| nest(rest, leaves)).collect()),
    }
}

pub fn array_json(a: &DynArray) -> Json {
    let leaves: Vec<Json> = a.iter_c_order().map(|v| to_json(&v)).collect();
    assert_eq!(
        leaves.len() as u64,
        a.shape().iter().product::<u64>(),
        "element count"
    );
    nest(a.shape(), &mut leaves.into_iter())
}

/// JSON equality with floats compared as f64 (sign of zero included) and ints exactly.
///
/// # Errors
/// The first difference, as a message naming its JSON `path` and both values.
pub fn same(a: &Json, b: &Json, path: &str) -> Result<(), String> {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            let equal = if x.is_f64() || y.is_f64() {
                match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => {
                        p == q
                            && p.is_sign_negative() == q.is_sign_negative()
                            && x.is_f64() == y.is_f64()
                    }
                    _ => false,
                }
            } else {
                x == y
            };
            if equal {
                Ok(())
            } else {
                Err(format!("{path}: {a} != {b}"))
            }
        }
        (Json::Array(x), Json::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: length {} != {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(i, (p, q))| same(p, q, &format!("{path}[{i}]")))
        }
        (Json::Object(x), Json::Object(y)) => {
            let kx: Vec<_> = x.keys().collect();
            let ky: Vec<_> = y.keys().collect();
            if kx != ky {
                return Err(format!("{path}: keys {kx:?} != {ky:?}"));
            }
            x.iter()
                .try_for_each(|(k, p)| same(p, &y[k], &format!("{path}.{k}")))
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} != {b}")),
    }
}
