//! `.npy` files and `.npz` members read as Arrow batches, streamed (one batch at a time) or
//! whole; and the atomic output file the writers of this crate share.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::{Buffer, MutableBuffer};
use arrow_schema::SchemaRef;
use npy_core::{read::ArrayMeta, NpyReader};
use npy_npz::NpzArchive;

use crate::error::{overflow, Context, Error, ErrorKind};
use crate::to_arrow::{
    batch_from_bytes, batch_from_dyn, object_column, schema_for, with_numpy_layout,
};

/// Bytes of `.npy` data per batch when streaming (a batch holds at least one row).
pub const BATCH_BYTES: usize = 8 << 20;

/// The column name of a plain array read from `path`: the file's stem (`"a"` for `a.npy`), or
/// `"values"` when the path has none.
pub fn stem_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map_or_else(|| "values".to_owned(), str::to_owned)
}

/// An array about to be read: its metadata and a reader positioned at its data.
pub(crate) struct Source<'a> {
    pub(crate) meta: ArrayMeta,
    data: &'a mut dyn Read,
    /// Bytes known to follow the header (a file's length), bounding the whole-array buffer.
    available: Option<u64>,
    pub(crate) name: String,
    /// An object array's elements, decoded from its pickle by npy-pickle (its data is one
    /// pickle, not rows).
    objects: Option<npy_core::DynArray>,
    /// A record array of at most one dimension read whole by `read_dyn` (see [`by_columns`]):
    /// its columns become the batch's arrays without another copy.
    columns: Option<npy_core::DynArray>,
}

/// Whether a whole read of an array of `meta` goes through `read_dyn`'s columns: records (no
/// objects) of at most one dimension, whose fields the columns already hold apart. Other
/// arrays are read into one buffer, whose packed native numbers are sliced without a copy.
fn by_columns(meta: &ArrayMeta) -> bool {
    matches!(meta.dtype(), npy_core::DType::Record(r) if !r.fields().is_empty())
        && !meta.dtype().has_object()
        && meta.shape().len() <= 1
}

/// The array of `reader` read by `read_dyn` when [`by_columns`] says so (and `whole`), else
/// `None` with the reader untouched; also `None` when `read_dyn`'s budget refuses the dtype
/// before reading (names or zero-size parts that its value trees would multiply), which the
/// buffer path reads.
fn read_columns<R: Read>(
    reader: &mut NpyReader<R>,
    whole: bool,
) -> Result<Option<npy_core::DynArray>, npy_core::Error> {
    if !whole || !by_columns(reader.meta()) {
        return Ok(None);
    }
    match reader.read_dyn() {
        Ok(a) => Ok(Some(a)),
        Err(e) if matches!(e.kind(), npy_core::ErrorKind::AllocationLimit { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

impl Source<'_> {
    /// The batch of an object array (1-d or 0-d; see [`object_column`]).
    fn object_batch(&self, a: &npy_core::DynArray) -> Result<RecordBatch, Error> {
        if a.shape().len() > 1 {
            return Err(Error::new(ErrorKind::UnsupportedDType {
                dtype: "|O".into(),
                reason: format!(
                    "an object array of shape {:?}: only 1-d object arrays become a column",
                    a.shape()
                ),
            }));
        }
        // An object array holds its decoded objects (its dtype is `|O`: checked by the caller).
        let (field, column) = object_column(a.objects().unwrap_or_default(), &self.name)?;
        Ok(RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(vec![field])),
            vec![column],
        )?)
    }

    pub(crate) fn row_shape(&self) -> &[u64] {
        self.meta.shape().get(1..).unwrap_or(&[])
    }

    /// Rows: the first dimension (1 for a 0-d array).
    fn rows(&self) -> u64 {
        self.meta.shape().first().copied().unwrap_or(1)
    }

    pub(crate) fn row_bytes(&self) -> Result<u64, Error> {
        self.row_shape()
            .iter()
            .try_fold(self.meta.itemsize(), |a, &d| a.checked_mul(d))
            .ok_or_else(|| overflow("row size", format!("{:?}", self.meta.shape())))
    }

    pub(crate) fn schema(&self) -> Result<SchemaRef, Error> {
        if let Some(a) = &self.objects {
            return Ok(self.object_batch(a)?.schema());
        }
        let mut shape = vec![self.rows()];
        shape.extend_from_slice(self.row_shape());
        let schema = schema_for(self.meta.dtype(), &shape, &self.name)?;
        // numpy's layout (0-d, a record's fields and axes), which the table's columns alone
        // do not say: read back by `NpyPlan` when it agrees with the table.
        Ok(with_numpy_layout(
            &schema,
            self.meta.dtype(),
            self.meta.shape(),
        ))
    }

    /// Reads `n` data bytes into an Arrow buffer (64-byte aligned for a file whose length
    /// proves the bytes are there; else grown as they arrive, so a header's claim never sizes
    /// an allocation by itself). `spare`: a buffer of an earlier batch that no array holds any
    /// more, reused (its pages already mapped, its bytes overwritten) instead of a fresh
    /// zeroed allocation.
    fn read_bytes(&mut self, n: u64, spare: Option<MutableBuffer>) -> Result<Buffer, Error> {
        let len = usize::try_from(n).map_err(|_| overflow("data size", n.to_string()))?;
        let truncated = |found: u64| data_ends_early(n, found);
        if self.available.is_some_and(|a| a >= n) {
            let mut buf = match spare {
                Some(mut b) if b.capacity() >= len => {
                    // Only the bytes past the old length are zeroed; all are overwritten.
                    b.resize(len, 0);
                    b
                }
                _ => MutableBuffer::from_len_zeroed(len),
            };
            self.data.read_exact(buf.as_slice_mut()).map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    truncated(0)
                } else {
                    e.into()
                }
            })?;
            self.available = self.available.map(|a| a - n);
            return Ok(buf.into());
        }
        if self.available.is_some_and(|a| a < n) {
            return Err(truncated(self.available.unwrap_or(0)));
        }
        let mut v = Vec::new();
        (&mut self.data).take(n).read_to_end(&mut v)?;
        if v.len() < len {
            return Err(truncated(v.len() as u64));
        }
        Ok(Buffer::from_vec(v))
    }

    /// Streams the array as batches of about [`BATCH_BYTES`] (`batch_rows` rows when given),
    /// handing each to `f` with the data bytes done so far and in all. A Fortran-order array of two or more
    /// dimensions is read whole and transposed to C order (its rows are not contiguous).
    pub(crate) fn for_each_batch(
        &mut self,
        batch_rows: Option<usize>,
        f: &mut dyn FnMut(RecordBatch, u64, u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let dtype = self.meta.dtype().clone();
        let row_shape = self.row_shape().to_vec();
        let name = self.name.clone();
        self.for_each_chunk(batch_rows, &mut |chunk, done, total| match chunk {
            Chunk::Batch(b) => f(b, done, total),
            Chunk::Bytes(data, rows) => f(
                batch_from_bytes(&dtype, &row_shape, rows, &data, &name)?,
                done,
                total,
            ),
        })
    }

    /// [`Self::for_each_batch`], but the rows of a C-order array are handed over as their
    /// bytes ([`Chunk::Bytes`]), for the caller to build the batch's columns where it wants
    /// them (the bytes of a batch the caller no longer holds are read into again).
    pub(crate) fn for_each_chunk(
        &mut self,
        batch_rows: Option<usize>,
        f: &mut dyn FnMut(Chunk, u64, u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if let Some(a) = &self.objects {
            let batch = self.object_batch(a)?;
            let n = batch.num_rows() as u64;
            return f(Chunk::Batch(batch), n, n);
        }
        let rows = self.rows();
        let row_bytes = self.row_bytes()?;
        if row_bytes == 0 && rows > MAX_UNBACKED_ROWS {
            return Err(Error::new(ErrorKind::UnbackedRows {
                rows,
                limit: MAX_UNBACKED_ROWS,
            }));
        }
        let dtype = self.meta.dtype().clone();
        let row_shape = self.row_shape().to_vec();
        let fortran = self.meta.order().is_fortran() && self.meta.shape().len() >= 2;
        if fortran {
            let n = self.meta.nbytes();
            let data = self.read_bytes(n, None)?;
            let c = transpose_f_to_c(&data, self.meta.shape(), self.meta.itemsize() as usize);
            let batch = batch_from_bytes(&dtype, &row_shape, rows as usize, &c, &self.name)?;
            let per = batch_rows
                .unwrap_or_else(|| default_rows(row_bytes, BATCH_BYTES))
                .max(1);
            let mut at = 0usize;
            while at < batch.num_rows() {
                let len = per.min(batch.num_rows() - at);
                f(
                    Chunk::Batch(batch.slice(at, len)),
                    (at + len) as u64 * row_bytes,
                    rows * row_bytes,
                )?;
                at += len;
            }
            return Ok(());
        }
        let per = batch_rows
            .unwrap_or_else(|| default_rows(row_bytes, BATCH_BYTES))
            .max(1) as u64;
        let mut done = 0u64;
        let mut pool = Recycler::default();
        loop {
            let len = per.min(rows - done);
            let bytes = len
                .checked_mul(row_bytes)
                .ok_or_else(|| overflow("batch size", format!("{len} rows × {row_bytes}")))?;
            let data = self.read_bytes(bytes, pool.take())?;
            pool.keep(&data);
            done += len;
            f(
                Chunk::Bytes(data, len as usize),
                done * row_bytes,
                rows * row_bytes,
            )?;
            if done >= rows {
                return Ok(());
            }
        }
    }

    /// The whole array as one batch.
    fn whole(&mut self) -> Result<RecordBatch, Error> {
        if let Some(a) = self.columns.take() {
            return batch_from_dyn(a, &self.name);
        }
        let mut out = None;
        let rows = usize::try_from(self.rows()).unwrap_or(usize::MAX);
        self.for_each_batch(Some(rows.max(1)), &mut |b, _, _| {
            out = Some(b);
            Ok(())
        })?;
        Ok(out.expect("for_each_batch hands out at least one batch"))
    }
}

/// One step of [`Source::for_each_chunk`].
pub(crate) enum Chunk {
    /// A batch (objects; a Fortran-order array, transposed).
    Batch(RecordBatch),
    /// The C-order bytes of this many rows.
    Bytes(Buffer, usize),
}

/// Buffers handed out that the next read may reuse once nobody else holds them (their pages
/// already mapped, their bytes overwritten, instead of a fresh zeroed allocation).
#[derive(Default)]
struct Recycler {
    /// The most recent [`Self::KEPT`] buffers handed out, oldest first.
    out: std::collections::VecDeque<Buffer>,
}

impl Recycler {
    /// Buffers watched: more than the Parquet encoder's lanes may still hold (every lane
    /// shares each buffer: at most two queued and one in work, about four out at once);
    /// older ones are let go.
    const KEPT: usize = 8;

    /// A buffer nobody else holds any more, if one is watched.
    fn take(&mut self) -> Option<MutableBuffer> {
        for _ in 0..self.out.len() {
            let b = self.out.pop_front()?;
            match b.into_mutable() {
                Ok(m) => return Some(m),
                Err(b) => self.out.push_back(b),
            }
        }
        None
    }

    /// Watches `data`, just handed out.
    fn keep(&mut self, data: &Buffer) {
        if self.out.len() == Self::KEPT {
            self.out.pop_front();
        }
        self.out.push_back(data.clone());
    }
}

/// The whole array of `s` as one batch (a free function: higher-ranked over both lifetimes).
fn whole(s: &mut Source<'_>) -> Result<RecordBatch, Error> {
    s.whole()
}

/// Most rows that hold no bytes (zero-size elements, or a zero-length axis after the first:
/// `V0`, shape `(n, 0)`) a conversion writes: nothing in the file backs them, so without a
/// bound the header's claim alone (2^62 rows in 128 bytes) would size the output and its time.
pub const MAX_UNBACKED_ROWS: u64 = 1 << 20;

/// Rows of `row_bytes` each in a batch of about `batch_bytes` (at least 1, at most 1 Mi).
/// npy-core's error for a `.npy` file whose data ends before the `needed` bytes its header
/// promises (`found` of them present): the format's one `Truncated`, not a second one here.
fn data_ends_early(needed: u64, found: u64) -> Error {
    npy_core::Error::from(npy_core::ErrorKind::Truncated {
        what: "array data",
        needed,
        found,
    })
    .into()
}

pub(crate) fn default_rows(row_bytes: u64, batch_bytes: usize) -> usize {
    (batch_bytes as u64 / row_bytes.max(1)).clamp(1, 1 << 20) as usize
}

/// C-order bytes of a Fortran-order array of `shape` (the logical values numpy shows: the
/// file's column-major data transposed).
fn transpose_f_to_c(data: &Buffer, shape: &[u64], itemsize: usize) -> Buffer {
    // Elements without bytes (`V0`, a zero-length axis) have nothing to move: counting them
    // instead took a 128-byte `V0` header of shape (2^20, 2^20) past 20 s. Otherwise `data`
    // holds every element, so its length bounds the walk.
    if itemsize == 0 || data.is_empty() {
        return MutableBuffer::new(0).into();
    }
    let total = data.len() / itemsize;
    let mut out = MutableBuffer::with_capacity(data.len());
    // Fortran strides (in elements): dim 0 fastest.
    let mut strides = vec![1usize; shape.len()];
    for k in 1..shape.len() {
        strides[k] = strides[k - 1] * shape[k - 1] as usize;
    }
    let mut index = vec![0usize; shape.len()];
    let src = data.as_slice();
    for _ in 0..total {
        let at: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&src[at * itemsize..(at + 1) * itemsize]);
        // Next C-order index: last dimension fastest.
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] as usize {
                break;
            }
            index[k] = 0;
        }
    }
    out.into()
}

/// Opens the `.npy` at `path` (or member `member` of the `.npz` at `path`) and runs `f` on it;
/// `whole`: `f` reads the whole array ([`Source::whole`]), which may then be read through
/// `read_dyn`'s columns here. An object array is decoded first (npy-pickle).
pub(crate) fn with_source<T>(
    path: &Path,
    member: Option<&str>,
    whole: bool,
    f: impl FnOnce(&mut Source<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let is_npz = path.extension().is_some_and(|e| e == "npz");
    if !is_npz {
        if let Some(key) = member {
            return Err(Error::new(ErrorKind::Invalid(format!(
                "member {key:?} was asked of a file that is not an .npz"
            )))
            .at_path(path));
        }
        let mut reader = NpyReader::open(path).at_path(path)?;
        let meta = reader.meta().clone();
        if meta.dtype() == &npy_core::DType::Object {
            // The file already open: the pickle follows the header just read.
            let objects = { reader }
                .read_dyn_using(&npy_pickle::PickleCodec::default())
                .at_path(path)?;
            return with_objects(meta, objects, stem_name(path), f).at_path(path);
        }
        let columns = read_columns(&mut reader, whole).at_path(path)?;
        let mut data = reader.into_inner();
        // The length of the file opened, not of whatever the path names by now.
        let file_len = data.get_ref().metadata().at_path(path)?.len();
        let mut source = Source {
            available: Some(file_len.saturating_sub(meta.data_offset())),
            meta,
            data: &mut data,
            name: stem_name(path),
            objects: None,
            columns,
        };
        return f(&mut source).at_path(path);
    }
    let archive = NpzArchive::open(path).at_path(path)?;
    let key = archive.resolve_key(member).at_path(path)?;
    let mut reader = archive
        .npy_reader(&key)
        .map_err(|e| Error::from(e).at_path(path).in_member(&key))?;
    let meta = reader.meta().clone();
    if meta.dtype() == &npy_core::DType::Object {
        let objects = { reader }
            .read_dyn_using(&npy_pickle::PickleCodec::default())
            .map_err(|e| Error::from(e).at_path(path).in_member(&key))?;
        return with_objects(meta, objects, key.clone(), f)
            .map_err(|e| e.at_path(path).in_member(&key));
    }
    let columns = read_columns(&mut reader, whole)
        .map_err(|e| Error::from(e).at_path(path).in_member(&key))?;
    let mut data = reader.into_inner();
    let mut source = Source {
        meta,
        data: &mut data,
        available: None,
        name: key.clone(),
        objects: None,
        columns,
    };
    f(&mut source).map_err(|e| e.at_path(path).in_member(&key))
}

/// Runs `f` on the object array of `meta` whose elements npy-pickle decoded (`objects`): its
/// data, one pickle, is spent, so the source has no bytes left to read.
fn with_objects<T>(
    meta: ArrayMeta,
    objects: npy_core::DynArray,
    name: String,
    f: impl FnOnce(&mut Source<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut none: &[u8] = &[];
    f(&mut Source {
        meta,
        data: &mut none,
        available: Some(0),
        name,
        objects: Some(objects),
        columns: None,
    })
}

/// Reads the header of the `.npy` stream `npy` and runs `f` on the array, named `name` (the
/// column name of a plain array), as [`with_source`] runs it on an `.npz` member: the data is
/// read as it comes (no length known beforehand), an object array decoded first
/// (npy-pickle). Errors name the member `name`, not a path (the caller knows where the
/// stream comes from).
pub(crate) fn with_stream_source<T>(
    npy: &mut dyn Read,
    name: &str,
    f: impl FnOnce(&mut Source<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut reader = NpyReader::new(npy).map_err(|e| Error::from(e).in_member(name))?;
    let meta = reader.meta().clone();
    if meta.dtype() == &npy_core::DType::Object {
        let objects = { reader }
            .read_dyn_using(&npy_pickle::PickleCodec::default())
            .map_err(|e| Error::from(e).in_member(name))?;
        return with_objects(meta, objects, name.to_owned(), f).map_err(|e| e.in_member(name));
    }
    let mut data = reader.into_inner();
    let mut source = Source {
        meta,
        data: &mut data,
        available: None,
        name: name.to_owned(),
        objects: None,
        columns: None,
    };
    f(&mut source).map_err(|e| e.in_member(name))
}

/// Reads the `.npy` file at `path` into one [`RecordBatch`] (the mapping of the crate docs; a
/// plain array's column is named by the file's stem).
///
/// Native-order numbers are not copied: the batch's buffers are the one buffer the data was
/// read into.
///
/// # Errors
/// npy-core's header and I/O errors, truncated data, and the mapping's errors
/// ([`ErrorKind::UnsupportedDType`], [`ErrorKind::Value`]), each naming `path`.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("temps.npy");
/// npy_core::write(&path, &[20.5f32, 21.0, 19.75], &[3])?;
/// let batch = npy_arrow::read_npy(&path)?;
/// assert_eq!(batch.schema().field(0).name(), "temps");
/// assert_eq!(batch.num_rows(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_npy(path: impl AsRef<Path>) -> Result<RecordBatch, Error> {
    with_source(path.as_ref(), None, true, whole)
}

/// The `.npy` bytes `bytes` (a whole file, typically a memory map) as one [`RecordBatch`]
/// whose number columns point into `bytes` itself: nothing is copied for native-order,
/// aligned, C-order numbers (the buffer keeps `bytes` alive), so the time does not depend on
/// the array's size. Other columns are gathered as [`read_npy`] does.
///
/// The mapping's hazard stays with the caller, who maps the file (`unsafe { Mmap::map(..) }`)
/// and so promises that nobody changes it while the batch lives.
///
/// # Errors
/// npy-core's header errors; truncated data (`bytes` shorter than the header's claim); the
/// mapping's errors, as [`read_npy`].
///
/// # Examples
/// ```
/// let mut bytes = Vec::new();
/// npy_core::WriteOptions::new().write_to(&mut bytes, &[1.0f32, 2.0, 3.0], &[3])?;
/// let batch = npy_arrow::batch_from_npy_bytes(bytes, "x")?;
/// assert_eq!(batch.num_rows(), 3);
/// # Ok::<(), npy_arrow::Error>(())
/// ```
pub fn batch_from_npy_bytes(
    bytes: impl AsRef<[u8]> + Send + 'static,
    name: &str,
) -> Result<RecordBatch, Error> {
    let meta = NpyReader::new(bytes.as_ref())?.meta().clone();
    let buffer = Buffer::from(bytes::Bytes::from_owner(bytes));
    let start = meta.data_offset();
    let n = meta.nbytes();
    let have = (buffer.len() as u64).saturating_sub(start);
    if have < n {
        return Err(data_ends_early(n, have));
    }
    let data = buffer.slice_with_length(start as usize, n as usize);
    let shape = meta.shape();
    let rows = shape.first().copied().unwrap_or(1) as usize;
    let row_shape = shape.get(1..).unwrap_or(&[]);
    if meta.order().is_fortran() && shape.len() >= 2 {
        let c = transpose_f_to_c(&data, shape, meta.itemsize() as usize);
        return batch_from_bytes(meta.dtype(), row_shape, rows, &c, name);
    }
    batch_from_bytes(meta.dtype(), row_shape, rows, &data, name)
}

/// Reads member `key` of the `.npz` at `path` into one [`RecordBatch`] (a plain array's column
/// is named by the key).
///
/// # Errors
/// As [`read_npy`], plus npz errors (a missing member), naming the path and the member.
pub fn read_npz_member(path: impl AsRef<Path>, key: &str) -> Result<RecordBatch, Error> {
    with_source(path.as_ref(), Some(key), true, whole)
}

/// Streams the `.npy` at `path` (or an `.npz` member) as batches of about [`BATCH_BYTES`]
/// (or `batch_rows` rows) to `f`, after giving `schema` the batches' schema. `f` gets each
/// batch with the data bytes done so far and the array's data bytes.
///
/// Memory: one batch at a time (a Fortran-order array of 2 or more dimensions is read whole).
///
/// # Errors
/// As [`read_npy`], and whatever `f` returns.
pub fn for_each_batch(
    path: impl AsRef<Path>,
    member: Option<&str>,
    batch_rows: Option<usize>,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    mut f: impl FnMut(RecordBatch, u64, u64) -> Result<(), Error>,
) -> Result<(), Error> {
    with_source(path.as_ref(), member, false, |s| {
        schema(s.schema()?)?;
        s.for_each_batch(batch_rows, &mut f)
    })
}

/// The output file, written as npy-core writes every path ([`npy_fs::PendingFile`]): beside
/// its target and renamed over it on success, so an error never leaves a partial file; a
/// symlink written through, a device, FIFO or directory refused, the umask's mode (or the
/// replaced file's), the append lock honoured.
pub(crate) struct Atomic {
    file: npy_fs::PendingFile,
}

impl Atomic {
    pub(crate) fn create(target: &Path) -> Result<Atomic, Error> {
        Ok(Atomic {
            file: npy_fs::PendingFile::create(target)?,
        })
    }

    pub(crate) fn file(&mut self) -> &mut npy_fs::PendingFile {
        &mut self.file
    }

    pub(crate) fn commit(self) -> Result<(), Error> {
        Ok(self.file.commit()?)
    }
}

/// Runs a decoder of arrow-rs / parquet on untrusted bytes. Those crates panic on some
/// malformed input (slicing past a buffer's end, bitmaps shorter than their length); such a
/// panic is turned into [`ErrorKind::Malformed`] here, so that a caller never sees it (the
/// default panic hook still prints its message on stderr).
pub(crate) fn contained<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("a panic");
        Err(Error::new(ErrorKind::Malformed(format!(
            "the decoder stopped on malformed input: {what}"
        ))))
    })
}
