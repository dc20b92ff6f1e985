//! Rules the format and the mapping fix without Python: refusals, zero copy, Fortran order,
//! names, `.npz` members, and where errors say they happened.

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::Array;
use arrow_schema::DataType;
use npy_arrow::{convert, read_npy, read_npz_member, ConvertOptions, ErrorKind};

fn npy(
    dir: &std::path::Path,
    name: &str,
    descr: &str,
    shape: &[u64],
    fortran: bool,
    data: &[u8],
) -> std::path::PathBuf {
    let mut header = npy_core::Header::new(descr.parse().unwrap(), shape.to_vec());
    header.fortran_order = fortran;
    let mut bytes = header.to_bytes(None).unwrap();
    bytes.extend_from_slice(data);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn dtypes_without_an_arrow_type_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (descr, why) in [
        ("<M8[Y]", "calendar"),
        ("<M8[M]", "calendar"),
        ("<m8[ps]", "nanosecond"),
        ("<M8", "unit"),
        ("<f16", "astype('f8')"),
        ("<c32", "astype('c16')"),
    ] {
        let size = descr.parse::<npy_core::DType>().unwrap().itemsize() as usize;
        let path = npy(dir.path(), "a.npy", descr, &[1], false, &vec![0u8; size]);
        let err = read_npy(&path).unwrap_err();
        match err.kind() {
            ErrorKind::UnsupportedDType { dtype, reason } => {
                assert_eq!(dtype, descr);
                assert!(reason.contains(why), "{descr}: {reason}");
            }
            other => panic!("{descr}: {other:?}"),
        }
        assert_eq!(err.path(), Some(path.as_path()));
    }
}

#[test]
fn native_numbers_are_slices_of_one_read_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..4000i32).flat_map(i32::to_le_bytes).collect();
    let path = npy(dir.path(), "n.npy", "<i4", &[4000], false, &data);
    let batch = read_npy(&path).unwrap();
    let col = batch.column(0).as_primitive::<Int32Type>();
    assert_eq!(col.values()[3999], 3999);
    // The column's buffer starts 64-byte aligned: it is the read buffer itself, not a copy
    // made by Arrow (which would also be aligned, so also check the length is exact).
    let data = col.to_data();
    let buf = &data.buffers()[0];
    assert_eq!(buf.as_ptr() as usize % 64, 0);
    assert_eq!(buf.len(), 16000);
}

#[test]
fn fortran_order_is_transposed_to_the_logical_values() {
    // shape (2, 3) in Fortran order stores columns: [[0, 1, 2], [3, 4, 5]] is 0 3 1 4 2 5.
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = [0i64, 3, 1, 4, 2, 5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let path = npy(dir.path(), "f.npy", "<i8", &[2, 3], true, &data);
    let batch = read_npy(&path).unwrap();
    let list = batch.column(0).as_fixed_size_list();
    assert_eq!(list.value_length(), 3);
    let values = list.values().as_primitive::<Int64Type>();
    assert_eq!(values.values().as_ref(), [0, 1, 2, 3, 4, 5]);
}

#[test]
fn a_plain_column_is_named_by_the_stem_and_a_member_by_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("weights.npy");
    npy_core::write(&path, &[1u8, 2], &[2]).unwrap();
    assert_eq!(read_npy(&path).unwrap().schema().field(0).name(), "weights");
    let npz = dir.path().join("w.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("bias", &[0.5f32], &[1]).unwrap();
    w.add("scale", &[2.0f64], &[1]).unwrap();
    w.finish().unwrap();
    let b = read_npz_member(&npz, "scale").unwrap();
    assert_eq!(b.schema().field(0).name(), "scale");
    assert_eq!(b.schema().field(0).data_type(), &DataType::Float64);
    // Two members and no key: the error lists them and names the archive.
    let err = convert(&npz, dir.path().join("o.arrow"), &ConvertOptions::new()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("bias, scale") && msg.contains("w.npz"),
        "{msg}"
    );
    let err = read_npz_member(&npz, "nope").unwrap_err();
    assert_eq!(err.member(), Some("nope"));
}

#[test]
fn npy_to_npz_and_back_keeps_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let src = npy(
        dir.path(),
        "r.npy",
        "[('a', '>i2'), ('b', 'S3')]",
        &[2],
        false,
        b"\x00\x01abc\xff\xfex\x00\x00",
    );
    let npz = dir.path().join("r.npz");
    convert(&src, &npz, &ConvertOptions::new()).unwrap();
    let back = dir.path().join("back.npy");
    let mut options = ConvertOptions::new();
    options.member = Some("r".into());
    convert(&npz, &back, &options).unwrap();
    assert_eq!(std::fs::read(&src).unwrap(), std::fs::read(&back).unwrap());
}

#[test]
fn a_truncated_file_is_an_error_before_allocating_its_claim() {
    let dir = tempfile::tempdir().unwrap();
    // Claims 2^40 f8 values, holds 8 bytes.
    let path = npy(dir.path(), "t.npy", "<f8", &[1 << 40], false, &[0; 8]);
    let err = read_npy(&path).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Npy(e) if matches!(
                e.kind(),
                npy_core::ErrorKind::Truncated { what: "array data", needed, found: 8 }
                    if *needed == 8 << 40
            )
        ),
        "{err}"
    );
    // Streaming converts fail the same way, leaving no output.
    let out = dir.path().join("t.arrow");
    assert!(convert(&path, &out, &ConvertOptions::new()).is_err());
    assert!(!out.exists());
}

#[test]
fn a_lone_surrogate_is_a_value_error_naming_the_element() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for cp in [0x61u32, 0, 0xD800, 0x62] {
        data.extend_from_slice(&cp.to_le_bytes());
    }
    let path = npy(dir.path(), "u.npy", "<U2", &[2], false, &data);
    let err = read_npy(&path).unwrap_err();
    match err.kind() {
        ErrorKind::Value { column, index, .. } => assert_eq!((column.as_str(), *index), ("u", 1)),
        other => panic!("{other:?}"),
    }
    // Converted to Parquet, the column is built on an encoding thread and the error surfaces
    // when the row group closes: it still names the input, not the output.
    if !cfg!(feature = "parquet") {
        return;
    }
    let out = dir.path().join("u.parquet");
    let err = npy_arrow::convert(&path, &out, &npy_arrow::ConvertOptions::new()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Value { column, index: 1, .. } if column == "u"),
        "{err:?}"
    );
    assert_eq!(err.path(), Some(path.as_path()), "{err}");
    assert!(!out.exists());
    // A record field read through the columns, large enough to be transcoded on several
    // threads (60,000 × 80 bytes ≥ 4 MiB): the element is named by its row in the array.
    let rows = 60_000;
    let mut data = vec![0u8; rows * 80];
    data[50_001 * 80..50_001 * 80 + 4].copy_from_slice(&0xDFFFu32.to_le_bytes());
    let path = npy(
        dir.path(),
        "r.npy",
        "[('u', '<U20')]",
        &[rows as u64],
        false,
        &data,
    );
    match read_npy(&path).unwrap_err().kind() {
        ErrorKind::Value { column, index, .. } => {
            assert_eq!((column.as_str(), *index), ("u", 50_001));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn scaled_ticks_that_overflow_are_a_value_error() {
    let dir = tempfile::tempdir().unwrap();
    // M8[h] becomes seconds (×3600): i64::MAX / 1000 hours overflows.
    let path = npy(
        dir.path(),
        "h.npy",
        "<M8[h]",
        &[1],
        false,
        &(i64::MAX / 1000).to_le_bytes(),
    );
    assert!(matches!(
        read_npy(&path).unwrap_err().kind(),
        ErrorKind::Value { index: 0, .. }
    ));
}

#[test]
fn a_mapped_file_becomes_a_batch_without_copying_its_data() {
    // 1 GiB of f32 (a sparse file: its pages are never touched, which a copy would do).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.npy");
    let n: u64 = 1 << 28;
    let header = npy_core::Header::new("<f4".parse().unwrap(), vec![n])
        .to_bytes(None)
        .unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut &file, &header).unwrap();
    file.set_len(header.len() as u64 + 4 * n).unwrap();
    // SAFETY: the file is this test's own, and nobody changes it while it is mapped.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    let data_at = map.as_ptr() as usize + header.len();
    let batch = npy_arrow::batch_from_npy_bytes(map, "big").unwrap();
    let col = batch.column(0).to_data();
    assert_eq!(col.len(), n as usize);
    assert_eq!(
        col.buffers()[0].as_ptr() as usize,
        data_at,
        "the column is the map"
    );
    // The time, against smaller maps, is `cargo xtask bench --only columnar`'s (map_batch).
}

#[test]
fn large_records_gathered_on_several_threads_keep_every_field() {
    // 300,000 records of 20 bytes (6 MB, past the 4 MiB parallel threshold), values a formula
    // of the row, so each column can be checked against the bytes written.
    let n = 300_000i64;
    let mut data = Vec::with_capacity(20 * n as usize);
    for i in 0..n {
        data.extend_from_slice(&(i * 3).to_le_bytes());
        data.extend_from_slice(&(i as f32 / 2.0).to_be_bytes());
        for c in [u32::from(b'a') + (i % 26) as u32, 0] {
            data.extend_from_slice(&c.to_le_bytes());
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = npy(
        dir.path(),
        "big.npy",
        "[('a', '<i8'), ('b', '>f4'), ('s', '<U2')]",
        &[n as u64],
        false,
        &data,
    );
    let batch = read_npy(&path).unwrap();
    let a = batch.column(0).as_primitive::<Int64Type>();
    let b = batch
        .column(1)
        .as_primitive::<arrow_array::types::Float32Type>();
    let s = batch.column(2).as_string::<i32>();
    for i in [0, 1, 77_777, n - 1] {
        let k = i as usize;
        assert_eq!(a.value(k), i * 3);
        assert_eq!(b.value(k), i as f32 / 2.0);
        assert_eq!(s.value(k), char::from(b'a' + (i % 26) as u8).to_string());
    }
    assert_eq!(a.len(), n as usize);
}

#[cfg(unix)]
#[test]
fn a_fifo_named_as_a_table_is_refused_at_once() {
    // Opening a FIFO for reading waits for a writer; the table readers must refuse it as the
    // .npy reader does, never wait.
    let dir = tempfile::tempdir().unwrap();
    let names: &[&str] = if cfg!(feature = "parquet") {
        &["f.arrow", "f.parquet"]
    } else {
        &["f.arrow"]
    };
    for name in names {
        let fifo = dir.path().join(name);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let out = dir.path().join("out.npy");
        let err = convert(&fifo, &out, &ConvertOptions::new()).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Npy(e) if matches!(
                    e.kind(),
                    npy_core::ErrorKind::NotRegularFile { found: "a FIFO", .. }
                )
            ),
            "{name}: {err}"
        );
        assert_eq!(err.path(), Some(fifo.as_path()));
    }
}

#[test]
fn extensions_are_matched_in_any_case() {
    use npy_arrow::Format;
    for (name, want) in [
        ("a.Parquet", Format::Parquet),
        ("a.NPZ", Format::Npz),
        ("a.Npy", Format::Npy),
        ("a.ARROW", Format::Ipc),
        ("a.Feather", Format::Ipc),
    ] {
        assert_eq!(Format::of(std::path::Path::new(name)), Some(want), "{name}");
    }
    assert_eq!(Format::of(std::path::Path::new("a.txt")), None);
}

/// Formats given in the options replace the extensions: numpy's file under another name
/// converts to the same IPC bytes as under its own; without them that name is refused.
#[test]
fn formats_in_the_options_replace_the_extensions() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/w_f32.npy");
    let dir = tempfile::tempdir().unwrap();
    let (named, unnamed) = (dir.path().join("a.npy"), dir.path().join("a.bin"));
    std::fs::copy(&fixture, &named).unwrap();
    std::fs::copy(&fixture, &unnamed).unwrap();
    let by_name = dir.path().join("a.arrow");
    convert(&named, &by_name, &ConvertOptions::new()).unwrap();
    let told = dir.path().join("a.table");
    let refused = convert(&unnamed, &told, &ConvertOptions::new()).unwrap_err();
    assert!(refused.to_string().contains("extension"), "{refused}");
    assert!(!told.exists());
    let options = ConvertOptions::new().formats(npy_arrow::Format::Npy, npy_arrow::Format::Ipc);
    convert(&unnamed, &told, &options).unwrap();
    assert_eq!(
        std::fs::read(&told).unwrap(),
        std::fs::read(&by_name).unwrap()
    );
}

/// The file functions of IPC and Parquet take a path as every other function of the crate
/// does (`impl AsRef<Path>`: a `PathBuf` by value, a `String`, a `&str`), not only a `&Path`
/// (issue 40). The batch read back is the one written.
#[test]
fn ipc_and_parquet_take_any_path() {
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let column: arrow_array::ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![3, -1, 7]));
    let batch = arrow_array::RecordBatch::try_from_iter([("x", column)]).unwrap();
    let read_back =
        |rows: &mut Vec<i32>, b: arrow_array::RecordBatch| -> Result<(), npy_arrow::Error> {
            rows.extend(b.column(0).as_primitive::<Int32Type>().values().iter());
            Ok(())
        };

    let ipc: std::path::PathBuf = dir.path().join("x.arrow");
    npy_arrow::write_ipc(ipc.clone(), &batch.schema(), |push| push(&batch)).unwrap();
    let ipc_str: String = ipc.to_str().unwrap().to_owned();
    let mut rows = Vec::new();
    npy_arrow::read_ipc(ipc_str.as_str(), |_| Ok(()), |b| read_back(&mut rows, b)).unwrap();
    assert_eq!(rows, [3, -1, 7]);

    #[cfg(feature = "parquet")]
    {
        let pq: String = dir.path().join("x.parquet").to_str().unwrap().to_owned();
        npy_arrow::write_parquet(&pq, &batch.schema(), |push| push(&batch)).unwrap();
        let mut rows = Vec::new();
        npy_arrow::read_parquet(pq, 1024, |_| Ok(()), |b| read_back(&mut rows, b)).unwrap();
        assert_eq!(rows, [3, -1, 7]);
    }
}
