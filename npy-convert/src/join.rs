//! Joining files along an axis, their data bytes copied as they are through [`stream`]:
//! [`concatenate`] into a new file, [`append_files`] onto an open [`NpyAppender`].

use std::fs::File;
use std::io::Write;
use std::path::Path;

use npy_core::__private::{grow_appender, COPY_CHUNK_BYTES};
use npy_core::error::Requested;
use npy_core::header::ParsedHeader;
use npy_core::{Error, ErrorKind, Header, MemoryOrder, NpyAppender};
use npy_fs::AtomicFile;

use crate::pipeline::stream;
use crate::swap::Swap;
use crate::{AtPath, Input};

/// Concatenates the `.npy` files `inputs` along their first axis into `out`, as
/// `np.save(out, np.concatenate([np.load(f) for f in inputs]))` would, streaming the data in
/// bounded memory (two buffers of 1 MiB) and writing `out` atomically (a temporary file
/// renamed over it once complete, so `out` may be one of the inputs). An existing `out` is
/// locked as [`NpyAppender`] locks it before any input is read: a running append finishes
/// first, and its rows are in what is read.
///
/// Every input must have the first one's dtype (byte order included) and the same dimensions
/// after the first, and hold its data in C order (or an order where both are the same bytes).
/// The output's shape is the first input's with the first dimensions summed (rows). Returns the
/// header written.
///
/// # Errors
/// [`ErrorKind::Unsupported`] for no inputs, a 0-d input or a Fortran-order one (convert it to
/// C order first: its rows are not contiguous); [`ErrorKind::AppendMismatch`] for another
/// dtype or shape; [`ErrorKind::ObjectArray`]; [`ErrorKind::SizeOverflow`] when the rows
/// together pass numpy's sizes; [`ErrorKind::Truncated`] for an input shorter than its header
/// claims (`out` is then left as it was); header and I/O errors, each naming its file.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let (a, b, out) = (dir.path().join("a.npy"), dir.path().join("b.npy"), dir.path().join("ab.npy"));
/// npy_core::write(&a, &[1i32, 2], &[1, 2])?;
/// npy_core::write(&b, &[3i32, 4, 5, 6], &[2, 2])?;
/// let header = npy_convert::concatenate(&out, &[&a, &b])?;
/// assert_eq!(header.shape, [3, 2]);
/// assert_eq!(npy_core::read::<i32>(&out)?.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concatenate(out: impl AsRef<Path>, inputs: &[impl AsRef<Path>]) -> Result<Header, Error> {
    concatenate_with_progress(out, inputs, |_, _| {})
}

/// [`concatenate`], calling `progress(done, total)` as the data is copied: `total` is the
/// output's data bytes (every input's together), `done` the data bytes written so far. The
/// first call is `(0, total)`, once every header is checked; each later one has a larger
/// `done`, one per buffer of at most 1 MiB; the last is `(total, total)`, before the output is
/// synced and renamed. An error stops the calls. The calls come from the calling thread, so the
/// hook can drive a progress bar (`npy cat` does, on a terminal).
///
/// # Errors
/// As [`concatenate`].
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let (a, out) = (dir.path().join("a.npy"), dir.path().join("aa.npy"));
/// npy_core::write(&a, &[1i32, 2, 3], &[3])?;
/// let mut seen = Vec::new();
/// npy_convert::concatenate_with_progress(&out, &[&a, &a], |done, total| seen.push((done, total)))?;
/// assert_eq!(seen.first(), Some(&(0, 24)));
/// assert_eq!(seen.last(), Some(&(24, 24)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concatenate_with_progress(
    out: impl AsRef<Path>,
    inputs: &[impl AsRef<Path>],
    mut progress: impl FnMut(u64, u64),
) -> Result<Header, Error> {
    let out = out.as_ref();
    // The output first: an existing one is locked (waiting for an appender) before any input
    // is read, so `cat F F X` during `npy append F` sees the appended rows.
    let mut file = AtomicFile::create(out).at_path(out)?;
    let mut checked: Vec<(&Path, Header)> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let input = input.as_ref();
        let (_, parsed) = open_source(input)?;
        let first = checked.first().map(|(_, h)| h);
        check_concat(first, &parsed.header).at_path(input)?;
        checked.push((input, parsed.header));
    }
    let Some((_, first)) = checked.first() else {
        return Err(Error::from(ErrorKind::Unsupported {
            operation: "concatenating no files",
            reason: "numpy needs at least one array to concatenate".into(),
        })
        .with_path(out));
    };
    let mut header = Header::new(first.dtype.clone(), first.shape.clone());
    header.shape[0] = checked
        .iter()
        .try_fold(0u64, |sum, (_, h)| sum.checked_add(h.shape[0]))
        .ok_or_else(|| overflow(&header))?;
    let total = header.nbytes().at_path(out)?;
    let write = || -> Result<(), Error> {
        file.write_all(&header.to_bytes(None)?)?;
        // A write error names the output (the innermost path wins over the source's).
        let mut write = |b: &[u8]| file.write_all(b).map_err(|e| Error::from(e).with_path(out));
        copy_sources(&checked, false, &mut write, total, &mut progress)?;
        Ok(file.commit()?)
    };
    write().at_path(out)?;
    Ok(header)
}

/// Checks that an array of `next` can follow the arrays of a concatenation whose first is
/// `first`.
fn check_concat(first: Option<&Header>, next: &Header) -> Result<(), Error> {
    if next.shape.is_empty() {
        return Err(Error::from(ErrorKind::Unsupported {
            operation: "concatenating a 0-d array",
            reason: "it has no first axis (numpy refuses it too)".into(),
        }));
    }
    if next.fortran_order {
        return Err(Error::from(ErrorKind::Unsupported {
            operation: "concatenating a Fortran-order array along the first axis",
            reason: "its rows are not contiguous; convert it to C order first (npy convert \
                     --order C)"
                .into(),
        }));
    }
    let Some(first) = first else {
        return Ok(());
    };
    let continues = next.dtype == first.dtype
        && next.shape.len() == first.shape.len()
        && next.shape[1..] == first.shape[1..];
    if continues {
        return Ok(());
    }
    Err(Error::from(ErrorKind::AppendMismatch {
        file_dtype: first.dtype.clone(),
        file_shape: first.shape.clone(),
        appended: Box::new(Requested::dtype(next.dtype.clone())),
        shape: next.shape.clone(),
        axis: 0,
    }))
}

/// Appends the arrays of the `.npy` files `sources`, in turn, to the file `appender` holds, as
/// one append along its growth axis (the first in C order, the last in Fortran order): their
/// data bytes are copied as they are, in bounded memory (two buffers of 1 MiB), and the header
/// is rewritten once, after all of them (in place, or by an atomic rewrite when it has no room,
/// as [`NpyAppender::append`] does; the appender's lock is held throughout). Each source must
/// have the file's dtype, byte order included, its memory order (or one where both orders are
/// the same bytes), and a shape that continues the file's: every dimension the file's but the
/// growth axis, which grows by the sources' counts together. Every header is checked before
/// any data is copied, so a mismatch leaves the file as it was; a source shorter than its
/// header claims is found while copying, and the file is then restored as it was.
///
/// Equivalent to [`append_files_with_progress`] with a hook that does nothing.
///
/// # Errors
/// [`ErrorKind::AppendMismatch`] for another dtype or shape (naming the source);
/// [`ErrorKind::Unsupported`] for another memory order, or a source whose header changed
/// between the check and the copy; [`ErrorKind::SizeOverflow`] when the grown shape passes
/// numpy's sizes; [`ErrorKind::Truncated`] when a source holds less data than its header
/// claims (the file is left as it was); header and I/O errors of either file, each naming its
/// file.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let (file, more) = (dir.path().join("grow.npy"), dir.path().join("more.npy"));
/// npy_core::write(&file, &[1i32, 2], &[1, 2])?;
/// npy_core::write(&more, &[3i32, 4, 5, 6], &[2, 2])?;
/// let mut appender = npy_core::NpyAppender::open(&file)?;
/// npy_convert::append_files(&mut appender, &[&more])?;
/// assert_eq!(appender.shape(), [3, 2]);
/// drop(appender); // releases the lock
/// assert_eq!(npy_core::read::<i32>(&file)?.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn append_files(appender: &mut NpyAppender, sources: &[impl AsRef<Path>]) -> Result<(), Error> {
    append_files_with_progress(appender, sources, |_, _| {})
}

/// [`append_files`], calling `progress(done, total)` as the data is copied: `total` is the
/// data bytes of every source together, `done` the data bytes copied so far. The first call
/// is `(0, total)`, once every source is checked; each later one has a larger `done`, one per
/// buffer of at most 1 MiB; the last is `(total, total)`, before the data is synced and the
/// header rewritten. An error stops the calls. The calls come from the calling thread, so the
/// hook can drive a progress bar (`npy append` does, on a terminal). Only the sources' data is
/// counted: when the file's header has no room for the new shape and the file is rewritten,
/// the copy of its existing data comes before the first call.
///
/// # Errors
/// As [`append_files`].
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let (file, more) = (dir.path().join("grow.npy"), dir.path().join("more.npy"));
/// npy_core::write(&file, &[1i32, 2], &[2])?;
/// npy_core::write(&more, &[3i32, 4, 5], &[3])?;
/// let mut seen = Vec::new();
/// let mut appender = npy_core::write::AppendOptions::new().sync(false).open(&file)?;
/// npy_convert::append_files_with_progress(&mut appender, &[&more, &more], |done, total| {
///     seen.push((done, total));
/// })?;
/// drop(appender);
/// assert_eq!(seen.first(), Some(&(0, 24)));
/// assert_eq!(seen.last(), Some(&(24, 24)));
/// assert_eq!(npy_core::read::<i32>(&file)?.data(), [1, 2, 3, 4, 5, 3, 4, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn append_files_with_progress(
    appender: &mut NpyAppender,
    sources: &[impl AsRef<Path>],
    mut progress: impl FnMut(u64, u64),
) -> Result<(), Error> {
    let path = appender.path().to_owned();
    let mut checked = Vec::with_capacity(sources.len());
    let mut added = 0u64;
    for source in sources {
        let source = source.as_ref();
        let (_, parsed) = open_source(source)?;
        check_source(appender, source, &parsed.header).at_path(&path)?;
        let rows = parsed.header.shape[appender.axis()];
        added = added
            .checked_add(rows)
            .ok_or_else(|| overflow(appender.header()))?;
        checked.push((source, parsed.header));
    }
    let total = checked.iter().try_fold(0u64, |sum, (_, header)| {
        header
            .nbytes()
            .ok()
            .and_then(|n| sum.checked_add(n))
            .ok_or_else(|| overflow(appender.header()))
    })?;
    let copy = |w: &mut dyn Write| {
        copy_sources(
            &checked,
            true,
            // A write error names the file appended to, not the source being copied.
            &mut |b| w.write_all(b).map_err(|e| Error::from(e).with_path(&path)),
            total,
            &mut progress,
        )
    };
    grow_appender(appender, added, copy).at_path(&path)
}

/// Checks that the array of `header` (from the file `source`) can be appended as bytes to the
/// file `appender` holds.
fn check_source(appender: &NpyAppender, source: &Path, header: &Header) -> Result<(), Error> {
    let (own, axis) = (appender.header(), appender.axis());
    let same_dtype = header.dtype == own.dtype;
    let both_orders = !Header::fortran_order_for(&header.shape, MemoryOrder::Fortran);
    if same_dtype && header.fortran_order != own.fortran_order && !both_orders {
        return Err(Error::from(ErrorKind::Unsupported {
            operation: "appending a file of another memory order",
            reason: format!(
                "{} is in {} order and the file in {} order; convert it first",
                source.display(),
                header.order(),
                own.order()
            ),
        }));
    }
    let continues = header.shape.len() == own.shape.len()
        && header
            .shape
            .iter()
            .zip(&own.shape)
            .enumerate()
            .all(|(i, (a, b))| i == axis || a == b);
    if same_dtype && continues {
        return Ok(());
    }
    Err(Error::from(ErrorKind::AppendMismatch {
        file_dtype: own.dtype.clone(),
        file_shape: own.shape.clone(),
        appended: Box::new(Requested::file(header.dtype.clone(), source)),
        shape: header.shape.clone(),
        axis,
    }))
}

/// [`ErrorKind::SizeOverflow`] for an array of `header`'s shape and dtype grown past numpy's
/// sizes.
fn overflow(header: &Header) -> Error {
    Error::from(ErrorKind::SizeOverflow {
        shape: header.shape.clone(),
        itemsize: header.dtype.itemsize(),
    })
}

/// Opens a `.npy` file to copy its data: the file and its header.
fn open_source(path: &Path) -> Result<(File, ParsedHeader), Error> {
    let open = || -> Result<(File, ParsedHeader), Error> {
        let mut file = npy_fs::open_regular(path)?;
        let parsed = Header::read(&mut file)?;
        if parsed.header.dtype.has_object() {
            return Err(Error::from(ErrorKind::ObjectArray {
                dtype: parsed.header.dtype.clone(),
            }));
        }
        Ok((file, parsed))
    };
    open().at_path(path)
}

/// Copies the data bytes of each of `sources` (a path and its header as checked) to `write`
/// as they are, through [`stream`]'s two buffers of 1 MiB, calling `progress(0, total)` and
/// then `progress(done, total)` after each buffer. With `recheck`, a source whose header
/// changed since it was checked is refused.
fn copy_sources(
    sources: &[(&Path, Header)],
    recheck: bool,
    write: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    progress(0, total);
    let mut done = 0u64;
    for (source, header) in sources {
        let (file, now) = open_source(source)?;
        if recheck && now.header != *header {
            return Err(Error::from(ErrorKind::Unsupported {
                operation: "appending a file that changes meanwhile",
                reason: "its header changed after it was checked".into(),
            })
            .with_path(source));
        }
        let nbytes = header.nbytes()?;
        let offset = now.data_offset();
        let input = Input {
            file,
            offset,
            nbytes,
        };
        let mut report = |d, _| progress(done + d, total);
        stream(&input, 1, &Swap::None, COPY_CHUNK_BYTES, write, &mut report).at_path(source)?;
        done += nbytes;
    }
    Ok(())
}
