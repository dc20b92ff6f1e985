//! [`ArrayMeta`]: what an array is (its header and the sizes derived from it), checked once
//! and shared by every reader, view, map and array of the crate.

use std::ops::Range;

use crate::codec::flat_index;
use crate::dtype::{DType, SubArray};
use crate::error::{Error, ErrorKind};
use crate::format::Version;
use crate::header::{Header, ParsedHeader};

/// An array's header and the sizes derived from it, validated once.
///
/// [`NpyReader`](crate::NpyReader), [`NpyView`](crate::NpyView), `NpyMmap`,
/// [`NpyArray`](crate::NpyArray) and [`DynArray`](crate::DynArray) each hold one and answer
/// the same questions through it (`meta()`, and the shorthands `header()`, `dtype()`,
/// `shape()`, `order()`, `parsed_header()`, `data_offset()` on each type). An array built in
/// memory has the header `np.save` would write for it.
///
/// # Examples
/// ```
/// use npy_core::{read::ArrayMeta, Header, MemoryOrder};
/// let mut header = Header::new("<f8".parse()?, vec![2, 3]);
/// header.fortran_order = true;
/// let meta = ArrayMeta::from_header(header)?;
/// assert_eq!((meta.num_elements(), meta.nbytes(), meta.order()), (6, 48, MemoryOrder::Fortran));
/// assert_eq!(meta.data_offset(), 128);
/// assert_eq!(meta.index_of(&[1, 0]), Some(1)); // Fortran order: the first index is fastest
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayMeta {
    parsed: ParsedHeader,
    len: u64,
    itemsize: u64,
    nbytes: u64,
}

impl ArrayMeta {
    /// The metadata of a header as read from a file.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`](crate::ErrorKind::SizeOverflow) when the element count or
    /// the data's bytes do not fit in 64 bits.
    pub fn new(parsed: ParsedHeader) -> Result<ArrayMeta, Error> {
        let nbytes = parsed.header.nbytes()?;
        let len = parsed.header.num_elements()?;
        Ok(ArrayMeta {
            itemsize: parsed.header.dtype.itemsize(),
            parsed,
            len,
            nbytes,
        })
    }

    /// The same metadata with the dtype read through `hint` ([`ParsedHeader::hinted_dtype`]),
    /// which keeps the itemsize, so the sizes stand (a dtype of another size is refused all the
    /// same). A hint it refuses (big-endian `'>V2'` as bfloat16) leaves numpy's dtype.
    pub(crate) fn hint(&mut self, hint: crate::dtype::MlType) {
        match self.parsed.hinted_dtype(hint) {
            Ok(Some(d)) if d.itemsize() == self.itemsize => self.parsed.header.dtype = d,
            _ => {}
        }
    }

    /// The metadata of an array of `header` stored as `np.save` would store it (numpy's
    /// version choice and padding).
    ///
    /// # Errors
    /// As [`ArrayMeta::new`], and [`Header::to_bytes`]'s errors.
    pub fn from_header(header: Header) -> Result<ArrayMeta, Error> {
        ArrayMeta::new(ParsedHeader::for_header(header)?)
    }

    meta_accessors!(@header parsed);

    /// The header with its version, length and text, giving up the sizes.
    pub fn into_parsed_header(self) -> ParsedHeader {
        self.parsed
    }

    /// Number of elements: the product of the shape (1 for `()`), as the header says (a
    /// `u64`: the data may not be in memory; `len()` of in-memory arrays is `usize`).
    #[inline]
    pub fn num_elements(&self) -> u64 {
        self.len
    }

    /// Whether the array has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes per element.
    #[inline]
    pub fn itemsize(&self) -> u64 {
        self.itemsize
    }

    /// Bytes of array data: elements × itemsize.
    #[inline]
    pub fn nbytes(&self) -> u64 {
        self.nbytes
    }

    /// The format version.
    #[inline]
    pub fn version(&self) -> Version {
        self.parsed.version
    }

    /// [`ErrorKind::LengthMismatch`] (naming `what`) unless `found` values fill the array.
    pub(crate) fn check_len(&self, what: &'static str, found: usize) -> Result<(), Error> {
        if self.len != found as u64 {
            return Err(Error::new(ErrorKind::LengthMismatch {
                what,
                expected: self.len,
                found: found as u64,
            }));
        }
        Ok(())
    }

    /// The dimensions of a row (the shape after the first), once `rows` are found to be a
    /// contiguous run of the array's bytes.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for Fortran-order or 0-d arrays, [`ErrorKind::OutOfRange`]
    /// for rows outside the array.
    pub(crate) fn row_dims(&self, rows: &Range<u64>) -> Result<&[u64], Error> {
        let Some((&count, row)) = self
            .shape()
            .split_first()
            .filter(|_| !self.order().is_fortran())
        else {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "read_rows",
                reason: "rows are contiguous only in C-order arrays with at least one dimension"
                    .into(),
            }));
        };
        check_within("row range", rows, count)?;
        Ok(row)
    }

    /// Position in memory (in elements) of a logical index, one entry per dimension, whatever
    /// the memory order; `None` out of range.
    pub fn index_of(&self, index: &[u64]) -> Option<usize> {
        flat_index(self.shape(), self.order(), index)
    }

    /// The same array seen with its trailing `dims` as one subarray element: numpy stores an array
    /// of `[T; N]` elements as the base dtype with the subarray's dimensions appended to the shape.
    pub(crate) fn fold_trailing(&mut self, dims: &[u64]) -> Result<(), Error> {
        let header = &mut self.parsed.header;
        let folded = SubArray::new(header.dtype.clone(), dims.to_vec())?;
        header.dtype = DType::SubArray(folded);
        header.shape.truncate(header.shape.len() - dims.len());
        self.len = header.num_elements()?;
        self.itemsize = header.dtype.itemsize();
        Ok(())
    }
}

/// The accessors every array type shares, forwarding to its `meta` field (or the field path
/// given, as `0.meta`), and `ArrayMeta`'s own (`@header`: from the `ParsedHeader` at the path
/// given): one set, written once.
macro_rules! meta_accessors {
    () => {
        $crate::meta::meta_accessors!(meta);
    };
    (@header $($parsed:tt)+) => {
        /// The header with its version, length and text.
        #[inline]
        pub fn parsed_header(&self) -> &$crate::header::ParsedHeader {
            &self.$($parsed)+
        }

        /// The header dict.
        #[inline]
        pub fn header(&self) -> &$crate::header::Header {
            &self.parsed_header().header
        }

        /// The dtype of the elements.
        #[inline]
        pub fn dtype(&self) -> &$crate::dtype::DType {
            &self.header().dtype
        }

        /// The logical shape, outermost first.
        #[inline]
        pub fn shape(&self) -> &[u64] {
            &self.header().shape
        }

        /// The memory order of the data.
        #[inline]
        pub fn order(&self) -> $crate::format::MemoryOrder {
            self.header().order()
        }

        /// Offset of the data from the start of the file, in bytes.
        #[inline]
        pub fn data_offset(&self) -> u64 {
            self.parsed_header().data_offset()
        }
    };
    ($($field:tt).+) => {
        /// The array's metadata: header, dtype, shape, order and sizes, checked once.
        #[inline]
        pub fn meta(&self) -> &$crate::meta::ArrayMeta {
            &self.$($field).+
        }

        $crate::meta::meta_accessors!(@header $($field).+.parsed_header());
    };
}

pub(crate) use meta_accessors;

/// `len`, `is_empty` and `get` of an array type whose `data()` holds its elements in memory
/// order, borrowed for `$lt` (`'_`: as long as the array).
macro_rules! element_accessors {
    ($lt:lifetime) => {
        /// Number of elements.
        pub fn len(&self) -> usize {
            self.data().len()
        }

        /// Whether the array has no elements.
        pub fn is_empty(&self) -> bool {
            self.data().is_empty()
        }

        /// The element at a logical index (one entry per dimension), whatever the memory order.
        pub fn get(&self, index: &[u64]) -> Option<&$lt T> {
            self.meta().index_of(index).and_then(|i| self.data().get(i))
        }
    };
}

pub(crate) use element_accessors;

/// [`ErrorKind::OutOfRange`] naming `what` unless `range` (element indices, or rows) is not
/// reversed and ends by `len`.
pub(crate) fn check_within(what: &'static str, range: &Range<u64>, len: u64) -> Result<(), Error> {
    if range.start > range.end || range.end > len {
        return Err(Error::new(ErrorKind::OutOfRange {
            what,
            start: range.start,
            end: range.end,
            len,
        }));
    }
    Ok(())
}
