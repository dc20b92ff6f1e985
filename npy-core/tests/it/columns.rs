//! `read_columns` against the numpy-written fixtures: the elements rebuilt from the columns are
//! what numpy's `tolist()` gives (the manifest's data), for every fixture with data; typed
//! columns view numbers in place in the machine's order; hostile sizes fail before allocating.

use std::fs;

use npy_core::{DynArray, DynValue};
use npy_test_support::dyn_json::{array_json, same};
use npy_test_support::{fixtures_dir, manifest};

#[test]
fn every_fixture_rebuilt_from_columns_is_numpys_tolist() {
    let (mut checked, mut failures) = (0, Vec::new());
    for entry in manifest() {
        let Some(want) = entry.get("data") else {
            continue;
        };
        let file = entry["file"].as_str().expect("file name");
        let path = fixtures_dir().join(file);
        let cols = match npy_core::read_columns(&path) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let values: Vec<DynValue> = cols.iter().collect();
        let a = DynArray::new(cols.header().clone(), values).expect("one value per element");
        if let Err(e) = same(&array_json(&a), want, file) {
            failures.push(e);
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 200, "only {checked} fixtures had data");
}

#[test]
fn numbers_are_typed_columns_in_the_machines_order() {
    // A big-endian file: the column holds machine-order i16 (the values numpy lists, which
    // every_fixture_with_data_reads_as_numpy_lists_it checks read_dyn against).
    let path = fixtures_dir().join("i2_be_c_2x3x4.npy");
    let cols = npy_core::read_columns(&path).unwrap();
    let want: Vec<i16> = npy_core::read_dyn(&path)
        .unwrap()
        .values()
        .iter()
        .map(|v| match v {
            DynValue::Int(i) => *i as i16,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(cols.columns()[0].values::<i16>(), Some(&want[..]));
    assert_eq!(
        cols.columns()[0].values::<u16>(),
        None,
        "another type is refused"
    );
    // A record: one column per leaf field, nested fields by their path.
    let cols = npy_core::read_columns(fixtures_dir().join("rec_nested.npy")).unwrap();
    let dyn_ = npy_core::read_dyn(fixtures_dir().join("rec_nested.npy")).unwrap();
    assert!(cols.columns().len() > 1);
    for (i, v) in dyn_.values().iter().enumerate() {
        // Debug text: the fixture holds NaN, which `==` never matches.
        assert_eq!(format!("{:?}", cols.element(i)), format!("{:?}", Some(v)));
    }
    assert_eq!(cols.element(dyn_.values().len()), None);
}

#[test]
fn a_short_file_fails_before_the_columns_are_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let src = fs::read(fixtures_dir().join("rec_nested.npy")).unwrap();
    let path = dir.path().join("short.npy");
    fs::write(&path, &src[..src.len() - 1]).unwrap();
    let err = npy_core::read_columns(&path).unwrap_err();
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
        npy_core::read_columns(&path).unwrap_err().kind(),
        npy_core::ErrorKind::Truncated { .. }
    ));
}
