//! Headers numpy accepts although `np.save` never writes them that way.
//!
//! Each file is built by hand; the expected dtype/shape is what numpy 2.4.6's `np.load` returned
//! for the same bytes (checked with a script that builds each file the same way and prints
//! `a.dtype.str` / `a.dtype.descr`, `a.shape`, `a.dtype.fields`), restated here as literals.

use npy_core::{dtype::Primitive, format::Version, header::ParsedHeader, ByteOrder, DType, Header};

fn file(major: u8, text: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
    } else {
        out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(text);
    out
}

fn read(major: u8, text: &str) -> ParsedHeader {
    let bytes = file(major, text.as_bytes());
    let mut r = &bytes[..];
    let p = Header::read(&mut r).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert!(
        r.is_empty(),
        "{text:?}: reader not at the end of the header"
    );
    p
}

/// A 1.0 header from latin-1 bytes.
fn read_latin1(text: &[u8]) -> ParsedHeader {
    let bytes = file(1, text);
    Header::read(&mut &bytes[..]).unwrap_or_else(|e| panic!("{e}"))
}

fn num(p: Primitive, o: ByteOrder) -> DType {
    DType::Number(p, o)
}

const LE: ByteOrder = ByteOrder::Little;
const NA: ByteOrder = ByteOrder::NotApplicable;

#[test]
fn reordered_keys_double_quotes_no_trailing_comma() {
    // numpy: <i2 (2, 3) Fortran.
    let p = read(
        1,
        r#"{"shape": (2, 3), "fortran_order": True, "descr": "<i2"}"#,
    );
    assert_eq!(p.header.dtype, num(Primitive::I16, LE));
    assert_eq!(p.header.shape, [2, 3]);
    assert!(p.header.fortran_order);
}

#[test]
fn no_padding_and_no_newline() {
    // numpy: <f4 (1,). Alignment and the final '\n' are a writer's convention only.
    let p = read(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}");
    assert_eq!(p.header.dtype, num(Primitive::F32, LE));
    assert_eq!(p.header.shape, [1]);
    assert_eq!(p.data_offset(), 10 + 55);
}

#[test]
fn python2_longs_in_1_0_and_2_0() {
    // numpy: _filter_header drops an 'L' after a number in 1.0/2.0 headers: <f4 (2, 3).
    for major in [1, 2] {
        let p = read(
            major,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n",
        );
        assert_eq!(p.header.shape, [2, 3]);
        assert_eq!(p.header.dtype, num(Primitive::F32, LE));
    }
    // Also inside a record's subarray shape: [('a', '<i4', (2,))], shape (1,).
    let p = read(
        1,
        "{'descr': [('a', '<i4', (2L,))], 'fortran_order': False, 'shape': (1L,), }",
    );
    assert_eq!(p.header.dtype.to_string(), "[('a', '<i4', (2,))]");
    assert_eq!(p.header.shape, [1]);
}

#[test]
fn descr_spellings() {
    // numpy: np.dtype(s).str for each (numpy 2.4.6, little-endian machine).
    for (descr, want) in [
        ("'f8'", num(Primitive::F64, LE)),
        ("'=f8'", num(Primitive::F64, LE)),
        ("'d'", num(Primitive::F64, LE)),
        ("'?'", num(Primitive::Bool, NA)),
        ("'b'", num(Primitive::I8, NA)), // 'b' is int8, not bool
        ("'B'", num(Primitive::U8, NA)),
        ("'|u1'", num(Primitive::U8, NA)),
        ("'<u1'", num(Primitive::U8, NA)),
        ("'>b1'", num(Primitive::Bool, NA)),
        ("'|i4'", num(Primitive::I32, LE)),
        ("'i'", num(Primitive::I32, LE)),
        ("'<O'", DType::Object),
        ("'|O8'", DType::Object),
        ("'a5'", DType::Bytes(5)),
        ("'|U3'", DType::Unicode(3, LE)),
        ("u'<' 'f8'", num(Primitive::F64, LE)),
        ("\"<f8\"", num(Primitive::F64, LE)),
        ("('<i4', ())", num(Primitive::I32, LE)),
    ] {
        let p = read(
            1,
            &format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,), }}"),
        );
        assert_eq!(p.header.dtype, want, "{descr}");
    }
}

#[test]
fn sixteen_byte_aligned_2_0_header() {
    // numpy: <f8 (2,). Data at 12 + 68 = 80, a multiple of 16, not of 64.
    let text = format!(
        "{:<67}\n",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    );
    let p = read(2, &text);
    assert_eq!(p.version, Version::V2_0);
    assert_eq!(p.header_len, 68);
    assert_eq!(p.data_offset(), 80);
    assert_eq!(p.header.shape, [2]);
}

#[test]
fn whitespace_comments_and_line_joins() {
    // numpy: <f4 (2, 3) for each.
    for text in [
        "{\t'descr':\t'<f4', # the dtype\r\n 'fortran_order': False,\r\n\t'shape': (2,\n 3) }\r\n",
        "{'descr': '<f4',\x0c'fortran_order': False, 'shape': (2, 3)}",
        "{'descr': '<f4', \\\n'fortran_order': False, 'shape': (2, 3)}",
        "{'descr': '<f4',\r'fortran_order': False,\r'shape': (2, 3)}\r",
        "  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "\t{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "\n{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': ((2), +3), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0x2, 0b11), }",
    ] {
        let p = read(1, text);
        assert_eq!(p.header.shape, [2, 3], "{text:?}");
        assert_eq!(p.header.dtype, num(Primitive::F32, LE), "{text:?}");
    }
    // numpy: |i1 (2, 10) — underscores in numbers; (-0,) is (0,).
    let p = read(
        1,
        "{'descr': 'b', 'fortran_order': False, 'shape': (2, 1_0), }",
    );
    assert_eq!(p.header.shape, [2, 10]);
    let p = read(
        1,
        "{'descr': 'b', 'fortran_order': False, 'shape': (-0,), }",
    );
    assert_eq!(p.header.shape, [0]);
}

#[test]
fn duplicate_key_last_wins() {
    // numpy: <f4 (2,) (a dict literal keeps the last value of a repeated key).
    let p = read(
        1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), 'shape': (2,), }",
    );
    assert_eq!(p.header.shape, [2]);
    let p = read(
        1,
        "{'descr': '<f4', 'fortran_order': True, \"fortran_order\": False, 'shape': (5,)}",
    );
    assert!(!p.header.fortran_order);
}

#[test]
fn latin1_names_in_1_0_headers() {
    // numpy: [('café', '<i4')] — a 1.0 header is latin-1, byte 0xE9 is 'é'.
    let p =
        read_latin1(b"{'descr': [('caf\xe9', '<i4')], 'fortran_order': False, 'shape': (1,), }");
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields()[0].name, "caf\u{e9}");
    assert!(p.text.contains("caf\u{e9}"));
    // numpy: [('Ã©', '<i4')] — UTF-8 bytes in a 1.0 header are still read as latin-1.
    let p =
        read_latin1(b"{'descr': [('\xc3\xa9', '<i4')], 'fortran_order': False, 'shape': (1,), }");
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields()[0].name, "\u{c3}\u{a9}");
    // numpy: [(('Tïtle', 'a'), '<i4')] — a latin-1 title.
    let p = read_latin1(
        b"{'descr': [(('T\xefte', 'a'), '<i4')], 'fortran_order': False, 'shape': (1,), }",
    );
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields()[0].title.as_deref(), Some("T\u{ef}te"));
    // The same bytes in a 3.0 header are UTF-8: 'é'.
    let bytes = file(
        3,
        b"{'descr': [('\xc3\xa9', '<i4')], 'fortran_order': False, 'shape': (1,), }",
    );
    let p = Header::read(&mut &bytes[..]).unwrap();
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields()[0].name, "\u{e9}");
}

#[test]
fn record_padding_rules_of_descr_to_dtype() {
    // numpy's descr_to_dtype drops an unnamed field as padding when its dtype's type is
    // np.void without names: '|Vn', and ANY subarray (a subarray dtype's type is np.void).
    // numpy: [('a', '<i2'), ('', '|V8')], fields {'a': 0}, itemsize 10.
    let p = read(
        1,
        "{'descr': [('a', '<i2'), ('', '<i4', (2,))], 'fortran_order': False, 'shape': (1,), }",
    );
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields().len(), 1);
    assert_eq!(r.itemsize(), 10);
    assert_eq!(p.header.dtype.to_string(), "[('a', '<i2'), ('', '|V8')]");
    // numpy: [('', '|V4'), ('a', '<i4')], field a at 4.
    for descr in [
        "[('', '|V2', (2,)), ('a', '<i4')]",
        "[('', [('x', '<i2')], (2,)), ('a', '<i4')]",
    ] {
        let p = read(
            1,
            &format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,), }}"),
        );
        let DType::Record(r) = &p.header.dtype else {
            panic!()
        };
        assert_eq!(r.fields().len(), 1, "{descr}");
        assert_eq!(r.fields()[0].offset, 4, "{descr}");
        assert_eq!(
            p.header.dtype.to_string(),
            "[('', '|V4'), ('a', '<i4')]",
            "{descr}"
        );
    }
    // An unnamed non-void, non-subarray field is a real field: numpy [('', '<i4')].
    let p = read(
        1,
        "{'descr': [('', '<i4')], 'fortran_order': False, 'shape': (1,), }",
    );
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields().len(), 1);
    // So is an unnamed record: numpy [('', [('x', '<i4')])].
    let p = read(
        1,
        "{'descr': [('', [('x', '<i4')])], 'fortran_order': False, 'shape': (1,), }",
    );
    let DType::Record(r) = &p.header.dtype else {
        panic!()
    };
    assert_eq!(r.fields().len(), 1);
}

#[test]
fn subarray_shape_as_a_list() {
    // numpy: np.dtype((dt, [2])) takes a list: [('a', '<i2', (2,))].
    let p = read(
        1,
        "{'descr': [('a', '<i2', [2])], 'fortran_order': False, 'shape': (1,), }",
    );
    assert_eq!(p.header.dtype.to_string(), "[('a', '<i2', (2,))]");
    assert_eq!(p.header.dtype.itemsize(), 4);
}

#[test]
fn empty_arrays_with_large_dimensions() {
    // numpy loads these: the non-zero dimensions times the itemsize fit.
    let p = read(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1152921504606846975), }",
    );
    assert_eq!(p.header.nbytes().unwrap(), 0);
    assert_eq!(p.header.num_elements().unwrap(), 0);
    let p = read(
        1,
        "{'descr': '|u1', 'fortran_order': False, 'shape': (2147483648, 0, 4294967295), }",
    );
    assert_eq!(p.header.nbytes().unwrap(), 0);
    // The non-zero dimensions × itemsize past 2**63 - 1 (npy_intp): np.load refuses "array is
    // too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."
    let bytes = file(
        1,
        b"{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 0, 4294967295), }",
    );
    assert!(Header::read(&mut &bytes[..]).is_err());
}

#[test]
fn large_headers() {
    // No 10,000-byte limit (numpy's max_header_size, which allow_pickle lifts): a 1 MB record
    // header reads with the default options.
    let fields: Vec<String> = (0..40_000).map(|i| format!("('f{i}', '<i2')")).collect();
    let text = format!(
        "{{'descr': [{}], 'fortran_order': False, 'shape': (1,), }}\n",
        fields.join(", ")
    );
    let p = read(2, &text);
    assert_eq!(p.header.dtype.itemsize(), 80_000);
}
