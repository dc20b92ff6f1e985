//! URLs as inputs (issue 25): `info`, `header`, `show` and `convert` of objects on an HTTP range
//! server and on moto's S3 API, both on 127.0.0.1 and started here, print what they print for
//! the same local file, the URL where the path was; a summary of a 64 MiB array takes a few
//! small GETs (counted by the server).

use std::process::{Command, Output};

use npy_test_support::moto::Moto;
use npy_test_support::range_server::RangeServer;

use crate::common::{npy, stderr, stdout, ROOT};

/// numpy-written fixtures of several layouts: C and Fortran order, big-endian strings,
/// records, a 0-d and an empty array.
const FIXTURES: [&str; 5] = [
    "f16_le_c_2x3x4.npy",
    "U5_be_f_2x3x4.npy",
    "rec_wide.npy",
    "c16_le_c_scalar.npy",
    "b1_na_c_0.npy",
];

const COMMANDS: [&[&str]; 5] = [
    &["info"],
    &["info", "--json"],
    &["header"],
    &["header", "--python"],
    &["show"],
];

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/fixtures/{name}")).unwrap()
}

/// Every command's output for the URL is the local file's with the URL for the path.
fn same_as_local(url_of: impl Fn(&str) -> String, run: impl Fn(&[&str], &str) -> Output) {
    for name in FIXTURES {
        let local = format!("fixtures/{name}");
        let url = url_of(name);
        for command in COMMANDS {
            let want = npy(command.iter().copied().chain([local.as_str()]));
            let got = run(command, &url);
            assert!(
                want.status.success(),
                "{command:?} {local}: {}",
                stderr(&want)
            );
            assert!(got.status.success(), "{command:?} {url}: {}", stderr(&got));
            assert_eq!(
                stdout(&got),
                stdout(&want).replace(&local, &url),
                "{command:?} {url}"
            );
        }
    }
}

#[test]
fn http_urls_print_what_local_files_print() {
    let server = RangeServer::start();
    for name in FIXTURES {
        server.put(name, fixture_bytes(name));
    }
    same_as_local(
        |name| server.url(name),
        |command, url| npy(command.iter().copied().chain([url])),
    );

    // Missing: the URL named, the kind said.
    let url = server.url("missing.npy");
    let out = npy(["info", url.as_str()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("npy: {url}: ")) && err.contains("not found"),
        "{err}"
    );
}

#[test]
fn file_urls_print_what_local_files_print() {
    let root = std::fs::canonicalize(ROOT).unwrap();
    let root = root.to_str().unwrap();
    same_as_local(
        |name| format!("file://{root}/fixtures/{name}"),
        |command, url| npy(command.iter().copied().chain([url])),
    );
}

#[test]
fn a_summary_of_a_64_mib_array_takes_few_small_gets() {
    let server = RangeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.npy");
    let data: Vec<f32> = (0..4096 * 4096).map(|i| i as f32).collect();
    npy_core::write(&path, &data, &[4096, 4096]).unwrap();
    server.put("big.npy", std::fs::read(&path).unwrap());
    let url = server.url("big.npy");
    server.take_requests();
    server.take_bytes();
    let got = npy(["show", url.as_str()]);
    let (requests, bytes) = (server.take_requests(), server.take_bytes());
    let want = npy(["show", path.to_str().unwrap()]);
    assert!(got.status.success(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    // Issue 25's target: at most 4 requests and 256 KiB.
    assert!(requests <= 4, "{requests} requests");
    assert!(bytes <= 256 << 10, "{bytes} bytes");
    eprintln!("npy show of a 64 MiB remote .npy: {requests} requests, {bytes} bytes");
}

#[test]
fn convert_reads_a_url() {
    let server = RangeServer::start();
    let name = "U5_be_f_2x3x4.npy";
    server.put(name, fixture_bytes(name));
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("local.npy"), dir.path().join("remote.npy"));
    let local = format!("fixtures/{name}");
    let ok = |o: Output| assert!(o.status.success(), "{}", stderr(&o));
    ok(npy([
        "convert",
        local.as_str(),
        a.to_str().unwrap(),
        "--order",
        "C",
    ]));
    let url = server.url(name);
    ok(npy([
        "convert",
        url.as_str(),
        b.to_str().unwrap(),
        "--order",
        "C",
    ]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// A failing `convert` of a URL names the URL where the same failure of a local file names
/// the file (issue 25: the URL where a path is printed), not the downloaded copy.
#[test]
fn convert_errors_name_the_url() {
    let server = RangeServer::start();
    let dir = tempfile::tempdir().unwrap();
    // A header claiming 24 f4 of which 10 are there: np.load refuses it (truncated).
    let mut bytes = fixture_bytes("f4_le_c_2x3x4.npy");
    bytes.truncate(bytes.len() - 14 * 4);
    let local = dir.path().join("cut.npy");
    std::fs::write(&local, &bytes).unwrap();
    server.put("cut.npy", bytes);
    let url = server.url("cut.npy");
    for out in ["out.npy", "out.parquet"] {
        let out = dir.path().join(out);
        let from_file = npy(["convert", local.to_str().unwrap(), out.to_str().unwrap()]);
        let from_url = npy(["convert", url.as_str(), out.to_str().unwrap()]);
        assert!(!from_file.status.success() && !from_url.status.success());
        let (file_err, url_err) = (stderr(&from_file), stderr(&from_url));
        assert!(file_err.contains(local.to_str().unwrap()), "{file_err}");
        assert_eq!(
            url_err,
            file_err.replace(local.to_str().unwrap(), &url),
            "{out:?}"
        );
    }
}

#[test]
fn s3_urls_from_moto_with_the_standard_variables() {
    let Some(moto) = Moto::start("npy info/show of s3:// URLs (moto_server)") else {
        return;
    };
    moto.create_bucket("cli");
    for name in FIXTURES {
        moto.put("cli", name, &fixture_bytes(name));
    }
    let endpoint = moto.endpoint();
    same_as_local(
        |name| format!("s3://cli/{name}"),
        |command, url| npy_on_moto(&endpoint, command, url),
    );
}

/// numpy-written archives: stored and deflated members, Fortran order and big-endian, a 0-d
/// and empty members, a member that is not an `.npy` file.
const ARCHIVES: [(&str, &str); 4] = [
    ("npz/savez_compressed.npz", "U5"),
    ("npz/order_endian.npz", "bef"),
    ("npz/scalar_and_empty.npz", "scalar"),
    ("npz/non_npy_member.npz", "a"),
];

/// Every command over an archive, whole and `--member KEY`: the URL's output is the local
/// file's with the URL for the path.
fn archives_same_as_local(url_of: impl Fn(&str) -> String, run: impl Fn(&[&str], &str) -> Output) {
    for (name, key) in ARCHIVES {
        let local = format!("fixtures/{name}");
        let url = url_of(name);
        let commands: [&[&str]; 7] = [
            &["info"],
            &["info", "--json"],
            &["show"],
            &["show", "--json"],
            &["header", "--member", key],
            &["header", "--python", "--member", key],
            &["show", "--member", key],
        ];
        for command in commands {
            let want = npy(command.iter().copied().chain([local.as_str()]));
            let got = run(command, &url);
            assert_eq!(
                want.status.success(),
                got.status.success(),
                "{command:?} {url}: {}",
                stderr(&got)
            );
            assert_eq!(
                stdout(&got),
                stdout(&want).replace(&local, &url),
                "{command:?} {url}"
            );
            assert_eq!(
                stderr(&got),
                stderr(&want).replace(&local, &url),
                "{command:?} {url}"
            );
        }
    }
}

fn archive_bytes(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/fixtures/{name}")).unwrap()
}

#[test]
fn npz_urls_print_what_local_archives_print() {
    let server = RangeServer::start();
    for (name, _) in ARCHIVES {
        server.put(name, archive_bytes(name));
    }
    archives_same_as_local(
        |name| server.url(name),
        |command, url| npy(command.iter().copied().chain([url])),
    );
    // A missing member: the URL named, the keys listed as for a file.
    let (name, _) = ARCHIVES[1];
    let url = server.url(name);
    let local = format!("fixtures/{name}");
    let want = npy(["header", "--member", "nope", local.as_str()]);
    let got = npy(["header", "--member", "nope", url.as_str()]);
    assert!(!got.status.success());
    assert_eq!(stderr(&got), stderr(&want).replace(&local, &url));
}

/// One member's header of a remote archive: the object's first GET, the directory's suffix
/// read and one GET of the member's local and `.npy` headers (issue 25: at most 3).
#[test]
fn a_member_header_over_http_takes_three_requests() {
    let server = RangeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.npz");
    let mut w = npy_npz::NpzWriter::create(&path).unwrap();
    // 1,000 members of 1 KiB: member m500 lies past the first read (64 KiB) and before the
    // suffix read of the directory (256 KiB).
    let data = vec![7u8; 1 << 10];
    for i in 0..1000 {
        w.add(&format!("m{i}"), &data, &[data.len() as u64])
            .unwrap();
    }
    w.finish().unwrap();
    server.put("many.npz", std::fs::read(&path).unwrap());
    let url = server.url("many.npz");
    server.take_requests();
    let got = npy(["header", "--member", "m500", url.as_str()]);
    let requests = server.take_requests();
    let want = npy(["header", "--member", "m500", path.to_str().unwrap()]);
    assert!(got.status.success(), "{}", stderr(&got));
    assert_eq!(stdout(&got), stdout(&want));
    assert!(requests <= 3, "{requests} requests");
}

#[test]
fn npz_urls_on_s3_and_convert_from_one() {
    let Some(moto) = Moto::start("npy info/show of s3:// archives (moto_server)") else {
        return;
    };
    moto.create_bucket("npz");
    for (name, _) in ARCHIVES {
        moto.put("npz", name, &archive_bytes(name));
    }
    let endpoint = moto.endpoint();
    let run = |command: &[&str], url: &str| npy_on_moto(&endpoint, command, url);
    archives_same_as_local(|name| format!("s3://npz/{name}"), run);

    // convert: a member of a remote archive, the same bytes as from the local file.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("local.npy"), dir.path().join("remote.npy"));
    let local = format!("fixtures/{}", ARCHIVES[1].0);
    let url = format!("s3://npz/{}", ARCHIVES[1].0);
    let ok = |o: Output| assert!(o.status.success(), "{}", stderr(&o));
    ok(npy([
        "convert",
        local.as_str(),
        a.to_str().unwrap(),
        "--member",
        "bef",
    ]));
    ok(run(
        &["convert", "--member", "bef", url.as_str()],
        b.to_str().unwrap(),
    ));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// A server that is not running: a typed error naming the URL and what to check, not
/// object_store's error chain.
#[test]
fn a_stopped_server_is_named_with_a_remedy() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/a.npy");
    let out = npy(["info", url.as_str()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("npy: {url}: "))
            && err.contains("cannot connect to the server (")
            && err.contains("Connection refused")
            && err.contains("AWS_ENDPOINT_URL"),
        "{err}"
    );
}

/// `npy COMMAND… URL` against moto at `endpoint`, with the environment object_store's S3
/// client reads (moto accepts any credentials).
fn npy_on_moto(endpoint: &str, command: &[&str], url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_npy"))
        .args(command.iter().copied().chain([url]))
        .current_dir(ROOT)
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

/// Issue 42, F9 (case r09): `convert` of a URL downloaded the object's claimed length before
/// looking at it: a server whose 10-element `<f8` array claims 100 GiB (zeros after its 208
/// bytes) got every byte asked for until the disk was full. The download is the header's
/// data (`data_offset + shape × itemsize`), here inside the first GET's 64 KiB: one request.
#[test]
fn convert_of_a_url_fetches_what_the_header_describes_not_the_claimed_length() {
    let server = RangeServer::start();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("small.npy");
    let data: Vec<f64> = (0..10).map(f64::from).collect();
    npy_core::write(&local, &data, &[10]).unwrap();
    let bytes = std::fs::read(&local).unwrap();
    assert_eq!(bytes.len(), 208);
    server.put("small.npy", bytes);
    server
        .faults()
        .claim_len
        .store(100 << 30, std::sync::atomic::Ordering::SeqCst);
    let url = server.url("small.npy");
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    let ok = |o: Output| assert!(o.status.success(), "{}", stderr(&o));
    ok(npy([
        "convert",
        local.to_str().unwrap(),
        a.to_str().unwrap(),
    ]));
    server.take_requests();
    server.take_bytes();
    ok(npy(["convert", url.as_str(), b.to_str().unwrap()]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (requests, sent) = (server.take_requests(), server.take_bytes());
    assert_eq!(requests, 1);
    assert!(sent <= 64 << 10, "{sent} bytes");

    // A header that claims 100 GiB of data (the object claims them too): over the download
    // budget, refused before anything is written.
    let header = npy_core::Header::new("<f8".parse().unwrap(), vec![100 << 27])
        .to_bytes(None)
        .unwrap();
    server.put("huge.npy", header);
    let url = server.url("huge.npy");
    let e = dir.path().join("e.npy");
    let out = npy(["convert", url.as_str(), e.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("npy: {url}: ")) && err.contains("download budget"),
        "{err}"
    );
    assert_eq!(server.take_requests(), 1);
    assert!(!e.exists());

    // An archive: its members and its directory, never more than the object holds.
    let npz = dir.path().join("m.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("x", &(0..300_000).collect::<Vec<i32>>(), &[300_000])
        .unwrap();
    w.add("y", &[1.5f64, 2.5], &[2]).unwrap();
    w.finish().unwrap();
    let archive = std::fs::read(&npz).unwrap();
    let size = archive.len() as u64;
    server
        .faults()
        .claim_len
        .store(0, std::sync::atomic::Ordering::SeqCst);
    server.put("m.npz", archive);
    let url = server.url("m.npz");
    let (c, d) = (dir.path().join("c.npy"), dir.path().join("d.npy"));
    ok(npy([
        "convert",
        npz.to_str().unwrap(),
        c.to_str().unwrap(),
        "--member",
        "x",
    ]));
    server.take_bytes();
    ok(npy([
        "convert",
        url.as_str(),
        d.to_str().unwrap(),
        "--member",
        "x",
    ]));
    assert_eq!(std::fs::read(&c).unwrap(), std::fs::read(&d).unwrap());
    let sent = server.take_bytes();
    eprintln!("convert of a {size}-byte archive URL: {sent} bytes sent");
    // The archive once, and the suffix npy-npz reads for its directory (256 KiB).
    assert!(
        sent <= size + (256 << 10),
        "{sent} bytes of a {size}-byte archive"
    );
}

/// Issue 42, F9 (case r09): a `convert` of a URL ended by SIGTERM while downloading left its
/// partial copy in TMPDIR. The download goes to an unnamed file and the named copy's directory
/// is removed on the signal: nothing is left.
#[cfg(unix)]
#[test]
fn a_convert_of_a_url_ended_by_sigterm_leaves_nothing_in_tmpdir() {
    let server = RangeServer::start();
    let data: Vec<f64> = (0..1 << 20).map(f64::from).collect();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("big.npy");
    npy_core::write(&local, &data, &[1 << 20]).unwrap();
    server.put("big.npy", std::fs::read(&local).unwrap());
    // 8 MiB at 256 KiB/s: half a minute of download, ended after 3 s.
    server
        .faults()
        .drip_bytes_per_sec
        .store(256 << 10, std::sync::atomic::Ordering::SeqCst);
    let tmp = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let mut child = Command::new(env!("CARGO_BIN_EXE_npy"))
        .args([
            "convert",
            server.url("big.npy").as_str(),
            out.to_str().unwrap(),
        ])
        .env("TMPDIR", tmp.path())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(server.take_requests() >= 2, "the download has not started");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: a signal to the child this test started and has not waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    assert!(!out.exists());
}

/// Archives of 1, 50 and 500 members written by numpy (`np.savez` and `np.savez_compressed`:
/// stored and deflated members of several dtypes and orders, 0.1–2 MB in all) into `dir`;
/// returns their names and member counts.
fn numpy_archives(python: &std::path::Path, dir: &std::path::Path) -> Vec<(String, usize)> {
    let script = r"
import sys, numpy as np
out = sys.argv[1]
dtypes = ['<f8', '>i4', '<U3', 'u1', [('x', '<f4'), ('y', '>i2', (2,))]]
# Members of a few KiB each: the archives are past the first GET (64 KiB) and the suffix
# read of the directory (256 KiB), their headers within a few MiB.
for n, cols in ((1, 8192), (50, 400), (500, 100)):
    arrays = {}
    for i in range(n):
        a = np.zeros((i % 5 + 1, cols), dtype=dtypes[i % len(dtypes)])
        if a.dtype.names is None:
            a[...] = np.arange(a.size).reshape(a.shape).astype(a.dtype)
        arrays[f'a{i}'] = np.asfortranarray(a) if i % 3 == 1 else a
    np.savez(f'{out}/stored_{n}.npz', **arrays)
    np.savez_compressed(f'{out}/deflated_{n}.npz', **arrays)
";
    npy_test_support::python::run_script(python, script, [dir]);
    let mut out = Vec::new();
    for n in [1, 50, 500] {
        for kind in ["stored", "deflated"] {
            out.push((format!("{kind}_{n}.npz"), n));
        }
    }
    out
}

/// Issue 42: `npy info`, `header --member` and `show --member` of a remote archive take at
/// most 6 requests whatever its member count (`show` of the whole archive, which reads every
/// member's values, at most two a member) (the members' local and `.npy` headers in one
/// coalesced read; today's code sent one or two requests a member: 72 for 50 members), and
/// print what they print for the local file.
#[test]
fn archives_of_many_members_take_a_few_requests() {
    let Some(python) = npy_test_support::python::python_for("archives written by numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = RangeServer::start();
    for (name, n) in numpy_archives(&python, dir.path()) {
        let path = dir.path().join(&name);
        let local = path.to_str().unwrap().to_owned();
        server.put(&name, std::fs::read(&path).unwrap());
        let url = server.url(&name);
        let last = format!("a{}", n - 1);
        let middle = format!("a{}", n / 2);
        // `show` of the whole archive reads every member's values: the headers in one read,
        // each member's data past its first 4 KiB with a read or two of its own (asked for).
        let commands: [(&[&str], usize); 7] = [
            (&["info"], 6),
            (&["info", "--json"], 6),
            (&["header", "--member", &last], 6),
            (&["header", "--python", "--member", &middle], 6),
            (&["show", "--member", &last], 6),
            (&["show", "--member", &middle], 6),
            (&["show"], 3 + 2 * n),
        ];
        for (command, most) in commands {
            let want = npy(command.iter().copied().chain([local.as_str()]));
            server.take_requests();
            let got = npy(command.iter().copied().chain([url.as_str()]));
            let requests = server.take_requests();
            eprintln!("{command:?} of {name}: {requests} requests");
            assert!(
                want.status.success(),
                "{command:?} {local}: {}",
                stderr(&want)
            );
            assert!(got.status.success(), "{command:?} {url}: {}", stderr(&got));
            assert_eq!(
                stdout(&got),
                stdout(&want).replace(&local, &url),
                "{command:?} {url}"
            );
            assert!(
                requests <= most as u64,
                "{command:?} of {name} ({n} members): {requests} requests, at most {most}"
            );
        }
    }
}
