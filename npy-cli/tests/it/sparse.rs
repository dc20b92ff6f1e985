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

/// Issue 42, F15 (`../shared/cases/turn4/r15`): an archive that names a format but that
/// `scipy.sparse.load_npz` refuses was described with numbers scipy never reports, or (an
/// unknown format) passed over silently. Its line says why scipy refuses it instead (scipy
/// 1.17.1's message: "number of diagonals (1) does not match the number of offsets (5)");
/// its members are still listed.
#[test]
fn info_says_why_scipy_refuses_a_sparse_archive() {
    let dir = tempfile::tempdir().unwrap();
    let dia = dir.path().join("dia.npz");
    let mut w = npy_npz::NpzWriter::create(&dia).unwrap();
    w.add("format", &[b"dia".to_vec()], &[]).unwrap();
    w.add("shape", &[3i64, 3], &[2]).unwrap();
    w.add("data", &[0.0f64; 3], &[1, 3]).unwrap();
    w.add("offsets", &[0i64, 1, 2, -1, -2], &[5]).unwrap();
    w.finish().unwrap();
    let o = npy([Path::new("info"), &dia]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(
        text.lines().next().unwrap(),
        format!(
            "{}: not a valid dia matrix: number of diagonals (1) does not match the number of \
             offsets (5)",
            dia.display()
        )
    );
    assert!(text.contains("offsets"), "{text}");
    let o = npy([Path::new("info"), Path::new("--json"), &dia]);
    let first: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(
        first["sparse_invalid"],
        "not a valid dia matrix: number of diagonals (1) does not match the number of offsets (5)"
    );

    let unknown = dir.path().join("xyz.npz");
    let mut w = npy_npz::NpzWriter::create(&unknown).unwrap();
    w.add("format", &[b"xyz".to_vec()], &[]).unwrap();
    w.add("shape", &[3i64, 3], &[2]).unwrap();
    w.finish().unwrap();
    let o = npy([Path::new("info"), &unknown]);
    assert!(
        stdout(&o)
            .lines()
            .next()
            .unwrap()
            .ends_with(": not a valid scipy.sparse matrix: unknown format \"xyz\""),
        "{}",
        stdout(&o)
    );
}
