//! Arrow → numpy: a schema to a dtype (widths of strings found by looking at the values), and
//! batches to the `.npy` data bytes of that dtype.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, DurationMicrosecondType, DurationMillisecondType,
    DurationNanosecondType, DurationSecondType, Float16Type, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit as ArrowUnit};
use npy_core::dtype::Field as NpyField;
use npy_core::{
    dtype::{Primitive, Record, SubArray, TimeKind, TimeType, TimeUnit},
    ByteOrder, DType,
};

use crate::error::{overflow, value_error, Error, ErrorKind};
use crate::to_arrow::{
    schema_for, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY, FIXED_SHAPE_TENSOR, NUMPY_DESCR_KEY,
    NUMPY_SHAPE_KEY,
};

/// How Arrow values numpy cannot hold are written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FromArrowOptions {
    /// The value written for a null in a number, bool or string column (`None`: such a null is
    /// [`ErrorKind::Nulls`]). Integer columns take it exactly when it is an integer in their
    /// range (a [`FillValue::Int`] as is, a [`FillValue::Float`] when integral), float columns
    /// take it rounded to their precision, bools take `fill != 0`, strings and bytes the empty
    /// string. Time columns always write NaT. A fill an integer column cannot hold is
    /// [`ErrorKind::Value`] at the first null's row.
    pub fill: Option<FillValue>,
    /// A batch of one column becomes a plain array (its name is dropped), not a record of one
    /// field. On by default ([`FromArrowOptions::new`]).
    pub single_column_plain: bool,
    /// Widest string column planned: a `U` width in characters (4 bytes each in `.npy`), an
    /// `S` width in bytes (default [`MAX_STRING_WIDTH`]). A column's width is its longest
    /// value's, and every row takes it; a wider value is [`ErrorKind::Budget`].
    pub max_string_width: u64,
}

/// The widest `U` (characters) or `S` (bytes) column planned by default: numpy gives every
/// row of a string column the longest value's width, so one long value sizes all rows (a 68 KB
/// Parquet file of 100,000 strings, one of 1 Mi characters, planned 400 GB of `U1048576`).
/// The output budget ([`crate::OUTPUT_EXPANSION`]) bounds the rows × width; this bounds one
/// row (4 MiB of `U`), the least a conversion holds in memory at once. Raised by
/// [`FromArrowOptions::max_string_width`].
pub const MAX_STRING_WIDTH: u64 = 1 << 20;

impl Default for FromArrowOptions {
    /// No fill, one column → a record of one field (as the derived default was), the default
    /// string width budget.
    fn default() -> Self {
        FromArrowOptions {
            fill: None,
            single_column_plain: false,
            max_string_width: MAX_STRING_WIDTH,
        }
    }
}

impl FromArrowOptions {
    /// No fill; one column → a plain array.
    pub fn new() -> Self {
        FromArrowOptions {
            fill: None,
            single_column_plain: true,
            max_string_width: MAX_STRING_WIDTH,
        }
    }

    /// Nulls in number, bool and string columns are written as `fill` (see the field): an
    /// `i64`, `u64` or `f64`, or a [`FillValue`] parsed from text (`"9007199254740993"` stays
    /// exact for 64-bit integer columns).
    #[must_use]
    pub fn fill(mut self, fill: impl Into<FillValue>) -> Self {
        self.fill = Some(fill.into());
        self
    }
}

/// The value [`FromArrowOptions::fill`] writes for nulls, kept as given: an integer is not
/// rounded through `f64` (2^53 + 1 stays 2^53 + 1 in an `int64` column).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FillValue {
    /// An integer, exact for every 64-bit signed and unsigned column (the range of `i128` is
    /// accepted here; a column that cannot hold it refuses it).
    Int(i128),
    /// A float (rounded to `f32`/`f16` for such columns; integer columns take it only when
    /// it is integral, in range and below 2^53 in magnitude, where floats are exact).
    Float(f64),
}

impl FillValue {
    /// The fill as an integer of type `T`, if it is one `T` holds exactly.
    fn int<T: TryFrom<i128>>(self) -> Option<T> {
        match self {
            FillValue::Int(i) => T::try_from(i).ok(),
            // Integral floats below 2^53 are the integers they were written as; from it, a
            // float is the nearest of every 2nd, 4th, ... integer, so `9007199254740993.0`
            // arrives as ...992: refused, as numpy's `int64('9007199254740993.0')` is, rather
            // than written rounded (an integer fill is written exactly).
            #[allow(
                clippy::cast_possible_truncation,
                reason = "checked integral and below 2^53"
            )]
            FillValue::Float(f) if f.fract() == 0.0 && f.abs() < 2f64.powi(53) => {
                T::try_from(f as i128).ok()
            }
            FillValue::Float(_) => None,
        }
    }

    /// The fill as a float (an integer rounded to the nearest `f64`, as numpy casts).
    #[allow(
        clippy::cast_precision_loss,
        reason = "a float column rounds, as numpy's cast"
    )]
    fn float(self) -> f64 {
        match self {
            FillValue::Int(i) => i as f64,
            FillValue::Float(f) => f,
        }
    }

    /// `fill != 0`, what a bool column takes (NaN is `true`, as Python's `bool`).
    fn truthy(self) -> bool {
        match self {
            FillValue::Int(i) => i != 0,
            FillValue::Float(f) => f != 0.0,
        }
    }
}

impl std::fmt::Display for FillValue {
    /// The integer's digits, or the float in Rust's shortest round-trip form with an exponent
    /// where that is shorter (`1e300`, not 301 digits).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FillValue::Int(i) => write!(f, "{i}"),
            FillValue::Float(x) => write!(f, "{x:?}"),
        }
    }
}

impl std::str::FromStr for FillValue {
    type Err = std::num::ParseFloatError;

    /// An integer's text (optionally signed) as [`FillValue::Int`], exactly; any other number
    /// Rust's `f64` parser takes (`1.5`, `1e300`, `nan`, `-inf`) as [`FillValue::Float`].
    ///
    /// # Errors
    /// The `f64` parser's error for text that is no number.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.parse::<i128>() {
            Ok(i) => Ok(FillValue::Int(i)),
            Err(_) => s.parse::<f64>().map(FillValue::Float),
        }
    }
}

impl From<f64> for FillValue {
    fn from(f: f64) -> Self {
        FillValue::Float(f)
    }
}

impl From<i64> for FillValue {
    fn from(i: i64) -> Self {
        FillValue::Int(i.into())
    }
}

impl From<u64> for FillValue {
    fn from(i: u64) -> Self {
        FillValue::Int(i.into())
    }
}

/// What a column becomes in numpy; string widths grow as batches are observed.
#[derive(Debug, Clone)]
enum Plan {
    Number(Primitive),
    Complex(Primitive),
    Time(TimeType),
    Str { chars: u64, kind: StrKind },
    Bytes { len: u64, kind: StrKind },
    Void(u64),
    Struct(Vec<(String, Plan)>),
    Tensor { shape: Vec<u64>, item: Box<Plan> },
}

#[derive(Debug, Clone, Copy)]
enum StrKind {
    Small,
    Large,
    View,
}

fn native(p: Primitive) -> DType {
    let order = if p.itemsize() == 1 {
        ByteOrder::NotApplicable
    } else {
        ByteOrder::NATIVE
    };
    DType::Number(p, order)
}

#[cold]
fn unsupported(column: &str, dt: &DataType, reason: &str) -> Error {
    Error::new(ErrorKind::UnsupportedArrowType {
        column: column.to_owned(),
        data_type: dt.to_string(),
        reason: reason.to_owned(),
    })
}

fn time(kind: TimeKind, u: ArrowUnit) -> Plan {
    let unit = match u {
        ArrowUnit::Second => TimeUnit::Second,
        ArrowUnit::Millisecond => TimeUnit::Millisecond,
        ArrowUnit::Microsecond => TimeUnit::Microsecond,
        ArrowUnit::Nanosecond => TimeUnit::Nanosecond,
    };
    Plan::Time(TimeType {
        kind,
        unit,
        multiplier: 1,
    })
}

/// The shape of a `FixedSizeList` field: its tensor extension's `shape`, or `[size]`.
fn list_shape(field: &Field, size: i32) -> Result<Vec<u64>, Error> {
    let name = field.name();
    let size = u64::try_from(size)
        .map_err(|_| unsupported(name, field.data_type(), "negative list size"))?;
    if field.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) != Some(FIXED_SHAPE_TENSOR) {
        return Ok(vec![size]);
    }
    let bad = |why: &str| unsupported(name, field.data_type(), why);
    let meta = field
        .metadata()
        .get(EXTENSION_METADATA_KEY)
        .ok_or_else(|| bad("fixed_shape_tensor without metadata"))?;
    let json: serde_json::Value = serde_json::from_str(meta)
        .map_err(|e| bad(&format!("fixed_shape_tensor metadata is not JSON: {e}")))?;
    let shape: Vec<u64> = json
        .get("shape")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| bad("fixed_shape_tensor metadata has no shape list"))?
        .iter()
        .map(serde_json::Value::as_u64)
        .collect::<Option<_>>()
        .ok_or_else(|| bad("fixed_shape_tensor shape holds a non-integer"))?;
    if shape.is_empty() || shape.len() > 32 {
        return Err(bad("fixed_shape_tensor shape must have 1 to 32 dimensions"));
    }
    if let Some(perm) = json
        .get("permutation")
        .and_then(serde_json::Value::as_array)
    {
        let identity = perm
            .iter()
            .enumerate()
            .all(|(i, p)| p.as_u64() == Some(i as u64));
        if !identity {
            return Err(bad(
                "a permuted fixed_shape_tensor (the logical layout differs from the storage); \
                 only the identity permutation is read",
            ));
        }
    }
    let product = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    if product != Some(size) {
        return Err(bad(&format!(
            "fixed_shape_tensor shape {shape:?} does not hold the list size {size}"
        )));
    }
    Ok(shape)
}

fn plan_for(field: &Field, column: &str) -> Result<Plan, Error> {
    let dt = field.data_type();
    Ok(match dt {
        DataType::Boolean => Plan::Number(Primitive::Bool),
        DataType::Int8 => Plan::Number(Primitive::I8),
        DataType::Int16 => Plan::Number(Primitive::I16),
        DataType::Int32 => Plan::Number(Primitive::I32),
        DataType::Int64 => Plan::Number(Primitive::I64),
        DataType::UInt8 => Plan::Number(Primitive::U8),
        DataType::UInt16 => Plan::Number(Primitive::U16),
        DataType::UInt32 => Plan::Number(Primitive::U32),
        DataType::UInt64 => Plan::Number(Primitive::U64),
        DataType::Float16 => Plan::Number(Primitive::F16),
        DataType::Float32 => Plan::Number(Primitive::F32),
        DataType::Float64 => Plan::Number(Primitive::F64),
        DataType::Timestamp(u, _) => time(TimeKind::Datetime, *u),
        DataType::Duration(u) => time(TimeKind::Timedelta, *u),
        DataType::Date32 => Plan::Time(TimeType {
            kind: TimeKind::Datetime,
            unit: TimeUnit::Day,
            multiplier: 1,
        }),
        DataType::Date64 => time(TimeKind::Datetime, ArrowUnit::Millisecond),
        DataType::Utf8 => Plan::Str {
            chars: 1,
            kind: StrKind::Small,
        },
        DataType::LargeUtf8 => Plan::Str {
            chars: 1,
            kind: StrKind::Large,
        },
        DataType::Utf8View => Plan::Str {
            chars: 1,
            kind: StrKind::View,
        },
        DataType::Binary => Plan::Bytes {
            len: 1,
            kind: StrKind::Small,
        },
        DataType::LargeBinary => Plan::Bytes {
            len: 1,
            kind: StrKind::Large,
        },
        DataType::BinaryView => Plan::Bytes {
            len: 1,
            kind: StrKind::View,
        },
        DataType::FixedSizeBinary(n) => {
            Plan::Void(u64::try_from(*n).map_err(|_| unsupported(column, dt, "negative width"))?)
        }
        DataType::Struct(fields) => {
            let complex = fields.len() == 2
                && fields[0].name() == "re"
                && fields[1].name() == "im"
                && fields[0].data_type() == fields[1].data_type();
            match (complex, fields.first().map(|f| f.data_type())) {
                (true, Some(DataType::Float32)) => Plan::Complex(Primitive::C64),
                (true, Some(DataType::Float64)) => Plan::Complex(Primitive::C128),
                _ => {
                    if fields.is_empty() {
                        return Err(unsupported(column, dt, "a struct without fields"));
                    }
                    let mut out = Vec::with_capacity(fields.len());
                    for f in fields {
                        let path = format!("{column}.{}", f.name());
                        out.push((f.name().clone(), plan_for(f, &path)?));
                    }
                    Plan::Struct(out)
                }
            }
        }
        DataType::FixedSizeList(item, size) => {
            let shape = list_shape(field, *size)?;
            let item = plan_for(item, &format!("{column}.item"))?;
            if matches!(item, Plan::Tensor { .. }) {
                return Err(unsupported(
                    column,
                    dt,
                    "a list of lists (nest shapes in one tensor)",
                ));
            }
            Plan::Tensor {
                shape,
                item: Box::new(item),
            }
        }
        DataType::Null => {
            return Err(unsupported(
                column,
                dt,
                "a column of only nulls has no numpy type (give it one in Arrow first)",
            ))
        }
        _ => {
            return Err(unsupported(
                column,
                dt,
                "not in the mapping (numbers, bool, Timestamp, Duration, Date32/64, \
                 Utf8, Binary, FixedSizeBinary, Struct, FixedSizeList)",
            ))
        }
    })
}

impl Plan {
    fn dtype(&self) -> Result<DType, Error> {
        Ok(match self {
            Plan::Number(p) | Plan::Complex(p) => native(*p),
            Plan::Time(t) => DType::Time(*t, ByteOrder::NATIVE),
            Plan::Str { chars, .. } => DType::Unicode(*chars, ByteOrder::NATIVE),
            Plan::Bytes { len, .. } => DType::Bytes(*len),
            Plan::Void(n) => DType::Void(*n),
            Plan::Struct(fields) => {
                repeated_name(fields)?;
                let mut out = Vec::with_capacity(fields.len());
                let mut offset = 0u64;
                for (name, plan) in fields {
                    let dtype = plan.dtype()?;
                    let size = dtype.itemsize();
                    out.push(NpyField {
                        name: name.as_str().into(),
                        title: None,
                        dtype,
                        offset,
                    });
                    offset = offset
                        .checked_add(size)
                        .ok_or_else(|| overflow("record size", name.clone()))?;
                }
                DType::Record(Record::new(out, offset).map_err(npy_core::Error::from)?)
            }
            Plan::Tensor { shape, item } => DType::SubArray(
                SubArray::new(item.dtype()?, shape.clone()).map_err(npy_core::Error::from)?,
            ),
        })
    }

    /// Widens the string widths to hold `array`'s values (of column `column`), refusing one
    /// past `limit`.
    fn observe(&mut self, array: &dyn Array, column: &str, limit: u64) -> Result<(), Error> {
        let over = |width: u64, what: &str| {
            if width <= limit {
                return Ok(());
            }
            Err(Error::new(ErrorKind::Budget {
                what: format!("column {column:?}'s longest value, in {what},"),
                needed: width,
                limit,
                option: "FromArrowOptions::max_string_width",
            }))
        };
        match self {
            Plan::Str { chars, kind } => {
                let longest = |it: &mut dyn Iterator<Item = Option<&str>>| {
                    it.flatten()
                        .map(|s| s.chars().count() as u64)
                        .max()
                        .unwrap_or(0)
                };
                let n = match kind {
                    StrKind::Small => longest(&mut array.as_string::<i32>().iter()),
                    StrKind::Large => longest(&mut array.as_string::<i64>().iter()),
                    StrKind::View => longest(&mut array.as_string_view().iter()),
                };
                over(n, "characters")?;
                *chars = (*chars).max(n);
            }
            Plan::Bytes { len, kind } => {
                let longest = |it: &mut dyn Iterator<Item = Option<&[u8]>>| {
                    it.flatten().map(|s| s.len() as u64).max().unwrap_or(0)
                };
                let n = match kind {
                    StrKind::Small => longest(&mut array.as_binary::<i32>().iter()),
                    StrKind::Large => longest(&mut array.as_binary::<i64>().iter()),
                    StrKind::View => longest(&mut array.as_binary_view().iter()),
                };
                over(n, "bytes")?;
                *len = (*len).max(n);
            }
            Plan::Struct(fields) => {
                let s = array.as_struct();
                for (i, (name, plan)) in fields.iter_mut().enumerate() {
                    plan.observe(s.column(i).as_ref(), &format!("{column}.{name}"), limit)?;
                }
            }
            Plan::Tensor { item, .. } => item.observe(
                array.as_fixed_size_list().values().as_ref(),
                &format!("{column}.item"),
                limit,
            )?,
            _ => {}
        }
        Ok(())
    }
}

/// Where encoded values go: element `i` at `offset + i * stride` of `out`.
struct Out<'a> {
    bytes: &'a mut [u8],
    stride: usize,
    offset: usize,
}

impl Out<'_> {
    #[inline]
    fn put(&mut self, i: usize, bytes: &[u8]) {
        let at = self.offset + i * self.stride;
        self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
    }
}

/// Context of the column being encoded, for error messages.
struct Ctx<'a> {
    column: &'a str,
    first_row: u64,
    fill: Option<FillValue>,
}

impl Ctx<'_> {
    fn nulls(&self, array: &dyn Array, dtype: &str) -> Result<(), Error> {
        if self.fill.is_some() {
            return Ok(());
        }
        match self.first_null(array) {
            Some((nulls, first_row)) => Err(Error::new(ErrorKind::Nulls {
                column: self.column.to_owned(),
                nulls,
                first_row,
                dtype: dtype.to_owned(),
            })),
            None => Ok(()),
        }
    }

    /// Refuses any null row of the struct or list `array`, fill or not (a null record or list
    /// row has no value to fill: [`ErrorKind::NullRows`]), naming the row of the first.
    fn no_nulls(&self, array: &dyn Array, dtype: &str) -> Result<(), Error> {
        match self.first_null(array) {
            Some((nulls, first_row)) => Err(Error::new(ErrorKind::NullRows {
                column: self.column.to_owned(),
                nulls,
                first_row,
                dtype: dtype.to_owned(),
            })),
            None => Ok(()),
        }
    }

    /// How many nulls `array` holds and the input row of the first, if it holds any.
    fn first_null(&self, array: &dyn Array) -> Option<(usize, u64)> {
        if array.null_count() == 0 {
            return None;
        }
        let first = (0..array.len()).find(|&i| array.is_null(i)).unwrap_or(0);
        Some((array.null_count(), self.first_row + first as u64))
    }
}

/// Refuses two columns (or struct children) of one record with the same name, which numpy's
/// record cannot hold, naming the name and both positions (sorted, O(n log n)).
fn repeated_name(fields: &[(String, Plan)]) -> Result<(), Error> {
    let mut names: Vec<(&str, usize)> = fields
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    names.sort_unstable();
    match names.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => Err(Error::new(ErrorKind::Invalid(format!(
            "two columns named {:?} (at positions {} and {} of one table or struct): a numpy \
             record needs distinct field names",
            w[0].0, w[0].1, w[1].1
        )))),
        None => Ok(()),
    }
}

/// A fill value as `T`, or `None` when `T` cannot hold it.
trait Fill: Sized {
    fn fill(f: FillValue) -> Option<Self>;
}
macro_rules! fill_int {
    ($($t:ty),*) => {$(
        impl Fill for $t {
            fn fill(f: FillValue) -> Option<Self> {
                f.int()
            }
        }
    )*};
}
fill_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl Fill for f32 {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "a f4 column rounds the fill"
    )]
    fn fill(f: FillValue) -> Option<Self> {
        Some(f.float() as f32)
    }
}
impl Fill for f64 {
    fn fill(f: FillValue) -> Option<Self> {
        Some(f.float())
    }
}
impl Fill for half::f16 {
    fn fill(f: FillValue) -> Option<Self> {
        Some(half::f16::from_f64(f.float()))
    }
}

trait NeBytes: Copy {
    type Bytes: AsRef<[u8]>;
    fn ne_bytes(self) -> Self::Bytes;
}
macro_rules! ne_bytes {
    ($($t:ty),*) => {$(
        impl NeBytes for $t {
            type Bytes = [u8; std::mem::size_of::<$t>()];
            #[inline]
            fn ne_bytes(self) -> Self::Bytes { self.to_ne_bytes() }
        }
    )*};
}
ne_bytes!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, half::f16);

fn numbers<P: ArrowPrimitiveType>(
    array: &dyn Array,
    out: &mut Out<'_>,
    ctx: &Ctx<'_>,
    dtype: &str,
) -> Result<(), Error>
where
    P::Native: NeBytes + Fill,
{
    ctx.nulls(array, dtype)?;
    let a = array.as_primitive::<P>();
    let values = a.values();
    if a.null_count() == 0 {
        for (i, v) in values.iter().enumerate() {
            out.put(i, v.ne_bytes().as_ref());
        }
        return Ok(());
    }
    // `nulls` returned early without a fill.
    let f = ctx.fill.unwrap_or(FillValue::Int(0));
    let fill = P::Native::fill(f).ok_or_else(|| {
        let first = (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0);
        value_error(
            ctx.column,
            ctx.first_row + first as u64,
            format!(
                "a null, and the fill {f} (`--fill`, `FromArrowOptions::fill`) does not fit \
                 {dtype}"
            ),
        )
    })?;
    for (i, v) in values.iter().enumerate() {
        let v = if a.is_null(i) { fill } else { *v };
        out.put(i, v.ne_bytes().as_ref());
    }
    Ok(())
}

/// Ticks, NaT for nulls.
fn ticks<P: ArrowPrimitiveType>(array: &dyn Array, out: &mut Out<'_>)
where
    P::Native: Into<i64>,
{
    let a = array.as_primitive::<P>();
    for (i, v) in a.values().iter().enumerate() {
        let t: i64 = if a.is_null(i) { i64::MIN } else { (*v).into() };
        out.put(i, &t.to_ne_bytes());
    }
}

#[cold]
fn too_long(ctx: &Ctx<'_>, i: usize, dtype: &str) -> Error {
    value_error(
        ctx.column,
        ctx.first_row + i as u64,
        format!("longer than {dtype}, the width planned from the batches observed"),
    )
}

fn encode(
    plan: &Plan,
    field: &Field,
    array: &dyn Array,
    out: &mut Out<'_>,
    ctx: &Ctx<'_>,
) -> Result<(), Error> {
    let dtype = plan.dtype()?.to_string();
    match (plan, field.data_type()) {
        (Plan::Number(Primitive::Bool), _) => {
            ctx.nulls(array, &dtype)?;
            let a = array.as_boolean();
            let fill = ctx.fill.is_some_and(FillValue::truthy);
            for i in 0..a.len() {
                let v = if a.is_null(i) { fill } else { a.value(i) };
                out.put(i, &[u8::from(v)]);
            }
        }
        (Plan::Number(_), DataType::Int8) => numbers::<Int8Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Int16) => numbers::<Int16Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Int32) => numbers::<Int32Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Int64) => numbers::<Int64Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::UInt8) => numbers::<UInt8Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::UInt16) => numbers::<UInt16Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::UInt32) => numbers::<UInt32Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::UInt64) => numbers::<UInt64Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Float16) => numbers::<Float16Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Float32) => numbers::<Float32Type>(array, out, ctx, &dtype)?,
        (Plan::Number(_), DataType::Float64) => numbers::<Float64Type>(array, out, ctx, &dtype)?,
        (Plan::Complex(p), DataType::Struct(fields)) => {
            let s = array.as_struct();
            if s.null_count() > 0 {
                ctx.nulls(array, &dtype)?;
            }
            let half = (p.itemsize() / 2) as usize;
            let part = Plan::Number(if half == 4 {
                Primitive::F32
            } else {
                Primitive::F64
            });
            for (k, f) in fields.iter().enumerate() {
                let mut o = Out {
                    bytes: &mut *out.bytes,
                    stride: out.stride,
                    offset: out.offset + k * half,
                };
                encode(&part, f, s.column(k).as_ref(), &mut o, ctx)?;
            }
        }
        (Plan::Time(_), dt) => match dt {
            DataType::Timestamp(ArrowUnit::Second, _) => ticks::<TimestampSecondType>(array, out),
            DataType::Timestamp(ArrowUnit::Millisecond, _) => {
                ticks::<TimestampMillisecondType>(array, out);
            }
            DataType::Timestamp(ArrowUnit::Microsecond, _) => {
                ticks::<TimestampMicrosecondType>(array, out);
            }
            DataType::Timestamp(ArrowUnit::Nanosecond, _) => {
                ticks::<TimestampNanosecondType>(array, out);
            }
            DataType::Duration(ArrowUnit::Second) => ticks::<DurationSecondType>(array, out),
            DataType::Duration(ArrowUnit::Millisecond) => {
                ticks::<DurationMillisecondType>(array, out);
            }
            DataType::Duration(ArrowUnit::Microsecond) => {
                ticks::<DurationMicrosecondType>(array, out);
            }
            DataType::Duration(ArrowUnit::Nanosecond) => {
                ticks::<DurationNanosecondType>(array, out);
            }
            DataType::Date32 => ticks::<Date32Type>(array, out),
            DataType::Date64 => ticks::<Date64Type>(array, out),
            other => return Err(unsupported(ctx.column, other, "planned as time")),
        },
        (Plan::Str { kind, .. }, _) => {
            ctx.nulls(array, &dtype)?;
            let Plan::Str { chars, .. } = plan else {
                unreachable!("matched above")
            };
            let width = *chars as usize;
            let mut cps: Vec<u8> = Vec::with_capacity(width * 4);
            let mut put = |i: usize, s: Option<&str>| -> Result<(), Error> {
                cps.clear();
                for c in s.unwrap_or("").chars() {
                    cps.extend_from_slice(&u32::from(c).to_ne_bytes());
                }
                if cps.len() > width * 4 {
                    return Err(too_long(ctx, i, &dtype));
                }
                out.put(i, &cps);
                Ok(())
            };
            match kind {
                StrKind::Small => array
                    .as_string::<i32>()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
                StrKind::Large => array
                    .as_string::<i64>()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
                StrKind::View => array
                    .as_string_view()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
            }
        }
        (Plan::Bytes { kind, .. }, _) => {
            ctx.nulls(array, &dtype)?;
            let Plan::Bytes { len, .. } = plan else {
                unreachable!("matched above")
            };
            let width = *len as usize;
            let mut put = |i: usize, s: Option<&[u8]>| -> Result<(), Error> {
                let s = s.unwrap_or(&[]);
                if s.len() > width {
                    return Err(too_long(ctx, i, &dtype));
                }
                out.put(i, s);
                Ok(())
            };
            match kind {
                StrKind::Small => array
                    .as_binary::<i32>()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
                StrKind::Large => array
                    .as_binary::<i64>()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
                StrKind::View => array
                    .as_binary_view()
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, s)| put(i, s))?,
            }
        }
        (Plan::Void(_), _) => {
            ctx.nulls(array, &dtype)?;
            let a = array.as_fixed_size_binary();
            for i in 0..a.len() {
                if !a.is_null(i) {
                    out.put(i, a.value(i));
                }
            }
        }
        (Plan::Struct(plans), DataType::Struct(fields)) => {
            ctx.no_nulls(array, &dtype)?;
            let s = array.as_struct();
            let DType::Record(rec) = plan.dtype()? else {
                unreachable!("a struct plan is a record")
            };
            for (k, ((name, p), f)) in plans.iter().zip(fields.iter()).enumerate() {
                let path = format!("{}.{name}", ctx.column);
                let sub = Ctx {
                    column: &path,
                    first_row: ctx.first_row,
                    fill: ctx.fill,
                };
                let mut o = Out {
                    bytes: &mut *out.bytes,
                    stride: out.stride,
                    offset: out.offset + rec.fields()[k].offset as usize,
                };
                encode(p, f, s.column(k).as_ref(), &mut o, &sub)?;
            }
        }
        (Plan::Tensor { item, .. }, DataType::FixedSizeList(item_field, size)) => {
            ctx.no_nulls(array, &dtype)?;
            let a = array.as_fixed_size_list();
            let per = *size as usize;
            let item_size = item.dtype()?.itemsize() as usize;
            let want = a.len() * per;
            let values = list_values(a, want, field, ctx)?;
            // Rows of `per` items, item j of row i at offset + i*stride + j*item_size. When
            // the rows are packed (a plain N-d array), that is one stride.
            if out.stride == per * item_size {
                let mut o = Out {
                    bytes: &mut *out.bytes,
                    stride: item_size,
                    offset: out.offset,
                };
                encode(item, item_field, values.as_ref(), &mut o, ctx)?;
            } else {
                // A subarray field of a record: encode the items packed, then copy each row's
                // block to its place.
                let block = per * item_size;
                if block == 0 {
                    // Rows of no bytes (a list of 0 items, items of 0 bytes): nothing to place.
                    return Ok(());
                }
                let mut packed = vec![0u8; a.len() * block];
                let mut o = Out {
                    bytes: &mut packed,
                    stride: item_size,
                    offset: 0,
                };
                encode(item, item_field, values.as_ref(), &mut o, ctx)?;
                for (i, row) in packed.chunks_exact(block).enumerate() {
                    out.put(i, row);
                }
            }
        }
        (_, other) => return Err(unsupported(ctx.column, other, "does not match its plan")),
    }
    Ok(())
}

/// The first `want` values of the fixed-size-list column `a` (its rows' items), or an error
/// naming the column when the list holds fewer.
fn list_values(
    a: &arrow_array::FixedSizeListArray,
    want: usize,
    field: &Field,
    ctx: &Ctx<'_>,
) -> Result<arrow_array::ArrayRef, Error> {
    if a.values().len() < want {
        return Err(unsupported(
            ctx.column,
            field.data_type(),
            "list values shorter than its rows",
        ));
    }
    Ok(a.values().slice(0, want))
}

/// Places each element of a tensor column `array` (rows of `split` elements, each of the
/// column's `per / split` items) at its own index of `out`: element `e` of row `i` at index
/// `i * split + e`. The fields of an N-d record array: each field's column holds a row's
/// elements' values of that field, and the record holds each element's fields together.
fn encode_elements(
    plan: &Plan,
    field: &Field,
    array: &dyn Array,
    split: usize,
    out: &mut Out<'_>,
    ctx: &Ctx<'_>,
) -> Result<(), Error> {
    let (Plan::Tensor { item, .. }, DataType::FixedSizeList(item_field, size)) =
        (plan, field.data_type())
    else {
        return Err(unsupported(
            ctx.column,
            field.data_type(),
            "not the tensor column numpy's layout needs",
        ));
    };
    let dtype = plan.dtype()?.to_string();
    ctx.no_nulls(array, &dtype)?;
    let a = array.as_fixed_size_list();
    let per = usize::try_from(*size).unwrap_or(0);
    let item_size = usize::try_from(item.dtype()?.itemsize())
        .map_err(|_| overflow("item size", dtype.clone()))?;
    // Checked when the layout was accepted: the list size is `split` × a field's items.
    let block = (per / split.max(1)) * item_size;
    if block == 0 {
        // Elements of no bytes: nothing to place.
        return Ok(());
    }
    let want = a.len() * per;
    let values = list_values(a, want, field, ctx)?;
    let mut packed = vec![0u8; want * item_size];
    let mut o = Out {
        bytes: &mut packed,
        stride: item_size,
        offset: 0,
    };
    encode(item, item_field, values.as_ref(), &mut o, ctx)?;
    for (e, element) in packed.chunks_exact(block).enumerate() {
        out.put(e, element);
    }
    Ok(())
}

/// numpy's layout of the array a table was written from, as its schema metadata states it
/// ([`NUMPY_DESCR_KEY`], [`NUMPY_SHAPE_KEY`]), accepted only when the columns are exactly
/// what the crate's mapping makes of that dtype and shape (names, nesting, tensor shapes, the
/// kind of each leaf). It changes the header and the placement of the bytes, never their
/// count: a row of the table is the same bytes either way, and the rows are the table's.
#[derive(Debug, Clone)]
struct Layout {
    /// The array's shape (`[]` for 0-d); applied only when the table holds its rows.
    shape: Vec<u64>,
    /// Whether the array was a record array (its fields the columns): a record of one field
    /// stays a record, an N-d one keeps its axes outside the fields.
    record: bool,
}

/// Most dimensions of a stated shape (numpy's `NPY_MAXDIMS`); more is not numpy's layout.
const MAX_LAYOUT_DIMS: usize = 64;

impl Layout {
    /// The layout `schema`'s metadata states, if it is there and agrees with `columns` (the
    /// plans of `schema`'s fields); `None` otherwise (a table from elsewhere, or one whose
    /// metadata lies), and the table's columns are read by the mapping alone.
    fn of(schema: &Schema, columns: &[Plan]) -> Option<Layout> {
        let descr: DType = schema.metadata().get(NUMPY_DESCR_KEY)?.parse().ok()?;
        let shape: Vec<u64> = serde_json::from_str(schema.metadata().get(NUMPY_SHAPE_KEY)?).ok()?;
        if shape.len() > MAX_LAYOUT_DIMS
            || descr.has_object()
            || matches!(descr, DType::SubArray(_))
        {
            return None;
        }
        // The columns the mapping makes of this dtype and shape (0-d: one row).
        let rows_shape = if shape.is_empty() {
            vec![1]
        } else {
            shape.clone()
        };
        let first = schema.fields().first()?.name();
        let expected = schema_for(&descr, &rows_shape, first).ok()?;
        if expected.fields().len() != columns.len() {
            return None;
        }
        for ((want, got), plan) in expected.fields().iter().zip(schema.fields()).zip(columns) {
            if want.name() != got.name() || !same_kind(&plan_for(want, want.name()).ok()?, plan) {
                return None;
            }
        }
        let record = matches!(&descr, DType::Record(r) if !r.fields().is_empty());
        Some(Layout { shape, record })
    }

    /// Rows of the table this layout's array has (1 for 0-d).
    fn rows(&self) -> u64 {
        self.shape.first().copied().unwrap_or(1)
    }

    /// Elements of one row (the product of the axes after the first; 1 for 0-d and 1-d).
    fn split(&self) -> Option<u64> {
        self.shape
            .get(1..)
            .unwrap_or(&[])
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
    }
}

/// Whether the plan `got` of a column is of the kind `want` (the plan of the column the
/// mapping makes): the same nesting, names, tensor shapes, widths of `V`, numbers and time
/// kinds; string widths are the values' (both start at 1), and a time unit may differ
/// (Parquet stores seconds as milliseconds).
fn same_kind(want: &Plan, got: &Plan) -> bool {
    match (want, got) {
        (Plan::Number(a), Plan::Number(b)) | (Plan::Complex(a), Plan::Complex(b)) => a == b,
        (Plan::Time(a), Plan::Time(b)) => a.kind == b.kind,
        (Plan::Str { .. }, Plan::Str { .. }) | (Plan::Bytes { .. }, Plan::Bytes { .. }) => true,
        (Plan::Void(a), Plan::Void(b)) => a == b,
        (Plan::Struct(a), Plan::Struct(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((na, pa), (nb, pb))| na == nb && same_kind(pa, pb))
        }
        (
            Plan::Tensor {
                shape: sa,
                item: ia,
            },
            Plan::Tensor {
                shape: sb,
                item: ib,
            },
        ) => sa == sb && same_kind(ia, ib),
        _ => false,
    }
}

/// How the rows of a plan are laid out in `.npy`.
enum Mode {
    /// One column, a plain array (a tensor column's shape after the rows).
    Plain,
    /// A record per row, a field per column.
    Record,
    /// numpy's N-d record array: a row is this many records, each column a tensor holding
    /// that many elements of its field.
    Split(usize),
}

/// What a batch stream becomes: the dtype and row shape of the `.npy` file, found from the
/// schema and (for string widths) every batch shown to [`NpyPlan::observe`].
#[derive(Debug, Clone)]
pub struct NpyPlan {
    schema: Arc<Schema>,
    columns: Vec<Plan>,
    plain: bool,
    /// numpy's layout, when the schema states one that agrees with the columns.
    layout: Option<Layout>,
    rows: u64,
    /// [`FromArrowOptions::max_string_width`].
    max_width: u64,
}

impl NpyPlan {
    /// The plan of `schema`, before any batch is seen.
    ///
    /// # Errors
    /// [`ErrorKind::UnsupportedArrowType`] for a column outside the mapping.
    pub fn new(schema: Arc<Schema>, options: &FromArrowOptions) -> Result<NpyPlan, Error> {
        let columns = schema
            .fields()
            .iter()
            .map(|f| plan_for(f, f.name()))
            .collect::<Result<Vec<_>, _>>()?;
        if columns.is_empty() {
            return Err(Error::new(ErrorKind::Invalid(
                "a batch without columns has no numpy dtype".into(),
            )));
        }
        let plain = options.single_column_plain && columns.len() == 1;
        // A plain array's layout when the caller asked for plain arrays (else a record of one
        // field, as asked); a record array's always.
        let layout = Layout::of(&schema, &columns).filter(|l| l.record || plain);
        Ok(NpyPlan {
            schema,
            columns,
            plain,
            layout,
            rows: 0,
            max_width: options.max_string_width,
        })
    }

    /// Widens string widths to `batch`'s values and counts its rows.
    ///
    /// # Errors
    /// [`ErrorKind::Invalid`] when the batch's schema is not the plan's;
    /// [`ErrorKind::Budget`] for a string wider than [`FromArrowOptions::max_string_width`].
    pub fn observe(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        self.check(batch)?;
        for ((plan, col), field) in self
            .columns
            .iter_mut()
            .zip(batch.columns())
            .zip(self.schema.fields())
        {
            plan.observe(col.as_ref(), field.name(), self.max_width)?;
        }
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    fn check(&self, batch: &RecordBatch) -> Result<(), Error> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::new(ErrorKind::Invalid(format!(
                "batch schema {:?} differs from the first {:?}",
                batch.schema(),
                self.schema
            ))));
        }
        Ok(())
    }

    /// Rows observed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// numpy's layout, when the schema states one and the table holds its rows.
    fn active_layout(&self) -> Option<&Layout> {
        self.layout.as_ref().filter(|l| l.rows() == self.rows)
    }

    fn mode(&self) -> Mode {
        match self.active_layout() {
            Some(l) if l.record && l.shape.len() > 1 => {
                Mode::Split(l.split().and_then(|d| usize::try_from(d).ok()).unwrap_or(0))
            }
            Some(l) if l.record => Mode::Record,
            Some(_) => Mode::Plain,
            None if self.plain => Mode::Plain,
            None => Mode::Record,
        }
    }

    /// The `.npy` dtype and shape for the rows observed: numpy's layout when the schema states
    /// one that agrees with the table (see [`NUMPY_DESCR_KEY`]); else one column → a plain
    /// array (a tensor column → its shape after the rows), several → a record of one field
    /// per column.
    ///
    /// # Errors
    /// npy-core's errors building the dtype (a record over 64-bit sizes).
    pub fn header(&self) -> Result<npy_core::Header, Error> {
        let mut shape = vec![self.rows];
        let named = |plans: Vec<Plan>| -> Vec<(String, Plan)> {
            self.schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .zip(plans)
                .collect()
        };
        let dtype = match self.mode() {
            Mode::Plain => match &self.columns[0] {
                Plan::Tensor { shape: s, item } => {
                    shape.extend_from_slice(s);
                    item.dtype()?
                }
                p => p.dtype()?,
            },
            Mode::Record => Plan::Struct(named(self.columns.clone())).dtype()?,
            Mode::Split(_) => {
                // Each column's tensor shape begins with the array's axes after the first
                // (checked when the layout was accepted); what follows is the field's own.
                let axes = self.active_layout().map_or(0, |l| l.shape.len() - 1);
                let fields = self
                    .columns
                    .iter()
                    .map(|p| match p {
                        Plan::Tensor { shape: s, item } if s.len() > axes => Plan::Tensor {
                            shape: s[axes..].to_vec(),
                            item: item.clone(),
                        },
                        Plan::Tensor { item, .. } => (**item).clone(),
                        other => other.clone(),
                    })
                    .collect();
                Plan::Struct(named(fields)).dtype()?
            }
        };
        if let Some(l) = self.active_layout() {
            shape.clone_from(&l.shape);
        }
        Ok(npy_core::Header::new(dtype, shape))
    }

    /// The data bytes of `batch` in the plan's dtype (native byte order, C order): rows ×
    /// itemsize bytes. `first_row` is the batch's first row in the whole input (for errors).
    ///
    /// # Errors
    /// [`ErrorKind::Nulls`] for a null without a fill, [`ErrorKind::Value`] for a fill value
    /// that does not fit, [`ErrorKind::Invalid`] for a batch of another schema.
    pub fn encode(
        &self,
        batch: &RecordBatch,
        first_row: u64,
        options: &FromArrowOptions,
    ) -> Result<Vec<u8>, Error> {
        self.check(batch)?;
        let header = self.header()?;
        let row_bytes = header
            .shape
            .get(1..)
            .unwrap_or(&[])
            .iter()
            .try_fold(header.dtype.itemsize(), |a, &d| a.checked_mul(d))
            .ok_or_else(|| overflow("row size", header.dtype.to_string()))?;
        let total = (batch.num_rows() as u64)
            .checked_mul(row_bytes)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                overflow(
                    "batch size",
                    format!("{} rows × {row_bytes}", batch.num_rows()),
                )
            })?;
        let mut out = vec![0u8; total];
        let mode = self.mode();
        let offsets: Vec<usize> = match (&header.dtype, &mode) {
            (DType::Record(r), Mode::Record | Mode::Split(_)) => {
                r.fields().iter().map(|f| f.offset as usize).collect()
            }
            _ => vec![0],
        };
        // An N-d record array's records: one every itemsize bytes, `split` per row.
        let (stride, split) = match mode {
            Mode::Split(d) => (header.dtype.itemsize() as usize, Some(d)),
            _ => (row_bytes as usize, None),
        };
        for (k, (plan, col)) in self.columns.iter().zip(batch.columns()).enumerate() {
            let field = &self.schema.fields()[k];
            let ctx = Ctx {
                column: field.name(),
                first_row,
                fill: options.fill,
            };
            let mut o = Out {
                bytes: &mut out,
                stride,
                offset: offsets[k],
            };
            match split {
                Some(d) => encode_elements(plan, field, col.as_ref(), d, &mut o, &ctx)?,
                None => encode(plan, field, col.as_ref(), &mut o, &ctx)?,
            }
        }
        Ok(out)
    }
}
