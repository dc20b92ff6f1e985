//! The allow-list: the only globals a pickle may name, each mapped to one of our own value
//! constructors ([`PyGlobal`]). Nothing here imports or calls Python; a name not in
//! [`ALLOWED`] is [`PickleError::Global`].

use npy_core::object::PyGlobal;

use crate::error::PickleError;

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
/// use npy_core::object::PyGlobal;
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
