//! Object arrays (`|O`): numpy's pickles decoded without executing anything, and written back.
//!
//! `np.save` stores an array of Python objects as a pickle: `_reconstruct(ndarray, (0,), b'b')`
//! builds an empty array, and `BUILD` sets its state `(1, shape, dtype('O8'), fortran_order,
//! [items in C order])`. numpy's `np.load(..., allow_pickle=True)` hands that pickle to
//! Python's unpickler, which imports and calls whatever it names: a file can run any code.
//! This module reads the same pickles with an interpreter of its own that **never imports,
//! calls or looks up anything**: it knows the opcodes, and a fixed list of names it imitates
//! with its own constructors.
//!
//! # What is accepted
//!
//! - **Opcodes of protocols 0 to 5**, all of them, except those that reach outside the pickle
//!   (below). Protocol 4 is what numpy ≥ 2.1 writes (`pickle.dump(array, protocol=4)`), 3 what
//!   numpy 1.17–2.0 wrote, 2 what older versions and Python 2 wrote.
//! - **Plain values**: `None`, `bool`, `int` of any size, `float`, `str`, `bytes` (and Python 2
//!   `str`, decoded as `bytes` like `np.load(..., encoding='bytes')`), `list`, `tuple`, `dict`,
//!   `set` and `frozenset` (protocol 4 opcodes), shared and repeated through the memo.
//! - **The globals of [`ALLOWED`]**, each mapped to a [`PyGlobal`] whose meaning is ours:
//!   numpy's `_reconstruct` and `ndarray` (an array from its state, no subclasses), `dtype`
//!   (any dtype the `.npy` format describes, from the pickled state), `scalar` (a numpy scalar
//!   from a dtype and its bytes), `_frombuffer` (protocol 5's numeric arrays), numpy 2's
//!   `StringDType`; the builtins `complex`, `set`, `frozenset`, `bytearray`, `range`, `slice`,
//!   and `_codecs.encode` (protocols 0–2 write `bytes` as `encode(str, 'latin1')`). Each
//!   accepts exactly the arguments numpy's and Python's pickles give it.
//!
//! # What is refused, and why that is safe
//!
//! - **Any other global** (`GLOBAL`, `STACK_GLOBAL`, `INST`) is [`PickleError::Global`] at the
//!   opcode that names it, before anything else happens: `os.system`, `builtins.eval`,
//!   `subprocess.Popen`, `numpy.load`, a user's class with `__reduce__`. The reader has no way
//!   to run code: a global is only ever compared with the strings of [`ALLOWED`].
//! - **`REDUCE`, `BUILD`, `INST`, `OBJ`** on anything that is not an allowed global or an
//!   array or dtype awaiting its state; **`NEWOBJ`, `NEWOBJ_EX`** on anything (numpy's pickles
//!   never use them): [`PickleError::Unsupported`] or [`PickleError::Malformed`].
//! - **Persistent ids, extension codes and out-of-band buffers** (`PERSID`, `BINPERSID`,
//!   `EXT1/2/4`, `NEXT_BUFFER`, `READONLY_BUFFER`): [`PickleError::External`].
//! - Values that contain themselves ([`PickleError::Recursive`]), strings with lone surrogates
//!   (Python writes them, a Rust `String` cannot hold them), dtypes the `.npy` format cannot
//!   describe.
//!
//! # Limits
//!
//! - **Size**: values are built once the opcodes have run, each copy of a shared value again,
//!   and every byte built is counted against [`MAX_PICKLE_EXPANSION`] bytes per pickle byte
//!   plus [`PICKLE_ALLOWANCE`]: a memo bomb (a list of a list of ... shared references, a few
//!   hundred bytes naming gigabytes) is [`PickleError::TooLarge`] before it is allocated.
//! - **Depth**: values nest at most [`MAX_PICKLE_DEPTH`] levels ([`PickleError::TooDeep`]);
//!   the opcode interpreter itself never recurses, so 100,000 nested lists are an error, not a
//!   stack overflow.
//! - **Time**: one pass over the opcodes, then building the values, both linear in the input
//!   (in the budget); integers written as decimal text are limited to 4300 digits, as Python
//!   limits them.
//! - **Malformed input** (truncation anywhere, a wrong stack, unknown opcodes) is an error
//!   naming the opcode and its offset; nothing panics.
//!
//! Change the limits with [`loads_with`].
//!
//! # Reading and writing `.npy` files
//!
//! [`read_dyn`](crate::read_dyn) gives object arrays (and records with object fields) as
//! [`DynValue::Object`] values; [`read_objects`] gives an object array
//! of one kind of value as a typed [`NpyArray`] (`Option<String>` for strings with `None` for
//! missing, `i64`, `f64`, ...). [`ReadOptions::decode_pickles`](crate::ReadOptions::decode_pickles) turns decoding off, which
//! restores [`Error::ObjectArray`]. Typed reads, views and memory maps of `O` always refuse
//! (an object has no fixed-size bytes to view). [`write_dyn`](crate::write_dyn) of an array
//! of dtype `|O` and [`write_objects`] write numpy's pickle.
//!
//! # Examples
//! ```
//! use npy_core::pickle::{self, PyObject};
//! // np.array(['a', None, 1.5], dtype=object): what np.save writes after the header.
//! let bytes = pickle::dumps_object_array(
//!     &[PyObject::Str("a".into()), PyObject::None, PyObject::Float(1.5)],
//!     &[3],
//! )?;
//! let back = pickle::loads(&bytes)?;
//! let array = back.as_array().unwrap();
//! assert_eq!(array.shape, [3]);
//! assert_eq!(back.to_string(), "array(['a', None, 1.5], dtype=object)");
//!
//! // A pickle that would run a shell command is refused at the name.
//! let evil = b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\necho pwned\x94\x85\x94R\x94.";
//! let err = pickle::loads(evil).unwrap_err();
//! assert_eq!(err.to_string().split(';').next(), Some("pickle calls os.system"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod globals;
mod limits;
mod value;
mod vm;
mod writer;

use std::io::{Read, Write};
use std::path::Path;

pub use error::PickleError;
pub use globals::{PyGlobal, ALLOWED};
pub use limits::{PickleLimits, MAX_PICKLE_DEPTH, MAX_PICKLE_EXPANSION, PICKLE_ALLOWANCE};
pub use num_bigint::BigInt;
pub use value::{NpyScalar, PyDType, PyObject};

use crate::dtype::DType;
use crate::dynamic::{DynArray, DynValue};
use crate::error::Error;
use crate::header::Header;
use crate::info::Order;
use crate::read::{NpyArray, NpyReader};

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
/// are distinct Python objects (see [`write_objects`]): every [`PyObject`] but records and
/// `StringDType`, numpy scalars and nested arrays included.
///
/// # Errors
/// [`PickleError::Unpicklable`] for record and subarray dtypes (of nested arrays, scalars or
/// dtype values), `StringDType` values and functions;
/// [`PickleError::TooDeep`] past [`MAX_PICKLE_DEPTH`] levels; [`PickleError::NotTheArray`]
/// when the number of items is not the product of `shape`.
pub fn dumps_object_array(items: &[PyObject], shape: &[u64]) -> Result<Vec<u8>, PickleError> {
    let n = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    if n != Some(items.len() as u64) {
        return Err(PickleError::NotTheArray {
            found: format!("{} items", items.len()),
            expected: format!("shape {shape:?}"),
        });
    }
    writer::dump_object_array(&items.iter().collect::<Vec<_>>(), shape, false)
}

/// Writes an object array (`dtype=object`) of `shape`, elements `items` in C order, to `path`
/// as `np.save(path, np.array(items, dtype=object).reshape(shape))` does (atomically: a
/// temporary file renamed into place).
///
/// Byte-identical to `np.save` (tested on every kind of value in `fixtures/object/`: `str`,
/// `int` of any size, `float`, `complex`, `bool`, `None`, `bytes`, `bytearray`, lists,
/// tuples, dicts, sets, `range`, `slice`, numpy scalars and arrays), as long as the numpy
/// array's elements are distinct Python objects: Python writes a second reference to the
/// *same* object as a memo reference, which values without identity cannot reproduce
/// (one-character and empty `str`/`bytes`, module names, globals and numpy's built-in
/// dtypes, which CPython and numpy always share, are shared here too). `np.load` gives the
/// same values either way. A `StringDType` array is written as an object array of its
/// strings.
///
/// # Errors
/// [`Error::Pickle`] as for [`dumps_object_array`]; header and I/O errors.
///
/// # Examples
/// ```
/// use npy_core::pickle::{read_objects, write_objects, PyObject};
/// # let dir = std::env::temp_dir().join(format!("npy-core-objects-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("names.npy");
/// write_objects(&path, &[PyObject::Str("ada".into()), PyObject::None], &[2])?;
/// let names = read_objects::<Option<String>>(&path)?;
/// assert_eq!(names.data(), [Some("ada".to_string()), None]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_objects(
    path: impl AsRef<Path>,
    items: &[PyObject],
    shape: &[u64],
) -> Result<(), Error> {
    let mut file = crate::write::AtomicFile::create(path.as_ref())?;
    let header = Header::new(DType::Object, shape.to_vec());
    let pickle = dumps_object_array(items, shape)?;
    file.write_all(&header.to_bytes(None)?)?;
    file.write_all(&pickle)?;
    file.commit()
}

/// Writes the data part of an object array for [`write_dyn`](crate::write_dyn): its values
/// must all be [`DynValue::Object`].
pub(crate) fn write_dyn_objects(w: &mut impl Write, array: &DynArray) -> Result<(), Error> {
    let items: Vec<&PyObject> = array
        .iter_c_order()
        .map(|v| match v {
            DynValue::Object(o) => Ok(o),
            other => Err(Error::ValueMismatch {
                dtype: "'|O'".into(),
                value: format!("{other:?}"),
            }),
        })
        .collect::<Result<_, _>>()?;
    let pickle = writer::dump_object_array(&items, &array.shape, array.fortran_order)?;
    w.write_all(&pickle)?;
    Ok(())
}

/// Decodes the data of an object array (or a record with object fields) for
/// [`NpyReader::read_dyn`]: the rest of the input is the pickle.
pub(crate) fn read_dyn_objects<R: Read>(reader: &mut NpyReader<R>) -> Result<DynArray, Error> {
    let bytes = reader.read_rest()?;
    let header = reader.header().clone();
    let root = loads(&bytes)?;
    let expected = || {
        format!(
            "an array of dtype '{}', shape {:?}, {} order",
            header.dtype,
            header.shape,
            if header.fortran_order { "Fortran" } else { "C" }
        )
    };
    let PyObject::Array(array) = root else {
        return Err(PickleError::NotTheArray {
            found: format!("a {}", root.type_name()),
            expected: expected(),
        }
        .into());
    };
    let array = *array;
    if array.shape != header.shape
        || array.fortran_order != header.fortran_order
        || array.dtype != header.dtype
    {
        return Err(PickleError::NotTheArray {
            found: format!(
                "an array of dtype '{}', shape {:?}, {} order",
                array.dtype,
                array.shape,
                if array.fortran_order { "Fortran" } else { "C" }
            ),
            expected: expected(),
        }
        .into());
    }
    Ok(array)
}

/// A Rust type that an element of an object array converts to, for [`read_objects`].
///
/// Implemented for `String` (a `str`), `i64` (an `int` or numpy integer that fits), `f64`
/// (a `float`, `int` or numpy real number), `bool`, `Vec<u8>` (`bytes`), [`PyObject`] (any
/// value), and `Option<T>` of these (`None` allowed).
pub trait FromPyObject: Sized {
    /// The type's name in errors.
    const NAME: &'static str;
    /// The value, or `None` when the object is of another kind.
    fn from_py(obj: &PyObject) -> Option<Self>;
}

impl FromPyObject for String {
    const NAME: &'static str = "String";
    fn from_py(obj: &PyObject) -> Option<Self> {
        obj.as_str().map(str::to_owned)
    }
}

impl FromPyObject for i64 {
    const NAME: &'static str = "i64";
    fn from_py(obj: &PyObject) -> Option<Self> {
        obj.as_i64()
    }
}

impl FromPyObject for f64 {
    const NAME: &'static str = "f64";
    fn from_py(obj: &PyObject) -> Option<Self> {
        obj.as_f64()
    }
}

impl FromPyObject for bool {
    const NAME: &'static str = "bool";
    fn from_py(obj: &PyObject) -> Option<Self> {
        obj.as_bool()
    }
}

impl FromPyObject for Vec<u8> {
    const NAME: &'static str = "Vec<u8>";
    fn from_py(obj: &PyObject) -> Option<Self> {
        match obj {
            PyObject::Bytes(b) => Some(b.clone()),
            _ => None,
        }
    }
}

impl FromPyObject for PyObject {
    const NAME: &'static str = "PyObject";
    fn from_py(obj: &PyObject) -> Option<Self> {
        Some(obj.clone())
    }
}

impl<T: FromPyObject> FromPyObject for Option<T> {
    const NAME: &'static str = "Option<_>";
    fn from_py(obj: &PyObject) -> Option<Self> {
        match obj {
            PyObject::None => Some(None),
            o => T::from_py(o).map(Some),
        }
    }
}

/// Reads the object array (`|O`) at `path` into an [`NpyArray`] of `T`, in the file's memory
/// order: `read_objects::<Option<String>>` for strings with `None` for missing values,
/// `read_objects::<f64>` for numbers.
///
/// # Errors
/// [`Error::TypeMismatch`] when the file's dtype is not `|O`; [`Error::Pickle`] with
/// [`PickleError::ElementType`] naming the first element that is not a `T`, or any error of
/// decoding the pickle; header and I/O errors.
///
/// # Examples
/// See [`write_objects`].
pub fn read_objects<T: FromPyObject>(path: impl AsRef<Path>) -> Result<NpyArray<T>, Error> {
    NpyReader::open(path)?.read_objects()
}

impl<R: Read> NpyReader<R> {
    /// Reads an object array into an [`NpyArray`] of `T` (see [`read_objects`]).
    ///
    /// # Errors
    /// As [`read_objects`].
    pub fn read_objects<T: FromPyObject>(&mut self) -> Result<NpyArray<T>, Error> {
        if *self.dtype() != DType::Object {
            return Err(Error::TypeMismatch {
                file: crate::element::describe(self.dtype()),
                requested: format!("{} objects ('|O')", T::NAME),
            });
        }
        let array = read_dyn_objects(self)?;
        let order = if array.fortran_order {
            Order::Fortran
        } else {
            Order::C
        };
        let data = array
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                DynValue::Object(o) => T::from_py(o).ok_or_else(|| PickleError::ElementType {
                    index: i as u64,
                    found: o.type_name(),
                    requested: T::NAME,
                }),
                _ => Err(PickleError::ElementType {
                    index: i as u64,
                    found: "a non-object value".into(),
                    requested: T::NAME,
                }),
            })
            .collect::<Result<Vec<T>, _>>()?;
        NpyArray::from_parts(array.shape, order, data)
    }
}
