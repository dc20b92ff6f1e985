//! Files: `.npy` / `.npz` members read as batches, Arrow IPC and Parquet files written from
//! them and read back into `.npy`, and [`convert`] choosing between them by extension.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::{Buffer, MutableBuffer};
use arrow_schema::SchemaRef;
use npy_core::{read::ArrayMeta, NpyReader};
use npy_npz::NpzArchive;

use crate::error::{overflow, Context, Error, ErrorKind};
use crate::from_arrow::{FromArrowOptions, NpyPlan};
#[cfg(feature = "parquet")]
use crate::to_arrow::ColumnPlan;
use crate::to_arrow::{
    batch_from_bytes, batch_from_dyn, object_column, schema_for, with_numpy_layout,
};

/// Bytes of `.npy` data per batch when streaming (a batch holds at least one row).
pub const BATCH_BYTES: usize = 8 << 20;

/// Bytes of `.npy` data per batch when [`convert`] writes Parquet: batches that stay in the
/// cache while the column writers encode them. Measured on issue 24's 1M-record file
/// (`perf stat`, 5 runs each, twice): 1 MiB batches (15,197 rows) took 180 ms of CPU against
/// 204-214 ms for [`BATCH_BYTES`], at half the peak memory (36 MB against 69 MB); 0.5 MiB
/// took 190-202 ms. The batches do not show in the file (its row groups are up to 1 Mi rows).
#[cfg(feature = "parquet")]
const PARQUET_BATCH_BYTES: usize = 1 << 20;

/// The column name of a plain array read from `path`: the file's stem (`"a"` for `a.npy`), or
/// `"values"` when the path has none.
pub fn stem_name(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map_or_else(|| "values".to_owned(), str::to_owned)
}

/// An array about to be read: its metadata and a reader positioned at its data.
struct Source<'a> {
    meta: ArrayMeta,
    data: &'a mut dyn Read,
    /// Bytes known to follow the header (a file's length), bounding the whole-array buffer.
    available: Option<u64>,
    name: String,
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

    fn row_shape(&self) -> &[u64] {
        self.meta.shape().get(1..).unwrap_or(&[])
    }

    /// Rows: the first dimension (1 for a 0-d array).
    fn rows(&self) -> u64 {
        self.meta.shape().first().copied().unwrap_or(1)
    }

    fn row_bytes(&self) -> Result<u64, Error> {
        self.row_shape()
            .iter()
            .try_fold(self.meta.itemsize(), |a, &d| a.checked_mul(d))
            .ok_or_else(|| overflow("row size", format!("{:?}", self.meta.shape())))
    }

    fn schema(&self) -> Result<SchemaRef, Error> {
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
    fn for_each_batch(
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
    fn for_each_chunk(
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
enum Chunk {
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

fn default_rows(row_bytes: u64, batch_bytes: usize) -> usize {
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
fn with_source<T>(
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
            let objects = npy_pickle::read_dyn(path).at_path(path)?;
            let mut none: &[u8] = &[];
            let mut source = Source {
                meta,
                data: &mut none,
                available: Some(0),
                name: stem_name(path),
                objects: Some(objects),
                columns: None,
            };
            return f(&mut source).at_path(path);
        }
        let columns = read_columns(&mut reader, whole).at_path(path)?;
        let file_len = std::fs::metadata(path).at_path(path)?.len();
        let mut data = reader.into_inner();
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
        let mut none: &[u8] = &[];
        let mut source = Source {
            meta,
            data: &mut none,
            available: Some(0),
            name: key.clone(),
            objects: Some(objects),
            columns: None,
        };
        return f(&mut source).map_err(|e| e.at_path(path).in_member(&key));
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

/// Writes an Arrow IPC file (the "Feather v2" file format) at `path` from the batches `fill`
/// pushes into the writer it is given; atomic.
///
/// # Errors
/// I/O and arrow errors, naming `path`.
pub fn write_ipc(
    path: &Path,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut out = Atomic::create(path)?;
    {
        let w = BufWriter::with_capacity(1 << 20, out.file());
        let mut writer = arrow_ipc::writer::FileWriter::try_new(w, schema).at_path(path)?;
        fill(&mut |b| writer.write(b).map_err(Error::from))?;
        writer.finish().at_path(path)?;
        writer.into_inner().at_path(path)?.flush().at_path(path)?;
    }
    out.commit()
}

/// Reads the Arrow IPC file at `path` batch by batch into `f` (with the schema first).
///
/// Every block the footer lists is checked to lie inside the file before it is read, so a
/// hostile footer cannot make the reader allocate more than the file's size.
///
/// # Errors
/// I/O and arrow errors (a malformed footer or message), naming `path`.
pub fn read_ipc(
    path: &Path,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    mut f: impl FnMut(RecordBatch) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut file = npy_fs::open_regular(path).at_path(path)?;
    check_ipc_blocks(&mut file).at_path(path)?;
    file.rewind().at_path(path)?;
    let reader = contained(|| {
        arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None).map_err(Error::from)
    })
    .at_path(path)?;
    schema(reader.schema()).at_path(path)?;
    let mut reader = reader;
    while let Some(b) = contained(|| Ok(reader.next())).at_path(path)? {
        f(b.at_path(path)?).at_path(path)?;
    }
    Ok(())
}

/// Runs a decoder of arrow-rs / parquet on untrusted bytes. Those crates panic on some
/// malformed input (slicing past a buffer's end, bitmaps shorter than their length); such a
/// panic is turned into [`ErrorKind::Malformed`] here, so that a caller never sees it (the
/// default panic hook still prints its message on stderr).
fn contained<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
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

/// Checks that every block an IPC file's footer lists lies inside the file, before arrow-ipc
/// reads (and allocates) any of them: a footer can claim blocks of any size.
fn check_ipc_blocks(file: &mut File) -> Result<(), Error> {
    use std::io::SeekFrom;
    let len = file.metadata()?.len();
    let malformed = |why: String| Error::new(ErrorKind::Malformed(why));
    if len < 10 + 8 {
        return Err(malformed(format!(
            "{len} bytes is too short for an Arrow IPC file"
        )));
    }
    let mut tail = [0u8; 10];
    file.seek(SeekFrom::End(-10))?;
    file.read_exact(&mut tail)?;
    let footer_len = arrow_ipc::reader::read_footer_length(tail)? as u64;
    if footer_len > len - 10 {
        return Err(malformed(format!(
            "the footer claims {footer_len} bytes of a {len}-byte file"
        )));
    }
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::Start(len - 10 - footer_len))?;
    file.read_exact(&mut footer)?;
    let footer = arrow_ipc::root_as_footer(&footer)
        .map_err(|e| malformed(format!("the footer is not a flatbuffer: {e}")))?;
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .chain(footer.dictionaries().into_iter().flatten());
    for b in blocks {
        let end = u64::try_from(b.offset())
            .ok()
            .zip(u64::try_from(b.metaDataLength()).ok())
            .zip(u64::try_from(b.bodyLength()).ok())
            .and_then(|((o, m), body)| o.checked_add(m)?.checked_add(body));
        if end.is_none_or(|e| e > len) {
            return Err(malformed(format!(
                "a block at {} of {} + {} bytes lies outside the {len}-byte file",
                b.offset(),
                b.metaDataLength(),
                b.bodyLength()
            )));
        }
    }
    Ok(())
}

/// Writes a Parquet file at `path` (Snappy, pyarrow's default; parquet's other defaults, a
/// dictionary tried for every column: see the crate docs' "Parquet") from the batches `fill`
/// pushes, the columns encoded on every core; row groups are flushed as they fill, so memory
/// stays at about one row group.
///
/// # Errors
/// I/O and parquet errors, naming `path`.
#[cfg(feature = "parquet")]
pub fn write_parquet(
    path: &Path,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    write_parquet_with(path, schema, &[], None, |push, stored| {
        fill(&mut |b| {
            push(crate::parquet_write::Piece::Batch(&parquet_batch(
                b, stored,
            )?))
        })
    })
}

/// The properties Parquet files are written with: Snappy (pyarrow's default), parquet's
/// other defaults (a dictionary tried for every column, abandoned past 1 MiB), no dictionary
/// for the top-level columns named in `plain`.
#[cfg(feature = "parquet")]
fn parquet_properties(plain: &[String]) -> parquet::file::properties::WriterProperties {
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    use parquet::schema::types::ColumnPath;
    plain
        .iter()
        .fold(
            WriterProperties::builder().set_compression(Compression::SNAPPY),
            |b, name| b.set_column_dictionary_enabled(ColumnPath::from(name.as_str()), false),
        )
        .build()
}

/// [`write_parquet`], with the top-level columns named in `plain` written without a
/// dictionary, from the pieces `fill` pushes (given the stored schema: [`parquet_schema_of`]);
/// `gather` builds the columns of [`Piece::Bytes`](crate::parquet_write::Piece::Bytes).
#[cfg(feature = "parquet")]
fn write_parquet_with(
    path: &Path,
    schema: &SchemaRef,
    plain: &[String],
    gather: Option<Arc<crate::parquet_write::Gather>>,
    fill: impl FnOnce(
        &mut dyn FnMut(crate::parquet_write::Piece<'_>) -> Result<(), Error>,
        &SchemaRef,
    ) -> Result<(), Error>,
) -> Result<(), Error> {
    use parquet::arrow::ArrowWriter;
    let mut out = Atomic::create(path)?;
    {
        let props = parquet_properties(plain);
        let stored = parquet_schema_of(schema);
        for f in stored.fields() {
            refuse_zero_width(f, f.name()).at_path(path)?;
        }
        // No buffer of our own: the writer buffers its small writes (the header, the
        // footer) and the pending file its own, so each page goes to the file uncopied.
        let writer = ArrowWriter::try_new(out.file(), stored.clone(), Some(props)).at_path(path)?;
        // The file ArrowWriter writes, its columns encoded on every core.
        let (file, factory) = writer.into_serialized_writer().at_path(path)?;
        crate::parquet_write::encode(file, &factory, &stored, gather, |push| fill(push, &stored))?
            .at_path(path)?
            .flush()
            .at_path(path)?;
    }
    out.commit()
}

/// Refuses a column Parquet cannot hold: a fixed width of 0 bytes (`V0` as
/// FixedSizeBinary(0)), anywhere in `field` (`column`: its dotted path). Parquet's
/// `FIXED_LEN_BYTE_ARRAY` needs a length of at least 1, and arrow-rs's writer panics on a
/// width of 0. (Lists of 0 items, subarrays of shape `(0,)`, are written.)
#[cfg(feature = "parquet")]
fn refuse_zero_width(field: &arrow_schema::Field, column: &str) -> Result<(), Error> {
    use arrow_schema::DataType;
    let refuse = |reason: &str| {
        Err(Error::new(ErrorKind::NoParquetType {
            column: column.to_owned(),
            data_type: field.data_type().to_string(),
            reason: reason.to_owned(),
        }))
    };
    match field.data_type() {
        DataType::FixedSizeBinary(0) => {
            refuse("it has no fixed-size binary of 0 bytes; write .arrow or .npy instead")
        }
        DataType::FixedSizeList(item, _) => refuse_zero_width(item, column),
        DataType::Struct(fields) => fields
            .iter()
            .try_for_each(|f| refuse_zero_width(f, &format!("{column}.{}", f.name()))),
        _ => Ok(()),
    }
}

/// The schema a Parquet file stores for `schema`: Parquet has no second unit, so
/// `Timestamp(Second)` columns (also inside structs and tensors) are stored as milliseconds
/// (×1000), as pyarrow stores them.
#[cfg(feature = "parquet")]
fn parquet_schema_of(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<arrow_schema::FieldRef> = schema
        .fields()
        .iter()
        .map(|f| Arc::new(parquet_field(f)))
        .collect();
    Arc::new(arrow_schema::Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    ))
}

#[cfg(feature = "parquet")]
fn parquet_field(f: &arrow_schema::Field) -> arrow_schema::Field {
    f.clone().with_data_type(parquet_type(f.data_type()))
}

#[cfg(feature = "parquet")]
fn parquet_type(dt: &arrow_schema::DataType) -> arrow_schema::DataType {
    use arrow_schema::{DataType, TimeUnit};
    match dt {
        DataType::Timestamp(TimeUnit::Second, tz) => {
            DataType::Timestamp(TimeUnit::Millisecond, tz.clone())
        }
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(|f| parquet_field(f)).collect())
        }
        DataType::FixedSizeList(item, n) => {
            DataType::FixedSizeList(Arc::new(parquet_field(item)), *n)
        }
        other => other.clone(),
    }
}

/// `array` in its [`parquet_type`].
#[cfg(feature = "parquet")]
fn parquet_array(
    array: &arrow_array::ArrayRef,
    column: &str,
) -> Result<arrow_array::ArrayRef, Error> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{TimestampMillisecondType, TimestampSecondType};
    use arrow_array::{Array, FixedSizeListArray, StructArray};
    use arrow_schema::{ArrowError, DataType, TimeUnit};
    Ok(match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, tz) => Arc::new(
            array
                .as_primitive::<TimestampSecondType>()
                .try_unary::<_, TimestampMillisecondType, _>(|s| {
                    s.checked_mul(1000).ok_or_else(|| {
                        ArrowError::ComputeError(format!(
                            "column {column:?}: {s} s is beyond the i64 milliseconds Parquet stores"
                        ))
                    })
                })?
                .with_timezone_opt(tz.clone()),
        ),
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let children = s
                .columns()
                .iter()
                .map(|c| parquet_array(c, column))
                .collect::<Result<Vec<_>, _>>()?;
            let fields = fields.iter().map(|f| parquet_field(f)).collect();
            Arc::new(StructArray::try_new_with_length(
                fields,
                children,
                s.nulls().cloned(),
                s.len(),
            )?)
        }
        DataType::FixedSizeList(item, n) => {
            let l = array.as_fixed_size_list();
            Arc::new(FixedSizeListArray::try_new_with_length(
                Arc::new(parquet_field(item)),
                *n,
                parquet_array(l.values(), column)?,
                l.nulls().cloned(),
                l.len(),
            )?)
        }
        _ => array.clone(),
    })
}

#[cfg(feature = "parquet")]
fn parquet_batch(batch: &RecordBatch, stored: &SchemaRef) -> Result<RecordBatch, Error> {
    if batch.schema().fields() == stored.fields() {
        return Ok(batch.clone());
    }
    let columns = batch
        .columns()
        .iter()
        .zip(stored.fields())
        .map(|(c, f)| parquet_array(c, f.name()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new_with_options(
        stored.clone(),
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )?)
}

/// Reads the Parquet file at `path` row group by row group, as batches of at most
/// `batch_rows` rows (fewer when a column's dictionary holds wide byte strings: a batch's
/// dictionary-decoded values stay about [`BATCH_BYTES`]), into `f` (with the schema first).
///
/// The footer and every page header are checked first (the module `parquet_check`): a schema
/// nested deeper than [`MAX_NESTING_DEPTH`] is [`ErrorKind::Budget`]; chunks or pages past
/// their bounds, sizes and counts their bytes cannot hold, row counts the pages do not hold
/// are [`ErrorKind::Malformed`].
///
/// # Errors
/// I/O and parquet errors, the checks' errors, naming `path`.
#[cfg(feature = "parquet")]
pub fn read_parquet(
    path: &Path,
    batch_rows: usize,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    f: impl FnMut(RecordBatch) -> Result<(), Error>,
) -> Result<(), Error> {
    read_parquet_with(path, batch_rows, MAX_NESTING_DEPTH, schema, f)
}

/// [`read_parquet`] with a nesting budget of `max_depth` groups.
#[cfg(feature = "parquet")]
fn read_parquet_with(
    path: &Path,
    batch_rows: usize,
    max_depth: usize,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    mut f: impl FnMut(RecordBatch) -> Result<(), Error>,
) -> Result<(), Error> {
    let (builder, summary) = parquet_builder(path, max_depth)?;
    schema(builder.schema().clone()).at_path(path)?;
    // Batches whose dictionary-decoded byte strings stay about BATCH_BYTES.
    let rows = summary.batch_rows(batch_rows);
    let mut reader = contained(|| Ok(builder.with_batch_size(rows).build()?)).at_path(path)?;
    while let Some(b) = contained(|| Ok(reader.next())).at_path(path)? {
        f(b.map_err(Error::from).at_path(path)?).at_path(path)?;
    }
    Ok(())
}

/// The reader builder of the Parquet file at `path` and what the checks found, after the checks of
/// the module `parquet_check` (which the parquet crate would otherwise trust: its recursion
/// per schema level, its allocations by the counts of page headers) and checking that every
/// column chunk the footer lists lies inside the file as the parquet crate reads it.
#[cfg(feature = "parquet")]
fn parquet_builder(
    path: &Path,
    max_depth: usize,
) -> Result<
    (
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder<File>,
        crate::parquet_check::Summary,
    ),
    Error,
> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let mut file = npy_fs::open_regular(path).at_path(path)?;
    let len = file.metadata().at_path(path)?.len();
    let summary = crate::parquet_check::check(&mut file, len, max_depth).at_path(path)?;
    file.rewind().at_path(path)?;
    let builder =
        contained(|| Ok(ParquetRecordBatchReaderBuilder::try_new(file)?)).at_path(path)?;
    for rg in builder.metadata().row_groups() {
        for c in rg.columns() {
            // ColumnChunkMetaData::byte_range asserts these are not negative: test first.
            let start = c.dictionary_page_offset().unwrap_or(c.data_page_offset());
            let n = c.compressed_size();
            let end = u64::try_from(start)
                .ok()
                .zip(u64::try_from(n).ok())
                .and_then(|(a, b)| a.checked_add(b));
            if end.is_none_or(|e| e > len) {
                return Err(Error::new(ErrorKind::Malformed(format!(
                    "column chunk {:?} claims bytes {start}..+{n} of a {len}-byte file",
                    c.column_path().string()
                )))
                .at_path(path));
            }
        }
    }
    Ok((builder, summary))
}

/// The kinds of file [`convert`] reads and writes, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.npy`
    Npy,
    /// `.npz` (one member)
    Npz,
    /// `.arrow` / `.ipc` / `.feather`: the Arrow IPC file format.
    Ipc,
    /// `.parquet`
    Parquet,
}

impl Format {
    /// The format of `path` by its extension, in any case (`.Parquet` is Parquet; `None`
    /// for another one).
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "npy" => Some(Format::Npy),
            "npz" => Some(Format::Npz),
            "arrow" | "ipc" | "feather" => Some(Format::Ipc),
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }
}

/// Most nested groups a Parquet schema may hold above a leaf column (the root not counted),
/// by default: deeper schemas are refused with [`ErrorKind::Budget`] before the parquet crate
/// reads them, since its schema and reader builders recurse once or more per level (2,000
/// levels overflowed the 8 MiB main-thread stack, an abort). 63 is as deep as a `.npy` written
/// from the schema can be read back: each record level nests the header's descr two levels
/// (a list of fields, a field's tuple), and npy-core's header parser reads 128 levels
/// (`literal::DEFAULT_MAX_DEPTH`; numpy's own parser gives up from about 100 record levels).
/// With 64 and more, a conversion succeeded and wrote a file that neither could read. Raised
/// by [`ConvertOptions::max_nesting_depth`], at the risk of the calling thread's stack and of
/// writing such a file.
pub const MAX_NESTING_DEPTH: usize = 63;

/// How many times its input's size the output of a conversion from Arrow IPC or Parquet may
/// take by default (the budget is this × the input's bytes, at least
/// [`OUTPUT_BUDGET_FLOOR`]). Parquet's run-length encoding states 2^31 rows in ten bytes and
/// a string column's `U` width is its longest value's: without a bound a 145-byte file wrote
/// 2 GiB and a 68 KB one asked for 400 GB. Checked against the rows the input claims before
/// it is decoded, and against the exact output size before anything is written. Set another
/// budget with [`ConvertOptions::max_output_bytes`].
pub const OUTPUT_EXPANSION: u64 = 1024;

/// The smallest default output budget of a conversion from Arrow IPC or Parquet, in bytes
/// (see [`OUTPUT_EXPANSION`]): small files may always write 1 GiB.
pub const OUTPUT_BUDGET_FLOOR: u64 = 1 << 30;

/// Options of [`convert`].
///
/// The budgets (output bytes, nesting depth, rows without bytes, string widths in
/// [`FromArrowOptions::max_string_width`]) bound what an Arrow IPC or Parquet input may make
/// a conversion do; an input past one is refused with [`ErrorKind::Budget`] (or
/// [`ErrorKind::UnbackedRows`]) naming it, before any output is written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The `.npz` member to read (needed when the archive holds more than one).
    pub member: Option<String>,
    /// How Arrow nulls are written to `.npy` ([`FromArrowOptions`]).
    pub from_arrow: FromArrowOptions,
    /// Rows per batch (default: about [`BATCH_BYTES`] of `.npy` data).
    pub batch_rows: Option<usize>,
    /// Most bytes the output of a conversion from Arrow IPC or Parquet may take (`None`: the
    /// input's size × [`OUTPUT_EXPANSION`], at least [`OUTPUT_BUDGET_FLOOR`]).
    pub max_output_bytes: Option<u64>,
    /// Most nested groups of a Parquet input's schema (default [`MAX_NESTING_DEPTH`]).
    pub max_nesting_depth: usize,
    /// Most rows that hold no bytes (every column of width 0: `FixedSizeBinary(0)`, lists of
    /// 0 items) an Arrow IPC or Parquet input may convert (default [`MAX_UNBACKED_ROWS`]).
    pub max_unbacked_rows: u64,
}

impl Default for ConvertOptions {
    /// As the derived default was (`from_arrow`: [`FromArrowOptions::default`], one column
    /// → a record of one field), with the default budgets.
    fn default() -> Self {
        ConvertOptions {
            from_arrow: FromArrowOptions::default(),
            ..Self::new()
        }
    }
}

impl ConvertOptions {
    /// Defaults: no member, no fill, one column → a plain array, the default budgets.
    pub fn new() -> Self {
        ConvertOptions {
            member: None,
            from_arrow: FromArrowOptions::new(),
            batch_rows: None,
            max_output_bytes: None,
            max_nesting_depth: MAX_NESTING_DEPTH,
            max_unbacked_rows: MAX_UNBACKED_ROWS,
        }
    }

    /// Output budget in bytes (see the field).
    #[must_use]
    pub fn max_output_bytes(mut self, bytes: u64) -> Self {
        self.max_output_bytes = Some(bytes);
        self
    }

    /// Nesting budget of a Parquet schema, in groups (see the field).
    #[must_use]
    pub fn max_nesting_depth(mut self, depth: usize) -> Self {
        self.max_nesting_depth = depth;
        self
    }

    /// Budget of rows without bytes (see the field).
    #[must_use]
    pub fn max_unbacked_rows(mut self, rows: u64) -> Self {
        self.max_unbacked_rows = rows;
        self
    }

    /// Budget of a `U` width in characters or an `S` width in bytes
    /// ([`FromArrowOptions::max_string_width`]).
    #[must_use]
    pub fn max_string_width(mut self, width: u64) -> Self {
        self.from_arrow.max_string_width = width;
        self
    }

    /// The output budget for an input of `input_len` bytes.
    fn output_budget(&self, input_len: u64) -> u64 {
        self.max_output_bytes.unwrap_or_else(|| {
            input_len
                .saturating_mul(OUTPUT_EXPANSION)
                .max(OUTPUT_BUDGET_FLOOR)
        })
    }

    /// Refuses `rows` rows of at least `row_bytes` bytes each (plus `extra`) from an input
    /// of `input_len` bytes when they pass the output budget, or hold no bytes and pass the
    /// budget of such rows.
    fn check_output(
        &self,
        rows: u64,
        row_bytes: u64,
        extra: u64,
        input_len: u64,
    ) -> Result<(), Error> {
        if row_bytes == 0 && rows > self.max_unbacked_rows {
            return Err(Error::new(ErrorKind::UnbackedRows {
                rows,
                limit: self.max_unbacked_rows,
            }));
        }
        let needed = rows
            .checked_mul(row_bytes)
            .and_then(|n| n.checked_add(extra))
            .unwrap_or(u64::MAX);
        let limit = self.output_budget(input_len);
        if needed > limit {
            return Err(Error::new(ErrorKind::Budget {
                what: format!("the output, in bytes ({rows} rows of {row_bytes}),"),
                needed,
                limit,
                option: "ConvertOptions::max_output_bytes",
            }));
        }
        Ok(())
    }
}

/// The fewest bytes a row of `schema` takes in the output (`.npy` or Arrow), without looking
/// at its values: strings at their smallest width, other types not in the `.npy` mapping at
/// a byte; 0 when every column holds nothing (`FixedSizeBinary(0)`, lists of 0 items, Null).
#[cfg(feature = "parquet")]
fn min_row_bytes(schema: &arrow_schema::Schema) -> u64 {
    fn of(dt: &arrow_schema::DataType) -> u64 {
        use arrow_schema::DataType as D;
        match dt {
            D::Null => 0,
            D::Int16 | D::UInt16 | D::Float16 => 2,
            D::Int32 | D::UInt32 | D::Float32 => 4,
            D::Int64
            | D::UInt64
            | D::Float64
            | D::Timestamp(..)
            | D::Duration(_)
            | D::Date32
            | D::Date64 => 8,
            D::Utf8 | D::LargeUtf8 | D::Utf8View => 4,
            D::FixedSizeBinary(n) => u64::try_from(*n).unwrap_or(0),
            D::Struct(fields) => fields
                .iter()
                .fold(0u64, |a, f| a.saturating_add(of(f.data_type()))),
            D::FixedSizeList(item, n) => u64::try_from(*n)
                .unwrap_or(0)
                .saturating_mul(of(item.data_type())),
            _ => 1,
        }
    }
    schema
        .fields()
        .iter()
        .fold(0u64, |a, f| a.saturating_add(of(f.data_type())))
}

/// Converts `input` to `output`, each format chosen by its extension ([`Format::of`]):
/// `.npy`/`.npz` → `.parquet`/`.arrow` streams batches (memory: one batch, plus one row group
/// for Parquet); `.parquet`/`.arrow` → `.npy`/`.npz` reads the input twice (first to find the
/// rows and the widths of string columns, then to write), one batch at a time; `.npy` ↔ `.npz`
/// copies the array's bytes. A plain `.npy` to `.parquet` writes the columns whose dictionary
/// every row group would abandon without one (the crate docs' "Parquet" says how they are
/// found). The output is written atomically; [`convert_with_progress`] reports progress.
///
/// # Errors
/// [`ErrorKind::Invalid`] for an extension of no format; the readers' and writers' errors.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let npy = dir.path().join("x.npy");
/// npy_core::write(&npy, &[1i32, 2, 3], &[3])?;
/// let arrow = dir.path().join("x.arrow");
/// npy_arrow::convert(&npy, &arrow, &npy_arrow::ConvertOptions::new())?;
/// let back = dir.path().join("y.npy");
/// npy_arrow::convert(&arrow, &back, &npy_arrow::ConvertOptions::new())?;
/// assert_eq!(npy_core::read::<i32>(&back)?.into_vec(), [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    options: &ConvertOptions,
) -> Result<(), Error> {
    convert_with_progress(input, output, options, |_, _| {})
}

/// [`convert`], calling `progress(done, total)` as it goes: bytes of `.npy` data read or
/// written so far and in all (never called for `.arrow` ↔ `.parquet`), for a progress bar.
///
/// # Errors
/// As [`convert`].
pub fn convert_with_progress(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    options: &ConvertOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), Error> {
    let (input, output) = (input.as_ref(), output.as_ref());
    let kind = |p: &Path| {
        Format::of(p).ok_or_else(|| {
            Error::new(ErrorKind::Invalid(
                "the extension is none of .npy, .npz, .arrow (.ipc, .feather), .parquet".into(),
            ))
            .at_path(p)
        })
    };
    let (from, to) = (kind(input)?, kind(output)?);
    let member = options.member.as_deref();
    match (from, to) {
        (Format::Npy | Format::Npz, Format::Ipc) => {
            let schema = with_source(input, member, false, |s| s.schema())?;
            write_ipc(output, &schema, |push| {
                for_each_batch(
                    input,
                    member,
                    options.batch_rows,
                    |_| Ok(()),
                    |b, done, total| {
                        push(&b)?;
                        progress(done, total);
                        Ok(())
                    },
                )
            })
        }
        #[cfg(feature = "parquet")]
        (Format::Npy | Format::Npz, Format::Parquet) => {
            let (schema, rows, row_bytes, plan) = with_source(input, member, false, |s| {
                let row_bytes = s.row_bytes()?;
                Ok((
                    s.schema()?,
                    default_rows(row_bytes, PARQUET_BATCH_BYTES),
                    usize::try_from(row_bytes)
                        .map_err(|_| overflow("row size", row_bytes.to_string()))?,
                    ColumnPlan::new(s.meta.dtype(), s.row_shape(), &s.name)?,
                ))
            })?;
            // Each column of a batch's bytes is built on the thread that encodes it, in the
            // type Parquet stores. Its errors are the input's (a value the Arrow type cannot
            // hold): they name the input and its member (an .npz member's column plan is
            // named by its key), not the output the writer reports them with.
            let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
            let source = input.to_owned();
            let key = (from == Format::Npz).then(|| plan.name().to_owned());
            let gather: Arc<crate::parquet_write::Gather> =
                Arc::new(move |i: usize, data: &Buffer, rows: usize| {
                    plan.check(rows, data)
                        .and_then(|_| plan.gather(i, rows, data, false))
                        .and_then(|c| parquet_array(&c, names.get(i).map_or("", String::as_str)))
                        .map_err(|e| {
                            let e = e.at_path(&source);
                            match &key {
                                Some(k) => e.in_member(k),
                                None => e,
                            }
                        })
                });
            // Columns whose dictionary every row group would abandon (sampled from the file
            // itself, so only for a plain .npy) are written plain from the start.
            let plain = if from == Format::Npy {
                let props = parquet_properties(&[]);
                crate::parquet_write::unique_columns(
                    input,
                    &parquet_schema_of(&schema),
                    props.max_row_group_row_count().unwrap_or(usize::MAX),
                    props.dictionary_page_size_limit(),
                )
            } else {
                Vec::new()
            };
            write_parquet_with(output, &schema, &plain, Some(gather), |push, stored| {
                with_source(input, member, false, |s| {
                    s.for_each_chunk(
                        options.batch_rows.or(Some(rows)),
                        &mut |chunk, done, total| {
                            match chunk {
                                Chunk::Batch(b) => push(crate::parquet_write::Piece::Batch(
                                    &parquet_batch(&b, stored)?,
                                ))?,
                                Chunk::Bytes(data, rows) => {
                                    push(crate::parquet_write::Piece::Bytes {
                                        data,
                                        rows,
                                        row_bytes,
                                    })?;
                                }
                            }
                            progress(done, total);
                            Ok(())
                        },
                    )
                })
            })
        }
        (Format::Ipc | Format::Parquet, Format::Npy | Format::Npz) => {
            arrow_to_npy(input, from, output, to, options, &mut progress)
        }
        (Format::Ipc | Format::Parquet, Format::Ipc | Format::Parquet) => {
            table_to_table(input, from, output, to, options)
        }
        (Format::Npy | Format::Npz, Format::Npy | Format::Npz) => {
            // One array copied between a file and an archive: npy-npz's job.
            npy_npz::convert(input, output, member).map_err(Error::from)
        }
        #[allow(unreachable_patterns, reason = "reached without feature `parquet`")]
        _ => Err(no_parquet()),
    }
}

/// The error of a Parquet input or output without the `parquet` feature.
fn no_parquet() -> Error {
    Error::new(ErrorKind::Invalid(
        "Parquet needs npy-arrow's feature `parquet`".into(),
    ))
}

/// An Arrow IPC or Parquet table (`from`) written as either (`to`), batch by batch: Parquet
/// is read `batch_rows` rows at a time (default 64 Ki), IPC a record batch at a time.
fn table_to_table(
    input: &Path,
    from: Format,
    output: &Path,
    to: Format,
    options: &ConvertOptions,
) -> Result<(), Error> {
    // Only Parquet reads in batches of rows.
    #[cfg(not(feature = "parquet"))]
    let _ = options;
    let schema = match from {
        Format::Ipc => ipc_schema(input)?,
        #[cfg(feature = "parquet")]
        Format::Parquet => {
            // The rows the file claims (checked against its pages) are the output's rows:
            // refused before they are decoded when they pass the budgets.
            let (schema, rows) = parquet_schema(input, options.max_nesting_depth)?;
            let len = std::fs::metadata(input).at_path(input)?.len();
            options
                .check_output(rows, min_row_bytes(&schema), 0, len)
                .at_path(input)?;
            schema
        }
        _ => return Err(no_parquet()),
    };
    let read = |push: &mut dyn FnMut(&RecordBatch) -> Result<(), Error>| match from {
        Format::Ipc => read_ipc(input, |_| Ok(()), |b| push(&b)),
        #[cfg(feature = "parquet")]
        Format::Parquet => read_parquet_with(
            input,
            options.batch_rows.unwrap_or(64 * 1024),
            options.max_nesting_depth,
            |_| Ok(()),
            |b| push(&b),
        ),
        _ => Err(no_parquet()),
    };
    match to {
        Format::Ipc => write_ipc(output, &schema, read),
        #[cfg(feature = "parquet")]
        Format::Parquet => write_parquet(output, &schema, read),
        _ => Err(no_parquet()),
    }
}

/// Reads an IPC or Parquet file twice: the plan, then the data.
///
/// Bounded by the options' budgets: a Parquet input's rows (as its footer claims them,
/// checked against its pages) are checked against the output budget and the budget of rows
/// without bytes before the first read; the exact output (every string width known) before
/// the second. The second read encodes at most about [`BATCH_BYTES`] of output at a time
/// (one row when a row is wider).
fn arrow_to_npy(
    input: &Path,
    from: Format,
    output: &Path,
    to: Format,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    let input_len = std::fs::metadata(input).at_path(input)?.len();
    // A Parquet input's rows, as its footer claims them (checked against its pages).
    #[allow(unused_mut, reason = "set only with the parquet feature")]
    let mut claimed: Option<u64> = None;
    #[cfg(feature = "parquet")]
    if from == Format::Parquet {
        let (schema, rows) = parquet_schema(input, options.max_nesting_depth)?;
        options
            .check_output(rows, min_row_bytes(&schema), 0, input_len)
            .at_path(input)?;
        claimed = Some(rows);
    }
    let each = |rows_per: usize,
                f: &mut dyn FnMut(RecordBatch) -> Result<(), Error>,
                s: &mut dyn FnMut(SchemaRef) -> Result<(), Error>|
     -> Result<(), Error> {
        // Only Parquet reads in batches of rows.
        #[cfg(not(feature = "parquet"))]
        let _ = rows_per;
        match from {
            Format::Ipc => read_ipc(input, s, f),
            #[cfg(feature = "parquet")]
            Format::Parquet => read_parquet_with(input, rows_per, options.max_nesting_depth, s, f),
            _ => Err(no_parquet()),
        }
    };
    let plan: std::cell::RefCell<Option<NpyPlan>> = std::cell::RefCell::new(None);
    let fa = &options.from_arrow;
    each(
        options.batch_rows.unwrap_or(64 * 1024),
        &mut |b| {
            let mut plan = plan.borrow_mut();
            let plan = plan.as_mut().expect("the readers give the schema first");
            plan.observe(&b)?;
            // The widths seen so far already size every claimed row: a wide string repeated
            // by a dictionary is refused at its first batch, not after decoding every row.
            if let Some(rows) = claimed {
                let header = plan.header().at_path(input)?;
                let row_bytes = row_bytes(&header);
                options
                    .check_output(rows, row_bytes, 0, input_len)
                    .at_path(input)?;
            }
            Ok(())
        },
        &mut |s| {
            *plan.borrow_mut() = Some(NpyPlan::new(s, fa)?);
            Ok(())
        },
    )?;
    let plan = plan
        .into_inner()
        .expect("the readers give the schema first");
    // The dtype and header are the input's (its columns' names and types).
    let header = plan.header().at_path(input)?;
    let header_bytes = header.to_bytes(None).at_path(input)?;
    let row_bytes = row_bytes(&header);
    let total = plan.rows();
    options
        .check_output(total, row_bytes, header_bytes.len() as u64, input_len)
        .at_path(input)?;
    // Rows encoded at once: about BATCH_BYTES of output (a row at least).
    let per = default_rows(row_bytes, BATCH_BYTES);
    let write_npy = |w: &mut dyn Write, progress: &mut dyn FnMut(u64, u64)| -> Result<(), Error> {
        w.write_all(&header_bytes)?;
        let mut done = 0u64;
        each(
            options.batch_rows.unwrap_or(per).min(64 * 1024),
            &mut |b| {
                let mut at = 0;
                while at < b.num_rows() {
                    let len = per.min(b.num_rows() - at);
                    let bytes = plan.encode(&b.slice(at, len), done, fa)?;
                    w.write_all(&bytes)?;
                    done += len as u64;
                    at += len;
                }
                progress(
                    done.saturating_mul(row_bytes),
                    total.saturating_mul(row_bytes),
                );
                Ok(())
            },
            &mut |_| Ok(()),
        )?;
        if done != total {
            return Err(Error::new(ErrorKind::Invalid(format!(
                "the input gave {total} rows on the first read and {done} on the second"
            ))));
        }
        Ok(())
    };
    match to {
        Format::Npy => {
            let mut out = Atomic::create(output)?;
            {
                let mut w = BufWriter::with_capacity(1 << 20, out.file());
                write_npy(&mut w, progress).at_path(output)?;
                w.flush().at_path(output)?;
            }
            out.commit()
        }
        _ => {
            let mut tmp = tempfile::tempfile().at_path(output)?;
            {
                let mut w = BufWriter::with_capacity(1 << 20, &mut tmp);
                write_npy(&mut w, progress).at_path(output)?;
                w.flush().at_path(output)?;
            }
            tmp.rewind().at_path(output)?;
            let mut npz = npy_npz::NpzWriter::create(output).at_path(output)?;
            npz.add_npy(&stem_name(input), BufReader::new(tmp))
                .at_path(output)?;
            npz.finish().at_path(output)?;
            Ok(())
        }
    }
}

/// Bytes of one row (first-axis element) of the array `header` describes; `u64::MAX` when
/// that overflows, which every budget refuses.
fn row_bytes(header: &npy_core::Header) -> u64 {
    header
        .shape
        .get(1..)
        .unwrap_or(&[])
        .iter()
        .try_fold(header.dtype.itemsize(), |a, &d| a.checked_mul(d))
        .unwrap_or(u64::MAX)
}

fn ipc_schema(path: &Path) -> Result<SchemaRef, Error> {
    let mut file = npy_fs::open_regular(path).at_path(path)?;
    check_ipc_blocks(&mut file).at_path(path)?;
    file.rewind().at_path(path)?;
    let reader = contained(|| {
        arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None).map_err(Error::from)
    })
    .at_path(path)?;
    Ok(reader.schema())
}

/// The schema of the Parquet file at `path` and the rows it holds (checked as
/// [`read_parquet`] checks them).
#[cfg(feature = "parquet")]
fn parquet_schema(path: &Path, max_depth: usize) -> Result<(SchemaRef, u64), Error> {
    let (builder, summary) = parquet_builder(path, max_depth)?;
    Ok((builder.schema().clone(), summary.rows))
}
