//! Reading array data: owned arrays, caller buffers, streaming iteration and random access.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;

use crate::dtype::{DType, SubArray};
use crate::element::{bulk_kind, describe, swap_in_place, Bulk, NpyElement};
use crate::error::Error;
use crate::header::{read_up_to, Header, ParsedHeader, ReadOptions};
use crate::info::Order;

/// Bytes decoded per step on the element-by-element path and read per step from streams of
/// unknown length: large enough to amortise calls, small enough to stay in cache.
const CHUNK_BYTES: usize = 1 << 16;

/// Bytes read per step before an in-place byte swap: small enough to stay in L2.
const SWAP_CHUNK_BYTES: usize = 256 << 10;

/// Most zero-size elements (`S0`, `V0`, empty records) a dynamic read will materialise: such
/// elements take no file bytes, so the file length cannot bound them.
pub const MAX_ZERO_SIZE_ELEMENTS: u64 = 1 << 24;

/// How many bytes of Rust elements a typed read may allocate per byte of array data
/// (`Vec<u8>` elements of `S1` data take 24 bytes each, the largest ratio of the built-in types).
pub const MAX_EXPANSION: u64 = 32;

/// Bytes of Rust elements a typed read may allocate beyond [`MAX_EXPANSION`] times the data:
/// what elements that take no file bytes (`S0`, empty records, zero-length subarrays) may cost.
pub const MAX_UNBACKED_BYTES: u64 = 64 << 20;

/// Refuses to materialise `n` elements of `T` from `nbytes` of data when that would take more
/// than `nbytes × MAX_EXPANSION + MAX_UNBACKED_BYTES` bytes of memory.
pub(crate) fn check_expansion<T>(n: u64, nbytes: u64) -> Result<(), Error> {
    let each = std::mem::size_of::<T>() as u64;
    let limit = nbytes
        .saturating_mul(MAX_EXPANSION)
        .saturating_add(MAX_UNBACKED_BYTES);
    if n.saturating_mul(each) > limit {
        return Err(Error::AllocationLimit {
            what: "elements that the file's data bytes do not back",
            elements: n,
            bytes_each: each,
        });
    }
    Ok(())
}

/// An owned array: shape, memory order and the elements in that order.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-array-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("a.npy");
/// npy_core::write(&path, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let a = npy_core::read::<f32>(&path)?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.get(&[1, 0]), Some(&4.0));
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray<T> {
    shape: Vec<u64>,
    order: Order,
    data: Vec<T>,
}

impl<T> NpyArray<T> {
    /// An array from its parts.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `data.len()` is not the product of `shape`.
    pub fn from_parts(shape: Vec<u64>, order: Order, data: Vec<T>) -> Result<Self, Error> {
        let n = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
        if n != Some(data.len() as u64) {
            return Err(Error::LengthMismatch {
                what: "array data for its shape",
                expected: n.unwrap_or(u64::MAX),
                found: data.len() as u64,
            });
        }
        Ok(NpyArray { shape, order, data })
    }

    /// Logical shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Memory order of [`NpyArray::data`].
    pub fn order(&self) -> Order {
        self.order
    }

    /// The elements in memory order.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The elements in memory order, mutably.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The elements, giving up the shape.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// `(shape, order, data)`.
    pub fn into_parts(self) -> (Vec<u64>, Order, Vec<T>) {
        (self.shape, self.order, self.data)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The element at a logical index (one entry per dimension), whatever the memory order.
    pub fn get(&self, index: &[u64]) -> Option<&T> {
        flat_index(&self.shape, self.order, index).and_then(|i| self.data.get(i))
    }
}

/// Position in memory of a logical index.
pub(crate) fn flat_index(shape: &[u64], order: Order, index: &[u64]) -> Option<usize> {
    if index.len() != shape.len() || index.iter().zip(shape).any(|(i, d)| i >= d) {
        return None;
    }
    let mut flat = 0u64;
    let pairs: Box<dyn Iterator<Item = (&u64, &u64)>> = match order {
        Order::C => Box::new(index.iter().zip(shape)),
        Order::Fortran => Box::new(index.iter().zip(shape).rev()),
    };
    for (i, d) in pairs {
        flat = flat.checked_mul(*d)?.checked_add(*i)?;
    }
    usize::try_from(flat).ok()
}

/// Reads the `.npy` file at `path` into an owned array of `T`.
///
/// The file's length bounds the allocation: a header claiming more data than the file holds is
/// [`Error::Truncated`] before anything large is allocated. Trailing bytes after the data are
/// ignored, as numpy ignores them.
///
/// # Errors
/// Header errors, [`Error::TypeMismatch`], [`Error::ObjectArray`], [`Error::Truncated`], value
/// errors of `T` ([`Error::InvalidBool`], [`Error::InvalidUnicode`]), I/O errors.
///
/// # Examples
/// ```no_run
/// let a = npy_core::read::<f32>("fixtures/w_f32.npy")?;
/// assert_eq!(a.shape(), [4, 64]);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn read<T: NpyElement>(path: impl AsRef<Path>) -> Result<NpyArray<T>, Error> {
    let mut r = NpyReader::open(path)?;
    let data = r.read_vec()?;
    let header = r.header();
    Ok(NpyArray {
        shape: header.shape.clone(),
        order: r.order(),
        data,
    })
}

/// A `.npy` reader over any [`Read`]: the header first, then the data in one go, into a caller's
/// buffer, or element by element.
///
/// It consumes exactly the header and the array's bytes, so arrays concatenated in one stream
/// read one after the other.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i64, 2, 3], &[3])?;
/// WriteOptions::new().write_to(&mut bytes, &[0.5f64], &[])?;
/// let mut stream = &bytes[..];
/// let mut first = NpyReader::new(&mut stream)?;
/// assert_eq!(first.read_vec::<i64>()?, [1, 2, 3]);
/// let mut second = NpyReader::new(&mut stream)?;
/// assert_eq!(second.header().shape, []);
/// let sum: f64 = second.iter::<f64>()?.map(|x| x.unwrap()).sum();
/// assert_eq!(sum, 0.5);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyReader<R> {
    inner: R,
    parsed: ParsedHeader,
    len: u64,
    pos: u64,
    /// Bytes known to follow the header (files), bounding allocations up front.
    available: Option<u64>,
    /// Data bytes read from `inner` by [`NpyReader::iter`] but not yet handed out; every read
    /// takes from here first, so a partly used iterator loses nothing.
    ahead: Vec<u8>,
    /// How much of `ahead` has been consumed.
    ahead_at: usize,
}

impl NpyReader<File> {
    /// Opens the file at `path` and reads its header; the file's length bounds later reads.
    ///
    /// # Errors
    /// I/O and header errors.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let file = File::open(path)?;
        let file_len = file.metadata()?.len();
        let mut r = NpyReader::new(file)?;
        r.available = Some(file_len.saturating_sub(r.parsed.data_offset()));
        Ok(r)
    }
}

impl<R: Read> NpyReader<R> {
    /// Reads the header from `inner`.
    ///
    /// # Errors
    /// Header errors ([`Header::read`]) and [`Error::SizeOverflow`].
    pub fn new(inner: R) -> Result<Self, Error> {
        NpyReader::with_options(inner, &ReadOptions::default())
    }

    /// Reads the header from `inner` with options.
    ///
    /// # Errors
    /// As [`NpyReader::new`].
    pub fn with_options(mut inner: R, options: &ReadOptions) -> Result<Self, Error> {
        let parsed = Header::read_with(&mut inner, options)?;
        parsed.header.nbytes()?;
        let len = parsed.header.num_elements()?;
        Ok(NpyReader {
            inner,
            parsed,
            len,
            pos: 0,
            available: None,
            ahead: Vec::new(),
            ahead_at: 0,
        })
    }

    /// Tells the reader how many bytes follow the header (e.g. a file's length minus the data
    /// offset), so that truncation is found before allocating.
    pub fn with_available_bytes(mut self, bytes: u64) -> Self {
        self.available = Some(bytes);
        self
    }

    /// The header dict.
    pub fn header(&self) -> &Header {
        &self.parsed.header
    }

    /// The header with its version, length and text.
    pub fn parsed_header(&self) -> &ParsedHeader {
        &self.parsed
    }

    /// The file's dtype.
    pub fn dtype(&self) -> &DType {
        &self.parsed.header.dtype
    }

    /// The logical shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.parsed.header.shape
    }

    /// C or Fortran order.
    pub fn order(&self) -> Order {
        if self.parsed.header.fortran_order {
            Order::Fortran
        } else {
            Order::C
        }
    }

    /// Number of elements in the array.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements not yet read.
    pub fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    /// The underlying reader, positioned after what has been read — except after a partly
    /// consumed [`NpyReader::iter`], which reads ahead in chunks of up to 64 KiB: those bytes are
    /// kept by the `NpyReader` (its later reads return them) and are not in `R`.
    pub fn into_inner(self) -> R {
        self.inner
    }

    fn itemsize(&self) -> u64 {
        self.parsed.header.dtype.itemsize()
    }

    /// numpy stores an array whose elements are subarrays as the base dtype with the
    /// subarray's dimensions appended to the shape. When `T` is a subarray type (`[U; N]`) and
    /// the file is such a C-order array (its trailing dimensions are `T`'s subarray shape), the
    /// reader from here on views those dimensions as one `T` element: [`NpyReader::shape`]
    /// loses them and [`NpyReader::len`] counts `T` elements.
    fn fold_subarray<T: NpyElement>(&mut self) -> Result<(), Error> {
        let DType::SubArray(want) = T::npy_dtype() else {
            return Ok(());
        };
        let header = &self.parsed.header;
        let k = want.shape().len();
        let n = header.shape.len();
        let per: u64 = want.shape().iter().product();
        if matches!(header.dtype, DType::SubArray(_))
            || header.fortran_order
            || n < k
            || header.shape[n - k..] != *want.shape()
            || per == 0
            || !self.pos.is_multiple_of(per)
        {
            // Not that layout: T::plan reports the mismatch.
            return Ok(());
        }
        let folded = SubArray::new(header.dtype.clone(), want.shape().to_vec())?;
        self.parsed.header.dtype = DType::SubArray(folded);
        self.parsed.header.shape.truncate(n - k);
        self.len /= per;
        self.pos /= per;
        Ok(())
    }

    fn check_object(&self) -> Result<(), Error> {
        if self.dtype().has_object() {
            return Err(Error::ObjectArray {
                dtype: describe(self.dtype()),
            });
        }
        Ok(())
    }

    /// Reads all remaining elements into a new vector, in the file's memory order.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`], [`Error::ObjectArray`], [`Error::Truncated`], value errors of
    /// `T`, [`Error::AllocationLimit`], I/O errors.
    pub fn read_vec<T: NpyElement>(&mut self) -> Result<Vec<T>, Error> {
        self.check_object()?;
        self.fold_subarray::<T>()?;
        let plan = T::plan(self.dtype())?;
        let n = self.remaining();
        let itemsize = self.itemsize();
        let nbytes = n * itemsize; // <= header nbytes, checked at construction
        check_expansion::<T>(n, nbytes)?;
        if let Some(avail) = self.available {
            let consumed = self.pos * itemsize;
            if avail.saturating_sub(consumed) < nbytes {
                return Err(Error::Truncated {
                    what: "array data",
                    needed: self.len * itemsize,
                    found: avail,
                });
            }
        }
        let n_usize = usize::try_from(n).map_err(|_| Error::AllocationLimit {
            what: "array data",
            elements: n,
            bytes_each: std::mem::size_of::<T>() as u64,
        })?;
        if self.available.is_some() || itemsize == 0 {
            // The length is known to be backed: allocate once.
            if let Some(mut v) = T::zeroed_vec(n_usize) {
                if let Some(bytes) = T::as_bytes_mut(&mut v) {
                    // Fresh zeroed pages, not yet touched: huge pages make the faults of the
                    // read below 512 times fewer (numpy does the same).
                    crate::hugepage::advise(bytes);
                }
                self.fill(&plan, &mut v)?;
                return Ok(v);
            }
            let mut v = Vec::with_capacity(n_usize);
            self.decode_into_vec(&plan, n, &mut v)?;
            return Ok(v);
        }
        // A stream of unknown length: grow with what arrives.
        let mut v: Vec<T> = Vec::new();
        let step = (CHUNK_BYTES as u64 * 16 / itemsize.max(1)).max(1);
        while self.remaining() > 0 {
            let k = self.remaining().min(step.max(v.len() as u64));
            match T::zeroed_vec(k as usize) {
                Some(mut part) => {
                    self.fill(&plan, &mut part)?;
                    v.append(&mut part);
                }
                None => self.decode_into_vec(&plan, k, &mut v)?,
            }
        }
        Ok(v)
    }

    /// Reads the next `out.len()` elements into `out` (a reused buffer: no allocation on the
    /// bulk path).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `out` is longer than the elements remaining; otherwise
    /// as [`NpyReader::read_vec`].
    pub fn read_into<T: NpyElement>(&mut self, out: &mut [T]) -> Result<(), Error> {
        self.check_object()?;
        self.fold_subarray::<T>()?;
        let plan = T::plan(self.dtype())?;
        if out.len() as u64 > self.remaining() {
            return Err(Error::LengthMismatch {
                what: "read_into buffer",
                expected: self.remaining(),
                found: out.len() as u64,
            });
        }
        self.fill(&plan, out)
    }

    /// Fills `out` with the next elements (the caller checked the count).
    fn fill<T: NpyElement>(&mut self, plan: &T::Plan, out: &mut [T]) -> Result<(), Error> {
        let bulk = bulk_kind::<T>(self.dtype());
        if bulk != Bulk::No {
            if let Some(bytes) = T::as_bytes_mut(out) {
                match bulk {
                    Bulk::Swapped(unit) => {
                        // Swap each chunk while it is still in cache, not in a second pass.
                        let step = (SWAP_CHUNK_BYTES / unit).max(1) * unit;
                        for chunk in bytes.chunks_mut(step) {
                            self.read_data(chunk)?;
                            swap_in_place(chunk, unit);
                        }
                    }
                    _ => self.read_data(bytes)?,
                }
                self.pos += out.len() as u64;
                return Ok(());
            }
        }
        let itemsize = self.itemsize() as usize;
        if itemsize == 0 {
            for slot in out.iter_mut() {
                *slot = T::read(plan, &[])?;
            }
            self.pos += out.len() as u64;
            return Ok(());
        }
        let per_chunk = (CHUNK_BYTES / itemsize).max(1);
        let mut buf = Vec::new();
        for slots in out.chunks_mut(per_chunk) {
            self.read_chunk(&mut buf, slots.len() * itemsize)?;
            for (slot, src) in slots.iter_mut().zip(buf.chunks_exact(itemsize)) {
                *slot = T::read(plan, src)?;
            }
            self.pos += slots.len() as u64;
        }
        Ok(())
    }

    /// Decodes `n` elements, pushing them onto `v` (types without a bulk layout).
    fn decode_into_vec<T: NpyElement>(
        &mut self,
        plan: &T::Plan,
        n: u64,
        v: &mut Vec<T>,
    ) -> Result<(), Error> {
        let itemsize = self.itemsize() as usize;
        if itemsize == 0 {
            for _ in 0..n {
                v.push(T::read(plan, &[])?);
            }
            self.pos += n;
            return Ok(());
        }
        let per_chunk = (CHUNK_BYTES / itemsize).max(1) as u64;
        let mut buf = Vec::new();
        let mut left = n;
        while left > 0 {
            let k = left.min(per_chunk) as usize;
            self.read_chunk(&mut buf, k * itemsize)?;
            for src in buf.chunks_exact(itemsize) {
                v.push(T::read(plan, src)?);
            }
            self.pos += k as u64;
            left -= k as u64;
        }
        Ok(())
    }

    /// Sets `buf` to the next `n` data bytes (one chunk of whole elements).
    ///
    /// On a stream of unknown length a chunk larger than [`CHUNK_BYTES`] (elements of huge
    /// itemsize) grows as its bytes arrive, so that a header claiming gigabyte elements cannot
    /// make the reader allocate what the stream does not hold. With the length known, the
    /// bytes are there: one allocation.
    fn read_chunk(&mut self, buf: &mut Vec<u8>, n: usize) -> Result<(), Error> {
        if self.available.is_some() || n <= CHUNK_BYTES || self.ahead_at < self.ahead.len() {
            buf.resize(n, 0);
            return self.read_data(buf);
        }
        buf.clear();
        (&mut self.inner).take(n as u64).read_to_end(buf)?;
        if buf.len() < n {
            let itemsize = self.itemsize();
            return Err(Error::Truncated {
                what: "array data",
                needed: self.len * itemsize,
                found: self.pos * itemsize + buf.len() as u64,
            });
        }
        Ok(())
    }

    /// Reads exactly `buf.len()` data bytes, or reports how much of the data there was.
    fn read_data(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let have = (self.ahead.len() - self.ahead_at).min(buf.len());
        buf[..have].copy_from_slice(&self.ahead[self.ahead_at..self.ahead_at + have]);
        self.ahead_at += have;
        let got = have + read_up_to(&mut self.inner, &mut buf[have..])?;
        if got < buf.len() {
            let itemsize = self.itemsize();
            return Err(Error::Truncated {
                what: "array data",
                needed: self.len * itemsize,
                found: self.pos * itemsize + got as u64,
            });
        }
        Ok(())
    }

    /// Iterates over the remaining elements without loading the array, reading in chunks.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] and [`Error::ObjectArray`] up front; each item is a `Result`
    /// for the errors of reading it.
    pub fn iter<T: NpyElement>(&mut self) -> Result<Elements<'_, R, T>, Error> {
        self.check_object()?;
        self.fold_subarray::<T>()?;
        let plan = T::plan(self.dtype())?;
        Ok(Elements {
            reader: self,
            plan,
            failed: false,
            _t: PhantomData,
        })
    }
}

impl<R: Read + Seek> NpyReader<R> {
    /// Reads elements `range` (memory-order indices) without reading the others. The reader is
    /// left after the range.
    ///
    /// # Errors
    /// [`Error::Layout`] for a range past the end; otherwise as [`NpyReader::read_vec`].
    pub fn read_range<T: NpyElement>(&mut self, range: Range<u64>) -> Result<Vec<T>, Error> {
        self.check_object()?;
        self.fold_subarray::<T>()?;
        if range.start > range.end {
            return Err(Error::Layout(format!(
                "element range {}..{} is reversed",
                range.start, range.end
            )));
        }
        if range.end > self.len {
            return Err(Error::Layout(format!(
                "element range {}..{} is outside the array's {} elements",
                range.start, range.end, self.len
            )));
        }
        self.seek_to(range.start)?;
        let saved_len = self.len;
        // Read as if the array ended at range.end.
        self.len = range.end;
        let out = self.read_vec::<T>();
        self.len = saved_len;
        out
    }

    /// Reads rows `range` of a C-order array (a row is one index of the first dimension:
    /// `shape[1..]` elements).
    ///
    /// # Errors
    /// [`Error::Layout`] for Fortran-order or 0-d arrays and out-of-range rows; otherwise as
    /// [`NpyReader::read_range`].
    pub fn read_rows<T: NpyElement>(&mut self, range: Range<u64>) -> Result<Vec<T>, Error> {
        if self.parsed.header.fortran_order || self.shape().is_empty() {
            return Err(Error::Layout(
                "rows are contiguous only in C-order arrays with at least one dimension".into(),
            ));
        }
        let row: u64 = self.shape()[1..].iter().product();
        let rows = self.shape()[0];
        if range.start > range.end || range.end > rows {
            return Err(Error::Layout(format!(
                "row range {}..{} is outside the array's {rows} rows",
                range.start, range.end
            )));
        }
        self.read_range(range.start * row..range.end * row)
    }

    /// Moves to element `index` (memory order) without reading.
    ///
    /// # Errors
    /// [`Error::Layout`] past the end; I/O errors.
    pub fn seek_to(&mut self, index: u64) -> Result<(), Error> {
        if index > self.len {
            return Err(Error::Layout(format!(
                "element {index} is past the array's {} elements",
                self.len
            )));
        }
        let itemsize = self.itemsize();
        let here = self.inner.stream_position()?;
        let ahead = (self.ahead.len() - self.ahead_at) as u64;
        let start = here - ahead - self.pos * itemsize;
        self.inner.seek(SeekFrom::Start(start + index * itemsize))?;
        self.ahead.clear();
        self.ahead_at = 0;
        self.pos = index;
        Ok(())
    }
}

/// Streaming iterator over a reader's elements; see [`NpyReader::iter`].
#[derive(Debug)]
pub struct Elements<'a, R, T: NpyElement> {
    reader: &'a mut NpyReader<R>,
    plan: T::Plan,
    failed: bool,
    _t: PhantomData<T>,
}

impl<R: Read, T: NpyElement> Iterator for Elements<'_, R, T> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.remaining() == 0 {
            return None;
        }
        let itemsize = self.reader.itemsize() as usize;
        if itemsize == 0 {
            self.reader.pos += 1;
            return Some(T::read(&self.plan, &[]));
        }
        let r = &mut *self.reader;
        if r.ahead.len() - r.ahead_at < itemsize {
            // Refill with whole elements; only what is handed out counts as read.
            let k = r.remaining().min((CHUNK_BYTES / itemsize).max(1) as u64) as usize;
            let mut buf = std::mem::take(&mut r.ahead);
            r.ahead_at = 0;
            let res = r.read_chunk(&mut buf, k * itemsize);
            r.ahead = buf;
            if let Err(e) = res {
                r.ahead.clear();
                self.failed = true;
                return Some(Err(e));
            }
        }
        let src = &r.ahead[r.ahead_at..r.ahead_at + itemsize];
        let v = T::read(&self.plan, src);
        r.ahead_at += itemsize;
        r.pos += 1;
        if v.is_err() {
            self.failed = true;
        }
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.reader.remaining()).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}
