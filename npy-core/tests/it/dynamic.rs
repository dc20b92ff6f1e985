//! `read_dyn` against the numpy-written fixtures: every fixture whose manifest entry has
//! `"data"` must read to exactly those values (the manifest's JSON encoding of numpy's
//! `tolist()`, written by numpy 2.4.6 with the files), plus object arrays, lone surrogates and
//! hostile headers.

use std::borrow::Cow;
use std::fs;

use npy_core::{DynValue, Error, ErrorKind, Header, NpyReader};
use serde_json::json;

use dyn_json::{array_json, same};
use npy_test_support::dyn_json;
use npy_test_support::fixture;
use npy_test_support::{fixtures_dir, manifest};

#[test]
fn every_fixture_with_data_reads_as_numpy_lists_it() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in manifest() {
        let Some(want) = entry.get("data") else {
            continue;
        };
        let file = entry["file"].as_str().expect("file name");
        let a = match npy_core::read_dyn(fixtures_dir().join(file)) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let descr = entry["descr"].as_str().expect("descr");
        let descr = descr
            .strip_prefix('\'')
            .and_then(|d| d.strip_suffix('\''))
            .unwrap_or(descr);
        assert_eq!(a.dtype().to_string(), descr, "{file}: descr");
        let shape: Vec<u64> = entry["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|d| d.as_u64().expect("dim"))
            .collect();
        assert_eq!(a.shape(), shape, "{file}: shape");
        assert_eq!(
            a.header().fortran_order,
            entry["fortran_order"] == true,
            "{file}"
        );
        if let Err(e) = same(&array_json(&a), want, file) {
            failures.push(e);
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 200, "only {checked} fixtures had data");
}

#[test]
fn longdouble_keeps_raw_bytes() {
    let a = npy_core::read_dyn(fixtures_dir().join("f16_be_c_2x3x4.npy")).expect("read");
    let raw = fs::read(fixtures_dir().join("f16_be_c_2x3x4.npy")).expect("file");
    let data = &raw[raw.len() - 24 * 16..];
    for (i, v) in a.iter().enumerate() {
        match &*v {
            DynValue::LongDouble { bytes, .. } => assert_eq!(bytes, &data[i * 16..i * 16 + 16]),
            other => panic!("{other:?}"),
        }
    }
}

/// `read_dyn` has no `ObjectCodec` (npy-pickle's tests decode these files with one): object
/// arrays are refused from the header, nothing after it consumed.
#[test]
fn object_arrays_are_refused_before_the_data_without_a_codec() {
    let ext = npy_test_support::external_dir();
    for name in ["numpy/py3-objarr.npy", "npyz/pickle.npy"] {
        let bytes = fs::read(ext.join(name)).expect("read");
        assert!(
            matches!(
                npy_core::read_dyn(ext.join(name)).map_err(Error::into_kind),
                Err(ErrorKind::ObjectArray { .. })
            ),
            "{name}"
        );
        let mut stream = &bytes[..];
        let mut r = NpyReader::new(&mut stream).expect("header");
        let data_offset = r.parsed_header().data_offset() as usize;
        assert!(
            matches!(
                r.read_dyn().map_err(Error::into_kind),
                Err(ErrorKind::ObjectArray { .. })
            ),
            "{name}"
        );
        assert_eq!(
            stream.len(),
            bytes.len() - data_offset,
            "{name}: data untouched"
        );
    }
    // An object field inside a record, too.
    let dtype = "[('a', '<i4'), ('o', [('x', '|O')])]"
        .parse()
        .expect("dtype");
    let mut bytes = Header::new(dtype, vec![1]).to_bytes(None).expect("header");
    bytes.extend_from_slice(&[0; 12]);
    assert!(matches!(
        NpyReader::new(&bytes[..])
            .and_then(|mut r| r.read_dyn())
            .map_err(Error::into_kind),
        Err(ErrorKind::ObjectArray { .. })
    ));
}

#[test]
fn lone_surrogate_keeps_its_code_point() {
    let path = npy_test_support::external_dir().join("npyz/unicode/surrogate.npy");
    let a = npy_core::read_dyn(&path).expect("read");
    assert_eq!(a.shape(), [1]);
    match &a.element(0).expect("one element") {
        DynValue::Str(s) => {
            assert_eq!(s.code_points(), [0xD805]);
            assert_eq!(s.to_string_lossy(), "\u{FFFD}");
            assert!(matches!(
                s.to_string_strict().map_err(Error::into_kind),
                Err(ErrorKind::InvalidUnicode { code_point: 0xD805 })
            ));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn truncated_file_is_truncated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = fs::read(fixtures_dir().join("rec_nested.npy")).expect("fixture");
    let path = dir.path().join("short.npy");
    fs::write(&path, &src[..src.len() - 5]).expect("write");
    assert!(matches!(
        npy_core::read_dyn(&path).map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
    // And from a stream of unknown length.
    assert!(matches!(
        NpyReader::new(&src[..src.len() - 5])
            .and_then(|mut r| r.read_dyn())
            .map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
}

#[test]
fn huge_claims_fail_before_allocating() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 10^12 float64 with 100 data bytes.
    let mut bytes = Header::new("<f8".parse().expect("dtype"), vec![1_000_000_000_000])
        .to_bytes(None)
        .expect("header");
    bytes.extend_from_slice(&[0; 100]);
    let path = dir.path().join("huge.npy");
    fs::write(&path, &bytes).expect("write");
    assert!(matches!(
        npy_core::read_dyn(&path).map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
    // As a stream, the values grow only with data that arrives.
    assert!(matches!(
        NpyReader::new(&bytes[..])
            .and_then(|mut r| r.read_dyn())
            .map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));

    // 10^12 zero-size S0 elements: no file can bound them.
    let bytes = Header::new("|S0".parse().expect("dtype"), vec![1_000_000_000_000])
        .to_bytes(None)
        .expect("header");
    let path = dir.path().join("s0.npy");
    fs::write(&path, &bytes).expect("write");
    assert!(matches!(
        npy_core::read_dyn(&path).map_err(Error::into_kind),
        Err(ErrorKind::AllocationLimit { .. })
    ));

    // A zero-size subarray field with 10^12 elements inside a one-byte record. numpy (and
    // npy-core) refuse a subarray of '|S0'; an empty record as the base is the same hazard.
    assert!(matches!(
        "[('z', '|S0', (1000000, 1000000)), ('k', '|u1')]"
            .parse::<npy_core::DType>()
            .map_err(|e| Error::from(e).into_kind()),
        Err(ErrorKind::InvalidDescr { .. })
    ));
    let dtype = "[('z', [], (1000000, 1000000)), ('k', '|u1')]"
        .parse()
        .expect("dtype");
    let mut bytes = Header::new(dtype, vec![1]).to_bytes(None).expect("header");
    bytes.push(7);
    assert!(matches!(
        NpyReader::new(&bytes[..])
            .and_then(|mut r| r.read_dyn())
            .map_err(Error::into_kind),
        Err(ErrorKind::AllocationLimit { .. })
    ));
}

#[test]
fn zero_size_and_empty_arrays() {
    let bytes = Header::new("|S0".parse().expect("dtype"), vec![2, 2])
        .to_bytes(None)
        .expect("header");
    let a = NpyReader::new(&bytes[..])
        .and_then(|mut r| r.read_dyn())
        .expect("read");
    assert_eq!(
        a.iter().map(Cow::into_owned).collect::<Vec<_>>(),
        vec![DynValue::Bytes(vec![]); 4]
    );
    let a = npy_core::read_dyn(fixtures_dir().join("f8_le_c_3x0.npy")).expect("read");
    assert_eq!(array_json(&a), json!([[], [], []]));
}

/// numpy reads any non-zero bool byte as True (N22: `np.save` of a 0/255 mask viewed as bool
/// writes 0xff bytes; numpy 2.4.6 `np.load(...).tolist()` gives `[True, False, True, True]`).
#[test]
fn any_nonzero_bool_byte_is_true() {
    let mut bytes = Header::new("|b1".parse().expect("dtype"), vec![4])
        .to_bytes(None)
        .expect("header");
    bytes.extend_from_slice(&[1, 0, 0x62, 0xff]);
    let a = NpyReader::new(&bytes[..])
        .and_then(|mut r| r.read_dyn())
        .expect("read");
    let want = [true, false, true, true].map(DynValue::Bool);
    assert_eq!(a.iter().map(Cow::into_owned).collect::<Vec<_>>(), want);
    // The bytes are kept as stored: written back, the file is the same (np.save of the
    // loaded array writes them too).
    let mut back = Vec::new();
    npy_core::dynamic::write_dyn_to(&mut back, &a).expect("write");
    assert_eq!(back, bytes);
}

/// `read_dyn_range` reads exactly the memory-order elements asked for, of any dtype, and
/// refuses ranges outside the array.
#[test]
fn read_dyn_range_reads_only_the_range() {
    let path = fixtures_dir().join("rec_strings.npy");
    let whole: Vec<_> = npy_core::read_dyn(&path)
        .expect("read")
        .iter()
        .map(Cow::into_owned)
        .collect();
    let mut r = NpyReader::open(&path).expect("open");
    let n = r.num_elements();
    assert_eq!(r.read_dyn_range(1..n).expect("tail"), whole[1..]);
    assert_eq!(r.read_dyn_range(0..1).expect("head"), whole[..1]);
    assert_eq!(r.read_dyn_range(n..n).expect("empty"), []);
    assert!(matches!(
        r.read_dyn_range(0..n + 1).map_err(Error::into_kind),
        Err(ErrorKind::OutOfRange { .. })
    ));
    // The file's memory order, not C order: a Fortran-order fixture's second stored element.
    let path = fixtures_dir().join("i4_le_f_2x3x4.npy");
    let whole: Vec<_> = npy_core::read_dyn(&path)
        .expect("read")
        .iter()
        .map(Cow::into_owned)
        .collect();
    let mut r = NpyReader::open(&path).expect("open");
    assert_eq!(r.read_dyn_range(1..2).expect("one"), whole[1..2]);
    // A file shorter than the range is truncated, not an allocation refusal.
    let bytes = fs::read(fixtures_dir().join("u8_le_c_5.npy")).expect("fixture");
    let cut = std::io::Cursor::new(bytes[..bytes.len() - 1].to_vec());
    let mut r = NpyReader::new(cut).expect("header");
    assert_eq!(r.read_dyn_range(0..4).expect("whole elements").len(), 4);
    assert!(matches!(
        r.read_dyn_range(3..5).map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
}

#[test]
fn comparison_is_strict_about_floats() {
    assert!(same(&json!(-0.0), &json!(0.0), "z").is_err());
    assert!(same(&json!(1.0), &json!(1), "i").is_err());
    assert!(same(&json!([0.5, "nan"]), &json!([0.5, "nan"]), "ok").is_ok());
    assert!(same(&json!({"a": 1}), &json!({"a": 1.0}), "field").is_err());
}

/// `serde_json`'s maps sort their keys, so field order is checked on the values themselves.
#[test]
fn record_fields_come_in_dtype_order_without_padding() {
    let a = npy_core::read_dyn(fixtures_dir().join("rec_offsets.npy")).expect("read");
    let npy_core::DType::Record(r) = &a.dtype() else {
        panic!("{}", a.dtype())
    };
    let want: Vec<&str> = r.fields().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(want, ["a", "b"]);
    for v in &a {
        let DynValue::Record(fields) = &*v else {
            panic!("{v:?}")
        };
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want);
    }
    let a = npy_core::read_dyn(fixtures_dir().join("rec_quote.npy")).expect("read");
    let DynValue::Record(fields) = &a.element(0).expect("one record") else {
        panic!()
    };
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["it's", "b\"q"]);
}

/// `read_dyn` of a `|u1` array of more than 4,194,304 elements failed with `AllocationLimit`:
/// the typed reads' bound (32 bytes of elements per data byte) was applied to its 48-byte
/// `DynValue`s, although its own documented bound (`MAX_DYN_EXPANSION`, 256 per byte) allows
/// them. The first size past the typed bound now reads, whole or by range (X7/N10).
#[test]
fn read_dyn_is_bounded_by_its_own_budget_not_the_typed_one() {
    // Past 64 MiB / (48 - 32) bytes: where the typed bound refused.
    let n = (64 << 20) / 16 + 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u1.npy");
    npy_core::write(&path, &vec![7u8; n], &[n as u64]).unwrap();
    let a = npy_core::read_dyn(&path).unwrap();
    assert_eq!(a.len(), n);
    assert_eq!(a.element(n - 1), Some(DynValue::UInt(7)));
    assert_eq!(
        a.columns()[0].bytes().len(),
        n,
        "one byte per element in memory"
    );
    let mut r = NpyReader::open(&path).unwrap();
    let n = n as u64;
    assert_eq!(r.read_dyn_range(0..n).unwrap().len() as u64, n);
}

// Regressions: faults found by fuzzing and review, each with its failing input.

/// A reversed range said "outside the array's N elements".
#[test]
fn a_reversed_range_says_so() {
    let bytes = std::fs::read(fixture("i2_le_c_2x3x4.npy")).unwrap();
    let mut r = NpyReader::new(std::io::Cursor::new(bytes)).unwrap();
    #[allow(clippy::reversed_empty_ranges)] // the reversed range is the input under test
    let err = r.read_range::<i16>(5..3).unwrap_err();
    assert!(err.to_string().contains("reversed"), "{err}");
}

/// A `longdouble` of fewer bytes than the x87 format's 10 (`Primitive::LongDouble`'s size is a
/// public field; the descr parser makes only 12 and 16) sliced 10 bytes out of 4 when its
/// element was decoded (issue 40, panics audit). Now the bytes there are are read, the rest
/// zero: `00 00 80 3f` is an x87 significand with exponent 0, a denormal far below f64's range.
#[test]
fn a_longdouble_shorter_than_x87_decodes_without_panicking() {
    use npy_core::dtype::Primitive;
    let dtype = npy_core::DType::Number(
        Primitive::LongDouble { size: 4 },
        npy_core::ByteOrder::Little,
    );
    let bytes = vec![0, 0, 0x80, 0x3f];
    let value = DynValue::LongDouble {
        bytes: bytes.clone(),
        approx: 0.0,
    };
    let a = npy_core::DynArray::new(Header::new(dtype, vec![1]), vec![value]).unwrap();
    let Some(DynValue::LongDouble { bytes: got, approx }) = a.element(0) else {
        panic!("not a longdouble: {:?}", a.element(0));
    };
    assert_eq!(got, bytes);
    assert_eq!(approx, 0.0);
}
