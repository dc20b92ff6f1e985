//! One array copied between a `.npy` file and an `.npz` archive: [`convert`].

use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use npy_core::{Header, NpyReader};
use npy_fs::PendingFile;

use crate::{Error, ErrorKind, NpzArchive, NpzWriter};

/// Whether `path` names an `.npz` archive: its extension is `npz`, in any case.
pub(crate) fn is_npz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npz"))
}

/// Copies one array from `input` to `output`, each a `.npy` file or an `.npz` archive (by its
/// extension, in any case): `.npy` → `.npz` writes an archive of one member named by the
/// input's file stem (as `np.savez(out, **{stem: np.load(in)})`), `.npz` → `.npy` writes
/// member `member` of the archive (needed when it holds more than one array), `.npz` →
/// `.npz` an archive of that one member, and `.npy` → `.npy` a copy.
///
/// The array's header is written as `np.save` writes it for the array (the version numpy
/// picks, its padding), so the output is byte-identical to numpy's for the same array; the
/// data is copied as it is, in its byte order and memory order, streamed (memory stays at a
/// few buffers whatever the array's size). An object array's data is a pickle of its own
/// length: it is copied once it decodes (npy-pickle, within
/// `npy_pickle::PickleLimits::default()`'s budget of bytes), since numpy cannot load one that
/// does not; without the feature `pickle` it is refused.
///
/// `output` is written as [`PendingFile`] writes (a temporary file renamed into place once
/// complete); it may be `input`.
///
/// # Errors
/// - [`ErrorKind::MemberOfNpy`] when `member` is given for a `.npy` input, and
///   [`ErrorKind::ChooseMember`] when it is not given for an archive of several arrays;
/// - npy-core's errors of the input's header and its data ([`ErrorKind::Npy`], e.g.
///   `Truncated` for a `.npy` file shorter than its header says), the archive's errors of
///   an `.npz` input, and the output's errors (as [`PendingFile::create`]); each names its
///   path, and the member for an archive;
/// - for an object array, the pickle's error (npy-core's `Pickle`), or
///   [`ErrorKind::NeedsPickle`] without the feature `pickle`.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let npy = dir.path().join("weights.npy");
/// npy_core::write(&npy, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let npz = dir.path().join("weights.npz");
/// npy_npz::convert(&npy, &npz, None)?;
/// let archive = npy_npz::NpzArchive::open(&npz)?;
/// assert_eq!(archive.keys().collect::<Vec<_>>(), ["weights"]);
/// assert_eq!(archive.read::<f32>("weights")?.data(), [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    member: Option<&str>,
) -> Result<(), Error> {
    let (input, output) = (input.as_ref(), output.as_ref());
    let to_npz = is_npz(output);
    if !is_npz(input) {
        if let Some(key) = member {
            return Err(Error::from(ErrorKind::MemberOfNpy {
                key: key.to_owned(),
            })
            .with_path(input));
        }
        let key = input
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let reader = NpyReader::open(input)?;
        let meta = reader.meta().clone();
        let file = reader.into_file().map_err(|e| e.with_path(input))?;
        let len = file
            .metadata()
            .map_err(|e| Error::from(e).with_path(input))?
            .len();
        if !meta.dtype().has_object() {
            meta.parsed_header()
                .check_data_len(len)
                .map_err(|e| e.with_path(input))?;
        }
        let data = BufReader::with_capacity(COPY_BUFFER_BYTES, file);
        return copy(meta.header(), data, (input, None), output, &key, to_npz);
    }
    let archive = NpzArchive::open(input)?;
    let key = archive
        .resolve_key(member)
        .map_err(|e| e.with_path(input))?;
    let reader = archive
        .npy_reader(&key)
        .map_err(|e| e.with_path(input).with_member(&key))?;
    let header = reader.meta().header().clone();
    let from = (input, Some(key.as_str()));
    copy(&header, reader.into_inner(), from, output, &key, to_npz)
}

/// Bytes of the buffers the data is copied through.
const COPY_BUFFER_BYTES: usize = 1 << 20;

/// Writes the array `header` describes, its data read from `data` (the input `from`: its path
/// and member), to `output`: as member `key` of a new archive (`to_npz`), or as a `.npy` file.
/// Errors of the input name the input, errors of the output the output.
fn copy<R: Read>(
    header: &Header,
    data: R,
    from: (&Path, Option<&str>),
    output: &Path,
    key: &str,
    to_npz: bool,
) -> Result<(), Error> {
    let at_input = |e: Error| match from.1 {
        Some(m) => e.with_path(from.0).with_member(m),
        None => e.with_path(from.0),
    };
    let head = header.to_bytes(None).map_err(|e| at_input(e.into()))?;
    let mut data = if header.dtype.has_object() {
        Input::Pickle(io::Cursor::new(pickle(data).map_err(at_input)?))
    } else {
        let n = header.nbytes().map_err(|e| at_input(e.into()))?;
        Input::Exact {
            inner: data.take(n),
            left: n,
            error: None,
        }
    };
    let written = if to_npz {
        NpzWriter::create(output).and_then(|mut npz| {
            npz.add_npy(key, io::Cursor::new(head).chain(&mut data))?;
            data.check()?;
            npz.finish()
        })
    } else {
        let out = |e: io::Error| Error::from(e).with_path(output);
        PendingFile::create(output)
            .map_err(|e| Error::from(e).with_path(output))
            .and_then(|mut file| {
                let mut w = io::BufWriter::with_capacity(COPY_BUFFER_BYTES, &mut file);
                w.write_all(&head).map_err(out)?;
                io::copy(&mut data, &mut w).map_err(out)?;
                w.flush().map_err(out)?;
                drop(w);
                data.check()?;
                file.commit().map_err(|e| Error::from(e).with_path(output))
            })
    };
    match (written, data.take_error()) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(input_error)) => Err(at_input(input_error)),
        (Err(e), None) => Err(e),
    }
}

/// The data of an object array: its pickle, read whole once it decodes (npy-pickle, within
/// [`npy_pickle::PickleLimits::default`]'s budget, which counts the pickle's own bytes):
/// numpy unpickles it to load the array, so one it cannot load (cut short, empty) is refused
/// rather than copied.
#[cfg(feature = "pickle")]
fn pickle<R: Read>(data: R) -> Result<Vec<u8>, Error> {
    let limits = npy_pickle::PickleLimits::default();
    let mut pickle = Vec::new();
    data.take(limits.max_bytes.saturating_add(1))
        .read_to_end(&mut pickle)?;
    npy_pickle::loads_with(&pickle, &limits).map_err(npy_core::Error::from)?;
    Ok(pickle)
}

/// Without the feature `pickle`, an object array is refused: its pickle cannot be checked.
#[cfg(not(feature = "pickle"))]
fn pickle<R: Read>(_: R) -> Result<Vec<u8>, Error> {
    Err(ErrorKind::NeedsPickle.into())
}

/// The input's data, as the output reads it.
enum Input<R> {
    /// An object array's pickle, read and checked.
    Pickle(io::Cursor<Vec<u8>>),
    /// Exactly `left` more bytes of data; the input's own error, when it fails, is kept in
    /// `error` (the writer sees a plain I/O error), so that it names the input.
    Exact {
        inner: io::Take<R>,
        left: u64,
        error: Option<Error>,
    },
}

impl<R: Read> Input<R> {
    /// [`ErrorKind::Npy`] `Truncated` when the data ended before its bytes.
    fn check(&mut self) -> Result<(), Error> {
        match self {
            Input::Exact { left, error, .. } if *left > 0 => {
                let e = Error::from(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the array data ends {left} bytes early"),
                ));
                *error = Some(e);
                Err(Error::from(io::Error::other("the input failed")))
            }
            _ => Ok(()),
        }
    }

    fn take_error(&mut self) -> Option<Error> {
        match self {
            Input::Exact { error, .. } => error.take(),
            Input::Pickle(_) => None,
        }
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Pickle(c) => c.read(buf),
            Input::Exact { inner, left, error } => match inner.read(buf) {
                Ok(n) => {
                    *left -= n as u64;
                    Ok(n)
                }
                Err(e) => {
                    let message = e.to_string();
                    *error = Some(Error::from(e));
                    Err(io::Error::other(message))
                }
            },
        }
    }
}
