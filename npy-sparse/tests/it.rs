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
            let err = m.to_dense(3).unwrap_err();
            assert_eq!(err.classify(), npy_core::error::Category::Limit);
            // What `fn main() -> Result<(), npy_sparse::Error>` and `unwrap` print.
            assert_eq!(format!("{err:?}"), err.to_string());
            assert!(err.to_string().contains('3'), "{err}");
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

/// Issue 42, F15 (case r15): `detect` described archives `scipy.sparse.load_npz` refuses
/// (a DIA matrix of 5 offsets and 1 diagonal, a CSR matrix of shape 2^40 whose `indptr` has
/// 4 entries, ...) and passed over others silently (an unknown format). Each archive here is
/// given to scipy through the pinned Python: what it loads, `detect` describes with its shape
/// and `nnz`; what it refuses, `detect` refuses as [`Error::NotValid`], in scipy's words where
/// the check is the same.
#[test]
fn detect_refuses_what_load_npz_refuses() {
    let Some(python) = npy_test_support::python::python_for("npy-sparse detect vs load_npz") else {
        return;
    };
    type Add = fn(&mut npy_npz::NpzPathWriter);
    fn fmt(w: &mut npy_npz::NpzPathWriter, f: &str) {
        w.add("format", &[f.as_bytes().to_vec()], &[]).unwrap();
    }
    fn csr(w: &mut npy_npz::NpzPathWriter, f: &str, shape: [i64; 2]) {
        fmt(w, f);
        w.add("shape", &shape, &[2]).unwrap();
        w.add("indices", &[0i32, 2], &[2]).unwrap();
        w.add("indptr", &[0i32, 1, 1, 2], &[4]).unwrap();
    }
    let cases: Vec<(&str, Add)> = vec![
        ("csr_valid", |w| {
            csr(w, "csr", [3, 3]);
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_shape_2p40", |w| {
            csr(w, "csr", [1 << 40, 1 << 40]);
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csc_indptr", |w| {
            csr(w, "csc", [3, 5]);
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_lengths", |w| {
            csr(w, "csr", [3, 3]);
            w.add("data", &[1.0f64, 2.0, 3.0], &[3]).unwrap();
        }),
        ("csr_2d_data", |w| {
            csr(w, "csr", [3, 3]);
            w.add("data", &[1.0f64, 2.0], &[2, 1]).unwrap();
        }),
        ("csr_negative_shape", |w| {
            csr(w, "csr", [-3, 3]);
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_three_dims", |w| {
            fmt(w, "csr");
            w.add("shape", &[3i64, 3, 1], &[3]).unwrap();
            w.add("indices", &[0i32, 2], &[2]).unwrap();
            w.add("indptr", &[0i32, 1, 1, 2], &[4]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_float_shape", |w| {
            fmt(w, "csr");
            w.add("shape", &[3.0f64, 3.0], &[2]).unwrap();
            w.add("indices", &[0i32, 2], &[2]).unwrap();
            w.add("indptr", &[0i32, 1, 1, 2], &[4]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_u64_shape", |w| {
            fmt(w, "csr");
            w.add("shape", &[3u64, 3], &[2]).unwrap();
            w.add("indices", &[0i32, 2], &[2]).unwrap();
            w.add("indptr", &[0i32, 1, 1, 2], &[4]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_i1_shape", |w| {
            fmt(w, "csr");
            w.add("shape", &[3i8, 3], &[2]).unwrap();
            w.add("indices", &[0i32, 2], &[2]).unwrap();
            w.add("indptr", &[0i32, 1, 1, 2], &[4]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("csr_no_indptr", |w| {
            fmt(w, "csr");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("indices", &[0i32, 2], &[2]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("unknown_format", |w| {
            csr(w, "xyz", [3, 3]);
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("bsr_blocks_do_not_divide", |w| {
            csr(w, "bsr", [3, 3]);
            w.add("data", &[0.0f64; 8], &[2, 2, 2]).unwrap();
        }),
        ("bsr_2d_data", |w| {
            csr(w, "bsr", [3, 3]);
            w.add("data", &[0.0f64; 4], &[2, 2]).unwrap();
        }),
        ("bsr_valid_not_dividing", |w| {
            fmt(w, "bsr");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("indices", &[0i32], &[1]).unwrap();
            w.add("indptr", &[0i32, 1], &[2]).unwrap();
            w.add("data", &[1.0f64; 4], &[1, 2, 2]).unwrap();
        }),
        ("bsr_lengths", |w| {
            csr(w, "bsr", [6, 6]);
            w.add("data", &[0.0f64; 12], &[3, 2, 2]).unwrap();
        }),
        ("coo_valid", |w| {
            fmt(w, "coo");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("row", &[0i32, 2], &[2]).unwrap();
            w.add("col", &[0i32, 1], &[2]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("coo_lengths", |w| {
            fmt(w, "coo");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("row", &[0i32, 2], &[2]).unwrap();
            w.add("col", &[0i32, 1, 2], &[3]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("coo_2d_row", |w| {
            fmt(w, "coo");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("row", &[0i32, 2], &[1, 2]).unwrap();
            w.add("col", &[0i32, 1], &[2]).unwrap();
            w.add("data", &[1.0f64, 2.0], &[2]).unwrap();
        }),
        ("dia_count_mismatch", |w| {
            fmt(w, "dia");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("data", &[0.0f64; 3], &[1, 3]).unwrap();
            w.add("offsets", &[0i64, 1, 2, -1, -2], &[5]).unwrap();
        }),
        ("dia_duplicates", |w| {
            fmt(w, "dia");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("data", &[0.0f64; 6], &[2, 3]).unwrap();
            w.add("offsets", &[1i64, 1], &[2]).unwrap();
        }),
        ("dia_1d_data", |w| {
            fmt(w, "dia");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("data", &[1.0f64; 3], &[3]).unwrap();
            w.add("offsets", &[1i64], &[]).unwrap();
        }),
        ("dia_3d_data", |w| {
            fmt(w, "dia");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("data", &[0.0f64; 3], &[1, 1, 3]).unwrap();
            w.add("offsets", &[1i64], &[1]).unwrap();
        }),
        ("dia_2d_offsets", |w| {
            fmt(w, "dia");
            w.add("shape", &[3i64, 3], &[2]).unwrap();
            w.add("data", &[0.0f64; 3], &[1, 3]).unwrap();
            w.add("offsets", &[1i64], &[1, 1]).unwrap();
        }),
    ];
    // Refusals whose reason is scipy's own message, word for word.
    let same_words = [
        "csr_shape_2p40",
        "csc_indptr",
        "csr_lengths",
        "csr_2d_data",
        "csr_negative_shape",
        "bsr_blocks_do_not_divide",
        "bsr_2d_data",
        "bsr_lengths",
        "coo_lengths",
        "coo_2d_row",
        "dia_count_mismatch",
        "dia_duplicates",
        "dia_3d_data",
        "dia_2d_offsets",
    ];
    let out = scratch("refused");
    let mut paths = Vec::new();
    for (name, add) in &cases {
        let path = out.join(format!("{name}.npz"));
        let mut w = npy_npz::NpzWriter::create(&path).unwrap();
        add(&mut w);
        w.finish().unwrap();
        paths.push(path);
    }
    let script = r#"
import sys, scipy.sparse as sp
for f in sys.argv[1:]:
    try:
        m = sp.load_npz(f)
        print("ok", m.shape[0], m.shape[1], m.nnz)
    except Exception as e:
        print("refused", str(e).replace("\n", " "))
"#;
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(&paths)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    for (((name, _), path), scipy) in cases.iter().zip(&paths).zip(text.lines()) {
        let ours = detect(path);
        match scipy.split_once(' ').unwrap() {
            ("ok", facts) => {
                let info = ours.unwrap_or_else(|e| panic!("{name}: {e}")).unwrap();
                let want: Vec<u64> = facts.split(' ').map(|n| n.parse().unwrap()).collect();
                assert_eq!([info.shape[0], info.shape[1], info.nnz], want[..], "{name}");
            }
            (_, message) => match ours {
                Err(Error::NotValid {
                    reason, path: p, ..
                }) => {
                    assert_eq!(&p, path);
                    if same_words.contains(name) {
                        assert_eq!(reason, message, "{name}");
                    }
                }
                other => panic!("{name}: scipy refuses it ({message}), detect: {other:?}"),
            },
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// Issue 42, F8 (case r08): `detect` read the whole `shape` member (and a DIA matrix's whole
/// `offsets`) as `i64`, whatever its header claimed: a 522 KB archive whose `shape` is 512 Mi
/// deflated `int8` zeros took 5.8 GB. The headers are checked first, so such a member is
/// refused from its header without a byte of its data read: the members here hold their
/// headers only, which any read of their data would report as truncated. A DIA matrix of more
/// offsets than a summary reads is [`Error::Budget`], its offsets unread.
#[test]
fn detect_reads_no_member_a_summary_does_not_need() {
    let out = scratch("unread");
    for which in ["shape", "offsets"] {
        let path = out.join(format!("{which}.npz"));
        let big = 1u64 << 29;
        let header = |n: u64| {
            npy_core::Header::new("|i1".parse().unwrap(), vec![n])
                .to_bytes(None)
                .unwrap()
        };
        let mut w = npy_npz::NpzWriter::create(&path).unwrap();
        w.add(
            "format",
            &[if which == "shape" {
                b"csr".to_vec()
            } else {
                b"dia".to_vec()
            }],
            &[],
        )
        .unwrap();
        if which == "shape" {
            w.add_raw("shape.npy", &header(big)).unwrap();
            w.add("indices", &[0i32], &[1]).unwrap();
            w.add("indptr", &[0i32, 1, 1, 1, 1], &[5]).unwrap();
        } else {
            w.add("shape", &[4i64, 4], &[2]).unwrap();
            w.add_raw("offsets.npy", &header(big)).unwrap();
        }
        w.add("data", &[0.0f64; 4], &[1, 4]).unwrap();
        w.finish().unwrap();
        match detect(&path) {
            Err(Error::NotValid { reason, .. }) => {
                if which == "shape" {
                    assert_eq!(reason, "shape must have length in (2,), it has 536870912");
                } else {
                    assert_eq!(
                        reason,
                        "number of diagonals (1) does not match the number of offsets (536870912)"
                    );
                }
            }
            other => panic!("{which}: {other:?}"),
        }
    }
    let path = out.join("many.npz");
    let n = npy_sparse::MAX_DETECT_ELEMENTS + 1;
    let mut w = npy_npz::NpzWriter::create(&path).unwrap();
    w.add("format", &[b"dia".to_vec()], &[]).unwrap();
    w.add("shape", &[4i64, 4], &[2]).unwrap();
    for (name, dims) in [("data.npy", vec![n, 1]), ("offsets.npy", vec![n])] {
        let h = npy_core::Header::new("<i8".parse().unwrap(), dims);
        w.add_raw(name, &h.to_bytes(None).unwrap()).unwrap();
    }
    w.finish().unwrap();
    match detect(&path) {
        Err(Error::Budget {
            member: "offsets",
            elements,
            ..
        }) => assert_eq!(elements, n),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The error's accessors (issue 40): the archive's path, and the member a broken one
/// concerns. The archives are numpy's (`np.savez` through the pinned Python), laid out as
/// `scipy.sparse.save_npz` lays out a CSR matrix: one has an `indptr` that decreases, which
/// the format forbids (scipy: "index pointer values must form a non-decreasing sequence"),
/// the other no `format` member (not a sparse archive: no member is at fault).
#[test]
fn errors_name_the_archive_and_the_member() {
    let Some(python) = npy_test_support::python::python_for("npy-sparse error accessors") else {
        return;
    };
    let out = scratch("accessors");
    let (bad, plain) = (out.join("bad_indptr.npz"), out.join("plain.npz"));
    npy_test_support::python::run_script(
        &python,
        "import sys, numpy as np\n\
         np.savez(sys.argv[1], format=b'csr', shape=np.array([2, 2]), \
         data=np.array([1.0, 2.0]), indices=np.array([0, 1], dtype=np.int32), \
         indptr=np.array([0, 2, 1], dtype=np.int32))\n\
         np.savez(sys.argv[2], data=np.array([1.0, 2.0]))",
        [&bad, &plain],
    );
    let err = read::<f64>(&bad).unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }), "{err}");
    assert_eq!(err.path(), Some(bad.as_path()));
    assert_eq!(err.member(), Some("indptr"));

    let err = read::<f64>(&plain).unwrap_err();
    assert!(matches!(err, Error::NotSparse { .. }), "{err}");
    assert_eq!(err.path(), Some(plain.as_path()));
    assert_eq!(err.member(), None);
}
