//! `npy show` on inputs a review found: many dimensions crashed it by recursion; an empty
//! array with a huge first dimension was refused where numpy prints `[]`.

use std::process::Command;

fn npy_file(shape: &str) -> tempfile::NamedTempFile {
    let text = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    let version: &[u8] = if text.len() + 11 > 65535 {
        b"\x02\x00"
    } else {
        b"\x01\x00"
    };
    let prefix = if version[0] == 1 { 10 } else { 12 };
    // Pad so the data starts at a multiple of 64, as numpy does.
    let total = prefix + text.len() + 1;
    let hlen = text.len() + 1 + (64 - total % 64) % 64;
    let mut bytes = b"\x93NUMPY".to_vec();
    bytes.extend_from_slice(version);
    if version[0] == 1 {
        bytes.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        bytes.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    bytes.extend_from_slice(text.as_bytes());
    bytes.resize(prefix + hlen - 1, b' ');
    bytes.push(b'\n');
    bytes.extend_from_slice(&[0u8; 8]);
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    f
}

#[test]
fn thirty_thousand_dimensions_are_an_error_not_a_crash() {
    let f = npy_file(&format!("({})", "1, ".repeat(30_000)));
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .arg("show")
        .arg(f.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 dimensions"));
}

#[test]
fn an_empty_array_prints_as_numpy_prints_it() {
    // numpy 2.4.6: print(np.zeros((10**10, 0))) prints "[]".
    let f = npy_file("(10000000000, 0)");
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .arg("show")
        .arg(f.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[]\n");
}
