//! Errors of the zip container as ours: [`NpzError`] travelling through `io::Error`, the zip
//! crate's errors, and the escaped start of a member.

pub use crate::error::NpzError;

use crate::error::Error;

use std::fmt;
use std::io;

impl NpzError {
    /// The error as an `io::Error`, for `Read` impls; `unwrap_io` of that
    /// `io::Error` gives it back.
    pub(crate) fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

/// A zip crate error as ours: I/O stays I/O, everything else is the container's fault.
pub(crate) fn from_zip(e: zip::result::ZipError) -> Error {
    match e {
        zip::result::ZipError::Io(e) => Error::from(e),
        other => Error::from(NpzError::Container(other.to_string())),
    }
}

/// Recovers an [`NpzError`] that travelled through `io::Error` (see [`NpzError::into_io`]).
#[allow(
    clippy::redundant_closure_for_method_calls,
    reason = "the method paths on `dyn Error + Send + Sync` are longer than the closures"
)]
pub(crate) fn unwrap_io(e: io::Error) -> Error {
    if e.get_ref().is_some_and(|inner| inner.is::<NpzError>()) {
        if let Some(Ok(npz)) = e.into_inner().map(|b| b.downcast::<NpzError>()) {
            return Error::from(*npz);
        }
        unreachable!("checked above that the io::Error holds an NpzError");
    }
    Error::from(e)
}

/// `Display` of the first bytes of a member.
pub(crate) struct Escaped<'a>(pub &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.0 {
            write!(f, "{}", std::ascii::escape_default(b))?;
        }
        Ok(())
    }
}
