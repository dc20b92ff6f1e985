//! The example's SQL against numpy: numpy writes the file and computes the expected answer,
//! the example (the built binary, as a user runs it) answers the query.

use std::path::Path;
use std::process::Command;

use npy_test_support::python::{python_for, run_script};

/// Runs the example on `file` with `sql` and returns the result table's rows (cells trimmed,
/// header row first).
fn query(file: &str, sql: &str) -> Vec<Vec<String>> {
    let out = Command::new(env!("CARGO_BIN_EXE_npy-datafusion-sql"))
        .args([file, sql])
        .output()
        .expect("the example starts");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 table");
    assert!(
        out.status.success(),
        "{sql}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    // pretty_format_batches: `+---+` rules and `| a | b |` rows.
    stdout
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn close(ours: f64, numpy: f64) -> bool {
    // DataFusion sums per partition and numpy pairwise: the order of additions differs.
    (ours - numpy).abs() <= 1e-12 * numpy.abs().max(1.0)
}

#[test]
fn group_by_over_a_record_npy_matches_numpy() {
    let Some(python) = python_for("SQL over a record .npy against numpy's group sums") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    // Issue 24's record, 300,001 rows: about 21 MB, so npy-arrow streams 3 batches (8 MiB
    // each) and DataFusion scans more than one partition.
    let script = r"
import sys, numpy as np
n = 300_001
rng = np.random.default_rng(24)
a = np.zeros(n, dtype=[('id','<i8'), ('name','<U12'), ('score','<f4'), ('when','<M8[ms]'), ('ok','?')])
a['id'] = np.arange(n) * 7 - 1000
a['name'] = [f'n{i % 977}' for i in range(n)]
a['score'] = rng.random(n, dtype=np.float32)
a['when'] = np.datetime64('2024-01-01T00:00:00', 'ms') + rng.integers(0, 10**9, n)
a['ok'] = rng.random(n) < 0.3
np.save(sys.argv[1], a)
for v in (False, True):
    m = a['ok'] == v
    print(str(v).lower(), int(m.sum()), repr(float(a['score'][m].astype(np.float64).mean())),
          int(a['id'][m].sum()), int(a['id'][m].max()))
";
    let expected = run_script(&python, script, [&path]);
    let rows = query(
        path.to_str().unwrap(),
        "SELECT ok, count(*), avg(score), sum(id), max(id) FROM t GROUP BY ok ORDER BY ok",
    );
    assert_eq!(
        rows[0],
        ["ok", "count(*)", "avg(t.score)", "sum(t.id)", "max(t.id)"]
    );
    let expected: Vec<Vec<&str>> = expected.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(rows.len(), 1 + expected.len(), "{rows:?}");
    for (row, want) in rows[1..].iter().zip(&expected) {
        assert_eq!(row[0], want[0], "group key");
        assert_eq!(row[1], want[1], "count of ok={}", want[0]);
        let (ours, numpy): (f64, f64) = (row[2].parse().unwrap(), want[2].parse().unwrap());
        assert!(
            close(ours, numpy),
            "avg(score) of ok={}: {ours} vs numpy {numpy}",
            want[0]
        );
        assert_eq!(row[3], want[3], "sum(id) of ok={}", want[0]);
        assert_eq!(row[4], want[4], "max(id) of ok={}", want[0]);
    }
}

#[test]
fn an_npz_member_is_a_table_named_by_its_key() {
    let Some(python) = python_for("SQL over an .npz member against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.npz");
    let script = r"
import sys, numpy as np
counts = (np.arange(1000, dtype=np.int64) * 37) % 101 - 50
np.savez(sys.argv[1], other=np.zeros(3), counts=counts)
m = counts % 3 == 0
print(int(m.sum()), int(counts[m].sum()))
";
    let expected = run_script(&python, script, [&path]);
    let want: Vec<&str> = expected.split_whitespace().collect();
    let member = format!("{}:counts", path.display());
    let rows = query(
        &member,
        "SELECT count(*) AS n, sum(counts) AS s FROM counts WHERE counts % 3 = 0",
    );
    assert_eq!(rows, [vec!["n", "s"], want]);
}

#[test]
fn a_bad_query_fails_with_datafusions_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npy");
    // The format's rules: a version 1.0 header for 2 little-endian i4, the magic, version,
    // length and dict padded with spaces and a newline to 128 bytes.
    let mut header = b"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }".to_vec();
    header.resize(128 - 10 - 1, b' ');
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&[5, 0, 0, 0, 6, 0, 0, 0]);
    std::fs::write(&path, bytes).unwrap();
    let rows = query(path.to_str().unwrap(), "SELECT sum(x) FROM x");
    assert_eq!(rows, [vec!["sum(x.x)"], vec!["11"]]);
    let out = Command::new(env!("CARGO_BIN_EXE_npy-datafusion-sql"))
        .args([path.to_str().unwrap(), "SELECT nope FROM x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nope"), "{stderr}");
    let missing = Path::new(dir.path()).join("missing.npy");
    let out = Command::new(env!("CARGO_BIN_EXE_npy-datafusion-sql"))
        .args([missing.to_str().unwrap(), "SELECT 1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing.npy"), "{stderr}");
}

#[test]
fn an_array_without_rows_is_an_empty_table() {
    let Some(python) = python_for("SQL over numpy's arrays without rows") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A Fortran-order array of 2 dimensions without rows: npy-arrow hands out its schema and
    // no batch at all; a C-order one without rows, one batch of 0 rows.
    let script = r"
import sys, numpy as np
np.save(sys.argv[1], np.asfortranarray(np.zeros((0, 3), dtype='<f8')))
np.save(sys.argv[2], np.zeros(0, dtype=[('a', '<i4'), ('b', '?')]))
print(len(np.load(sys.argv[1])), len(np.load(sys.argv[2])))
";
    let (f, c) = (dir.path().join("f.npy"), dir.path().join("c.npy"));
    let expected = run_script(&python, script, [&f, &c]);
    let want: Vec<&str> = expected.split_whitespace().collect();
    let rows = query(f.to_str().unwrap(), "SELECT count(*) AS n FROM f");
    assert_eq!(rows, [vec!["n"], vec![want[0]]]);
    // SQL's rule (not numpy's 0): the sum over no rows is NULL, printed as an empty cell.
    let rows = query(
        c.to_str().unwrap(),
        "SELECT count(*) AS n, sum(a) AS s FROM c",
    );
    assert_eq!(rows, [vec!["n", "s"], vec![want[1], ""]]);
}
