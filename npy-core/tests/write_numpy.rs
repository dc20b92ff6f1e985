//! The writers against numpy: every simple-dtype fixture, read typed and written back with the
//! same dtype, memory order and byte order, is byte-identical to the file `np.save` wrote (slice
//! writer and streaming writer); atomic file writes; hostile inputs fail before allocating.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fs;
use std::io::Cursor;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use npy_core::{
    dtype::Primitive, read, ByteOrder, DType, Error, ErrorKind, Header, MemoryOrder, NpyReader,
    WriteOptions,
};
use npy_test_support::growth::options_for;
use npy_test_support::*;
use serde_json::Value as Json;

/// Records the largest single allocation, so the hostile-input tests can show that no
/// allocation near the header's claimed size happened.
struct Tracking;

static LARGEST_ALLOC: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The largest allocation of this thread since [`largest_on_this_thread`] last reset it,
    /// for bounds that parallel tests must not disturb (no destructor: safe in the allocator).
    static THREAD_LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    LARGEST_ALLOC.fetch_max(size, Ordering::Relaxed);
    THREAD_LARGEST.with(|t| t.set(t.get().max(size)));
}

/// The largest single allocation `f` made on this thread.
#[cfg(feature = "ndarray")]
fn largest_on_this_thread(f: impl FnOnce()) -> usize {
    THREAD_LARGEST.with(|t| t.set(0));
    f();
    THREAD_LARGEST.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout (every allocation goes through it).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: as for `dealloc`; `new_size` is the caller's, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// Reads a fixture typed and writes it back with the slice writer, in memory and to a path.
struct Rewrite<'a>(&'a Json, &'a Path);

impl Visitor for Rewrite<'_> {
    type Out = Result<(), String>;

    fn visit<T: Elem>(self) -> Result<(), String> {
        let (e, dir) = (self.0, self.1);
        let (name, original, a) = read_fixture::<T>(e)?;
        let opts = options_for::<T>(e);
        let mut ours = Vec::new();
        opts.write_to(&mut ours, a.data(), a.shape())
            .map_err(|err| format!("write_to: {err}"))?;
        if ours != original {
            return Err(first_difference("write_to", &ours, &original));
        }
        let path = dir.join(name);
        opts.write_path(&path, a.data(), a.shape())
            .map_err(|err| format!("write_path: {err}"))?;
        let written = fs::read(&path).unwrap();
        if written != original {
            return Err(first_difference("write_path", &written, &original));
        }
        Ok(())
    }
}

/// Streams a C-order fixture (ndim >= 1) row by row.
struct Stream<'a>(&'a Json, &'a Path);

impl Visitor for Stream<'_> {
    type Out = Result<(), String>;

    fn visit<T: Elem>(self) -> Result<(), String> {
        let (e, dir) = (self.0, self.1);
        let (name, original, a) = read_fixture::<T>(e)?;
        let row_shape = &a.shape()[1..];
        let rows = a.shape()[0] as usize;
        let row_len: u64 = row_shape.iter().product();
        let opts = options_for::<T>(e);

        let mut w = opts
            .stream_to::<_, T>(Cursor::new(Vec::new()), row_shape)
            .map_err(|err| format!("stream_to: {err}"))?;
        for r in 0..rows {
            let row = &a.data()[r * row_len as usize..(r + 1) * row_len as usize];
            w.push_row(row).map_err(|err| format!("push_row: {err}"))?;
        }
        let ours = w
            .finish()
            .map_err(|err| format!("finish: {err}"))?
            .into_inner();
        if ours != original {
            return Err(first_difference("stream_to", &ours, &original));
        }

        let path = dir.join(format!("stream_{name}"));
        let mut w = opts
            .create_stream::<T>(&path, row_shape)
            .map_err(|err| format!("create_stream: {err}"))?;
        // Element by element this time.
        for v in a.data() {
            w.push(v).map_err(|err| format!("push: {err}"))?;
        }
        for _ in 0..rows {
            if row_len == 0 {
                w.push_row(&[]).map_err(|err| format!("push_row: {err}"))?;
            }
        }
        w.finish().map_err(|err| format!("finish: {err}"))?;
        let written = fs::read(&path).unwrap();
        if written != original {
            return Err(first_difference("create_stream", &written, &original));
        }
        Ok(())
    }
}

fn first_difference(what: &str, ours: &[u8], numpy: &[u8]) -> String {
    let at = ours
        .iter()
        .zip(numpy)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(numpy.len()));
    let show = |b: &[u8]| {
        String::from_utf8_lossy(&b[at.saturating_sub(16)..(at + 16).min(b.len())]).into_owned()
    };
    format!(
        "{what}: {} bytes, numpy {}; first difference at byte {at}: ours {:?}, numpy {:?}",
        ours.len(),
        numpy.len(),
        show(ours),
        show(numpy)
    )
}

#[test]
fn slice_writer_reproduces_every_simple_fixture_byte_for_byte() {
    assert_skips_are_expected();
    let dir = tempfile::tempdir().unwrap();
    let fixtures = simple_fixtures();
    let mut failures = Vec::new();
    for e in &fixtures {
        if let Some(Err(msg)) = dispatch(&dtype_of(e), Rewrite(e, dir.path())) {
            failures.push(format!("{}: {msg}", e["file"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(fixtures.len() >= 150, "only {} fixtures", fixtures.len());
    assert_no_temp_files(dir.path());
}

#[test]
fn streaming_writer_reproduces_every_c_order_fixture_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for e in simple_fixtures() {
        if order_of(&e) != MemoryOrder::C || shape_of(&e).is_empty() {
            continue;
        }
        checked += 1;
        if let Some(Err(msg)) = dispatch(&dtype_of(&e), Stream(&e, dir.path())) {
            failures.push(format!("{}: {msg}", e["file"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 80, "only {checked} fixtures streamed");
    assert_no_temp_files(dir.path());
}

/// Regression: rows of zero elements used to be uncounted, so streaming three empty rows wrote
/// shape `(0, 0)` instead of numpy's `(3, 0)` (`i2_le_c_3x0.npy`).
#[test]
fn streaming_zero_length_rows_counts_them() {
    let mut w = WriteOptions::new()
        .stream_to::<_, i16>(Cursor::new(Vec::new()), &[0])
        .unwrap();
    for _ in 0..3 {
        w.push_row(&[]).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(bytes, fs::read(fixture("i2_le_c_3x0.npy")).unwrap());
    assert_eq!(NpyReader::new(&bytes[..]).unwrap().shape(), [3, 0]);
}

/// Regression: a push that failed (a string too long for the dtype) used to leave its
/// half-written element in the buffer, so the file had one element more than its header and
/// the rejected value's prefix took the place of the next one.
#[test]
fn a_rejected_push_leaves_no_bytes_behind() {
    let mut w = WriteOptions::new()
        .dtype(DType::Unicode(3, ByteOrder::Little))
        .stream_to::<_, String>(Cursor::new(Vec::new()), &[])
        .unwrap();
    w.push(&"ab".to_owned()).unwrap();
    assert!(matches!(
        w.push(&"abcd".to_owned()).map_err(Error::into_kind),
        Err(ErrorKind::ValueTooLong { len: 4, .. })
    ));
    w.push(&"xyz".to_owned()).unwrap();
    assert_eq!(w.elements_written(), 2);
    let bytes = w.finish().unwrap().into_inner();
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    assert_eq!(r.shape(), [2]);
    assert_eq!(r.read_vec::<String>().unwrap(), ["ab", "xyz"]);
    let header_len = r.parsed_header().data_offset() as usize;
    assert_eq!(bytes.len(), header_len + 2 * 12);

    let mut w = WriteOptions::new()
        .dtype(DType::Bytes(2))
        .stream_to::<_, Vec<u8>>(Cursor::new(Vec::new()), &[])
        .unwrap();
    assert!(w.push(&b"abc".to_vec()).is_err());
    w.push(&b"z".to_vec()).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let got = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<Vec<u8>>()
        .unwrap();
    assert_eq!(got, [b"z".to_vec()]);
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn assert_no_temp_files(dir: &Path) {
    let stray: Vec<String> = entries(dir)
        .into_iter()
        .filter(|n| !n.ends_with(".npy"))
        .collect();
    assert!(stray.is_empty(), "left behind: {stray:?}");
}

#[test]
fn atomic_write_replaces_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.npy");

    // A larger file is replaced whole by a smaller one (no stale tail).
    npy_core::write(&path, &vec![7.5f64; 1000], &[1000]).unwrap();
    npy_core::write(&path, &[1u8, 2, 3], &[3]).unwrap();
    let mut want = Vec::new();
    WriteOptions::new()
        .write_to(&mut want, &[1u8, 2, 3], &[3])
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), want);
    assert_eq!(entries(dir.path()), ["a.npy"]);

    // Failing writes leave the target untouched and nothing else behind.
    let before = fs::read(&path).unwrap();
    let err = npy_core::write(&path, &[1.0f32, 2.0, 3.0], &[2, 2]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LengthMismatch { .. }),
        "{err:?}"
    );
    let err = WriteOptions::new()
        .dtype(DType::Unicode(3, ByteOrder::Little))
        .write_path(&path, &["ok".to_owned(), "too long".to_owned()], &[2])
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ValueTooLong { len: 8, .. }),
        "{err:?}"
    );
    let err = WriteOptions::new()
        .dtype(DType::Bytes(2))
        .write_path(&path, &[b"abc".to_vec()], &[1])
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ValueTooLong { len: 3, .. }),
        "{err:?}"
    );
    let err = WriteOptions::new()
        .dtype("<f8".parse().unwrap())
        .write_path(&path, &[1.0f32], &[1])
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err:?}"
    );
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(entries(dir.path()), ["a.npy"]);

    // An unfinished stream leaves nothing under its path; a failed finish neither.
    let fresh = dir.path().join("stream.npy");
    {
        let mut w = WriteOptions::new()
            .create_stream::<f32>(&fresh, &[2])
            .unwrap();
        w.push_row(&[1.0, 2.0]).unwrap();
        w.push_row(&[3.0, 4.0]).unwrap();
    }
    assert!(!fresh.exists());
    let mut w = WriteOptions::new()
        .create_stream::<f32>(&fresh, &[2])
        .unwrap();
    w.push(&1.0).unwrap();
    assert!(matches!(
        w.finish().map_err(Error::into_kind),
        Err(ErrorKind::LengthMismatch { .. })
    ));
    assert!(!fresh.exists());
    // ... and an unfinished stream over an existing file leaves that file as it was.
    {
        let mut w = WriteOptions::new().create_stream::<u8>(&path, &[]).unwrap();
        w.push(&9).unwrap();
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(entries(dir.path()), ["a.npy"]);

    // A finished stream replaces it.
    let mut w = WriteOptions::new().create_stream::<u8>(&path, &[]).unwrap();
    w.extend_from_slice(&[1, 2, 3]).unwrap();
    w.finish().unwrap();
    assert_eq!(fs::read(&path).unwrap(), want);
    assert_eq!(entries(dir.path()), ["a.npy"]);
}

fn f8_header(shape: Vec<u64>) -> Vec<u8> {
    Header::new(DType::Number(Primitive::F64, ByteOrder::Little), shape)
        .to_bytes(None)
        .unwrap()
}

#[test]
fn truncated_data_is_truncated() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["f8_le_c_2x3x4.npy", "U5_be_f_2x3x4.npy", "b1_na_c_5.npy"] {
        let mut bytes = fs::read(fixture(name)).unwrap();
        bytes.pop();
        let path = dir.path().join(name);
        fs::write(&path, &bytes).unwrap();
        let e = entry(name);
        struct Check<'a>(&'a Path, &'a [u8]);
        impl Visitor for Check<'_> {
            type Out = (Result<(), Error>, Result<(), Error>, Result<(), Error>);
            fn visit<T: Elem>(self) -> Self::Out {
                let by_path = read::<T>(self.0).map(drop);
                let by_stream = NpyReader::new(self.1)
                    .and_then(|mut r| r.read_vec::<T>())
                    .map(drop);
                let by_iter = NpyReader::new(self.1)
                    .and_then(|mut r| r.iter::<T>()?.try_for_each(|x| x.map(drop)));
                (by_path, by_stream, by_iter)
            }
        }
        let (a, b, c) = dispatch(&dtype_of(&e), Check(&path, &bytes)).unwrap();
        let nbytes = e["nbytes"].as_u64().unwrap();
        for (how, r) in [("path", a), ("stream", b), ("iter", c)] {
            match r.map_err(Error::into_kind) {
                Err(ErrorKind::Truncated {
                    what: "array data",
                    needed,
                    found,
                }) => {
                    assert_eq!((needed, found), (nbytes, nbytes - 1), "{name} via {how}");
                }
                other => panic!("{name} via {how}: expected Truncated, got {other:?}"),
            }
        }
    }
}

#[test]
fn a_header_claiming_terabytes_fails_before_allocating() {
    // 10^12 f8 elements (8 TB) claimed by a ~150-byte file.
    let mut bytes = f8_header(vec![1_000_000_000_000]);
    bytes.extend_from_slice(&1.5f64.to_le_bytes());
    bytes.extend_from_slice(&[0u8; 10]);
    assert!(bytes.len() < 200);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.npy");
    fs::write(&path, &bytes).unwrap();

    let limit = 64 << 20;
    match read::<f64>(&path).map_err(Error::into_kind) {
        Err(ErrorKind::Truncated { needed, .. }) => assert_eq!(needed, 8_000_000_000_000),
        other => panic!("read: expected Truncated, got {other:?}"),
    }
    match NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<f64>()
        .map_err(Error::into_kind)
    {
        Err(ErrorKind::Truncated { needed, found, .. }) => {
            assert_eq!(needed, 8_000_000_000_000);
            assert_eq!(found, 18);
        }
        other => panic!("stream read_vec: expected Truncated, got {other:?}"),
    }
    // Per-element types grow in chunks too.
    let mut ubytes = Header::new(DType::Unicode(4, ByteOrder::Little), vec![1 << 40])
        .to_bytes(None)
        .unwrap();
    ubytes.extend_from_slice(&[0x41, 0, 0, 0]);
    assert!(matches!(
        NpyReader::new(&ubytes[..])
            .unwrap()
            .read_vec::<String>()
            .map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
    let largest = LARGEST_ALLOC.load(Ordering::Relaxed);
    assert!(largest < limit, "an allocation of {largest} bytes happened");
}

#[test]
fn a_shape_whose_size_overflows_is_size_overflow() {
    let dir = tempfile::tempdir().unwrap();
    for shape in [
        vec![1 << 32, 1 << 32], // 2^64 elements
        vec![1 << 62],          // 2^65 bytes of f8
        vec![u64::MAX, 2],
    ] {
        // By hand: such a header is never written (np.load refuses it).
        let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
        let text = format!("({},)", dims.join(", "));
        let bytes = raw_npy_v2("'<f8'", &text, &[0u8; 64]);
        let path = dir.path().join("overflow.npy");
        fs::write(&path, &bytes).unwrap();
        assert!(
            matches!(
                read::<f64>(&path).map_err(Error::into_kind),
                Err(ErrorKind::SizeOverflow { .. })
            ),
            "{shape:?}"
        );
        assert!(
            matches!(
                NpyReader::new(&bytes[..]).map_err(Error::into_kind),
                Err(ErrorKind::SizeOverflow { .. })
            ),
            "{shape:?}"
        );
    }
    // A zero dimension makes the array empty: nothing to read, nothing to allocate.
    let bytes = f8_header(vec![1 << 40, 0]);
    assert!(NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<f64>()
        .unwrap()
        .is_empty());
}

/// R9: `write_ndarray` of a view that is neither C- nor F-contiguous collected the whole array
/// into a `Vec` first (peak 2× the data for a 1 GiB view). It now writes the logical C order
/// through a bounded buffer: no allocation on the writing thread comes near the array's size.
/// The expected bytes follow the format's rule (C order: the last index varies fastest).
#[cfg(feature = "ndarray")]
#[test]
fn a_non_contiguous_ndarray_is_written_through_a_bounded_buffer() {
    use ndarray::{Array3, ShapeBuilder};
    let n = 256; // 16 MiB of u8
    let value = |i: usize, j: usize, k: usize| (7 * i + 3 * j + k) as u8;
    let a = Array3::<u8>::from_shape_fn((n, n, n).f(), |(i, j, k)| value(i, j, k));
    let view = a.view().permuted_axes([1, 2, 0]);
    assert!(view.as_slice().is_none() && view.t().as_slice().is_none());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r9.npy");
    let largest = largest_on_this_thread(|| npy_core::write_ndarray(&path, &view).unwrap());
    assert!(
        largest <= 1 << 20,
        "the write allocated {largest} bytes at once for a {} byte array",
        n * n * n
    );
    let bytes = fs::read(&path).unwrap();
    let r = NpyReader::new(&bytes[..]).unwrap();
    assert!(!r.header().fortran_order);
    assert_eq!(r.header().shape, [n as u64; 3]);
    let data = &bytes[r.data_offset() as usize..];
    assert_eq!(data.len(), n * n * n);
    // view[p, q, r] = a[r, p, q]; C order: offset (p * n + q) * n + r.
    for (p, q, r) in [
        (0, 0, 1),
        (1, 2, 3),
        (255, 0, 7),
        (17, 255, 254),
        (255, 255, 255),
    ] {
        assert_eq!(data[(p * n + q) * n + r], value(r, p, q), "[{p}, {q}, {r}]");
    }
    let mut expected = Vec::with_capacity(n * n * n);
    for p in 0..n {
        for q in 0..n {
            expected.extend((0..n).map(|r| value(r, p, q)));
        }
    }
    assert!(data == expected.as_slice());
}
