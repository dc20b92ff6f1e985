//! URLs in a build without the feature `remote`: recognised by their scheme (the schemes
//! npy-object-store opens), and refused with the flag that reads them. The object types are
//! uninhabited, so the commands' remote branches type-check and are never taken.

use std::convert::Infallible;
use std::path::Path;

use npy_core::{header::ParsedHeader, Error, ReadAt, TensorInfo};
use npy_npz::NpzArchive;

/// What a remote input is refused with: the flag that builds URL reading in.
const NEEDS_REMOTE: &str = "reading URLs needs the feature `remote`, which this build of npy \
     lacks: cargo install npy-cli --features remote (or --features full)";

fn needs_remote() -> Error {
    Error::from(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        NEEDS_REMOTE,
    ))
}

/// A remote object: none exists in this build (its field cannot be made).
#[derive(Debug, Clone)]
pub(crate) struct BlockingObject(Infallible);

impl ReadAt for BlockingObject {
    fn size(&self) -> std::io::Result<u64> {
        match self.0 {}
    }

    fn read_at(&self, _: &mut [u8], _: u64) -> std::io::Result<usize> {
        match self.0 {}
    }
}

/// Whether the command-line argument `path` is a URL: its scheme is one npy-object-store
/// opens (`npy_object_store::is_url`'s list).
pub(crate) fn is_url(path: &Path) -> bool {
    let scheme = path
        .to_str()
        .and_then(|s| s.split_once("://"))
        .map(|(s, _)| s);
    scheme.is_some_and(|s| {
        let s = s.to_ascii_lowercase();
        let known = [
            "s3", "s3a", "gs", "az", "abfs", "abfss", "adl", "azure", "http", "https",
        ];
        known.contains(&s.as_str()) || s == "file" || s == "memory"
    })
}

/// Refused: this build reads no URL.
pub(crate) fn open(_: &Path) -> Result<BlockingObject, Error> {
    Err(needs_remote())
}

pub(crate) fn is_zip(object: &BlockingObject) -> bool {
    match object.0 {}
}

/// Refused: this build reads no URL.
pub(crate) fn archive(_: &Path) -> Result<NpzArchive<BlockingObject>, npy_npz::Error> {
    Err(npy_npz::Error::from(needs_remote()))
}

/// No archive of a URL exists in this build: `npz` as it is.
pub(crate) fn prefetched(
    npz: Result<NpzArchive<BlockingObject>, npy_npz::Error>,
) -> Result<NpzArchive<BlockingObject>, npy_npz::Error> {
    npz
}

/// Refused: this build reads no URL.
pub(crate) fn header(_: &Path) -> Result<ParsedHeader, Error> {
    Err(needs_remote())
}

pub(crate) fn info(_: &Path, object: BlockingObject) -> Result<(TensorInfo, u64), Error> {
    match object.0 {}
}

/// A downloaded copy: none exists in this build.
#[derive(Debug)]
pub(crate) struct LocalCopy(Infallible);

impl LocalCopy {
    pub(crate) fn path(&self) -> &Path {
        match self.0 {}
    }
}

/// Refused: this build reads no URL.
pub(crate) fn download(_: &Path) -> Result<LocalCopy, Error> {
    Err(needs_remote())
}
