//! `npy header` run as a program on the numpy-written fixtures.

use crate::common::{npy, ROOT};
use std::path::Path;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[test]
fn json_header_of_w_f32() {
    let o = npy(["header", "fixtures/w_f32.npy"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "{\"descr\":\"<f4\",\"fortran_order\":false,\"shape\":[4,64]}\n"
    );
    assert_eq!(text(&o.stderr), "");
}

#[test]
fn python_header_is_the_stored_text() {
    let o = npy(["header", "--python", "fixtures/w_f32.npy"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }  "),
        "{out:?}"
    );
    assert!(out.ends_with(" \n"), "{out:?}");
    assert_eq!(out.len(), 128 - 10, "HEADER_LEN bytes, padding kept");
}

/// Every fixture: `--python` prints the manifest's header text; the JSON reads back to the
/// file's header through npy-core's serde impls.
#[test]
fn every_fixture() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("fixtures/manifest.json")).unwrap(),
    )
    .unwrap();
    for f in manifest["fixtures"].as_array().unwrap() {
        let path = format!("fixtures/{}", f["file"].as_str().unwrap());
        let o = npy(["header", "--python", &path]);
        assert!(o.status.success(), "{path}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), f["header"].as_str().unwrap(), "{path}");

        let o = npy(["header", &path]);
        assert!(o.status.success(), "{path}: {}", text(&o.stderr));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(json["fortran_order"], f["fortran_order"], "{path}");
        assert_eq!(json["shape"], f["shape"], "{path}");
        let h: npy_core::Header = serde_json::from_value(json).unwrap();
        let file = std::fs::File::open(Path::new(ROOT).join(&path)).unwrap();
        let want = npy_core::Header::read(&mut std::io::BufReader::new(file)).unwrap();
        assert_eq!(h, want.header, "{path}");
    }
}

#[test]
fn record_descr_is_numpys_list() {
    let o = npy(["header", "fixtures/rec_titles.npy"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let descr = json["descr"].as_array().expect("a record descr is a list");
    assert!(descr.iter().all(serde_json::Value::is_array), "{json}");
}

#[test]
fn errors() {
    let o = npy(["header", "fixtures/manifest.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "");
    assert!(
        text(&o.stderr).starts_with("npy: fixtures/manifest.json: "),
        "{}",
        text(&o.stderr)
    );

    let o = npy(["header", "no/such.npy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).starts_with("npy: no/such.npy: "));

    let o = npy(["header"]);
    assert_eq!(o.status.code(), Some(2), "usage error");
}

/// An archive given where a `.npy` is expected: the message names the command line's way to
/// it (`--member`), not a Rust call (found by a new user's trial).
#[test]
fn an_archive_without_member_names_the_option() {
    let o = npy(["header", "fixtures/npz/order_endian.npz"]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("--member KEY"), "{err}");
    assert!(!err.contains("npy_npz::"), "{err}");
}
