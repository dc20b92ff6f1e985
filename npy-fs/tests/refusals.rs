//! What a refusal says, word for word as npy-core said it before the file plumbing had its own
//! crate (npy-core's `ErrorKind::NotRegularFile` messages at b93f6ea), and that it comes at once:
//! a FIFO is never waited on, whether it is an input or an output.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

const OUTPUT_DIR: &str = "the output is a directory, not a regular file: left as it is (only a \
                          regular file is replaced, by renaming a temporary file over it)";
const INPUT_FIFO: &str = "the input is a FIFO, not a regular file: refused (reading it needs a \
                          file that can be measured and read at any offset; copy it to a file \
                          first)";

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// Runs `f` on a thread and waits at most `secs`: a hang fails the test instead of stalling it.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("still blocked: the call waited on a FIFO")
}

#[test]
fn an_output_that_is_a_directory_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = npy_fs::PendingFile::create(dir.path()).unwrap_err();
    assert!(matches!(
        err.kind(),
        npy_fs::ErrorKind::NotRegularFile {
            role: "output",
            found: "a directory"
        }
    ));
    assert_eq!(err.path(), Some(dir.path()));
    assert_eq!(
        err.to_string(),
        format!("{}: {OUTPUT_DIR}", dir.path().display())
    );
    // `{:?}` is the message too, for `fn main() -> Result<(), npy_fs::Error>`.
    assert_eq!(format!("{err:?}"), err.to_string());
}

#[test]
fn fifos_are_refused_at_once_as_inputs_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let f = fifo.clone();
    let err = within(10, move || npy_fs::open_regular(&f).unwrap_err());
    assert!(matches!(
        err.kind(),
        npy_fs::ErrorKind::NotRegularFile {
            role: "input",
            found: "a FIFO"
        }
    ));
    assert_eq!(
        err.path(),
        None,
        "the opens leave the path to their callers"
    );
    assert_eq!(err.to_string(), INPUT_FIFO);
    // A stream open accepts it, without waiting for a writer: with none, it is empty.
    let f = fifo.clone();
    let mut stream = within(10, move || npy_fs::open_stream(&f).unwrap());
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut stream, &mut bytes).unwrap();
    assert!(bytes.is_empty());
    let f = fifo.clone();
    let err = within(10, move || npy_fs::PendingFile::create(&f).unwrap_err());
    assert!(matches!(
        err.kind(),
        npy_fs::ErrorKind::NotRegularFile {
            role: "output",
            found: "a FIFO"
        }
    ));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "left as it was"
    );
}

/// A review's find: an output in a missing directory was reported at the temporary file's
/// name (`… at path "/d/.npy-tmp-w28NVn"`), a name the caller never gave. The error names the
/// path asked for, with the system's reason.
#[test]
fn an_output_in_a_missing_directory_is_named_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("x.safetensors");
    let err = npy_fs::PendingFile::create(&path).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.path(), Some(path.as_path()), "{text}");
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(!text.contains(".npy-tmp-"), "{text}");
    assert!(text.contains("No such file or directory"), "{text}");
    // The system's error itself, with its code (ENOENT), not only its text.
    let npy_fs::ErrorKind::Io(io) = err.kind() else {
        panic!("not an I/O error: {text}");
    };
    assert_eq!(
        io.raw_os_error()
            .map(std::io::Error::from_raw_os_error)
            .map(|e| e.kind()),
        Some(std::io::ErrorKind::NotFound),
        "{text}"
    );
}
