//! [`convert`]: one file to another by their extensions, the (input, output) pair decided
//! once by [`Format`] and handed to the module that reads the input as batches and the one
//! that writes the output from them.

use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
#[cfg(feature = "parquet")]
use std::sync::Arc;

use arrow_array::RecordBatch;
#[cfg(feature = "parquet")]
use arrow_buffer::Buffer;
use arrow_schema::SchemaRef;

#[cfg(feature = "parquet")]
use crate::error::overflow;
use crate::error::{Context, Error, ErrorKind};
use crate::from_arrow::{FromArrowOptions, NpyPlan};
use crate::ipc::{ipc_schema, read_ipc, write_ipc};
#[cfg(feature = "parquet")]
use crate::npy::Chunk;
use crate::npy::{
    default_rows, stem_name, with_source, with_stream_source, Atomic, Source, BATCH_BYTES,
    MAX_UNBACKED_ROWS,
};
#[cfg(feature = "parquet")]
use crate::parquet::{
    parquet_array, parquet_batch, parquet_properties, parquet_schema, parquet_schema_of,
    read_parquet_with, write_parquet, write_parquet_with,
};
#[cfg(feature = "parquet")]
use crate::to_arrow::ColumnPlan;

/// Bytes of `.npy` data per batch when [`convert`] writes Parquet: batches that stay in the
/// cache while the column writers encode them. Measured on issue 24's 1M-record file
/// (`perf stat`, 5 runs each, twice): 1 MiB batches (15,197 rows) took 180 ms of CPU against
/// 204-214 ms for [`BATCH_BYTES`], at half the peak memory (36 MB against 69 MB); 0.5 MiB
/// took 190-202 ms. The batches do not show in the file (its row groups are up to 1 Mi rows).
#[cfg(feature = "parquet")]
const PARQUET_BATCH_BYTES: usize = 1 << 20;

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
    /// The formats of the input and the output, for a caller that decided them already (the
    /// `npy` command, from its arguments) or files whose names do not say (`None`: each by
    /// its extension, [`Format::of`]).
    pub formats: Option<(Format, Format)>,
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
            formats: None,
        }
    }

    /// The input's and the output's formats, whatever their names (see the field).
    ///
    /// # Examples
    /// ```
    /// use npy_arrow::{ConvertOptions, Format};
    /// let options = ConvertOptions::new().formats(Format::Npy, Format::Parquet);
    /// assert_eq!(options.formats, Some((Format::Npy, Format::Parquet)));
    /// ```
    #[must_use]
    pub fn formats(mut self, input: Format, output: Format) -> Self {
        self.formats = Some((input, output));
        self
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
    let (from, to) = match options.formats {
        Some(formats) => formats,
        None => (kind(input)?, kind(output)?),
    };
    let member = options.member.as_deref();
    match (from, to) {
        (Format::Npy | Format::Npz, Format::Ipc | Format::Parquet) => {
            let mut input = Input::File {
                path: input,
                member,
                from,
            };
            npy_to_table(&mut input, output, to, options, &mut progress)
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

/// Where the array [`npy_to_table`] writes comes from: an `.npy` file or `.npz` member by
/// path (opened at each read), or an `.npy` byte stream (sought back to where it started at
/// each read).
enum Input<'a> {
    File {
        path: &'a Path,
        member: Option<&'a str>,
        /// `Npy` or `Npz`.
        #[cfg_attr(
            not(feature = "parquet"),
            allow(dead_code, reason = "read by the Parquet writer only")
        )]
        from: Format,
    },
    Stream {
        npy: &'a mut dyn ReadSeek,
        /// The stream's position of its first byte (the `.npy` magic).
        start: u64,
        /// The array's name (a plain array's column), as an `.npz` member's key names it.
        name: &'a str,
    },
}

/// [`Read`] + [`Seek`], as one trait object.
trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

impl Input<'_> {
    /// Opens the array (a file, or the stream from its start) and runs `f` on it.
    fn with<T>(&mut self, f: impl FnOnce(&mut Source<'_>) -> Result<T, Error>) -> Result<T, Error> {
        match self {
            Input::File { path, member, .. } => with_source(path, *member, false, f),
            Input::Stream { npy, start, name } => {
                npy.seek(SeekFrom::Start(*start))
                    .map_err(|e| Error::from(e).in_member(name))?;
                let mut npy: &mut dyn ReadSeek = &mut **npy;
                with_stream_source(&mut npy, name, f)
            }
        }
    }
}

/// An `.npy` array (`input`) written as an Arrow IPC or Parquet table (`to`), streamed batch
/// by batch: the array is opened once for its schema (and Parquet's column plan) and once
/// for its data.
fn npy_to_table(
    input: &mut Input<'_>,
    output: &Path,
    to: Format,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    match to {
        Format::Ipc => {
            let schema = input.with(|s| s.schema())?;
            write_ipc(output, &schema, |push| {
                input.with(|s| {
                    s.for_each_batch(options.batch_rows, &mut |b, done, total| {
                        push(&b)?;
                        progress(done, total);
                        Ok(())
                    })
                })
            })
        }
        #[cfg(feature = "parquet")]
        Format::Parquet => {
            let (schema, rows, row_bytes, plan) = input.with(|s| {
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
            // hold): they name the input and its member (an .npz member's or a stream's
            // column plan is named by its key), not the output the writer reports them with.
            let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
            let (source, npy_file) = match input {
                Input::File { path, from, .. } => (
                    Some(path.to_path_buf()),
                    (*from == Format::Npy).then_some(*path),
                ),
                Input::Stream { .. } => (None, None),
            };
            let key = npy_file.is_none().then(|| plan.name().to_owned());
            let gather: Arc<crate::parquet_write::Gather> =
                Arc::new(move |i: usize, data: &Buffer, rows: usize| {
                    plan.check(rows, data)
                        .and_then(|_| plan.gather(i, rows, data, false))
                        .and_then(|c| parquet_array(&c, names.get(i).map_or("", String::as_str)))
                        .map_err(|e| {
                            let e = match &source {
                                Some(p) => e.at_path(p),
                                None => e,
                            };
                            match &key {
                                Some(k) => e.in_member(k),
                                None => e,
                            }
                        })
                });
            // Columns whose dictionary every row group would abandon (sampled from the file
            // itself, so only for a plain .npy) are written plain from the start.
            let plain = match npy_file {
                Some(path) => {
                    let props = parquet_properties(&[]);
                    crate::parquet_write::unique_columns(
                        path,
                        &parquet_schema_of(&schema),
                        props.max_row_group_row_count().unwrap_or(usize::MAX),
                        props.dictionary_page_size_limit(),
                    )
                }
                None => Vec::new(),
            };
            write_parquet_with(output, &schema, &plain, Some(gather), |push, stored| {
                input.with(|s| {
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
        _ => Err(no_parquet()),
    }
}

/// [`convert_with_progress`] of an array that is no file: the `.npy` byte stream `npy` (an
/// `.npy` file's bytes, from where the stream stands when called), written as the Arrow IPC
/// or Parquet file `output` exactly as [`convert`] writes an `.npz` member named `name`
/// (`name` is a plain array's column; the table's schema metadata holds numpy's layout;
/// Parquet tries a dictionary for every column). A tensor of a safetensors file, seen as an
/// `.npy` stream, converts without a temporary file.
///
/// The output's format is the second of [`ConvertOptions::formats`] when set, else the one
/// `output`'s extension names ([`Format::of`]). [`ConvertOptions::member`] is not used (the
/// stream is one array). The stream is read from its start twice, as a file is opened twice:
/// its header (and an object array's pickle) for the schema, then its data, streamed in
/// batches as [`convert`] streams a file (memory: one batch, plus a row group for Parquet).
///
/// # Errors
/// [`ErrorKind::Invalid`] naming `output` when its format is not Arrow IPC or Parquet;
/// npy-core's errors reading the stream (its header, data that ends early) and the mapping's
/// errors, naming the member `name` (the caller knows where the stream comes from, and adds
/// it with [`Error::at_path`]); the writer's errors, naming `output`.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let mut npy = Vec::new();
/// npy_core::WriteOptions::new().write_to(&mut npy, &[1.5f32, 2.5], &[2])?;
/// let out = dir.path().join("t.arrow");
/// let options = npy_arrow::ConvertOptions::new();
/// npy_arrow::convert_npy_stream(std::io::Cursor::new(npy), "w", &out, &options, |_, _| {})?;
/// let mut names = Vec::new();
/// npy_arrow::read_ipc(&out, |_| Ok(()), |b| {
///     names.push(b.schema().field(0).name().clone());
///     Ok(())
/// })?;
/// assert_eq!(names, ["w"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_npy_stream<R: Read + Seek>(
    mut npy: R,
    name: &str,
    output: impl AsRef<Path>,
    options: &ConvertOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), Error> {
    let output = output.as_ref();
    let to = match options.formats {
        Some((_, to)) => Some(to),
        None => Format::of(output),
    };
    let Some(to @ (Format::Ipc | Format::Parquet)) = to else {
        return Err(Error::new(ErrorKind::Invalid(
            "an .npy stream is written as Arrow IPC (.arrow, .ipc, .feather) or Parquet (.parquet)"
                .into(),
        ))
        .at_path(output));
    };
    let start = npy
        .stream_position()
        .map_err(|e| Error::from(e).in_member(name))?;
    let mut input = Input::Stream {
        npy: &mut npy,
        start,
        name,
    };
    npy_to_table(&mut input, output, to, options, &mut progress)
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

/// Reads an IPC or Parquet file twice: the plan ([`NpyFromTable::open`]), then the data,
/// written as an `.npy` file or an `.npz` of one member named by the input's stem.
fn arrow_to_npy(
    input: &Path,
    from: Format,
    output: &Path,
    to: Format,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    let table = NpyFromTable::plan(input, from, options)?;
    let write_npy = |w: &mut dyn Write, progress: &mut dyn FnMut(u64, u64)| -> Result<(), Error> {
        w.write_all(&table.header_bytes)?;
        table.write_data(w, progress)
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

/// An Arrow IPC or Parquet file read as the `.npy` array [`convert`] writes for it, for a
/// caller that writes the array elsewhere than an `.npy` or `.npz` file (a safetensors
/// tensor: its header needs the dtype and shape before the data). [`NpyFromTable::open`]
/// reads the file a first time (the rows and string widths: the array's
/// [`header`](NpyFromTable::header)), [`NpyFromTable::write_data`] a second time, writing the
/// data bytes; as [`convert`] to `.npy`, batch by batch, within the same budgets.
///
/// # Examples
/// ```
/// # let dir = tempfile::tempdir()?;
/// let npy = dir.path().join("x.npy");
/// npy_core::write(&npy, &[1i32, 2, 3], &[3])?;
/// let arrow = dir.path().join("x.arrow");
/// npy_arrow::convert(&npy, &arrow, &npy_arrow::ConvertOptions::new())?;
/// let table = npy_arrow::NpyFromTable::open(&arrow, &npy_arrow::ConvertOptions::new())?;
/// assert_eq!(table.header().shape, [3]);
/// let mut data = Vec::new();
/// table.write_data(&mut data, |_, _| {})?;
/// assert_eq!(data.len(), 12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct NpyFromTable {
    input: std::path::PathBuf,
    from: Format,
    options: ConvertOptions,
    plan: NpyPlan,
    header: npy_core::Header,
    /// The header as an `.npy` file holds it.
    header_bytes: Vec<u8>,
    /// Bytes of a row of the array.
    row_bytes: u64,
}

impl NpyFromTable {
    /// Reads the Arrow IPC or Parquet file `input` a first time: its schema, rows and string
    /// widths make the array's header. Its format is the first of [`ConvertOptions::formats`]
    /// when set, else the one its extension names ([`Format::of`]); the options' fill and
    /// budgets apply as in [`convert`] (a Parquet file's claimed rows are checked before
    /// they are decoded, the exact output before this returns).
    ///
    /// # Errors
    /// [`ErrorKind::Invalid`] naming `input` when its format is neither Arrow IPC nor Parquet,
    /// and for Parquet without the feature `parquet`; as [`convert`] from that format: the
    /// readers' errors, the mapping's ([`ErrorKind::UnsupportedArrowType`], ...) and the
    /// budgets' ([`ErrorKind::Budget`], [`ErrorKind::UnbackedRows`]), naming `input`.
    pub fn open(input: impl AsRef<Path>, options: &ConvertOptions) -> Result<NpyFromTable, Error> {
        let input = input.as_ref();
        let from = match options.formats {
            Some((from, _)) => Some(from),
            None => Format::of(input),
        };
        match from {
            Some(from @ (Format::Ipc | Format::Parquet)) => Self::plan(input, from, options),
            _ => Err(Error::new(ErrorKind::Invalid(
                "the input is read as a table when it is Arrow IPC (.arrow, .ipc, .feather) or Parquet (.parquet)"
                    .into(),
            ))
            .at_path(input)),
        }
    }

    /// The array's `.npy` header: its dtype (the columns' types), shape (the rows, and a
    /// tensor column's shape) and order (C).
    pub fn header(&self) -> &npy_core::Header {
        &self.header
    }

    /// Reads the input a second time and writes the array's data bytes into `w`
    /// ([`Header::nbytes`](npy_core::Header::nbytes) of the [header](NpyFromTable::header):
    /// what an `.npy` file holds after its header), about [`BATCH_BYTES`] at a time (a row
    /// at least), calling `progress(done, total)` with the data bytes written so far and in
    /// all.
    ///
    /// # Errors
    /// The readers' and the mapping's errors, naming the input; [`ErrorKind::Invalid`] when
    /// the input gives other rows than on the first read (it changed meanwhile), naming the
    /// input; [`ErrorKind::Io`] for `w`'s errors, naming no file (the caller knows `w`).
    pub fn write_data(
        &self,
        w: &mut dyn Write,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<(), Error> {
        let (options, fa) = (&self.options, &self.options.from_arrow);
        let (row_bytes, total) = (self.row_bytes, self.plan.rows());
        // Rows encoded at once: about BATCH_BYTES of output (a row at least).
        let per = default_rows(row_bytes, BATCH_BYTES);
        let mut done = 0u64;
        // `w`'s error, kept apart: the readers name the input in every error of their
        // callback, and this one is not the input's.
        let mut failed: Option<std::io::Error> = None;
        let read = read_table(
            &self.input,
            self.from,
            options,
            options.batch_rows.unwrap_or(per).min(64 * 1024),
            &mut |b| {
                let mut at = 0;
                while at < b.num_rows() {
                    let len = per.min(b.num_rows() - at);
                    let bytes = self.plan.encode(&b.slice(at, len), done, fa)?;
                    if let Err(e) = w.write_all(&bytes) {
                        let stop = Error::new(ErrorKind::Invalid(e.to_string()));
                        failed = Some(e);
                        return Err(stop);
                    }
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
        );
        if let Some(e) = failed {
            return Err(e.into());
        }
        read?;
        if done != total {
            return Err(Error::new(ErrorKind::Invalid(format!(
                "the input gave {total} rows on the first read and {done} on the second"
            )))
            .at_path(&self.input));
        }
        Ok(())
    }

    /// The first read of `input` (`from`: IPC or Parquet).
    ///
    /// Bounded by the options' budgets: a Parquet input's rows (as its footer claims them,
    /// checked against its pages) are checked against the output budget and the budget of
    /// rows without bytes before the first read; the exact output (every string width known)
    /// before returning. The second read encodes at most about [`BATCH_BYTES`] of output at a
    /// time (one row when a row is wider).
    fn plan(input: &Path, from: Format, options: &ConvertOptions) -> Result<NpyFromTable, Error> {
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
        let plan: std::cell::RefCell<Option<NpyPlan>> = std::cell::RefCell::new(None);
        let fa = &options.from_arrow;
        read_table(
            input,
            from,
            options,
            options.batch_rows.unwrap_or(64 * 1024),
            &mut |b| {
                let mut plan = plan.borrow_mut();
                let plan = plan.as_mut().expect("the readers give the schema first");
                plan.observe(&b)?;
                // The widths seen so far already size every claimed row: a wide string
                // repeated by a dictionary is refused at its first batch, not after decoding
                // every row.
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
        options
            .check_output(plan.rows(), row_bytes, header_bytes.len() as u64, input_len)
            .at_path(input)?;
        Ok(NpyFromTable {
            input: input.to_owned(),
            from,
            options: options.clone(),
            plan,
            header,
            header_bytes,
            row_bytes,
        })
    }
}

/// Reads the IPC or Parquet file `input` (`from`) batch by batch into `f`, its schema first
/// into `s`; Parquet `rows_per` rows at a time.
fn read_table(
    input: &Path,
    from: Format,
    options: &ConvertOptions,
    rows_per: usize,
    f: &mut dyn FnMut(RecordBatch) -> Result<(), Error>,
    s: &mut dyn FnMut(SchemaRef) -> Result<(), Error>,
) -> Result<(), Error> {
    // Only Parquet reads in batches of rows, and with the options' nesting budget.
    #[cfg(not(feature = "parquet"))]
    let _ = (rows_per, options);
    match from {
        Format::Ipc => read_ipc(input, s, f),
        #[cfg(feature = "parquet")]
        Format::Parquet => read_parquet_with(input, rows_per, options.max_nesting_depth, s, f),
        _ => Err(no_parquet()),
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
