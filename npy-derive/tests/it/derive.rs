//! `#[derive(NpyElement)]` against numpy's record fixtures (`fixtures/rec_*.npy`, values in
//! `fixtures/manifest.json`), plus round trips, field matching by name and error messages.

use crate::common::{entry, fixture, int, records, same_f32, same_f64};
use npy_core::element::units;
use npy_core::num_complex::Complex;
use npy_core::{read, Datetime64, ErrorKind, NpyElement, NpyReader, WriteOptions};

/// Writes `values` (shape `(len,)`) to memory.
fn to_bytes<T: NpyElement>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    WriteOptions::new()
        .write_to(&mut out, values, &[values.len() as u64])
        .unwrap();
    out
}

/// What we write reads back and writes again to the same bytes (bitwise, NaNs included).
fn round_trip<T: NpyElement>(values: &[T]) -> Vec<T> {
    let first = to_bytes(values);
    let back: Vec<T> = NpyReader::new(&first[..]).unwrap().read_vec().unwrap();
    assert_eq!(back.len(), values.len());
    assert_eq!(to_bytes(&back), first);
    back
}

#[derive(NpyElement, Debug, Clone, PartialEq)]
struct Packed {
    x: f32,
    y: f32,
    id: i64,
}

fn check_packed(got: &[Packed], file: &str) {
    let want = records(file);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        same_f32(g.x, &w["x"]);
        same_f32(g.y, &w["y"]);
        assert_eq!(g.id, int(&w["id"]));
    }
}

#[test]
fn rec_packed_reads_and_writes_numpy_bytes() {
    let got = read::<Packed>(fixture("rec_packed.npy"))
        .unwrap()
        .into_vec();
    check_packed(&got, "rec_packed.npy");
    assert_eq!(
        Packed::npy_dtype().to_string(),
        entry("rec_packed.npy")["descr"].as_str().unwrap()
    );
    let file = std::fs::read(fixture("rec_packed.npy")).unwrap();
    assert_eq!(to_bytes(&got), file);
    round_trip(&got);

    let dir = std::env::temp_dir().join(format!("npy-derive-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("packed.npy");
    npy_core::write(&path, &got, &[got.len() as u64]).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), file);
}

#[test]
fn rec_be_reads_and_writes_big_endian_with_the_write_option() {
    let got = read::<Packed>(fixture("rec_be.npy")).unwrap().into_vec();
    check_packed(&got, "rec_be.npy");
    let mut out = Vec::new();
    WriteOptions::new()
        .byte_order(npy_core::ByteOrder::Big)
        .write_to(&mut out, &got, &[3])
        .unwrap();
    assert_eq!(out, std::fs::read(fixture("rec_be.npy")).unwrap());
}

#[derive(NpyElement, Debug, Clone, PartialEq)]
#[npy(align)]
struct Aligned {
    a: u8,
    b: i32,
}

#[test]
fn rec_aligned_layout_descr_and_bytes() {
    let e = entry("rec_aligned.npy");
    assert_eq!(
        Aligned::npy_dtype().to_string(),
        e["descr"].as_str().unwrap()
    );
    assert_eq!(
        Aligned::npy_dtype().to_string(),
        "[('a', '|u1'), ('', '|V3'), ('b', '<i4')]"
    );
    let got = read::<Aligned>(fixture("rec_aligned.npy"))
        .unwrap()
        .into_vec();
    let want: Vec<Aligned> = records("rec_aligned.npy")
        .iter()
        .map(|w| Aligned {
            a: int(&w["a"]) as u8,
            b: int(&w["b"]) as i32,
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        to_bytes(&got),
        std::fs::read(fixture("rec_aligned.npy")).unwrap()
    );
    assert_eq!(round_trip(&got), want);
}

#[test]
fn align_pads_fields_and_rounds_itemsize() {
    #[derive(NpyElement)]
    #[npy(align)]
    struct Mixed {
        a: u8,
        b: f64,
        c: u16,
        d: Complex<f32>,
        e: u8,
    }
    // b at 8, c at 16, d (alignment 4) at 20, e at 28, itemsize 32 (a multiple of 8).
    assert_eq!(
        Mixed::npy_dtype().to_string(),
        "[('a', '|u1'), ('', '|V7'), ('b', '<f8'), ('c', '<u2'), ('', '|V2'), ('d', '<c8'), ('e', '|u1'), ('', '|V3')]"
    );
    assert_eq!(Mixed::npy_dtype().itemsize(), 32);
}

#[test]
fn rec_offsets_reads_by_name_past_padding() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct Off {
        a: i16,
        b: f64,
    }
    let got = read::<Off>(fixture("rec_offsets.npy")).unwrap().into_vec();
    let want = records("rec_offsets.npy");
    assert_eq!(got.len(), 3);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(i64::from(g.a), int(&w["a"]));
        same_f64(g.b, &w["b"]);
    }
    round_trip(&got);
}

#[derive(NpyElement, Debug, PartialEq)]
struct AB {
    a: i32,
    b: f64,
}

#[test]
fn rec_titles_reads_by_name() {
    let got = read::<AB>(fixture("rec_titles.npy")).unwrap().into_vec();
    for (g, w) in got.iter().zip(&records("rec_titles.npy")) {
        assert_eq!(i64::from(g.a), int(&w["a"]));
        same_f64(g.b, &w["b"]);
    }
    // Titles are accepted as names too, as numpy's `dtype.fields` does.
    #[derive(NpyElement)]
    struct ByTitle {
        #[npy(rename = "Title B")]
        b: f64,
    }
    let t = read::<ByTitle>(fixture("rec_titles.npy"))
        .unwrap()
        .into_vec();
    assert_eq!(t[1].b, -1.25);
    round_trip(&got);
}

#[derive(NpyElement, Debug, Clone, PartialEq)]
struct Point {
    x: f32,
    y: f32,
}

#[derive(NpyElement, Debug, Clone, PartialEq)]
struct Nested {
    p: Point,
    m: [[f64; 3]; 2],
}

#[test]
fn rec_nested_records_and_subarrays() {
    let e = entry("rec_nested.npy");
    assert_eq!(
        Nested::npy_dtype().to_string(),
        e["descr"].as_str().unwrap()
    );
    let got = read::<Nested>(fixture("rec_nested.npy"))
        .unwrap()
        .into_vec();
    for (g, w) in got.iter().zip(&records("rec_nested.npy")) {
        same_f32(g.p.x, &w["p"]["x"]);
        same_f32(g.p.y, &w["p"]["y"]);
        for i in 0..2 {
            for j in 0..3 {
                same_f64(g.m[i][j], &w["m"][i][j]);
            }
        }
    }
    assert_eq!(
        to_bytes(&got),
        std::fs::read(fixture("rec_nested.npy")).unwrap()
    );
    round_trip(&got);
}

#[test]
fn rec_subsub_subarray_of_subarray() {
    #[derive(NpyElement)]
    struct Sub {
        c: [[f64; 5]; 2],
    }
    let got = read::<Sub>(fixture("rec_subsub.npy")).unwrap().into_vec();
    assert_eq!(got.len(), 3);
    for (g, w) in got.iter().zip(&records("rec_subsub.npy")) {
        for i in 0..2 {
            for j in 0..5 {
                same_f64(g.c[i][j], &w["c"][i][j]);
            }
        }
    }
    // Written as numpy flattens it: one (2, 5) subarray.
    assert_eq!(Sub::npy_dtype().to_string(), "[('c', '<f8', (2, 5))]");
    round_trip(&got);
}

#[derive(NpyElement, Debug, PartialEq)]
struct Utf8 {
    #[npy(rename = "整形")]
    i: i32,
    x: f64,
}

#[test]
fn rec_utf8_rename_and_format_3() {
    let got = read::<Utf8>(fixture("rec_utf8.npy")).unwrap().into_vec();
    for (g, w) in got.iter().zip(&records("rec_utf8.npy")) {
        assert_eq!(i64::from(g.i), int(&w["整形"]));
        same_f64(g.x, &w["x"]);
    }
    let bytes = to_bytes(&got);
    assert_eq!(&bytes[6..8], [3, 0], "a UTF-8 field name needs format 3.0");
    assert_eq!(bytes, std::fs::read(fixture("rec_utf8.npy")).unwrap());
    round_trip(&got);
}

#[test]
fn rec_quote_names_with_quotes() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct Quote {
        #[npy(rename = "it's")]
        a: i32,
        #[npy(rename = "b\"q")]
        b: f32,
    }
    let got = read::<Quote>(fixture("rec_quote.npy")).unwrap().into_vec();
    for (g, w) in got.iter().zip(&records("rec_quote.npy")) {
        assert_eq!(i64::from(g.a), int(&w["it's"]));
        same_f32(g.b, &w["b\"q"]);
    }
    assert_eq!(
        to_bytes(&got),
        std::fs::read(fixture("rec_quote.npy")).unwrap()
    );
}

#[test]
fn rec_scalar_zero_dimensional() {
    let got = read::<Packed>(fixture("rec_scalar.npy"))
        .unwrap()
        .into_vec();
    assert_eq!(got.len(), 1);
    check_packed(&got, "rec_scalar.npy");
    let mut r = NpyReader::open(fixture("rec_scalar.npy")).unwrap();
    assert!(r.shape().is_empty());
    assert_eq!(r.read_vec::<Packed>().unwrap().len(), 1);
}

#[test]
fn rec_zero_sub_zero_size_subarray() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct Zero {
        z: [[[f32; 4]; 0]; 4],
        k: i16,
    }
    let e = entry("rec_zero_sub.npy");
    assert_eq!(Zero::npy_dtype().to_string(), e["descr"].as_str().unwrap());
    let got = read::<Zero>(fixture("rec_zero_sub.npy"))
        .unwrap()
        .into_vec();
    let ks: Vec<i64> = got.iter().map(|z| i64::from(z.k)).collect();
    let want: Vec<i64> = records("rec_zero_sub.npy")
        .iter()
        .map(|w| int(&w["k"]))
        .collect();
    assert_eq!(ks, want);
    assert_eq!(
        to_bytes(&got),
        std::fs::read(fixture("rec_zero_sub.npy")).unwrap()
    );
}

#[test]
fn rec_mixed_bo_per_field_byte_orders() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct Mixed {
        a: i32,
        b: i32,
        c: f64,
        d: u8,
    }
    let got = read::<Mixed>(fixture("rec_mixed_bo.npy"))
        .unwrap()
        .into_vec();
    for (g, w) in got.iter().zip(&records("rec_mixed_bo.npy")) {
        assert_eq!(i64::from(g.a), int(&w["a"]));
        assert_eq!(i64::from(g.b), int(&w["b"]));
        same_f64(g.c, &w["c"]);
        assert_eq!(i64::from(g.d), int(&w["d"]));
    }
    round_trip(&got);
}

#[derive(NpyElement, Debug, Clone, PartialEq)]
struct Strings {
    #[npy(width = 5)]
    name: Vec<u8>,
    #[npy(width = 3)]
    u: String,
    flag: bool,
    t: Datetime64<units::S>,
    c: Complex<f32>,
}

#[test]
fn rec_strings_string_bool_datetime_complex_fields() {
    let e = entry("rec_strings.npy");
    assert_eq!(
        Strings::npy_dtype().to_string(),
        e["descr"].as_str().unwrap()
    );
    let got = read::<Strings>(fixture("rec_strings.npy"))
        .unwrap()
        .into_vec();
    for (g, w) in got.iter().zip(&records("rec_strings.npy")) {
        let latin1: Vec<u8> = w["name"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| c as u8)
            .collect();
        assert_eq!(g.name, latin1);
        assert_eq!(g.u, w["u"].as_str().unwrap());
        assert_eq!(g.flag, w["flag"].as_bool().unwrap());
        assert_eq!(g.t.ticks, int(&w["t"]));
        same_f32(g.c.re, &w["c"][0]);
        same_f32(g.c.im, &w["c"][1]);
    }
    assert_eq!(
        to_bytes(&got),
        std::fs::read(fixture("rec_strings.npy")).unwrap()
    );
    assert_eq!(round_trip(&got), got);
}

/// A value wider than a field's `#[npy(width = N)]` names the field and the attribute to
/// change, not `WriteOptions::dtype`.
#[test]
fn value_too_long_for_a_field_names_the_field_and_its_attribute() {
    let row = Strings {
        name: b"ok".to_vec(),
        u: "four".into(),
        flag: true,
        t: Datetime64::new(0),
        c: Complex::new(0.0, 0.0),
    };
    let mut out = Vec::new();
    let err = WriteOptions::new()
        .write_to(&mut out, &[row], &[1])
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ValueTooLong { len: 4, field: Some(f), .. } if f == "u"),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("field \"u\"") && msg.contains("#[npy(width = N)]"),
        "{msg}"
    );
    assert!(!msg.contains("WriteOptions::dtype"), "{msg}");
}

#[test]
fn strings_without_width_take_the_longest_value() {
    #[derive(NpyElement, Debug, Clone, PartialEq)]
    struct Named {
        id: u16,
        name: String,
        raw: Vec<u8>,
    }
    let rows = vec![
        Named {
            id: 1,
            name: "ab".into(),
            raw: b"x".to_vec(),
        },
        Named {
            id: 2,
            name: "Ωμέγα".into(),
            raw: b"wxyz".to_vec(),
        },
    ];
    assert_eq!(
        Named::dtype_for(&rows).to_string(),
        "[('id', '<u2'), ('name', '<U5'), ('raw', '|S4')]"
    );
    assert_eq!(round_trip(&rows), rows);
}

#[test]
fn subset_of_fields_in_another_order() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct IdX {
        id: i64,
        x: f32,
    }
    let got = read::<IdX>(fixture("rec_packed.npy")).unwrap().into_vec();
    let want = records("rec_packed.npy");
    assert_eq!(got.len(), 3);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.id, int(&w["id"]));
        same_f32(g.x, &w["x"]);
    }
}

/// `rec_chunks.npy`: 300 records of 512 bytes, more than two of the readers' 64 KiB chunks,
/// fields in another order than the struct's, big- and little-endian, padding between. Every
/// read path decodes the records numpy wrote.
#[test]
fn rec_chunks_decodes_across_read_chunks() {
    let path = fixture("rec_chunks.npy");
    // 128 records to a chunk: three chunks.
    assert_eq!(entry("rec_chunks.npy")["itemsize"], 512);
    let want = records("rec_chunks.npy");
    assert_eq!(want.len(), 300);
    check_packed(&read::<Packed>(&path).unwrap().into_vec(), "rec_chunks.npy");

    // A stream of unknown length (grown as it arrives), a reused buffer, one by one.
    let bytes = std::fs::read(&path).unwrap();
    let streamed: Vec<Packed> = NpyReader::new(&bytes[..]).unwrap().read_vec().unwrap();
    check_packed(&streamed, "rec_chunks.npy");
    let mut buf = vec![
        Packed {
            x: 0.0,
            y: 0.0,
            id: 0
        };
        300
    ];
    NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap();
    check_packed(&buf, "rec_chunks.npy");
    let one_by_one: Vec<Packed> = NpyReader::open(&path)
        .unwrap()
        .iter::<Packed>()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    check_packed(&one_by_one, "rec_chunks.npy");

    // A range that starts inside the first chunk and ends inside the third.
    let mid = NpyReader::open(&path)
        .unwrap()
        .read_range::<Packed>(100..290)
        .unwrap();
    assert_eq!(mid.len(), 190);
    for (g, w) in mid.iter().zip(&want[100..]) {
        same_f32(g.x, &w["x"]);
        same_f32(g.y, &w["y"]);
        assert_eq!(g.id, int(&w["id"]));
    }
}

/// A value the field type cannot hold, in the second chunk, fails the read with the value's
/// error (a UCS-4 surrogate is no `char`, the format's rule for `U`).
#[test]
fn invalid_value_in_a_later_chunk_fails_the_read() {
    #[derive(NpyElement, Debug, Clone, PartialEq)]
    struct Tagged {
        id: u32,
        #[npy(width = 1)]
        tag: String,
    }
    // 10,000 records of 8 bytes: two chunks of 8,192 and 1,808.
    let rows: Vec<Tagged> = (0..10_000)
        .map(|i| Tagged {
            id: i,
            tag: "a".into(),
        })
        .collect();
    let mut bytes = to_bytes(&rows);
    let data = bytes.len() - 8 * rows.len();
    let bad = data + 8 * 9_000 + 4;
    bytes[bad..bad + 4].copy_from_slice(&0xD800u32.to_le_bytes());
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<Tagged>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidUnicode { code_point: 0xD800 }),
        "{err}"
    );
    let mut buf = rows.clone();
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_into(&mut buf)
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidUnicode { code_point: 0xD800 }),
        "{err}"
    );
    // The records before the bad one were read.
    assert_eq!(buf[..9_000], rows[..9_000]);
}

#[test]
fn writing_into_a_wider_record_zeroes_the_other_fields() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct IdOnly {
        id: i64,
    }
    let mut out = Vec::new();
    let rows = [IdOnly { id: 7 }, IdOnly { id: -1 }];
    WriteOptions::new()
        .dtype(Packed::npy_dtype())
        .write_to(&mut out, &rows, &[2])
        .unwrap();
    let back: Vec<Packed> = NpyReader::new(&out[..]).unwrap().read_vec().unwrap();
    assert_eq!(
        back,
        [
            Packed {
                x: 0.0,
                y: 0.0,
                id: 7
            },
            Packed {
                x: 0.0,
                y: 0.0,
                id: -1
            }
        ]
    );
}

#[test]
fn missing_field_lists_the_files_fields() {
    #[derive(NpyElement, Debug)]
    struct Missing {
        x: f32,
        z: f64,
    }
    let err = read::<Missing>(fixture("rec_packed.npy")).unwrap_err();
    assert!(matches!(&err.kind(), ErrorKind::MissingField { field, .. } if field == "z"));
    assert_eq!(err.path(), Some(fixture("rec_packed.npy").as_path()));
    assert_eq!(
        err.kind().to_string(),
        r#"file's record has no field "z" (it has: "x", "y", "id")"#
    );
}

#[test]
fn incompatible_field_names_field_file_dtype_and_rust_type() {
    #[derive(NpyElement, Debug)]
    struct Wrong {
        x: f64,
    }
    let err = read::<Wrong>(fixture("rec_packed.npy")).unwrap_err();
    assert!(matches!(&err.kind(), ErrorKind::FieldType { field, .. } if field == "x"));
    assert_eq!(err.path(), Some(fixture("rec_packed.npy").as_path()));
    assert_eq!(
        err.kind().to_string(),
        "field \"x\": file has dtype '<f4' (float32), requested f64 ('<f8')"
    );
}

#[test]
fn non_record_file_is_a_type_mismatch() {
    let err = read::<Packed>(fixture("w_f32.npy")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("Packed"), "{err}");
}

#[test]
fn tuple_and_generic_structs() {
    #[derive(NpyElement, Debug, Clone, PartialEq)]
    struct Pair(i32, f64);
    assert_eq!(
        Pair::npy_dtype().to_string(),
        "[('f0', '<i4'), ('f1', '<f8')]"
    );
    let rows = vec![Pair(1, 0.5), Pair(-3, 2.0)];
    assert_eq!(round_trip(&rows), rows);

    #[derive(NpyElement, Debug, Clone, PartialEq)]
    struct XY<T> {
        x: T,
        y: T,
    }
    assert_eq!(
        XY::<u16>::npy_dtype().to_string(),
        "[('x', '<u2'), ('y', '<u2')]"
    );
    assert_eq!(XY::<u16>::rust_name(), "XY<u16>");
    let rows = vec![XY { x: 1u16, y: 2 }, XY { x: 3, y: 4 }];
    assert_eq!(round_trip(&rows), rows);
    let nested = vec![XY {
        x: Point { x: 1.0, y: 2.0 },
        y: Point { x: 3.0, y: 4.0 },
    }];
    assert_eq!(round_trip(&nested), nested);
}

#[test]
fn streaming_and_random_access_work_for_records() {
    let mut r = NpyReader::open(fixture("rec_packed.npy")).unwrap();
    let ids: Vec<i64> = r.iter::<Packed>().unwrap().map(|p| p.unwrap().id).collect();
    assert_eq!(ids, [17, 20, 23]);
    let mut r = NpyReader::open(fixture("rec_packed.npy")).unwrap();
    let last = r.read_range::<Packed>(2..3).unwrap();
    assert_eq!(last[0].id, 23);
}

#[test]
fn empty_struct_is_a_record_without_fields() {
    #[derive(NpyElement, Debug, PartialEq)]
    struct Empty {}
    let got = read::<Empty>(fixture("rec_empty.npy")).unwrap().into_vec();
    assert_eq!(got, [Empty {}, Empty {}]);
    assert_eq!(Empty::npy_dtype().to_string(), "[]");
}

mod custom_path {
    // The derive's paths can point at a re-export of npy_core.
    mod reexport {
        pub use npy_core as core_again;
    }
    #[derive(npy_core::NpyElement)]
    #[npy(crate = "self::reexport::core_again")]
    pub struct Custom {
        pub v: u8,
    }

    #[test]
    fn crate_attribute() {
        use npy_core::NpyElement;
        assert_eq!(Custom::npy_dtype().to_string(), "[('v', '|u1')]");
    }
}
