//! numpy's `str(arr)` (`numpy/_core/arrayprint.py`) with the default print options:
//! `linewidth=75`, `threshold=1000`, `edgeitems=3`, `precision=8`, `floatmode='maxprec'`.
//!
//! Integers are right-aligned to a common width; floats are in positional or scientific
//! notation chosen for the whole array as numpy chooses (the cutoff depends on the dtype);
//! strings and bytes are Python reprs; records are tuples; datetimes are ISO 8601 strings;
//! lines wrap at 75 columns. A 0-d array prints as its scalar's `str`, which for a record
//! shows its float fields at full precision.
//!
//! Printing is two steps, as numpy's: a [`Builder`] sees every value that will be printed
//! (numpy's `_get_format_function` over `_leading_trailing` of a summarised array) and
//! becomes a [`Format`]; then [`write_array`] lays the values out (numpy's `_formatArray`),
//! taking them one at a time in C order. Neither step holds more than one value, so an array
//! of any size prints in constant memory.
//!
//! Known differences: a longdouble is formatted through its nearest float64, so a 0-d
//! longdouble (printed with all its digits) and a longdouble field of a 0-d record differ
//! from numpy beyond float64's 17 digits; the `str` of a 0-d `U` array escapes control
//! characters (numpy prints them raw) so that a file cannot drive the terminal.

mod datetime;
mod float;
mod int;
mod object;
mod record;
mod strings;

use std::io;
use std::ops::Range;

use npy_core::{DType, DynArray, DynValue, MlType, Primitive, TimeKind};

use crate::format::printable;

use self::datetime::{datetime_quoted, TimeStats};
use self::float::{FloatFormat, FloatKind, FloatStats};
use self::int::{format_bool, IntStats};

/// numpy's `threshold`: arrays with more elements are summarised.
pub const THRESHOLD: u64 = 1000;
/// numpy's `edgeitems`: items kept at each edge of each axis of a summarised array.
pub const EDGE_ITEMS: u64 = 3;
/// numpy's `linewidth`.
const LINE_WIDTH: usize = 75;
/// numpy's `precision`: most fractional digits a float shows.
const PRECISION: usize = 8;

/// Whether numpy summarises an array of `len` elements (unless asked for all of them).
pub fn summarises(len: u64, full: bool) -> bool {
    !full && len > THRESHOLD
}

/// The indices along an axis of length `n` that are printed: all of them, or the leading
/// and trailing [`EDGE_ITEMS`] of a summarised array (the second range, with `...` between).
pub fn shown(n: u64, summarise: bool) -> (Range<u64>, Option<Range<u64>>) {
    if summarise && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS, Some(n - EDGE_ITEMS..n))
    } else {
        (0..n, None)
    }
}

/// How a value is printed, depending on where it is (numpy's `_get_format_function` options).
#[derive(Debug, Clone, Copy)]
struct Place {
    /// The value is a 0-d array's own (a bool prints `True`, not ` True`).
    zero_d: bool,
    /// Floats print as their scalar `str` (a 0-d record's fields, numpy's `float_kind=str`).
    float_str: bool,
    /// Subarray fields print whole (`--full`).
    full: bool,
}

/// What a [`Format`] needs to know of the values it will print, gathered one at a time.
#[derive(Debug, Clone)]
pub enum Builder {
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
    /// `O`: Python reprs, no common width.
    Object,
    /// An ml_dtypes type (bfloat16, float8, int4, …): numpy prints each element as the
    /// scalar's `str`, no common width (numpy's `repr_format` for types it does not know).
    Ml(MlType),
    /// A record: one builder per field.
    Record(Vec<Builder>),
    /// A subarray field: the builder of its elements, and whether to print them all.
    SubArray(Box<Builder>, bool),
}

impl Builder {
    /// A builder for the elements of an array of `dtype` with at least one dimension; `full`
    /// prints subarray fields whole.
    pub fn for_array(dtype: &DType, full: bool) -> Builder {
        let place = Place {
            zero_d: false,
            float_str: false,
            full,
        };
        Builder::new(dtype, place)
    }

    fn new(dtype: &DType, place: Place) -> Builder {
        let kind = FloatKind::of(dtype);
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
            ) => Builder::Float(FloatStats::new(kind, false)),
            DType::Number(Primitive::C64 | Primitive::C128 | Primitive::CLongDouble { .. }, _) => {
                Builder::Complex(FloatStats::new(kind, false), FloatStats::new(kind, true))
            }
            DType::Number(..) => Builder::Int(IntStats::default()),
            DType::Time(ty, _) => match ty.kind {
                TimeKind::Datetime => Builder::Datetime(TimeStats::default()),
                TimeKind::Timedelta => Builder::Timedelta(TimeStats::default()),
            },
            DType::Bytes(_) => Builder::Bytes,
            DType::Unicode(..) => Builder::Str,
            DType::Void(_) => Builder::Void,
            DType::Object => Builder::Object,
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
                Builder::SubArray(Box::new(Builder::new(base, place)), place.full)
            }
        }
    }

    /// Takes one value into account.
    pub fn observe(&mut self, v: &DynValue) {
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
    pub fn finish(&self) -> Format {
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
            Builder::Object => Format::Object,
            Builder::Ml(t) => Format::Ml(*t),
            Builder::Record(fields) => Format::Record(fields.iter().map(Builder::finish).collect()),
            Builder::SubArray(base, full) => Format::SubArray(Box::new(base.finish()), *full),
        }
    }
}

/// A format function fitted to the values shown, per dtype (numpy's `_get_format_function`).
#[derive(Debug, Clone)]
pub enum Format {
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
    /// numpy's `_object_format`: the item's Python `repr`, a list as `list([...])`.
    Object,
    /// The ml_dtypes scalar's `str` ([`MlType::format_value`]).
    Ml(MlType),
    /// numpy's `StructuredVoidFormat`.
    Record(Vec<Format>),
    /// numpy's `SubArrayFormat`, and whether to print every element.
    SubArray(Box<Format>, bool),
}

impl Format {
    /// One value's text.
    pub fn format(&self, v: &DynValue) -> String {
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
            (Format::Object, DynValue::Object(o)) => object::repr(o),
            (Format::Ml(t), v) if ml_value(v).is_some() => {
                t.format_value(ml_value(v).unwrap_or(0.0))
            }
            (Format::Record(fmts), DynValue::Record(fields)) => record::format_record(fmts, fields),
            (Format::SubArray(base, full), DynValue::SubArray { shape, values }) => {
                record::format_subarray(base, shape, values, *full)
            }
            // A value of another dtype than the format's: not produced by the decoder.
            (_, v) => format!("{v:?}"),
        }
    }
}

fn complex(v: &DynValue) -> Option<(f64, f64)> {
    match *v {
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => Some((re, im)),
        _ => None,
    }
}

/// The value of an ml_dtypes element as the decoder gives it (a float, or an int kind's int).
fn ml_value(v: &DynValue) -> Option<f64> {
    match *v {
        DynValue::Float(x) => Some(x),
        DynValue::Int(i) => Some(i as f64),
        _ => None,
    }
}

/// numpy's `str()` of a 0-d array of `dtype` holding `v`: the scalar's own `str`.
pub fn scalar_str(dtype: &DType, v: &DynValue, full: bool) -> String {
    if let (DType::Ml(t), Some(x)) = (dtype, ml_value(v)) {
        return t.format_value(x);
    }
    let kind = FloatKind::of(dtype);
    match v {
        DynValue::Bool(b) => format_bool(*b, true).to_owned(),
        DynValue::Int(i) => i.to_string(),
        DynValue::UInt(u) => u.to_string(),
        DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => float::scalar_str(*x, kind),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            float::complex_scalar_str(*re, *im, kind)
        }
        DynValue::Datetime { ticks, unit } => {
            ticks.map_or_else(|| "NaT".to_owned(), |t| unit.value_str(t))
        }
        DynValue::Timedelta { ticks, unit } => {
            ticks.map_or_else(|| "NaT".to_owned(), |t| unit.value_str(t))
        }
        // numpy 2 prints a 0-d bytes array through the scalar's repr.
        DynValue::Bytes(b) => format!("np.bytes_({})", strings::repr_bytes(b)),
        DynValue::Str(u) => printable(&u.to_string_lossy()).into_owned(),
        DynValue::Void(b) => strings::repr_void(b),
        DynValue::Object(o) => object::str(o, full),
        DynValue::Record(_) | DynValue::SubArray { .. } => {
            let place = Place {
                zero_d: true,
                float_str: true,
                full,
            };
            let mut b = Builder::new(dtype, place);
            b.observe(v);
            b.finish().format(v)
        }
    }
}

/// numpy's `_formatArray` with separator `' '`: writes the array of `shape` (at least one
/// dimension, at least one element) to `out`, taking the printed values from `next` in C
/// order (only the shown ones when `summarise`).
///
/// # Errors
/// `next`'s errors and write errors.
pub fn write_array<W, E>(
    out: &mut W,
    shape: &[u64],
    summarise: bool,
    fmt: &Format,
    next: &mut impl FnMut() -> Result<DynValue, E>,
) -> Result<(), E>
where
    W: io::Write,
    E: From<io::Error>,
{
    let mut p = Printer {
        out,
        shape,
        summarise,
        fmt,
    };
    p.recurse(0, " ", LINE_WIDTH, next)
}

struct Printer<'a, W> {
    out: &'a mut W,
    shape: &'a [u64],
    summarise: bool,
    fmt: &'a Format,
}

impl<W: io::Write> Printer<'_, W> {
    /// numpy's `recurser`: writes `'[' + s[len(hanging):] + ']'` of this axis, where `s`
    /// starts with the hanging indent that the `[` replaces.
    fn recurse<E: From<io::Error>>(
        &mut self,
        axis: usize,
        hanging: &str,
        width: usize,
        next: &mut impl FnMut() -> Result<DynValue, E>,
    ) -> Result<(), E> {
        let ndim = self.shape.len();
        let n = self.shape[axis];
        let (lead, trail) = shown(n, self.summarise);
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        if axis + 1 == ndim {
            // The last axis: words wrapped to the line width.
            let elem_width = width.saturating_sub(1);
            let mut line = Line::new(hanging, elem_width);
            let indices = lead.clone().chain(trail.clone().unwrap_or(0..0));
            let last = lead.end - lead.start + trail.as_ref().map_or(0, |t| t.end - t.start);
            for (k, _) in indices.enumerate() {
                if trail.is_some() && k as u64 == EDGE_ITEMS {
                    line.extend(self.out, "...")?;
                    line.text.push(' ');
                }
                let word = self.fmt.format(&next()?);
                line.extend(self.out, &word)?;
                if k as u64 + 1 != last {
                    line.text.push(' ');
                }
            }
            line.finish(self.out)?;
        } else {
            // Outer axes: rows separated by as many newlines as axes remain below.
            let line_sep = "\n".repeat(ndim - axis - 1);
            self.out.write_all(b"[")?;
            let rows = lead.chain(trail.clone().unwrap_or(0..0));
            for (k, _) in rows.enumerate() {
                if k > 0 {
                    self.out.write_all(line_sep.as_bytes())?;
                    self.out.write_all(hanging.as_bytes())?;
                }
                if trail.is_some() && k as u64 == EDGE_ITEMS {
                    self.out.write_all(b"...")?;
                    self.out.write_all(line_sep.as_bytes())?;
                    self.out.write_all(hanging.as_bytes())?;
                }
                self.recurse(axis + 1, &next_hanging, next_width, next)?;
            }
            self.out.write_all(b"]")?;
        }
        Ok(())
    }
}

/// The line being filled on the last axis (numpy's `line`); finished lines are written out.
struct Line<'a> {
    hanging: &'a str,
    width: usize,
    text: String,
    /// Whether no line was written yet: the first starts with `[` in place of the indent.
    first: bool,
}

impl<'a> Line<'a> {
    fn new(hanging: &'a str, width: usize) -> Line<'a> {
        Line {
            hanging,
            width,
            text: hanging.to_owned(),
            first: true,
        }
    }

    /// numpy's `_extendLine`: wraps before `word` when it would pass the width, unless the
    /// line holds only the indent.
    fn extend(&mut self, out: &mut impl io::Write, word: &str) -> io::Result<()> {
        let len = self.text.chars().count();
        if len + word.chars().count() > self.width && len > self.hanging.chars().count() {
            let done = self.text.trim_end().len();
            self.text.truncate(done);
            self.text.push('\n');
            self.flush(out)?;
            self.text.push_str(self.hanging);
        }
        self.text.push_str(word);
        Ok(())
    }

    fn flush(&mut self, out: &mut impl io::Write) -> io::Result<()> {
        if self.first {
            out.write_all(b"[")?;
            let rest = self.text.get(self.hanging.len()..).unwrap_or("");
            out.write_all(rest.as_bytes())?;
            self.first = false;
        } else {
            out.write_all(self.text.as_bytes())?;
        }
        self.text.clear();
        Ok(())
    }

    fn finish(mut self, out: &mut impl io::Write) -> io::Result<()> {
        self.flush(out)?;
        out.write_all(b"]")
    }
}

/// numpy's `str()` of an array held in memory (an object array, or an array inside one),
/// without the final newline.
pub fn array_str(array: &DynArray, full: bool) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_dyn_array(&mut out, array, full);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes numpy's `str()` of an array held in memory, without the final newline: the 0-d
/// array's scalar, `[]` for an array without elements, else the shown elements (all of them
/// when `full`) laid out by [`write_array`].
///
/// # Errors
/// Write errors.
pub fn write_dyn_array(out: &mut impl io::Write, array: &DynArray, full: bool) -> io::Result<()> {
    let shape = array.shape();
    if shape.is_empty() {
        let text = array
            .values()
            .first()
            .map(|v| scalar_str(array.dtype(), v, full))
            .unwrap_or_default();
        return out.write_all(text.as_bytes());
    }
    if shape.contains(&0) {
        return out.write_all(b"[]");
    }
    let summarise = summarises(array.len() as u64, full);
    let mut builder = Builder::for_array(array.dtype(), full);
    for v in ShownValues::new(array, summarise) {
        builder.observe(v);
    }
    let mut values = ShownValues::new(array, summarise);
    let mut next = || {
        values
            .next()
            .cloned()
            .ok_or_else(|| io::Error::other("fewer elements than the shape holds"))
    };
    write_array(out, shape, summarise, &builder.finish(), &mut next)
}

/// The elements of an in-memory array that a print shows, in C order: every one, or those at
/// the [`EDGE_ITEMS`] edges of each axis when `summarise`.
struct ShownValues<'a> {
    array: &'a DynArray,
    summarise: bool,
    /// The multi-index of the next element; `None` when done.
    at: Option<Vec<u64>>,
}

impl<'a> ShownValues<'a> {
    fn new(array: &'a DynArray, summarise: bool) -> ShownValues<'a> {
        let empty = array.shape().contains(&0);
        ShownValues {
            array,
            summarise,
            at: (!empty).then(|| vec![0; array.shape().len()]),
        }
    }
}

impl<'a> Iterator for ShownValues<'a> {
    type Item = &'a DynValue;

    fn next(&mut self) -> Option<&'a DynValue> {
        let at = self.at.as_mut()?;
        let value = self.array.get(at);
        // The next shown multi-index: the last axis fastest, jumping the summarised middle.
        let shape = self.array.shape();
        let mut axis = at.len();
        loop {
            if axis == 0 {
                self.at = None;
                break;
            }
            axis -= 1;
            let (lead, trail) = shown(shape[axis], self.summarise);
            let i = at[axis] + 1;
            let i = match &trail {
                Some(t) if i == lead.end => t.start,
                _ => i,
            };
            if i < shape[axis] {
                at[axis] = i;
                break;
            }
            at[axis] = 0;
        }
        value
    }
}
