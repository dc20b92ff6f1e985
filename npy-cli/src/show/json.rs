//! `npy show --json`: the array as one JSON object, written as it is read.
//!
//! The header fields come first, then `data`: nested lists in logical C order whose values
//! arrive one at a time, so an array of any size is written in constant memory. The encoding
//! of each value is documented once, in [`JSON_ENCODING`](super::JSON_ENCODING).

use std::borrow::Borrow;
use std::cell::Cell;
use std::fmt::Write as _;
use std::io::{self, Write};

use npy_core::DynValue;
use npy_pickle::{int_decimal, int_decimal_work, BigInt, PyObject, MAX_INT_DIGITS};
use npy_print::OBJECT_TEXT_BUDGET;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// Writes `{"descr": …, "shape": […], "fortran_order": …, "data": …}` (no newline), taking
/// the values from `next` in C order.
///
/// # Errors
/// `next`'s errors and write errors.
pub fn write_json<W, V, E>(
    out: &mut W,
    descr: &str,
    shape: &[u64],
    fortran_order: bool,
    next: &mut impl FnMut() -> Result<V, E>,
) -> Result<(), E>
where
    W: Write,
    V: Borrow<DynValue>,
    E: From<io::Error>,
{
    let limits = Limits::default();
    out.write_all(b"{\"descr\":")?;
    serde_json::to_writer(&mut *out, descr).map_err(io::Error::from)?;
    out.write_all(b",\"shape\":")?;
    serde_json::to_writer(&mut *out, shape).map_err(io::Error::from)?;
    write!(out, ",\"fortran_order\":{fortran_order},\"data\":")?;
    lists(out, shape, next, &limits)?;
    out.write_all(b"}")?;
    Ok(())
}

/// A writer whose bytes are charged to the command's output budget for objects
/// ([`super::spend_object_output`]): the `--json` output of an object array, whose text is
/// not proportional to the values the pickle budget bounded (a string of control characters
/// writes six bytes for each, `\u0007`). A write past the budget fails with `InvalidData`,
/// which `npy show` reports as a refusal of the file.
pub struct Capped<'a, W> {
    out: &'a mut W,
}

impl<'a, W: Write> Capped<'a, W> {
    /// `out`, its writes charged to the command's budget.
    pub fn new(out: &'a mut W) -> Self {
        Capped { out }
    }
}

impl<W: Write> Write for Capped<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !super::spend_object_output(buf.len() as u64) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the JSON of its objects passes npy's output budget of {} MiB for the \
                     objects of one `npy show` (npy_print::OBJECT_TEXT_BUDGET); refused",
                    OBJECT_TEXT_BUDGET >> 20
                ),
            ));
        }
        self.out.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Most empty lists (`[]`) the arrays nested in an object array may print in all: their
/// zero-length axes have no elements, so no data bounds them (the outer array's are checked
/// before anything is written, against the same number).
pub const MAX_NESTED_EMPTY_LISTS: u64 = super::MAX_EMPTY_LISTS;

/// What one `--json` output has spent of its limits.
#[derive(Default)]
struct Limits {
    empty_lists: Cell<u64>,
}

impl Limits {
    /// Counts the empty lists of an array of `shape` nested in an object array.
    fn nested_array<E: serde::ser::Error>(&self, shape: &[u64]) -> Result<(), E> {
        let total = self
            .empty_lists
            .get()
            .saturating_add(super::empty_lists(shape));
        if total > MAX_NESTED_EMPTY_LISTS {
            return Err(E::custom(format!(
                "an array of shape {shape:?} inside an object array would print more than \
                 {MAX_NESTED_EMPTY_LISTS} empty lists; refused (numpy's tolist() would build as many)"
            )));
        }
        self.empty_lists.set(total);
        Ok(())
    }

    /// Charges the conversion of `n` to decimal ([`int_decimal_work`], quadratic in its
    /// digits) to the command's output budget, which the text alone would let pay for seconds
    /// of it.
    fn convert<E: serde::ser::Error>(&self, n: &BigInt) -> Result<(), E> {
        if !super::spend_object_output(int_decimal_work(n)) {
            return Err(E::custom(format!(
                "converting its ints to decimal passes npy's output budget of {} MiB (an int \
                 of d > 1024 digits costs d²/1024 bytes of it besides its text: the work is \
                 quadratic); refused",
                OBJECT_TEXT_BUDGET >> 20
            )));
        }
        Ok(())
    }
}

/// A serde error of `--json` (a value JSON cannot hold within the limits) as the I/O error
/// the writers return; `npy show` reports its kind, `InvalidData`, as a refusal of the file.
fn refused(e: serde_json::Error) -> io::Error {
    if e.is_io() {
        return io::Error::from(e);
    }
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// Nested lists of `shape` (the bare value for an empty shape).
fn lists<W, V, E>(
    out: &mut W,
    shape: &[u64],
    next: &mut impl FnMut() -> Result<V, E>,
    limits: &Limits,
) -> Result<(), E>
where
    W: Write,
    V: Borrow<DynValue>,
    E: From<io::Error>,
{
    let Some((&n, rest)) = shape.split_first() else {
        let v = next()?;
        serde_json::to_writer(&mut *out, &Json(v.borrow(), limits)).map_err(refused)?;
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
            lists(out, rest, next, limits)?;
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
    limits: &'a Limits,
}

impl<T: Borrow<DynValue>> Serialize for Nested<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some((&n, rest)) = self.shape.split_first() else {
            return match self.leaves.first() {
                Some(v) => Json(v.borrow(), self.limits).serialize(s),
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
                limits: self.limits,
            })?;
        }
        seq.end()
    }
}

/// One value in the `--json` encoding (see [`JSON_ENCODING`](super::JSON_ENCODING)). Serialised directly rather than
/// through `serde_json::Value`, whose maps would sort record fields by name.
struct Json<'a>(&'a DynValue, &'a Limits);

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
                    m.serialize_entry(name, &Json(v, self.1))?;
                }
                m.end()
            }
            DynValue::SubArray { shape, values } => Nested {
                shape,
                leaves: values,
                limits: self.1,
            }
            .serialize(s),
            DynValue::Object(o) => match PyObject::of(self.0) {
                Some(o) => JsonObject(o, self.1).serialize(s),
                // Only npy-pickle's codec decodes object arrays here.
                None => Err(serde::ser::Error::custom(format!(
                    "an object that is not a Python value: {o:?}"
                ))),
            },
        }
    }
}

/// latin-1 text of bytes: one char per byte.
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// An object array's item in the `--json` encoding (see [`JSON_ENCODING`](super::JSON_ENCODING)).
struct JsonObject<'a>(&'a PyObject, &'a Limits);

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            PyObject::None => s.serialize_unit(),
            PyObject::Bool(b) => s.serialize_bool(*b),
            PyObject::Int(i) => s.serialize_i64(*i),
            PyObject::BigInt(b) => {
                // An exact integer: its decimal digits as a JSON number, up to Python's limit
                // (`json.dumps` refuses more too).
                let too_many = |digits: u64| {
                    serde::ser::Error::custom(format!(
                        "an int of {digits} or more decimal digits: JSON output stops at \
                         Python's limit of {MAX_INT_DIGITS} (json.dumps refuses it too; \
                         `npy show` without --json prints it in hexadecimal)"
                    ))
                };
                self.1.convert(b)?;
                let text = int_decimal(b).map_err(too_many)?;
                let digits = serde_json::value::RawValue::from_string(text)
                    .map_err(serde::ser::Error::custom)?;
                digits.serialize(s)
            }
            PyObject::Float(x) => JsonFloat(*x).serialize(s),
            PyObject::Complex(re, im) => (JsonFloat(*re), JsonFloat(*im)).serialize(s),
            PyObject::Str(t) => s.serialize_str(t),
            PyObject::Bytes(b) | PyObject::ByteArray(b) => s.serialize_str(&latin1(b)),
            PyObject::List(v) | PyObject::Tuple(v) | PyObject::Set(v) | PyObject::FrozenSet(v) => {
                s.collect_seq(v.iter().map(|o| JsonObject(o, self.1)))
            }
            PyObject::Dict(d) => {
                let mut m = s.serialize_map(Some(d.len()))?;
                for (k, v) in d {
                    let key = match k {
                        PyObject::Str(t) => t.clone(),
                        other => npy_print::repr(other).to_string(),
                    };
                    m.serialize_entry(&key, &JsonObject(v, self.1))?;
                }
                m.end()
            }
            PyObject::Scalar(x) => Json(&x.value, self.1).serialize(s),
            PyObject::Array(a) => {
                self.1.nested_array(a.shape())?;
                // Borrowed where the array holds its values (objects), built otherwise.
                let held: Vec<_> = a.iter_c_order().collect();
                let values: Vec<&DynValue> = held.iter().map(|v| &**v).collect();
                Nested {
                    shape: a.shape(),
                    leaves: &values,
                    limits: self.1,
                }
                .serialize(s)
            }
            other => s.serialize_str(&npy_print::repr(other).to_string()),
        }
    }
}
