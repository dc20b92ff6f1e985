//! Writing archives as `np.savez` / `np.savez_compressed` do, deterministic and, by default,
//! with every stored member's data aligned for in-place views.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use npy_core::{format::AsShape, DynArray, Header, NpyElement, StreamWriter, WriteOptions};
use npy_fs::PendingFile;

use crate::error::{Error, ErrorKind};
use crate::names::{check_key, member_name, positional_key};
use crate::pardeflate::ParallelDeflate;
use crate::zip::{CENTRAL_SIG, END64_SIG, END_SIG, LOCAL_SIG, LOCATOR_SIG, UTF8_FLAG};

/// Where a stored member's bytes start by default: a multiple of 64, so the `.npy` data
/// (at offset 128 of numpy's headers, a multiple of 64 by the format's rule) is too.
pub const DEFAULT_ALIGNMENT: u16 = 64;

/// The largest alignment [`NpzWriter::alignment`] takes, in bytes: its padding (less than the
/// alignment) and the zip64 and alignment fields must fit one extra field of 65,535 bytes.
pub const MAX_ALIGNMENT: u16 = 1 << 15;

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
/// use npy_npz::{Compression, NpzArchive, NpzWriter};
/// # let dir = std::env::temp_dir().join(format!("npy-core-npz-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("model.npz");
/// let mut w = NpzWriter::create(&path)?.compression(Compression::NUMPY_DEFLATED);
/// w.add("weights", &[0.5f32; 12], &[3, 4])?;
/// w.add("bias", &[0.0f32; 4], &[4])?;
/// w.finish()?; // the archive is now at `path`
///
/// let npz = NpzArchive::open(&path)?;
/// assert_eq!(npz.read::<f32>("bias")?.shape(), [4]);
/// # Ok::<(), npy_npz::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "nothing is written until finish() writes the central directory"]
pub struct NpzWriter<W: Write + Seek> {
    out: W,
    /// Where the archive starts in `out` (taken at the first write): offsets in the zip are
    /// from there, as zipfile's are.
    base: Option<u64>,
    /// Where the next member's local header goes, from `base`.
    pos: u64,
    /// The furthest byte written, from `base`: a member that failed may have written past
    /// `pos`, and the directory goes after it, so that the end record stays last.
    high: u64,
    written: Vec<Written>,
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
/// use npy_npz::{NpzArchive, NpzWriter};
/// # let dir = std::env::temp_dir().join(format!("npy-core-npzpath-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("pair.npz");
/// let mut w = NpzWriter::create(&path)?;
/// w.add("x", &[1i64, 2, 3], &[3])?;
/// w.finish()?;
/// assert_eq!(NpzArchive::open(&path)?.read::<i64>("x")?.data(), [1, 2, 3]);
/// # Ok::<(), npy_npz::Error>(())
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
            inner: NpzWriter::new(
                PendingFile::create(path).map_err(|e| Error::from(e).with_path(path))?,
            ),
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
        self.inner
            .add(key, data, shape)
            .map_err(|e| e.with_path(&self.path))
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
        added.map_err(|e| e.with_path(&self.path))
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
        self.inner
            .add_positional(data, shape)
            .map_err(|e| e.with_path(&self.path))
    }

    /// See [`NpzWriter::add_dyn`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_dyn`], naming the archive.
    pub fn add_dyn(&mut self, key: &str, array: &DynArray) -> Result<(), Error> {
        self.inner
            .add_dyn(key, array)
            .map_err(|e| e.with_path(&self.path))
    }

    /// See [`NpzWriter::add_npy`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_npy`], naming the archive.
    pub fn add_npy<R: Read>(&mut self, key: &str, npy: R) -> Result<(), Error> {
        self.inner
            .add_npy(key, npy)
            .map_err(|e| e.with_path(&self.path))
    }

    /// See [`NpzWriter::add_raw`].
    ///
    /// # Errors
    /// As [`NpzWriter::add_raw`], naming the archive.
    pub fn add_raw(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        self.inner
            .add_raw(name, bytes)
            .map_err(|e| e.with_path(&self.path))
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
            .map_err(|e| e.with_path(&self.path))
    }

    /// Writes the central directory and puts the archive at its path (sync, then rename).
    ///
    /// # Errors
    /// As [`NpzWriter::finish`] and [`PendingFile::commit`], naming the archive.
    pub fn finish(self) -> Result<(), Error> {
        Ok(self.finish_pending()?.commit()?)
    }

    /// The two-phase form of [`NpzPathWriter::finish`]: writes the central directory and
    /// returns the complete archive still under its temporary name; nothing is at the path
    /// until [`PendingFile::commit`] (dropping it removes the archive).
    ///
    /// # Errors
    /// As [`NpzWriter::finish`], naming the archive.
    pub fn finish_pending(self) -> Result<PendingFile, Error> {
        self.inner.finish().map_err(|e| e.with_path(&self.path))
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// A writer of stored members, 64-byte aligned, to `w` (from its current position).
    pub fn new(w: W) -> Self {
        NpzWriter {
            out: w,
            base: None,
            pos: 0,
            high: 0,
            written: Vec::new(),
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
    /// use npy_npz::{Compression, NpzArchive, NpzWriter};
    /// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()))
    ///     .compression(Compression::NUMPY_DEFLATED)
    ///     .threads(2);
    /// w.add("x", &vec![1.5f64; 300_000], &[300_000])?; // 2.4 MB: three blocks
    /// let bytes = w.finish()?.into_inner();
    /// let npz = NpzArchive::new(bytes)?;
    /// assert_eq!(npz.read::<f64>("x")?.data()[299_999], 1.5);
    /// # Ok::<(), npy_npz::Error>(())
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

    /// The multiple, in bytes, that stored members' data start at (1: numpy's layout, no
    /// padding), at most [`MAX_ALIGNMENT`] (larger values are taken as it: the padding lives
    /// in a local header's extra field, which holds at most 65,535 bytes). Deflated members
    /// are never padded.
    pub fn alignment(mut self, bytes: u16) -> Self {
        self.alignment = bytes.clamp(1, MAX_ALIGNMENT);
        self
    }

    /// Where the archive starts in the writer, taken once.
    fn base(&mut self) -> Result<u64, Error> {
        if let Some(b) = self.base {
            return Ok(b);
        }
        let b = self.out.stream_position()?;
        self.base = Some(b);
        Ok(b)
    }

    /// Writes the member `name` (the exact zip name) with `body`: its local header, the
    /// body's bytes (stored or deflated), then the local header again with the CRC-32 and
    /// sizes, as zipfile does on a seekable file. A failed body adds nothing: the next member
    /// starts where this one did.
    fn member(
        &mut self,
        name: String,
        body: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.names.contains(&name) {
            return Err(
                Error::from(ErrorKind::DuplicateMember).with_member(crate::names::key_of(&name))
            );
        }
        let base = self.base()?;
        let offset = self.pos;
        let deflated = matches!(self.compression, Compression::Deflated { .. });
        let mut header = LocalHeader {
            name: name.as_bytes(),
            method: if deflated { 8 } else { 0 },
            crc: 0,
            size: 0,
            compressed: 0,
            align: None,
        };
        if !deflated && self.alignment > 1 {
            // The data starts after the header, the zip64 field and the alignment field;
            // pad it to a multiple of `alignment` in the file.
            let align = u64::from(self.alignment);
            let data = base + offset + header.len() + ALIGN_FIELD;
            header.align = Some((self.alignment, ((align - data % align) % align) as u16));
        }
        let result = (|| {
            self.out.seek(SeekFrom::Start(base + offset))?;
            self.out.write_all(&header.bytes())?;
            let data_start = offset + header.len();
            let (size, crc) = match self.compression {
                Compression::Stored => {
                    let mut w = Hashing {
                        out: &mut self.out,
                        crc: crc32fast::Hasher::new(),
                        len: 0,
                    };
                    body(&mut w)?;
                    (w.len, w.crc.finalize())
                }
                Compression::Deflated { level } if self.threads == Some(1) => {
                    let mut w = Hashing {
                        out: flate2::write::DeflateEncoder::new(
                            &mut self.out,
                            flate2::Compression::new(level.min(9)),
                        ),
                        crc: crc32fast::Hasher::new(),
                        len: 0,
                    };
                    body(&mut w)?;
                    let (len, crc) = (w.len, w.crc.finalize());
                    w.out.finish()?;
                    (len, crc)
                }
                Compression::Deflated { level } => {
                    let threads = self.threads.unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, usize::from)
                    });
                    let out = &mut self.out;
                    let mut deflate =
                        ParallelDeflate::new(level, threads, |bytes: &[u8]| out.write_all(bytes));
                    body(&mut deflate)?;
                    let (len, crc) = deflate.finish()?;
                    // The blocks end with sync flushes: an empty final block ends the stream.
                    self.out.write_all(&[0x03, 0x00])?;
                    (len, crc)
                }
            };
            let end = self
                .out
                .stream_position()?
                .checked_sub(base)
                .ok_or_else(|| {
                    io::Error::other("the writer's position moved before the archive's start")
                })?;
            header.crc = crc;
            header.size = size;
            header.compressed = end.saturating_sub(data_start);
            self.out.seek(SeekFrom::Start(base + offset))?;
            self.out.write_all(&header.bytes())?;
            self.out.seek(SeekFrom::Start(base + end))?;
            Ok::<_, Error>(Written {
                name: name.clone().into_bytes(),
                method: header.method,
                crc,
                size,
                compressed: header.compressed,
                offset,
                end,
            })
        })();
        match result {
            Ok(w) => {
                self.pos = w.end;
                self.high = self.high.max(w.end);
                self.written.push(w);
                self.names.insert(name);
                Ok(())
            }
            Err(e) => {
                // What the failed member wrote is past `pos`; `high` keeps the directory
                // after it.
                if let Ok(now) = self.out.stream_position() {
                    self.high = self.high.max(now.saturating_sub(base));
                }
                Err(e)
            }
        }
    }

    /// Adds `data` (C order, `shape` outermost first: `&[2, 3]`, a `&[u64]`, a `&[usize]`
    /// such as ndarray's `a.shape()`) as the member `key.npy`, as `np.savez(f, key=array)`
    /// would write it.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`], [`ErrorKind::DuplicateMember`], and the errors of
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
        self.member(member_name(key)?, |zip| {
            options.write_to(zip, data, shape)?;
            Ok(())
        })
    }

    /// Adds a positional array as `arr_N.npy`, N counting the positional arrays added so
    /// far (`np.savez(f, a, b)` writes `arr_0`, `arr_1`); returns the key.
    ///
    /// # Errors
    /// [`ErrorKind::DuplicateMember`] when a keyword array took the name (numpy: "Cannot use
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

    /// Adds an array of any dtype ([`npy_core::read_dyn`]'s value) as `key.npy`.
    ///
    /// # Errors
    /// As [`NpzWriter::add`] and [`npy_core::dynamic::write_dyn_to`].
    pub fn add_dyn(&mut self, key: &str, array: &DynArray) -> Result<(), Error> {
        self.member(member_name(key)?, |zip| {
            npy_core::dynamic::write_dyn_to(zip, array)?;
            Ok(())
        })
    }

    /// Copies a whole `.npy` stream (a file's bytes) as the member `key.npy`: its header is
    /// read and checked, then exactly the data it describes is copied (to the end of the
    /// stream for an object array, whose pickle has no declared length). Memory is a copy
    /// buffer, whatever the size.
    ///
    /// # Errors
    /// Header errors, [`ErrorKind::EndsEarly`] when the stream ends before its data; as
    /// [`NpzWriter::add`].
    pub fn add_npy<R: Read>(&mut self, key: &str, mut npy: R) -> Result<(), Error> {
        let name = member_name(key)?;
        let parsed = Header::read(&mut npy)?;
        // The header as read, in its version's encoding (latin-1 for 1.0 and 2.0): its text's
        // UTF-8 bytes would not be the HEADER_LEN bytes numpy skips (issue 42, F6).
        let header = parsed.to_bytes()?;
        self.member(name, |zip| {
            zip.write_all(&header)?;
            if parsed.header.dtype.has_object() {
                io::copy(&mut npy, zip)?;
                return Ok(());
            }
            let nbytes = parsed.header.nbytes()?;
            let copied = io::copy(&mut npy.take(nbytes), zip)?;
            if copied != nbytes {
                return Err(Error::from(ErrorKind::EndsEarly {
                    declared: nbytes,
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
    /// [`ErrorKind::InvalidKey`], [`ErrorKind::DuplicateMember`], I/O errors.
    pub fn add_raw(&mut self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        check_key(name)?;
        self.member(name.to_owned(), |zip| Ok(zip.write_all(bytes)?))
    }

    /// A member written row by row, its row count known only at the end: rows of
    /// `row_shape` go to a temporary file (unbounded size, constant memory), and
    /// [`MemberStream::finish`] writes the member with its final header.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidKey`], [`ErrorKind::DuplicateMember`], and as
    /// [`WriteOptions::stream_to`].
    ///
    /// # Examples
    /// ```
    /// use npy_npz::{NpzArchive, NpzWriter};
    /// use npy_core::WriteOptions;
    /// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
    /// let mut rows = w.stream::<f32>("log", &WriteOptions::new(), &[2])?;
    /// for i in 0..5 {
    ///     rows.push_row(&[i as f32, 1.0])?;
    /// }
    /// rows.finish()?;
    /// let bytes = w.finish()?.into_inner();
    /// let npz = NpzArchive::new(bytes)?;
    /// assert_eq!(npz.header("log")?.header.shape, [5, 2]);
    /// # Ok::<(), npy_npz::Error>(())
    /// ```
    pub fn stream<T: NpyElement>(
        &mut self,
        key: &str,
        options: &WriteOptions,
        row_shape: &[u64],
    ) -> Result<MemberStream<'_, W, T>, Error> {
        let name = member_name(key)?;
        if self.names.contains(&name) {
            return Err(
                Error::from(ErrorKind::DuplicateMember).with_member(crate::names::key_of(&name))
            );
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
    pub fn finish(mut self) -> Result<W, Error> {
        let base = self.base()?;
        let start = self.pos.max(self.high);
        let mut dir = Vec::new();
        for w in &self.written {
            central_entry(&mut dir, w);
        }
        let count = self.written.len() as u64;
        let size = dir.len() as u64;
        end_records(&mut dir, count, size, start, base + start + size);
        self.out.seek(SeekFrom::Start(base + start))?;
        self.out.write_all(&dir)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Python's `zipfile.ZIP64_LIMIT`: sizes and offsets above it get zip64 fields in the central
/// directory, as zipfile writes them.
const ZIP64_LIMIT: u64 = (1 << 31) - 1;

/// Bytes of the alignment extra field before its padding (APPNOTE 4.6.11: id, length, the
/// alignment).
const ALIGN_FIELD: u64 = 6;

/// The MS-DOS date of 1980-01-01, the timestamp of every member (deterministic archives).
const DOS_DATE: u16 = (1 << 5) | 1;

/// Version 4.5 (zip64), made on Unix (3), as zipfile writes `force_zip64` members.
const VERSION: u16 = 45;
const MADE_BY: u16 = (3 << 8) | VERSION;

/// `-rw-------`, zipfile's external attributes of a member opened for writing.
const EXTERNAL_ATTR: u32 = 0o600 << 16;

fn flags_of(name: &[u8]) -> u16 {
    if name.is_ascii() {
        0
    } else {
        UTF8_FLAG
    }
}

/// A member's local header as zipfile's `FileHeader(zip64=True)` writes it: the sizes in a
/// zip64 extra field, then (ours) an alignment field padding the data to a multiple.
struct LocalHeader<'a> {
    name: &'a [u8],
    method: u16,
    crc: u32,
    size: u64,
    compressed: u64,
    /// The alignment and the padding bytes after the alignment field.
    align: Option<(u16, u16)>,
}

impl LocalHeader<'_> {
    fn extra_len(&self) -> u64 {
        20 + self
            .align
            .map_or(0, |(_, pad)| ALIGN_FIELD + u64::from(pad))
    }

    fn len(&self) -> u64 {
        30 + self.name.len() as u64 + self.extra_len()
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.len() as usize);
        b.extend_from_slice(&LOCAL_SIG.to_le_bytes());
        for v in [VERSION, flags_of(self.name), self.method, 0, DOS_DATE] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.crc.to_le_bytes());
        b.extend_from_slice(&[0xFF; 8]);
        // names are at most 65,535 bytes (check_key), extra fields at most 20 + 6 + 65,535
        b.extend_from_slice(&(self.name.len() as u16).to_le_bytes());
        b.extend_from_slice(&(self.extra_len() as u16).to_le_bytes());
        b.extend_from_slice(self.name);
        for v in [1u16, 16] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.size.to_le_bytes());
        b.extend_from_slice(&self.compressed.to_le_bytes());
        if let Some((align, pad)) = self.align {
            for v in [0xa11e_u16, 2 + pad, align] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.resize(b.len() + usize::from(pad), 0);
        }
        b
    }
}

/// A member written, for the central directory. Offsets are from the archive's start.
#[derive(Debug)]
struct Written {
    name: Vec<u8>,
    method: u16,
    crc: u32,
    size: u64,
    compressed: u64,
    offset: u64,
    /// Where its data ends.
    end: u64,
}

/// Appends `w`'s central-directory entry as zipfile's `_write_end_record` writes it.
fn central_entry(dir: &mut Vec<u8>, w: &Written) {
    let mut extra = Vec::new();
    let (mut size, mut compressed, mut offset) =
        (w.size as u32, w.compressed as u32, w.offset as u32);
    if w.size > ZIP64_LIMIT || w.compressed > ZIP64_LIMIT {
        extra.push(w.size);
        extra.push(w.compressed);
        size = u32::MAX;
        compressed = u32::MAX;
    }
    if w.offset > ZIP64_LIMIT {
        extra.push(w.offset);
        offset = u32::MAX;
    }
    let extra_len = if extra.is_empty() {
        0
    } else {
        4 + 8 * extra.len()
    };
    dir.extend_from_slice(&CENTRAL_SIG.to_le_bytes());
    for v in [MADE_BY, VERSION, flags_of(&w.name), w.method, 0, DOS_DATE] {
        dir.extend_from_slice(&v.to_le_bytes());
    }
    for v in [w.crc, compressed, size] {
        dir.extend_from_slice(&v.to_le_bytes());
    }
    for v in [w.name.len() as u16, extra_len as u16, 0, 0, 0] {
        dir.extend_from_slice(&v.to_le_bytes());
    }
    dir.extend_from_slice(&EXTERNAL_ATTR.to_le_bytes());
    dir.extend_from_slice(&offset.to_le_bytes());
    dir.extend_from_slice(&w.name);
    if !extra.is_empty() {
        dir.extend_from_slice(&1u16.to_le_bytes());
        dir.extend_from_slice(&((8 * extra.len()) as u16).to_le_bytes());
        for v in extra {
            dir.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Appends the end records after a directory of `count` entries and `size` bytes at
/// `start` (from the archive's start; `zip64_at` is where the zip64 record would be in the
/// file): zip64's record and locator when zipfile writes them, then the end record.
fn end_records(dir: &mut Vec<u8>, count: u64, size: u64, start: u64, zip64_at: u64) {
    let (mut c, mut s, mut o) = (count, size, start);
    if count > 0xFFFF || start > ZIP64_LIMIT || size > ZIP64_LIMIT {
        dir.extend_from_slice(&END64_SIG.to_le_bytes());
        dir.extend_from_slice(&44u64.to_le_bytes());
        for v in [VERSION, VERSION] {
            dir.extend_from_slice(&v.to_le_bytes());
        }
        dir.extend_from_slice(&[0; 8]);
        for v in [count, count, size, start] {
            dir.extend_from_slice(&v.to_le_bytes());
        }
        dir.extend_from_slice(&LOCATOR_SIG.to_le_bytes());
        dir.extend_from_slice(&0u32.to_le_bytes());
        dir.extend_from_slice(&zip64_at.to_le_bytes());
        dir.extend_from_slice(&1u32.to_le_bytes());
        c = c.min(0xFFFF);
        s = s.min(0xFFFF_FFFF);
        o = o.min(0xFFFF_FFFF);
    }
    dir.extend_from_slice(&END_SIG.to_le_bytes());
    for v in [0u16, 0, c as u16, c as u16] {
        dir.extend_from_slice(&v.to_le_bytes());
    }
    for v in [s as u32, o as u32] {
        dir.extend_from_slice(&v.to_le_bytes());
    }
    dir.extend_from_slice(&0u16.to_le_bytes());
}

/// A member's bytes on their way to the archive (or its deflater), CRC-32 and length taken
/// as they pass, in pieces of at most [`PIECE_BYTES`] so that a piece is hashed while in
/// cache.
struct Hashing<W: Write> {
    out: W,
    crc: crc32fast::Hasher,
    len: u64,
}

/// See [`Hashing`]: large enough to amortise the calls, small enough for L2.
const PIECE_BYTES: usize = 256 << 10;

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let piece = &buf[..buf.len().min(PIECE_BYTES)];
        let n = self.out.write(piece)?;
        self.crc.update(&piece[..n]);
        self.len += n as u64;
        Ok(n)
    }
    /// Nothing: a member's bytes are flushed when it ends. A body's `flush` (npy-core's
    /// writers end with one) must not reach the deflater, where it would be a sync flush: 4
    /// bytes zlib's one stream, and so `np.savez_compressed`, does not have.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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
        Ok(self.rows.push(value)?)
    }

    /// See [`StreamWriter::extend_from_slice`].
    ///
    /// # Errors
    /// As [`StreamWriter::push`].
    pub fn extend_from_slice(&mut self, values: &[T]) -> Result<(), Error> {
        Ok(self.rows.extend_from_slice(values)?)
    }

    /// See [`StreamWriter::push_row`].
    ///
    /// # Errors
    /// As [`StreamWriter::push_row`].
    pub fn push_row(&mut self, row: &[T]) -> Result<(), Error> {
        Ok(self.rows.push_row(row)?)
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
