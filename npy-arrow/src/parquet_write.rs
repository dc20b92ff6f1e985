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
            let w = ArrowWriter::try_new(Vec::new(), bs[0].schema(), Some(props())).unwrap();
            let (file, factory) = w.into_serialized_writer().unwrap();
            let got = super::encode_on::<_, ParquetError>(
                lanes,
                file,
                &factory,
                &bs[0].schema(),
                |push| bs.iter().try_for_each(push),
            )
            .unwrap()
            .unwrap();
            assert!(got == expected, "{lanes} lanes wrote another file");
        }
    }

    #[test]
    fn a_fill_error_is_returned_and_the_lanes_stop() {
        let bs = batches();
        for lanes in [1, 2] {
            let w = ArrowWriter::try_new(Vec::new(), bs[0].schema(), Some(props())).unwrap();
            let (file, factory) = w.into_serialized_writer().unwrap();
            let got = super::encode_on::<_, ParquetError>(
                lanes,
                file,
                &factory,
                &bs[0].schema(),
                |push| {
                    push(&bs[0])?;
                    Err(ParquetError::General("stop".into()))
                },
            );
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
