//! The workspace README's `.npz` row (the npy-core column of its side-by-side table), compiled
//! and run here: npy-core's README test skips the row, whose calls are this crate's.

use std::path::Path;

use npy_npz::{NpzArchive, NpzWriter};

/// The README's row, line by line.
fn npz_row(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let v = vec![1.0f32, 2.0, 3.0];
    // read / write an `.npz`
    let file = dir.join("a.npz");
    let p = file.as_path();
    let n = v.len() as u64;
    let mut out = NpzWriter::create(p)?;
    out.add("x", &v, &[n])?;
    out.finish()?;
    assert_eq!(NpzArchive::open(p)?.read::<f32>("x")?.data(), v);
    Ok(())
}

#[test]
fn readme_npz_row_compiles_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    npz_row(dir.path()).unwrap();
}

#[test]
fn readme_npz_lines_are_all_here() {
    use npy_test_support::readme::{holds, table_spans};
    let source = include_str!("readme.rs");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| read / write an `.npz`"))
        .expect("the README's table has its .npz row");
    let spans: Vec<String> = table_spans(&root.join("README.md"), "npy-core", 1)
        .into_iter()
        .filter(|c| row.contains(&format!("`{c}`")))
        .collect();
    assert!(!spans.is_empty(), "the README's table lost its .npz row");
    for code in spans {
        assert!(holds(source, &code), "README.md: `{code}` is not run here");
    }
}
