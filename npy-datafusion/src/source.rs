//! The scan: [`NpySource`] (DataFusion's [`FileSource`]) and its opener, which streams a file
//! range's rows in batches read by byte ranges.

use std::sync::Arc;

use bytes::Bytes;
use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileGroupPartitioner, FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::PhysicalExpr;
use futures::StreamExt;
use npy_core::{dtype::Record, DType};
use object_store::path::Path as StorePath;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::format::{shard_schema, NpyOptions};
use crate::location::file_name;
use crate::shard::{HeaderCache, Shard};
use crate::Error;

/// Rows per batch when DataFusion has not set a batch size (its own default).
const DEFAULT_BATCH_ROWS: usize = 8192;

/// The scan of `.npy` files: DataFusion's [`FileSource`] for [`crate::NpyFormat`].
///
/// Each file (or row-aligned part of one: DataFusion splits large files into byte ranges,
/// [`SCAN_PARTITIONS_PER_TARGET`] partitions per target partition, and a row belongs to the
/// range holding its first byte) is read in batches of at most the session's batch size in
/// rows and [`npy_arrow::BATCH_BYTES`] in bytes (one row when a row is wider): one ranged read
/// per batch from an object store; from a local file, a batch at a time in place when the page
/// cache holds its bytes, else chunks of whole batches (batches when a column may borrow the
/// bytes), the next one read ahead ([`BYTES_READ_AHEAD`]), so a scan holds about two chunks
/// (or batches) per partition. Only the
/// record fields the query uses are converted (projection pushdown); with a `LIMIT`, only the
/// rows needed are read. Fortran-order arrays of more than one axis are gathered: one ranged
/// read per element of a row per batch (a row's elements are strided through the file).
#[derive(Clone)]
pub struct NpySource {
    table_schema: TableSchema,
    options: NpyOptions,
    headers: Arc<HeaderCache>,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
    projection: SplitProjection,
}

impl std::fmt::Debug for NpySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpySource")
            .field("file_schema", self.table_schema.file_schema())
            .field("options", &self.options)
            .field("batch_size", &self.batch_size)
            .field("file_indices", &self.projection.file_indices)
            .finish_non_exhaustive()
    }
}

impl NpySource {
    /// The scan of a table whose schema is `table_schema`.
    pub(crate) fn new(
        table_schema: TableSchema,
        options: NpyOptions,
        headers: Arc<HeaderCache>,
    ) -> Self {
        Self {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            options,
            headers,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The format's options.
    #[cfg_attr(not(feature = "proto"), allow(dead_code))]
    pub(crate) fn options(&self) -> &NpyOptions {
        &self.options
    }
}

impl FileSource for NpySource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        let projected = Arc::new(file_schema.project(&self.projection.file_indices)?);
        let opener = Arc::new(NpyOpener {
            store: object_store,
            headers: Arc::clone(&self.headers),
            member: self.options.member.clone(),
            base: base_config.object_store_url.clone(),
            file_schema: Arc::clone(file_schema),
            file_indices: self.projection.file_indices.clone(),
            projected,
            batch_rows: self.batch_size.unwrap_or(DEFAULT_BATCH_ROWS).max(1),
            limit: base_config.limit,
            bytes_scanned: MetricBuilder::new(&self.metrics).counter(BYTES_SCANNED, partition),
            bytes_read_ahead: MetricBuilder::new(&self.metrics)
                .counter(BYTES_READ_AHEAD, partition),
        }) as Arc<dyn FileOpener>;
        ProjectionOpener::try_new(self.projection.clone(), opener, file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut s = self.clone();
        s.batch_size = Some(batch_size);
        Arc::new(s)
    }

    /// DataFusion's split of large files into byte ranges, into
    /// [`SCAN_PARTITIONS_PER_TARGET`] × `target_partitions` groups, except for a scan with a
    /// limit pushed into it: it reads at most `limit` rows from the start, and splitting would
    /// make every partition read its own first rows (issue 41: `LIMIT 10` of a 1 GiB file over
    /// HTTP in at most 3 requests).
    fn repartitioned(
        &self,
        target_partitions: usize,
        repartition_file_min_size: usize,
        output_ordering: Option<LexOrdering>,
        config: &FileScanConfig,
    ) -> Result<Option<FileScanConfig>> {
        if config.limit.is_some() {
            return Ok(None);
        }
        let groups = FileGroupPartitioner::new()
            .with_target_partitions(scan_partitions(target_partitions))
            .with_repartition_file_min_size(repartition_file_min_size)
            .with_preserve_order_within_groups(output_ordering.is_some())
            .repartition_file_groups(&config.file_groups);
        Ok(groups.map(|file_groups| {
            let mut c = config.clone();
            c.file_groups = file_groups;
            c
        }))
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut s = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        s.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(s)))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &'static str {
        "npy"
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// Scan partitions per partition of the plan (DataFusion's `target_partitions`, by default
/// the number of cores), when files are split into byte ranges. A partition's scan waits for
/// its reads (a blocking thread's `pread` of a cold file, or a store's response) between
/// converting batches; with two partitions a core, one partition's read overlaps another's
/// conversion and aggregation. The group-by of 8 shards × 1M records on 2 cores, read ahead:
/// 0.13 s against 0.15–0.16 s with one partition a core (medians of rounds of 9 and 11 runs,
/// npy-datafusion's README).
/// Memory: two chunks (or batches) a partition. A `target_partitions` of 1 stays one
/// partition.
pub const SCAN_PARTITIONS_PER_TARGET: usize = 2;

/// The scan partitions for `target_partitions`: [`SCAN_PARTITIONS_PER_TARGET`] times as many,
/// except that one stays one (a session asking for one partition: one stream, in file order).
fn scan_partitions(target_partitions: usize) -> usize {
    if target_partitions > 1 {
        target_partitions.saturating_mul(SCAN_PARTITIONS_PER_TARGET)
    } else {
        target_partitions
    }
}

/// The metric of a scan's data bytes read from the files (headers not counted), per
/// partition: DataFusion's name for it (Parquet's scan reports the same), summed by
/// `MetricsSet::sum_by_name` over a plan's nodes. `npy sql` shows it as its progress.
pub const BYTES_SCANNED: &str = "bytes_scanned";

/// The metric of the data bytes of local files a scan read on blocking threads because the
/// page cache did not hold them all (a cold file): from the first read that would have waited,
/// a scan range reads in chunks, each next one ahead, to its end, warm or not; before it, a
/// warm file's bytes are read in place, on the scan's own thread, and not counted here. Per
/// partition, counted when a chunk's read is done and used (a chunk read ahead that a stopped
/// query drops is not): a query stopped by a `LIMIT` inside a chunk counts the whole chunk
/// here, and only its converted batches in [`BYTES_SCANNED`]. 0 for other stores.
/// `EXPLAIN ANALYZE` shows it.
pub const BYTES_READ_AHEAD: &str = "bytes_read_ahead";

/// Opens one file (range) of a scan.
struct NpyOpener {
    store: Arc<dyn ObjectStore>,
    headers: Arc<HeaderCache>,
    /// The member of each `.npz` archive read ([`NpyOptions::member`]); `None`: `.npy` files.
    member: Option<String>,
    /// The URL of the store: errors name a file by it (`crate::location::file_name`).
    base: ObjectStoreUrl,
    /// The table's schema (all of a file's columns).
    file_schema: SchemaRef,
    /// The columns to read, indices into `file_schema`.
    file_indices: Vec<usize>,
    /// `file_schema` projected to `file_indices`: the batches' schema.
    projected: SchemaRef,
    batch_rows: usize,
    limit: Option<usize>,
    /// Data bytes read so far by this partition ([`BYTES_SCANNED`]).
    bytes_scanned: Count,
    /// Of those, the bytes of local files read ahead ([`BYTES_READ_AHEAD`]).
    bytes_read_ahead: Count,
}

/// How a file's batches are read and converted.
struct Plan {
    store: Arc<dyn ObjectStore>,
    location: StorePath,
    /// The file as errors name it (`crate::location::file_name`).
    path: String,
    shard: Arc<Shard>,
    /// The dtype converted: the file's, or a record of only the projected fields (same
    /// itemsize, so the same rows); `None` when no column is read (`count(*)`).
    dtype: Option<DType>,
    /// The converted batch's columns → the projected order.
    order: Vec<usize>,
    schema: SchemaRef,
    name: String,
    batch_rows: u64,
    /// Rows a local file is read in at a time: a multiple of `batch_rows`
    /// ([`LOCAL_CHUNK_BYTES`]).
    chunk_rows: u64,
    /// The row after the last this scan reads (its range's end, or the limit's).
    end: u64,
    bytes_scanned: Count,
    /// The file itself when the store is DataFusion's local file system: read with `pread`,
    /// in place or ahead ([`LocalFile`]).
    local: Option<LocalFile>,
}

/// A local file read without the object store: object_store's `LocalFileSystem` opens the
/// file, allocates and zero-fills a new buffer for every ranged read, and reads on a blocking
/// thread; a scan reads one range per batch, so that cost was paid once per 8,192 rows. Here
/// the file is opened once per scan range and read two ways:
/// - **In place**, a batch at a time, when the page cache holds the batch's bytes (a warm
///   file; [`LocalFile::read_cached`]): `pread` on the scan's own thread, into the buffer of a
///   batch done with, so the bytes are converted while they are still in this core's cache.
/// - **Ahead**, otherwise (a cold file): in chunks of about [`LOCAL_CHUNK_BYTES`] (a whole
///   number of batches) when npy-arrow copies every column out of the bytes ([`copied_out`]:
///   records of several fields), else a batch at a time, on a blocking thread, the next chunk
///   read while this one's batches are converted and aggregated, so a partition's reads do
///   not wait for its own compute: two chunk buffers a partition.
struct LocalFile {
    file: Arc<std::fs::File>,
    /// The file is in memory (tmpfs, ramfs): every read is in place.
    in_memory: bool,
    /// Bytes read on blocking threads ([`BYTES_READ_AHEAD`]).
    read_ahead: Count,
    /// A buffer no batch holds, for the next read.
    spare: std::sync::Mutex<Vec<u8>>,
    /// The chunk read ahead.
    ahead: std::sync::Mutex<Option<Ahead>>,
    /// The chunk whose batches are being converted: its first row, rows and bytes.
    current: std::sync::Mutex<Option<(u64, u64, Buffer)>>,
}

/// Bytes a cold local file is read in at a time (rounded to whole batches; at least one
/// batch). Batches of 8,192 rows of 56-byte records are 0.46 MB: read four at a time, with
/// the next chunk read ahead, the group-by of 8 such shards took 0.16 s against 0.19 s a batch
/// at a time (2 cores, medians of 11 runs; 0.5 to 8 MiB chunks measured alike). A warm file is
/// read in place a batch at a time: 0.07–0.08 s, where 2 MiB chunks read in place took
/// 0.08–0.09 s (a chunk no longer fits the core's cache between its read and its conversion).
const LOCAL_CHUNK_BYTES: u64 = 2 << 20;

/// A read started for the next chunk: its first row, rows and the blocking task filling it.
struct Ahead {
    first: u64,
    rows: u64,
    task: tokio::task::JoinHandle<std::io::Result<Vec<u8>>>,
}

/// Locks `m`, taking the value of a poisoned lock (these hold buffers; no invariant spans them).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl LocalFile {
    /// The scan's reader of `file` (opened by [`open_unchanged`]; `in_memory` as it says).
    fn new(file: std::fs::File, in_memory: bool, read_ahead: Count) -> LocalFile {
        LocalFile {
            in_memory,
            read_ahead,
            file: Arc::new(file),
            spare: std::sync::Mutex::default(),
            ahead: std::sync::Mutex::default(),
            current: std::sync::Mutex::default(),
        }
    }

    /// The spare buffer (or a new one) holding `len` bytes, zero-filled only where it grows.
    fn buffer(&self, len: usize) -> Vec<u8> {
        let mut buf = std::mem::take(&mut *lock(&self.spare));
        buf.resize(len, 0);
        buf
    }

    /// Reads the bytes of `buf` from `offset` that can be read without waiting for a disk,
    /// from the start: all of them for a file in memory; else those the page cache holds
    /// (`preadv2` with `RWF_NOWAIT`, Linux 4.14 and later), up to the first that is not
    /// there. Returns how many bytes were read; 0 where the kernel cannot tell (another
    /// system, a file system without `RWF_NOWAIT`).
    ///
    /// # Errors
    ///
    /// The read's error; a file shorter than `offset + buf.len()` gets `UnexpectedEof`.
    fn read_cached(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        if self.in_memory {
            read_exact_at(&self.file, buf, offset)?;
            return Ok(buf.len());
        }
        read_nowait(&self.file, buf, offset)
    }

    /// Starts reading the bytes of `buf` past its first `done` (read already), at `start`
    /// of the file, on a blocking thread.
    fn start_read(
        &self,
        start: u64,
        mut buf: Vec<u8>,
        done: usize,
    ) -> tokio::task::JoinHandle<std::io::Result<Vec<u8>>> {
        let file = Arc::clone(&self.file);
        tokio::task::spawn_blocking(move || {
            let at = start
                .checked_add(done as u64)
                .ok_or(std::io::ErrorKind::InvalidInput)?;
            let rest = buf
                .get_mut(done..)
                .ok_or(std::io::ErrorKind::InvalidInput)?;
            read_exact_at(&file, rest, at).map(|()| buf)
        })
    }

    /// Keeps `buffer` for the next read when no column holds it.
    fn give_back(&self, buffer: Buffer) {
        if let Ok(back) = buffer.into_vec::<u8>() {
            *lock(&self.spare) = back;
        }
    }
}

/// What the plan saw of a local file.
struct Planned {
    /// Its size in bytes.
    size: u64,
    /// Its modification time (nanoseconds since 1970), where the listing gave one with a
    /// version.
    modified: Option<i64>,
    /// A `.npy` file; else an `.npz` archive.
    npy: bool,
}

/// Opens the local file at `path` for a scan of `shard`, after checking that it still holds
/// the planned rows ([`check_unchanged`]), and tells whether it lives in memory
/// ([`in_memory`]). `None` when it cannot be opened: the store then reads it, and reports why.
/// Blocking: called on a blocking thread.
///
/// # Errors
/// [`Error::Changed`] for a file that changed, [`Error::Store`] for a failed read, naming the
/// file as `name`.
fn open_unchanged(
    path: &std::path::Path,
    shard: &Shard,
    planned: &Planned,
    name: &str,
) -> Result<Option<(std::fs::File, bool)>, Error> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    match check_unchanged(&file, shard, planned) {
        Ok(None) => {}
        Ok(Some(what)) => {
            return Err(Error::Changed {
                path: name.to_owned(),
                what,
            })
        }
        Err(e) => return Err(local_error(name, e)),
    }
    let memory = in_memory(&file);
    Ok(Some((file, memory)))
}

/// An I/O error of a local file named `name`, as the store's error.
fn local_error(name: &str, e: std::io::Error) -> Error {
    Error::Store {
        path: name.to_owned(),
        source: object_store::Error::Generic {
            store: "LocalFileSystem",
            source: Box::new(e),
        },
    }
}

/// Whether `file`, opened for a scan of `shard`, still holds the planned rows where the plan
/// put them:
/// - a `.npy` file whose header gives the same dtype, memory order, data offset and shape
///   after the first axis, with the bytes for the planned rows, and at least those rows (more
///   only in C order: an append keeps every planned row in place). The header is read and
///   parsed again, as planning did.
/// - an `.npz` archive of the same size and, where the plan has one, modification time (an
///   archive is rewritten, never appended to).
///
/// Returns what differs, in words (`None`: nothing does). A rewrite that keeps all of this
/// (a `.npy` of the same dtype and shape with other values) is not seen.
///
/// # Errors
/// A failed `fstat` or header read.
fn check_unchanged(
    file: &std::fs::File,
    shard: &Shard,
    planned: &Planned,
) -> std::io::Result<Option<String>> {
    let metadata = file.metadata()?;
    let now = metadata.len();
    if !planned.npy {
        let size = planned.size;
        if now != size {
            return Ok(Some(format!("{now} bytes now, {size} when planned")));
        }
        let modified = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos());
        return Ok(match (planned.modified, modified) {
            (Some(then), Some(now)) if i128::try_from(now).ok() != Some(i128::from(then)) => Some(
                "modified since it was listed (an archive is rewritten, not appended to)"
                    .to_owned(),
            ),
            _ => None,
        });
    }
    let needed = shard.data_offset.saturating_add(shard.data_bytes);
    if now < needed {
        return Ok(Some(format!(
            "{now} bytes now, fewer than the {needed} its planned header describes"
        )));
    }
    // The planned data offset was read at planning, within the header budget.
    let len = usize::try_from(shard.data_offset).map_err(std::io::Error::other)?;
    let mut head = vec![0; len];
    read_exact_at(file, &mut head, 0)?;
    let parsed = match npy_core::Header::read(&mut &head[..]) {
        Ok(parsed) => parsed,
        Err(e) => return Ok(Some(format!("its header no longer reads: {e}"))),
    };
    let header = &parsed.header;
    // The shard the header describes now, as planning made it (its checks included).
    let same = Shard::from_header(&parsed, now, "").is_ok_and(|current| {
        current.dtype == shard.dtype
            && current.data_offset == shard.data_offset
            && current.trailing == shard.trailing
            && current.fortran == shard.fortran
            && (current.rows == shard.rows || (!current.fortran && current.rows > shard.rows))
    });
    if same {
        return Ok(None);
    }
    Ok(Some(format!(
        "its header now says dtype {}, shape {:?}{}, data at byte {}; the plan read dtype \
             {}, {} rows of shape {:?} after the first axis, data at byte {}",
        header.dtype,
        header.shape,
        if header.fortran_order {
            " in Fortran order"
        } else {
            ""
        },
        parsed.data_offset(),
        shard.dtype,
        shard.rows,
        shard.trailing,
        shard.data_offset
    )))
}

/// Whether `file` lives in memory (tmpfs, as `/dev/shm`, or ramfs), where a read never waits
/// for a disk: `fstatfs`'s file-system type (linux/magic.h). tmpfs answers `RWF_NOWAIT` with
/// `EOPNOTSUPP` (Linux 6.18), so its files are known by their file system instead.
#[cfg(target_os = "linux")]
fn in_memory(file: &std::fs::File) -> bool {
    const TMPFS_MAGIC: u32 = 0x0102_1994;
    const RAMFS_MAGIC: u32 = 0x8584_58f6;
    rustix::fs::fstatfs(file).is_ok_and(|s| {
        // `f_type`'s integer type differs between targets (i64, i32, u32, …): the magic
        // numbers are 32 bits, compared as such (a sign-extended i32 would not match).
        #[allow(clippy::unnecessary_cast, clippy::cast_possible_truncation)]
        let kind = s.f_type as u32;
        kind == TMPFS_MAGIC || kind == RAMFS_MAGIC
    })
}

#[cfg(not(target_os = "linux"))]
fn in_memory(_file: &std::fs::File) -> bool {
    false
}

/// The bytes of `buf` at `offset` of `file` the page cache holds, from the start:
/// `preadv2(…, RWF_NOWAIT)` until it would wait (`EAGAIN`), cannot tell (`EOPNOTSUPP`) or
/// `buf` is full. How many bytes were read.
#[cfg(target_os = "linux")]
fn read_nowait(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use rustix::io::{Errno, ReadWriteFlags};
    let mut done = 0;
    while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
        let at = offset
            .checked_add(done as u64)
            .ok_or(std::io::ErrorKind::InvalidInput)?;
        let read = rustix::io::preadv2(
            file,
            &mut [std::io::IoSliceMut::new(rest)],
            at,
            ReadWriteFlags::NOWAIT,
        );
        match read {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => done += n,
            Err(Errno::INTR) => {}
            // Would wait; cannot tell (a file system without RWF_NOWAIT, a kernel without
            // preadv2 or the flag, a sandbox refusing the call): the caller reads ahead.
            Err(Errno::AGAIN | Errno::OPNOTSUPP | Errno::INVAL | Errno::NOSYS | Errno::PERM) => {
                break
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(done)
}

#[cfg(not(target_os = "linux"))]
fn read_nowait(_file: &std::fs::File, _buf: &mut [u8], _offset: u64) -> std::io::Result<usize> {
    Ok(0)
}

/// The path of `location` when `store` is object_store's `LocalFileSystem` rooted at `/` (the
/// store DataFusion registers for `file://`, which it prints as `LocalFileSystem(file:///)`);
/// any other store (a wrapper, a prefix) is read through the store.
/// Unix only (`pread`); elsewhere every file is read through the store.
fn local_path(store: &dyn ObjectStore, location: &StorePath) -> Option<std::path::PathBuf> {
    (cfg!(unix) && store.to_string() == "LocalFileSystem(file:///)")
        .then(|| std::path::Path::new("/").join(location.as_ref()))
}

/// Fills `buf` from `offset` of `file`.
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Never called: [`local_path`] is `None` off Unix.
#[cfg(not(unix))]
fn read_exact_at(_file: &std::fs::File, _buf: &mut [u8], _offset: u64) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

impl FileOpener for NpyOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let headers = Arc::clone(&self.headers);
        let member = self.member.clone();
        let base = self.base.clone();
        let file_schema = Arc::clone(&self.file_schema);
        let file_indices = self.file_indices.clone();
        let schema = Arc::clone(&self.projected);
        let batch_rows = self.batch_rows;
        let limit = self.limit;
        let bytes_scanned = self.bytes_scanned.clone();
        let bytes_read_ahead = self.bytes_read_ahead.clone();
        Ok(Box::pin(async move {
            let meta = &file.object_meta;
            let path = file_name(Some(&base), &meta.location);
            let shard = headers.get(&store, meta, member.as_deref(), &path).await?;
            // The file must hold the table's columns (it may have changed since planning, or
            // a scan may be sent to an executor with a schema of its own).
            let name = file_schema
                .fields()
                .first()
                .map_or_else(|| "value".to_owned(), |f| f.name().clone());
            let own = shard_schema(&shard, &name, &path)?;
            if own.fields() != file_schema.fields() {
                return Err(Error::Mismatch {
                    path: path.clone(),
                    first: "the table".to_owned(),
                    what: "Arrow schema",
                    found: own.to_string(),
                    expected: file_schema.to_string(),
                }
                .into());
            }
            let (start, stop) = match &file.range {
                Some(r) => (
                    u64::try_from(r.start).unwrap_or(0),
                    u64::try_from(r.end).unwrap_or(0),
                ),
                None => (0, meta.size),
            };
            let (first, mut end) = shard.rows_in(start, stop, meta.size);
            if let Some(limit) = limit {
                end = end.min(first.saturating_add(limit as u64));
            }
            let (dtype, order) = projected_dtype(&shard.dtype, &file_indices);
            let batch_rows = match (npy_arrow::BATCH_BYTES as u64).checked_div(shard.row_bytes) {
                None => batch_rows as u64,
                Some(fit) => fit.clamp(1, batch_rows as u64),
            };
            // A local file is opened (and checked against the plan) before any of its bytes
            // are read, whichever way they are then read.
            let opened = match local_path(store.as_ref(), &meta.location) {
                Some(p) if dtype.is_some() && first < end => {
                    let planned = Planned {
                        size: meta.size,
                        // The listing's time stamp, where the listing gave the file a version
                        // (not a `PartitionedFile` made by hand).
                        modified: meta
                            .e_tag
                            .as_ref()
                            .and_then(|_| meta.last_modified.timestamp_nanos_opt()),
                        npy: member.is_none(),
                    };
                    let (shard, name) = (Arc::clone(&shard), path.clone());
                    tokio::task::spawn_blocking(move || open_unchanged(&p, &shard, &planned, &name))
                        .await
                        .map_err(|e| DataFusionError::from(crate::npz::joined(&path, &e)))??
                }
                _ => None,
            };
            let deflated = match (&member, shard.streamed && first < end) {
                (Some(key), true) => Some(crate::npz::member_batches(
                    &store, meta, key, &shard, end, batch_rows, &path,
                )?),
                _ => None,
            };
            let local = opened
                .filter(|_| deflated.is_none() && !shard.fortran)
                .map(|(file, memory)| LocalFile::new(file, memory, bytes_read_ahead));
            let shard_row_bytes = shard.row_bytes;
            let copied = dtype.as_ref().is_some_and(copied_out);
            let plan = Arc::new(Plan {
                store,
                location: meta.location.clone(),
                path,
                shard,
                dtype,
                order,
                schema,
                name,
                batch_rows,
                chunk_rows: if copied {
                    batch_rows.saturating_mul(
                        LOCAL_CHUNK_BYTES
                            .checked_div(batch_rows.saturating_mul(shard_row_bytes))
                            .unwrap_or(1)
                            .max(1),
                    )
                } else {
                    batch_rows
                },
                end,
                bytes_scanned,
                local,
            });
            if let Some(batches) = deflated {
                // A deflated member: its batches as they are inflated.
                let stream = futures::stream::unfold(batches, move |mut batches| {
                    let plan = Arc::clone(&plan);
                    async move {
                        let next = batches.recv().await?;
                        let batch = next
                            .map_err(DataFusionError::from)
                            .and_then(|(n, data)| plan.convert(n, data));
                        Some((batch, batches))
                    }
                });
                return Ok(stream.boxed());
            }
            let stream = futures::stream::try_unfold(first, move |next| {
                let plan = Arc::clone(&plan);
                async move {
                    if next >= end {
                        return Ok(None);
                    }
                    let n = plan.batch_rows.min(end - next);
                    let batch = plan.read(next, n).await?;
                    Ok(Some((batch, next + n)))
                }
            });
            Ok(stream.boxed())
        }))
    }
}

/// The dtype to convert for the columns `indices` of a file of `dtype`, and where each of
/// its columns goes in the projected order.
fn projected_dtype(dtype: &DType, indices: &[usize]) -> (Option<DType>, Vec<usize>) {
    if indices.is_empty() {
        return (None, Vec::new());
    }
    match dtype {
        DType::Record(r) if !r.fields().is_empty() => {
            let mut wanted: Vec<usize> = indices.to_vec();
            wanted.sort_unstable();
            wanted.dedup();
            if wanted.len() == r.fields().len() && indices.len() == wanted.len() {
                let identity = indices.iter().enumerate().all(|(i, &j)| i == j);
                if identity {
                    return (Some(dtype.clone()), Vec::new());
                }
            }
            let fields = wanted
                .iter()
                .filter_map(|&i| r.fields().get(i).cloned())
                .collect();
            // The fields keep their offsets and the itemsize: the same rows, fewer columns.
            let Ok(sub) = Record::new(fields, r.itemsize()) else {
                return (Some(dtype.clone()), indices.to_vec());
            };
            let order = indices
                .iter()
                .map(|i| wanted.binary_search(i).unwrap_or(0))
                .collect();
            (Some(DType::Record(sub)), order)
        }
        _ => (Some(dtype.clone()), indices.iter().map(|_| 0).collect()),
    }
}

/// Whether npy-arrow copies every column of `dtype` out of the bytes it converts: a record
/// whose fields are each narrower than the record. A plain array, or a field as wide as its
/// record, may become a column that borrows the bytes (zero copy), and a column borrowing a
/// slice of a chunk would keep the whole chunk alive (and be counted as the chunk by
/// DataFusion's memory accounting): those are read a batch at a time.
fn copied_out(dtype: &DType) -> bool {
    match dtype {
        DType::Record(r) => r.fields().iter().all(|f| f.dtype.itemsize() < r.itemsize()),
        _ => false,
    }
}

impl Plan {
    fn path(&self) -> &str {
        &self.path
    }

    fn store_error(&self, source: object_store::Error) -> DataFusionError {
        Error::Store {
            path: self.path().to_owned(),
            source,
        }
        .into()
    }

    /// Rows `[first, first + n)` as a batch of the projected schema.
    async fn read(&self, first: u64, n: u64) -> Result<RecordBatch> {
        if self.dtype.is_none() {
            // No column is read (`count(*)`): rows without bytes.
            return self.convert(n, Bytes::new());
        }
        let data = if self.shard.fortran {
            self.gather_fortran(first, n).await?
        } else {
            let rb = self.shard.row_bytes;
            let start = first
                .checked_mul(rb)
                .and_then(|b| b.checked_add(self.shard.data_offset))
                .ok_or_else(|| self.overflow())?;
            let len = n.checked_mul(rb).ok_or_else(|| self.overflow())?;
            if len == 0 {
                Bytes::new()
            } else if let Some(local) = &self.local {
                return self.read_local(local, first, n).await;
            } else {
                self.store
                    .get_range(&self.location, start..start + len)
                    .await
                    .map_err(|e| self.store_error(e))?
            }
        };
        self.convert(n, data)
    }

    /// Rows `[first, first + n)` of a local file: a slice of the chunk holding them, read
    /// in place or ahead (see [`LocalFile`]).
    async fn read_local(&self, local: &LocalFile, first: u64, n: u64) -> Result<RecordBatch> {
        let held = lock(&local.current).take();
        let (chunk_first, chunk_rows, buffer) = match held {
            Some((f, rows, buffer))
                if f <= first && first.checked_add(n) <= f.checked_add(rows) =>
            {
                (f, rows, buffer)
            }
            other => {
                if let Some((_, _, done)) = other {
                    local.give_back(done);
                }
                let (rows, buffer) = self.read_chunk(local, first, n).await?;
                (first, rows, buffer)
            }
        };
        let offset = self.byte_len(
            first
                .checked_sub(chunk_first)
                .ok_or_else(|| self.overflow())?,
        )?;
        let slice = buffer.slice_with_length(offset, self.byte_len(n)?);
        let batch = self.convert_buffer(n, &slice)?;
        drop(slice);
        *lock(&local.current) = Some((chunk_first, chunk_rows, buffer));
        Ok(batch)
    }

    /// Bytes of `rows` rows, as a length.
    fn byte_len(&self, rows: u64) -> Result<usize> {
        rows.checked_mul(self.shard.row_bytes)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| self.overflow())
    }

    /// The offset in the file of row `first`.
    fn row_start(&self, first: u64) -> Result<u64> {
        first
            .checked_mul(self.shard.row_bytes)
            .and_then(|b| b.checked_add(self.shard.data_offset))
            .ok_or_else(|| self.overflow())
    }

    /// A chunk of a local file from row `first`, holding at least its `n` rows: its rows and
    /// bytes. The chunk read ahead for it if there is one; else the `n` rows read in place when
    /// the page cache holds them; else a chunk read now (the bytes found in the cache kept),
    /// and then the next chunk's read is started.
    async fn read_chunk(&self, local: &LocalFile, first: u64, n: u64) -> Result<(u64, Buffer)> {
        // A file shorter than the planned rows: cut short while the query read it (the
        // range's opening checked its length).
        let io_error = |e: std::io::Error, rows: u64| -> DataFusionError {
            let end = first.checked_add(rows).map(|end| self.row_start(end));
            match (e.kind(), end) {
                (std::io::ErrorKind::UnexpectedEof, Some(Ok(end))) => Error::Changed {
                    path: self.path().to_owned(),
                    what: format!(
                        "the file ends before byte {end}, which its planned header describes \
                         (it was cut short while the query read it)"
                    ),
                }
                .into(),
                _ => local_error(self.path(), e).into(),
            }
        };
        let start = self.row_start(first)?;
        let ahead = lock(&local.ahead).take();
        let (rows, task, done) = match ahead {
            Some(a) if a.first == first && a.rows >= n => (a.rows, a.task, 0),
            // Not the chunk read ahead (or none was): that read is dropped and runs to its end.
            _ => {
                let mut buf = local.buffer(self.byte_len(n)?);
                let done = local
                    .read_cached(&mut buf, start)
                    .map_err(|e| io_error(e, n))?;
                if done == buf.len() {
                    return Ok((n, Buffer::from_vec(buf)));
                }
                let left = self.end.checked_sub(first).ok_or_else(|| self.overflow())?;
                let rows = self.chunk_rows.min(left).max(n);
                buf.resize(self.byte_len(rows)?, 0);
                (rows, local.start_read(start, buf, done), done)
            }
        };
        let buf = task
            .await
            .map_err(|e| DataFusionError::from(crate::npz::joined(self.path(), &e)))?
            .map_err(|e| io_error(e, rows))?;
        local.read_ahead.add(buf.len().saturating_sub(done));
        let next = first.checked_add(rows).ok_or_else(|| self.overflow())?;
        if let Some(left) = self.end.checked_sub(next).filter(|&l| l > 0) {
            let rows = self.chunk_rows.min(left);
            let buf = local.buffer(self.byte_len(rows)?);
            let task = local.start_read(self.row_start(next)?, buf, 0);
            *lock(&local.ahead) = Some(Ahead {
                first: next,
                rows,
                task,
            });
        }
        Ok((rows, Buffer::from_vec(buf)))
    }

    /// `n` rows of the file, `data` their bytes (C order), as a batch of the projected schema.
    fn convert(&self, n: u64, data: Bytes) -> Result<RecordBatch> {
        self.convert_buffer(n, &Buffer::from(data))
    }

    /// [`Plan::convert`] of bytes already in an Arrow buffer.
    fn convert_buffer(&self, n: u64, buffer: &Buffer) -> Result<RecordBatch> {
        let rows = usize::try_from(n).map_err(|_| self.overflow())?;
        let Some(dtype) = &self.dtype else {
            return Ok(RecordBatch::try_new_with_options(
                Arc::clone(&self.schema),
                Vec::new(),
                &RecordBatchOptions::new().with_row_count(Some(rows)),
            )?);
        };
        self.bytes_scanned.add(buffer.len());
        let batch =
            npy_arrow::batch_from_bytes(dtype, &self.shard.trailing, rows, buffer, &self.name)
                .map_err(|e| Error::Arrow {
                    path: self.path().to_owned(),
                    source: e,
                })?;
        let columns = if self.order.is_empty() {
            batch.columns().to_vec()
        } else {
            self.order
                .iter()
                .map(|&i| Arc::clone(batch.column(i)))
                .collect()
        };
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }

    fn overflow(&self) -> DataFusionError {
        Error::Unsupported {
            path: self.path().to_owned(),
            what: "a byte offset overflows 64 bits".to_owned(),
        }
        .into()
    }

    /// Rows `[first, first + n)` of a Fortran-order file, in C order: element `j` (Fortran
    /// order over the axes after the first) of every row is one run of `n` elements in the
    /// file, read with one ranged read each (the store merges neighbouring ranges).
    async fn gather_fortran(&self, first: u64, n: u64) -> Result<Bytes> {
        let shard = &self.shard;
        let item = shard.dtype.itemsize();
        let per_row = shard.row_elements().ok_or_else(|| self.overflow())?;
        let mut ranges = Vec::with_capacity(usize::try_from(per_row).unwrap_or(0));
        for j in 0..per_row {
            let start = j
                .checked_mul(shard.rows)
                .and_then(|e| e.checked_add(first))
                .and_then(|e| e.checked_mul(item))
                .and_then(|b| b.checked_add(shard.data_offset))
                .ok_or_else(|| self.overflow())?;
            ranges.push(start..start + n * item);
        }
        let runs = self
            .store
            .get_ranges(&self.location, &ranges)
            .await
            .map_err(|e| self.store_error(e))?;
        let (item, n, per_row) = (item as usize, n as usize, per_row as usize);
        if let Some(short) = runs.iter().find(|r| r.len() != n * item) {
            return Err(Error::Unsupported {
                path: self.path().to_owned(),
                what: format!(
                    "the store returned {} bytes for a range of {} (the file changed?)",
                    short.len(),
                    n * item
                ),
            }
            .into());
        }
        let mut out = vec![0u8; n * per_row * item];
        // `index`: the multi-index over the axes after the first, Fortran order (first axis
        // fastest); `c`: its C-order flat index.
        let dims: Vec<usize> = shard.trailing.iter().map(|&d| d as usize).collect();
        let mut strides = vec![1usize; dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * dims[k + 1];
        }
        let mut index = vec![0usize; dims.len()];
        for run in &runs {
            let c: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            for r in 0..n {
                let to = (r * per_row + c) * item;
                out[to..to + item].copy_from_slice(&run[r * item..(r + 1) * item]);
            }
            for (k, i) in index.iter_mut().enumerate() {
                *i += 1;
                if *i < dims[k] {
                    break;
                }
                *i = 0;
            }
        }
        Ok(Bytes::from(out))
    }
}
