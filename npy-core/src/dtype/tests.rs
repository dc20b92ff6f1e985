//! Type strings and descrs against numpy 2.4.6.

use super::*;

fn d(s: &str) -> DType {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Expected strings are numpy 2.4.6's `np.dtype(s).str` for each input.
#[test]
fn type_strings_as_numpy() {
    for (input, numpy_str) in [
        ("l", "<i8"),
        ("L", "<u8"),
        ("g", "<f16"),
        ("G", "<c32"),
        ("=f8", "<f8"),
        ("f8", "<f8"),
        ("d", "<f8"),
        ("<u1", "|u1"),
        ("b", "|i1"),
        ("B", "|u1"),
        ("?", "|b1"),
        ("<b1", "|b1"),
        ("S", "|S0"),
        ("U", "<U0"),
        ("V", "|V0"),
        ("a5", "|S5"),
        ("O8", "|O"),
        ("<M8", "<M8"),
        ("M8[10ms]", "<M8[10ms]"),
        ("m8[us]", "<m8[us]"),
        ("<M8[μs]", "<M8[us]"),
        ("f16", "<f16"),
        ("c32", "<c32"),
        ("float32", "<f4"),
        (">U5", ">U5"),
        ("|U5", "<U5"),
        ("S0", "|S0"),
        ("S2147483647", "|S2147483647"),
        ("V2147483647", "|V2147483647"),
        ("U536870911", "<U536870911"),
        ("M8[2147483647s]", "<M8[2147483647s]"),
        ("M", "<M8"),
        ("m", "<m8"),
        ("int", "<i8"),
        (">c8", ">c8"),
        (">M8[ns]", ">M8[ns]"),
        // A zero multiplier is numpy's too.
        ("M8[0s]", "<M8[0s]"),
        ("datetime64[ns]", "<M8[ns]"),
        ("ubyte", "|u1"),
        ("2i4", "|V8"),
    ] {
        assert_eq!(d(input).type_str(), numpy_str, "{input}");
    }
}

#[test]
fn rejected_type_strings() {
    for s in [
        "i3",
        "!i4",
        "f1",
        "u16",
        "c4",
        "x",
        "",
        "<",
        "M8[xs]",
        // sizeof(long double) is 16 on x86-64: numpy refuses the 32-bit x86 sizes.
        "f12",
        "c24",
        "f8 ",
        "b2",
        "O2",
        // Refused by numpy 2.4.6's np.dtype(): a unit without the size, a multiplier or an
        // itemsize beyond a C int.
        "M[ns]",
        "<m[10ms]",
        "M8[2147483648s]",
        "m8[3000000000ms]",
        "S2147483648",
        "V2147483648",
        "U536870912",
        "U4611686018427387903",
    ] {
        assert!(s.parse::<DType>().is_err(), "{s:?} must be rejected");
    }
}

#[test]
fn canonical_per_number_table() {
    assert_eq!(d(">f4").canonical(), Some(Canonical::Float32));
    assert_eq!(d("<c16").canonical(), Some(Canonical::Complex128));
    assert_eq!(d("|b1").canonical(), Some(Canonical::Bool));
    for none in [
        "<f16",
        "<c32",
        "<M8[ns]",
        "<m8",
        "|S3",
        "<U2",
        "|V4",
        "|O",
        "[('a', '<i4')]",
    ] {
        assert_eq!(d(none).canonical(), None, "{none}");
    }
}

/// Expected descrs are numpy 2.4.6's `dtype.descr` for the same input.
#[test]
fn record_descr_round_trip() {
    for (input, numpy_descr, itemsize) in [
        ("[('', '<i4')]", "[('', '<i4')]", 4),
        ("[]", "[]", 0),
        (
            "[('c', ('<f8', (5,)), (2,))]",
            "[('c', ('<f8', (5,)), (2,))]",
            80,
        ),
        ("[('x', '<f4', ())]", "[('x', '<f4')]", 4),
        ("[('x', '<f4', 3)]", "[('x', '<f4', (3,))]", 12),
        (
            "[('a', 'u1'), ('', '|V3'), ('b', '<i4')]",
            "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]",
            8,
        ),
        (
            "[(('Title A', 'a'), '<i4'), (('Title B', 'b'), '<f8')]",
            "[(('Title A', 'a'), '<i4'), (('Title B', 'b'), '<f8')]",
            12,
        ),
        (
            "[('p', [('x', '<f4'), ('y', '<f4')]), ('m', '<f8', (2, 3))]",
            "[('p', [('x', '<f4'), ('y', '<f4')]), ('m', '<f8', (2, 3))]",
            56,
        ),
        (
            "[('a', '<i2'), ('', '|V6'), ('b', '<f8'), ('', '|V8')]",
            "[('a', '<i2'), ('', '|V6'), ('b', '<f8'), ('', '|V8')]",
            24,
        ),
    ] {
        let dt = d(input);
        assert_eq!(dt.to_string(), numpy_descr, "{input}");
        assert_eq!(dt.itemsize(), itemsize, "{input}");
    }
    let rec = d("[('a', 'u1'), ('', '|V3'), ('b', '<i4')]");
    let DType::Record(r) = rec else { panic!() };
    assert_eq!(r.fields().len(), 2);
    assert_eq!(r.field("b").map(|f| f.offset), Some(4));
}

#[test]
fn rejected_records() {
    for s in [
        "[('a', '<i4'), ('a', '<f4')]",
        "[(('a', 'b'), '<i4'), ('a', '<f4')]",
        "[('a',)]",
        "[('a', '<i4', (-1,))]",
        "[(1, '<i4')]",
        "[('a', '<i4', (2,), 5)]",
        "{'a': '<i4'}",
        "[('a', 'i3')]",
    ] {
        assert!(s.parse::<DType>().is_err(), "{s} must be rejected");
    }
}

#[test]
fn with_byte_order() {
    let rec = d("[('a', '<i4'), ('s', '|S2'), ('u', '<U1', (2,))]");
    assert_eq!(
        rec.with_byte_order(ByteOrder::Big).to_string(),
        "[('a', '>i4'), ('s', '|S2'), ('u', '>U1', (2,))]"
    );
    assert_eq!(d("|u1").with_byte_order(ByteOrder::Big).to_string(), "|u1");
}

#[test]
fn object_detection() {
    assert!(d("|O").has_object());
    assert!(d("[('a', '<i4'), ('o', [('x', '|O')])]").has_object());
    assert!(!d("[('a', '<i4')]").has_object());
}

/// The shortcut for `dtype.str` of numbers (`'<f4'`) gives what numpy's steps give, for every
/// byte-order character, kind and digit, refusals included.
#[test]
fn number_shortcut_agrees_with_the_general_steps() {
    for e in ['<', '>', '|', '='] {
        for kind in ['b', 'i', 'u', 'f', 'c'] {
            for size in '0'..='9' {
                let s = format!("{e}{kind}{size}");
                let fast = type_str::parse_type_str(&s).map_err(|e| e.to_string());
                let general = type_str::parse_general(&s).map_err(|e| e.to_string());
                assert_eq!(fast, general, "{s}");
            }
        }
    }
}

/// Repeated names and titles are refused whether or not the names come in increasing order
/// (the builder's shortcut skips the sort only for strictly increasing names without
/// titles), and other orders are accepted (numpy's rule: names and titles are unique).
#[test]
fn repeated_labels_are_refused_in_any_order() {
    for descr in [
        "[('a', '<i4'), ('b', '<i4'), ('b', '<f4')]",
        "[('b', '<i4'), ('a', '<i4'), ('b', '<f4')]",
        "[('a', '<i4'), ('ab', '<i4'), ('a', '<f4')]",
        "[(('t', 'a'), '<i4'), ('t', '<f4')]",
        "[(('z', 'a'), '<i4'), (('z', 'b'), '<f4')]",
    ] {
        let err = descr.parse::<DType>().unwrap_err();
        assert!(err.to_string().contains("is used twice"), "{descr}: {err}");
    }
    for (descr, names) in [
        (
            "[('a', '<i4'), ('ab', '<i4'), ('b', '<f4')]",
            vec!["a", "ab", "b"],
        ),
        ("[('b', '<i4'), ('a', '<i4')]", vec!["b", "a"]),
        (
            "[('B', '<i4'), ('a', '<i4'), ('é', '<i2'), ('e', '<i2')]",
            vec!["B", "a", "é", "e"],
        ),
        ("[('', '<i4'), ('x', '<i4')]", vec!["", "x"]),
    ] {
        let DType::Record(r) = d(descr) else {
            panic!("{descr}")
        };
        let got: Vec<&str> = r.fields().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(got, names, "{descr}");
    }
}

/// The builder's in-line comparison is `str`'s order.
#[test]
fn name_order_is_strs() {
    let names = [
        "", "a", "ab", "b", "B", "é", "e", "f0001", "f0010", "整形", "\u{7f}",
    ];
    for a in names {
        for b in names {
            assert_eq!(
                descr::less(a.as_bytes(), b.as_bytes()),
                a < b,
                "{a:?} < {b:?}"
            );
        }
    }
}

/// The header fast path's name copy at a length the compiler knows gives the same string as
/// `CompactString::from` for every length around the inline limit (24 bytes), multi-byte
/// UTF-8 included.
#[test]
fn compact_name_is_compact_string_from() {
    for n in 0..=40 {
        for name in [
            "abcdefghijklmnopqrstuvwxyz0123456789abcdefgh"[..n].to_string(),
            "é".repeat(n / 2) + &"a".repeat(n % 2),
            "整".repeat(n / 3),
        ] {
            let fast = descr::compact_name(&name);
            assert_eq!(fast, CompactString::from(name.as_str()));
            assert_eq!(fast.as_str(), name);
        }
    }
}

/// The sizes a wide record's fields are made of (a field is written per header entry): no
/// variant of `DType` above 40 bytes, no `Field` above 96.
#[test]
fn model_sizes() {
    assert!(
        std::mem::size_of::<DType>() <= 40,
        "{}",
        std::mem::size_of::<DType>()
    );
    assert!(
        std::mem::size_of::<Field>() <= 96,
        "{}",
        std::mem::size_of::<Field>()
    );
}
