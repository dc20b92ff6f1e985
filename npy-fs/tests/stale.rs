//! What a killed writer left beside its target: recognised by its name and removed once
//! unlocked and stale (issue 23, F9; moved from npy-core's `tests/it/output_files.rs` with the
//! code it tests).

#![cfg(unix)]

use std::fs;
use std::path::Path;
use std::time::Duration;

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// F9: what a killed writer left is recognised by its name and removed once unlocked and
/// older than `STALE_AFTER`; a live (locked) one, a fresh one, a symlink and other names stay.
#[test]
fn stale_temporary_files_are_removed_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = std::time::SystemTime::now() - npy_fs::STALE_AFTER - Duration::from_secs(5);
    let make = |name: &str, age_old: bool| -> fs::File {
        let f = fs::File::create(d.join(name)).unwrap();
        if age_old {
            f.set_modified(old).unwrap();
        }
        f
    };
    drop(make(".npy-tmp-dead01", true));
    drop(make(".npy-tmp-fresh1", false));
    let live = make(".npy-tmp-live01", true);
    live.lock().unwrap();
    drop(make("npy-tmp-notours", true));
    drop(make(".npy-tmp-", true));
    let victim = d.join("victim");
    fs::write(&victim, b"keep").unwrap();
    std::os::unix::fs::symlink(&victim, d.join(".npy-tmp-link01")).unwrap();
    let removed = npy_fs::remove_stale_temp_files(d).unwrap();
    assert_eq!(removed, [d.join(".npy-tmp-dead01")]);
    assert_eq!(
        listing(d),
        [
            ".npy-tmp-",
            ".npy-tmp-fresh1",
            ".npy-tmp-link01",
            ".npy-tmp-live01",
            "npy-tmp-notours",
            "victim"
        ]
    );
    assert_eq!(fs::read(&victim).unwrap(), b"keep");
    drop(live);
}
