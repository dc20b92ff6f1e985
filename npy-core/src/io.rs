//! I/O helpers shared by the readers and conversion: the range source [`ReadAt`] and
//! `read_up_to` (opening files is npy-fs's).

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;

use crate::error::Error;

/// Fills `buf` as far as the input allows; returns how many bytes were read.
pub(crate) fn read_up_to<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<usize, Error> {
    Ok(fill(buf, |rest, _| r.read(rest))?)
}

/// Fills `buf` by calls of `read(the unfilled rest, bytes filled so far)` until one reads 0
/// bytes, retrying interrupted ones; returns how many bytes were read.
fn fill(
    buf: &mut [u8],
    mut read: impl FnMut(&mut [u8], usize) -> io::Result<usize>,
) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read(&mut buf[n..], n) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A range source: bytes read by position (offsets and lengths in bytes), the input of every
/// reader that needs more than one pass: headers read before their data, row ranges, parallel
/// bulk reads, conversions and the `.npz` directory.
///
/// Reads take `&self`, so one source serves several threads (or pending requests of a remote
/// store) at once. Files (by `pread` / `seek_read`), byte slices, `Vec<u8>`, and references,
/// boxes and `Arc`s of sources implement it; `npy-object-store` implements it for a remote
/// store (npy-core neither blocks on a network nor needs an async runtime).
///
/// # Examples
/// ```
/// use npy_core::ReadAt;
/// let bytes: &[u8] = b"\x93NUMPY\x01\x00";
/// let mut magic = [0u8; 6];
/// bytes.read_exact_at(&mut magic, 0)?;
/// assert_eq!(&magic, b"\x93NUMPY");
/// assert_eq!(bytes.size()?, 8);
/// assert_eq!(bytes.read_at(&mut [0u8; 4], 6)?, 2); // only 2 bytes left
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait ReadAt {
    /// The source's length in bytes.
    ///
    /// # Errors
    /// What the source reports (a file's metadata, a store's `HEAD`).
    fn size(&self) -> io::Result<u64>;

    /// Reads up to `buf.len()` bytes at `offset`; returns how many, fewer only at the end of the
    /// source (0 at or past it, as `pread`). Implementations retry interrupted reads.
    ///
    /// # Errors
    /// What the source reports.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    /// Fills `buf` from `offset`.
    ///
    /// # Errors
    /// [`io::ErrorKind::UnexpectedEof`] when the source ends before `buf` is full; what
    /// the source reports.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let n = self.read_at(buf, offset)?;
        if n < buf.len() {
            let len = buf.len();
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the source ends {n} bytes into a read of {len} bytes at offset {offset}"),
            ));
        }
        Ok(())
    }

    /// Reads several ranges, each as far as the source allows: one after another, unless a
    /// remote source overrides it to coalesce them into few requests.
    ///
    /// # Errors
    /// What the source reports. Memory: the sum of the ranges' lengths, which the caller chose.
    fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
        ranges
            .iter()
            .map(|r| {
                let len = usize::try_from(r.end.saturating_sub(r.start)).map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "a range longer than this platform's address space",
                    )
                })?;
                let mut buf = vec![0u8; len];
                let n = self.read_at(&mut buf, r.start)?;
                buf.truncate(n);
                Ok(buf)
            })
            .collect()
    }
}

impl ReadAt for [u8] {
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut rest = usize::try_from(offset).map_or(&[][..], |o| self.get(o..).unwrap_or(&[]));
        rest.read(buf)
    }
}

/// Elsewhere than Unix and Windows a positional read is a seek and a read through `&File`
/// (not atomic: concurrent readers of one handle on such platforms must not share it).
impl ReadAt for File {
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }

    #[cfg(not(any(unix, windows)))]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        use io::{Seek, SeekFrom};
        let mut file = self;
        file.seek(SeekFrom::Start(offset))?;
        read_up_to(&mut file, buf).map_err(io::Error::other)
    }

    #[cfg(any(unix, windows))]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        #[cfg(unix)]
        let pread = std::os::unix::fs::FileExt::read_at;
        #[cfg(windows)]
        let pread = std::os::windows::fs::FileExt::seek_read;
        // No file is longer than i64::MAX bytes (the OS refuses such offsets): past the end.
        if offset > i64::MAX as u64 {
            return Ok(0);
        }
        fill(buf, |rest, n| {
            pread(self, rest, offset.saturating_add(n as u64))
        })
    }
}

/// `ReadAt` of a pointer type, forwarding every method to the source it points to.
macro_rules! forward_read_at {
    ($(impl$(<$p:ident>)? for $t:ty;)*) => {$(
        impl$(<$p: ReadAt + ?Sized>)? ReadAt for $t {
            fn size(&self) -> io::Result<u64> {
                (**self).size()
            }
            fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
                (**self).read_at(buf, offset)
            }
            fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
                (**self).read_exact_at(buf, offset)
            }
            fn read_ranges(&self, ranges: &[Range<u64>]) -> io::Result<Vec<Vec<u8>>> {
                (**self).read_ranges(ranges)
            }
        }
    )*};
}
forward_read_at! {
    impl for Vec<u8>;
    impl<T> for &T;
    impl<T> for Box<T>;
    impl<T> for std::sync::Arc<T>;
}

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
            let na = bytes.read_at(&mut a, offset).unwrap();
            let nb = file.read_at(&mut b, offset).unwrap();
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
        let err = bytes.read_exact_at(&mut [0u8; 10], 9_995).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let by_ref: &dyn ReadAt = &&file;
        let parts = by_ref.read_ranges(&[0..4, 9_998..10_004]).unwrap();
        assert_eq!(parts, [bytes[0..4].to_vec(), bytes[9_998..].to_vec()]);
    }
}
