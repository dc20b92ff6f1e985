//! The crate's one error type: what went wrong, and where (file path, `.npz` member, column).

use std::fmt;
use std::path::{Path, PathBuf};

/// An error of this crate: a [`ErrorKind`] and where it happened.
///
/// Boxed, so that every `Result` of the crate stays one pointer wide.
pub struct Error {
    inner: Box<Inner>,
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as anyhow's and std's errors do; `{:#?}` is the structure (kind, path, member).
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        f.debug_struct("Error")
            .field("kind", &self.inner.kind)
            .field("path", &self.inner.path)
            .field("member", &self.inner.member)
            .finish()
    }
}

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
    member: Option<String>,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the `.npy` / `.npz` side failed (npy-core's error, which names the
    /// header field or dtype involved).
    #[error(transparent)]
    Npy(#[from] npy_core::Error),
    /// Reading or writing an `.npz` archive failed (npy-npz's error, which names the archive
    /// and the member).
    #[error(transparent)]
    Npz(#[from] npy_npz::Error),
    /// arrow-rs refused a batch or an IPC stream (a malformed IPC file, a schema mismatch).
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The parquet crate refused a file (malformed footer, page or encoding).
    #[cfg(feature = "parquet")]
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// The array's rows hold no bytes (zero-size elements, or a zero-length axis after the
    /// first) and there are more of them than [`crate::MAX_UNBACKED_ROWS`]: the file backs
    /// none of them, so they are not converted.
    #[error(
        "the array has {rows} rows that hold no bytes (zero-size elements or a zero-length axis), which the file does not back; at most {limit} are converted"
    )]
    UnbackedRows {
        /// Rows the header claims.
        rows: u64,
        /// [`crate::MAX_UNBACKED_ROWS`].
        limit: u64,
    },
    /// The input needs more than a budget of the conversion allows (output bytes, a string
    /// width, schema nesting: the constants beside [`crate::ConvertOptions`]'s fields, each
    /// raised there). The file may be valid; converting it takes more than the budget.
    #[error("{what} needs {needed}, past the budget of {limit} (raise it with {option})")]
    Budget {
        /// What is counted, in what unit.
        what: String,
        /// What the input needs.
        needed: u64,
        /// The budget.
        limit: u64,
        /// The option that raises it.
        option: &'static str,
    },
    /// An I/O error.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// A numpy dtype with no Arrow type in the mapping (longdouble, `M8[Y]`, `O`, ...).
    #[error("dtype {dtype} has no Arrow type: {reason}")]
    UnsupportedDType {
        /// The dtype as the file's header writes it.
        dtype: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// An Arrow type with no numpy dtype in the mapping (Decimal, List, Dictionary, ...).
    #[error("column {column:?} of type {data_type} has no numpy dtype: {reason}")]
    UnsupportedArrowType {
        /// The column (dotted path for a nested field).
        column: String,
        /// The Arrow type as arrow-rs prints it.
        data_type: String,
        /// Why.
        reason: String,
    },
    /// A column whose Arrow type Parquet cannot store (a fixed width of 0 bytes: `V0`).
    #[error("column {column:?} of type {data_type} cannot be stored in Parquet: {reason}")]
    NoParquetType {
        /// The column (dotted path for a nested field).
        column: String,
        /// The Arrow type as arrow-rs prints it.
        data_type: String,
        /// Why, and what to write instead.
        reason: String,
    },
    /// A column holds nulls and its numpy dtype has no null value (numbers, bool, strings
    /// without a fill).
    #[error(
        "column {column:?} holds nulls ({nulls} in the batch being converted, the first at row \
         {first_row}) and {dtype} has no null: give a fill (`--fill VALUE`, \
         `FromArrowOptions::fill`), which fills numbers, bools and strings"
    )]
    Nulls {
        /// The column.
        column: String,
        /// How many nulls it holds in the batch that was being converted.
        nulls: usize,
        /// Row of the first null, counted from the start of the input.
        first_row: u64,
        /// The numpy dtype the column becomes.
        dtype: String,
    },
    /// A struct or list column (a numpy record or subarray) holds null rows: no fill gives
    /// such a row a value ([`crate::FromArrowOptions::fill`] fills numbers, bools and strings).
    #[error(
        "column {column:?} holds null rows ({nulls} in the batch being converted, the first at \
         row {first_row}) and {dtype} has no null: a null record or list row cannot be filled \
         (`--fill VALUE`, `FromArrowOptions::fill`, fills numbers, bools and strings); drop \
         those rows first"
    )]
    NullRows {
        /// The column.
        column: String,
        /// How many null rows it holds in the batch that was being converted.
        nulls: usize,
        /// Row of the first null, counted from the start of the input.
        first_row: u64,
        /// The numpy dtype the column becomes.
        dtype: String,
    },
    /// A value that the target type cannot hold: a date beyond Date32, a tick count that
    /// overflows when scaled to an Arrow unit, a lone surrogate in a `U` string, a fill value
    /// out of an integer column's range.
    #[error("column {column:?}, element {index}: {reason}")]
    Value {
        /// The column (the file's stem for a plain array).
        column: String,
        /// Element index (flat, C order) within the column.
        index: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A size computed from the input (rows × itemsize, string offsets) overflows.
    #[error("{what} overflows: {detail}")]
    Overflow {
        /// The quantity.
        what: &'static str,
        /// The numbers involved.
        detail: String,
    },
    /// An Arrow IPC or Parquet file that is not well formed: a footer claiming bytes past the
    /// file's end, or a decoder of arrow-rs / parquet stopping (those crates panic on some
    /// malformed input; the panic is caught and reported here).
    #[error("malformed file: {0}")]
    Malformed(String),
    /// The input is not what the operation needs (an `.npz` without `--member` holding several
    /// arrays, an extension of neither format, mismatched batches).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// An error of `kind`, at no path yet.
    #[cold]
    pub fn new(kind: ErrorKind) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                path: None,
                member: None,
            }),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// What kind of problem this is, as every error of the workspace sorts it (npy-core's
    /// [`Category`](npy_core::error::Category)): a caller decides what to do about an error
    /// from this, whatever crate made it. An error of the `.npy` / `.npz` side keeps its own category;
    /// arrow-rs and parquet refusing a file, and a short `.npy`, are `Format`; budgets and
    /// overflowing sizes `Limit`; types with no counterpart `Unsupported`; nulls without a
    /// fill and values the target type cannot hold `Usage` (an option or another type fixes
    /// them).
    pub fn classify(&self) -> npy_core::error::Category {
        use npy_core::error::Category;
        use ErrorKind::*;
        match &self.inner.kind {
            Npy(e) => e.classify(),
            Npz(e) => e.classify(),
            Io(_) => Category::Io,
            Arrow(_) | Malformed(_) => Category::Format,
            #[cfg(feature = "parquet")]
            Parquet(_) => Category::Format,
            UnbackedRows { .. } | Budget { .. } | Overflow { .. } => Category::Limit,
            UnsupportedDType { .. } | UnsupportedArrowType { .. } | NoParquetType { .. } => {
                Category::Unsupported
            }
            Nulls { .. } | NullRows { .. } | Value { .. } | Invalid(_) => Category::Usage,
        }
    }

    /// The file involved, when known.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The `.npz` member involved, when known.
    pub fn member(&self) -> Option<&str> {
        self.inner.member.as_deref()
    }

    /// This error, at `path` (kept if already set: the innermost path is the precise one).
    #[must_use]
    pub fn at_path(mut self, path: &Path) -> Error {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.to_owned());
        }
        self
    }

    /// This error, in `.npz` member `key`.
    #[must_use]
    pub fn in_member(mut self, key: &str) -> Error {
        if self.inner.member.is_none() {
            self.inner.member = Some(key.to_owned());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // npy-core's error names its file (and member) itself: say them once.
        if let ErrorKind::Npy(e) = &self.inner.kind {
            if e.path().is_some() {
                return write!(f, "{e}");
            }
        }
        if let ErrorKind::Npz(e) = &self.inner.kind {
            if e.path().is_some() {
                return write!(f, "{e}");
            }
            if e.member().is_some() {
                if let Some(p) = &self.inner.path {
                    write!(f, "{}: ", p.display())?;
                }
                return write!(f, "{e}");
            }
        }
        if let Some(p) = &self.inner.path {
            write!(f, "{}", p.display())?;
            if let Some(m) = &self.inner.member {
                write!(f, " member {m:?}")?;
            }
            f.write_str(": ")?;
        } else if let Some(m) = &self.inner.member {
            write!(f, "member {m:?}: ")?;
        }
        write!(f, "{}", self.inner.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.inner.kind)
    }
}

macro_rules! from_kind {
    ($($(#[$m:meta])* $t:ty),*) => {$(
        $(#[$m])*
        impl From<$t> for Error {
            #[cold]
            fn from(e: $t) -> Error {
                Error::new(ErrorKind::from(e))
            }
        }
    )*};
}

/// An error of npy-fs (an input opened, an output file written): npy-core's error of the same
/// kind, path and message.
impl From<npy_fs::Error> for Error {
    #[cold]
    fn from(e: npy_fs::Error) -> Error {
        Error::from(npy_core::Error::from(e))
    }
}

from_kind!(
    ErrorKind,
    npy_core::Error,
    npy_npz::Error,
    arrow_schema::ArrowError,
    std::io::Error,
    #[cfg(feature = "parquet")]
    parquet::errors::ParquetError
);

/// Adds a path (and member) to the error of a `Result`.
pub(crate) trait Context<T> {
    fn at_path(self, path: &Path) -> Result<T, Error>;
}

impl<T, E: Into<Error>> Context<T> for Result<T, E> {
    fn at_path(self, path: &Path) -> Result<T, Error> {
        self.map_err(|e| e.into().at_path(path))
    }
}

#[cold]
pub(crate) fn unsupported_dtype(dtype: &npy_core::DType, reason: &str) -> Error {
    Error::new(ErrorKind::UnsupportedDType {
        dtype: dtype.to_string(),
        reason: reason.to_owned(),
    })
}

#[cold]
pub(crate) fn overflow(what: &'static str, detail: String) -> Error {
    Error::new(ErrorKind::Overflow { what, detail })
}

#[cold]
pub(crate) fn value_error(column: &str, index: u64, reason: String) -> Error {
    Error::new(ErrorKind::Value {
        column: column.to_owned(),
        index,
        reason,
    })
}
