//! Streaming writers: rows of unknown count, the header rewritten in place at the end.

use std::borrow::Borrow;
use std::io::{Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::Path;

use npy_fs::PendingFile;

use super::{same_len, size_overflow, AtomicFile, WriteOptions};
use crate::codec::{checked_product, CHUNK_BYTES};
use crate::dtype::DType;
use crate::element::{bulk_kind, Bulk, NpyElement};
#[allow(unused_imports, reason = "named by the docs' links")]
use crate::error::ErrorKind;
use crate::error::{to_usize, Error, PathContext};
use crate::format::{MemoryOrder, Version};
use crate::header::Header;

/// Writes rows of unknown count to any `Write + Seek` ([`WriteOptions::stream_to`]): the header
/// goes first, with no rows and the room numpy reserves for the growth axis, and
/// [`StreamWriter::finish`] rewrites it in place, so an unfinished file never claims data it
/// lacks. A file of your own (`BufWriter::new(File::create(p)?)`) is written in place, not
/// atomically: for a path prefer [`WriteOptions::create_stream`], whose file appears finished.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// let mut file = std::io::Cursor::new(Vec::new());
/// let mut w = WriteOptions::new().stream_to::<_, f32>(&mut file, &[3])?;
/// for i in 0..3 {
///     w.push_row(&[i as f32, 0.0, 1.0])?;
/// }
/// w.extend((7..9).map(|i| i as f32))?; // elements owned or borrowed, any count
/// w.extend(&[9.0])?;
/// w.finish()?;
/// let mut r = NpyReader::new(&file.get_ref()[..])?;
/// assert_eq!(r.shape(), [4, 3]);
/// assert_eq!(r.read_vec::<f32>()?[6..], [2.0, 0.0, 1.0, 7.0, 8.0, 9.0]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "the header holds the final row count only once finish() rewrites it"]
pub struct StreamWriter<W: Write + Seek, T: NpyElement> {
    inner: W,
    plan: T::Plan,
    header: Header,
    /// The dtype of one `T` (the header's dtype, unless `T` is a subarray type).
    elem_dtype: DType,
    order: MemoryOrder,
    /// The axis that grows: 0 in C order, the last in Fortran order.
    growth_axis: usize,
    /// The header's version, fixed when the header is first written.
    version: Version,
    header_start: u64,
    /// The header's length (prefix included), reserved when first written.
    header_bytes: usize,
    row_len: u64,
    count: u64,
    /// Rows pushed when a row has no elements (`count` cannot tell how many).
    empty_rows: u64,
    itemsize: usize,
    buf: Vec<u8>,
    _t: PhantomData<T>,
}

impl<W: Write + Seek, T: NpyElement> StreamWriter<W, T> {
    pub(super) fn new(
        options: &WriteOptions,
        mut inner: W,
        row_shape: &[u64],
    ) -> Result<Self, Error> {
        let (dtype, plan) = options.resolve::<T>(&[])?;
        // The growth axis of the row shape with it: the outermost in memory, so rows append.
        let order = options.order.unwrap_or(MemoryOrder::C);
        let growth_axis = order.growth_axis(row_shape.len() + 1);
        let mut shape = row_shape.to_vec();
        shape.insert(growth_axis, 0);
        let header = options.header(dtype.clone(), &shape, order)?;
        let row_len =
            checked_product(1, row_shape).ok_or_else(|| size_overflow(&shape, dtype.itemsize()))?;
        let itemsize = to_usize(dtype.itemsize(), "itemsize")?;
        let (version, header_bytes) = reserve(&header, growth_axis, order, options.version)?;
        let header_start = inner.stream_position()?;
        let bytes = header.to_bytes_at_least(version, header_bytes)?;
        inner.write_all(&bytes)?;
        Ok(StreamWriter {
            inner,
            plan,
            header,
            elem_dtype: dtype,
            order,
            growth_axis,
            version,
            header_start,
            header_bytes: bytes.len(),
            row_len,
            count: 0,
            empty_rows: 0,
            itemsize,
            buf: Vec::with_capacity(CHUNK_BYTES),
            _t: PhantomData,
        })
    }

    /// Appends one element, in the file's memory order: in C order rows fill in C order; in
    /// Fortran order each row (one index of the last axis) fills in Fortran order.
    ///
    /// # Errors
    /// [`ErrorKind::ValueTooLong`] and I/O errors.
    pub fn push(&mut self, value: &T) -> Result<(), Error> {
        let start = self.buf.len();
        self.buf.resize(start + self.itemsize, 0);
        if let Err(e) = value.write(&self.plan, &mut self.buf[start..]) {
            // Drop the rejected element's partial bytes: they would shift every later value.
            self.buf.truncate(start);
            return Err(e);
        }
        self.count += 1;
        if self.buf.len() >= CHUNK_BYTES {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Appends elements.
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), Error> {
        if self.buf.is_empty() {
            if let Bulk::Native(layout) = bulk_kind::<T>(&self.elem_dtype) {
                self.inner.write_all(layout.as_bytes(values))?;
                self.count += values.len() as u64;
                return Ok(());
            }
        }
        values.iter().try_for_each(|v| self.push(v))
    }

    /// Appends the elements (owned or borrowed) an iterator yields, as [`StreamWriter::push`]
    /// one by one.
    ///
    /// # Errors
    /// As [`StreamWriter::push`]; the elements before the failing one are written.
    pub fn extend<I>(&mut self, values: I) -> Result<(), Error>
    where
        I: IntoIterator,
        I::Item: Borrow<T>,
    {
        values.into_iter().try_for_each(|v| self.push(v.borrow()))
    }

    /// Appends one row: one index of the growth axis (the first in C order, the last in
    /// Fortran order), its `row_shape` elements in the file's memory order.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when `row` is not one row long; otherwise as
    /// [`StreamWriter::push`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        same_len("row", self.row_len, row.len() as u64)?;
        if self.row_len == 0 {
            self.empty_rows += 1;
            return Ok(());
        }
        self.extend_from_slice(row)
    }

    /// Elements written so far.
    pub fn elements_written(&self) -> u64 {
        self.count
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn flush_buf(&mut self) -> Result<(), Error> {
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is buffered, rewrites the header with the final row count, and returns the
    /// writer positioned after the data.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when the elements do not fill whole rows; I/O errors.
    pub fn finish(mut self) -> Result<W, Error> {
        self.flush_buf()?;
        let rows = if self.row_len == 0 {
            self.empty_rows
        } else {
            let whole = self.count.div_ceil(self.row_len) * self.row_len;
            same_len("elements for whole rows", whole, self.count)?;
            self.count / self.row_len
        };
        self.header.shape[self.growth_axis] = rows;
        self.header.fortran_order = Header::fortran_order_for(&self.header.shape, self.order);
        let bytes = self
            .header
            .to_bytes_at_least(self.version, self.header_bytes)?;
        // reserve() took the longest header of any row count: never a mismatch.
        let what = "final header for the bytes reserved";
        same_len(what, self.header_bytes as u64, bytes.len() as u64)?;
        let end = self.inner.stream_position()?;
        self.inner.seek(SeekFrom::Start(self.header_start))?;
        self.inner.write_all(&bytes)?;
        self.inner.seek(SeekFrom::Start(end))?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// The version (`version`, or numpy's choice) and length of the header a streaming writer
/// reserves: the longest `np.save` header of any row count. Its length changes with the row
/// count's digits in Fortran order only (numpy's spare room follows the last axis only while
/// `fortran_order` is `True`); a shorter header is padded to it ([`Header::to_bytes_at_least`]),
/// byte for byte `np.save`'s whenever that is as long (always in C order).
fn reserve(
    header: &Header,
    growth_axis: usize,
    order: MemoryOrder,
    version: Option<Version>,
) -> Result<(Version, usize), Error> {
    // The length depends on the row count only through its digits and whether it is 0, 1 or
    // more (fortran_order).
    let longest = |version: Version| -> Result<usize, Error> {
        [0, 1, 2]
            .into_iter()
            .chain((1..20).map(|k| 10u64.pow(k)))
            .chain([u64::MAX])
            .try_fold(0, |len, n| {
                let mut h = header.clone();
                h.shape[growth_axis] = n;
                h.fortran_order = Header::fortran_order_for(&h.shape, order);
                Ok(len.max(h.to_bytes_unchecked(Some(version))?.len()))
            })
    };
    let with = |v| longest(v).map(|len| (v, len));
    match version {
        Some(v) => with(v),
        // numpy's choice: the first version that holds the header.
        None => with(Version::V1_0)
            .or_else(|_| with(Version::V2_0))
            .or_else(|_| with(Version::V3_0)),
    }
}

/// A [`StreamWriter`] to a path that appears there only once finished
/// ([`WriteOptions::create_stream`]).
///
/// # Call `finish`, or nothing is written
///
/// The rows go to a temporary file beside the path. **Only [`PathStreamWriter::finish`] puts
/// the file under the path.** A writer dropped instead (forgotten, or left by an early `return`
/// or `?`) removes the temporary file and leaves **no file at all** (an existing one is
/// unchanged): a reader never sees a partial file, but nothing makes you call `finish`. Debug
/// builds warn on stderr, naming the path, of a writer dropped unfinished and without error.
///
/// # Examples
/// ```
/// use npy_core::WriteOptions;
/// # let dir = std::env::temp_dir().join(format!("npy-core-pstream-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("rows.npy");
/// let mut w = WriteOptions::new().create_stream::<f64>(&path, &[2])?;
/// w.push_row(&[1.0, 2.0])?;
/// w.push_row(&[3.0, 4.0])?;
/// assert!(!path.exists()); // not yet
/// w.finish()?;
/// assert_eq!(npy_core::read::<f64>(&path)?.shape(), [2, 2]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "the file appears under its path only once finish() puts it there"]
pub struct PathStreamWriter<T: NpyElement> {
    inner: StreamWriter<AtomicFile, T>,
    unfinished: UnfinishedWarning,
}

/// Warns (debug builds) when a [`PathStreamWriter`] is dropped without `finish` and without
/// having reported an error: the one silent way to lose a stream's rows.
#[derive(Debug)]
struct UnfinishedWarning {
    path: std::path::PathBuf,
    armed: bool,
}

impl Drop for UnfinishedWarning {
    fn drop(&mut self) {
        if cfg!(debug_assertions) && self.armed && !std::thread::panicking() {
            eprintln!(
                "npy_core: a PathStreamWriter for {} was dropped without finish(): nothing was \
                 written there (call PathStreamWriter::finish to keep the rows)",
                self.path.display()
            );
        }
    }
}

impl<T: NpyElement> PathStreamWriter<T> {
    pub(super) fn new(inner: StreamWriter<AtomicFile, T>) -> Self {
        let path = inner.inner.target().to_owned();
        PathStreamWriter {
            inner,
            unfinished: UnfinishedWarning { path, armed: true },
        }
    }

    /// Runs `f` on the stream; an error names the file and disarms the drop warning (the caller
    /// has been told).
    fn report<V>(
        &mut self,
        f: impl FnOnce(&mut StreamWriter<AtomicFile, T>) -> Result<V, Error>,
    ) -> Result<V, Error> {
        let result = f(&mut self.inner);
        if result.is_err() {
            self.unfinished.armed = false;
        }
        result.at_path(&self.unfinished.path)
    }

    /// See [`StreamWriter::push`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn push(&mut self, value: &T) -> Result<(), Error> {
        self.report(|w| w.push(value))
    }

    /// See [`StreamWriter::extend_from_slice`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), Error> {
        self.report(|w| w.extend_from_slice(values))
    }

    /// See [`StreamWriter::push_row`].
    ///
    /// # Errors
    /// As [`StreamWriter::push_row`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        self.report(|w| w.push_row(row))
    }

    /// See [`StreamWriter::extend`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend<I>(&mut self, values: I) -> Result<(), Error>
    where
        I: IntoIterator,
        I::Item: Borrow<T>,
    {
        self.report(|w| w.extend(values))
    }

    /// The path the file appears under once finished.
    pub fn path(&self) -> &Path {
        self.inner.inner.target()
    }

    /// Finishes the file and renames it into place (a writer dropped instead leaves nothing
    /// there: see the type's docs).
    ///
    /// # Errors
    /// As [`StreamWriter::finish`].
    pub fn finish(self) -> Result<(), Error> {
        Ok(self.finish_pending()?.commit()?)
    }

    /// The two-phase form of [`PathStreamWriter::finish`]: finishes the file (final header)
    /// and returns it still under its temporary name; nothing is at the path until
    /// [`PendingFile::commit`] (dropping it removes the file).
    ///
    /// # Errors
    /// As [`StreamWriter::finish`].
    pub fn finish_pending(mut self) -> Result<PendingFile, Error> {
        self.unfinished.armed = false;
        let file = self.inner.finish().map(PendingFile::from);
        file.at_path(&self.unfinished.path)
    }
}
