//! Parquet row groups encoded on several threads: each column chunk has one writer, each
//! writer lives on one thread (a lane), and the thread that reads the batches hands every
//! lane its columns' leaves. The file is the one [`parquet::arrow::ArrowWriter`] writes with
//! the same properties (the same row groups, pages, encodings and footer): only where the
//! encoding runs differs.

use std::io::Write;
use std::sync::mpsc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn,
    ArrowRowGroupWriterFactory,
};
use parquet::basic::Type as PhysicalType;
use parquet::errors::ParquetError;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnDescriptor;

/// Batches a lane may have queued: its memory bound (each batch is one of
/// `PARQUET_BATCH_BYTES` of `.npy` data) while the reading thread runs ahead.
const QUEUED: usize = 2;

/// What the reading thread asks of a lane, in order.
enum Job {
    /// Writers for the lane's columns of a new row group.
    Start(Vec<ArrowColumnWriter>),
    /// The lane's leaves of one batch, one per writer, in the writers' order.
    Write(Vec<ArrowLeafColumn>),
    /// Close the row group's writers and send their chunks (or the first error).
    Close(mpsc::SyncSender<Result<Vec<ArrowColumnChunk>, ParquetError>>),
}

/// A lane's writers and the first error they returned (later writes are skipped; the error
/// is answered at the next `Close`).
#[derive(Default)]
struct Lane {
    writers: Vec<ArrowColumnWriter>,
    error: Option<ParquetError>,
}

impl Lane {
    fn run(&mut self, job: Job) {
        match job {
            Job::Start(writers) => self.writers = writers,
            Job::Write(leaves) => {
                if self.error.is_none() {
                    for (w, leaf) in self.writers.iter_mut().zip(&leaves) {
                        if let Err(e) = w.write(leaf) {
                            self.error = Some(e);
                            return;
                        }
                    }
                }
            }
            Job::Close(reply) => {
                let writers = std::mem::take(&mut self.writers);
                let chunks = match self.error.take() {
                    Some(e) => Err(e),
                    None => writers.into_iter().map(ArrowColumnWriter::close).collect(),
                };
                // The reading thread waits for this answer; it is gone only when it already
                // failed, and then the answer is not needed.
                let _ = reply.send(chunks);
            }
        }
    }
}

/// Where a lane runs: on the reading thread itself (one core), or on a thread of its own fed
/// through a bounded queue.
enum Runner {
    Inline(Lane),
    Thread(mpsc::SyncSender<Job>),
}

impl Runner {
    fn send(&mut self, job: Job) -> Result<(), ParquetError> {
        match self {
            Runner::Inline(lane) => {
                lane.run(job);
                Ok(())
            }
            Runner::Thread(tx) => tx
                .send(job)
                .map_err(|_| ParquetError::General("a column-encoding thread stopped".into())),
        }
    }
}

/// Relative CPU cost per value of encoding a leaf of `column` (dictionary attempt, page
/// statistics, Snappy), used only to balance the lanes. Measured on issue 24's 1M-record file
/// with one `ArrowColumnWriter` per column on one thread: `i8` id 25 ms, `U12` name 42 ms,
/// `f4` score 18 ms, `M8[ms]` 22 ms, `?` 3 ms.
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

/// The lane of each leaf: the heaviest leaves first, each to the lane with the least weight
/// so far (longest-processing-time scheduling).
fn assign(columns: &[std::sync::Arc<ColumnDescriptor>], lanes: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&columns[i])));
    let mut load = vec![0u64; lanes];
    let mut lane_of = vec![0; columns.len()];
    for i in order {
        let (lane, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(_, l)| *l)
            .unwrap_or((0, &0));
        lane_of[i] = lane;
        load[lane] += weight(&columns[i]);
    }
    lane_of
}

/// The reading side: splits batches into row groups as `ArrowWriter` does (at
/// `max_row_group_row_count` rows), hands out the leaves, and appends each closed row group's
/// chunks to the file in column order.
pub(crate) struct Encoder<'a, W: Write + Send> {
    file: &'a mut SerializedFileWriter<W>,
    factory: &'a ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    lane_of: Vec<usize>,
    runners: Vec<Runner>,
    max_rows: usize,
    /// Rows in the open row group (`None`: none open).
    buffered: Option<usize>,
    row_groups: usize,
}

/// Encodes the batches `fill` pushes into `file` (whose schema is `schema`'s), on as many
/// lanes as the machine has cores (at most one per leaf column), then closes the last row
/// group and writes the footer. The outer error is `fill`'s (encoding errors included, as
/// `ArrowWriter::write` returns them); the inner one the last row group's and the footer's.
pub(crate) fn encode<W: Write + Send, E: From<ParquetError>>(
    file: SerializedFileWriter<W>,
    factory: &ArrowRowGroupWriterFactory,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), E>) -> Result<(), E>,
) -> Result<Result<W, ParquetError>, E> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    encode_on(cores, file, factory, schema, fill)
}

/// [`encode`] on at most `lanes` lanes (1: all on the calling thread).
fn encode_on<W: Write + Send, E: From<ParquetError>>(
    lanes: usize,
    mut file: SerializedFileWriter<W>,
    factory: &ArrowRowGroupWriterFactory,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), E>) -> Result<(), E>,
) -> Result<Result<W, ParquetError>, E> {
    let columns = file.schema_descr().columns().to_vec();
    let lanes = lanes.min(columns.len()).max(1);
    let lane_of = assign(&columns, lanes);
    let max_rows = file
        .properties()
        .max_row_group_row_count()
        .unwrap_or(usize::MAX)
        .max(1);
    if lanes == 1 {
        let mut e = Encoder {
            file: &mut file,
            factory,
            schema: schema.clone(),
            lane_of,
            runners: vec![Runner::Inline(Lane::default())],
            max_rows,
            buffered: None,
            row_groups: 0,
        };
        fill(&mut |b| e.write(b).map_err(E::from))?;
        let finished = e.finish();
        drop(e);
        return Ok(finished.and_then(|()| file.into_inner()));
    }
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(lanes);
        let mut runners = Vec::with_capacity(lanes);
        for _ in 0..lanes {
            let (tx, rx) = mpsc::sync_channel::<Job>(QUEUED);
            handles.push(scope.spawn(move || {
                let mut lane = Lane::default();
                for job in rx {
                    lane.run(job);
                }
            }));
            runners.push(Runner::Thread(tx));
        }
        let mut e = Encoder {
            file: &mut file,
            factory,
            schema: schema.clone(),
            lane_of,
            runners,
            max_rows,
            buffered: None,
            row_groups: 0,
        };
        let result = fill(&mut |b| e.write(b).map_err(E::from)).map(|()| e.finish());
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
    .map(|finished| finished.and_then(|()| file.into_inner()))
}

impl<W: Write + Send> Encoder<'_, W> {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        let mut rest = batch.clone();
        while rest.num_rows() > 0 {
            let buffered = match self.buffered {
                Some(n) => n,
                None => {
                    self.start()?;
                    0
                }
            };
            let room = self.max_rows - buffered;
            let piece = if rest.num_rows() > room {
                let piece = rest.slice(0, room);
                rest = rest.slice(room, rest.num_rows() - room);
                piece
            } else {
                std::mem::replace(&mut rest, batch.slice(0, 0))
            };
            let mut per_lane: Vec<Vec<ArrowLeafColumn>> =
                self.runners.iter().map(|_| Vec::new()).collect();
            let mut leaf = 0;
            for (field, column) in self.schema.fields().iter().zip(piece.columns()) {
                for l in compute_leaves(field, column)? {
                    let lane = self.lane_of.get(leaf).copied().ok_or_else(|| {
                        ParquetError::General("more leaves than the schema's columns".into())
                    })?;
                    per_lane[lane].push(l);
                    leaf += 1;
                }
            }
            for (runner, leaves) in self.runners.iter_mut().zip(per_lane) {
                if !leaves.is_empty() {
                    runner.send(Job::Write(leaves))?;
                }
            }
            let now = buffered + piece.num_rows();
            self.buffered = Some(now);
            if now >= self.max_rows {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Opens a row group: its writers, each sent to its column's lane.
    fn start(&mut self) -> Result<(), ParquetError> {
        let writers = self.factory.create_column_writers(self.row_groups)?;
        let mut per_lane: Vec<Vec<ArrowColumnWriter>> =
            self.runners.iter().map(|_| Vec::new()).collect();
        for (w, &lane) in writers.into_iter().zip(&self.lane_of) {
            per_lane[lane].push(w);
        }
        for (runner, ws) in self.runners.iter_mut().zip(per_lane) {
            runner.send(Job::Start(ws))?;
        }
        self.buffered = Some(0);
        Ok(())
    }

    /// Closes the open row group (if any) and appends its chunks in column order.
    fn flush(&mut self) -> Result<(), ParquetError> {
        if self.buffered.take().is_none() {
            return Ok(());
        }
        let mut replies = Vec::with_capacity(self.runners.len());
        for runner in &mut self.runners {
            let (tx, rx) = mpsc::sync_channel(1);
            runner.send(Job::Close(tx))?;
            replies.push(rx);
        }
        let mut chunks = Vec::with_capacity(replies.len());
        for rx in replies {
            let got = rx
                .recv()
                .map_err(|_| ParquetError::General("a column-encoding thread stopped".into()))??;
            chunks.push(got.into_iter());
        }
        let mut group = self.file.next_row_group()?;
        for &lane in &self.lane_of {
            let chunk = chunks[lane]
                .next()
                .ok_or_else(|| ParquetError::General("a lane closed fewer columns".into()))?;
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.row_groups += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), ParquetError> {
        self.flush()
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
        fill: impl FnOnce(
            &mut dyn FnMut(&RecordBatch) -> Result<(), ParquetError>,
        ) -> Result<(), ParquetError>,
    ) -> Result<Result<Vec<u8>, ParquetError>, ParquetError> {
        let w = ArrowWriter::try_new(Vec::new(), bs[0].schema(), Some(props())).unwrap();
        let (file, factory) = w.into_serialized_writer().unwrap();
        super::encode_on::<_, ParquetError>(lanes, file, &factory, &bs[0].schema(), fill)
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
                Err(ParquetError::General("stop".into()))
            });
            assert!(matches!(got, Err(ParquetError::General(m)) if m == "stop"));
        }
    }

    #[test]
    fn an_encoding_error_is_returned() {
        // A null in a column the schema declares non-nullable: ArrowWriter refuses it when
        // the leaf is written, so must every lane.
        let nullable = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
        let with_null = RecordBatch::try_new(
            nullable,
            vec![Arc::new(Int64Array::from(vec![Some(1), None]))],
        )
        .unwrap();
        let strict = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        for lanes in [1, 2] {
            let w = ArrowWriter::try_new(Vec::new(), strict.clone(), Some(props())).unwrap();
            let (file, factory) = w.into_serialized_writer().unwrap();
            let got = super::encode_on::<_, ParquetError>(lanes, file, &factory, &strict, |push| {
                push(&with_null)
            });
            let err = match got {
                Err(e) => e.to_string(),
                Ok(Err(e)) => e.to_string(),
                Ok(Ok(_)) => panic!("a null was written into a non-nullable column"),
            };
            assert!(err.contains("null") || err.contains("Null"), "{err}");
        }
    }
}
