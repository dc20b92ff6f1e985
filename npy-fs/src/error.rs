//! The crate's one error type: [`Error`], an [`ErrorKind`] with the path it concerns.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error of opening or writing a file: what happened ([`Error::kind`]) and, for a function
/// that names its path in its errors, the path ([`Error::path`]).
///
/// `Display` is one line, `path: message`. The npy-* crates wrap it in their own error types
/// with the same kind and path (npy-core's `ErrorKind::Io` and `ErrorKind::NotRegularFile`),
/// so the message a user reads is the same through either.
///
/// # Examples
/// ```
/// let err = npy_fs::open_regular(std::env::temp_dir()).unwrap_err();
/// assert!(matches!(err.kind(), npy_fs::ErrorKind::NotRegularFile { found: "a directory", .. }));
/// assert_eq!(err.path(), None); // the opens leave the path to their callers
/// let err = err.with_path("data");
/// assert!(err.to_string().starts_with("data: the input is a directory, not a regular file"));
/// ```
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
}

/// What went wrong, for [`Error`]. `Display` writes the message without the path.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An I/O error of the operating system (a missing directory, permissions, a full disk).
    Io(io::Error),

    /// A path that must name a regular file names something else. An output that is a
    /// directory, FIFO, device or socket is never replaced (renaming over `/dev/null` would
    /// replace the device) nor written into, and a symlink to nothing is not written through,
    /// as `cp` refuses; an input that is a FIFO, device or socket is refused at once rather
    /// than waited on, by the opens that need a file they can seek in ([`crate::open_regular`]).
    NotRegularFile {
        /// What the path was for: `"output"` or `"input"`.
        role: &'static str,
        /// What is there: `"a FIFO"`, `"a character device"`, `"a directory"`, `"a symlink to
        /// a missing file …"`.
        found: &'static str,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
            ErrorKind::NotRegularFile { role, found } if *role == "output" => write!(
                f,
                "the output is {found}, not a regular file: left as it is (only a regular file is \
                 replaced, by renaming a temporary file over it)"
            ),
            ErrorKind::NotRegularFile { role, found } => write!(
                f,
                "the {role} is {found}, not a regular file: refused (reading it needs a file that \
                 can be measured and read at any offset; copy it to a file first)"
            ),
        }
    }
}

impl Error {
    /// An error of `kind`, naming no path.
    #[cold]
    pub fn new(kind: ErrorKind) -> Error {
        Error { kind, path: None }
    }

    /// A [`ErrorKind::NotRegularFile`] error.
    #[cold]
    pub(crate) fn not_regular(role: &'static str, found: &'static str) -> Error {
        Error::new(ErrorKind::NotRegularFile { role, found })
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What went wrong and the path, giving up the error.
    pub fn into_parts(self) -> (ErrorKind, Option<PathBuf>) {
        (self.kind, self.path)
    }

    /// The path the error concerns, for errors of functions that name it.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The error, naming `path` unless it already names one (the innermost path wins).
    #[cold]
    #[must_use]
    pub fn with_path(mut self, path: impl AsRef<Path>) -> Error {
        if self.path.is_none() {
            self.path = Some(path.as_ref().to_owned());
        }
        self
    }
}

/// Adds the path to the error of a `Result`.
pub(crate) trait PathContext {
    /// `self` with `path` named in its error.
    fn at_path(self, path: &Path) -> Self;
}

impl<T> PathContext for Result<T, Error> {
    fn at_path(self, path: &Path) -> Self {
        self.map_err(|e| e.with_path(path))
    }
}

impl From<io::Error> for Error {
    #[cold]
    fn from(e: io::Error) -> Error {
        Error::new(ErrorKind::Io(e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        fmt::Display::fmt(&self.kind, f)
    }
}

/// `{:?}` is the message `Display` writes (as for npy-core's errors); `{:#?}` the structure.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind);
        if let Some(path) = &self.path {
            d.field("path", path);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    /// An I/O error's own source (its message is in this one's).
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => e.source(),
            ErrorKind::NotRegularFile { .. } => None,
        }
    }
}
