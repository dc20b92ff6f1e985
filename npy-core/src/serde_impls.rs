//! `Serialize` / `Deserialize` for the header types (feature `serde`).
//!
//! The shapes below are stable: tools may rely on them. In JSON:
//!
//! | type | JSON |
//! |---|---|
//! | [`Header`] | `{"descr": DTYPE, "fortran_order": false, "shape": [4, 64]}` (the header dict; unknown keys are an error) |
//! | [`DType`], simple | its type string: `"<f4"`, `"\|S7"`, `"<M8[ns]"` |
//! | [`DType`], record | numpy's `dtype.descr` list: one entry per field, `[name, DTYPE]` or `[name, DTYPE, shape]`, with `[title, name]` in place of `name` for a titled field, and padding entries `["", "\|V3"]` where fields leave gaps |
//! | [`DType`], subarray | `[DTYPE, shape]` |
//! | [`ByteOrder`] | `"little"`, `"big"` or `"na"` |
//! | [`TensorInfo`] | an object of the struct's fields by name, with `dtype` as `descr` (its display string: `"<f4"`, `"[('x', '<f4')]"`), `order` as `fortran_order` (bool), `version` as `"1.0"`, `canonical` as `"float32"` or `null` |
//! | [`Value`] | `None` → `null`, bool, int, float, str, bytes (an array of numbers in JSON), tuple and list → array, dict → object (or map) |
//!
//! A dtype written this way reads back to the same dtype, padding included (JSON → dtype → JSON
//! is lossless). Through `npy-serde`, tuples are written as Python tuples, so a serialised
//! [`Header`] is the header dict as numpy's `repr` writes it:
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}`.
//!
//! # Examples
//! ```
//! use npy_core::{DType, Header};
//!
//! let h = Header::new("[('x', '<f4'), ('', '|V4'), ('y', '<i8', (2,))]".parse()?, vec![3]);
//! let json = serde_json::to_string(&h)?;
//! assert_eq!(
//!     json,
//!     r#"{"descr":[["x","<f4"],["","|V4"],["y","<i8",[2]]],"fortran_order":false,"shape":[3]}"#
//! );
//! assert_eq!(serde_json::from_str::<Header>(&json)?, h);
//! let dt: DType = serde_json::from_str(r#"["<u2", [2, 2]]"#)?;
//! assert_eq!(dt.to_string(), "('<u2', (2, 2))");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Deserialising checks what the file reader checks: the descr must describe a valid dtype and
//! the size must fit in 64 bits; a [`TensorInfo`]'s derived fields (`canonical`, `itemsize`,
//! `byte_order`, `nbytes`, `data_offset`) must agree with its `descr`, `shape` and `header_len`.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::dtype::{ByteOrder, Canonical, DType};
use crate::format::{MemoryOrder, Version};
use crate::header::{Header, ParsedHeader};
use crate::info::TensorInfo;
use crate::literal::Value;

/// Name of the newtype struct through which [`Value`] asks a deserializer for its tuples. A
/// deserializer that tells tuples from lists (npy-serde's) answers a `deserialize_newtype_struct`
/// with this name by presenting a tuple as a one-entry map whose key is [`TUPLE_KEY`] and whose
/// value is the sequence of items; any other deserializer just sees an ordinary newtype struct.
#[doc(hidden)]
pub const VALUE_TOKEN: &str = "$npy_core::private::Value";

/// See [`VALUE_TOKEN`].
#[doc(hidden)]
pub const TUPLE_KEY: &str = "$npy_core::private::tuple";

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::None => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => match (i64::try_from(*i), u64::try_from(*i)) {
                (Ok(i), _) => s.serialize_i64(i),
                (_, Ok(u)) => s.serialize_u64(u),
                _ => s.serialize_i128(*i),
            },
            Value::Float(x) => s.serialize_f64(*x),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(b) => s.serialize_bytes(b),
            Value::Tuple(items) => tuple(items, s),
            Value::List(items) => s.collect_seq(items),
            Value::Dict(items) => s.collect_map(items.iter().map(|(k, v)| (k, v))),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

struct ValueVisitor;

/// The visitor's methods that cannot fail: `visit_x(argument) => the value`.
macro_rules! visit {
    ($($visit:ident($($v:ident: $t:ty)?) => $value:expr;)*) => {$(
        fn $visit<E>(self $(, $v: $t)?) -> Result<Value, E> {
            Ok($value)
        }
    )*};
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Python literal")
    }

    visit! {
        visit_none() => Value::None;
        visit_unit() => Value::None;
        visit_bool(b: bool) => Value::Bool(b);
        visit_i64(i: i64) => Value::Int(i.into());
        visit_u64(u: u64) => Value::Int(u.into());
        visit_i128(i: i128) => Value::Int(i);
        visit_f64(x: f64) => Value::Float(x);
        visit_str(s: &str) => Value::Str(s.to_owned());
        visit_bytes(b: &[u8]) => Value::Bytes(b.to_vec());
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Value, E> {
        i128::try_from(u)
            .map(Value::Int)
            .map_err(|_| E::custom(format!("integer {u} out of range for a Python literal")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut items: Vec<(Value, Value)> = Vec::new();
        while let Some(k) = map.next_key::<Value>()? {
            if items.is_empty() && matches!(&k, Value::Str(s) if s == TUPLE_KEY) {
                let Value::List(t) = map.next_value::<Value>()? else {
                    return Err(de::Error::custom("malformed tuple"));
                };
                return Ok(Value::Tuple(t));
            }
            let v = map.next_value()?;
            // Python's rule for a repeated key: first position, last value.
            match items.iter_mut().find(|(old, _)| *old == k) {
                Some(slot) => slot.1 = v,
                None => items.push((k, v)),
            }
        }
        Ok(Value::Dict(items))
    }
}

impl Serialize for ByteOrder {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for ByteOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteOrder, D::Error> {
        let s = String::deserialize(d)?;
        let orders = [ByteOrder::Little, ByteOrder::Big, ByteOrder::NotApplicable];
        orders
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| de::Error::unknown_variant(&s, &["little", "big", "na"]))
    }
}

impl Serialize for DType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_descr_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for DType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DType, D::Error> {
        let v = Value::deserialize(d)?;
        DType::from_descr_value(&descr_from_data(v)).map_err(de::Error::custom)
    }
}

/// Turns a descr read from a format without tuples (JSON arrays arrive as lists) into the value
/// `DType::from_descr_value` reads: a `[descr, shape]` list becomes a subarray tuple, the entries
/// of a field list become tuples, with `[title, name]` and shapes as tuples.
fn descr_from_data(v: Value) -> Value {
    match v {
        Value::List(items) | Value::Tuple(items) if is_subarray(&items) => {
            let mut it = items.into_iter();
            let (base, shape) = (it.next(), it.next());
            Value::Tuple(vec![
                descr_from_data(base.unwrap_or(Value::None)),
                shape.map_or(Value::None, list_to_tuple),
            ])
        }
        Value::List(items) => Value::List(items.into_iter().map(field_from_data).collect()),
        other => other,
    }
}

fn is_subarray(items: &[Value]) -> bool {
    let dims = |v: &Value| match v {
        Value::Int(_) => true,
        Value::List(d) | Value::Tuple(d) => d.iter().all(|x| matches!(x, Value::Int(_))),
        _ => false,
    };
    items.len() == 2 && !matches!(items[0], Value::Int(_)) && dims(&items[1])
}

fn field_from_data(v: Value) -> Value {
    match v {
        Value::List(parts) | Value::Tuple(parts) => Value::Tuple(
            parts
                .into_iter()
                .enumerate()
                .map(|(i, p)| match i {
                    1 => descr_from_data(p),
                    _ => list_to_tuple(p),
                })
                .collect(),
        ),
        other => other,
    }
}

fn list_to_tuple(v: Value) -> Value {
    match v {
        Value::List(items) => Value::Tuple(items),
        other => other,
    }
}

/// `items` as a tuple (a list in formats without tuples).
fn tuple<T: Serialize, S: Serializer>(items: &[T], s: S) -> Result<S::Ok, S::Error> {
    let mut t = s.serialize_tuple(items.len())?;
    for v in items {
        t.serialize_element(v)?;
    }
    t.end()
}

/// [`Header`] as its dict, the shape a tuple (so a Python-literal format writes `(4, 64)`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Header", rename = "Header", deny_unknown_fields)]
struct HeaderDict {
    #[serde(rename = "descr")]
    dtype: DType,
    fortran_order: bool,
    #[serde(serialize_with = "tuple")]
    shape: Vec<u64>,
}

impl Serialize for Header {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        HeaderDict::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Header, D::Error> {
        let header = HeaderDict::deserialize(d)?;
        header.nbytes().map_err(de::Error::custom)?;
        Ok(header)
    }
}

impl Serialize for TensorInfo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("TensorInfo", 12)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("version", &self.version.to_string())?;
        st.serialize_field("header_len", &self.header_len)?;
        st.serialize_field("data_offset", &self.data_offset)?;
        st.serialize_field("descr", &self.dtype.to_string())?;
        st.serialize_field("canonical", &self.canonical.map(Canonical::name))?;
        st.serialize_field("shape", &self.shape)?;
        st.serialize_field("fortran_order", &(self.order == MemoryOrder::Fortran))?;
        st.serialize_field("itemsize", &self.itemsize)?;
        st.serialize_field("nbytes", &self.nbytes)?;
        st.serialize_field("byte_order", &self.byte_order)?;
        st.serialize_field("header", &self.header)?;
        st.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "TensorInfo", deny_unknown_fields)]
struct TensorInfoRepr {
    name: String,
    version: String,
    header_len: u64,
    data_offset: u64,
    descr: String,
    canonical: Option<String>,
    shape: Vec<u64>,
    fortran_order: bool,
    itemsize: u64,
    nbytes: u64,
    byte_order: ByteOrder,
    header: String,
}

impl<'de> Deserialize<'de> for TensorInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TensorInfo, D::Error> {
        let r = TensorInfoRepr::deserialize(d)?;
        let version = Version::ALL
            .into_iter()
            .find(|v| v.to_string() == r.version)
            .ok_or_else(|| {
                let expected = &"\"1.0\", \"2.0\" or \"3.0\"";
                de::Error::invalid_value(de::Unexpected::Str(&r.version), expected)
            })?;
        let dtype: DType = r.descr.parse().map_err(de::Error::custom)?;
        let mut header = Header::new(dtype, r.shape);
        header.fortran_order = r.fortran_order;
        let nbytes = header.nbytes().map_err(de::Error::custom)?;
        let parsed = ParsedHeader {
            header,
            version,
            header_len: r.header_len,
            text: r.header,
        };
        let info = TensorInfo::from_parts(r.name, parsed, nbytes, r.data_offset);
        let itemsizes = [r.itemsize, info.itemsize].map(|n| n.to_string());
        let canonicals = [r.canonical.as_deref(), info.canonical.map(Canonical::name)];
        let canonicals = canonicals.map(|c| c.unwrap_or("null"));
        let checks = [
            ("canonical", canonicals[0], canonicals[1]),
            ("itemsize", &itemsizes[0], &itemsizes[1]),
            ("byte_order", r.byte_order.name(), info.byte_order.name()),
        ];
        if let Some((field, found, want)) = checks.iter().find(|(_, f, w)| f != w) {
            return Err(de::Error::custom(format!(
                "{field} {found} does not match descr {} (expected {want})",
                r.descr
            )));
        }
        if r.nbytes != nbytes {
            return Err(de::Error::custom(format!(
                "nbytes {} does not match shape and descr (expected {nbytes})",
                r.nbytes
            )));
        }
        let data_offset = version.prefix_len().checked_add(r.header_len);
        if data_offset != Some(r.data_offset) {
            return Err(de::Error::custom(format!(
                "data_offset {} does not match version {} and header_len {}",
                r.data_offset, r.version, r.header_len
            )));
        }
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_roundtrip(descr: &str) {
        let dt: DType = descr.parse().unwrap();
        let json = serde_json::to_string(&dt).unwrap();
        let back: DType = serde_json::from_str(&json).unwrap();
        assert_eq!(back, dt, "{descr} via {json}");
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn dtype_json_shapes() {
        let dt: DType = "<f4".parse().unwrap();
        assert_eq!(serde_json::to_string(&dt).unwrap(), r#""<f4""#);
        let rec: DType = "[('a', 'u1'), ('', '|V3'), (('T', 'b'), '<i4', (2, 3))]"
            .parse()
            .unwrap();
        assert_eq!(
            serde_json::to_string(&rec).unwrap(),
            r#"[["a","|u1"],["","|V3"],[["T","b"],"<i4",[2,3]]]"#
        );
        for d in [
            "<f4",
            "|S7",
            ">M8[ns]",
            "[('x', '<f4'), ('id', '<i8')]",
            "[('a', 'u1'), ('', '|V3'), (('T', 'b'), '<i4', (2, 3))]",
            "[('a', [('b', '<f8', (2,)), ('', '|V4')])]",
            "('<i4', (2, 2))",
        ] {
            json_roundtrip(d);
        }
    }

    #[test]
    fn header_and_byte_order_json() {
        let h = Header::new("<f4".parse().unwrap(), vec![4, 64]);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            json,
            r#"{"descr":"<f4","fortran_order":false,"shape":[4,64]}"#
        );
        assert_eq!(serde_json::from_str::<Header>(&json).unwrap(), h);
        let err = serde_json::from_str::<Header>(
            r#"{"descr":"<f4","fortran_order":false,"shape":[],"x":1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("unknown field `x`"), "{err}");
        assert_eq!(
            serde_json::to_string(&ByteOrder::NotApplicable).unwrap(),
            r#""na""#
        );
        assert_eq!(
            serde_json::from_str::<ByteOrder>(r#""big""#).unwrap(),
            ByteOrder::Big
        );
    }

    #[test]
    fn tensor_info_json() {
        let bytes = Header::new("<f4".parse().unwrap(), vec![4, 64])
            .to_bytes(None)
            .unwrap();
        let info = TensorInfo::from_reader("w_f32", &mut &bytes[..]).unwrap();
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json["version"], "1.0");
        assert_eq!(json["canonical"], "float32");
        assert_eq!(json["byte_order"], "little");
        assert_eq!(json["nbytes"], 1024);
        let back: TensorInfo = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, info);
        let mut bad = json;
        bad["itemsize"] = 8.into();
        let err = serde_json::from_value::<TensorInfo>(bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "itemsize 8 does not match descr <f4 (expected 4)"
        );
    }

    #[test]
    fn value_json() {
        let v = Value::Dict(vec![(
            Value::Str("a".into()),
            Value::Tuple(vec![Value::Int(1), Value::None]),
        )]);
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"a":[1,null]}"#);
        let back: Value = serde_json::from_str(r#"{"a":[1,null]}"#).unwrap();
        assert_eq!(
            back,
            Value::Dict(vec![(
                Value::Str("a".into()),
                Value::List(vec![Value::Int(1), Value::None]),
            )])
        );
    }
}
