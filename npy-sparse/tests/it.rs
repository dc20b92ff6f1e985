//! npy-sparse against scipy 1.17.1: the archives `save_npz` wrote (`fixtures/sparse/`, with
//! `load_npz(f).toarray()` in the manifest), and what we write loaded by `load_npz` through the
//! pinned Python.

use std::path::{Path, PathBuf};
use std::process::Command;

use npy_sparse::{detect, read, write, Error, SparseMatrix, Storage};
use num_complex::Complex;
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sparse")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["files"].as_array().unwrap().clone()
}

fn is_complex(e: &Value) -> bool {
    e["data_descr"].as_str().unwrap().contains('c')
}

#[test]
fn detect_describes_every_fixture_as_scipy() {
    let files = manifest();
    assert!(files.len() >= 30);
    for e in &files {
        let file = e["file"].as_str().unwrap();
        let info = detect(dir().join(file))
            .unwrap()
            .unwrap_or_else(|| panic!("{file}"));
        assert_eq!(info.format.name(), e["format"].as_str().unwrap(), "{file}");
        assert_eq!(info.is_array, e["is_array"].as_bool().unwrap(), "{file}");
        let shape: Vec<u64> = e["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(info.shape.to_vec(), shape, "{file}");
        assert_eq!(info.stored, e["stored"].as_u64().unwrap(), "{file}");
        assert_eq!(info.nnz, e["nnz"].as_u64().unwrap(), "{file}: scipy's nnz");
        assert_eq!(
            info.data_dtype.to_string(),
            e["data_descr"].as_str().unwrap(),
            "{file}"
        );
        assert_eq!(
            info.index_dtype.to_string(),
            e["index_descr"].as_str().unwrap(),
            "{file}"
        );
        let bs = info.blocksize.map(|b| b.to_vec());
        let want: Option<Vec<u64>> = e["blocksize"]
            .as_array()
            .map(|a| a.iter().map(|d| d.as_u64().unwrap()).collect());
        assert_eq!(bs, want, "{file}");
    }
    // A plain archive is not sparse.
    let plain = dir().join("../npz/savez.npz");
    assert_eq!(detect(plain).unwrap(), None);
}

#[test]
fn to_dense_is_scipys_toarray() {
    for e in manifest() {
        let file = e["file"].as_str().unwrap();
        let want: Vec<Value> = e["dense"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap().clone())
            .collect();
        if is_complex(&e) {
            let m: SparseMatrix<Complex<f64>> = read(dir().join(file)).unwrap();
            let d = m.to_dense(1000).unwrap();
            let w: Vec<Complex<f64>> = want
                .iter()
                .map(|v| Complex::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap()))
                .collect();
            assert_eq!(d, w, "{file}");
        } else {
            // f4 and i4 data read as f64: numpy's safe casts, exact for these values.
            let m: SparseMatrix<f64> =
                read(dir().join(file)).unwrap_or_else(|err| panic!("{file}: {err}"));
            let d = m.to_dense(1000).unwrap();
            let w: Vec<f64> = want.iter().map(|v| v.as_f64().unwrap()).collect();
            assert_eq!(d, w, "{file}");
            assert!(
                matches!(m.to_dense(3), Err(Error::TooLarge { limit: 3, .. })),
                "{file}"
            );
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("npy-sparse-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every fixture read and written back (stored and compressed): scipy loads ours to a matrix
/// of the same class, format, shape and dtype, equal to the original.
#[test]
fn written_archives_load_in_scipy_to_equal_matrices() {
    let Some(python) =
        npy_test_support::python::python_for("npy-sparse writes vs scipy.sparse.load_npz")
    else {
        return;
    };
    let out = scratch("write");
    let mut pairs = Vec::new();
    for e in manifest() {
        let file = e["file"].as_str().unwrap();
        let ours = out.join(file);
        let compressed = e["compressed"].as_bool().unwrap();
        let descr = e["data_descr"].as_str().unwrap();
        match descr {
            "<c16" => write(
                &ours,
                &read::<Complex<f64>>(dir().join(file)).unwrap(),
                compressed,
            ),
            "<f4" => write(&ours, &read::<f32>(dir().join(file)).unwrap(), compressed),
            "<i4" => write(&ours, &read::<i32>(dir().join(file)).unwrap(), compressed),
            _ => write(&ours, &read::<f64>(dir().join(file)).unwrap(), compressed),
        }
        .unwrap();
        pairs.push(format!("{}|{}", dir().join(file).display(), ours.display()));
    }
    let script = r#"
import sys, scipy.sparse as sp
n = 0
for pair in sys.argv[1:]:
    a, b = pair.split("|")
    x, y = sp.load_npz(a), sp.load_npz(b)
    assert type(x) is type(y), (a, type(x), type(y))
    assert x.format == y.format and x.shape == y.shape and x.dtype == y.dtype, a
    assert (x != y).nnz == 0, a
    n += 1
print(n)
"#;
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(&pairs)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        pairs.len().to_string()
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// Broken arrays are typed errors naming the member (archives written here with the rule
/// under test broken; the rules are scipy's `check_format`).
#[test]
fn broken_archives_name_the_member() {
    let out = scratch("broken");
    let cases: [(&str, Vec<i64>, Vec<i64>, &str); 4] = [
        ("decreasing", vec![0, 2, 1, 2], vec![0, 1], "indptr"),
        ("past_end", vec![0, 1, 1, 3], vec![0, 1], "indptr"),
        ("column", vec![0, 1, 1, 2], vec![0, 9], "indices"),
        ("short", vec![0, 1], vec![0], "indptr"),
    ];
    for (name, indptr, indices, member) in cases {
        let path = out.join(format!("{name}.npz"));
        let mut w = npy_npz::NpzWriter::create(&path).unwrap();
        w.add("indices", &indices, &[indices.len() as u64]).unwrap();
        w.add("indptr", &indptr, &[indptr.len() as u64]).unwrap();
        w.add("format", &[b"csr".to_vec()], &[]).unwrap();
        w.add("shape", &[3i64, 3], &[2]).unwrap();
        let data = vec![1.0f64; indices.len()];
        w.add("data", &data, &[data.len() as u64]).unwrap();
        w.finish().unwrap();
        match read::<f64>(&path) {
            Err(Error::Invalid {
                member: m, path: p, ..
            }) => {
                assert_eq!(m, member, "{name}");
                assert_eq!(p, path);
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let m = SparseMatrix {
        shape: [2, 2],
        is_array: true,
        storage: Storage::Coo {
            row: vec![0],
            col: vec![],
            data: vec![1.0f64],
        },
    };
    assert!(matches!(
        write(out.join("bad.npz"), &m, false),
        Err(Error::BadMatrix(_))
    ));
    let _ = std::fs::remove_dir_all(&out);
}

/// A matrix that breaks the rules `read` checks (scipy's `check_format`, which `load_npz`
/// does not run: products over such a file read outside its arrays) is refused by `write`,
/// naming the member, and no file is left; repeated DIA offsets, which scipy's `dia_array`
/// refuses, are refused both ways.
#[test]
fn matrices_that_break_the_format_are_not_written() {
    let out = scratch("unwritten");
    let csr = |indptr: Vec<i64>, indices: Vec<i64>| SparseMatrix {
        shape: [2, 2],
        is_array: false,
        storage: Storage::Csr {
            data: vec![1.0f64; indices.len()],
            indptr,
            indices,
        },
    };
    let cases = [
        ("column", csr(vec![0, 1, 2], vec![0, 5]), "indices"),
        ("decreasing", csr(vec![0, 2, 1], vec![0, 1]), "indptr"),
        (
            "blocksize",
            SparseMatrix {
                shape: [3, 4],
                is_array: false,
                storage: Storage::Bsr {
                    blocksize: [2, 2],
                    indptr: vec![0, 1],
                    indices: vec![0],
                    data: vec![1.0f64; 4],
                },
            },
            "data",
        ),
        (
            "coo_row",
            SparseMatrix {
                shape: [2, 2],
                is_array: true,
                storage: Storage::Coo {
                    row: vec![2],
                    col: vec![0],
                    data: vec![1.0f64],
                },
            },
            "row",
        ),
        (
            "dia_twice",
            SparseMatrix {
                shape: [2, 2],
                is_array: false,
                storage: Storage::Dia {
                    offsets: vec![0, 0],
                    width: 2,
                    data: vec![1.0f64; 4],
                },
            },
            "offsets",
        ),
    ];
    for (name, m, member) in cases {
        let path = out.join(format!("{name}.npz"));
        match write(&path, &m, false) {
            Err(Error::Invalid { member: got, .. }) => assert_eq!(got, member, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        assert!(!path.exists(), "{name}: a file was left");
    }
    // The same repeated offsets in an archive written member by member: refused on reading.
    let path = out.join("dia_read.npz");
    let mut w = npy_npz::NpzWriter::create(&path).unwrap();
    w.add("offsets", &[0i32, 0], &[2]).unwrap();
    w.add("format", &[b"dia".to_vec()], &[]).unwrap();
    w.add("shape", &[2i64, 2], &[2]).unwrap();
    w.add("data", &[1.0f64; 4], &[2, 2]).unwrap();
    w.finish().unwrap();
    assert!(matches!(
        read::<f64>(&path),
        Err(Error::Invalid {
            member: "offsets",
            ..
        })
    ));
    let _ = std::fs::remove_dir_all(&out);
}
