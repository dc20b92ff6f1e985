//! `.npz` archives in a store: npy-npz's reader over the blocking wrapper (`BlockingObject` is a
//! `ReadAt`), with the requests each operation takes counted. The archives are written by the
//! pinned numpy (`np.savez`, stored members), and what is read remotely must be what numpy
//! reports for each member.

use std::process::Command;
use std::sync::Arc;

use npy_object_store::{block_on, BlockingObject, CountingStore, RemoteError, RemoteErrorKind};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

/// An archive of `n` members `m0`…, member `i` an `<i4` array of shape `(i % 7 + 1,)` holding
/// `arange(i % 7 + 1) + i`, as `np.savez` writes it; `None` when the pinned Python is missing.
fn numpy_archive(n: usize) -> Option<Vec<u8>> {
    let python = npy_test_support::python::python_for("remote .npz written by np.savez")?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.npz");
    let script = format!(
        "import sys\nimport numpy as np\n\
         np.savez(sys.argv[1], **{{f'm{{i}}': np.arange(i % 7 + 1, dtype='<i4') + i for i in range({n})}})\n"
    );
    let status = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success(), "np.savez failed");
    Some(std::fs::read(path).unwrap())
}

fn put(store: &Arc<dyn ObjectStore>, key: &str, bytes: Vec<u8>) {
    let s = Arc::clone(store);
    let key = key.to_owned();
    block_on("memory:///", async move {
        s.put(&Path::from(key.as_str()), bytes.into())
            .await
            .map(drop)
            .map_err(|e| RemoteError::new("memory:///", RemoteErrorKind::Store(e)))
    })
    .unwrap();
}

/// The header of one member of a remote 1,000-member archive: four requests today (the
/// object's first read, the directory's suffix read, every local header in one coalesced
/// `get_ranges`, the member's `.npy` header), one over the target of three, and a
/// member's values in one more. The fourth goes once the reader checks local headers per
/// member when it first reads one, instead of all at opening.
#[test]
fn one_member_of_a_thousand_in_four_requests() {
    let Some(archive) = numpy_archive(1000) else {
        return;
    };
    let counting = CountingStore::new(InMemory::new());
    let counts = counting.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(counting);
    put(&store, "many.npz", archive);
    counts.take();

    let object =
        BlockingObject::open(Arc::clone(&store), "many.npz".into(), "memory:///many.npz").unwrap();
    let npz = npy_npz::NpzArchive::new(object).unwrap();
    let header = npz.header("m500").unwrap();
    let opened = counts.take();
    assert!(
        opened.gets <= 4 && opened.heads == 0,
        "open and one header: {opened:?}"
    );
    assert_eq!(npz.keys().count(), 1000);
    // np.arange(500 % 7 + 1, dtype='<i4') + 500, as the script saved it.
    assert_eq!(header.header.dtype.to_string(), "<i4");
    assert_eq!(header.header.shape, [500 % 7 + 1]);

    let values = npz.read::<i32>("m500").unwrap();
    let expected: Vec<i32> = (0..=500 % 7).map(|k| 500 + k).collect();
    assert_eq!(values.data(), expected);
    let read = counts.take();
    assert!(read.gets <= 1, "one member's data: {read:?}");
}
