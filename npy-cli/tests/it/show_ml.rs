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
