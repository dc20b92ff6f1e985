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
        |command, url| {
            Command::new(env!("CARGO_BIN_EXE_npy"))
                .args(command.iter().copied().chain([url]))
                .current_dir(ROOT)
                .env("AWS_ENDPOINT_URL", &endpoint)
                .env("AWS_ALLOW_HTTP", "true")
                .env("AWS_ACCESS_KEY_ID", "testing")
                .env("AWS_SECRET_ACCESS_KEY", "testing")
                .env("AWS_REGION", "us-east-1")
                .output()
                .unwrap()
        },
    );
}
