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
