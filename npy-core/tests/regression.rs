//! Inputs that once crashed, hung or over-allocated (found by fuzzing, `tests/alloc_bound.rs`
//! and review), kept as bytes so they never come back.

use std::io::Read;
use std::time::{Duration, Instant};

use npy_core::{DynValue, Error, ErrorKind, NpyReader};

/// `\x93NUMPY` 2.0, the header dict, then `data`.
fn npy2(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut out = b"\x93NUMPY\x02\x00".to_vec();
    out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(data);
    out
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

#[test]
fn descr_list_of_non_fields_fails_without_sizing_fields_by_it() {
    // A descr list of 100,000 ints reserved 100,000 `Field`s (about 96 bytes each) before
    // finding the first one invalid.
    let ones = vec!["1"; 100_000].join(",");
    let bytes = npy2(&format!("[{ones}]"), "(1,)", &[]);
    let err = npy_core::Header::read(&mut &bytes[..]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidDescr { .. }),
        "{err:?}"
    );
}
