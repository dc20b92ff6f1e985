//! The `.npy` header: magic, version, header length, and the Python-literal dict.
//!
//! Reading follows numpy's `read_magic` and `_read_array_header`
//! (`numpy/lib/_format_impl.py`), stricter where numpy defers a failure to later
//! (negative dimensions, bools as dimensions). Writing reproduces `np.save`'s bytes exactly:
//! key order, `repr` of each value, the spaces numpy reserves for growing the shape, and padding
//! so the data starts at a multiple of [`ARRAY_ALIGN`].

use crate::codec::nonzero_product;
use crate::dtype::DType;
use crate::error::{Error, ErrorKind};
use crate::format::Order;
#[doc(no_inline)]
pub use crate::format::{Version, ARRAY_ALIGN, GROWTH_AXIS_MAX_DIGITS, MAGIC, MAX_DIMS};
use crate::literal;

mod fast;
mod read;
mod write;

/// Default of [`ReadOptions::max_header_len`]: 16 MiB, far above numpy's 10,000 so that wide
/// records (a 4,000-field record needs about 100 KB) load, while bounding what a hostile length
/// field can make the reader buffer.
pub const DEFAULT_MAX_HEADER_LEN: u64 = 16 << 20;

/// Options for reading: the header's limits, and how the data may be read.
///
/// # Examples
/// ```
/// use npy_core::{Casting, NpyReader, ReadOptions, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i32, -2, 3], &[3])?;
/// // An `<i4` file reads as i64 only when asked: numpy casts i4 to i8 safely.
/// let options = ReadOptions::default().casting(Casting::Safe);
/// let mut r = NpyReader::with_options(&bytes[..], &options)?;
/// assert_eq!(r.read_vec::<i64>()?, [1, -2, 3]);
/// assert!(NpyReader::new(&bytes[..])?.read_vec::<i64>().is_err());
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    max_header_len: u64,
    max_depth: usize,
    strict_bools: bool,
    casting: Casting,
    threads: usize,
    hint: Option<crate::dtype::MlType>,
}
/// Which file dtypes a typed read (read, iterators, ranges, `ndarray`) accepts for an element
/// type, in numpy's terms (`np.can_cast(from, to, casting)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Casting {
    /// The type's own dtype, in either byte order (numpy's `'equiv'`): the default.
    #[default]
    Equiv,
    /// Also every number dtype numpy casts to the type's dtype with `casting='safe'` (`<i4` as
    /// `i64`, `<f4` as `f64`, `u1` as `u16` or `i16`, `b1` as any number, `i8` as `f64`), never
    /// narrowing. Values are what numpy's `astype` gives. Applies to `bool`, the integers,
    /// floats and complex numbers (not datetimes: numpy's unit casts between calendar units are
    /// not simple multiples).
    Safe,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_header_len: DEFAULT_MAX_HEADER_LEN,
            max_depth: literal::DEFAULT_MAX_DEPTH,
            strict_bools: false,
            casting: Casting::Equiv,
            threads: 0,
            hint: None,
        }
    }
}

impl ReadOptions {
    /// numpy's reading rules with the crate's limits: the default.
    pub fn new() -> Self {
        ReadOptions::default()
    }

    /// These options with another header-length limit: the largest header length (bytes)
    /// accepted (default [`DEFAULT_MAX_HEADER_LEN`]); longer is [`ErrorKind::HeaderTooLong`].
    #[must_use]
    pub fn max_header_len(mut self, bytes: u64) -> Self {
        self.max_header_len = bytes;
        self
    }

    /// These options with another nesting limit of the header literal (see
    /// [`literal::ParseOptions::max_depth`]; default [`literal::DEFAULT_MAX_DEPTH`]).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// These options with the strict bool check on or off: on, `b1` bytes other than 0 and 1
    /// are refused with [`ErrorKind::InvalidBool`] (naming the byte and its offset) instead of
    /// read as `true` as numpy does. Off by default.
    #[must_use]
    pub fn strict_bools(mut self, strict: bool) -> Self {
        self.strict_bools = strict;
        self
    }

    /// These options with another thread count for reads of large files: `0` (the default)
    /// uses [`std::thread::available_parallelism`], `1` reads on the calling thread alone.
    ///
    /// Only bulk reads of a reader opened from a path ([`crate::read`],
    /// [`NpyReader::open`](crate::NpyReader::open) then `read_vec` or a large `read_into`) of
    /// element types whose bytes are their memory (numbers, in either byte order) use more
    /// than one thread, each reading its part of the file with positional reads (`pread`,
    /// Unix only) and swapping it while in cache; at most one thread per
    /// 8 MiB (`PARALLEL_MIN_BYTES`) of data. Streams read on
    /// one thread.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// These options with a type hint for descrs that lost their type (issue 26): numpy with
    /// ml_dtypes writes bfloat16 as `'<V2'` and `float8_e4m3fn`, `int4`, … as `'<V1'`. With a
    /// hint, a header whose descr is what `np.save` writes for the hinted type is read as
    /// [`DType::Ml`] of it (see [`DType::with_hint`]); any other descr is read as it stands.
    /// `None`, the default, reads descrs as numpy does (`'<f1'`, which numpy cannot load, is
    /// `float8_e5m2` even so).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DType, MlType, NpyReader, ReadOptions};
    /// // What `np.save` writes for `np.array([1, -2], ml_dtypes.bfloat16)`.
    /// let mut bytes = npy_core::Header::new("|V2".parse()?, vec![2]).to_bytes(None)?;
    /// bytes.extend_from_slice(&[0x80, 0x3f, 0x00, 0xc0]);
    /// let options = ReadOptions::default().hint(Some(MlType::BFloat16));
    /// let mut r = NpyReader::with_options(&bytes[..], &options)?;
    /// assert_eq!(*r.dtype(), DType::Ml(MlType::BFloat16));
    /// let values: Vec<f64> = r.read_dyn()?.iter().filter_map(|v| v.as_f64()).collect();
    /// assert_eq!(values, [1.0, -2.0]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    #[must_use]
    pub fn hint(mut self, hint: Option<crate::dtype::MlType>) -> Self {
        self.hint = hint;
        self
    }

    /// These options with another [`Casting`]: which file dtypes a typed read converts from
    /// (default [`Casting::Equiv`]: the type's own dtype in either byte order).
    #[must_use]
    pub fn casting(mut self, casting: Casting) -> Self {
        self.casting = casting;
        self
    }

    /// The header-length limit, in bytes.
    pub fn get_max_header_len(&self) -> u64 {
        self.max_header_len
    }

    /// The nesting limit of the header literal.
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }

    /// Whether the strict bool check is on.
    pub fn get_strict_bools(&self) -> bool {
        self.strict_bools
    }

    /// The [`Casting`] of typed reads.
    pub fn get_casting(&self) -> Casting {
        self.casting
    }

    /// The thread count of bulk reads (`0`: the machine's parallelism).
    pub fn get_threads(&self) -> usize {
        self.threads
    }

    /// The type hint, if any.
    pub fn get_hint(&self) -> Option<crate::dtype::MlType> {
        self.hint
    }
}

/// The header dict of a `.npy` file: dtype, memory order and shape.
///
/// # Examples
/// ```
/// use npy_core::{DType, Header};
/// let h = Header::new("<f4".parse::<DType>()?, vec![4, 64]);
/// let bytes = h.to_bytes(None)?;
/// assert_eq!(bytes.len(), 128); // data starts at a multiple of 64
/// assert_eq!(&bytes[10..70], b"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }");
/// let parsed = Header::read(&mut &bytes[..])?;
/// assert_eq!(parsed.header, h);
/// assert_eq!(parsed.data_offset(), 128);
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
    /// [`ErrorKind::Truncated`] (`what: "array data"`) naming the
    /// bytes needed and present; [`ErrorKind::SizeOverflow`]
    /// for a shape whose size overflows.
    ///
    /// # Examples
    /// ```
    /// let mut bytes = Vec::new();
    /// npy_core::WriteOptions::new().write_to(&mut bytes, &[1u16, 2, 3], &[3])?;
    /// let parsed = npy_core::Header::read(&mut &bytes[..])?;
    /// assert!(parsed.check_data_len(bytes.len() as u64).is_ok());
    /// let err = parsed.check_data_len(bytes.len() as u64 - 1).unwrap_err();
    /// assert!(matches!(err.kind(), npy_core::ErrorKind::Truncated { needed: 6, found: 5, .. }));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn check_data_len(&self, size: u64) -> Result<(), Error> {
        let needed = self.header.nbytes()?;
        let found = size.saturating_sub(self.data_offset());
        if found < needed {
            return Err(Error::new(ErrorKind::Truncated {
                what: "array data",
                needed,
                found,
            }));
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
    pub fn order(&self) -> Order {
        Order::from_fortran_order(self.fortran_order)
    }

    /// The `fortran_order` numpy writes for data in `order`: `True` only for data that is not
    /// also C-contiguous. With at most one dimension longer than 1, or no elements, both orders
    /// are the same bytes and numpy writes `False`.
    pub fn fortran_order_for(shape: &[u64], order: Order) -> bool {
        let both_orders = shape.contains(&0) || shape.iter().filter(|&&d| d != 1).count() <= 1;
        order == Order::Fortran && !both_orders
    }

    /// Number of elements: the product of the shape (1 for `()`).
    ///
    /// As `np.load` computes it: sizes are numpy's `npy_intp` (64-bit signed), so every
    /// dimension is at most [`MAX_NUMPY_SIZE`] and so is the product taken left to right
    /// (`reshape`'s check: `(0, 2**62, 4)` passes, its running product staying 0, while
    /// `(2**31, 2**32, 0)` overflows before reaching the 0).
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when a dimension or that product exceeds [`MAX_NUMPY_SIZE`].
    pub fn num_elements(&self) -> Result<u64, Error> {
        let mut product = 1u64;
        for &d in &self.shape {
            product = product
                .checked_mul(d)
                .filter(|&p| p <= MAX_NUMPY_SIZE && d <= MAX_NUMPY_SIZE)
                .ok_or_else(|| self.overflow())?;
        }
        Ok(product)
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
        Error::new(ErrorKind::SizeOverflow {
            shape: self.shape.clone(),
            itemsize: self.dtype.itemsize(),
        })
    }
}
