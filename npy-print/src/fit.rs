//! Fitting a format to the values an array prints (numpy's `_get_format_function`), and the
//! format of one value.

use super::datetime::{datetime_quoted, TimeStats};
use super::float::{self, FloatFormat, FloatKind, FloatStats};
use super::int::{format_bool, IntStats};
use super::object;
use super::{record, strings, PrintOptions};
use npy_core::dtype::{DType, MlType, Primitive, TimeKind};
use npy_core::dynamic::ObjectText;
use npy_core::DynValue;

/// Sees the values an array will print, one at a time in constant memory, and becomes the
/// [`ElementFormat`] that prints each of them (numpy's `_get_format_function`: integers share
/// a width, floats a notation and padding, ...).
///
/// [`DynArray`](npy_core::DynArray)'s `Display` does both steps itself; this is for values that
/// arrive in chunks (a file too large to hold, read with
/// [`NpyReader::read_dyn_range`](npy_core::NpyReader::read_dyn_range)), laid out by
/// [`write_str`](super::write_str).
///
/// # Examples
/// ```
/// use npy_print::{FormatBuilder, PrintOptions};
/// use npy_core::{DType, DynValue};
/// let dtype: DType = "<f8".parse()?;
/// let mut builder = FormatBuilder::new(&dtype, &PrintOptions::new());
/// for x in [1.5, 2.25, 100.0] {
///     builder.observe(&DynValue::Float(x));
/// }
/// let format = builder.finish();
/// assert_eq!(format.format(&DynValue::Float(2.25)), "  2.25");
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct FormatBuilder(Builder);

impl FormatBuilder {
    /// Nothing seen yet, for the elements of an array of `dtype` with at least one dimension
    /// (a 0-d array prints as its scalar: [`scalar_str`](super::scalar_str)).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{FormatBuilder, PrintOptions};
    /// use npy_core::{DType, DynValue};
    /// let dtype: DType = "<i4".parse()?;
    /// let format = FormatBuilder::new(&dtype, &PrintOptions::new()).finish();
    /// assert_eq!(format.format(&DynValue::Int(7)), "7");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn new(dtype: &DType, options: &PrintOptions) -> FormatBuilder {
        let place = Place {
            zero_d: false,
            float_str: false,
            options: *options,
        };
        FormatBuilder(Builder::new(dtype, place))
    }

    /// Takes one value that will be printed into account (only the shown ones of a summarised
    /// array, as numpy does).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{FormatBuilder, PrintOptions};
    /// use npy_core::{DType, DynValue};
    /// let dtype: DType = "<i8".parse()?;
    /// let mut builder = FormatBuilder::new(&dtype, &PrintOptions::new());
    /// builder.observe(&DynValue::Int(-100));
    /// assert_eq!(builder.finish().format(&DynValue::Int(5)), "   5");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn observe(&mut self, value: &DynValue) {
        self.0.observe(value);
    }

    /// The format for the values seen.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{FormatBuilder, PrintOptions};
    /// use npy_core::{DType, DynValue};
    /// let dtype: DType = "|b1".parse()?;
    /// let format = FormatBuilder::new(&dtype, &PrintOptions::new()).finish();
    /// assert_eq!(format.format(&DynValue::Bool(true)), " True");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn finish(&self) -> ElementFormat {
        ElementFormat(self.0.finish())
    }
}

/// The format of each value of an array, fitted to the values a [`FormatBuilder`] saw.
///
/// # Examples
/// ```
/// use npy_print::{FormatBuilder, PrintOptions};
/// use npy_core::{DType, DynValue};
/// let dtype: DType = "<f4".parse()?;
/// let mut builder = FormatBuilder::new(&dtype, &PrintOptions::new());
/// builder.observe(&DynValue::Float(1e-5));
/// builder.observe(&DynValue::Float(1.0));
/// assert_eq!(builder.finish().format(&DynValue::Float(1.0)), "1.e+00");
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ElementFormat(pub(crate) Format);

impl ElementFormat {
    /// One value's text, padded to the common width (a value of another dtype than the
    /// format's prints as its `Debug` form).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{FormatBuilder, PrintOptions};
    /// use npy_core::{DType, DynValue};
    /// let dtype: DType = "<c16".parse()?;
    /// let mut builder = FormatBuilder::new(&dtype, &PrintOptions::new());
    /// builder.observe(&DynValue::Complex(1.0, -2.5));
    /// assert_eq!(builder.finish().format(&DynValue::Complex(1.0, -2.5)), "1.-2.5j");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn format(&self, value: &DynValue) -> String {
        self.0.format(value)
    }
}

/// How a value is printed, depending on where it is (numpy's `_get_format_function` options).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    /// The value is a 0-d array's own (a bool prints `True`, not ` True`).
    pub(crate) zero_d: bool,
    /// Floats print as their scalar `str` (a 0-d record's fields, numpy's `float_kind=str`).
    pub(crate) float_str: bool,
    /// The options (a subarray field's summarisation, the floats' precision).
    pub(crate) options: PrintOptions,
}

/// What a [`Format`] needs to know of the values it will print, gathered one at a time.
#[derive(Debug, Clone)]
pub(crate) enum Builder {
    /// `b1`.
    Bool { zero_d: bool },
    /// Integers.
    Int(IntStats),
    /// Floats in an array.
    Float(FloatStats),
    /// Floats printed as scalars.
    FloatStr(FloatKind),
    /// Complex: real and imaginary parts.
    Complex(FloatStats, FloatStats),
    /// datetime64.
    Datetime(TimeStats),
    /// timedelta64.
    Timedelta(TimeStats),
    /// `S`, `U`, `V`: reprs, no common width.
    Bytes,
    /// `U`.
    Str,
    /// `V`.
    Void,
    /// `O`: Python reprs, no common width; arrays inside print with the options.
    Object(PrintOptions),
    /// An ml_dtypes type (bfloat16, float8, int4, …): numpy prints each element as the
    /// scalar's `str`, no common width (numpy's `repr_format` for types it does not know).
    Ml(MlType),
    /// A record: one builder per field.
    Record(Vec<Builder>),
    /// A subarray field: the builder of its elements, and the options that summarise it.
    SubArray(Box<Builder>, PrintOptions),
}

impl Builder {
    pub(crate) fn new(dtype: &DType, place: Place) -> Builder {
        let kind = float::kind_of(dtype);
        match dtype {
            DType::Number(Primitive::Bool, _) => Builder::Bool {
                zero_d: place.zero_d,
            },
            DType::Number(
                Primitive::F16 | Primitive::F32 | Primitive::F64 | Primitive::LongDouble { .. },
                _,
            ) if place.float_str => Builder::FloatStr(kind),
            DType::Number(
                Primitive::F16 | Primitive::F32 | Primitive::F64 | Primitive::LongDouble { .. },
                _,
            ) => Builder::Float(FloatStats::new(kind, place.options.precision, false)),
            DType::Number(Primitive::C64 | Primitive::C128 | Primitive::CLongDouble { .. }, _) => {
                Builder::Complex(
                    FloatStats::new(kind, place.options.precision, false),
                    FloatStats::new(kind, place.options.precision, true),
                )
            }
            DType::Number(..) => Builder::Int(IntStats::default()),
            DType::Time(ty, _) => match ty.kind {
                TimeKind::Datetime => Builder::Datetime(TimeStats::default()),
                TimeKind::Timedelta => Builder::Timedelta(TimeStats::default()),
            },
            DType::Bytes(_) => Builder::Bytes,
            DType::Unicode(..) => Builder::Str,
            DType::Void(_) => Builder::Void,
            DType::Object => Builder::Object(place.options),
            DType::Ml(t) => Builder::Ml(*t),
            DType::Record(r) => Builder::Record(
                r.fields()
                    .iter()
                    .map(|f| Builder::new(&f.dtype, place))
                    .collect(),
            ),
            DType::SubArray(_) => {
                let mut base = dtype;
                while let DType::SubArray(s) = base {
                    base = s.base();
                }
                let place = Place {
                    zero_d: false,
                    ..place
                };
                Builder::SubArray(Box::new(Builder::new(base, place)), place.options)
            }
        }
    }

    /// A builder fitted to the kind of `v` when its dtype is not known ([`DynValue`]'s
    /// `Display`): floats as float64, a subarray's elements as its first one.
    pub(crate) fn for_value(v: &DynValue, place: Place) -> Builder {
        let precision = place.options.precision;
        match v {
            DynValue::Bool(_) => Builder::Bool {
                zero_d: place.zero_d,
            },
            DynValue::Int(_) | DynValue::UInt(_) => Builder::Int(IntStats::default()),
            DynValue::Float(_) | DynValue::LongDouble { .. } if place.float_str => {
                Builder::FloatStr(FloatKind::Double)
            }
            DynValue::Float(_) | DynValue::LongDouble { .. } => {
                Builder::Float(FloatStats::new(FloatKind::Double, precision, false))
            }
            DynValue::Complex(..) | DynValue::CLongDouble { .. } => Builder::Complex(
                FloatStats::new(FloatKind::Double, precision, false),
                FloatStats::new(FloatKind::Double, precision, true),
            ),
            DynValue::Datetime { .. } => Builder::Datetime(TimeStats::default()),
            DynValue::Timedelta { .. } => Builder::Timedelta(TimeStats::default()),
            DynValue::Bytes(_) => Builder::Bytes,
            DynValue::Str(_) => Builder::Str,
            DynValue::Void(_) => Builder::Void,
            DynValue::Object(_) => Builder::Object(place.options),
            DynValue::Record(fields) => Builder::Record(
                fields
                    .iter()
                    .map(|(_, x)| Builder::for_value(x, place))
                    .collect(),
            ),
            DynValue::SubArray { values, .. } => {
                let place = Place {
                    zero_d: false,
                    ..place
                };
                let base = values
                    .first()
                    .map_or(Builder::Bytes, |x| Builder::for_value(x, place));
                Builder::SubArray(Box::new(base), place.options)
            }
        }
    }

    /// Takes one value into account.
    pub(crate) fn observe(&mut self, v: &DynValue) {
        match (self, v) {
            (Builder::Int(s), DynValue::Int(i)) => s.observe(i128::from(*i)),
            (Builder::Int(s), DynValue::UInt(u)) => s.observe(i128::from(*u)),
            (Builder::Float(s), v) => {
                if let Some(x) = v.as_f64() {
                    s.observe(x);
                }
            }
            (Builder::Complex(re, im), v) => {
                if let Some((r, i)) = complex(v) {
                    re.observe(r);
                    im.observe(i);
                }
            }
            (
                Builder::Datetime(s) | Builder::Timedelta(s),
                DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit },
            ) => s.observe(*ticks, *unit),
            (Builder::Record(fields), DynValue::Record(values)) => {
                for (b, (_, x)) in fields.iter_mut().zip(values) {
                    b.observe(x);
                }
            }
            (Builder::SubArray(base, _), DynValue::SubArray { values, .. }) => {
                for x in values {
                    base.observe(x);
                }
            }
            _ => {}
        }
    }

    /// The format for the values seen.
    pub(crate) fn finish(&self) -> Format {
        match self {
            Builder::Bool { zero_d } => Format::Bool { zero_d: *zero_d },
            Builder::Int(s) => Format::Int { width: s.width() },
            Builder::Float(s) => Format::Float(s.finish()),
            Builder::FloatStr(kind) => Format::FloatStr(*kind),
            Builder::Complex(re, im) => Format::Complex(re.finish(), im.finish()),
            Builder::Datetime(s) => Format::Datetime {
                width: s.width(datetime_quoted),
            },
            Builder::Timedelta(s) => Format::Timedelta {
                width: s.width(|t, _| t.to_string()),
            },
            Builder::Bytes => Format::Bytes,
            Builder::Str => Format::Str,
            Builder::Void => Format::Void,
            Builder::Object(options) => Format::Object(*options),
            Builder::Ml(t) => Format::Ml(*t),
            Builder::Record(fields) => Format::Record(fields.iter().map(Builder::finish).collect()),
            Builder::SubArray(base, options) => Format::SubArray(Box::new(base.finish()), *options),
        }
    }
}

/// A format function fitted to the values shown, per dtype (numpy's `_get_format_function`).
#[derive(Debug, Clone)]
pub(crate) enum Format {
    /// numpy's `BoolFormat`.
    Bool { zero_d: bool },
    /// numpy's `IntegerFormat`: right-aligned to `width`.
    Int { width: usize },
    /// numpy's `FloatingFormat`.
    Float(FloatFormat),
    /// The scalar's `str`.
    FloatStr(FloatKind),
    /// numpy's `ComplexFloatingFormat`.
    Complex(FloatFormat, FloatFormat),
    /// numpy's `DatetimeFormat`: quoted ISO 8601, right-aligned.
    Datetime { width: usize },
    /// numpy's `TimedeltaFormat`: the ticks, right-aligned.
    Timedelta { width: usize },
    /// Python's bytes repr.
    Bytes,
    /// Python's str repr.
    Str,
    /// numpy's void repr.
    Void,
    /// numpy's `_object_format`: the item's Python `repr`, a list as `list([...])`, arrays
    /// inside printed with the options.
    Object(PrintOptions),
    /// The ml_dtypes scalar's `str` ([`MlType::format_value`]).
    Ml(MlType),
    /// numpy's `StructuredVoidFormat`.
    Record(Vec<Format>),
    /// numpy's `SubArrayFormat`, and the options that summarise it.
    SubArray(Box<Format>, PrintOptions),
}

impl Format {
    /// One value's text.
    pub(crate) fn format(&self, v: &DynValue) -> String {
        match (self, v) {
            (Format::Bool { zero_d }, DynValue::Bool(b)) => format_bool(*b, *zero_d).to_owned(),
            (Format::Int { width }, DynValue::Int(i)) => format!("{i:>width$}"),
            (Format::Int { width }, DynValue::UInt(u)) => format!("{u:>width$}"),
            (Format::Float(f), DynValue::Float(x) | DynValue::LongDouble { approx: x, .. }) => {
                f.format(*x)
            }
            (
                Format::FloatStr(kind),
                DynValue::Float(x) | DynValue::LongDouble { approx: x, .. },
            ) => float::scalar_str(*x, *kind),
            (Format::Complex(re, im), v) if complex(v).is_some() => {
                float::format_complex(re, im, complex(v).unwrap_or_default())
            }
            (Format::Datetime { width }, DynValue::Datetime { ticks, unit }) => {
                let s = ticks.map_or_else(|| "'NaT'".to_owned(), |t| datetime_quoted(t, *unit));
                format!("{s:>width$}")
            }
            (Format::Timedelta { width }, DynValue::Timedelta { ticks, .. }) => {
                let s = ticks.map_or_else(|| "'NaT'".to_owned(), |t| t.to_string());
                format!("{s:>width$}")
            }
            (Format::Bytes, DynValue::Bytes(b)) => strings::repr_bytes(b),
            (Format::Str, DynValue::Str(u)) => strings::repr_ucs(u),
            (Format::Void, DynValue::Void(b)) => strings::repr_void(b),
            (Format::Object(options), DynValue::Object(o)) => {
                object::object_text(&**o, ObjectText::Element, options)
            }
            (Format::Ml(t), v) if ml_value(v).is_some() => {
                t.format_value(ml_value(v).unwrap_or(0.0))
            }
            (Format::Record(fmts), DynValue::Record(fields)) => record::format_record(fmts, fields),
            (Format::SubArray(base, options), DynValue::SubArray { shape, values }) => {
                record::format_subarray(base, shape, values, options)
            }
            // A value of another dtype than the format's: not produced by the decoder.
            (_, v) => format!("{v:?}"),
        }
    }
}

pub(crate) fn complex(v: &DynValue) -> Option<(f64, f64)> {
    match *v {
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => Some((re, im)),
        _ => None,
    }
}

/// The value of an ml_dtypes element as the decoder gives it (a float, or an int kind's int).
pub(crate) fn ml_value(v: &DynValue) -> Option<f64> {
    match *v {
        DynValue::Float(x) => Some(x),
        DynValue::Int(i) => Some(i as f64),
        _ => None,
    }
}
