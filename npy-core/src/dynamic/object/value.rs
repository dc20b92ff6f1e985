//! [`PyObject`]: the Python values an object array can hold, as plain Rust data.

use std::fmt::{self, Write};

use num_bigint::BigInt;

use crate::dtype::{DType, Primitive, TimeKind};
use crate::dynamic::{DynArray, DynValue};
use crate::format::ByteOrder;
use crate::literal::{write_repr_bytes, write_repr_float, write_repr_str};

use super::globals::PyGlobal;

/// A Python value decoded from a pickle: what one element of an object array (`|O`) holds.
///
/// Containers own their items: a value the pickle shares (the same list twice) is decoded
/// as two equal values. `Display` is Python's `repr()` (see [`PyObject`]'s `fmt` notes below).
///
/// # Examples
/// ```
/// use npy_core::object::PyObject;
/// let v = PyObject::List(vec![
///     PyObject::Str("a".into()),
///     PyObject::None,
///     PyObject::Float(1.5),
///     PyObject::Tuple(vec![PyObject::Int(1)]),
/// ]);
/// assert_eq!(v.to_string(), "['a', None, 1.5, (1,)]");
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
pub(crate) fn scalar_type(dtype: &DType) -> String {
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

// ---------------------------------------------------------------------------------------------
// repr
// ---------------------------------------------------------------------------------------------

impl fmt::Display for PyObject {
    /// Python's `repr()`. Exact for `None`, `bool`, `int`, `float`, `complex`, `bytes`,
    /// `bytearray`, containers, `range` and `slice`; `str` escapes control, separator and
    /// private-use characters and lone surrogates cannot occur (Python also escapes unassigned
    /// code points, which this does not know). Sets print in the pickle's order. numpy values
    /// follow numpy 2's repr (`np.float32(2.5)`, `array([1, 2], dtype=int16)`) in a simplified
    /// form: arrays print as nested lists of their elements' reprs with their dtype.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PyObject::None => f.write_str("None"),
            PyObject::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            PyObject::Int(i) => write!(f, "{i}"),
            PyObject::BigInt(b) => write_bigint(f, b),
            PyObject::Float(x) => f.write_str(&float_repr(*x, true)),
            PyObject::Complex(re, im) => complex_repr(f, *re, *im),
            PyObject::Str(s) => write_repr_str(f, s),
            PyObject::Bytes(b) => write_repr_bytes(f, b),
            PyObject::ByteArray(b) => {
                f.write_str("bytearray(")?;
                write_repr_bytes(f, b)?;
                f.write_str(")")
            }
            PyObject::List(v) => seq(f, "[", v, "]"),
            PyObject::Tuple(v) if v.len() == 1 => write!(f, "({},)", v[0]),
            PyObject::Tuple(v) => seq(f, "(", v, ")"),
            PyObject::Dict(d) => {
                f.write_char('{')?;
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
            PyObject::Set(v) if v.is_empty() => f.write_str("set()"),
            PyObject::Set(v) => seq(f, "{", v, "}"),
            PyObject::FrozenSet(v) if v.is_empty() => f.write_str("frozenset()"),
            PyObject::FrozenSet(v) => seq(f, "frozenset({", v, "})"),
            PyObject::Range(a, b, 1) => write!(f, "range({a}, {b})"),
            PyObject::Range(a, b, c) => write!(f, "range({a}, {b}, {c})"),
            PyObject::Slice(s) => write!(f, "slice({}, {}, {})", s[0], s[1], s[2]),
            PyObject::Array(a) => array_repr(f, a),
            PyObject::Scalar(s) => scalar_repr(f, s),
            PyObject::DType(d) => match &**d {
                PyDType::Numpy(dt) => dtype_repr(f, dt),
                PyDType::String {
                    na_object: None, ..
                } => f.write_str("StringDType()"),
                PyDType::String {
                    na_object: Some(na),
                    ..
                } => write!(f, "StringDType(na_object={na})"),
            },
            PyObject::Global(g) => write!(f, "{g}"),
        }
    }
}

fn seq(f: &mut fmt::Formatter<'_>, open: &str, items: &[PyObject], close: &str) -> fmt::Result {
    f.write_str(open)?;
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str(close)
}

/// Python refuses `str()` of an int of more than 4300 digits (`sys.int_info`); converting one
/// to decimal takes time quadratic in its size, so larger ones print in hexadecimal.
const MAX_DECIMAL_DIGITS: u64 = 4300;

fn write_bigint(f: &mut fmt::Formatter<'_>, b: &BigInt) -> fmt::Result {
    // bits × log10(2) < digits + 1
    if b.bits() / 10 * 3 > MAX_DECIMAL_DIGITS {
        let (sign, mag) = (b.sign(), b.magnitude());
        let minus = if sign == num_bigint::Sign::Minus {
            "-"
        } else {
            ""
        };
        return write!(f, "{minus}0x{mag:x}");
    }
    write!(f, "{b}")
}

/// Python's `repr(float)`; without `dot0`, integral values lose their `.0` (as complex parts
/// do in Python's repr).
pub(crate) fn float_repr(x: f64, dot0: bool) -> String {
    let mut s = String::new();
    let _ = write_repr_float(&mut s, x);
    match s.strip_suffix(".0") {
        Some(t) if !dot0 => t.to_owned(),
        _ => s,
    }
}

fn complex_repr(f: &mut fmt::Formatter<'_>, re: f64, im: f64) -> fmt::Result {
    match complex_body(re, im) {
        (body, true) => write!(f, "({body})"),
        (body, false) => f.write_str(&body),
    }
}

/// `1+2j` and whether Python's repr puts it in parentheses (not for a pure imaginary `2j`).
fn complex_body(re: f64, im: f64) -> (String, bool) {
    let imag = float_repr(im, false);
    if re == 0.0 && re.is_sign_positive() {
        return (format!("{imag}j"), false);
    }
    let sign = if im.is_nan() || !imag.starts_with('-') {
        "+"
    } else {
        ""
    };
    (format!("{}{sign}{imag}j", float_repr(re, false)), true)
}

fn dtype_repr(f: &mut fmt::Formatter<'_>, dt: &DType) -> fmt::Result {
    match dt {
        DType::Record(_) | DType::SubArray(_) => write!(f, "dtype({dt})"),
        DType::Object => f.write_str("dtype('O')"),
        _ => write!(f, "dtype('{dt}')"),
    }
}

fn scalar_repr(f: &mut fmt::Formatter<'_>, s: &NpyScalar) -> fmt::Result {
    let name = scalar_type(&s.dtype);
    match (&s.dtype, &s.value) {
        (_, DynValue::Bool(b)) => f.write_str(if *b { "np.True_" } else { "np.False_" }),
        (DType::Number(Primitive::F32, _), DynValue::Float(x)) => {
            write!(f, "np.float32({})", float32_repr(*x as f32))
        }
        (DType::Number(Primitive::F16, _), DynValue::Float(x)) => {
            write!(f, "np.float16({})", float16_repr(*x))
        }
        (_, DynValue::LongDouble { approx, .. }) => {
            write!(f, "np.{name}('{}')", float_repr(*approx, false))
        }
        (DType::Number(Primitive::C64, _), DynValue::Complex(re, im)) => {
            let re = float32_repr(*re as f32).parse().unwrap_or(*re);
            let im = float32_repr(*im as f32).parse().unwrap_or(*im);
            write!(f, "np.complex64({})", complex_body(re, im).0)
        }
        (_, DynValue::Complex(re, im)) => write!(f, "np.{name}({})", complex_body(*re, *im).0),
        (_, v) => {
            write!(f, "np.{name}(")?;
            dyn_repr(f, v)?;
            f.write_str(")")
        }
    }
}

/// Shortest digits that round-trip through `f32`, in Python's float layout.
fn float32_repr(x: f32) -> String {
    // `{:e}` of an f32 gives its shortest round-trip digits.
    let s = format!("{x:e}");
    let back: f64 = s.parse().unwrap_or(f64::from(x));
    float_repr(back, true)
}

/// Shortest digits that round-trip through `f16`.
fn float16_repr(x: f64) -> String {
    let h = half::f16::from_f64(x);
    for prec in 0..8 {
        let s = format!("{x:.prec$e}");
        if let Ok(v) = s.parse::<f64>() {
            if half::f16::from_f64(v) == h || (x.is_nan() && v.is_nan()) {
                return float_repr(v, true);
            }
        }
    }
    float_repr(x, true)
}

/// A [`DynValue`] as Python's repr of the value numpy's `item()` gives.
pub(crate) fn dyn_repr(f: &mut fmt::Formatter<'_>, v: &DynValue) -> fmt::Result {
    match v {
        DynValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
        DynValue::Int(i) => write!(f, "{i}"),
        DynValue::UInt(u) => write!(f, "{u}"),
        DynValue::Float(x) => f.write_str(&float_repr(*x, true)),
        DynValue::LongDouble { approx, .. } => f.write_str(&float_repr(*approx, true)),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            complex_repr(f, *re, *im)
        }
        DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit } => match ticks {
            Some(t) => write!(f, "{t}, '{unit}'"),
            None => write!(f, "'NaT', '{unit}'"),
        },
        DynValue::Bytes(b) | DynValue::Void(b) => write_repr_bytes(f, b),
        DynValue::Str(s) => write_repr_str(f, &s.to_string_lossy()),
        DynValue::Record(fields) => {
            f.write_char('(')?;
            for (i, (_, v)) in fields.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                dyn_repr(f, v)?;
            }
            f.write_char(')')
        }
        DynValue::SubArray { values, .. } => {
            f.write_char('[')?;
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                dyn_repr(f, v)?;
            }
            f.write_char(']')
        }
        DynValue::Object(o) => write!(f, "{o}"),
    }
}

/// numpy's summarisation threshold (`np.get_printoptions()['threshold']`): larger arrays print
/// [`EDGE_ITEMS`] items at each edge of each axis around `...`.
const THRESHOLD: usize = 1000;

/// Items printed at each edge of a summarised axis (numpy's `edgeitems`).
const EDGE_ITEMS: u64 = 3;

/// numpy 2's `repr` of an array: `array([], shape=(4611686018427387904, 0), dtype=uint8)` for
/// one without elements (its shape unless it is `(0,)`, and always its dtype), the items at
/// the edges of each axis and `shape=` for one of more than 1000 elements, else every item;
/// the dtype unless numpy implies it (`int64`, `float64`, `bool`, `complex128`). Lines are not
/// wrapped. The text grows with the items printed, never with the shape alone.
fn array_repr(f: &mut fmt::Formatter<'_>, a: &DynArray) -> fmt::Result {
    f.write_str("array(")?;
    let shape = a.shape();
    let empty = shape.contains(&0);
    let summarise = a.len() > THRESHOLD;
    if shape.is_empty() {
        if let Some(v) = a.iter_c_order().next() {
            dyn_repr(f, v)?;
        }
    } else if empty {
        f.write_str("[]")?;
    } else {
        let items: Vec<&DynValue> = a.iter_c_order().collect();
        nested(f, shape, &items, summarise)?;
    }
    if (empty && shape != [0]) || summarise {
        f.write_str(", shape=(")?;
        for (i, d) in shape.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str(if shape.len() == 1 { ",)" } else { ")" })?;
    }
    match a.dtype() {
        DType::Number(Primitive::I64 | Primitive::F64 | Primitive::Bool | Primitive::C128, o)
            if !empty && *o != ByteOrder::Big =>
        {
            f.write_char(')')
        }
        DType::Object => f.write_str(", dtype=object)"),
        DType::Number(p, _) if a.dtype().byte_order() != ByteOrder::Big => {
            let name = p
                .canonical()
                .map_or_else(|| scalar_type(a.dtype()), |c| c.name().into());
            write!(f, ", dtype={name})")
        }
        dt => write!(f, ", dtype={})", DtypeArg(dt)),
    }
}

struct DtypeArg<'a>(&'a DType);

impl fmt::Display for DtypeArg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            DType::Record(_) | DType::SubArray(_) => write!(f, "{}", self.0),
            dt => write!(f, "'{dt}'"),
        }
    }
}

/// The nested lists of `shape` over `items` (C order, non-empty shape without zero-length
/// axes), each axis longer than twice [`EDGE_ITEMS`] cut to its edges when `summarise`.
fn nested(
    f: &mut fmt::Formatter<'_>,
    shape: &[u64],
    items: &[&DynValue],
    summarise: bool,
) -> fmt::Result {
    f.write_char('[')?;
    let Some((&n, rest)) = shape.split_first() else {
        return f.write_char(']');
    };
    let inner = rest.iter().product::<u64>();
    let cut = summarise && n > 2 * EDGE_ITEMS;
    let mut first = true;
    let mut i = 0;
    while i < n {
        if !first {
            f.write_str(", ")?;
        }
        first = false;
        if cut && i == EDGE_ITEMS {
            f.write_str("...")?;
            i = n - EDGE_ITEMS;
            continue;
        }
        if rest.is_empty() {
            if let Some(v) = usize::try_from(i).ok().and_then(|i| items.get(i)) {
                dyn_repr(f, v)?;
            }
        } else {
            let block = |j: u64| usize::try_from(j.saturating_mul(inner)).unwrap_or(usize::MAX);
            let part = items.get(block(i)..block(i + 1)).unwrap_or(&[]);
            nested(f, rest, part, summarise)?;
        }
        i += 1;
    }
    f.write_char(']')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_is_pythons() {
        // Expected strings are Python 3's repr() of the same floats.
        let cases = [
            (1.5, "1.5"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123456789.125, "123456789.125"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x, true), want, "{x:e}");
        }
    }

    #[test]
    fn complex_repr_is_pythons() {
        let r = |re, im| PyObject::Complex(re, im).to_string();
        assert_eq!(r(1.0, 2.0), "(1+2j)");
        assert_eq!(r(0.0, 1.0), "1j");
        assert_eq!(r(-0.0, 1.0), "(-0+1j)");
        assert_eq!(r(1.5, -0.5), "(1.5-0.5j)");
        assert_eq!(r(1.0, f64::NAN), "(1+nanj)");
        assert_eq!(r(0.0, -0.0), "-0j");
    }

    #[test]
    fn str_and_bytes_repr_are_pythons() {
        let s = |t: &str| PyObject::Str(t.into()).to_string();
        assert_eq!(s("a"), "'a'");
        assert_eq!(s("it's"), "\"it's\"");
        assert_eq!(s("'\""), "'\\'\"'");
        assert_eq!(s("é\n\u{7}\u{a0}優"), "'é\\n\\x07\\xa0優'");
        let b = |t: &[u8]| PyObject::Bytes(t.to_vec()).to_string();
        assert_eq!(b(b"\xe4\x00a'"), "b\"\\xe4\\x00a'\"");
        assert_eq!(b(b"\\"), "b'\\\\'");
    }
}
