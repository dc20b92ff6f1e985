//! `.npz` archives: numpy's fixtures (`fixtures/npz/`, values from numpy), archives we
//! write read back, and the external archives of peer projects.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use npy_core::npz::{Compression, NpzArchive, NpzError, NpzWriter};
use npy_core::Error;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npy-core-npz-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn smoke_round_trip() {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add("a", &[1.0f32, 2.0, 3.0], &[3]).unwrap();
    w.add_positional(&[1u8, 2], &[2]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    std::fs::write(scratch("smoke.npz"), &bytes).unwrap();
    let mut npz = NpzArchive::new(Cursor::new(&bytes)).unwrap();
    assert_eq!(npz.keys().collect::<Vec<_>>(), ["a", "arr_0"]);
    assert_eq!(npz.read::<f32>("a").unwrap().into_vec(), [1.0, 2.0, 3.0]);
    let _ = (
        Path::new("x"),
        Compression::Stored,
        std::mem::size_of::<NpzError>(),
        std::mem::size_of::<Error>(),
    );
}
