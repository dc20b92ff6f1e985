//! The crate's one error type.

use std::path::{Path, PathBuf};

/// What went wrong reading or writing a scipy.sparse archive; every variant that concerns a
/// file names it.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// npy-npz could not read or write the archive or one of its members.
    #[error("{}", named(path, source))]
    Npz {
        /// The archive.
        path: PathBuf,
        /// The cause.
        source: npy_npz::Error,
    },
    /// The archive is not what `save_npz` writes (no `format` member, an unknown format, a
    /// missing member).
    #[error("{}: not a scipy.sparse archive: {reason}", path.display())]
    NotSparse {
        /// The archive.
        path: PathBuf,
        /// What is missing or unknown.
        reason: String,
    },
    /// The archive names a format (it has a `format` member) but is not a matrix
    /// `scipy.sparse.load_npz` loads: [`detect`](crate::detect)'s checks of the headers, with
    /// scipy's reason.
    #[error("{}: not a valid {class}: {reason}", path.display())]
    NotValid {
        /// The archive.
        path: PathBuf,
        /// What it claims to be: `dia matrix`, `csr array` (scipy's `dia_matrix`,
        /// `csr_array`), or `scipy.sparse matrix` for an unknown format.
        class: String,
        /// Why scipy refuses it, in scipy's words where it has them.
        reason: String,
    },
    /// A member [`detect`](crate::detect) would read holds more elements than it reads
    /// ([`MAX_DETECT_ELEMENTS`](crate::MAX_DETECT_ELEMENTS)).
    #[error(
        "{}: member {member:?} holds {elements} elements, more than the {limit} a summary reads",
        path.display()
    )]
    Budget {
        /// The archive.
        path: PathBuf,
        /// The member (`offsets`).
        member: &'static str,
        /// Its elements, from its header.
        elements: u64,
        /// [`MAX_DETECT_ELEMENTS`](crate::MAX_DETECT_ELEMENTS).
        limit: u64,
    },
    /// A member's contents break the format's rules (lengths, index ranges, `indptr` order).
    #[error("{}: member {member:?}: {reason}", path.display())]
    Invalid {
        /// The archive.
        path: PathBuf,
        /// The member (`indptr`, `indices`, `data`, `row`, `col`, `offsets`, `shape`).
        member: &'static str,
        /// What is wrong, with the values found.
        reason: String,
    },
    /// [`SparseMatrix::to_dense`](crate::SparseMatrix::to_dense) would hold more elements than
    /// the caller allowed.
    #[error("a dense {rows} x {cols} matrix is over the limit of {limit} elements")]
    TooLarge {
        /// Rows of the matrix.
        rows: u64,
        /// Columns of the matrix.
        cols: u64,
        /// The caller's limit, in elements.
        limit: u64,
    },
    /// A matrix given to [`write()`](crate::write()) breaks the format's rules.
    #[error("matrix to write: {0}")]
    BadMatrix(String),
}

impl Error {
    /// What kind of problem this is, as every error of the workspace sorts it (npy-core's
    /// [`Category`](npy_core::error::Category)): a caller decides what to do about an error
    /// from this, whatever crate made it. npy-npz's errors keep theirs; an
    /// archive that is not a sparse matrix is `Mismatch`; one scipy would refuse, or a member
    /// that breaks the format's rules, `Format`; the summary's and the caller's element limits
    /// `Limit`; a matrix to write that breaks the rules `Usage`.
    pub fn classify(&self) -> npy_core::error::Category {
        use npy_core::error::Category;
        match self {
            Error::Npz { source, .. } => source.classify(),
            Error::NotSparse { .. } => Category::Mismatch,
            Error::NotValid { .. } | Error::Invalid { .. } => Category::Format,
            Error::Budget { .. } | Error::TooLarge { .. } => Category::Limit,
            Error::BadMatrix(_) => Category::Usage,
        }
    }

    /// The archive the error concerns: every error of reading or writing a file names it;
    /// `None` for a matrix over a limit or one that breaks the format's rules before any file
    /// is written ([`Error::TooLarge`], [`Error::BadMatrix`]).
    ///
    /// # Examples
    /// ```
    /// let err = npy_sparse::detect("no/such/matrix.npz").unwrap_err();
    /// assert_eq!(err.path(), Some(std::path::Path::new("no/such/matrix.npz")));
    /// ```
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Npz { path, source } => source.path().or(Some(path)),
            Error::NotSparse { path, .. }
            | Error::NotValid { path, .. }
            | Error::Budget { path, .. }
            | Error::Invalid { path, .. } => Some(path),
            Error::TooLarge { .. } | Error::BadMatrix(_) => None,
        }
    }

    /// The archive's member (`.npz` key: `indptr`, `data`, `offsets`, ...) the error
    /// concerns, when it is one member's: a member whose contents break the format's rules or
    /// hold more than a summary reads, or npy-npz's error about one member. `None` for the
    /// archive as a whole (no `format` member, an unknown format: [`Error::NotSparse`]; a
    /// matrix scipy refuses: [`Error::NotValid`]).
    pub fn member(&self) -> Option<&str> {
        match self {
            Error::Npz { source, .. } => source.member(),
            Error::Budget { member, .. } | Error::Invalid { member, .. } => Some(member),
            Error::NotSparse { .. }
            | Error::NotValid { .. }
            | Error::TooLarge { .. }
            | Error::BadMatrix(_) => None,
        }
    }
}

/// `source`'s message, naming `path` unless it names its file itself.
fn named(path: &std::path::Path, source: &npy_npz::Error) -> String {
    if source.path().is_some() {
        source.to_string()
    } else {
        format!("{}: {source}", path.display())
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
