//! Progress bars: drawn on stderr when it is a terminal (a pseudo-terminal from util-linux's
//! `script`) for work above 256 MiB, cleared at the end, and never written to a pipe.

use std::path::Path;
use std::process::Command;

/// A sparse `.npy` of `bytes` data bytes (a hole): above the progress bar's 256 MiB threshold.
fn large_input(path: &Path, bytes: u64) {
    sparse(path, "<f4", vec![bytes / 4], bytes);
}

/// A sparse `.npy` (a hole of `bytes` zero bytes after a real header of `descr` and `shape`).
fn sparse(path: &Path, descr: &str, shape: Vec<u64>, bytes: u64) {
    let header = npy_core::Header::new(descr.parse().unwrap(), shape);
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

/// What a terminal shows of `npy ARGS` run under `script` (stdout and stderr both the
/// pseudo-terminal unless `ARGS` redirects), or `None` where `script` is not installed.
fn on_a_terminal(args: &str) -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to give npy a terminal");
        return None;
    }
    let command = format!("'{}' {args}", env!("CARGO_BIN_EXE_npy"));
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A bar labelled `label`, counting up to `total`, cleared at the end (the last thing drawn
/// erases the line).
fn assert_bar(tty: &str, label: &str, total: &str) {
    assert!(tty.contains(label), "{tty:?}");
    assert!(tty.contains(total), "{tty:?}");
    assert!(tty.trim_end().ends_with("\u{1b}[2K"), "{tty:?}");
}

/// On a terminal, the same conversion draws a bar up to the total and clears it.
#[test]
fn progress_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.npy");
    large_input(&src, 260 << 20);
    let args = format!(
        "convert --order C --byte-order big '{}' '{}'",
        src.display(),
        dir.path().join("o.npy").display()
    );
    if let Some(tty) = on_a_terminal(&args) {
        assert_bar(&tty, "converting", "260.00 MiB");
    }
}

/// `npy ARGS PATHS...` exits successfully leaving a piped stderr (and stdout) empty, and on a
/// terminal draws a bar labelled `label` up to 260 MiB and clears it.
fn bar_on_a_terminal_only(args: &[&str], paths: &[&Path], label: &str) {
    let piped = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert!(
        piped.stderr.is_empty() && piped.stdout.is_empty(),
        "{piped:?}"
    );
    let quoted: Vec<String> = paths.iter().map(|p| format!("'{}'", p.display())).collect();
    let line = format!("{} {}", args.join(" "), quoted.join(" "));
    if let Some(tty) = on_a_terminal(&line) {
        assert_bar(&tty, label, "260.00 MiB");
    }
}

/// `npy cat` of two 130 MiB files (260 MiB of data) draws a bar on a terminal, none in a pipe.
#[test]
fn cat_shows_progress_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("half.npy");
    large_input(&src, 130 << 20);
    let out = dir.path().join("o.npy");
    bar_on_a_terminal_only(&["cat"], &[&out, &src, &src], "concatenating");
}

/// `npy append` of two 130 MiB files (260 MiB of data) draws a bar on a terminal, none in a
/// pipe.
#[test]
fn append_shows_progress_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("half.npy");
    large_input(&src, 130 << 20);
    let file = dir.path().join("grow.npy");
    sparse(&file, "<f4", vec![1], 4);
    bar_on_a_terminal_only(&["append", "--no-sync"], &[&file, &src, &src], "appending");
}

/// `npy show --json` into a file draws a bar on the terminal's stderr; with stdout on the
/// terminal too it draws none (the bar would cut through the values). The file is 260
/// elements of `|S1048576`, all NUL bytes: 260 MiB to read, 260 empty strings to print.
#[test]
fn show_json_to_a_file_shows_progress_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.npy");
    sparse(&src, "|S1048576", vec![260], 260 << 20);
    let args = format!("show --json '{}' > /dev/null", src.display());
    if let Some(tty) = on_a_terminal(&args) {
        assert_bar(&tty, "reading", "260.00 MiB");
    }
    let args = format!("show --json '{}'", src.display());
    if let Some(tty) = on_a_terminal(&args) {
        assert!(!tty.contains("reading"), "{tty:?}");
        assert!(
            tty.contains(r#""shape":[260]"#) || tty.contains("260"),
            "{tty:?}"
        );
    }
}
