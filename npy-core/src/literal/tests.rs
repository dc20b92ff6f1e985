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

#[test]
fn line_col() {
    let text = "{'a':\n  1 2}";
    let e = parse(text, ParseOptions::default()).unwrap_err();
    assert_eq!(e.line_col(text), (2, 5));
}
