//! `read_dyn` then `write_dyn` reproduces numpy's file byte for byte, for every fixture numpy
//! wrote: every dtype (records, subarrays, strings, void, longdouble, datetimes with
//! multipliers), both byte orders, both memory orders, 0-d and empty shapes, format 2.0 and 3.0.

use npy_core::{DynArray, DynValue, ErrorKind, Header};
use std::path::Path;

#[test]
fn every_fixture_round_trips_to_numpys_bytes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let out = tempfile::tempdir().unwrap();
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("npy") {
            continue;
        }
        let array = npy_core::read_dyn(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let target = out.path().join(path.file_name().unwrap());
        npy_core::write_dyn(&target, &array).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            std::fs::read(&target).unwrap(),
            std::fs::read(&path).unwrap(),
            "{} differs from numpy's bytes",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 200, "expected the fixture set, found {n} files");
}

#[test]
fn values_that_do_not_fit_are_errors() {
    use npy_core::{DType, DynArray, DynValue, ErrorKind, Header};
    let cases: Vec<(&str, DynValue)> = vec![
        ("|i1", DynValue::Int(128)),
        ("<u2", DynValue::Int(-1)),
        ("<u2", DynValue::UInt(65536)),
        ("|S2", DynValue::Bytes(b"abc".to_vec())),
        ("|V2", DynValue::Void(vec![1])),
        ("<f4", DynValue::Bool(true)),
        (
            "[('a', '<i4')]",
            DynValue::Record(vec![("b".into(), DynValue::Int(1))]),
        ),
    ];
    for (descr, value) in cases {
        // Refused when the array is built: its columns hold the dtype's bytes.
        let header = Header::new(descr.parse::<DType>().unwrap(), vec![1]);
        let err = DynArray::new(header, vec![value]).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ValueMismatch { .. }),
            "{descr}: {err}"
        );
    }
    // An array whose values do not fill its shape cannot be built, so it cannot be written.
    let header = Header::new("<i4".parse().unwrap(), vec![2]);
    let err = DynArray::new(header, vec![DynValue::Int(1)]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LengthMismatch { .. }),
        "{err}"
    );
}

// Regressions: faults found by fuzzing and review, each with its failing input.

/// `write_dyn` turned 1e300 into inf in a `<f4` array while refusing out-of-range ints (the
/// values are encoded, and refused, when the array is built).
#[test]
fn write_dyn_refuses_float_overflow() {
    for (descr, value) in [
        ("<f4", DynValue::Float(1e300)),
        ("<f2", DynValue::Float(1e6)),
        ("<c8", DynValue::Complex(0.0, -1e300)),
    ] {
        let err =
            DynArray::new(Header::new(descr.parse().unwrap(), vec![1]), vec![value]).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ValueMismatch { .. }),
            "{descr}: {err}"
        );
    }
    // Infinities and NaN themselves are values, not overflow.
    let a = DynArray::new(
        Header::new("<f4".parse().unwrap(), vec![2]),
        vec![DynValue::Float(f64::INFINITY), DynValue::Float(f64::NAN)],
    )
    .unwrap();
    npy_core::dynamic::write_dyn_to(Vec::new(), &a).unwrap();
}
