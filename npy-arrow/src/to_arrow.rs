//! numpy → Arrow: a dtype to an Arrow [`Field`], and an array's data bytes to Arrow arrays,
//! following the table of the crate docs (`lib.rs`), which is written out once, here.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::{
    Date32Type, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType,
    DurationSecondType, Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, FixedSizeBinaryArray,
    FixedSizeListArray, PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray, StructArray,
};
use arrow_buffer::{
    ArrowNativeType, BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit as ArrowUnit};
use npy_core::{
    dtype::{Primitive, TimeKind, TimeType, TimeUnit},
    ByteOrder, DType,
};

use crate::error::{overflow, unsupported_dtype, value_error, Error};

/// Batches of records with at least this many data bytes gather their fields on several
/// threads (below it, starting threads costs more than the gathering).
const PARALLEL_BYTES: usize = 4 << 20;

/// The threads to convert `bytes` bytes on: the machine's cores from [`PARALLEL_BYTES`] on,
/// else 1. The system is asked only for large inputs: `available_parallelism` reads cgroup
/// files (tens of microseconds), which a scan converting small batches one after another
/// paid once per batch (7 % of `npy sql`'s CPU time over 8 shards of 56-byte records).
fn threads_for(bytes: usize) -> usize {
    if bytes < PARALLEL_BYTES {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The extension name of Arrow's canonical fixed-shape tensor type.
pub const FIXED_SHAPE_TENSOR: &str = "arrow.fixed_shape_tensor";
/// The field-metadata key holding an extension type's name.
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
/// The field-metadata key holding an extension type's serialized parameters.
pub const EXTENSION_METADATA_KEY: &str = "ARROW:extension:metadata";

/// The schema-metadata key holding the numpy dtype a table was written from, as numpy writes
/// it in a `.npy` header (`<f4`, `[('x', '<f4'), ('id', '>i8')]`). Written with
/// [`NUMPY_SHAPE_KEY`] by [`crate::convert`] (and [`crate::for_each_batch`]'s schema); read back
/// only when it agrees with the table (see the crate docs' "Round trips").
pub const NUMPY_DESCR_KEY: &str = "numpy:descr";
/// The schema-metadata key holding the shape of the array a table was written from, as a JSON
/// list of integers (`[]` for a 0-d array, `[2, 3]`); see [`NUMPY_DESCR_KEY`].
pub const NUMPY_SHAPE_KEY: &str = "numpy:shape";

/// `schema` with numpy's layout of the array it maps (`dtype`, `shape`) in its metadata
/// ([`NUMPY_DESCR_KEY`], [`NUMPY_SHAPE_KEY`]).
pub(crate) fn with_numpy_layout(schema: &SchemaRef, dtype: &DType, shape: &[u64]) -> SchemaRef {
    let mut metadata = schema.metadata().clone();
    metadata.insert(NUMPY_DESCR_KEY.to_owned(), dtype.to_string());
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    metadata.insert(NUMPY_SHAPE_KEY.to_owned(), format!("[{}]", dims.join(", ")));
    Arc::new(Schema::new_with_metadata(schema.fields().clone(), metadata))
}

/// Where a time value goes in Arrow, and the factor its ticks are multiplied by.
#[derive(Debug, Clone, Copy)]
enum TimeTarget {
    Timestamp(ArrowUnit),
    Duration(ArrowUnit),
    Date32,
}

/// The Arrow type of a `M8`/`m8` dtype and the factor (ticks of the Arrow unit per numpy tick):
/// `s ms us ns` map to the same Arrow unit; `D` datetimes to Date32 (days), `W` to Date32 ×7;
/// `h`/`m` to seconds; timedelta `D`/`W` to seconds. `Y`, `M` (calendar units: no fixed length),
/// `ps fs as` (finer than Arrow's nanoseconds) and generic units are refused.
fn time_target(t: TimeType, dtype: &DType) -> Result<(TimeTarget, i64), Error> {
    use TimeUnit::*;
    let m = i64::from(t.multiplier);
    let (unit, factor) = match t.unit {
        Second => (ArrowUnit::Second, 1),
        Millisecond => (ArrowUnit::Millisecond, 1),
        Microsecond => (ArrowUnit::Microsecond, 1),
        Nanosecond => (ArrowUnit::Nanosecond, 1),
        Minute => (ArrowUnit::Second, 60),
        Hour => (ArrowUnit::Second, 3600),
        Day if t.kind == TimeKind::Datetime => return Ok((TimeTarget::Date32, m)),
        Week if t.kind == TimeKind::Datetime => return Ok((TimeTarget::Date32, m * 7)),
        Day => (ArrowUnit::Second, 86_400),
        Week => (ArrowUnit::Second, 604_800),
        Year | Month => {
            return Err(unsupported_dtype(
                dtype,
                "calendar units (years, months) have no fixed length in an Arrow unit; \
                 convert with astype('M8[D]') first",
            ))
        }
        Picosecond | Femtosecond | Attosecond => {
            return Err(unsupported_dtype(
                dtype,
                "Arrow's finest unit is the nanosecond, so these ticks would be rounded",
            ))
        }
        Generic => {
            return Err(unsupported_dtype(
                dtype,
                "a datetime without a unit holds only NaT in numpy",
            ))
        }
    };
    let target = match t.kind {
        TimeKind::Datetime => TimeTarget::Timestamp(unit),
        TimeKind::Timedelta => TimeTarget::Duration(unit),
    };
    Ok((target, factor * m))
}

/// The Arrow field of a column of `dtype` elements named `name`. Subarrays become
/// `FixedSizeList`s carrying the `arrow.fixed_shape_tensor` extension with their shape.
///
/// # Errors
/// [`ErrorKind::UnsupportedDType`](crate::ErrorKind::UnsupportedDType) for the dtypes the table
/// refuses.
pub fn field_for(name: &str, dtype: &DType) -> Result<Field, Error> {
    if let DType::SubArray(s) = dtype {
        let (shape, base) = s.flatten();
        return tensor_field(name, &field_for("item", base)?, &shape);
    }
    let (data_type, nullable) = data_type_for(dtype)?;
    Ok(Field::new(name, data_type, nullable))
}

/// A `FixedSizeList` field of `item`s with the tensor extension of `shape` (k ≥ 1 dimensions).
pub(crate) fn tensor_field(name: &str, item: &Field, shape: &[u64]) -> Result<Field, Error> {
    let size = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| {
            overflow(
                "tensor size",
                format!("shape {shape:?} exceeds i32 elements"),
            )
        })?;
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let metadata = HashMap::from([
        (EXTENSION_NAME_KEY.to_owned(), FIXED_SHAPE_TENSOR.to_owned()),
        (
            EXTENSION_METADATA_KEY.to_owned(),
            format!("{{\"shape\":[{}]}}", dims.join(",")),
        ),
    ]);
    // The item field is nullable, as the canonical extension's storage type is written by
    // pyarrow (`fixed_size_list<item: T>[n]`): pyarrow restores the extension from a Parquet
    // file's stored schema only when the storage types match exactly.
    let item = item.clone().with_nullable(true);
    Ok(
        Field::new(name, DataType::FixedSizeList(Arc::new(item), size), false)
            .with_metadata(metadata),
    )
}

/// Why ml_dtypes arrays have no column: Arrow has no bfloat16, float8 or int4 type.
const ML_TYPES: &str =
    "Arrow has no bfloat16, float8, float6, float4 or int4 type (ml_dtypes); widen the array with \
     numpy or npy-core first";

fn data_type_for(dtype: &DType) -> Result<(DataType, bool), Error> {
    Ok(match dtype {
        DType::Number(p, _) => (
            match p {
                Primitive::Bool => DataType::Boolean,
                Primitive::I8 => DataType::Int8,
                Primitive::I16 => DataType::Int16,
                Primitive::I32 => DataType::Int32,
                Primitive::I64 => DataType::Int64,
                Primitive::U8 => DataType::UInt8,
                Primitive::U16 => DataType::UInt16,
                Primitive::U32 => DataType::UInt32,
                Primitive::U64 => DataType::UInt64,
                Primitive::F16 => DataType::Float16,
                Primitive::F32 => DataType::Float32,
                Primitive::F64 => DataType::Float64,
                Primitive::C64 => complex_type(DataType::Float32),
                Primitive::C128 => complex_type(DataType::Float64),
                Primitive::LongDouble { .. } => {
                    return Err(unsupported_dtype(
                        dtype,
                        "Arrow has no extended-precision float; convert with astype('f8') \
                         (which rounds) first",
                    ))
                }
                Primitive::CLongDouble { .. } => {
                    return Err(unsupported_dtype(
                        dtype,
                        "Arrow has no extended-precision float; convert with astype('c16') \
                         (which rounds) first",
                    ))
                }
            },
            false,
        ),
        DType::Time(t, _) => (
            match time_target(*t, dtype)?.0 {
                TimeTarget::Timestamp(u) => DataType::Timestamp(u, None),
                TimeTarget::Duration(u) => DataType::Duration(u),
                TimeTarget::Date32 => DataType::Date32,
            },
            true,
        ),
        DType::Bytes(_) => (DataType::Binary, false),
        DType::Unicode(..) => (DataType::Utf8, false),
        DType::Void(n) => (
            DataType::FixedSizeBinary(i32::try_from(*n).map_err(|_| {
                unsupported_dtype(dtype, "FixedSizeBinary widths are at most i32::MAX bytes")
            })?),
            false,
        ),
        DType::Object => {
            return Err(unsupported_dtype(
                dtype,
                "object arrays hold pickled Python objects; read them with npy_pickle::read_dyn",
            ))
        }
        DType::Ml(_) => return Err(unsupported_dtype(dtype, ML_TYPES)),
        DType::Record(r) => {
            if r.fields().is_empty() {
                return Err(unsupported_dtype(
                    dtype,
                    "a record without fields has no Arrow column",
                ));
            }
            let fields: Result<Vec<Field>, Error> = r
                .fields()
                .iter()
                .map(|f| field_for(&f.name, &f.dtype))
                .collect();
            (DataType::Struct(Fields::from(fields?)), false)
        }
        DType::SubArray(_) => {
            let f = field_for("item", dtype)?;
            (f.data_type().clone(), false)
        }
    })
}

/// `Struct{re, im}` of the component float type.
fn complex_type(component: DataType) -> DataType {
    DataType::Struct(Fields::from(vec![
        Field::new("re", component.clone(), false),
        Field::new("im", component, false),
    ]))
}

/// The Arrow schema of an array of `dtype` with `shape` whose plain column is named `name`:
/// a record's fields are the columns (each a tensor of `shape[1..]` when the array has more
/// than one dimension); any other dtype is one column.
///
/// # Errors
/// As [`field_for`].
pub fn schema_for(dtype: &DType, shape: &[u64], name: &str) -> Result<SchemaRef, Error> {
    let inner = shape.get(1..).unwrap_or(&[]);
    let column = |name: &str, dtype: &DType| -> Result<Field, Error> {
        if inner.is_empty() {
            return field_for(name, dtype);
        }
        let (mut dims, base) = match dtype {
            DType::SubArray(s) => {
                let (d, b) = s.flatten();
                (d, b.clone())
            }
            other => (Vec::new(), other.clone()),
        };
        let mut full = inner.to_vec();
        full.append(&mut dims);
        tensor_field(name, &field_for("item", &base)?, &full)
    };
    let fields = match dtype {
        DType::Record(r) if !r.fields().is_empty() => r
            .fields()
            .iter()
            .map(|f| column(&f.name, &f.dtype))
            .collect::<Result<Vec<_>, _>>()?,
        _ => vec![column(name, dtype)?],
    };
    Ok(Arc::new(Schema::new(fields)))
}

/// Elements of one dtype inside a buffer: `count` of them, the first at byte `offset`, one
/// every `stride` bytes.
#[derive(Debug, Clone)]
struct Strided<'a> {
    buf: &'a Buffer,
    count: usize,
    stride: usize,
    offset: usize,
    /// Whether a large column may be converted on several threads (false when the caller
    /// already runs columns on several threads).
    parallel: bool,
}

impl Strided<'_> {
    /// The `width` bytes of element `i`; the caller proved the whole extent in bounds.
    fn element(&self, i: usize, width: usize) -> &[u8] {
        let at = self.offset + i * self.stride;
        &self.buf.as_slice()[at..at + width]
    }

    /// The `width` leading bytes of each element of `rows` in order, or `None` when the
    /// elements overlap (a stride under `width`), hold no bytes (`width` 0) or when the last
    /// element would run past the source (or `rows` past `count`): one pass over the rows'
    /// part of the source without a bounds check per element.
    fn elements(
        &self,
        rows: std::ops::Range<usize>,
        width: usize,
    ) -> Option<impl Iterator<Item = &[u8]> + '_> {
        // A zero-width element at the end of the source is no chunk at all: it goes the
        // per-element way, as do overlapping elements.
        if width == 0 || self.stride < width || rows.end > self.count {
            return None;
        }
        let start = rows
            .start
            .checked_mul(self.stride)
            .and_then(|at| at.checked_add(self.offset))?;
        // Every element's `width` bytes lie in the source, so no chunk comes up short.
        if let Some(last) = rows.end.checked_sub(1).filter(|&l| l >= rows.start) {
            let end = last
                .checked_mul(self.stride)
                .and_then(|at| at.checked_add(self.offset))
                .and_then(|at| at.checked_add(width))?;
            if end > self.buf.as_slice().len() {
                return None;
            }
        }
        let from = self.buf.as_slice().get(start..).unwrap_or(&[]);
        Some(
            from.chunks(self.stride)
                .take(rows.len())
                .map(move |e| e.get(..width).unwrap_or(e)),
        )
    }

    /// The elements as one packed buffer of `width` bytes each: a slice of the source (no copy)
    /// when they already are, else one gathering pass.
    fn packed(&self, width: usize) -> Buffer {
        if self.stride == width {
            return self.buf.slice_with_length(self.offset, self.count * width);
        }
        let mut out = MutableBuffer::with_capacity(self.count * width);
        for i in 0..self.count {
            out.extend_from_slice(self.element(i, width));
        }
        out.into()
    }
}

/// Bytes of a native-order value of `T`, from file bytes of order `order`.
trait FromFile: ArrowNativeType {
    /// The unsigned integer of `T`'s size: an element read as a word of the buffer.
    type Word: bytemuck::Pod;

    fn from_file(bytes: &[u8], order: ByteOrder) -> Self;

    /// The value whose file bytes are `word` (as loaded in the machine's order); `swap`: the
    /// file's byte order is not the machine's.
    fn from_word(word: Self::Word, swap: bool) -> Self;
}

macro_rules! from_file {
    ($($t:ty => $w:ty),*) => {$(
        impl FromFile for $t {
            type Word = $w;

            #[inline]
            fn from_file(bytes: &[u8], order: ByteOrder) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(bytes);
                match order {
                    ByteOrder::Big => <$t>::from_be_bytes(a),
                    _ => <$t>::from_le_bytes(a),
                }
            }

            #[inline]
            fn from_word(word: $w, swap: bool) -> Self {
                let word = if swap { word.swap_bytes() } else { word };
                <$t>::from_ne_bytes(word.to_ne_bytes())
            }
        }
    )*};
}
from_file!(
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, u8 => u8, u16 => u16, u32 => u32,
    u64 => u64, f32 => u32, f64 => u64, half::f16 => u16
);

/// The `s.count` elements of `s` as `T`s, loaded as aligned words of the buffer, when they
/// can be: the buffer is aligned for `T` and `T`'s size divides the stride and the offset
/// (a record's numeric fields, as numpy lays out aligned records and most packed ones).
/// One load per element, without slicing the element out of its record: half the time of
/// the byte-wise way on 56-byte records.
fn gather_words<T: FromFile>(s: &Strided<'_>, order: ByteOrder) -> Option<Vec<T>> {
    let width = std::mem::size_of::<T>();
    if s.count == 0
        || s.stride < width
        || !s.stride.is_multiple_of(width)
        || !s.offset.is_multiple_of(width)
    {
        return None;
    }
    let bytes = s.buf.as_slice();
    let bytes = bytes.get(..bytes.len() - bytes.len() % width)?;
    let words: &[T::Word] = bytemuck::try_cast_slice(bytes).ok()?;
    let (first, step) = (s.offset / width, s.stride / width);
    let last = (s.count - 1).checked_mul(step)?.checked_add(first)?;
    let swap = !is_native(order);
    Some(
        words
            .get(first..=last)?
            .iter()
            .step_by(step.max(1))
            .map(|&w| T::from_word(w, swap))
            .collect(),
    )
}

/// Whether `order` is the machine's (or does not apply).
fn is_native(order: ByteOrder) -> bool {
    match order {
        ByteOrder::Little => cfg!(target_endian = "little"),
        ByteOrder::Big => cfg!(target_endian = "big"),
        ByteOrder::NotApplicable => true,
    }
}

/// The values of `s` as a `ScalarBuffer<T>`: the source buffer itself when the elements are
/// packed, aligned and in native order (zero copy), else gathered in one pass.
fn scalars<T: FromFile>(s: &Strided<'_>, order: ByteOrder) -> ScalarBuffer<T> {
    let width = std::mem::size_of::<T>();
    if s.stride == width && is_native(order) {
        let b = s.buf.slice_with_length(s.offset, s.count * width);
        if b.as_ptr().align_offset(std::mem::align_of::<T>()) == 0 {
            return ScalarBuffer::new(b, 0, s.count);
        }
    }
    if let Some(v) = gather_words::<T>(s, order) {
        return ScalarBuffer::from(v);
    }
    // The byte order is matched once, outside the loop, so each arm's conversion is a
    // plain (or swapping) load.
    let v: Vec<T> = match (s.elements(0..s.count, width), order) {
        (Some(e), ByteOrder::Big) => e.map(|b| T::from_file(b, ByteOrder::Big)).collect(),
        (Some(e), _) => e.map(|b| T::from_file(b, ByteOrder::Little)).collect(),
        (None, _) => (0..s.count)
            .map(|i| T::from_file(s.element(i, width), order))
            .collect(),
    };
    ScalarBuffer::from(v)
}

fn primitive<P: ArrowPrimitiveType>(s: &Strided<'_>, order: ByteOrder) -> ArrayRef
where
    P::Native: FromFile,
{
    Arc::new(PrimitiveArray::<P>::new(
        scalars::<P::Native>(s, order),
        None,
    ))
}

/// A time column: ticks scaled by `factor` into the Arrow unit, NaT as null.
fn time_array<P: ArrowPrimitiveType<Native = i64>>(
    s: &Strided<'_>,
    order: ByteOrder,
    factor: i64,
    column: &str,
) -> Result<ArrayRef, Error> {
    let mut ticks = scalars::<i64>(s, order);
    let nat = ticks.contains(&i64::MIN);
    let nulls = nat.then(|| ticks.iter().map(|&t| t != i64::MIN).collect::<NullBuffer>());
    if factor != 1 {
        let mut v = Vec::with_capacity(ticks.len());
        for (i, &t) in ticks.iter().enumerate() {
            v.push(if t == i64::MIN {
                0
            } else {
                t.checked_mul(factor).ok_or_else(|| {
                    value_error(
                        column,
                        i as u64,
                        format!("{t} ticks × {factor} overflows the 64-bit Arrow unit"),
                    )
                })?
            });
        }
        ticks = ScalarBuffer::from(v);
    }
    Ok(Arc::new(PrimitiveArray::<P>::new(ticks, nulls)))
}

fn date32_array(
    s: &Strided<'_>,
    order: ByteOrder,
    factor: i64,
    column: &str,
) -> Result<ArrayRef, Error> {
    let ticks = scalars::<i64>(s, order);
    let mut days = Vec::with_capacity(ticks.len());
    let mut valid = Vec::with_capacity(ticks.len());
    for (i, &t) in ticks.iter().enumerate() {
        if t == i64::MIN {
            days.push(0);
            valid.push(false);
            continue;
        }
        let d = t
            .checked_mul(factor)
            .and_then(|d| i32::try_from(d).ok())
            .ok_or_else(|| {
                value_error(
                    column,
                    i as u64,
                    format!("{t} ticks × {factor} days is beyond Date32 (32-bit days)"),
                )
            })?;
        days.push(d);
        valid.push(true);
    }
    let nulls = valid.iter().any(|v| !v).then(|| NullBuffer::from(valid));
    Ok(Arc::new(PrimitiveArray::<Date32Type>::new(
        ScalarBuffer::from(days),
        nulls,
    )))
}

/// The column of the elements `s` of `dtype`: a flat array of `s.count` values (a
/// `FixedSizeList` for a subarray dtype).
fn column(dtype: &DType, s: &Strided<'_>, name: &str) -> Result<ArrayRef, Error> {
    Ok(match dtype {
        DType::Number(p, order) => {
            let o = *order;
            match p {
                Primitive::Bool => Arc::new(BooleanArray::new(
                    BooleanBuffer::collect_bool(s.count, |i| s.element(i, 1)[0] != 0),
                    None,
                )),
                Primitive::I8 => primitive::<Int8Type>(s, o),
                Primitive::I16 => primitive::<Int16Type>(s, o),
                Primitive::I32 => primitive::<Int32Type>(s, o),
                Primitive::I64 => primitive::<Int64Type>(s, o),
                Primitive::U8 => primitive::<UInt8Type>(s, o),
                Primitive::U16 => primitive::<UInt16Type>(s, o),
                Primitive::U32 => primitive::<UInt32Type>(s, o),
                Primitive::U64 => primitive::<UInt64Type>(s, o),
                Primitive::F16 => primitive::<Float16Type>(s, o),
                Primitive::F32 => primitive::<Float32Type>(s, o),
                Primitive::F64 => primitive::<Float64Type>(s, o),
                Primitive::C64 | Primitive::C128 => {
                    let part_size = (p.itemsize() / 2) as usize;
                    let part = |at: usize| Strided {
                        offset: s.offset + at,
                        ..s.clone()
                    };
                    let (re, im) = if part_size == 4 {
                        (
                            primitive::<Float32Type>(&part(0), o),
                            primitive::<Float32Type>(&part(part_size), o),
                        )
                    } else {
                        (
                            primitive::<Float64Type>(&part(0), o),
                            primitive::<Float64Type>(&part(part_size), o),
                        )
                    };
                    let DataType::Struct(fields) = data_type_for(dtype)?.0 else {
                        unreachable!("complex_type is a struct")
                    };
                    Arc::new(StructArray::try_new(fields, vec![re, im], None)?)
                }
                Primitive::LongDouble { .. } | Primitive::CLongDouble { .. } => {
                    return Err(data_type_for(dtype).expect_err("longdouble is refused"))
                }
            }
        }
        DType::Time(t, order) => {
            let (target, factor) = time_target(*t, dtype)?;
            match target {
                TimeTarget::Date32 => date32_array(s, *order, factor, name)?,
                TimeTarget::Timestamp(u) => match u {
                    ArrowUnit::Second => {
                        time_array::<TimestampSecondType>(s, *order, factor, name)?
                    }
                    ArrowUnit::Millisecond => {
                        time_array::<TimestampMillisecondType>(s, *order, factor, name)?
                    }
                    ArrowUnit::Microsecond => {
                        time_array::<TimestampMicrosecondType>(s, *order, factor, name)?
                    }
                    ArrowUnit::Nanosecond => {
                        time_array::<TimestampNanosecondType>(s, *order, factor, name)?
                    }
                },
                TimeTarget::Duration(u) => match u {
                    ArrowUnit::Second => time_array::<DurationSecondType>(s, *order, factor, name)?,
                    ArrowUnit::Millisecond => {
                        time_array::<DurationMillisecondType>(s, *order, factor, name)?
                    }
                    ArrowUnit::Microsecond => {
                        time_array::<DurationMicrosecondType>(s, *order, factor, name)?
                    }
                    ArrowUnit::Nanosecond => {
                        time_array::<DurationNanosecondType>(s, *order, factor, name)?
                    }
                },
            }
        }
        DType::Bytes(n) => {
            let n = *n as usize;
            let mut offsets = Vec::with_capacity(s.count + 1);
            let mut values = MutableBuffer::new(0);
            offsets.push(0i32);
            for i in 0..s.count {
                let e = s.element(i, n);
                let end = e.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                values.extend_from_slice(&e[..end]);
                offsets.push(offset_i32(values.len(), name)?);
            }
            Arc::new(BinaryArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                values.into(),
                None,
            )?)
        }
        DType::Unicode(n, order) => utf8_column(s, *n as usize, *order, name)?,
        DType::Void(n) => {
            let width = *n as usize;
            let size = i32::try_from(*n).map_err(|_| {
                unsupported_dtype(dtype, "FixedSizeBinary widths are at most i32::MAX bytes")
            })?;
            Arc::new(FixedSizeBinaryArray::try_new_with_len(
                size,
                s.packed(width),
                None,
                s.count,
            )?)
        }
        DType::Object => return Err(data_type_for(dtype).expect_err("object is refused")),
        DType::Ml(_) => return Err(unsupported_dtype(dtype, ML_TYPES)),
        DType::Record(r) => {
            let DataType::Struct(fields) = data_type_for(dtype)?.0 else {
                unreachable!("a record's type is a struct")
            };
            let mut children = Vec::with_capacity(r.fields().len());
            for f in r.fields() {
                let child = Strided {
                    offset: s.offset + f.offset as usize,
                    ..s.clone()
                };
                children.push(column(&f.dtype, &child, &format!("{name}.{}", f.name))?);
            }
            Arc::new(StructArray::try_new(fields, children, None)?)
        }
        DType::SubArray(sub) => {
            let (shape, base) = sub.flatten();
            tensor_column(base, &shape, s, name)?
        }
    })
}

/// A `FixedSizeList` column: each of the `s.count` elements is `shape`'s product of `base`
/// values, packed.
fn tensor_column(
    base: &DType,
    shape: &[u64],
    s: &Strided<'_>,
    name: &str,
) -> Result<ArrayRef, Error> {
    let field = tensor_field(name, &field_for("item", base)?, shape)?;
    let DataType::FixedSizeList(item, size) = field.data_type() else {
        unreachable!("tensor_field makes a FixedSizeList")
    };
    let per = *size as usize;
    let width = base.itemsize() as usize * per;
    let packed = s.packed(width);
    let inner = Strided {
        buf: &packed,
        count: s.count * per,
        stride: base.itemsize() as usize,
        offset: 0,
        parallel: s.parallel,
    };
    let values = column(base, &inner, name)?;
    // With the length given: a list of size 0 (shape (3, 0)) has rows but no values.
    Ok(Arc::new(FixedSizeListArray::try_new_with_length(
        item.clone(),
        *size,
        values,
        None,
        s.count,
    )?))
}

/// The Utf8 column of `s.count` `U<n>` elements (UCS-4 code points in `order`), each without
/// its trailing NULs, as numpy's `tolist()` gives it. One pass per element, ASCII copied without
/// encoding; a column of [`PARALLEL_BYTES`] or more (when `s.parallel`) is transcoded on as many
/// threads as the machine has cores, each a run of rows, and the runs joined.
///
/// # Errors
/// [`ErrorKind::Value`](crate::ErrorKind::Value) for a code point that is not a Unicode
/// scalar value (a lone surrogate), naming the element;
/// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) past 2 GiB of UTF-8.
fn utf8_column(s: &Strided<'_>, n: usize, order: ByteOrder, name: &str) -> Result<ArrayRef, Error> {
    let threads = if s.parallel {
        threads_for(s.count.saturating_mul(n).saturating_mul(4))
    } else {
        1
    };
    let per = s.count.div_ceil(threads).max(1);
    let ranges: Vec<std::ops::Range<usize>> = (0..s.count)
        .step_by(per)
        .map(|a| a..(a + per).min(s.count))
        .collect();
    let mut parts = if ranges.len() > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|r| scope.spawn(|| transcode(s, r.clone(), n, order, name)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(overflow(
                            "string threads",
                            "a transcoding thread panicked".into(),
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })?
    } else {
        vec![transcode(s, 0..s.count, n, order, name)?]
    };
    let (mut values, mut offsets) = if parts.is_empty() {
        (Vec::new(), vec![0i32])
    } else {
        parts.remove(0)
    };
    // One growth to the joined size (in place for a large allocation, whose pages the
    // allocator remaps rather than copies).
    values.reserve_exact(parts.iter().map(|(v, _)| v.len()).sum());
    for (v, o) in parts {
        let base = offset_i32(values.len(), name)?;
        offsets.reserve(o.len() - 1);
        for &end in &o[1..] {
            offsets.push(base.checked_add(end).ok_or_else(|| too_long(name))?);
        }
        values.extend_from_slice(&v);
    }
    // try_new validates the UTF-8 (char::encode_utf8 output and ASCII bytes).
    Ok(Arc::new(StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        None,
    )?))
}

/// Elements `rows` of `s` (`U<n>`, code points in `order`) as UTF-8 bytes and their offsets
/// (from 0).
fn transcode(
    s: &Strided<'_>,
    rows: std::ops::Range<usize>,
    n: usize,
    order: ByteOrder,
    name: &str,
) -> Result<(Vec<u8>, Vec<i32>), Error> {
    // The byte order is matched once: each instance reads its code points with one load.
    match order {
        ByteOrder::Big => transcode_in::<true>(s, rows, n, name),
        _ => transcode_in::<false>(s, rows, n, name),
    }
}

/// The code point of the 4 bytes `b`, big-endian when `BIG`.
#[inline]
fn code_point<const BIG: bool>(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    if BIG {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

/// [`transcode`] for code points stored big-endian (`BIG`) or little-endian.
fn transcode_in<const BIG: bool>(
    s: &Strided<'_>,
    rows: std::ops::Range<usize>,
    n: usize,
    name: &str,
) -> Result<(Vec<u8>, Vec<i32>), Error> {
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    // ASCII text takes one byte per code point: about a quarter of the input.
    let mut values: Vec<u8> = Vec::with_capacity(rows.len() * n);
    offsets.push(0i32);
    let mut utf8 = [0u8; 4];
    let width = n * 4;
    let mut one = |i: usize, e: &[u8]| -> Result<(), Error> {
        // ASCII first: every code point narrowed to its byte, in one pass that also ORs
        // them; the NUL padding then is the trailing zero bytes.
        let at = values.len();
        values.resize(at + n, 0);
        let mut all = 0u32;
        for (b, c) in values[at..].iter_mut().zip(e.chunks_exact(4)) {
            let u = code_point::<BIG>(c);
            all |= u;
            *b = u as u8;
        }
        if all < 0x80 {
            let len = values[at..]
                .iter()
                .rposition(|&b| b != 0)
                .map_or(0, |p| p + 1);
            values.truncate(at + len);
        } else {
            values.truncate(at);
            let mut len = n;
            while len > 0 && e[(len - 1) * 4..len * 4] == [0, 0, 0, 0] {
                len -= 1;
            }
            for cp in e[..len * 4].chunks_exact(4) {
                let u = code_point::<BIG>(cp);
                let c = char::from_u32(u).ok_or_else(|| {
                    value_error(
                        name,
                        i as u64,
                        format!("code point {u:#x} is not a Unicode scalar value (UTF-8 cannot hold it)"),
                    )
                })?;
                values.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
        offsets.push(offset_i32(values.len(), name)?);
        Ok(())
    };
    match s.elements(rows.clone(), width) {
        Some(elements) => {
            for (i, e) in rows.zip(elements) {
                one(i, e)?;
            }
        }
        None => {
            for i in rows {
                one(i, s.element(i, width))?;
            }
        }
    }
    Ok((values, offsets))
}

fn too_long(column: &str) -> Error {
    overflow(
        "string offsets",
        format!("column {column:?} holds more than 2 GiB of string bytes in one batch; read fewer rows per batch"),
    )
}

/// The [`RecordBatch`] of a record array of at most one dimension read by
/// [`npy_core::NpyReader::read_dyn`] (no objects): its leaf columns are moved into the Arrow
/// arrays, so numbers, datetimes without NaT and `V` bytes are not copied again (the columns
/// are native-order, packed and 8-byte aligned); bools are packed to bits, `U` strings
/// transcoded (on several threads when large), `S` strings trimmed. Nested records become
/// Struct columns of their leaves. `name` names the column of a non-record dtype.
///
/// # Errors
/// As [`batch_from_bytes`].
pub(crate) fn batch_from_dyn(a: npy_core::DynArray, name: &str) -> Result<RecordBatch, Error> {
    let rows = a.shape().first().copied().unwrap_or(1);
    let schema = schema_for(a.dtype(), &[rows], name)?;
    let dtype = a.dtype().clone();
    let mut leaves = a.into_columns().into_iter();
    let columns = match &dtype {
        DType::Record(r) => r
            .fields()
            .iter()
            .map(|f| from_leaves(&f.dtype, &mut leaves, &f.name))
            .collect::<Result<Vec<_>, _>>()?,
        other => vec![from_leaves(other, &mut leaves, name)?],
    };
    Ok(RecordBatch::try_new_with_options(
        schema,
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows as usize)),
    )?)
}

/// The Arrow array of a field of `dtype` from the next leaves of `leaves` (one per leaf of
/// a nested record, depth first, as `read_dyn` orders them).
fn from_leaves(
    dtype: &DType,
    leaves: &mut impl Iterator<Item = npy_core::dynamic::Column>,
    name: &str,
) -> Result<ArrayRef, Error> {
    if let DType::Record(r) = dtype {
        let DataType::Struct(fields) = data_type_for(dtype)?.0 else {
            unreachable!("a record's type is a struct")
        };
        let children = r
            .fields()
            .iter()
            .map(|f| from_leaves(&f.dtype, leaves, &format!("{name}.{}", f.name)))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Arc::new(StructArray::try_new(fields, children, None)?));
    }
    let leaf = leaves.next().ok_or_else(|| {
        overflow(
            "record columns",
            format!("no column was read for field {name:?}"),
        )
    })?;
    let (count, width) = (leaf.len(), leaf.width());
    let dtype = leaf.dtype().clone();
    let buf = Buffer::from_vec(leaf.into_words()).slice_with_length(0, count * width);
    let s = Strided {
        buf: &buf,
        count,
        stride: width,
        offset: 0,
        parallel: true,
    };
    column(&dtype, &s, name)
}

fn offset_i32(len: usize, column: &str) -> Result<i32, Error> {
    i32::try_from(len).map_err(|_| too_long(column))
}

/// A [`RecordBatch`] of `rows` rows of an array of `dtype` whose C-order data is `data`, one
/// row being `row_shape`'s product of elements (`row_shape` is the array's shape without its
/// first dimension). `name` names the column of a non-record dtype.
///
/// Zero copy: numbers in native byte order, packed (a plain array, not a record field) and
/// aligned are slices of `data`; everything else is gathered field by field in one pass, the
/// fields of a record of 4 MiB or more on as many threads as the machine has cores.
///
/// # Errors
/// As [`schema_for`]; [`ErrorKind::Value`](crate::ErrorKind::Value) for a value the Arrow type
/// cannot hold; [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) when `data` is shorter than
/// `rows` rows or a size overflows.
pub fn batch_from_bytes(
    dtype: &DType,
    row_shape: &[u64],
    rows: usize,
    data: &Buffer,
    name: &str,
) -> Result<RecordBatch, Error> {
    let plan = ColumnPlan::new(dtype, row_shape, name)?;
    let schema = plan.schema(rows)?;
    let need = plan.check(rows, data)?;
    let count = plan.len();
    let threads = if count > 1 { threads_for(need) } else { 1 };
    let fields_threaded = threads > 1;
    let columns = if fields_threaded {
        // Fields are independent columns: gather them on several threads, each thread a
        // run of consecutive fields.
        let per = count.div_ceil(threads.min(count));
        let mut out: Vec<Option<Result<ArrayRef, Error>>> = (0..count).map(|_| None).collect();
        std::thread::scope(|scope| {
            for (run, os) in out.chunks_mut(per).enumerate() {
                let plan = &plan;
                scope.spawn(move || {
                    for (j, o) in os.iter_mut().enumerate() {
                        *o = Some(plan.gather(run * per + j, rows, data, false));
                    }
                });
            }
        });
        // Every slot is filled: each thread runs to its end (a panic would have propagated
        // out of the scope).
        out.into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    Err(overflow("field threads", "a field was not gathered".into()))
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        (0..count)
            .map(|i| plan.gather(i, rows, data, true))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(RecordBatch::try_new_with_options(
        schema,
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}

/// How each top-level column of [`batch_from_bytes`]'s batches is built from a batch's bytes,
/// one column at a time: so a caller may build a batch's columns on different threads, each
/// where it is used (the Parquet writer builds each on the thread that encodes it).
#[derive(Debug, Clone)]
pub(crate) struct ColumnPlan {
    dtype: DType,
    row_shape: Vec<u64>,
    name: String,
    /// Elements per row (`row_shape`'s product).
    per_row: usize,
    /// Bytes per element (`dtype`'s itemsize).
    itemsize: usize,
}

impl ColumnPlan {
    /// The plan of batches of `dtype` with rows of `row_shape` (`name`: the column of a
    /// non-record dtype).
    ///
    /// # Errors
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) for a row or itemsize beyond
    /// `usize`.
    pub(crate) fn new(dtype: &DType, row_shape: &[u64], name: &str) -> Result<Self, Error> {
        let per_row = row_shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?))
            .ok_or_else(|| overflow("row size", format!("row shape {row_shape:?}")))?;
        let itemsize = usize::try_from(dtype.itemsize())
            .map_err(|_| overflow("itemsize", dtype.to_string()))?;
        Ok(Self {
            dtype: dtype.clone(),
            row_shape: row_shape.to_vec(),
            name: name.to_owned(),
            per_row,
            itemsize,
        })
    }

    /// The name of a non-record dtype's column (the file's stem, or an `.npz` member's key).
    #[cfg(feature = "parquet")]
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Top-level columns: a record's fields, else one.
    pub(crate) fn len(&self) -> usize {
        match &self.dtype {
            DType::Record(r) if !r.fields().is_empty() => r.fields().len(),
            _ => 1,
        }
    }

    /// The schema of a batch of `rows` rows ([`schema_for`]).
    pub(crate) fn schema(&self, rows: usize) -> Result<SchemaRef, Error> {
        let mut shape = vec![rows as u64];
        shape.extend_from_slice(&self.row_shape);
        schema_for(&self.dtype, &shape, &self.name)
    }

    /// Proves `data` holds `rows` rows; returns their bytes.
    ///
    /// # Errors
    /// [`ErrorKind::Overflow`](crate::ErrorKind::Overflow) when it is shorter or a size
    /// overflows.
    pub(crate) fn check(&self, rows: usize, data: &Buffer) -> Result<usize, Error> {
        let count = rows
            .checked_mul(self.per_row)
            .ok_or_else(|| overflow("element count", format!("{rows} rows × {}", self.per_row)))?;
        let need = count.checked_mul(self.itemsize).ok_or_else(|| {
            overflow(
                "data size",
                format!("{count} elements × {} bytes", self.itemsize),
            )
        })?;
        if data.len() < need {
            return Err(overflow(
                "data size",
                format!(
                    "{rows} rows need {need} bytes, the buffer holds {}",
                    data.len()
                ),
            ));
        }
        Ok(need)
    }

    /// Column `index` (below [`Self::len`]) of the batch of `rows` rows whose bytes are `data`
    /// ([`Self::check`]ed by the caller); `parallel`: a large column may use several threads.
    pub(crate) fn gather(
        &self,
        index: usize,
        rows: usize,
        data: &Buffer,
        parallel: bool,
    ) -> Result<ArrayRef, Error> {
        let (dtype, offset, name) = match &self.dtype {
            DType::Record(r) if !r.fields().is_empty() => {
                let f = r.fields().get(index).ok_or_else(|| {
                    overflow("column index", format!("{index} of {}", r.fields().len()))
                })?;
                (&f.dtype, f.offset as usize, f.name.as_str())
            }
            other => (other, 0, self.name.as_str()),
        };
        let s = Strided {
            buf: data,
            count: rows * self.per_row,
            stride: self.itemsize,
            offset,
            parallel,
        };
        if self.row_shape.is_empty() {
            return column(dtype, &s, name);
        }
        // Each row: per_row elements of the field, `itemsize` apart. Gather the field's
        // elements packed, then group them as tensors of the row shape.
        let (mut dims, base) = match dtype {
            DType::SubArray(sub) => {
                let (d, b) = sub.flatten();
                (d, b.clone())
            }
            other => (Vec::new(), other.clone()),
        };
        let mut full = self.row_shape.clone();
        full.append(&mut dims);
        let width = dtype.itemsize() as usize;
        let packed = s.packed(width);
        let rows_view = Strided {
            buf: &packed,
            count: rows,
            stride: width * self.per_row,
            offset: 0,
            parallel,
        };
        tensor_column(&base, &full, &rows_view, name)
    }
}

/// The column of an object array's elements (as `read_dyn` decodes its pickle): Utf8, Int64
/// or Float64 when every item other than `None` is a `str`, an `int` that fits 64 bits, or a
/// `float`; `None` is null. Anything else (mixed kinds, lists, bytes, big ints, only `None`)
/// is [`ErrorKind::Value`](crate::ErrorKind::Value) naming the first item that does not fit.
pub(crate) fn object_column(
    values: &[npy_core::DynValue],
    name: &str,
) -> Result<(Field, ArrayRef), Error> {
    use npy_pickle::PyObject;
    #[derive(PartialEq, Clone, Copy, Debug)]
    enum Kind {
        Str,
        Int,
        Float,
    }
    let mut kind = None;
    for (i, v) in values.iter().enumerate() {
        let k = match PyObject::of(v) {
            Some(PyObject::None) => continue,
            Some(PyObject::Str(_)) => Kind::Str,
            Some(PyObject::Int(_)) => Kind::Int,
            Some(PyObject::Float(_)) => Kind::Float,
            _ => {
                let mut item = format!("{v:?}");
                item.truncate(80);
                return Err(value_error(
                    name,
                    i as u64,
                    format!("object item {item} is not a str, an int of 64 bits, a float or None"),
                ));
            }
        };
        match kind {
            None => kind = Some(k),
            Some(first) if first != k => {
                return Err(value_error(
                    name,
                    i as u64,
                    format!("object items are not uniform: {k:?} after {first:?}"),
                ))
            }
            Some(_) => {}
        }
    }
    let obj = PyObject::of;
    Ok(match kind {
        Some(Kind::Str) => (
            Field::new(name, DataType::Utf8, true),
            Arc::new(
                values
                    .iter()
                    .map(|v| match obj(v) {
                        Some(PyObject::Str(s)) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect::<StringArray>(),
            ),
        ),
        Some(Kind::Int) => (
            Field::new(name, DataType::Int64, true),
            Arc::new(
                values
                    .iter()
                    .map(|v| match obj(v) {
                        Some(PyObject::Int(i)) => Some(*i),
                        _ => None,
                    })
                    .collect::<PrimitiveArray<Int64Type>>(),
            ),
        ),
        Some(Kind::Float) => (
            Field::new(name, DataType::Float64, true),
            Arc::new(
                values
                    .iter()
                    .map(|v| match obj(v) {
                        Some(PyObject::Float(f)) => Some(*f),
                        _ => None,
                    })
                    .collect::<PrimitiveArray<Float64Type>>(),
            ),
        ),
        None => {
            return Err(value_error(
                name,
                0,
                "an object array of only None has no column type".into(),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn native_numbers_are_not_copied() {
        let v: Vec<i64> = (0..1000).collect();
        let buf = Buffer::from_vec(v);
        let dtype: DType = "<i8".parse().unwrap();
        let b = batch_from_bytes(&dtype, &[], 1000, &buf, "x").unwrap();
        let col = b.column(0).to_data();
        assert_eq!(col.buffers()[0].as_ptr(), buf.as_ptr());
    }

    /// The aligned-word gather reads what the record layout's rule says: element `i` is the
    /// `width` bytes at `offset + i * stride`, in the file's byte order (as `from_file` reads
    /// one element), for every stride and offset where it applies; elsewhere it declines.
    #[test]
    fn word_gather_reads_each_element_at_its_offset_in_either_order() {
        fn check<T: FromFile>(buf: &Buffer) -> usize {
            use arrow_buffer::ToByteSlice;
            let width = std::mem::size_of::<T>();
            let mut taken = 0;
            for stride in 1..=40usize {
                for offset in 0..=stride.saturating_sub(width) {
                    let count = (buf.len().saturating_sub(offset + width)) / stride + 1;
                    for order in [ByteOrder::Little, ByteOrder::Big] {
                        let s = Strided {
                            buf,
                            count,
                            stride,
                            offset,
                            parallel: false,
                        };
                        let want: Vec<T> = (0..count)
                            .map(|i| T::from_file(s.element(i, width), order))
                            .collect();
                        match gather_words::<T>(&s, order) {
                            Some(got) => {
                                // Compared as bytes: a float's NaN patterns are not `==`.
                                assert_eq!(
                                    got.to_byte_slice(),
                                    want.to_byte_slice(),
                                    "stride {stride} offset {offset} {order:?}"
                                );
                                taken += 1;
                            }
                            None => assert!(
                                stride < width
                                    || !stride.is_multiple_of(width)
                                    || !offset.is_multiple_of(width),
                                "declined an aligned layout: stride {stride} offset {offset}"
                            ),
                        }
                    }
                }
            }
            taken
        }
        // A buffer aligned for u64 (made from u64s), holding the bytes 0, 1, 2, …
        let bytes: Vec<u8> = (0..=255u8).cycle().take(8 * 300).collect();
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        let buf = Buffer::from_vec(words);
        assert!(check::<i16>(&buf) > 0);
        assert!(check::<i32>(&buf) > 0);
        assert!(check::<f32>(&buf) > 0);
        assert!(check::<i64>(&buf) > 0);
        assert!(check::<f64>(&buf) > 0);
        // Misaligned for T (the buffer starts one byte into the words): the bytewise way.
        let shifted = buf.slice(1);
        let s = Strided {
            buf: &shifted,
            count: 10,
            stride: 8,
            offset: 0,
            parallel: false,
        };
        assert!(gather_words::<i32>(&s, ByteOrder::Little).is_none());
    }

    #[test]
    fn elements_of_a_row_range_start_at_its_first_row() {
        // Rows of 5 bytes, the field 2 bytes wide at offset 1: row i's field is bytes
        // 5i+1, 5i+2 (the record layout's rule).
        let buf = Buffer::from_vec((0u8..25).collect::<Vec<u8>>());
        let s = Strided {
            buf: &buf,
            count: 5,
            stride: 5,
            offset: 1,
            parallel: false,
        };
        let got: Vec<&[u8]> = s.elements(2..4, 2).unwrap().collect();
        assert_eq!(got, [&[11u8, 12][..], &[16, 17]]);
        assert_eq!(s.elements(5..5, 2).unwrap().count(), 0);
        assert!(s.elements(4..6, 2).is_none(), "rows past the count");
        assert!(s.elements(0..5, 6).is_none(), "overlapping elements");
        assert!(s.elements(0..5, 0).is_none(), "zero width");
    }

    #[test]
    fn big_endian_is_swapped() {
        let buf = Buffer::from_vec(vec![0u8, 0, 1, 2]);
        let dtype: DType = ">u2".parse().unwrap();
        let b = batch_from_bytes(&dtype, &[], 2, &buf, "x").unwrap();
        let a = b
            .column(0)
            .as_any()
            .downcast_ref::<PrimitiveArray<UInt16Type>>()
            .unwrap();
        assert_eq!(a.values().as_ref(), [0, 0x0102]);
    }
}
