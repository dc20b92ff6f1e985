//! Inputs given as URLs (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`): the hook that
//! `info`, `header`, `show` and `convert` call before opening a path. Objects are read by ranged
//! GETs (npy-object-store): the header with one, `show`'s summary with a few; stores are
//! configured from object_store's environment variables (`AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`, `AWS_ACCESS_KEY_ID`, …).

use std::io::Write;
use std::path::{Path, PathBuf};

use npy_core::{Error, NpySource, ParsedHeader, TensorInfo};
use npy_npz::NpzArchive;
pub(crate) use npy_object_store::BlockingObject;
use npy_object_store::RemoteError;

/// Bytes of each GET of a download (`convert`'s input): memory stays at this, whatever the
/// object's size.
const DOWNLOAD_PART_BYTES: u64 = 8 << 20;

/// Whether the command-line argument `path` is a URL rather than a local path.
pub(crate) fn is_url(path: &Path) -> bool {
    path.to_str().is_some_and(npy_object_store::is_url)
}

/// The error as the CLI prints it after the URL: the kind's message, not the URL again.
fn to_error(e: RemoteError) -> Error {
    let message = e.kind().to_string();
    let kind = e.into_io().kind();
    Error::from(std::io::Error::new(kind, message))
}

/// The object at URL `path`, its first bytes fetched.
pub(crate) fn open(path: &Path) -> Result<BlockingObject, Error> {
    let url = path.to_str().unwrap_or_default();
    let (store, location) = npy_object_store::store_for_url(url).map_err(to_error)?;
    BlockingObject::open(store, location, url).map_err(to_error)
}

/// Whether the object starts with a zip signature (a local header, or the end record of an
/// empty archive), as `np.load` decides: from the first GET's bytes, no request.
pub(crate) fn is_zip(object: &BlockingObject) -> bool {
    object
        .get(0..4)
        .is_ok_and(|m| &m[..] == b"PK\x03\x04" || &m[..] == b"PK\x05\x06")
}

/// The `.npz` archive at URL `path`: its directory read with one suffix read (and the
/// object's first GET); each member's local header with its `.npy` header in one more.
pub(crate) fn archive(path: &Path) -> Result<NpzArchive<BlockingObject>, npy_npz::Error> {
    let object = open(path).map_err(npy_npz::Error::from)?;
    NpzArchive::new(object)
}

/// The array at URL `path`, its header read (one GET for every header of up to 64 KiB).
pub(crate) fn source(path: &Path) -> Result<NpySource<BlockingObject>, Error> {
    NpySource::open(open(path)?)
}

/// `npy header`'s input.
pub(crate) fn header(path: &Path) -> Result<ParsedHeader, Error> {
    Ok(source(path)?.parsed_header().clone())
}

/// `npy info`'s input: the summary (named after the URL's file stem, as a path's) and the
/// object's size, from the object opened (`object`).
pub(crate) fn info(path: &Path, object: BlockingObject) -> Result<(TensorInfo, u64), Error> {
    let s = NpySource::open(object)?;
    let name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let info = TensorInfo::from_reader(name, &mut s.head())?;
    Ok((info, s.size()))
}

/// A local copy of a remote input, removed when dropped.
#[derive(Debug)]
pub(crate) struct LocalCopy {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl LocalCopy {
    /// The copy, under the URL's file name (so its extension picks the format).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Downloads URL `path` into a temporary directory in parts of [`DOWNLOAD_PART_BYTES`]:
/// `convert`'s input, which reads every byte anyway.
pub(crate) fn download(path: &Path) -> Result<LocalCopy, Error> {
    let object = open(path)?;
    let dir = tempfile::tempdir()?;
    let name = path
        .file_name()
        .map_or_else(|| "input".into(), std::ffi::OsStr::to_os_string);
    let dest = dir.path().join(name);
    let mut file = std::io::BufWriter::new(std::fs::File::create(&dest)?);
    let size = object.object().size();
    let mut at = 0;
    while at < size {
        let end = size.min(at.saturating_add(DOWNLOAD_PART_BYTES));
        let bytes = object.get(at..end).map_err(to_error)?;
        file.write_all(&bytes)?;
        at = end;
    }
    file.into_inner()
        .map_err(std::io::IntoInnerError::into_error)?
        .sync_all()?;
    Ok(LocalCopy {
        _dir: dir,
        path: dest,
    })
}
