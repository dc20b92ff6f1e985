//! Parquet files: written from batches (the columns encoded on every core,
//! `parquet_write`), read as batches after this crate checks what the file claims
//! (`parquet_check`).

use std::fs::File;
use std::io::{Seek, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::convert::MAX_NESTING_DEPTH;
use crate::error::{Context, Error, ErrorKind};
use crate::npy::{contained, Atomic};

/// Writes a Parquet file at `path` (Snappy, pyarrow's default; parquet's other defaults, a
/// dictionary tried for every column: see the crate docs' "Parquet") from the batches `fill`
/// pushes, the columns encoded on every core; row groups are flushed as they fill, so memory
/// stays at about one row group.
///
/// # Errors
/// I/O and parquet errors, naming `path`.
pub fn write_parquet(
    path: impl AsRef<Path>,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut dyn FnMut(&RecordBatch) -> Result<(), Error>) -> Result<(), Error>,
) -> Result<(), Error> {
    write_parquet_with(path.as_ref(), schema, &[], None, |push, stored| {
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
pub(crate) fn parquet_properties(plain: &[String]) -> parquet::file::properties::WriterProperties {
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
pub(crate) fn write_parquet_with(
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
pub(crate) fn parquet_schema_of(schema: &SchemaRef) -> SchemaRef {
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

fn parquet_field(f: &arrow_schema::Field) -> arrow_schema::Field {
    f.clone().with_data_type(parquet_type(f.data_type()))
}

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
pub(crate) fn parquet_array(
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

pub(crate) fn parquet_batch(batch: &RecordBatch, stored: &SchemaRef) -> Result<RecordBatch, Error> {
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
/// dictionary-decoded values stay about [`BATCH_BYTES`](crate::BATCH_BYTES)), into `f` (with the schema first).
///
/// The footer and every page header are checked first (the module `parquet_check`): a schema
/// nested deeper than [`MAX_NESTING_DEPTH`] is [`ErrorKind::Budget`]; chunks or pages past
/// their bounds, sizes and counts their bytes cannot hold, row counts the pages do not hold
/// are [`ErrorKind::Malformed`].
///
/// # Errors
/// I/O and parquet errors, the checks' errors, naming `path`.
pub fn read_parquet(
    path: impl AsRef<Path>,
    batch_rows: usize,
    schema: impl FnOnce(SchemaRef) -> Result<(), Error>,
    f: impl FnMut(RecordBatch) -> Result<(), Error>,
) -> Result<(), Error> {
    read_parquet_with(path.as_ref(), batch_rows, MAX_NESTING_DEPTH, schema, f)
}

/// [`read_parquet`] with a nesting budget of `max_depth` groups.
pub(crate) fn read_parquet_with(
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

/// The schema of the Parquet file at `path` and the rows it holds (checked as
/// [`read_parquet`] checks them).
pub(crate) fn parquet_schema(path: &Path, max_depth: usize) -> Result<(SchemaRef, u64), Error> {
    let (builder, summary) = parquet_builder(path, max_depth)?;
    Ok((builder.schema().clone(), summary.rows))
}
