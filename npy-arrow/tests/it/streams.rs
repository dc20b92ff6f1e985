//! The entry points for arrays that are no `.npy` file (issue 40, `npy convert` between tables
//! and safetensors without a temporary file): `convert_npy_stream` writes the table `convert`
//! writes for the same bytes as an `.npz` member, and `NpyFromTable` hands out the header and
//! data bytes of the `.npy` file `convert` writes for a table.

use std::io::{Cursor, Seek, SeekFrom, Write};
use std::path::Path;

use npy_arrow::{convert, convert_npy_stream, ConvertOptions, ErrorKind, Format, NpyFromTable};

/// `.npy` bytes of `descr`, `shape` and memory order, the data a fixed pattern.
fn npy_bytes(descr: &str, shape: &[u64], fortran: bool) -> Vec<u8> {
    let mut header = npy_core::Header::new(descr.parse().unwrap(), shape.to_vec());
    header.fortran_order = fortran;
    let mut bytes = header.to_bytes(None).unwrap();
    let n = header.nbytes().unwrap();
    bytes.extend((0..n).map(|i| u8::try_from((i * 7 + 3) % 64).unwrap()));
    bytes
}

/// The arrays of the tests: plain, N-d, Fortran and big-endian, a record, 0-d, void, empty.
const CASES: &[(&str, &str, &[u64], bool)] = &[
    ("f32", "<f4", &[1000], false),
    ("tensor", "<f8", &[4, 2, 3], false),
    ("fortran_be", ">i4", &[4, 2, 3], true),
    ("record", "[('x', '<f4'), ('id', '<u2')]", &[5], false),
    ("scalar", "<f8", &[], false),
    ("void", "|V2", &[3], false),
    ("empty", "<f4", &[0, 3], false),
];

fn outputs() -> Vec<(&'static str, Format)> {
    let mut v = vec![("arrow", Format::Ipc)];
    if cfg!(feature = "parquet") {
        v.push(("parquet", Format::Parquet));
    }
    v
}

/// Each array as a stream (starting past other bytes, as a tensor inside a larger file does)
/// gives the bytes of `convert` from an `.npz` holding it as member `w`, in both formats.
#[test]
fn an_npy_stream_converts_as_its_npz_member() {
    let dir = tempfile::tempdir().unwrap();
    for &(name, descr, shape, fortran) in CASES {
        let bytes = npy_bytes(descr, shape, fortran);
        let npz = dir.path().join(format!("{name}.npz"));
        let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
        w.add_npy("w", &bytes[..]).unwrap();
        w.finish().unwrap();
        for (ext, format) in outputs() {
            let want = dir.path().join(format!("{name}.want.{ext}"));
            let mut options = ConvertOptions::new();
            options.member = Some("w".into());
            convert(&npz, &want, &options).unwrap();
            let got = dir.path().join(format!("{name}.{ext}"));
            let mut stream = Cursor::new([b"prefix".as_slice(), &bytes].concat());
            stream.seek(SeekFrom::Start(6)).unwrap();
            let options = ConvertOptions::new().formats(Format::Npy, format);
            let mut last = (0, 0);
            convert_npy_stream(stream, "w", &got, &options, |done, total| {
                last = (done, total);
            })
            .unwrap();
            assert!(
                std::fs::read(&got).unwrap() == std::fs::read(&want).unwrap(),
                "{name}.{ext}: differs from the .npz member's table"
            );
            assert_eq!(last.0, last.1, "{name}.{ext}: progress ends at its total");
        }
    }
}

/// The header and data `NpyFromTable` gives for a table are the `.npy` file `convert` writes
/// for it, whatever its format; the progress ends at the data's bytes.
#[test]
fn a_table_read_as_npy_is_the_npy_convert_writes() {
    let dir = tempfile::tempdir().unwrap();
    for &(name, descr, shape, fortran) in CASES {
        let npy = dir.path().join(format!("{name}.npy"));
        std::fs::write(&npy, npy_bytes(descr, shape, fortran)).unwrap();
        for (ext, _) in outputs() {
            let table = dir.path().join(format!("{name}.{ext}"));
            convert(&npy, &table, &ConvertOptions::new()).unwrap();
            let want = dir.path().join(format!("{name}.{ext}.npy"));
            convert(&table, &want, &ConvertOptions::new()).unwrap();
            let t = NpyFromTable::open(&table, &ConvertOptions::new()).unwrap();
            let mut got = t.header().to_bytes(None).unwrap();
            let start = got.len();
            let mut last = (0, 0);
            t.write_data(&mut got, |done, total| last = (done, total))
                .unwrap();
            assert!(
                got == std::fs::read(&want).unwrap(),
                "{name}.{ext}: differs from convert's .npy"
            );
            if got.len() > start {
                assert_eq!(
                    last,
                    ((got.len() - start) as u64, (got.len() - start) as u64)
                );
            }
        }
    }
}

/// A writer that refuses every byte.
struct Full;

impl Write for Full {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("the disk is full"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Errors say where they happened: a stream that ends early names its member (the caller
/// names the stream), an output of no table format names the output, a table input that is
/// none names the input, and the writer's error is the writer's (no path), not the table's.
#[test]
fn errors_name_the_stream_the_output_or_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = npy_bytes("<f4", &[100], false);
    let out = dir.path().join("t.arrow");
    let short = Cursor::new(bytes[..bytes.len() - 8].to_vec());
    let err = convert_npy_stream(short, "w", &out, &ConvertOptions::new(), |_, _| {}).unwrap_err();
    assert_eq!(err.member(), Some("w"), "{err}");
    assert_eq!(err.path(), None, "{err}");
    assert!(err.to_string().contains("392"), "{err}");
    assert!(!out.exists());
    let npy_out = dir.path().join("t.npy");
    let err = convert_npy_stream(
        Cursor::new(&bytes),
        "w",
        &npy_out,
        &ConvertOptions::new(),
        |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Invalid(_)), "{err}");
    assert_eq!(err.path(), Some(npy_out.as_path()));
    let npy = dir.path().join("a.npy");
    std::fs::write(&npy, &bytes).unwrap();
    let err = NpyFromTable::open(&npy, &ConvertOptions::new()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Invalid(_)), "{err}");
    assert_eq!(err.path(), Some(npy.as_path()));
    convert(&npy, &out, &ConvertOptions::new()).unwrap();
    let t = NpyFromTable::open(&out, &ConvertOptions::new()).unwrap();
    let err = t.write_data(&mut Full, |_, _| {}).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err}");
    assert_eq!(err.path(), None::<&Path>, "{err}");
    assert!(err.to_string().contains("the disk is full"), "{err}");
}
