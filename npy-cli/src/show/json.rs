//! `npy show --json`: the array as one JSON object, written as it is read.
//!
//! The header fields come first, then `data`: nested lists in logical C order whose values
//! arrive one at a time, so an array of any size is written in constant memory. The encoding
//! of each value is documented once, in [`JSON_ENCODING`](super::JSON_ENCODING).

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::io::{self, Write};

use npy_core::pickle::PyObject;
use npy_core::DynValue;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// Writes `{"descr": …, "shape": […], "fortran_order": …, "data": …}` and a newline, taking
/// the values from `next` in C order.
///
/// # Errors
/// `next`'s errors and write errors.
pub fn write_json<W, E>(
    out: &mut W,
    descr: &str,
    shape: &[u64],
    fortran_order: bool,
    next: &mut impl FnMut() -> Result<DynValue, E>,
) -> Result<(), E>
where
    W: Write,
    E: From<io::Error>,
{
    out.write_all(b"{\"descr\":")?;
    serde_json::to_writer(&mut *out, descr).map_err(io::Error::from)?;
    out.write_all(b",\"shape\":")?;
    serde_json::to_writer(&mut *out, shape).map_err(io::Error::from)?;
    write!(out, ",\"fortran_order\":{fortran_order},\"data\":")?;
    lists(out, shape, next)?;
    out.write_all(b"}\n")?;
    Ok(())
}

/// Nested lists of `shape` (the bare value for an empty shape).
fn lists<W, E>(
    out: &mut W,
    shape: &[u64],
    next: &mut impl FnMut() -> Result<DynValue, E>,
) -> Result<(), E>
where
    W: Write,
    E: From<io::Error>,
{
    let Some((&n, rest)) = shape.split_first() else {
        let v = next()?;
        serde_json::to_writer(&mut *out, &Json(&v)).map_err(io::Error::from)?;
        return Ok(());
    };
    out.write_all(b"[")?;
    for i in 0..n {
        if i > 0 {
            out.write_all(b",")?;
        }
        if rest.contains(&0) {
            // No values below: the empty lists alone (bounded by the caller).
            empty(out, rest)?;
        } else {
            lists(out, rest, next)?;
        }
    }
    out.write_all(b"]")?;
    Ok(())
}

/// The lists of `shape`, which has a zero-length axis, without values.
fn empty(out: &mut impl Write, shape: &[u64]) -> io::Result<()> {
    match shape.split_first() {
        Some((&n, rest)) => {
            out.write_all(b"[")?;
            for i in 0..n {
                if i > 0 {
                    out.write_all(b",")?;
                }
                empty(out, rest)?;
            }
            out.write_all(b"]")
        }
        None => Ok(()),
    }
}

/// Elements (C order; a subarray field's, or an array's inside an object array) as nested
/// lists of `shape`; the bare value for an empty shape.
struct Nested<'a, T> {
    shape: &'a [u64],
    leaves: &'a [T],
}

impl<T: Borrow<DynValue>> Serialize for Nested<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some((&n, rest)) = self.shape.split_first() else {
            return match self.leaves.first() {
                Some(v) => Json(v.borrow()).serialize(s),
                None => s.serialize_none(),
            };
        };
        let block = usize::try_from(rest.iter().product::<u64>()).unwrap_or(usize::MAX);
        let mut seq = s.serialize_seq(usize::try_from(n).ok())?;
        for i in 0..n as usize {
            let start = i.saturating_mul(block).min(self.leaves.len());
            let end = start.saturating_add(block).min(self.leaves.len());
            seq.serialize_element(&Nested {
                shape: rest,
                leaves: &self.leaves[start..end],
            })?;
        }
        seq.end()
    }
}

/// One value in the `--json` encoding (see [`JSON_ENCODING`](super::JSON_ENCODING)). Serialised directly rather than
/// through `serde_json::Value`, whose maps would sort record fields by name.
struct Json<'a>(&'a DynValue);

/// A float: a JSON number, or "nan", "inf", "-inf".
struct JsonFloat(f64);

impl Serialize for JsonFloat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.is_nan() {
            s.serialize_str("nan")
        } else if x.is_infinite() {
            s.serialize_str(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(x)
        }
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            DynValue::Bool(b) => s.serialize_bool(*b),
            DynValue::Int(i) => s.serialize_i64(*i),
            DynValue::UInt(u) => s.serialize_u64(*u),
            DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => {
                JsonFloat(*x).serialize(s)
            }
            DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
                (JsonFloat(*re), JsonFloat(*im)).serialize(s)
            }
            DynValue::Datetime { ticks, .. } | DynValue::Timedelta { ticks, .. } => {
                ticks.serialize(s)
            }
            DynValue::Bytes(b) => s.serialize_str(&latin1(b)),
            DynValue::Str(u) => s.serialize_str(&u.to_string_lossy()),
            DynValue::Void(b) => s.serialize_str(&b.iter().fold(String::new(), |mut h, x| {
                let _ = write!(h, "{x:02x}");
                h
            })),
            DynValue::Record(fields) => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for (name, v) in fields {
                    m.serialize_entry(name, &Json(v))?;
                }
                m.end()
            }
            DynValue::SubArray { shape, values } => Nested {
                shape,
                leaves: values,
            }
            .serialize(s),
            DynValue::Object(o) => JsonObject(o).serialize(s),
        }
    }
}

/// latin-1 text of bytes: one char per byte.
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// An object array's item in the `--json` encoding (see [`JSON_ENCODING`](super::JSON_ENCODING)).
struct JsonObject<'a>(&'a PyObject);

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            PyObject::None => s.serialize_unit(),
            PyObject::Bool(b) => s.serialize_bool(*b),
            PyObject::Int(i) => s.serialize_i64(*i),
            PyObject::BigInt(b) => {
                // An exact integer of any size: its decimal digits as a JSON number.
                let digits = serde_json::value::RawValue::from_string(b.to_string())
                    .map_err(serde::ser::Error::custom)?;
                digits.serialize(s)
            }
            PyObject::Float(x) => JsonFloat(*x).serialize(s),
            PyObject::Complex(re, im) => (JsonFloat(*re), JsonFloat(*im)).serialize(s),
            PyObject::Str(t) => s.serialize_str(t),
            PyObject::Bytes(b) | PyObject::ByteArray(b) => s.serialize_str(&latin1(b)),
            PyObject::List(v) | PyObject::Tuple(v) | PyObject::Set(v) | PyObject::FrozenSet(v) => {
                s.collect_seq(v.iter().map(JsonObject))
            }
            PyObject::Dict(d) => {
                let mut m = s.serialize_map(Some(d.len()))?;
                for (k, v) in d {
                    let key = match k {
                        PyObject::Str(t) => t.clone(),
                        other => other.to_string(),
                    };
                    m.serialize_entry(&key, &JsonObject(v))?;
                }
                m.end()
            }
            PyObject::Scalar(x) => Json(&x.value).serialize(s),
            PyObject::Array(a) => {
                let values: Vec<&DynValue> = a.iter_c_order().collect();
                Nested {
                    shape: a.shape(),
                    leaves: &values,
                }
                .serialize(s)
            }
            other => s.serialize_str(&other.to_string()),
        }
    }
}
