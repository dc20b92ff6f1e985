//! Issue 25's remote targets, against servers on 127.0.0.1 started here as the tests start
//! them:
//!
//! - `npy show URL` (release) of a 64 MiB `.npy` on the HTTP range server
//!   (`npy_test_support::range_server`, which counts requests and body bytes): at most 4
//!   requests and 256 KiB, and the output byte for byte that of `npy show FILE`;
//! - over S3 on moto (`npy_test_support::moto`; the bucket filled by `xtask/bench_remote.py`
//!   with boto3): the whole 256 MiB `np.arange(64 Mi, dtype='<u4')` into memory, npy-bench's
//!   `remote` binary (`RemoteNpy::read_vec`, 8 MiB ranged parts, 8 in flight) against boto3's
//!   `get_object` + `np.load` of the body (target ≤ 0.5×), and the headers of 1,000 objects
//!   (64 requests in flight) against a sequential boto3 loop of ranged GETs and numpy's header
//!   parse (target ≤ 0.2×). Both sides run in their own process, timed inside it (median of
//!   the runs), so interpreter start-up is not counted.
//!
//! - issue 42's re-measure of the header target against a server that serves requests
//!   concurrently: the HTTP range server (a thread per connection) with a fixed delay of
//!   `HTTP_DELAY_MS` per request (an object store's latency), 1,000 `.npy` objects, their
//!   headers opened by npy-bench's `remote http` 64 in flight against the same client one at a
//!   time (target ≤ 0.2×), both sides in that one process, alternating run by run.
//!
//! moto is one Python process serving every request (threads under the GIL), so it bounds
//! how fast either side can go: it reads the whole object for every ranged GET (an 8 MiB range
//! of the 256 MiB object took 0.31–0.37 s, the whole object 0.88 s, measured with boto3), so
//! parallel ranged parts cost it 32 whole reads. The whole read is therefore also timed in one
//! GET (`RemoteOptions::first_read(usize::MAX)`: the opening GET takes it all), and the table
//! gives moto's own rate for the object (boto3's `get_object` alone, without `np.load`) and
//! moto's floor: the same GETs sent by curl, a C client, over presigned URLs (the whole
//! object in one GET; the 1,000 ranged GETs 8 in flight). No client can beat that floor on
//! this server, so its ratio to boto3's time is the lowest ratio any client can reach.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use npy_core::WriteOptions;
use npy_test_support::moto::Moto;
use npy_test_support::range_server::RangeServer;
use serde_json::{json, Value};

use crate::workspace_root;

/// Elements of the `npy show` input: 64 MiB of `<f4`.
const SHOW_ELEMENTS: u64 = 16 << 20;
const BUCKET: &str = "npy-bench";

/// The range server's delay before each answer, in milliseconds: an object store's latency.
const HTTP_DELAY_MS: u64 = 5;

/// Measures the four targets; returns their figures as JSON.
pub fn measure(data: &Path, quick: bool) -> Result<Value, String> {
    let runs = if quick { 1 } else { 3 };
    let show = show(data)?;
    let concurrency = concurrency(runs)?;
    let python =
        npy_test_support::python::pinned_python().or_else(|_| crate::python::numpy_python())?;
    let Some(moto) = Moto::start("cargo xtask bench --only remote") else {
        return Err("moto could not be started (see above)".into());
    };
    let endpoint = moto.endpoint();
    let script = workspace_root().join("xtask").join("bench_remote.py");
    eprintln!("xtask: filling s3://{BUCKET} on moto ({endpoint}) with boto3");
    let ok = Command::new(&python)
        .arg(&script)
        .args([&endpoint, BUCKET, "setup"])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !ok.success() {
        return Err(format!("{} setup failed ({ok})", script.display()));
    }
    eprintln!("xtask: timing npy-bench's `remote` and boto3 on moto ({runs} runs each)");
    let ours = run_json(remote_bin().args([&endpoint, BUCKET, &runs.to_string()]))?;
    let boto3 = run_json(Command::new(&python).arg(&script).args([
        &endpoint,
        BUCKET,
        "time",
        &runs.to_string(),
    ]))?;
    drop(moto);
    Ok(json!({
        "show": show,
        "concurrency": concurrency,
        "ours": ours,
        "boto3": boto3,
        "runs": runs,
        "load": super::show::load_average(),
    }))
}

/// `npy show URL` of the 64 MiB file on the range server: its requests, bytes and whether
/// its output is the local file's.
fn show(data: &Path) -> Result<Value, String> {
    let file = data.join("remote_show_f32_64MiB.npy");
    if std::fs::metadata(&file).map_or(0, |m| m.len()) < SHOW_ELEMENTS * 4 {
        write_arange(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let npy = super::show::build_npy()?;
    let server = RangeServer::start();
    server.put("x.npy", bytes);
    let url = server.url("x.npy");
    let local = output(Command::new(&npy).arg("show").arg(&file))?;
    server.take_requests();
    server.take_bytes();
    let remote = output(Command::new(&npy).args(["show", &url]))?;
    let (requests, body) = (server.take_requests(), server.take_bytes());
    // The summary names no path, so the two outputs are the same bytes.
    let same = local == remote;
    eprintln!("xtask: npy show {url}: {requests} requests, {body} body bytes, same output: {same}");
    if requests > 4 || body > 256 << 10 || !same {
        return Err(format!(
            "npy show of a remote 64 MiB .npy: {requests} requests, {body} bytes (target ≤ 4, \
             ≤ 262144), output {} the local file's",
            if same {
                "the same as"
            } else {
                "NOT the same as"
            }
        ));
    }
    Ok(json!({ "requests": requests, "bytes": body, "file_bytes": SHOW_ELEMENTS * 4 + 128 }))
}

/// The headers of 1,000 objects on the range server (delayed `HTTP_DELAY_MS` per request),
/// 64 in flight against one at a time: npy-bench's `remote http`.
fn concurrency(runs: usize) -> Result<Value, String> {
    let server = RangeServer::start();
    for i in 0..1000u64 {
        // bench_remote.py's header set: shape (i % 7 + 1, 3) of float64.
        let rows = i % 7 + 1;
        let mut bytes = Vec::new();
        WriteOptions::new()
            .write_to(&mut bytes, &vec![0f64; (rows * 3) as usize], &[rows, 3])
            .map_err(|e| e.to_string())?;
        server.put(&format!("h/{i}.npy"), bytes);
    }
    server
        .faults()
        .stall_ms
        .store(HTTP_DELAY_MS, std::sync::atomic::Ordering::SeqCst);
    eprintln!(
        "xtask: headers of 1,000 objects on the range server ({HTTP_DELAY_MS} ms a request), \
         64 in flight and one at a time ({runs} runs each)"
    );
    let r = run_json(
        remote_bin()
            .arg("http")
            .args([&server.base(), &runs.to_string()]),
    )?;
    Ok(json!({
        "delay_ms": HTTP_DELAY_MS,
        "concurrent": r["concurrent"],
        "sequential": r["sequential"],
    }))
}

fn output(cmd: &mut Command) -> Result<Vec<u8>, String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed ({})", out.status));
    }
    Ok(out.stdout)
}

fn run_json(cmd: &mut Command) -> Result<Value, String> {
    let out = output(cmd)?;
    serde_json::from_slice(&out).map_err(|e| format!("{cmd:?}: not JSON ({e})"))
}

/// `np.arange(SHOW_ELEMENTS, dtype=np.float32)`.
fn write_arange(path: &Path) -> Result<(), npy_core::Error> {
    let data: Vec<f32> = (0..SHOW_ELEMENTS).map(|x| x as f32).collect();
    WriteOptions::new().write_path(path, &data, &[SHOW_ELEMENTS])
}

/// The table's section.
pub fn render(r: &Value) -> String {
    let f = |v: &Value| v.as_f64();
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
    let verdict = |r: Option<f64>, max: f64| match r {
        Some(r) if r <= max => format!("{r:.2}× (≤ {max}×: **met**)"),
        Some(r) => format!("{r:.2}× (≤ {max}×: **missed**)"),
        None => "not measured".into(),
    };
    let (ours_w, boto_w) = (f(&r["ours"]["whole"]["seconds"]), f(&r["boto3"]["whole"]));
    let ours_1 = f(&r["ours"]["whole_one_get"]["seconds"]);
    let (ours_h, boto_h) = (
        f(&r["ours"]["headers"]["seconds"]),
        f(&r["boto3"]["headers"]),
    );
    let mib = |s: Option<f64>| s.map_or("–".into(), |s| format!("{:.0} MiB/s", 256.0 / s));
    let show = &r["show"];
    let c = &r["concurrency"];
    let (conc, seq) = (
        f(&c["concurrent"]["seconds"]),
        f(&c["sequential"]["seconds"]),
    );
    let concurrency = format!(
        "\nHeaders of 1,000 `.npy` objects on the HTTP range server (a thread per connection, \
         {} ms before each answer, an object store's latency), npy-bench's `remote http`, one \
         client: 64 in flight ({} GETs) {} against one at a time ({} GETs) {}: {} (issue 42's \
         re-measure of issue 25's target).\n",
        c["delay_ms"],
        c["concurrent"]["gets"],
        super::cell(conc),
        c["sequential"]["gets"],
        super::cell(seq),
        verdict(ratio(conc, seq), 0.2),
    );
    let table = format!(
        "Remote reads (issue 25) against servers on 127.0.0.1, median of {} runs, each side \
         timed inside its own process (load average {} when measured):\n\n\
         | operation | ours | peer | ours/peer (target) |\n|---|--:|--:|--:|\n\
         | `npy show URL` summary of a 64 MiB `.npy` (HTTP range server) | {} requests, {} bytes | – | ≤ 4 requests, ≤ 262144 bytes: **{}** |\n\
         | whole 256 MiB `.npy` into memory, S3 on moto: `RemoteNpy::read_vec` ({} GETs) vs boto3 `get_object` + `np.load` | {} ({}) | {} ({}) | {} |\n\
         | the same, `RemoteNpy::read_vec` in one GET ({} GETs; `RemoteOptions::first_read(usize::MAX)`) | {} ({}) | {} ({}) | {} |\n\
         | headers of 1,000 `.npy` objects, S3 on moto: 64 in flight ({} GETs) vs a sequential boto3 loop | {} | {} | {} |\n\n\
         moto's own rate for the 256 MiB object (boto3's `get_object` and body read alone, no \
         `np.load`): {} ({}). moto's floor, the same GETs sent by curl (a C client, presigned \
         URLs): the whole object {} ({}), the 1,000 ranged GETs {} (8 in flight), which \
         bound the ratios from below at {} and {}.\n",
        r["runs"],
        r["load"].as_str().unwrap_or("?"),
        show["requests"],
        show["bytes"],
        if show["requests"].as_u64().is_some_and(|n| n <= 4)
            && show["bytes"].as_u64().is_some_and(|n| n <= 256 << 10)
        {
            "met"
        } else {
            "missed"
        },
        r["ours"]["whole"]["gets"],
        super::cell(ours_w),
        mib(ours_w),
        super::cell(boto_w),
        mib(boto_w),
        verdict(ratio(ours_w, boto_w), 0.5),
        r["ours"]["whole_one_get"]["gets"],
        super::cell(ours_1),
        mib(ours_1),
        super::cell(boto_w),
        mib(boto_w),
        verdict(ratio(ours_1, boto_w), 0.5),
        r["ours"]["headers"]["gets"],
        super::cell(ours_h),
        super::cell(boto_h),
        verdict(ratio(ours_h, boto_h), 0.2),
        super::cell(f(&r["boto3"]["get_only"])),
        mib(f(&r["boto3"]["get_only"])),
        super::cell(f(&r["boto3"]["curl_whole"])),
        mib(f(&r["boto3"]["curl_whole"])),
        super::cell(f(&r["boto3"]["curl_headers"])),
        ratio(f(&r["boto3"]["curl_whole"]), boto_w).map_or("–".into(), |x| format!("{x:.2}×")),
        ratio(f(&r["boto3"]["curl_headers"]), boto_h).map_or("–".into(), |x| format!("{x:.2}×")),
    );
    table + &concurrency
}

/// Where the measurements are kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("remote.json")
}

/// `cargo run --release` of npy-bench's `remote` binary, its arguments to follow.
fn remote_bin() -> Command {
    let mut cmd = crate::bench::cargo();
    cmd.args(["run", "--release", "-q", "-p", "npy-bench"])
        .args(["--features", "remote", "--bin", "remote", "--"]);
    cmd
}
