//! `S` and `U` strings: `Vec<u8>` and `String`.

use super::{mismatch, NpyElement};
use crate::codec::{encode_bytes, encode_ucs4, trim_nuls, ucs4_code_points, Endian};
use crate::dtype::{ByteOrder, DType};
use crate::error::{to_usize, Error, ErrorKind};

/// The width `S` and `U` strings are written with: the longest value's length, and at least 1
/// (numpy's `np.array([''])` is `<U1`).
fn width(lengths: impl Iterator<Item = usize>) -> u64 {
    lengths.max().map_or(0, |n| n as u64).max(1)
}

/// `S` strings: bytes, NUL-padded in the file. Reading strips trailing NULs, as numpy's item
/// access does; writing pads with NULs.
impl NpyElement for Vec<u8> {
    type Plan = usize;
    fn npy_dtype() -> DType {
        DType::Bytes(0)
    }
    fn dtype_for(values: &[Self]) -> DType {
        DType::Bytes(width(values.iter().map(Vec::len)))
    }
    fn rust_name() -> String {
        "Vec<u8>".to_owned()
    }
    fn plan(dtype: &DType) -> Result<usize, Error> {
        match dtype {
            DType::Bytes(n) => to_usize(*n, "'S' itemsize"),
            _ => Err(mismatch::<Self>(dtype)),
        }
    }
    fn read(_: &usize, src: &[u8]) -> Result<Self, Error> {
        Ok(trim_nuls(src).to_vec())
    }
    fn write(&self, width: &usize, dst: &mut [u8]) -> Result<(), Error> {
        if !encode_bytes(self, dst) {
            return Err(Error::new(ErrorKind::ValueTooLong {
                len: self.len(),
                dtype: DType::Bytes(*width as u64),
                field: None,
            }));
        }
        Ok(())
    }
}

/// `U` strings: UCS-4 code points, NUL-padded. Reading strips trailing NULs (as numpy) and
/// refuses code points a `String` cannot hold (lone surrogates, values past U+10FFFF) with
/// [`ErrorKind::InvalidUnicode`]; read such files with `read_dyn`, which keeps raw code points.
impl NpyElement for String {
    type Plan = (Endian, usize);
    fn npy_dtype() -> DType {
        DType::Unicode(0, ByteOrder::NATIVE)
    }
    fn dtype_for(values: &[Self]) -> DType {
        let chars = width(values.iter().map(|v| v.chars().count()));
        DType::Unicode(chars, ByteOrder::NATIVE)
    }
    fn rust_name() -> String {
        "String".to_owned()
    }
    fn plan(dtype: &DType) -> Result<Self::Plan, Error> {
        match dtype {
            DType::Unicode(n, o) => Ok((Endian::of(*o), to_usize(*n, "'U' length")?)),
            _ => Err(mismatch::<Self>(dtype)),
        }
    }
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error> {
        ucs4_code_points(src, plan.0)
            .map(|cp| {
                char::from_u32(cp)
                    .ok_or_else(|| Error::new(ErrorKind::InvalidUnicode { code_point: cp }))
            })
            .collect()
    }
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
        if !encode_ucs4(self.chars().map(u32::from), dst, plan.0) {
            let order = if plan.0.is_big() {
                ByteOrder::Big
            } else {
                ByteOrder::Little
            };
            return Err(Error::new(ErrorKind::ValueTooLong {
                len: self.chars().count(),
                dtype: DType::Unicode(plan.1 as u64, order),
                field: None,
            }));
        }
        Ok(())
    }
}
