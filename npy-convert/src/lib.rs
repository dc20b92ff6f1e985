//! A `.npy` file rewritten with another byte order, memory order (C or Fortran) or format
//! version, values unchanged, for any dtype (records included; object arrays refused).
//!
//! [`convert_file`] reads the input with npy-core and writes the output atomically through
//! npy-fs (a temporary file renamed into place, so the input may be the output). Memory is
//! bounded whatever the file's size: byte order alone is a streaming copy in chunks of 1 MiB
//! (a header of the new version, each element swapped by its dtype's layout: numbers, the
//! code units of `U`, the fields of records at their offsets); a change of memory order moves
//! tiles of at most 8 MiB ([`ConvertOptions::buffer_bytes`]) between positional reads and
//! writes, two buffers overlapping reading and writing.
//!
//! Files are joined through the same streaming copy, their data bytes copied as they are:
//! [`concatenate`] writes numpy's `np.concatenate` of their arrays along the first axis
//! (atomically), and [`append_files`] grows a file an [`npy_core::NpyAppender`] holds along its
//! growth axis (the header rewritten once, after the data).
//!
//! Its own crate since the format crate (npy-core) reads and writes arrays as they are: a
//! user who only reads and writes `.npy` files does not compile the tiled transpose. `npy
//! convert --byte-order/--order/--version` and npy-safetensors (which stores little-endian C
//! order) use it; `npy cat` and `npy append` use the joins.
//!
//! # Examples
//! ```
//! use npy_convert::{convert_file, ConvertOptions};
//! use npy_core::{ByteOrder, MemoryOrder};
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("a.npy");
//! npy_core::write(&path, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
//! let options = ConvertOptions::new().byte_order(ByteOrder::Big).order(MemoryOrder::Fortran);
//! convert_file(&path, &path, &options)?; // in place, atomically
//! let a = npy_core::read::<i32>(&path)?;
//! assert_eq!((a.dtype().to_string().as_str(), a.order()), (">i4", MemoryOrder::Fortran));
//! assert_eq!(a.get(&[1, 2]), Some(&6));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The README's example, compiled (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod join;
mod pipeline;
mod swap;
mod tile;

use std::fs::File;
use std::io::Write;
use std::path::Path;

pub use join::{append_files, append_files_with_progress, concatenate, concatenate_with_progress};
use npy_core::format::{MemoryOrder, Version};
use npy_core::{ByteOrder, Error, ErrorKind, Header, NpyReader, ReadAt};
use npy_fs::AtomicFile;
use pipeline::stream;
use swap::{swap_runs, Swap};
use tile::{source_axes, Tiling, TILE_BYTES};

/// `value` as a `usize`: [`ErrorKind::PlatformLimit`] naming `what` where it does not fit.
fn to_usize(value: u64, what: &'static str) -> Result<usize, Error> {
    usize::try_from(value).map_err(|_| Error::from(ErrorKind::PlatformLimit { what, value }))
}

/// Names `path` in the error of a result, as npy-core's path functions do (the innermost path
/// wins: an output file's error keeps naming it when the input is added).
trait AtPath<T> {
    fn at_path(self, path: &Path) -> Result<T, Error>;
}

impl<T, E: Into<Error>> AtPath<T> for Result<T, E> {
    fn at_path(self, path: &Path) -> Result<T, Error> {
        self.map_err(|e| e.into().with_path(path))
    }
}

/// What [`convert_file`] changes; an option not set keeps the input's setting.
///
/// # Examples
/// ```
/// use npy_convert::ConvertOptions;
/// use npy_core::{ByteOrder, MemoryOrder};
/// let options = ConvertOptions::new()
///     .byte_order(ByteOrder::Big)
///     .order(MemoryOrder::Fortran)
///     .buffer_bytes(4 << 20); // tiles of at most 4 MiB
/// assert_eq!(options.get_order(), Some(MemoryOrder::Fortran));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    byte_order: Option<ByteOrder>,
    order: Option<MemoryOrder>,
    version: Option<Version>,
    buffer_bytes: Option<usize>,
}

impl ConvertOptions {
    /// Options that change nothing: a copy with numpy's header for the same array.
    pub fn new() -> ConvertOptions {
        ConvertOptions::default()
    }

    /// Byte order for every multi-byte scalar ([`ByteOrder::NotApplicable`] keeps each as it
    /// is).
    #[must_use]
    pub fn byte_order(mut self, byte_order: ByteOrder) -> Self {
        self.byte_order = Some(byte_order);
        self
    }

    /// Memory order of the output. As numpy, arrays with fewer than two dimensions longer
    /// than 1 are always written with `fortran_order: False` (both orders are the same bytes).
    #[must_use]
    pub fn order(mut self, order: MemoryOrder) -> Self {
        self.order = Some(order);
        self
    }

    /// Format version of the output (not set: numpy's choice for the new header, the lowest
    /// that holds it).
    #[must_use]
    pub fn version(mut self, version: Version) -> Self {
        self.version = Some(version);
        self
    }

    /// Bytes of each buffer of the conversion (not set: 8 MiB). A memory-order change holds
    /// three buffers of this size (two tiles as read, one as written), a byte-order or version
    /// change two of at most 1 MiB (one read while the other is written); each holds at
    /// least one element. Tiles in memory add at most 64 bytes per run of 4 KiB or more (under
    /// 2 %) against cache conflicts. Smaller buffers mean shorter runs, so more reads and
    /// writes.
    #[must_use]
    pub fn buffer_bytes(mut self, bytes: usize) -> Self {
        self.buffer_bytes = Some(bytes);
        self
    }

    /// The byte order set by [`ConvertOptions::byte_order`], if any.
    pub fn get_byte_order(&self) -> Option<ByteOrder> {
        self.byte_order
    }

    /// The memory order set by [`ConvertOptions::order`], if any.
    pub fn get_order(&self) -> Option<MemoryOrder> {
        self.order
    }

    /// The version set by [`ConvertOptions::version`], if any.
    pub fn get_version(&self) -> Option<Version> {
        self.version
    }

    /// The buffer size set by [`ConvertOptions::buffer_bytes`], if any (bytes).
    pub fn get_buffer_bytes(&self) -> Option<usize> {
        self.buffer_bytes
    }
}

/// Rewrites the `.npy` file `src` as `dst` with the settings in `options`, preserving every
/// value (numpy's `np.save(dst, np.load(src).astype(new_dtype, order=...))`).
///
/// Memory stays bounded for every conversion, whatever the file's size: a byte-order or
/// version change streams the data through two buffers of at most 1 MiB (a second thread
/// reads and swaps one while the other is written), and a memory-order
/// change transposes it tile by tile through three buffers of at most
/// [`ConvertOptions::buffer_bytes`] (8 MiB by default) each, reading the input and writing
/// the output at explicit offsets (a second thread reads the next tile while this one
/// transposes and writes the last). Each buffer holds at least one element, so an itemsize
/// larger than the budget raises it to one element. The output is written atomically
/// (temporary file beside `dst`, synced, then renamed), so `dst` may equal `src`; a failure
/// leaves `dst` as it was.
///
/// Equivalent to [`convert_file_with_progress`] with a hook that does nothing.
///
/// # Errors
/// Header errors, [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`] (the input holds fewer
/// data bytes than its header says), header-writing errors for an explicit version, I/O
/// errors; each names the file it concerns ([`Error::path`]).
///
/// # Examples
/// ```
/// use npy_convert::{convert_file, ConvertOptions};
/// use npy_core::{ByteOrder, MemoryOrder};
/// # let dir = std::env::temp_dir().join(format!("npy-core-convert-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let options = ConvertOptions::new().byte_order(ByteOrder::Big).order(MemoryOrder::Fortran);
/// convert_file(&a, &b, &options)?;
/// let back = npy_core::read::<i32>(&b)?;
/// assert_eq!(back.order(), MemoryOrder::Fortran);
/// assert_eq!(back.data(), [1, 4, 2, 5, 3, 6]);
/// assert_eq!(back.get(&[1, 2]), Some(&6));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn convert_file(
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ConvertOptions,
) -> Result<(), Error> {
    convert_file_with_progress(src, dst, options, |_, _| {})
}

/// [`convert_file`], calling `progress(done, total)` as the data is written: `total` is the
/// array's data bytes (the header's, equal in input and output), `done` the data bytes
/// written so far. The first call is `(0, total)`, each later one has a larger `done`, and
/// the last one, made once every byte is written and before the output is synced and
/// renamed, is `(total, total)`; an error stops the calls. The calls come from the calling
/// thread, one per buffer written (at most 8 MiB apart with the default options), so the
/// hook can drive a progress bar without a clock of its own.
///
/// # Errors
/// As [`convert_file`].
///
/// # Examples
/// ```
/// use npy_convert::{convert_file_with_progress, ConvertOptions};
/// use npy_core::MemoryOrder;
/// # let dir = std::env::temp_dir().join(format!("npy-core-progress-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[0f64; 1000], &[10, 100])?;
/// let options = ConvertOptions::new().order(MemoryOrder::Fortran);
/// let mut seen = Vec::new();
/// convert_file_with_progress(&a, &b, &options, |done, total| seen.push((done, total)))?;
/// assert_eq!(seen.first(), Some(&(0, 8000)));
/// assert_eq!(seen.last(), Some(&(8000, 8000)));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn convert_file_with_progress(
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ConvertOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    convert(src, dst, options, &mut progress).at_path(src)
}

/// [`convert_file`] of an input the caller holds open as `file` (`src` names it in errors):
/// the file is not opened again. It is read from its start at explicit offsets, so its
/// position does not matter (and is not moved).
///
/// # Errors
/// As [`convert_file`].
///
/// # Examples
/// ```
/// use npy_convert::{convert_open_file, ConvertOptions};
/// use npy_core::ByteOrder;
/// # let dir = std::env::temp_dir().join(format!("npy-convert-open-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[1u16, 2, 3], &[3])?;
/// let file = std::fs::File::open(&a)?;
/// convert_open_file(file, &a, &b, &ConvertOptions::new().byte_order(ByteOrder::Big))?;
/// assert_eq!(npy_core::read::<u16>(&b)?.data(), [1, 2, 3]);
/// assert_eq!(npy_core::NpyReader::open(&b)?.header().dtype.to_string(), ">u2");
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn convert_open_file(
    file: File,
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ConvertOptions,
) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    let run = || {
        let out = Output {
            file: AtomicFile::create(dst).at_path(dst)?,
            path: dst,
        };
        convert_open(file, out, options, &mut |_, _| {})
    };
    run().at_path(src)
}

/// The output file, whose errors name its path (the input's errors name the input).
pub(crate) struct Output<'a> {
    file: AtomicFile,
    path: &'a Path,
}

impl Output<'_> {
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::from(e).with_path(self.path))
    }

    pub(crate) fn write_at(&mut self, bytes: &[u8], offset: u64) -> Result<(), Error> {
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| Error::from(e).with_path(self.path))
    }
}

/// The input's data: `nbytes` bytes from byte `offset` of `file`, read at explicit offsets
/// (never from wherever a reader left the file).
pub(crate) struct Input {
    file: File,
    offset: u64,
    pub(crate) nbytes: u64,
}

impl Input {
    /// Fills `buf` with the data bytes from data byte `at`.
    pub(crate) fn read_at(&self, buf: &mut [u8], at: u64) -> Result<(), Error> {
        match self.file.read_exact_at(buf, self.offset + at) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                // The file shrank after its length was checked.
                let len = self.file.metadata()?.len();
                Err(truncated(self.nbytes, len.saturating_sub(self.offset)))
            }
            Err(e) => Err(e.into()),
        }
    }
}

fn truncated(needed: u64, found: u64) -> Error {
    Error::from(ErrorKind::Truncated {
        what: "array data",
        needed,
        found: found.min(needed),
    })
}

fn convert(
    src: &Path,
    dst: &Path,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    // A missing or special input is reported before the output is touched. The input is
    // opened here, once: its header and data are read from this handle (issue 40).
    let mut file = npy_fs::open_regular(src)?;
    // Then the output: an existing one is locked (waiting for an appender), and only then is
    // the input read, so `convert F F` during `npy append F` sees the appended rows. An
    // appender that grew the header renamed a new file over the path while this waited:
    // then the path is opened again, to read that file.
    let out = Output {
        file: AtomicFile::create(dst).at_path(dst)?,
        path: dst,
    };
    if replaced(&file, src) {
        file = npy_fs::open_regular(src)?;
    }
    convert_open(file, out, options, progress)
}

/// Whether `path` no longer names the file `file` is open on (another file was renamed over
/// it). On Unix, by device and inode; elsewhere a file held open is never replaced (Windows
/// does not rename over an open file).
fn replaced(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) != (b.dev(), b.ino()),
            _ => true,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        false
    }
}

/// The conversion of the input open as `file` (read from its start, at explicit offsets)
/// into `out`.
fn convert_open(
    file: File,
    mut out: Output<'_>,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    let (header, data_offset) = {
        // npy-core's positional reader: the header at explicit offsets, the position unmoved.
        let reader = NpyReader::open_at(&file)?;
        (
            reader.header().clone(),
            reader.parsed_header().data_offset(),
        )
    };
    if header.dtype.has_object() {
        return Err(Error::from(ErrorKind::ObjectArray {
            dtype: header.dtype.clone(),
        }));
    }
    let src_order = MemoryOrder::from_fortran_order(header.fortran_order);
    let target_dtype = match options.byte_order {
        Some(o) => header.dtype.with_byte_order(o),
        None => header.dtype.clone(),
    };
    let itemsize = to_usize(header.dtype.itemsize(), "itemsize")?;
    let mut runs = Vec::new();
    if let Some(o) = options
        .byte_order
        .filter(|o| *o != ByteOrder::NotApplicable)
    {
        swap_runs(&header.dtype, 0, o, &mut runs)?;
    }
    let swap = Swap::new(runs, itemsize);
    let fortran_order =
        Header::fortran_order_for(&header.shape, options.order.unwrap_or(src_order));
    let target_order = MemoryOrder::from_fortran_order(fortran_order);
    let out_header = Header {
        dtype: target_dtype,
        fortran_order,
        shape: header.shape.clone(),
    };
    let nbytes = header.nbytes()?;
    let header_bytes = out_header.to_bytes(options.version)?;
    let available = file.metadata()?.len().saturating_sub(data_offset);
    if available < nbytes {
        return Err(truncated(nbytes, available));
    }
    let input = Input {
        file,
        offset: data_offset,
        nbytes,
    };
    out.write(&header_bytes)?;
    let budget = options.buffer_bytes.unwrap_or(TILE_BYTES);
    progress(0, nbytes);
    let axes = source_axes(&header.shape, src_order);
    if target_order != src_order && nbytes > 0 && axes.len() >= 2 {
        let plan = Tiling::new(axes, itemsize, budget);
        plan.run(&input, &swap, &mut out, header_bytes.len() as u64, progress)?;
    } else {
        // Fewer than two axes longer than 1: both orders are the same bytes.
        stream(
            &input,
            itemsize,
            &swap,
            budget,
            &mut |b| out.write(b),
            progress,
        )?;
    }
    out.file.commit().at_path(out.path)
}
