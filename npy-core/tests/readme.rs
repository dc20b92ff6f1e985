//! Every line the READMEs tell a user to write with npy-core, compiled and run: the npy-core
//! column of the workspace README's side-by-side table, npy-core's README quick start and
//! npy-derive's README example (the table's `.npz` row is npy-npz's, run by its tests). A
//! binary of its own (features `ndarray`, `derive`, `mmap`), since the README snippets use relative paths and the test changes directory.
//!
//! `readme_lines_are_all_here` reads the READMEs and checks that each of their code lines
//! stands in this file, so a README edited without this test fails.

use std::path::{Path, PathBuf};

use ndarray::{Array2, Ix2};
use npy_core::{ByteOrder, Header, MemoryOrder, NpyElement, NpyMmap, NpyReader, WriteOptions};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[derive(NpyElement)]
struct Row {
    x: f32,
    y: f32,
    id: i64,
}

/// The workspace README's table, the npy-core column, row by row.
fn side_by_side(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let file = dir.join("m.npy");
    let p = file.as_path();
    let v = vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    // save a `Vec` with a shape
    npy_core::write(p, &v, &[2, 3])?;
    // load a 2-d matrix into ndarray
    let a: Array2<f32> = npy_core::read_ndarray(p)?;
    assert_eq!(a.shape(), [2, 3]);
    npy_core::write(p, &v, a.shape())?;
    // write in Fortran order / big-endian
    #[rustfmt::skip]
    let opts = WriteOptions::new().order(MemoryOrder::Fortran).byte_order(ByteOrder::Big);
    opts.write_path(dir.join("f.npy"), &v, &[3, 2])?;
    opts.write_ndarray_path(dir.join("fa.npy"), &a)?;
    // read numpy records into a struct
    type T = Row;
    let file = dir.join("rows.npy");
    let p = file.as_path();
    let records = [Row {
        x: 1.0,
        y: 2.0,
        id: 7,
    }];
    npy_core::write(p, &records, &[records.len() as u64])?;
    let rows = npy_core::read::<T>(p)?.into_vec();
    assert_eq!((rows[0].x, rows[0].y, rows[0].id), (1.0, 2.0, 7));
    // edit a header: `Header::read`, edit `header.shape` / `dtype`, `to_bytes`; npy-convert's `convert_file`
    let bytes = std::fs::read(dir.join("m.npy"))?;
    let mut header = Header::read(&mut &bytes[..])?.header;
    header.shape = vec![3, 2];
    header.dtype = "<f4".parse()?;
    assert_eq!(header.to_bytes(None)?.len() % 64, 0);
    npy_convert::convert_file(
        dir.join("m.npy"),
        dir.join("m_be.npy"),
        &npy_convert::ConvertOptions::new(),
    )?;
    // stream a file larger than memory: `create_stream` + `push_row` + `finish`
    let mut w = WriteOptions::new().create_stream::<f32>(dir.join("s.npy"), &[3])?;
    w.push_row(&[1.0, 2.0, 3.0])?;
    w.finish()?;
    let mut buf = vec![0f32; 3];
    // `NpyReader::read_into` into one buffer
    NpyReader::read_into(&mut NpyReader::open(dir.join("s.npy"))?, &mut buf)?;
    assert_eq!(buf, [1.0, 2.0, 3.0]);
    // map a file: `data()` or `as_ndarray::<Ix2>()?`
    let p = dir.join("m.npy");
    // SAFETY: nothing else touches the file while it is mapped.
    let m = unsafe { NpyMmap::<f32>::open(p)? };
    assert_eq!(m.data().len(), 6);
    assert_eq!(m.as_ndarray::<Ix2>()?.shape(), [2, 3]);
    // handle errors: one `Error`: `kind()`, `classify()`, and `path()` names the file
    let e: npy_core::Error = npy_core::read::<f64>(dir.join("m.npy")).unwrap_err();
    let _ = (e.kind(), e.classify());
    assert_eq!(e.path(), Some(dir.join("m.npy").as_path()));
    // append rows to an existing file
    let p = dir.join("grow.npy");
    let k = 2;
    let rows = vec![0i32; 6];
    npy_core::write(&p, &rows, &[k, 3])?;
    npy_core::append(p, &rows, &[k, 3])?;
    assert_eq!(npy_core::read::<i32>(dir.join("grow.npy"))?.shape(), [4, 3]);
    Ok(())
}

/// npy-core/README.md, in the directory it names its files relative to.
fn npy_core_readme() -> Result<(), Box<dyn std::error::Error>> {
    npy_core::write("weights.npy", &[0.5f32; 6], &[2, 3])?;
    let records = [Point {
        x: 1.0,
        y: 2.0,
        id: 3,
    }];
    npy_core::write("points.npy", &records, &[records.len() as u64])?;

    let m: ndarray::Array2<f32> = npy_core::read_ndarray("weights.npy")?;
    assert_eq!(m.dim(), (2, 3));
    let v = vec![0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0];
    npy_core::write("v.npy", &v, &[2, 3])?;
    let back = npy_core::read::<f64>("v.npy")?;
    assert_eq!(back.shape(), [2, 3]);
    #[derive(npy_core::NpyElement)]
    #[rustfmt::skip]
    struct Point { x: f32, y: f32, id: i64 }
    let points: Vec<Point> = npy_core::read("points.npy")?.into_vec();
    assert_eq!((points[0].x, points[0].y, points[0].id), (1.0, 2.0, 3));
    Ok(())
}

/// npy-derive/README.md.
fn npy_derive_readme() -> Result<(), Box<dyn std::error::Error>> {
    use npy_core::NpyElement;

    #[derive(NpyElement, Debug)]
    struct Sample {
        id: i64,
        #[npy(rename = "value")]
        v: f32,
        pos: [f32; 2],
        #[npy(width = 8)]
        tag: String,
    }

    let sample = Sample {
        id: 1,
        v: 0.5,
        pos: [1.0, 2.0],
        tag: "a".into(),
    };
    npy_core::write("samples.npy", &[sample], &[1])?;
    let rows: Vec<Sample> = npy_core::read("samples.npy")?.into_vec();
    npy_core::write("out.npy", &rows, &[rows.len() as u64])?;
    let again: Vec<Sample> = npy_core::read("out.npy")?.into_vec();
    assert_eq!(format!("{again:?}"), format!("{rows:?}"));
    assert_eq!(
        npy_core::Header::read(&mut &std::fs::read("out.npy")?[..])?
            .header
            .dtype
            .to_string(),
        "[('id', '<i8'), ('value', '<f4'), ('pos', '<f4', (2,)), ('tag', '<U8')]"
    );
    Ok(())
}

#[test]
fn readme_snippets_compile_and_run() {
    let dir = tempfile::tempdir().unwrap();
    side_by_side(dir.path()).unwrap();
    // The READMEs name files relative to where the program runs; this binary's one test.
    std::env::set_current_dir(dir.path()).unwrap();
    npy_core_readme().unwrap();
    npy_derive_readme().unwrap();
}

#[test]
fn readme_lines_are_all_here() {
    use npy_test_support::readme::{holds, rust_lines, table_spans};
    let source = include_str!("readme.rs");
    let mut missing = Vec::new();
    // The table's CLI row is checked by npy-cli's tests, its `.npz` row by npy-npz's.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let npz_row = readme
        .lines()
        .find(|l| l.starts_with("| read / write an `.npz`"))
        .unwrap_or_default();
    for code in table_spans(&root().join("README.md"), "npy-core", 1)
        .into_iter()
        .filter(|c| !c.starts_with("npy ") && !npz_row.contains(&format!("`{c}`")))
    {
        if !holds(source, &code) {
            missing.push(format!("README.md: `{code}`"));
        }
    }
    for readme in ["npy-core/README.md", "npy-derive/README.md"] {
        for line in rust_lines(&root().join(readme)) {
            if !holds(source, &line) {
                missing.push(format!("{readme}: {line}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README code that npy-core/tests/readme.rs does not run:\n{}",
        missing.join("\n")
    );
}
