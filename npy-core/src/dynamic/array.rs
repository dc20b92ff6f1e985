//! [`DynArray`]: an array of any dtype, held as one typed column per leaf field (or, for
//! dtypes holding objects, as the decoded objects), with its metadata.

use std::borrow::Cow;

use super::columns::Columns;
use super::{Column, DynValue};
use crate::codec::{per_chunk, Stepper};
use crate::error::{to_usize, Error};
use crate::format::MemoryOrder;
use crate::header::Header;
use crate::meta::{meta_accessors, ArrayMeta};

/// Bytes of elements encoded at a time when an array is built from values.
const BUILD_CHUNK_BYTES: usize = 1 << 20;

/// An array of any dtype, read by [`read_dyn`](crate::read_dyn): the header's facts and the
/// elements, held as one typed [`Column`] per leaf field.
///
/// The columns hold each field's bytes (numbers viewable in place with [`Column::values`]), so
/// an array costs about its data's size; an element's tree of [`DynValue`]s is built when asked
/// for ([`DynArray::get`], [`DynArray::element`], [`DynArray::iter`]). Arrays whose dtype holds
/// objects (`O`, decoded by an [`ObjectCodec`](crate::dynamic::ObjectCodec)) hold their decoded
/// values instead ([`DynArray::objects`]), which the iterators borrow.
///
/// # Examples
/// ```
/// use npy_core::{DynValue, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
/// assert_eq!(a.dtype().to_string(), "<i4");
/// assert_eq!(a.get(&[1, 0]), Some(DynValue::Int(4)));
/// let row: Vec<DynValue> = a.iter_c_order().skip(3).map(|v| v.into_owned()).collect();
/// assert_eq!(row, [DynValue::Int(4), DynValue::Int(5), DynValue::Int(6)]);
/// assert_eq!(a.columns()[0].values::<i32>()?, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DynArray {
    meta: ArrayMeta,
    data: Data,
}

#[derive(Debug, Clone)]
enum Data {
    /// Every dtype without objects.
    Columns(Columns),
    /// A dtype holding objects: the decoded values, in memory order.
    Values(Vec<DynValue>),
}

impl DynArray {
    /// An array of `header`'s dtype, shape and order holding `values` (in that order), with the
    /// header `np.save` would write for it. The values are encoded into the dtype's columns now
    /// (record padding zero, bools 0 and 1); for a dtype holding objects they are kept as they are.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) when the number of
    /// values is not the product of the shape;
    /// [`ErrorKind::ValueMismatch`](crate::ErrorKind::ValueMismatch) for a value the dtype
    /// cannot hold (another kind, out of range, a string longer than the width, another
    /// datetime unit); [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow) for a shape
    /// whose size exceeds numpy's (2^63 − 1).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynArray, DynValue, Header};
    /// let header = Header::new("<i2".parse()?, vec![2]);
    /// let a = DynArray::new(header.clone(), vec![DynValue::Int(-1), DynValue::Int(7)])?;
    /// assert_eq!(a.get(&[1]), Some(DynValue::Int(7)));
    /// assert!(DynArray::new(header, vec![DynValue::Int(1 << 20), DynValue::Int(0)]).is_err());
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn new(header: Header, values: Vec<DynValue>) -> Result<DynArray, Error> {
        let meta = ArrayMeta::from_header(header)?;
        meta.check_len("values for the shape", values.len())?;
        let dtype = meta.dtype().clone();
        if dtype.has_object() {
            return Ok(DynArray {
                meta,
                data: Data::Values(values),
            });
        }
        let mut columns = Columns::new(&dtype, false)?;
        columns.reserve_exact(values.len());
        let itemsize = to_usize(dtype.itemsize(), "itemsize")?;
        let rows = per_chunk(itemsize, BUILD_CHUNK_BYTES);
        let mut buf = vec![0u8; rows.min(values.len()) * itemsize];
        for part in values.chunks(rows) {
            let buf = &mut buf[..part.len() * itemsize];
            buf.fill(0);
            for (i, v) in part.iter().enumerate() {
                super::encode::encode(&dtype, v, &mut buf[i * itemsize..(i + 1) * itemsize])?;
            }
            columns.push_rows(buf, part.len());
        }
        DynArray::from_columns(meta, columns)
    }

    /// An array of `meta` held in `columns` (one element per element of `meta`).
    pub(super) fn from_columns(meta: ArrayMeta, columns: Columns) -> Result<DynArray, Error> {
        meta.check_len("elements in the columns", columns.len())?;
        Ok(DynArray {
            meta,
            data: Data::Columns(columns),
        })
    }

    /// The columns, for the writer; `None` for a dtype holding objects.
    pub(super) fn column_store(&self) -> Option<&Columns> {
        match &self.data {
            Data::Columns(c) => Some(c),
            Data::Values(_) => None,
        }
    }

    meta_accessors!();

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Columns(c) => c.len(),
            Data::Values(v) => v.len(),
        }
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The leaf columns, in the dtype's field order (depth first; one column for a dtype that
    /// is not a record); empty for a dtype holding objects.
    pub fn columns(&self) -> &[Column] {
        self.column_store().map_or(&[], |c| &c.leaves)
    }

    /// [`DynArray::columns`], moved out (nothing is copied): with [`Column::into_words`], a
    /// column's storage can be handed to another owner (an Arrow buffer) as it is.
    pub fn into_columns(self) -> Vec<Column> {
        match self.data {
            Data::Columns(c) => c.leaves,
            Data::Values(_) => Vec::new(),
        }
    }

    /// The column of the field at dotted `path` (`"pos.x"`; `""` for a non-record array): the
    /// first column, in field order, whose names joined by dots are `path`. A field name may
    /// itself hold a dot (numpy allows `('a.b', '<i4')`), so `"a.b"` is the top-level field
    /// `a.b` or field `b` of record `a`, whichever comes first; [`DynArray::column_at`] takes
    /// the names one by one and is never ambiguous. [`Column`]'s example uses it.
    pub fn column(&self, path: &str) -> Option<&Column> {
        self.columns().iter().find(|c| c.path().join(".") == path)
    }

    /// The column of the field at `path`, one whole name per level from the top-level record
    /// down (`&["pos", "x"]`, `&["a.b"]`; `&[]` for a non-record array).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynArray, DynValue::*, Header};
    /// let dtype = "[('a.b', '<i2'), ('a', [('b', '<u1')])]".parse()?;
    /// let b = Record(vec![("b".into(), UInt(9))]);
    /// let v = Record(vec![("a.b".into(), Int(7)), ("a".into(), b)]);
    /// let a = DynArray::new(Header::new(dtype, vec![1]), vec![v])?;
    /// assert_eq!(a.column_at(&["a.b"]).unwrap().values::<i16>()?, [7i16]);
    /// assert_eq!(a.column_at(&["a", "b"]).unwrap().values::<u8>()?, [9u8]);
    /// assert!(a.column_at(&["a"]).is_none()); // a record, not a leaf
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn column_at<S: AsRef<str>>(&self, path: &[S]) -> Option<&Column> {
        self.columns().iter().find(|c| {
            c.path().len() == path.len() && c.path().iter().zip(path).all(|(a, b)| a == b.as_ref())
        })
    }

    /// The decoded values of an array whose dtype holds objects (`|O`, or records with
    /// object fields), in memory order; `None` for other dtypes, which are held as columns.
    pub fn objects(&self) -> Option<&[DynValue]> {
        match &self.data {
            Data::Values(v) => Some(v),
            Data::Columns(_) => None,
        }
    }

    /// Element `i` in memory order ([`DynArray::order`]) as a tree: a [`DynValue::Record`]
    /// for records; `None` out of range.
    pub fn element(&self, i: usize) -> Option<DynValue> {
        self.element_cow(i).map(Cow::into_owned)
    }

    /// Element `i` in memory order, borrowed from an array of objects, else built.
    pub(crate) fn element_cow(&self, i: usize) -> Option<Cow<'_, DynValue>> {
        match &self.data {
            Data::Columns(c) => c.element(self.meta.dtype(), i).map(Cow::Owned),
            Data::Values(v) => v.get(i).map(Cow::Borrowed),
        }
    }

    /// The element at a logical index (one entry per dimension; `&[]` for a 0-d array),
    /// whatever the memory order; `None` out of range.
    pub fn get(&self, index: &[u64]) -> Option<DynValue> {
        self.meta.index_of(index).and_then(|i| self.element(i))
    }

    /// The elements in memory order ([`DynArray::order`]): built when reached, or borrowed
    /// from an array of objects.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            array: self,
            next: 0,
        }
    }

    /// The elements in logical C order (last index fastest, numpy's `arr.flat`), whatever the
    /// memory order; built or borrowed as [`DynArray::iter`]'s.
    pub fn iter_c_order(&self) -> COrderIter<'_> {
        COrderIter {
            array: self,
            walk: Stepper::new(self.shape(), MemoryOrder::C),
        }
    }
}

impl<'a> IntoIterator for &'a DynArray {
    type Item = Cow<'a, DynValue>;
    type IntoIter = Iter<'a>;

    /// [`DynArray::iter`]: the elements in memory order.
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Equal arrays have the same dtype, shape, order and values (compared as [`DynValue`]s, so
/// that NaN is unequal as in numpy; record padding and the bytes of `b1` values other than 0
/// and 1 may differ: numpy's `==` compares values too).
impl PartialEq for DynArray {
    fn eq(&self, other: &Self) -> bool {
        self.dtype() == other.dtype()
            && self.shape() == other.shape()
            && self.order() == other.order()
            && self.iter().eq(other.iter())
    }
}

/// Iterator over a [`DynArray`]'s elements in memory order; see [`DynArray::iter`].
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    array: &'a DynArray,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, DynValue>;

    fn next(&mut self) -> Option<Cow<'a, DynValue>> {
        let v = self.array.element_cow(self.next)?;
        self.next += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.array.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Iterator over a [`DynArray`]'s elements in logical C order; see [`DynArray::iter_c_order`].
#[derive(Debug, Clone)]
pub struct COrderIter<'a> {
    array: &'a DynArray,
    walk: Stepper,
}

impl<'a> Iterator for COrderIter<'a> {
    type Item = Cow<'a, DynValue>;

    fn next(&mut self) -> Option<Cow<'a, DynValue>> {
        let array = self.array;
        let item = array.element_cow(array.meta.index_of(self.walk.index()?)?);
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
        let c: Vec<_> = a.iter_c_order().map(Cow::into_owned).collect();
        let want: Vec<_> = [0, 2, 4, 1, 3, 5].map(DynValue::Int).to_vec();
        assert_eq!(c, want);
        assert_eq!(a.get(&[1, 0]), Some(DynValue::Int(1)));
        assert_eq!(a.iter().count(), 6);
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

    /// Columns are found by their dotted path, whole names only.
    #[test]
    fn columns_by_path() {
        let dtype = "[('pos', [('x', '<f4'), ('y', '<f4')]), ('p', '<u1')]"
            .parse()
            .unwrap();
        let zero = DynValue::Float(0.0);
        let rec = DynValue::Record(vec![
            (
                "pos".into(),
                DynValue::Record(vec![("x".into(), zero.clone()), ("y".into(), zero)]),
            ),
            ("p".into(), DynValue::UInt(3)),
        ]);
        let a = DynArray::new(Header::new(dtype, vec![1]), vec![rec.clone()]).unwrap();
        assert_eq!(a.columns().len(), 3);
        assert_eq!(a.column("pos.y").unwrap().path(), ["pos", "y"]);
        assert!(a.column("pos").is_none());
        assert!(a.column("pos.y.z").is_none());
        assert!(a.column("").is_none());
        assert_eq!(a.column("p").unwrap().values::<u8>().ok(), Some(&[3u8][..]));
        assert_eq!(a.element(0), Some(rec));
        assert_eq!(a.element(1), None);
    }

    /// A top-level name holding a dot (numpy allows any string as a field name) is reached
    /// by the dotted form when it comes first, and always by the path of names; a nested
    /// field of the same dotted spelling is reached by its names.
    #[test]
    fn names_holding_dots() {
        let dtype = "[('a.b', '<i2'), ('a', [('b', '<u1'), ('c.d', '<u1')])]"
            .parse()
            .unwrap();
        let mut bytes = Header::new(dtype, vec![1]).to_bytes(None).unwrap();
        // One element, as the format lays it out: 'a.b' (2 bytes), then a.b, then a.'c.d'.
        bytes.extend_from_slice(&[7, 0, 9, 11]);
        let a = crate::read::NpyReader::new(&bytes[..])
            .unwrap()
            .read_dyn()
            .unwrap();
        assert_eq!(a.column_at(&["a.b"]).unwrap().path(), ["a.b"]);
        assert_eq!(
            a.column_at(&["a.b"]).unwrap().values::<i16>().ok(),
            Some(&[7i16][..])
        );
        assert_eq!(
            a.column_at(&["a", "b"]).unwrap().values::<u8>().ok(),
            Some(&[9u8][..])
        );
        assert_eq!(
            a.column_at(&["a", "c.d"]).unwrap().values::<u8>().ok(),
            Some(&[11u8][..])
        );
        assert!(a.column_at(&["a"]).is_none());
        assert!(a.column_at(&["a", "c", "d"]).is_none());
        let none: [&str; 0] = [];
        assert!(a.column_at(&none).is_none());
        // The dotted form: the first column in field order whose joined names match.
        assert_eq!(a.column("a.b").unwrap().path(), ["a.b"]);
        assert_eq!(a.column("a.c.d").unwrap().path(), ["a", "c.d"]);
        assert!(a.column("a.c").is_none());
        assert!(a.column("a.b.").is_none());
        assert!(a.column("").is_none());
    }
}
