//! The dynamic decoder: one element of any dtype into a [`DynValue`], through the crate's
//! scalar codec (the same byte order, `bool`, `S` and `U` rules as the typed elements).

use half::f16;

use super::longdouble::longdouble_to_f64;
use super::{DynValue, UcsString};
use crate::codec::{decode_bool, saturating_product, trim_nuls, ucs4_code_points, Endian, Scalar};
use crate::dtype::{DType, Field, MlType, Primitive, TimeKind, TimeType};
use crate::error::{to_usize, Error, ErrorKind};
use crate::read::Decode;

/// Decodes single elements of one dtype, for code outside this module that holds elements
/// as bytes: the printer (npy-print, through `__private`) shows a typed array's elements as
/// [`DynValue`]s.
#[derive(Debug, Clone)]
pub struct ElementDecoder {
    decoder: Decoder,
    /// The dtype's itemsize: what `decode` takes from its input.
    itemsize: usize,
}

impl ElementDecoder {
    /// A decoder of `dtype`'s elements.
    ///
    /// # Errors
    /// For dtypes the decoder does not read alone (objects); an itemsize past this platform's
    /// address space.
    pub fn new(dtype: &DType) -> Result<ElementDecoder, Error> {
        Ok(ElementDecoder {
            decoder: Decoder::new(dtype)?,
            itemsize: to_usize(dtype.itemsize(), "itemsize")?,
        })
    }

    /// One element from the first `itemsize` bytes of `src` (the bytes after them are not read).
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`] when `src` is shorter than one element; values the decoder
    /// refuses.
    pub fn decode(&self, src: &[u8]) -> Result<DynValue, Error> {
        // The decoder slices its input by the dtype's layout: it gets exactly one element.
        let short = || Error::truncated("element", self.itemsize as u64, src.len() as u64);
        self.decoder
            .decode(src.get(..self.itemsize).ok_or_else(short)?)
    }
}

/// How to decode one element of a dtype, prepared once per array.
#[derive(Debug, Clone)]
pub(super) enum Decoder {
    /// A number: booleans, integers widened to 64 bits, floats and complex parts widened to
    /// `f64`, longdouble's bytes with their approximation.
    Number(Primitive, Endian),
    Time(TimeType, Endian),
    Bytes,
    Unicode(Endian),
    Void,
    /// An ml_dtypes type: its code (native byte order for bfloat16), decoded exactly.
    Ml(MlType),
    Record(Vec<FieldDecoder>),
    SubArray {
        shape: Vec<u64>,
        count: u64,
        base_size: usize,
        base: Box<Decoder>,
    },
}

/// A record field: where it sits in the record, and its decoder.
#[derive(Debug, Clone)]
pub(super) struct FieldDecoder {
    name: String,
    offset: usize,
    size: usize,
    decoder: Decoder,
}

impl Decoder {
    /// The decoder of `dtype` (which holds no object: the reader refused those).
    pub(super) fn new(dtype: &DType) -> Result<Decoder, Error> {
        Ok(match dtype {
            DType::Number(p, o) => Decoder::Number(*p, Endian::of(*o)),
            DType::Time(ty, o) => Decoder::Time(*ty, Endian::of(*o)),
            DType::Bytes(_) => Decoder::Bytes,
            DType::Unicode(_, o) => Decoder::Unicode(Endian::of(*o)),
            DType::Void(_) => Decoder::Void,
            DType::Ml(t) => Decoder::Ml(*t),
            DType::Object => {
                return Err(Error::new(ErrorKind::ObjectArray {
                    dtype: dtype.clone(),
                }))
            }
            DType::Record(r) => {
                let field = |f: &Field| -> Result<_, Error> {
                    Ok(FieldDecoder {
                        name: f.name.to_string(),
                        offset: to_usize(f.offset, "record field offset")?,
                        size: to_usize(f.dtype.itemsize(), "record field itemsize")?,
                        decoder: Decoder::new(&f.dtype)?,
                    })
                };
                Decoder::Record(r.fields().iter().map(field).collect::<Result<_, _>>()?)
            }
            DType::SubArray(s) => {
                let (shape, base) = s.flatten();
                Decoder::SubArray {
                    count: saturating_product(&shape),
                    shape,
                    base_size: to_usize(base.itemsize(), "itemsize")?,
                    base: Box::new(Decoder::new(base)?),
                }
            }
        })
    }
}

impl Decode for Decoder {
    type Value = DynValue;

    /// Decodes one element from `src`, exactly its dtype's itemsize bytes: the reader hands
    /// over whole elements, and [`Record::new`](crate::dtype::Record::new) keeps every field inside
    /// its record, so the slicing below stays in bounds.
    fn decode(&self, src: &[u8]) -> Result<DynValue, Error> {
        use Primitive::*;
        Ok(match self {
            Decoder::Number(Bool, _) => DynValue::Bool(decode_bool(src[0])),
            Decoder::Number(I8, e) => DynValue::Int(i64::from(i8::decode(src, *e))),
            Decoder::Number(I16, e) => DynValue::Int(i64::from(i16::decode(src, *e))),
            Decoder::Number(I32, e) => DynValue::Int(i64::from(i32::decode(src, *e))),
            Decoder::Number(I64, e) => DynValue::Int(i64::decode(src, *e)),
            Decoder::Number(U8, e) => DynValue::UInt(u64::from(u8::decode(src, *e))),
            Decoder::Number(U16, e) => DynValue::UInt(u64::from(u16::decode(src, *e))),
            Decoder::Number(U32, e) => DynValue::UInt(u64::from(u32::decode(src, *e))),
            Decoder::Number(U64, e) => DynValue::UInt(u64::decode(src, *e)),
            Decoder::Number(p @ (F16 | F32 | F64), e) => DynValue::Float(float(*p, src, *e)),
            Decoder::Number(p @ (C64 | C128), e) => {
                let (re, im) = src.split_at(p.itemsize() as usize / 2);
                let part = if *p == C64 { F32 } else { F64 };
                DynValue::Complex(float(part, re, *e), float(part, im, *e))
            }
            Decoder::Number(LongDouble { .. }, e) => DynValue::LongDouble {
                bytes: src.to_vec(),
                approx: longdouble_to_f64(src, *e),
            },
            Decoder::Number(CLongDouble { .. }, e) => {
                let (re, im) = src.split_at(src.len() / 2);
                DynValue::CLongDouble {
                    bytes: src.to_vec(),
                    re: longdouble_to_f64(re, *e),
                    im: longdouble_to_f64(im, *e),
                }
            }
            Decoder::Time(ty, e) => {
                let t = i64::decode(src, *e);
                let ticks = (t != crate::element::NAT).then_some(t);
                match ty.kind {
                    TimeKind::Datetime => DynValue::Datetime { ticks, unit: *ty },
                    TimeKind::Timedelta => DynValue::Timedelta { ticks, unit: *ty },
                }
            }
            Decoder::Bytes => DynValue::Bytes(trim_nuls(src).to_vec()),
            Decoder::Unicode(e) => {
                DynValue::Str(UcsString::new(ucs4_code_points(src, *e).collect()))
            }
            Decoder::Void => DynValue::Void(src.to_vec()),
            Decoder::Ml(t) => {
                let code = match src {
                    [a, b] => u16::from_ne_bytes([*a, *b]),
                    [a] => u16::from(*a),
                    _ => 0,
                };
                if t.is_integer() {
                    DynValue::Int(t.decode(code) as i64)
                } else {
                    DynValue::Float(t.decode(code))
                }
            }
            Decoder::Record(fields) => {
                // Exact capacities (not `collect` through `Result`, which grows by doubling):
                // the budget counts what these hold.
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    let part = &src[f.offset..f.offset + f.size];
                    out.push((f.name.clone(), f.decoder.decode(part)?));
                }
                DynValue::Record(out)
            }
            Decoder::SubArray {
                shape,
                count,
                base_size,
                base,
            } => {
                // Bounded by the budget before reading.
                let mut values = Vec::with_capacity(usize::try_from(*count).unwrap_or(0));
                if *base_size == 0 {
                    for _ in 0..*count {
                        values.push(base.decode(&[])?);
                    }
                } else {
                    for c in src.chunks_exact(*base_size) {
                        values.push(base.decode(c)?);
                    }
                }
                DynValue::SubArray {
                    shape: shape.clone(),
                    values,
                }
            }
        })
    }
}

/// An `f2`, `f4` or `f8` value widened exactly to `f64`.
fn float(p: Primitive, src: &[u8], e: Endian) -> f64 {
    match p {
        Primitive::F16 => f16::decode(src, e).to_f64(),
        Primitive::F32 => f64::from(f32::decode(src, e)),
        _ => f64::decode(src, e),
    }
}

/// The elements of `dtype` (which holds no object) in `bytes`, `n` of them: the data of a
/// numeric array or scalar inside an object array's pickle, whose length the interpreter has
/// checked to be `n` × the itemsize.
///
/// # Errors
/// A dtype the decoder does not read; values it refuses; [`ErrorKind::Truncated`] when
/// `bytes` is shorter than `n` elements.
pub fn decode_all(dtype: &DType, bytes: &[u8], n: u64) -> Result<Vec<DynValue>, Error> {
    let ElementDecoder { decoder, itemsize } = ElementDecoder::new(dtype)?;
    // The caller checked the length; checked again so that a short buffer is an error, not a
    // silently shorter array (n × itemsize saturates: no buffer is that long).
    let (needed, found) = (n.saturating_mul(itemsize as u64), bytes.len() as u64);
    if found < needed {
        return Err(Error::truncated("pickled array data", needed, found));
    }
    // Element `i` ends at most at `needed`: in bounds (at 0, of no bytes, when itemsize is 0).
    let element = |i: u64| &bytes[i as usize * itemsize..][..itemsize];
    (0..n).map(|i| decoder.decode(element(i))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ElementDecoder::decode` (public, for npy-print) documents an error for bytes that do
    /// not hold an element, but sliced them unchecked: `src[0]` of nothing for `|b1`,
    /// `copy_from_slice` of 2 bytes into an `i4`, a record's field past the end (issue 40,
    /// panics audit). Now `Truncated`; bytes past the element are not read.
    #[test]
    fn element_decoder_refuses_bytes_short_of_an_element() {
        for (descr, short) in [
            ("|b1", &[][..]),
            ("<i4", &[1, 2][..]),
            ("<c16", &[0; 9][..]),
            ("[('a', '<i2'), ('b', '<f8')]", &[0; 4][..]),
            ("('<u2', (3,))", &[0; 5][..]),
        ] {
            let dtype: DType = descr.parse().unwrap();
            let d = ElementDecoder::new(&dtype).unwrap();
            let err = d.decode(short).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::Truncated { found, .. } if *found == short.len() as u64),
                "{descr}: {err}"
            );
        }
        let d = ElementDecoder::new(&"<i4".parse().unwrap()).unwrap();
        assert_eq!(
            d.decode(&[0xfe, 0xff, 0xff, 0xff, 9]).unwrap(),
            DynValue::Int(-2)
        );
    }

    /// `decode_all` trusted its caller's length check with a `debug_assert` (a panic in debug
    /// builds, a silently shorter array in release) (issue 40, panics audit): a buffer short
    /// of `n` elements is an error; a longer one decodes `n`.
    #[test]
    fn decode_all_refuses_a_buffer_short_of_n_elements() {
        let i2 = DType::Number(Primitive::I16, crate::dtype::ByteOrder::Little);
        let err = decode_all(&i2, &[1, 0, 2], 2).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Truncated {
                    needed: 4,
                    found: 3,
                    ..
                }
            ),
            "{err}"
        );
        let got = decode_all(&i2, &[1, 0, 0xff, 0xff, 9], 2).unwrap();
        assert_eq!(got, [DynValue::Int(1), DynValue::Int(-1)]);
    }
}
