//! Handle errors: match on the kind, sort by category, and find the file an error concerns.
//!
//! `cargo run -p npy-core --example handle_errors --all-features`
use npy_core::{error::Category, ErrorKind};

fn main() -> Result<(), npy_core::Error> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("ints.npy");
    npy_core::write(&path, &[1i32, 2, 3], &[3])?;

    // Asking for another type: a Mismatch naming both types and the file.
    let err = npy_core::read::<f64>(&path).unwrap_err();
    println!("{err}");
    assert_eq!(err.classify(), Category::Mismatch);
    assert!(matches!(err.kind(), ErrorKind::TypeMismatch { .. }));
    assert_eq!(err.path(), Some(path.as_path()));

    // A missing file: an I/O error, still naming the file.
    let err = npy_core::read::<i32>(dir.path().join("missing.npy")).unwrap_err();
    println!("{err}");
    assert_eq!(err.classify(), Category::Io);

    // Not an .npy file at all: a format error.
    let text = dir.path().join("notes.npy");
    std::fs::write(&text, "hello")?;
    let err = npy_core::read::<i32>(&text).unwrap_err();
    println!("{err}");
    assert_eq!(err.classify(), Category::Format);

    // Errors are std::error::Error + Send + Sync + 'static: `?` into anyhow or Box<dyn Error>.
    let boxed: Box<dyn std::error::Error + Send + Sync> = err.into();
    println!("boxed: {boxed}");
    Ok(())
}
