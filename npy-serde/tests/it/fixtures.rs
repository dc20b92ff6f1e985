//! Every fixture header through both serde directions: header → JSON → header, and
//! header → Python literal (numpy's dict, written by `npy_serde::to_string`) → header.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use npy_core::literal::{self, ParseOptions};
use npy_core::{format::Version, Header};
use npy_serde::Value;
use serde::Serialize;

/// numpy's header dict, field for field as `_write_array_header` builds it.
#[derive(Serialize)]
struct NumpyHeader {
    descr: Value,
    fortran_order: bool,
    shape: Value,
}

impl NumpyHeader {
    fn of(h: &Header) -> NumpyHeader {
        NumpyHeader {
            descr: h.dtype.to_descr_value(),
            fortran_order: h.fortran_order,
            shape: Value::Tuple(h.shape.iter().map(|&d| Value::Int(d.into())).collect()),
        }
    }
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// (file, header text as numpy stored it) from the manifest.
fn manifest() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixtures_dir().join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_owned(),
                f["header"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// numpy's stored text without what the header writer adds to `repr`: the `, ` before the
/// closing brace and the padding.
fn repr_of_stored(text: &str) -> String {
    let t = text.trim_end();
    let t = t.strip_suffix(", }").expect("numpy writes ', }'");
    format!("{t}}}")
}

#[test]
fn every_fixture_header_both_ways() {
    let fixtures = manifest();
    assert!(
        fixtures.len() > 200,
        "manifest has {} fixtures",
        fixtures.len()
    );
    for (file, stored) in &fixtures {
        let path = fixtures_dir().join(file);
        let parsed = Header::read(&mut BufReader::new(File::open(&path).unwrap()))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(&parsed.text, stored, "{file}");
        let h = &parsed.header;

        // header → JSON → header, and JSON → header → JSON.
        let json = serde_json::to_string(h).unwrap();
        let back: Header =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{file}: {json}: {e}"));
        assert_eq!(&back, h, "{file} via {json}");
        assert_eq!(serde_json::to_string(&back).unwrap(), json, "{file}");

        // header → Python literal → header; the literal is numpy's repr of the dict.
        let want = repr_of_stored(stored);
        let text = npy_serde::to_string(&NumpyHeader::of(h)).unwrap();
        assert_eq!(text, want, "{file}");
        assert_eq!(npy_serde::to_string(h).unwrap(), want, "{file}");
        let opts = ParseOptions {
            long_suffix: parsed.version != Version::V3_0,
            ..ParseOptions::default()
        };
        let v = literal::parse(&text, opts).unwrap();
        assert_eq!(&Header::from_value(&v).unwrap(), h, "{file}");
        let via_serde: Header = npy_serde::from_str(&text).unwrap();
        assert_eq!(&via_serde, h, "{file}");
        // The stored text itself (trailing comma, padding) reads through serde too.
        let from_stored: Header = npy_serde::from_str_with(stored, opts).unwrap();
        assert_eq!(&from_stored, h, "{file}");
    }
}

#[test]
fn w_f32_is_numpys_dict_repr() {
    let path = fixtures_dir().join("w_f32.npy");
    let parsed = Header::read(&mut BufReader::new(File::open(path).unwrap())).unwrap();
    assert_eq!(
        npy_serde::to_string(&NumpyHeader::of(&parsed.header)).unwrap(),
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}"
    );
    assert_eq!(
        serde_json::to_string(&parsed.header).unwrap(),
        r#"{"descr":"<f4","fortran_order":false,"shape":[4,64]}"#
    );
}

/// The header struct a user writes first, its shape a `Vec<u64>`: the literal is numpy's
/// header text for every fixture with a string descr (its `shape` a tuple, `(4,)` for one
/// dimension and `()` for none, as numpy writes and requires; a list is refused by
/// `np.load`).
#[test]
fn a_vec_shape_is_written_as_numpys_tuple() {
    #[derive(Serialize)]
    struct UserHeader {
        descr: String,
        fortran_order: bool,
        shape: Vec<u64>,
    }
    let mut checked = 0;
    for (file, stored) in &manifest() {
        let path = fixtures_dir().join(file);
        let h = Header::read(&mut BufReader::new(File::open(&path).unwrap()))
            .unwrap()
            .header;
        let Value::Str(descr) = h.dtype.to_descr_value() else {
            continue;
        };
        let user = UserHeader {
            descr,
            fortran_order: h.fortran_order,
            shape: h.shape.clone(),
        };
        let text = npy_serde::to_string(&user).unwrap();
        assert_eq!(text, repr_of_stored(stored), "{file}");
        checked += 1;
    }
    assert!(checked > 100, "{checked} fixtures with a string descr");
    // Elsewhere a sequence stays a list.
    assert_eq!(npy_serde::to_string(&vec![4u64, 64]).unwrap(), "[4, 64]");
}

/// A header made from a map, not a struct (issue 40): its `"shape"` entry is written as the
/// tuple numpy requires, as a struct field's is. Before, a map wrote `'shape': [2, 3]`, which
/// `np.load` refuses ("shape is not valid: [2, 3]"). numpy loads the file and reads the shape
/// and values written.
#[test]
fn a_map_header_shape_is_a_tuple_numpy_loads() {
    use std::collections::BTreeMap;
    let header: BTreeMap<&str, Value> = BTreeMap::from([
        ("descr", Value::Str("<f4".into())),
        ("fortran_order", Value::Bool(false)),
        (
            "shape",
            Value::List(vec![Value::Int(2u64.into()), Value::Int(3u64.into())]),
        ),
    ]);
    let text = npy_serde::to_string(&header).unwrap();
    assert_eq!(
        text,
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}"
    );
    // Any serde map, a `Vec<u64>` value included; elsewhere in a map a sequence stays a list.
    let plain: BTreeMap<&str, Vec<u64>> = BTreeMap::from([("other", vec![1]), ("shape", vec![4])]);
    assert_eq!(
        npy_serde::to_string(&plain).unwrap(),
        "{'other': [1], 'shape': (4,)}"
    );

    // An .npy 1.0 file: magic, version, u16 header length, the dict padded with spaces and a
    // newline to a multiple of 64 bytes (format card, "header"), then six float32 values.
    let mut dict = text.into_bytes();
    let total = 10 + dict.len() + 1;
    dict.resize(dict.len() + (64 - total % 64) % 64, b' ');
    dict.push(b'\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&u16::try_from(dict.len()).unwrap().to_le_bytes());
    file.extend_from_slice(&dict);
    for v in [0.5f32, 1.0, 1.5, 2.0, 2.5, 3.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map_header.npy");
    std::fs::write(&path, &file).unwrap();

    let Some(python) = npy_test_support::python::python_for("np.load of a map-made header") else {
        return;
    };
    let out = npy_test_support::python::run_script(
        &python,
        "import sys, numpy as np\n\
         a = np.load(sys.argv[1])\n\
         print(a.shape, a.dtype.str, a.tolist())",
        [&path],
    );
    assert_eq!(out.trim(), "(2, 3) <f4 [[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]]");
}
