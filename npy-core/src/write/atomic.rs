//! [`AtomicFile`]: how every path writer of the crate replaces a file, so that an error, a crash
//! or a reader holding the old file (a memory map) never sees a partial one.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;

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

    /// The path the file appears under once committed.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    pub(crate) fn commit(self) -> Result<(), Error> {
        self.persist().map(drop)
    }

    /// The temporary file (to lock it, or set its permissions, before it appears).
    pub(crate) fn file(&self) -> &File {
        self.file.get_ref().as_file()
    }

    /// Writes all of `buf` at byte `offset` of the file (after what is buffered), leaving the
    /// position of sequential writes where it was: the tiles of `convert_file`.
    pub(crate) fn write_all_at(&mut self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        self.file.flush()?;
        let file = self.file.get_ref().as_file();
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
            let mut file = file;
            let here = file.stream_position()?;
            file.seek(SeekFrom::Start(offset))?;
            file.write_all(buf)?;
            file.seek(SeekFrom::Start(here)).map(drop)
        }
    }

    /// [`AtomicFile::commit`], keeping the file open (read and write) and any lock on it.
    pub(crate) fn persist(self) -> Result<File, Error> {
        let tmp = self
            .file
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        tmp.as_file().sync_all()?;
        Ok(tmp.persist(&self.target).map_err(|e| e.error)?)
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
