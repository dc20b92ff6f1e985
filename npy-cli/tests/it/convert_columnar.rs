//! `npy convert` to and from Arrow IPC, Parquet and `.npz`, by extension: numpy's fixtures go
//! through Parquet and Arrow and come back as numpy's bytes; an `.npz` member is picked with
//! `--member`; errors name the file and exit 1.

use std::ffi::OsStr;
use std::path::Path;

use crate::common::{npy, stderr};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name)
}

#[test]
fn fixtures_round_trip_through_parquet_and_arrow_to_numpys_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Native-order C-order numbers and times come back byte for byte (the format's rule for
    // these types: the dtype and shape are kept, NaT survives as null).
    for name in [
        "f8_le_c_2x3x4.npy",
        "i2_le_c_5.npy",
        "M8ns_le_c_5.npy",
        "b1_na_c_2x3x4.npy",
    ] {
        for ext in ["parquet", "arrow"] {
            let mid = dir.path().join(format!("mid.{ext}"));
            let back = dir.path().join("back.npy");
            let o = npy([
                OsStr::new("convert"),
                fixture(name).as_os_str(),
                mid.as_os_str(),
            ]);
            assert!(o.status.success(), "{name} → {ext}: {}", stderr(&o));
            let o = npy([OsStr::new("convert"), mid.as_os_str(), back.as_os_str()]);
            assert!(o.status.success(), "{ext} → npy: {}", stderr(&o));
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(fixture(name)).unwrap(),
                "{name} through {ext}"
            );
        }
    }
}

#[test]
fn an_npz_member_is_chosen_with_member() {
    let dir = tempfile::tempdir().unwrap();
    let npz = dir.path().join("two.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("a", &[1i32, 2], &[2]).unwrap();
    w.add("b", &[3i64], &[1]).unwrap();
    w.finish().unwrap();
    let out = dir.path().join("b.npy");
    let o = npy([OsStr::new("convert"), npz.as_os_str(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("two.npz") && err.contains("a, b"), "{err}");
    let o = npy([
        OsStr::new("convert"),
        OsStr::new("--member"),
        OsStr::new("b"),
        npz.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(npy_core::read::<i64>(&out).unwrap().into_vec(), [3]);
}

#[test]
fn layout_flags_are_refused_for_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let o = npy([
        OsStr::new("convert"),
        OsStr::new("--order"),
        OsStr::new("F"),
        fixture("f8_le_c_2x3x4.npy").as_os_str(),
        dir.path().join("x.parquet").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(".npy → .npy only"));
}
