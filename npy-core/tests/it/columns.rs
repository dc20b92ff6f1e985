//! The columns of `read_dyn` against the numpy-written fixtures: typed columns view numbers in
//! place in the machine's order, with the values numpy lists; the elements built from the
//! columns are the trees; hostile sizes fail before allocating. (Every fixture's elements
//! against numpy's `tolist()` are checked in `dynamic.rs`.)

use std::fs;

use npy_test_support::{fixtures_dir, manifest};

#[test]
fn numbers_are_typed_columns_in_the_machines_order() {
    // A big-endian file: the column holds machine-order i16 (the values numpy lists, which
    // every_fixture_with_data_reads_as_numpy_lists_it checks read_dyn against).
    let path = fixtures_dir().join("i2_be_c_2x3x4.npy");
    let cols = npy_core::read_dyn(&path).unwrap();
    let entry = manifest()
        .into_iter()
        .find(|e| e["file"] == "i2_be_c_2x3x4.npy")
        .expect("the fixture's manifest entry");
    fn flat(j: &serde_json::Value, out: &mut Vec<i16>) {
        match j {
            serde_json::Value::Array(items) => items.iter().for_each(|i| flat(i, out)),
            n => out.push(n.as_i64().expect("an integer") as i16),
        }
    }
    let mut want = Vec::new();
    flat(&entry["data"], &mut want);
    assert_eq!(want.len(), 24);
    assert_eq!(cols.columns()[0].values::<i16>().ok(), Some(&want[..]));
    // Another type is refused, naming the column's dtype and the type asked for.
    let e = cols.columns()[0].values::<u16>().unwrap_err();
    assert!(
        matches!(e.kind(), npy_core::ErrorKind::TypeMismatch { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("u16"), "{e}");
    // A record: one column per leaf field, nested fields by their path.
    let a = npy_core::read_dyn(fixtures_dir().join("rec_nested.npy")).unwrap();
    assert!(a.columns().len() > 1);
    // Each element's tree holds, field by field, the value of that field's column.
    for (i, v) in a.iter().enumerate() {
        for col in a.columns() {
            let mut node = Some(&*v);
            for name in col.path() {
                node = node.and_then(|n| n.field(name));
            }
            // Debug text: the fixture holds NaN, which `==` never matches.
            assert_eq!(
                format!("{:?}", node.cloned()),
                format!("{:?}", col.value(i))
            );
        }
    }
    assert_eq!(a.element(a.len()), None);
}

#[test]
fn a_short_file_fails_before_the_columns_are_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let src = fs::read(fixtures_dir().join("rec_nested.npy")).unwrap();
    let path = dir.path().join("short.npy");
    fs::write(&path, &src[..src.len() - 1]).unwrap();
    let err = npy_core::read_dyn(&path).unwrap_err();
    assert!(
        matches!(err.kind(), npy_core::ErrorKind::Truncated { .. }),
        "{err}"
    );
    assert_eq!(err.path(), Some(path.as_path()));
    // A header claiming 2^40 records of a 12-byte file.
    let mut bytes = npy_core::Header::new(
        "[('a', '<i8'), ('b', '<U4')]".parse().unwrap(),
        vec![1 << 40],
    )
    .to_bytes(None)
    .unwrap();
    bytes.extend_from_slice(&[0; 12]);
    fs::write(&path, bytes).unwrap();
    assert!(matches!(
        npy_core::read_dyn(&path).unwrap_err().kind(),
        npy_core::ErrorKind::Truncated { .. }
    ));
}
