//! `.npz` archives in a store: npy-npz's reader over the blocking wrapper (`BlockingObject` is a
//! `ReadAt`), with the requests each operation takes counted. The archives are written by the
//! pinned numpy (`np.savez`, stored members), and what is read remotely must be what numpy
//! reports for each member.

use std::process::Command;
use std::sync::Arc;

use npy_object_store::{block_on, BlockingObject, CountingStore, RemoteError, RemoteErrorKind};

use crate::common::expect;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

/// What Python's zipfile says of one member: where its local header is, its name's length
/// and its (compressed) size, in bytes.
struct ZipInfo {
    header_offset: u64,
    name_len: u64,
    compress_size: u64,
}

/// An archive of `n` members `m0`…, member `i` an `<i4` array of shape `(i % 7 + 1,)` holding
/// `arange(i % 7 + 1) + i`, as `np.savez` writes it, and zipfile's view of member `probe`;
/// `None` when the pinned Python is missing.
fn numpy_archive(n: usize, probe: &str) -> Option<(Vec<u8>, ZipInfo)> {
    let python = npy_test_support::python::python_for("remote .npz written by np.savez")?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.npz");
    let script = format!(
        "import sys, zipfile\nimport numpy as np\n\
         np.savez(sys.argv[1], **{{f'm{{i}}': np.arange(i % 7 + 1, dtype='<i4') + i for i in range({n})}})\n\
         i = zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2] + '.npy')\n\
         print(i.header_offset, len(i.filename.encode()), i.compress_size)\n"
    );
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&path)
        .arg(probe)
        .output()
        .unwrap();
    assert!(out.status.success(), "np.savez failed: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let info = ZipInfo {
        header_offset: v[0],
        name_len: v[1],
        compress_size: v[2],
    };
    Some((std::fs::read(path).unwrap(), info))
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

/// The header of one member of a remote 1,000-member archive in three requests, the issue's
/// target: the object's first read ([`npy_core::__private::FIRST_READ_BYTES`]), the directory's suffix
/// read ([`npy_npz::SUFFIX_BYTES`], here the whole archive, which is shorter), and the
/// member's local header with its first bytes in one ranged GET (opening reads no local
/// header). The member's values then take one more GET.
#[test]
fn one_member_of_a_thousand_in_three_requests() {
    let Some((archive, info)) = numpy_archive(1000, "m500") else {
        return;
    };
    let size = archive.len() as u64;
    // The member lies past the first read, and the directory in the suffix read.
    assert!(info.header_offset > npy_core::__private::FIRST_READ_BYTES as u64);
    assert!(size > npy_core::__private::FIRST_READ_BYTES as u64);
    let counting = CountingStore::new(InMemory::new());
    let counts = counting.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(counting);
    put(&store, "many.npz", archive);
    counts.take();

    let object =
        BlockingObject::open(Arc::clone(&store), "many.npz".into(), "memory:///many.npz").unwrap();
    expect(
        &counts,
        "the object's first read",
        1,
        npy_core::__private::FIRST_READ_BYTES as u64,
    );
    let npz = npy_npz::NpzArchive::new(object).unwrap();
    expect(
        &counts,
        "the end record and directory",
        1,
        size.min(npy_npz::SUFFIX_BYTES),
    );
    let header = npz.header("m500").unwrap();
    // The local header (30 bytes, three times the central name and 32 bytes more, for a
    // local name that differs or takes more bytes in its own encoding) and the member's first
    // bytes: all of this small member, compressed size = size.
    expect(
        &counts,
        "one member's header",
        1,
        30 + 3 * info.name_len + 32 + info.compress_size,
    );
    assert_eq!(npz.keys().count(), 1000);
    // np.arange(500 % 7 + 1, dtype='<i4') + 500, as the script saved it.
    assert_eq!(header.header.dtype.to_string(), "<i4");
    assert_eq!(header.header.shape, [500 % 7 + 1]);

    let values = npz.read::<i32>("m500").unwrap();
    let expected: Vec<i32> = (0..=500 % 7).map(|k| 500 + k).collect();
    assert_eq!(values.data(), expected);
    expect(&counts, "one member's values", 1, info.compress_size);
}
