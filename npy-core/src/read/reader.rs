//! [`NpyReader`]. One engine serves typed and dynamic reads: a [`Decode`] turns each element's
//! bytes into a value, and says when the bytes are the values' memory (the bulk paths).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use super::{check_expansion, parallel, FILE_BUFFER_BYTES};
use super::{Casting, ReadOptions};
use crate::codec::{checked_product, per_chunk, swap_in_place, CHUNK_BYTES, SWAP_CHUNK_BYTES};
use crate::dtype::DType;
use crate::element::{bulk_kind, Bulk, NpyElement, PodLayout, Widening};
use crate::error::{Error, ErrorKind, PathContext};
use crate::header::Header;
use crate::io::read_up_to;
use crate::meta::{check_within, meta_accessors, ArrayMeta};

/// How the reader turns one element's bytes into a value: a typed element's plan, or the
/// dynamic decoder.
pub(crate) trait Decode {
    /// The value of one element.
    type Value;

    /// Decodes one element from exactly its itemsize bytes.
    fn decode(&self, src: &[u8]) -> Result<Self::Value, Error>;

    /// Decodes the whole elements of `src` (`itemsize` bytes each, `itemsize > 0`) in order,
    /// handing each to `put`: one call per chunk, so that typed plans decode in a tight loop.
    #[inline]
    fn decode_each(
        &self,
        src: &[u8],
        itemsize: usize,
        mut put: impl FnMut(Self::Value),
    ) -> Result<(), Error> {
        for element in src.chunks_exact(itemsize) {
            put(self.decode(element)?);
        }
        Ok(())
    }

    /// How the data maps to `[Self::Value]` in memory.
    fn bulk(&self) -> Bulk<Self::Value> {
        Bulk::No
    }

    /// The memory layout of `Self::Value`, for allocating output zeroed.
    fn pod_layout(&self) -> Option<PodLayout<Self::Value>> {
        None
    }
}

/// A typed element's plan for one dtype: its own (in either byte order), or a widening from
/// a narrower number dtype ([`Casting::Safe`]).
#[derive(Debug)]
enum Typed<T: NpyElement> {
    Exact { plan: T::Plan, bulk: Bulk<T> },
    Widened(Widening<T>),
}

impl<T: NpyElement> Typed<T> {
    /// The plan for `dtype`: the type's own, or under [`Casting::Safe`] a widening numpy
    /// allows (`np.can_cast(dtype, T's dtype, 'safe')`); otherwise `T::plan`'s mismatch.
    fn new(dtype: &DType, casting: Casting) -> Result<Self, Error> {
        match T::plan(dtype) {
            Ok(plan) => Ok(Typed::Exact {
                plan,
                bulk: bulk_kind::<T>(dtype),
            }),
            Err(e) => match (casting, T::widening(dtype)) {
                (Casting::Safe, Some(w)) => Ok(Typed::Widened(w)),
                (Casting::Equiv, Some(_)) => Err(e.with_safe_cast_hint()),
                _ => Err(e),
            },
        }
    }
}

impl<T: NpyElement> Decode for Typed<T> {
    type Value = T;

    #[inline]
    fn decode(&self, src: &[u8]) -> Result<T, Error> {
        match self {
            Typed::Exact { plan, .. } => T::read(plan, src),
            Typed::Widened(w) => Ok(w.read(src)),
        }
    }

    #[inline]
    fn decode_each(
        &self,
        src: &[u8],
        itemsize: usize,
        mut put: impl FnMut(T),
    ) -> Result<(), Error> {
        match self {
            Typed::Exact { plan, .. } => T::read_each(plan, src, itemsize, put),
            Typed::Widened(w) => {
                src.chunks_exact(itemsize).for_each(|e| put(w.read(e)));
                Ok(())
            }
        }
    }

    fn bulk(&self) -> Bulk<T> {
        match self {
            Typed::Exact { bulk, .. } => *bulk,
            Typed::Widened(_) => Bulk::No,
        }
    }

    fn pod_layout(&self) -> Option<PodLayout<T>> {
        T::pod_layout()
    }
}

/// A `.npy` reader over any [`Read`]: the header first, then the data in one go, into a caller's
/// buffer, element by element, or by range (`R: Seek`). It consumes exactly the header and the
/// array's bytes, so arrays concatenated in one stream read one after the other.
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
#[derive(Debug, Clone)]
pub struct NpyReader<R> {
    inner: R,
    meta: ArrayMeta,
    /// Elements read so far.
    pos: u64,
    /// Elements this reader reads up to: the array's length, or the end of a range being read.
    end: u64,
    /// Bytes known to follow the header (files), bounding allocations up front.
    available: Option<u64>,
    /// Data bytes read from `inner` by [`NpyReader::iter`] but not yet handed out; every read
    /// takes from here first, so a partly used iterator loses nothing.
    ahead: Vec<u8>,
    /// How much of `ahead` has been consumed.
    ahead_at: usize,
    /// Its [`ReadOptions::strict_bools`], [`ReadOptions::casting`], [`ReadOptions::threads`].
    options: ReadOptions,
    /// For a reader opened from a path ([`NpyReader::open`]): the buffered file behind `R`,
    /// whose data large bulk reads read positionally on several threads.
    file: Option<FileAccess<R>>,
}

/// How a reader reaches the file behind its `R` (`R` is that `BufReader<File>`).
type FileAccess<R> = fn(&mut R) -> &mut BufReader<File>;

impl NpyReader<BufReader<File>> {
    /// Opens the file at `path` and reads its header; the file's length bounds later reads.
    /// Reads go through a [`BufReader`] of [`FILE_BUFFER_BYTES`]; a bulk read of at least twice
    /// [`PARALLEL_MIN_BYTES`](super::PARALLEL_MIN_BYTES) of numbers is split over threads
    /// ([`ReadOptions::threads`]).
    ///
    /// # Errors
    /// I/O and header errors, naming the file.
    ///
    /// # Examples
    /// ```
    /// let path = std::env::temp_dir().join(format!("npy-open-{}.npy", std::process::id()));
    /// npy_core::write(&path, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// let mut r = npy_core::NpyReader::open(&path)?;
    /// let mut row = [0f32; 3];
    /// r.read_into(&mut row)?; // served from the buffer
    /// assert_eq!(row, [1.0, 2.0, 3.0]);
    /// drop(r.into_file()?); // the file, positioned after the first row
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        NpyReader::open_with(path, &ReadOptions::default())
    }

    /// [`NpyReader::open`] with options (see [`NpyReader::with_options`]).
    ///
    /// # Errors
    /// As [`NpyReader::open`].
    pub fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let path = path.as_ref();
        let open = || -> Result<Self, Error> {
            let file = npy_fs::open_regular(path)?;
            let file_len = file.metadata()?.len();
            let buffered = BufReader::with_capacity(FILE_BUFFER_BYTES, file);
            let mut r = NpyReader::with_options(buffered, options)?;
            r.available = Some(file_len.saturating_sub(r.data_offset()));
            // Bulk reads may read the file by position: the header was read from its start.
            r.file = Some(|r| r);
            Ok(r)
        };
        open().at_path(path)
    }

    /// The file, positioned right after the header and the elements handed out so far: bytes
    /// the buffer or [`NpyReader::iter`] had read ahead are given back by seeking, not lost.
    ///
    /// # Errors
    /// I/O errors of the seek.
    pub fn into_file(self) -> Result<File, Error> {
        let ahead = self.ahead_len();
        let mut inner = self.into_inner();
        // BufReader's relative seek counts its own buffered bytes too, then drops them.
        inner.seek(SeekFrom::Current(-(ahead as i64)))?; // a Vec's length fits an i64
        Ok(inner.into_inner())
    }
}

impl<R> NpyReader<R> {
    meta_accessors!();

    /// A reader of `meta`'s array whose data starts at `inner`'s position (its header read
    /// elsewhere); `inner` needs no `Read` (a [`Positional`](super::Positional) reads by position).
    pub(crate) fn from_meta(inner: R, meta: ArrayMeta, options: &ReadOptions) -> Self {
        NpyReader {
            inner,
            end: meta.num_elements(),
            meta,
            pos: 0,
            available: None,
            ahead: Vec::new(),
            ahead_at: 0,
            options: *options,
            file: None,
        }
    }

    /// The underlying reader.
    pub(crate) fn inner(&self) -> &R {
        &self.inner
    }

    /// Number of elements, as [`ArrayMeta::num_elements`].
    pub fn num_elements(&self) -> u64 {
        self.meta.num_elements()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Elements not yet read.
    pub fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    /// The underlying reader, after what was read, less what a partly used [`NpyReader::iter`]
    /// read ahead (up to 64 KiB of the data, not in `R`). A [`BufReader`] from [`NpyReader::open`]
    /// holds its own read-ahead (`seek(SeekFrom::Current(0))` puts the file there);
    /// [`NpyReader::into_file`] gives the file after what was read, iterator included.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The underlying reader, mutably (a range source's cursor, told how far a read goes).
    pub(crate) fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The element range (memory order, in `T`, folded as [`NpyReader::fold_for`]) of rows
    /// `rows` of a C-order array; errors as [`NpyReader::read_rows`].
    pub(crate) fn row_elements_of<T: NpyElement>(
        &mut self,
        rows: &Range<u64>,
    ) -> Result<Range<u64>, Error> {
        self.fold_for::<T>()?;
        // At most the array's elements, which fit in 64 bits (when the first dimension is 0
        // the range is 0..0 and multiplies to 0).
        let row = checked_product(1, self.meta.row_dims(rows)?).unwrap_or(u64::MAX);
        Ok(rows.start * row..rows.end * row)
    }

    /// Bytes read from `R` ahead of what was handed out (by [`NpyReader::iter`]).
    fn ahead_len(&self) -> usize {
        self.ahead.len() - self.ahead_at
    }

    fn itemsize(&self) -> u64 {
        self.meta.itemsize()
    }

    #[cold]
    fn truncated(&self, found: u64) -> Error {
        Error::truncated("array data", self.end * self.itemsize(), found)
    }

    /// Under [`ReadOptions::strict_bools`], [`ErrorKind::InvalidBool`] (naming its offset) for
    /// the first `b1` byte of `data` (whole elements from element `first` on) other than 0 and 1.
    fn check_bools(&self, data: &[u8], first: u64) -> Result<(), Error> {
        if !self.options.get_strict_bools() {
            return Ok(());
        }
        match self.meta.dtype().first_noncanonical_bool(data) {
            None => Ok(()),
            Some((at, byte)) => Err(Error::new(ErrorKind::InvalidBool {
                byte,
                offset: self.data_offset() + first * self.itemsize() + at as u64,
            })),
        }
    }

    /// What a typed read checks first: objects, [`NpyReader::fold_for`], [`Typed::new`]. A
    /// big-endian `'>V2'` (ml_dtypes' bfloat16, whose byte order numpy's `|V2` loses) is refused
    /// for a type wider than a byte taking a void's bytes (`half::bf16`): it would read it swapped.
    fn typed<T: NpyElement>(&mut self) -> Result<Typed<T>, Error> {
        self.dtype().refuse_object()?;
        self.fold_for::<T>()?;
        let typed = Typed::<T>::new(self.dtype(), self.options.get_casting())?;
        if let (DType::Void(_), DType::Ml(t)) = (self.dtype(), T::npy_dtype()) {
            if t.itemsize() > 1 {
                self.meta.parsed_header().hinted_dtype(t)?;
            }
        }
        Ok(typed)
    }

    /// When `T` is a subarray type (`[U; N]`) and the file a C-order array whose trailing
    /// dimensions are its subarray shape ([`ArrayMeta::fold_trailing`]), views those dimensions
    /// from here on as one `T` element: the shape loses them, the length counts `T` elements.
    /// Returns the bytes of one element (as a typed read sees them, which does this first).
    pub(crate) fn fold_for<T: NpyElement>(&mut self) -> Result<u64, Error> {
        let DType::SubArray(want) = T::npy_dtype() else {
            return Ok(self.itemsize());
        };
        let dims = want.shape();
        let shape = self.meta.shape();
        let per = checked_product(1, dims).unwrap_or(0);
        if matches!(self.meta.dtype(), DType::SubArray(_))
            || self.meta.order().is_fortran()
            || shape.len() < dims.len()
            || shape[shape.len() - dims.len()..] != *dims
            || per == 0
            || !self.pos.is_multiple_of(per)
        {
            // Not that layout: T::plan reports the mismatch.
            return Ok(self.itemsize());
        }
        self.meta.fold_trailing(dims)?;
        self.end /= per;
        self.pos /= per;
        Ok(self.itemsize())
    }

    /// The reader with its dtype read through a type hint, as [`ReadOptions::hint`] when opening
    /// (for readers opened without options: an `.npz` member's). `None`, a dtype the hint does
    /// not apply to, or a hint [`hinted_dtype`](crate::header::ParsedHeader::hinted_dtype)
    /// refuses (call it to learn why) leaves the reader as it is.
    #[must_use]
    pub fn with_hint(mut self, hint: Option<crate::dtype::MlType>) -> Self {
        if let Some(h) = hint {
            self.meta.hint(h);
        }
        self
    }
}

impl<R: Read> NpyReader<R> {
    /// Reads the header from `inner`.
    ///
    /// # Errors
    /// Header errors ([`Header::read`]) and [`ErrorKind::SizeOverflow`].
    pub fn new(inner: R) -> Result<Self, Error> {
        NpyReader::with_options(inner, &ReadOptions::default())
    }

    /// [`NpyReader::new`] with options ([`ReadOptions`]).
    ///
    /// # Errors
    /// As [`NpyReader::new`].
    pub fn with_options(mut inner: R, options: &ReadOptions) -> Result<Self, Error> {
        let meta = ArrayMeta::new(Header::read_with(&mut inner, options)?)?;
        Ok(NpyReader::from_meta(inner, meta, options))
    }

    /// The rest of the input (an object array's pickle, which ends numpy's files): the bytes read
    /// ahead, then the inner reader; no element remains to be read; the caller bounds the read.
    pub(crate) fn rest(&mut self) -> std::io::Chain<std::io::Cursor<Vec<u8>>, &mut R> {
        let ahead = std::mem::take(&mut self.ahead).split_off(self.ahead_at);
        self.ahead_at = 0;
        self.pos = self.end;
        std::io::Cursor::new(ahead).chain(&mut self.inner)
    }

    /// Tells the reader how many bytes follow the header (a file's length less the data
    /// offset), so that truncation is found before allocating.
    #[must_use]
    pub fn with_available_bytes(mut self, bytes: u64) -> Self {
        self.available = Some(bytes);
        self
    }

    /// Reads all remaining elements into a new vector, in the file's memory order.
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`], [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`], value
    /// errors of `T` ([`ErrorKind::InvalidUnicode`]), [`ErrorKind::AllocationLimit`], I/O errors.
    pub fn read_vec<T: NpyElement>(&mut self) -> Result<Vec<T>, Error> {
        let typed = self.typed::<T>()?;
        let n = self.remaining();
        self.check_backed()?; // first: a short file is Truncated, not refused memory
        check_expansion::<T>(n, n * self.itemsize())?;
        self.read_vec_with(&typed)
    }

    /// [`ErrorKind::Truncated`] when the input is known to hold fewer bytes than the elements
    /// left (nothing for a stream of unknown length): checked before any memory bound, so that
    /// a short file is reported as such, not as an allocation refused.
    pub(crate) fn check_backed(&self) -> Result<(), Error> {
        if let Some(avail) = self.available {
            let itemsize = self.itemsize();
            // Both products <= the header's nbytes, checked at construction.
            if avail.saturating_sub(self.pos * itemsize) < self.remaining() * itemsize {
                return Err(self.truncated(avail));
            }
        }
        Ok(())
    }

    /// Whether [`NpyReader::check_backed`] knows the input's length.
    pub(crate) fn knows_length(&self) -> bool {
        self.available.is_some()
    }

    /// Hands the next `n` elements to `f` in chunks of whole elements (about `chunk_bytes`, at
    /// least one element), in order, each bool-checked first under [`ReadOptions::strict_bools`].
    /// Elements of no bytes are not read here: their callers decode them from nothing.
    pub(crate) fn read_chunks(
        &mut self,
        n: u64,
        chunk_bytes: usize,
        mut f: impl FnMut(&[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let itemsize = self.itemsize() as usize;
        if itemsize == 0 {
            return Ok(());
        }
        let per = per_chunk(itemsize, chunk_bytes) as u64;
        let mut buf = Vec::new();
        let mut left = n;
        while left > 0 {
            let k = left.min(per);
            self.read_chunk(&mut buf, k as usize * itemsize)?;
            self.check_bools(&buf, self.pos)?;
            f(&buf)?;
            self.pos += k;
            left -= k;
        }
        Ok(())
    }

    /// Reads all remaining elements with `decoder` (the caller checked the dtype and bounded
    /// the values' memory).
    pub(crate) fn read_vec_with<D: Decode>(&mut self, decoder: &D) -> Result<Vec<D::Value>, Error> {
        let n = self.remaining();
        let itemsize = self.itemsize();
        self.check_backed()?;
        let each = std::mem::size_of::<D::Value>() as u64;
        let n_usize =
            usize::try_from(n).map_err(|_| Error::allocation_limit("array data", n, each))?;
        if self.available.is_some() || itemsize == 0 {
            // The length is known to be backed: allocate once.
            if let Some(layout) = decoder.pod_layout() {
                let mut v = layout.zeroed_vec(n_usize);
                // Fresh zeroed pages, not yet touched: huge pages make the faults of the read
                // below 512 times fewer (numpy does the same).
                npy_fs::advise_huge_pages(layout.as_bytes_mut(&mut v));
                self.fill(decoder, &mut v)?;
                return Ok(v);
            }
            let mut v = Vec::with_capacity(n_usize);
            npy_fs::advise_huge_pages_spare(&mut v);
            self.decode_n(decoder, n, |x| v.push(x))?;
            return Ok(v);
        }
        // A stream of unknown length: grow with what arrives.
        let mut v = Vec::new();
        let step = (CHUNK_BYTES as u64 * 16 / itemsize.max(1)).max(1);
        while self.remaining() > 0 {
            let k = self.remaining().min(step.max(v.len() as u64));
            match decoder.pod_layout() {
                Some(layout) => {
                    let mut part = layout.zeroed_vec(k as usize);
                    self.fill(decoder, &mut part)?;
                    v.append(&mut part);
                }
                None => self.decode_n(decoder, k, |x| v.push(x))?,
            }
        }
        Ok(v)
    }

    /// Reads the next `out.len()` elements into `out` (no allocation on the bulk path).
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when `out` is longer than the elements remaining; otherwise
    /// as [`NpyReader::read_vec`].
    pub fn read_into<T: NpyElement>(&mut self, out: &mut [T]) -> Result<(), Error> {
        let typed = self.typed::<T>()?;
        if out.len() as u64 > self.remaining() {
            return Err(Error::new(ErrorKind::LengthMismatch {
                what: "read_into buffer",
                expected: self.remaining(),
                found: out.len() as u64,
            }));
        }
        self.fill(&typed, out)
    }

    /// Fills `out` with the next elements (the caller checked the count).
    fn fill<D: Decode>(&mut self, decoder: &D, out: &mut [D::Value]) -> Result<(), Error> {
        let bulk = match decoder.bulk() {
            Bulk::Native(layout) => Some((layout, 0)),
            Bulk::Swapped(layout) => Some((layout, layout.swap_unit())),
            Bulk::No => None,
        };
        if let Some((layout, swap_unit)) = bulk {
            self.read_bulk(layout.as_bytes_mut(out), swap_unit)?;
            self.pos += out.len() as u64;
            return Ok(());
        }
        let mut slots = out.iter_mut();
        self.decode_n(decoder, slots.len() as u64, |value| {
            if let Some(slot) = slots.next() {
                *slot = value;
            }
        })
    }

    /// Decodes the next `n` elements in order, handing each to `put` (types without bulk layout).
    fn decode_n<D: Decode>(
        &mut self,
        decoder: &D,
        n: u64,
        mut put: impl FnMut(D::Value),
    ) -> Result<(), Error> {
        let itemsize = self.itemsize() as usize;
        if itemsize == 0 {
            for _ in 0..n {
                put(decoder.decode(&[])?);
            }
            self.pos += n;
            return Ok(());
        }
        self.read_chunks(n, CHUNK_BYTES, |chunk| {
            decoder.decode_each(chunk, itemsize, &mut put)
        })
    }

    /// Sets `buf` to the next `n` data bytes (one chunk of whole elements). On a stream of
    /// unknown length a chunk larger than [`CHUNK_BYTES`] grows as its bytes arrive, so that
    /// a header claiming gigabyte elements cannot make the reader allocate what is not there.
    fn read_chunk(&mut self, buf: &mut Vec<u8>, n: usize) -> Result<(), Error> {
        if self.available.is_some() || n <= CHUNK_BYTES || self.ahead_at < self.ahead.len() {
            buf.resize(n, 0);
            return self.read_data(buf);
        }
        buf.clear();
        (&mut self.inner).take(n as u64).read_to_end(buf)?;
        if buf.len() < n {
            return Err(self.truncated(self.pos * self.itemsize() + buf.len() as u64));
        }
        Ok(())
    }

    /// Reads exactly `buf.len()` data bytes of whole elements, reversing each `swap_unit`-byte
    /// scalar (`0`: none) of each chunk while it is in cache, not in a second pass. A file
    /// reader with a large enough `buf` reads on several threads.
    fn read_bulk(&mut self, buf: &mut [u8], swap_unit: usize) -> Result<(), Error> {
        let threads = parallel::threads_for(buf.len(), self.options.get_threads());
        #[cfg(any(unix, windows))]
        if threads > 1 && self.ahead_len() == 0 {
            if let Some(file) = self.file {
                return self.read_positional(file, buf, threads, swap_unit);
            }
        }
        let _ = threads;
        if swap_unit == 0 {
            return self.read_data(buf);
        }
        let step = per_chunk(swap_unit, SWAP_CHUNK_BYTES) * swap_unit;
        for chunk in buf.chunks_mut(step) {
            self.read_data(chunk)?;
            swap_in_place(chunk, swap_unit);
        }
        Ok(())
    }

    /// [`NpyReader::read_bulk`] on `threads` threads, each reading its part of the file
    /// positionally; the buffered reader is then moved after the bytes read.
    #[cfg(any(unix, windows))]
    fn read_positional(
        &mut self,
        file: FileAccess<R>,
        buf: &mut [u8],
        threads: usize,
        swap_unit: usize,
    ) -> Result<(), Error> {
        let done = self.pos * self.itemsize();
        let start = self.data_offset() + done;
        let align = self.itemsize() as usize;
        let inner = file(&mut self.inner);
        let got = parallel::read_at(inner.get_ref(), start, buf, threads, align, swap_unit)?;
        inner.seek(SeekFrom::Start(start + got as u64))?;
        if got < buf.len() {
            return Err(self.truncated(done + got as u64));
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
            return Err(self.truncated(self.pos * self.itemsize() + got as u64));
        }
        Ok(())
    }

    /// Iterates over the remaining elements without loading the array, reading in chunks.
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`] and [`ErrorKind::ObjectArray`] up front; then per item.
    #[allow(
        clippy::iter_not_returning_iterator,
        reason = "the iterator comes inside a `Result`: type and object refusals come up front"
    )]
    pub fn iter<T: NpyElement>(&mut self) -> Result<Elements<'_, R, T>, Error> {
        let typed = self.typed::<T>()?;
        Ok(Elements {
            reader: self,
            typed,
            failed: false,
        })
    }
}

impl<R: Read + Seek> NpyReader<R> {
    /// Reads elements `range` (memory-order indices) without reading the others. The reader is
    /// left after the range.
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`] for a reversed range or one past the end; otherwise as
    /// [`NpyReader::read_vec`].
    pub fn read_range<T: NpyElement>(&mut self, range: Range<u64>) -> Result<Vec<T>, Error> {
        self.dtype().refuse_object()?;
        self.fold_for::<T>()?;
        self.within_range(range, Self::read_vec::<T>)
    }

    /// Runs `read` on this reader seen as the elements `range` alone (positioned at its start,
    /// ending at its end), as [`NpyReader::read_range`] does; `read`'s errors added.
    pub(crate) fn within_range<T>(
        &mut self,
        range: Range<u64>,
        read: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        check_within("element range", &range, self.num_elements())?;
        self.seek_to(range.start)?;
        let saved_end = std::mem::replace(&mut self.end, range.end);
        let out = read(self);
        self.end = saved_end;
        out
    }

    /// Reads rows `range` of a C-order array (a row is one index of the first dimension:
    /// `shape[1..]` elements).
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for Fortran-order or 0-d arrays, [`ErrorKind::OutOfRange`]
    /// for rows outside the array; otherwise as [`NpyReader::read_range`].
    pub fn read_rows<T: NpyElement>(&mut self, range: Range<u64>) -> Result<Vec<T>, Error> {
        // A refused range leaves the reader as it was.
        let unfolded = (self.meta.clone(), self.end, self.pos);
        let elements = self
            .row_elements_of::<T>(&range)
            .inspect_err(|_| (self.meta, self.end, self.pos) = unfolded)?;
        self.read_range(elements)
    }

    /// Moves to element `index` (memory order) without reading.
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`] past the end; I/O errors.
    pub fn seek_to(&mut self, index: u64) -> Result<(), Error> {
        check_within("seek position", &(index..index), self.num_elements())?;
        let itemsize = self.itemsize();
        let ahead = self.ahead_len() as i128;
        let delta = (i128::from(index) - i128::from(self.pos)) * i128::from(itemsize) - ahead;
        match i64::try_from(delta) {
            // Relative: a buffered reader keeps its buffer when the target is inside it.
            Ok(delta) => self.inner.seek_relative(delta)?,
            Err(_) => {
                let here = self.inner.stream_position()?;
                let start = here - ahead as u64 - self.pos * itemsize;
                self.inner.seek(SeekFrom::Start(start + index * itemsize))?;
            }
        }
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
    typed: Typed<T>,
    failed: bool,
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
            return Some(self.typed.decode(&[]));
        }
        let r = &mut *self.reader;
        if r.ahead.len() - r.ahead_at < itemsize {
            // Refill with whole elements; only what is handed out counts as read.
            let k = r.remaining().min(per_chunk(itemsize, CHUNK_BYTES) as u64) as usize;
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
        let v = r
            .check_bools(src, r.pos)
            .and_then(|()| self.typed.decode(src));
        r.ahead_at += itemsize;
        r.pos += 1;
        self.failed = v.is_err(); // false until now
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.reader.remaining()).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}
