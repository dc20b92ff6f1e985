//! Inputs given as URLs (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`): the hook that
//! `info`, `header`, `show` and `convert` call before opening a path. Objects are read by ranged
//! GETs (npy-object-store): the header with one, `show`'s summary with a few; stores are
//! configured from object_store's environment variables (`AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`, `AWS_ACCESS_KEY_ID`, …).

use std::ops::Range;
use std::path::{Path, PathBuf};

use npy_core::{header::ParsedHeader, read::Positional, Error, NpyReader, TensorInfo};
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
    BlockingObject::open_url(path.to_str().unwrap_or_default()).map_err(to_error)
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

/// The archive `npz` (just opened) with every member's local and `.npy` headers read in one
/// coalesced read ([`NpzArchive::prefetch_headers`]: a request per run of headers at most
/// 1 MiB apart, within its 16 MiB budget), for the commands that go through every member.
pub(crate) fn prefetched(
    npz: Result<NpzArchive<BlockingObject>, npy_npz::Error>,
) -> Result<NpzArchive<BlockingObject>, npy_npz::Error> {
    let npz = npz?;
    npz.prefetch_headers()?;
    Ok(npz)
}

/// The array at URL `path`, its header read (one GET for every header of up to 64 KiB).
pub(crate) fn source(path: &Path) -> Result<NpyReader<Positional<BlockingObject>>, Error> {
    NpyReader::open_at(open(path)?)
}

/// `npy header`'s input.
pub(crate) fn header(path: &Path) -> Result<ParsedHeader, Error> {
    Ok(source(path)?.parsed_header().clone())
}

/// `npy info`'s input: the summary (named after the URL's file stem, as a path's) and the
/// object's size, from the object opened (`object`).
pub(crate) fn info(path: &Path, object: BlockingObject) -> Result<(TensorInfo, u64), Error> {
    let s = NpyReader::open_at(object)?;
    let name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let info = TensorInfo::from_reader(name, &mut s.head())?;
    Ok((info, s.source_len()))
}

/// The most bytes `convert` downloads of a URL (64 GiB): the bytes its header or directory
/// says the input needs are fetched, never the object's claimed length, and a need beyond this
/// is refused before anything is written (download such an input with the store's own tool
/// and convert the local file).
pub(crate) const DOWNLOAD_BUDGET_BYTES: u64 = 64 << 30;

/// A local copy of a remote input, removed when dropped (and, on Unix, when the process is
/// ended by SIGTERM, SIGINT or SIGHUP).
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

/// The byte ranges of `object` a local copy needs, each within the object: an `.npy` its
/// header and the data the header describes (`data_offset + shape × itemsize`, checked; an
/// object array's pickle has no length there, so the whole object); an `.npz` each member's
/// bytes as the central directory bounds them (its local header, at most two 64 KiB fields
/// more, its compressed bytes, clipped at the next member) and the directory to the end;
/// anything else (Arrow, Parquet, safetensors) the whole object.
fn needed(object: &BlockingObject) -> Result<Vec<Range<u64>>, Error> {
    let size = object.object().size();
    if object.get(0..6).is_ok_and(|m| &m[..] == b"\x93NUMPY") {
        let source = NpyReader::open_at(object.clone())?;
        let parsed = source.parsed_header();
        if parsed.header.dtype.has_object() {
            return Ok(whole(size));
        }
        let end = parsed.data_offset().saturating_add(parsed.header.nbytes()?);
        // A shorter object is copied as it is: the conversion reports the truncation.
        return Ok(whole(end.min(size)));
    }
    if !is_zip(object) {
        return Ok(whole(size));
    }
    let npz = NpzArchive::new(object.clone()).map_err(|e| Error::from(std::io::Error::other(e)))?;
    let directory = npz.directory_offset().min(size);
    let mut starts: Vec<u64> = npz.members().iter().map(|m| m.header_offset).collect();
    starts.sort_unstable();
    let mut spans: Vec<Range<u64>> = npz
        .members()
        .iter()
        .filter(|m| m.header_offset < directory)
        .map(|m| {
            // The local header: 30 bytes, then a name and an extra field of at most 64 KiB
            // each, which only the local header gives.
            let end = m
                .header_offset
                .saturating_add(30 + 2 * 0xFFFF)
                .saturating_add(m.compressed_size);
            let next = starts[starts.partition_point(|&s| s <= m.header_offset)..]
                .first()
                .copied()
                .unwrap_or(directory);
            m.header_offset..end.min(next).min(directory)
        })
        .collect();
    spans.push(directory..size);
    spans.sort_unstable_by_key(|r| r.start);
    // Merged, so that adjacent members are one run of GETs.
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(spans.len());
    for r in spans {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    Ok(merged)
}

/// The one range `0..end`.
fn whole(end: u64) -> Vec<Range<u64>> {
    std::iter::once(0..end).collect()
}

/// Downloads what URL `path`'s input needs ([`needed`]: an `.npy` its header and data, an
/// `.npz` its members and directory, never more than the object's claimed length and at most
/// [`DOWNLOAD_BUDGET_BYTES`]) in GETs of [`DOWNLOAD_PART_BYTES`] into an unnamed temporary
/// file, named in a temporary directory once complete: `convert`'s input. Parts an `.npz`'s
/// directory does not point at stay holes (zeros, no disk blocks). A process killed while
/// downloading leaves nothing behind; the named copy is removed on SIGTERM, SIGINT and SIGHUP.
pub(crate) fn download(path: &Path) -> Result<LocalCopy, Error> {
    let object = open(path)?;
    let spans = needed(&object)?;
    let total = spans
        .iter()
        .try_fold(0u64, |t, r| t.checked_add(r.end - r.start))
        .unwrap_or(u64::MAX);
    if total > DOWNLOAD_BUDGET_BYTES {
        return Err(Error::from(std::io::Error::other(format!(
            "the input needs {total} bytes, over the download budget of {DOWNLOAD_BUDGET_BYTES} \
             bytes (64 GiB): download it with the store's own tool and convert the local file"
        ))));
    }
    let held = (npy_core::__private::FIRST_READ_BYTES as u64).min(object.object().size());
    let dir = tempfile::tempdir()?;
    let name = path
        .file_name()
        .map_or_else(|| "input".into(), std::ffi::OsStr::to_os_string);
    let dest = dir.path().join(name);
    cleanup::remove_on_signal(dir.path(), &dest);
    let mut file = npy_fs::PendingFile::create(&dest)?;
    {
        let at = file.offsets()?;
        for span in spans {
            let mut from = span.start;
            while from < span.end {
                let mut end = span.end.min(from.saturating_add(DOWNLOAD_PART_BYTES));
                if from < held && end > held {
                    // The first GET's bytes, from memory.
                    end = held;
                }
                let bytes = object.get(from..end).map_err(to_error)?;
                at.write_all_at(&bytes, from)?;
                from = end;
            }
        }
    }
    file.commit()?;
    Ok(LocalCopy {
        _dir: dir,
        path: dest,
    })
}

/// The download's copy removed when a signal ends the process: its file unlinked and its
/// directory removed (both async-signal-safe calls), then the signal's default action taken.
#[cfg(unix)]
#[allow(
    unsafe_code,
    reason = "the libc calls of a signal handler and of installing it"
)]
mod cleanup {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::OnceLock;

    /// The copy and its directory, set once (a `convert` has one input).
    static PATHS: OnceLock<(CString, CString)> = OnceLock::new();

    extern "C" fn on_signal(signal: libc::c_int) {
        if let Some((file, dir)) = PATHS.get() {
            // SAFETY: unlink, rmdir, signal and raise are async-signal-safe; the strings are
            // NUL-terminated and live for the process.
            unsafe {
                libc::unlink(file.as_ptr());
                libc::rmdir(dir.as_ptr());
            }
        }
        // SAFETY: as above; the default action (termination) happens once this returns.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    /// Arms the handler for `file` in `dir` (the first call only).
    pub(super) fn remove_on_signal(dir: &Path, file: &Path) {
        let (Ok(d), Ok(f)) = (
            CString::new(dir.as_os_str().as_bytes()),
            CString::new(file.as_os_str().as_bytes()),
        ) else {
            return;
        };
        if PATHS.set((f, d)).is_err() {
            return;
        }
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            // SAFETY: the handler only makes async-signal-safe calls.
            unsafe {
                libc::signal(signal, on_signal as *const () as libc::sighandler_t);
            }
        }
    }
}

#[cfg(not(unix))]
mod cleanup {
    /// Nothing to arm: the copy is removed when dropped.
    pub(super) fn remove_on_signal(_dir: &std::path::Path, _file: &std::path::Path) {}
}
