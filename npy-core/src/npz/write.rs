//! Writing archives as `np.savez` / `np.savez_compressed` do, deterministic and, by default,
//! with every stored member's data aligned for in-place views.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

use super::error::{from_zip, NpzError};
use super::names::{check_key, member_name, positional_key};
use super::pardeflate::ParallelDeflate;
use crate::dynamic::DynArray;
use crate::element::NpyElement;
use crate::error::PathContext;
use crate::error::{Error, ErrorKind};
use crate::format::AsShape;
use crate::header::Header;
use crate::write::{PendingFile, StreamWriter, WriteOptions};

/// Where a stored member's bytes start by default: a multiple of 64, so the `.npy` data
/// (at offset 128 of numpy's headers, a multiple of 64 by the format's rule) is too.
pub const DEFAULT_ALIGNMENT: u16 = 64;

/// How members are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed, as `np.savez` writes (zip method 0).
    Stored,
    /// Deflated at `level` 0–9, as `np.savez_compressed` writes at level 6 (zip method 8).
    Deflated {
        /// zlib's level: 1 fastest, 9 smallest, 6 numpy's (zlib's default).
        level: u32,
    },
}

impl Compression {
    /// numpy's `savez_compressed`: deflate at level 6.
    pub const NUMPY_DEFLATED: Compression = Compression::Deflated { level: 6 };
}

/// Writes an `.npz` archive: `np.savez` (stored) or `np.savez_compressed` (deflated).
///
/// As numpy: a member is named `key + ".npy"` ([`member_name`]), positional arrays `arr_0`,
/// `arr_1`, …; every member has a zip64 local header (numpy's `force_zip64`, so a member may
/// grow past 4 GiB) and the 1980-01-01 timestamp, so the same arrays give the same bytes.
/// Unlike numpy, stored members start at a multiple of [`DEFAULT_ALIGNMENT`] (padding in an
/// APPNOTE 4.6.11 alignment extra field, which zip readers skip), so the archive can be
/// memory-mapped and its arrays viewed in place; [`NpzWriter::alignment`]`(1)` writes numpy's
/// unaligned layout.
///
/// # Examples
/// ```
/// use npy_core::npz::{Compression, NpzArchive, NpzWriter};
/// # let dir = std::env::temp_dir().join(format!("npy-core-npz-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("model.npz");
/// let mut w = NpzWriter::create(&path)?.compression(Compression::NUMPY_DEFLATED);
/// w.add("weights", &[0.5f32; 12], &[3, 4])?;
/// w.add("bias", &[0.0f32; 4], &[4])?;
/// w.finish()?; // the archive is now at `path`
///
/// let mut npz = NpzArchive::open(&path)?;
/// assert_eq!(npz.read::<f32>("bias")?.shape(), [4]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "nothing is written until finish() writes the central directory"]
pub struct NpzWriter<W: Write + Seek> {
    zip: ZipWriter<W>,
    names: HashSet<String>,
    positional: u64,
    compression: Compression,
    alignment: u16,
    /// `None`: blocks on every available core; `Some(1)`: one zlib stream.
    threads: Option<usize>,
}

impl NpzWriter<PendingFile> {
    /// A writer of the archive at `path` ([`NpzPathWriter`]): its `finish()` puts the archive
    /// there. Until then it is a temporary file beside `path`, by [`PendingFile`]'s rules, so
    /// an error or a crash never leaves a partial archive there.
    ///
    /// # Errors
    /// As [`PendingFile::create`].
    pub fn create(path: impl AsRef<Path>) -> Result<NpzPathWriter, Error> {
        NpzPathWriter::create(path)
    }
}

/// An [`NpzWriter`] to a path ([`NpzWriter::create`]): [`NpzPathWriter::finish`] writes the
/// central directory and renames the archive into place.
///
/// Until `finish` returns, the archive is a temporary file beside the path (see
/// [`PendingFile`] for the rules: symlinks followed to their file, anything but a regular
/// file refused, the existing file's lock held, its mode kept). Dropping the writer instead
/// removes it and leaves the path as it was. [`NpzPathWriter::finish_pending`] is the
/// two-phase form, for a caller that commits several files together.
///
/// # Examples
/// ```
/// use npy_core::npz::{NpzArchive, NpzWriter};
/// # let dir = std::env::temp_dir().join(format!("npy-core-npzpath-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("pair.npz");
/// let mut w = NpzWriter::create(&path)?;
/// w.add("x", &[1i64, 2, 3], &[3])?;
/// w.finish()?;
/// assert_eq!(NpzArchive::open(&path)?.read::<i64>("x")?.data(), [1, 2, 3]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "the archive appears under its path only once finish() puts it there"]
pub struct NpzPathWriter {
    inner: NpzWriter<PendingFile>,
    path: PathBuf,
}

impl NpzPathWriter {
    /// See [`NpzWriter::create`].
    ///
    /// # Errors
    /// As [`PendingFile::create`].
    pub fn create(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        Ok(NpzPathWriter {
            inner: NpzWriter::new(PendingFile::create(path)?),
            path: path.to_owned(),
        })
    }

    /// The path the archive appears under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// See [`NpzWriter::threads`].
    pub fn threads(self, threads: usize) -> Self {
        self.map(|w| w.threads(threads))
    }

    /// See [`NpzWriter::compression`].
    pub fn compression(self, compression: Compression) -> Self {
        self.map(|w| w.compression(compression))
    }

    /// See [`NpzWriter::alignment`].
    pub fn alignment(self, bytes: u16) -> Self {
        self.map(|w| w.alignment(bytes))
    }

    fn map(self, f: impl FnOnce(NpzWriter<PendingFile>) -> NpzWriter<PendingFile>) -> Self {
        NpzPathWriter {
            inner: f(self.inner),
            path: self.path,
        }
    }

    /// See [`NpzWriter::add`].
    ///
    /// # Errors
    /// As [`NpzWriter::add`], naming the archive.
    pub fn add<T: NpyElement>(
        &mut self,
        key: &str,
        data: &[T],
        shape: impl AsShape,
    ) -> Result<(), Error> {
        self.inner.add(key, data, shape).at_path(&self.path)
    }

    /// See [`NpzWriter::add_with`].
    ///
    /// # Errors
    /// As [`NpzWriter::add`], naming the archive.
    pub fn add_with<T: NpyElement>(
        &mut self,
        key: &str,
        options: &WriteOptions,
        data: &[T],
        shape: &[u64],
    ) -> Result<(), Error> {
        let added = self.inner.add_with(key, options, data, shape);
        added.at_path(&self.path)
    }

    /// See [`NpzWriter::add_positional`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_positional`], naming the archive.
    pub fn add_positional<T: NpyElement>(
        &mut self,
        data: &[T],
        shape: &[u64],
    ) -> Result<String, Error> {
        self.inner.add_positional(data, shape).at_path(&self.path)
    }

    /// See [`NpzWriter::add_dyn`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_dyn`], naming the archive.
    pub fn add_dyn(&mut self, key: &str, array: &DynArray) -> Result<(), Error> {
        self.inner.add_dyn(key, array).at_path(&self.path)
    }

    /// See [`NpzWriter::add_npy`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_npy`], naming the archive.
    pub fn add_npy<R: Read>(&mut self, key: &str, npy: R) -> Result<(), Error> {
        self.inner.add_npy(key, npy).at_path(&self.path)
    }

    /// See [`NpzWriter::add_raw`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_raw`], naming the archive.
    pub fn add_raw(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        self.inner.add_raw(name, bytes).at_path(&self.path)
    }

    /// See [`NpzWriter::stream`].
    ///
    /// # Errors
    /// As [`NpzWriter::stream`], naming the archive.
    pub fn stream<T: NpyElement>(
        &mut self,
        key: &str,
        options: &WriteOptions,
        row_shape: &[u64],
    ) -> Result<MemberStream<'_, PendingFile, T>, Error> {
        self.inner
            .stream(key, options, row_shape)
            .at_path(&self.path)
    }

    /// Writes the central directory and puts the archive at its path (sync, then rename).
    ///
    /// # Errors
    /// As [`NpzWriter::finish`] and [`PendingFile::commit`], naming the archive.
    pub fn finish(self) -> Result<(), Error> {
        self.finish_pending()?.commit()
    }

    /// The two-phase form of [`NpzPathWriter::finish`]: writes the central directory and
    /// returns the complete archive still under its temporary name; nothing is at the path
    /// until [`PendingFile::commit`] (dropping it removes the archive).
    ///
    /// # Errors
    /// As [`NpzWriter::finish`], naming the archive.
    pub fn finish_pending(self) -> Result<PendingFile, Error> {
        self.inner.finish().at_path(&self.path)
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// A writer of stored members, 64-byte aligned, to `w` (from its current position).
    pub fn new(w: W) -> Self {
        NpzWriter {
            zip: ZipWriter::new(w),
            names: HashSet::new(),
            positional: 0,
            compression: Compression::Stored,
            alignment: DEFAULT_ALIGNMENT,
            threads: None,
        }
    }

    /// How many threads deflate each member.
    ///
    /// With 1, a member is one zlib stream, byte for byte what `np.savez_compressed` writes
    /// at the same level. Otherwise (the default, with [`std::thread::available_parallelism`]
    /// threads, or `threads` above 1), as pigz does, the member's bytes are cut into 1 MiB
    /// blocks deflated on that many threads, each primed with the 32 KiB before it and ended
    /// on a byte boundary (a sync flush), then joined into one deflate stream: any zip reader
    /// inflates it; the size is within a few bytes per MiB of the one-stream size; the bytes
    /// do not depend on the thread count, so the default writes the same archive on every
    /// machine; memory is 2 MiB a thread. Stored members ignore it. 0 is taken as 1.
    ///
    /// # Examples
    /// ```
    /// use npy_core::npz::{Compression, NpzArchive, NpzWriter};
    /// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()))
    ///     .compression(Compression::NUMPY_DEFLATED)
    ///     .threads(2);
    /// w.add("x", &vec![1.5f64; 300_000], &[300_000])?; // 2.4 MB: three blocks
    /// let bytes = w.finish()?.into_inner();
    /// let mut npz = NpzArchive::new(std::io::Cursor::new(bytes))?;
    /// assert_eq!(npz.read::<f64>("x")?.data()[299_999], 1.5);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads.max(1));
        self
    }

    /// How the members added from now on are written.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }

    /// The multiple stored members start at (1: numpy's layout, no padding). Deflated
    /// members are never padded.
    pub fn alignment(mut self, bytes: u16) -> Self {
        self.alignment = bytes.max(1);
        self
    }

    /// Starts the member `name` (the exact zip name).
    fn start(&mut self, name: String) -> Result<(), Error> {
        if self.names.contains(&name) {
            return Err(Error::from(NpzError::DuplicateMember { member: name }));
        }
        let (method, level) = match self.compression {
            Compression::Stored => (CompressionMethod::Stored, None),
            Compression::Deflated { level } => {
                (CompressionMethod::Deflated, Some(i64::from(level.min(9))))
            }
        };
        let mut options = SimpleFileOptions::default()
            .compression_method(method)
            .compression_level(level)
            .last_modified_time(DateTime::default())
            .system(System::Unix)
            .unix_permissions(0o600)
            .large_file(true);
        if method == CompressionMethod::Stored && self.alignment > 1 {
            options = options.with_alignment(self.alignment);
        }
        self.zip
            .start_file(name.as_str(), options)
            .map_err(from_zip)?;
        self.names.insert(name);
        Ok(())
    }

    /// Writes the member `name` with `body`; a failed body removes the member again, so an
    /// error leaves the archive as it was.
    fn member(
        &mut self,
        name: String,
        body: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.start(name.clone())?;
        let result = match self.compression {
            Compression::Deflated { level } if self.threads != Some(1) => {
                self.parallel(level, body)
            }
            _ => body(&mut Pieces(&mut self.zip)),
        };
        if result.is_err() {
            // Best effort: the body's error is the one worth reporting.
            let _ = self.zip.abort_file();
            self.names.remove(&name);
        }
        result
    }

    /// The body of a started deflated member, deflated on [`NpzWriter::threads`] threads:
    /// the compressed bytes go straight to the archive's writer, and the zip writer is told
    /// the CRC-32 and size of what the body wrote.
    #[allow(unsafe_code)] // buys the parallel deflate: the zip crate's only raw path
    fn parallel(
        &mut self,
        level: u32,
        body: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let zip = &mut self.zip;
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let mut deflate = ParallelDeflate::new(level, threads, |bytes: &[u8]| {
            // SAFETY: zip 9.8's contract for `get_mut` is not to corrupt the archive. `start`
            // left the writer at this member's data start, its own deflate encoder fed
            // nothing. We append our deflate blocks there, each ended by a sync flush; when
            // the member is finished (next `start_file` or `finish`), the zip writer finishes
            // its empty encoder, which appends just deflate's empty final block (`03 00`),
            // completing our stream, and takes the compressed size from the stream position.
            // Tests read every such member back through `zipfile` (CRC checked) and ours.
            let w = unsafe { zip.get_mut() };
            w.ok_or_else(|| io::Error::other("the zip writer is closed"))?
                .write_all(bytes)
        });
        body(&mut deflate)?;
        let (len, crc) = deflate.finish()?;
        // SAFETY: a member is started, and `len` and `crc` are the size and CRC-32 of
        // every byte the body wrote, which is what the member's deflate stream holds.
        let told = unsafe { self.zip.set_file_metadata(len, crc) };
        told.map_err(from_zip)
    }

    /// Adds `data` (C order, `shape` outermost first: `&[2, 3]`, a `&[u64]`, a `&[usize]`
    /// such as ndarray's `a.shape()`) as the member `key.npy`, as `np.savez(f, key=array)`
    /// would write it.
    ///
    /// # Errors
    /// [`NpzError::InvalidKey`], [`NpzError::DuplicateMember`], and the errors of
    /// [`WriteOptions::write_to`].
    pub fn add<T: NpyElement>(
        &mut self,
        key: &str,
        data: &[T],
        shape: impl AsShape,
    ) -> Result<(), Error> {
        self.add_with(key, &WriteOptions::new(), data, &shape.to_dims())
    }

    /// [`NpzWriter::add`] with write options (dtype, memory order, byte order, version).
    ///
    /// # Errors
    /// As [`NpzWriter::add`].
    pub fn add_with<T: NpyElement>(
        &mut self,
        key: &str,
        options: &WriteOptions,
        data: &[T],
        shape: &[u64],
    ) -> Result<(), Error> {
        self.member(member_name(key)?, |zip| options.write_to(zip, data, shape))
    }

    /// Adds a positional array as `arr_N.npy`, N counting the positional arrays added so
    /// far (`np.savez(f, a, b)` writes `arr_0`, `arr_1`); returns the key.
    ///
    /// # Errors
    /// [`NpzError::DuplicateMember`] when a keyword array took the name (numpy: "Cannot use
    /// un-named variables and keyword `arr_0`"); as [`NpzWriter::add`].
    pub fn add_positional<T: NpyElement>(
        &mut self,
        data: &[T],
        shape: &[u64],
    ) -> Result<String, Error> {
        let key = positional_key(self.positional);
        self.add(&key, data, shape)?;
        self.positional += 1;
        Ok(key)
    }

    /// Adds an array of any dtype ([`crate::read_dyn`]'s value) as `key.npy`.
    ///
    /// # Errors
    /// As [`NpzWriter::add`] and [`crate::write_dyn_to`].
    pub fn add_dyn(&mut self, key: &str, array: &DynArray) -> Result<(), Error> {
        self.member(member_name(key)?, |zip| {
            crate::dynamic::write_dyn_to(zip, array, None)
        })
    }

    /// Copies a whole `.npy` stream (a file's bytes) as the member `key.npy`: its header is
    /// read and checked, then exactly the data it describes is copied (to the end of the
    /// stream for an object array, whose pickle has no declared length). Memory is a copy
    /// buffer, whatever the size.
    ///
    /// # Errors
    /// Header errors, [`ErrorKind::Truncated`] when the stream ends before its data; as
    /// [`NpzWriter::add`].
    pub fn add_npy<R: Read>(&mut self, key: &str, mut npy: R) -> Result<(), Error> {
        let name = member_name(key)?;
        let parsed = Header::read(&mut npy)?;
        self.member(name, |zip| {
            let (major, minor) = parsed.version.bytes();
            let mut prefix = b"\x93NUMPY".to_vec();
            prefix.extend_from_slice(&[major, minor]);
            let len = parsed.header_len.to_le_bytes();
            prefix.extend_from_slice(&len[..parsed.version.len_field_size() as usize]);
            zip.write_all(&prefix)?;
            zip.write_all(parsed.text.as_bytes())?;
            if parsed.header.dtype.has_object() {
                io::copy(&mut npy, zip)?;
                return Ok(());
            }
            let nbytes = parsed.header.nbytes()?;
            let copied = io::copy(&mut npy.take(nbytes), zip)?;
            if copied != nbytes {
                return Err(Error::new(ErrorKind::Truncated {
                    what: "array data",
                    needed: nbytes,
                    found: copied,
                }));
            }
            Ok(())
        })
    }

    /// Adds a member named exactly `name` holding `bytes` (no `.npy` appended): numpy lists
    /// it and returns it as bytes.
    ///
    /// # Errors
    /// [`NpzError::InvalidKey`], [`NpzError::DuplicateMember`], I/O errors.
    pub fn add_raw(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        check_key(name)?;
        self.member(name.to_owned(), |zip| Ok(zip.write_all(bytes)?))
    }

    /// A member written row by row, its row count known only at the end: rows of
    /// `row_shape` go to a temporary file (unbounded size, constant memory), and
    /// [`MemberStream::finish`] writes the member with its final header.
    ///
    /// # Errors
    /// [`NpzError::InvalidKey`], [`NpzError::DuplicateMember`], and as
    /// [`WriteOptions::stream_to`].
    ///
    /// # Examples
    /// ```
    /// use npy_core::npz::{NpzArchive, NpzWriter};
    /// use npy_core::WriteOptions;
    /// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// let mut rows = w.stream::<f32>("log", &WriteOptions::new(), &[2])?;
    /// for i in 0..5 {
    ///     rows.push_row(&[i as f32, 1.0])?;
    /// }
    /// rows.finish()?;
    /// let bytes = w.finish()?.into_inner();
    /// let mut npz = NpzArchive::new(std::io::Cursor::new(bytes))?;
    /// assert_eq!(npz.header("log")?.header.shape, [5, 2]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn stream<T: NpyElement>(
        &mut self,
        key: &str,
        options: &WriteOptions,
        row_shape: &[u64],
    ) -> Result<MemberStream<'_, W, T>, Error> {
        let name = member_name(key)?;
        if self.names.contains(&name) {
            return Err(Error::from(NpzError::DuplicateMember { member: name }));
        }
        let spool = BufWriter::with_capacity(1 << 16, tempfile::tempfile()?);
        let rows = options.stream_to::<_, T>(spool, row_shape)?;
        Ok(MemberStream {
            archive: self,
            name,
            rows,
        })
    }

    /// Writes the central directory (zip64 records when the archive needs them) and returns
    /// the writer, positioned after the archive. (For an archive written to a path,
    /// [`NpzPathWriter::finish`] also puts it in place.)
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish(self) -> Result<W, Error> {
        self.zip.finish().map_err(from_zip)
    }
}

/// Bytes written to the zip writer in pieces of at most [`PIECE_BYTES`]: the zip writer
/// hashes (CRC-32) what it has just written, and a piece is still in cache then, so a large
/// member is one pass over memory rather than a write pass and a hash pass.
struct Pieces<'a, W: Write + Seek>(&'a mut ZipWriter<W>);

/// See [`Pieces`]: large enough to amortise the calls, small enough for L2.
const PIECE_BYTES: usize = 256 << 10;

impl<W: Write + Seek> Write for Pieces<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(&buf[..buf.len().min(PIECE_BYTES)])
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Rows of one member, written through a temporary file; see [`NpzWriter::stream`].
#[derive(Debug)]
#[must_use = "the member is added only by finish()"]
pub struct MemberStream<'a, W: Write + Seek, T: NpyElement> {
    archive: &'a mut NpzWriter<W>,
    name: String,
    rows: StreamWriter<BufWriter<File>, T>,
}

impl<W: Write + Seek, T: NpyElement> MemberStream<'_, W, T> {
    /// See [`StreamWriter::push`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn push(&mut self, value: &T) -> Result<(), Error> {
        self.rows.push(value)
    }

    /// See [`StreamWriter::extend_from_slice`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), Error> {
        self.rows.extend_from_slice(values)
    }

    /// See [`StreamWriter::push_row`].
    ///
    /// # Errors
    /// As [`StreamWriter::push_row`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        self.rows.push_row(row)
    }

    /// Writes the member: the header with the final row count, then the rows. Dropping the
    /// stream instead adds nothing to the archive.
    ///
    /// # Errors
    /// As [`StreamWriter::finish`]; I/O errors.
    pub fn finish(self) -> Result<(), Error> {
        let mut spool = self
            .rows
            .finish()?
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        spool.seek(SeekFrom::Start(0))?;
        self.archive.member(self.name, |zip| {
            io::copy(&mut spool, zip)?;
            Ok(())
        })
    }
}
