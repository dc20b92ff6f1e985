//! Table tests: every literal form into Rust types and back, and every error with its exact
//! message, through the str, slice and reader entry points.

use std::collections::BTreeMap;
use std::fmt::Debug;

use npy_serde::{Category, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Reads `text` through all three entry points, which must agree.
fn read<T: DeserializeOwned + Debug + PartialEq>(text: &str) -> Result<T, (Category, String)> {
    let a = npy_serde::from_str::<T>(text);
    let b = npy_serde::from_slice::<T>(text.as_bytes());
    let c = npy_serde::from_reader::<_, T>(text.as_bytes());
    let flat = |r: npy_serde::Result<T>| r.map_err(|e| (e.classify(), e.to_string()));
    let (a, b, c) = (flat(a), flat(b), flat(c));
    assert_eq!(a, b, "from_slice differs on {text:?}");
    assert_eq!(a, c, "from_reader differs on {text:?}");
    a
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Hdr {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Pair(i32, String);

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Unit;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Meters(f64);

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
enum E {
    A,
    B(i32),
    C(i32, i32),
    D { x: u8 },
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Bytes(#[serde(with = "bytes")] Vec<u8>);

mod bytes {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(b)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_byte_buf<E>(self, b: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(b)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// Each case: a value, its exact text, and (for reading) other spellings of the same value.
#[test]
fn every_form_both_ways() {
    macro_rules! case {
        ($v:expr, $text:expr $(, $alt:expr)*) => {{
            let v = $v;
            assert_eq!(npy_serde::to_string(&v).unwrap(), $text, "writing {v:?}");
            assert_eq!(read(&$text), Ok(v), "reading {:?}", $text);
            $( assert_eq!(read($alt), Ok($v), "reading {:?}", $alt); )*
        }};
    }
    case!(true, "True");
    case!(false, "False", " False # no\n");
    case!(0i32, "0", "0x0", "-0", "0_0");
    case!(-12i64, "-12", "-0xc");
    case!(i64::MIN, "-9223372036854775808");
    case!(i64::MAX, "9223372036854775807");
    case!(u64::MAX, "18446744073709551615", "0xffff_ffff_ffff_ffff");
    case!(i128::MIN, "-170141183460469231731687303715884105728");
    case!(255u8, "255", "0b11111111", "0o377");
    case!(1.0f64, "1.0", "1", "1.", "1e0");
    case!(0.1f64, "0.1", ".1");
    case!(-0.0f64, "-0.0");
    case!(1e16f64, "1e+16");
    case!(1.5e-7f64, "1.5e-07");
    case!(1.1f32, "1.1");
    case!(f64::MAX, "1.7976931348623157e+308");
    case!('x', "'x'");
    case!("it's".to_string(), "\"it's\"", "'it\\'s'");
    case!("a\n\t\\é😀\u{0}".to_string(), "'a\\n\\t\\\\é😀\\x00'");
    case!(String::new(), "''", "\"\"", "'''''' ''");
    case!(Bytes(b"a'\x00\xff".to_vec()), "b\"a'\\x00\\xff\"");
    case!(None::<i32>, "None");
    case!(Some(3), "3");
    case!((), "None");
    case!(Unit, "None");
    case!(Meters(2.5), "2.5");
    case!((1, "a".to_string()), "(1, 'a')", "[1, 'a']", "(1, 'a',)");
    case!((5u8,), "(5,)", "[5]");
    case!(Pair(-1, "b".into()), "(-1, 'b')");
    case!(vec![1u16, 2], "[1, 2]", "(1, 2)", "[1, 2,]");
    case!(Vec::<u8>::new(), "[]", "()");
    case!(vec![(1u8,)], "[(1,)]");
    case!(
        BTreeMap::from([("a".to_string(), 1), ("b".to_string(), 2)]),
        "{'a': 1, 'b': 2}",
        "{'b': 2, 'a': 1}",
        "{'a': 0, 'b': 2, 'a': 1}"
    );
    case!(
        BTreeMap::from([(1i32, true), (-2, false)]),
        "{-2: False, 1: True}"
    );
    case!(BTreeMap::<String, u8>::new(), "{}");
    case!(
        Hdr {
            descr: "<f4".into(),
            fortran_order: false,
            shape: vec![4, 64]
        },
        // A `shape` field is written as the header's tuple (numpy refuses a list there), and
        // a list reads back.
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': [4, 64]}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }",
        "{'shape': (4,64), 'fortran_order': False, 'descr': '<f4'}"
    );
    case!(E::A, "'A'", "{'A': None}");
    case!(E::B(7), "{'B': 7}");
    case!(E::C(1, 2), "{'C': (1, 2)}", "{'C': [1, 2]}");
    case!(E::D { x: 9 }, "{'D': {'x': 9}}");
    case!(vec![E::A, E::B(1)], "['A', {'B': 1}]");
    case!(
        Value::Dict(vec![
            (Value::Str("t".into()), Value::Tuple(vec![Value::Int(1)])),
            (
                Value::Int(2),
                Value::List(vec![Value::None, Value::Float(0.5)])
            ),
            (Value::Tuple(vec![]), Value::Bytes(b"x".to_vec())),
        ]),
        "{'t': (1,), 2: [None, 0.5], (): b'x'}"
    );
}

#[test]
fn errors_have_exact_messages() {
    use Category::*;
    fn err<T: DeserializeOwned + Debug + PartialEq>(text: &str) -> (Category, String) {
        read::<T>(text).expect_err(text)
    }
    type Case = ((Category, String), (Category, &'static str));
    let cases: Vec<Case> = vec![
        // Syntax, with position.
        (err::<Value>("{'a' 1}"), (Syntax, "unexpected '1', expected ':' at line 1 column 6 (byte 5)")),
        (err::<Value>("[1,,]"), (Syntax, "unexpected ',', expected a value at line 1 column 4 (byte 3)")),
        (err::<Value>("1 2"), (Syntax, "unexpected text after the value at line 1 column 3 (byte 2)")),
        (err::<Value>("{'a': 1}\n  x"), (Syntax, "unexpected text after the value at line 2 column 3 (byte 11)")),
        (err::<bool>("true"), (Syntax, "unknown name 'true' (only True, False and None are literals) at line 1 column 1 (byte 0)")),
        (err::<f64>("inf"), (Syntax, "unknown name 'inf' (only True, False and None are literals) at line 1 column 1 (byte 0)")),
        (err::<Value>("1j"), (Syntax, "complex literals are not supported at line 1 column 1 (byte 0)")),
        (err::<Value>("(2L,)"), (Syntax, "Python 2 long suffix 'L' is not allowed here at line 1 column 3 (byte 2)")),
        (err::<Value>("{[1]: 2}"), (Syntax, "unhashable dict key of type 'list' at line 1 column 2 (byte 1)")),
        (err::<Value>(&"[".repeat(200)), (Syntax, "nesting deeper than 128 levels at line 1 column 129 (byte 128)")),
        (err::<Value>("170141183460469231731687303715884105728"), (Syntax, "integer literal out of range at line 1 column 1 (byte 0)")),
        // Eof.
        (err::<Value>(""), (Eof, "unexpected end of text, expected a value at line 1 column 1 (byte 0)")),
        (err::<Value>("{'a': 1"), (Eof, "unexpected end of text, expected ',' or '}' at line 1 column 8 (byte 7)")),
        (err::<Value>("'abc"), (Eof, "unterminated string literal at line 1 column 1 (byte 0)")),
        // Data: integers past the target's range.
        (err::<i64>("9223372036854775808"), (Data, "integer 9223372036854775808 out of range for i64")),
        (err::<i64>("-9223372036854775809"), (Data, "integer -9223372036854775809 out of range for i64")),
        (err::<u64>("18446744073709551616"), (Data, "integer 18446744073709551616 out of range for u64")),
        (err::<u64>("-1"), (Data, "integer -1 out of range for u64")),
        (err::<u8>("256"), (Data, "integer 256 out of range for u8")),
        // Data: wrong types.
        (err::<u8>("'1'"), (Data, "invalid type: string \"1\", expected u8")),
        (err::<u8>("1.5"), (Data, "invalid type: floating point `1.5`, expected u8")),
        (err::<String>("None"), (Data, "invalid type: unit value, expected a string")),
        (err::<bool>("1"), (Data, "invalid type: integer `1`, expected a boolean")),
        (err::<Vec<u8>>("{}"), (Data, "invalid type: map, expected a sequence")),
        (err::<(u8, u8)>("(1,)"), (Data, "invalid length 1, expected a tuple of size 2")),
        (err::<(u8,)>("(1, 2)"), (Data, "invalid length 2, expected 1 items")),
        (err::<E>("3"), (Data, "invalid type: int, expected a str or a dict with one key for an enum")),
        (err::<E>("'Z'"), (Data, "unknown variant `Z`, expected one of `A`, `B`, `C`, `D`")),
        (err::<E>("'B'"), (Data, "invalid type: unit variant, expected newtype variant")),
        // Data: struct fields.
        (
            err::<Hdr>("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"),
            (Data, "unknown field `x`, expected one of `descr`, `fortran_order`, `shape`"),
        ),
        (err::<Hdr>("{'descr': '<f4', 'shape': ()}"), (Data, "missing field `fortran_order`")),
        (
            err::<npy_core::Header>("{'descr': '<f9', 'fortran_order': False, 'shape': ()}"),
            (Data, "invalid descr '<f9': data type not understood"),
        ),
    ];
    let mut bad = Vec::new();
    for (got, (cat, msg)) in &cases {
        if got.0 != *cat || got.1 != *msg {
            bad.push(format!("got {got:?}\nwant ({cat:?}, {msg:?})"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

#[test]
fn utf8_and_io_errors() {
    let e = npy_serde::from_slice::<String>(b"'a\xffb'").unwrap_err();
    assert_eq!(e.classify(), Category::Syntax);
    assert_eq!(e.to_string(), "invalid utf-8 at line 1 column 3 (byte 2)");
    assert_eq!((e.offset(), e.line(), e.column()), (Some(2), 1, 3));

    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let e = npy_serde::from_reader::<_, Value>(Broken).unwrap_err();
    assert_eq!(e.classify(), Category::Io);
    assert_eq!(e.to_string(), "disk on fire");
    assert_eq!(e.offset(), None);
    let e = npy_serde::to_writer(Broken2, &1).unwrap_err();
    assert!(e.is_io());

    struct Broken2;
    impl std::io::Write for Broken2 {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}

#[test]
fn serialising_errors() {
    let cases: Vec<(npy_serde::Result<String>, &str)> = vec![
        (
            npy_serde::to_string(&f64::INFINITY),
            "float inf is not a python literal",
        ),
        (
            npy_serde::to_string(&f64::NEG_INFINITY),
            "float -inf is not a python literal",
        ),
        (
            npy_serde::to_string(&vec![f32::NAN]),
            "float nan is not a python literal",
        ),
        (
            npy_serde::to_string(&BTreeMap::from([(vec![1], 2)])),
            "unhashable dict key of type 'list'",
        ),
        (
            npy_serde::to_string(&BTreeMap::from([((1, vec![1]), 2)])),
            "unhashable dict key of type 'list'",
        ),
        (
            npy_serde::to_string(&BTreeMap::from([(E::B(1), 2)])),
            "unhashable dict key of type 'dict'",
        ),
    ];
    for (got, want) in cases {
        let e = got.expect_err(want);
        assert_eq!(e.classify(), Category::Data);
        assert_eq!(e.to_string(), want);
    }
    // Hashable keys are fine.
    assert_eq!(
        npy_serde::to_string(&BTreeMap::from([((1, "a"), E::A)])).unwrap(),
        "{(1, 'a'): 'A'}"
    );
    assert_eq!(
        npy_serde::to_string(&BTreeMap::from([(E::A, 1)])).unwrap(),
        "{'A': 1}"
    );
}

#[test]
fn error_is_small_and_converts_to_io() {
    assert_eq!(
        std::mem::size_of::<npy_serde::Error>(),
        std::mem::size_of::<usize>()
    );
    let e = npy_serde::from_str::<Value>("[").unwrap_err();
    assert!(e.is_eof());
    let io: std::io::Error = e.into();
    assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
}
