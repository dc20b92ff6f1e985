//! Writing [`DynArray`]s: any dtype's values, encoded back under their dtype through the
//! crate's scalar codec.

use std::io::Write;
use std::path::Path;

use half::f16;

use super::{DynArray, DynValue};
use crate::codec::{encode_bool, encode_bytes, encode_ucs4, per_chunk, Endian, Scalar};
use crate::dtype::{DType, Primitive, TimeKind};
use crate::element::NAT;
use crate::error::{to_usize, Error, ErrorKind};
use crate::write::write_atomic;

/// Bytes of elements rebuilt from the columns per write.
const WRITE_CHUNK_BYTES: usize = 1 << 20;

/// Writes `array` to `path` as numpy would write an array of its dtype, shape and order
/// (atomically: a temporary file renamed into place). With [`crate::read_dyn`] this round-trips
/// every dtype numpy writes, byte for byte, except dtypes holding objects (written by
/// `npy_pickle::write_dyn`): an array from `read_dyn` keeps the bytes its values do not
/// determine (record padding, which numpy keeps too, e.g. in a saved multi-field view; `b1`
/// bytes other than 0 and 1); one built with [`DynArray::new`] has zero padding and bools 0 and 1.
///
/// # Errors
/// [`ErrorKind::ObjectArray`] for dtypes holding objects; header and I/O errors. (A value that
/// does not fit the dtype was refused by [`DynArray::new`].)
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-write-dyn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[1.5f32, -2.0], &[2])?;
/// let array = npy_core::read_dyn(&a)?;
/// npy_core::write_dyn(&b, &array)?;
/// assert_eq!(std::fs::read(&a)?, std::fs::read(&b)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_dyn(path: impl AsRef<Path>, array: &DynArray) -> Result<(), Error> {
    write_atomic(path.as_ref(), |file| write_dyn_to(file, array))
}

/// Writes `array` to `w` (header and data) as [`write_dyn`] writes it to a file: the format
/// version is numpy's choice for the header (1.0 unless the header needs 2.0's length or 3.0's
/// UTF-8, as `np.save`).
///
/// # Errors
/// As [`write_dyn`].
///
/// # Examples
/// ```
/// let mut bytes = Vec::new();
/// npy_core::WriteOptions::new().write_to(&mut bytes, &[1.5f32, -2.0], &[2])?;
/// let array = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
/// let mut out = Vec::new();
/// npy_core::dynamic::write_dyn_to(&mut out, &array)?;
/// assert_eq!(out, bytes);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn write_dyn_to<W: Write>(mut w: W, array: &DynArray) -> Result<(), Error> {
    // Every array without objects is held in columns.
    let Some(columns) = array.column_store() else {
        return Err(Error::new(ErrorKind::ObjectArray {
            dtype: array.dtype().clone(),
        }));
    };
    w.write_all(&array.header().to_bytes(None)?)?;
    let itemsize = to_usize(array.dtype().itemsize(), "itemsize")?;
    if itemsize > 0 {
        // The elements rebuilt chunk by chunk from the columns (padding as read, or zeros).
        let rows = per_chunk(itemsize, WRITE_CHUNK_BYTES);
        let n = array.len();
        let mut buf = vec![0u8; rows.min(n) * itemsize];
        for first in (0..n).step_by(rows) {
            let k = rows.min(n - first);
            let part = &mut buf[..k * itemsize];
            columns.scatter(part, first, k);
            w.write_all(part)?;
        }
    }
    Ok(w.flush()?)
}

/// Writes `array` to `w` as [`write_dyn_to`] does, encoding object arrays (`|O`) with
/// `objects`, such as `npy_pickle::PickleCodec` (numpy's pickle).
///
/// # Errors
/// As [`write_dyn_to`]; what `objects` refuses
/// ([`ErrorKind::Pickle`](crate::ErrorKind::Pickle) for npy-pickle's codec);
/// [`ErrorKind::Unsupported`] for records with object fields, which numpy pickles whole and
/// this does not write.
pub fn write_dyn_to_using<W: Write>(
    mut w: W,
    array: &DynArray,
    objects: &dyn super::ObjectCodec,
) -> Result<(), Error> {
    let dtype = array.dtype();
    if *dtype == DType::Object {
        w.write_all(&array.header().to_bytes(None)?)?;
        objects.encode(array, &mut w)?;
        return Ok(w.flush()?);
    }
    if dtype.has_object() {
        // The message of refuse_object is about reading; this is a write this crate lacks.
        return Err(Error::new(ErrorKind::Unsupported {
            operation: "writing records with object fields",
            reason: format!(
                "dtype {dtype} holds objects inside records, which write_dyn does not pickle \
                 (object arrays, dtype '|O', are written)"
            ),
        }));
    }
    write_dyn_to(w, array)
}

/// [`ErrorKind::ValueMismatch`]: `value` does not fit `dtype`.
#[cold]
fn mismatch(dtype: &DType, value: &DynValue) -> Error {
    let mut value = format!("{value:?}");
    if value.len() > 80 {
        value.truncate((0..=80).rfind(|&i| value.is_char_boundary(i)).unwrap_or(0));
        value.push('…');
    }
    Error::new(ErrorKind::ValueMismatch {
        dtype: dtype.clone(),
        value,
    })
}

/// An `f64` as a narrower float, refusing finite values that overflow it.
fn narrow<F: Copy>(x: f64, to: impl Fn(f64) -> F, is_inf: impl Fn(F) -> bool) -> Option<F> {
    let y = to(x);
    (!(x.is_finite() && is_inf(y))).then_some(y)
}

/// Encodes one value of `dtype` into `dst` (`dtype.itemsize()` bytes: zeros, or the bytes the
/// value was read from). Every field's bytes are written; padding is left as it is.
///
/// # Errors
/// A value `dtype` cannot hold.
pub fn encode(dtype: &DType, value: &DynValue, dst: &mut [u8]) -> Result<(), Error> {
    use Primitive::*;
    let bad = || mismatch(dtype, value);
    let ensure = |holds: bool| if holds { Ok(()) } else { Err(bad()) };
    // An integer dtype (or an ml_dtypes integer type) takes any integer value in its range.
    let int = || match value {
        DynValue::Int(i) => Ok(i128::from(*i)),
        DynValue::UInt(u) => Ok(i128::from(*u)),
        _ => Err(bad()),
    };
    let signed = || i64::try_from(int()?).map_err(|_| bad());
    // The order of numbers, datetimes and `U` strings (records and subarrays pass it down).
    let e = Endian::of(dtype.byte_order());
    match (dtype, value) {
        (DType::Number(Bool, _), DynValue::Bool(b)) => dst[0] = encode_bool(*b, dst[0]),
        (DType::Number(I8, _), _) => i8::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(I16, _), _) => i16::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(I32, _), _) => i32::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(I64, _), _) => signed()?.encode(dst, e),
        (DType::Number(U8, _), _) => u8::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(U16, _), _) => u16::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(U32, _), _) => u32::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(U64, _), _) => u64::try_from(int()?).map_err(|_| bad())?.encode(dst, e),
        (DType::Number(F16, _), DynValue::Float(x)) => narrow(*x, f16::from_f64, f16::is_infinite)
            .ok_or_else(bad)?
            .encode(dst, e),
        (DType::Number(F32, _), DynValue::Float(x)) => narrow(*x, |x| x as f32, f32::is_infinite)
            .ok_or_else(bad)?
            .encode(dst, e),
        (DType::Number(F64, _), DynValue::Float(x)) => x.encode(dst, e),
        (DType::Ml(t), _) if t.is_integer() => dst[0] = t.encode_int(signed()?).ok_or_else(bad)?,
        (DType::Ml(t), DynValue::Float(x)) => {
            // Refuse a finite value the type cannot hold (as infinity or NaN), as for f2 and f4.
            let code = narrow(*x, |x| t.encode(x), |c| !t.decode(c).is_finite()).ok_or_else(bad)?;
            if let [a, b] = dst {
                [*a, *b] = code.to_ne_bytes();
            } else {
                dst[0] = code as u8;
            }
        }
        (DType::Number(C64, _), DynValue::Complex(re, im)) => {
            let part = |x: f64| narrow(x, |x| x as f32, f32::is_infinite).ok_or_else(bad);
            let (a, b) = dst.split_at_mut(4);
            part(*re)?.encode(a, e);
            part(*im)?.encode(b, e);
        }
        (DType::Number(C128, _), DynValue::Complex(re, im)) => {
            let (a, b) = dst.split_at_mut(8);
            re.encode(a, e);
            im.encode(b, e);
        }
        (DType::Number(LongDouble { .. }, _), DynValue::LongDouble { bytes, .. })
        | (DType::Number(CLongDouble { .. }, _), DynValue::CLongDouble { bytes, .. })
        | (DType::Void(_), DynValue::Void(bytes)) => {
            // The bytes as read (a long double's: exact, whatever the platform's long double is).
            ensure(bytes.len() == dst.len())?;
            dst.copy_from_slice(bytes);
        }
        (
            DType::Time(t, _),
            DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit },
        ) => {
            let kind_ok = matches!(
                (t.kind, value),
                (TimeKind::Datetime, DynValue::Datetime { .. })
                    | (TimeKind::Timedelta, DynValue::Timedelta { .. })
            );
            ensure(kind_ok && unit == t)?;
            ticks.unwrap_or(NAT).encode(dst, e);
        }
        (DType::Bytes(_), DynValue::Bytes(b)) => ensure(encode_bytes(b, dst))?,
        (DType::Unicode(..), DynValue::Str(s)) => {
            let cps = s.code_points().iter().copied();
            ensure(encode_ucs4(cps, dst, e))?;
        }
        (DType::Record(r), DynValue::Record(values)) => {
            for (i, f) in r.fields().iter().enumerate() {
                // Values come in field order from read_dyn; fall back to a lookup by name.
                let v = match values.get(i) {
                    Some((name, v)) if *name == f.name => v,
                    _ => value.field(&f.name).ok_or_else(bad)?,
                };
                // Record::new keeps every field inside the record, whose bytes `dst` is.
                let start = to_usize(f.offset, "record field offset")?;
                let end = start + to_usize(f.dtype.itemsize(), "record field itemsize")?;
                encode(&f.dtype, v, &mut dst[start..end])?;
            }
        }
        (DType::SubArray(s), DynValue::SubArray { values, .. }) => {
            // read_dyn flattens nested subarrays into one shape; encode the innermost base.
            let (_, base) = s.flatten();
            let size = to_usize(base.itemsize(), "itemsize")?;
            let count = dst.len() / size.max(1);
            ensure(size == 0 || values.len() == count)?;
            for (v, slot) in values.iter().zip(dst.chunks_exact_mut(size.max(1))) {
                encode(base, v, &mut slot[..size])?;
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}
