//! `npy info` of scipy.sparse archives (issue 26): the facts scipy 1.17.1 recorded when it
//! wrote `fixtures/sparse/` (its manifest).

use std::path::Path;

use crate::common::{npy, stderr, stdout, ROOT};
use serde_json::Value;

#[test]
fn info_names_every_sparse_fixture_as_scipy() {
    let dir = Path::new(ROOT).join("fixtures/sparse");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let files = m["files"].as_array().unwrap();
    assert!(files.len() >= 30);
    for e in files {
        let file = e["file"].as_str().unwrap();
        let o = npy([Path::new("info"), Path::new("--json"), &dir.join(file)]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let first: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
        let s = &first["sparse"];
        let kind = if e["is_array"].as_bool().unwrap() {
            "array"
        } else {
            "matrix"
        };
        assert_eq!(
            s["class"],
            format!("{}_{kind}", e["format"].as_str().unwrap()),
            "{file}"
        );
        for (ours, theirs) in [
            ("format", "format"),
            ("shape", "shape"),
            ("stored", "stored"),
            ("nnz", "nnz"),
            ("data_descr", "data_descr"),
            ("index_descr", "index_descr"),
            ("blocksize", "blocksize"),
        ] {
            assert_eq!(s[ours], e[theirs], "{file}: {ours}");
        }
        // The text form leads with the same facts.
        let o = npy([Path::new("info"), &dir.join(file)]);
        let line = stdout(&o).lines().next().unwrap().to_owned();
        assert!(
            line.contains(&format!(
                "scipy.sparse {}_{kind}",
                e["format"].as_str().unwrap()
            )),
            "{line}"
        );
        // "stored elements" as scipy's repr counts them: its nnz.
        assert!(
            line.contains(&format!("{} stored elements", e["nnz"])),
            "{line}"
        );
    }
    // A plain archive has no such line.
    let o = npy([
        Path::new("info"),
        &Path::new(ROOT).join("fixtures/npz/savez.npz"),
    ]);
    assert!(!stdout(&o).contains("scipy.sparse"));
}
