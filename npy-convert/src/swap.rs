//! The byte-order half of a conversion: where each element's scalars sit, and their swap.

use npy_core::__private::{saturating_product, swap_in_place};
use npy_core::dtype::Primitive;
use npy_core::{ByteOrder, DType, Error};

use crate::to_usize;

/// A run of `count` scalars of `unit` bytes starting at `offset` within an element, each
/// reversed when the byte order changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SwapRun {
    offset: usize,
    unit: usize,
    count: usize,
}

/// Where the scalars of an element of `dtype` sit (from byte `base`), for swapping them into
/// `target` order.
pub(super) fn swap_runs(
    dtype: &DType,
    base: usize,
    target: ByteOrder,
    out: &mut Vec<SwapRun>,
) -> Result<(), Error> {
    match dtype {
        DType::Number(_, o) | DType::Time(_, o)
            if *o != ByteOrder::NotApplicable && *o != target =>
        {
            let size = to_usize(dtype.itemsize(), "itemsize")?;
            let complex = matches!(
                dtype,
                DType::Number(
                    Primitive::C64 | Primitive::C128 | Primitive::CLongDouble { .. },
                    _
                )
            );
            let (unit, count) = if complex { (size / 2, 2) } else { (size, 1) };
            out.push(SwapRun {
                offset: base,
                unit,
                count,
            });
        }
        DType::Unicode(n, o) if *o != target => {
            out.push(SwapRun {
                offset: base,
                unit: 4,
                count: to_usize(*n, "'U' length")?,
            });
        }
        DType::Record(r) => {
            for f in r.fields() {
                let offset = to_usize(f.offset, "record field offset")?;
                swap_runs(&f.dtype, base + offset, target, out)?;
            }
        }
        DType::SubArray(s) => {
            // With scalars in the base (item > 0), n × item is the subarray's itemsize, which
            // fits: the runs below stay in the element.
            let item = to_usize(s.base().itemsize(), "itemsize")?;
            let n = to_usize(saturating_product(s.shape()), "subarray length")?;
            let mut inner = Vec::new();
            swap_runs(s.base(), 0, target, &mut inner)?;
            if let [one] = inner.as_slice() {
                if one.offset == 0 && one.unit * one.count == item {
                    // Contiguous scalars of one size: a single run for the whole subarray.
                    out.push(SwapRun {
                        offset: base,
                        count: one.count * n,
                        ..*one
                    });
                    return Ok(());
                }
            }
            if !inner.is_empty() {
                for i in 0..n {
                    let at = base + i * item;
                    out.extend(inner.iter().map(|r| SwapRun {
                        offset: at + r.offset,
                        ..*r
                    }));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Swaps the scalars of one element in place.
fn apply(runs: &[SwapRun], element: &mut [u8]) {
    for r in runs {
        swap_in_place(&mut element[r.offset..r.offset + r.unit * r.count], r.unit);
    }
}

/// The byte swap of the conversion, applied to buffers of whole elements.
pub(super) enum Swap {
    /// Nothing changes.
    None,
    /// Every `unit`-byte scalar of the buffer (one scalar type fills each element).
    Bulk(usize),
    /// The runs of each `itemsize`-byte element.
    PerElement(Vec<SwapRun>, usize),
}

impl Swap {
    pub(super) fn new(runs: Vec<SwapRun>, itemsize: usize) -> Swap {
        // Neighbouring runs of one unit (packed fields of one type) are one run.
        let mut merged: Vec<SwapRun> = Vec::with_capacity(runs.len());
        for r in runs {
            match merged.last_mut() {
                Some(last)
                    if last.unit == r.unit && last.offset + last.unit * last.count == r.offset =>
                {
                    last.count += r.count;
                }
                _ => merged.push(r),
            }
        }
        match merged.as_slice() {
            [] => Swap::None,
            [one] if one.offset == 0 && one.unit * one.count == itemsize => Swap::Bulk(one.unit),
            _ => Swap::PerElement(merged, itemsize),
        }
    }

    /// Swaps every element of `buf` (whole elements).
    pub(super) fn apply(&self, buf: &mut [u8]) {
        match self {
            Swap::None => {}
            Swap::Bulk(unit) => swap_in_place(buf, *unit),
            Swap::PerElement(runs, itemsize) => {
                buf.chunks_exact_mut(*itemsize).for_each(|e| apply(runs, e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_of_packed_fields_of_one_unit_become_one_bulk_swap() {
        let run = |offset, unit, count| SwapRun {
            offset,
            unit,
            count,
        };
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1), run(4, 4, 2)], 12),
            Swap::Bulk(4)
        ));
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1), run(4, 2, 1)], 6),
            Swap::PerElement(..)
        ));
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1)], 5),
            Swap::PerElement(..)
        ));
        assert!(matches!(Swap::new(vec![], 5), Swap::None));
    }
}
