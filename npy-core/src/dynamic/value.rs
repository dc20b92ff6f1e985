//! The value model of dynamic reads: [`DynValue`] and [`UcsString`].

use std::fmt;

use crate::dtype::TimeType;
use crate::error::{Error, ErrorKind};

/// One element of an array of any dtype, as [`read_dyn`](crate::read_dyn) decodes it.
///
/// The variants follow numpy's `ndarray.item()`: numbers widen to 64 bits (exactly, except
/// `longdouble`), `S` and `U` lose their trailing NULs, records are their fields in dtype order
/// (padding skipped) and subarray fields are their elements in C order.
#[derive(Debug, Clone, PartialEq)]
pub enum DynValue {
    /// `b1`.
    Bool(bool),
    /// `i1`, `i2`, `i4`, `i8`.
    Int(i64),
    /// `u1`, `u2`, `u4`, `u8`.
    UInt(u64),
    /// `f2`, `f4`, `f8`, widened exactly to `f64`.
    Float(f64),
    /// `longdouble` (`f16`, `f12`): the element's bytes as stored (byte order and padding
    /// included) and the nearest `f64`.
    ///
    /// The bytes are decoded as the x86 80-bit extended format (the longdouble numpy writes on
    /// x86 and x86-64, in the low 10 bytes of the 12- or 16-byte slot), rounding to nearest with
    /// ties to even; subnormals, infinities and NaN map to their `f64` counterparts, values
    /// beyond the `f64` range to ±infinity or ±0, and the patterns the x87 FPU does not take
    /// as numbers (pseudo-infinities, pseudo-NaNs, unnormals) to NaN, as numpy reads them. A
    /// file written where longdouble is IEEE binary128 (aarch64, ppc64le) gives meaningless
    /// approximations; its bytes are still exact.
    LongDouble {
        /// The element's bytes, in file order.
        bytes: Vec<u8>,
        /// The value rounded to the nearest `f64`.
        approx: f64,
    },
    /// `c8`, `c16`: real and imaginary parts, widened exactly.
    Complex(f64, f64),
    /// `clongdouble` (`c32`, `c24`): the raw bytes (real part then imaginary part) and the parts
    /// rounded to `f64` as for [`DynValue::LongDouble`].
    CLongDouble {
        /// The element's bytes, in file order.
        bytes: Vec<u8>,
        /// The real part rounded to the nearest `f64`.
        re: f64,
        /// The imaginary part rounded to the nearest `f64`.
        im: f64,
    },
    /// `M8[unit]`: ticks since 1970-01-01T00:00 in `unit`.
    Datetime {
        /// Ticks, `None` for NaT.
        ticks: Option<i64>,
        /// The dtype's unit and multiplier.
        unit: TimeType,
    },
    /// `m8[unit]`: a duration in ticks of `unit`.
    Timedelta {
        /// Ticks, `None` for NaT.
        ticks: Option<i64>,
        /// The dtype's unit and multiplier.
        unit: TimeType,
    },
    /// `S`: the bytes with trailing NULs removed (inner NULs kept), as numpy's `item()`.
    Bytes(Vec<u8>),
    /// `U`: the code points with trailing NULs removed.
    Str(UcsString),
    /// `V`: all the bytes.
    Void(Vec<u8>),
    /// A record: `(name, value)` per field, in dtype order.
    Record(Vec<(String, DynValue)>),
    /// A subarray field: its full shape (nested subarrays flattened into one shape, as numpy
    /// does) and its elements in C order.
    SubArray {
        /// The subarray's shape, outermost first.
        shape: Vec<u64>,
        /// `shape.iter().product()` elements, in C order.
        values: Vec<DynValue>,
    },
    /// `O`: an element of an object array, the value its codec decoded from the array's
    /// pickle, opaque to npy-core ([`ObjectValue`](super::ObjectValue) says how to get it back).
    Object(Box<dyn super::ObjectValue>),
}

impl DynValue {
    /// The value as an `f64` when it is a real number (bool as 0/1, integers rounded to the
    /// nearest `f64`, longdouble's approximation); `None` for the other variants.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            DynValue::Bool(b) => Some(f64::from(u8::from(b))),
            DynValue::Int(i) => Some(i as f64),
            DynValue::UInt(u) => Some(u as f64),
            DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => Some(x),
            _ => None,
        }
    }

    /// The field named `name` of a record value.
    pub fn field(&self, name: &str) -> Option<&DynValue> {
        match self {
            DynValue::Record(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// A `U` string as stored: UCS-4 code points, which need not all be Unicode scalar values
/// (numpy stores lone surrogates such as `'\ud805'` as they are).
///
/// # Examples
/// ```
/// use npy_core::dynamic::UcsString;
/// let s = UcsString::new(vec![0x61, 0xD805, 0x62]);
/// assert_eq!(s.to_string_lossy(), "a\u{FFFD}b");
/// assert!(s.to_string_strict().is_err());
/// assert_eq!(UcsString::from("héllo").to_string_strict()?, "héllo");
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct UcsString(Vec<u32>);

impl UcsString {
    /// A string from raw code points.
    pub fn new(code_points: Vec<u32>) -> UcsString {
        UcsString(code_points)
    }

    /// The code points.
    pub fn code_points(&self) -> &[u32] {
        &self.0
    }

    /// The code points, giving up the wrapper.
    pub fn into_code_points(self) -> Vec<u32> {
        self.0
    }

    /// Number of code points.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string has no code points.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The chars, with U+FFFD for each code point that is not a Unicode scalar value (a
    /// surrogate, or past U+10FFFF). Surrogate pairs are not combined: UCS-4 stores code
    /// points, and numpy too keeps `'\ud834\udd1e'` as two.
    pub fn chars_lossy(&self) -> impl Iterator<Item = char> + '_ {
        let lossy = |&cp: &u32| char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
        self.0.iter().map(lossy)
    }

    /// The text, with U+FFFD for each code point that is not a Unicode scalar value.
    pub fn to_string_lossy(&self) -> String {
        self.chars_lossy().collect()
    }

    /// The text, if every code point is a Unicode scalar value.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidUnicode`] naming the first code point that is not.
    pub fn to_string_strict(&self) -> Result<String, Error> {
        let bad = |code_point| Error::new(ErrorKind::InvalidUnicode { code_point });
        let strict = |&cp: &u32| char::from_u32(cp).ok_or_else(|| bad(cp));
        self.0.iter().map(strict).collect()
    }
}

impl From<&str> for UcsString {
    fn from(s: &str) -> UcsString {
        UcsString(s.chars().map(u32::from).collect())
    }
}

impl fmt::Display for UcsString {
    /// The text as [`UcsString::to_string_lossy`] gives it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write;
        self.chars_lossy().try_for_each(|c| f.write_char(c))
    }
}
