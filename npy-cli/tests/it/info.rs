//! `npy info` run as a program, on the numpy-written fixtures (expected values from
//! `fixtures/manifest.json` and the format card), on real files from other projects (expected
//! values from their README), and on broken files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{fixture, manifest, npy, stderr, stdout};
use serde_json::Value;

/// The `--json` fields, in their documented order.
const JSON_FIELDS: [&str; 14] = [
    "name",
    "path",
    "file_size",
    "version",
    "header_len",
    "data_offset",
    "descr",
    "canonical",
    "shape",
    "fortran_order",
    "itemsize",
    "nbytes",
    "byte_order",
    "header",
];

fn manifest_entry(file: &str) -> Value {
    manifest()
        .into_iter()
        .find(|f| f["file"] == file)
        .unwrap_or_else(|| panic!("{file} not in manifest.json"))
}

fn json_lines(o: &Output) -> Vec<serde_json::Map<String, Value>> {
    stdout(o)
        .lines()
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(m)) => m,
            other => panic!("not a JSON object: {l}: {other:?}"),
        })
        .collect()
}

/// The format card's example, line for line (file size 1,152; `<f4 float32 | 4 × 64 | 1,024`).
const W_F32_TEXT: &str = "\
w_f32
  dtype        <f4 float32
  shape        4 × 64
  data bytes   1,024
  file size    1,152
  version      1.0
  data offset  128
  order        C
  byte order   little
  header       {'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }
";

#[test]
fn w_f32_summary_as_the_format_card_gives_it() {
    let o = npy(["info", "fixtures/w_f32.npy"]);
    assert_eq!(stdout(&o), W_F32_TEXT);
    assert_eq!(stderr(&o), "");
    assert!(o.status.success());
}

#[test]
fn w_f32_json() {
    let o = npy(["info", "--json", "fixtures/w_f32.npy"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1);
    let j = &lines[0];
    let keys: Vec<&str> = j.keys().map(String::as_str).collect();
    let mut want = JSON_FIELDS.to_vec();
    want.sort_unstable();
    let mut got = keys.clone();
    got.sort_unstable();
    assert_eq!(got, want, "exactly the documented fields");
    assert_eq!(j["name"], "w_f32");
    assert_eq!(j["path"], "fixtures/w_f32.npy");
    assert_eq!(j["file_size"], 1152);
    assert_eq!(j["version"], "1.0");
    assert_eq!(j["header_len"], 118);
    assert_eq!(j["data_offset"], 128);
    assert_eq!(j["descr"], "<f4");
    assert_eq!(j["canonical"], "float32");
    assert_eq!(j["shape"], serde_json::json!([4, 64]));
    assert_eq!(j["fortran_order"], false);
    assert_eq!(j["itemsize"], 4);
    assert_eq!(j["nbytes"], 1024);
    assert_eq!(j["byte_order"], "little");
    let header = j["header"].as_str().expect("header string");
    assert!(header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }"));
    assert!(header.ends_with(" \n"));
    assert_eq!(header.len(), 118);
}

#[test]
fn json_matches_the_manifest_for_every_fixture() {
    let entries = manifest();
    assert!(
        entries.len() > 200,
        "manifest has {} entries",
        entries.len()
    );
    let paths: Vec<String> = entries
        .iter()
        .map(|e| format!("fixtures/{}", e["file"].as_str().expect("file")))
        .collect();
    let o = npy(["info".to_owned(), "--json".to_owned()]
        .into_iter()
        .chain(paths.clone()));
    assert_eq!(stderr(&o), "");
    assert!(o.status.success());
    let lines = json_lines(&o);
    assert_eq!(lines.len(), entries.len());
    for ((e, j), path) in entries.iter().zip(&lines).zip(&paths) {
        let file = e["file"].as_str().expect("file");
        let ctx = |field: &str| format!("{file}: {field}");
        assert_eq!(j["name"], file.trim_end_matches(".npy"), "{}", ctx("name"));
        assert_eq!(j["path"], path.as_str(), "{}", ctx("path"));
        for same in [
            "file_size",
            "header_len",
            "data_offset",
            "canonical",
            "shape",
            "fortran_order",
            "itemsize",
            "nbytes",
            "byte_order",
            "header",
        ] {
            assert_eq!(j[same], e[same], "{}", ctx(same));
        }
        let v = e["version"].as_array().expect("version");
        assert_eq!(
            j["version"],
            format!("{}.{}", v[0], v[1]),
            "{}",
            ctx("version")
        );
        // The manifest's descr is the Python repr: quoted for a simple dtype, a list for a record.
        let repr = e["descr"].as_str().expect("descr");
        let descr = repr
            .strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .unwrap_or(repr);
        assert_eq!(j["descr"], descr, "{}", ctx("descr"));
    }
}

#[test]
fn scalar_empty_dims_and_no_canonical_name() {
    let o = npy([
        "info",
        "fixtures/b1_na_c_scalar.npy",
        "fixtures/f4_le_c_3x0.npy",
        "fixtures/M8ns_be_f_2x3x4.npy",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 3, "{out}");
    assert!(blocks[0].contains("\n  dtype        |b1 bool\n"), "{out}");
    assert!(blocks[0].contains("\n  shape        ()\n"), "{out}");
    assert!(blocks[0].contains("\n  byte order   n/a\n"), "{out}");
    assert!(blocks[1].contains("\n  shape        3 × 0\n"), "{out}");
    assert!(blocks[1].contains("\n  data bytes   0\n"), "{out}");
    assert!(blocks[2].contains("\n  dtype        >M8[ns]\n"), "{out}");
    assert!(blocks[2].contains("\n  order        F\n"), "{out}");
    assert!(blocks[2].contains("\n  byte order   big\n"), "{out}");
}

#[test]
fn record_fields_one_line_each() {
    for file in [
        "rec_packed.npy",
        "rec_aligned.npy",
        "rec_offsets.npy",
        "rec_be.npy",
    ] {
        let e = manifest_entry(file);
        let o = npy(["info".to_owned(), format!("fixtures/{file}")]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            format!("  dtype        {}", e["descr"].as_str().expect("descr")),
            "{file}"
        );
        let fields = e["fields"].as_array().expect("fields");
        for (k, f) in fields.iter().enumerate() {
            let line = lines[2 + k];
            assert!(line.starts_with("    "), "{file}: {line:?}");
            let words: Vec<&str> = line.split_whitespace().collect();
            let descr = f["descr"].as_str().expect("descr").trim_matches('\'');
            let offset = f["offset"].to_string();
            assert_eq!(
                words,
                [f["name"].as_str().expect("name"), descr, "offset", &offset],
                "{file}"
            );
        }
        assert!(lines[2 + fields.len()].starts_with("  shape "), "{file}");
    }
}

/// What `fixtures/external/README.txt` lists for each top-level `.npy` file.
#[derive(Debug)]
struct Listed {
    file_size: u64,
    version: String,
    header_len: u64,
    data_offset: u64,
    data_bytes: u64,
    header: String,
}

/// Parses the README's per-file details: `== dir/` sections, then
/// `name.npy  N bytes  sha256=...` followed by `vX.Y hlen=N data_off=N data_bytes=N header="..."`.
fn external_readme(dir: &Path) -> BTreeMap<PathBuf, Listed> {
    let text = std::fs::read_to_string(dir.join("README.txt")).expect("read README.txt");
    let mut out = BTreeMap::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(s) = line.strip_prefix("== ") {
            s.trim().clone_into(&mut section);
            continue;
        }
        let Some((name, rest)) = line.split_once("  ") else {
            continue;
        };
        if !name.ends_with(".npy") || name.starts_with(' ') {
            continue;
        }
        let file_size = rest
            .trim_start()
            .split_once(" bytes")
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("size in {line:?}"));
        let details = lines.next().expect("details line").trim();
        let (facts, header) = details.split_once(" header=\"").expect("header=");
        let header = header.strip_suffix('"').expect("closing quote").to_owned();
        let mut words = facts.split_whitespace();
        let version = words
            .next()
            .expect("version")
            .trim_start_matches('v')
            .to_owned();
        let mut num = |key: &str| -> u64 {
            let w = words.next().expect(key);
            w.strip_prefix(key)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{key} in {details:?}"))
        };
        let header_len = num("hlen=");
        let data_offset = num("data_off=");
        let data_bytes = num("data_bytes=");
        out.insert(
            dir.join(&section).join(name),
            Listed {
                file_size,
                version,
                header_len,
                data_offset,
                data_bytes,
                header,
            },
        );
    }
    out
}

fn npy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            npy_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "npy") {
            out.push(p);
        }
    }
}

#[test]
fn external_files_match_their_readme() {
    let dir = npy_test_support::external_dir();
    let listed = external_readme(&dir);
    let mut files = Vec::new();
    npy_files(&dir, &mut files);
    assert!(files.len() >= 20, "found {} .npy files", files.len());
    let o = npy(["info", "--json"]
        .iter()
        .map(AsRef::as_ref)
        .chain(files.iter().map(|p| p.as_os_str())));
    assert_eq!(stderr(&o), "");
    assert!(o.status.success());
    let lines = json_lines(&o);
    assert_eq!(lines.len(), files.len());
    for (path, j) in files.iter().zip(&lines) {
        let l = listed
            .get(path)
            .unwrap_or_else(|| panic!("{} is not in README.txt", path.display()));
        let ctx = path.display();
        assert_eq!(j["file_size"], l.file_size, "{ctx}");
        assert_eq!(j["version"], l.version.as_str(), "{ctx}");
        assert_eq!(j["header_len"], l.header_len, "{ctx}");
        assert_eq!(j["data_offset"], l.data_offset, "{ctx}");
        let header = j["header"].as_str().expect("header");
        assert_eq!(header.trim_end_matches([' ', '\n']), l.header, "{ctx}");
        // Object arrays hold a pickle, whose length the header does not give.
        if !j["descr"].as_str().expect("descr").starts_with("|O") {
            assert_eq!(j["nbytes"], l.data_bytes, "{ctx}");
        }
    }
    let text = npy(["info".as_ref(), files[0].as_os_str()]);
    assert!(text.status.success());
}

/// numpy's own archive: `npy info` lists its one member with the facts README.txt records
/// (`member x.npy (stored, 325->325 bytes): v1.0 hlen=118 data_off=128 data_bytes=197`).
#[test]
fn external_npz_lists_its_member() {
    let npz = npy_test_support::external_dir().join("numpy/py3-objarr.npz");
    let o = npy(["info".as_ref(), "--json".as_ref(), npz.as_os_str()]);
    assert_eq!(stderr(&o), "");
    assert!(o.status.success());
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1);
    let m = &lines[0];
    assert_eq!(m["member"], "x");
    assert_eq!(m["descr"], "|O");
    assert_eq!(m["shape"], serde_json::json!([4]));
    assert_eq!(m["header_len"], 118);
    assert_eq!(m["data_offset"], 128);
    assert_eq!(m["compressed_size"], 325);
}

#[test]
fn empty_file_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.npy");
    std::fs::write(&empty, b"").expect("write");
    let o = npy(["info".as_ref(), empty.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        format!(
            "npy: {}: not an .npy file: the file is empty\n",
            empty.display()
        )
    );
}

#[test]
fn truncated_file_warns_and_fails() {
    let bytes = std::fs::read(fixture("w_f32.npy")).expect("read w_f32.npy");
    let dir = tempfile::tempdir().expect("tempdir");
    let short = dir.path().join("w_f32.npy");
    std::fs::write(&short, &bytes[..1100]).expect("write");

    let o = npy(["info".as_ref(), short.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let want = W_F32_TEXT.replace("1,152", "1,100")
        + "  warning      file holds 972 data bytes, header promises 1,024\n";
    assert_eq!(stdout(&o), want);
    assert_eq!(stderr(&o), "");

    let o = npy(["info".as_ref(), "--json".as_ref(), short.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["file_size"], 1100);
    assert_eq!(lines[0]["nbytes"], 1024);
    assert_eq!(
        stderr(&o),
        format!(
            "npy: {}: warning: file holds 972 data bytes, header promises 1,024\n",
            short.display()
        )
    );

    // Cut inside the header: an error, not a summary.
    std::fs::write(&short, &bytes[..60]).expect("write");
    let o = npy(["info".as_ref(), short.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("file ends inside the header: 118 bytes needed, 50 present"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn several_files_blank_line_between_errors_continue() {
    let o = npy([
        "info",
        "fixtures/w_f32.npy",
        "fixtures/no-such-file.npy",
        "fixtures/README.md",
        "fixtures/w_f32.npy",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("{W_F32_TEXT}\n{W_F32_TEXT}"));
    let err = stderr(&o);
    let err: Vec<&str> = err.lines().collect();
    assert_eq!(err.len(), 2, "{err:?}");
    assert!(err[0].starts_with("npy: fixtures/no-such-file.npy: I/O error: "));
    assert!(err[1].starts_with("npy: fixtures/README.md: not an .npy file: it starts with "));
}

#[test]
fn usage_errors() {
    let o = npy(["info"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("<FILE>"));
    let o = npy(["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn json_fields_are_documented() {
    let o = npy(["info", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    let main_rs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/main.rs"))
        .expect("read main.rs");
    let crate_docs: String = main_rs
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    for field in JSON_FIELDS {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{field} "))),
            "`npy info --help` does not document {field}"
        );
        // One list of the fields: the crate docs point to it rather than repeat it.
        assert!(
            !crate_docs.contains(&format!("| `{field}` |")),
            "the crate docs repeat the field table ({field})"
        );
    }
    assert!(crate_docs.contains("`npy info --help`"));
}
