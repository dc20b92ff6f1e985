//! What the optional features of npy-cli (`remote`, `arrow`, `parquet`, `sql`; README.md,
//! "Features") change: a build without one refuses what it brings, before reading anything,
//! with exit status 2 and the `cargo install` flag that builds it in; the other formats are
//! unaffected.

use std::ffi::OsStr;
use std::path::Path;

use crate::common::{npy, stderr};

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/w_f32.npy")
}

/// A URL input of each command that reads URLs.
#[cfg(not(feature = "remote"))]
#[test]
fn a_build_without_remote_names_the_flag_for_urls() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    // 127.0.0.1:9 (discard): nothing listens, and nothing may be asked of it.
    let url = "http://127.0.0.1:9/w_f32.npy";
    for args in [
        vec![OsStr::new("info"), OsStr::new(url)],
        vec![OsStr::new("header"), OsStr::new(url)],
        vec![OsStr::new("show"), OsStr::new(url)],
        vec![OsStr::new("convert"), OsStr::new(url), out.as_os_str()],
        vec![
            OsStr::new("header"),
            OsStr::new("--member"),
            OsStr::new("w"),
            OsStr::new("s3://bucket/w.npz"),
        ],
    ] {
        let o = npy(&args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            err.contains("feature `remote`") && err.contains("--features remote"),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists());
}

/// Arrow IPC and Parquet on either side of `npy convert`.
#[cfg(not(feature = "arrow"))]
#[test]
fn a_build_without_arrow_names_the_flag_for_tables() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.PARQUET");
    std::fs::write(&table, b"PAR1 never read PAR1").unwrap();
    let cases: [(&Path, &Path, &str); 4] = [
        (&fixture(), &dir.path().join("o.arrow"), "--features arrow"),
        (
            &fixture(),
            &dir.path().join("o.parquet"),
            "--features parquet",
        ),
        (&table, &dir.path().join("o.npy"), "--features parquet"),
        (
            &fixture(),
            &dir.path().join("o.feather"),
            "--features arrow",
        ),
    ];
    for (input, output, flag) in cases {
        let o = npy([OsStr::new("convert"), input.as_os_str(), output.as_os_str()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", output.display());
        assert!(err.contains(flag), "{}: {err}", output.display());
        assert!(!output.exists());
    }
}

/// `.npy` ↔ `.npz` needs no optional feature: npy-npz copies the array.
#[test]
fn npy_and_npz_convert_in_every_build() {
    let dir = tempfile::tempdir().unwrap();
    let npz = dir.path().join("w.npz");
    let back = dir.path().join("back.npy");
    let o = npy([
        OsStr::new("convert"),
        fixture().as_os_str(),
        npz.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = npy([OsStr::new("convert"), npz.as_os_str(), back.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // numpy wrote the fixture with np.save: the copy through the archive is its bytes.
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(fixture()).unwrap()
    );
    let archive = npy_npz::NpzArchive::open(&npz).unwrap();
    assert_eq!(archive.keys().collect::<Vec<_>>(), ["w_f32"]);
}

/// `npy sql` in a build without the feature `sql`: refused before anything is read, exit 2.
#[cfg(not(feature = "sql"))]
#[test]
fn a_build_without_sql_names_the_flag() {
    let o = npy(["sql", "--table", "t=missing.npy", "SELECT count(*) FROM t"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("feature `sql`") && err.contains("--features sql"),
        "{err}"
    );
}
