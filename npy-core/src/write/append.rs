//! Growing an existing file along its growth axis ([`NpyAppender`], [`append`](fn@crate::append)), and
//! concatenating files ([`concatenate`](fn@crate::write::concatenate)).
//!
//! The growth axis is the one whose data is contiguous at the end of the file: the first in C
//! order, the last in Fortran order. numpy writes every header with room for a growth-axis
//! dimension of [`GROWTH_AXIS_MAX_DIGITS`](crate::format::GROWTH_AXIS_MAX_DIGITS) digits
//! (`_format_impl.py`, `_wrap_header`), so the header of a grown array is exactly as long as
//! the old one and is rewritten in place ([`Header::to_bytes_in_room`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{check_data_len, write_elements, AtomicFile};
use crate::dtype::{DType, SubArray};
use crate::element::{requested, NpyElement};
use crate::error::{Error, ErrorKind, PathContext, Requested};
use crate::format::AsShape;
use crate::header::{Header, HeaderOptions, ParsedHeader};

/// Bytes copied at a time when data moves from file to file (a rewrite, a concatenation).
const COPY_BYTES: usize = 1 << 20;

/// Appends `data` (a block of `shape`, in the file's memory order) to the `.npy` file at
/// `path` along its growth axis: shorthand for [`NpyAppender::open`] then
/// [`NpyAppender::append`].
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
/// let fast = AppendOptions::new().sync(false); // crash-safe against a killed process only
/// # let _ = fast;
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

    /// Whether each append syncs the data to the disk before the header claims it and the
    /// header after (`fdatasync` twice; default `true`): a power loss or an operating-system
    /// crash then leaves the old or the new array. Without it the writes are still ordered,
    /// data first, which is enough when the process alone may die: the kernel keeps what was
    /// written.
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
/// Each append writes the data after the array, then rewrites the header with the grown shape:
/// - **in place** when the new header fits the old one's room: always for files of numpy and
///   of this crate (numpy leaves room for a 21-digit growth dimension), and for other headers
///   whose dict, without that room, still fits. The cost is the data and one header write.
/// - **by rewriting the file** otherwise (a header with no room to spare, from another
///   writer): the header numpy would write, the old data and the new go to a temporary file
///   renamed over the path. That costs a copy of the whole file, once: the new header has
///   numpy's room, so the appends after it are in place.
///
/// **Crash safety.** The data is written (and, with [`AppendOptions::sync`], synced) before
/// the header claims it, so a crash between the two leaves the old array and some trailing
/// bytes, which numpy ignores and the next append overwrites. A rewrite is atomic (the old
/// file or the new, never a mix).
///
/// **Concurrency.** [`NpyAppender::open`] waits for an exclusive advisory lock (`flock` on
/// Unix, `LockFileEx` on Windows) held until the appender is dropped; appenders in other
/// processes wait, and none reads the header before it holds the lock, so concurrent appends
/// each land once. The lock is advisory: writers that do not take it (numpy, `np.save`) are
/// not stopped. After a rewrite the appender holds the lock on the new file; an appender that
/// was waiting on the old one notices the replacement (Unix: device and inode) and opens the
/// new file.
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
    /// I/O errors (opening, locking), header errors,
    /// [`ErrorKind::Unsupported`] for a 0-d array (it has no axis to grow),
    /// [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`] when the file holds less data than
    /// its header claims. Each names the file.
    pub fn open(path: impl AsRef<Path>) -> Result<NpyAppender, Error> {
        AppendOptions::new().open(path)
    }

    fn open_with(path: &Path, options: AppendOptions) -> Result<NpyAppender, Error> {
        let file = open_locked(path)?;
        let parsed = Header::read_with(&mut &file, &HeaderOptions::default())?;
        let header = &parsed.header;
        header.dtype.refuse_object()?;
        if header.shape.is_empty() {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "appending to a 0-d array",
                reason: "it has no axis to grow".into(),
            }));
        }
        let end = data_end(&parsed)?;
        let len = file.metadata()?.len();
        if len < end {
            return Err(truncated(&parsed, len));
        }
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
        growth_axis(&self.parsed.header)
    }

    /// How many appends rewrote the whole file (their header did not fit the old one's room).
    pub fn rewrites(&self) -> u64 {
        self.rewrites
    }

    /// The path the appender writes to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a block of `shape` (every dimension the file's but the growth axis, which may be
    /// any count, 0 included) whose elements `data` holds in the file's memory order.
    ///
    /// `T` is written as the file's dtype, as [`crate::WriteOptions::dtype`] would write it
    /// (byte order swapped as needed, strings at the file's width, records by field name). An
    /// element type that is a subarray (`[f32; 3]`) stands for the trailing dimensions of the
    /// shape, as numpy stores it: `shape` then leaves them out.
    ///
    /// # Errors
    /// [`ErrorKind::AppendMismatch`] when `T` is not the file's dtype (`f64` for `'<f4'`) or the
    /// shape does not continue the file's; [`ErrorKind::LengthMismatch`] when `data` does not
    /// fill `shape`; [`ErrorKind::MissingField`] and [`ErrorKind::FieldType`] for records;
    /// [`ErrorKind::ValueTooLong`] (the file is left as it was); [`ErrorKind::SizeOverflow`];
    /// I/O errors. Each names the file.
    pub fn append<T: NpyElement>(&mut self, data: &[T], shape: impl AsShape) -> Result<(), Error> {
        let shape: &[u64] = &shape.to_dims();
        let path = self.path.clone();
        self.append_typed(data, shape).at_path(&path)
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
        let described = requested::<T>;
        let plan = match T::plan(&dtype) {
            Err(e) if matches!(e.kind(), ErrorKind::TypeMismatch { .. }) => {
                return Err(self.mismatch(described(), &block))
            }
            plan => plan?,
        };
        self.check_block(&block, described)?;
        check_data_len(shape, dtype.itemsize(), data.len())?;
        let added = block[self.axis()];
        self.grow(added, |mut w| write_elements(&mut w, &dtype, &plan, data))
    }

    /// Appends the array of the `.npy` file at `source`, copying its data bytes as they are (in
    /// bounded memory): [`NpyAppender::append_files`] of one file.
    ///
    /// # Errors
    /// As [`NpyAppender::append_files`].
    pub fn append_file(&mut self, source: impl AsRef<Path>) -> Result<(), Error> {
        self.append_files(&[source])
    }

    /// Appends the arrays of the `.npy` files `sources`, in turn, as one append: their data
    /// bytes are copied as they are, in bounded memory (one buffer of 1 MiB), and the header
    /// is rewritten once, after all of them. Each must have the file's dtype, byte order
    /// included, its memory order (or one where both orders are the same bytes), and a shape
    /// that continues the file's along the growth axis. Every header is checked before any
    /// data is copied, so a mismatch leaves the file as it was; a source shorter than its
    /// header claims is found while copying, and the file is then restored as it was.
    ///
    /// # Errors
    /// [`ErrorKind::AppendMismatch`] for another dtype or shape (naming the source);
    /// [`ErrorKind::Unsupported`] for another memory order, or a source whose header changed
    /// between the check and the copy; [`ErrorKind::Truncated`] when a source holds less data
    /// than its header claims (the file is left as it was); header and I/O errors of either
    /// file, each naming its file.
    pub fn append_files(&mut self, sources: &[impl AsRef<Path>]) -> Result<(), Error> {
        self.append_files_with_progress(sources, |_, _| {})
    }

    /// [`NpyAppender::append_files`], calling `progress(done, total)` as the data is copied:
    /// `total` is the data bytes of every source together, `done` the data bytes copied so
    /// far. The first call is `(0, total)`, once every source is checked; each later one has a
    /// larger `done`, one per buffer of at most 1 MiB; the last is `(total, total)`, before the
    /// data is synced and the header rewritten. An error stops the calls. The calls come from
    /// the calling thread, so the hook can drive a progress bar (`npy append` does, on a
    /// terminal). Only the sources' data is counted: when the file's header has no room for
    /// the new shape and the file is rewritten, the copy of its existing data comes before
    /// the first call.
    ///
    /// # Errors
    /// As [`NpyAppender::append_files`].
    ///
    /// # Examples
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("npy-core-append-p-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let (file, more) = (dir.join("grow.npy"), dir.join("more.npy"));
    /// npy_core::write(&file, &[1i32, 2], &[2])?;
    /// npy_core::write(&more, &[3i32, 4, 5], &[3])?;
    /// let mut seen = Vec::new();
    /// npy_core::write::AppendOptions::new()
    ///     .open(&file)?
    ///     .append_files_with_progress(&[&more, &more], |done, total| seen.push((done, total)))?;
    /// assert_eq!(seen.first(), Some(&(0, 24)));
    /// assert_eq!(seen.last(), Some(&(24, 24)));
    /// assert_eq!(npy_core::read::<i32>(&file)?.data(), [1, 2, 3, 4, 5, 3, 4, 5]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn append_files_with_progress(
        &mut self,
        sources: &[impl AsRef<Path>],
        mut progress: impl FnMut(u64, u64),
    ) -> Result<(), Error> {
        let path = self.path.clone();
        let mut checked = Vec::with_capacity(sources.len());
        let mut added = 0u64;
        for source in sources {
            let source = source.as_ref();
            let (_, parsed) = open_source(source)?;
            self.check_source(source, &parsed.header).at_path(&path)?;
            let rows = parsed.header.shape[self.axis()];
            added = added.checked_add(rows).ok_or_else(|| self.overflow())?;
            checked.push((source, parsed.header));
        }
        let total = checked.iter().try_fold(0u64, |sum, (_, header)| {
            header
                .nbytes()
                .ok()
                .and_then(|n| sum.checked_add(n))
                .ok_or_else(|| self.overflow())
        })?;
        let copy = |w: &mut dyn Write| -> Result<(), Error> {
            progress(0, total);
            let mut done = 0u64;
            let mut w = Reporting {
                inner: w,
                done: &mut done,
                total,
                progress: &mut progress,
            };
            for (source, header) in &checked {
                let (mut input, now) = open_source(source)?;
                if now.header != *header {
                    return Err(Error::new(ErrorKind::Unsupported {
                        operation: "appending a file that changes meanwhile",
                        reason: "its header changed after it was checked".into(),
                    })
                    .with_path(source));
                }
                copy_exact(&mut input, &mut w, header.nbytes()?, "array data").at_path(source)?;
            }
            Ok(())
        };
        self.grow(added, copy).at_path(&path)
    }

    /// Checks that the array of `header` (from the file `source`) can be appended as bytes.
    fn check_source(&self, source: &Path, header: &Header) -> Result<(), Error> {
        let own = &self.parsed.header;
        let describe = || Requested::file(header.dtype.clone(), source);
        if header.dtype != own.dtype {
            return Err(self.mismatch(describe(), &header.shape));
        }
        let both_orders =
            !Header::fortran_order_for(&header.shape, crate::format::MemoryOrder::Fortran);
        if header.fortran_order != own.fortran_order && !both_orders {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "appending a file of another memory order",
                reason: format!(
                    "{} is in {} order and the file in {} order; convert it first",
                    source.display(),
                    header.order(),
                    own.order()
                ),
            }));
        }
        self.check_block(&header.shape, describe)
    }

    fn overflow(&self) -> Error {
        Error::new(ErrorKind::SizeOverflow {
            shape: self.parsed.header.shape.clone(),
            itemsize: self.parsed.header.dtype.itemsize(),
        })
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

    /// Checks that a block of `shape` continues the file's shape.
    fn check_block(&self, shape: &[u64], dtype: impl FnOnce() -> Requested) -> Result<(), Error> {
        let own = &self.parsed.header.shape;
        let axis = self.axis();
        let continues = shape.len() == own.len()
            && shape
                .iter()
                .zip(own)
                .enumerate()
                .all(|(i, (a, b))| i == axis || a == b);
        if continues {
            Ok(())
        } else {
            Err(self.mismatch(dtype(), shape))
        }
    }

    /// Grows the growth axis by `added`, `write_data` writing exactly the new data bytes.
    fn grow(
        &mut self,
        added: u64,
        write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut header = self.parsed.header.clone();
        let axis = self.axis();
        header.shape[axis] = header.shape[axis]
            .checked_add(added)
            .ok_or_else(|| self.overflow())?;
        let new_end = data_end(&ParsedHeader {
            header: header.clone(),
            ..self.parsed.clone()
        })?;
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
        let written = write_counted(&mut out, write_data, new_end - self.end);
        if let Err(e) = written {
            // The header still claims the old array; drop the partial data too.
            let _ = self.file.set_len(self.end);
            return Err(e);
        }
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
        let end = data_end(&parsed)?;
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
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Data offset + data bytes of `parsed`.
fn data_end(parsed: &ParsedHeader) -> Result<u64, Error> {
    let nbytes = parsed.header.nbytes()?;
    parsed.data_offset().checked_add(nbytes).ok_or_else(|| {
        Error::new(ErrorKind::SizeOverflow {
            shape: parsed.header.shape.clone(),
            itemsize: parsed.header.dtype.itemsize(),
        })
    })
}

fn truncated(parsed: &ParsedHeader, len: u64) -> Error {
    let offset = parsed.data_offset();
    Error::new(ErrorKind::Truncated {
        what: "array data",
        needed: parsed.header.nbytes().unwrap_or(u64::MAX),
        found: len.saturating_sub(offset),
    })
}

/// Runs `write_data` on `w`, checking that it wrote the `expected` bytes the grown header
/// claims.
fn write_counted(
    w: &mut dyn Write,
    write_data: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    expected: u64,
) -> Result<(), Error> {
    struct Counted<'a> {
        inner: &'a mut dyn Write,
        n: u64,
    }
    impl Write for Counted<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = self.inner.write(buf)?;
            self.n += n as u64;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }
    let mut counted = Counted { inner: w, n: 0 };
    write_data(&mut counted)?;
    counted.flush()?;
    if counted.n != expected {
        return Err(Error::new(ErrorKind::LengthMismatch {
            what: "bytes of appended data",
            expected,
            found: counted.n,
        }));
    }
    Ok(())
}

/// A writer that reports the bytes written through it to a progress hook.
struct Reporting<'a, W: ?Sized, F> {
    inner: &'a mut W,
    done: &'a mut u64,
    total: u64,
    progress: &'a mut F,
}

impl<W: Write + ?Sized, F: FnMut(u64, u64)> Write for Reporting<'_, W, F> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        *self.done += n as u64;
        (self.progress)(*self.done, self.total);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Copies exactly `n` bytes from `src` to `dst` through a buffer of at most [`COPY_BYTES`];
/// [`ErrorKind::Truncated`] (`what`) when `src` ends first.
fn copy_exact(
    src: &mut dyn Read,
    dst: &mut dyn Write,
    n: u64,
    what: &'static str,
) -> Result<(), Error> {
    let cap = usize::try_from(n).map_or(COPY_BYTES, |n| n.min(COPY_BYTES));
    let mut buf = vec![0u8; cap];
    let mut left = n;
    while left > 0 {
        let want = usize::try_from(left).map_or(cap, |l| l.min(cap));
        let got = match src.read(&mut buf[..want]) {
            Ok(0) => {
                return Err(Error::new(ErrorKind::Truncated {
                    what,
                    needed: n,
                    found: n - left,
                }))
            }
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        dst.write_all(&buf[..got])?;
        left -= got as u64;
    }
    Ok(())
}

/// Opens a `.npy` file to copy its data: the file positioned at the data, and its header.
fn open_source(path: &Path) -> Result<(File, ParsedHeader), Error> {
    let open = || -> Result<(File, ParsedHeader), Error> {
        let mut file = npy_fs::open_regular(path)?;
        let parsed = Header::read_with(&mut file, &HeaderOptions::default())?;
        parsed.header.dtype.refuse_object()?;
        file.seek(SeekFrom::Start(parsed.data_offset()))?;
        Ok((file, parsed))
    };
    open().at_path(path)
}

/// The growth axis of `header`: 0 in C order, the last in Fortran order.
fn growth_axis(header: &Header) -> usize {
    if header.fortran_order {
        header.shape.len().saturating_sub(1)
    } else {
        0
    }
}

/// Concatenates the `.npy` files `inputs` along their first axis into `out`, as
/// `np.save(out, np.concatenate([np.load(f) for f in inputs]))` would, streaming the data in
/// bounded memory (one buffer of 1 MiB) and writing `out` atomically (a temporary file renamed
/// over it once complete, so `out` may be one of the inputs).
///
/// Every input must have the first one's dtype (byte order included) and the same dimensions
/// after the first, and hold its data in C order (or an order where both are the same bytes).
/// Returns the header written.
///
/// # Errors
/// [`ErrorKind::Unsupported`] for no inputs, a 0-d input or a Fortran-order one (convert it to
/// C order first: its rows are not contiguous); [`ErrorKind::AppendMismatch`] for another
/// dtype or shape; [`ErrorKind::Truncated`] for an input shorter than its header claims;
/// header and I/O errors, each naming its file.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-concat-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b, out) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("ab.npy"));
/// npy_core::write(&a, &[1i32, 2], &[1, 2])?;
/// npy_core::write(&b, &[3i32, 4, 5, 6], &[2, 2])?;
/// let header = npy_core::write::concatenate(&out, &[&a, &b])?;
/// assert_eq!(header.shape, [3, 2]);
/// assert_eq!(npy_core::read::<i32>(&out)?.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn concatenate(out: impl AsRef<Path>, inputs: &[impl AsRef<Path>]) -> Result<Header, Error> {
    concatenate_with_progress(out, inputs, |_, _| {})
}

/// [`concatenate`](fn@crate::write::concatenate), calling `progress(done, total)` as the data is copied: `total` is the
/// output's data bytes (every input's together), `done` the data bytes written so far. The
/// first call is `(0, total)`, once every header is checked; each later one has a larger
/// `done`, one per buffer of at most 1 MiB; the last is `(total, total)`, before the output is
/// synced and renamed. An error stops the calls. The calls come from the calling thread, so the
/// hook can drive a progress bar (`npy cat` does, on a terminal).
///
/// # Errors
/// As [`concatenate`](fn@crate::write::concatenate).
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-concat-p-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, out) = (dir.join("a.npy"), dir.join("aa.npy"));
/// npy_core::write(&a, &[1i32, 2, 3], &[3])?;
/// let mut seen = Vec::new();
/// npy_core::write::concatenate_with_progress(&out, &[&a, &a], |done, total| seen.push((done, total)))?;
/// assert_eq!(seen.first(), Some(&(0, 24)));
/// assert_eq!(seen.last(), Some(&(24, 24)));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn concatenate_with_progress(
    out: impl AsRef<Path>,
    inputs: &[impl AsRef<Path>],
    mut progress: impl FnMut(u64, u64),
) -> Result<Header, Error> {
    let out = out.as_ref();
    // The output first: an existing one is locked (waiting for an appender) before any input
    // is read, so `cat F F X` during `npy append F` sees the appended rows.
    let mut file = AtomicFile::create(out).at_path(out)?;
    let mut headers = Vec::with_capacity(inputs.len());
    for input in inputs {
        let input = input.as_ref();
        let (_, parsed) = open_source(input)?;
        check_concat(&headers, &parsed.header).at_path(input)?;
        headers.push(parsed.header);
    }
    let Some(first) = headers.first() else {
        return Err(Error::new(ErrorKind::Unsupported {
            operation: "concatenating no files",
            reason: "numpy needs at least one array to concatenate".into(),
        })
        .with_path(out));
    };
    let mut header = Header::new(first.dtype.clone(), first.shape.clone());
    header.shape[0] = headers
        .iter()
        .try_fold(0u64, |sum, h| sum.checked_add(h.shape[0]))
        .ok_or_else(|| {
            Error::new(ErrorKind::SizeOverflow {
                shape: header.shape.clone(),
                itemsize: header.dtype.itemsize(),
            })
        })?;
    let total = header.nbytes().at_path(out)?;
    let write = || -> Result<(), Error> {
        file.write_all(&header.to_bytes(None)?)?;
        progress(0, total);
        let mut done = 0u64;
        for (input, h) in inputs.iter().zip(&headers) {
            let input = input.as_ref();
            let (mut src, _) = open_source(input)?;
            let mut dst = Reporting {
                inner: &mut file,
                done: &mut done,
                total,
                progress: &mut progress,
            };
            copy_exact(&mut src, &mut dst, h.nbytes()?, "array data").at_path(input)?;
        }
        Ok(file.commit()?)
    };
    write().at_path(out)?;
    Ok(header)
}

/// Checks that an array of `next` can follow the arrays of `before` in a concatenation.
fn check_concat(before: &[Header], next: &Header) -> Result<(), Error> {
    if next.shape.is_empty() {
        return Err(Error::new(ErrorKind::Unsupported {
            operation: "concatenating a 0-d array",
            reason: "it has no first axis (numpy refuses it too)".into(),
        }));
    }
    if next.fortran_order {
        return Err(Error::new(ErrorKind::Unsupported {
            operation: "concatenating a Fortran-order array along the first axis",
            reason: "its rows are not contiguous; convert it to C order first (npy convert \
                     --order C)"
                .into(),
        }));
    }
    let Some(first) = before.first() else {
        return Ok(());
    };
    let continues = next.dtype == first.dtype
        && next.shape.len() == first.shape.len()
        && next.shape[1..] == first.shape[1..];
    if continues {
        return Ok(());
    }
    Err(Error::new(ErrorKind::AppendMismatch {
        file_dtype: first.dtype.clone(),
        file_shape: first.shape.clone(),
        appended: Box::new(Requested::dtype(next.dtype.clone())),
        shape: next.shape.clone(),
        axis: 0,
    }))
}
