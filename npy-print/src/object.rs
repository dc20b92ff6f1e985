//! Python objects (`O`): numpy's printing of object arrays (each item's Python `repr`, as
//! numpy's `_object_format`, which writes a list as `list([...])` so that it does not read as
//! an axis; a 0-d array as its item's `str`), and Python's `repr()` of a [`PyObject`].

use std::fmt::{self, Write};

use num_bigint::BigInt;

use super::budget::capped;
use super::float::{self, FloatKind};
use super::layout::{scalar_str, ArrayDisplay};
use super::PrintOptions;
use npy_core::__private::{write_repr_bytes, write_repr_str};
use npy_core::dtype::{DType, Primitive, TimeKind, TimeType, TimeUnit};
use npy_core::object::{int_decimal, int_decimal_work, NpyScalar, PyDType, PyObject};
use npy_core::DynValue;

/// An item of an object array, as numpy prints it inside the array (charged to the print's
/// budget, [`PrintOptions::object_budget`]).
pub(crate) fn repr(o: &PyObject, options: &PrintOptions) -> String {
    capped(options.object_budget_bytes(), |w| match o {
        PyObject::List(_) => write!(w, "list({})", Repr(o, options)),
        _ => write!(w, "{}", Repr(o, options)),
    })
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

/// Python's `str` of an item, as numpy prints a 0-d object array: a `str` bare (control
/// characters escaped, as for a 0-d `U` array), a numpy scalar or array as numpy's own `str`,
/// anything else as its `repr`.
pub(crate) fn str(o: &PyObject, options: &PrintOptions) -> String {
    capped(options.object_budget_bytes(), |w| match o {
        PyObject::Str(s) => write_printable(w, s),
        PyObject::Scalar(s) => w.write_str(&scalar_str(&s.dtype, &s.value, options)),
        PyObject::Array(a) => write!(w, "{}", ArrayDisplay::new(a, *options)),
        _ => write!(w, "{}", Repr(o, options)),
    })
}

/// [`printable`](super::strings::printable) of `s`, written as it goes (a string may be as
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

/// Python's `repr()` of `o`, its arrays printed with `options` (what [`repr`](crate::repr)
/// of a [`PyObject`] writes). Exact for `None`, `bool`, `int`, `float`, `complex`, `bytes`,
/// `bytearray`, containers, `range` and `slice`; `str` escapes control, separator and
/// private-use characters and lone surrogates cannot occur (Python also escapes unassigned
/// code points, which this does not know). Sets print in the pickle's order. numpy values
/// are numpy 2's repr: `np.float32(2.5)`, `np.datetime64('2020-01-01')`, an array as
/// [`repr`](crate::repr) of a [`DynArray`](npy_core::DynArray) (`array([1, 2], dtype=int16)`,
/// summarised and wrapped with the options).
pub(crate) fn python_repr(o: &PyObject, options: &PrintOptions) -> String {
    capped(options.object_budget_bytes(), |w| {
        write!(w, "{}", Repr(o, options))
    })
}

/// Python's `repr()` of an object whose arrays print with the given options, as numpy's
/// `repr()` of an array nested in an object array follows `np.set_printoptions`.
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
            PyObject::Float(x) => f.write_str(&float::float_repr(*x, true)),
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
            PyObject::Array(a) => write!(f, "{:#}", ArrayDisplay::new(a, *options)),
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
                // Kinds npy-core adds later (the enums are `#[non_exhaustive]`).
                _ => f.write_str("<dtype>"),
            },
            PyObject::Global(g) => write!(f, "{g}"),
            _ => f.write_str("<object>"),
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
/// converts ([`MAX_INT_DIGITS`](npy_core::object::MAX_INT_DIGITS): Python raises `ValueError`)
/// in hexadecimal, which takes linear time.
/// The conversion's work is charged to the print's budget first ([`int_decimal_work`]).
fn write_bigint(f: &mut fmt::Formatter<'_>, b: &BigInt) -> fmt::Result {
    if !super::budget::spend(int_decimal_work(b)) {
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
    f.write_str(&float::complex_scalar_str(re, im, FloatKind::Double))
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
            let kind = float::kind_of(&s.dtype);
            let bits = if *p == Primitive::F32 { 32 } else { 16 };
            write!(f, "np.float{bits}({})", float::scalar_str(*x, kind))
        }
        (_, DynValue::LongDouble { approx, .. }) => {
            write!(f, "np.{name}('{}')", float::float_repr(*approx, false))
        }
        (DType::Number(Primitive::C64, _), DynValue::Complex(re, im)) => {
            let body = float::complex_body(*re, *im, FloatKind::Single).0;
            write!(f, "np.complex64({body})")
        }
        (_, DynValue::Complex(re, im)) => {
            let body = float::complex_body(*re, *im, FloatKind::Double).0;
            write!(f, "np.{name}({body})")
        }
        // numpy writes a clongdouble as its text quoted, as a longdouble: np.clongdouble('1+1j').
        (_, DynValue::CLongDouble { re, im, .. }) => {
            let body = float::complex_body(*re, *im, FloatKind::Double).0;
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
        DynValue::Float(x) => f.write_str(&float::float_repr(*x, true)),
        DynValue::LongDouble { approx, .. } => f.write_str(&float::float_repr(*approx, true)),
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
        DynValue::Object(o) => f.write_str(&python_repr(o, &PrintOptions::new())),
    }
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
            assert_eq!(float::float_repr(x, true), want, "{x:e}");
        }
    }

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
            let text = crate::repr(&o).to_string();
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
        let r = |re, im| crate::repr(&PyObject::Complex(re, im)).to_string();
        assert_eq!(r(1.0, 2.0), "(1+2j)");
        assert_eq!(r(0.0, 1.0), "1j");
        assert_eq!(r(-0.0, 1.0), "(-0+1j)");
        assert_eq!(r(1.5, -0.5), "(1.5-0.5j)");
        assert_eq!(r(1.0, f64::NAN), "(1+nanj)");
        assert_eq!(r(0.0, -0.0), "-0j");
    }

    #[test]
    fn str_and_bytes_repr_are_pythons() {
        let s = |t: &str| crate::repr(&PyObject::Str(t.into())).to_string();
        assert_eq!(s("a"), "'a'");
        assert_eq!(s("it's"), "\"it's\"");
        assert_eq!(s("'\""), "'\\'\"'");
        assert_eq!(s("é\n\u{7}\u{a0}優"), "'é\\n\\x07\\xa0優'");
        let b = |t: &[u8]| crate::repr(&PyObject::Bytes(t.to_vec())).to_string();
        assert_eq!(b(b"\xe4\x00a'"), "b\"\\xe4\\x00a'\"");
        assert_eq!(b(b"\\"), "b'\\\\'");
    }
}
