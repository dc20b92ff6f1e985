//! Writing arrays: whole slices, streams of rows of unknown count, and atomic file writes.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use crate::dtype::{ByteOrder, DType};
use crate::element::{bulk_kind, swap_in_place, Bulk, NpyElement};
use crate::error::Error;
use crate::header::{Header, Version};
use crate::info::Order;

const CHUNK_BYTES: usize = 1 << 16;

/// Writes `data` (in C order, `shape` outermost first) to `path` as numpy's `np.save` would:
/// the type's default dtype in the machine's byte order, format 1.0 unless the header needs
/// more.
///
/// The file is written to a temporary file in the same directory and renamed over `path`, so an
/// error or a crash never leaves a partial file under `path`.
///
/// # Errors
/// [`Error::LengthMismatch`] when `data.len()` is not the product of `shape`; I/O errors.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-write-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("x.npy");
/// npy_core::write(&path, &[1u16, 2, 3, 4], &[2, 2])?;
/// let bytes = std::fs::read(&path)?;
/// assert_eq!(bytes.len(), 128 + 8);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn write<T: NpyElement>(
    path: impl AsRef<Path>,
    data: &[T],
    shape: &[u64],
) -> Result<(), Error> {
    WriteOptions::new().write_path(path, data, shape)
}

/// How to write an array: dtype, memory order, byte order and format version.
///
/// # Examples
/// ```
/// use npy_core::{ByteOrder, NpyReader, Order, WriteOptions};
/// let mut out = Vec::new();
/// WriteOptions::new()
///     .byte_order(ByteOrder::Big)
///     .order(Order::Fortran)
///     .write_to(&mut out, &[1.5f64, 2.5, 3.5, 4.5], &[2, 2])?;
/// let r = NpyReader::new(&out[..])?;
/// assert_eq!(r.dtype().to_string(), ">f8");
/// assert!(r.header().fortran_order);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    dtype: Option<DType>,
    order: Order,
    byte_order: Option<ByteOrder>,
    version: Option<Version>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            dtype: None,
            order: Order::C,
            byte_order: None,
            version: None,
        }
    }
}

impl WriteOptions {
    /// numpy's defaults: the element type's dtype, C order, the machine's byte order, the
    /// smallest version that holds the header.
    pub fn new() -> Self {
        Self::default()
    }

    /// The memory order the data is given in (and that the header declares).
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// The byte order to write multi-byte values in.
    pub fn byte_order(mut self, byte_order: ByteOrder) -> Self {
        self.byte_order = Some(byte_order);
        self
    }

    /// A format version to use instead of numpy's choice; a header it cannot hold is an error.
    pub fn version(mut self, version: Version) -> Self {
        self.version = Some(version);
        self
    }

    /// An explicit dtype (e.g. the width of a string type, or `'>f8'`): written as given, unless
    /// [`WriteOptions::byte_order`] is also set, which then applies to it.
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    fn resolve<T: NpyElement>(&self, data: &[T]) -> Result<(DType, T::Plan), Error> {
        let dtype = self.dtype.clone().unwrap_or_else(|| T::dtype_for(data));
        let dtype = match self.byte_order {
            Some(order) => dtype.with_byte_order(order),
            None => dtype,
        };
        let plan = T::plan(&dtype)?;
        Ok((dtype, plan))
    }

    /// The header for elements of `dtype` in an array of `shape`, and how many header elements
    /// one such element is.
    ///
    /// As `np.save`: an element dtype that is a subarray (`[T; N]`) is stored as its base dtype
    /// with the subarray's dimensions appended to the shape (C order only, where that is the
    /// same bytes), and `fortran_order` is `True` only for data that is not also C-contiguous
    /// (at most one dimension longer than 1, or no elements: both orders are the same bytes).
    fn header(&self, dtype: DType, shape: &[u64]) -> Result<(Header, u64), Error> {
        let mut shape = shape.to_vec();
        let mut dtype = dtype;
        let mut per = 1u64;
        while let DType::SubArray(s) = dtype {
            if self.order == Order::Fortran {
                return Err(Error::Layout(
                    "elements of a subarray type ([T; N]) are written in C order only: numpy \
                     stores them as trailing dimensions of the shape"
                        .into(),
                ));
            }
            shape.extend_from_slice(s.shape());
            per = s
                .shape()
                .iter()
                .try_fold(per, |a, &d| a.checked_mul(d))
                .ok_or_else(|| Error::SizeOverflow {
                    shape: shape.clone(),
                    itemsize: s.base().itemsize(),
                })?;
            dtype = s.base().clone();
        }
        let both_orders = shape.contains(&0) || shape.iter().filter(|&&d| d != 1).count() <= 1;
        let header = Header {
            dtype,
            fortran_order: self.order == Order::Fortran && !both_orders,
            shape,
        };
        Ok((header, per))
    }

    /// Writes header and data to `w`. `data` is in the memory order given by
    /// [`WriteOptions::order`].
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], [`Error::TypeMismatch`] for an explicit dtype that `T` does
    /// not fit, [`Error::ValueTooLong`], header errors of [`Header::to_bytes`], I/O errors.
    pub fn write_to<W: Write, T: NpyElement>(
        &self,
        mut w: W,
        data: &[T],
        shape: &[u64],
    ) -> Result<(), Error> {
        let (dtype, plan) = self.resolve(data)?;
        let expected = shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::SizeOverflow {
                shape: shape.to_vec(),
                itemsize: dtype.itemsize(),
            })?;
        if expected != data.len() as u64 {
            return Err(Error::LengthMismatch {
                what: "data for the shape",
                expected,
                found: data.len() as u64,
            });
        }
        let (header, _) = self.header(dtype.clone(), shape)?;
        header.nbytes()?;
        w.write_all(&header.to_bytes(self.version)?)?;
        write_elements(&mut w, &dtype, &plan, data)?;
        w.flush()?;
        Ok(())
    }

    /// Writes to `path` atomically: a temporary file in the same directory, renamed over `path`
    /// once complete.
    ///
    /// # Errors
    /// As [`WriteOptions::write_to`].
    pub fn write_path<T: NpyElement>(
        &self,
        path: impl AsRef<Path>,
        data: &[T],
        shape: &[u64],
    ) -> Result<(), Error> {
        let mut file = AtomicFile::create(path.as_ref())?;
        self.write_to(&mut file, data, shape)?;
        file.commit()
    }

    /// Starts a streaming writer to `w` for rows of `row_shape` (the shape after the first
    /// dimension), whose count is found at [`StreamWriter::finish`]. C order only.
    ///
    /// # Errors
    /// [`Error::Layout`] for Fortran order; [`Error::TypeMismatch`]; header and I/O errors.
    pub fn stream_to<W: Write + Seek, T: NpyElement>(
        &self,
        w: W,
        row_shape: &[u64],
    ) -> Result<StreamWriter<W, T>, Error> {
        StreamWriter::new(self, w, row_shape)
    }

    /// A streaming writer to `path`, atomic: nothing appears under `path` until
    /// [`PathStreamWriter::finish`] succeeds.
    ///
    /// # Errors
    /// As [`WriteOptions::stream_to`].
    pub fn create_stream<T: NpyElement>(
        &self,
        path: impl AsRef<Path>,
        row_shape: &[u64],
    ) -> Result<PathStreamWriter<T>, Error> {
        let file = AtomicFile::create(path.as_ref())?;
        Ok(PathStreamWriter {
            inner: StreamWriter::new(self, file, row_shape)?,
        })
    }
}

fn write_elements<W: Write, T: NpyElement>(
    w: &mut W,
    dtype: &DType,
    plan: &T::Plan,
    data: &[T],
) -> Result<(), Error> {
    match (bulk_kind::<T>(dtype), T::as_bytes(data)) {
        (Bulk::Native, Some(bytes)) => {
            w.write_all(bytes)?;
            return Ok(());
        }
        (Bulk::Swapped(unit), Some(bytes)) => {
            let mut buf = Vec::with_capacity(CHUNK_BYTES.min(bytes.len()));
            let step = (CHUNK_BYTES / unit) * unit;
            for chunk in bytes.chunks(step.max(unit)) {
                buf.clear();
                buf.extend_from_slice(chunk);
                swap_in_place(&mut buf, unit);
                w.write_all(&buf)?;
            }
            return Ok(());
        }
        _ => {}
    }
    let itemsize = dtype.itemsize() as usize;
    if itemsize == 0 {
        return Ok(());
    }
    let per_chunk = (CHUNK_BYTES / itemsize).max(1);
    let mut buf = vec![0u8; per_chunk.min(data.len()) * itemsize];
    for values in data.chunks(per_chunk) {
        let bytes = &mut buf[..values.len() * itemsize];
        for (v, dst) in values.iter().zip(bytes.chunks_exact_mut(itemsize)) {
            v.write(plan, dst)?;
        }
        w.write_all(bytes)?;
    }
    Ok(())
}

/// Writes rows of unknown count: the header is written first with a zero-row shape and the room
/// numpy reserves for a growing first dimension, and rewritten in place by
/// [`StreamWriter::finish`]. Until then the file claims no data, so an unfinished writer never
/// leaves a file that claims data it lacks.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// let mut file = std::io::Cursor::new(Vec::new());
/// let mut w = WriteOptions::new().stream_to::<_, f32>(&mut file, &[3])?;
/// for i in 0..4 {
///     w.push_row(&[i as f32, 0.0, 1.0])?;
/// }
/// w.finish()?;
/// let mut r = NpyReader::new(&file.get_ref()[..])?;
/// assert_eq!(r.shape(), [4, 3]);
/// assert_eq!(r.read_vec::<f32>()?.len(), 12);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamWriter<W: Write + Seek, T: NpyElement> {
    inner: W,
    plan: T::Plan,
    header: Header,
    /// The dtype of one `T` (the header's dtype, unless `T` is a subarray type).
    elem_dtype: DType,
    version: Option<Version>,
    header_start: u64,
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
    fn new(options: &WriteOptions, mut inner: W, row_shape: &[u64]) -> Result<Self, Error> {
        if options.order == Order::Fortran {
            return Err(Error::Layout(
                "a streaming writer grows the first dimension, which is contiguous only in C order"
                    .into(),
            ));
        }
        let (dtype, plan) = options.resolve::<T>(&[])?;
        let mut shape = vec![0];
        shape.extend_from_slice(row_shape);
        let (header, _) = options.header(dtype.clone(), &shape)?;
        let row_len = row_shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::SizeOverflow {
                shape: shape.clone(),
                itemsize: dtype.itemsize(),
            })?;
        let itemsize = usize::try_from(dtype.itemsize()).map_err(|_| Error::SizeOverflow {
            shape: shape.clone(),
            itemsize: dtype.itemsize(),
        })?;
        let header_start = inner.stream_position()?;
        let bytes = header.to_bytes(options.version)?;
        inner.write_all(&bytes)?;
        Ok(StreamWriter {
            inner,
            plan,
            header,
            elem_dtype: dtype,
            version: options.version,
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

    /// Appends one element (rows fill in C order).
    ///
    /// # Errors
    /// [`Error::ValueTooLong`] and I/O errors.
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
            if let (Bulk::Native, Some(bytes)) =
                (bulk_kind::<T>(&self.elem_dtype), T::as_bytes(values))
            {
                self.inner.write_all(bytes)?;
                self.count += values.len() as u64;
                return Ok(());
            }
        }
        values.iter().try_for_each(|v| self.push(v))
    }

    /// Appends one row.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `row` is not one row long; otherwise as
    /// [`StreamWriter::push`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        if row.len() as u64 != self.row_len {
            return Err(Error::LengthMismatch {
                what: "row",
                expected: self.row_len,
                found: row.len() as u64,
            });
        }
        if self.row_len == 0 {
            self.empty_rows += 1;
            return Ok(());
        }
        self.extend_from_slice(row)
    }

    /// Elements written so far.
    pub fn len(&self) -> u64 {
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
    /// [`Error::LengthMismatch`] when the elements do not fill whole rows; I/O errors.
    pub fn finish(mut self) -> Result<W, Error> {
        self.flush_buf()?;
        let rows = if self.row_len == 0 {
            self.empty_rows
        } else {
            if !self.count.is_multiple_of(self.row_len) {
                return Err(Error::LengthMismatch {
                    what: "elements for whole rows",
                    expected: self.count.div_ceil(self.row_len) * self.row_len,
                    found: self.count,
                });
            }
            self.count / self.row_len
        };
        self.header.shape[0] = rows;
        let bytes = self.header.to_bytes(self.version)?;
        if bytes.len() != self.header_bytes {
            // Cannot happen: the growth-axis spaces absorb any u64 row count.
            return Err(Error::Layout(
                "final header does not fit the reserved room".into(),
            ));
        }
        let end = self.inner.stream_position()?;
        self.inner.seek(SeekFrom::Start(self.header_start))?;
        self.inner.write_all(&bytes)?;
        self.inner.seek(SeekFrom::Start(end))?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// A [`StreamWriter`] to a path that appears there only once finished.
#[derive(Debug)]
pub struct PathStreamWriter<T: NpyElement> {
    inner: StreamWriter<AtomicFile, T>,
}

impl<T: NpyElement> PathStreamWriter<T> {
    /// See [`StreamWriter::push`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn push(&mut self, value: &T) -> Result<(), Error> {
        self.inner.push(value)
    }

    /// See [`StreamWriter::extend_from_slice`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), Error> {
        self.inner.extend_from_slice(values)
    }

    /// See [`StreamWriter::push_row`].
    ///
    /// # Errors
    /// As [`StreamWriter::push_row`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        self.inner.push_row(row)
    }

    /// Finishes the file and renames it into place. Dropping the writer instead leaves nothing
    /// under the path (the temporary file is removed).
    ///
    /// # Errors
    /// As [`StreamWriter::finish`].
    pub fn finish(self) -> Result<(), Error> {
        self.inner.finish()?.commit()
    }
}

/// A temporary file beside `target`, renamed over it by [`AtomicFile::commit`]; removed if
/// dropped uncommitted.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    file: BufWriter<tempfile::NamedTempFile>,
    target: PathBuf,
}

impl AtomicFile {
    pub(crate) fn create(target: &Path) -> Result<Self, Error> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".npy-tmp-")
            .tempfile_in(dir)?;
        Ok(AtomicFile {
            file: BufWriter::with_capacity(1 << 16, tmp),
            target: target.to_owned(),
        })
    }

    pub(crate) fn commit(self) -> Result<(), Error> {
        let tmp = self.file.into_inner().map_err(|e| e.into_error())?;
        tmp.as_file().sync_all()?;
        tmp.persist(&self.target).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

/// A streaming writer to a plain (not atomic) file.
pub type FileStreamWriter<T> = StreamWriter<BufWriter<File>, T>;
