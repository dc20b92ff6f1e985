//! object_store's `InMemory` and `LocalFileSystem`, behind a `CountingStore`: every operation's GETs
//! and bytes, the header at the first read's boundary, and the faults these stores can show.

use std::sync::Arc;

use npy_core::{DynValue, ErrorKind, NpyReader};
use npy_object_store::{
    BlockingObject, CountingStore, Counts, RemoteErrorKind, RemoteNpy, RemoteOptions,
};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::common::{expect, header_ending_at, npy};

/// `(0..100_000)` as `<f4`, shape (1000, 100): 400,000 data bytes after a 128-byte header
/// (numpy pads the header to a multiple of 64).
fn matrix() -> (Vec<f32>, Vec<u8>) {
    let data: Vec<f32> = (0..100_000).map(|i| i as f32).collect();
    let bytes = npy(&data, &[1000, 100]);
    assert_eq!(bytes.len(), 128 + 400_000);
    (data, bytes)
}

const FIRST: u64 = npy_core::__private::FIRST_READ_BYTES as u64;
/// Data bytes the first GET holds.
const HELD: u64 = FIRST - 128;

/// Every read of [`RemoteNpy`] on `store`, with its requests and bytes; `put` stores an
/// object (through the store, or on the server behind it).
pub async fn exercise_async(
    store: Arc<dyn ObjectStore>,
    counts: &Counts,
    url: &str,
    put: impl AsyncFn(&str, Vec<u8>),
) {
    let (data, bytes) = matrix();
    put("m.npy", bytes).await;
    let opts = RemoteOptions::default().part_bytes(64 << 10);
    let a = RemoteNpy::open_with(Arc::clone(&store), "m.npy".into(), url, opts)
        .await
        .unwrap();
    expect(counts, "open", 1, FIRST);
    assert_eq!((a.shape(), a.meta().data_offset()), (&[1000, 100][..], 128));
    assert_eq!(a.dtype().to_string(), "<f4");

    let rows = a.read_rows::<f32>(900..902).await.unwrap();
    assert_eq!(rows, data[90_000..90_200]);
    expect(counts, "two rows", 1, 800);

    assert_eq!(a.read_rows::<f32>(0..2).await.unwrap(), data[..200]);
    expect(counts, "rows inside the first GET", 0, 0);

    let parts = a
        .read_ranges::<f32>(&[50_000..50_010, 50_100..50_110])
        .await
        .unwrap();
    assert_eq!(
        parts,
        [data[50_000..50_010].to_vec(), data[50_100..50_110].to_vec()]
    );
    expect(counts, "two near ranges, coalesced", 1, 440);

    assert_eq!(a.read_vec::<f32>().await.unwrap(), data);
    let rest = 400_000 - HELD;
    expect(
        counts,
        "whole array in 64 KiB parts",
        rest.div_ceil(64 << 10),
        rest,
    );

    // The whole object in the opening GET (no Range): nothing more for the whole array.
    let one = RemoteOptions::default().first_read(usize::MAX);
    let w = RemoteNpy::open_with(Arc::clone(&store), "m.npy".into(), url, one)
        .await
        .unwrap();
    expect(counts, "open with first_read(usize::MAX)", 1, 128 + 400_000);
    assert_eq!(w.read_vec::<f32>().await.unwrap(), data);
    assert_eq!(w.read_rows::<f32>(999..1000).await.unwrap(), data[99_900..]);
    expect(counts, "whole array from the opening GET", 0, 0);

    let d = a.read_dyn().await.unwrap();
    assert_eq!(d.element(99_999), Some(DynValue::Float(99_999.0)));
    expect(
        counts,
        "read_dyn in 64 KiB parts",
        rest.div_ceil(64 << 10),
        rest,
    );

    let tail = a.read_dyn_range(99_998..100_000).await.unwrap();
    assert_eq!(tail, [DynValue::Float(99_998.0), DynValue::Float(99_999.0)]);
    expect(counts, "read_dyn_range", 1, 8);

    let e = a.read_range::<f64>(0..1).await.unwrap_err();
    assert!(
        matches!(e.kind(), RemoteErrorKind::Npy(n) if matches!(n.kind(), ErrorKind::TypeMismatch { .. })),
        "{e}"
    );
    assert!(e.to_string().starts_with(url), "{e}");
    let e = a.read_rows::<f32>(999..1001).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::Npy(_)), "{e}");
    expect(counts, "refused reads send nothing", 0, 0);

    // Header boundaries: a header ending exactly at, one byte before and one byte after the
    // first read's end.
    put("h.npy", header_ending_at(256)).await;
    for (first, gets, bytes) in [(256, 1, 256), (257, 1, 257), (255, 2, 256)] {
        let o = RemoteOptions::default().first_read(first);
        let h = RemoteNpy::open_with(Arc::clone(&store), "h.npy".into(), url, o)
            .await
            .unwrap();
        assert_eq!(h.meta().data_offset(), 256);
        expect(
            counts,
            &format!("header of 256 bytes, first read {first}"),
            gets,
            bytes,
        );
        let v = h.read_dyn().await.unwrap();
        let name = h.dtype().to_string();
        assert!(name.starts_with("[('aaa"), "{name}");
        let first_field = match h.dtype() {
            npy_core::DType::Record(r) => r.fields()[0].name.to_string(),
            other => panic!("{other}"),
        };
        let values: Vec<_> = v.iter().map(|r| r.field(&first_field).cloned()).collect();
        assert_eq!(
            values,
            (1..=4).map(|i| Some(DynValue::UInt(i))).collect::<Vec<_>>()
        );
        let in_head = (first as u64).saturating_sub(256).min(4);
        expect(
            counts,
            "the 4 data bytes",
            u64::from(in_head < 4),
            4 - in_head,
        );
    }

    // A header claiming more data than the object holds: Truncated, from the size alone.
    let (_, mut short) = matrix();
    short.truncate(100_000);
    put("short.npy", short).await;
    let s = RemoteNpy::open(Arc::clone(&store), "short.npy".into(), url)
        .await
        .unwrap();
    expect(counts, "open short", 1, FIRST);
    for e in [
        s.read_vec::<f32>().await.unwrap_err(),
        s.read_rows::<f32>(900..901).await.unwrap_err(),
    ] {
        assert!(
            matches!(e.kind(), RemoteErrorKind::Npy(n) if matches!(n.kind(), ErrorKind::Truncated { .. })),
            "{e}"
        );
        assert_eq!(e.classify(), npy_core::error::Category::Format);
    }
    expect(counts, "short reads send nothing", 0, 0);

    // Missing: NotFound, naming the URL.
    let e = RemoteNpy::open(Arc::clone(&store), "nope.npy".into(), "x://nope.npy")
        .await
        .unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::NotFound), "{e}");
    assert_eq!(e.to_string(), "x://nope.npy: not found");
    assert_eq!(e.classify(), npy_core::error::Category::Io);

    // Changed after opening: the next GET's If-Match fails.
    put("c.npy", npy(&vec![1u8; 100_000], &[100_000])).await;
    let c = RemoteNpy::open(Arc::clone(&store), "c.npy".into(), url)
        .await
        .unwrap();
    expect(counts, "open c", 1, FIRST);
    put("c.npy", npy(&vec![2u8; 100_000], &[100_000])).await;
    let e = c.read_range::<u8>(90_000..90_001).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::Changed(_)), "{e}");
}

/// npy-core's positional `NpyReader` (`open_at`) on the blocking wrapper: the same requests.
pub fn exercise_blocking(store: Arc<dyn ObjectStore>, counts: &Counts, url: &str) {
    let (data, _) = matrix();
    let object = BlockingObject::open(store, "m.npy".into(), url).unwrap();
    expect(counts, "blocking open", 1, FIRST);
    let a = NpyReader::open_at(object).unwrap();
    expect(
        counts,
        "NpyReader::open_at: the header from the first GET",
        0,
        0,
    );
    assert_eq!(a.read_rows::<f32>(900..902).unwrap(), data[90_000..90_200]);
    expect(counts, "blocking rows", 1, 800);
    let parts = a
        .read_ranges::<f32>(&[50_000..50_010, 50_100..50_110])
        .unwrap();
    assert_eq!(parts[1], data[50_100..50_110]);
    expect(counts, "blocking ranges, coalesced", 1, 440);
    assert_eq!(a.read_vec::<f32>().unwrap(), data);
    expect(counts, "blocking whole array", 1, 400_000 - HELD);
}

#[tokio::test(flavor = "current_thread")]
async fn in_memory() {
    let store = CountingStore::new(InMemory::new());
    let counts = store.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(store);
    let s = Arc::clone(&store);
    let put = async |p: &str, b: Vec<u8>| {
        s.put(&Path::from(p), b.into()).await.unwrap();
    };
    exercise_async(Arc::clone(&store), &counts, "memory:///m.npy", put).await;
    counts.take();
    tokio::task::spawn_blocking(move || exercise_blocking(store, &counts, "memory:///m.npy"))
        .await
        .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn local_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let store = CountingStore::new(LocalFileSystem::new_with_prefix(dir.path()).unwrap());
    let counts = store.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(store);
    let url = format!("file://{}/m.npy", dir.path().display());
    let s = Arc::clone(&store);
    let put = async |p: &str, b: Vec<u8>| {
        s.put(&Path::from(p), b.into()).await.unwrap();
    };
    exercise_async(Arc::clone(&store), &counts, &url, put).await;
    counts.take();
    tokio::task::spawn_blocking(move || exercise_blocking(store, &counts, &url))
        .await
        .unwrap();
}

/// One call opens a URL: `BlockingObject::open_url` reads a `file://` array as its local file
/// reads, and a scheme whose backend this build lacks is refused naming the feature.
#[test]
fn open_url_is_one_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    let (values, bytes) = matrix();
    std::fs::write(&path, &bytes).unwrap();
    let url = format!("file://{}", path.display());
    let source =
        NpyReader::open_at(npy_object_store::BlockingObject::open_url(&url).unwrap()).unwrap();
    assert_eq!(source.read_vec::<f32>().unwrap(), values);
    if cfg!(not(feature = "aws")) {
        let e = npy_object_store::BlockingObject::open_url("s3://bucket/m.npy").unwrap_err();
        assert!(e.to_string().contains("aws"), "{e}");
    }
}
