//! `.safetensors` in `npy convert`, `npy info` and `npy show` (issue 26). Expected bytes and
//! text come from safetensors 0.8.0 / numpy 2.4.6 / ml_dtypes 0.7.0 through the pinned
//! Python: `save_file`'s output, the header's JSON, `str()` of the arrays `load_file` gives.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{npy, stderr, stdout};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npy-cli-st-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn python(script: &str, dir: &Path) -> Option<String> {
    let python = npy_test_support::python::python_for("npy with .safetensors vs safetensors")?;
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8(o.stdout).unwrap())
}

const MAKE: &str = r#"
import sys, os, json, numpy as np, ml_dtypes as m
from safetensors.numpy import save_file
d = sys.argv[1]
arrs = {"w": np.arange(12, dtype=">f4").reshape(3, 4) / 4,
        "ids": np.asfortranarray(np.arange(6, dtype="<i8").reshape(2, 3)),
        "s": np.array(7, dtype="<u2"), "flags": np.array([True, False])}
np.savez_compressed(os.path.join(d, "in.npz"), **arrs, h=np.arange(3, dtype=np.float32).astype(m.bfloat16))
le = {k: v.astype(v.dtype.newbyteorder("<"), order="C") for k, v in arrs.items()}
le["h"] = np.arange(3, dtype=np.float32).astype(m.bfloat16)
save_file(le, os.path.join(d, "want.safetensors"))
del le["h"]
save_file(le, os.path.join(d, "plain.safetensors"))
raw = open(os.path.join(d, "plain.safetensors"), "rb").read()
n = int.from_bytes(raw[:8], "little")
head = json.loads(raw[8:8 + n])
order = sorted(head, key=lambda k: head[k]["data_offsets"][0])
info = [{"name": k, "dtype": head[k]["dtype"], "shape": head[k]["shape"],
         "nbytes": head[k]["data_offsets"][1] - head[k]["data_offsets"][0],
         "data_offset": 8 + n + head[k]["data_offsets"][0]} for k in order]
text = "\n\n".join(f"{k}:\n{le[k]}" for k in order)
print(json.dumps({"info": info, "text": text}))
"#;

#[test]
fn convert_info_show_against_safetensors() {
    let dir = scratch("cli");
    let Some(out) = python(MAKE, &dir) else {
        return;
    };
    let want: Value = serde_json::from_str(&out).unwrap();
    // npz -> safetensors, with the hint for the bfloat16 member: save_file's bytes.
    let st = dir.join("ours.safetensors");
    let o = npy([
        Path::new("convert"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &dir.join("in.npz"),
        &st,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read(&st).unwrap() == std::fs::read(dir.join("want.safetensors")).unwrap(),
        "npy convert differs from save_file"
    );
    // Without the hint the bfloat16 member is refused by name, and nothing is written.
    let refused = dir.join("refused.safetensors");
    let o = npy([Path::new("convert"), &dir.join("in.npz"), &refused]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("\"h\"") && stderr(&o).contains("hint"),
        "{}",
        stderr(&o)
    );
    assert!(!refused.exists());
    // info --json: the header's facts.
    let o = npy([
        Path::new("info"),
        Path::new("--json"),
        &dir.join("plain.safetensors"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let info = want["info"].as_array().unwrap();
    assert_eq!(lines.len(), info.len());
    for (got, w) in lines.iter().zip(info) {
        for k in ["name", "dtype", "shape", "nbytes", "data_offset"] {
            assert_eq!(got[k], w[k], "{k} of {}", w["name"]);
        }
    }
    // show: each tensor under its name, as numpy prints the arrays load_file gives.
    let o = npy([Path::new("show"), &dir.join("plain.safetensors")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim_end(), want["text"].as_str().unwrap());
    // And back to .npz: numpy loads what load_file gives.
    let back = dir.join("back.npz");
    let o = npy([Path::new("convert"), &dir.join("plain.safetensors"), &back]);
    assert!(o.status.success(), "{}", stderr(&o));
    let check = r#"
import sys, os, numpy as np
from safetensors.numpy import load_file
d = sys.argv[1]
want = load_file(os.path.join(d, "plain.safetensors"))
got = np.load(os.path.join(d, "back.npz"))
assert sorted(got.files) == sorted(want)
for k, v in want.items():
    assert got[k].dtype == v.dtype and np.array_equal(got[k], v), k
print("ok")
"#;
    assert_eq!(python(check, &dir).unwrap().trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_safetensors_is_an_error_not_a_crash() {
    let dir = scratch("hostile");
    let path = dir.join("bad.safetensors");
    let mut bytes = (1u64 << 40).to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{}");
    std::fs::write(&path, &bytes).unwrap();
    for cmd in ["info", "show"] {
        let o = npy([Path::new(cmd), &path]);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert!(
            stderr(&o).contains("header length"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    let o = npy([Path::new("convert"), &path, &dir.join("o.npz")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!dir.join("o.npz").exists());
    // --hint is for a safetensors output only.
    let o = npy([
        Path::new("convert"),
        Path::new("--hint"),
        Path::new("bfloat16"),
        &path,
        &dir.join("o.npy"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Parquet or Arrow table to safetensors and back: the table goes through numpy arrays
/// (npy-arrow's mapping: one column is one plain array), so a one-column table gives the
/// bytes `save_file` writes for that column's values (read by pyarrow), named by IN's stem;
/// a table of several columns is a record, which safetensors cannot hold: the error says so,
/// not "not an .npy file". And safetensors back to Parquet gives pyarrow the values.
#[cfg(feature = "parquet")]
#[test]
fn tables_go_to_safetensors_through_numpy_arrays() {
    let dir = scratch("tables");
    let script = r#"
import sys, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as pf
from safetensors.numpy import save_file, load_file
d = sys.argv[1]
x = np.arange(10, dtype="<f4") / 8
pq.write_table(pa.table({"x": x}), os.path.join(d, "one.parquet"))
pf.write_feather(pa.table({"x": x}), os.path.join(d, "one.arrow"), compression="uncompressed")
pq.write_table(pa.table({"x": x, "n": np.arange(10, dtype="<i8")}), os.path.join(d, "two.parquet"))
col = pq.read_table(os.path.join(d, "one.parquet")).column("x").to_numpy()
save_file({"one": col}, os.path.join(d, "want.safetensors"))
print("ok")
"#;
    if python(script, &dir).is_none() {
        return;
    }
    let want = std::fs::read(dir.join("want.safetensors")).unwrap();
    for src in ["one.parquet", "one.arrow"] {
        let out = dir.join(format!("{src}.safetensors"));
        let o = npy([Path::new("convert"), &dir.join(src), &out]);
        assert!(o.status.success(), "{src}: {}", stderr(&o));
        assert!(
            std::fs::read(&out).unwrap() == want,
            "{src}: differs from save_file"
        );
    }
    let out = dir.join("two.safetensors");
    let o = npy([Path::new("convert"), &dir.join("two.parquet"), &out]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("not an .npy file"), "{err}");
    assert!(
        err.contains("two.parquet") && err.contains("record"),
        "{err}"
    );
    assert!(!out.exists());
    // Back: safetensors -> Parquet, read by pyarrow.
    let back = dir.join("back.parquet");
    let o = npy([Path::new("convert"), &dir.join("want.safetensors"), &back]);
    assert!(o.status.success(), "{}", stderr(&o));
    let check = r#"
import sys, os, numpy as np, pyarrow.parquet as pq
d = sys.argv[1]
t = pq.read_table(os.path.join(d, "back.parquet"))
assert t.num_columns == 1 and np.array_equal(t.column(0).to_numpy(), np.arange(10, dtype="<f4") / 8), t
print("ok")
"#;
    assert_eq!(python(check, &dir).unwrap().trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parquet → safetensors → Parquet, each step with no file between (issue 40): pyarrow's
/// tables of several types (a `fixed_shape_tensor` column an N-d tensor, `binary(2)` bfloat16
/// through `--hint`) become the tensors `load_file` gives for the columns' numpy values, named
/// by the table's stem, and back the tables pyarrow reads are the first ones' columns under
/// that name. A file of several tensors converts one at a time with `--member`, and without
/// it is refused, leaving no output.
#[cfg(feature = "parquet")]
#[test]
fn parquet_to_safetensors_and_back_matches_pyarrow() {
    let dir = scratch("roundtrip");
    let make = r#"
import sys, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq
from safetensors.numpy import save_file
d = sys.argv[1]
rng = np.random.default_rng(40)
cols = {
    "f32": pa.array(rng.standard_normal(1000).astype("<f4")),
    "f64": pa.array(rng.standard_normal(300_000)),
    "i64": pa.array(rng.integers(-2**62, 2**62, 77)),
    "u8": pa.array(np.arange(256, dtype="u1")),
    "f16": pa.array(np.linspace(-2, 2, 9).astype("<f2")),
    "flags": pa.array(rng.integers(0, 2, 13).astype(bool)),
    "nd": pa.FixedShapeTensorArray.from_numpy_ndarray(rng.standard_normal((6, 2, 3)).astype("<f4")),
    "bf": pa.array([b"\x80\x3f", b"\x00\xc0", b"\x49\x40"], pa.binary(2)),
    "empty": pa.array(np.zeros(0, dtype="<i4")),
    # The tensor is named by the file's stem, dots and all (Path.stem).
    "v1.2": pa.array(np.arange(5, dtype="<i2")),
}
for k, v in cols.items():
    pq.write_table(pa.table({"col": v}), os.path.join(d, k + ".parquet"))
save_file({"a": np.arange(6, dtype="<f4").reshape(2, 3), "b": np.arange(4, dtype="<i8")},
          os.path.join(d, "two.safetensors"))
print(" ".join(cols))
"#;
    let Some(names) = python(make, &dir) else {
        return;
    };
    let names: Vec<String> = names.split_whitespace().map(str::to_owned).collect();
    for name in &names {
        let pq = dir.join(format!("{name}.parquet"));
        let st = dir.join(format!("{name}.safetensors"));
        let back = dir.join(format!("{name}.back.parquet"));
        let mut there = vec![Path::new("convert")];
        if name == "bf" {
            there.extend([Path::new("--hint"), Path::new("bfloat16")]);
        }
        there.extend([pq.as_path(), st.as_path()]);
        let o = npy(&there);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let o = npy([Path::new("convert"), &st, &back]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    let check = r#"
import sys, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq, ml_dtypes
from safetensors.numpy import load_file
d = sys.argv[1]
def values(col):
    col = col.combine_chunks()
    if isinstance(col.type, pa.FixedShapeTensorType):
        return col.to_numpy_ndarray()
    return col.to_numpy(zero_copy_only=False)
for name in sys.argv[2:]:
    src = pq.read_table(os.path.join(d, name + ".parquet")).column("col")
    want = values(src)
    tensors = load_file(os.path.join(d, name + ".safetensors"))
    assert list(tensors) == [name], (name, list(tensors))
    got = tensors[name]
    if name == "bf":
        want = np.frombuffer(b"".join(src.to_pylist()), dtype=ml_dtypes.bfloat16)
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.dtype, want.shape)
    assert got.tobytes() == want.tobytes(), name
    back = pq.read_table(os.path.join(d, name + ".back.parquet"))
    assert back.column_names == [name], (name, back.column_names)
    assert back.column(0).type == src.type, (name, back.column(0).type, src.type)
    assert back.column(0).combine_chunks().equals(src.combine_chunks()), name
b = pq.read_table(os.path.join(d, "two_b.parquet"))
assert b.column_names == ["b"] and b.column(0).to_numpy().tolist() == [0, 1, 2, 3], b
a = pq.read_table(os.path.join(d, "two_a.parquet"))
assert a.column(0).combine_chunks().to_numpy_ndarray().tolist() == np.arange(6).reshape(2, 3).tolist(), a
print("ok")
"#;
    // One tensor of several, picked by --member (its column named by the key as given).
    for key in ["a", "b"] {
        let out = dir.join(format!("two_{key}.parquet"));
        let o = npy([
            Path::new("convert"),
            Path::new("--member"),
            Path::new(key),
            &dir.join("two.safetensors"),
            &out,
        ]);
        assert!(o.status.success(), "{key}: {}", stderr(&o));
    }
    let o = npy([
        Path::new("convert"),
        &dir.join("two.safetensors"),
        &dir.join("two.parquet"),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("two.safetensors")
            && err.contains("2 tensors (b, a); choose one with --member KEY"),
        "{err}"
    );
    assert!(!dir.join("two.parquet").exists());
    let mut args: Vec<PathBuf> = vec![dir.clone()];
    args.extend(names.iter().map(PathBuf::from));
    let python = npy_test_support::python::python_for("parquet <-> safetensors").unwrap();
    let o = Command::new(python)
        .arg("-c")
        .arg(check)
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A review's finds in `npy convert`'s messages, each refused by the rule it breaks, not by
/// what a later step happened to trip on: .safetensors → .safetensors is no conversion (it
/// said "not an .npy file"); --hint with a table OUT (it spoke of an .npy OUT); --member where
/// no array is picked (silently ignored); a missing output directory (named by the temporary
/// file's name); several tensors without --member (it said "a member key", not the option).
#[cfg(feature = "parquet")]
#[test]
fn convert_refusals_name_the_rule_and_the_option() {
    let dir = scratch("refusals");
    let make = r#"
import sys, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq
from safetensors.numpy import save_file
d = sys.argv[1]
save_file({"w": np.arange(4, dtype="<f4")}, os.path.join(d, "one.safetensors"))
save_file({"a": np.arange(6, dtype="<f4"), "b": np.arange(4, dtype="<i8")},
          os.path.join(d, "two.safetensors"))
pq.write_table(pa.table({"x": np.arange(5, dtype="<f4")}), os.path.join(d, "t.parquet"))
pq.write_table(pa.table({"x": pa.array([b"\x80\x3f"], pa.binary(2))}), os.path.join(d, "b.parquet"))
storage = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(4, dtype="<f4")), 2,
                                           mask=pa.array([False, True]))
tensor = pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(pa.float32(), [2]), storage)
pq.write_table(pa.table({"x": tensor}), os.path.join(d, "rows.parquet"))
np.save(os.path.join(d, "t.npy"), np.arange(3))
np.savez(os.path.join(d, "t.npz"), a=np.arange(3))
np.savez(os.path.join(d, "t2.npz"), a=np.arange(3), b=np.arange(2))
print("ok")
"#;
    if python(make, &dir).is_none() {
        return;
    }
    let run = |args: &[&Path]| {
        let mut all = vec![Path::new("convert")];
        all.extend_from_slice(args);
        npy(&all)
    };
    let (one, two) = (dir.join("one.safetensors"), dir.join("two.safetensors"));
    let (table, npy_in, npz_in) = (dir.join("t.parquet"), dir.join("t.npy"), dir.join("t.npz"));
    // 1. safetensors → safetensors, to another file or to itself: a usage error naming what
    // a .safetensors IN converts to; nothing written, IN as it was.
    for out in [dir.join("x.safetensors"), one.clone()] {
        let o = run(&[&one, &out]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(!err.contains("not an .npy file"), "{err}");
        assert!(
            err.contains(".safetensors → .safetensors") && err.contains(".parquet"),
            "{err}"
        );
    }
    assert!(!dir.join("x.safetensors").exists());
    // 2. --hint with a table OUT: for a .safetensors OUT only, no word of an .npy OUT.
    let hint = [Path::new("--hint"), Path::new("bfloat16")];
    for out in ["t2.parquet", "t2.arrow"] {
        let out = dir.join(out);
        let o = run(&[hint[0], hint[1], &table, &out]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--hint applies to a .safetensors OUT only"),
            "{err}"
        );
        assert!(!err.contains(".npy OUT"), "{err}");
        assert!(!out.exists());
    }
    // With an .npy OUT the remark stays.
    let o = run(&[hint[0], hint[1], &npz_in, &dir.join("h.npy")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(".npy OUT keeps the descr"),
        "{}",
        stderr(&o)
    );
    // 3. --member where it picks nothing: an IN that is no .npz or .safetensors, an .npz to
    // .safetensors (every member converted), a .safetensors to .npz or .npy (every tensor).
    let member = [Path::new("--member"), Path::new("x")];
    let cases: [(&Path, &str, &str); 5] = [
        (
            &table,
            "m.safetensors",
            "applies to an .npz or .safetensors IN only",
        ),
        (
            &table,
            "m.arrow",
            "applies to an .npz or .safetensors IN only",
        ),
        (
            &npy_in,
            "m.parquet",
            "applies to an .npz or .safetensors IN only",
        ),
        (
            &npz_in,
            "m.safetensors",
            "does not apply to .npz → .safetensors",
        ),
        (
            &two,
            "m.npz",
            "does not apply to .safetensors → .npz or .npy",
        ),
    ];
    for (src, out, want) in cases {
        let out = dir.join(out);
        let o = run(&[member[0], member[1], src, &out]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", src.display());
        assert!(err.contains(&format!("--member {want}")), "{err}");
        assert!(!out.exists(), "{}", out.display());
    }
    // 4. An OUT in a missing directory: named as given, never the temporary file's name.
    let missing = dir.join("no-such-dir");
    for (src, out) in [
        (&table, "x.safetensors"),
        (&npy_in, "x.parquet"),
        (&npy_in, "x.npy"),
        (&npz_in, "x.npz"),
        (&npy_in, "x.safetensors"),
        (&one, "x.npz"),
    ] {
        let out = missing.join(out);
        let o = run(&[src, &out]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(&out.display().to_string()), "{err}");
        assert!(!err.contains(".npy-tmp-"), "{err}");
    }
    // 5. Several tensors, no --member, to a table: the option and the tensors in data order
    // (save_file puts the larger dtype, b's int64, first).
    let o = run(&[&two, &dir.join("two.parquet")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("two.safetensors"), "{err}");
    assert!(
        err.contains("--member KEY") && !err.contains("a member key"),
        "{err}"
    );
    assert!(err.contains("2 tensors (b, a)"), "{err}");
    // The same for an archive of several arrays (np.savez's order), to a table or an .npy.
    for out in ["t2.parquet", "t2.npy"] {
        let o = run(&[&dir.join("t2.npz"), &dir.join(out)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("t2.npz: the archive holds 2 arrays (a, b); choose one with --member KEY"),
            "{err}"
        );
    }
    // 6. A hint whose size is not the column's (float8_e4m3fn is 1 byte, binary(2) 2): said
    // so, not that a hint is missing.
    let out = dir.join("b.safetensors");
    let o = run(&[
        Path::new("--hint"),
        Path::new("float8_e4m3fn"),
        &dir.join("b.parquet"),
        &out,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("'|V2'") && err.contains("another size than the hint's type"),
        "{err}"
    );
    assert!(!err.contains("--hint TYPE"), "{err}");
    assert!(!out.exists());
    // 7. A null row of a fixed_shape_tensor column, with --fill or without: no fill gives a
    // list row a value, so the message does not ask for one.
    for fill in [Some("0"), None] {
        let out = dir.join("rows.npy");
        let mut args = vec![];
        if let Some(f) = fill {
            args.extend([Path::new("--fill"), Path::new(f)]);
        }
        let input = dir.join("rows.parquet");
        args.extend([input.as_path(), out.as_path()]);
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("first at row 1") && err.contains("list row cannot be filled"),
            "{err}"
        );
        assert!(!err.contains("give a fill"), "{err}");
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
