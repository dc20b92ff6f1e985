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

/// A sparse `.npy` of `bytes` data bytes (a hole): above the progress bar's 256 MiB threshold.
fn large_input(path: &Path, bytes: u64) {
    let header = npy_core::Header::new("<f4".parse().unwrap(), vec![bytes / 4]);
    let head = header.to_bytes(None).unwrap();
    std::fs::write(path, &head).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(head.len() as u64 + bytes)
        .unwrap();
}

/// The progress bar never reaches a pipe: a conversion above the bar's threshold leaves
/// stderr empty when stderr is not a terminal.
#[test]
fn no_progress_bar_on_a_piped_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.npy");
    large_input(&src, 260 << 20);
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(["convert", "--byte-order", "big"])
        .arg(&src)
        .arg(dir.path().join("o.npy"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

/// On a terminal (a pseudo-terminal from util-linux's `script`), the same conversion draws a
/// bar, labelled and counting up to the total, and clears it. Skipped where `script` is not
/// installed.
#[test]
fn progress_bar_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to give npy a terminal");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.npy");
    large_input(&src, 260 << 20);
    let command = format!(
        "'{}' convert --order C --byte-order big '{}' '{}'",
        env!("CARGO_BIN_EXE_npy"),
        src.display(),
        dir.path().join("o.npy").display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(tty.contains("converting"), "{tty:?}");
    assert!(tty.contains("260.00 MiB"), "{tty:?}");
    // Cleared at the end: the last thing drawn erases the line.
    assert!(tty.trim_end().ends_with("\u{1b}[2K"), "{tty:?}");
}
