//! Python's equality of dict keys and set items, for the dicts and sets a pickle builds.

use std::collections::HashMap;

use num_bigint::BigInt;

use super::value::PyObject;
use crate::dynamic::DynValue;
use crate::error::PickleError;

/// A hashable value reduced to what Python's `==` compares: `1`, `1.0`, `True` and `1+0j` are
/// one key; NaNs are never equal (each pickled NaN is its own object).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Key {
    None,
    Int(BigInt),
    Float(u64),
    Complex(u64, u64),
    NaN(u64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<Key>),
    FrozenSet(Vec<Key>),
    Other(String),
}

impl Key {
    /// The key of `v`, or the Python type that cannot be hashed.
    pub(crate) fn of(v: &PyObject, nan_id: &mut u64) -> Result<Key, String> {
        Ok(match v {
            PyObject::None => Key::None,
            PyObject::Bool(b) => Key::Int(BigInt::from(u8::from(*b))),
            PyObject::Int(i) => Key::Int(BigInt::from(*i)),
            PyObject::BigInt(b) => Key::Int((**b).clone()),
            PyObject::Float(x) => float_key(*x, nan_id),
            PyObject::Complex(re, im) if *im == 0.0 => float_key(*re, nan_id),
            PyObject::Complex(re, im) => {
                if re.is_nan() || im.is_nan() {
                    *nan_id += 1;
                    Key::NaN(*nan_id)
                } else {
                    Key::Complex((re + 0.0).to_bits(), (im + 0.0).to_bits())
                }
            }
            PyObject::Str(s) => Key::Str(s.clone()),
            PyObject::Bytes(b) => Key::Bytes(b.clone()),
            PyObject::Tuple(items) => Key::Tuple(
                items
                    .iter()
                    .map(|i| Key::of(i, nan_id))
                    .collect::<Result<_, _>>()?,
            ),
            PyObject::FrozenSet(items) => {
                let mut keys: Vec<Key> = items
                    .iter()
                    .map(|i| Key::of(i, nan_id))
                    .collect::<Result<_, _>>()?;
                keys.sort();
                keys.dedup();
                Key::FrozenSet(keys)
            }
            PyObject::Scalar(s) => match &s.value {
                DynValue::Bool(b) => Key::Int(BigInt::from(u8::from(*b))),
                DynValue::Int(i) => Key::Int(BigInt::from(*i)),
                DynValue::UInt(u) => Key::Int(BigInt::from(*u)),
                DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => {
                    float_key(*x, nan_id)
                }
                DynValue::Str(s) => Key::Str(s.to_string_lossy()),
                DynValue::Bytes(b) => Key::Bytes(b.clone()),
                _ => Key::Other(v.to_string()),
            },
            PyObject::Range(..) | PyObject::Slice(_) | PyObject::Global(_) | PyObject::DType(_) => {
                Key::Other(v.to_string())
            }
            other => return Err(other.type_name()),
        })
    }
}

fn float_key(x: f64, nan_id: &mut u64) -> Key {
    if x.is_nan() {
        *nan_id += 1;
        return Key::NaN(*nan_id);
    }
    if x.is_finite() && x.fract() == 0.0 {
        if let Some(b) = num_traits::FromPrimitive::from_f64(x) {
            return Key::Int(b);
        }
    }
    Key::Float(x.to_bits())
}

/// Python's dict semantics over pairs in insertion order: a repeated key keeps its first
/// position and key object and takes the last value.
pub(crate) fn dedup_dict(
    pairs: Vec<(PyObject, PyObject)>,
) -> Result<Vec<(PyObject, PyObject)>, PickleError> {
    let mut nan_id = 0;
    let mut seen: HashMap<Key, usize> = HashMap::with_capacity(pairs.len());
    let mut out: Vec<(PyObject, PyObject)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        let key = Key::of(&k, &mut nan_id).map_err(unhashable)?;
        match seen.get(&key) {
            Some(&i) => out[i].1 = v,
            None => {
                seen.insert(key, out.len());
                out.push((k, v));
            }
        }
    }
    Ok(out)
}

/// Python's set semantics: the first of equal items is kept.
pub(crate) fn dedup_set(items: Vec<PyObject>) -> Result<Vec<PyObject>, PickleError> {
    let mut nan_id = 0;
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        if seen.insert(Key::of(&v, &mut nan_id).map_err(unhashable)?) {
            out.push(v);
        }
    }
    Ok(out)
}

#[cold]
fn unhashable(ty: String) -> PickleError {
    PickleError::Malformed {
        offset: 0,
        opcode: "dict or set".into(),
        reason: format!("unhashable type: '{ty}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_python_equality() {
        let pairs = vec![
            (PyObject::Int(1), PyObject::Str("a".into())),
            (PyObject::Float(1.0), PyObject::Str("b".into())),
            (PyObject::Bool(true), PyObject::Str("c".into())),
            (PyObject::Float(f64::NAN), PyObject::None),
            (PyObject::Float(f64::NAN), PyObject::None),
        ];
        let d = dedup_dict(pairs).unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0], (PyObject::Int(1), PyObject::Str("c".into())));
        assert!(dedup_set(vec![PyObject::List(vec![])]).is_err());
    }
}
