//! The `.npy` header: magic, version, header length, and the Python-literal dict.
//!
//! Reading follows numpy's `read_magic` and `_read_array_header` (`numpy/lib/_format_impl.py`),
//! stricter where numpy defers a failure to later (negative dimensions, bools as dimensions).
//! Writing reproduces `np.save`'s bytes exactly: key order, `repr` of each value, the spaces numpy
//! reserves for growing the shape, and padding so the data starts at a multiple of [`ARRAY_ALIGN`].

use crate::codec::nonzero_product;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind};
use crate::format::MemoryOrder;
pub use crate::format::{Version, ARRAY_ALIGN, GROWTH_AXIS_MAX_DIGITS, MAGIC, MAX_DIMS};

mod fast;
pub(crate) mod options;
mod read;
mod write;

pub(crate) use options::ReadOptions;
pub(crate) use read::{parse_prefix, Prefix};

/// Default of [`ReadOptions::max_header_len`]: 16 MiB, far above numpy's 10,000 so that wide
/// records (a 4,000-field record needs about 100 KB) load, while bounding what a hostile length
/// field can make the reader buffer.
pub const DEFAULT_MAX_HEADER_LEN: u64 = 16 << 20;

/// The header dict of a `.npy` file: dtype, memory order and shape.
///
/// # Examples
/// ```
/// use npy_core::{DType, ErrorKind, Header};
/// let h = Header::new("<f4".parse::<DType>()?, vec![4, 64]);
/// let bytes = h.to_bytes(None)?;
/// assert_eq!(bytes.len(), 128); // data starts at a multiple of 64
/// assert_eq!(&bytes[10..70], b"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }");
/// let parsed = Header::read(&mut &bytes[..])?;
/// assert_eq!(parsed.header, h);
/// assert_eq!(parsed.data_offset(), 128);
/// assert!(parsed.check_data_len(128 + 1024).is_ok()); // 4 × 64 × 4 bytes of data
/// let err = parsed.check_data_len(128 + 1023).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::Truncated { needed: 1024, found: 1023, .. }));
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// The element dtype (the header's `descr`).
    pub dtype: DType,
    /// `True`: data is in Fortran (column-major) order; `False`: C (row-major) order.
    pub fortran_order: bool,
    /// The logical shape, outermost dimension first, in both orders.
    pub shape: Vec<u64>,
}

/// A header as read from a file: the dict and how it was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedHeader {
    /// The parsed dict.
    pub header: Header,
    /// The format version.
    pub version: Version,
    /// The `HEADER_LEN` field: bytes of header text, padding and newline included.
    pub header_len: u64,
    /// The header text exactly as stored (latin-1 or UTF-8 decoded), padding included.
    pub text: String,
}

impl ParsedHeader {
    /// Byte offset of the array data from the start of the file.
    pub fn data_offset(&self) -> u64 {
        self.version.prefix_len() + self.header_len
    }

    /// Checks that an input of `size` bytes in all (header included) holds the whole array
    /// data: for callers that know an input's length (a file's, an archive member's, an
    /// object's) and refuse a short one before reading it, as `np.load` refuses it.
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`] (`what: "array data"`) naming the bytes needed and present;
    /// [`ErrorKind::SizeOverflow`] for a shape whose size overflows.
    pub fn check_data_len(&self, size: u64) -> Result<(), Error> {
        let needed = self.header.nbytes()?;
        let found = size.saturating_sub(self.data_offset());
        if found < needed {
            return Err(Error::truncated("array data", needed, found));
        }
        Ok(())
    }
}

/// The largest dimension, element count and byte count numpy holds: `npy_intp` is 64-bit
/// signed (`i64::MAX`, 2^63 − 1) on every platform numpy ships 64-bit builds for. A header
/// beyond it is refused on reading (as `np.load` refuses it) and never written.
pub const MAX_NUMPY_SIZE: u64 = i64::MAX as u64;

impl Header {
    /// A C-order header.
    pub fn new(dtype: DType, shape: Vec<u64>) -> Header {
        Header {
            dtype,
            fortran_order: false,
            shape,
        }
    }

    /// The memory order `fortran_order` declares.
    #[inline]
    pub fn order(&self) -> MemoryOrder {
        MemoryOrder::from_fortran_order(self.fortran_order)
    }

    /// The `fortran_order` numpy writes for data in `order`: `True` only for data that is not
    /// also C-contiguous. With at most one dimension longer than 1, or no elements, both orders
    /// are the same bytes and numpy writes `False`.
    pub fn fortran_order_for(shape: &[u64], order: MemoryOrder) -> bool {
        let both_orders = shape.contains(&0) || shape.iter().filter(|&&d| d != 1).count() <= 1;
        order == MemoryOrder::Fortran && !both_orders
    }

    /// Number of elements: the product of the shape (1 for `()`), as `np.load` computes it:
    /// every dimension is at most [`MAX_NUMPY_SIZE`] (`npy_intp`) and so is the product taken
    /// left to right (`reshape`'s check: `(0, 2**62, 4)` passes, its running product staying 0,
    /// while `(2**31, 2**32, 0)` overflows before reaching the 0).
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when a dimension or that product exceeds [`MAX_NUMPY_SIZE`].
    pub fn num_elements(&self) -> Result<u64, Error> {
        self.shape.iter().try_fold(1u64, |product, &d| {
            product
                .checked_mul(d)
                .filter(|&p| p <= MAX_NUMPY_SIZE && d <= MAX_NUMPY_SIZE)
                .ok_or_else(|| self.overflow())
        })
    }

    /// Bytes of array data: elements × itemsize.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when [`Header::num_elements`] fails or itemsize × the
    /// non-zero dimensions exceeds [`MAX_NUMPY_SIZE`] (numpy's `PyArray_NewFromDescr` rule: a
    /// zero dimension does not excuse the others, wherever it stands).
    pub fn nbytes(&self) -> Result<u64, Error> {
        self.num_elements()?;
        let (product, any_zero) = nonzero_product(self.dtype.itemsize(), &self.shape)
            .filter(|&(p, _)| p <= MAX_NUMPY_SIZE)
            .ok_or_else(|| self.overflow())?;
        Ok(if any_zero { 0 } else { product })
    }

    #[cold]
    fn overflow(&self) -> Error {
        let (shape, itemsize) = (self.shape.clone(), self.dtype.itemsize());
        Error::new(ErrorKind::SizeOverflow { shape, itemsize })
    }
}
