//! `npy show --hint TYPE` on ml_dtypes files (issue 26): the text numpy with ml_dtypes prints.
//!
//! Expected text: `str(arr)` from `fixtures/mltypes/manifest.json` (numpy 2.4.6 + ml_dtypes
//! 0.7.0 wrote the files and printed them), and a differential check that runs the project's
//! pinned Python on arrays of random codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{npy, stderr, stdout, ROOT};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(ROOT).join("fixtures/mltypes")
}

fn show_hint(kind: &str, path: &Path) -> String {
    let o = npy([
        Path::new("show"),
        Path::new("--hint"),
        Path::new(kind),
        path,
    ]);
    assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
    let s = stdout(&o);
    s.strip_suffix('\n').unwrap_or(&s).to_owned()
}

#[test]
fn every_fixture_prints_as_numpy_with_ml_dtypes() {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    let mut failures = Vec::new();
    let files = m["files"].as_array().unwrap();
    for e in files {
        let file = e["file"].as_str().unwrap();
        let got = show_hint(e["kind"].as_str().unwrap(), &dir().join(file));
        if got != e["str"].as_str().unwrap() {
            failures.push(format!("{file}:\n{got}\nnumpy:\n{}", e["str"]));
        }
    }
    assert!(files.len() >= 49);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_hint_is_a_usage_error() {
    let o = npy([
        Path::new("show"),
        Path::new("--hint"),
        Path::new("float9"),
        &dir().join("small_bfloat16.npy"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bfloat16"), "{}", stderr(&o));
}

/// Arrays of random codes of every kind and several shapes (summarised ones too), saved and
/// printed by numpy with ml_dtypes; `npy show --hint` must print the same.
#[test]
fn random_arrays_print_as_numpy_with_ml_dtypes() {
    let Some(python) =
        npy_test_support::python::python_for("npy show --hint against numpy + ml_dtypes")
    else {
        return;
    };
    let out = std::env::temp_dir().join(format!("npy-show-ml-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let script = r#"
import sys, os, json, numpy as np, ml_dtypes
out = sys.argv[1]
rng = np.random.default_rng(26)
rows = []
kinds = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn",
         "float6_e3m2fn", "float4_e2m1fn", "int4", "uint4", "int2", "uint2"]
for i, kind in enumerate(kinds):
    t = getattr(ml_dtypes, kind)
    for j, shape in enumerate([(7,), (3, 5), (40, 30), (2, 1, 4)]):
        n = int(np.prod(shape))
        if kind == "bfloat16":
            codes = rng.integers(0, 65536, n).astype("<u2")
        else:
            bits = {"float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4, "int4": 4,
                    "uint4": 4, "int2": 2, "uint2": 2}.get(kind, 8)
            codes = rng.integers(0, 1 << bits, n).astype("u1")
        a = codes.view(t).reshape(shape)
        name = f"{kind}_{j}.npy"
        np.save(os.path.join(out, name), a)
        rows.append({"file": name, "kind": kind, "str": str(a)})
json.dump(rows, sys.stdout)
"#;
    let o = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut failures = Vec::new();
    let rows = rows.as_array().unwrap();
    for r in rows {
        let file = r["file"].as_str().unwrap();
        let got = show_hint(r["kind"].as_str().unwrap(), &out.join(file));
        if got != r["str"].as_str().unwrap() {
            failures.push(format!(
                "{file}:\n{got}\nnumpy:\n{}",
                r["str"].as_str().unwrap()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(rows.len(), 64);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn run(args: &[&Path]) -> std::process::Output {
    npy(args.iter().copied())
}

/// A hint the file's descr does not fit (a `|V1` file for bfloat16, a float32 file, a
/// bfloat16 file for a one-byte kind) is an error naming the file's dtype and the hint, for
/// `show` and `info`, never ignored; nothing is printed on stdout. The fixtures are numpy's.
#[test]
fn a_hint_that_does_not_fit_is_an_error_naming_both() {
    let f32_file = Path::new(ROOT).join("fixtures/w_f32.npy");
    let cases = [
        ("bfloat16", dir().join("small_float8_e4m3fn.npy"), "'|V1'"),
        ("bfloat16", f32_file.clone(), "'<f4' (float32)"),
        ("float8_e4m3fn", dir().join("small_bfloat16.npy"), "'|V2'"),
        (
            "float8_e4m3fn",
            dir().join("small_float8_e5m2.npy"),
            "'<f1'",
        ),
    ];
    for (hint, file, dtype) in &cases {
        for cmd in ["show", "info"] {
            let o = run(&[Path::new(cmd), Path::new("--hint"), Path::new(hint), file]);
            let err = stderr(&o);
            assert_eq!(
                o.status.code(),
                Some(1),
                "{cmd} {hint} {}: {err}",
                file.display()
            );
            assert!(
                err.contains(&format!("--hint {hint} does not fit")) && err.contains(dtype),
                "{cmd} {hint} {}: {err}",
                file.display()
            );
            assert!(stdout(&o).is_empty(), "{cmd}: {}", stdout(&o));
        }
    }
}

/// `npy info --hint TYPE` describes the data as that type: the descr as numpy wrote it and the
/// ml_dtypes name (text and `--json`'s `canonical`); a `'<f1'` file is named `float8_e5m2`
/// without a hint.
#[test]
fn info_with_a_hint_names_the_ml_dtypes_type() {
    let file = dir().join("small_bfloat16.npy");
    let o = run(&[
        Path::new("info"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &file,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let dtype_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("dtype"))
        .unwrap();
    assert_eq!(
        dtype_line.split_whitespace().collect::<Vec<_>>(),
        ["dtype", "<V2", "bfloat16"]
    );
    let o = run(&[
        Path::new("info"),
        Path::new("--json"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &file,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (j["descr"].as_str(), j["canonical"].as_str()),
        (Some("<V2"), Some("bfloat16"))
    );
    // Without the hint: numpy's reading, '|V2', no type.
    let o = run(&[Path::new("info"), Path::new("--json"), &file]);
    let j: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (j["descr"].as_str(), j["canonical"].as_str()),
        (Some("|V2"), None)
    );
    let o = run(&[
        Path::new("info"),
        Path::new("--json"),
        &dir().join("small_float8_e5m2.npy"),
    ]);
    let j: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["canonical"].as_str(), Some("float8_e5m2"));
}

/// Big-endian bfloat16 (`'>V2'`, as ml_dtypes writes `newbyteorder('>')`) with the hint is
/// refused by `show`, `info` and `convert` to safetensors, naming the descr; a big-endian
/// one-byte kind (`'>V1'`) shows as numpy with ml_dtypes prints it.
#[test]
fn big_endian_bfloat16_is_refused_and_one_byte_kinds_show() {
    let text = std::fs::read_to_string(dir().join("variants.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    for e in m["files"].as_array().unwrap() {
        let file = e["file"].as_str().unwrap();
        let Some(kind) = e["kind"].as_str() else {
            continue;
        };
        let path = dir().join(file);
        if kind == "bfloat16" {
            let out = tempfile::tempdir().unwrap();
            let st = out.path().join("x.safetensors");
            for args in [
                vec![
                    Path::new("show"),
                    Path::new("--hint"),
                    Path::new(kind),
                    &path,
                ],
                vec![
                    Path::new("info"),
                    Path::new("--hint"),
                    Path::new(kind),
                    &path,
                ],
                vec![
                    Path::new("convert"),
                    Path::new("--hint"),
                    Path::new(kind),
                    &path,
                    &st,
                ],
            ] {
                let o = run(&args);
                let err = stderr(&o);
                assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
                assert!(
                    err.contains("'>V2'") && err.contains("big-endian"),
                    "{args:?}: {err}"
                );
            }
            assert!(!st.exists());
        } else {
            assert_eq!(show_hint(kind, &path), e["str"].as_str().unwrap(), "{file}");
        }
    }
}

/// A whole archive with `--hint`: the members the hint fits read as the hinted type and the
/// others show and describe as they are, as `npy convert --hint` treats them (a checkpoint
/// holds bfloat16 weights beside float32 and int64 arrays). The archive and the expected text
/// are numpy's (with ml_dtypes), `str()` of each member.
#[test]
fn a_hint_over_an_archive_reads_the_members_it_fits() {
    let Some(python) = npy_test_support::python::python_for("npy show --hint of a mixed .npz")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ckpt.npz");
    let script = r#"
import sys, json, numpy as np, ml_dtypes as md
w = np.arange(4, dtype=np.float32).astype(md.bfloat16)
b = np.ones(3, np.float32)
step = np.array(100, np.int64)
np.savez(sys.argv[1], w=w, b=b, step=step)
print(json.dumps({"w": str(w), "b": str(b), "step": str(step)}))
"#;
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want: Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = run(&[
        Path::new("show"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = format!(
        "w:\n{}\n\nb:\n{}\n\nstep:\n{}\n",
        want["w"].as_str().unwrap(),
        want["b"].as_str().unwrap(),
        want["step"].as_str().unwrap()
    );
    assert_eq!(stdout(&o), expected);
    let o = run(&[
        Path::new("info"),
        Path::new("--json"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let canon: Vec<Option<String>> = stdout(&o)
        .lines()
        .map(|l| {
            let j: Value = serde_json::from_str(l).unwrap();
            j["canonical"].as_str().map(str::to_owned)
        })
        .collect();
    assert_eq!(
        canon,
        [
            Some("bfloat16".to_owned()),
            Some("float32".to_owned()),
            Some("int64".to_owned())
        ]
    );
}
