//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, with what the file holds and what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The header length is over [`MAX_HEADER_LEN`](crate::MAX_HEADER_LEN).
    #[error("header length {len} is over the limit of {max} bytes")]
    HeaderTooLong {
        /// The length the file claims.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The header is not UTF-8.
    #[error("header is not UTF-8 (invalid byte at offset {valid_up_to})")]
    HeaderNotUtf8 {
        /// Bytes of valid UTF-8 before the first invalid one.
        valid_up_to: usize,
    },
    /// The header is not the JSON object safetensors writes.
    #[error("header is not valid JSON: {0}")]
    HeaderJson(String),
    /// A tensor entry is malformed (unknown dtype, bad shape, offsets not as the data lies).
    #[error("tensor {name:?}: {reason}")]
    InvalidTensor {
        /// The tensor's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The data section is not what the offsets say.
    #[error("data section is {found} bytes, the header's tensors take {expected}")]
    DataLength {
        /// Bytes the tensors take.
        expected: u64,
        /// Bytes after the header.
        found: u64,
    },
    /// An array safetensors cannot hold.
    #[error("member {member:?}: {dtype} cannot be stored in safetensors ({reason})")]
    Unsupported {
        /// The member (the `.npz` key or the `.npy` file's stem).
        member: String,
        /// The array's dtype.
        dtype: String,
        /// Why.
        reason: &'static str,
    },
    /// No tensor of that name.
    #[error("no tensor named {0:?}")]
    NoSuchTensor(String),
    /// The output is `.npy` but the file holds other than one tensor.
    #[error("a .npy output holds one array, the file has {0} tensors (write an .npz)")]
    NotOneTensor(usize),
    /// An error of npy-core: reading the `.npy` side, and a safetensors file shorter than its
    /// 8-byte header length or than the header it announces (npy-core's
    /// `ErrorKind::Truncated`, the one kind for a file that ends before what it promises).
    #[error(transparent)]
    Npy(#[from] npy_core::Error),
    /// An error of npy-npz (reading or writing the `.npz` side).
    #[error(transparent)]
    Npz(#[from] npy_npz::Error),
}

/// An error: its [`ErrorKind`], the file it concerns and, converting an `.npz`, the member.
/// Boxed, so that a `Result` stays one word wide.
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
    /// The `.npz` member's key, when the error concerns one.
    member: Option<String>,
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                path: None,
                member: None,
            }),
        }
    }

    /// An I/O error while doing `what`.
    #[cold]
    pub fn io(source: std::io::Error, what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Io {
            what: what.into(),
            source,
        })
    }

    /// The error with the path of the file it concerns (kept if one is already set).
    #[must_use]
    pub(crate) fn at(mut self, path: &Path) -> Error {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.to_owned());
        }
        self
    }

    /// The error with the key of the `.npz` member it concerns (kept if one is already set).
    #[must_use]
    pub(crate) fn in_member(mut self, key: &str) -> Error {
        if self.member().is_none() {
            self.inner.member = Some(key.to_owned());
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// What kind of problem this is, as every error of the workspace sorts it (npy-core's
    /// [`Category`](npy_core::error::Category)): a caller decides what to do about an error
    /// from this, whatever crate made it. A short file, a header that is not
    /// safetensors JSON and tensors outside the data are `Format`; the header length limit
    /// `Limit`; dtypes with no counterpart `Unsupported`; a tensor the file does not hold
    /// `Mismatch`; several tensors where one is needed `Usage`; npy-core's and npy-npz's
    /// errors keep theirs.
    pub fn classify(&self) -> npy_core::error::Category {
        use npy_core::error::Category;
        use ErrorKind::*;
        match &self.inner.kind {
            Io { .. } => Category::Io,
            HeaderNotUtf8 { .. } | HeaderJson(_) | InvalidTensor { .. } | DataLength { .. } => {
                Category::Format
            }
            HeaderTooLong { .. } => Category::Limit,
            Unsupported { .. } => Category::Unsupported,
            NoSuchTensor(_) => Category::Mismatch,
            NotOneTensor(_) => Category::Usage,
            Npy(e) => e.classify(),
            Npz(e) => e.classify(),
        }
    }

    /// The file the error concerns, when known.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The key of the `.npz` member the error concerns, when it concerns one: converting an
    /// `.npz` to safetensors, the member whose dtype safetensors lacks
    /// ([`ErrorKind::Unsupported`]) or whose bytes could not be copied; either way, npy-npz's
    /// error about a member ([`ErrorKind::Npz`]).
    ///
    /// A tensor's name is no member: errors about a safetensors file's tensors name it in
    /// their kind ([`ErrorKind::InvalidTensor`], [`ErrorKind::NoSuchTensor`]), and the one
    /// tensor of an `.npy` input, named after the file's stem, is `None` here.
    pub fn member(&self) -> Option<&str> {
        self.inner.member.as_deref().or(match &self.inner.kind {
            ErrorKind::Npz(e) => e.member(),
            _ => None,
        })
    }
}

impl From<npy_core::Error> for Error {
    fn from(e: npy_core::Error) -> Error {
        Error::new(ErrorKind::Npy(e))
    }
}

/// An error of npy-fs (an output file written): npy-core's error of the same kind, path and
/// message ([`ErrorKind::Npy`]).
impl From<npy_fs::Error> for Error {
    fn from(e: npy_fs::Error) -> Error {
        Error::from(npy_core::Error::from(e))
    }
}

impl From<npy_npz::Error> for Error {
    fn from(e: npy_npz::Error) -> Error {
        Error::new(ErrorKind::Npz(e))
    }
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as anyhow's and std's errors do; `{:#?}` is the structure (kind, path).
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
        }
        match &self.inner.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.inner.kind),
            None => write!(f, "{}", self.inner.kind),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.inner.kind)
    }
}
