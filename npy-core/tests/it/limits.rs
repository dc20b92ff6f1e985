//! Limits at their boundaries: what a header claims never allocates what the input does not
//! back, and sizes beyond numpy's own limits are refused (inputs that once over-allocated or
//! crashed, found by fuzzing, `tests/alloc_bound.rs` and review, kept as bytes).

use std::io::Read;
use std::time::{Duration, Instant};

use npy_core::{DynValue, Error, ErrorKind, Header, NpyReader, ReadOptions};
use npy_test_support::raw_npy_v2 as npy2;

/// A whole file from a header (no data).
fn file_with(dtype: &str, shape: Vec<u64>) -> Vec<u8> {
    Header::new(dtype.parse().unwrap(), shape)
        .to_bytes(None)
        .unwrap()
}

/// A stream that fails the test if a read asks for a buffer larger than `max` bytes: a reader
/// hands its whole buffer to `read`, so this sees what it allocated before the bytes arrived.
struct Watch<'a> {
    inner: &'a [u8],
    max: usize,
}

impl Read for Watch<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        assert!(
            buf.len() <= self.max,
            "a read into a {}-byte buffer: allocated ahead of the data",
            buf.len()
        );
        self.inner.read(buf)
    }
}

#[test]
fn stream_of_gigabyte_elements_does_not_allocate_them() {
    // A 1 GiB element (under MAX_DYN_ITEMSIZE) on a stream of unknown length holding 3 bytes:
    // the element buffer was allocated whole before reading (found by tests/alloc_bound.rs:
    // `[('a', '|u1', (1073741824,))]` and `<U268435456` each allocated 1 GiB).
    for descr in [
        "'|V1073741824'",
        "[('a', '|u1', (1073741824,))]",
        "'<U268435456'",
    ] {
        let bytes = npy2(descr, "(1,)", b"abc");
        let start = Instant::now();
        let mut r = NpyReader::new(Watch {
            inner: &bytes,
            max: 1 << 20,
        })
        .unwrap();
        let err = r.read_dyn().unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Truncated { found: 3, .. }),
            "{descr}: {err:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(2), "{descr}");

        // The streaming iterator and typed element-by-element reads share the chunk reader.
        let mut r = NpyReader::new(Watch {
            inner: &bytes,
            max: 1 << 20,
        })
        .unwrap();
        if let Ok(mut it) = r.iter::<String>() {
            assert!(matches!(
                it.next().map(|r| r.map_err(Error::into_kind)),
                Some(Err(ErrorKind::Truncated { .. }))
            ));
        }
    }
}

#[test]
fn long_field_names_do_not_multiply_into_dynamic_values() {
    // Each record value holds its field's name: a 1 MiB name over 4,096 one-byte records
    // asked read_dyn for 4 GiB from a 1 MiB file.
    let name = "n".repeat(1 << 20);
    let bytes = npy2(&format!("[('{name}', '|u1')]"), "(4096,)", &[7; 4096]);
    let err = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::AllocationLimit { .. }),
        "{err:?}"
    );

    // So did a shape of 100,000 ones, cloned into each subarray value. numpy allows at most
    // 64 dimensions, and so does the header parser now: refused before any data is read.
    let dims = vec!["1"; 100_000].join(", ");
    let bytes = npy2(&format!("[('a', '|u1', ({dims},))]"), "(4096,)", &[7; 4096]);
    let err = NpyReader::new(&bytes[..]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidDescr { .. }),
        "{err:?}"
    );

    // Ordinary names and shapes are far inside the bound.
    let bytes = npy2("[('flag', '|b1'), ('v', '|u1', (2, 2))]", "(3,)", &[1; 15]);
    let a = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap();
    assert_eq!(a.values()[2].field("flag"), Some(&DynValue::Bool(true)));
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

/// numpy's `NPY_MAXDIMS` is 64: a header with 30,000 dims crashed `npy show` by recursion.
#[test]
fn more_than_64_dimensions_are_refused() {
    let ok = format!(
        "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}), }}",
        "1, ".repeat(64)
    );
    assert_eq!(
        Header::from_text(&ok, npy_core::Version::V1_0, &ReadOptions::default())
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
            Header::from_text(&text, npy_core::Version::V2_0, &ReadOptions::default()).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidShape { .. }),
            "{n}: {err}"
        );
    }
}
