//! Dynamic reading: any dtype, records included, into a tree of [`DynValue`]s.
//!
//! The typed readers ([`read`](crate::read), [`NpyReader::read_vec`]) need the element type at
//! compile time. [`read_dyn`] reads whatever the file holds, the way `np.load(...).tolist()`
//! does, with two differences that keep information numpy's Python objects would lose or
//! refuse: `longdouble` values keep their raw bytes next to an `f64` approximation, and `U`
//! strings keep their raw UCS-4 code points (a lone surrogate, which numpy allows, survives).
//!
//! # Examples
//! ```
//! use npy_core::{DynValue, WriteOptions};
//! let mut bytes = Vec::new();
//! WriteOptions::new().write_to(&mut bytes, &[1.5f32, -2.0, 0.25, 8.0], &[2, 2])?;
//! let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
//! assert_eq!(a.shape, [2, 2]);
//! assert_eq!(a.get(&[1, 0]), Some(&DynValue::Float(0.25)));
//! # Ok::<(), npy_core::Error>(())
//! ```

use std::fmt;
use std::io::Read;
use std::path::Path;

use crate::dtype::{ByteOrder, DType, Primitive, TimeKind, TimeType};
use crate::element::{describe, NpyElement};
use crate::error::Error;
use crate::info::Order;
use crate::read::{flat_index, NpyReader, MAX_ZERO_SIZE_ELEMENTS};

/// Largest element (in bytes) [`NpyReader::read_dyn`] decodes: one element is read into a
/// buffer whole, and a stream of unknown length cannot show that the bytes exist first.
pub const MAX_DYN_ITEMSIZE: u64 = 1 << 30;

/// Most bytes of [`DynValue`]s [`NpyReader::read_dyn`] builds per byte of array data, beyond
/// a fixed [`DYN_ALLOWANCE`].
///
/// A decoded tree is larger than the bytes it decodes: a `DynValue` is 48 bytes, one per byte
/// of a `|u1` array; a record field adds its name and a `(String, DynValue)` entry per
/// element. Real dtypes stay well under this (`|u1`: 48, a record of one `|b1` field with a
/// 100-character name: about 220); a header whose names, subarray shapes or zero-size parts
/// would multiply the file's bytes further is refused with [`Error::AllocationLimit`] before
/// anything is decoded. Read such files with typed reads or views.
pub const MAX_DYN_EXPANSION: u64 = 256;

/// Bytes of decoded values [`NpyReader::read_dyn`] allows whatever the data: what zero-size
/// parts (`S0`, empty records, zero-size subarrays), which no byte backs, may take.
pub const DYN_ALLOWANCE: u64 = 1 << 20;

/// One element of an array of any dtype, as [`read_dyn`] decodes it.
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
    /// beyond the `f64` range to ±infinity or ±0. A file written where longdouble is IEEE
    /// binary128 (aarch64, ppc64le) gives meaningless approximations; its bytes are still exact.
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
    // pickle integration point.
    /// `O`: a Python object decoded from the array's pickle (feature `pickle`; see
    /// [`crate::pickle`]).
    #[cfg(feature = "pickle")]
    Object(crate::pickle::PyObject),
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
/// use npy_core::UcsString;
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
        self.0
            .iter()
            .map(|&cp| char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// The text, with U+FFFD for each code point that is not a Unicode scalar value.
    pub fn to_string_lossy(&self) -> String {
        self.chars_lossy().collect()
    }

    /// The text, if every code point is a Unicode scalar value.
    ///
    /// # Errors
    /// [`Error::InvalidUnicode`] naming the first code point that is not.
    pub fn to_string_strict(&self) -> Result<String, Error> {
        self.0
            .iter()
            .map(|&cp| char::from_u32(cp).ok_or(Error::InvalidUnicode { code_point: cp }))
            .collect()
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

/// An array of any dtype, read by [`read_dyn`]: the header's facts and the elements.
///
/// # Examples
/// ```
/// use npy_core::{DynValue, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
/// assert_eq!(a.dtype.to_string(), "<i4");
/// let row: Vec<_> = a.iter_c_order().skip(3).cloned().collect();
/// assert_eq!(row, [DynValue::Int(4), DynValue::Int(5), DynValue::Int(6)]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DynArray {
    /// The file's dtype.
    pub dtype: DType,
    /// The logical shape, outermost first (empty for a 0-d array).
    pub shape: Vec<u64>,
    /// Whether [`DynArray::values`] is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The elements in the file's memory order (see [`DynArray::iter_c_order`] for logical
    /// order).
    pub values: Vec<DynValue>,
}

impl DynArray {
    /// C or Fortran order of [`DynArray::values`].
    pub fn order(&self) -> Order {
        if self.fortran_order {
            Order::Fortran
        } else {
            Order::C
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The element at a logical index (one entry per dimension; `&[]` for a 0-d array),
    /// whatever the memory order; `None` out of range.
    pub fn get(&self, index: &[u64]) -> Option<&DynValue> {
        flat_index(&self.shape, self.order(), index).and_then(|i| self.values.get(i))
    }

    /// The elements in logical C order (last index fastest), whatever the memory order: what
    /// `arr.flat` iterates in numpy.
    pub fn iter_c_order(&self) -> COrderIter<'_> {
        let empty = self.shape.contains(&0);
        COrderIter {
            array: self,
            index: vec![0; self.shape.len()],
            done: empty || self.values.is_empty(),
        }
    }

    /// The elements in logical C order, giving up the array (no copy when it is in C order).
    pub fn into_c_order(self) -> Vec<DynValue> {
        if !self.fortran_order || self.shape.len() < 2 {
            return self.values;
        }
        let order: Vec<usize> = CIndices::new(&self.shape)
            .filter_map(|ix| flat_index(&self.shape, Order::Fortran, &ix))
            .collect();
        let mut slots: Vec<Option<DynValue>> = self.values.into_iter().map(Some).collect();
        order
            .into_iter()
            .filter_map(|i| slots.get_mut(i).and_then(Option::take))
            .collect()
    }
}

/// Multi-indices of a shape in C order.
struct CIndices {
    shape: Vec<u64>,
    next: Option<Vec<u64>>,
}

impl CIndices {
    fn new(shape: &[u64]) -> CIndices {
        let next = (!shape.contains(&0)).then(|| vec![0; shape.len()]);
        CIndices {
            shape: shape.to_vec(),
            next,
        }
    }
}

impl Iterator for CIndices {
    type Item = Vec<u64>;

    fn next(&mut self) -> Option<Vec<u64>> {
        let cur = self.next.take()?;
        let mut ix = cur.clone();
        let mut axis = ix.len();
        loop {
            if axis == 0 {
                break; // wrapped around: done
            }
            axis -= 1;
            ix[axis] += 1;
            if ix[axis] < self.shape[axis] {
                self.next = Some(ix);
                break;
            }
            ix[axis] = 0;
        }
        Some(cur)
    }
}

/// Iterator over a [`DynArray`]'s elements in logical C order; see [`DynArray::iter_c_order`].
#[derive(Debug, Clone)]
pub struct COrderIter<'a> {
    array: &'a DynArray,
    index: Vec<u64>,
    done: bool,
}

impl<'a> Iterator for COrderIter<'a> {
    type Item = &'a DynValue;

    fn next(&mut self) -> Option<&'a DynValue> {
        if self.done {
            return None;
        }
        let item = self.array.get(&self.index);
        // Advance the multi-index, last axis fastest.
        let mut axis = self.index.len();
        loop {
            if axis == 0 {
                self.done = true;
                break;
            }
            axis -= 1;
            self.index[axis] += 1;
            if self.index[axis] < self.array.shape[axis] {
                break;
            }
            self.index[axis] = 0;
        }
        if item.is_none() {
            self.done = true;
        }
        item
    }
}

/// Reads the `.npy` file at `path`, whatever its dtype, into a [`DynArray`].
///
/// Allocation is bounded as for [`read`](crate::read()): a header claiming more data than the
/// file holds is [`Error::Truncated`] before the values are allocated, and zero-size elements
/// (`S0`, empty records, zero-size subarrays) beyond [`MAX_ZERO_SIZE_ELEMENTS`] values are
/// [`Error::AllocationLimit`]. Object arrays (`O`, anywhere in the dtype) are refused with
/// [`Error::ObjectArray`] before any data byte is read. Trailing bytes after the data are
/// ignored, as numpy ignores them.
///
/// # Errors
/// I/O and header errors, [`Error::ObjectArray`], [`Error::Truncated`],
/// [`Error::AllocationLimit`], [`Error::InvalidBool`] (a `b1` byte other than 0 and 1, which
/// numpy would read as `True`).
///
/// # Examples
/// ```
/// use npy_core::{DynValue, Header};
/// # let dir = std::env::temp_dir().join(format!("npy-core-dyn-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("points.npy");
/// let dtype = "[('x', '<f4'), ('id', '<u2')]".parse()?;
/// let mut bytes = Header::new(dtype, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(&1.5f32.to_le_bytes());
/// bytes.extend_from_slice(&7u16.to_le_bytes());
/// std::fs::write(&path, bytes)?;
///
/// let a = npy_core::read_dyn(&path)?;
/// let point = a.get(&[0]).unwrap();
/// assert_eq!(point.field("x"), Some(&DynValue::Float(1.5)));
/// assert_eq!(point.field("id"), Some(&DynValue::UInt(7)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_dyn(path: impl AsRef<Path>) -> Result<DynArray, Error> {
    NpyReader::open(path)?.read_dyn()
}

impl<R: Read> NpyReader<R> {
    /// Reads the whole array, whatever its dtype, into a [`DynArray`] (see [`read_dyn`]).
    ///
    /// On a reader from [`NpyReader::open`] (or given
    /// [`with_available_bytes`](NpyReader::with_available_bytes)) a short file is found before
    /// allocating; on a stream of unknown length the values grow as data arrives. Elements
    /// larger than [`MAX_DYN_ITEMSIZE`] bytes are refused.
    ///
    /// # Errors
    /// As [`read_dyn`]; also [`Error::Layout`] when elements were already read from this reader.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DynValue, UcsString, WriteOptions};
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &["hi".to_string(), "numpy".to_string()], &[2])?;
    /// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
    /// assert_eq!(a.dtype.to_string(), "<U5");
    /// assert_eq!(a.values[0], DynValue::Str(UcsString::from("hi")));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn read_dyn(&mut self) -> Result<DynArray, Error> {
        if self.dtype().has_object() {
            // pickle integration point: object arrays are decoded, never executed.
            #[cfg(feature = "pickle")]
            if self.decodes_pickles() {
                if self.remaining() != self.len() {
                    return Err(Error::Layout(
                        "read_dyn reads a whole object array, and part of it was read".into(),
                    ));
                }
                return crate::pickle::read_dyn_objects(self);
            }
            return Err(Error::ObjectArray {
                dtype: describe(self.dtype()),
            });
        }
        if self.remaining() != self.len() {
            return Err(Error::Layout(format!(
                "read_dyn reads a whole array, and {} of its {} elements were already read",
                self.len() - self.remaining(),
                self.len()
            )));
        }
        let itemsize = self.dtype().itemsize();
        if itemsize > MAX_DYN_ITEMSIZE {
            return Err(Error::AllocationLimit {
                what: "one element of a dynamic read",
                elements: 1,
                bytes_each: itemsize,
            });
        }
        // Values that no data byte backs (zero-size parts) are bounded like zero-size elements.
        let unbacked = self.len().saturating_mul(unbacked_values(self.dtype()));
        if unbacked > MAX_ZERO_SIZE_ELEMENTS {
            return Err(Error::AllocationLimit {
                what: "zero-size values",
                elements: unbacked,
                bytes_each: std::mem::size_of::<DynValue>() as u64,
            });
        }
        // The tree as a whole: names, shapes and values cloned per element must stay in
        // proportion to the data bytes that back them.
        let per_element = dyn_cost(self.dtype());
        let budget = (self.len() * itemsize) // <= nbytes, checked at construction
            .saturating_mul(MAX_DYN_EXPANSION)
            .saturating_add(DYN_ALLOWANCE);
        if self.len().saturating_mul(per_element) > budget {
            return Err(Error::AllocationLimit {
                what: "decoded values of a dynamic read",
                elements: self.len(),
                bytes_each: per_element,
            });
        }
        let values: Vec<Dyn> = self.read_vec()?;
        Ok(DynArray {
            dtype: self.dtype().clone(),
            shape: self.shape().to_vec(),
            fortran_order: self.order() == Order::Fortran,
            values: values.into_iter().map(|d| d.0).collect(),
        })
    }
}

/// How many values of one element of `dtype` take no bytes (so the file length cannot bound
/// them): zero-size leaves, and records or subarrays of zero size.
fn unbacked_values(dtype: &DType) -> u64 {
    let own = u64::from(dtype.itemsize() == 0);
    match dtype {
        DType::Record(r) => r
            .fields()
            .iter()
            .fold(own, |acc, f| acc.saturating_add(unbacked_values(&f.dtype))),
        DType::SubArray(s) => {
            let count = s.shape().iter().fold(1u64, |a, &d| a.saturating_mul(d));
            own.saturating_add(count.saturating_mul(unbacked_values(s.base())))
        }
        _ => own,
    }
}

/// Bytes one decoded element of `dtype` takes: its `DynValue` and everything that value owns
/// (saturating: a result of `u64::MAX` is refused whatever the data).
fn dyn_cost(dtype: &DType) -> u64 {
    let value = std::mem::size_of::<DynValue>() as u64;
    value.saturating_add(dyn_heap(dtype))
}

/// The heap bytes a decoded element of `dtype` owns (see [`Decoder::decode`]).
fn dyn_heap(dtype: &DType) -> u64 {
    match dtype {
        DType::Number(Primitive::LongDouble { .. } | Primitive::CLongDouble { .. }, _)
        | DType::Bytes(_)
        | DType::Unicode(..)
        | DType::Void(_) => dtype.itemsize(),
        DType::Record(r) => {
            let entry = std::mem::size_of::<(String, DynValue)>() as u64;
            r.fields().iter().fold(0u64, |acc, f| {
                acc.saturating_add(entry)
                    .saturating_add(f.name.len() as u64)
                    .saturating_add(dyn_heap(&f.dtype))
            })
        }
        DType::SubArray(s) => {
            let mut dims = s.shape().len() as u64;
            let mut count = s.shape().iter().fold(1u64, |a, &d| a.saturating_mul(d));
            let mut base = s.base();
            while let DType::SubArray(inner) = base {
                dims += inner.shape().len() as u64;
                count = inner
                    .shape()
                    .iter()
                    .fold(count, |a, &d| a.saturating_mul(d));
                base = inner.base();
            }
            dims.saturating_mul(8)
                .saturating_add(count.saturating_mul(dyn_cost(base)))
        }
        _ => 0,
    }
}

/// pickle integration point: `n` elements of `dtype` (no objects) from `bytes` (exactly
/// `n × itemsize` of them), as [`NpyReader::read_dyn`] decodes them.
#[cfg(feature = "pickle")]
pub(crate) fn decode_all(dtype: &DType, bytes: &[u8], n: u64) -> Result<Vec<DynValue>, Error> {
    let decoder = Decoder::new(dtype)?;
    let size = size_usize(dtype.itemsize())?;
    if size == 0 {
        return (0..n).map(|_| decoder.decode(&[])).collect();
    }
    if bytes.len() as u64 != n.saturating_mul(size as u64) {
        return Err(short());
    }
    bytes
        .chunks_exact(size)
        .map(|c| decoder.decode(c))
        .collect()
}

/// The element type `read_vec` decodes for [`NpyReader::read_dyn`].
#[derive(Debug)]
struct Dyn(DynValue);

/// How to decode one element of a dtype.
#[derive(Debug, Clone)]
enum Decoder {
    Bool,
    Int {
        size: usize,
        big: bool,
    },
    UInt {
        size: usize,
        big: bool,
    },
    F16 {
        big: bool,
    },
    F32 {
        big: bool,
    },
    F64 {
        big: bool,
    },
    LongDouble {
        big: bool,
    },
    Complex {
        part: usize,
        big: bool,
    },
    CLongDouble {
        big: bool,
    },
    Time {
        ty: TimeType,
        big: bool,
    },
    Bytes,
    Unicode {
        big: bool,
    },
    Void,
    Record(Vec<FieldDecoder>),
    SubArray {
        shape: Vec<u64>,
        count: u64,
        base_size: usize,
        base: Box<Decoder>,
    },
}

#[derive(Debug, Clone)]
struct FieldDecoder {
    name: String,
    offset: usize,
    size: usize,
    decoder: Decoder,
}

fn size_usize(n: u64) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| Error::AllocationLimit {
        what: "one element of a dynamic read",
        elements: 1,
        bytes_each: n,
    })
}

impl Decoder {
    fn new(dtype: &DType) -> Result<Decoder, Error> {
        Ok(match dtype {
            DType::Number(p, o) => {
                let big = *o == ByteOrder::Big;
                let size = p.itemsize() as usize;
                match p {
                    Primitive::Bool => Decoder::Bool,
                    Primitive::I8 | Primitive::I16 | Primitive::I32 | Primitive::I64 => {
                        Decoder::Int { size, big }
                    }
                    Primitive::U8 | Primitive::U16 | Primitive::U32 | Primitive::U64 => {
                        Decoder::UInt { size, big }
                    }
                    Primitive::F16 => Decoder::F16 { big },
                    Primitive::F32 => Decoder::F32 { big },
                    Primitive::F64 => Decoder::F64 { big },
                    Primitive::LongDouble { .. } => Decoder::LongDouble { big },
                    Primitive::C64 => Decoder::Complex { part: 4, big },
                    Primitive::C128 => Decoder::Complex { part: 8, big },
                    Primitive::CLongDouble { .. } => Decoder::CLongDouble { big },
                }
            }
            DType::Time(ty, o) => Decoder::Time {
                ty: *ty,
                big: *o == ByteOrder::Big,
            },
            DType::Bytes(_) => Decoder::Bytes,
            DType::Unicode(_, o) => Decoder::Unicode {
                big: *o == ByteOrder::Big,
            },
            DType::Void(_) => Decoder::Void,
            DType::Object => {
                return Err(Error::ObjectArray {
                    dtype: describe(dtype),
                })
            }
            DType::Record(r) => Decoder::Record(
                r.fields()
                    .iter()
                    .map(|f| {
                        Ok(FieldDecoder {
                            name: f.name.clone(),
                            offset: size_usize(f.offset)?,
                            size: size_usize(f.dtype.itemsize())?,
                            decoder: Decoder::new(&f.dtype)?,
                        })
                    })
                    .collect::<Result<_, Error>>()?,
            ),
            DType::SubArray(s) => {
                // numpy flattens a subarray of subarrays into one shape.
                let mut shape = s.shape().to_vec();
                let mut base = s.base();
                while let DType::SubArray(inner) = base {
                    shape.extend_from_slice(inner.shape());
                    base = inner.base();
                }
                let count = shape.iter().fold(1u64, |a, &d| a.saturating_mul(d));
                Decoder::SubArray {
                    shape,
                    count,
                    base_size: size_usize(base.itemsize())?,
                    base: Box::new(Decoder::new(base)?),
                }
            }
        })
    }

    fn decode(&self, src: &[u8]) -> Result<DynValue, Error> {
        Ok(match self {
            Decoder::Bool => match src.first() {
                Some(0) => DynValue::Bool(false),
                Some(1) => DynValue::Bool(true),
                Some(&byte) => return Err(Error::InvalidBool { byte }),
                None => return Err(short()),
            },
            Decoder::Int { size, big } => {
                let b = word::<8>(src, *size, *big)?;
                let u = u64::from_le_bytes(b);
                // Sign-extend from `size` bytes.
                let shift = 64 - 8 * (*size as u32);
                DynValue::Int(((u << shift) as i64) >> shift)
            }
            Decoder::UInt { size, big } => {
                DynValue::UInt(u64::from_le_bytes(word::<8>(src, *size, *big)?))
            }
            Decoder::F16 { big } => {
                let b = word::<2>(src, 2, *big)?;
                DynValue::Float(half::f16::from_le_bytes(b).to_f64())
            }
            Decoder::F32 { big } => {
                DynValue::Float(f64::from(f32::from_le_bytes(word::<4>(src, 4, *big)?)))
            }
            Decoder::F64 { big } => DynValue::Float(f64::from_le_bytes(word::<8>(src, 8, *big)?)),
            Decoder::LongDouble { big } => DynValue::LongDouble {
                bytes: src.to_vec(),
                approx: longdouble_to_f64(src, *big)?,
            },
            Decoder::Complex { part, big } => {
                let (re, im) = halves(src, *part)?;
                let f = |h: &[u8]| -> Result<f64, Error> {
                    Ok(if *part == 4 {
                        f64::from(f32::from_le_bytes(word::<4>(h, 4, *big)?))
                    } else {
                        f64::from_le_bytes(word::<8>(h, 8, *big)?)
                    })
                };
                DynValue::Complex(f(re)?, f(im)?)
            }
            Decoder::CLongDouble { big } => {
                let (re, im) = halves(src, src.len() / 2)?;
                DynValue::CLongDouble {
                    bytes: src.to_vec(),
                    re: longdouble_to_f64(re, *big)?,
                    im: longdouble_to_f64(im, *big)?,
                }
            }
            Decoder::Time { ty, big } => {
                let t = i64::from_le_bytes(word::<8>(src, 8, *big)?);
                let ticks = (t != i64::MIN).then_some(t);
                match ty.kind {
                    TimeKind::Datetime => DynValue::Datetime { ticks, unit: *ty },
                    TimeKind::Timedelta => DynValue::Timedelta { ticks, unit: *ty },
                }
            }
            Decoder::Bytes => {
                let end = src.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                DynValue::Bytes(src[..end].to_vec())
            }
            Decoder::Unicode { big } => {
                let mut cps: Vec<u32> = src
                    .chunks_exact(4)
                    .map(|c| {
                        let b = [c[0], c[1], c[2], c[3]];
                        if *big {
                            u32::from_be_bytes(b)
                        } else {
                            u32::from_le_bytes(b)
                        }
                    })
                    .collect();
                while cps.last() == Some(&0) {
                    cps.pop();
                }
                DynValue::Str(UcsString(cps))
            }
            Decoder::Void => DynValue::Void(src.to_vec()),
            Decoder::Record(fields) => {
                // Exact capacities (not `collect` through `Result`, which grows by doubling):
                // `dyn_cost` counts what these hold.
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    let part = f
                        .offset
                        .checked_add(f.size)
                        .and_then(|end| src.get(f.offset..end))
                        .ok_or_else(short)?;
                    out.push((f.name.clone(), f.decoder.decode(part)?));
                }
                DynValue::Record(out)
            }
            Decoder::SubArray {
                shape,
                count,
                base_size,
                base,
            } => {
                // Bounded by `unbacked_values` and `dyn_cost` before reading.
                let mut values = Vec::with_capacity(usize::try_from(*count).unwrap_or(0));
                if *base_size == 0 {
                    for _ in 0..*count {
                        values.push(base.decode(&[])?);
                    }
                } else {
                    for c in src.chunks_exact(*base_size) {
                        values.push(base.decode(c)?);
                    }
                }
                DynValue::SubArray {
                    shape: shape.clone(),
                    values,
                }
            }
        })
    }
}

#[cold]
fn short() -> Error {
    Error::Layout("element bytes shorter than the dtype's itemsize".to_owned())
}

/// `src` split into two halves of `part` bytes.
fn halves(src: &[u8], part: usize) -> Result<(&[u8], &[u8]), Error> {
    if src.len() != 2 * part {
        return Err(short());
    }
    Ok(src.split_at(part))
}

/// The first `size` bytes of `src` as a little-endian `N`-byte word (zero-extended; `size <= N`).
fn word<const N: usize>(src: &[u8], size: usize, big: bool) -> Result<[u8; N], Error> {
    let bytes = src.get(..size).filter(|_| size <= N).ok_or_else(short)?;
    let mut out = [0u8; N];
    out[..size].copy_from_slice(bytes);
    if big {
        out[..size].reverse();
    }
    Ok(out)
}

/// A longdouble element (12 or 16 bytes) decoded as x86 80-bit extended, rounded to `f64`.
fn longdouble_to_f64(src: &[u8], big: bool) -> Result<f64, Error> {
    if src.len() < 10 {
        return Err(short());
    }
    let mut le = src.to_vec();
    if big {
        le.reverse();
    }
    let mut ext = [0u8; 10];
    ext.copy_from_slice(&le[..10]);
    Ok(x87_to_f64(ext))
}

/// x86 80-bit extended precision (little-endian bytes) to the nearest `f64`, ties to even.
///
/// Layout: 64-bit significand with an explicit integer bit, then 15-bit biased exponent and the
/// sign. Exponent 0x7FFF is infinity when the significand is exactly the integer bit, NaN
/// otherwise (pseudo-infinities and pseudo-NaNs included, as the FPU treats them as invalid).
/// Other encodings, denormals and unnormals included, are taken at their face value
/// `significand × 2^(max(exponent, 1) − 16383 − 63)`.
pub(crate) fn x87_to_f64(b: [u8; 10]) -> f64 {
    let mant = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let se = u16::from_le_bytes([b[8], b[9]]);
    let sign = u64::from(se >> 15) << 63;
    let exp = i32::from(se & 0x7fff);
    let with_sign = |bits: u64| f64::from_bits(bits | sign);
    if exp == 0x7fff {
        return if mant == 1 << 63 {
            with_sign(f64::INFINITY.to_bits())
        } else {
            f64::NAN
        };
    }
    if mant == 0 {
        return with_sign(0);
    }
    let lz = mant.leading_zeros();
    // m is in [2^63, 2^64); value = m × 2^k = 1.f × 2^e with e = k + 63.
    let m = mant << lz;
    let k = exp.max(1) - 16383 - 63 - lz as i32;
    let e = k + 63;
    if e > 1023 {
        return with_sign(f64::INFINITY.to_bits());
    }
    if e >= -1022 {
        let mut r = round_shift(m, 11); // in [2^52, 2^53]
        let mut e = e;
        if r == 1 << 53 {
            r >>= 1;
            e += 1;
            if e > 1023 {
                return with_sign(f64::INFINITY.to_bits());
            }
        }
        let biased = (e + 1023) as u64;
        with_sign((biased << 52) | (r & ((1 << 52) - 1)))
    } else {
        // Subnormal: value = r × 2^-1074. A carry into 2^52 is the smallest normal, which the
        // same bits encode.
        let shift = (-1011 - e) as u32;
        with_sign(round_shift(m, shift))
    }
}

/// `m / 2^shift` rounded to nearest, ties to even.
fn round_shift(m: u64, shift: u32) -> u64 {
    match shift {
        0 => m,
        1..=63 => {
            let q = m >> shift;
            let rem = m & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rem > half || (rem == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        }
        64 => u64::from(m > 1 << 63),
        _ => 0,
    }
}

impl NpyElement for Dyn {
    type Plan = Decoder;

    fn npy_dtype() -> DType {
        DType::Void(0)
    }

    fn rust_name() -> String {
        "DynValue".to_owned()
    }

    fn plan(dtype: &DType) -> Result<Decoder, Error> {
        Decoder::new(dtype)
    }

    fn read(plan: &Decoder, src: &[u8]) -> Result<Dyn, Error> {
        plan.decode(src).map(Dyn)
    }

    fn write(&self, _: &Decoder, _: &mut [u8]) -> Result<(), Error> {
        Err(Error::Layout(
            "dynamic values are read-only here; write typed arrays".to_owned(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(mant: u64, se: u16) -> f64 {
        let mut b = [0u8; 10];
        b[..8].copy_from_slice(&mant.to_le_bytes());
        b[8..].copy_from_slice(&se.to_le_bytes());
        x87_to_f64(b)
    }

    #[test]
    fn x87_conversion() {
        assert_eq!(ext(1 << 63, 16383), 1.0);
        assert_eq!(ext(3 << 62, 16384 | 0x8000), -3.0);
        assert_eq!(ext(0, 0x8000).to_bits(), (-0.0f64).to_bits());
        assert_eq!(ext(1 << 63, 0x7fff), f64::INFINITY);
        assert_eq!(ext(1 << 63, 0xffff), f64::NEG_INFINITY);
        assert!(ext((1 << 63) | 1, 0x7fff).is_nan());
        // Too large / too small for f64.
        assert_eq!(ext(1 << 63, 16383 + 1024), f64::INFINITY);
        assert_eq!(ext(1 << 63, 16383 - 1080), 0.0);
        // Smallest f64 subnormal, and half of it (a tie, rounds to even: 0).
        assert_eq!(ext(1 << 63, 16383 - 1074), 5e-324);
        assert_eq!(ext(1 << 63, 16383 - 1075), 0.0);
        // Just above half of the smallest subnormal rounds up.
        assert_eq!(ext((1 << 63) | 1, 16383 - 1075), 5e-324);
        // Ties to even in the normal range: 1 + 2^-53 -> 1, 1 + 3·2^-53 -> 1 + 2^-51.
        assert_eq!(ext((1 << 63) | (1 << 10), 16383), 1.0);
        assert_eq!(ext((1 << 63) | (3 << 10), 16383), 1.0 + f64::EPSILON * 2.0);
        // Rounding carries into the next binade, and past the largest finite value.
        assert_eq!(ext(u64::MAX, 16383), 2.0);
        assert_eq!(ext(u64::MAX, 16383 + 1023), f64::INFINITY);
        // 1/3 in extended precision rounds to the f64 1/3.
        assert_eq!(ext(0xAAAA_AAAA_AAAA_AAAB, 16381), 1.0 / 3.0);
        // An x87 denormal (exponent 0) is far below f64's range.
        assert_eq!(ext(1, 0), 0.0);
    }

    #[test]
    fn round_shift_ties() {
        assert_eq!(round_shift(0b1010, 2), 0b10); // 2.5 -> 2
        assert_eq!(round_shift(0b1110, 2), 0b100); // 3.5 -> 4
        assert_eq!(round_shift(0b1011, 2), 0b11); // 2.75 -> 3
        assert_eq!(round_shift(u64::MAX, 64), 1);
        assert_eq!(round_shift(1 << 63, 64), 0);
        assert_eq!(round_shift(u64::MAX, 65), 0);
    }

    #[test]
    fn c_order_of_fortran_array() {
        let a = DynArray {
            dtype: "<i8".parse().unwrap(),
            shape: vec![2, 3],
            fortran_order: true,
            values: (0..6).map(DynValue::Int).collect(),
        };
        let c: Vec<_> = a.iter_c_order().cloned().collect();
        let want: Vec<_> = [0, 2, 4, 1, 3, 5].map(DynValue::Int).to_vec();
        assert_eq!(c, want);
        assert_eq!(a.get(&[1, 0]), Some(&DynValue::Int(1)));
        assert_eq!(a.clone().into_c_order(), want);
        let empty = DynArray {
            shape: vec![3, 0],
            values: vec![],
            ..a.clone()
        };
        assert_eq!(empty.iter_c_order().count(), 0);
        let scalar = DynArray {
            shape: vec![],
            values: vec![DynValue::Int(9)],
            ..a
        };
        assert_eq!(scalar.iter_c_order().count(), 1);
    }
}
