//! Laying values out (numpy's `_formatArray`), `str` and `repr` of whole arrays, and the `str`
//! of scalars.

use std::borrow::{Borrow, Cow};
use std::fmt::{self, Write as _};
use std::io;

use super::fit::{ml_value, Builder, ElementFormat, Format, Place};
use super::float::{self, FloatKind};
use super::int::format_bool;
use super::strings;
use super::PrintOptions;
use npy_core::dtype::{DType, Primitive, TimeKind, TimeUnit};
use npy_core::dynamic::{ObjectText, UcsString};
use npy_core::literal::Value;
use npy_core::ByteOrder;
use npy_core::{DynArray, DynValue};

/// Why a layout stopped: the writer failed, or the values' source did.
pub(crate) enum Stop<E> {
    Write,
    Value(E),
}

impl<E> From<fmt::Error> for Stop<E> {
    fn from(_: fmt::Error) -> Stop<E> {
        Stop::Write
    }
}

/// numpy's `str()` of the elements of an array of `shape` (at least one dimension, at least
/// one element; `[]` for an array without elements), taking the printed values from `next` in
/// C order: every one, or only those a summarised print shows (the edges of each axis,
/// [`PrintOptions::shown`]), fitted by `format`. No final newline.
///
/// This is what [`DynArray`]'s `Display` does for values held in memory, for values read in
/// chunks: memory stays constant whatever the array's size.
///
/// # Errors
/// `next`'s errors, and write errors (as `E`).
///
/// # Examples
/// ```
/// use npy_print::{write_str, FormatBuilder, PrintOptions};
/// use npy_core::{DType, DynValue};
/// let options = PrintOptions::new();
/// let dtype: DType = "<i8".parse()?;
/// // A (2, 2000) array whose element (i, j) is 2000 i + j, never held in memory.
/// let shape = [2u64, 2000];
/// let shown = || {
///     let (lead, trail) = options.shown(2000, true);
///     let cols: Vec<u64> = lead.chain(trail.unwrap_or(0..0)).collect();
///     (0..2u64).flat_map(move |i| cols.clone().into_iter().map(move |j| 2000 * i + j))
/// };
/// let mut builder = FormatBuilder::new(&dtype, &options);
/// for x in shown() {
///     builder.observe(&DynValue::UInt(x));
/// }
/// let mut values = shown();
/// let mut out = Vec::new();
/// let mut next = || {
///     values
///         .next()
///         .map(DynValue::UInt)
///         .ok_or_else(|| std::io::Error::other("too few"))
/// };
/// write_str(&mut out, &shape, &builder.finish(), &options, &mut next)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "[[   0    1    2 ... 1997 1998 1999]\n [2000 2001 2002 ... 3997 3998 3999]]"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_str<W, E>(
    out: &mut W,
    shape: &[u64],
    format: &ElementFormat,
    options: &PrintOptions,
    next: &mut impl FnMut() -> Result<DynValue, E>,
) -> Result<(), E>
where
    W: io::Write,
    E: From<io::Error>,
{
    let _scope = super::budget::Scope::enter(options.object_budget_bytes());
    let mut sink = IoSink { out, error: None };
    let result = if shape.contains(&0) {
        sink.write_str("[]").map_err(Stop::from)
    } else if shape.is_empty() {
        next()
            .map_err(Stop::Value)
            .and_then(|v| Ok(sink.write_str(&format.0.format(&v))?))
    } else {
        let summarise = options.summarises(product(shape));
        let mut p = Printer {
            out: &mut sink,
            shape,
            summarise,
            fmt: &format.0,
            options,
            sep: " ",
        };
        p.recurse(0, " ", options.linewidth, next)
    };
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Value(e)) => Err(e),
        Err(Stop::Write) => Err(E::from(
            sink.error
                .take()
                .unwrap_or_else(|| io::Error::other("formatting failed")),
        )),
    }
}

/// An `io::Write` as a `fmt::Write`, keeping the I/O error that stopped it.
struct IoSink<'a, W> {
    out: &'a mut W,
    error: Option<io::Error>,
}

impl<W: io::Write> fmt::Write for IoSink<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

fn product(shape: &[u64]) -> u64 {
    shape.iter().fold(1u64, |x, &d| x.saturating_mul(d))
}

struct Printer<'a, W> {
    out: &'a mut W,
    shape: &'a [u64],
    summarise: bool,
    fmt: &'a Format,
    options: &'a PrintOptions,
    /// `' '` for `str`, `', '` for `repr`.
    sep: &'a str,
}

impl<W: fmt::Write> Printer<'_, W> {
    /// numpy's `recurser`: writes `'[' + s[len(hanging):] + ']'` of this axis, where `s`
    /// starts with the hanging indent that the `[` replaces.
    fn recurse<V: Borrow<DynValue>, E>(
        &mut self,
        axis: usize,
        hanging: &str,
        width: usize,
        next: &mut impl FnMut() -> Result<V, E>,
    ) -> Result<(), Stop<E>> {
        let ndim = self.shape.len();
        let n = self.shape[axis];
        let (lead, trail) = self.options.shown(n, self.summarise);
        let lead_len = lead.end - lead.start;
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        if axis + 1 == ndim {
            // The last axis: words wrapped to the line width.
            let elem_width = width.saturating_sub(1);
            let mut line = Line::new(self.out, hanging, elem_width)?;
            let last = lead_len + trail.as_ref().map_or(0, |t| t.end - t.start);
            for k in 0..last {
                if trail.is_some() && k == lead_len {
                    line.extend(self.out, "...")?;
                    line.sep(self.sep);
                }
                let word = self.fmt.format(next().map_err(Stop::Value)?.borrow());
                line.extend(self.out, &word)?;
                if k + 1 != last {
                    line.sep(self.sep);
                }
            }
            line.finish(self.out)?;
        } else {
            // Outer axes: rows separated by as many newlines as axes remain below.
            let mut line_sep = self.sep.trim_end().to_owned();
            line_sep.push_str(&"\n".repeat(ndim - axis - 1));
            self.out.write_char('[')?;
            let rows = lead_len + trail.as_ref().map_or(0, |t| t.end - t.start);
            for k in 0..rows {
                if k > 0 {
                    self.out.write_str(&line_sep)?;
                    self.out.write_str(hanging)?;
                }
                if trail.is_some() && k == lead_len {
                    self.out.write_str("...")?;
                    self.out.write_str(&line_sep)?;
                    self.out.write_str(hanging)?;
                }
                self.recurse(axis + 1, &next_hanging, next_width, next)?;
            }
            self.out.write_char(']')?;
        }
        Ok(())
    }
}

/// The line being filled on the last axis (numpy's `line`), written as it fills: only its
/// length and the whitespace a wrap would strip (the last word's padding and the separator)
/// are held, so a line of any width takes constant memory and time per word.
struct Line<'a> {
    hanging: &'a str,
    width: usize,
    /// Characters on the line so far, the held whitespace not counted.
    len: usize,
    /// Written after the last word unless the line wraps first (then without its trailing
    /// whitespace, as numpy's `line.rstrip()`).
    pending: String,
}

impl<'a> Line<'a> {
    /// Starts the row: numpy's `'[' + s[len(hanging):]`, the line counted as the indent.
    fn new(
        out: &mut impl fmt::Write,
        hanging: &'a str,
        width: usize,
    ) -> Result<Line<'a>, fmt::Error> {
        out.write_char('[')?;
        Ok(Line {
            hanging,
            width,
            len: hanging.chars().count(),
            pending: String::new(),
        })
    }

    /// numpy's `_extendLine`: wraps before `word` when it would pass the width, unless the
    /// line holds only the indent; a word of several lines (an array's repr inside an object
    /// array) is numpy's `_extendLine_pretty`: its lines start at the column of its first, and
    /// the last is padded to the widest.
    fn extend(&mut self, out: &mut impl fmt::Write, word: &str) -> fmt::Result {
        let held = self.pending.chars().count();
        let hanging = self.hanging.chars().count();
        let widest = word
            .split('\n')
            .map(|w| w.chars().count())
            .max()
            .unwrap_or(0);
        let indent = if self.len + held + widest > self.width && self.len + held > hanging {
            out.write_str(self.pending.trim_end())?;
            out.write_char('\n')?;
            out.write_str(self.hanging)?;
            self.len = hanging;
            hanging
        } else {
            out.write_str(&self.pending)?;
            self.len += held;
            self.len
        };
        self.pending.clear();
        let mut last = 0;
        for (i, part) in word.split('\n').enumerate() {
            if i > 0 {
                // numpy's `s += line.rstrip() + '\n'; line = indent + word`: the indent is
                // held like other whitespace, so an empty line stays empty.
                out.write_char('\n')?;
                self.pending.clear();
                self.pending.extend(std::iter::repeat_n(' ', indent));
                self.len = 0;
            }
            let kept = part.trim_end();
            if !kept.is_empty() {
                out.write_str(&self.pending)?;
                self.len += self.pending.chars().count();
                self.pending.clear();
                out.write_str(kept)?;
                self.len += kept.chars().count();
            }
            self.pending.push_str(&part[kept.len()..]);
            last = part.chars().count();
        }
        for _ in last..widest {
            self.pending.push(' ');
        }
        Ok(())
    }

    /// The separator after a word.
    fn sep(&mut self, sep: &str) {
        self.pending.push_str(sep);
    }

    fn finish(self, out: &mut impl fmt::Write) -> fmt::Result {
        out.write_str(&self.pending)?;
        out.write_char(']')
    }
}

/// A [`DynArray`] with print options: `Display` is numpy's `str(arr)`, `{:#}` numpy's
/// `repr(arr)` (made by [`Print::display_with`](crate::Print::display_with)).
///
/// # Examples
/// ```
/// use npy_print::{Print, PrintOptions};
/// use npy_core::{NpyReader, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i16, -2], &[2])?;
/// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
/// let shown = a.display_with(&PrintOptions::new());
/// assert_eq!(shown.to_string(), "[ 1 -2]");
/// assert_eq!(format!("{shown:#}"), "array([ 1, -2], dtype=int16)");
/// # Ok::<(), npy_core::Error>(())
/// ```
pub struct ArrayDisplay<'a> {
    array: Source<'a>,
    options: PrintOptions,
    /// numpy's `repr()` whatever the format's `#` flag ([`ArrayDisplay::repr`]).
    repr: bool,
    /// Whether the last print cut some object's text at the budget.
    cut: std::cell::Cell<bool>,
    /// Bytes of the object budget the last print spent.
    spent: std::cell::Cell<u64>,
}

/// What an [`ArrayDisplay`] prints: a dynamic array's elements, a typed array's seen as
/// [`DynValue`]s, one value, or one Python object.
enum Source<'a> {
    Dyn(&'a DynArray),
    Typed(Box<dyn Elements + 'a>),
    Value(&'a DynValue),
    Object(&'a dyn npy_core::dynamic::ObjectValue),
}

/// An array whose elements can be printed: its dtype, shape and each element by logical index.
pub(crate) trait Elements {
    fn dtype(&self) -> &DType;
    fn shape(&self) -> &[u64];
    /// The element at a logical index (borrowed where the array holds it: objects are never
    /// copied to be printed); `None` out of range or when it cannot be shown.
    fn value(&self, index: &[u64]) -> Option<Cow<'_, DynValue>>;
}

impl Elements for DynArray {
    fn dtype(&self) -> &DType {
        DynArray::dtype(self)
    }

    fn shape(&self) -> &[u64] {
        DynArray::shape(self)
    }

    fn value(&self, index: &[u64]) -> Option<Cow<'_, DynValue>> {
        npy_core::__private::dyn_element(self, self.meta().index_of(index)?)
    }
}

impl fmt::Debug for ArrayDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("ArrayDisplay");
        match &self.array {
            Source::Dyn(a) => d.field("dtype", a.dtype()).field("shape", &a.shape()),
            Source::Typed(a) => d.field("dtype", a.dtype()).field("shape", &a.shape()),
            Source::Value(v) => d.field("value", v),
            Source::Object(o) => d.field("object", o),
        };
        d.field("options", &self.options)
            .field("repr", &self.repr)
            .finish()
    }
}

impl<'a> ArrayDisplay<'a> {
    fn of(array: Source<'a>, options: PrintOptions) -> ArrayDisplay<'a> {
        ArrayDisplay {
            array,
            options,
            repr: false,
            cut: std::cell::Cell::new(false),
            spent: std::cell::Cell::new(0),
        }
    }

    pub(crate) fn new(array: &'a DynArray, options: PrintOptions) -> ArrayDisplay<'a> {
        ArrayDisplay::of(Source::Dyn(array), options)
    }

    pub(crate) fn typed(array: Box<dyn Elements + 'a>, options: PrintOptions) -> ArrayDisplay<'a> {
        ArrayDisplay::of(Source::Typed(array), options)
    }

    pub(crate) fn value(value: &'a DynValue, options: PrintOptions) -> ArrayDisplay<'a> {
        ArrayDisplay::of(Source::Value(value), options)
    }

    pub(crate) fn object(
        object: &'a dyn npy_core::dynamic::ObjectValue,
        options: PrintOptions,
    ) -> ArrayDisplay<'a> {
        ArrayDisplay::of(Source::Object(object), options)
    }

    /// The same print as numpy's `repr()` whatever the format's `#` flag: what
    /// [`repr`](crate::repr) returns.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// let a = npy_core::NpyArray::from_parts(vec![2], npy_core::MemoryOrder::C, vec![1u8, 2])?;
    /// let shown = a.display_with(&PrintOptions::new().linewidth(10));
    /// assert_eq!(shown.to_string(), "[1 2]");
    /// assert_eq!(shown.repr().to_string(), "array([1,\n       2],\n      dtype=uint8)");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    #[must_use]
    pub fn repr(mut self) -> ArrayDisplay<'a> {
        self.repr = true;
        self
    }

    /// The array printed (a value or an object is not one: they print in `fmt`).
    fn source(&self) -> &dyn Elements {
        match &self.array {
            Source::Dyn(a) => *a,
            Source::Typed(a) => &**a,
            Source::Value(_) => &NO_ELEMENTS,
            Source::Object(_) => &NO_ELEMENTS,
        }
    }

    /// numpy's `str()`: the 0-d array's scalar, `[]` for an array without elements, else the
    /// shown elements laid out.
    fn write_str(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let a = self.source();
        let shape = a.shape();
        if shape.is_empty() {
            return match a.value(&[]) {
                Some(v) => out.write_str(&scalar_text(Some(a.dtype()), &v, &self.options)),
                None => Ok(()),
            };
        }
        if shape.contains(&0) {
            return out.write_str("[]");
        }
        self.layout(out, " ", " ")
    }

    /// The shown elements of an array with at least one, fitted and laid out with `sep`
    /// between them and `hanging` as the first continuation indent.
    fn layout(&self, out: &mut impl fmt::Write, sep: &str, hanging: &str) -> fmt::Result {
        let a = self.source();
        let summarise = self.options.summarises(product(a.shape()));
        let place = Place {
            zero_d: false,
            float_str: false,
            options: self.options,
        };
        let mut builder = Builder::new(a.dtype(), place);
        for v in ShownValues::new(a, summarise, &self.options) {
            builder.observe(&v);
        }
        let fmt = builder.finish();
        let mut values = ShownValues::new(a, summarise, &self.options);
        // A typed array's element that does not convert (which the conversions rule out)
        // shows as `'?'` rather than ending the text.
        let mut next =
            || {
                Ok::<_, ()>(values.next().unwrap_or_else(|| {
                    Cow::Owned(DynValue::Str(UcsString::new(vec![u32::from('?')])))
                }))
            };
        let mut p = Printer {
            out,
            shape: a.shape(),
            summarise,
            fmt: &fmt,
            options: &self.options,
            sep,
        };
        p.recurse(0, hanging, self.options.linewidth, &mut next)
            .map_err(|_| fmt::Error)
    }

    /// numpy 2's `repr()`: `array(` and the elements as `str` lays them out with `, ` between
    /// them, then `shape=` when summarised or without elements (unless `(0,)`), and the dtype
    /// unless numpy implies it (`int64`, `float64`, `complex128`, `bool`), on a line of their
    /// own when they would pass the line width.
    fn write_repr(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let a = self.source();
        let shape = a.shape();
        let mut out = Column { out, col: 0 };
        const PREFIX: &str = "array(";
        out.write_str(PREFIX)?;
        let empty = shape.contains(&0);
        if shape.is_empty() {
            if let Some(v) = a.value(&[]) {
                let place = Place {
                    zero_d: true,
                    float_str: false,
                    options: self.options,
                };
                let mut b = Builder::new(a.dtype(), place);
                b.observe(&v);
                out.write_str(&b.finish().format(&v))?;
            }
        } else if empty {
            out.write_str("[]")?;
        } else {
            let hanging = " ".repeat(PREFIX.len() + 1);
            self.layout(&mut out, ", ", &hanging)?;
        }
        let mut extras = String::new();
        if (empty && shape != [0]) || self.options.summarises(product(shape)) {
            extras.push_str("shape=(");
            for (i, d) in shape.iter().enumerate() {
                if i > 0 {
                    extras.push_str(", ");
                }
                let _ = write!(extras, "{d}");
            }
            extras.push_str(if shape.len() == 1 { ",)" } else { ")" });
        }
        if empty || !dtype_is_implied(a.dtype()) {
            if !extras.is_empty() {
                extras.push_str(", ");
            }
            extras.push_str("dtype=");
            write_dtype_short_repr(&mut extras, a.dtype())?;
        }
        if extras.is_empty() {
            return out.write_char(')');
        }
        out.write_char(',')?;
        let len = extras.chars().count() + 1;
        if out.col + len + 1 > self.options.linewidth {
            out.write_char('\n')?;
            out.write_str(&" ".repeat(PREFIX.len()))?;
        } else {
            out.write_char(' ')?;
        }
        out.write_str(&extras)?;
        out.write_char(')')
    }
}

impl ArrayDisplay<'_> {
    /// Whether the last print of this display cut the text of some Python object at the
    /// print's budget ([`PrintOptions::object_budget`]; always `false` without objects).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// use npy_core::{NpyReader, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[1u8, 2], &[2])?;
    /// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
    /// let shown = a.display_with(&PrintOptions::new().object_budget(0));
    /// assert_eq!(shown.to_string(), "[1 2]");
    /// assert!(!shown.was_cut());
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn was_cut(&self) -> bool {
        self.cut.get()
    }

    /// Bytes of the print's object budget ([`PrintOptions::object_budget`]) the last print of
    /// this display spent: its objects' text and the work of converting big ints to decimal
    /// (`npy_pickle::int_decimal_work`); 0 without objects. A caller
    /// printing several arrays within one budget gives each what the others left.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// use npy_core::{NpyReader, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[1u8, 2], &[2])?;
    /// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
    /// let shown = a.display_with(&PrintOptions::new());
    /// assert_eq!(shown.to_string(), "[1 2]");
    /// assert_eq!(shown.spent_budget(), 0);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn spent_budget(&self) -> u64 {
        self.spent.get()
    }
}

impl fmt::Display for ArrayDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let repr = self.repr || f.alternate();
        match &self.array {
            // A value has no dtype to show: its `repr` is its `str`.
            Source::Value(v) => return f.write_str(&value_str(v, &self.options)),
            Source::Object(o) => {
                let text = if repr {
                    ObjectText::Repr
                } else {
                    ObjectText::Str
                };
                return f.write_str(&super::object::object_text(*o, text, &self.options));
            }
            Source::Dyn(_) | Source::Typed(_) => {}
        }
        let scope = super::budget::Scope::enter(self.options.object_budget_bytes());
        let result = if repr {
            self.write_repr(f)
        } else {
            self.write_str(f)
        };
        self.cut.set(scope.cut());
        self.spent.set(scope.spent());
        result
    }
}

/// The elements of nothing: what [`ArrayDisplay::source`] gives for a value or an object,
/// which never reach the array layout.
struct NoElements;

const NO_ELEMENTS: NoElements = NoElements;

impl Elements for NoElements {
    fn dtype(&self) -> &DType {
        const NONE: DType = DType::Number(Primitive::Bool, ByteOrder::NotApplicable);
        &NONE
    }

    fn shape(&self) -> &[u64] {
        &[0]
    }

    fn value(&self, _: &[u64]) -> Option<Cow<'_, DynValue>> {
        None
    }
}

/// A writer that knows the column it is at (characters since the last newline).
struct Column<'a, W> {
    out: &'a mut W,
    col: usize,
}

impl<W: fmt::Write> fmt::Write for Column<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        match s.rfind('\n') {
            Some(at) => self.col = s[at + 1..].chars().count(),
            None => self.col += s.chars().count(),
        }
        self.out.write_str(s)
    }
}

/// numpy's `dtype_is_implied`: the dtypes a repr leaves out (native `int64`, `float64`,
/// `complex128` and `bool`).
fn dtype_is_implied(dtype: &DType) -> bool {
    matches!(
        dtype,
        DType::Number(Primitive::I64 | Primitive::F64 | Primitive::C128 | Primitive::Bool, o)
            if *o != ByteOrder::Big
    )
}

/// numpy's `dtype_short_repr`: a structured dtype as its list, a flexible or non-native one
/// quoted (`'<U3'`, `'>i4'`), else its name, quoted unless it is a Python identifier
/// (`float32`, `'datetime64[D]'`).
fn write_dtype_short_repr(out: &mut impl fmt::Write, dtype: &DType) -> fmt::Result {
    let name = match dtype {
        DType::Record(_) | DType::SubArray(_) => {
            let mut descr = dtype.to_descr_value();
            return if struct_str(&mut descr) {
                write!(out, "{descr}")
            } else {
                write!(out, "{dtype}")
            };
        }
        DType::Bytes(_) | DType::Unicode(..) | DType::Void(_) => return write!(out, "'{dtype}'"),
        _ if dtype.byte_order() == ByteOrder::Big => return write!(out, "'{dtype}'"),
        DType::Number(Primitive::LongDouble { size }, _) => {
            format!("float{}", u32::from(*size) * 8)
        }
        DType::Number(Primitive::CLongDouble { size }, _) => {
            format!("complex{}", u32::from(*size) * 8)
        }
        DType::Number(p, _) => p.canonical().map_or("number", |c| c.name()).to_owned(),
        DType::Time(t, _) => {
            let kind = match t.kind {
                TimeKind::Datetime => "datetime64",
                TimeKind::Timedelta => "timedelta64",
            };
            match (t.unit, t.multiplier) {
                (TimeUnit::Generic, _) => kind.to_owned(),
                (u, 1) => format!("{kind}[{}]", u.code()),
                (u, m) => format!("{kind}[{m}{}]", u.code()),
            }
        }
        DType::Object => "object".to_owned(),
        DType::Ml(t) => t.name().to_owned(),
    };
    let identifier = name.chars().next().is_some_and(char::is_alphabetic)
        && name.chars().all(char::is_alphanumeric);
    if identifier {
        out.write_str(&name)
    } else {
        write!(out, "'{name}'")
    }
}

/// Turns a structured dtype's descr into numpy's `str(dtype)` of it, which writes the fields'
/// types in their short form (`'?'`, `'S2'`, `'u1'`: no `|`); false for a descr with padding,
/// which numpy writes as a dict of names, formats and offsets (then the descr is printed).
fn struct_str(descr: &mut Value) -> bool {
    let Value::List(fields) = descr else {
        return false;
    };
    for field in fields {
        let Value::Tuple(parts) = field else {
            return false;
        };
        if matches!(parts.first(), Some(Value::Str(name)) if name.is_empty()) {
            return false;
        }
        match parts.get_mut(1) {
            Some(Value::Str(t)) => {
                let short = match t.strip_prefix('|') {
                    Some("b1") => "?".to_owned(),
                    Some(rest) => rest.to_owned(),
                    None => continue,
                };
                *t = short;
            }
            Some(nested @ Value::List(_)) => {
                if !struct_str(nested) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// numpy's `str()` of a 0-d array of `dtype` holding `value`: the scalar's own `str` (a
/// float with all its shortest digits, `True`, `2023-12-09`, a record as a tuple whose floats
/// show all their digits).
///
/// # Examples
/// ```
/// use npy_print::{scalar_str, PrintOptions};
/// use npy_core::{DType, DynValue};
/// let f4: DType = "<f4".parse()?;
/// let options = PrintOptions::new();
/// assert_eq!(scalar_str(&f4, &DynValue::Float(1e6), &options), "1e+06");
/// let f8: DType = "<f8".parse()?;
/// assert_eq!(scalar_str(&f8, &DynValue::Float(1e6), &options), "1000000.0");
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn scalar_str(dtype: &DType, value: &DynValue, options: &PrintOptions) -> String {
    scalar_text(Some(dtype), value, options)
}

/// A lone [`DynValue`]'s `str`: a scalar's with floats as float64.
pub(crate) fn value_str(value: &DynValue, options: &PrintOptions) -> String {
    scalar_text(None, value, options)
}

/// The `str` of a 0-d array holding `v`, of `dtype` when known (else floats are float64).
fn scalar_text(dtype: Option<&DType>, v: &DynValue, options: &PrintOptions) -> String {
    if let (Some(DType::Ml(t)), Some(x)) = (dtype, ml_value(v)) {
        return t.format_value(x);
    }
    let kind = dtype.map_or(FloatKind::Double, float::kind_of);
    match v {
        DynValue::Bool(b) => format_bool(*b, true).to_owned(),
        DynValue::Int(i) => i.to_string(),
        DynValue::UInt(u) => u.to_string(),
        DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => float::scalar_str(*x, kind),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            float::complex_scalar_str(*re, *im, kind)
        }
        DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit } => {
            ticks.map_or_else(|| "NaT".to_owned(), |t| unit.value_str(t))
        }
        // numpy 2 prints a 0-d bytes array through the scalar's repr.
        DynValue::Bytes(b) => format!("np.bytes_({})", strings::repr_bytes(b)),
        DynValue::Str(u) => strings::printable(&u.to_string_lossy()).into_owned(),
        DynValue::Void(b) => strings::repr_void(b),
        DynValue::Object(o) => super::object::object_text(&**o, ObjectText::Str, options),
        DynValue::Record(_) | DynValue::SubArray { .. } => {
            let place = Place {
                zero_d: true,
                float_str: true,
                options: *options,
            };
            let mut b = match dtype {
                Some(dtype) => Builder::new(dtype, place),
                None => Builder::for_value(v, place),
            };
            b.observe(v);
            b.finish().format(v)
        }
    }
}

/// The elements of an array that a print shows, in C order: every one, or those at the edges
/// of each axis when `summarise`.
struct ShownValues<'a> {
    array: &'a dyn Elements,
    summarise: bool,
    options: &'a PrintOptions,
    /// The multi-index of the next element; `None` when done.
    at: Option<Vec<u64>>,
}

impl<'a> ShownValues<'a> {
    fn new(array: &'a dyn Elements, summarise: bool, options: &'a PrintOptions) -> ShownValues<'a> {
        let empty = array.shape().contains(&0);
        ShownValues {
            array,
            summarise,
            options,
            at: (!empty).then(|| vec![0; array.shape().len()]),
        }
    }
}

impl<'a> Iterator for ShownValues<'a> {
    type Item = Cow<'a, DynValue>;

    fn next(&mut self) -> Option<Cow<'a, DynValue>> {
        let at = self.at.as_mut()?;
        let value = self.array.value(at);
        // The next shown multi-index: the last axis fastest, jumping the summarised middle.
        let shape = self.array.shape();
        let mut axis = at.len();
        loop {
            if axis == 0 {
                self.at = None;
                break;
            }
            axis -= 1;
            let (lead, trail) = self.options.shown(shape[axis], self.summarise);
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
