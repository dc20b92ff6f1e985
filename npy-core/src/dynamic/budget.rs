//! The budget of the [`DynValue`] trees a dynamic read's columns (which hold the data's bytes,
//! bounded by the input) build when asked for, checked from the header before anything is read.

use super::DynValue;
use crate::codec::saturating_product;
use crate::dtype::{DType, Primitive};
use crate::error::Error;

/// Largest element (in bytes) [`NpyReader::read_dyn`](crate::NpyReader::read_dyn) decodes:
/// one element is read into a buffer whole, and a stream of unknown length cannot show that the
/// bytes exist first.
pub const MAX_DYN_ITEMSIZE: u64 = 1 << 30;

/// Most bytes of [`DynValue`]s the elements of an array from
/// [`NpyReader::read_dyn`](crate::NpyReader::read_dyn) may take as trees (all of them, as
/// [`DynArray::iter`](crate::DynArray::iter) builds them) per byte of array data, beyond a
/// fixed [`DYN_ALLOWANCE`]. The array itself holds its data's bytes, in columns.
///
/// A `DynValue` is 48 bytes, one per byte of a `|u1` array; a record field adds its name and a
/// `(String, DynValue)` entry per element. Real dtypes stay well under this (a record of one
/// `|b1` field with a 100-character name: about 220); a header whose names, subarray shapes or
/// zero-size parts would multiply the file's bytes further is refused with
/// [`AllocationLimit`](crate::ErrorKind::AllocationLimit) before anything is decoded: read such
/// files with typed reads or views.
pub const MAX_DYN_EXPANSION: u64 = 256;

/// Bytes of decoded values the trees of an array from
/// [`NpyReader::read_dyn`](crate::NpyReader::read_dyn) may take whatever the data: what
/// zero-size parts (`S0`, empty records, zero-size subarrays), which no byte backs, may take.
pub const DYN_ALLOWANCE: u64 = 1 << 20;

/// Refuses a dynamic read of `len` elements of `dtype` whose values would take more memory
/// than their data backs: elements over [`MAX_DYN_ITEMSIZE`], trees over
/// [`MAX_DYN_EXPANSION`] × the data + [`DYN_ALLOWANCE`]. `len` × the itemsize fits in 64 bits
/// (at most the array's, which [`ArrayMeta`](crate::meta::ArrayMeta) checked).
pub(super) fn check(dtype: &DType, len: u64) -> Result<(), Error> {
    let itemsize = dtype.itemsize();
    if itemsize > MAX_DYN_ITEMSIZE {
        let what = "one element of a dynamic read";
        return Err(Error::allocation_limit(what, 1, itemsize));
    }
    // Zero-size parts count like any value: inside an element of some bytes they are backed by
    // those bytes (numpy loads 17,000,000 records of `[('a', '|S0'), ('b', '|u1')]`); elements
    // of no bytes at all get only the allowance (at most 1 MiB / 48 bytes = 21,845 values).
    let per_element = dyn_cost(dtype);
    let budget = len
        .saturating_mul(itemsize)
        .saturating_mul(MAX_DYN_EXPANSION)
        .saturating_add(DYN_ALLOWANCE);
    if len.saturating_mul(per_element) > budget {
        let what = "decoded values of a dynamic read";
        return Err(Error::allocation_limit(what, len, per_element));
    }
    Ok(())
}

/// Bytes one decoded element of `dtype` takes: its `DynValue` and everything that value owns
/// (saturating: a result of `u64::MAX` is refused whatever the data).
pub fn dyn_cost(dtype: &DType) -> u64 {
    let value = std::mem::size_of::<DynValue>() as u64;
    value.saturating_add(dyn_heap(dtype))
}

/// The heap bytes a decoded element of `dtype` owns (what `decode.rs` builds).
fn dyn_heap(dtype: &DType) -> u64 {
    match dtype {
        DType::Number(Primitive::LongDouble { .. } | Primitive::CLongDouble { .. }, _)
        | DType::Bytes(_)
        | DType::Unicode(..)
        | DType::Void(_) => dtype.itemsize(),
        DType::Record(r) => {
            let entry = std::mem::size_of::<(String, DynValue)>() as u64;
            r.fields().iter().fold(0u64, |acc, f| {
                acc.saturating_add(entry)
                    .saturating_add(f.name.len() as u64)
                    .saturating_add(dyn_heap(&f.dtype))
            })
        }
        DType::SubArray(s) => {
            let (shape, base) = s.flatten();
            let dims = shape.len() as u64;
            let count = saturating_product(&shape);
            dims.saturating_mul(8)
                .saturating_add(count.saturating_mul(dyn_cost(base)))
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::{ByteOrder, Field, Record};
    use crate::error::ErrorKind;

    /// The smallest member of every dtype family (numpy's itemsizes: `b1`, `i1`, `u1`, `S1`,
    /// `V1` 1 byte; `f2` 2; `U1` 4 (one UCS-4 code point); `c8`, `M8`, `m8` 8; x87 long double
    /// `g` 16 and `G` 32 as numpy writes them on x86-64; a record of one 1-byte field with a
    /// 1-character name; a subarray of one 1-byte element).
    const FAMILIES: [&str; 14] = [
        "|b1",
        "|i1",
        "|u1",
        "<f2",
        "|S1",
        "|V1",
        "<U1",
        "<c8",
        "<M8[s]",
        "<m8[s]",
        "<f16",
        "<c32",
        "[('a', '|u1')]",
        "('|u1', (1,))",
    ];

    /// Each family's smallest element decodes into at most `MAX_DYN_EXPANSION` bytes of values
    /// per data byte: any length of it
    /// fits the budget, up to the largest whose budget does not saturate.
    #[test]
    fn every_family_fits_the_expansion_at_its_smallest_itemsize() {
        for descr in FAMILIES {
            let dtype: DType = descr.parse().unwrap();
            let itemsize = dtype.itemsize();
            assert!(itemsize > 0, "{descr}");
            let cost = dyn_cost(&dtype);
            assert!(
                cost <= MAX_DYN_EXPANSION * itemsize,
                "{descr}: {cost} bytes of values for {itemsize} data bytes"
            );
            let longest = u64::MAX / itemsize / MAX_DYN_EXPANSION;
            assert!(check(&dtype, longest).is_ok(), "{descr}");
        }
    }

    /// A zero-size field inside a record of some bytes is backed by them: more such records
    /// than the old zero-size count limit (2^24; numpy loads 17,000,000) fit the budget.
    /// Elements of no bytes at all get only `DYN_ALLOWANCE`: exactly its worth of `S0` values
    /// fit, one more does not.
    #[test]
    fn zero_size_values_are_bounded_by_the_bytes_that_back_them() {
        let record: DType = "[('a', '|S0'), ('b', '|u1')]".parse().unwrap();
        assert!(check(&record, (1 << 24) + 1).is_ok());
        assert!(check(&record, 17_000_000).is_ok());
        let empty: DType = "|S0".parse().unwrap();
        let value = std::mem::size_of::<DynValue>() as u64;
        let fit = DYN_ALLOWANCE / value;
        assert!(check(&empty, fit).is_ok());
        let err = check(&empty, fit + 1).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::AllocationLimit { .. }));
    }

    /// One element of at most `MAX_DYN_ITEMSIZE` bytes is read; one byte more is refused.
    #[test]
    fn element_size_at_its_boundary() {
        assert!(check(&DType::Void(MAX_DYN_ITEMSIZE), 1).is_ok());
        let err = check(&DType::Void(MAX_DYN_ITEMSIZE + 1), 1).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::AllocationLimit { bytes_each, .. } if *bytes_each == MAX_DYN_ITEMSIZE + 1
        ));
    }

    /// The budget at its boundary: a one-byte record whose decoded value costs exactly
    /// `MAX_DYN_EXPANSION` bytes fits any length; a name one byte longer does not, past
    /// `DYN_ALLOWANCE` elements.
    #[test]
    fn the_budget_at_its_boundary() {
        let entry = std::mem::size_of::<(String, DynValue)>() as u64;
        let value = std::mem::size_of::<DynValue>() as u64;
        let record = |name_len: u64| {
            let field = Field {
                name: "n".repeat(name_len as usize).into(),
                title: None,
                dtype: DType::Number(Primitive::U8, ByteOrder::NotApplicable),
                offset: 0,
            };
            DType::Record(Record::new(vec![field], 1).unwrap())
        };
        let name_len = MAX_DYN_EXPANSION - value - entry;
        let dtype = record(name_len);
        assert_eq!(dyn_cost(&dtype), MAX_DYN_EXPANSION);
        assert!(check(&dtype, u64::MAX / 512).is_ok());
        let longer = record(name_len + 1);
        assert!(check(&longer, DYN_ALLOWANCE).is_ok());
        let err = check(&longer, DYN_ALLOWANCE + 1).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::AllocationLimit { bytes_each, .. } if *bytes_each == MAX_DYN_EXPANSION + 1
        ));
    }
}
