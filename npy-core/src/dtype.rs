//! The dtype model: what a header's `descr` describes.
//!
//! [`DType`] covers every type numpy writes to a `.npy` file: bool, integers, floats (including
//! `longdouble`), complex numbers, datetime64/timedelta64 with their unit, fixed-width bytes
//! (`S`), UCS-4 strings (`U`), raw void (`V`), object (`O`, recognised so that readers can refuse
//! it by name) and structured (record) dtypes with nested records and subarrays.
//!
//! Parsing follows numpy's `descr_to_dtype` (`numpy/lib/_format_impl.py`) and `np.dtype(str)`;
//! [`Display`](std::fmt::Display) writes what `dtype_to_descr` writes: `dtype.str` for simple
//! dtypes and the `dtype.descr` list for records.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ErrorKind};
#[doc(no_inline)]
pub use crate::format::ByteOrder;
use crate::format::MAX_DIMS;
use crate::literal::{self, Value};

/// The numeric (and bool) element types of the format's number table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `b1` / `?`: one byte, 0 or 1.
    Bool,
    /// `i1`
    I8,
    /// `i2`
    I16,
    /// `i4`
    I32,
    /// `i8`
    I64,
    /// `u1`
    U8,
    /// `u2`
    U16,
    /// `u4`
    U32,
    /// `u8`
    U64,
    /// `f2`: IEEE binary16.
    F16,
    /// `f4`
    F32,
    /// `f8`
    F64,
    /// `longdouble` stored in `size` bytes: 16 (`f16`, x86-64 80-bit extended padded, or
    /// binary128 elsewhere) or 12 (`f12`, 32-bit x86).
    LongDouble {
        /// Bytes per element: 12 or 16.
        size: u8,
    },
    /// `c8`: two `f4`.
    C64,
    /// `c16`: two `f8`.
    C128,
    /// `clongdouble` stored in `size` bytes: 32 (`c32`) or 24 (`c24`).
    CLongDouble {
        /// Bytes per element: 24 or 32.
        size: u8,
    },
}

impl Primitive {
    /// Bytes per element.
    pub fn itemsize(self) -> u64 {
        use Primitive::*;
        match self {
            Bool | I8 | U8 => 1,
            I16 | U16 | F16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 | C64 => 8,
            C128 => 16,
            LongDouble { size } | CLongDouble { size } => u64::from(size),
        }
    }

    /// numpy's kind character: `b`, `i`, `u`, `f` or `c`.
    pub fn kind(self) -> char {
        use Primitive::*;
        match self {
            Bool => 'b',
            I8 | I16 | I32 | I64 => 'i',
            U8 | U16 | U32 | U64 => 'u',
            F16 | F32 | F64 | LongDouble { .. } => 'f',
            C64 | C128 | CLongDouble { .. } => 'c',
        }
    }

    /// The canonical dtype per the format's number table (`None` for longdouble types).
    pub fn canonical(self) -> Option<Canonical> {
        use Primitive::*;
        Some(match self {
            Bool => Canonical::Bool,
            I8 => Canonical::Int8,
            I16 => Canonical::Int16,
            I32 => Canonical::Int32,
            I64 => Canonical::Int64,
            U8 => Canonical::Uint8,
            U16 => Canonical::Uint16,
            U32 => Canonical::Uint32,
            U64 => Canonical::Uint64,
            F16 => Canonical::Float16,
            F32 => Canonical::Float32,
            F64 => Canonical::Float64,
            C64 => Canonical::Complex64,
            C128 => Canonical::Complex128,
            LongDouble { .. } | CLongDouble { .. } => return None,
        })
    }
}

/// The canonical dtypes of the format's number table: what a descr maps to, ignoring its
/// byte-order character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Canonical {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Float16,
    Float32,
    Float64,
    Complex64,
    Complex128,
}

impl Canonical {
    /// numpy's name: `"bool"`, `"int8"`, ..., `"complex128"`.
    pub fn name(self) -> &'static str {
        use Canonical::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            Uint8 => "uint8",
            Uint16 => "uint16",
            Uint32 => "uint32",
            Uint64 => "uint64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
        }
    }
}

impl fmt::Display for Canonical {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// datetime64 (`M8`) or timedelta64 (`m8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeKind {
    /// `M8`: a point in time, ticks since 1970-01-01T00:00.
    Datetime,
    /// `m8`: a duration in ticks.
    Timedelta,
}

/// The unit of a datetime64/timedelta64 tick (NEP 7 / numpy's datetime units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TimeUnit {
    /// No unit (`M8` alone); numpy can only hold NaT in such arrays.
    Generic,
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
    Picosecond,
    Femtosecond,
    Attosecond,
}

impl TimeUnit {
    /// The unit's code as numpy writes it (`"ns"`, `"D"`, ...; `""` for generic).
    pub fn code(self) -> &'static str {
        use TimeUnit::*;
        match self {
            Generic => "",
            Year => "Y",
            Month => "M",
            Week => "W",
            Day => "D",
            Hour => "h",
            Minute => "m",
            Second => "s",
            Millisecond => "ms",
            Microsecond => "us",
            Nanosecond => "ns",
            Picosecond => "ps",
            Femtosecond => "fs",
            Attosecond => "as",
        }
    }

    fn from_code(code: &str) -> Option<TimeUnit> {
        use TimeUnit::*;
        Some(match code {
            "Y" => Year,
            "M" => Month,
            "W" => Week,
            "D" => Day,
            "h" => Hour,
            "m" => Minute,
            "s" => Second,
            "ms" => Millisecond,
            "us" | "μs" => Microsecond,
            "ns" => Nanosecond,
            "ps" => Picosecond,
            "fs" => Femtosecond,
            "as" => Attosecond,
            _ => return None,
        })
    }
}

/// A datetime64/timedelta64 dtype's kind and unit: `M8[10ms]` is `Datetime`, `Millisecond`, 10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeType {
    /// Datetime or timedelta.
    pub kind: TimeKind,
    /// The tick unit.
    pub unit: TimeUnit,
    /// How many units one tick is (1 unless written, e.g. `[10ms]`); 1 for generic.
    pub multiplier: u32,
}

impl fmt::Display for TimeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            TimeKind::Datetime => "M8",
            TimeKind::Timedelta => "m8",
        })?;
        match (self.unit, self.multiplier) {
            (TimeUnit::Generic, _) => Ok(()),
            (u, 1) => write!(f, "[{}]", u.code()),
            (u, n) => write!(f, "[{n}{}]", u.code()),
        }
    }
}

/// A dtype, as described by a header's `descr`.
///
/// Build one by parsing (`"<f4".parse::<DType>()`, or a structured descr such as
/// `"[('x', '<f4'), ('id', '<i8')]".parse()`) or from its parts. `Display` prints the descr exactly
/// as numpy writes it in a header.
///
/// # Examples
/// ```
/// use npy_core::{ByteOrder, DType};
/// let dt: DType = "f8".parse()?; // no byte-order char: native, as numpy
/// assert_eq!(dt.to_string(), "<f8");
/// assert_eq!(dt.itemsize(), 8);
/// let rec: DType = "[('a', 'u1'), ('', '|V3'), ('b', '<i4')]".parse()?;
/// assert_eq!(rec.itemsize(), 8);
/// assert_eq!(rec.to_string(), "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]");
/// assert_eq!(rec.byte_order(), ByteOrder::NotApplicable);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DType {
    /// bool, integer, float or complex, with its byte order (`NotApplicable` for 1-byte types).
    Number(Primitive, ByteOrder),
    /// datetime64 / timedelta64: 8-byte signed ticks (`i64::MIN` is NaT).
    Time(TimeType, ByteOrder),
    /// `|Sn`: `n` bytes, NUL-padded.
    Bytes(u64),
    /// `<Un` / `>Un`: `n` UCS-4 code points (4·n bytes), NUL-padded.
    Unicode(u64, ByteOrder),
    /// `|Vn`: `n` raw bytes.
    Void(u64),
    /// `|O`: a Python object; the data is a pickle, which this crate never executes.
    Object,
    /// A structured (record) dtype.
    Record(Record),
    /// A subarray: a fixed-shape block of a base dtype (record fields; rarely a whole array).
    SubArray(SubArray),
}

/// A structured dtype: named fields at byte offsets inside a record of `itemsize` bytes.
///
/// Invariants (checked by [`Record::new`]): field names and titles are unique, fields are sorted
/// by offset without overlap, and every field ends within the record.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    fields: Vec<Field>,
    itemsize: u64,
}

/// A field of a [`Record`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field name (numpy allows `''` for a non-void field).
    pub name: String,
    /// numpy's optional field title (`(('Title', 'name'), '<i4')` in a descr).
    pub title: Option<String>,
    /// The field's dtype (a [`DType::SubArray`] for `(name, type, shape)` fields).
    pub dtype: DType,
    /// Byte offset of the field inside the record.
    pub offset: u64,
}

/// A subarray dtype: `shape` elements of `base`, in C order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SubArray {
    base: Box<DType>,
    shape: Vec<u64>,
    itemsize: u64,
}

impl SubArray {
    /// A subarray of `shape` elements of `base`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidDescr`] when the shape is empty (numpy turns `(dtype, ())` into the plain
    /// dtype; use `base` itself) or when its size overflows 64 bits.
    pub fn new(base: DType, shape: Vec<u64>) -> Result<SubArray, Error> {
        if matches!(
            base,
            DType::Bytes(0) | DType::Unicode(0, _) | DType::Void(0)
        ) {
            // numpy: "invalid itemsize in generic type tuple".
            return Err(descr_error(
                &base.to_string(),
                "a subarray of a zero-width string or void",
            ));
        }
        if shape.len() > MAX_DIMS {
            return Err(descr_error(
                &base.to_string(),
                "subarray has more than 64 dimensions (numpy's limit)",
            ));
        }
        if shape.is_empty() {
            return Err(descr_error(
                &base.to_string(),
                "a subarray needs a non-empty shape",
            ));
        }
        let itemsize = shape
            .iter()
            .try_fold(base.itemsize(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| descr_error(&base.to_string(), "subarray size overflows 64 bits"))?;
        Ok(SubArray {
            base: Box::new(base),
            shape,
            itemsize,
        })
    }

    /// The element dtype (itself a subarray for a subarray of subarrays, as numpy keeps it).
    pub fn base(&self) -> &DType {
        &self.base
    }

    /// The subarray's shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }
}

impl Record {
    /// A record from fields with explicit offsets and a total `itemsize` in bytes.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidDescr`] for a repeated name or title, fields out of offset order or
    /// overlapping, or a field that ends past `itemsize`.
    pub fn new(fields: Vec<Field>, itemsize: u64) -> Result<Record, Error> {
        // Repeated names or titles: sort the labels and compare neighbours (no hashing of
        // file-controlled strings, O(n log n) whatever they are).
        let mut labels: Vec<&str> = fields
            .iter()
            .flat_map(|f| std::iter::once(f.name.as_str()).chain(f.title.as_deref()))
            .collect();
        labels.sort_unstable();
        if let Some(w) = labels.windows(2).find(|w| w[0] == w[1]) {
            return Err(descr_error(
                w[0],
                &format!("field name or title {:?} is used twice", w[0]),
            ));
        }
        let mut end = 0u64;
        for f in &fields {
            if f.offset < end {
                return Err(descr_error(
                    &f.name,
                    "fields overlap or are out of offset order, which a descr cannot express",
                ));
            }
            end = f
                .offset
                .checked_add(f.dtype.itemsize())
                .ok_or_else(|| descr_error(&f.name, "field offset overflows 64 bits"))?;
        }
        if end > itemsize {
            return Err(descr_error(
                "record",
                &format!("fields need {end} bytes, more than the itemsize {itemsize}"),
            ));
        }
        Ok(Record { fields, itemsize })
    }

    /// A packed record (numpy's default layout): fields one after another, no padding.
    ///
    /// # Errors
    /// As [`Record::new`], and when the total size overflows.
    pub fn packed<N: Into<String>>(
        fields: impl IntoIterator<Item = (N, DType)>,
    ) -> Result<Record, Error> {
        let mut offset = 0u64;
        let mut out = Vec::new();
        for (name, dtype) in fields {
            let name = name.into();
            let next = offset
                .checked_add(dtype.itemsize())
                .ok_or_else(|| descr_error(&name, "record size overflows 64 bits"))?;
            out.push(Field {
                name,
                title: None,
                dtype,
                offset,
            });
            offset = next;
        }
        Record::new(out, offset)
    }

    /// The fields in declaration order (padding is not a field).
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field named `name` (or titled `name`, as numpy's `dtype.fields` allows).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name).or_else(|| {
            self.fields
                .iter()
                .find(|f| f.title.as_deref() == Some(name))
        })
    }

    /// Bytes per record, padding included.
    pub fn itemsize(&self) -> u64 {
        self.itemsize
    }
}

impl DType {
    /// Bytes per element.
    pub fn itemsize(&self) -> u64 {
        match self {
            DType::Number(p, _) => p.itemsize(),
            DType::Time(..) => 8,
            DType::Bytes(n) | DType::Void(n) => *n,
            DType::Unicode(n, _) => n.saturating_mul(4),
            DType::Object => 8,
            DType::Record(r) => r.itemsize,
            DType::SubArray(s) => s.itemsize,
        }
    }

    /// The byte order numpy reports (`dtype.byteorder` resolved): `NotApplicable` for one-byte
    /// types, bytes, void, object and records; a subarray reports its base's.
    pub fn byte_order(&self) -> ByteOrder {
        match self {
            DType::Number(_, o) | DType::Time(_, o) | DType::Unicode(_, o) => *o,
            DType::SubArray(s) => s.base.byte_order(),
            _ => ByteOrder::NotApplicable,
        }
    }

    /// The canonical dtype of the format's number table, ignoring byte order; `None` for
    /// longdouble, datetime64, timedelta64, bytes, str, void, object and structured dtypes.
    pub fn canonical(&self) -> Option<Canonical> {
        match self {
            DType::Number(p, _) => p.canonical(),
            _ => None,
        }
    }

    /// numpy's `dtype.kind`: `b i u f c M m S U V O` (`V` for records and subarrays).
    pub fn kind(&self) -> char {
        match self {
            DType::Number(p, _) => p.kind(),
            DType::Time(t, _) => match t.kind {
                TimeKind::Datetime => 'M',
                TimeKind::Timedelta => 'm',
            },
            DType::Bytes(_) => 'S',
            DType::Unicode(..) => 'U',
            DType::Void(_) | DType::Record(_) | DType::SubArray(_) => 'V',
            DType::Object => 'O',
        }
    }

    /// Whether the dtype holds Python objects anywhere (itself, a field, a subarray base):
    /// such data is a pickle and cannot be read without executing code.
    pub fn has_object(&self) -> bool {
        match self {
            DType::Object => true,
            DType::Record(r) => r.fields.iter().any(|f| f.dtype.has_object()),
            DType::SubArray(s) => s.base.has_object(),
            _ => false,
        }
    }

    /// The same dtype with every multi-byte part in `order` (`NotApplicable` parts stay as they
    /// are; `order` `NotApplicable` leaves the dtype unchanged).
    pub fn with_byte_order(&self, order: ByteOrder) -> DType {
        if order == ByteOrder::NotApplicable {
            return self.clone();
        }
        match self {
            DType::Number(p, o) if *o != ByteOrder::NotApplicable => DType::Number(*p, order),
            DType::Time(t, _) => DType::Time(*t, order),
            DType::Unicode(n, _) => DType::Unicode(*n, order),
            DType::Record(r) => DType::Record(Record {
                fields: r
                    .fields
                    .iter()
                    .map(|f| Field {
                        dtype: f.dtype.with_byte_order(order),
                        ..f.clone()
                    })
                    .collect(),
                itemsize: r.itemsize,
            }),
            DType::SubArray(s) => DType::SubArray(SubArray {
                base: Box::new(s.base.with_byte_order(order)),
                shape: s.shape.clone(),
                itemsize: s.itemsize,
            }),
            other => other.clone(),
        }
    }

    /// numpy's `dtype.str`: the type string of a simple dtype (`'<f4'`, `'|S7'`, `'<M8[ns]'`);
    /// `'|Vn'` for records and subarrays.
    pub fn type_str(&self) -> String {
        match self {
            DType::Number(p, o) => {
                let (c, n) = match p {
                    Primitive::Bool => ('b', 1),
                    p => (p.kind(), p.itemsize()),
                };
                format!("{}{c}{n}", o.as_char())
            }
            DType::Time(t, o) => format!("{}{t}", o.as_char()),
            DType::Bytes(n) => format!("|S{n}"),
            DType::Unicode(n, o) => format!("{}U{n}", o.as_char()),
            DType::Void(n) => format!("|V{n}"),
            DType::Object => "|O".to_owned(),
            DType::Record(_) | DType::SubArray(_) => format!("|V{}", self.itemsize()),
        }
    }

    /// The descr as a Python value, exactly as numpy's `dtype_to_descr` builds it: a string for
    /// simple dtypes, the `dtype.descr` list (with `('', '|Vn')` padding entries) for records.
    pub fn to_descr_value(&self) -> Value {
        match self {
            DType::Record(r) => {
                let mut out = Vec::with_capacity(r.fields.len());
                let mut offset = 0u64;
                for f in &r.fields {
                    if f.offset > offset {
                        out.push(padding_entry(f.offset - offset));
                    }
                    let name = match &f.title {
                        Some(t) => {
                            Value::Tuple(vec![Value::Str(t.clone()), Value::Str(f.name.clone())])
                        }
                        None => Value::Str(f.name.clone()),
                    };
                    let entry = match &f.dtype {
                        DType::SubArray(s) => {
                            vec![name, s.base.to_descr_value(), shape_value(&s.shape)]
                        }
                        dt => vec![name, dt.to_descr_value()],
                    };
                    out.push(Value::Tuple(entry));
                    offset = f.offset + f.dtype.itemsize();
                }
                if r.itemsize > offset {
                    out.push(padding_entry(r.itemsize - offset));
                }
                Value::List(out)
            }
            DType::SubArray(s) => {
                Value::Tuple(vec![s.base.to_descr_value(), shape_value(&s.shape)])
            }
            simple => Value::Str(simple.type_str()),
        }
    }

    /// Parses a header's `descr` value, as numpy's `descr_to_dtype`: a type string, a list of
    /// fields, or a `(type, shape)` subarray tuple. Padding fields `('', '|Vn')` advance the
    /// offset and are dropped.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidDescr`] naming the offending part.
    pub fn from_descr_value(v: &Value) -> Result<DType, Error> {
        match v {
            Value::Str(s) => parse_type_str(s),
            Value::List(items) => parse_record(items),
            Value::Tuple(items) if items.len() == 2 => {
                let base = DType::from_descr_value(&items[0])?;
                let shape = parse_sub_shape(&items[1])?;
                if shape.is_empty() {
                    Ok(base)
                } else {
                    Ok(DType::SubArray(SubArray::new(base, shape)?))
                }
            }
            other => Err(descr_error(
                &other.to_string(),
                "expected a type string, a list of fields or a (type, shape) tuple",
            )),
        }
    }
}

impl fmt::Display for DType {
    /// The descr exactly as numpy writes it in a header (without the quotes of a simple one):
    /// `<f4`, `|S7`, `[('x', '<f4'), ('id', '<i8')]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DType::Record(_) | DType::SubArray(_) => write!(f, "{}", self.to_descr_value()),
            simple => f.write_str(&simple.type_str()),
        }
    }
}

impl FromStr for DType {
    type Err = Error;

    /// A type string (`'<f4'`, `'M8[ns]'`, `'float32'`) or a descr literal (`[('x', '<f4')]`).
    fn from_str(s: &str) -> Result<DType, Error> {
        let t = s.trim_start();
        if t.starts_with('[') || t.starts_with('(') {
            let v = literal::parse(s, literal::ParseOptions::default())
                .map_err(|e| Error::new(ErrorKind::DescrSyntax(e)))?;
            DType::from_descr_value(&v)
        } else {
            parse_type_str(s)
        }
    }
}

fn padding_entry(n: u64) -> Value {
    Value::Tuple(vec![
        Value::Str(String::new()),
        Value::Str(format!("|V{n}")),
    ])
}

fn shape_value(shape: &[u64]) -> Value {
    Value::Tuple(shape.iter().map(|&d| Value::Int(i128::from(d))).collect())
}

#[cold]
fn descr_error(found: &str, reason: &str) -> Error {
    Error::new(ErrorKind::InvalidDescr {
        found: found.to_owned(),
        reason: reason.to_owned(),
    })
}

/// A subarray shape: a tuple (or list) of non-negative ints, or one int (numpy accepts
/// `('a', '<f4', 3)`).
fn parse_sub_shape(v: &Value) -> Result<Vec<u64>, Error> {
    let dim = |d: &Value| match d {
        Value::Int(i) => u64::try_from(*i).ok(),
        _ => None,
    };
    let bad = || {
        descr_error(
            &v.to_string(),
            "subarray shape must be a tuple of non-negative ints",
        )
    };
    match v {
        Value::Int(_) => Ok(vec![dim(v).ok_or_else(bad)?]),
        // numpy's np.dtype((base, shape)) takes a list as well.
        Value::Tuple(items) | Value::List(items) => {
            items.iter().map(|d| dim(d).ok_or_else(bad)).collect()
        }
        _ => Err(bad()),
    }
}

fn parse_record(items: &[Value]) -> Result<DType, Error> {
    let mut record = RecordBuilder::default();
    for item in items {
        let parts = match item {
            Value::Tuple(p) | Value::List(p) if p.len() == 2 || p.len() == 3 => p,
            other => {
                return Err(descr_error(
                    &other.to_string(),
                    "a field must be (name, type) or (name, type, shape)",
                ))
            }
        };
        let (title, name) = match &parts[0] {
            Value::Str(n) => (None, n.clone()),
            Value::Tuple(tn) if tn.len() == 2 => match (&tn[0], &tn[1]) {
                (Value::Str(t), Value::Str(n)) => (Some(t.clone()), n.clone()),
                _ => {
                    return Err(descr_error(
                        &item.to_string(),
                        "field title and name must be strings",
                    ))
                }
            },
            _ => {
                return Err(descr_error(
                    &item.to_string(),
                    "field name must be a string or (title, name)",
                ))
            }
        };
        let mut dtype = DType::from_descr_value(&parts[1])?;
        if let Some(shape) = parts.get(2) {
            dtype = subarray_or_base(dtype, parse_sub_shape(shape)?)?;
        }
        record.push(title, name, dtype)?;
    }
    record.finish()
}

/// `(base, shape)` as numpy's `np.dtype((base, shape))`: the base itself for an empty shape.
pub(crate) fn subarray_or_base(base: DType, shape: Vec<u64>) -> Result<DType, Error> {
    if shape.is_empty() {
        Ok(base)
    } else {
        Ok(DType::SubArray(SubArray::new(base, shape)?))
    }
}

/// Builds a record from the entries of a descr list, as numpy's `descr_to_dtype` does: each
/// entry takes the next `itemsize` bytes; unnamed void entries are padding. Shared by the
/// general descr parser and the header fast path, so both follow the same rules.
#[derive(Debug, Default)]
pub(crate) struct RecordBuilder {
    fields: Vec<Field>,
    offset: u64,
}

impl RecordBuilder {
    /// Adds the entry `(title, name)` of `dtype` (a subarray already applied).
    pub(crate) fn push(
        &mut self,
        title: Option<String>,
        name: String,
        dtype: DType,
    ) -> Result<(), Error> {
        let size = dtype.itemsize();
        let next = self
            .offset
            .checked_add(size)
            .ok_or_else(|| descr_error(&name, "record size overflows 64 bits"))?;
        // numpy's descr_to_dtype: an unnamed, untitled field whose dtype's type is np.void
        // without names is padding: '|Vn', and any subarray (its type is np.void whatever the
        // base), so `('', '<i4', (2,))` is 8 bytes of padding.
        let is_void = matches!(dtype, DType::Void(_) | DType::SubArray(_));
        let is_padding = title.is_none() && name.is_empty() && is_void;
        if !is_padding {
            // Grown as fields validate, not sized up front: a header list of a million `1`s
            // must fail on the first without allocating a million fields.
            self.fields.push(Field {
                name,
                title,
                dtype,
                offset: self.offset,
            });
        }
        self.offset = next;
        Ok(())
    }

    /// The record (validated by [`Record::new`]).
    pub(crate) fn finish(self) -> Result<DType, Error> {
        Ok(DType::Record(Record::new(self.fields, self.offset)?))
    }
}

/// Parses a type string as `np.dtype(str)` does for the types a `.npy` file can hold.
pub(crate) fn parse_type_str(s: &str) -> Result<DType, Error> {
    let bad = |reason: &str| descr_error(&format!("'{s}'"), reason);
    if let Some(dt) = named_type(s) {
        return Ok(dt);
    }
    let (order, rest) = match s.chars().next() {
        Some('<') => (Some(ByteOrder::Little), &s[1..]),
        Some('>') => (Some(ByteOrder::Big), &s[1..]),
        Some('|') => (None, &s[1..]),
        Some('=') => (None, &s[1..]),
        _ => (None, s),
    };
    // Multi-byte types with '|', '=' or no order character take the machine's order, as numpy.
    let multi = order.unwrap_or(ByteOrder::NATIVE);
    let mut chars = rest.chars();
    let code = chars.next().ok_or_else(|| bad("empty type string"))?;
    let tail = chars.as_str();
    let (digits, after) = tail.split_at(
        tail.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len()),
    );
    let size: Option<u64> = if digits.is_empty() {
        None
    } else {
        Some(digits.parse().map_err(|_| bad("size out of range"))?)
    };
    let number = |p: Primitive| {
        let o = if p.itemsize() == 1 {
            ByteOrder::NotApplicable
        } else {
            multi
        };
        Ok(DType::Number(p, o))
    };
    if !after.is_empty() && !matches!(code, 'M' | 'm') {
        return Err(bad("data type not understood"));
    }
    use Primitive::*;
    match (code, size) {
        ('?', None) | ('b', Some(1)) => number(Bool),
        ('b', None) => number(I8),
        ('B', None) => number(U8),
        ('h', None) => number(I16),
        ('H', None) => number(U16),
        ('i', None) => number(I32),
        ('I', None) => number(U32),
        // C long and intptr: 64 bits on the LP64 platforms numpy 2 writes from.
        ('l' | 'q' | 'p', None) => number(I64),
        ('L' | 'Q' | 'P', None) => number(U64),
        ('e', None) => number(F16),
        ('f', None) => number(F32),
        ('d', None) => number(F64),
        ('g', None) => number(LongDouble { size: 16 }),
        ('F', None) => number(C64),
        ('D', None) => number(C128),
        ('G', None) => number(CLongDouble { size: 32 }),
        ('i', Some(1)) => number(I8),
        ('i', Some(2)) => number(I16),
        ('i', Some(4)) => number(I32),
        ('i', Some(8)) => number(I64),
        ('u', Some(1)) => number(U8),
        ('u', Some(2)) => number(U16),
        ('u', Some(4)) => number(U32),
        ('u', Some(8)) => number(U64),
        ('f', Some(2)) => number(F16),
        ('f', Some(4)) => number(F32),
        ('f', Some(8)) => number(F64),
        ('f', Some(n @ (12 | 16))) => number(LongDouble { size: n as u8 }),
        ('c', Some(8)) => number(C64),
        ('c', Some(16)) => number(C128),
        ('c', Some(n @ (24 | 32))) => number(CLongDouble { size: n as u8 }),
        // numpy keeps a flexible itemsize in a C int: `np.dtype('S2147483648')` is refused.
        ('S' | 'a' | 'V' | 'U', Some(n))
            if n.saturating_mul(if code == 'U' { 4 } else { 1 }) > MAX_FLEXIBLE_ITEMSIZE =>
        {
            Err(bad("itemsize exceeds numpy's limit of 2147483647 bytes"))
        }
        ('S' | 'a', n) => Ok(DType::Bytes(n.unwrap_or(0))),
        ('V', n) => Ok(DType::Void(n.unwrap_or(0))),
        ('U', n) => Ok(DType::Unicode(n.unwrap_or(0), multi)),
        ('O', None | Some(4 | 8)) => Ok(DType::Object),
        // A unit needs the size: numpy reads 'M' (generic) but not 'M[ns]'.
        ('M' | 'm', None) if !after.is_empty() => Err(bad("data type not understood")),
        ('M' | 'm', None | Some(8)) => {
            let kind = if code == 'M' {
                TimeKind::Datetime
            } else {
                TimeKind::Timedelta
            };
            let (unit, multiplier) =
                parse_time_unit(after).ok_or_else(|| bad("invalid datetime unit"))?;
            Ok(DType::Time(
                TimeType {
                    kind,
                    unit,
                    multiplier,
                },
                multi,
            ))
        }
        _ => Err(bad("data type not understood")),
    }
}

/// The largest itemsize numpy gives an `S`, `U` or `V` dtype (`NPY_MAX_INT`).
const MAX_FLEXIBLE_ITEMSIZE: u64 = i32::MAX as u64;

/// `""` (generic) or `"[10ms]"`.
fn parse_time_unit(s: &str) -> Option<(TimeUnit, u32)> {
    if s.is_empty() {
        return Some((TimeUnit::Generic, 1));
    }
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let split = inner
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(inner.len());
    let (num, code) = inner.split_at(split);
    let multiplier = if num.is_empty() {
        1
    } else {
        // numpy keeps the multiplier in a C int.
        num.parse()
            .ok()
            .filter(|&m| m > 0 && m <= i32::MAX as u32)?
    };
    let unit = TimeUnit::from_code(code)?;
    Some((unit, multiplier))
}

/// numpy's type names accepted by `np.dtype(name)`.
fn named_type(s: &str) -> Option<DType> {
    use Primitive::*;
    let p = match s {
        "bool" => Bool,
        "int8" => I8,
        "int16" => I16,
        "int32" => I32,
        "int64" | "int" => I64,
        "uint8" => U8,
        "uint16" => U16,
        "uint32" => U32,
        "uint64" => U64,
        "float16" => F16,
        "float32" => F32,
        "float64" | "float" => F64,
        "longdouble" => LongDouble { size: 16 },
        "complex64" => C64,
        "complex128" | "complex" => C128,
        "clongdouble" => CLongDouble { size: 32 },
        _ => return None,
    };
    let o = if p.itemsize() == 1 {
        ByteOrder::NotApplicable
    } else {
        ByteOrder::NATIVE
    };
    Some(DType::Number(p, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> DType {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// Expected strings are numpy 2.4.6's `np.dtype(s).str` for each input.
    #[test]
    fn type_strings_as_numpy() {
        for (input, numpy_str) in [
            ("l", "<i8"),
            ("L", "<u8"),
            ("g", "<f16"),
            ("G", "<c32"),
            ("=f8", "<f8"),
            ("f8", "<f8"),
            ("d", "<f8"),
            ("<u1", "|u1"),
            ("b", "|i1"),
            ("B", "|u1"),
            ("?", "|b1"),
            ("<b1", "|b1"),
            ("S", "|S0"),
            ("U", "<U0"),
            ("V", "|V0"),
            ("a5", "|S5"),
            ("O8", "|O"),
            ("<M8", "<M8"),
            ("M8[10ms]", "<M8[10ms]"),
            ("m8[us]", "<m8[us]"),
            ("<M8[μs]", "<M8[us]"),
            ("f16", "<f16"),
            ("c32", "<c32"),
            ("float32", "<f4"),
            (">U5", ">U5"),
            ("|U5", "<U5"),
            ("S0", "|S0"),
            ("S2147483647", "|S2147483647"),
            ("V2147483647", "|V2147483647"),
            ("U536870911", "<U536870911"),
            ("M8[2147483647s]", "<M8[2147483647s]"),
            ("M", "<M8"),
            ("m", "<m8"),
            ("int", "<i8"),
            (">c8", ">c8"),
            (">M8[ns]", ">M8[ns]"),
        ] {
            assert_eq!(d(input).type_str(), numpy_str, "{input}");
        }
    }

    #[test]
    fn rejected_type_strings() {
        for s in [
            "i3",
            "!i4",
            "f1",
            "u16",
            "c4",
            "x",
            "",
            "<",
            "M8[xs]",
            "M8[0s]",
            "f8 ",
            "b2",
            "O2",
            // Refused by numpy 2.4.6's np.dtype(): a unit without the size, a multiplier or an
            // itemsize beyond a C int.
            "M[ns]",
            "<m[10ms]",
            "M8[2147483648s]",
            "m8[3000000000ms]",
            "S2147483648",
            "V2147483648",
            "U536870912",
            "U4611686018427387903",
        ] {
            assert!(s.parse::<DType>().is_err(), "{s:?} must be rejected");
        }
    }

    #[test]
    fn canonical_per_number_table() {
        assert_eq!(d(">f4").canonical(), Some(Canonical::Float32));
        assert_eq!(d("<c16").canonical(), Some(Canonical::Complex128));
        assert_eq!(d("|b1").canonical(), Some(Canonical::Bool));
        for none in [
            "<f16",
            "<c32",
            "<M8[ns]",
            "<m8",
            "|S3",
            "<U2",
            "|V4",
            "|O",
            "[('a', '<i4')]",
        ] {
            assert_eq!(d(none).canonical(), None, "{none}");
        }
    }

    /// Expected descrs are numpy 2.4.6's `dtype.descr` for the same input.
    #[test]
    fn record_descr_round_trip() {
        for (input, numpy_descr, itemsize) in [
            ("[('', '<i4')]", "[('', '<i4')]", 4),
            ("[]", "[]", 0),
            (
                "[('c', ('<f8', (5,)), (2,))]",
                "[('c', ('<f8', (5,)), (2,))]",
                80,
            ),
            ("[('x', '<f4', ())]", "[('x', '<f4')]", 4),
            ("[('x', '<f4', 3)]", "[('x', '<f4', (3,))]", 12),
            (
                "[('a', 'u1'), ('', '|V3'), ('b', '<i4')]",
                "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]",
                8,
            ),
            (
                "[(('Title A', 'a'), '<i4'), (('Title B', 'b'), '<f8')]",
                "[(('Title A', 'a'), '<i4'), (('Title B', 'b'), '<f8')]",
                12,
            ),
            (
                "[('p', [('x', '<f4'), ('y', '<f4')]), ('m', '<f8', (2, 3))]",
                "[('p', [('x', '<f4'), ('y', '<f4')]), ('m', '<f8', (2, 3))]",
                56,
            ),
            (
                "[('a', '<i2'), ('', '|V6'), ('b', '<f8'), ('', '|V8')]",
                "[('a', '<i2'), ('', '|V6'), ('b', '<f8'), ('', '|V8')]",
                24,
            ),
        ] {
            let dt = d(input);
            assert_eq!(dt.to_string(), numpy_descr, "{input}");
            assert_eq!(dt.itemsize(), itemsize, "{input}");
        }
        let rec = d("[('a', 'u1'), ('', '|V3'), ('b', '<i4')]");
        let DType::Record(r) = rec else { panic!() };
        assert_eq!(r.fields().len(), 2);
        assert_eq!(r.field("b").map(|f| f.offset), Some(4));
    }

    #[test]
    fn rejected_records() {
        for s in [
            "[('a', '<i4'), ('a', '<f4')]",
            "[(('a', 'b'), '<i4'), ('a', '<f4')]",
            "[('a',)]",
            "[('a', '<i4', (-1,))]",
            "[(1, '<i4')]",
            "[('a', '<i4', (2,), 5)]",
            "{'a': '<i4'}",
            "[('a', 'i3')]",
        ] {
            assert!(s.parse::<DType>().is_err(), "{s} must be rejected");
        }
    }

    #[test]
    fn with_byte_order() {
        let rec = d("[('a', '<i4'), ('s', '|S2'), ('u', '<U1', (2,))]");
        assert_eq!(
            rec.with_byte_order(ByteOrder::Big).to_string(),
            "[('a', '>i4'), ('s', '|S2'), ('u', '>U1', (2,))]"
        );
        assert_eq!(d("|u1").with_byte_order(ByteOrder::Big).to_string(), "|u1");
    }

    #[test]
    fn object_detection() {
        assert!(d("|O").has_object());
        assert!(d("[('a', '<i4'), ('o', [('x', '|O')])]").has_object());
        assert!(!d("[('a', '<i4')]").has_object());
    }
}
