//! Writing [`DynArray`]s: any dtype's values, encoded back under their dtype.

use std::io::Write;
use std::path::Path;

use crate::dtype::{ByteOrder, DType, Primitive, TimeKind};
use crate::dynamic::{DynArray, DynValue};
use crate::element::describe;
use crate::error::Error;
use crate::header::{Header, Version};
use crate::write::AtomicFile;

/// Writes `array` to `path` as numpy would write an array of its dtype, shape and order
/// (atomically: a temporary file renamed into place). Together with [`crate::read_dyn`] this
/// round-trips every dtype numpy writes, byte for byte, except records with object fields
/// (refused) and object arrays (`|O`, feature `pickle`), whose values are written as numpy's
/// pickle of them (see `npy_core::pickle::write_objects` for when that is byte-identical).
///
/// # Errors
/// [`Error::ValueMismatch`] when a value does not fit the dtype (wrong kind, out of range, a
/// string longer than the width, another datetime unit), [`Error::LengthMismatch`] when the
/// number of values is not the product of the shape, [`Error::ObjectArray`] for records with
/// object fields (and for `|O` without feature `pickle`), `Error::Pickle` for values the
/// pickler does not write, header and I/O errors.
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
    let mut file = AtomicFile::create(path.as_ref())?;
    write_dyn_to(&mut file, array, None)?;
    file.commit()
}

/// Writes `array` to `w` (header and data), with an explicit format `version` or numpy's
/// choice (`None`).
///
/// # Errors
/// As [`write_dyn`].
pub fn write_dyn_to<W: Write>(
    mut w: W,
    array: &DynArray,
    version: Option<Version>,
) -> Result<(), Error> {
    // pickle integration point: an object array's data is numpy's pickle of its values.
    let pickled = cfg!(feature = "pickle") && array.dtype == DType::Object;
    if array.dtype.has_object() && !pickled {
        return Err(Error::ObjectArray {
            dtype: describe(&array.dtype),
        });
    }
    let header = Header {
        dtype: array.dtype.clone(),
        fortran_order: array.fortran_order,
        shape: array.shape.clone(),
    };
    let n = header.num_elements()?;
    if n != array.values.len() as u64 {
        return Err(Error::LengthMismatch {
            what: "values for the shape",
            expected: n,
            found: array.values.len() as u64,
        });
    }
    #[cfg(feature = "pickle")]
    if pickled {
        w.write_all(&header.to_bytes(version)?)?;
        crate::pickle::write_dyn_objects(&mut w, array)?;
        w.flush()?;
        return Ok(());
    }
    w.write_all(&header.to_bytes(version)?)?;
    let itemsize = usize::try_from(array.dtype.itemsize())
        .map_err(|_| Error::Layout("itemsize too large for this platform".into()))?;
    let mut buf = vec![0u8; itemsize];
    for v in &array.values {
        buf.fill(0);
        encode(&array.dtype, v, &mut buf)?;
        w.write_all(&buf)?;
    }
    w.flush()?;
    Ok(())
}

#[cold]
fn mismatch(dtype: &DType, value: &DynValue) -> Error {
    let mut value = format!("{value:?}");
    if value.len() > 80 {
        let cut = (0..=80)
            .rev()
            .find(|&i| value.is_char_boundary(i))
            .unwrap_or(0);
        value.truncate(cut);
        value.push('…');
    }
    Error::ValueMismatch {
        dtype: describe(dtype),
        value,
    }
}

/// Puts the low `dst.len()` bytes of `le` (a little-endian value) into `dst` in `order`.
fn put(dst: &mut [u8], le: &[u8], order: ByteOrder) {
    let n = dst.len();
    dst.copy_from_slice(&le[..n]);
    if order == ByteOrder::Big {
        dst.reverse();
    }
}

/// Encodes one value of `dtype` into `dst` (`dtype.itemsize()` zeroed bytes).
pub(crate) fn encode(dtype: &DType, value: &DynValue, dst: &mut [u8]) -> Result<(), Error> {
    let bad = || mismatch(dtype, value);
    match (dtype, value) {
        (DType::Number(Primitive::Bool, _), DynValue::Bool(b)) => dst[0] = u8::from(*b),
        (
            DType::Number(
                p @ (Primitive::I8 | Primitive::I16 | Primitive::I32 | Primitive::I64),
                o,
            ),
            v,
        ) => {
            let x: i64 = match v {
                DynValue::Int(i) => *i,
                DynValue::UInt(u) => i64::try_from(*u).map_err(|_| bad())?,
                _ => return Err(bad()),
            };
            let bits = 8 * p.itemsize() as u32;
            if bits < 64 && (x < -(1i64 << (bits - 1)) || x >= (1i64 << (bits - 1))) {
                return Err(bad());
            }
            put(dst, &x.to_le_bytes(), *o);
        }
        (
            DType::Number(
                p @ (Primitive::U8 | Primitive::U16 | Primitive::U32 | Primitive::U64),
                o,
            ),
            v,
        ) => {
            let x: u64 = match v {
                DynValue::UInt(u) => *u,
                DynValue::Int(i) => u64::try_from(*i).map_err(|_| bad())?,
                _ => return Err(bad()),
            };
            let bits = 8 * p.itemsize() as u32;
            if bits < 64 && x >= (1u64 << bits) {
                return Err(bad());
            }
            put(dst, &x.to_le_bytes(), *o);
        }
        (DType::Number(Primitive::F16, o), DynValue::Float(x)) => {
            let h = half::f16::from_f64(*x);
            if x.is_finite() && h.is_infinite() {
                return Err(bad());
            }
            put(dst, &h.to_le_bytes(), *o)
        }
        (DType::Number(Primitive::F32, o), DynValue::Float(x)) => {
            if x.is_finite() && (*x as f32).is_infinite() {
                return Err(bad());
            }
            put(dst, &(*x as f32).to_le_bytes(), *o)
        }
        (DType::Number(Primitive::F64, o), DynValue::Float(x)) => put(dst, &x.to_le_bytes(), *o),
        (DType::Number(Primitive::C64, o), DynValue::Complex(re, im)) => {
            if [re, im]
                .iter()
                .any(|x| x.is_finite() && (**x as f32).is_infinite())
            {
                return Err(bad());
            }
            put(&mut dst[..4], &(*re as f32).to_le_bytes(), *o);
            put(&mut dst[4..], &(*im as f32).to_le_bytes(), *o);
        }
        (DType::Number(Primitive::C128, o), DynValue::Complex(re, im)) => {
            put(&mut dst[..8], &re.to_le_bytes(), *o);
            put(&mut dst[8..], &im.to_le_bytes(), *o);
        }
        (DType::Number(Primitive::LongDouble { .. }, _), DynValue::LongDouble { bytes, .. })
        | (DType::Number(Primitive::CLongDouble { .. }, _), DynValue::CLongDouble { bytes, .. }) => {
            // The raw bytes as read: exact, whatever the platform's long double is.
            if bytes.len() != dst.len() {
                return Err(bad());
            }
            dst.copy_from_slice(bytes);
        }
        (
            DType::Time(t, o),
            DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit },
        ) => {
            let kind_ok = matches!(
                (t.kind, value),
                (TimeKind::Datetime, DynValue::Datetime { .. })
                    | (TimeKind::Timedelta, DynValue::Timedelta { .. })
            );
            if !kind_ok || unit != t {
                return Err(bad());
            }
            put(dst, &ticks.unwrap_or(i64::MIN).to_le_bytes(), *o);
        }
        (DType::Bytes(_), DynValue::Bytes(b)) => {
            if b.len() > dst.len() {
                return Err(bad());
            }
            dst[..b.len()].copy_from_slice(b);
        }
        (DType::Unicode(_, o), DynValue::Str(s)) => {
            let cps = s.code_points();
            if cps.len() * 4 > dst.len() {
                return Err(bad());
            }
            for (cp, slot) in cps.iter().zip(dst.chunks_exact_mut(4)) {
                put(slot, &cp.to_le_bytes(), *o);
            }
        }
        (DType::Void(_), DynValue::Void(b)) => {
            if b.len() != dst.len() {
                return Err(bad());
            }
            dst.copy_from_slice(b);
        }
        (DType::Record(r), DynValue::Record(values)) => {
            for (i, f) in r.fields().iter().enumerate() {
                // Values come in field order from read_dyn; fall back to a lookup by name.
                let v = match values.get(i) {
                    Some((name, v)) if *name == f.name => v,
                    _ => values
                        .iter()
                        .find(|(name, _)| *name == f.name)
                        .map(|(_, v)| v)
                        .ok_or_else(bad)?,
                };
                let start = usize::try_from(f.offset).map_err(|_| bad())?;
                let end = start + usize::try_from(f.dtype.itemsize()).map_err(|_| bad())?;
                encode(&f.dtype, v, dst.get_mut(start..end).ok_or_else(bad)?)?;
            }
        }
        (DType::SubArray(s), DynValue::SubArray { values, .. }) => {
            // read_dyn flattens nested subarrays into one shape; walk to the innermost base.
            let mut base = s.base();
            while let DType::SubArray(inner) = base {
                base = inner.base();
            }
            let size = usize::try_from(base.itemsize()).map_err(|_| bad())?;
            let count = dst.len() / size.max(1);
            if size > 0 && values.len() != count {
                return Err(bad());
            }
            for (v, slot) in values.iter().zip(dst.chunks_exact_mut(size.max(1))) {
                encode(base, v, &mut slot[..size])?;
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}
