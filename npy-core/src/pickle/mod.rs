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
//! - **Size**: one budget, [`PICKLE_BUDGET`] (128 MiB) whatever the pickle's length, counts
//!   everything the reader holds or builds: the pickle's bytes, the interpreter's stack, marks,
//!   memo and nodes, each value of the tree (each copy of a shared value again) and the keys
//!   that compare dict keys and set items. A memo bomb (a list of a list of ... shared
//!   references, a few hundred bytes naming gigabytes) or 16 million `EMPTY_TUPLE` opcodes
//!   deflated into 16 KB are [`PickleError::TooLarge`] before the memory is taken.
//! - **Depth**: values nest at most [`MAX_PICKLE_DEPTH`] levels ([`PickleError::TooDeep`]);
//!   the opcode interpreter itself never recurses, so 100,000 nested lists are an error, not a
//!   stack overflow.
//! - **Time**: one pass over the opcodes, then building the values, both linear in what the
//!   budget counts: an opcode copies nothing it has not charged, and a constructor given more
//!   arguments than it takes is refused before they are looked at (Python's `TypeError`);
//!   integers written as decimal text are limited to 4300 digits, as Python limits them.
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
//! restores [`ErrorKind::ObjectArray`]. Typed reads, views and memory maps of `O` always refuse
//! (an object has no fixed-size bytes to view). [`write_dyn`](crate::write_dyn) of an array
//! of dtype `|O` and [`write_objects`] write numpy's pickle.
//!
//! # Where it lives
//!
//! This module is the public face, at the top of the crate's module graph. The values
//! ([`PyObject`] and friends) and the codec (the interpreter, the allow-list, the pickler) are
//! the dynamic reader's decoder and encoder of the `O` dtype (`src/dynamic/object/`): an object
//! array holds numpy arrays and scalars of every dtype, and a record may hold objects, so the
//! two decode each other's values. [`PickleError`] is defined beside the crate's
//! [`ErrorKind`], which carries it as [`ErrorKind::Pickle`].
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
//! assert_eq!(array.shape(), [3]);
//! assert_eq!(back.to_string(), "array(['a', None, 1.5], dtype=object)");
//!
//! // A pickle that would run a shell command is refused at the name.
//! let evil = b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\necho pwned\x94\x85\x94R\x94.";
//! let err = pickle::loads(evil).unwrap_err();
//! assert_eq!(err.to_string().split(';').next(), Some("pickle calls os.system"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Read, Write};
use std::path::Path;

pub use crate::dynamic::object::{
    dumps_object_array, loads, loads_with, NpyScalar, PickleLimits, PyDType, PyGlobal, PyObject,
    ALLOWED, MAX_PICKLE_DEPTH, PICKLE_BUDGET,
};
pub use crate::error::PickleError;
pub use num_bigint::BigInt;

use crate::dtype::DType;
use crate::dynamic::DynValue;
use crate::error::{Error, ErrorKind, PathContext};
use crate::header::Header;
use crate::read::{NpyArray, NpyReader};
use crate::write::AtomicFile;

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
/// [`ErrorKind::Pickle`] as for [`dumps_object_array`]; header and I/O errors; each names the
/// file ([`Error::path`]).
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
    let path = path.as_ref();
    let write = || -> Result<(), Error> {
        let pickle = dumps_object_array(items, shape)?;
        let mut file = AtomicFile::create(path)?;
        file.write_all(&Header::new(DType::Object, shape.to_vec()).to_bytes(None)?)?;
        file.write_all(&pickle)?;
        file.commit()
    };
    write().at_path(path)
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
/// [`ErrorKind::TypeMismatch`] when the file's dtype is not `|O`; [`ErrorKind::Pickle`] with
/// [`PickleError::ElementType`] naming the first element that is not a `T`, or any error of
/// decoding the pickle; header and I/O errors; each names the file ([`Error::path`]).
///
/// # Examples
/// See [`write_objects`].
pub fn read_objects<T: FromPyObject>(path: impl AsRef<Path>) -> Result<NpyArray<T>, Error> {
    let path = path.as_ref();
    NpyReader::open(path)?.read_objects().at_path(path)
}

impl<R: Read> NpyReader<R> {
    /// Reads an object array into an [`NpyArray`] of `T` (see [`read_objects`]), whatever
    /// [`ReadOptions::decode_pickles`](crate::ReadOptions::decode_pickles) says: asking for
    /// objects is asking for the pickle to be decoded.
    ///
    /// # Errors
    /// As [`read_objects`].
    pub fn read_objects<T: FromPyObject>(&mut self) -> Result<NpyArray<T>, Error> {
        if *self.dtype() != DType::Object {
            return Err(Error::new(ErrorKind::TypeMismatch {
                file: self.dtype().describe(),
                requested: format!("{} objects ('|O')", T::NAME),
                safe_cast: false,
            }));
        }
        let array = crate::dynamic::object::read_array(self)?;
        let element = |(i, v): (usize, &DynValue)| {
            let (found, value) = match v {
                DynValue::Object(o) => (o.type_name(), T::from_py(o)),
                _ => ("a non-object value".to_owned(), None),
            };
            value.ok_or(PickleError::ElementType {
                index: i as u64,
                found,
                requested: T::NAME,
            })
        };
        let data = array
            .values()
            .iter()
            .enumerate()
            .map(element)
            .collect::<Result<Vec<T>, _>>()?;
        NpyArray::from_meta(array.meta().clone(), data)
    }
}
