//! The error type's contract: path functions name their file, a printed chain says nothing
//! twice, counts agree in number, kinds sort into categories, and `Result` stays small.

use std::error::Error as _;
use std::path::Path;

use npy_convert::{convert_file, ConvertOptions};
use npy_core::{
    error::Category, read, read_dyn, write, write_dyn, DType, Error, ErrorKind, Header, NpyReader,
    TensorInfo, WriteOptions,
};
use npy_test_support::fixture;

/// What `anyhow` prints for `{:#}`: the error, then each source, joined by `": "`.
fn chain(e: &Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut next = e.source();
    while let Some(s) = next {
        out.push(s.to_string());
        next = s.source();
    }
    out
}

fn assert_says_nothing_twice(e: &Error) {
    let parts = chain(e);
    for (i, outer) in parts.iter().enumerate() {
        for inner in &parts[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "{outer:?} already says its source {inner:?}"
            );
        }
    }
}

fn assert_names(result: Result<impl std::fmt::Debug, Error>, path: &Path, what: &str) {
    let e = result.expect_err(what);
    assert_eq!(e.path(), Some(path), "{what}: {e:?}");
    let shown = path.display().to_string();
    assert!(
        e.to_string().starts_with(&format!("{shown}: ")),
        "{what}: {e}"
    );
    assert_eq!(
        e.to_string().matches(&shown).count(),
        1,
        "{what} names the file once: {e}"
    );
    assert_says_nothing_twice(&e);
}

#[test]
fn every_path_function_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.npy");
    let no_dir = dir.path().join("no/such/dir/out.npy");
    let f8 = fixture("f8_le_c_2x3x4.npy");

    assert_names(read::<f64>(&missing), &missing, "read, missing file");
    assert_names(read::<i8>(&f8), &f8, "read, type mismatch");
    assert_names(read_dyn(&missing), &missing, "read_dyn");
    assert_names(NpyReader::open(&missing), &missing, "NpyReader::open");
    assert_names(TensorInfo::from_path(&missing), &missing, "from_path");
    assert_names(write(&no_dir, &[1u8], &[1]), &no_dir, "write");
    assert_names(write(&no_dir, &[1u8], &[2]), &no_dir, "write, bad shape");
    let array = read_dyn(&f8).unwrap();
    assert_names(write_dyn(&no_dir, &array), &no_dir, "write_dyn");
    assert_names(
        WriteOptions::new().create_stream::<u8>(&no_dir, &[]),
        &no_dir,
        "create_stream",
    );
    let stream_path = dir.path().join("stream.npy");
    let mut stream = WriteOptions::new()
        .create_stream::<String>(&stream_path, &[])
        .unwrap();
    assert_names(
        stream.push(&"too long".to_string()),
        &stream_path,
        "PathStreamWriter::push",
    );

    // convert_file names the file that failed: the input, or the output.
    let options = ConvertOptions::new();
    assert_names(
        convert_file(&missing, &no_dir, &options),
        &missing,
        "convert src",
    );
    assert_names(convert_file(&f8, &no_dir, &options), &no_dir, "convert dst");
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_path_functions_name_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.npy");
    let f8 = fixture("f8_le_c_2x3x4.npy");
    assert_names(
        npy_core::read_ndarray::<f64, ndarray::IxDyn>(&missing),
        &missing,
        "read_ndarray",
    );
    assert_names(
        npy_core::read_ndarray::<f64, ndarray::Ix2>(&f8),
        &f8,
        "read_ndarray (Ix2)",
    );
    let no_dir = dir.path().join("no/dir/a.npy");
    let a = ndarray::arr1(&[1.0f32]);
    assert_names(
        npy_core::write_ndarray(&no_dir, &a),
        &no_dir,
        "write_ndarray",
    );
}

#[cfg(feature = "mmap")]
#[test]
fn mmap_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.npy");
    // SAFETY: nothing modifies the fixture while it is mapped (and the first file is absent).
    let (a, b) = unsafe {
        let f8 = fixture("f8_le_c_2x3x4.npy");
        (
            npy_core::NpyMmap::<f32>::open(&missing),
            npy_core::NpyMmap::<f32>::open(f8),
        )
    };
    assert_names(a, &missing, "mmap");
    assert_names(b, &fixture("f8_le_c_2x3x4.npy"), "mmap, type mismatch");
}

#[test]
fn io_errors_keep_their_own_causes_once() {
    #[derive(Debug)]
    struct Cause;
    impl std::fmt::Display for Cause {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the disk is on fire")
        }
    }
    impl std::error::Error for Cause {}
    #[derive(Debug)]
    struct Wrapper(Cause);
    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("device error")
        }
    }
    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    let io = std::io::Error::other(Wrapper(Cause));
    let e = Error::from(io).with_path("x.npy");
    assert_eq!(
        chain(&e),
        ["x.npy: I/O error: device error", "the disk is on fire"]
    );
    assert_says_nothing_twice(&e);
}

#[test]
fn ranges_and_unsupported_operations_say_what_was_asked() {
    let mut r = NpyReader::open(fixture("f8_le_c_2x3x4.npy")).unwrap();
    let msg = |e: Error| e.to_string();
    assert_eq!(
        msg(r
            .read_range::<f64>(std::ops::Range { start: 5, end: 3 })
            .unwrap_err()),
        "element range 5..3 is reversed"
    );
    assert_eq!(
        msg(r.read_range::<f64>(20..25).unwrap_err()),
        "element range 20..25 is outside the array's 24 elements"
    );
    assert_eq!(
        msg(r.read_rows::<f64>(1..3).unwrap_err()),
        "row range 1..3 is outside the array's 2 rows"
    );
    assert_eq!(
        msg(r.seek_to(25).unwrap_err()),
        "seek position 25 is past the end of the array's 24 elements"
    );
    let e = NpyReader::open(fixture("f8_le_f_2x3x4.npy"))
        .unwrap()
        .read_rows::<f64>(0..1)
        .unwrap_err();
    assert_eq!(e.classify(), Category::Unsupported);
    assert!(
        e.to_string()
            .starts_with("read_rows is not supported here: "),
        "{e}"
    );
}

#[test]
fn descr_syntax_errors_are_not_header_errors() {
    let e = npy_core::Error::from("[('a', '<f4')".parse::<DType>().unwrap_err());
    assert!(matches!(e.kind(), ErrorKind::DescrSyntax(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("descr is not a valid Python literal"),
        "{e}"
    );
    assert_eq!(e.classify(), Category::Format);
}

#[test]
fn categories() {
    let dir = tempfile::tempdir().unwrap();
    let f8 = fixture("f8_le_c_2x3x4.npy");
    let cases: Vec<(Error, Category)> = vec![
        (
            read::<f64>(dir.path().join("none.npy")).unwrap_err(),
            Category::Io,
        ),
        (
            Header::read(&mut &b"\x93NUMPY\x01\x00\x10"[..]).unwrap_err(),
            Category::Format,
        ),
        (read::<i8>(&f8).unwrap_err(), Category::Mismatch),
        (
            write(dir.path().join("a.npy"), &[1u8, 2], &[3]).unwrap_err(),
            Category::Usage,
        ),
        (
            Header::read_with(
                &mut &Header::new(DType::Object, vec![1]).to_bytes(None).unwrap()[..],
                &npy_core::ReadOptions::default().max_header_len(10),
            )
            .unwrap_err(),
            Category::Limit,
        ),
        (
            Header::read(&mut &b"\x93NUMPY\x09\x00"[..]).unwrap_err(),
            Category::Unsupported,
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.classify(), want, "{e}");
    }
}

#[test]
fn result_is_small() {
    assert!(std::mem::size_of::<Result<f32, Error>>() <= 16);
}

/// `fn main() -> Result<(), npy_core::Error>` prints the error with `{:?}`: that is the
/// message `Display` writes (naming the file), as anyhow's and std's errors print; `{:#?}`
/// keeps the structure.
#[test]
fn debug_prints_the_message_and_alternate_debug_the_structure() {
    let e = read::<f32>("no/such/dir/missing.npy").unwrap_err();
    assert_eq!(format!("{e:?}"), e.to_string());
    assert!(e.to_string().contains("missing.npy"), "{e}");
    let tree = format!("{e:#?}");
    assert!(
        tree.starts_with("Error {") && tree.contains("kind:"),
        "{tree}"
    );
}

/// npy-fs's refusals reach npy-core's callers as npy-core's own: the same kind, the path, and
/// the message word for word as before the file plumbing moved to npy-fs (issue 40).
#[test]
fn file_plumbing_errors_keep_kind_path_and_message() {
    let dir = tempfile::tempdir().unwrap();
    let err = npy_core::write(dir.path(), &[1u8], &[1]).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::NotRegularFile {
            role: "output",
            found: "a directory"
        }
    ));
    assert_eq!(err.path(), Some(dir.path()));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the output is a directory, not a regular file: left as it is (only a regular \
             file is replaced, by renaming a temporary file over it)",
            dir.path().display()
        )
    );
    let err = npy_core::read::<u8>(dir.path()).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::NotRegularFile {
            role: "input",
            found: "a directory"
        }
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: the input is a directory, not a regular file: refused (reading it needs a file \
             that can be measured and read at any offset; copy it to a file first)",
            dir.path().display()
        )
    );
    let via = npy_core::Error::from(npy_fs::PendingFile::create(dir.path()).unwrap_err());
    assert_eq!(
        via.to_string(),
        npy_core::write(dir.path(), &[1u8], &[1])
            .unwrap_err()
            .to_string()
    );
    assert_eq!(via.classify(), npy_core::error::Category::Unsupported);
}
