//! Property tests: `from_str(to_string(v)) == v` for random literal values and random Rust
//! structs, and the writer agrees with `Value`'s `Display` (Python's repr).

use std::collections::BTreeMap;

use npy_serde::Value;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        Just(0.0),
        Just(-0.0),
        Just(1e16),
        Just(1e-5),
        Just(5e-324),
    ]
}

fn key() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        any::<i64>().prop_map(|i| Value::Int(i.into())),
        ".*".prop_map(Value::Str),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::None),
    ];
    prop_oneof![
        3 => scalar.clone(),
        1 => prop::collection::vec(scalar, 0..3).prop_map(Value::Tuple),
    ]
}

/// Whether two dict keys are the same key to Python (`True == 1`, `False == 0`).
fn same_key(a: &Value, b: &Value) -> bool {
    let norm = |v: &Value| match v {
        Value::Bool(b) => Value::Int(i128::from(*b)),
        other => other.clone(),
    };
    norm(a) == norm(b)
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::None),
        any::<bool>().prop_map(Value::Bool),
        any::<i128>().prop_map(Value::Int),
        any::<i64>().prop_map(|i| Value::Int(i.into())),
        finite().prop_map(Value::Float),
        ".*".prop_map(Value::Str),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(Value::Bytes),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Tuple),
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
            prop::collection::vec((key(), inner), 0..6).prop_map(|items| {
                let mut out: Vec<(Value, Value)> = Vec::new();
                for (k, v) in items {
                    if !out.iter().any(|(old, _)| same_key(old, &k)) {
                        out.push((k, v));
                    }
                }
                Value::Dict(out)
            }),
        ]
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Kind {
    A,
    B(i8),
    C(u16, String),
    D { x: Option<u32> },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Rec {
    a: i64,
    b: u64,
    c: f64,
    d: String,
    e: Option<bool>,
    f: Vec<(u8, i32)>,
    g: BTreeMap<String, Vec<i16>>,
    h: Kind,
    i: (char, f32),
    j: (),
    k: BTreeMap<i64, Option<Kind>>,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::A),
        any::<i8>().prop_map(Kind::B),
        (any::<u16>(), ".*").prop_map(|(a, b)| Kind::C(a, b)),
        any::<Option<u32>>().prop_map(|x| Kind::D { x }),
    ]
}

fn rec() -> impl Strategy<Value = Rec> {
    (
        (
            any::<i64>(),
            any::<u64>(),
            finite(),
            ".*",
            any::<Option<bool>>(),
        ),
        prop::collection::vec(any::<(u8, i32)>(), 0..4),
        prop::collection::btree_map(".*", prop::collection::vec(any::<i16>(), 0..3), 0..3),
        kind(),
        (
            any::<char>(),
            any::<f32>().prop_filter("finite", |x| x.is_finite()),
        ),
        prop::collection::btree_map(any::<i64>(), prop::option::of(kind()), 0..3),
    )
        .prop_map(|((a, b, c, d, e), f, g, h, i, k)| Rec {
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
            i,
            j: (),
            k,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn values_round_trip(v in value()) {
        let text = npy_serde::to_string(&v).unwrap();
        prop_assert_eq!(&text, &v.to_string(), "writer and Display (repr) differ");
        let back: Value = npy_serde::from_str(&text).unwrap();
        prop_assert_eq!(&back, &v);
        let back: Value = npy_serde::from_slice(&npy_serde::to_vec(&v).unwrap()).unwrap();
        prop_assert_eq!(back, v);
    }

    #[test]
    fn structs_round_trip(r in rec()) {
        let text = npy_serde::to_string(&r).unwrap();
        let back: Rec = npy_serde::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(&back, &r);
        // And through the dynamic Value: text → Value → Rec.
        let v: Value = npy_serde::from_str(&text).unwrap();
        prop_assert_eq!(v.to_string(), text);
        let back: Rec = npy_serde::from_value(v).unwrap();
        prop_assert_eq!(back, r);
    }

    #[test]
    fn floats_are_pythons_repr(x in finite()) {
        let text = npy_serde::to_string(&x).unwrap();
        prop_assert_eq!(npy_serde::from_str::<f64>(&text).unwrap().to_bits(), x.to_bits());
        // Python's repr always shows a float as a float.
        prop_assert!(text.contains(['.', 'e']), "{}", text);
    }
}
