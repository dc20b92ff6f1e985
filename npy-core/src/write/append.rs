//! Growing an existing file along its growth axis, the one whose data ends the file
//! ([`NpyAppender`], [`append`](fn@crate::append)); npy-convert's whole-file appends use
//! `__private::grow_appender`. numpy leaves every header room for a growth dimension of
//! [`GROWTH_AXIS_MAX_DIGITS`](crate::format::GROWTH_AXIS_MAX_DIGITS) digits (`_format_impl.py`,
//! `_wrap_header`), so a grown header is rewritten in place ([`Header::to_bytes_in_room`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{check_data_len, same_len, size_overflow, write_elements, AtomicFile};
use crate::codec::COPY_CHUNK_BYTES;
use crate::dtype::{DType, SubArray};
use crate::element::{requested, NpyElement};
use crate::error::{Error, ErrorKind, PathContext, Requested};
use crate::format::AsShape;
use crate::header::{Header, ParsedHeader};

/// Appends `data` (a block of `shape`, in the file's memory order) to the `.npy` file at `path`
/// along its growth axis: [`NpyAppender::open`] then [`NpyAppender::append`].
///
/// # Errors
/// As [`NpyAppender::open`] and [`NpyAppender::append`].
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-append-fn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("frames.npy");
/// npy_core::write(&path, &[1.0f32, 2.0, 3.0], &[1, 3])?;
/// npy_core::append(&path, &[4.0f32, 5.0, 6.0, 7.0, 8.0, 9.0], &[2, 3])?;
/// let a = npy_core::read::<f32>(&path)?;
/// assert_eq!(a.shape(), [3, 3]);
/// assert_eq!(a.data()[3..6], [4.0, 5.0, 6.0]);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn append<T: NpyElement>(
    path: impl AsRef<Path>,
    data: &[T],
    shape: impl AsShape,
) -> Result<(), Error> {
    NpyAppender::open(path)?.append(data, shape)
}

/// How an [`NpyAppender`] makes its appends durable.
///
/// # Examples
/// ```
/// use npy_core::write::AppendOptions;
/// let _fast = AppendOptions::new().sync(false); // crash-safe against a killed process only
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendOptions {
    sync: bool,
}

impl Default for AppendOptions {
    fn default() -> Self {
        AppendOptions { sync: true }
    }
}

impl AppendOptions {
    /// The defaults: every append is synced to the disk.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether each append syncs the data to the disk before the header claims it, and the
    /// header after (`fdatasync` twice; default `true`), so a power loss or a system crash
    /// leaves the old or the new array. Without it the writes are still ordered, data first:
    /// enough when only the process may die (the kernel keeps what was written).
    #[must_use]
    pub fn sync(mut self, sync: bool) -> Self {
        self.sync = sync;
        self
    }

    /// Opens the file at `path` for appending, with these options.
    ///
    /// # Errors
    /// As [`NpyAppender::open`].
    pub fn open(&self, path: impl AsRef<Path>) -> Result<NpyAppender, Error> {
        let path = path.as_ref();
        NpyAppender::open_with(path, *self).at_path(path)
    }
}

/// An existing `.npy` file open for appending along its growth axis (the first in C order,
/// the last in Fortran order), holding an exclusive advisory lock on it.
///
/// Each append writes the data after the array, then the header with the grown shape: **in place**
/// when it fits the old header's room (always for numpy's and this crate's files, with room for a
/// 21-digit growth dimension; others when their dict still fits), at the cost of the data and one
/// header write; otherwise **by rewriting the file** once (the header numpy would write, the old
/// data and the new, into a temporary file renamed over the path); later appends are in place.
///
/// **Crash safety.** The data is written (and, with [`AppendOptions::sync`], synced) before
/// the header claims it: a crash between leaves the old array and trailing bytes, which numpy
/// ignores and the next append overwrites. A rewrite is atomic.
///
/// **Concurrency.** [`NpyAppender::open`] waits for an exclusive advisory lock (`flock` on
/// Unix, `LockFileEx` on Windows) held until the appender is dropped, and reads the header only
/// then, so concurrent appends each land once; writers that take no lock (numpy) are not
/// stopped. After a rewrite the appender holds the new file's lock; one waiting on the old file
/// notices the replacement (Unix: device and inode) and opens the new one.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-appender-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("steps.npy");
/// npy_core::write::<f64>(&path, &[], &[0, 2])?;
/// let mut file = npy_core::NpyAppender::open(&path)?;
/// for step in 0..3 {
///     file.append(&[step as f64, 0.5], &[1, 2])?;
/// }
/// assert_eq!(file.shape(), [3, 2]);
/// drop(file); // releases the lock
/// let a = npy_core::read::<f64>(&path)?;
/// assert_eq!(a.data(), [0.0, 0.5, 1.0, 0.5, 2.0, 0.5]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyAppender {
    file: File,
    path: PathBuf,
    parsed: ParsedHeader,
    /// Where the array's data ends: data offset + bytes of data.
    end: u64,
    options: AppendOptions,
    rewrites: u64,
}

impl NpyAppender {
    /// Opens the `.npy` file at `path` for appending with the default [`AppendOptions`],
    /// waiting for its lock.
    ///
    /// # Errors
    /// I/O errors (opening, locking), header errors, [`ErrorKind::Unsupported`] for a 0-d array
    /// (no axis to grow), [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`] when the file
    /// holds less data than its header claims. Each names the file.
    pub fn open(path: impl AsRef<Path>) -> Result<NpyAppender, Error> {
        AppendOptions::new().open(path)
    }

    fn open_with(path: &Path, options: AppendOptions) -> Result<NpyAppender, Error> {
        let file = open_locked(path)?;
        let parsed = Header::read(&mut &file)?;
        parsed.header.dtype.refuse_object()?;
        if parsed.header.shape.is_empty() {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "appending to a 0-d array",
                reason: "it has no axis to grow".into(),
            }));
        }
        let end = data_end(parsed.data_offset(), &parsed.header)?;
        parsed.check_data_len(file.metadata()?.len())?;
        Ok(NpyAppender {
            file,
            path: path.to_owned(),
            parsed,
            end,
            options,
            rewrites: 0,
        })
    }

    /// The file's header as it stands (the shape grows with each append).
    pub fn header(&self) -> &Header {
        &self.parsed.header
    }

    /// The header with its version, length and text, as stored.
    pub fn parsed_header(&self) -> &ParsedHeader {
        &self.parsed
    }

    /// The file's shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.parsed.header.shape
    }

    /// The axis appends grow: 0 in C order, the last in Fortran order.
    pub fn axis(&self) -> usize {
        self.header().order().growth_axis(self.shape().len())
    }

    /// How many appends rewrote the whole file (their header did not fit the old one's room).
    pub fn rewrites(&self) -> u64 {
        self.rewrites
    }

    /// The path the appender writes to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a block of `shape` (the file's dimensions but the growth axis, which may be any
    /// count, 0 included) whose elements `data` holds in the file's memory order, written as
    /// the file's dtype as [`crate::WriteOptions::dtype`] writes them (byte order swapped,
    /// strings at the file's width, records by field name). A subarray element type
    /// (`[f32; 3]`) stands for the shape's trailing dimensions, which `shape` then leaves out.
    ///
    /// # Errors
    /// [`ErrorKind::AppendMismatch`] when `T` is not the file's dtype (`f64` for `'<f4'`) or the
    /// shape does not continue the file's; [`ErrorKind::LengthMismatch`] when `data` does not
    /// fill `shape`; [`ErrorKind::MissingField`] and [`ErrorKind::FieldType`] for records;
    /// [`ErrorKind::ValueTooLong`] (the file is left as it was); [`ErrorKind::SizeOverflow`];
    /// I/O errors. Each names the file.
    pub fn append<T: NpyElement>(&mut self, data: &[T], shape: impl AsShape) -> Result<(), Error> {
        let path = self.path.clone();
        self.append_typed(data, &shape.to_dims()).at_path(&path)
    }

    fn append_typed<T: NpyElement>(&mut self, data: &[T], shape: &[u64]) -> Result<(), Error> {
        let file_dtype = self.parsed.header.dtype.clone();
        let own = T::dtype_for(data);
        let (block, dtype) = match &own {
            DType::SubArray(s) => {
                let (dims, _) = s.flatten();
                let mut block = shape.to_vec();
                block.extend_from_slice(&dims);
                (block, DType::SubArray(SubArray::new(file_dtype, dims)?))
            }
            _ => (shape.to_vec(), file_dtype),
        };
        let plan = match T::plan(&dtype) {
            Err(e) if matches!(e.kind(), ErrorKind::TypeMismatch { .. }) => {
                return Err(self.mismatch(requested::<T>(), &block))
            }
            plan => plan?,
        };
        // The block continues the file's shape: every dimension the file's but the growth axis.
        let (own, axis) = (&self.parsed.header.shape, self.axis());
        let continues = block.len() == own.len()
            && block
                .iter()
                .zip(own)
                .enumerate()
                .all(|(i, (a, b))| i == axis || a == b);
        if !continues {
            return Err(self.mismatch(requested::<T>(), &block));
        }
        check_data_len(shape, dtype.itemsize(), data.len())?;
        let added = block[axis];
        self.grow(added, |mut w| write_elements(&mut w, &dtype, &plan, data))
    }

    fn mismatch(&self, appended: Requested, shape: &[u64]) -> Error {
        Error::new(ErrorKind::AppendMismatch {
            file_dtype: self.parsed.header.dtype.clone(),
            file_shape: self.parsed.header.shape.clone(),
            appended: Box::new(appended),
            shape: shape.to_vec(),
            axis: self.axis(),
        })
    }

    /// Grows the growth axis by `added`, `write_data` writing exactly the new data bytes.
    pub(crate) fn grow(
        &mut self,
        added: u64,
        write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut header = self.parsed.header.clone();
        let axis = self.axis();
        header.shape[axis] = header.shape[axis]
            .checked_add(added)
            .ok_or_else(|| overflow(&self.parsed.header))?;
        let new_end = data_end(self.parsed.data_offset(), &header)?;
        let room = header.to_bytes_in_room(self.parsed.version, self.parsed.header_len)?;
        match room {
            Some(bytes) => self.grow_in_place(&bytes, new_end, write_data),
            None => self.rewrite(&header, new_end, write_data),
        }
    }

    fn grow_in_place(
        &mut self,
        header_bytes: &[u8],
        new_end: u64,
        write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // Bytes after the array are the remains of an append that did not finish: cut them, so
        // the file never holds stale data after the grown array.
        if self.file.metadata()?.len() != self.end {
            self.file.set_len(self.end)?;
        }
        let mut out = &self.file;
        out.seek(SeekFrom::Start(self.end))?;
        write_counted(&mut out, write_data, new_end - self.end).inspect_err(|_| {
            // The header still claims the old array; drop the partial data too.
            let _ = self.file.set_len(self.end);
        })?;
        if self.options.sync {
            // The data reaches the disk before the header that claims it.
            self.file.sync_data()?;
        }
        out.seek(SeekFrom::Start(0))?;
        out.write_all(header_bytes)?;
        if self.options.sync {
            self.file.sync_data()?;
        }
        self.parsed = Header::read(&mut &header_bytes[..])?;
        self.end = new_end;
        Ok(())
    }

    /// Writes the grown array to a temporary file with numpy's header and renames it over the
    /// path, keeping the lock (taken on the new file before it appears).
    fn rewrite(
        &mut self,
        header: &Header,
        new_end: u64,
        write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // This appender holds the path's lock; the new file keeps the old one's mode.
        let mut tmp = AtomicFile::create_locked_by_caller(&self.path)?;
        tmp.file().lock()?;
        let bytes = header.to_bytes(None)?;
        let parsed = Header::read(&mut &bytes[..])?;
        let end = data_end(parsed.data_offset(), &parsed.header)?;
        tmp.write_all(&bytes)?;
        let offset = self.parsed.data_offset();
        let mut old = &self.file;
        old.seek(SeekFrom::Start(offset))?;
        copy_exact(&mut old, &mut tmp, self.end - offset, "array data")?;
        write_counted(&mut tmp, write_data, new_end - self.end)?;
        // From the rename on, the path is the new file, which this appender holds (locked).
        self.file = tmp.persist()?;
        self.parsed = parsed;
        self.end = end;
        self.rewrites += 1;
        if self.options.sync {
            sync_parent(&self.path)?;
        }
        Ok(())
    }
}

/// Opens `path` read-write and waits for its exclusive lock; opens it again when, while this
/// process waited, another appender replaced the file by a rewrite.
fn open_locked(path: &Path) -> Result<File, Error> {
    loop {
        let file = npy_fs::open_regular_rw(path)?;
        file.lock()?;
        if is_file_at(&file, path)? {
            return Ok(file);
        }
    }
}

#[cfg(unix)]
fn is_file_at(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) => Ok(held.dev() == now.dev() && held.ino() == now.ino()),
        // Removed while we waited: opening again reports it.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Windows does not rename over an open file, so a file this process holds is never replaced.
#[cfg(not(unix))]
fn is_file_at(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

/// Makes a rename in `path`'s directory durable (Unix; elsewhere the rename is all there is).
fn sync_parent(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        File::open(dir.unwrap_or(Path::new(".")))?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Where the data of `header` ends when it starts at `offset`.
fn data_end(offset: u64, header: &Header) -> Result<u64, Error> {
    offset
        .checked_add(header.nbytes()?)
        .ok_or_else(|| overflow(header))
}

fn overflow(header: &Header) -> Error {
    size_overflow(&header.shape, header.dtype.itemsize())
}

/// Runs `write_data` on `w`, checking it wrote the `expected` bytes the grown header claims.
fn write_counted<W: Write + Seek>(
    w: &mut W,
    write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    expected: u64,
) -> Result<(), Error> {
    let start = w.stream_position()?;
    write_data(w)?;
    w.flush()?;
    let found = w.stream_position()?.saturating_sub(start);
    same_len("bytes of appended data", expected, found)
}

/// Copies exactly `n` bytes from `src` to `dst` through a buffer of at most [`COPY_CHUNK_BYTES`];
/// [`ErrorKind::Truncated`] (`what`) when `src` ends first.
fn copy_exact(
    src: &mut dyn Read,
    dst: &mut dyn Write,
    n: u64,
    what: &'static str,
) -> Result<(), Error> {
    let cap = usize::try_from(n).map_or(COPY_CHUNK_BYTES, |n| n.min(COPY_CHUNK_BYTES));
    // std's copy from a `BufReader` writes its buffer's fills: steps of `cap` bytes.
    let copied = io::copy(&mut io::BufReader::with_capacity(cap, src.take(n)), dst)?;
    if copied < n {
        return Err(Error::truncated(what, n, copied));
    }
    Ok(())
}
