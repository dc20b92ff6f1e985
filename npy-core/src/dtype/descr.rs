//! The descr codec: a header's `descr` value ⇄ [`DType`], as numpy's `descr_to_dtype` and
//! `dtype_to_descr` (`numpy/lib/_format_impl.py`), and the text forms (`Display`, `FromStr`).

use std::fmt;
use std::str::FromStr;

use super::comma::with_shape;
use super::{
    descr_error, parse_type_str, ByteOrder, CompactString, DType, DescrError, Field, Primitive,
    Record,
};
use crate::literal::{self, Value};

impl DType {
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
                    let mut name = Value::Str(f.name.to_string());
                    if let Some(t) = &f.title {
                        name = Value::Tuple(vec![Value::Str(t.clone()), name]);
                    }
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
    /// [`DescrError::Invalid`] naming the offending part.
    pub fn from_descr_value(v: &Value) -> Result<DType, DescrError> {
        descr_value(v, false)
    }

    /// [`DType::from_descr_value`], but `'<f1'` (any byte-order character), which numpy refuses,
    /// is ml_dtypes' `float8_e5m2` (its `dtype.str`) alone, as a field's type or a subarray's base.
    pub(crate) fn from_header_descr(v: &Value) -> Result<DType, DescrError> {
        descr_value(v, true)
    }
}

/// A descr value as a dtype; `f1_is_e5m2`: a `'<f1'` type string is `float8_e5m2`.
fn descr_value(v: &Value, f1_is_e5m2: bool) -> Result<DType, DescrError> {
    match v {
        // A type string numpy refuses (`parse_type_str` too), so no other reading is lost.
        Value::Str(s) if f1_is_e5m2 && matches!(s.as_str(), "<f1" | ">f1" | "|f1" | "=f1") => {
            Ok(DType::Ml(super::MlType::Float8E5M2))
        }
        Value::Str(s) => parse_type_str(s),
        Value::List(items) => parse_record(items, f1_is_e5m2),
        // numpy's descr_to_dtype: np.dtype((descr_to_dtype(descr[0]), descr[1])).
        Value::Tuple(items) if items.len() == 2 => {
            with_shape(descr_value(&items[0], f1_is_e5m2)?, &items[1])
        }
        other => Err(descr_error(
            &other.to_string(),
            "expected a type string, a list of fields or a (type, shape) tuple",
        )),
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
    type Err = DescrError;

    /// A type string as `np.dtype(str)` reads it (`'<f4'`, `'M8[ns]'`, `'float32'`,
    /// `'i4,(2,3)f8'`) or a descr literal (`[('x', '<f4')]`, `('<f4', (2,))`).
    fn from_str(s: &str) -> Result<DType, DescrError> {
        let literal = || literal::parse(s, literal::ParseOptions::default());
        match s.trim_start().as_bytes().first() {
            Some(b'[') => DType::from_descr_value(&literal().map_err(DescrError::Syntax)?),
            // `('<f4', (2,))` is a literal, `(2,3)f4` a type string.
            Some(b'(') => match literal() {
                Ok(v) => DType::from_descr_value(&v),
                Err(_) => parse_type_str(s),
            },
            _ => parse_type_str(s),
        }
    }
}

fn padding_entry(n: u64) -> Value {
    let void = Value::Str(format!("|V{n}"));
    Value::Tuple(vec![Value::Str(String::new()), void])
}

fn shape_value(shape: &[u64]) -> Value {
    Value::Tuple(shape.iter().map(|&d| Value::Int(i128::from(d))).collect())
}

fn parse_record(items: &[Value], f1_is_e5m2: bool) -> Result<DType, DescrError> {
    let mut record = RecordBuilder::default();
    for item in items {
        let bad = |reason: &str| Err(descr_error(&item.to_string(), reason));
        let parts = match item {
            Value::Tuple(p) | Value::List(p) if p.len() == 2 || p.len() == 3 => p,
            _ => return bad("a field must be (name, type) or (name, type, shape)"),
        };
        let (title, name) = match &parts[0] {
            Value::Str(n) => (None, n),
            Value::Tuple(tn) if tn.len() == 2 => match &tn[..] {
                [Value::Str(t), Value::Str(n)] => (Some(t.clone()), n),
                _ => return bad("field title and name must be strings"),
            },
            _ => return bad("field name must be a string or (title, name)"),
        };
        let mut dtype = descr_value(&parts[1], f1_is_e5m2)?;
        if let Some(shape) = parts.get(2) {
            // numpy: np.dtype((descr_to_dtype(descr_str), shape)).
            dtype = with_shape(dtype, shape)?;
        }
        record.push(title, CompactString::from(name.as_str()), dtype)?;
    }
    record.finish()
}

/// `a < b` as `str` orders them (bytewise), compared in line: field names are short, and a
/// call to `memcmp` per field costs more than the comparison.
#[inline]
pub(super) fn less(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x < y;
        }
    }
    a.len() < b.len()
}

/// `CompactString::from(name)` with the copy of the name's bytes at a length known to the
/// compiler for names of up to 16 bytes, so that the inline string is built in registers and
/// not copied byte-wise into memory and read back as words (a store-forwarding stall that took
/// a quarter of a wide header's parse).
#[inline(always)]
pub(super) fn compact_name(name: &str) -> CompactString {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match name.len() {
                $($n => CompactString::from(name.get(..$n).unwrap_or(name)),)*
                _ => CompactString::from(name),
            }
        };
    }
    by_length!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Builds a record from the entries of a descr list, as numpy's `descr_to_dtype` does: each
/// entry takes the next `itemsize` bytes; unnamed void entries are padding. Shared by the
/// general descr parser and the header fast path, so both follow the same rules.
#[derive(Debug, Default)]
pub(crate) struct RecordBuilder {
    fields: Vec<Field>,
    offset: u64,
    /// Whether a field so far has a title or a name not after the one before (so the labels
    /// must be sorted to find a repeat).
    unordered: bool,
}

impl RecordBuilder {
    /// Reserves room for `fields` more fields (the caller bounds `fields` by its input).
    pub(crate) fn reserve(&mut self, fields: usize) {
        self.fields.reserve_exact(fields);
    }

    /// Adds the entry `(title, name)` of `dtype` (a subarray already applied).
    #[inline]
    pub(crate) fn push(
        &mut self,
        title: Option<String>,
        name: CompactString,
        dtype: DType,
    ) -> Result<(), DescrError> {
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
            self.unordered = self.unordered || title.is_some() || !self.follows_last(&name);
            // Grown as fields validate, not sized up front (the header fast path reserves what
            // its text bounds): a header list of a million `1`s must fail on the first
            // without allocating a million fields.
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

    /// Whether `name` sorts after the last field's name (or is the first): what keeps
    /// `unordered` false.
    #[inline]
    fn follows_last(&self, name: &str) -> bool {
        self.fields
            .last()
            .is_none_or(|last| less(last.name.as_bytes(), name.as_bytes()))
    }

    /// [`RecordBuilder::push`] for an untitled field of the number dtype `(primitive, order)`
    /// (never padding, whatever its name), for the header fast path's commonest entry.
    /// `None` where `push` would fail (the record size overflowing).
    #[inline]
    pub(crate) fn push_number(
        &mut self,
        name: &str,
        primitive: Primitive,
        order: ByteOrder,
    ) -> Option<()> {
        let itemsize = primitive.itemsize();
        let next = self.offset.checked_add(itemsize)?;
        self.unordered = self.unordered || !self.follows_last(name);
        self.fields.reserve(1);
        let slot = self.fields.spare_capacity_mut().first_mut()?;
        slot.write(Field {
            name: compact_name(name),
            title: None,
            dtype: DType::Number(primitive, order),
            offset: self.offset,
        });
        let len = self.fields.len() + 1;
        #[allow(unsafe_code)]
        // SAFETY: the slot just written is the first of the spare capacity, so the first `len`
        // elements are initialised.
        unsafe {
            self.fields.set_len(len);
        }
        self.offset = next;
        Some(())
    }

    /// The record (its labels checked as [`Record::new`] does; the offsets are in order by
    /// construction); numpy keeps its itemsize in a C int.
    pub(crate) fn finish(self) -> Result<DType, DescrError> {
        let size = self.offset;
        if size > i32::MAX as u64 {
            let reason = format!("record of {size} bytes: numpy keeps an itemsize in a C int");
            return Err(descr_error("record", &reason));
        }
        let record = Record::sequential(self.fields, size, !self.unordered)?;
        Ok(DType::Record(record))
    }
}
