//! Opens of paths that must be regular files (or streams), never waiting on a FIFO; and the
//! positional write the temporary files use.

use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::error::Error;
#[cfg(doc)]
use crate::error::ErrorKind;

/// Opens `path` for reading, where it must be a regular file: a FIFO, device, socket or
/// directory is refused at once ([`ErrorKind::NotRegularFile`]), never waited on. Symlinks are
/// followed.
///
/// A FIFO is opened without waiting for a writer (`O_NONBLOCK`, cleared once the file is known
/// to be regular), so the check costs no hang even when the path changes between a look and
/// the open. The readers that need to measure a file or read it at any offset use it
/// (npy-core's `NpyReader::open`, memory maps, `convert_file`, appends, npy-npz's archives),
/// and so does the `npy` command for every input it cannot read in one pass.
///
/// # Errors
/// [`ErrorKind::NotRegularFile`] (`role` `"input"`); I/O errors. Neither names the path (the
/// callers add it).
///
/// # Examples
/// ```
/// let err = npy_fs::open_regular(std::env::temp_dir()).unwrap_err();
/// assert!(matches!(err.kind(), npy_fs::ErrorKind::NotRegularFile { found: "a directory", .. }));
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
///
/// # Errors
/// As [`open_regular`].
#[doc(hidden)]
pub fn open_regular_rw(path: &Path) -> Result<File, Error> {
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
        return Err(Error::not_regular("input", describe_type(kind)));
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
