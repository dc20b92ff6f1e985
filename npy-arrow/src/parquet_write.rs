//! Parquet row groups encoded on several threads: each top-level column has its writers (one
//! per leaf) on one thread (a lane), and the thread that reads the file hands every lane its
//! columns, or the bytes it builds them from. The file is the one
//! [`parquet::arrow::ArrowWriter`] writes with the same properties (the same row groups,
//! pages, encodings and footer): only where the work runs differs.

use std::io::Write;
use std::sync::{mpsc, Arc};

use arrow_array::{ArrayRef, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowRowGroupWriterFactory,
};
use parquet::basic::Type as PhysicalType;
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnDescriptor;

use crate::error::Error;

/// Batches a lane may have queued: its memory bound (each batch is one of
/// `PARQUET_BATCH_BYTES` of `.npy` data) while the reading thread runs ahead.
const QUEUED: usize = 2;

/// Builds top-level column `index` of the batch of `rows` rows whose `.npy` bytes are the
/// buffer, in the type it is stored as.
pub(crate) type Gather = dyn Fn(usize, &Buffer, usize) -> Result<ArrayRef, Error> + Send + Sync;

/// What the reading thread hands the encoder.
pub(crate) enum Piece<'a> {
    /// A batch of the stored schema.
    Batch(&'a RecordBatch),
    /// `rows` rows of `row_bytes` bytes each, from which each lane builds its own columns with
    /// the encoder's [`Gather`]: the columns are then built on the threads that encode them.
    Bytes {
        data: Buffer,
        rows: usize,
        row_bytes: usize,
    },
}

/// A lane's share of one piece.
enum Part {
    /// Its columns, in its columns' order.
    Columns(Vec<ArrayRef>),
    /// The bytes of `rows` rows.
    Bytes(Buffer, usize),
}

/// What the reading thread asks of a lane, in order.
enum Job {
    /// Writers for the lane's leaves of a new row group.
    Start(Vec<ArrowColumnWriter>),
    /// The lane's part of one piece.
    Write(Part),
    /// Close the row group's writers and send their chunks (or the first error).
    Close(mpsc::SyncSender<Result<Vec<ArrowColumnChunk>, Error>>),
}

/// A lane's top-level columns, their writers (one per leaf, in leaf order) and the first
/// error they returned (later writes are skipped; the error is answered at the next `Close`).
struct Lane {
    schema: SchemaRef,
    columns: Vec<usize>,
    gather: Option<Arc<Gather>>,
    writers: Vec<ArrowColumnWriter>,
    error: Option<Error>,
}

impl Lane {
    fn run(&mut self, job: Job) {
        match job {
            Job::Start(writers) => self.writers = writers,
            Job::Write(part) => {
                if self.error.is_none() {
                    if let Err(e) = self.write(&part) {
                        self.error = Some(e);
                    }
                }
            }
            Job::Close(reply) => {
                let writers = std::mem::take(&mut self.writers);
                let chunks = match self.error.take() {
                    Some(e) => Err(e),
                    None => writers
                        .into_iter()
                        .map(|w| w.close().map_err(Error::from))
                        .collect(),
                };
                // The reading thread waits for this answer; it is gone only when it already
                // failed, and then the answer is not needed.
                let _ = reply.send(chunks);
            }
        }
    }

    /// Builds (for bytes) each of the lane's columns, splits it into its leaves and writes
    /// them.
    fn write(&mut self, part: &Part) -> Result<(), Error> {
        let mut writers = self.writers.iter_mut();
        for (k, &c) in self.columns.iter().enumerate() {
            let array = match part {
                Part::Columns(arrays) => arrays.get(k).cloned().ok_or_else(|| {
                    ParquetError::General("a lane was handed fewer columns".into())
                })?,
                Part::Bytes(data, rows) => {
                    let gather = self.gather.as_ref().ok_or_else(|| {
                        ParquetError::General(
                            "bytes were handed to an encoder without a gather".into(),
                        )
                    })?;
                    gather(c, data, *rows)?
                }
            };
            for leaf in compute_leaves(self.schema.field(c), &array)? {
                let w = writers.next().ok_or_else(|| {
                    ParquetError::General("a lane holds fewer writers than leaves".into())
                })?;
                w.write(&leaf)?;
            }
        }
        Ok(())
    }
}

/// Where a lane runs: on the reading thread itself (one core), or on a thread of its own fed
/// through a bounded queue.
enum Runner {
    Inline(Lane),
    Thread(mpsc::SyncSender<Job>),
}

impl Runner {
    fn send(&mut self, job: Job) -> Result<(), Error> {
        match self {
            Runner::Inline(lane) => {
                lane.run(job);
                Ok(())
            }
            Runner::Thread(tx) => tx.send(job).map_err(|_| stopped()),
        }
    }
}

fn stopped() -> Error {
    ParquetError::General("a column-encoding thread stopped".into()).into()
}

/// Relative CPU cost per value of encoding a leaf of `column` (dictionary attempt, page
/// statistics, Snappy; for `.npy` bytes also building the column), used only to balance the
/// lanes. Measured on issue 24's 1M-record file with one `ArrowColumnWriter` per column on
/// one thread: `i8` id 25 ms, `U12` name 42 ms (and 15 ms transcoding), `f4` score 18 ms,
/// `M8[ms]` 22 ms, `?` 3 ms.
fn weight(column: &ColumnDescriptor) -> u64 {
    match column.physical_type() {
        PhysicalType::BOOLEAN => 2,
        PhysicalType::INT32 | PhysicalType::FLOAT => 12,
        PhysicalType::INT64 | PhysicalType::DOUBLE => 16,
        PhysicalType::INT96 => 20,
        PhysicalType::BYTE_ARRAY => 28,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => 8 + column.type_length().max(0) as u64,
    }
}

/// The lane of each top-level column (`roots`: the top-level column of each leaf, whose
/// weights it sums): the heaviest first, each to the lane with the least weight so far
/// (longest-processing-time scheduling).
fn assign(
    leaves: &[Arc<ColumnDescriptor>],
    roots: &[usize],
    top: usize,
    lanes: usize,
) -> Vec<usize> {
    let mut weights = vec![0u64; top];
    for (leaf, &root) in leaves.iter().zip(roots) {
        if let Some(w) = weights.get_mut(root) {
            *w += weight(leaf);
        }
    }
    let mut order: Vec<usize> = (0..top).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weights[i]));
    let mut load = vec![0u64; lanes];
    let mut lane_of = vec![0; top];
    for i in order {
        let (lane, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(_, l)| *l)
            .unwrap_or((0, &0));
        lane_of[i] = lane;
        load[lane] += weights[i];
    }
    lane_of
}

/// The reading side: splits pieces into row groups as `ArrowWriter` does (at
/// `max_row_group_row_count` rows), hands out the columns, and appends each closed row
/// group's chunks to the file in leaf order.
pub(crate) struct Encoder<'a, W: Write + Send> {
    file: &'a mut SerializedFileWriter<W>,
    factory: &'a ArrowRowGroupWriterFactory,
    /// The lane of each top-level column.
    lane_of: Vec<usize>,
    /// The lane of each leaf.
    leaf_lane: Vec<usize>,
    runners: Vec<Runner>,
    max_rows: usize,
    /// Rows in the open row group (`None`: none open).
    buffered: Option<usize>,
    row_groups: usize,
}

/// Encodes the pieces `fill` pushes into `file` (whose schema is `schema`'s), on as many
/// lanes as the machine has cores (at most one per top-level column), then closes the last
/// row group and writes the footer. `gather` builds the columns of [`Piece::Bytes`] (which
/// `fill` pushes only when it is given). The outer error is `fill`'s (encoding errors
/// included, as `ArrowWriter::write` returns them), or when `fill` fails, the error a lane
/// met in a piece pushed before; the inner one the last row group's and the footer's.
pub(crate) fn encode<W: Write + Send>(
    file: SerializedFileWriter<W>,
    factory: &ArrowRowGroupWriterFactory,
    schema: &SchemaRef,
    gather: Option<Arc<Gather>>,
    fill: impl FnOnce(&mut dyn FnMut(Piece<'_>) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<Result<W, Error>, Error> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    encode_on(cores, file, factory, schema, gather, fill)
}

/// [`encode`] on at most `lanes` lanes (1: all on the calling thread).
fn encode_on<W: Write + Send>(
    lanes: usize,
    mut file: SerializedFileWriter<W>,
    factory: &ArrowRowGroupWriterFactory,
    schema: &SchemaRef,
    gather: Option<Arc<Gather>>,
    fill: impl FnOnce(&mut dyn FnMut(Piece<'_>) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<Result<W, Error>, Error> {
    let descr = file.schema_descr();
    let leaves = descr.columns().to_vec();
    let roots: Vec<usize> = (0..leaves.len())
        .map(|i| descr.get_column_root_idx(i))
        .collect();
    let top = schema.fields().len();
    let lanes = lanes.min(top).max(1);
    let lane_of = assign(&leaves, &roots, top, lanes);
    let leaf_lane: Vec<usize> = roots
        .iter()
        .map(|&r| lane_of.get(r).copied().unwrap_or(0))
        .collect();
    let max_rows = file
        .properties()
        .max_row_group_row_count()
        .unwrap_or(usize::MAX)
        .max(1);
    let lane = |k: usize| Lane {
        schema: schema.clone(),
        columns: (0..top).filter(|&c| lane_of[c] == k).collect(),
        gather: gather.clone(),
        writers: Vec::new(),
        error: None,
    };
    if lanes == 1 {
        let mut e = Encoder {
            file: &mut file,
            factory,
            lane_of: lane_of.clone(),
            leaf_lane,
            runners: vec![Runner::Inline(lane(0))],
            max_rows,
            buffered: None,
            row_groups: 0,
        };
        let finished = match fill(&mut |p| e.write(p)) {
            Ok(()) => e.finish(),
            Err(failed) => return Err(e.earlier(failed)),
        };
        drop(e);
        return Ok(finished.and_then(|()| file.into_inner().map_err(Error::from)));
    }
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(lanes);
        let mut runners = Vec::with_capacity(lanes);
        for k in 0..lanes {
            let (tx, rx) = mpsc::sync_channel::<Job>(QUEUED);
            let mut lane = lane(k);
            handles.push(scope.spawn(move || {
                for job in rx {
                    lane.run(job);
                }
            }));
            runners.push(Runner::Thread(tx));
        }
        let mut e = Encoder {
            file: &mut file,
            factory,
            lane_of: lane_of.clone(),
            leaf_lane,
            runners,
            max_rows,
            buffered: None,
            row_groups: 0,
        };
        let result = match fill(&mut |p| e.write(p)) {
            Ok(()) => Ok(e.finish()),
            Err(failed) => Err(e.earlier(failed)),
        };
        // Closing the queues ends the lanes; a lane's panic is the caller's, as it would be
        // with the writers on this thread.
        drop(e);
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
        result
    })
    .map(|finished| finished.and_then(|()| file.into_inner().map_err(Error::from)))
}

impl<W: Write + Send> Encoder<'_, W> {
    fn write(&mut self, piece: Piece<'_>) -> Result<(), Error> {
        let total = match &piece {
            Piece::Batch(b) => b.num_rows(),
            Piece::Bytes { rows, .. } => *rows,
        };
        let mut at = 0;
        while at < total {
            let buffered = match self.buffered {
                Some(n) => n,
                None => {
                    self.start()?;
                    0
                }
            };
            let len = (self.max_rows - buffered).min(total - at);
            let whole = at == 0 && len == total;
            let mut parts: Vec<Option<Part>> = match &piece {
                Piece::Batch(b) => {
                    let mut per_lane: Vec<Vec<ArrayRef>> =
                        self.runners.iter().map(|_| Vec::new()).collect();
                    for (c, column) in b.columns().iter().enumerate() {
                        let column = if whole {
                            column.clone()
                        } else {
                            column.slice(at, len)
                        };
                        let lane = self.lane_of.get(c).copied().ok_or_else(|| {
                            ParquetError::General("more columns than the schema's".into())
                        })?;
                        per_lane[lane].push(column);
                    }
                    per_lane
                        .into_iter()
                        .map(|v| Some(Part::Columns(v)))
                        .collect()
                }
                Piece::Bytes {
                    data, row_bytes, ..
                } => {
                    let data = if whole {
                        data.clone()
                    } else {
                        data.slice_with_length(at * row_bytes, len * row_bytes)
                    };
                    self.runners
                        .iter()
                        .map(|_| Some(Part::Bytes(data.clone(), len)))
                        .collect()
                }
            };
            for (runner, part) in self.runners.iter_mut().zip(&mut parts) {
                if let Some(part) = part.take() {
                    runner.send(Job::Write(part))?;
                }
            }
            at += len;
            let now = buffered + len;
            self.buffered = Some(now);
            if now >= self.max_rows {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Opens a row group: its writers, each sent to its leaf's lane.
    fn start(&mut self) -> Result<(), Error> {
        let writers = self.factory.create_column_writers(self.row_groups)?;
        let mut per_lane: Vec<Vec<ArrowColumnWriter>> =
            self.runners.iter().map(|_| Vec::new()).collect();
        for (w, &lane) in writers.into_iter().zip(&self.leaf_lane) {
            per_lane[lane].push(w);
        }
        for (runner, ws) in self.runners.iter_mut().zip(per_lane) {
            runner.send(Job::Start(ws))?;
        }
        self.buffered = Some(0);
        Ok(())
    }

    /// Closes the open row group (if any) and appends its chunks in leaf order.
    fn flush(&mut self) -> Result<(), Error> {
        if self.buffered.take().is_none() {
            return Ok(());
        }
        let mut chunks = Vec::with_capacity(self.runners.len());
        for answer in self.close_lanes() {
            chunks.push(answer?.into_iter());
        }
        let mut group = self.file.next_row_group()?;
        for &lane in &self.leaf_lane {
            let chunk = chunks[lane]
                .next()
                .ok_or_else(|| ParquetError::General("a lane closed fewer columns".into()))?;
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.row_groups += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.flush()
    }

    /// The error to return when `fill` failed with `failed`: a lane's error, if one holds
    /// one, as it came from a piece handed out before (lanes answer only at a row group's
    /// close), else `failed`. The open row group is closed without being written.
    fn earlier(&mut self, failed: Error) -> Error {
        if self.buffered.take().is_none() {
            return failed;
        }
        self.close_lanes()
            .into_iter()
            .find_map(Result::err)
            .unwrap_or(failed)
    }

    /// Asks every lane to close its writers and returns the answers in lane order (a lane
    /// that is gone answers [`stopped`]). Every lane is asked before any answer is awaited,
    /// so they close at once.
    fn close_lanes(&mut self) -> Vec<Result<Vec<ArrowColumnChunk>, Error>> {
        let replies: Vec<_> = self
            .runners
            .iter_mut()
            .map(|runner| {
                let (tx, rx) = mpsc::sync_channel(1);
                runner.send(Job::Close(tx)).map(|()| rx)
            })
            .collect();
        replies
            .into_iter()
            .map(|rx| rx?.recv().map_err(|_| stopped())?)
            .collect()
    }
}

/// Rows of each row group whose values [`unique_columns`] compares.
const SAMPLE_ROWS: u64 = 4096;

/// Runs of consecutive rows those are read in (4 rows each): few enough reads (a millisecond
/// per row group from the page cache), and enough runs that a column cycling through fewer
/// values than its dictionary limit holds still repeats one in the sample: two runs overlap
/// in a cycle of `p` values with a probability of about 8 / `p`, so among 1024 runs
/// about 4·1024² / `p` overlaps are expected: 32 for 8-byte values (`p` < 128 Ki), 16 for
/// 4-byte ones, 8 for 2-byte ones (none seen: e⁻⁸, the hardest case). Values repeating at
/// random repeat far more often (4096² / 2`p`).
const SAMPLE_RUNS: u64 = 1024;

/// The widest row [`unique_columns`] samples (its sets then hold at most 16 MiB); wider
/// records keep every dictionary.
const SAMPLE_ITEMSIZE: u64 = 4096;

/// The bytes a dictionary entry of a value of `data_type` takes in Parquet (its physical
/// width; for byte arrays a 4-byte length, and `len` the mean bytes of the sampled values),
/// or `None` for a column not considered (booleans, which have no dictionary, and nested
/// types).
fn entry_bytes(data_type: &arrow_schema::DataType, len: f64) -> Option<f64> {
    use arrow_schema::DataType::*;
    Some(match data_type {
        Int8 | Int16 | Int32 | UInt8 | UInt16 | UInt32 | Float32 | Date32 => 4.0,
        Int64 | UInt64 | Float64 | Timestamp(..) | Duration(_) => 8.0,
        Float16 => 2.0,
        FixedSizeBinary(n) => f64::from(*n),
        Utf8 | Binary => 4.0 + len,
        _ => return None,
    })
}

/// The columns of the plain `.npy` file at `path` (batches of `schema`) whose Parquet
/// dictionary would be abandoned in every row group of `max_rows` rows: [`SAMPLE_ROWS`]
/// rows of each group ([`SAMPLE_RUNS`] runs of consecutive rows, each at a random place in
/// its stretch of the group) hold no value twice, and the group holds more than `limit`
/// bytes of dictionary if its values are as
/// unique as the sample's. Writers that try a dictionary (arrow-rs, pyarrow) fall back to
/// plain encoding once it reaches `limit` bytes; such a column is written plain from the
/// start. A column with repeated values almost surely shows a repeat in the sample (a
/// column whose dictionary stays under `limit` bytes has at most `limit / entry` distinct
/// values; see [`SAMPLE_RUNS`] for the odds), so it keeps its dictionary; when the sample
/// misses, the column is nearly unique, where a dictionary saves little. Only top-level fields of a 1-d array (or a 1-d plain array) are
/// considered; anything the file does not back (a short file, a read error) gives none.
pub(crate) fn unique_columns(
    path: &std::path::Path,
    schema: &SchemaRef,
    max_rows: usize,
    limit: usize,
) -> Vec<String> {
    use std::collections::HashSet;
    use std::io::{Read, Seek, SeekFrom};
    let Ok(reader) = npy_core::NpyReader::open(path) else {
        return Vec::new();
    };
    let meta = reader.meta().clone();
    drop(reader);
    let dtype = meta.dtype();
    if meta.shape().len() != 1 || dtype.has_object() {
        return Vec::new();
    }
    let fields: Vec<(u64, &npy_core::DType)> = match dtype {
        npy_core::DType::Record(r) => r.fields().iter().map(|f| (f.offset, &f.dtype)).collect(),
        other => vec![(0, other)],
    };
    if fields.len() != schema.fields().len() {
        return Vec::new();
    }
    let rows = meta.shape()[0];
    let itemsize = meta.itemsize();
    let Some(end) = rows
        .checked_mul(itemsize)
        .and_then(|n| n.checked_add(meta.data_offset()))
    else {
        return Vec::new();
    };
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    if file.metadata().map_or(true, |m| m.len() < end)
        || itemsize == 0
        || itemsize > SAMPLE_ITEMSIZE
    {
        return Vec::new();
    }
    // Per column: still a candidate, and the string bytes seen (for the entry size).
    let mut candidate: Vec<bool> = schema
        .fields()
        .iter()
        .map(|f| entry_bytes(f.data_type(), 0.0).is_some())
        .collect();
    let max_rows = max_rows.max(1) as u64;
    let mut sample = Vec::new();
    // A fixed seed: the same file is always written the same way.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut start = 0u64;
    while start < rows && candidate.iter().any(|&c| c) {
        let n = max_rows.min(rows - start);
        // A group of at most SAMPLE_ROWS rows is read whole (exact); a larger one in
        // SAMPLE_RUNS runs of consecutive rows, one at a random place in each of as many
        // equal stretches of the group (few reads, even from a disk).
        let (runs, per) = if n <= SAMPLE_ROWS {
            (1, n)
        } else {
            (SAMPLE_RUNS, SAMPLE_ROWS / SAMPLE_RUNS)
        };
        let draws = runs * per;
        // The sampled rows, read first, then compared as slices of this buffer.
        sample.clear();
        for d in 0..runs {
            let (lo, hi) = (n * d / runs, n * (d + 1) / runs);
            // xorshift64
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let first = start + lo + state % (hi - lo - per + 1);
            let at = sample.len();
            sample.resize(at + (per * itemsize) as usize, 0);
            if file
                .seek(SeekFrom::Start(meta.data_offset() + first * itemsize))
                .and_then(|_| file.read_exact(&mut sample[at..]))
                .is_err()
            {
                return Vec::new();
            }
        }
        let mut seen: Vec<HashSet<&[u8]>> = candidate
            .iter()
            .map(|_| HashSet::with_capacity(draws as usize))
            .collect();
        let mut bytes = vec![0u64; candidate.len()];
        for row in sample.chunks_exact(itemsize as usize) {
            for (i, &(offset, dt)) in fields.iter().enumerate() {
                if !candidate[i] {
                    continue;
                }
                let at = offset as usize;
                let Some(v) = row.get(at..at + dt.itemsize() as usize) else {
                    candidate[i] = false;
                    continue;
                };
                bytes[i] += match dt {
                    // Code points (or bytes) before the NUL padding; UTF-8 takes at least
                    // one byte for each.
                    npy_core::DType::Unicode(..) => {
                        v.chunks_exact(4)
                            .rposition(|c| c != [0; 4])
                            .map_or(0, |p| p + 1) as u64
                    }
                    npy_core::DType::Bytes(_) => {
                        v.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1) as u64
                    }
                    _ => 0,
                };
                if !seen[i].insert(v) {
                    candidate[i] = false;
                }
            }
        }
        for (i, f) in schema.fields().iter().enumerate() {
            let mean = bytes[i] as f64 / draws as f64;
            let over =
                entry_bytes(f.data_type(), mean).is_some_and(|e| e * n as f64 > limit as f64);
            candidate[i] &= over;
        }
        start += n;
    }
    schema
        .fields()
        .iter()
        .zip(candidate)
        .filter(|(_, c)| *c)
        .map(|(f, _)| f.name().clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        Array, ArrayRef, BooleanArray, Float32Array, Int64Array, RecordBatch, StringArray,
        StructArray,
    };
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::errors::ParquetError;
    use parquet::file::properties::WriterProperties;

    use super::Piece;
    use crate::error::Error;

    /// Rows `from..from + n` of a table with every kind of leaf the lanes split: numbers,
    /// strings (repeating, so dictionaries are kept), bools, nulls and a struct of two leaves.
    fn batch(from: i64, n: i64) -> RecordBatch {
        let ids: Vec<i64> = (from..from + n).collect();
        let names: Vec<Option<String>> = ids
            .iter()
            .map(|i| (i % 7 != 0).then(|| format!("n{}", i % 50)))
            .collect();
        let inner_a: ArrayRef = Arc::new(Float32Array::from_iter_values(
            ids.iter().map(|&i| i as f32 * 0.5),
        ));
        let inner_b: ArrayRef = Arc::new(
            ids.iter()
                .map(|i| Some(i % 3 == 0))
                .collect::<BooleanArray>(),
        );
        let inner = StructArray::from(vec![
            (Arc::new(Field::new("a", DataType::Float32, false)), inner_a),
            (Arc::new(Field::new("b", DataType::Boolean, true)), inner_b),
        ]);
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
            Field::new("s", inner.data_type().clone(), false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids)),
                Arc::new(StringArray::from(names)),
                Arc::new(inner),
            ],
        )
        .unwrap()
    }

    /// Batches of uneven sizes (one empty) that straddle the row groups of 1000 rows.
    fn batches() -> Vec<RecordBatch> {
        let mut at = 0;
        [700, 0, 650, 1, 2000, 123]
            .iter()
            .map(|&n| {
                let b = batch(at, n);
                at += n;
                b
            })
            .collect()
    }

    fn props() -> WriterProperties {
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(1000))
            .set_data_page_row_count_limit(300)
            .build()
    }

    /// `encode_on` with `lanes` lanes into a serialized writer of `bs`'s schema, fed by `fill`.
    fn encode(
        lanes: usize,
        bs: &[RecordBatch],
        fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), Error>) -> Result<(), Error>,
    ) -> Result<Result<Vec<u8>, Error>, Error> {
        let w = ArrowWriter::try_new(Vec::new(), bs[0].schema(), Some(props())).unwrap();
        let (file, factory) = w.into_serialized_writer().unwrap();
        super::encode_on(lanes, file, &factory, &bs[0].schema(), None, |push| {
            fill(&mut |b| push(Piece::Batch(b)))
        })
    }

    /// The file parquet's own `ArrowWriter` writes: what every lane count must reproduce.
    fn reference() -> Vec<u8> {
        let bs = batches();
        let mut w = ArrowWriter::try_new(Vec::new(), bs[0].schema(), Some(props())).unwrap();
        for b in &bs {
            w.write(b).unwrap();
        }
        w.into_inner().unwrap()
    }

    #[test]
    fn every_lane_count_writes_arrow_writers_file() {
        let expected = reference();
        let bs = batches();
        for lanes in [1, 2, 3, 8] {
            let got = encode(lanes, &bs, |push| bs.iter().try_for_each(push))
                .unwrap()
                .unwrap();
            assert!(got == expected, "{lanes} lanes wrote another file");
        }
    }

    #[test]
    fn a_fill_error_is_returned_and_the_lanes_stop() {
        let bs = batches();
        for lanes in [1, 2] {
            let got = encode(lanes, &bs, |push| {
                push(&bs[0])?;
                Err(ParquetError::General("stop".into()).into())
            });
            assert!(matches!(got, Err(e) if e.to_string().contains("stop")));
        }
    }

    #[test]
    fn an_encoding_error_is_returned() {
        // A column whose type is not the schema's: ArrowWriter refuses it when the leaf is
        // written ("Incompatible type"), so must every lane. (parquet 60 also refuses a null
        // in a non-nullable column there; parquet 59, DataFusion 55's, does not check it.)
        let strings = Arc::new(Schema::new(vec![Field::new("id", DataType::Utf8, false)]));
        let wrong =
            RecordBatch::try_new(strings, vec![Arc::new(StringArray::from(vec!["1", "2"]))])
                .unwrap();
        let strict = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        for lanes in [1, 2] {
            let w = ArrowWriter::try_new(Vec::new(), strict.clone(), Some(props())).unwrap();
            let (file, factory) = w.into_serialized_writer().unwrap();
            let got = super::encode_on(lanes, file, &factory, &strict, None, |push| {
                push(Piece::Batch(&wrong))
            });
            let err = match got {
                Err(e) => e.to_string(),
                Ok(Err(e)) => e.to_string(),
                Ok(Ok(_)) => panic!("a Utf8 column was written as Int64"),
            };
            assert!(err.contains("Incompatible type"), "{err}");
        }
    }

    /// `.npy` bytes of `n` records from row `from` of
    /// `[('id','<i8'), ('name','<U3'), ('s', [('a','<f4'), ('b','?')]), ('v','<i2',(2,))]`
    /// (29 bytes each), laid out by the format's rules.
    fn record_bytes(from: u32, n: u32) -> Vec<u8> {
        let mut out = Vec::new();
        for i in from..from + n {
            out.extend_from_slice(&i64::from(i).to_le_bytes());
            // 'n', 'a' + i % 26, then NULs past i % 3 code points.
            let name = [u32::from('n'), u32::from('a') + i % 26, u32::from('é')];
            for (k, cp) in name.iter().enumerate() {
                let cp = if k < (i % 3 + 1) as usize { *cp } else { 0 };
                out.extend_from_slice(&cp.to_le_bytes());
            }
            out.extend_from_slice(&(i as f32 * 0.25).to_le_bytes());
            out.push(u8::from(i % 2 == 0));
            out.extend_from_slice(&(i as i16).to_le_bytes());
            out.extend_from_slice(&(-(i as i16)).to_le_bytes());
        }
        out
    }

    #[test]
    fn bytes_built_on_the_lanes_write_arrow_writers_file() {
        use arrow_buffer::Buffer;
        let dtype: npy_core::DType =
            "[('id','<i8'), ('name','<U3'), ('s', [('a','<f4'), ('b','?')]), ('v','<i2',(2,))]"
                .parse()
                .unwrap();
        let plan = crate::to_arrow::ColumnPlan::new(&dtype, &[], "x").unwrap();
        let sizes = [700u32, 0, 650, 1, 2000, 123];
        let mut pieces = Vec::new();
        let mut at = 0;
        for &n in &sizes {
            pieces.push((Buffer::from_vec(record_bytes(at, n)), n as usize));
            at += n;
        }
        let schema = plan.schema(0).unwrap();
        // The reference: ArrowWriter fed the batches batch_from_bytes builds.
        let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props())).unwrap();
        for (data, rows) in &pieces {
            let b = crate::to_arrow::batch_from_bytes(&dtype, &[], *rows, data, "x").unwrap();
            w.write(&b).unwrap();
        }
        let expected = w.into_inner().unwrap();
        let plan = Arc::new(plan);
        for lanes in [1, 2, 3, 8] {
            let w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props())).unwrap();
            let (file, factory) = w.into_serialized_writer().unwrap();
            let p = plan.clone();
            let gather: Arc<super::Gather> = Arc::new(move |i: usize, data: &Buffer, rows| {
                p.check(rows, data)?;
                p.gather(i, rows, data, false)
            });
            let got = super::encode_on(lanes, file, &factory, &schema, Some(gather), |push| {
                pieces.iter().try_for_each(|(data, rows)| {
                    push(Piece::Bytes {
                        data: data.clone(),
                        rows: *rows,
                        row_bytes: 29,
                    })
                })
            })
            .unwrap()
            .unwrap();
            assert!(got == expected, "{lanes} lanes wrote another file");
        }
    }

    /// Encodes, on `lanes` lanes, the `.npy` bytes of two records `[('id','<i8'),
    /// ('name','<U1')]` whose second name is a lone surrogate (which UTF-8 cannot hold),
    /// pushed as one piece, then `after` (what `fill` returns after the push).
    fn encode_surrogate(
        lanes: usize,
        after: Result<(), Error>,
    ) -> Result<Result<Vec<u8>, Error>, Error> {
        use arrow_buffer::Buffer;
        let dtype: npy_core::DType = "[('id','<i8'), ('name','<U1')]".parse().unwrap();
        let plan = Arc::new(crate::to_arrow::ColumnPlan::new(&dtype, &[], "x").unwrap());
        let schema = plan.schema(0).unwrap();
        let mut bytes = Vec::new();
        for (id, cp) in [(0i64, 0x41u32), (1, 0xD800)] {
            bytes.extend_from_slice(&id.to_le_bytes());
            bytes.extend_from_slice(&cp.to_le_bytes());
        }
        let w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props())).unwrap();
        let (file, factory) = w.into_serialized_writer().unwrap();
        let gather: Arc<super::Gather> =
            Arc::new(move |i: usize, data: &Buffer, rows| plan.gather(i, rows, data, false));
        super::encode_on(lanes, file, &factory, &schema, Some(gather), |push| {
            push(Piece::Bytes {
                data: Buffer::from_vec(bytes),
                rows: 2,
                row_bytes: 12,
            })?;
            after
        })
    }

    #[test]
    fn a_lanes_value_error_comes_before_a_later_fill_error() {
        for lanes in [1, 2] {
            let later = Err(ParquetError::General("a later read failed".into()).into());
            let Err(err) = encode_surrogate(lanes, later) else {
                panic!("{lanes} lanes: the fill error was not returned")
            };
            assert!(
                matches!(err.kind(), crate::ErrorKind::Value { .. }),
                "{lanes} lanes: {err}"
            );
        }
    }

    #[test]
    fn a_gather_error_names_its_column_and_row() {
        for lanes in [1, 2] {
            let (Err(err) | Ok(Err(err))) = encode_surrogate(lanes, Ok(())) else {
                panic!("a surrogate was written as UTF-8")
            };
            assert!(
                matches!(err.kind(), crate::ErrorKind::Value { .. }),
                "{lanes} lanes: {err}"
            );
            assert!(
                err.to_string().contains("name") && err.to_string().contains("0xd800"),
                "{err}"
            );
        }
    }
}
