//! `npy convert` end to end: numpy's little-endian C-order file becomes numpy's big-endian
//! Fortran-order file of the same values, byte for byte.

use std::path::Path;
use std::process::Command;

#[test]
fn convert_gives_numpys_bytes_for_the_target_layout() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let status = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(["convert", "--byte-order", "big", "--order", "F"])
        .arg(fixtures.join("c16_le_c_2x3x4.npy"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(fixtures.join("c16_be_f_2x3x4.npy")).unwrap()
    );
}

#[test]
fn convert_reports_errors_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("empty.npy");
    std::fs::write(&src, b"").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(["convert"])
        .arg(&src)
        .arg(dir.path().join("o.npy"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("empty"), "{err}");
}
