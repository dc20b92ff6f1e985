//! Writer ↔ reader round trips (proptest), numpy's version choice, and writer edge cases
//! checked byte for byte against numpy.

use npy_core::{
    dtype::{Field, Primitive, Record, SubArray, TimeKind, TimeType, TimeUnit},
    format::Version,
    ByteOrder, DType, Error, ErrorKind, Header,
};
use npy_core::{MemoryOrder, NpyReader, WriteOptions};
use npy_test_support::fixture;
use proptest::prelude::*;

const LE: ByteOrder = ByteOrder::Little;
const BE: ByteOrder = ByteOrder::Big;
const NA: ByteOrder = ByteOrder::NotApplicable;

// ---------------------------------------------------------------------------------------------
// Strategies.

fn order() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(LE), Just(BE)]
}

fn simple() -> impl Strategy<Value = DType> {
    use Primitive::*;
    let multi = prop::sample::select(vec![
        I16,
        I32,
        I64,
        U16,
        U32,
        U64,
        F16,
        F32,
        F64,
        // 12 and 24 bytes are 32-bit x86's sizes, which numpy on x86-64 refuses.
        LongDouble { size: 16 },
        C64,
        C128,
        CLongDouble { size: 32 },
    ]);
    let single = prop::sample::select(vec![Bool, I8, U8]);
    let unit = prop::sample::select(vec![
        TimeUnit::Generic,
        TimeUnit::Year,
        TimeUnit::Month,
        TimeUnit::Week,
        TimeUnit::Day,
        TimeUnit::Hour,
        TimeUnit::Minute,
        TimeUnit::Second,
        TimeUnit::Millisecond,
        TimeUnit::Microsecond,
        TimeUnit::Nanosecond,
        TimeUnit::Picosecond,
        TimeUnit::Femtosecond,
        TimeUnit::Attosecond,
    ]);
    let multiplier = prop_oneof![3 => Just(1u32), 1 => 2u32..1000, 1 => 1u32..=i32::MAX as u32];
    let time = (
        prop_oneof![Just(TimeKind::Datetime), Just(TimeKind::Timedelta)],
        unit,
        multiplier,
        order(),
    )
        .prop_map(|(kind, unit, multiplier, o)| {
            let multiplier = if unit == TimeUnit::Generic {
                1
            } else {
                multiplier
            };
            DType::Time(
                TimeType {
                    kind,
                    unit,
                    multiplier,
                },
                o,
            )
        });
    let size = prop_oneof![0u64..40, 0u64..=536_870_911];
    prop_oneof![
        4 => (multi, order()).prop_map(|(p, o)| DType::Number(p, o)),
        1 => single.prop_map(|p| DType::Number(p, NA)),
        2 => time,
        1 => size.clone().prop_map(DType::Bytes),
        1 => (size.clone(), order()).prop_map(|(n, o)| DType::Unicode(n, o)),
        1 => size.prop_map(DType::Void),
        1 => Just(DType::Object),
    ]
}

/// Name stems: quotes of both kinds, backslashes, control characters, latin-1 (printable and
/// not), beyond latin-1, astral, and plain.
fn stem() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,5}",
        1 => prop::sample::select(vec![
            "", "it's", "b\"q", "a'b\"c", "back\\slash", "tab\t", "nl\n", "nul\0", "ctl\x01",
            "del\x7f", "caf\u{e9}", "nb\u{a0}sp", "sh\u{ad}y", "\u{ff}", "\u{140}", "整形",
            "ls\u{2028}", "\u{1f600}", "zw\u{200b}", "sp ace", "#", "{}", "()", "[", ":", ",",
        ])
        .prop_map(str::to_owned),
    ]
}

fn sub_shape() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..4, 1..3)
}

/// Records from `inner` field types: names (unique) and titles (unique, never equal to a name),
/// subarray fields, gaps before fields and trailing padding.
fn record(inner: BoxedStrategy<DType>) -> impl Strategy<Value = DType> {
    let field = (
        inner,
        stem(),
        prop::option::weighted(0.2, stem()),
        prop_oneof![3 => Just(0u64), 1 => 1u64..9],
        prop::option::weighted(0.25, sub_shape()),
    );
    (
        prop::collection::vec(field, 0..6),
        prop_oneof![3 => Just(0u64), 1 => 1u64..9],
    )
        .prop_map(|(specs, trailing)| {
            let mut fields = Vec::new();
            let mut offset = 0u64;
            let mut empty_name_used = false;
            for (i, (dt, stem, title, gap, sub)) in specs.into_iter().enumerate() {
                offset += gap;
                // numpy refuses subarrays of zero-width S/U/V; such a field stays plain.
                let dtype = match sub {
                    Some(shape) => SubArray::new(dt.clone(), shape).map_or(dt, DType::SubArray),
                    None => dt,
                };
                // An untitled '' field of void or subarray type reads back as padding (numpy's
                // descr_to_dtype rule), so '' is only given where it survives.
                let can_be_empty = !matches!(dtype, DType::Void(_) | DType::SubArray(_));
                let name = if stem.is_empty() && can_be_empty && !empty_name_used {
                    empty_name_used = true;
                    String::new()
                } else {
                    format!("{stem}{i}")
                };
                let title = title.map(|t| format!("Title {t}{i}"));
                let size = dtype.itemsize();
                fields.push(Field {
                    name: name.into(),
                    title,
                    dtype,
                    offset,
                });
                offset += size;
            }
            DType::Record(Record::new(fields, offset + trailing).unwrap())
        })
}

fn dtype() -> impl Strategy<Value = DType> {
    simple()
        .prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                3 => record(inner.clone()),
                1 => (inner, sub_shape())
                    .prop_map(|(b, s)| SubArray::new(b.clone(), s).map_or(b, DType::SubArray)),
            ]
        })
        // numpy keeps the itemsize of a subarray or record in a C int.
        .prop_filter("itemsize beyond a C int", fits_c_int)
}

/// Whether `d` and every part of it have an itemsize numpy can hold (a C int).
fn fits_c_int(d: &DType) -> bool {
    i32::try_from(d.itemsize()).is_ok()
        && match d {
            DType::Record(r) => r.fields().iter().all(|f| fits_c_int(&f.dtype)),
            DType::SubArray(s) => fits_c_int(s.base()),
            _ => true,
        }
}

fn shape() -> impl Strategy<Value = Vec<u64>> {
    let dim = prop_oneof![
        4 => 0u64..10,
        1 => 0u64..=1_000_000_000_000,
        1 => Just(i64::MAX as u64),
        1 => Just(u64::MAX),
    ];
    prop::collection::vec(dim, 0..5)
}

fn header() -> impl Strategy<Value = Header> {
    (dtype(), any::<bool>(), shape()).prop_map(|(dtype, fortran_order, shape)| Header {
        dtype,
        fortran_order,
        shape,
    })
}

// ---------------------------------------------------------------------------------------------
// The format's rules, computed independently of the writer.

/// Independent size computation, numpy's rules in u128 (`npy_intp` is i64): every dimension and
/// the running product of the shape (`reshape`'s check, left to right) at most `i64::MAX`, and
/// itemsize × the non-zero dimensions at most `i64::MAX` (`PyArray_NewFromDescr`).
fn expected_nbytes(h: &Header) -> Option<u64> {
    const MAX: u128 = i64::MAX as u128;
    let mut running: u128 = 1;
    for &d in &h.shape {
        running *= u128::from(d);
        if u128::from(d) > MAX || running > MAX {
            return None;
        }
    }
    let mut bytes: u128 = u128::from(h.dtype.itemsize());
    let mut zero = false;
    for &d in &h.shape {
        if d == 0 {
            zero = true;
            continue;
        }
        bytes = bytes.checked_mul(u128::from(d))?;
        if bytes > MAX {
            return None;
        }
    }
    Some(if zero { 0 } else { bytes as u64 })
}

/// numpy's `_wrap_header_guess_version`: 1.0 if the text is latin-1 and the padded header fits
/// a u16; else 2.0 if latin-1; else 3.0.
fn expected_version(text: &str) -> Version {
    let latin1 = text.chars().all(|c| u32::from(c) < 256);
    if !latin1 {
        return Version::V3_0;
    }
    let len = text.chars().count() as u64 + 1; // + '\n'
    let padded = (10 + len).div_ceil(64) * 64 - 10;
    if padded <= 65535 {
        Version::V1_0
    } else {
        Version::V2_0
    }
}

fn check_round_trip(h: &Header) -> Result<(), TestCaseError> {
    if expected_nbytes(h).is_none() {
        // A header np.load refuses is never written.
        let written = h.to_bytes(None).map_err(Error::into_kind);
        prop_assert!(
            matches!(written, Err(ErrorKind::SizeOverflow { .. })),
            "{:?}",
            written
        );
        return Ok(());
    }
    let bytes = h
        .to_bytes(None)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let text = h.to_text();
    let version = expected_version(&text);
    prop_assert_eq!(&bytes[..6], b"\x93NUMPY");
    prop_assert_eq!((bytes[6], bytes[7]), version.bytes());
    prop_assert_eq!(bytes.len() % 64, 0, "data offset not 64-aligned");
    prop_assert_eq!(*bytes.last().unwrap(), b'\n');
    let prefix = version.prefix_len() as usize;
    let hlen = if version == Version::V1_0 {
        u64::from(u16::from_le_bytes([bytes[8], bytes[9]]))
    } else {
        u64::from(u32::from_le_bytes([
            bytes[8], bytes[9], bytes[10], bytes[11],
        ]))
    };
    prop_assert_eq!(hlen as usize + prefix, bytes.len());
    // Text, then 1..=64 spaces, then '\n'.
    let body = &bytes[prefix..bytes.len() - 1];
    let encoded: Vec<u8> = if version == Version::V3_0 {
        text.as_bytes().to_vec()
    } else {
        text.chars().map(|c| u32::from(c) as u8).collect()
    };
    prop_assert!(body.starts_with(&encoded));
    let pad = &body[encoded.len()..];
    prop_assert!((1..=64).contains(&pad.len()) && pad.iter().all(|&b| b == b' '));

    match (
        Header::read(&mut &bytes[..]).map_err(Error::into_kind),
        expected_nbytes(h),
    ) {
        (Ok(p), Some(n)) => {
            prop_assert_eq!(&p.header, h);
            prop_assert_eq!(p.version, version);
            prop_assert_eq!(p.header_len, hlen);
            prop_assert_eq!(p.data_offset() as usize, bytes.len());
            prop_assert_eq!(p.header.nbytes().unwrap(), n);
            // The stored text re-encodes to the same bytes.
            prop_assert!(p.text.starts_with(&text));
        }
        (Err(ErrorKind::SizeOverflow { shape, itemsize }), None) => {
            prop_assert_eq!(&shape, &h.shape);
            prop_assert_eq!(itemsize, h.dtype.itemsize());
            prop_assert!(h.nbytes().is_err());
        }
        (other, n) => {
            return Err(TestCaseError::fail(format!(
                "read back {other:?}, expected nbytes {n:?}"
            )))
        }
    }
    // The descr alone round-trips through its text form.
    let descr = h.dtype.to_string();
    let reparsed: DType = match &h.dtype {
        DType::Record(_) | DType::SubArray(_) => descr.parse(),
        _ => descr.parse(),
    }
    .map_err(|e| TestCaseError::fail(format!("{descr}: {e}")))?;
    prop_assert_eq!(&reparsed, &h.dtype);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn header_round_trips(h in header()) {
        check_round_trip(&h)?;
    }

    #[test]
    fn explicit_versions(h in header()) {
        let text = h.to_text();
        let latin1 = text.chars().all(|c| u32::from(c) < 256);
        for v in [Version::V1_0, Version::V2_0, Version::V3_0] {
            match h.to_bytes(Some(v)).map_err(Error::into_kind) {
                Err(ErrorKind::SizeOverflow { .. }) => prop_assert!(expected_nbytes(&h).is_none()),
                Ok(bytes) => {
                    prop_assert!(latin1 || v == Version::V3_0);
                    prop_assert_eq!((bytes[6], bytes[7]), v.bytes());
                    prop_assert_eq!(bytes.len() % 64, 0);
                    prop_assert!(expected_nbytes(&h).is_some());
                    {
                        let p = Header::read(&mut &bytes[..]).unwrap();
                        prop_assert_eq!(&p.header, &h);
                        prop_assert_eq!(p.version, v);
                    }
                }
                Err(ErrorKind::HeaderNotLatin1 { version }) => {
                    prop_assert!(!latin1);
                    prop_assert_eq!(version, v);
                }
                Err(e) => return Err(TestCaseError::fail(format!("{v}: {e}"))),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Version choice by hand.

fn wide_record(n: usize, extra: Option<&str>) -> DType {
    let mut fields: Vec<(String, DType)> = (0..n)
        .map(|i| (format!("f{i:05}"), DType::Number(Primitive::F32, LE)))
        .collect();
    if let Some(name) = extra {
        fields.push((name.to_owned(), DType::Number(Primitive::U8, NA)));
    }
    DType::Record(Record::packed(fields).unwrap())
}

#[test]
fn non_latin1_name_needs_3_0() {
    let h = Header::new("[('整形', '<i4')]".parse().unwrap(), vec![3]);
    for v in [Version::V1_0, Version::V2_0] {
        assert!(
            matches!(h.to_bytes(Some(v)).map_err(Error::into_kind), Err(ErrorKind::HeaderNotLatin1 { version }) if version == v),
            "{v}"
        );
    }
    let b = h.to_bytes(None).unwrap();
    assert_eq!(&b[6..8], [3, 0]);
    assert_eq!(h.to_bytes(Some(Version::V3_0)).unwrap(), b);
    // U+0100 is the first character beyond latin-1; U+00FF is the last inside.
    let h = Header::new("[('\u{100}', '<i4')]".parse().unwrap(), vec![3]);
    assert_eq!(&h.to_bytes(None).unwrap()[6..8], [3, 0]);
    let h = Header::new("[('\u{ff}', '<i4')]".parse().unwrap(), vec![3]);
    let b = h.to_bytes(None).unwrap();
    assert_eq!(&b[6..8], [1, 0]);
    assert!(b.contains(&0xff), "latin-1 encoded, one byte");
}

#[test]
fn header_over_65535_bytes_needs_2_0() {
    // 4000 fields of "('f00000', '<f4'), " (19 bytes each): about 76 KB.
    let h = Header::new(wide_record(4000, None), vec![2]);
    match h.to_bytes(Some(Version::V1_0)).map_err(Error::into_kind) {
        Err(ErrorKind::HeaderTooLargeForVersion { version, len, max }) => {
            assert_eq!(version, Version::V1_0);
            assert_eq!(max, 65535);
            assert!(len > 65535);
        }
        other => panic!("{:?}", other.map(|b| b.len())),
    }
    let b = h.to_bytes(None).unwrap();
    assert_eq!(&b[6..8], [2, 0]);
    assert_eq!(b.len() % 64, 0);
    assert_eq!(Header::read(&mut &b[..]).unwrap().header, h);
    assert_eq!(h.to_bytes(Some(Version::V2_0)).unwrap(), b);
    // Also not latin-1: 3.0 (numpy's order: 1.0, 2.0, then 3.0).
    let h = Header::new(wide_record(4000, Some("整形")), vec![2]);
    let b = h.to_bytes(None).unwrap();
    assert_eq!(&b[6..8], [3, 0]);
    assert!(matches!(
        h.to_bytes(Some(Version::V2_0)).map_err(Error::into_kind),
        Err(ErrorKind::HeaderNotLatin1 { .. })
    ));
}

#[test]
fn a_room_past_the_length_field_is_refused_not_wrapped() {
    // A 1.0 length field holds at most 65,535 (the format's two bytes): a room of 70,000
    // bytes cannot be written in it (the field once wrapped to 70,000 - 65,536).
    let h = Header::new("<f4".parse().unwrap(), vec![3]);
    match h
        .to_bytes_in_room(Version::V1_0, 70_000)
        .map_err(Error::into_kind)
    {
        Err(ErrorKind::HeaderTooLargeForVersion { version, len, max }) => {
            assert_eq!((version, len, max), (Version::V1_0, 70_000, 65_535));
        }
        other => panic!("{:?}", other.map(|b| b.map(|b| b.len()))),
    }
    // Nor does a room no length field holds (a sum that overflowed once in debug builds).
    for version in [Version::V1_0, Version::V3_0] {
        assert!(matches!(
            h.to_bytes_in_room(version, u64::MAX)
                .map_err(Error::into_kind),
            Err(ErrorKind::HeaderTooLargeForVersion { .. })
        ));
    }
    let room = h.to_bytes_in_room(Version::V1_0, 65_535).unwrap().unwrap();
    assert_eq!(room.len(), 10 + 65_535);
    assert_eq!(room[8..10], [0xff, 0xff]);
}

#[test]
fn the_1_0_to_2_0_boundary_matches_numpy() {
    // numpy 2.4.6: for descr [('x' * n, '|u1')] and shape (1,), _write_array_header(version=None)
    // writes 1.0 with HEADER_LEN 65526 (file prefix 65536 bytes) for n = 65439, and 2.0 with
    // HEADER_LEN 65588 (65600 bytes) for n = 65440.
    for (n, version, header_len) in [(65439, [1, 0], 65526u64), (65440, [2, 0], 65588)] {
        let dt = DType::Record(
            Record::packed([("x".repeat(n), DType::Number(Primitive::U8, NA))]).unwrap(),
        );
        let b = Header::new(dt, vec![1]).to_bytes(None).unwrap();
        assert_eq!(b[6..8], version, "n = {n}");
        assert_eq!(
            b.len() as u64,
            header_len + if n == 65439 { 10 } else { 12 }
        );
        let p = Header::read(&mut &b[..]).unwrap();
        assert_eq!(p.header_len, header_len);
    }
}

// ---------------------------------------------------------------------------------------------
// Writer edge cases against numpy's own bytes.
//
// Each expected literal is the output of numpy 2.4.6 (Python 3.11):
//
//     from numpy.lib import _format_impl as F
//     b = io.BytesIO()
//     F._write_array_header(b, {'descr': F.dtype_to_descr(np.dtype(SPEC)),
//                               'fortran_order': FORTRAN, 'shape': SHAPE}, None)
//     b.getvalue()   # printed as a Rust byte string
//
// with SPEC, FORTRAN, SHAPE as in each case's comment.

fn numpy_bytes(h: &Header, numpy: &[u8]) {
    let ours = h.to_bytes(None).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(numpy),
        "{h:?}"
    );
    assert_eq!(ours, numpy);
    let back = Header::read(&mut &numpy[..]).unwrap();
    assert_eq!(&back.header, h);
}

fn hd(descr: &str, fortran_order: bool, shape: &[u64]) -> Header {
    Header {
        dtype: descr.parse().unwrap_or_else(|e| panic!("{descr}: {e}")),
        fortran_order,
        shape: shape.to_vec(),
    }
}

#[test]
fn numpy_bytes_simple_shapes() {
    // '<f8', False, ()   — no growth-axis spaces for a 0-d array.
    numpy_bytes(
        &hd("<f8", false, &[]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (), }                                                              \n",
    );
    // '<f8', False, (0,)
    numpy_bytes(
        &hd("<f8", false, &[0]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }                                                            \n",
    );
    // 'u1', False, (9223372036854775807,): numpy's largest dimension (npy_intp is i64)
    numpy_bytes(
        &hd("|u1", false, &[9_223_372_036_854_775_807]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807,), }                                          \n",
    );
    // One more, or u64::MAX: np.load refuses them ("negative dimensions are not allowed",
    // "Maximum allowed dimension exceeded"), so they are never written.
    for d in [9_223_372_036_854_775_808, u64::MAX] {
        let err = hd("|u1", false, &[d]).to_bytes(None).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::SizeOverflow { .. }),
            "{err}"
        );
    }
    // '<M8[10ms]', False, (2,)
    numpy_bytes(
        &hd("<M8[10ms]", false, &[2]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '<M8[10ms]', 'fortran_order': False, 'shape': (2,), }                                                      \n",
    );
}

#[test]
fn numpy_bytes_growth_axis() {
    // '>i2', True, (3, 12345678901) — Fortran order grows the LAST axis: 21 - 11 spaces.
    numpy_bytes(
        &hd(">i2", true, &[3, 12345678901]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '>i2', 'fortran_order': True, 'shape': (3, 12345678901), }                                                 \n",
    );
    // '>i2', True, (12345678901, 3) — last axis is 3: 21 - 1 spaces.
    numpy_bytes(
        &hd(">i2", true, &[12345678901, 3]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '>i2', 'fortran_order': True, 'shape': (12345678901, 3), }                                                 \n",
    );
    // '<c16', False, (3, 12345678901) — C order grows the FIRST axis.
    numpy_bytes(
        &hd("<c16", false, &[3, 12345678901]),
        b"\x93NUMPY\x01\x00v\x00{'descr': '<c16', 'fortran_order': False, 'shape': (3, 12345678901), }                                               \n",
    );
    // Growth spaces are 21 minus the digits of the growth dimension, in to_text.
    for (shape, fortran, spaces) in [
        (vec![3u64, 12345678901], true, 10usize),
        (vec![12345678901, 3], true, 20),
        (vec![12345678901, 3], false, 10),
        (vec![u64::MAX], false, 1),
        (vec![], false, 0),
    ] {
        let h = Header {
            dtype: "<f4".parse().unwrap(),
            fortran_order: fortran,
            shape,
        };
        let t = h.to_text();
        let trailing = t.len() - t.trim_end_matches(' ').len();
        assert_eq!(trailing, spaces, "{t:?}");
    }
}

#[test]
fn numpy_bytes_records() {
    // np.dtype({'names': ['a', 'b'], 'formats': ['<i4', '<f8'], 'offsets': [0, 8],
    //           'titles': ['Title A', None], 'itemsize': 19}), False, (2,)
    let rec = Record::new(
        vec![
            Field {
                name: "a".into(),
                title: Some("Title A".into()),
                dtype: "<i4".parse().unwrap(),
                offset: 0,
            },
            Field {
                name: "b".into(),
                title: None,
                dtype: "<f8".parse().unwrap(),
                offset: 8,
            },
        ],
        19,
    )
    .unwrap();
    numpy_bytes(
        &Header {
            dtype: DType::Record(rec),
            fortran_order: false,
            shape: vec![2],
        },
        b"\x93NUMPY\x01\x00\xb6\x00{'descr': [(('Title A', 'a'), '<i4'), ('', '|V4'), ('b', '<f8'), ('', '|V3')], 'fortran_order': False, 'shape': (2,), }                                                              \n",
    );
    // [('x', '<f4'), ('s', 'S3', (2,))], False, ()
    numpy_bytes(
        &hd("[('x', '<f4'), ('s', '|S3', (2,))]", false, &[]),
        b"\x93NUMPY\x01\x00v\x00{'descr': [('x', '<f4'), ('s', '|S3', (2,))], 'fortran_order': False, 'shape': (), }                                 \n",
    );
    // [('c', ('<f8', (5,)), (2,))], True, (4, 5)
    numpy_bytes(
        &hd("[('c', ('<f8', (5,)), (2,))]", true, &[4, 5]),
        b"\x93NUMPY\x01\x00v\x00{'descr': [('c', ('<f8', (5,)), (2,))], 'fortran_order': True, 'shape': (4, 5), }                                    \n",
    );
}

fn named(names: &[(&str, &str)]) -> DType {
    DType::Record(
        Record::packed(
            names
                .iter()
                .map(|(n, t)| (n.to_string(), t.parse::<DType>().unwrap())),
        )
        .unwrap(),
    )
}

#[test]
fn numpy_bytes_field_names() {
    // [('a\'b"c', '<i4')], False, (1,) — both quote kinds: single quotes, \' escaped.
    numpy_bytes(
        &Header::new(named(&[("a'b\"c", "<i4")]), vec![1]),
        b"\x93NUMPY\x01\x00v\x00{'descr': [('a\\'b\"c', '<i4')], 'fortran_order': False, 'shape': (1,), }                                              \n",
    );
    // [("it's", '<i4')], False, (1,) — only a single quote: double quotes.
    numpy_bytes(
        &Header::new(named(&[("it's", "<i4")]), vec![1]),
        b"\x93NUMPY\x01\x00v\x00{'descr': [(\"it's\", '<i4')], 'fortran_order': False, 'shape': (1,), }                                                \n",
    );
    // [('整形', '<i4'), ('ŀ', 'u1')], False, (3,) — beyond latin-1: format 3.0, UTF-8.
    numpy_bytes(
        &Header::new(named(&[("整形", "<i4"), ("\u{140}", "|u1")]), vec![3]),
        b"\x93NUMPY\x03\x00t\x00\x00\x00{'descr': [('\xe6\x95\xb4\xe5\xbd\xa2', '<i4'), ('\xc5\x80', '|u1')], 'fortran_order': False, 'shape': (3,), }                             \n",
    );
    // [('café', '<f4')], False, (3,) — latin-1 and printable: 1.0, one byte 0xE9.
    numpy_bytes(
        &Header::new(named(&[("caf\u{e9}", "<f4")]), vec![3]),
        b"\x93NUMPY\x01\x00v\x00{'descr': [('caf\xe9', '<f4')], 'fortran_order': False, 'shape': (3,), }                                                \n",
    );
    // [('a\x01b', '<i4'), ('nb\xa0sp', '<i4'), ('del\x7f', 'u1'), ('sh\xady', 'u1'),
    //  ('t\tn\nr\rbs\\', 'u1'), ('ls\u2028', 'u1')], False, (1,) — repr escapes
    // non-printables (NBSP and soft hyphen included) and stays ASCII.
    numpy_bytes(
        &Header::new(
            named(&[
                ("a\x01b", "<i4"),
                ("nb\u{a0}sp", "<i4"),
                ("del\x7f", "|u1"),
                ("sh\u{ad}y", "|u1"),
                ("t\tn\nr\rbs\\", "|u1"),
                ("ls\u{2028}", "|u1"),
            ]),
            vec![1],
        ),
        b"\x93NUMPY\x01\x00\xf6\x00{'descr': [('a\\x01b', '<i4'), ('nb\\xa0sp', '<i4'), ('del\\x7f', '|u1'), ('sh\\xady', '|u1'), ('t\\tn\\nr\\rbs\\\\', '|u1'), ('ls\\u2028', '|u1')], 'fortran_order': False, 'shape': (1,), }                                                                  \n",
    );
}

// Regressions: faults found by fuzzing and review, each with its failing input.

/// `write::<[i16; 4]>` wrote a top-level subarray descr numpy cannot load; numpy stores such
/// arrays as the base dtype with the subarray's dims appended. Reading numpy's `(2, 3, 4)`
/// array as `[[i16; 4]; 3]` and writing it back must give numpy's bytes.
#[test]
fn subarray_elements_fold_into_the_shape_both_ways() {
    let src = fixture("i2_le_c_2x3x4.npy");
    let rows = npy_core::read::<[[i16; 4]; 3]>(&src).unwrap();
    assert_eq!(rows.shape(), [2]);
    let flat = npy_core::read::<i16>(&src).unwrap();
    let refolded: Vec<i16> = rows.data().iter().flatten().flatten().copied().collect();
    assert_eq!(refolded, flat.data());
    let mut out = Vec::new();
    WriteOptions::new()
        .write_to(&mut out, rows.data(), &[2])
        .unwrap();
    assert_eq!(
        out,
        std::fs::read(&src).unwrap(),
        "numpy's bytes for the same array"
    );
    let lines = npy_core::read::<[i16; 4]>(&src).unwrap();
    assert_eq!(lines.shape(), [2, 3]);
    // Fortran order cannot hold subarray elements contiguously: an error, not a bad file.
    let err = WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_to(Vec::new(), lines.data(), &[2, 3])
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
}

/// numpy writes `fortran_order: False` for data that is C-contiguous too (shapes (1, 5),
/// (5, 1), (0, 3)); `convert --order F` and `WriteOptions::order(Fortran)` wrote True.
#[test]
fn fortran_order_only_where_numpy_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    for shape in [vec![1u64, 5], vec![5, 1], vec![0, 3], vec![1, 1, 4]] {
        let n: u64 = shape.iter().product();
        let data: Vec<i32> = (0..n as i32).collect();
        let mut out = Vec::new();
        WriteOptions::new()
            .order(MemoryOrder::Fortran)
            .write_to(&mut out, &data, &shape)
            .unwrap();
        let r = NpyReader::new(&out[..]).unwrap();
        assert!(!r.header().fortran_order, "{shape:?}");
        let (src, dst) = (dir.path().join("c.npy"), dir.path().join("f.npy"));
        npy_core::write(&src, &data, &shape).unwrap();
        let o = npy_convert::ConvertOptions::new().order(MemoryOrder::Fortran);
        npy_convert::convert_file(&src, &dst, &o).unwrap();
        assert_eq!(
            std::fs::read(&dst).unwrap(),
            std::fs::read(&src).unwrap(),
            "{shape:?}"
        );
    }
    // A genuinely Fortran-order shape keeps the flag.
    let mut out = Vec::new();
    WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_to(&mut out, &[1i32, 2, 3, 4], &[2, 2])
        .unwrap();
    assert!(NpyReader::new(&out[..]).unwrap().header().fortran_order);
}

/// `WriteOptions::dtype(">f8")` wrote '<f8': the default byte order overrode the explicit
/// dtype. numpy's own big-endian file is the expected output.
#[test]
fn an_explicit_dtype_keeps_its_byte_order() {
    let src = fixture("f8_be_c_2x3x4.npy");
    let values = npy_core::read::<f64>(&src).unwrap().into_vec();
    let mut out = Vec::new();
    WriteOptions::new()
        .dtype(">f8".parse().unwrap())
        .write_to(&mut out, &values, &[2, 3, 4])
        .unwrap();
    assert_eq!(out, std::fs::read(&src).unwrap());
    // An explicit byte order still applies to an explicit dtype.
    let mut out = Vec::new();
    WriteOptions::new()
        .dtype(">f8".parse().unwrap())
        .byte_order(ByteOrder::Little)
        .write_to(&mut out, &values, &[2, 3, 4])
        .unwrap();
    assert_eq!(out, std::fs::read(fixture("f8_le_c_2x3x4.npy")).unwrap());
}
