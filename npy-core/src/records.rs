//! Record (structured) arrays: Rust structs as numpy structured dtypes, through
//! `#[derive(NpyElement)]` (feature `derive`; its documentation has the attributes and the
//! rules: fields matched by name, `#[npy(pod)]`'s bulk path). [`FieldPlan`], [`RecordPlan`]
//! and the helpers of `__private` are what the derive's generated code uses, through
//! `npy_core::__private`: not public API.

use crate::dtype::{DType, Record};
use crate::element::{bulk_kind, mismatch, Bulk, NpyElement};
use crate::error::{to_usize, Error, ErrorKind};

/// Where one field of a Rust record lives in the file's record, and how to convert it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPlan<P> {
    /// The field's name in the Rust type (for messages).
    pub name: String,
    /// Byte offset of the field inside the record.
    pub offset: usize,
    /// Bytes of the field.
    pub size: usize,
    /// The field type's own plan.
    pub plan: P,
}

impl<P> FieldPlan<P> {
    /// The field's range in a record of `len` bytes; a record shorter than the field's end is
    /// an error (the plan was made for another dtype), never a panic.
    fn range(&self, len: usize) -> Result<std::ops::Range<usize>, Error> {
        match self.offset.checked_add(self.size) {
            Some(end) if end <= len => Ok(self.offset..end),
            _ => Err(self.short(len)),
        }
    }

    #[cold]
    fn short(&self, len: usize) -> Error {
        Error::new(ErrorKind::LengthMismatch {
            what: "record bytes for the field's plan",
            expected: (self.offset as u64).saturating_add(self.size as u64),
            found: len as u64,
        })
    }

    /// Decodes the field from a whole record's bytes.
    ///
    /// # Errors
    /// As [`NpyElement::read`].
    #[inline]
    pub fn read<T: NpyElement<Plan = P>>(&self, record: &[u8]) -> Result<T, Error> {
        T::read(&self.plan, &record[self.range(record.len())?])
    }

    /// Encodes `value` into a whole record's bytes.
    ///
    /// # Errors
    /// As [`NpyElement::write`]; [`ErrorKind::ValueTooLong`] names the field.
    #[inline]
    pub fn write<T: NpyElement<Plan = P>>(
        &self,
        value: &T,
        record: &mut [u8],
    ) -> Result<(), Error> {
        let range = self.range(record.len())?;
        value.write(&self.plan, &mut record[range]).map_err(|e| {
            let mut kind = e.into_kind();
            if let ErrorKind::ValueTooLong { field, .. } = &mut kind {
                field.get_or_insert_with(|| self.name.clone());
            }
            Error::new(kind)
        })
    }
}

/// The plan of a record type: its fields' plans (a nested tuple `(FieldPlan<P0>, (FieldPlan<P1>,
/// ()))` in the derive) and whether writing must zero the bytes no field covers (padding, and
/// fields of the file the type does not have).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordPlan<F> {
    /// The fields' plans.
    pub fields: F,
    /// Whether some bytes of a record belong to no field of the type.
    pub zero_fill: bool,
}

/// Helpers for the code `#[derive(NpyElement)]` generates. Not a stable API.
#[doc(hidden)]
pub mod __private {
    use super::{
        bulk_kind, mismatch, to_usize, Bulk, DType, Error, ErrorKind, FieldPlan, NpyElement, Record,
    };

    /// Whether the memory of a `#[npy(pod)]` struct is the bytes of its dtype: `dtype` (its
    /// `npy_dtype()`) is a record of `size` bytes (`size_of::<Self>()`) whose fields, in
    /// order, are at the struct's field offsets, of its field types' sizes and cover the
    /// record, and every field type's memory is its own dtype's bytes (`fields`: per field in
    /// declaration order, `(offset_of, size_of, field type has a bulk layout)`).
    ///
    /// `bytemuck::Pod` proves the struct has no padding; this proves that numpy's layout of
    /// its fields is the Rust one. When it does not hold, records are converted field by field.
    pub fn pod_layout(dtype: &DType, size: usize, fields: &[(usize, usize, bool)]) -> bool {
        let DType::Record(r) = dtype else {
            return false;
        };
        let covered: u64 = r.fields().iter().map(|f| f.dtype.itemsize()).sum();
        r.itemsize() == size as u64
            && covered == r.itemsize()
            && r.fields().len() == fields.len()
            && r.fields()
                .iter()
                .zip(fields)
                .all(|(f, &(offset, size, bulk))| {
                    bulk && f.title.is_none()
                        && f.offset == offset as u64
                        && f.dtype.itemsize() == size as u64
                })
    }

    /// How reading `dtype` as `T` goes: `"native"` (one read into the output, no conversion),
    /// `"swapped"` (one read and an in-place byte swap) or `"elementwise"`. For tests.
    pub fn bulk_path<T: NpyElement>(dtype: &DType) -> &'static str {
        match bulk_kind::<T>(dtype) {
            Bulk::Native(_) => "native",
            Bulk::Swapped(_) => "swapped",
            Bulk::No => "elementwise",
        }
    }

    /// The record of `dtype`, or the type mismatch error for `T`.
    pub fn record<T: NpyElement>(dtype: &DType) -> Result<&Record, Error> {
        match dtype {
            DType::Record(r) => Ok(r),
            _ => Err(mismatch::<T>(dtype)),
        }
    }

    /// The plan of field `name` (matched by name or title) as a `T`.
    pub fn field<T: NpyElement>(record: &Record, name: &str) -> Result<FieldPlan<T::Plan>, Error> {
        let Some(f) = record.field(name) else {
            return Err(missing(record, name));
        };
        let plan = T::plan(&f.dtype).map_err(|error| {
            Error::new(ErrorKind::FieldType {
                field: name.to_owned(),
                error,
            })
        })?;
        Ok(FieldPlan {
            name: name.to_owned(),
            offset: to_usize(f.offset, "record field offset")?,
            size: to_usize(f.dtype.itemsize(), "record field itemsize")?,
            plan,
        })
    }

    #[cold]
    fn missing(record: &Record, name: &str) -> Error {
        Error::new(ErrorKind::MissingField {
            field: name.to_owned(),
            available: record.fields().iter().map(|f| f.name.to_string()).collect(),
        })
    }

    /// `dtype` with zero-width strings (`S0`, `U0`) given `width` (for `#[npy(width = N)]`).
    pub fn with_width(dtype: DType, width: u64) -> DType {
        match dtype {
            DType::Bytes(0) => DType::Bytes(width),
            DType::Unicode(0, o) => DType::Unicode(width, o),
            DType::SubArray(s) => {
                let base = with_width(s.base().clone(), width);
                crate::dtype::SubArray::new(base.clone(), s.shape().to_vec())
                    .map_or(base, DType::SubArray)
            }
            other => other,
        }
    }

    /// Whether `dtype` holds a zero-width string, whose width [`NpyElement::dtype_for`] takes
    /// from the values.
    pub fn is_variable(dtype: &DType) -> bool {
        dtype.any_part(&|d| matches!(d, DType::Bytes(0) | DType::Unicode(0, _)))
    }

    /// The dtype of a field over `values`: the widest of `dtype_for` of each value.
    pub fn widest<'a, T: NpyElement + 'a>(values: impl Iterator<Item = &'a T>) -> DType {
        values
            .map(|v| T::dtype_for(std::slice::from_ref(v)))
            // The first of the widest: `min_by_key` keeps the first of equal keys.
            .min_by_key(|d| std::cmp::Reverse(d.itemsize()))
            .unwrap_or_else(|| T::dtype_for(&[]))
    }

    /// The record dtype of `fields`: packed, or C-struct aligned as numpy's `align=True`.
    ///
    /// # Panics
    /// When the record's size overflows 64 bits, which a Rust struct's fields cannot reach (the
    /// compiler bounds a type's size far below 2^64; `#[derive(NpyElement)]` refuses a field
    /// name used twice, npy-derive's `expand.rs`): never on a file's input.
    pub fn layout(fields: Vec<(&str, DType)>, align: bool) -> DType {
        let record = if align {
            Record::aligned(fields)
        } else {
            Record::packed(fields)
        };
        DType::Record(record.expect("a Rust struct's fields make a valid record"))
    }
}
