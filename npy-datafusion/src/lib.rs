//! SQL over folders of NumPy `.npy` shards: an Apache DataFusion [`FileFormat`] for `.npy`
//! files.
//!
//! Register [`NpyFormatFactory`] with a `SessionContext` ([`register`]) and DataFusion reads
//! `.npy` files by their extension, as it reads `.parquet`: a `ListingTable` over a file, a
//! directory (its `*.npy`), a glob or an object store prefix, through DataFusion's own
//! `ObjectStore` registry (local files built in; register `s3://`, `http://`, … stores on the
//! session's runtime).
//!
//! - **Schema** from the headers by npy-arrow's mapping ([`npy_arrow::schema_for`]): one
//!   column per record field; a plain array is one column; an N-d array's rows are fixed-size
//!   lists, so DataFusion's array functions apply (`emb[1]`, `array_length(emb)`). Shards must
//!   hold one dtype (byte order may differ) and one shape after the first axis, else
//!   [`Error::Mismatch`] names the first file that differs.
//! - **Statistics** are exact, from the headers (rows, data bytes): `count(*)` reads the
//!   headers only ([`HEADER_PROBE_BYTES`] each, one request per file).
//! - **Scans** ([`NpySource`]) read row-aligned byte ranges: DataFusion splits a large file
//!   into ranges so one file scans on every core; each batch is one ranged read of at most
//!   [`npy_arrow::BATCH_BYTES`], so memory is about a batch per partition; only the record
//!   fields a query uses are converted, and a `LIMIT` reads only the rows it needs (a scan
//!   with a limit is not split into ranges).
//! - **Errors** name the file as a user types it (an absolute local path, a URL): a truncated
//!   shard, a header that lies or does not parse, a dtype without an Arrow type ([`Error`]).
//! - **Listings** ([`NpyTable`]): a 0-byte file (a truncated shard, which numpy refuses) is
//!   [`Error::Empty`] and a location without files [`Error::NoFiles`], where DataFusion's
//!   listing drops empty files and a table was answered without them. A plain `ListingTable`
//!   of [`NpyFormat`] cannot check this: the format never sees the files DataFusion drops.
//! - **Quoted paths in FROM** ([`enable_url_table`]): `.npy` files, directories and globs as
//!   [`NpyTable`]s, and `'ARCHIVE.npz:KEY'` as member KEY ([`npz_member`]).
//! - **Past one machine** (feature `proto`): `proto`'s codecs send an `.npy` table and its
//!   scans to other processes (a Ballista scheduler and its executors) through datafusion-proto.
//!
//! # Examples
//! ```no_run
//! # async fn f() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionContext;
//! let ctx = npy_datafusion::enable_url_table(SessionContext::new());
//! npy_datafusion::register(&ctx)?;
//! // ctx.register_table("t", Arc::new(NpyTable::try_new(…).await?)) or a quoted path:
//! // ctx.sql("SELECT count(*) FROM 'shards/*.npy'"), ctx.sql("SELECT * FROM 'a.npz:x'")
//! # Ok(()) }
//! ```
//!
//! [`FileFormat`]: datafusion::datasource::file_format::FileFormat
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod format;
mod location;
mod npz;
#[cfg(feature = "proto")]
pub mod proto;
mod shard;
mod source;
mod table;
mod url_table;

use std::sync::Arc;

use datafusion::prelude::SessionContext;

pub use error::Error;
pub use format::{
    NpyFormat, NpyFormatFactory, NpyOptions, HEADER_CONCURRENCY, NPY_EXTENSION, NPZ_EXTENSION,
};
pub use shard::HEADER_PROBE_BYTES;
pub use source::{NpySource, BYTES_READ_AHEAD, BYTES_SCANNED, SCAN_PARTITIONS_PER_TARGET};
pub use table::{NpyTable, NpyTableFactory};
pub use url_table::{enable_url_table, location_url, npz_member, NpyUrlTableFactory};

/// Registers [`NpyFormatFactory`] on `ctx`, so tables and quoted paths ending in `.npy` are
/// read as `.npy` (an existing registration of the extension is replaced), and
/// [`NpyTableFactory`] under `"NPY"`, so `CREATE EXTERNAL TABLE … STORED AS NPY` makes an
/// [`NpyTable`] (DataFusion looks `STORED AS` names up in its table factories, which know
/// only its built-in formats).
///
/// # Errors
/// DataFusion's, if the session refuses the registration.
pub fn register(ctx: &SessionContext) -> datafusion::error::Result<()> {
    let state = ctx.state_ref();
    let mut state = state.write();
    state.register_file_format(Arc::new(NpyFormatFactory::new()), true)?;
    state
        .table_factories_mut()
        .insert("NPY".into(), Arc::new(NpyTableFactory));
    Ok(())
}
