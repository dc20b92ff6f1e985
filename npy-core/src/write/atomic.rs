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
