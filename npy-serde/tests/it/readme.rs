//! npy-serde/README.md's example, compiled and run, and each of its lines held to this file.

#[test]
fn readme_example_runs() -> Result<(), npy_serde::Error> {
    #[derive(serde::Serialize, serde::Deserialize)]
    #[rustfmt::skip]
    struct Meta { descr: String, fortran_order: bool, shape: (u64, u64) }

    #[rustfmt::skip]
    let m: Meta = npy_serde::from_str("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }")?;
    #[rustfmt::skip]
    assert_eq!(npy_serde::to_string(&m)?, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}");
    Ok(())
}

#[test]
fn readme_lines_are_all_here() {
    use npy_test_support::readme::{holds, rust_lines};
    let readme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let source = include_str!("readme.rs");
    let missing: Vec<String> = rust_lines(&readme)
        .into_iter()
        .filter(|l| !holds(source, l))
        .collect();
    assert!(
        missing.is_empty(),
        "README lines not run here: {missing:#?}"
    );
}
