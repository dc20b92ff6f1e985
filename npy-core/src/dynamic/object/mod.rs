//! The `O` dtype (feature `pickle`): the Python values an object array holds, and the pickle
//! codec that reads and writes them without executing anything.
//!
//! An object array's data is one pickle (`_reconstruct(ndarray, (0,), b'b')`, then `BUILD`
//! with `(1, shape, dtype('O8'), fortran_order, [items in C order])`), so it is the dynamic
//! reader's decoder of that dtype, as `decode.rs` is of the others; and since an object array
//! may hold numpy arrays and scalars of any dtype, the two decode each other's values.
//!
//! - `value.rs`: [`PyObject`], [`NpyScalar`], [`PyDType`] (their `repr` is in `crate::print`);
//! - `globals.rs`: the allow-list ([`ALLOWED`], [`PyGlobal`]);
//! - `vm.rs`: the opcode interpreter, which never imports, calls or looks up anything;
//! - `keys.rs`: Python's equality of dict keys and set items;
//! - `writer.rs`: the pickler, byte for byte as `np.save`;
//! - `limits.rs`: [`PickleLimits`].
//!
//! The public face is `npy_core::pickle` (the crate's `pickle` module), which documents what is
//! accepted and refused.

mod globals;
mod keys;
mod limits;
mod value;
mod vm;
mod writer;

use std::io::{Read, Write};

pub use globals::{PyGlobal, ALLOWED};
pub use limits::{PickleLimits, MAX_PICKLE_DEPTH, PICKLE_BUDGET};
pub use value::{NpyScalar, PyDType, PyObject};

use super::{DynArray, DynValue};
use crate::codec::checked_product;
use crate::error::{Error, ErrorKind, PickleError};
use crate::read::NpyReader;

/// Decodes a pickle of allowed values with the default [`PickleLimits`].
///
/// Trailing bytes after the `STOP` opcode are ignored, as Python's `pickle.load` leaves them.
///
/// # Errors
/// Every [`PickleError`] but `NotTheArray`, `ElementType` and `Unpicklable`.
///
/// # Examples
/// ```
/// use npy_core::pickle::{loads, PyObject};
/// // pickle.dumps({'a': [1, 2.5]}, protocol=2)
/// let v = loads(b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01]q\x02(K\x01G@\x04\x00\x00\x00\x00\x00\x00es.")?;
/// assert_eq!(v.get("a"), Some(&PyObject::List(vec![PyObject::Int(1), PyObject::Float(2.5)])));
/// assert_eq!(v.to_string(), "{'a': [1, 2.5]}");
/// # Ok::<(), npy_core::pickle::PickleError>(())
/// ```
pub fn loads(pickle: &[u8]) -> Result<PyObject, PickleError> {
    loads_with(pickle, &PickleLimits::default())
}

/// Decodes a pickle of allowed values with the given limits.
///
/// # Errors
/// As [`loads`].
pub fn loads_with(pickle: &[u8], limits: &PickleLimits) -> Result<PyObject, PickleError> {
    vm::run(pickle, limits)
}

/// The pickle `np.save` writes for an object array of `shape` whose elements, in C order, are
/// `items`: protocol 4, framed, byte for byte what numpy 2.4 writes when the array's elements
/// are distinct Python objects (see `npy_core::pickle::write_objects`): every [`PyObject`] but
/// records and `StringDType`, numpy scalars and nested arrays included.
///
/// # Errors
/// [`PickleError::Unpicklable`] for record and subarray dtypes (of nested arrays, scalars or
/// dtype values), `StringDType` values and functions;
/// [`PickleError::TooDeep`] past [`MAX_PICKLE_DEPTH`] levels; [`PickleError::NotTheArray`]
/// when the number of items is not the product of `shape`.
pub fn dumps_object_array(items: &[PyObject], shape: &[u64]) -> Result<Vec<u8>, PickleError> {
    if checked_product(1, shape) != Some(items.len() as u64) {
        return Err(PickleError::NotTheArray {
            found: format!("{} items", items.len()),
            expected: format!("shape {shape:?}"),
        });
    }
    writer::dump_object_array(&items.iter().collect::<Vec<_>>(), shape, false)
}

/// The data of an object array (or a record with object fields) for
/// [`NpyReader::read_dyn`]: the rest of the input is the pickle, whose array must be the one
/// the header describes.
pub(crate) fn read_array<R: Read>(reader: &mut NpyReader<R>) -> Result<DynArray, Error> {
    let limits = PickleLimits {
        max_bytes: reader.max_pickle_bytes(),
        ..PickleLimits::default()
    };
    let Some(bytes) = reader.read_rest(limits.max_bytes)? else {
        // The pickle's own bytes are the first thing the budget holds.
        return Err(PickleError::TooLarge {
            pickle_bytes: limits.max_bytes.saturating_add(1),
            limit: limits.max_bytes,
        }
        .into());
    };
    let root = loads_with(&bytes, &limits)?;
    let header = reader.header();
    let described = |dtype: &dyn std::fmt::Display, shape: &[u64], fortran: bool| {
        let order = if fortran { "Fortran" } else { "C" };
        format!("an array of dtype '{dtype}', shape {shape:?}, {order} order")
    };
    let expected = || described(&header.dtype, &header.shape, header.fortran_order);
    let PyObject::Array(array) = root else {
        return Err(PickleError::NotTheArray {
            found: format!("a {}", root.type_name()),
            expected: expected(),
        }
        .into());
    };
    if array.header() != header {
        let found = array.header();
        return Err(PickleError::NotTheArray {
            found: described(&found.dtype, &found.shape, found.fortran_order),
            expected: expected(),
        }
        .into());
    }
    Ok(*array)
}

/// Writes the data of an object array (`|O`) for [`write_dyn_to`](super::write_dyn_to):
/// numpy's pickle of its values, which must all be [`DynValue::Object`].
pub(super) fn write_array(w: &mut impl Write, array: &DynArray) -> Result<(), Error> {
    let items: Vec<&PyObject> = array
        .iter_c_order()
        .map(|v| match v {
            DynValue::Object(o) => Ok(o),
            other => Err(Error::new(ErrorKind::ValueMismatch {
                dtype: "'|O'".into(),
                value: format!("{other:?}"),
            })),
        })
        .collect::<Result<_, _>>()?;
    let fortran = array.order().is_fortran();
    w.write_all(&writer::dump_object_array(&items, array.shape(), fortran)?)?;
    Ok(())
}
