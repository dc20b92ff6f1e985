//! Rows of a remote array as Arrow `RecordBatch`es (feature `arrow`): numpy writes the arrays,
//! `RemoteNpy::read_record_batch` reads row ranges over a counting store, the batches go to
//! an Arrow IPC file, and pyarrow compares each column with numpy's values of the same rows.

use std::path::Path as FsPath;
use std::process::Command;
use std::sync::Arc;

use npy_object_store::{CountingStore, RemoteErrorKind, RemoteNpy};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::common::expect;

/// Writes `rec.npy` (5,000 records: int, string, float, datetime, bool; 41 bytes each) and
/// `mat.npy` (20,000 × 3 `<f8`) into argv[1].
const MAKE: &str = r"
import sys, numpy as np
d = sys.argv[1]
n = 5000
rec = np.zeros(n, [('id', '<i8'), ('name', '<U5'), ('score', '<f4'), ('when', '<M8[ms]'), ('ok', '?')])
rec['id'] = np.arange(n) * 7 - 3
rec['name'] = [f'r{i % 1000}' for i in range(n)]
rec['score'] = np.arange(n, dtype='<f4') / 4
rec['when'] = np.arange(n) * 86_400_123
rec['ok'] = np.arange(n) % 3 == 0
np.save(f'{d}/rec.npy', rec)
np.save(f'{d}/mat.npy', np.arange(60_000, dtype='<f8').reshape(20_000, 3) - 0.5)
";

/// argv: the .npy, the IPC file, the first and last row: pyarrow's view of the batch must be
/// numpy's of `np.load(npy)[first:last]`.
const CHECK: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.ipc as ipc
npy, arrow, start, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
a = np.load(npy)[start:stop]
t = ipc.open_file(arrow).read_all()
assert t.num_rows == len(a), (t.num_rows, len(a))
if a.dtype.names:
    assert t.column_names == list(a.dtype.names), t.column_names
    for f in a.dtype.names:
        got, want = t.column(f).to_pylist(), a[f].tolist()
        assert got == want, (f, got, want)
else:
    col = t.column(0).combine_chunks()
    assert isinstance(col.type, pa.FixedShapeTensorType), col.type
    got = col.to_numpy_ndarray()
    assert got.shape == a.shape and np.array_equal(got, a), (got, a)
print('ok')
";

fn pyarrow_python(what: &str) -> Option<std::path::PathBuf> {
    let python = npy_test_support::python::python_for(what)?;
    let ok = Command::new(&python)
        .args(["-c", "import pyarrow"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{what} needs pyarrow in the project's Python (xtask/requirements.txt; `cargo xtask venv`)"
    );
    Some(python)
}

fn check(python: &FsPath, npy: &FsPath, batch: &npy_arrow::RecordBatch, rows: (u64, u64)) {
    let dir = tempfile::tempdir().unwrap();
    let ipc = dir.path().join("rows.arrow");
    npy_arrow::write_ipc(&ipc, &batch.schema(), |w| w(batch)).unwrap();
    let out = Command::new(python)
        .arg("-c")
        .arg(CHECK)
        .arg(npy)
        .arg(&ipc)
        .arg(rows.0.to_string())
        .arg(rows.1.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        npy.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An object, its row size in bytes and the row ranges read: past the first GET, and inside it.
type Case = (&'static str, u64, &'static [(u64, u64)]);

#[tokio::test]
async fn row_ranges_as_record_batches_match_pyarrow() {
    let Some(python) = pyarrow_python("remote rows as Arrow batches against pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(&python)
        .arg("-c")
        .arg(MAKE)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let counting = CountingStore::new(InMemory::new());
    let counts = counting.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(counting);
    for name in ["rec.npy", "mat.npy"] {
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        store.put(&Path::from(name), bytes.into()).await.unwrap();
    }
    counts.take();

    let cases: [Case; 2] = [
        (
            "rec.npy",
            8 + 20 + 4 + 8 + 1,
            &[(3000, 3017), (4999, 5000), (0, 3)],
        ),
        (
            "mat.npy",
            3 * 8,
            &[(15_000, 15_004), (19_990, 20_000), (1, 2)],
        ),
    ];
    for (name, row_bytes, ranges) in cases {
        let url = format!("memory:///{name}");
        let a = RemoteNpy::open(Arc::clone(&store), name.into(), url.as_str())
            .await
            .unwrap();
        expect(
            &counts,
            "open",
            1,
            npy_core::__private::FIRST_READ_BYTES as u64,
        );
        let held = npy_core::__private::FIRST_READ_BYTES as u64 - a.meta().data_offset();
        for &(start, stop) in ranges {
            let batch = a.read_record_batch(start..stop).await.unwrap();
            if stop * row_bytes <= held {
                expect(&counts, "rows inside the first GET", 0, 0);
            } else {
                expect(&counts, "rows", 1, (stop - start) * row_bytes);
            }
            assert_eq!(batch.num_rows() as u64, stop - start);
            check(&python, &dir.path().join(name), &batch, (start, stop));
        }
        // Rows outside the array: npy-core's refusal, before any request.
        let err = a.read_record_batch(10..20_001).await.unwrap_err();
        assert!(matches!(err.kind(), RemoteErrorKind::Npy(_)), "{err}");
        assert!(err.to_string().starts_with(&url), "{err}");
        expect(&counts, "rows outside", 0, 0);
    }
}

/// A dtype Arrow has no type for (`<f16`, x87 longdouble): npy-arrow's refusal, typed,
/// naming the URL.
#[tokio::test]
async fn a_dtype_arrow_cannot_hold_is_a_typed_error() {
    let store = Arc::new(InMemory::new());
    let mut bytes = npy_core::Header::new("<f16".parse().unwrap(), vec![4])
        .to_bytes(None)
        .unwrap();
    bytes.extend_from_slice(&[0u8; 64]);
    store
        .put(&Path::from("ld.npy"), bytes.into())
        .await
        .unwrap();
    let a = RemoteNpy::open(store, "ld.npy".into(), "memory:///ld.npy")
        .await
        .unwrap();
    let err = a.read_record_batch(0..2).await.unwrap_err();
    assert!(matches!(err.kind(), RemoteErrorKind::Arrow(_)), "{err}");
    assert!(err.to_string().starts_with("memory:///ld.npy: "), "{err}");
}
