//! The dtype model: what a header's `descr` describes.
//!
//! [`DType`] covers every type numpy writes to a `.npy` file (one variant per kind, records
//! nested and with subarrays; object only so that readers can refuse it by name).
//!
//! Parsing and [`Display`](std::fmt::Display) follow numpy's `descr_to_dtype` / `dtype_to_descr`
//! (`numpy/lib/_format_impl.py`, [`DType::to_descr_value`]) and `np.dtype(str)`.

use std::fmt;

use crate::codec::{checked_product, first_noncanonical_bool};
#[doc(no_inline)]
pub use crate::format::ByteOrder;
use crate::format::MAX_DIMS;

mod comma;
mod descr;
mod error;
mod layout;
#[cfg(test)]
mod tests;
mod type_str;

pub(crate) use comma::subarray_or_base;
/// The type of record field names ([`Field::name`]), from `compact_str`.
pub use compact_str::CompactString;
pub(crate) use descr::RecordBuilder;
pub(crate) use error::descr_error;
pub use error::DescrError;
pub use layout::alignment;
pub use npy_ml_dtypes::MlType;
pub(crate) use type_str::{number_type, parse_type_str};

/// The format's number table, one row per canonical dtype (`Canonical = Primitive, "name",
/// kind, itemsize[, more doc]`): declares [`Primitive`] (with the longdouble types, which have
/// no row), [`Canonical`], and their names, kinds, itemsizes and [`Primitive::canonical`].
macro_rules! number_table {
    ($($c:ident = $p:ident, $name:literal, $kind:literal, $size:literal $(, $doc:literal)?;)*) => {
        /// The numeric (and bool) element types of the format's number table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Primitive {
            $(#[doc = concat!("`", $kind, $size, "`", $($doc)?)] $p,)*
            /// `longdouble` stored in `size` bytes: 16 (`f16`, x86-64 80-bit extended padded,
            /// or binary128 elsewhere) or 12 (`f12`, 32-bit x86).
            LongDouble {
                /// Bytes per element: 12 or 16.
                size: u8,
            },
            /// `clongdouble` stored in `size` bytes: 32 (`c32`) or 24 (`c24`).
            CLongDouble {
                /// Bytes per element: 24 or 32.
                size: u8,
            },
        }

        /// The canonical dtypes of the format's number table: what a descr maps to, ignoring its
        /// byte-order character.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Canonical {
            $($c,)*
        }

        impl Canonical {
            /// numpy's name: `"bool"`, `"int8"`, ..., `"complex128"`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Canonical::$c => $name,)*
                }
            }
        }

        impl Primitive {
            /// Bytes per element.
            pub fn itemsize(self) -> u64 {
                match self {
                    $(Primitive::$p => $size,)*
                    Primitive::LongDouble { size } | Primitive::CLongDouble { size } => {
                        u64::from(size)
                    }
                }
            }

            /// numpy's kind character: `b`, `i`, `u`, `f` or `c`.
            pub fn kind(self) -> char {
                match self {
                    $(Primitive::$p => $kind,)*
                    Primitive::LongDouble { .. } => 'f',
                    Primitive::CLongDouble { .. } => 'c',
                }
            }

            /// The canonical dtype per the format's number table (`None` for longdouble types).
            pub fn canonical(self) -> Option<Canonical> {
                match self {
                    $(Primitive::$p => Some(Canonical::$c),)*
                    Primitive::LongDouble { .. } | Primitive::CLongDouble { .. } => None,
                }
            }
        }
    };
}

number_table! {
    Bool = Bool, "bool", 'b', 1, " / `?`: one byte, 0 or 1.";
    Int8 = I8, "int8", 'i', 1;
    Int16 = I16, "int16", 'i', 2;
    Int32 = I32, "int32", 'i', 4;
    Int64 = I64, "int64", 'i', 8;
    Uint8 = U8, "uint8", 'u', 1;
    Uint16 = U16, "uint16", 'u', 2;
    Uint32 = U32, "uint32", 'u', 4;
    Uint64 = U64, "uint64", 'u', 8;
    Float16 = F16, "float16", 'f', 2, ": IEEE binary16.";
    Float32 = F32, "float32", 'f', 4;
    Float64 = F64, "float64", 'f', 8;
    Complex64 = C64, "complex64", 'c', 8, ": two `f4`.";
    Complex128 = C128, "complex128", 'c', 16, ": two `f8`.";
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

/// numpy's datetime units, one row per unit (`Unit = "code", "plural name"`): declares
/// [`TimeUnit`], [`TimeUnit::code`], the plural names `str()` of a timedelta writes and the list
/// the type-string parser looks codes up in.
macro_rules! time_units {
    ($($(#[$doc:meta])* $u:ident = $code:literal, $plural:literal;)*) => {
        /// The unit of a datetime64/timedelta64 tick (NEP 7 / numpy's datetime units).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum TimeUnit {
            $($(#[$doc])* $u,)*
        }

        impl TimeUnit {
            /// Every unit, generic first.
            pub(crate) const ALL: &'static [TimeUnit] = &[$(TimeUnit::$u),*];

            /// The unit's code as numpy writes it (`"ns"`, `"D"`, ...; `""` for generic).
            pub fn code(self) -> &'static str {
                match self {
                    $(TimeUnit::$u => $code,)*
                }
            }

            /// numpy's plural name of the unit, as `str(np.timedelta64(...))` writes it.
            pub(crate) fn plural_name(self) -> &'static str {
                match self {
                    $(TimeUnit::$u => $plural,)*
                }
            }
        }
    };
}

time_units! {
    /// No unit (`M8` alone); numpy can only hold NaT in such arrays.
    Generic = "", "generic time units";
    Year = "Y", "years";
    Month = "M", "months";
    Week = "W", "weeks";
    Day = "D", "days";
    Hour = "h", "hours";
    Minute = "m", "minutes";
    Second = "s", "seconds";
    Millisecond = "ms", "milliseconds";
    Microsecond = "us", "microseconds";
    Nanosecond = "ns", "nanoseconds";
    Picosecond = "ps", "picoseconds";
    Femtosecond = "fs", "femtoseconds";
    Attosecond = "as", "attoseconds";
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
/// Build one by parsing (`"<f4".parse::<DType>()`, `"[('x', '<f4'), ('id', '<i8')]".parse()`)
/// or from its parts; `Display` writes the descr as numpy writes it in a header.
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
    /// An `ml_dtypes` type (bfloat16, float8, int4, …), which numpy writes (as `Display` does)
    /// as `'<V2'`, `'<V1'` or `'<f1'` ([`MlType::type_str`]): parsing gives one only for `'<f1'`
    /// in a header (`float8_e5m2`), a hint does ([`DType::with_hint`]).
    Ml(MlType),
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
    /// The field name (`''` allowed for a non-void field): a [`CompactString`], a `str` by deref
    /// holding up to 24 bytes inline, so a wide header parses without an allocation per field.
    pub name: CompactString,
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
    /// Boxed, not a `Vec`: 8 bytes less in every [`DType`], so in every field of a wide record.
    shape: Box<[u64]>,
    itemsize: u64,
}

impl SubArray {
    /// A subarray of `shape` elements of `base`.
    ///
    /// # Errors
    /// [`DescrError::Invalid`] when the shape is empty (numpy turns `(dtype, ())` into the plain
    /// dtype; use `base` itself) or when its size overflows 64 bits.
    pub fn new(base: DType, shape: Vec<u64>) -> Result<SubArray, DescrError> {
        // The first is numpy's "invalid itemsize in generic type tuple".
        let reason = if base.is_unsized() {
            "a subarray of a zero-width string or void"
        } else if shape.len() > MAX_DIMS {
            "subarray has more than 64 dimensions (numpy's limit)"
        } else if shape.is_empty() {
            "a subarray needs a non-empty shape"
        } else if let Some(itemsize) = checked_product(base.itemsize(), &shape) {
            return Ok(SubArray {
                base: Box::new(base),
                shape: shape.into_boxed_slice(),
                itemsize,
            });
        } else {
            "subarray size overflows 64 bits"
        };
        Err(descr_error(&base.to_string(), reason))
    }

    /// The element dtype (itself a subarray for a subarray of subarrays, as numpy keeps it).
    pub fn base(&self) -> &DType {
        &self.base
    }

    /// The subarray's shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The full shape and the innermost base, as numpy flattens a subarray of subarrays:
    /// `(('<f8', (5,)), (2,))` is 2 × 5 `'<f8'`, `([2, 5], '<f8')`.
    pub fn flatten(&self) -> (Vec<u64>, &DType) {
        let mut shape = self.shape.to_vec();
        let mut base = &*self.base;
        while let DType::SubArray(inner) = base {
            shape.extend_from_slice(&inner.shape);
            base = &inner.base;
        }
        (shape, base)
    }
}

impl Record {
    /// A record from fields with explicit offsets and a total `itemsize` in bytes.
    ///
    /// # Errors
    /// [`DescrError::Invalid`] for a repeated name or title, fields out of offset order or
    /// overlapping, or a field that ends past `itemsize`.
    pub fn new(fields: Vec<Field>, itemsize: u64) -> Result<Record, DescrError> {
        // Names already in strictly increasing order without titles (`f0`, `f1`, ... and most
        // wide records) are distinct as they stand: one pass.
        let increasing = fields.iter().all(|f| f.title.is_none())
            && fields
                .windows(2)
                .all(|w| w[0].name.as_str() < w[1].name.as_str());
        if !increasing {
            check_unique_labels(&fields)?;
        }
        let end = fields.iter().try_fold(0u64, |end, f| {
            let bad = |reason: &str| descr_error(&f.name, reason);
            if f.offset < end {
                return Err(bad(
                    "fields overlap or are out of offset order, which a descr cannot express",
                ));
            }
            let end = f.offset.checked_add(f.dtype.itemsize());
            end.ok_or_else(|| bad("field offset overflows 64 bits"))
        })?;
        if end > itemsize {
            let reason = format!("fields need {end} bytes, more than the itemsize {itemsize}");
            return Err(descr_error("record", &reason));
        }
        Ok(Record { fields, itemsize })
    }

    /// A record of fields [`RecordBuilder`] placed one after the other (so in order, without
    /// overlap, within `itemsize`): only the labels are checked, and not even those when the
    /// builder saw the names strictly increasing without titles (`names_increasing`).
    pub(crate) fn sequential(
        fields: Vec<Field>,
        itemsize: u64,
        names_increasing: bool,
    ) -> Result<Record, DescrError> {
        if !names_increasing {
            check_unique_labels(&fields)?;
        }
        debug_assert!(Record::new(fields.clone(), itemsize).is_ok());
        Ok(Record { fields, itemsize })
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
            DType::Time(..) | DType::Object => 8,
            DType::Bytes(n) | DType::Void(n) => *n,
            DType::Unicode(n, _) => n.saturating_mul(4),
            DType::Record(r) => r.itemsize,
            DType::SubArray(s) => s.itemsize,
            DType::Ml(t) => t.itemsize(),
        }
    }

    /// The number dtype `p` in the machine's byte order (`|` for one byte), as numpy writes it.
    pub(crate) fn native_number(p: Primitive) -> DType {
        match p.itemsize() {
            1 => DType::Number(p, ByteOrder::NotApplicable),
            _ => DType::Number(p, ByteOrder::NATIVE),
        }
    }

    /// Whether this is `S0`, `U0` or `V0`: a flexible type numpy sizes from `(type, n)` only.
    pub(crate) fn is_unsized(&self) -> bool {
        matches!(
            self,
            DType::Bytes(0) | DType::Unicode(0, _) | DType::Void(0)
        )
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
            DType::Ml(t) => t.kind(),
        }
    }

    /// Whether `pred` holds for the dtype or any part of it (a field's dtype, a subarray's
    /// base) at any depth: the one walk of the `has_*` questions below.
    pub(crate) fn any_part(&self, pred: &impl Fn(&DType) -> bool) -> bool {
        pred(self)
            || match self {
                DType::Record(r) => r.fields.iter().any(|f| f.dtype.any_part(pred)),
                DType::SubArray(s) => s.base.any_part(pred),
                _ => false,
            }
    }

    /// Whether any part of the dtype is an object: such data is a pickle, which cannot be read
    /// without executing code.
    pub fn has_object(&self) -> bool {
        self.any_part(&|d| matches!(d, DType::Object))
    }

    /// Whether any part of the dtype is `b1`.
    pub(crate) fn has_bool(&self) -> bool {
        self.any_part(&|d| matches!(d, DType::Number(Primitive::Bool, _)))
    }

    /// Whether an element of the dtype has bytes outside every field: gaps between a record's
    /// fields or after the last (padding of `align=True`, explicit offsets, the unselected
    /// fields of a multi-field view), at any depth.
    pub(crate) fn has_gaps(&self) -> bool {
        self.any_part(&|d| match d {
            DType::Record(r) => {
                let sizes = r.fields.iter().map(|f| f.dtype.itemsize());
                sizes.fold(0, u64::saturating_add) < r.itemsize
            }
            _ => false,
        })
    }

    /// The first `b1` byte of `data` (whole elements of this dtype) that is not 0 or 1 (the codec
    /// rule): its offset in `data` and its value. Other fields' bytes and padding are not read.
    pub(crate) fn first_noncanonical_bool(&self, data: &[u8]) -> Option<(usize, u8)> {
        let size = usize::try_from(self.itemsize()).ok()?;
        let is_bool = |d: &DType| matches!(d, DType::Number(Primitive::Bool, _));
        match self {
            // A bool array, or bool subarrays: every byte is a bool.
            DType::Number(Primitive::Bool, _) => first_noncanonical_bool(data),
            DType::SubArray(s) if is_bool(&s.base) => first_noncanonical_bool(data),
            _ if size == 0 || !self.has_bool() => None,
            DType::SubArray(s) => s.base.first_noncanonical_bool(data),
            DType::Record(r) => data.chunks_exact(size).enumerate().find_map(|(i, record)| {
                r.fields.iter().find_map(|f| {
                    let start = usize::try_from(f.offset).ok()?;
                    let end = start.checked_add(usize::try_from(f.dtype.itemsize()).ok()?)?;
                    let (at, byte) = f.dtype.first_noncanonical_bool(record.get(start..end)?)?;
                    Some((i * size + start + at, byte))
                })
            }),
            _ => None,
        }
    }

    /// `'<c8' (complex64)`: the descr and its canonical name, for messages.
    pub(crate) fn describe(&self) -> String {
        match (self, self.canonical()) {
            (DType::Ml(t), _) => format!("'{self}' ({t})"),
            (_, Some(c)) => format!("'{self}' ({c})"),
            (_, None) => format!("'{self}'"),
        }
    }

    /// The dtype read with `hint`: [`DType::Ml`] of the hint when this dtype is what `np.save`
    /// writes for it (`|V2` for bfloat16, `|V1` for the 1-byte kinds, `<f1`/`float8_e5m2`
    /// itself), else `None`. A dtype that already is an [`MlType`] takes another hint of the
    /// same size (a `<f1` file read as `float8_e4m3fn` is not; the `<f1` descr is e5m2's).
    pub fn with_hint(&self, hint: MlType) -> Option<DType> {
        match self {
            DType::Void(n) if *n == hint.itemsize() => Some(DType::Ml(hint)),
            DType::Ml(t) if *t == hint => Some(DType::Ml(hint)),
            DType::Ml(MlType::Float8E5M2) => None,
            DType::Ml(t) if t.itemsize() == hint.itemsize() => Some(DType::Ml(hint)),
            _ => None,
        }
    }

    /// The same dtype with every multi-byte part in `order` (`NotApplicable` parts stay as they
    /// are; `order` `NotApplicable` leaves the dtype unchanged).
    #[must_use]
    pub fn with_byte_order(&self, order: ByteOrder) -> DType {
        if order == ByteOrder::NotApplicable {
            return self.clone();
        }
        match self {
            DType::Number(p, o) if *o != ByteOrder::NotApplicable => DType::Number(*p, order),
            DType::Time(t, _) => DType::Time(*t, order),
            DType::Unicode(n, _) => DType::Unicode(*n, order),
            DType::Record(r) => {
                let mut r = r.clone();
                r.fields
                    .iter_mut()
                    .for_each(|f| f.dtype = f.dtype.with_byte_order(order));
                DType::Record(r)
            }
            DType::SubArray(s) => DType::SubArray(SubArray {
                base: Box::new(s.base.with_byte_order(order)),
                shape: s.shape.clone(),
                itemsize: s.itemsize,
            }),
            other => other.clone(),
        }
    }
}

/// [`DescrError::Invalid`] for a repeated name or title: sorts the labels and compares
/// neighbours (no hashing of file-controlled strings, O(n log n) whatever they are).
fn check_unique_labels(fields: &[Field]) -> Result<(), DescrError> {
    let mut labels: Vec<&str> = fields
        .iter()
        .flat_map(|f| std::iter::once(f.name.as_str()).chain(f.title.as_deref()))
        .collect();
    labels.sort_unstable();
    let Some(w) = labels.windows(2).find(|w| w[0] == w[1]) else {
        return Ok(());
    };
    let reason = format!("field name or title {:?} is used twice", w[0]);
    Err(descr_error(w[0], &reason))
}
