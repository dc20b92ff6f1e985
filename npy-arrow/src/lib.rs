//! NumPy `.npy` / `.npz` arrays as Apache Arrow [`RecordBatch`]es, Arrow IPC files and (feature
//! `parquet`) Parquet files, and back.
//!
//! # The mapping
//!
//! Written once (`to_arrow.rs` one way, `from_arrow.rs` the other) and tested row by row
//! against pyarrow (`tests/it/pyarrow.rs`).
//!
//! | numpy | Arrow | back to numpy |
//! |---|---|---|
//! | `b1` | Boolean (a byte other than 0 is `true`, as numpy reads it) | `b1` |
//! | `i1` `i2` `i4` `i8`, `u1` … `u8` | `Int8` … `Int64`, `UInt8` … `UInt64` | the same, native order |
//! | `f2` `f4` `f8` | Float16, Float32, Float64 | the same |
//! | big-endian numbers (`>i4`, …) | the same type, values swapped to native order | native order |
//! | `c8` / `c16` | Struct{`re`, `im`} of Float32 / Float64 | a Struct of exactly `re`, `im` of one float type → `c8` / `c16` |
//! | `M8[s]` `M8[ms]` `M8[us]` `M8[ns]` | Timestamp(unit, no zone); NaT is null | `M8[unit]` (a zone is dropped: the values are UTC instants); null → NaT |
//! | `m8[s]` … `m8[ns]` | Duration(unit); NaT is null | `m8[unit]`; null → NaT |
//! | `M8[D]`, `M8[W]` | Date32 (weeks ×7); NaT is null | Date32 → `M8[D]`, Date64 → `M8[ms]` |
//! | `M8[h]`, `M8[m]`, `m8[D]` `m8[W]` `m8[h]` `m8[m]`, multiples (`M8[10ms]`) | Timestamp/Duration(Second, or the unit), ticks scaled exactly (overflow is an error) | the Arrow unit |
//! | `M8[Y]`, `M8[M]` (no fixed length), `ps` `fs` `as` (finer than Arrow's ns), generic `M8` | refused: [`ErrorKind::UnsupportedDType`] | |
//! | `S<n>` | Binary, the values numpy's `tolist()` gives (trailing NULs stripped, inner NULs kept) | Binary/LargeBinary/BinaryView → `S<longest>` |
//! | `U<n>` | Utf8, as `tolist()` (trailing NULs stripped); a lone surrogate is [`ErrorKind::Value`] | Utf8/LargeUtf8/Utf8View → `U<longest>` (at least 1, as numpy) |
//! | `V<n>` | FixedSizeBinary(n) | `V<n>` |
//! | record | one column per field at the top level (padding dropped; titles dropped) | several columns → a packed record, one field per column; a record of **one** field: a record again when the schema states numpy's layout (below), else that field's plain array (one column → a plain array) |
//! | nested record | Struct | Struct → nested record |
//! | subarray field `(name, t, (d1…dk))` | `arrow.fixed_shape_tensor` extension (shape `[d1…dk]`) over `FixedSizeList(t, d1·…·dk)` | `FixedSizeList` → subarray (tensor shape, or `[size]` without the extension) |
//! | array of shape `(n, d1, …, dk)`, k ≥ 1 | one column per field, each a `fixed_shape_tensor` of shape `[d1…dk]` (a field's subarray shape appended) | one tensor column → an array of shape `(n, d1, …, dk)`; a record array whose layout the schema states → records of shape `(n, d1, …, dk)` again; without it, several columns → records of shape `(n,)` whose fields are subarrays `(d1…dk)` + the field's own |
//! | 0-d array | one row | shape `()` when the schema states numpy's layout, else `(1,)` (a table has rows, no rank 0) |
//! | plain (non-record) array | one column named by the file's stem (`.npz`: the member key) | one column → a plain array (name dropped) |
//! | Fortran order | the logical values as numpy sees them: the data is **transposed** to C order while reading (no permutation metadata) | C order (`np.load` gives an equal array) |
//! | numpy's layout | schema metadata [`NUMPY_DESCR_KEY`] (`numpy:descr`, the dtype as numpy writes it in a header) and [`NUMPY_SHAPE_KEY`] (`numpy:shape`, a JSON list), written by [`convert`] from `.npy`/`.npz` | restores the shape (0-d, N-d records) and a record of one field, when it agrees with the table (below) |
//! | `f16`/`f12` (longdouble), `c32`/`c24` | refused: Arrow has no extended float ([`ErrorKind::UnsupportedDType`]) | |
//! | record without fields (`[]`) | refused: no column to hold its rows | |
//! | `O` (object), 0-d or 1-d | decoded by npy-core's pickle reader (never executes anything): Utf8, Int64 or Float64 when every item but `None` is a `str`, a 64-bit `int` or a `float`; `None` is null; other items, mixed kinds or only `None`: [`ErrorKind::Value`] naming the first item; objects inside records or N-d: [`ErrorKind::UnsupportedDType`] | |
//! | nulls in numbers, bool, strings | | [`ErrorKind::Nulls`] unless [`FromArrowOptions::fill`] gives a value |
//! | null struct or list rows | | [`ErrorKind::NullRows`], fill or not (a record or list row has no null) |
//! | Dictionary, List, Decimal, Null, … | | refused: [`ErrorKind::UnsupportedArrowType`] |
//!
//! ## Round trips
//! `.npy` → `.arrow`/`.parquet` → `.npy` gives back the input's values in the input's shape
//! (0-d, N-d records and records of one field included: the table's schema metadata holds
//! numpy's layout), with the dtype the table's columns say where it differs: the time units
//! Arrow has (`M8[W]` → `M8[D]`, `m8[D]` → `m8[s]`, `M8[2s]` → `M8[s]`; Parquet stores `M8[s]`,
//! `M8[h]` and `M8[m]` as milliseconds, as pyarrow does, so they come back `M8[ms]`), `S`/`U`
//! at the longest value's width (at least 1), native byte order, packed records (no padding,
//! no titles) and C order. Where that dtype is the input's, the output is byte for byte what
//! `np.save` writes for the input in C order. `tests/it/roundtrip.rs` checks this on issue
//! 42's r16 differential (seeded random dtypes, records and shapes), numpy comparing each
//! result with the input array and its `np.save` bytes, pyarrow reading each table.
//!
//! ## numpy's layout in the schema metadata
//! A table written by [`convert`] from a `.npy` file or an `.npz` member (not an object
//! array's) holds, in its schema metadata (IPC: the schema message; Parquet: the stored Arrow
//! schema, as pyarrow keeps its `pandas` key), two keys that other readers ignore:
//!
//! | key | value | example |
//! |---|---|---|
//! | [`NUMPY_DESCR_KEY`] `numpy:descr` | the array's dtype as numpy writes it in a `.npy` header (simple types without quotes) | `<f8`, `[('x', '<f4'), ('id', '>i8', (2,))]` |
//! | [`NUMPY_SHAPE_KEY`] `numpy:shape` | the array's shape, a JSON list | `[]`, `[4, 2, 3]` |
//!
//! Back to `.npy`, the layout is used only when it agrees with the table: both keys parse (a
//! descr npy-core reads, no objects, not a bare subarray; at most 64 dimensions), the columns
//! are exactly those the mapping makes of that dtype and shape (names, nesting, tensor shapes,
//! kinds of number, time, string, `V` width), and the table holds the shape's rows (1 for
//! 0-d). Then the output takes that shape, and a record array stays one (of one field; of
//! shape `(n, d1…dk)`, its fields' tensors split back into each element's fields). Otherwise
//! (a table from elsewhere, metadata that lies) the mapping above applies unchanged. The
//! layout never sizes anything: the output's bytes are the table's rows in the columns' types
//! either way, bounded by the budgets below. The dtype's leaves stay the columns' (the
//! stated byte order, units, string widths and padding are not restored). With
//! [`FromArrowOptions::single_column_plain`] off, a plain array's layout is not applied (one
//! column stays a record of one field, as asked).
//!
//! # Zero copy
//! Numbers in native byte order that are a whole plain array (not a record field) become Arrow
//! buffers without a copy: [`read_npy`] reads the data into one 64-byte aligned buffer and every
//! such column is a slice of it ([`batch_from_bytes`] does the same for a buffer the caller
//! owns, e.g. `Buffer::from_vec(vec)`, and [`batch_from_npy_bytes`] for a memory-mapped
//! file, whose batch points into the map). Record fields are gathered field by field, one pass over
//! the batch's rows per field.
//!
//! # Parquet (feature `parquet`)
//! Files are written as parquet's `ArrowWriter` writes them with Snappy (pyarrow's default
//! codec) and parquet's other defaults: row groups of 1 Mi rows, pages of 1 MiB, page
//! statistics, a dictionary tried for every column (not bools) and abandoned for plain pages
//! once it passes 1 MiB, as pyarrow does. The columns are encoded on every core, the file
//! byte for byte the same. One choice differs from pyarrow's:
//!
//! | column of a plain `.npy` converted by [`convert`] | pyarrow (`write_table`) | ours |
//! |---|---|---|
//! | a top-level column whose dictionary passes 1 MiB in every row group (unique ids, timestamps, floats, strings) | dictionary pages for its first 1 MiB of distinct values, then plain pages | plain pages from the start (no dictionary page): the same values, a file as small or smaller (issue 24's file: 16.9 MB against 18.2 MB, CPU 198–204 → 166–179 ms) |
//! | any other column (repeated values, a dictionary under 1 MiB) | dictionary | dictionary |
//!
//! Which columns pass the limit is judged from 4096 rows of each row group read from the file
//! (1024 runs of 4 consecutive rows, each run at a random place in its stretch of the group,
//! a fixed seed): a column with no value twice in every sample, whose sampled values would
//! take more than 1 MiB of dictionary entries over the group's rows. A column whose
//! dictionary stays under 1 MiB has at most 1 MiB / entry distinct values and then repeats
//! one in the sample except with a probability of about e⁻⁸ in the hardest case (2-byte
//! values cycling through just under 512 Ki of them; e⁻³² for 8-byte values), so it keeps
//! its dictionary; a sample without repeats of a column that does repeat means a nearly
//! unique column, where a dictionary saves little. `.npz` members, IPC input and
//! `write_parquet` always try the dictionary.
//!
//! # Budgets of Arrow IPC and Parquet input
//! A table file states row counts, string widths, nesting and page sizes that its bytes need
//! not back (run-length encoding states 2^31 rows in ten bytes; one long string sets every
//! row's `U` width). What a conversion from one may cost is bounded by these budgets, each a
//! constant beside its check, raised through [`ConvertOptions`]; past one the input is
//! refused with [`ErrorKind::Budget`] (or [`ErrorKind::UnbackedRows`]) naming the input, the
//! need, the budget and the option, before any output is written:
//!
//! | what | default | option |
//! |---|---|---|
//! | output bytes of `.arrow`/`.parquet` → `.npy`/`.npz` (and Parquet → `.arrow`) | the input's size × [`OUTPUT_EXPANSION`] (1024), at least [`OUTPUT_BUDGET_FLOOR`] (1 GiB); a Parquet file's claimed rows checked before decoding, after each batch of the first read, and the exact output before writing | [`ConvertOptions::max_output_bytes`] |
//! | widest `U` (characters) / `S` (bytes) column | [`MAX_STRING_WIDTH`] (1 Mi) | [`ConvertOptions::max_string_width`] ([`FromArrowOptions::max_string_width`]) |
//! | rows that hold no bytes (`FixedSizeBinary(0)`, lists of 0 items) | [`MAX_UNBACKED_ROWS`] (1 Mi) | [`ConvertOptions::max_unbacked_rows`] |
//! | nesting of a Parquet schema (groups above a leaf) | [`MAX_NESTING_DEPTH`] (63: what a `.npy` header read back can hold) | [`ConvertOptions::max_nesting_depth`] |
//!
//! Memory while converting to `.npy` is about [`BATCH_BYTES`] of output at a time (one row if
//! wider), and a Parquet batch's dictionary-decoded byte strings about as much. Before the
//! parquet crate reads a file, its footer and every page header are read by this crate (the
//! parquet crate recurses per schema level and allocates by the counts pages state): column
//! chunks and pages past their bounds, a Snappy page claiming more than Snappy can expand its
//! bytes to, a dictionary page claiming more values than its bytes hold, a delta-encoded page
//! of byte strings whose delta headers state more values than the page, and row counts the
//! pages do not hold are [`ErrorKind::Malformed`]. `npy convert` uses the defaults (no
//! command-line flags raise them).
//!
//! # Examples
//! ```
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("points.npy");
//! let bytes = {
//!     let dtype = "[('x', '<f4'), ('id', '<u2')]".parse()?;
//!     let mut b = npy_core::Header::new(dtype, vec![2]).to_bytes(None)?;
//!     b.extend_from_slice(&[0, 0, 0xc0, 0x3f, 7, 0, 0, 0, 0, 0x40, 9, 0]);
//!     b
//! };
//! std::fs::write(&path, bytes)?;
//! let batch = npy_arrow::read_npy(&path)?;
//! assert_eq!(batch.schema().field(0).name(), "x");
//! assert_eq!(batch.schema().field(1).data_type(), &arrow_schema::DataType::UInt16);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod convert;
mod error;
mod from_arrow;
mod ipc;
mod npy;
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(feature = "parquet")]
mod parquet_check;
#[cfg(feature = "parquet")]
mod parquet_write;
mod to_arrow;

pub use arrow_array::RecordBatch;
pub use convert::{
    convert, convert_npy_stream, convert_with_progress, ConvertOptions, Format, NpyFromTable,
    MAX_NESTING_DEPTH, OUTPUT_BUDGET_FLOOR, OUTPUT_EXPANSION,
};
pub use error::{Error, ErrorKind};
pub use from_arrow::{FillValue, FromArrowOptions, NpyPlan, MAX_STRING_WIDTH};
pub use ipc::{read_ipc, write_ipc};
pub use npy::{
    batch_from_npy_bytes, for_each_batch, read_npy, read_npz_member, stem_name, BATCH_BYTES,
    MAX_UNBACKED_ROWS,
};
#[cfg(feature = "parquet")]
pub use parquet::{read_parquet, write_parquet};
pub use to_arrow::{
    batch_from_bytes, field_for, schema_for, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY,
    FIXED_SHAPE_TENSOR, NUMPY_DESCR_KEY, NUMPY_SHAPE_KEY,
};
