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
