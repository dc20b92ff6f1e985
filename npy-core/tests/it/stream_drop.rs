//! A `PathStreamWriter` dropped without `finish` writes nothing, and debug builds say so on
//! stderr (the one silent way to lose a stream's rows). The test runs itself as a child
//! process to capture that stderr.

use std::process::Command;

use npy_core::WriteOptions;

const CHILD: &str = "NPY_CORE_STREAM_DROP_CHILD";

#[test]
fn an_unfinished_path_stream_writes_nothing_and_warns_in_debug_builds() {
    if let Some(dir) = std::env::var_os(CHILD) {
        let dir = std::path::PathBuf::from(dir);
        // Dropped unfinished: warned about.
        let mut w = WriteOptions::new()
            .create_stream::<f32>(dir.join("dropped.npy"), &[2])
            .unwrap();
        w.push_row(&[1.0, 2.0]).unwrap();
        drop(w);
        // Dropped after an error the caller saw: not warned about.
        let mut w = WriteOptions::new()
            .create_stream::<f32>(dir.join("failed.npy"), &[2])
            .unwrap();
        assert!(w.push_row(&[1.0]).is_err());
        drop(w);
        // Finished: not warned about.
        let mut w = WriteOptions::new()
            .create_stream::<f32>(dir.join("finished.npy"), &[2])
            .unwrap();
        w.push_row(&[1.0, 2.0]).unwrap();
        w.finish().unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "stream_drop::an_unfinished_path_stream_writes_nothing_and_warns_in_debug_builds",
            "--nocapture",
        ])
        .env(CHILD, dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!dir.path().join("dropped.npy").exists());
    assert!(!dir.path().join("failed.npy").exists());
    assert!(dir.path().join("finished.npy").exists());
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("dropped without finish()"))
        .collect();
    if cfg!(debug_assertions) {
        assert_eq!(warnings.len(), 1, "{stderr}");
        assert!(warnings[0].contains("dropped.npy"), "{stderr}");
    } else {
        assert!(warnings.is_empty(), "{stderr}");
    }
}
