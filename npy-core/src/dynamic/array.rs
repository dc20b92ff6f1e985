//! [`DynArray`]: the values of a dynamic read with their array's metadata.

use super::DynValue;
use crate::codec::{permute_to_c_order, Stepper};
use crate::error::{Error, ErrorKind};
use crate::format::Order;
use crate::header::Header;
use crate::meta::{meta_accessors, ArrayMeta};

/// An array of any dtype, read by [`read_dyn`](crate::read_dyn): the header's facts and the elements.
///
/// # Examples
/// ```
/// use npy_core::{DynValue, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
/// assert_eq!(a.dtype().to_string(), "<i4");
/// let row: Vec<_> = a.iter_c_order().skip(3).cloned().collect();
/// assert_eq!(row, [DynValue::Int(4), DynValue::Int(5), DynValue::Int(6)]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DynArray {
    meta: ArrayMeta,
    values: Vec<DynValue>,
    /// The elements' bytes as read (memory order, `nbytes` long), kept by `read_dyn` when the
    /// values do not determine every byte: record padding and `b1` bytes other than 0 and 1.
    /// [`write_dyn`](crate::write_dyn) writes the values over them, so a read array writes
    /// back as it was stored, as `np.save` of a loaded array does.
    stored: Option<Vec<u8>>,
}

impl DynArray {
    /// An array of `header`'s dtype, shape and order holding `values` (in that order), with
    /// the header `np.save` would write for it.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) when the number of values is not the product of the
    /// shape; [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow) for a shape whose size exceeds numpy's (2^63 − 1).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynArray, DynValue, Header};
    /// let header = Header::new("<i2".parse()?, vec![2]);
    /// let a = DynArray::new(header, vec![DynValue::Int(-1), DynValue::Int(7)])?;
    /// assert_eq!(a.get(&[1]), Some(&DynValue::Int(7)));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn new(header: Header, values: Vec<DynValue>) -> Result<DynArray, Error> {
        DynArray::from_meta(ArrayMeta::from_header(header)?, values)
    }

    /// An array of `meta` holding `values`.
    pub(crate) fn from_meta(meta: ArrayMeta, values: Vec<DynValue>) -> Result<DynArray, Error> {
        meta.check_len("values for the shape", values.len())?;
        Ok(DynArray {
            meta,
            values,
            stored: None,
        })
    }

    /// The array with the stored bytes its values were decoded from (`nbytes` of them).
    pub(crate) fn with_stored(mut self, stored: Vec<u8>) -> Result<DynArray, Error> {
        if stored.len() as u64 != self.meta.nbytes() {
            return Err(Error::new(ErrorKind::LengthMismatch {
                what: "stored bytes for the values",
                expected: self.meta.nbytes(),
                found: stored.len() as u64,
            }));
        }
        self.stored = Some(stored);
        Ok(self)
    }

    /// The stored bytes of element `i` (memory order), when the array keeps them.
    pub(crate) fn stored(&self, i: usize, itemsize: usize) -> Option<&[u8]> {
        self.stored
            .as_deref()
            .and_then(|s| s.get(i.checked_mul(itemsize)?..i.checked_add(1)?.checked_mul(itemsize)?))
    }

    meta_accessors!();

    /// The elements in memory order ([`DynArray::order`]; see [`DynArray::iter_c_order`] for
    /// logical order).
    pub fn values(&self) -> &[DynValue] {
        &self.values
    }

    /// The elements in memory order, giving up the metadata.
    pub fn into_values(self) -> Vec<DynValue> {
        self.values
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The element at a logical index (one entry per dimension; `&[]` for a 0-d array),
    /// whatever the memory order; `None` out of range.
    pub fn get(&self, index: &[u64]) -> Option<&DynValue> {
        self.meta.index_of(index).and_then(|i| self.values.get(i))
    }

    /// The elements in logical C order (last index fastest), whatever the memory order: what
    /// `arr.flat` iterates in numpy.
    pub fn iter_c_order(&self) -> COrderIter<'_> {
        COrderIter {
            array: self,
            walk: Stepper::new(self.shape(), Order::C),
        }
    }

    /// The elements in logical C order, giving up the array (no copy when it is in C order).
    pub fn into_c_order(self) -> Vec<DynValue> {
        let mut values = self.values;
        permute_to_c_order(&mut values, self.meta.shape(), self.meta.order());
        values
    }
}

/// Equal arrays have the same dtype, shape, order and values (the stored header text and the
/// bytes the values do not determine, such as record padding, may differ: numpy's `==` on
/// records compares fields too).
impl PartialEq for DynArray {
    fn eq(&self, other: &Self) -> bool {
        self.dtype() == other.dtype()
            && self.shape() == other.shape()
            && self.order() == other.order()
            && self.values == other.values
    }
}

/// Iterator over a [`DynArray`]'s elements in logical C order; see [`DynArray::iter_c_order`].
#[derive(Debug, Clone)]
pub struct COrderIter<'a> {
    array: &'a DynArray,
    walk: Stepper,
}

impl<'a> Iterator for COrderIter<'a> {
    type Item = &'a DynValue;

    fn next(&mut self) -> Option<&'a DynValue> {
        let item = self.array.get(self.walk.index()?);
        self.walk.step();
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_order_of_fortran_array() {
        let mut header = Header::new("<i8".parse().unwrap(), vec![2, 3]);
        header.fortran_order = true;
        let a = DynArray::new(header.clone(), (0..6).map(DynValue::Int).collect()).unwrap();
        let c: Vec<_> = a.iter_c_order().cloned().collect();
        let want: Vec<_> = [0, 2, 4, 1, 3, 5].map(DynValue::Int).to_vec();
        assert_eq!(c, want);
        assert_eq!(a.get(&[1, 0]), Some(&DynValue::Int(1)));
        assert_eq!(a.clone().into_c_order(), want);
        let empty = DynArray::new(
            Header {
                shape: vec![3, 0],
                ..header.clone()
            },
            vec![],
        )
        .unwrap();
        assert_eq!(empty.iter_c_order().count(), 0);
        let scalar = DynArray::new(
            Header {
                shape: vec![],
                ..header
            },
            vec![DynValue::Int(9)],
        )
        .unwrap();
        assert_eq!(scalar.iter_c_order().count(), 1);
    }
}
