//! numpy's printer: `str()` and `repr()` of arrays read with npy-core, their elements and
//! Python objects, as `numpy/_core/arrayprint.py` writes them.
//!
//! # Quick start
//!
//! | task | the call |
//! |---|---|
//! | numpy's `str(arr)` | [`npy_print::str(&array)`](str()): a value that implements `Display` (`println!("{}", npy_print::str(&a))`, `.to_string()`) |
//! | numpy's `repr(arr)` | [`npy_print::repr(&array)`](repr) (or `{:#}` of what `str` returns) |
//! | other print options (`np.set_printoptions`) | [`Print::display_with(&options)`](Print::display_with) with [`PrintOptions`]: `threshold`, `edgeitems`, `linewidth`, `precision`, `full()` |
//! | what can be printed | [`npy_core::DynArray`] (any dtype, object arrays included), [`npy_core::NpyArray<T>`], a [`npy_core::DynValue`], an object array's element (`dyn ObjectValue`; npy-pickle's `npy_pickle::PyObject`, Python's `str()` / `repr()`) |
//! | print an array read in chunks, in constant memory | [`FormatBuilder`] over the shown values, then [`write_str`] (`npy show`'s way) |
//! | one scalar of a known dtype | [`scalar_str`] |
//! | escape a name for a terminal | [`printable`] |
//!
//! The crate has no features: object arrays always print, each element's text written by its
//! codec (npy-pickle's Python values: their `repr`) and bounded per print by [`OBJECT_TEXT_BUDGET`].
//!
//! Integers are right-aligned to a common width; floats are in positional or scientific
//! notation chosen for the whole array as numpy chooses (the cutoff depends on the dtype), with
//! the shortest digits that round-trip in the value's own type, ties to even (one engine,
//! shared with npy-core's header writer, serves arrays, scalars and Python's `float` repr);
//! strings and bytes are Python reprs;
//! records are tuples; datetimes are ISO 8601 strings; lines wrap at the line width. A 0-d
//! array prints as its scalar's `str`. Arrays of more than `threshold` elements are summarised
//! with `...`, so the text grows with the items printed, never with the shape alone
//! (`array([], shape=(4611686018427387904, 0), dtype=uint8)`).
//!
//! Printing is two steps, as numpy's: a [`FormatBuilder`] sees every value that will be printed
//! (numpy's `_get_format_function` over `_leading_trailing` of a summarised array) and becomes
//! an [`ElementFormat`]; then [`write_str`] lays the values out (numpy's `_formatArray`), taking
//! them one at a time in C order. Neither step holds more than one value, so an array that is
//! read in chunks (`npy show` of a file of any size) prints in constant memory.
//!
//! Known differences: a longdouble is formatted through its nearest float64, so a 0-d
//! longdouble (printed with all its digits) and a longdouble field of a 0-d record differ
//! from numpy beyond float64's 17 digits; the `str` of a 0-d `U` array escapes control
//! characters (numpy prints them raw) so that a file cannot drive the terminal. numpy's other
//! print options (`floatmode`, `suppress`, `sign`, `formatter`, `legacy`, ...) keep their
//! defaults.
//!
//! npy-core's arrays do not implement `Display` themselves: printing as numpy does is this
//! crate's, which only `npy show` and users who print need (the workspace's ARCHITECTURE.md
//! says why).
//!
//! # Examples
//! ```
//! use npy_core::{NpyReader, WriteOptions};
//! let mut bytes = Vec::new();
//! WriteOptions::new().write_to(&mut bytes, &[1.5f32, -2.25, 100.0], &[3])?;
//! let a = NpyReader::new(&bytes[..])?.read_dyn()?;
//! assert_eq!(npy_print::str(&a).to_string(), "[  1.5   -2.25 100.  ]");
//! assert_eq!(npy_print::repr(&a).to_string(), "array([  1.5 ,  -2.25, 100.  ], dtype=float32)");
//! # Ok::<(), npy_core::Error>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod budget;
mod datetime;
mod fit;
mod float;
mod int;
mod layout;
mod object;
mod record;
mod strings;
mod typed;

use std::ops::Range;

use npy_core::{DynArray, DynValue};

pub use fit::{ElementFormat, FormatBuilder};
pub use layout::{scalar_str, write_str, ArrayDisplay};
pub use strings::printable;

/// numpy's print options that this printer follows (`np.set_printoptions`): built from
/// numpy's defaults with one method per option.
///
/// # Examples
/// ```
/// use npy_print::{Print, PrintOptions};
/// use npy_core::{NpyReader, WriteOptions};
/// let mut bytes = Vec::new();
/// let values: Vec<i64> = (0..10).collect();
/// WriteOptions::new().write_to(&mut bytes, &values, &[10])?;
/// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
/// // np.set_printoptions(threshold=5, edgeitems=2)
/// let options = PrintOptions::new().threshold(5).edgeitems(2);
/// assert_eq!(a.display_with(&options).to_string(), "[0 1 ... 8 9]");
/// assert_eq!(
///     format!("{:#}", a.display_with(&options)),
///     "array([0, 1, ..., 8, 9], shape=(10,))"
/// );
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintOptions {
    threshold: u64,
    edgeitems: u64,
    linewidth: usize,
    precision: usize,
    object_budget: u64,
}

/// Bytes of text one print may make of Python objects (64 MiB): the default of
/// [`PrintOptions::object_budget`].
///
/// A pickle's values are bounded by npy-pickle's budget (`npy_pickle::PICKLE_BUDGET`, 128
/// MiB), but their text is not proportional to it: a string of control characters prints four
/// bytes for each (`'\x07'`), and an object array nested in an object array is printed into
/// each level's item again. So the text is charged to a budget of its own, a constant (like
/// the pickle's, not a multiple of the input): every object's `repr` (`str` in a 0-d array),
/// each copy at each depth again, in one print of an array, of a `PyObject`, or of an
/// object value ([`write_str`], [`ElementFormat::format`]). Past it an object's text ends
/// with `...` and the objects after it print as `...` alone; [`ArrayDisplay::was_cut`] tells.
/// The text the budget counts is at most what the strings being built hold (each reserves
/// no more than the budget left), and a print borrows the values it prints, so printing
/// needs at most this much memory besides the values: with the pickle budget's 128 MiB of
/// values, decoding and printing stay within 192 MiB of allocations (measured: 200 MiB
/// peak RSS for `npy show` of a 126 KiB file whose 70,000 equal ints decode to 126 MiB and
/// print past the budget; `npy-pickle/tests/pickle_peak_memory.rs` checks the allocations).
pub const OBJECT_TEXT_BUDGET: u64 = 64 << 20;

impl Default for PrintOptions {
    fn default() -> PrintOptions {
        PrintOptions::new()
    }
}

impl PrintOptions {
    /// numpy's defaults: `threshold=1000`, `edgeitems=3`, `linewidth=75`, `precision=8`.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// assert_eq!(PrintOptions::new(), PrintOptions::default());
    /// assert!(PrintOptions::new().summarises(1001));
    /// ```
    pub const fn new() -> PrintOptions {
        PrintOptions {
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
            precision: 8,
            object_budget: OBJECT_TEXT_BUDGET,
        }
    }

    /// Bytes of text one print may make of Python objects ([`OBJECT_TEXT_BUDGET`], which
    /// says what is counted); past them objects print cut, with `...`.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{PrintOptions, OBJECT_TEXT_BUDGET};
    /// let small = PrintOptions::new().object_budget(1 << 20);
    /// assert_eq!(small.object_budget_bytes(), 1 << 20);
    /// assert_eq!(PrintOptions::new().object_budget_bytes(), OBJECT_TEXT_BUDGET);
    /// ```
    #[must_use]
    pub const fn object_budget(mut self, bytes: u64) -> PrintOptions {
        self.object_budget = bytes;
        self
    }

    /// The bytes of [`PrintOptions::object_budget`].
    pub const fn object_budget_bytes(&self) -> u64 {
        self.object_budget
    }

    /// numpy's `threshold`: arrays of more elements than this are summarised (subarray fields
    /// too).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// assert!(!PrintOptions::new().threshold(5000).summarises(2000));
    /// ```
    #[must_use]
    pub const fn threshold(mut self, elements: u64) -> PrintOptions {
        self.threshold = elements;
        self
    }

    /// Every element printed, however many (numpy's `threshold=sys.maxsize`; `npy show --full`).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// assert!(!PrintOptions::new().full().summarises(u64::MAX));
    /// ```
    #[must_use]
    pub const fn full(self) -> PrintOptions {
        self.threshold(u64::MAX)
    }

    /// numpy's `edgeitems`: items kept at each edge of each axis of a summarised array (at
    /// least 1).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// let (lead, trail) = PrintOptions::new().edgeitems(2).shown(10, true);
    /// assert_eq!((lead, trail), (0..2, Some(8..10)));
    /// ```
    #[must_use]
    pub const fn edgeitems(mut self, items: u64) -> PrintOptions {
        self.edgeitems = if items == 0 { 1 } else { items };
        self
    }

    /// numpy's `linewidth`: the columns a line may fill before it wraps.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// use npy_core::{NpyReader, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[10i64, 20, 30], &[3])?;
    /// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
    /// let narrow = PrintOptions::new().linewidth(8);
    /// assert_eq!(a.display_with(&narrow).to_string(), "[10 20\n 30]");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    #[must_use]
    pub const fn linewidth(mut self, columns: usize) -> PrintOptions {
        self.linewidth = columns;
        self
    }

    /// numpy's `precision`: the most fractional digits a float in an array shows (floatmode
    /// `'maxprec'`: fewer when the shortest round-trip digits are fewer). A 0-d array's `str`
    /// is its scalar's, which shows every digit.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// use npy_core::{NpyReader, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[1.0f64 / 3.0, 0.5], &[2])?;
    /// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
    /// let short = PrintOptions::new().precision(3);
    /// assert_eq!(a.display_with(&short).to_string(), "[0.333 0.5  ]");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    #[must_use]
    pub const fn precision(mut self, digits: usize) -> PrintOptions {
        self.precision = digits;
        self
    }

    /// Whether an array of `len` elements is summarised (more than `threshold`).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// assert!(!PrintOptions::new().summarises(1000));
    /// ```
    pub const fn summarises(&self, len: u64) -> bool {
        len > self.threshold
    }

    /// The indices along an axis of length `n` that are printed: all of them, or the leading
    /// and trailing `edgeitems` of an axis of a summarised array longer than twice that (the
    /// second range, with `...` between).
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// let options = PrintOptions::new();
    /// assert_eq!(options.shown(5, true), (0..5, None));
    /// assert_eq!(options.shown(2000, true), (0..3, Some(1997..2000)));
    /// assert_eq!(options.shown(2000, false), (0..2000, None));
    /// ```
    pub fn shown(&self, n: u64, summarise: bool) -> (Range<u64>, Option<Range<u64>>) {
        let edge = self.edgeitems;
        if summarise && n > edge.saturating_mul(2) {
            (0..edge, Some(n - edge..n))
        } else {
            (0..n, None)
        }
    }

    /// How many elements of an array of `shape` a print shows: all of them, or the edges of
    /// each axis when `summarise`.
    ///
    /// # Examples
    /// ```
    /// use npy_print::{Print, PrintOptions};
    /// assert_eq!(PrintOptions::new().shown_count(&[2, 1000], true), 12);
    /// ```
    pub fn shown_count(&self, shape: &[u64], summarise: bool) -> u64 {
        shape.iter().fold(1u64, |acc, &n| {
            let (lead, trail) = self.shown(n, summarise);
            let k = (lead.end - lead.start) + trail.map_or(0, |t| t.end - t.start);
            acc.saturating_mul(k)
        })
    }
}

/// A value npy-print can print: `Display` of what [`display_with`](Print::display_with)
/// returns is numpy's `str()`, its alternate form (`{:#}`) numpy's `repr()`.
///
/// Implemented for [`DynArray`] (any dtype, object arrays included), [`NpyArray<T>`](npy_core::NpyArray) (the
/// elements print as the array's dtype holds them; as the type's own dtype when they were
/// widened on reading: an `f4` file read as `f64` prints as float64), [`DynValue`] (the `str()`
/// of a 0-d array holding it: a value does not know its dtype's width, so floats show
/// float64's digits; its `repr` is its `str`) and an object array's element, `dyn ObjectValue`
/// (npy-pickle's `PyObject` implements `Print` too: `str` is Python's `str()`, `repr`
/// Python's `repr()`). [`str`](str()) and [`repr`] print with numpy's
/// default options.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// use npy_print::{Print, PrintOptions};
/// let mut bytes = Vec::new();
/// let values: Vec<u16> = (0..2000).collect();
/// WriteOptions::new().write_to(&mut bytes, &values, &[2, 1000])?;
/// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
/// assert_eq!(
///     npy_print::str(&a).to_string(),
///     "[[   0    1    2 ...  997  998  999]\n [1000 1001 1002 ... 1997 1998 1999]]"
/// );
/// assert_eq!(
///     npy_print::repr(&a).to_string(),
///     "array([[   0,    1,    2, ...,  997,  998,  999],\n       \
///      [1000, 1001, 1002, ..., 1997, 1998, 1999]],\n      shape=(2, 1000), dtype=uint16)"
/// );
/// let all = a.display_with(&PrintOptions::new().full()).to_string();
/// assert_eq!(all.lines().count(), 144);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub trait Print {
    /// `self` printed with `options`: `Display` is numpy's `str()`, `{:#}` (or
    /// [`ArrayDisplay::repr`]) numpy's `repr()`.
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_>;
}

/// numpy's `str()` of `value` with numpy's default print options, as a value that implements
/// `Display` (`{:#}` of it is numpy's `repr()`); [`Print::display_with`] takes other options.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[true, false], &[2])?;
/// let a = NpyReader::new(&bytes[..])?.read_dyn()?;
/// assert_eq!(npy_print::str(&a).to_string(), "[ True False]");
/// println!("{}", npy_print::str(&a));
///
/// let t = npy_core::NpyArray::from_parts(vec![3], npy_core::MemoryOrder::C, vec![1i32, -20, 300])?;
/// assert_eq!(npy_print::str(&t).to_string(), "[  1 -20 300]");
/// let words = npy_core::NpyArray::from_parts(vec![2], npy_core::MemoryOrder::C, vec!["ab".to_string(), "c".into()])?;
/// assert_eq!(npy_print::str(&words).to_string(), "['ab' 'c']");
///
/// use npy_core::DynValue;
/// assert_eq!(npy_print::str(&DynValue::Float(0.5)).to_string(), "0.5");
/// assert_eq!(npy_print::str(&DynValue::Complex(1.0, -2.0)).to_string(), "(1-2j)");
/// assert_eq!(npy_print::str(&DynValue::Bool(true)).to_string(), "True");
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn str<P: Print + ?Sized>(value: &P) -> ArrayDisplay<'_> {
    value.display_with(&PrintOptions::new())
}

/// numpy's `repr()` of `value` with numpy's default print options, as a value that
/// implements `Display`; `display_with(&options).repr()` ([`Print::display_with`],
/// [`ArrayDisplay::repr`]) takes other options.
///
/// # Examples
/// ```
/// use npy_core::{NpyArray, MemoryOrder};
/// let a = NpyArray::from_parts(vec![3], MemoryOrder::C, vec![1i32, -20, 300])?;
/// assert_eq!(npy_print::repr(&a).to_string(), "array([  1, -20, 300], dtype=int32)");
/// let b = NpyArray::from_parts(vec![2, 2], MemoryOrder::C, vec![0.5f32, 1.0, 1.5, 2e6])?;
/// assert_eq!(npy_print::str(&b).to_string(), "[[5.0e-01 1.0e+00]\n [1.5e+00 2.0e+06]]");
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn repr<P: Print + ?Sized>(value: &P) -> ArrayDisplay<'_> {
    value.display_with(&PrintOptions::new()).repr()
}

impl Print for DynArray {
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        ArrayDisplay::new(self, *options)
    }
}

impl<T: npy_core::NpyElement> Print for npy_core::NpyArray<T> {
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        typed::display(self, *options)
    }
}

impl Print for DynValue {
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        ArrayDisplay::value(self, *options)
    }
}

/// The text of an element of an object array, whatever its codec: `str` is what
/// [`ObjectValue::write_text`](npy_core::dynamic::ObjectValue::write_text) writes as
/// [`ObjectText::Str`](npy_core::dynamic::ObjectText::Str), `repr` as `Repr` (npy-pickle's
/// `PyObject`: Python's `str()` and `repr()`; it implements `Print` through this).
impl Print for dyn npy_core::dynamic::ObjectValue {
    fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        ArrayDisplay::object(self, *options)
    }
}

/// Not public API: what npy-pickle's `repr` of Python values writes with (the float digits
/// of scalars and Python's `float`, the budget of a print under way, an object's text charged
/// to it). Anything here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::budget::spend;
    pub use crate::float::{complex_body, complex_scalar_str, float_repr, kind_of};
    pub use crate::object::object_text;
}
