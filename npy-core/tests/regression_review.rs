//! Regression tests for the faults a fresh review found, each with its failing input.
//! Expected values come from numpy's fixtures or numpy's rules (cited per test).

use std::path::{Path, PathBuf};

use npy_core::{
    ByteOrder, DType, DynArray, DynValue, ErrorKind, Header, NpyReader, Order, WriteOptions,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name)
}

/// A whole file from a header (no data).
fn file_with(dtype: &str, shape: Vec<u64>) -> Vec<u8> {
    Header::new(dtype.parse().unwrap(), shape)
        .to_bytes(None)
        .unwrap()
}

/// A 128-byte `|S0` file of 2^24 elements asked 24 bytes of memory per element (384 MiB) that
/// no data byte backs; typed reads now bound memory by bytes, not by element count.
#[test]
fn zero_size_elements_are_bounded_by_bytes_not_count() {
    let bytes = file_with("|S0", vec![1 << 24]);
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<Vec<u8>>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::AllocationLimit { .. }),
        "{err}"
    );
    // A few zero-size elements are fine.
    let bytes = file_with("|S0", vec![1000]);
    let v = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<Vec<u8>>()
        .unwrap();
    assert_eq!(v.len(), 1000);
}

/// numpy refuses subarrays of zero-width strings ("invalid itemsize in generic type tuple"),
/// which let `[Vec<u8>; 64]` elements of `('|S0', (64,))` abort the process.
#[test]
fn zero_width_string_subarrays_are_refused_as_numpy_does() {
    for descr in [
        "('|S0', (64,))",
        "[('name', '<U0'), ('tags', '<U0', (8,))]",
        "[('v', '|V0', (2,))]",
    ] {
        let err = descr.parse::<DType>().unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidDescr { .. }),
            "{descr}: {err}"
        );
    }
}

/// numpy's NPY_MAXDIMS is 64: a header with 30,000 dims crashed `npy show` by recursion.
#[test]
fn more_than_64_dimensions_are_refused() {
    let ok = format!(
        "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}), }}",
        "1, ".repeat(64)
    );
    assert_eq!(
        Header::from_text(&ok, npy_core::Version::V1_0, &Default::default())
            .unwrap()
            .shape
            .len(),
        64
    );
    for n in [65, 30_000] {
        let text = format!(
            "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}), }}",
            "1, ".repeat(n)
        );
        let err =
            Header::from_text(&text, npy_core::Version::V2_0, &Default::default()).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidShape { .. }),
            "{n}: {err}"
        );
    }
}

/// `write::<[i16; 4]>` wrote a top-level subarray descr numpy cannot load; numpy stores such
/// arrays as the base dtype with the subarray's dims appended. Reading numpy's `(2, 3, 4)`
/// array as `[[i16; 4]; 3]` and writing it back must give numpy's bytes.
#[test]
fn subarray_elements_fold_into_the_shape_both_ways() {
    let src = fixture("i2_le_c_2x3x4.npy");
    let rows = npy_core::read::<[[i16; 4]; 3]>(&src).unwrap();
    assert_eq!(rows.shape(), [2]);
    let flat = npy_core::read::<i16>(&src).unwrap();
    let refolded: Vec<i16> = rows.data().iter().flatten().flatten().copied().collect();
    assert_eq!(refolded, flat.data());
    let mut out = Vec::new();
    WriteOptions::new()
        .write_to(&mut out, rows.data(), &[2])
        .unwrap();
    assert_eq!(
        out,
        std::fs::read(&src).unwrap(),
        "numpy's bytes for the same array"
    );
    let lines = npy_core::read::<[i16; 4]>(&src).unwrap();
    assert_eq!(lines.shape(), [2, 3]);
    // Fortran order cannot hold subarray elements contiguously: an error, not a bad file.
    let err = WriteOptions::new()
        .order(Order::Fortran)
        .write_to(Vec::new(), lines.data(), &[2, 3])
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
}

/// A partly used `iter` moved the reader past its whole read-ahead chunk.
#[test]
fn a_partly_used_iterator_loses_no_elements() {
    let src = fixture("i2_le_c_2x3x4.npy");
    let all = npy_core::read::<i16>(&src).unwrap().into_vec();
    let bytes = std::fs::read(&src).unwrap();
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    let first: Vec<i16> = r
        .iter::<i16>()
        .unwrap()
        .take(2)
        .map(Result::unwrap)
        .collect();
    assert_eq!(r.remaining(), 22);
    let rest = r.read_vec::<i16>().unwrap();
    assert_eq!([first, rest].concat(), all);
    // With Seek, seeking after a partial iteration lands where asked.
    let mut r = NpyReader::new(std::io::Cursor::new(bytes)).unwrap();
    let _ = r.iter::<i16>().unwrap().next();
    assert_eq!(r.read_range::<i16>(5..7).unwrap(), all[5..7]);
}

/// `write_dyn` turned 1e300 into inf in a `<f4` array while refusing out-of-range ints.
#[test]
fn write_dyn_refuses_float_overflow() {
    for (descr, value) in [
        ("<f4", DynValue::Float(1e300)),
        ("<f2", DynValue::Float(1e6)),
        ("<c8", DynValue::Complex(0.0, -1e300)),
    ] {
        let a = DynArray::new(Header::new(descr.parse().unwrap(), vec![1]), vec![value]).unwrap();
        let err = npy_core::write_dyn_to(Vec::new(), &a, None).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::ValueMismatch { .. }),
            "{descr}: {err}"
        );
    }
    // Infinities and NaN themselves are values, not overflow.
    let a = DynArray::new(
        Header::new("<f4".parse().unwrap(), vec![2]),
        vec![DynValue::Float(f64::INFINITY), DynValue::Float(f64::NAN)],
    )
    .unwrap();
    npy_core::write_dyn_to(Vec::new(), &a, None).unwrap();
}

/// numpy writes `fortran_order: False` for data that is C-contiguous too (shapes (1, 5),
/// (5, 1), (0, 3)); `convert --order F` and `WriteOptions::order(Fortran)` wrote True.
#[test]
fn fortran_order_only_where_numpy_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    for shape in [vec![1u64, 5], vec![5, 1], vec![0, 3], vec![1, 1, 4]] {
        let n: u64 = shape.iter().product();
        let data: Vec<i32> = (0..n as i32).collect();
        let mut out = Vec::new();
        WriteOptions::new()
            .order(Order::Fortran)
            .write_to(&mut out, &data, &shape)
            .unwrap();
        let r = NpyReader::new(&out[..]).unwrap();
        assert!(!r.header().fortran_order, "{shape:?}");
        let (src, dst) = (dir.path().join("c.npy"), dir.path().join("f.npy"));
        npy_core::write(&src, &data, &shape).unwrap();
        let mut o = npy_core::ConvertOptions::default();
        o.order = Some(Order::Fortran);
        npy_core::convert_file(&src, &dst, &o).unwrap();
        assert_eq!(
            std::fs::read(&dst).unwrap(),
            std::fs::read(&src).unwrap(),
            "{shape:?}"
        );
    }
    // A genuinely Fortran-order shape keeps the flag.
    let mut out = Vec::new();
    WriteOptions::new()
        .order(Order::Fortran)
        .write_to(&mut out, &[1i32, 2, 3, 4], &[2, 2])
        .unwrap();
    assert!(NpyReader::new(&out[..]).unwrap().header().fortran_order);
}

/// `WriteOptions::dtype(">f8")` wrote '<f8': the default byte order overrode the explicit
/// dtype. numpy's own big-endian file is the expected output.
#[test]
fn an_explicit_dtype_keeps_its_byte_order() {
    let src = fixture("f8_be_c_2x3x4.npy");
    let values = npy_core::read::<f64>(&src).unwrap().into_vec();
    let mut out = Vec::new();
    WriteOptions::new()
        .dtype(">f8".parse().unwrap())
        .write_to(&mut out, &values, &[2, 3, 4])
        .unwrap();
    assert_eq!(out, std::fs::read(&src).unwrap());
    // An explicit byte order still applies to an explicit dtype.
    let mut out = Vec::new();
    WriteOptions::new()
        .dtype(">f8".parse().unwrap())
        .byte_order(ByteOrder::Little)
        .write_to(&mut out, &values, &[2, 3, 4])
        .unwrap();
    assert_eq!(out, std::fs::read(fixture("f8_le_c_2x3x4.npy")).unwrap());
}

/// A reversed range said "outside the array's N elements".
#[test]
fn a_reversed_range_says_so() {
    let bytes = std::fs::read(fixture("i2_le_c_2x3x4.npy")).unwrap();
    let mut r = NpyReader::new(std::io::Cursor::new(bytes)).unwrap();
    #[allow(clippy::reversed_empty_ranges)] // the reversed range is the input under test
    let err = r.read_range::<i16>(5..3).unwrap_err();
    assert!(err.to_string().contains("reversed"), "{err}");
}
