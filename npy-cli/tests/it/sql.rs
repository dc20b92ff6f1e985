//! `npy sql` (feature `sql`): every LOCATION form and output against numpy's answers (numpy
//! writes the files and computes what each query must return).

use std::path::Path;

use npy_test_support::python::{python_for, run_script};
use serde_json::Value;

use crate::common::{npy, stderr, stdout};

/// Runs `npy sql ARGS --json` and parses its JSON Lines.
fn json_rows(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["sql", "--json"];
    all.extend_from_slice(args);
    let o = npy(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Shards of a record (one big-endian, one empty), a Fortran-order 2-d array, an archive;
/// numpy's answers as JSON.
const FILES: &str = r"
import sys, json, os, numpy as np
d = sys.argv[1]
os.mkdir(d + '/shards')
dt = [('id','<i8'), ('label','<i4'), ('when','<M8[ms]'), ('name','<U6')]
parts = []
for k, n in enumerate([50, 0, 70]):
    a = np.zeros(n, dtype=dt)
    a['id'] = np.arange(n) + 1000 * k
    a['label'] = a['id'] % 3
    a['when'] = np.datetime64('2020-01-01', 'ms') + a['id']
    a['when'][::5] = np.datetime64('NaT')
    a['name'] = [f'x{i % 4}' for i in range(n)]
    if k == 2:
        a = a.astype([(f, t.replace('<', '>')) for f, t in dt])
    np.save(f'{d}/shards/s{k}.npy', a)
    parts.append(a.astype(dt))
a = np.concatenate(parts)
emb = np.asfortranarray((np.arange(12, dtype='<f4') / 4).reshape(4, 3))
np.save(d + '/emb.npy', emb)
np.savez(d + '/arch.npz', counts=np.arange(10, dtype='<i2') * 3, other=np.zeros(2))
np.savez(d + '/arch2.npz', counts=(np.arange(5, dtype='>i2') * 7))
groups = [{'label': int(l), 'n': int((a['label'] == l).sum()), 's': int(a['id'][a['label'] == l].sum())}
          for l in sorted(set(a['label'].tolist()))]
nat = int(np.isnat(a['when']).sum())
print(json.dumps({'groups': groups, 'rows': len(a), 'nat': nat,
                  'emb1': [float(r[0]) for r in emb], 'embsum': float(emb.astype('f8').sum()),
                  'counts': int((np.arange(10) * 3).sum()),
                  'both': int((np.arange(10) * 3).sum() + (np.arange(5) * 7).sum()),
                  'arch_keys': np.load(d + '/arch.npz').files}))
";

fn files(dir: &Path) -> Option<Value> {
    let python = python_for("npy sql against numpy")?;
    Some(serde_json::from_str(&run_script(&python, FILES, [dir])).unwrap())
}

#[test]
fn every_location_form_answers_as_numpy() {
    let dir = tempfile::tempdir().unwrap();
    let Some(want) = files(dir.path()) else {
        return;
    };
    let d = dir.path().display().to_string();
    let group = "SELECT label, count(*) AS n, sum(id) AS s FROM t GROUP BY label ORDER BY label";
    // A directory, a glob, the files one by one under one NAME.
    for tables in [
        vec![format!("t={d}/shards")],
        vec![format!("t={d}/shards/*.npy")],
        vec![
            format!("t={d}/shards/s0.npy"),
            format!("t={d}/shards/s1.npy"),
            format!("t={d}/shards/s2.npy"),
        ],
    ] {
        let mut args = Vec::new();
        for t in &tables {
            args.extend(["--table", t.as_str()]);
        }
        args.push(group);
        assert_eq!(Value::from(json_rows(&args)), want["groups"], "{tables:?}");
    }
    // A quoted glob in FROM; NaT is null.
    let q = format!(
        "SELECT count(*) AS rows, count(*) - count(\"when\") AS nat FROM '{d}/shards/*.npy'"
    );
    let rows = json_rows(&[&q]);
    assert_eq!(rows[0]["rows"], want["rows"]);
    assert_eq!(rows[0]["nat"], want["nat"]);
    // A Fortran-order 2-d array: rows as lists, emb[1] the first element of each.
    let t = format!("emb={d}/emb.npy");
    let rows = json_rows(&[
        "--table",
        &t,
        "SELECT emb[1] AS first FROM emb ORDER BY first",
    ]);
    let firsts: Vec<Value> = rows.iter().map(|r| r["first"].clone()).collect();
    assert_eq!(Value::from(firsts), want["emb1"]);
    // ARCHIVE.npz:KEY, its column named by NAME.
    let t = format!("c={d}/arch.npz:counts");
    let rows = json_rows(&["--table", &t, "SELECT sum(c) AS total FROM c"]);
    assert_eq!(rows[0]["total"], want["counts"]);
    // A glob of archives (one of them big-endian): one table of their members.
    let t = format!("c={d}/arch*.npz:counts");
    let rows = json_rows(&["--table", &t, "SELECT sum(c) AS total FROM c"]);
    assert_eq!(rows[0]["total"], want["both"]);
}

#[test]
fn output_files_by_extension_hold_numpys_values() {
    let dir = tempfile::tempdir().unwrap();
    let Some(python) = python_for("npy sql --output against numpy and pyarrow") else {
        return;
    };
    let Some(_) = files(dir.path()) else {
        return;
    };
    let d = dir.path().display().to_string();
    let t = format!("t={d}/shards");
    let q = "SELECT id, name FROM t WHERE label = 1 ORDER BY id";
    for ext in ["npy", "parquet", "arrow", "csv"] {
        let out = format!("{d}/out.{ext}");
        let o = npy(["sql", "--table", &t, "--output", &out, q]);
        assert!(o.status.success(), "{ext}: {}", stderr(&o));
    }
    let check = r"
import sys, numpy as np, pyarrow.parquet as pq, pyarrow.ipc as ipc, pyarrow.csv as pcsv
d = sys.argv[1]
ids = np.concatenate([np.load(f'{d}/shards/s{k}.npy')['id'].astype('<i8') for k in range(3)])
names = np.concatenate([np.load(f'{d}/shards/s{k}.npy')['name'].astype('<U6') for k in range(3)])
m = ids % 3 == 1
want_ids, want_names = ids[m].tolist(), names[m].tolist()
a = np.load(f'{d}/out.npy')
assert a['id'].tolist() == want_ids and a['name'].tolist() == want_names, a
for t in (pq.read_table(f'{d}/out.parquet'), ipc.open_file(f'{d}/out.arrow').read_all(),
          pcsv.read_csv(f'{d}/out.csv')):
    assert t.column('id').to_pylist() == want_ids, t
    assert t.column('name').to_pylist() == want_names, t
print('ok')
";
    assert_eq!(run_script(&python, check, [dir.path()]).trim(), "ok");
}

#[test]
fn errors_name_the_file_and_the_table_output_prints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bad")).unwrap();
    // The format's rules: a v1.0 header of 4 '<i4' padded to 128 bytes, then 2 of its 4 items.
    let mut h = b"{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }".to_vec();
    h.resize(128 - 10 - 1, b' ');
    h.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&h);
    let good = {
        let mut g = bytes.clone();
        g.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
        g
    };
    bytes.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
    std::fs::write(d.join("bad/a.npy"), &good).unwrap();
    std::fs::write(d.join("bad/b_truncated.npy"), &bytes).unwrap();
    let t = format!("x={}", d.join("bad").display());
    let o = npy(["sql", "--table", &t, "SELECT sum(x) FROM x"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // The path as written (absolute, its leading `/` kept), npy-datafusion's message without
    // DataFusion's `External error: ` wrappers.
    let bad = d.join("bad/b_truncated.npy").display().to_string();
    assert!(err.contains(&format!("{bad}: ")), "{err}");
    assert!(!err.contains("External error"), "{err}");
    // The table on stdout: 1 + 2 + 3 + 4.
    let t = format!("x={}", d.join("bad/a.npy").display());
    let o = npy(["sql", "--table", &t, "SELECT sum(x) AS total FROM x"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("| total |") && out.contains("| 10    |"),
        "{out}"
    );
    // An output this command does not write: refused before the query runs.
    let o = npy(["sql", "--output", "x.txt", "SELECT * FROM nope"]);
    assert!(stderr(&o).contains("--output writes"), "{}", stderr(&o));
    // A query naming no table that exists: DataFusion's message.
    let o = npy(["sql", "SELECT * FROM nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));
}

/// The `ARCHIVE.npz:KEY` forms a user writes, against numpy's sums: ARCHIVE a directory of
/// archives (with and without its `/`), an archive named `.NPZ`, a key holding a colon; and the
/// mistakes, each said before DataFusion's "no files found": an archive without `:KEY` (its
/// keys listed), `:KEY` after an `.npy` file.
#[test]
fn archive_forms_and_their_mistakes() {
    let Some(python) = python_for("npy sql over .npz archive forms against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, json, numpy as np
d = sys.argv[1]
os.mkdir(d + '/arch')
a, b = np.arange(10, dtype='<i4'), np.arange(7, dtype='>i4') * 5
np.savez(d + '/arch/a.npz', v=a)
np.savez_compressed(d + '/arch/b.npz', v=b)
# savez adds '.npz' to a name not ending in it (any other case too): through a file object.
with open(d + '/UP.NPZ', 'wb') as f:
    np.savez(f, v=a)
np.savez(d + '/colon.npz', **{'a:b': b, 'v': a})
np.save(d + '/plain.npy', a)
print(json.dumps({'both': int(a.sum() + b.astype('<i4').sum()), 'a': int(a.sum()), 'b': int(b.astype('<i4').sum())}))
";
    let want: Value = serde_json::from_str(&run_script(&python, script, [dir.path()])).unwrap();
    let d = dir.path().display().to_string();
    for (location, sum) in [
        (format!("{d}/arch:v"), &want["both"]),
        (format!("{d}/arch/:v"), &want["both"]),
        (format!("{d}/UP.NPZ:v"), &want["a"]),
        (format!("{d}/colon.npz:a:b"), &want["b"]),
    ] {
        let t = format!("t={location}");
        let rows = json_rows(&["--table", &t, "SELECT sum(t) AS s FROM t"]);
        assert_eq!(rows, [serde_json::json!({ "s": sum })], "{location}");
    }
    for (location, says) in [
        (format!("{d}/arch/a.npz"), r#"a.npz:KEY (its keys: "v")"#),
        (format!("{d}/plain.npy:v"), "plain.npy: not an .npz archive"),
    ] {
        let t = format!("t={location}");
        let o = npy(["sql", "--table", &t, "SELECT count(*) FROM t"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{location}: {err}");
        assert!(err.contains(says), "{location}: {err}");
    }
}

/// URLs as locations (features `sql` and `remote`): two shards on the project's HTTP range
/// server (no listing: each file named, under one NAME), numpy's sums.
#[cfg(feature = "remote")]
#[test]
fn urls_are_locations_with_remote() {
    let Some(python) = python_for("npy sql over HTTP against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, json, numpy as np
d = sys.argv[1]
a, b = np.arange(1000, dtype='<i8') * 3, np.arange(500, dtype='>i8') - 9
np.save(d + '/a.npy', a)
np.save(d + '/b.npy', b)
print(json.dumps({'n': len(a) + len(b), 's': int(a.sum() + b.astype('<i8').sum())}))
";
    let server = count_and_sum_on_http(&python, script, dir.path(), ["a.npy", "b.npy"], "");
    // A URL naming no file, and a glob (HTTP has no listing): said at once, with one HEAD
    // (the first) or none, not after DataFusion's listing retries.
    server.take_requests();
    for (name, says) in [
        ("nothere.npy", "not found (HTTP has no listing"),
        (
            "*.npy",
            "HTTP has no listing: a URL LOCATION names one file (no folders or globs)",
        ),
    ] {
        let t = format!("v={}", server.url(name));
        let o = npy(["sql", "--table", &t, "SELECT count(*) FROM v"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{name}: {err}");
    }
    assert_eq!(server.take_requests(), 1, "{:?}", server.take_log());
}

/// `ARCHIVE.npz:KEY` where ARCHIVE is a URL (features `sql` and `remote`): a stored and a
/// deflated archive on the range server under one NAME, numpy's count and sum; the deflated
/// member is inflated from ranged reads, never fetched whole by the format.
#[cfg(feature = "remote")]
#[test]
fn npz_members_over_http_answer_as_numpy() {
    let Some(python) = python_for("npy sql over .npz members on HTTP against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, json, numpy as np
d = sys.argv[1]
a, b = np.arange(20_000, dtype='<i8') * 3, np.arange(7_000, dtype='>i8') - 9
np.savez(d + '/a.npz', x=a, y=np.zeros(3))
np.savez_compressed(d + '/b.npz', y=np.ones(2), x=b)
print(json.dumps({'n': len(a) + len(b), 's': int(a.sum() + b.astype('<i8').sum())}))
";
    count_and_sum_on_http(&python, script, dir.path(), ["a.npz", "b.npz"], ":x");
}

/// Runs numpy's `script` (it writes `files` in `dir` and prints `{"n": …, "s": …}`), serves
/// the files on a range server and checks `npy sql`'s `count(v)` and `sum(v)` over them as
/// one table `v` (each URL followed by `suffix`) against numpy's; returns the server.
#[cfg(feature = "remote")]
fn count_and_sum_on_http(
    python: &Path,
    script: &str,
    dir: &Path,
    files: [&str; 2],
    suffix: &str,
) -> npy_test_support::range_server::RangeServer {
    let want: Value = serde_json::from_str(&run_script(python, script, [dir])).unwrap();
    let server = npy_test_support::range_server::RangeServer::start();
    let mut args = Vec::new();
    for name in files {
        server.put(name, std::fs::read(dir.join(name)).unwrap());
        args.push("--table".to_owned());
        args.push(format!("v={}{suffix}", server.url(name)));
    }
    args.push("SELECT count(v) AS n, sum(v) AS s FROM v".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(Value::from(json_rows(&args)), Value::from(vec![want]));
    server
}

/// Ctrl-C (SIGINT) in the middle of a scan: the query stops within seconds, exit status 130
/// with a message, and the `--output` file is neither written nor left half-written (no
/// temporary file stays beside it). The scan is slowed by the range server sending the
/// 16 MB file at 1 MB/s.
#[cfg(all(feature = "remote", unix))]
#[test]
fn ctrl_c_stops_a_scan_and_writes_nothing() {
    use std::process::{Command, Stdio};
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    let Some(python) = python_for("npy sql interrupted mid-scan (a file numpy writes)") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, numpy as np
np.save(sys.argv[1] + '/big.npy', np.arange(2_000_000, dtype='<f8'))
";
    run_script(&python, script, [dir.path()]);
    let server = npy_test_support::range_server::RangeServer::start();
    server.put(
        "big.npy",
        std::fs::read(dir.path().join("big.npy")).unwrap(),
    );
    std::fs::remove_file(dir.path().join("big.npy")).unwrap();
    server
        .faults()
        .drip_bytes_per_sec
        .store(1 << 20, Ordering::SeqCst);
    let out = dir.path().join("sum.parquet");
    let child = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(["sql", "--table"])
        .arg(format!("t={}", server.url("big.npy")))
        .arg("--output")
        .arg(&out)
        .arg("SELECT t * 2 AS doubled FROM t")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = interrupt_after(child, Duration::from_secs(2));
    assert!(err.contains("no output was written"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Ctrl-C in the middle of a scan of one file in memory, whose batches are read in place and
/// never wait: the query still stops within seconds with status 130, and the message says the
/// rows printed are only part of the result. (`futures::select` polled the query first: once
/// it had spent tokio's co-op budget, the signal's poll was refused every time, and the query
/// ran to its end.) The file is 8 GiB of `<f8` zeros in tmpfs, sparse (its header by the
/// format's rules, the rest a hole, read as zeros without memory): no run finishes it in
/// seconds.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_a_scan_read_in_place() {
    use std::process::{Command, Stdio};
    use std::time::Duration;

    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let n: u64 = 1 << 30;
    let mut head = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({n},), }}");
    let total = (10 + head.len() + 1).div_ceil(64) * 64;
    head.extend(std::iter::repeat_n(' ', total - 10 - 1 - head.len()));
    head.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(head.len() as u16).to_le_bytes());
    bytes.extend_from_slice(head.as_bytes());
    let path = dir.path().join("zeros.npy");
    std::fs::write(&path, &bytes).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(bytes.len() as u64 + n * 8)
        .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(["sql", "--json", "--table"])
        .arg(format!("t={}", path.display()))
        .arg("SELECT sum(t) AS s FROM t")
        .env("DATAFUSION_EXECUTION_TARGET_PARTITIONS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = interrupt_after(child, Duration::from_millis(1500));
    assert!(err.contains("only part of its result"), "{err}");
}

/// Sends SIGINT to `child` (an `npy sql` with its stderr piped) after `delay`, checks that it
/// was still running then and that it exits within 10 s with status 130 and the interrupt's
/// message, and returns its stderr.
#[cfg(any(target_os = "linux", all(feature = "remote", unix)))]
fn interrupt_after(mut child: std::process::Child, delay: std::time::Duration) -> String {
    use std::time::{Duration, Instant};
    std::thread::sleep(delay);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the scan ended before the interrupt: make it longer"
    );
    let sent = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("npy sql still runs 10 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted (Ctrl-C)"), "{err}");
    err
}

/// Issue 41's remote targets at full scale, on the project's HTTP range server (features `sql`
/// and `remote`): `count(*)` over 1,000 shards reads their headers only, at most 2 requests
/// and 16 KiB per shard; the answer is numpy's row count.
#[cfg(feature = "remote")]
#[test]
fn count_star_over_a_thousand_http_shards_reads_headers_only() {
    let Some(python) = python_for("npy sql count(*) over 1,000 HTTP shards against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Shards of 1 to 300 records (every third big-endian), 3 to 900 KB each.
    let script = r"
import sys, numpy as np
d = sys.argv[1]
dt = [('id','<i8'), ('x','<f4'), ('name','<U4')]
rows = 0
for k in range(1000):
    n = 1 + (k * 37) % 300
    a = np.zeros(n, dtype=dt)
    a['id'] = np.arange(n) + k
    if k % 3 == 0:
        a = a.astype([(f, t.replace('<', '>')) for f, t in dt])
    np.save(f'{d}/s{k:04}.npy', a)
    rows += n
print(rows)
";
    let rows: u64 = run_script(&python, script, [dir.path()])
        .trim()
        .parse()
        .unwrap();
    let server = npy_test_support::range_server::RangeServer::start();
    let mut args = Vec::new();
    for k in 0..1000 {
        let name = format!("s{k:04}.npy");
        server.put(&name, std::fs::read(dir.path().join(&name)).unwrap());
        args.push("--table".to_owned());
        args.push(format!("t={}", server.url(&name)));
    }
    args.push("SELECT count(*) AS n FROM t".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    server.take_requests();
    server.take_bytes();
    let got = json_rows(&args);
    let (requests, bytes) = (server.take_requests(), server.take_bytes());
    eprintln!("count(*) over 1,000 HTTP shards: {requests} requests, {bytes} bytes");
    assert_eq!(got, [serde_json::json!({ "n": rows })]);
    assert!(
        requests <= 2 * 1000,
        "{requests} requests for 1,000 shards; paths asked more than twice: {:#?}",
        repeated(&server.take_log(), 2)
    );
    assert!(
        bytes <= 16 * 1024 * 1000,
        "{bytes} bytes for 1,000 shards' headers"
    );
}

/// The requests of `log` (as [`RangeServer::take_log`] gives them) whose path was asked more
/// than `most` times, in order.
#[cfg(feature = "remote")]
fn repeated(log: &[String], most: usize) -> Vec<&String> {
    let path = |r: &String| r.split(' ').nth(1).unwrap_or_default().to_owned();
    let mut times = std::collections::HashMap::<String, usize>::new();
    for r in log {
        *times.entry(path(r)).or_default() += 1;
    }
    log.iter().filter(|r| times[&path(r)] > most).collect()
}

/// `LIMIT 10` of a 1 GiB `.npy` over HTTP (features `sql` and `remote`): at most 3 requests
/// and 1 MiB transferred, the rows numpy reads. numpy writes the file with `open_memmap` (sparse:
/// only its first rows are set); the server holds its first 64 KiB and serves zeros after
/// them up to the file's length, as the file's unset bytes are.
#[cfg(feature = "remote")]
#[test]
fn limit_ten_of_a_gibibyte_over_http_reads_one_small_range() {
    use std::sync::atomic::Ordering;

    let Some(python) = python_for("npy sql LIMIT 10 of 1 GiB over HTTP against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, json, numpy as np
from numpy.lib.format import open_memmap
p = sys.argv[1] + '/big.npy'
m = open_memmap(p, mode='w+', dtype=[('id','<i8'), ('x','<f8')], shape=(1 << 26,))
m['id'][:1000] = np.arange(1000) * 7
m['x'][:1000] = np.arange(1000) / 4
m.flush()
print(json.dumps({'len': m.offset + m.nbytes, 'rows': [{'id': int(i), 'x': float(x)} for i, x in m[:10].tolist()]}))
";
    let want: Value = serde_json::from_str(&run_script(&python, script, [dir.path()])).unwrap();
    let len = want["len"].as_u64().unwrap();
    assert_eq!(len >> 30, 1, "a file of 1 GiB and its header");
    let path = dir.path().join("big.npy");
    let mut head = vec![0; 64 * 1024];
    std::io::Read::read_exact(&mut std::fs::File::open(&path).unwrap(), &mut head).unwrap();
    std::fs::remove_file(&path).unwrap();
    let server = npy_test_support::range_server::RangeServer::start();
    server.put("big.npy", head);
    server.faults().claim_len.store(len, Ordering::SeqCst);
    let table = format!("t={}", server.url("big.npy"));
    let got = json_rows(&["--table", &table, "SELECT id, x FROM t LIMIT 10"]);
    let (requests, bytes) = (server.take_requests(), server.take_bytes());
    eprintln!("LIMIT 10 of {len} bytes over HTTP: {requests} requests, {bytes} bytes");
    assert_eq!(Value::from(got), want["rows"]);
    assert!(
        requests <= 3,
        "{requests} requests for LIMIT 10: {:#?}",
        server.take_log()
    );
    assert!(bytes <= 1 << 20, "{bytes} bytes for LIMIT 10");
}

/// A FIFO named as a LOCATION: object_store's local store opens a file to measure it, and
/// opening a FIFO waits for a writer, so the query hung. Now refused at once, naming it (the
/// test waits 60 s at most, then fails instead of hanging).
#[cfg(unix)]
#[test]
fn a_fifo_location_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.npy");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let table = format!("t={}", fifo.display());
    // As a --table LOCATION, and quoted in FROM (which went through DataFusion's listing and
    // hung there), by its name and as a member of an archive of that name.
    let archive = dir.path().join("f.npz");
    let made = std::process::Command::new("mkfifo").arg(&archive).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let quoted = format!("SELECT count(*) FROM '{}'", fifo.display());
    let member = format!("SELECT count(*) FROM '{}:x'", archive.display());
    for args in [
        vec!["sql", "--table", &table, "SELECT count(*) FROM t"],
        vec!["sql", &quoted],
        vec!["sql", &member],
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_npy"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("npy sql {args:?} waited on a FIFO for 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("f.np") && err.contains("not a regular file"),
            "{args:?}: {err}"
        );
    }
}

/// A named 0-byte file: DataFusion's listing leaves empty files out, so it was an empty
/// table, exit 0; numpy's `np.load` of it raises `EOFError`. Now an error naming it.
#[test]
fn a_named_empty_file_is_an_error_as_numpy_says() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("zero.npy");
    std::fs::write(&empty, b"").unwrap();
    let table = format!("t={}", empty.display());
    let out = npy(["sql", "--table", &table, "SELECT count(*) FROM t"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("zero.npy") && err.contains("empty"), "{err}");
}

/// A 0-byte shard in a directory or glob: DataFusion's listing left it out, and the query
/// answered without it (exit 0); numpy's `np.load` of it raises `EOFError`. Now an error
/// naming the file as written (its absolute path), for `--table` and a quoted path in FROM.
#[test]
fn a_zero_byte_shard_in_a_directory_is_an_error_naming_it() {
    let Some(python) = python_for("a 0-byte shard against numpy's EOFError") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, numpy as np
d = sys.argv[1] + '/shards'
os.mkdir(d)
np.save(d + '/s0.npy', np.arange(4, dtype='<f8'))
open(d + '/s1.npy', 'wb').close()
try:
    np.load(d + '/s1.npy')
    print('loaded')
except EOFError:
    print('EOFError')
";
    assert_eq!(run_script(&python, script, [dir.path()]).trim(), "EOFError");
    let d = format!("{}/shards", dir.path().display());
    let empty = format!("{d}/s1.npy");
    let q = "SELECT count(*) FROM t";
    for args in [
        vec![
            "sql".to_owned(),
            "--table".into(),
            format!("t={d}"),
            q.into(),
        ],
        vec![
            "sql".into(),
            "--table".into(),
            format!("t={d}/*.npy"),
            q.into(),
        ],
        vec!["sql".into(), format!("SELECT count(*) FROM '{d}/*.npy'")],
        vec!["sql".into(), format!("SELECT count(*) FROM '{d}'")],
    ] {
        let o = npy(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(&format!("{empty}: ")), "{args:?}: {err}");
        assert!(err.contains("0 bytes"), "{args:?}: {err}");
    }
}

/// A glob or directory matching no file: the error names the table and the LOCATION as
/// typed (DataFusion said "No files found at file:///…" or "table not found").
#[test]
fn a_location_matching_no_file_is_named_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let d = dir.path().display().to_string();
    for location in [format!("{d}/none*.npy"), format!("{d}/empty")] {
        let t = format!("t={location}");
        let o = npy(["sql", "--table", &t, "SELECT count(*) FROM t"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{location}: {err}");
        assert!(
            err.contains(&format!("table t: {location}: no .npy file")),
            "{location}: {err}"
        );
    }
    let glob = format!("{d}/none*.npy");
    let o = npy(["sql", &format!("SELECT count(*) FROM '{glob}'")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("{glob}: no .npy file")), "{err}");
}

/// Shards numpy wrote with different dtypes: the error names both files by their absolute
/// paths (object_store's path drops the leading `/`: "differs from tmp/…/a.npy's").
#[test]
fn shards_that_differ_are_named_by_their_absolute_paths() {
    let Some(python) = python_for("shards of two dtypes written by numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, numpy as np
d = sys.argv[1] + '/x'
os.mkdir(d)
np.save(d + '/a.npy', np.arange(3, dtype='<i4'))
np.save(d + '/b.npy', np.arange(3, dtype='<f8'))
print(np.load(d + '/b.npy').dtype.str, np.load(d + '/a.npy').dtype.str)
";
    let dtypes = run_script(&python, script, [dir.path()]);
    let (b, a) = dtypes.trim().split_once(' ').unwrap();
    let d = format!("{}/x", dir.path().display());
    for args in [
        vec![
            "sql".to_owned(),
            "--table".into(),
            format!("t={d}"),
            "SELECT * FROM t".into(),
        ],
        vec!["sql".into(), format!("SELECT * FROM '{d}/*.npy'")],
    ] {
        let o = npy(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        let said = format!("{d}/b.npy: dtype differs from {d}/a.npy's: {b} here, {a} there");
        assert!(err.contains(&said), "{args:?}: {err}");
    }
}

/// A quoted `'ARCHIVE.npz:KEY'` in FROM is member KEY, as `--table NAME=ARCHIVE.npz:KEY` is
/// (its column named KEY): numpy's sums of `np.load(archive)['counts']`, one archive and a
/// glob of two (one big-endian).
#[test]
fn a_quoted_npz_member_in_from_answers_as_numpy() {
    let dir = tempfile::tempdir().unwrap();
    let Some(want) = files(dir.path()) else {
        return;
    };
    let d = dir.path().display().to_string();
    let q = format!("SELECT sum(counts) AS total FROM '{d}/arch.npz:counts'");
    assert_eq!(json_rows(&[&q])[0]["total"], want["counts"]);
    let q = format!("SELECT sum(counts) AS total FROM '{d}/arch*.npz:counts'");
    assert_eq!(json_rows(&[&q])[0]["total"], want["both"]);
    // The archive without a key: refused, naming the form and numpy's keys (DataFusion's
    // factory said "table not found").
    let o = npy(["sql", &format!("SELECT * FROM '{d}/arch.npz'")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let keys: Vec<String> = want["arch_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| format!("{:?}", k.as_str().unwrap()))
        .collect();
    let said = format!(
        "{d}/arch.npz: an .npz archive is read through one member: FROM '{d}/arch.npz:KEY' \
         (its keys: {})",
        keys.join(", ")
    );
    assert!(err.contains(&said), "{err}");
}

/// DataFusion's settings come from `DATAFUSION_*` variables, as datafusion-cli reads them: a
/// batch of 7 rows (so every shard is read in several batches, the empty one in none) still
/// gives numpy's groups, and the session reports the setting.
#[test]
fn datafusion_settings_come_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let Some(want) = files(dir.path()) else {
        return;
    };
    let table = format!("t={}/shards", dir.path().display());
    let sql = |query: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_npy"))
            .env("DATAFUSION_EXECUTION_BATCH_SIZE", "7")
            .env("DATAFUSION_CATALOG_INFORMATION_SCHEMA", "true")
            .args(["sql", "--json", "--table", &table, query])
            .output()
            .unwrap()
    };
    let o = sql("SELECT value FROM information_schema.df_settings \
                 WHERE name = 'datafusion.execution.batch_size'");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), r#"{"value":"7"}"#);
    let o = sql("SELECT label, count(*) AS n, sum(id) AS s FROM t GROUP BY label ORDER BY label");
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(Value::from(rows), want["groups"]);
    // Without the variable, the information schema is off (DataFusion's default).
    let o = npy([
        "sql",
        "--table",
        &table,
        "SELECT value FROM information_schema.df_settings",
    ]);
    assert!(!o.status.success());
}

/// A NAME given two locations is one array: each location's files are checked against the
/// first's (only the first location's were, and `count(*)` answered over shards numpy's
/// `np.concatenate` refuses). The dtypes in the message are numpy's.
#[test]
fn every_location_of_a_table_agrees_with_the_first() {
    let Some(python) = python_for("two locations of one table, dtypes from numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, numpy as np
d = sys.argv[1]
os.mkdir(d + '/plain')
np.save(d + '/plain/a.npy', np.arange(5, dtype='<i8'))
np.save(d + '/plain/b.npy', np.arange(5, dtype='<i8'))
np.save(d + '/f4.npy', np.arange(3, dtype='<f4'))
np.save(d + '/twod.npy', np.zeros((4, 2), dtype='<i8'))
print(np.load(d + '/plain/a.npy').dtype.str, np.load(d + '/f4.npy').dtype.str,
      list(np.load(d + '/twod.npy').shape[1:]))
";
    let said = run_script(&python, script, [dir.path()]);
    let mut said = said.split_whitespace();
    let (i8, f4) = (said.next().unwrap(), said.next().unwrap());
    let d = dir.path().display().to_string();
    let first = format!("t={d}/plain");
    let o = npy([
        "sql",
        "--table",
        &first,
        "--table",
        &format!("t={d}/f4.npy"),
        "SELECT count(*) FROM t",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let want = format!("{d}/f4.npy: dtype differs from {d}/plain/a.npy's: {f4} here, {i8} there");
    assert!(err.contains(&want), "{err}");
    let o = npy([
        "sql",
        "--table",
        &first,
        "--table",
        &format!("t={d}/twod.npy"),
        "SELECT count(*) FROM t",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{d}/twod.npy: shape after the first axis differs from {d}/plain/a.npy's"
        )),
        "{err}"
    );
}

/// Quoted locations that are no `.npy` table are said to be so: a directory of shards beside
/// other files is the shards' table whatever order the file system lists them in (DataFusion
/// takes the first file's format: a README listed first made it "not found", a CSV a CSV
/// table); a directory without a table, a URL with no object store and an empty member key
/// are named. Counts are numpy's.
#[test]
fn quoted_locations_that_are_no_table_are_named() {
    let Some(python) = python_for("a directory of shards and other files, counts from numpy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, glob, numpy as np
d = sys.argv[1]
os.mkdir(d + '/mixed')
for name in ['a.txt', 'README', 'k.csv']:
    with open(d + '/mixed/' + name, 'w') as f:
        f.write('x\n1\n')
np.save(d + '/mixed/q.npy', np.arange(7, dtype='<i4'))
np.save(d + '/mixed/r.npy', np.arange(5, dtype='<i4'))
os.mkdir(d + '/notable')
with open(d + '/notable/a.txt', 'w') as f:
    f.write('text')
np.savez(d + '/arch.npz', x=np.arange(3))
print(sum(len(np.load(f)) for f in glob.glob(d + '/mixed/*.npy')))
";
    let rows = run_script(&python, script, [dir.path()]);
    let d = dir.path().display().to_string();
    let q = format!("SELECT count(*) AS n FROM '{d}/mixed'");
    assert_eq!(json_rows(&[&q])[0]["n"].to_string(), rows.trim());
    for (query, want) in [
        (
            format!("SELECT * FROM '{d}/notable'"),
            format!("{d}/notable: no table here"),
        ),
        (
            "SELECT * FROM 's3://no-such-bucket/a.npy'".to_owned(),
            "s3://no-such-bucket/a.npy: no object store is registered for s3://no-such-bucket/"
                .to_owned(),
        ),
    ] {
        let o = npy(["sql", &query]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{query}: {err}");
        assert!(err.contains(&want), "{query}: {err}");
    }
    let o = npy([
        "sql",
        "--table",
        &format!("t={d}/arch.npz:"),
        "SELECT * FROM t",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the member key after ':' is empty"), "{err}");
}

/// A relative LOCATION whose directory holds `:` (`run:7/…`, as timestamped run folders do)
/// is a path, not a URL of scheme `run`: as a file, a directory, a glob and quoted in FROM,
/// with numpy's count and sum.
#[test]
fn a_relative_path_holding_a_colon_is_a_path() {
    let Some(python) = python_for("a run folder with ':' in its name, written by numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = r"
import sys, os, json, numpy as np
d = sys.argv[1] + '/run:7'
os.mkdir(d)
a = np.arange(10, dtype='<i8') * 3
b = np.arange(5, dtype='<i8') - 40
np.save(d + '/a.npy', a)
np.save(d + '/b.npy', b)
print(json.dumps({'a': [len(a), int(a.sum())], 'all': [len(a) + len(b), int(a.sum() + b.sum())]}))
";
    let want: Value = serde_json::from_str(&run_script(&python, script, [dir.path()])).unwrap();
    let run = |args: &[&str]| -> Value {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_npy"))
            .arg("sql")
            .arg("--json")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let row: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        serde_json::json!([row["n"], row["s"]])
    };
    let q = "SELECT count(*) AS n, sum(t) AS s FROM t";
    assert_eq!(run(&["--table", "t=run:7/a.npy", q]), want["a"]);
    for location in ["t=run:7", "t=run:7/", "t=run:7/*.npy"] {
        assert_eq!(run(&["--table", location, q]), want["all"], "{location}");
    }
    let quoted = "SELECT count(*) AS n, sum(a) AS s FROM 'run:7/a.npy'";
    assert_eq!(run(&[quoted]), want["a"]);
}
