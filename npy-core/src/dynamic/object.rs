//! The `O` dtype: the hook through which a codec (npy-pickle's) decodes and encodes an object
//! array's pickle ([`ObjectCodec`]), and the values it gives ([`ObjectValue`]), opaque to
//! npy-core, which knows nothing of Python's values.

use std::any::Any;
use std::fmt;
use std::io::{Read, Write};

use super::DynArray;
use crate::error::Error;
use crate::header::Header;

/// A value an element of an object array holds, what [`DynValue::Object`](crate::DynValue::Object)
/// boxes (npy-pickle's `PyObject`: a Python value decoded from the array's pickle). The methods
/// are what `DynValue`'s `Clone`, `PartialEq` and printing need of a type npy-core does not know;
/// `Debug` is the value's own. [`downcast_ref`](#method.downcast_ref) gets the concrete value back
/// (`npy_pickle::PyObject::of(&value)` does it for a `DynValue`).
///
/// # Examples
/// ```
/// use npy_core::dynamic::ObjectValue;
/// use npy_core::DynValue;
///
/// #[derive(Debug, Clone, PartialEq)]
/// struct Name(String);
/// impl ObjectValue for Name {
///     fn clone_value(&self) -> Box<dyn ObjectValue> {
///         Box::new(self.clone())
///     }
///     fn eq_value(&self, other: &dyn ObjectValue) -> bool {
///         other.downcast_ref::<Name>() == Some(self)
///     }
/// }
///
/// let v = DynValue::Object(Box::new(Name("ada".into())));
/// assert_eq!(v.clone(), v);
/// assert_eq!(format!("{v:?}"), r#"Object(Name("ada"))"#);
/// let DynValue::Object(o) = &v else { unreachable!() };
/// assert_eq!(o.downcast_ref::<Name>(), Some(&Name("ada".into())));
/// ```
pub trait ObjectValue: Any + fmt::Debug + Send + Sync {
    /// A copy of the value, boxed (what `DynValue::clone` makes of it).
    fn clone_value(&self) -> Box<dyn ObjectValue>;

    /// Whether `other` is a value of the same type, equal to this one (what `DynValue`'s `==`
    /// compares).
    fn eq_value(&self, other: &dyn ObjectValue) -> bool;

    /// Writes the value's text as a printer asks for it (`text`). `printer` is the printer's
    /// own options, which an implementation may downcast to print what the value nests:
    /// npy-print passes its `PrintOptions`. The default writes the value's `Debug`.
    ///
    /// # Errors
    /// What `out` returns (a printer with a budget refuses text past it).
    fn write_text(
        &self,
        out: &mut dyn fmt::Write,
        text: ObjectText,
        printer: &dyn Any,
    ) -> fmt::Result {
        let _ = (text, printer);
        write!(out, "{self:?}")
    }
}

/// Which text of an [`ObjectValue`] a printer asks for ([`ObjectValue::write_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ObjectText {
    /// Python's `repr()`.
    Repr,
    /// Python's `str()` (numpy's `str()` of a 0-d object array holding the value).
    Str,
    /// An element of a printed object array (numpy's `_object_format`: the `repr`, a `list` as
    /// `list([...])` so that it does not read as an axis).
    Element,
}

impl dyn ObjectValue {
    /// The value as a `T`, when it is one.
    pub fn downcast_ref<T: ObjectValue>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

impl Clone for Box<dyn ObjectValue> {
    fn clone(&self) -> Self {
        self.clone_value()
    }
}

impl PartialEq for dyn ObjectValue {
    fn eq(&self, other: &Self) -> bool {
        self.eq_value(other)
    }
}

/// Decodes an object array's pickle into values and encodes values into numpy's pickle: the
/// hook through which npy-core's dynamic reads and writes handle dtypes holding `O`.
///
/// npy-core has no implementation; `npy_pickle::PickleCodec` is the one to use (an
/// interpreter that never executes anything, with a memory budget). A codec must bound the
/// bytes it reads and the memory it builds: `data` is the rest of the input, of any length.
///
/// # Examples
/// A codec that refuses everything, and what a read through it gives:
/// ```
/// use std::io::{Read, Write};
/// use npy_core::dynamic::ObjectCodec;
/// use npy_core::{error::Category, DType, DynArray, Error, ErrorKind, Header};
///
/// #[derive(Debug)]
/// struct Refuse;
/// impl ObjectCodec for Refuse {
///     fn decode(&self, header: &Header, _data: &mut dyn Read) -> Result<DynArray, Error> {
///         Err(Error::from_codec(Category::Unsupported, format!("decoding {}", header.dtype)))
///     }
///     fn encode(&self, _array: &DynArray, _out: &mut dyn Write) -> Result<(), Error> {
///         Err(Error::from_codec(Category::Unsupported, "encoding"))
///     }
/// }
///
/// let mut bytes = Header::new(DType::Object, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(b"\x80\x04N.");
/// let mut reader = npy_core::NpyReader::new(&bytes[..])?;
/// let err = reader.read_dyn_using(&Refuse).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::Pickle { .. }));
/// assert_eq!(err.to_string(), "object array: decoding |O");
/// assert_eq!(err.classify(), Category::Unsupported);
/// // Without a codec, the refusal names the crate that decodes objects.
/// let err = npy_core::NpyReader::new(&bytes[..])?.read_dyn().unwrap_err();
/// assert!(err.to_string().contains("npy-pickle"));
/// # Ok::<(), Error>(())
/// ```
pub trait ObjectCodec: fmt::Debug + Send + Sync {
    /// Decodes the array `header` describes (a dtype holding `O`: an object array, or records
    /// with object fields) from `data`, the rest of the input after the header.
    ///
    /// # Errors
    /// Whatever the codec refuses, as [`ErrorKind::Pickle`](crate::ErrorKind::Pickle) (made
    /// with [`Error::from_codec`]); I/O errors of `data`.
    fn decode(&self, header: &Header, data: &mut dyn Read) -> Result<DynArray, Error>;

    /// Writes the data of `array`, whose dtype holds `O`, to `out` (the header is written
    /// already).
    ///
    /// # Errors
    /// Values the codec cannot encode, usually [`ErrorKind::Pickle`](crate::ErrorKind::Pickle);
    /// I/O errors of `out`.
    fn encode(&self, array: &DynArray, out: &mut dyn Write) -> Result<(), Error>;
}

/// What the pickle crate needs of npy-core's dynamic codec, and nothing else should use:
/// the values of a dtype decoded from and encoded into their bytes (reached as
/// `npy_core::__private::objects`).
pub mod internals {
    use std::io::Write;
    use std::path::Path;

    use super::{DynArray, Header};
    use crate::error::{Error, ErrorKind};
    use crate::meta::ArrayMeta;
    use crate::read::NpyArray;

    /// What a pickled numpy scalar of `dtype` costs each time it is decoded or copied.
    pub use crate::dynamic::budget::dyn_cost as decoded_bytes;
    pub use crate::dynamic::decode::decode_all;
    pub use crate::dynamic::encode::encode;

    /// The array `header` describes (no objects) holding the elements in `bytes`, exactly its
    /// `nbytes` (in the file's byte order): a numeric array inside an object array's pickle,
    /// gathered into columns without a tree per element.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when `bytes` is not the header's `nbytes`; a dtype
    /// holding objects; a shape over numpy's size or this machine's.
    pub fn array_from_bytes(header: Header, bytes: &[u8]) -> Result<DynArray, Error> {
        let meta = ArrayMeta::from_header(header)?;
        let dtype = meta.dtype().clone();
        dtype.refuse_object()?;
        if bytes.len() as u64 != meta.nbytes() {
            return Err(Error::new(ErrorKind::LengthMismatch {
                what: "array data",
                expected: meta.nbytes(),
                found: bytes.len() as u64,
            }));
        }
        let (what, n) = ("elements of a dynamic array", meta.num_elements());
        let refuse = |_| Error::allocation_limit(what, n, dtype.itemsize());
        let n = usize::try_from(n).map_err(refuse)?;
        let mut columns = crate::dynamic::columns::Columns::new(&dtype, true)?;
        columns.reserve_exact(n);
        columns.push_rows(bytes, n);
        DynArray::from_columns(meta, columns)
    }

    /// The elements' bytes of `array` in memory order, rebuilt from its columns (`None` for a
    /// dtype holding objects).
    pub fn array_bytes(array: &DynArray) -> Option<Vec<u8>> {
        let columns = array.column_store()?;
        // In memory: the columns hold these bytes already (padding included, or zeros).
        let size = usize::try_from(array.dtype().itemsize()).ok()?;
        let mut out = vec![0u8; size.checked_mul(array.len())?];
        columns.scatter(&mut out, 0, array.len());
        Some(out)
    }

    /// An array of `meta` holding `data` (elements that are not
    /// [`NpyElement`](crate::NpyElement)s: the Rust values of an object array's elements).
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when `data` does not hold `meta`'s elements.
    pub fn npy_array<T>(meta: ArrayMeta, data: Vec<T>) -> Result<NpyArray<T>, Error> {
        NpyArray::from_meta(meta, data)
    }

    /// Writes the file at `path` atomically, as the crate's path writers do (a temporary file
    /// renamed into place once `write` succeeded), the error naming the file.
    ///
    /// # Errors
    /// What `write` returns; creating, writing or renaming the temporary file.
    pub fn write_file(
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        crate::write::write_atomic(path, |file| write(file))
    }
}
