//! [`DescrError`]: the dtype model sits below the crate's [`Error`](crate::Error) (whose kinds
//! name dtypes), so it reports with this type, which `?` turns into an `Error`
//! ([`DescrSyntax`](crate::ErrorKind::DescrSyntax), [`InvalidDescr`](crate::ErrorKind::InvalidDescr)
//! or [`StringDType`](crate::ErrorKind::StringDType)).

use crate::literal::LiteralError;

/// Why a descr (`'<f4'`, `[('x', '<i2')]`), type string or record layout is not a dtype
/// numpy reads, as [`DType`](super::DType)'s `FromStr`, [`DType::from_descr_value`](super::DType::from_descr_value),
/// [`SubArray::new`](super::SubArray::new) and [`Record::new`](super::Record::new) report it.
///
/// # Examples
/// ```
/// use npy_core::{DType, dtype::DescrError};
/// let err = "<f3".parse::<DType>().unwrap_err();
/// assert!(matches!(err, DescrError::Invalid { .. }));
/// // `?` gives the crate's Error.
/// let e: npy_core::Error = err.into();
/// assert!(matches!(e.kind(), npy_core::ErrorKind::InvalidDescr { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DescrError {
    /// A descr given as text is not a valid Python literal.
    #[error("descr is not a valid Python literal: {0}")]
    Syntax(LiteralError),
    /// The descr (or a part of it) is no dtype numpy reads.
    #[error("invalid descr {found}: {reason}")]
    Invalid {
        /// The offending descr or part of it, as the input wrote it.
        found: String,
        /// What is wrong with it (numpy's rule).
        reason: String,
    },
    /// numpy's variable-width string dtype (`'T'`, `StringDType`), which `np.save` stores as
    /// Python objects (a pickle), like an object array.
    #[error(
        "descr {found} is numpy's StringDType (variable-width strings), which np.save stores as \
         Python objects"
    )]
    StringDType {
        /// The type string, as the input wrote it.
        found: String,
    },
}

/// [`DescrError::Invalid`] naming `found` and `reason`.
#[cold]
pub(crate) fn descr_error(found: &str, reason: &str) -> DescrError {
    DescrError::Invalid {
        found: found.to_owned(),
        reason: reason.to_owned(),
    }
}
