//! The allow-list: the only globals a pickle may name, each mapped to one of our own value
//! constructors ([`PyGlobal`], the classes and functions a value may name). Nothing here
//! imports or calls Python; a name not in [`ALLOWED`] is [`PickleError::Global`].

use std::fmt;

use crate::error::PickleError;

/// A global on the allow-list: a Python class or function the reader knows how to imitate.
///
/// Each one only ever builds a [`PyObject`](crate::PyObject) from values already decoded;
/// none reads files, imports modules or looks names up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PyGlobal {
    /// `numpy._core.multiarray._reconstruct` (numpy 2), `numpy.core.multiarray._reconstruct`
    /// (numpy 1), `numpy.core._internal._reconstruct` (numpy 0.x under Python 2): an empty
    /// array that `BUILD` then fills from its state tuple.
    Reconstruct,
    /// `numpy.ndarray`: only as `_reconstruct`'s first argument.
    NdArray,
    /// `numpy.dtype`: a dtype from its type string; `BUILD` sets byte order, fields, subarray
    /// and datetime unit from its state tuple.
    DType,
    /// `numpy._core.multiarray.scalar` / `numpy.core.multiarray.scalar`: a numpy scalar from a
    /// dtype and its bytes.
    Scalar,
    /// `numpy._core.numeric._frombuffer` / `numpy.core.numeric._frombuffer`: what protocol 5
    /// writes for a numeric array inside an object array (bytes, dtype, shape, order).
    FromBuffer,
    /// `numpy._core._internal._convert_to_stringdtype_kwargs`: numpy 2's `StringDType`.
    StringDType,
    /// `builtins.complex`.
    Complex,
    /// `builtins.set`.
    Set,
    /// `builtins.frozenset`.
    FrozenSet,
    /// `builtins.bytearray`.
    ByteArray,
    /// `builtins.range` (`__builtin__.xrange` in Python 2 pickles).
    Range,
    /// `builtins.slice`.
    Slice,
    /// `_codecs.encode`: how protocols 0–2 write `bytes` (`encode(str, 'latin1')`).
    Encode,
    /// `builtins.bytes`: how protocols 0–2 write `b''` (`bytes()`).
    Bytes,
}

impl PyGlobal {
    /// `(module, name)` as numpy 2.4 and Python 3 write it.
    pub fn path(self) -> (&'static str, &'static str) {
        match self {
            PyGlobal::Reconstruct => ("numpy._core.multiarray", "_reconstruct"),
            PyGlobal::NdArray => ("numpy", "ndarray"),
            PyGlobal::DType => ("numpy", "dtype"),
            PyGlobal::Scalar => ("numpy._core.multiarray", "scalar"),
            PyGlobal::FromBuffer => ("numpy._core.numeric", "_frombuffer"),
            PyGlobal::StringDType => ("numpy._core._internal", "_convert_to_stringdtype_kwargs"),
            PyGlobal::Complex => ("builtins", "complex"),
            PyGlobal::Set => ("builtins", "set"),
            PyGlobal::FrozenSet => ("builtins", "frozenset"),
            PyGlobal::ByteArray => ("builtins", "bytearray"),
            PyGlobal::Range => ("builtins", "range"),
            PyGlobal::Slice => ("builtins", "slice"),
            PyGlobal::Encode => ("_codecs", "encode"),
            PyGlobal::Bytes => ("builtins", "bytes"),
        }
    }

    /// Whether Python's object is a class (`range`) rather than a function (`_reconstruct`).
    pub fn is_class(self) -> bool {
        !matches!(
            self,
            PyGlobal::Reconstruct
                | PyGlobal::Scalar
                | PyGlobal::FromBuffer
                | PyGlobal::StringDType
                | PyGlobal::Encode
        )
    }
}

impl fmt::Display for PyGlobal {
    /// Python's repr: `<class 'range'>`, `<class 'numpy.ndarray'>`,
    /// `<built-in function _reconstruct>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (module, name) = self.path();
        match (self.is_class(), module) {
            (true, "builtins") => write!(f, "<class '{name}'>"),
            (true, m) => write!(f, "<class '{m}.{name}'>"),
            (false, _) if *self == PyGlobal::Reconstruct || *self == PyGlobal::Scalar => {
                write!(f, "<built-in function {name}>")
            }
            (false, _) => write!(f, "<function {name}>"),
        }
    }
}

/// `(module, name, global)`: every accepted spelling. Python 2 pickles name `__builtin__`;
/// the unpickler's `fix_imports` maps it to `builtins`, and `xrange` to `range`.
pub const ALLOWED: &[(&str, &str, PyGlobal)] = &[
    (
        "numpy._core.multiarray",
        "_reconstruct",
        PyGlobal::Reconstruct,
    ),
    (
        "numpy.core.multiarray",
        "_reconstruct",
        PyGlobal::Reconstruct,
    ),
    (
        "numpy.core._internal",
        "_reconstruct",
        PyGlobal::Reconstruct,
    ),
    ("numpy", "ndarray", PyGlobal::NdArray),
    ("numpy", "dtype", PyGlobal::DType),
    ("numpy._core.multiarray", "scalar", PyGlobal::Scalar),
    ("numpy.core.multiarray", "scalar", PyGlobal::Scalar),
    ("numpy._core.numeric", "_frombuffer", PyGlobal::FromBuffer),
    ("numpy.core.numeric", "_frombuffer", PyGlobal::FromBuffer),
    (
        "numpy._core._internal",
        "_convert_to_stringdtype_kwargs",
        PyGlobal::StringDType,
    ),
    ("builtins", "complex", PyGlobal::Complex),
    ("__builtin__", "complex", PyGlobal::Complex),
    ("builtins", "set", PyGlobal::Set),
    ("__builtin__", "set", PyGlobal::Set),
    ("builtins", "frozenset", PyGlobal::FrozenSet),
    ("__builtin__", "frozenset", PyGlobal::FrozenSet),
    ("builtins", "bytearray", PyGlobal::ByteArray),
    ("__builtin__", "bytearray", PyGlobal::ByteArray),
    ("builtins", "range", PyGlobal::Range),
    ("__builtin__", "xrange", PyGlobal::Range),
    ("builtins", "slice", PyGlobal::Slice),
    ("__builtin__", "slice", PyGlobal::Slice),
    ("_codecs", "encode", PyGlobal::Encode),
    ("builtins", "bytes", PyGlobal::Bytes),
    ("__builtin__", "bytes", PyGlobal::Bytes),
];

/// The global a pickle's `module` and `name` refer to.
///
/// # Errors
/// [`PickleError::Global`] naming both when they are not on the allow-list.
///
/// # Examples
/// ```
/// use npy_pickle::PyGlobal;
/// assert_eq!(npy_pickle::lookup("__builtin__", "xrange"), Ok(PyGlobal::Range));
/// assert!(npy_pickle::lookup("os", "system").is_err());
/// ```
pub fn lookup(module: &str, name: &str) -> Result<PyGlobal, PickleError> {
    ALLOWED
        .iter()
        .find(|(m, n, _)| *m == module && *n == name)
        .map(|(_, _, g)| *g)
        .ok_or_else(|| PickleError::Global {
            module: module.to_owned(),
            name: name.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_names_refused_globals() {
        assert_eq!(lookup("__builtin__", "xrange"), Ok(PyGlobal::Range));
        let e = lookup("os", "system").unwrap_err();
        assert_eq!(
            e.to_string(),
            "pickle calls os.system; refused, nothing was executed (only numpy's array, dtype and scalar constructors and a few builtins are allowed)"
        );
        // Every canonical path is itself on the list.
        for (_, _, g) in ALLOWED {
            let (m, n) = g.path();
            assert_eq!(lookup(m, n), Ok(*g));
        }
    }
}
