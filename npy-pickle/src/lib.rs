//! Object arrays (`|O`) for npy-core: numpy's pickles decoded without executing anything, and
//! written back.
//!
//! `np.save` stores an array of Python objects as a pickle: `_reconstruct(ndarray, (0,), b'b')`
//! builds an empty array, and `BUILD` sets its state `(1, shape, dtype('O8'), fortran_order,
//! [items in C order])`. numpy's `np.load(..., allow_pickle=True)` hands that pickle to
//! Python's unpickler, which imports and calls whatever it names: a file can run any code.
//! This crate reads the same pickles with an interpreter of its own that **never imports,
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
//!   integers written as decimal text are limited to 4300 digits, as Python limits them. A
//!   value shared so often that its copies alone exceed the budget (3^n tuples from
//!   `DUP DUP TUPLE3` repeated n times) is refused after the opcodes run, by one pass over the
//!   shared nodes, before any copy is built.
//! - **Malformed input** (truncation anywhere, a wrong stack, unknown opcodes) is an error
//!   naming the opcode and its offset; nothing panics.
//!
//! Change the limits with [`loads_with`].
//!
//! # Reading and writing `.npy` files
//!
//! [`read_dyn`] reads a `.npy` file of any dtype, object arrays (and records with object
//! fields) as [`DynValue::Object`] values, each a [`PyObject`] ([`PyObject::of`]);
//! [`read_objects`] gives
//! an object array of one kind of value as a typed [`NpyArray`] (`Option<String>` for strings
//! with `None` for missing, `i64`, `f64`, ...). [`write_dyn`] of an array of dtype `|O` and
//! [`write_objects`] write numpy's pickle. Typed reads, views and memory maps of `O` always
//! refuse (an object has no fixed-size bytes to view).
//!
//! Other readers take the codec: [`PickleCodec`] is npy-core's
//! [`ObjectCodec`], given to
//! [`NpyReader::read_dyn_using`](npy_core::NpyReader::read_dyn_using) (an `.npz` member, a
//! stream, other limits) and [`npy_core::dynamic::write_dyn_to_using`].
//!
//! # Where it lives
//!
//! This crate owns Python's object model: the values ([`PyObject`], [`NpyScalar`],
//! [`PyDType`]: `value.rs`; [`PyGlobal`], the classes and functions a value may name, with the
//! allow-list: `globals.rs`), Python's `str()` of an `int` within its 4300 digits
//! ([`int_decimal`]: `decimal.rs`) and Python's `repr()` of the values (`repr.rs`, printed
//! through npy-print: `npy_print::repr(&value)`). npy-core is the format and knows none of it:
//! an element of an object array is a [`DynValue::Object`], which holds a [`PyObject`] behind
//! npy-core's opaque [`ObjectValue`](npy_core::dynamic::ObjectValue) hook;
//! [`PyObject::of`] borrows it back and `DynValue::from(value)` makes one. An object array
//! may hold numpy arrays and scalars of every dtype. The crate also owns the interpreter
//! (`vm.rs`, its opcode table in `opcode.rs`), Python's equality of dict keys and set items
//! (`keys.rs`), the pickler (`writer.rs`), the limits (`limits.rs`) and [`PickleError`]
//! (`error.rs`).
//!
//! # Examples
//! ```
//! use npy_pickle::PyObject;
//! // np.array(['a', None, 1.5], dtype=object): what np.save writes after the header.
//! let bytes = npy_pickle::dumps(
//!     &[PyObject::Str("a".into()), PyObject::None, PyObject::Float(1.5)],
//!     &[3],
//! )?;
//! let back = npy_pickle::loads(&bytes)?;
//! let array = back.as_array().unwrap();
//! assert_eq!(array.shape(), [3]);
//! assert_eq!(npy_print::repr(&back).to_string(), "array(['a', None, 1.5], dtype=object)");
//!
//! // A pickle that would run a shell command is refused at the name.
//! let evil = b"\x80\x04\x95\x1f\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\necho pwned\x94\x85\x94R\x94.";
//! let err = npy_pickle::loads(evil).unwrap_err();
//! assert_eq!(err.to_string().split(';').next(), Some("pickle calls os.system"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod decimal;
mod error;
mod globals;
mod keys;
mod limits;
mod opcode;
mod repr;
mod value;
mod vm;
mod writer;

use std::io::{Read, Write};
use std::path::Path;

pub use decimal::{int_decimal, int_decimal_work, MAX_INT_DIGITS};
pub use error::PickleError;
pub use globals::{lookup, PyGlobal, ALLOWED};
pub use limits::{PickleLimits, MAX_PICKLE_DEPTH, PICKLE_BUDGET};
/// Python's `int` of any size ([`PyObject::BigInt`]): num-bigint's, re-exported so that
/// users name the one this crate builds.
pub use num_bigint::BigInt;
pub use value::{NpyScalar, PyDType, PyObject};

use npy_core::__private::objects::{npy_array, write_file};
use npy_core::dynamic::ObjectCodec;
use npy_core::{
    error::Requested, DType, DynArray, DynValue, Error, ErrorKind, Header, NpyArray, NpyReader,
};

/// Decodes a pickle of allowed values with the default [`PickleLimits`].
///
/// Trailing bytes after the `STOP` opcode are ignored, as Python's `pickle.load` leaves them.
///
/// # Errors
/// Every [`PickleError`] but `NotTheArray`, `ElementType` and `Unpicklable`.
///
/// # Examples
/// ```
/// use npy_pickle::{loads, PyObject};
/// // pickle.dumps({'a': [1, 2.5]}, protocol=2)
/// let v = loads(b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01]q\x02(K\x01G@\x04\x00\x00\x00\x00\x00\x00es.")?;
/// assert_eq!(v.get("a"), Some(&PyObject::List(vec![PyObject::Int(1), PyObject::Float(2.5)])));
/// assert_eq!(npy_print::repr(&v).to_string(), "{'a': [1, 2.5]}");
/// # Ok::<(), npy_pickle::PickleError>(())
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
///
/// # Examples
/// See the crate's example.
pub fn dumps(items: &[PyObject], shape: &[u64]) -> Result<Vec<u8>, PickleError> {
    let product = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    if product != Some(items.len() as u64) {
        return Err(PickleError::NotTheArray {
            found: format!("{} items", items.len()),
            expected: format!("shape {shape:?}"),
        });
    }
    writer::dump_object_array(&items.iter().collect::<Vec<_>>(), shape, false)
}

/// npy-core's [`ObjectCodec`] for numpy's pickles: decodes them with this crate's
/// interpreter, within its [`PickleLimits`], and writes numpy's pickle of object arrays.
///
/// Give it to [`NpyReader::read_dyn_using`] and [`npy_core::dynamic::write_dyn_to_using`];
/// [`read_dyn`] and [`write_dyn`] use the default one.
///
/// # Examples
/// ```
/// use npy_core::{DType, Header, NpyReader};
/// use npy_pickle::{PickleCodec, PickleLimits, PyObject};
/// let mut bytes = Header::new(DType::Object, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(&npy_pickle::dumps(&[PyObject::Str("hi".into())], &[1])?);
/// let a = NpyReader::new(&bytes[..])?.read_dyn_using(&PickleCodec::default())?;
/// assert_eq!(a.element(0), Some(PyObject::Str("hi".into()).into()));
///
/// // A smaller budget than the pickle's bytes: refused before decoding.
/// let mut limits = PickleLimits::default();
/// limits.max_bytes = 10;
/// let small = PickleCodec::with_limits(limits);
/// let err = NpyReader::new(&bytes[..])?.read_dyn_using(&small).unwrap_err();
/// assert!(matches!(npy_pickle::PickleError::of(&err), Some(npy_pickle::PickleError::TooLarge { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PickleCodec {
    limits: PickleLimits,
}

impl PickleCodec {
    /// A codec that decodes within `limits` (the default: [`PickleLimits::default`]).
    pub const fn with_limits(limits: PickleLimits) -> PickleCodec {
        PickleCodec { limits }
    }

    /// The limits it decodes within.
    pub fn limits(&self) -> &PickleLimits {
        &self.limits
    }
}

impl ObjectCodec for PickleCodec {
    /// Reads the pickle (at most [`PickleLimits::max_bytes`] bytes, the first thing the
    /// budget holds), decodes it and checks that it is the array `header` describes.
    fn decode(&self, header: &Header, data: &mut dyn Read) -> Result<DynArray, Error> {
        let limit = self.limits.max_bytes;
        let mut bytes = Vec::new();
        data.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(PickleError::TooLarge {
                pickle_bytes: limit.saturating_add(1),
                limit,
            }
            .into());
        }
        let root = loads_with(&bytes, &self.limits)?;
        drop(bytes);
        let described = |dtype: &DType, shape: &[u64], fortran: bool| {
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

    /// numpy's pickle of an object array (`|O`), whose values must all be
    /// [`DynValue::Object`].
    fn encode(&self, array: &DynArray, out: &mut dyn Write) -> Result<(), Error> {
        // Borrowed, not copied: an object array holds its values.
        let values: Vec<_> = array.iter_c_order().collect();
        let items = values
            .iter()
            .map(|v| match PyObject::of(v) {
                Some(o) => Ok(o),
                None => Err(Error::from(ErrorKind::ValueMismatch {
                    dtype: DType::Object,
                    value: format!("{:?}", &**v),
                })),
            })
            .collect::<Result<Vec<&PyObject>, _>>()?;
        let fortran = array.order().is_fortran();
        out.write_all(&writer::dump_object_array(&items, array.shape(), fortran)?)?;
        Ok(())
    }
}

/// Reads the `.npy` file at `path`, whatever its dtype, into a [`DynArray`], as
/// [`npy_core::read_dyn`] does, object arrays (and records with object fields) decoded by the
/// default [`PickleCodec`] into [`DynValue::Object`] values.
///
/// # Errors
/// As [`npy_core::read_dyn`], and [`ErrorKind::Pickle`] for a pickle refused or malformed
/// ([`PickleError::of`] gives the [`PickleError`]); each names the file.
///
/// # Examples
/// ```
/// use npy_core::DynValue;
/// use npy_pickle::PyObject;
/// # let dir = std::env::temp_dir().join(format!("npy-pickle-read-dyn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("mixed.npy");
/// npy_pickle::write_objects(&path, &[PyObject::Int(7), PyObject::None], &[2])?;
/// let a = npy_pickle::read_dyn(&path)?;
/// assert_eq!(a.element(0), Some(DynValue::from(PyObject::Int(7))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_dyn(path: impl AsRef<Path>) -> Result<DynArray, Error> {
    let path = path.as_ref();
    let read = || NpyReader::open(path)?.read_dyn_using(&PickleCodec::default());
    read().map_err(|e| e.with_path(path))
}

/// Writes `array`, of any dtype, to `path` as [`npy_core::write_dyn`] does (atomically),
/// object arrays (`|O`) as numpy's pickle of their values (see [`write_objects`] for when
/// that is byte-identical to `np.save`).
///
/// # Errors
/// As [`npy_core::write_dyn`]; [`ErrorKind::Pickle`] for values the pickler does not write;
/// [`ErrorKind::Unsupported`] for records with object fields.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-pickle-write-dyn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_pickle::write_objects(&a, &[npy_pickle::PyObject::Str("x".into())], &[1])?;
/// npy_pickle::write_dyn(&b, &npy_pickle::read_dyn(&a)?)?;
/// assert_eq!(std::fs::read(&a)?, std::fs::read(&b)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_dyn(path: impl AsRef<Path>, array: &DynArray) -> Result<(), Error> {
    write_file(path.as_ref(), |w| {
        npy_core::dynamic::write_dyn_to_using(w, array, &PickleCodec::default())
    })
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
/// [`ErrorKind::Pickle`] as for [`dumps`]; header and I/O errors; each names the file
/// ([`Error::path`]).
///
/// # Examples
/// ```
/// use npy_pickle::{read_objects, write_objects, PyObject};
/// # let dir = std::env::temp_dir().join(format!("npy-pickle-objects-{}", std::process::id()));
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
    write_file(path.as_ref(), |w| {
        let pickle = dumps(items, shape)?;
        w.write_all(&Header::new(DType::Object, shape.to_vec()).to_bytes(None)?)?;
        w.write_all(&pickle)?;
        Ok(())
    })
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
    let read = || read_objects_from(&mut NpyReader::open(path)?, &PickleCodec::default());
    read().map_err(|e| e.with_path(path))
}

/// Reads an object array from `reader` into an [`NpyArray`] of `T` (see [`read_objects`]),
/// decoding with `codec` (its limits).
///
/// # Errors
/// As [`read_objects`].
pub fn read_objects_from<T: FromPyObject, R: Read>(
    reader: &mut NpyReader<R>,
    codec: &PickleCodec,
) -> Result<NpyArray<T>, Error> {
    if *reader.dtype() != DType::Object {
        return Err(Error::from(ErrorKind::TypeMismatch {
            file: reader.dtype().clone(),
            requested: Box::new(Requested::rust(
                format!("{} objects", T::NAME),
                DType::Object,
            )),
            safe_cast: false,
        }));
    }
    let array = reader.read_dyn_using(codec)?;
    let element = |(i, v): (usize, &DynValue)| {
        let (found, value) = match PyObject::of(v) {
            Some(o) => (o.type_name(), T::from_py(o)),
            None => ("a non-object value".to_owned(), None),
        };
        value.ok_or(PickleError::ElementType {
            index: i as u64,
            found,
            requested: T::NAME,
        })
    };
    // An object array holds its decoded values (memory order).
    let data = array
        .objects()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(element)
        .collect::<Result<Vec<T>, _>>()?;
    npy_array(array.meta().clone(), data)
}

/// `'<c8' (complex64)`: a dtype's descr and its canonical name, as npy-core's messages say it.
/// The README's examples, compiled as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
