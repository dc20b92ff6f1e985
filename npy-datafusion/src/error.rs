//! The crate's one error type: what went wrong, and in which file.

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;

/// An error of this crate, naming the file it happened in as a user would type it: the
/// absolute path of a local file (`file://` stores), the full URL (`s3://bucket/key.npy`) of a
/// file in another store; an `.npz` member's faults add `:KEY`.
///
/// DataFusion carries it as [`DataFusionError::External`]; [`Error::find`] gets it back out of
/// a query's error.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The object store could not list, measure or read the file.
    #[error("{path}: {source}")]
    Store {
        /// The file's location.
        path: String,
        /// The store's error.
        #[source]
        source: object_store::Error,
    },
    /// The `.npy` header is not one numpy reads, or the file is shorter than its header says
    /// (npy-core's error: truncated magic, header or data, a shape whose size overflows).
    #[error("{path}: {source}")]
    Npy {
        /// The file's location.
        path: String,
        /// npy-core's error.
        #[source]
        source: npy_core::Error,
    },
    /// The `.npz` archive or its member could not be read (npy-npz's error: a broken zip, no
    /// member of that key, a member that is not an `.npy`, a truncated or corrupt member).
    #[error("{path}: {source}")]
    Npz {
        /// The archive's location.
        path: String,
        /// npy-npz's error (it names the member).
        #[source]
        source: npy_npz::Error,
    },
    /// The dtype has no Arrow type (npy-arrow's mapping refuses it), or a batch could not be
    /// converted.
    #[error("{path}: {source}")]
    Arrow {
        /// The file's location.
        path: String,
        /// npy-arrow's error.
        #[source]
        source: npy_arrow::Error,
    },
    /// A shard's dtype (byte order aside) or shape after the first axis differs from the
    /// table's first shard: the shards of one table must be one array cut along its first axis.
    #[error("{path}: {what} differs from {first}'s: {found} here, {expected} there")]
    Mismatch {
        /// The first file (in location order) that differs.
        path: String,
        /// The file the table's schema comes from (the first in location order).
        first: String,
        /// `"dtype"` or `"shape after the first axis"`.
        what: &'static str,
        /// This file's value.
        found: String,
        /// The first file's value.
        expected: String,
    },
    /// The file holds something the scan cannot split into rows: a dtype holding Python
    /// objects (pickled data has no fixed row size); or a location that is no table: an
    /// `.npz` archive quoted in FROM without `:KEY` ([`crate::enable_url_table`]).
    #[error("{path}: {what}")]
    Unsupported {
        /// The file's location.
        path: String,
        /// What the file holds and why it is refused.
        what: String,
    },
    /// A local file changed between planning and reading, found when a scan range opens it: it
    /// no longer holds the rows the plan read its header for (truncated, or renamed over by an
    /// array of another dtype, order or shape; an `.npz` archive of another size or
    /// modification time); or it ended before the planned rows while a scan read it. Its bytes
    /// would be read with the planned layout, so the scan stops. A C-order `.npy` file grown by
    /// an append (the same dtype, data offset and row shape, more rows) still holds the planned
    /// rows where they were, and is read.
    #[error("{path}: changed since the query was planned: {what}")]
    Changed {
        /// The file's location.
        path: String,
        /// What it holds now and what the plan read.
        what: String,
    },
    /// The header claims more rows than the budget while its rows hold no bytes (a zero-size
    /// dtype or a zero-length axis after the first): nothing in the file backs them.
    #[error(
        "{path}: {rows} rows of 0 bytes claimed, more than the budget of {budget} \
         (npy_arrow::MAX_UNBACKED_ROWS)"
    )]
    UnbackedRows {
        /// The file's location.
        path: String,
        /// Rows the header claims.
        rows: u64,
        /// The budget.
        budget: u64,
    },
    /// The file is empty (0 bytes): a truncated shard (an interrupted write, a copy that
    /// stopped). numpy refuses it (`np.load` raises `EOFError: No data left in file`);
    /// DataFusion's listing leaves empty files out of a table, so an [`crate::NpyTable`] (and
    /// a quoted path in FROM through [`crate::enable_url_table`]) checks its listing for them.
    #[error(
        "{path}: the file is empty (0 bytes): a truncated shard? \
         (numpy's np.load refuses it: EOFError, no data left in file)"
    )]
    Empty {
        /// The file's location.
        path: String,
    },
    /// A table's location (a directory, a glob, a prefix, a file) holds no file of the
    /// table's extension (`.npy`, or `.npz` for a table of members): there is nothing to infer
    /// a schema from.
    #[error(
        "{path}: no .{extension} file here (none by that name, in that directory or \
         matching that glob)"
    )]
    NoFiles {
        /// The location as it was given (a table's LOCATION, a quoted path in FROM).
        path: String,
        /// The extension looked for, without its dot.
        extension: String,
    },
    /// A plan node sent by another process (feature `proto`: the codecs of
    /// `npy_datafusion::proto`) could not be decoded: its bytes are not what the codec writes.
    /// No file is involved.
    #[error("npy codec: cannot decode {what}")]
    Codec {
        /// The node and what is wrong with its bytes.
        what: String,
    },
}

impl Error {
    /// The file the error is about, as [`Error`] names it (the location as given for
    /// [`Error::NoFiles`]; empty for [`Error::Codec`], which is about bytes from another
    /// process). For a fault of an `.npz` member's own `.npy` (its data
    /// shorter than its header says, its dtype, a deflated Fortran-order member): the archive's
    /// location, `:` and the member's key.
    pub fn path(&self) -> &str {
        match self {
            Error::Store { path, .. }
            | Error::Npy { path, .. }
            | Error::Npz { path, .. }
            | Error::Arrow { path, .. }
            | Error::Mismatch { path, .. }
            | Error::Unsupported { path, .. }
            | Error::Changed { path, .. }
            | Error::UnbackedRows { path, .. }
            | Error::Empty { path }
            | Error::NoFiles { path, .. } => path,
            Error::Codec { .. } => "",
        }
    }

    /// This crate's error inside a DataFusion error (through contexts, shared and external
    /// wrappers), if there is one.
    pub fn find(error: &DataFusionError) -> Option<&Error> {
        match error {
            DataFusionError::External(e) => e.downcast_ref::<Error>(),
            DataFusionError::Context(_, inner) => Error::find(inner),
            DataFusionError::Shared(inner) => Error::find(inner),
            DataFusionError::ArrowError(inner, _) => match inner.as_ref() {
                ArrowError::ExternalError(e) => e.downcast_ref::<Error>(),
                _ => None,
            },
            _ => None,
        }
    }
}

impl From<Error> for DataFusionError {
    fn from(e: Error) -> DataFusionError {
        DataFusionError::External(Box::new(e))
    }
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as npy-core's, anyhow's and std's errors do; `{:#?}` wraps it in the
/// type's name.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            f.debug_tuple("Error")
                .field(&format_args!("{self}"))
                .finish()
        } else {
            std::fmt::Display::fmt(self, f)
        }
    }
}
