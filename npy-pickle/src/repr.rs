//! Python's `repr()` and `str()` of a [`PyObject`], and numpy's printing of one as an element
//! of an object array (numpy's `_object_format`, which writes a list as `list([...])` so that
//! it does not read as an axis; a 0-d array prints its item's `str`): what
//! [`PyObject`]'s [`ObjectValue::write_text`](npy_core::dynamic::ObjectValue::write_text)
//! writes when npy-print prints it. The text is charged to the print's budget by npy-print;
//! floats, numpy scalars and nested arrays are written by npy-print's engine.

use std::fmt::{self, Write};

use num_bigint::BigInt;

use npy_core::__private::{scalar_str as float_str, write_repr_bytes, write_repr_str, FloatKind};
use npy_core::dtype::{DType, Primitive, TimeKind, TimeType, TimeUnit};
use npy_core::dynamic::ObjectText;
use npy_core::DynValue;
use npy_print::__private::{
    complex_body, complex_scalar_str, float_repr, kind_of, object_text, spend,
};
use npy_print::{scalar_str, Print, PrintOptions};

use crate::decimal::{int_decimal, int_decimal_work};
use crate::value::{NpyScalar, PyDType, PyObject};

/// Writes the `text` of `o` asked for, its arrays printed with `options`: an element of an
/// object array (its `repr`, a list as `list([...])`), Python's `str` (a `str` bare, control
/// characters escaped as for a 0-d `U` array; a numpy scalar or array as numpy's own `str`;
/// anything else as its `repr`), or Python's `repr` ([`Repr`]).
pub(crate) fn write(
    o: &PyObject,
    w: &mut dyn fmt::Write,
    text: ObjectText,
    options: &PrintOptions,
) -> fmt::Result {
    match (text, o) {
        (ObjectText::Element, PyObject::List(_)) => write!(w, "list({})", Repr(o, options)),
        (ObjectText::Str, PyObject::Str(s)) => write_printable(w, s),
        (ObjectText::Str, PyObject::Scalar(s)) => {
            w.write_str(&scalar_str(&s.dtype, &s.value, options))
        }
        (ObjectText::Str, PyObject::Array(a)) => write!(w, "{}", a.display_with(options)),
        _ => write!(w, "{}", Repr(o, options)),
    }
}

/// numpy 2's `repr` of a datetime64 or timedelta64 scalar (`scalartypes.c.src`):
/// `np.datetime64('1970-01-02')`, with the unit as a second argument when the ISO text does
/// not imply it (a multiplier, or hours); `np.timedelta64(10,'ms')`; NaT with its unit.
fn time_repr(name: &str, ticks: Option<i64>, ty: TimeType) -> String {
    let generic = ty.unit == TimeUnit::Generic;
    let unit = match ty.multiplier {
        _ if generic => "generic".to_owned(),
        1 => ty.unit.code().to_owned(),
        m => format!("{m}{}", ty.unit.code()),
    };
    match (ticks, ty.kind) {
        // numpy writes a generic timedelta's NaT without its unit, a datetime's with it.
        (None, TimeKind::Timedelta) if generic => format!("np.{name}('NaT')"),
        (None, _) => format!("np.{name}('NaT','{unit}')"),
        (Some(t), TimeKind::Datetime) => {
            let iso = ty.value_str(t);
            if generic || (ty.multiplier == 1 && ty.unit != TimeUnit::Hour) {
                format!("np.{name}('{iso}')")
            } else {
                format!("np.{name}('{iso}','{unit}')")
            }
        }
        (Some(t), TimeKind::Timedelta) if generic => format!("np.{name}({t})"),
        (Some(t), TimeKind::Timedelta) => format!("np.{name}({t},'{unit}')"),
    }
}

/// [`npy_print::printable`] of `s`, written as it goes (a string may be as
/// long as the pickle budget allows: no copy of it is made).
fn write_printable(w: &mut dyn fmt::Write, s: &str) -> fmt::Result {
    let mut rest = s;
    while let Some(at) = rest.find(char::is_control) {
        w.write_str(&rest[..at])?;
        let c = rest[at..].chars().next().unwrap_or_default();
        for e in c.escape_debug() {
            w.write_char(e)?;
        }
        rest = &rest[at + c.len_utf8()..];
    }
    w.write_str(rest)
}

/// Python's `repr()` of an object whose arrays print with the given options, as numpy's
/// `repr()` of an array nested in an object array follows `np.set_printoptions`. Exact for
/// `None`, `bool`, `int`, `float`, `complex`, `bytes`, `bytearray`, containers, `range` and
/// `slice`; `str` escapes control, separator and private-use characters and lone surrogates
/// cannot occur (Python also escapes unassigned code points, which this does not know). Sets
/// print in the pickle's order. numpy values are numpy 2's repr: `np.float32(2.5)`,
/// `np.datetime64('2020-01-01')`, an array as `npy_print::repr` of a
/// [`DynArray`](npy_core::DynArray) (`array([1, 2], dtype=int16)`, summarised and wrapped with
/// the options).
pub(crate) struct Repr<'a>(pub(crate) &'a PyObject, pub(crate) &'a PrintOptions);

impl fmt::Display for Repr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = self.1;
        let r = |o| Repr(o, options);
        match self.0 {
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
            PyObject::List(v) => seq(f, "[", v, "]", options),
            PyObject::Tuple(v) if v.len() == 1 => write!(f, "({},)", r(&v[0])),
            PyObject::Tuple(v) => seq(f, "(", v, ")", options),
            PyObject::Dict(d) => {
                f.write_char('{')?;
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {}", r(k), r(v))?;
                }
                f.write_char('}')
            }
            PyObject::Set(v) if v.is_empty() => f.write_str("set()"),
            PyObject::Set(v) => seq(f, "{", v, "}", options),
            PyObject::FrozenSet(v) if v.is_empty() => f.write_str("frozenset()"),
            PyObject::FrozenSet(v) => seq(f, "frozenset({", v, "})", options),
            PyObject::Range(a, b, 1) => write!(f, "range({a}, {b})"),
            PyObject::Range(a, b, c) => write!(f, "range({a}, {b}, {c})"),
            PyObject::Slice(s) => write!(f, "slice({}, {}, {})", r(&s[0]), r(&s[1]), r(&s[2])),
            PyObject::Array(a) => write!(f, "{:#}", a.display_with(options)),
            PyObject::Scalar(s) => scalar_repr(f, self.0, s),
            PyObject::DType(d) => match &**d {
                PyDType::Numpy(dt) => dtype_repr(f, dt),
                PyDType::String {
                    na_object: None, ..
                } => f.write_str("StringDType()"),
                PyDType::String {
                    na_object: Some(na),
                    ..
                } => write!(f, "StringDType(na_object={})", r(na)),
            },
            PyObject::Global(g) => write!(f, "{g}"),
        }
    }
}

fn seq(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[PyObject],
    close: &str,
    options: &PrintOptions,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}", Repr(v, options))?;
    }
    f.write_str(close)
}

/// An int as Python's `repr` writes it ([`int_decimal`]); one of more digits than Python
/// converts ([`MAX_INT_DIGITS`](crate::MAX_INT_DIGITS): Python raises `ValueError`)
/// in hexadecimal, which takes linear time.
/// The conversion's work is charged to the print's budget first ([`int_decimal_work`]).
fn write_bigint(f: &mut fmt::Formatter<'_>, b: &BigInt) -> fmt::Result {
    if !spend(int_decimal_work(b)) {
        return Err(fmt::Error);
    }
    match int_decimal(b) {
        Ok(text) => f.write_str(&text),
        Err(_) => {
            let minus = if b.sign() == num_bigint::Sign::Minus {
                "-"
            } else {
                ""
            };
            write!(f, "{minus}0x{:x}", b.magnitude())
        }
    }
}

fn complex_repr(f: &mut fmt::Formatter<'_>, re: f64, im: f64) -> fmt::Result {
    f.write_str(&complex_scalar_str(re, im, FloatKind::Double))
}

/// numpy's `repr(dtype)`: a number in native byte order by its type's name
/// (`dtype('float64')`, `dtype('bool')`), other dtypes by their `str` (`dtype('>f4')`,
/// `dtype('<U3')`, `dtype('<M8[ns]')`; `S` and `V` without the `|`), records and
/// subarrays by their descr.
fn dtype_repr(f: &mut fmt::Formatter<'_>, dt: &DType) -> fmt::Result {
    use npy_core::dtype::Primitive as P;
    use npy_core::ByteOrder;
    match dt {
        DType::Record(_) | DType::SubArray(_) => write!(f, "dtype({dt})"),
        DType::Object => f.write_str("dtype('O')"),
        // No byte order for bytes and void: numpy's repr leaves out the `|`.
        DType::Bytes(n) => write!(f, "dtype('S{n}')"),
        DType::Void(n) => write!(f, "dtype('V{n}')"),
        DType::Number(p, order)
            if *order == ByteOrder::NATIVE || *order == ByteOrder::NotApplicable =>
        {
            let name = match p {
                P::Bool => "bool",
                P::I8 => "int8",
                P::I16 => "int16",
                P::I32 => "int32",
                P::I64 => "int64",
                P::U8 => "uint8",
                P::U16 => "uint16",
                P::U32 => "uint32",
                P::U64 => "uint64",
                P::F16 => "float16",
                P::F32 => "float32",
                P::F64 => "float64",
                P::LongDouble { size } => {
                    return write!(f, "dtype('float{}')", u32::from(*size) * 8)
                }
                P::C64 => "complex64",
                P::C128 => "complex128",
                P::CLongDouble { size } => {
                    return write!(f, "dtype('complex{}')", u32::from(*size) * 8)
                }
            };
            write!(f, "dtype('{name}')")
        }
        _ => write!(f, "dtype('{dt}')"),
    }
}

/// numpy 2's repr of a scalar: `np.float32(2.5)`, `np.True_`, `np.int64(7)`; float and
/// complex parts with the shortest digits of their own type, laid out as the scalar's `str`.
fn scalar_repr(f: &mut fmt::Formatter<'_>, o: &PyObject, s: &NpyScalar) -> fmt::Result {
    let type_name = o.type_name();
    let name = type_name.strip_prefix("numpy.").unwrap_or(&type_name);
    match (&s.dtype, &s.value) {
        (_, DynValue::Bool(b)) => f.write_str(if *b { "np.True_" } else { "np.False_" }),
        (_, DynValue::Datetime { ticks, unit }) => {
            f.write_str(&time_repr("datetime64", *ticks, *unit))
        }
        (_, DynValue::Timedelta { ticks, unit }) => {
            f.write_str(&time_repr("timedelta64", *ticks, *unit))
        }
        (DType::Number(p @ (Primitive::F32 | Primitive::F16), _), DynValue::Float(x)) => {
            let kind = kind_of(&s.dtype);
            let bits = if *p == Primitive::F32 { 32 } else { 16 };
            write!(f, "np.float{bits}({})", float_str(*x, kind))
        }
        (_, DynValue::LongDouble { approx, .. }) => {
            write!(f, "np.{name}('{}')", float_repr(*approx, false))
        }
        (DType::Number(Primitive::C64, _), DynValue::Complex(re, im)) => {
            let body = complex_body(*re, *im, FloatKind::Single).0;
            write!(f, "np.complex64({body})")
        }
        (_, DynValue::Complex(re, im)) => {
            let body = complex_body(*re, *im, FloatKind::Double).0;
            write!(f, "np.{name}({body})")
        }
        // numpy writes a clongdouble as its text quoted, as a longdouble: np.clongdouble('1+1j').
        (_, DynValue::CLongDouble { re, im, .. }) => {
            let body = complex_body(*re, *im, FloatKind::Double).0;
            write!(f, "np.{name}('{body}')")
        }
        (_, v) => {
            write!(f, "np.{name}(")?;
            dyn_repr(f, v)?;
            f.write_str(")")
        }
    }
}

/// A [`DynValue`] as Python's repr of the value numpy's `item()` gives.
fn dyn_repr(f: &mut fmt::Formatter<'_>, v: &DynValue) -> fmt::Result {
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
        DynValue::Object(o) => {
            f.write_str(&object_text(&**o, ObjectText::Repr, &PrintOptions::new()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second tester of issue 23 (review23c, `v_scalar_repr.py`): numpy 2.4.6's reprs,
    /// `repr(np.timedelta64('NaT'))`, `repr(np.datetime64('NaT'))` and
    /// `repr(np.clongdouble(1+1j))`, `repr(np.clongdouble(1.5-2j))`.
    #[test]
    fn generic_nat_and_clongdouble_reprs_are_numpys() {
        let scalar = |descr: &str, value: DynValue| {
            let o = PyObject::Scalar(Box::new(NpyScalar {
                dtype: descr.parse().unwrap(),
                value,
            }));
            let text = npy_print::repr(&o).to_string();
            text
        };
        let generic = |descr: &str| match descr.parse::<DType>().unwrap() {
            DType::Time(unit, _) => unit,
            other => panic!("{other}"),
        };
        let td = generic("<m8");
        let dt = generic("<M8");
        assert_eq!(
            scalar(
                "<m8",
                DynValue::Timedelta {
                    ticks: None,
                    unit: td
                }
            ),
            "np.timedelta64('NaT')"
        );
        assert_eq!(
            scalar(
                "<M8",
                DynValue::Datetime {
                    ticks: None,
                    unit: dt
                }
            ),
            "np.datetime64('NaT','generic')"
        );
        let cld = |re, im| DynValue::CLongDouble {
            re,
            im,
            bytes: vec![0; 32],
        };
        assert_eq!(scalar("<c32", cld(1.0, 1.0)), "np.clongdouble('1+1j')");
        assert_eq!(scalar("<c32", cld(1.5, -2.0)), "np.clongdouble('1.5-2j')");
    }

    #[test]
    fn complex_repr_is_pythons() {
        let r = |re, im| npy_print::repr(&PyObject::Complex(re, im)).to_string();
        assert_eq!(r(1.0, 2.0), "(1+2j)");
        assert_eq!(r(0.0, 1.0), "1j");
        assert_eq!(r(-0.0, 1.0), "(-0+1j)");
        assert_eq!(r(1.5, -0.5), "(1.5-0.5j)");
        assert_eq!(r(1.0, f64::NAN), "(1+nanj)");
        assert_eq!(r(0.0, -0.0), "-0j");
    }

    #[test]
    fn str_and_bytes_repr_are_pythons() {
        let s = |t: &str| npy_print::repr(&PyObject::Str(t.into())).to_string();
        assert_eq!(s("a"), "'a'");
        assert_eq!(s("it's"), "\"it's\"");
        assert_eq!(s("'\""), "'\\'\"'");
        assert_eq!(s("é\n\u{7}\u{a0}優"), "'é\\n\\x07\\xa0優'");
        let b = |t: &[u8]| npy_print::repr(&PyObject::Bytes(t.to_vec())).to_string();
        assert_eq!(b(b"\xe4\x00a'"), "b\"\\xe4\\x00a'\"");
        assert_eq!(b(b"\\"), "b'\\\\'");
    }
}
