//! [`PyObject`]: the Python values an object array can hold, as plain Rust data, and how a
//! [`DynValue`] holds one (npy-core's [`ObjectValue`] hook, opaque to npy-core).

use std::any::Any;
use std::fmt;

use num_bigint::BigInt;

use npy_core::dtype::{DType, Primitive, TimeKind};
use npy_core::dynamic::{ObjectText, ObjectValue};
use npy_core::{DynArray, DynValue};
use npy_print::{ArrayDisplay, Print, PrintOptions};

use crate::globals::PyGlobal;

/// A Python value decoded from a pickle: what one element of an object array (`|O`) holds.
///
/// Containers own their items: a value the pickle shares (the same list twice) is decoded
/// as two equal values. Python's `repr()` and `str()` are npy-print's calls,
/// `npy_print::repr(&value)` and `npy_print::str(&value)` (this crate implements npy-print's
/// [`Print`] for it). A [`DynValue::Object`] holds one: [`PyObject::of`] borrows it back,
/// `DynValue::from(value)` makes one.
///
/// # Examples
/// ```
/// use npy_pickle::PyObject;
/// let v = PyObject::List(vec![
///     PyObject::Str("a".into()),
///     PyObject::None,
///     PyObject::Float(1.5),
///     PyObject::Tuple(vec![PyObject::Int(1)]),
/// ]);
/// assert!(matches!(&v, PyObject::List(items) if items.len() == 4)); // Python's ['a', None, 1.5, (1,)]
/// assert_eq!(v.type_name(), "list");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PyObject {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int` that fits in 64 bits.
    Int(i64),
    /// An `int` outside the `i64` range (the reader never gives a `BigInt` that fits an
    /// [`PyObject::Int`]).
    BigInt(Box<BigInt>),
    /// A `float`.
    Float(f64),
    /// A `complex`: real and imaginary parts.
    Complex(f64, f64),
    /// A `str`.
    Str(String),
    /// A `bytes` object, and a Python 2 `str` (as `np.load(..., encoding='bytes')` gives it).
    Bytes(Vec<u8>),
    /// A `bytearray`.
    ByteArray(Vec<u8>),
    /// A `list`.
    List(Vec<PyObject>),
    /// A `tuple`.
    Tuple(Vec<PyObject>),
    /// A `dict`: `(key, value)` pairs in insertion order, keys unique (Python equality: `1`,
    /// `1.0` and `True` are one key).
    Dict(Vec<(PyObject, PyObject)>),
    /// A `set`, in the pickle's order (Python's own iteration order depends on hashes).
    Set(Vec<PyObject>),
    /// A `frozenset`, in the pickle's order.
    FrozenSet(Vec<PyObject>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// `slice(start, stop, step)`.
    Slice(Box<[PyObject; 3]>),
    /// A numpy array inside the array: its dtype, shape, order and elements (object elements
    /// are [`DynValue::Object`]). A `StringDType` array has dtype `|O` and `str` (or its
    /// `na_object`) elements.
    Array(Box<DynArray>),
    /// A numpy scalar (`np.float32(2.5)`, `np.int64(7)`, `np.str_('x')`): its dtype and value.
    Scalar(Box<NpyScalar>),
    /// A numpy dtype object (`np.dtype('<f4')`) or `StringDType`.
    DType(Box<PyDType>),
    /// A class or function the allow-list names, not called (`range` itself, as in numpy's
    /// `py3-objarr.npy` test file).
    Global(PyGlobal),
}

/// A numpy scalar: the dtype and the value decoded as [`DynValue`] (`np.float32(2.5)` is
/// dtype `<f4` and `DynValue::Float(2.5)`).
#[derive(Debug, Clone, PartialEq)]
pub struct NpyScalar {
    /// The scalar's dtype.
    pub dtype: DType,
    /// Its value.
    pub value: DynValue,
}

/// A numpy dtype object held as a value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PyDType {
    /// A dtype the `.npy` format can describe.
    Numpy(DType),
    /// numpy 2's variable-width `StringDType(coerce=..., na_object=...)`.
    String {
        /// The `coerce` flag.
        coerce: bool,
        /// The missing-value sentinel, when the dtype has one.
        na_object: Option<Box<PyObject>>,
    },
}

impl PyObject {
    /// The Python object `value` holds: `Some` for a [`DynValue::Object`] holding a
    /// [`PyObject`] (every element of an object array this crate decodes), `None` for other
    /// values. The one way to get a `PyObject` out of a [`DynValue`].
    ///
    /// # Examples
    /// ```
    /// use npy_core::DynValue;
    /// use npy_pickle::PyObject;
    /// let v = DynValue::from(PyObject::Str("ada".into()));
    /// assert_eq!(PyObject::of(&v), Some(&PyObject::Str("ada".into())));
    /// assert_eq!(PyObject::of(&DynValue::Int(1)), None);
    /// ```
    pub fn of(value: &DynValue) -> Option<&PyObject> {
        match value {
            DynValue::Object(o) => o.downcast_ref(),
            _ => None,
        }
    }

    /// Whether the value is `None`.
    pub fn is_none(&self) -> bool {
        matches!(self, PyObject::None)
    }

    /// The value of a `bool` (or a numpy `bool_` scalar).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            PyObject::Bool(b) => Some(*b),
            PyObject::Scalar(s) => match s.value {
                DynValue::Bool(b) => Some(b),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value of an `int` (or a numpy integer scalar) that fits in `i64`. `bool` is not an
    /// int here.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            PyObject::Int(i) => Some(*i),
            PyObject::Scalar(s) => match s.value {
                DynValue::Int(i) => Some(i),
                DynValue::UInt(u) => i64::try_from(u).ok(),
                _ => None,
            },
            _ => None,
        }
    }

    /// An `int` of any size.
    pub fn as_bigint(&self) -> Option<BigInt> {
        match self {
            PyObject::BigInt(b) => Some((**b).clone()),
            PyObject::Scalar(s) if matches!(s.value, DynValue::UInt(_)) => match s.value {
                DynValue::UInt(u) => Some(BigInt::from(u)),
                _ => None,
            },
            _ => self.as_i64().map(BigInt::from),
        }
    }

    /// A real number as `f64`: `float`, `int` (rounded to nearest), numpy float and integer
    /// scalars. `bool` and `None` are not numbers here.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            PyObject::Float(x) => Some(*x),
            PyObject::Int(i) => Some(*i as f64),
            PyObject::BigInt(b) => Some(num_traits::ToPrimitive::to_f64(&**b).unwrap_or(f64::NAN)),
            PyObject::Scalar(s) => match s.value {
                DynValue::Bool(_) => None,
                ref v => v.as_f64(),
            },
            _ => None,
        }
    }

    /// The text of a `str` (or a numpy `str_` scalar without lone surrogates).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyObject::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes of a `bytes` or `bytearray`.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            PyObject::Bytes(b) | PyObject::ByteArray(b) => Some(b),
            _ => None,
        }
    }

    /// The items of a `list`, `tuple`, `set` or `frozenset`.
    pub fn as_slice(&self) -> Option<&[PyObject]> {
        match self {
            PyObject::List(v) | PyObject::Tuple(v) | PyObject::Set(v) | PyObject::FrozenSet(v) => {
                Some(v)
            }
            _ => None,
        }
    }

    /// The pairs of a `dict`.
    pub fn as_dict(&self) -> Option<&[(PyObject, PyObject)]> {
        match self {
            PyObject::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The value of a `dict` at a `str` key.
    pub fn get(&self, key: &str) -> Option<&PyObject> {
        self.as_dict()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// A nested numpy array.
    pub fn as_array(&self) -> Option<&DynArray> {
        match self {
            PyObject::Array(a) => Some(a),
            _ => None,
        }
    }

    /// An `int` from a [`BigInt`], as [`PyObject::Int`] when it fits.
    pub fn from_bigint(b: BigInt) -> PyObject {
        match i64::try_from(&b) {
            Ok(i) => PyObject::Int(i),
            Err(_) => PyObject::BigInt(Box::new(b)),
        }
    }

    /// Python's name of the value's type: `NoneType`, `int`, `str`, `numpy.ndarray`,
    /// `numpy.float32`, ...
    pub fn type_name(&self) -> String {
        match self {
            PyObject::None => "NoneType".into(),
            PyObject::Bool(_) => "bool".into(),
            PyObject::Int(_) | PyObject::BigInt(_) => "int".into(),
            PyObject::Float(_) => "float".into(),
            PyObject::Complex(..) => "complex".into(),
            PyObject::Str(_) => "str".into(),
            PyObject::Bytes(_) => "bytes".into(),
            PyObject::ByteArray(_) => "bytearray".into(),
            PyObject::List(_) => "list".into(),
            PyObject::Tuple(_) => "tuple".into(),
            PyObject::Dict(_) => "dict".into(),
            PyObject::Set(_) => "set".into(),
            PyObject::FrozenSet(_) => "frozenset".into(),
            PyObject::Range(..) => "range".into(),
            PyObject::Slice(_) => "slice".into(),
            PyObject::Array(_) => "numpy.ndarray".into(),
            PyObject::Scalar(s) => format!("numpy.{}", scalar_type(&s.dtype)),
            PyObject::DType(_) => "numpy.dtype".into(),
            PyObject::Global(g) => if g.is_class() {
                "type"
            } else {
                "builtin_function_or_method"
            }
            .into(),
        }
    }
}

/// numpy's scalar type name for a dtype: `float32`, `int64`, `str_`, `bytes_`, ...
fn scalar_type(dtype: &DType) -> String {
    match dtype {
        DType::Number(p, _) => match p {
            Primitive::Bool => "bool".into(),
            Primitive::LongDouble { .. } => "longdouble".into(),
            Primitive::CLongDouble { .. } => "clongdouble".into(),
            p => p
                .canonical()
                .map_or_else(|| "number".into(), |c| c.name().to_owned()),
        },
        DType::Time(t, _) => match t.kind {
            TimeKind::Datetime => "datetime64".into(),
            TimeKind::Timedelta => "timedelta64".into(),
        },
        DType::Bytes(_) => "bytes_".into(),
        DType::Unicode(..) => "str_".into(),
        DType::Object => "object_".into(),
        DType::Ml(t) => t.name().into(),
        DType::Void(_) | DType::Record(_) | DType::SubArray(_) => "void".into(),
    }
}

/// A [`DynValue::Object`] holding `value`, as an object array's element.
impl From<PyObject> for DynValue {
    fn from(value: PyObject) -> DynValue {
        DynValue::Object(Box::new(value))
    }
}

/// How a [`DynValue::Object`] holds a Python value: npy-core clones, compares and prints it
/// through this, knowing nothing of Python. Printed by npy-print (`printer` is its
/// [`PrintOptions`]), as Python's `repr()` / `str()` (`repr.rs`).
impl ObjectValue for PyObject {
    fn clone_value(&self) -> Box<dyn ObjectValue> {
        Box::new(self.clone())
    }

    fn eq_value(&self, other: &dyn ObjectValue) -> bool {
        other.downcast_ref::<PyObject>() == Some(self)
    }

    fn write_text(
        &self,
        out: &mut dyn fmt::Write,
        text: ObjectText,
        printer: &dyn Any,
    ) -> fmt::Result {
        let defaults = PrintOptions::new();
        let options = printer.downcast_ref::<PrintOptions>().unwrap_or(&defaults);
        crate::repr::write(self, out, text, options)
    }
}

/// Python's `str()` (`Display`) and `repr()` (`{:#}`, `npy_print::repr`) of an object.
///
/// # Examples
/// ```
/// use npy_pickle::PyObject;
/// let o = PyObject::List(vec![PyObject::Str("a\nb".into()), PyObject::None]);
/// assert_eq!(npy_print::repr(&o).to_string(), "['a\\nb', None]");
/// assert_eq!(npy_print::str(&PyObject::Str("hi".into())).to_string(), "hi");
/// assert_eq!(npy_print::repr(&PyObject::Str("hi".into())).to_string(), "'hi'");
/// ```
impl Print for PyObject {
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        (self as &dyn ObjectValue).display_with(options)
    }
}
