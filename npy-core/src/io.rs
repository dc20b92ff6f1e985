//! Small I/O helpers shared by the header reader, the data readers and conversion.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};

/// Fills `buf` as far as the input allows; returns how many bytes were read.
pub(crate) fn read_up_to<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<usize, Error> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(n)
}

/// Opens `path` for reading, where it must be a regular file: a FIFO, device, socket or
/// directory is refused at once ([`ErrorKind::NotRegularFile`]), never waited on. Symlinks are
/// followed.
///
/// A FIFO is opened without waiting for a writer (`O_NONBLOCK`, cleared once the file is known
/// to be regular), so the check costs no hang even when the path changes between a look and
/// the open. The readers that need to measure a file or read it at any offset use it
/// ([`crate::NpyReader::open`], memory maps, [`crate::convert_file`], appends, `.npz`
/// archives), and so does the `npy` command for every input it cannot read in one pass.
///
/// # Errors
/// [`ErrorKind::NotRegularFile`] (`role` `"input"`); I/O errors. Neither names the path (the
/// callers add it).
///
/// # Examples
/// ```
/// let err = npy_core::open_regular(std::env::temp_dir()).unwrap_err();
/// assert!(matches!(err.kind(), npy_core::ErrorKind::NotRegularFile { found: "a directory", .. }));
/// ```
pub fn open_regular(path: impl AsRef<Path>) -> Result<File, Error> {
    open_checked(path.as_ref(), OpenOptions::new().read(true), false)
}

/// Opens `path` for reading as [`open_regular`] does, but also accepts a FIFO or a character
/// device, read as a stream (the caller reads it once, front to back): what `npy header`,
/// `npy info` and `npy show` accept. The open never waits for a FIFO's writer: with none, the
/// stream is empty. A directory, block device or socket is refused.
///
/// # Errors
/// As [`open_regular`].
pub fn open_stream(path: impl AsRef<Path>) -> Result<File, Error> {
    open_checked(path.as_ref(), OpenOptions::new().read(true), true)
}

/// Opens `path` read-write where it must be a regular file (an append's target): as
/// [`open_regular`].
pub(crate) fn open_regular_rw(path: &Path) -> Result<File, Error> {
    open_checked(path, OpenOptions::new().read(true).write(true), false)
}

fn open_checked(path: &Path, options: &mut OpenOptions, streams: bool) -> Result<File, Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    let stream = {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            kind.is_fifo() || kind.is_char_device()
        }
        #[cfg(not(unix))]
        false
    };
    if !(kind.is_file() || streams && stream) {
        return Err(Error::new(ErrorKind::NotRegularFile {
            role: "input",
            found: describe_type(kind),
        }));
    }
    #[cfg(unix)]
    {
        // Reads block again as they should (a FIFO's data arrives when it arrives).
        let flags = rustix::fs::fcntl_getfl(&file).map_err(std::io::Error::from)?;
        rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)
            .map_err(std::io::Error::from)?;
    }
    Ok(file)
}

/// What a file of `kind` is, for errors: "a FIFO", "a directory".
pub(crate) fn describe_type(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symlink"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Writes all of `buf` at byte `offset` of `file` (`pwrite` / `seek_write`, retried on
/// interruption), leaving the file's position for sequential writes where it was on Unix and
/// Windows (elsewhere: restored after a seek).
pub(crate) fn write_all_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::write_all_at(file, buf, offset);
    #[cfg(windows)]
    {
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_write(file, buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    buf = &buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        return Ok(());
    }
    #[cfg(not(any(unix, windows)))]
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = file;
        let here = file.stream_position()?;
        file.seek(SeekFrom::Start(offset))?;
        file.write_all(buf)?;
        file.seek(SeekFrom::Start(here)).map(drop)
    }
}

/// A range source: bytes read by position ("give me the bytes at `offset..offset + n`"), the
/// input of every reader that needs more than one pass over its input: headers read before
/// their data, row ranges, parallel bulk reads, conversions and the `.npz` directory.
///
/// Reads take `&self`, so one source serves several threads (or several pending requests of a
/// remote store) at once. Files ([`std::fs::File`], by `pread` / `seek_read`), byte slices,
/// `Vec<u8>`, and references, boxes and `Arc`s of sources implement it; a remote object
/// store implements it in `npy-object-store`. npy-core itself neither blocks on a network nor
/// depends on an async runtime: an implementation decides how a read is served.
///
/// Lengths and offsets are bytes. A read past the end is not an error: it returns fewer
/// bytes (0 at or beyond the end), as `pread` does.
///
/// # Examples
/// ```
/// use npy_core::ReadAt;
/// let bytes: &[u8] = b"\x93NUMPY\x01\x00";
/// let mut magic = [0u8; 6];
/// bytes.read_exact_at(0, &mut magic)?;
/// assert_eq!(&magic, b"\x93NUMPY");
/// assert_eq!(bytes.size()?, 8);
/// assert_eq!(bytes.read_at(6, &mut [0u8; 4])?, 2); // only 2 bytes left
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait ReadAt {
    /// The source's length in bytes.
    ///
    /// # Errors
    /// What the source reports (a file's metadata, a store's `HEAD`).
    fn size(&self) -> std::io::Result<u64>;

    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read, fewer only at the
    /// end of the source (0 at or past it). Implementations retry interrupted reads.
    ///
    /// # Errors
    /// What the source reports.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize>;

    /// Fills `buf` from `offset`.
    ///
    /// # Errors
    /// [`std::io::ErrorKind::UnexpectedEof`] when the source ends before `buf` is full; what
    /// the source reports.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let n = self.read_at(offset, buf)?;
        if n < buf.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "the source ends {} bytes into a read of {} bytes at offset {offset}",
                    n,
                    buf.len()
                ),
            ));
        }
        Ok(())
    }

    /// Reads several ranges (byte offsets, end exclusive), each as far as the source allows.
    /// A remote source overrides it to coalesce the ranges into few requests; the default reads
    /// them one after another.
    ///
    /// # Errors
    /// What the source reports. Memory: the sum of the ranges' lengths, which the caller chose.
    fn read_ranges(&self, ranges: &[std::ops::Range<u64>]) -> std::io::Result<Vec<Vec<u8>>> {
        ranges
            .iter()
            .map(|r| {
                let len = usize::try_from(r.end.saturating_sub(r.start)).map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "a range longer than this platform's address space",
                    )
                })?;
                let mut buf = vec![0u8; len];
                let n = self.read_at(r.start, &mut buf)?;
                buf.truncate(n);
                Ok(buf)
            })
            .collect()
    }
}

impl ReadAt for [u8] {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.len() as u64)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

impl ReadAt for Vec<u8> {
    fn size(&self) -> std::io::Result<u64> {
        self.as_slice().size()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        self.as_slice().read_at(offset, buf)
    }
}

#[cfg(any(unix, windows))]
impl ReadAt for File {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        #[cfg(unix)]
        use std::os::unix::fs::FileExt;
        #[cfg(windows)]
        use std::os::windows::fs::FileExt;
        // No file is longer than i64::MAX bytes (the OS refuses such offsets): past the end.
        if offset > i64::MAX as u64 {
            return Ok(0);
        }
        let mut n = 0;
        while n < buf.len() {
            let at = offset.saturating_add(n as u64);
            #[cfg(unix)]
            let r = FileExt::read_at(self, &mut buf[n..], at);
            #[cfg(windows)]
            let r = FileExt::seek_read(self, &mut buf[n..], at);
            match r {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

/// Elsewhere a positional read is a seek and a read through `&File` (not atomic: concurrent
/// readers of one handle on such platforms must not share it).
#[cfg(not(any(unix, windows)))]
impl ReadAt for File {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::{Seek, SeekFrom};
        let mut file = self;
        file.seek(SeekFrom::Start(offset))?;
        read_up_to(&mut file, buf).map_err(std::io::Error::other)
    }
}

macro_rules! forward_read_at {
    ($($t:ty),*) => {$(
        impl<T: ReadAt + ?Sized> ReadAt for $t {
            fn size(&self) -> std::io::Result<u64> {
                (**self).size()
            }
            fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
                (**self).read_at(offset, buf)
            }
            fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
                (**self).read_exact_at(offset, buf)
            }
            fn read_ranges(
                &self,
                ranges: &[std::ops::Range<u64>],
            ) -> std::io::Result<Vec<Vec<u8>>> {
                (**self).read_ranges(ranges)
            }
        }
    )*};
}
forward_read_at!(&T, Box<T>, std::sync::Arc<T>);

#[cfg(test)]
mod read_at_tests {
    use std::io::Write;

    use super::ReadAt;

    #[test]
    fn slices_and_files_read_the_same_ranges() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        for (offset, len) in [
            (0u64, 0usize),
            (0, 10),
            (9_990, 20),
            (10_000, 5),
            (u64::MAX, 3),
        ] {
            let mut a = vec![0u8; len];
            let mut b = vec![0u8; len];
            let na = bytes.read_at(offset, &mut a).unwrap();
            let nb = file.read_at(offset, &mut b).unwrap();
            let expected = usize::try_from(offset)
                .ok()
                .filter(|&o| o < bytes.len())
                .map_or(0, |o| len.min(bytes.len() - o));
            assert_eq!((na, nb), (expected, expected), "offset {offset}");
            assert_eq!(a[..na], b[..nb]);
            if let Ok(o) = usize::try_from(offset) {
                if expected > 0 {
                    assert_eq!(a[..na], bytes[o..o + na]);
                }
            }
        }
        assert_eq!(file.size().unwrap(), 10_000);
        let err = bytes.read_exact_at(9_995, &mut [0u8; 10]).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let by_ref: &dyn ReadAt = &&file;
        let parts = by_ref.read_ranges(&[0..4, 9_998..10_004]).unwrap();
        assert_eq!(parts, [bytes[0..4].to_vec(), bytes[9_998..].to_vec()]);
    }
}
