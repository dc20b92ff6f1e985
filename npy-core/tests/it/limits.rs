//! Limits at their boundaries: what a header claims never allocates what the input does not
//! back, and sizes beyond numpy's own limits are refused (inputs that once over-allocated or
//! crashed, found by fuzzing, `tests/alloc_bound.rs` and review, kept as bytes).

use npy_test_support::cpu::CpuTimer;
use std::io::Read;
use std::time::Duration;

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
        let start = CpuTimer::start();
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
    assert_eq!(
        a.element(2).unwrap().field("flag"),
        Some(&DynValue::Bool(true))
    );
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
        Header::from_text(
            &ok,
            npy_core::format::Version::V1_0,
            &ReadOptions::default()
        )
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
        let err = Header::from_text(
            &text,
            npy_core::format::Version::V2_0,
            &ReadOptions::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidShape { .. }),
            "{n}: {err}"
        );
    }
}

/// `X7_claim.npy` of the bug report (/work/shared/cases/turn2): a 128-byte file whose header
/// claims 2,147,483,649 `|u1` elements and holds no data. numpy: "Failed to read all data";
/// `read_dyn` said the data was not backed by the file (an allocation refused) instead.
const X7_CLAIM: &[u8] = b"\x93NUMPY\x01\x00\x76\x00{'descr': '|u1', 'fortran_order': False, \
'shape': (2147483649,), }                                                   \n";

/// Whether `e` is `Truncated` with exactly these counts (data bytes needed, and there).
fn truncated(e: &Error, needed: u64, found: u64) -> bool {
    matches!(e.kind(), ErrorKind::Truncated { needed: n, found: f, .. } if *n == needed && *f == found)
}

#[test]
fn x7_a_header_claiming_more_than_the_file_holds_is_truncated() {
    assert_eq!(X7_CLAIM.len(), 128);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("X7_claim.npy");
    std::fs::write(&path, X7_CLAIM).unwrap();
    let needed = 2_147_483_649;
    let check = |what: &str, r: Result<(), Error>, needed: u64| {
        let e = r.unwrap_err();
        assert!(truncated(&e, needed, 0), "{what}: {e}");
    };
    check("read_dyn", npy_core::read_dyn(&path).map(drop), needed);
    check("read::<u8>", npy_core::read::<u8>(&path).map(drop), needed);
    let safe = ReadOptions::default().casting(npy_core::read::Casting::Safe);
    check(
        "read_with::<u64> (widening)",
        npy_core::read::read_with::<u64>(&path, &safe).map(drop),
        needed,
    );
    let open = || NpyReader::open(&path).unwrap();
    check("read_vec", open().read_vec::<u8>().map(drop), needed);
    check("read_into", open().read_into(&mut [0u8; 10]), needed);
    check(
        "iter",
        open().iter::<u8>().unwrap().next().unwrap().map(drop),
        needed,
    );
    check("read_range", open().read_range::<u8>(0..10).map(drop), 10);
    check("read_dyn_range", open().read_dyn_range(5..10).map(drop), 10);
    // A stream of unknown length finds the end as it reads.
    let stream = || NpyReader::new(X7_CLAIM).unwrap();
    check("stream read_dyn", stream().read_dyn().map(drop), needed);
    check(
        "stream read_vec",
        stream().read_vec::<u8>().map(drop),
        needed,
    );
}

/// Every dtype family claiming far more elements than the file holds (2^31 + 1, as real
/// numpy files can be), three of them there: `Truncated` with the data bytes the header
/// claims and those the file holds, never an allocation refused — for `read_dyn` and for the
/// typed read of the family's own Rust type.
#[test]
fn every_dtype_family_claiming_more_than_the_file_holds_is_truncated() {
    use npy_core::element::units;
    use npy_core::{element::Timedelta64, half::f16, num_complex::Complex, Datetime64};
    type Typed = fn(&std::path::Path) -> Result<(), Error>;
    fn typed<T: npy_core::NpyElement>(p: &std::path::Path) -> Result<(), Error> {
        npy_core::read::<T>(p).map(drop)
    }
    let families: [(&str, Option<Typed>); 17] = [
        ("|b1", Some(typed::<bool>)),
        ("|i1", Some(typed::<i8>)),
        ("|u1", Some(typed::<u8>)),
        ("<f2", Some(typed::<f16>)),
        ("<f4", Some(typed::<f32>)),
        (">f8", Some(typed::<f64>)),
        ("<c8", Some(typed::<Complex<f32>>)),
        ("|S1", Some(typed::<Vec<u8>>)),
        ("<U1", Some(typed::<String>)),
        ("|V1", None),
        ("<M8[s]", Some(typed::<Datetime64<units::S>>)),
        ("<m8[ns]", Some(typed::<Timedelta64<units::Ns>>)),
        ("<f16", None), // numpy's float128 (x87 long double): read_dyn only
        ("<c32", None),
        ("[('a', '|u1'), ('b', '<f4')]", None),
        ("('|u1', (2,))", Some(typed::<[u8; 2]>)),
        ("[('a', '|S0'), ('b', '|u1')]", None), // a zero-size field beside a backed one
    ];
    let dir = tempfile::tempdir().unwrap();
    let claim: u64 = (1 << 31) + 1;
    for (descr, typed) in families {
        let dtype: npy_core::DType = descr.parse().unwrap();
        let itemsize = dtype.itemsize();
        let mut bytes = Header::new(dtype, vec![claim]).to_bytes(None).unwrap();
        bytes.extend(std::iter::repeat_n(0u8, 3 * itemsize as usize));
        let path = dir.path().join("claim.npy");
        std::fs::write(&path, &bytes).unwrap();
        let (needed, found) = (claim * itemsize, 3 * itemsize);
        let e = npy_core::read_dyn(&path).unwrap_err();
        assert!(truncated(&e, needed, found), "{descr} read_dyn: {e}");
        if let Some(read) = typed {
            let e = read(&path).unwrap_err();
            assert!(truncated(&e, needed, found), "{descr} typed: {e}");
        }
    }
}

/// A real read of each family just past where a `read_dyn` expansion constant too small for
/// it would refuse: with `DYN_ALLOWANCE + 1` elements, even one byte of values per element
/// beyond the constant's bound passes the allowance. The values are what the zero bytes
/// decode to under the format's rules.
#[test]
fn read_dyn_of_each_family_past_the_allowance() {
    let n = npy_core::dynamic::DYN_ALLOWANCE + 1;
    let dir = tempfile::tempdir().unwrap();
    let epoch = |v: &DynValue| matches!(v, DynValue::Datetime { ticks: Some(0), .. });
    type IsZero<'a> = &'a dyn Fn(&DynValue) -> bool;
    let zeros: [(&str, IsZero<'_>); 7] = [
        ("|b1", &|v| *v == DynValue::Bool(false)),
        ("|i1", &|v| *v == DynValue::Int(0)),
        ("|u1", &|v| *v == DynValue::UInt(0)),
        ("<f2", &|v| *v == DynValue::Float(0.0)),
        ("|S1", &|v| *v == DynValue::Bytes(Vec::new())),
        ("<U1", &|v| {
            *v == DynValue::Str(npy_core::dynamic::UcsString::from(""))
        }),
        ("<M8[s]", &epoch),
    ];
    for (descr, zero) in zeros {
        let dtype: npy_core::DType = descr.parse().unwrap();
        let mut bytes = Header::new(dtype.clone(), vec![n]).to_bytes(None).unwrap();
        bytes.resize(bytes.len() + (n * dtype.itemsize()) as usize, 0);
        let path = dir.path().join("family.npy");
        std::fs::write(&path, &bytes).unwrap();
        let a = npy_core::read_dyn(&path).unwrap_or_else(|e| panic!("{descr}: {e}"));
        assert_eq!(a.len() as u64, n, "{descr}");
        assert!(zero(&a.element(n as usize - 1).unwrap()), "{descr}");
    }
    // A record and a subarray of one byte, and a void.
    for descr in ["[('a', '|u1')]", "('|u1', (1,))", "|V1"] {
        let dtype: npy_core::DType = descr.parse().unwrap();
        let mut bytes = Header::new(dtype, vec![n]).to_bytes(None).unwrap();
        bytes.resize(bytes.len() + n as usize, 0);
        let a = NpyReader::new(&bytes[..]).unwrap().read_dyn();
        let a = a.unwrap_or_else(|e| panic!("{descr}: {e}"));
        assert_eq!(a.len() as u64, n, "{descr}");
    }
}

/// Typed reads of elements that take no file bytes get `MAX_UNBACKED_BYTES` of them: exactly
/// that many bytes of `Vec<u8>` (24 each) from `|S0` read; one element more is refused.
#[test]
fn typed_zero_size_elements_at_the_unbacked_boundary() {
    let each = std::mem::size_of::<Vec<u8>>() as u64;
    let fit = npy_core::read::MAX_UNBACKED_BYTES / each;
    let bytes = file_with("|S0", vec![fit]);
    let v = NpyReader::new(&bytes[..]).unwrap().read_vec::<Vec<u8>>();
    assert_eq!(v.unwrap().len() as u64, fit);
    let bytes = file_with("|S0", vec![fit + 1]);
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<Vec<u8>>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::AllocationLimit { elements, .. } if *elements == fit + 1),
        "{err}"
    );
}
