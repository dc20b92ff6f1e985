//! Dynamic reading: where the typed readers ([`read`](fn@crate::read), [`NpyReader::read_vec`])
//! need the element type at compile time, [`read_dyn`] reads any dtype, records included, into a
//! [`DynArray`]: one typed [`Column`] per leaf field (numbers in the machine's order, viewable as
//! `&[T]`; strings as their bytes), about the file's size in memory, each element a tree of
//! [`DynValue`]s when asked for. The elements are the values `np.load(...).tolist()` gives,
//! except that `longdouble` values keep their raw bytes next to an `f64` approximation and `U`
//! strings their raw UCS-4 code points (a lone surrogate, which numpy allows, survives).

use std::io::{Read, Seek};
use std::ops::Range;
use std::path::Path;

use crate::error::{count, Error, ErrorKind, PathContext};
use crate::read::NpyReader;

mod array;
mod budget;
mod columns;
mod decode;
mod encode;
mod longdouble;
pub(crate) mod object;
mod value;

pub use array::{COrderIter, DynArray, Iter};
pub use budget::{DYN_ALLOWANCE, MAX_DYN_EXPANSION, MAX_DYN_ITEMSIZE};
pub use columns::Column;
pub use encode::{write_dyn, write_dyn_to, write_dyn_to_using};
pub use object::{ObjectCodec, ObjectText, ObjectValue};
pub use value::{DynValue, UcsString};

#[doc(hidden)]
pub use decode::ElementDecoder;

/// Bytes of file data read per chunk by a dynamic read, each gathered into the columns while
/// in cache.
const COLUMN_CHUNK_BYTES: usize = 1 << 20;

/// Reads the `.npy` file at `path`, whatever its dtype, into a [`DynArray`]: one typed
/// [`Column`] per leaf field, gathered field by field from chunks of 1 MiB.
///
/// Memory is the data's bytes plus one chunk; record padding is kept beside the columns, so
/// that [`write_dyn`] writes the file back as it was. Trailing bytes after the data are ignored
/// and a `b1` byte other than 0 and 1 reads as `true`, as numpy does. Object arrays (`O`
/// anywhere in the dtype) hold a pickle, which this function does not decode:
/// `npy_pickle::read_dyn` does, as does [`NpyReader::read_dyn_using`] given its codec.
///
/// # Errors
/// I/O and header errors; [`ErrorKind::ObjectArray`] before any data byte is read;
/// [`ErrorKind::Truncated`] for a header claiming more data than the file holds, before the
/// columns are allocated; [`ErrorKind::AllocationLimit`] when the elements as [`DynValue`]
/// trees would take more than [`MAX_DYN_EXPANSION`] bytes per data byte plus [`DYN_ALLOWANCE`]
/// (all that elements of no bytes, `S0` or empty records, get); [`ErrorKind::InvalidBool`] for
/// a `b1` byte other than 0 and 1 on a reader given
/// [`ReadOptions::strict_bools`](crate::ReadOptions::strict_bools).
///
/// # Examples
/// ```
/// use npy_core::{DynValue, Header};
/// # let dir = std::env::temp_dir().join(format!("npy-core-dyn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("points.npy");
/// let dtype = "[('x', '<f4'), ('id', '<u2')]".parse()?;
/// let mut bytes = Header::new(dtype, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(&1.5f32.to_le_bytes());
/// bytes.extend_from_slice(&7u16.to_le_bytes());
/// std::fs::write(&path, bytes)?;
///
/// let a = npy_core::read_dyn(&path)?;
/// assert_eq!(a.column("x").unwrap().values::<f32>()?, [1.5f32]);
/// let point = a.get(&[0]).unwrap();
/// assert_eq!(point.field("x"), Some(&DynValue::Float(1.5)));
/// assert_eq!(point.field("id"), Some(&DynValue::UInt(7)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_dyn(path: impl AsRef<Path>) -> Result<DynArray, Error> {
    let path = path.as_ref();
    NpyReader::open(path)?.read_dyn().at_path(path)
}

impl<R: Read> NpyReader<R> {
    /// Reads the whole array, whatever its dtype, into a [`DynArray`] (see [`read_dyn`]). On a
    /// reader from [`NpyReader::open`] (or given
    /// [`with_available_bytes`](NpyReader::with_available_bytes)) a short file is found before
    /// allocating; on a stream of unknown length the values grow as data arrives.
    ///
    /// # Errors
    /// As [`read_dyn`], and [`ErrorKind::AllocationLimit`] for elements over
    /// [`MAX_DYN_ITEMSIZE`] bytes; [`ErrorKind::Unsupported`] when elements were already read
    /// from this reader.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynValue, dynamic::UcsString, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &["hi".to_string(), "numpy".to_string()], &[2])?;
    /// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
    /// assert_eq!(a.dtype().to_string(), "<U5");
    /// assert_eq!(a.element(0), Some(DynValue::Str(UcsString::from("hi"))));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn read_dyn(&mut self) -> Result<DynArray, Error> {
        self.check_untouched()?;
        self.read_dyn_plain()
    }

    /// [`NpyReader::read_dyn`], decoding object arrays (and records with object fields) with
    /// `objects`, such as `npy_pickle::PickleCodec` ([`ObjectCodec`]'s example calls this).
    ///
    /// # Errors
    /// As [`NpyReader::read_dyn`], and what `objects` refuses
    /// ([`ErrorKind::Pickle`](crate::ErrorKind::Pickle) for npy-pickle's codec).
    pub fn read_dyn_using(&mut self, objects: &dyn ObjectCodec) -> Result<DynArray, Error> {
        self.check_untouched()?;
        if self.dtype().has_object() {
            let header = self.header().clone();
            return objects.decode(&header, &mut self.rest());
        }
        self.read_dyn_plain()
    }

    /// [`ErrorKind::Unsupported`] when elements were already read: a dynamic read reads the
    /// whole array.
    fn check_untouched(&self) -> Result<(), Error> {
        if self.remaining() != self.num_elements() {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "read_dyn",
                reason: format!(
                    "it reads a whole array, and {} of its {} were already read",
                    self.num_elements() - self.remaining(),
                    count(self.num_elements(), "element")
                ),
            }));
        }
        Ok(())
    }

    /// Refuses, before any data byte is read, a dynamic read of the remaining elements: of
    /// objects, of more bytes than the input holds, or over the [budget](budget::check).
    fn check_dyn(&self) -> Result<(), Error> {
        self.dtype().refuse_object()?;
        self.check_backed()?;
        budget::check(self.dtype(), self.remaining())
    }

    /// [`NpyReader::read_dyn`] of a dtype that the reader decodes itself (object arrays are
    /// refused): the elements gathered into one column per leaf field, chunk by chunk.
    fn read_dyn_plain(&mut self) -> Result<DynArray, Error> {
        self.check_dyn()?;
        let dtype = self.dtype().clone();
        let n = self.remaining();
        let what = "elements of a dynamic read";
        let refuse = |_| Error::allocation_limit(what, n, dtype.itemsize());
        let n_usize = usize::try_from(n).map_err(refuse)?;
        let mut columns = columns::Columns::new(&dtype, true)?;
        if self.knows_length() || dtype.itemsize() == 0 {
            // The bytes are there (or none are needed): allocate once.
            columns.reserve_exact(n_usize);
        }
        if dtype.itemsize() == 0 {
            columns.push_rows(&[], n_usize);
        }
        self.read_chunks(n, COLUMN_CHUNK_BYTES, |chunk| {
            columns.push(chunk);
            Ok(())
        })?;
        DynArray::from_columns(self.meta().clone(), columns)
    }

    /// Decodes the remaining elements (of no object: an object array's pickle is decoded
    /// whole), within the budget.
    fn read_dyn_values(&mut self) -> Result<Vec<DynValue>, Error> {
        self.check_dyn()?;
        let decoder = decode::Decoder::new(self.dtype())?;
        self.read_vec_with(&decoder)
    }
}

impl<R: Read + Seek> NpyReader<R> {
    /// [`read_dyn`] of elements `range` (memory-order indices: the file's order, C or Fortran),
    /// without reading the others, bounded as there per data byte of the range; the reader is
    /// left after it. A caller showing or converting a large array reads it range by range, or
    /// picks the few elements it needs (numpy's summarised print reads 3 at each edge per axis).
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`] for a reversed range or one past the end; then as [`read_dyn`]
    /// for the range (an object array's pickle is decoded whole, by [`NpyReader::read_dyn_using`]).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynValue, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[1u8, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let mut r = npy_core::NpyReader::new(std::io::Cursor::new(bytes))?;
    /// assert_eq!(r.read_dyn_range(4..6)?, [DynValue::UInt(5), DynValue::UInt(6)]);
    /// assert_eq!(r.read_dyn_range(0..1)?, [DynValue::UInt(1)]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn read_dyn_range(&mut self, range: Range<u64>) -> Result<Vec<DynValue>, Error> {
        self.within_range(range, Self::read_dyn_values)
    }
}

/// The positional reader's dynamic reads ([`NpyReader::open_at`]): each one read of the source.
impl<S: crate::io::ReadAt> NpyReader<crate::read::Positional<S>> {
    /// [`crate::read_dyn`] of the whole array, in one read of the source.
    ///
    /// # Errors
    /// As [`NpyReader::read_dyn`]; the source's I/O errors.
    pub fn read_dyn(&self) -> Result<DynArray, Error> {
        let end = if self.dtype().has_object() {
            // The pickle runs to the end of the file.
            self.source_len()
        } else {
            self.data_offset().saturating_add(self.meta().nbytes())
        };
        self.reader_to(end).read_dyn()
    }

    /// Reads elements `range` of any dtype (see [`NpyReader::read_dyn_range`]) in one read of
    /// the source.
    ///
    /// # Errors
    /// As [`NpyReader::read_dyn_range`]; the source's I/O errors.
    pub fn read_dyn_range(&self, range: Range<u64>) -> Result<Vec<DynValue>, Error> {
        let end = range.end.saturating_mul(self.meta().itemsize());
        let end = self.data_offset().saturating_add(end);
        self.reader_to(end).read_dyn_range(range)
    }
}
