//! `read_dyn` against the numpy-written fixtures: every fixture whose manifest entry has
//! `"data"` must read to exactly those values (the manifest's JSON encoding of numpy's
//! `tolist()`, written by numpy 2.4.6 with the files), plus object arrays, lone surrogates and
//! hostile headers.

use std::fs;
use std::path::{Path, PathBuf};

use npy_core::{DynValue, Error, Header, NpyReader};
use serde_json::{json, Value as Json};

const EXTERNAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/fixtures-external"
);

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn manifest() -> Vec<Json> {
    let text = fs::read_to_string(fixtures_dir().join("manifest.json")).expect("manifest.json");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    m["fixtures"].as_array().expect("fixtures list").clone()
}

#[path = "support/dyn_json.rs"]
mod dyn_json;
use dyn_json::{array_json, same};

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
        assert_eq!(a.dtype.to_string(), descr, "{file}: descr");
        let shape: Vec<u64> = entry["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|d| d.as_u64().expect("dim"))
            .collect();
        assert_eq!(a.shape, shape, "{file}: shape");
        assert_eq!(a.fortran_order, entry["fortran_order"] == true, "{file}");
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
    for (i, v) in a.values.iter().enumerate() {
        match v {
            DynValue::LongDouble { bytes, .. } => assert_eq!(bytes, &data[i * 16..i * 16 + 16]),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn object_arrays_are_refused_before_the_data() {
    let ext = Path::new(EXTERNAL);
    if !ext.is_dir() {
        eprintln!("skipping: {EXTERNAL} is absent");
        return;
    }
    for name in ["numpy/py3-objarr.npy", "npyz/pickle.npy"] {
        let bytes = fs::read(ext.join(name)).expect("read");
        match npy_core::read_dyn(ext.join(name)) {
            Err(Error::ObjectArray { .. }) => {}
            other => panic!("{name}: {other:?}"),
        }
        // The same from a stream: nothing after the header is consumed.
        let mut stream = &bytes[..];
        let mut r = NpyReader::new(&mut stream).expect("header");
        let data_offset = r.parsed_header().data_offset() as usize;
        assert!(
            matches!(r.read_dyn(), Err(Error::ObjectArray { .. })),
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
        NpyReader::new(&bytes[..]).and_then(|mut r| r.read_dyn()),
        Err(Error::ObjectArray { .. })
    ));
}

#[test]
fn lone_surrogate_keeps_its_code_point() {
    let path = Path::new(EXTERNAL).join("npyz/unicode/surrogate.npy");
    if !path.is_file() {
        eprintln!("skipping: {} is absent", path.display());
        return;
    }
    let a = npy_core::read_dyn(&path).expect("read");
    assert_eq!(a.shape, [1]);
    match &a.values[0] {
        DynValue::Str(s) => {
            assert_eq!(s.code_points(), [0xD805]);
            assert_eq!(s.to_string_lossy(), "\u{FFFD}");
            assert!(matches!(
                s.to_string_strict(),
                Err(Error::InvalidUnicode { code_point: 0xD805 })
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
        npy_core::read_dyn(&path),
        Err(Error::Truncated { .. })
    ));
    // And from a stream of unknown length.
    assert!(matches!(
        NpyReader::new(&src[..src.len() - 5]).and_then(|mut r| r.read_dyn()),
        Err(Error::Truncated { .. })
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
        npy_core::read_dyn(&path),
        Err(Error::Truncated { .. })
    ));
    // As a stream, the values grow only with data that arrives.
    assert!(matches!(
        NpyReader::new(&bytes[..]).and_then(|mut r| r.read_dyn()),
        Err(Error::Truncated { .. })
    ));

    // 10^12 zero-size S0 elements: no file can bound them.
    let bytes = Header::new("|S0".parse().expect("dtype"), vec![1_000_000_000_000])
        .to_bytes(None)
        .expect("header");
    let path = dir.path().join("s0.npy");
    fs::write(&path, &bytes).expect("write");
    assert!(matches!(
        npy_core::read_dyn(&path),
        Err(Error::AllocationLimit { .. })
    ));

    // A zero-size subarray field with 10^12 elements inside a one-byte record. numpy (and
    // npy-core) refuse a subarray of '|S0'; an empty record as the base is the same hazard.
    assert!(matches!(
        "[('z', '|S0', (1000000, 1000000)), ('k', '|u1')]".parse::<npy_core::DType>(),
        Err(Error::InvalidDescr { .. })
    ));
    let dtype = "[('z', [], (1000000, 1000000)), ('k', '|u1')]"
        .parse()
        .expect("dtype");
    let mut bytes = Header::new(dtype, vec![1]).to_bytes(None).expect("header");
    bytes.push(7);
    assert!(matches!(
        NpyReader::new(&bytes[..]).and_then(|mut r| r.read_dyn()),
        Err(Error::AllocationLimit { .. })
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
    assert_eq!(a.values, vec![DynValue::Bytes(vec![]); 4]);
    let a = npy_core::read_dyn(fixtures_dir().join("f8_le_c_3x0.npy")).expect("read");
    assert_eq!(array_json(&a), json!([[], [], []]));
}

#[test]
fn invalid_bool_byte_is_an_error() {
    let mut bytes = Header::new("|b1".parse().expect("dtype"), vec![2])
        .to_bytes(None)
        .expect("header");
    bytes.extend_from_slice(&[1, 0x62]);
    assert!(matches!(
        NpyReader::new(&bytes[..]).and_then(|mut r| r.read_dyn()),
        Err(Error::InvalidBool { byte: 0x62 })
    ));
}

#[test]
fn comparison_is_strict_about_floats() {
    assert!(same(&json!(-0.0), &json!(0.0), "z").is_err());
    assert!(same(&json!(1.0), &json!(1), "i").is_err());
    assert!(same(&json!([0.5, "nan"]), &json!([0.5, "nan"]), "ok").is_ok());
    assert!(same(&json!({"a": 1}), &json!({"a": 1.0}), "field").is_err());
}

/// serde_json's maps sort their keys, so field order is checked on the values themselves.
#[test]
fn record_fields_come_in_dtype_order_without_padding() {
    let a = npy_core::read_dyn(fixtures_dir().join("rec_offsets.npy")).expect("read");
    let npy_core::DType::Record(r) = &a.dtype else {
        panic!("{}", a.dtype)
    };
    let want: Vec<&str> = r.fields().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(want, ["a", "b"]);
    for v in &a.values {
        let DynValue::Record(fields) = v else {
            panic!("{v:?}")
        };
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want);
    }
    let a = npy_core::read_dyn(fixtures_dir().join("rec_quote.npy")).expect("read");
    let DynValue::Record(fields) = &a.values[0] else {
        panic!()
    };
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["it's", "b\"q"]);
}
