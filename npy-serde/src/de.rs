//! Deserialising: parse the text with [`npy_core::literal::parse`] into a [`Value`], then drive
//! the Rust type's `Deserialize` over the value tree.

use std::io::Read;
use std::vec;

use npy_core::__private::{TUPLE_KEY, VALUE_TOKEN};
use npy_core::literal::{self, ParseOptions, Value};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

use crate::error::{Error, Result};

/// Deserialises a `T` from the Python literal `text` (a dict, tuple, list, str, ...).
///
/// The whole text must be one literal: anything but whitespace and `#` comments after it is an
/// error. Nesting deeper than [`literal::DEFAULT_MAX_DEPTH`] is an error (see
/// [`from_str_with`] to change the limit).
///
/// # Errors
/// [`Category::Syntax`](crate::Category::Syntax) or [`Category::Eof`](crate::Category::Eof)
/// with the position for text that is not a literal; [`Category::Data`](crate::Category::Data)
/// when the literal does not fit `T` (wrong type, unknown or missing field, integer out of
/// range).
///
/// # Examples
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Debug, PartialEq)]
/// struct Header {
///     descr: String,
///     fortran_order: bool,
///     shape: Vec<u64>,
/// }
///
/// let h: Header = npy_serde::from_str("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }")?;
/// assert_eq!(h, Header { descr: "<f4".into(), fortran_order: false, shape: vec![4, 64] });
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T> {
    from_str_with(text, ParseOptions::default())
}

/// [`from_str`] with parse options: the nesting limit and whether Python 2 long suffixes (`2L`)
/// are accepted.
///
/// # Errors
/// As [`from_str`].
///
/// # Examples
/// ```
/// use npy_core::literal::ParseOptions;
///
/// let opts = ParseOptions { long_suffix: true, ..ParseOptions::default() };
/// let shape: (u64, u64) = npy_serde::from_str_with("(3L, 4L)", opts)?;
/// assert_eq!(shape, (3, 4));
///
/// let shallow = ParseOptions { max_depth: 2, ..ParseOptions::default() };
/// let err = npy_serde::from_str_with::<Vec<Vec<Vec<u8>>>>("[[[1]]]", shallow).unwrap_err();
/// assert_eq!(err.to_string(), "nesting deeper than 2 levels at line 1 column 3 (byte 2)");
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn from_str_with<T: DeserializeOwned>(text: &str, options: ParseOptions) -> Result<T> {
    let value = literal::parse(text, options).map_err(|e| Error::syntax(e, text))?;
    from_value(value)
}

/// Deserialises a `T` from UTF-8 bytes holding a Python literal.
///
/// # Errors
/// As [`from_str`]; bytes that are not UTF-8 are a [`Category::Syntax`](crate::Category::Syntax)
/// error at the first invalid byte.
///
/// # Examples
/// ```
/// let shape: Vec<u64> = npy_serde::from_slice(b"(2, 3)")?;
/// assert_eq!(shape, [2, 3]);
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(text) => from_str(text),
        Err(e) => Err(Error::invalid_utf8(bytes, e.valid_up_to())),
    }
}

/// Deserialises a `T` from a reader holding one Python literal (read to its end).
///
/// # Errors
/// As [`from_slice`], and [`Category::Io`](crate::Category::Io) when reading fails.
///
/// # Examples
/// ```
/// use std::collections::BTreeMap;
///
/// let text = "{'a': [1, 2], 'b': []}";
/// let m: BTreeMap<String, Vec<i32>> = npy_serde::from_reader(text.as_bytes())?;
/// assert_eq!(m["a"], [1, 2]);
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn from_reader<R: Read, T: DeserializeOwned>(mut reader: R) -> Result<T> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(Error::io)?;
    from_slice(&bytes)
}

/// Deserialises a `T` from a parsed [`Value`] (a [`crate::Value`]).
///
/// # Errors
/// [`Category::Data`](crate::Category::Data) when the value does not fit `T`.
///
/// # Examples
/// ```
/// use npy_serde::Value;
///
/// let v = Value::Tuple(vec![Value::Int(2), Value::Str("x".into())]);
/// let t: (u8, String) = npy_serde::from_value(v)?;
/// assert_eq!(t, (2, "x".to_owned()));
/// # Ok::<(), npy_serde::Error>(())
/// ```
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T> {
    T::deserialize(ValueDeserializer(value))
}

/// A `serde::Deserializer` over an owned [`Value`].
struct ValueDeserializer(Value);

macro_rules! deserialize_int {
    ($($method:ident => $visit:ident: $ty:ty,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0 {
                Value::Int(i) => match <$ty>::try_from(i) {
                    Ok(n) => visitor.$visit(n),
                    Err(_) => Err(Error::data(format_args!(
                        "integer {i} out of range for {}",
                        stringify!($ty)
                    ))),
                },
                other => ValueDeserializer(other).deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDeserializer {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Value::None => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => {
                if let Ok(n) = i64::try_from(i) {
                    visitor.visit_i64(n)
                } else if let Ok(n) = u64::try_from(i) {
                    visitor.visit_u64(n)
                } else {
                    visitor.visit_i128(i)
                }
            }
            Value::Float(x) => visitor.visit_f64(x),
            Value::Str(s) => visitor.visit_string(s),
            Value::Bytes(b) => visitor.visit_byte_buf(b),
            Value::Tuple(items) | Value::List(items) => visit_seq(items, visitor),
            Value::Dict(items) => visit_map(items, visitor),
        }
    }

    deserialize_int! {
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Value::None => visitor.visit_none(),
            other => visitor.visit_some(ValueDeserializer(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == VALUE_TOKEN {
            // `Value`'s own Deserialize asks here so that tuples stay tuples.
            return match self.0 {
                Value::Tuple(items) => visit_map(
                    vec![(Value::Str(TUPLE_KEY.to_owned()), Value::List(items))],
                    visitor,
                ),
                other => ValueDeserializer(other).deserialize_any(visitor),
            };
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.0 {
            Value::Str(s) => visitor.visit_enum(EnumDeserializer {
                variant: Value::Str(s),
                value: None,
            }),
            Value::Dict(mut items) if items.len() == 1 => {
                let (variant, value) = items.remove(0);
                visitor.visit_enum(EnumDeserializer {
                    variant,
                    value: Some(value),
                })
            }
            other => Err(Error::data(format_args!(
                "invalid type: {}, expected a str or a dict with one key for an enum",
                other.type_name()
            ))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool f32 f64 char str string unit unit_struct seq tuple tuple_struct map struct
        identifier
    }
}

fn visit_seq<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value> {
    let len = items.len();
    let mut seq = SeqDeserializer {
        iter: items.into_iter(),
    };
    let out = visitor.visit_seq(&mut seq)?;
    let left = seq.iter.len();
    if left > 0 {
        return Err(Error::data(format_args!(
            "invalid length {len}, expected {} items",
            len - left
        )));
    }
    Ok(out)
}

fn visit_map<'de, V: Visitor<'de>>(items: Vec<(Value, Value)>, visitor: V) -> Result<V::Value> {
    let len = items.len();
    let mut map = MapDeserializer {
        iter: items.into_iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut map)?;
    let left = map.iter.len();
    if left > 0 {
        return Err(Error::data(format_args!(
            "invalid length {len}, expected {} entries",
            len - left
        )));
    }
    Ok(out)
}

struct SeqDeserializer {
    iter: vec::IntoIter<Value>,
}

impl<'de> de::SeqAccess<'de> for SeqDeserializer {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.iter.next() {
            Some(v) => seed.deserialize(ValueDeserializer(v)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDeserializer {
    iter: vec::IntoIter<(Value, Value)>,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for MapDeserializer {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(ValueDeserializer(k)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        match self.value.take() {
            Some(v) => seed.deserialize(ValueDeserializer(v)),
            None => Err(Error::data("value requested before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct EnumDeserializer {
    variant: Value,
    value: Option<Value>,
}

impl<'de> de::EnumAccess<'de> for EnumDeserializer {
    type Error = Error;
    type Variant = VariantDeserializer;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let variant = seed.deserialize(ValueDeserializer(self.variant))?;
        Ok((variant, VariantDeserializer { value: self.value }))
    }
}

struct VariantDeserializer {
    value: Option<Value>,
}

impl VariantDeserializer {
    #[cold]
    fn missing(what: &str) -> Error {
        Error::data(format_args!(
            "invalid type: unit variant, expected {what} variant"
        ))
    }
}

impl<'de> de::VariantAccess<'de> for VariantDeserializer {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        match self.value {
            None | Some(Value::None) => Ok(()),
            Some(v) => Err(Error::data(format_args!(
                "invalid type: {}, expected unit variant",
                v.type_name()
            ))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        match self.value {
            Some(v) => seed.deserialize(ValueDeserializer(v)),
            None => Err(Self::missing("newtype")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        match self.value {
            Some(v) => de::Deserializer::deserialize_any(ValueDeserializer(v), visitor),
            None => Err(Self::missing("tuple")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Some(v) => de::Deserializer::deserialize_any(ValueDeserializer(v), visitor),
            None => Err(Self::missing("struct")),
        }
    }
}
