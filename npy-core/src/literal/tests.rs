//! The parser and `repr` writer against Python's own behaviour.

use super::*;

fn p(s: &str) -> Result<Value, LiteralErrorKind> {
    parse(s, ParseOptions::default()).map_err(|e| e.kind)
}

fn repr(v: &Value) -> String {
    v.to_string()
}

#[test]
fn scalars() {
    assert_eq!(p("None"), Ok(Value::None));
    assert_eq!(p("True"), Ok(Value::Bool(true)));
    assert_eq!(p(" False "), Ok(Value::Bool(false)));
    assert_eq!(p("0"), Ok(Value::Int(0)));
    assert_eq!(p("000"), Ok(Value::Int(0)));
    assert_eq!(p("-12"), Ok(Value::Int(-12)));
    assert_eq!(p("+7"), Ok(Value::Int(7)));
    assert_eq!(p("1_000"), Ok(Value::Int(1000)));
    assert_eq!(p("0xFF"), Ok(Value::Int(255)));
    assert_eq!(p("0o17"), Ok(Value::Int(15)));
    assert_eq!(p("0b101"), Ok(Value::Int(5)));
    assert_eq!(p("0x_f"), Ok(Value::Int(15)));
    assert_eq!(p("1.5"), Ok(Value::Float(1.5)));
    assert_eq!(p(".5"), Ok(Value::Float(0.5)));
    assert_eq!(p("1."), Ok(Value::Float(1.0)));
    assert_eq!(p("1e3"), Ok(Value::Float(1000.0)));
    assert_eq!(p("-2.5E-1"), Ok(Value::Float(-0.25)));
    assert_eq!(p("1e999"), Ok(Value::Float(f64::INFINITY)));
    assert_eq!(
        p("-170141183460469231731687303715884105728"),
        Ok(Value::Int(i128::MIN))
    );
}

#[test]
fn number_errors() {
    for s in [
        "01", "1__0", "1_", "0x", "0xg", "1e", "12abc", "_1", "0b2", ".",
    ] {
        assert!(p(s).is_err(), "{s} must be rejected");
    }
    assert_eq!(p("1j"), Err(LiteralErrorKind::Complex));
    assert_eq!(
        p("170141183460469231731687303715884105728"),
        Err(LiteralErrorKind::IntegerOutOfRange)
    );
    assert_eq!(
        p(&"9".repeat(5000)),
        Err(LiteralErrorKind::IntegerOutOfRange)
    );
    assert_eq!(
        p("--1"),
        Err(LiteralErrorKind::Unexpected {
            found: '-',
            expected: "a number"
        })
    );
}

#[test]
fn long_suffix_only_when_allowed() {
    assert_eq!(p("(2L, 3)"), Err(LiteralErrorKind::LongSuffix));
    let opts = ParseOptions {
        long_suffix: true,
        ..ParseOptions::default()
    };
    assert_eq!(
        parse("(2L, 3L)", opts),
        Ok(Value::Tuple(vec![Value::Int(2), Value::Int(3)]))
    );
    // numpy 2.4.6 refuses "(2l, 3)" in a 1.0 header ("Cannot parse header").
    assert_eq!(
        parse("(2l, 3)", opts).map_err(|e| e.kind),
        Err(LiteralErrorKind::InvalidNumber)
    );
    // Only after integers.
    assert!(parse("1.5L", opts).is_err());
}

#[test]
fn strings() {
    assert_eq!(p("'a'"), Ok(Value::Str("a".into())));
    assert_eq!(p("\"a'b\""), Ok(Value::Str("a'b".into())));
    assert_eq!(
        p(r"'\x41\u00e9\U0001F600\n\t\\\'\101'"),
        Ok(Value::Str("Aé😀\n\t\\'A".into()))
    );
    assert_eq!(p(r"r'\n'"), Ok(Value::Str("\\n".into())));
    assert_eq!(p(r"'\q'"), Ok(Value::Str("\\q".into())));
    assert_eq!(p("'a' \"b\""), Ok(Value::Str("ab".into())));
    assert_eq!(p("'''a'b\nc'''"), Ok(Value::Str("a'b\nc".into())));
    assert_eq!(p("u'x'"), Ok(Value::Str("x".into())));
    assert_eq!(p(r"b'\xff\x00a'"), Ok(Value::Bytes(vec![0xff, 0, b'a'])));
    assert_eq!(p("'整形'"), Ok(Value::Str("整形".into())));
    assert_eq!(p("'a\nb'"), Err(LiteralErrorKind::UnterminatedString));
    assert_eq!(p("'abc"), Err(LiteralErrorKind::UnterminatedString));
    assert_eq!(p("b'é'"), Err(LiteralErrorKind::NonAsciiBytes));
    assert_eq!(p("'a' b'b'"), Err(LiteralErrorKind::MixedStringKinds));
    assert_eq!(p(r"'\ud800'"), Err(LiteralErrorKind::InvalidCodePoint));
    assert!(matches!(
        p(r"'\x4'"),
        Err(LiteralErrorKind::InvalidEscape(_))
    ));
    assert!(matches!(
        p(r"'\N{DASH}'"),
        Err(LiteralErrorKind::InvalidEscape(_))
    ));
    assert_eq!(p("f'x'"), Err(LiteralErrorKind::UnknownName("f".into())));
}

#[test]
fn containers() {
    assert_eq!(p("()"), Ok(Value::Tuple(vec![])));
    assert_eq!(p("(1)"), Ok(Value::Int(1)));
    assert_eq!(p("(1,)"), Ok(Value::Tuple(vec![Value::Int(1)])));
    assert_eq!(
        p("[1, 2,]"),
        Ok(Value::List(vec![Value::Int(1), Value::Int(2)]))
    );
    assert_eq!(p("[]"), Ok(Value::List(vec![])));
    assert_eq!(p("{}"), Ok(Value::Dict(vec![])));
    assert_eq!(
        p("{'a': 1, 'b': 2, 'a': 3}"),
        Ok(Value::Dict(vec![
            (Value::Str("a".into()), Value::Int(3)),
            (Value::Str("b".into()), Value::Int(2)),
        ]))
    );
    assert_eq!(p("{[1]: 2}"), Err(LiteralErrorKind::UnhashableKey("list")));
    assert_eq!(
        p("{1 2}"),
        Err(LiteralErrorKind::Unexpected {
            found: '2',
            expected: "':'"
        })
    );
    assert_eq!(
        p("(1 2)"),
        Err(LiteralErrorKind::Unexpected {
            found: '2',
            expected: "',' or ')'"
        })
    );
    assert_eq!(
        p("[1,,]"),
        Err(LiteralErrorKind::Unexpected {
            found: ',',
            expected: "a value"
        })
    );
    assert_eq!(
        p("{'a': 1"),
        Err(LiteralErrorKind::UnexpectedEnd {
            expected: "',' or '}'"
        })
    );
    assert_eq!(p("1 2"), Err(LiteralErrorKind::TrailingCharacters));
    assert_eq!(
        p("false"),
        Err(LiteralErrorKind::UnknownName("false".into()))
    );
}

#[test]
fn whitespace_and_comments() {
    let v = p("\t{ # comment\r\n 'a' :\x0c(1 ,\\\n 2) ,\n}\n  ").unwrap();
    assert_eq!(v.to_string(), "{'a': (1, 2)}");
    assert!(p("{'a': 1}\0").is_err());
}

#[test]
fn depth_limit() {
    let deep = "(".repeat(100_000);
    assert_eq!(
        p(&deep),
        Err(LiteralErrorKind::TooDeep {
            limit: DEFAULT_MAX_DEPTH
        })
    );
    let ok = format!(
        "{}1{}",
        "[".repeat(DEFAULT_MAX_DEPTH),
        "]".repeat(DEFAULT_MAX_DEPTH)
    );
    assert!(p(&ok).is_ok());
    let over = format!(
        "{}1{}",
        "[".repeat(DEFAULT_MAX_DEPTH + 1),
        "]".repeat(DEFAULT_MAX_DEPTH + 1)
    );
    assert!(p(&over).is_err());
}

/// Expected strings are Python 3.11's `repr` (Unicode 14.0.0): unassigned code points
/// (U+0378; U+31350, assigned only in Unicode 15) are escaped, as are format characters
/// and separators; assigned astral characters are not.
#[test]
fn repr_escapes_what_python_does_not_print() {
    for (s, want) in [
        ("\u{378}", r"'\u0378'"),
        ("\u{1F600}", "'\u{1F600}'"),
        ("\u{30000}", "'\u{30000}'"),
        ("\u{31350}", r"'\U00031350'"),
        ("\u{AD}", r"'\xad'"),
        ("\u{2028}", r"'\u2028'"),
        ("\u{E0080}", r"'\U000e0080'"),
        ("\u{890}", r"'\u0890'"),
        ("a\u{378}b", r"'a\u0378b'"),
    ] {
        let mut got = String::new();
        write_repr_str(&mut got, s).unwrap();
        assert_eq!(got, want, "{s:?}");
    }
    assert_eq!(printable::UNICODE_VERSION, "14.0.0");
    let flips = printable::NOT_PRINTABLE_FLIPS;
    assert!(flips.windows(2).all(|w| w[0] < w[1]));
    // Either side of each flip: a run `[first, end)` is escaped, the code points around it are
    // not (surrogates are no `char`, so their run's edges are skipped).
    let escaped = |cp: u32| {
        char::from_u32(cp).map(|c| {
            let mut got = String::new();
            write_repr_str(&mut got, &c.to_string()).unwrap();
            got.starts_with("'\\")
        })
    };
    for run in flips.chunks(2) {
        let (first, end) = (run[0], run[1]);
        assert_ne!(escaped(first), Some(false), "{first:#x}");
        assert_ne!(escaped(end - 1), Some(false), "{:#x}", end - 1);
        if first > 0 && first - 1 != u32::from('\\') && first - 1 != u32::from('\'') {
            assert_ne!(escaped(first - 1), Some(true), "{:#x}", first - 1);
        }
        if end <= 0x10FFFF && end != u32::from('\\') && end != u32::from('\'') {
            assert_ne!(escaped(end), Some(true), "{end:#x}");
        }
    }
}

#[test]
fn repr_matches_python() {
    // Expected strings are CPython's repr of the same values.
    let cases: &[(f64, &str)] = &[
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (1e16, "1e+16"),
        (1e15, "1000000000000000.0"),
        (123456789012345680.0, "1.2345678901234568e+17"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (1.5e-7, "1.5e-07"),
        (1e100, "1e+100"),
        (f64::MAX, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (f64::NAN, "nan"),
        (f64::NEG_INFINITY, "-inf"),
    ];
    for (x, want) in cases {
        assert_eq!(repr(&Value::Float(*x)), *want);
    }
    assert_eq!(repr(&Value::Str("it's".into())), "\"it's\"");
    assert_eq!(repr(&Value::Str("a'\"".into())), "'a\\'\"'");
    assert_eq!(
        repr(&Value::Str("\u{0}\u{7f}\u{a0}é\u{2028}😀\\".into())),
        "'\\x00\\x7f\\xa0é\\u2028😀\\\\'"
    );
    assert_eq!(
        repr(&Value::Bytes(b"a'\x00\xff".to_vec())),
        "b\"a'\\x00\\xff\""
    );
    assert_eq!(repr(&Value::Tuple(vec![Value::Int(5)])), "(5,)");
    assert_eq!(repr(&Value::Tuple(vec![])), "()");
    assert_eq!(
        repr(&Value::List(vec![Value::Tuple(vec![
            Value::Str("x".into()),
            Value::Str("<f4".into())
        ])])),
        "[('x', '<f4')]"
    );
}

/// Every byte value in a `bytes` repr, and both quote cases, as Python 3 writes them
/// (`repr(bytes(range(256)))`, `repr(b"'")`, `repr(b"'\"")`): the bytes repr shares the str
/// repr's escaping, with only printable ASCII written as it is.
#[test]
fn bytes_repr_of_every_byte() {
    let all: Vec<u8> = (0..=255).collect();
    assert_eq!(
        repr(&Value::Bytes(all)),
        r##"b'\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff'"##
    );
    assert_eq!(repr(&Value::Bytes(b"'".to_vec())), r#"b"'""#);
    assert_eq!(repr(&Value::Bytes(b"'\"".to_vec())), r#"b'\'"'"#);
}

#[test]
fn line_col() {
    let text = "{'a':\n  1 2}";
    let e = parse(text, ParseOptions::default()).unwrap_err();
    assert_eq!(e.line_col(text), (2, 5));
}
