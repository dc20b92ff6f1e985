//! `cargo xtask bench [--quick] [--table-only]`: the criterion suite, numpy and the limit in one
//! table.
//!
//! 1. `cargo bench -p npy-bench --bench npy` (criterion; `--quick` passes criterion's
//!    `--quick`, the full run shortens warm-up and measurement to 2 s and 4 s per case);
//! 2. the inputs made by npy-bench ([`npy_bench::make_all`]) and the two headers are in
//!    `target/bench-data`, and `xtask/bench_numpy.py` times `np.load`, `np.save` and numpy's
//!    header parse on the same bytes (median of 5 × 10 calls; 3 × 3 with `--quick`);
//! 3. `peak_mem` (npy-bench's binary, release) reads the 256 MiB file and reports the peak
//!    resident set over the data size;
//! 4. the medians of criterion's `target/criterion/<group>/<case>/<impl>/new/estimates.json`
//!    and numpy's timings make one table (operation, our time, each peer's, ours/peer,
//!    ours/limit, GB/s) and the issue's targets, met or missed; both are printed and written
//!    into `npy-bench/README.md` between the `bench-table` markers, with the machine.
//!
//! 5. [`show`]: the `npy show` targets of issue 10 (summary and `--json` of a 400 MB file,
//!    whole processes, time and peak memory, against numpy).
//! 6. [`write_view`]: `write_ndarray` of a non-contiguous 1 GiB view against `np.save` (issue
//!    10: time, peak memory, same bytes).
//! 7. [`convert`]: the `npy convert` targets of issue 10 (`--order F` against numpy,
//!    `--byte-order big` against `cp`, a 512 MiB file in tmpfs, whole processes).
//! 8. [`safetensors`]: `npy convert A.npz A.safetensors` of 1 GiB, stored and deflated,
//!    against Python's `save_file(dict(np.load(f)))` (issue 26).
//! 9. [`columnar`]: issue 24's 1M-record file: `read_dyn` against `np.load`, to a
//!    `RecordBatch` against numpy + pyarrow, `npy convert` to Parquet against
//!    `pq.write_table` (whole processes, time and peak memory).
//!
//! 9. [`remote`]: issue 25's remote reads: `npy show URL` on the HTTP range server (requests
//!    and bytes), a 256 MiB `.npy` and 1,000 headers over S3 on moto against boto3, and
//!    (issue 42) 1,000 headers on the range server with a 5 ms delay a request, 64 in flight
//!    against one at a time.
//!
//! `--table-only` skips the runs and rebuilds the table from the results on disk (criterion's
//! estimates, `target/bench-data/numpy.json` and `peak_mem.json`). `--only PART` measures one
//! part alone and prints it (the README's table is left as it is): `show`, `write-view`,
//! `convert`, `safetensors`, `remote`, `columnar`, `sql` (issue 41: `npy sql` against numpy +
//! DuckDB, DataFusion on Parquet, numpy and pyarrow; the same query on Ballista; ours over
//! 4.3 GB of shards against its peak-memory bound), or `npz` (criterion's `npz/` benchmarks
//! and numpy's `.npz` timings, one run, with the `.npz` targets).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::flags::BenchPart;
use crate::python::numpy_python;

pub mod columnar;
pub mod convert;
pub mod remote;
pub mod safetensors;
pub mod show;
pub mod sql;
pub mod write_view;
use crate::{target_dir, workspace_root};

const MIB: f64 = (1u64 << 20) as f64;
const START: &str = "<!-- bench-table:start (written by `cargo xtask bench`) -->";
const END: &str = "<!-- bench-table:end -->";

/// Entry point of the `bench` subcommand.
pub fn run(flags: &crate::flags::Bench) -> Result<(), String> {
    let (quick, table_only) = (flags.quick, flags.table_only);
    let data = npy_bench::data_dir().map_err(|e| format!("bench-data directory: {e}"))?;
    let numpy_json = data.join("numpy.json");
    let peak_json = data.join("peak_mem.json");
    if flags.only == Some(BenchPart::Show) {
        let show = show::measure(&data, quick)?;
        write_file(&show::results_path(&data), show.to_string().as_bytes())?;
        print!("{}", show::render(&show));
        return Ok(());
    }
    if flags.only == Some(BenchPart::WriteView) {
        let v = write_view::measure()?;
        write_file(&write_view::results_path(&data), v.to_string().as_bytes())?;
        print!("{}", write_view::render(&v));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Convert) {
        let convert = convert::measure(quick)?;
        write_file(
            &convert::results_path(&data),
            convert.to_string().as_bytes(),
        )?;
        print!("{}", convert::render(&convert));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Safetensors) {
        let st = safetensors::measure(quick)?;
        write_file(&safetensors::results_path(&data), st.to_string().as_bytes())?;
        print!("{}", safetensors::render(&st));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Remote) {
        let r = remote::measure(&data, quick)?;
        write_file(&remote::results_path(&data), r.to_string().as_bytes())?;
        print!("{}", remote::render(&r));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Columnar) {
        let c = columnar::measure(quick)?;
        write_file(&columnar::results_path(&data), c.to_string().as_bytes())?;
        print!("{}", columnar::render(&c));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Sql) {
        let v = sql::measure(quick)?;
        write_file(&sql::results_path(&data), v.to_string().as_bytes())?;
        print!("{}", sql::render(&v));
        return Ok(());
    }
    if flags.only == Some(BenchPart::Npz) {
        run_criterion(quick, Some("npz/"))?;
        npy_bench::make_all(&data).map_err(|e| format!("making the inputs: {e}"))?;
        let numpy: Value = serde_json::from_str(&run_numpy(&data, quick, Some("npz"))?)
            .map_err(|e| format!("bench_numpy.py output: {e}"))?;
        let results = Results {
            criterion: target_dir().join("criterion"),
            numpy: &numpy,
        };
        print!("{}", npz_part(&render(&results, &Value::Null, quick)));
        return Ok(());
    }
    if !table_only {
        run_criterion(quick, None)?;
        eprintln!("xtask: making the inputs in {}", data.display());
        npy_bench::make_all(&data).map_err(|e| format!("making the inputs: {e}"))?;
        write_file(
            &data.join("header_typical.bin"),
            &npy_bench::typical_header(),
        )?;
        write_file(
            &data.join("header_4000_fields.bin"),
            &npy_bench::wide_header(),
        )?;
        let numpy = run_numpy(&data, quick, None)?;
        write_file(&numpy_json, numpy.as_bytes())?;
        let peak = run_peak_mem()?;
        write_file(&peak_json, peak.as_bytes())?;
        let show = show::measure(&data, quick)?;
        write_file(&show::results_path(&data), show.to_string().as_bytes())?;
        let v = write_view::measure()?;
        write_file(&write_view::results_path(&data), v.to_string().as_bytes())?;
        let convert = convert::measure(quick)?;
        write_file(
            &convert::results_path(&data),
            convert.to_string().as_bytes(),
        )?;
        let st = safetensors::measure(quick)?;
        write_file(&safetensors::results_path(&data), st.to_string().as_bytes())?;
        let r = remote::measure(&data, quick)?;
        write_file(&remote::results_path(&data), r.to_string().as_bytes())?;
        let c = columnar::measure(quick)?;
        write_file(&columnar::results_path(&data), c.to_string().as_bytes())?;
    }
    let numpy: Value = read_json(&numpy_json)?;
    let peak: Value = read_json(&peak_json)?;
    let results = Results {
        criterion: target_dir().join("criterion"),
        numpy: &numpy,
    };
    let mut table = render(&results, &peak, quick);
    if let Ok(show) = read_json(&show::results_path(&data)) {
        table.push_str(&format!("\n{}", show::render(&show)));
    }
    if let Ok(v) = read_json(&write_view::results_path(&data)) {
        table.push_str(&format!("\n{}", write_view::render(&v)));
    }
    if let Ok(convert) = read_json(&convert::results_path(&data)) {
        table.push_str(&format!("\n{}", convert::render(&convert)));
    }
    if let Ok(st) = read_json(&safetensors::results_path(&data)) {
        table.push_str(&format!("\n{}", safetensors::render(&st)));
    }
    if let Ok(r) = read_json(&remote::results_path(&data)) {
        table.push_str(&format!("\n{}", remote::render(&r)));
    }
    if let Ok(c) = read_json(&columnar::results_path(&data)) {
        table.push_str(&format!("\n{}", columnar::render(&c)));
    }
    print!("{table}");
    let readme = workspace_root().join("npy-bench").join("README.md");
    update_readme(&readme, &table)?;
    eprintln!("xtask: wrote the table into {}", readme.display());
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(workspace_root());
    cmd
}

/// Runs the criterion suite, or the benchmarks whose id starts with `filter`.
fn run_criterion(quick: bool, filter: Option<&str>) -> Result<(), String> {
    let mut cmd = cargo();
    cmd.args(["bench", "-p", "npy-bench", "--bench", "npy", "--"]);
    if quick {
        cmd.arg("--quick");
    } else {
        cmd.args(["--warm-up-time", "2", "--measurement-time", "4"]);
    }
    if let Some(f) = filter {
        cmd.arg(f);
    }
    eprintln!("xtask: running {cmd:?}");
    // Criterion's report goes to the terminal (stderr), the table alone to stdout.
    let status = cmd
        .stdout(Stdio::from(std::io::stderr()))
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("cargo bench failed ({status})"));
    }
    Ok(())
}

/// numpy's timings (`only`: one group of them, as `bench_numpy.py --only=GROUP`).
fn run_numpy(data: &Path, quick: bool, only: Option<&str>) -> Result<String, String> {
    let python = numpy_python()?;
    let script = workspace_root().join("xtask").join("bench_numpy.py");
    let mut cmd = Command::new(&python);
    let write_dir = npy_bench::write_dir().map_err(|e| format!("write directory: {e}"))?;
    cmd.arg(&script)
        .arg(data)
        .arg(&write_dir)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    if quick {
        cmd.arg("--quick");
    }
    if let Some(group) = only {
        cmd.arg(format!("--only={group}"));
    }
    eprintln!("xtask: timing numpy ({})", script.display());
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", script.display(), out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("bench_numpy.py output: {e}"))
}

fn run_peak_mem() -> Result<String, String> {
    let mut cmd = cargo();
    cmd.args([
        "run",
        "--release",
        "-q",
        "-p",
        "npy-bench",
        "--bin",
        "peak_mem",
    ]);
    eprintln!("xtask: running {cmd:?}");
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run peak_mem: {e}"))?;
    if !out.status.success() {
        return Err(format!("peak_mem failed ({})", out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("peak_mem output: {e}"))
}

/// Where the timings are: criterion's output folder and numpy's JSON.
struct Results<'a> {
    criterion: std::path::PathBuf,
    numpy: &'a Value,
}

impl Results<'_> {
    /// Median seconds of a criterion benchmark `group/case/impl`, if it ran.
    fn criterion(&self, id: &str) -> Option<f64> {
        let path = self.criterion.join(id).join("new").join("estimates.json");
        let v: Value = serde_json::from_str(&fs::read_to_string(path).ok()?).ok()?;
        Some(v["median"]["point_estimate"].as_f64()? * 1e-9)
    }

    /// Seconds per call of a numpy timing.
    fn numpy(&self, key: &str) -> Option<f64> {
        self.numpy["results"][key].as_f64()
    }
}

/// One line of the table: criterion ids (`group/case/impl`) and numpy's key.
struct Row {
    op: String,
    ours: String,
    npyz: Option<String>,
    ndarray: Option<String>,
    numpy: Option<String>,
    limit: Option<(String, &'static str)>,
    bytes: Option<f64>,
}

impl Row {
    fn new(op: &str, ours: &str) -> Row {
        Row {
            op: op.to_string(),
            ours: ours.to_string(),
            npyz: None,
            ndarray: None,
            numpy: None,
            limit: None,
            bytes: None,
        }
    }
    fn npyz(mut self, id: &str) -> Row {
        self.npyz = Some(id.to_string());
        self
    }
    fn ndarray(mut self, id: &str) -> Row {
        self.ndarray = Some(id.to_string());
        self
    }
    fn numpy(mut self, key: &str) -> Row {
        self.numpy = Some(key.to_string());
        self
    }
    fn limit(mut self, id: &str, name: &'static str) -> Row {
        self.limit = Some((id.to_string(), name));
        self
    }
    fn bytes(mut self, bytes: f64) -> Row {
        self.bytes = Some(bytes);
        self
    }
}

fn rows() -> Vec<Row> {
    let mut rows = vec![
        Row::new(
            "header parse, typical 118 B",
            "header_parse/typical_118B/npy-core",
        )
        .npyz("header_parse/typical_118B/npyz")
        .numpy("header_parse/typical_118B"),
        Row::new(
            "header parse, 4,000-field record",
            "header_parse/record_4000_fields/npy-core",
        )
        .npyz("header_parse/record_4000_fields/npyz")
        .numpy("header_parse/record_4000_fields"),
    ];
    for (case, mib) in [("1MiB", 1.0), ("64MiB", 64.0), ("256MiB", 256.0)] {
        let g = format!("read_f32/{case}");
        rows.push(
            Row::new(&format!("read f32 {case} → Vec"), &format!("{g}/npy-core"))
                .npyz(&format!("{g}/npyz"))
                .ndarray(&format!("{g}/ndarray-npy"))
                .numpy(&g)
                .limit(&format!("{g}/limit-fs-read"), "fs::read")
                .bytes(mib * MIB),
        );
        rows.push(
            Row::new(
                &format!("read f32 {case} → Vec, one thread"),
                &format!("{g}/npy-core-1-thread"),
            )
            .numpy(&g)
            .limit(&format!("{g}/limit-fs-read"), "fs::read")
            .bytes(mib * MIB),
        );
        rows.push(
            Row::new(
                &format!("read f32 {case} → reused buffer"),
                &format!("{g}/npy-core-into"),
            )
            .limit(&format!("{g}/limit-memcpy"), "memcpy")
            .bytes(mib * MIB),
        );
    }
    rows.push(
        Row::new(
            "read 1,000,000 rows of 3 f32 one by one, path reader",
            "read_rows/f32_1Mx3/npy-core",
        )
        .limit("read_rows/f32_1Mx3/npy-core-bufreader", "BufReader")
        .bytes(12.0 * 1e6),
    );
    let fs_read_64 = "read_f32/64MiB/limit-fs-read";
    rows.push(
        Row::new(
            "read >f8 64MiB (swapped) → Vec",
            "read_other/f64be_64MiB/npy-core",
        )
        .npyz("read_other/f64be_64MiB/npyz")
        .ndarray("read_other/f64be_64MiB/ndarray-npy")
        .numpy("read_other/f64be_64MiB")
        .limit(fs_read_64, "fs::read")
        .bytes(64.0 * MIB),
    );
    rows.push(
        Row::new("read f16 64MiB → Vec", "read_other/f16_64MiB/npy-core")
            .numpy("read_other/f16_64MiB")
            .limit(fs_read_64, "fs::read")
            .bytes(64.0 * MIB),
    );
    for case in ["f32_1MiB", "f32_1GiB"] {
        rows.push(
            Row::new(
                &format!("view {case} (bytes in memory)"),
                &format!("view/{case}/npy-core"),
            )
            .ndarray(&format!("view/{case}/ndarray-npy")),
        );
        rows.push(
            Row::new(
                &format!("mmap {case}"),
                &format!("view/{case}/npy-core-mmap"),
            )
            .numpy(&format!("view/{case}#mmap")),
        );
    }
    let record_bytes = npy_bench::RECORDS as f64 * 16.0;
    for layout in ["packed", "aligned"] {
        let g = format!("read_records/xyid_1M_{layout}");
        // (what is read, its benchmark id, whether numpy has the same task)
        let variants = [
            ("read_records", "npy-core", true),
            ("NpyReader → reused", "npy-core-into", false),
            ("read_records (pod)", "npy-core-pod", true),
            ("NpyReader → reused (pod)", "npy-core-pod-into", false),
        ];
        for (what, id, numpy) in variants {
            let mut row = Row::new(
                &format!("records 1M {layout}, {what}"),
                &format!("{g}/{id}"),
            )
            .npyz(&format!("{g}/npyz"));
            if numpy {
                row = row.numpy(&g);
            }
            rows.push(
                row.limit(&format!("{g}/limit-fs-read"), "fs::read")
                    .bytes(record_bytes),
            );
        }
    }
    rows.push(
        Row::new("write f32 64MiB from a slice", "write_f32/64MiB/npy-core")
            .npyz("write_f32/64MiB/npyz")
            .ndarray("write_f32/64MiB/ndarray-npy")
            .numpy("write_f32/64MiB")
            .limit("write_f32/64MiB/limit-fs-write", "fs::write")
            .bytes(64.0 * MIB),
    );
    // npz rows (issue 11)
    rows.push(
        Row::new(
            "npz: open a stored 100-member archive, read its 64 MiB f32 member",
            "npz/read_member_64MiB/npy-core",
        )
        .ndarray("npz/read_member_64MiB/ndarray-npy")
        .numpy("npz/read_member_64MiB")
        .limit(fs_read_64, "fs::read")
        .bytes(64.0 * MIB),
    );
    rows.push(
        Row::new(
            "npz: read a deflated 64 MiB f32 member (savez_compressed's bytes)",
            "npz/read_deflated_64MiB/npy-npz",
        )
        .numpy("npz/read_deflated_64MiB")
        .bytes(64.0 * MIB),
    );
    rows.push(
        Row::new(
            "npz: every header of 1,000 members (npy info)",
            "npz/info_1000_members/npy-core",
        )
        .numpy("npz/info_1000_members"),
    );
    rows.push(
        Row::new(
            "npz: deflated write, 64 MiB f32 signal (savez_compressed)",
            "npz/write_deflated_64MiB/npy-core",
        )
        .numpy("npz/write_deflated_64MiB")
        .bytes(64.0 * MIB),
    );
    rows.push(
        Row::new(
            "npz: stored write, 256 MiB f32 (savez)",
            "npz/write_stored_256MiB/npy-core",
        )
        .numpy("npz/write_stored_256MiB")
        .limit("npz/write_stored_256MiB/limit-fs-write", "fs::write")
        .bytes(256.0 * MIB),
    );
    rows.push(
        Row::new(
            "stream-write 16M f32, one push each",
            "write_f32/stream_16M_push/npy-core",
        )
        .limit("write_f32/64MiB/limit-fs-write", "fs::write")
        .bytes(64.0 * MIB),
    );
    rows.push(
        Row::new(
            "append 1,000 × 1 MiB rows, no sync (numpy column: npy-append-array)",
            "append/1000x1MiB/npy-core",
        )
        .numpy("append/1000x1MiB#npy-append-array")
        .limit("append/1000x1MiB/limit-fs-append", "fs::File append")
        .bytes(1000.0 * MIB),
    );
    rows.push(
        Row::new(
            "append 100 × 1 MiB rows, synced each",
            "append/100x1MiB_sync/npy-core",
        )
        .limit(
            "append/100x1MiB_sync/limit-fs-append",
            "fs::File append + sync_data",
        )
        .bytes(100.0 * MIB),
    );
    rows
}

/// `1.23 ms`, three significant digits.
fn time(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "–".to_string(),
    }
}

fn cell(t: Option<f64>) -> String {
    t.map_or_else(|| "–".to_string(), time)
}

fn render(r: &Results<'_>, peak: &Value, quick: bool) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "{}\n", machine(r.numpy, quick));
    let _ = writeln!(
        w,
        "| operation | ours | npyz | ndarray-npy | numpy | limit | ours/npyz | \
         ours/ndarray-npy | ours/numpy | ours/limit | GB/s (ours) |"
    );
    let _ = writeln!(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    let mut missing = Vec::new();
    for row in rows() {
        let ours = r.criterion(&row.ours);
        if ours.is_none() {
            missing.push(row.ours.clone());
        }
        let npyz = row.npyz.as_deref().and_then(|id| r.criterion(id));
        let nd = row.ndarray.as_deref().and_then(|id| r.criterion(id));
        let np = row.numpy.as_deref().and_then(|k| r.numpy(k));
        let limit = row.limit.as_ref().and_then(|(id, _)| r.criterion(id));
        let limit_cell = match (&row.limit, limit) {
            (Some((_, name)), Some(t)) => format!("{} ({name})", time(t)),
            _ => "–".to_string(),
        };
        let gbs = match (ours, row.bytes) {
            (Some(t), Some(b)) => format!("{:.2}", b / t / 1e9),
            _ => "–".to_string(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.op,
            cell(ours),
            cell(npyz),
            cell(nd),
            cell(np),
            limit_cell,
            ratio(ours, npyz),
            ratio(ours, nd),
            ratio(ours, np),
            ratio(ours, limit),
            gbs
        );
    }
    let peak_ratio = peak["ratio"].as_f64();
    let _ = writeln!(
        w,
        "\nPeak memory, `npy_core::read::<f32>` of the 256 MiB file: {} MiB above the \
         baseline for {} MiB of data ({}).",
        peak["extra_bytes"]
            .as_f64()
            .map_or("?".to_string(), |b| format!("{:.1}", b / MIB)),
        peak["data_bytes"]
            .as_f64()
            .map_or("?".to_string(), |b| format!("{:.0}", b / MIB)),
        peak_ratio.map_or("?".to_string(), |x| format!("{x:.3}× the data size")),
    );
    let read_into: Vec<String> = ["1MiB", "64MiB", "256MiB"]
        .iter()
        .filter_map(|c| {
            let t = r.criterion(&format!("read_f32/{c}/limit-read-into"))?;
            Some(format!("{c} {}", time(t)))
        })
        .collect();
    let _ = writeln!(
        w,
        "`read_exact` of the file into a reused buffer (the kernel's copy out of the page \
         cache): {}.",
        read_into.join(", ")
    );
    let _ = writeln!(w, "\n{}", targets(r, peak_ratio));
    if !missing.is_empty() {
        let _ = writeln!(w, "Not measured: {}.", missing.join(", "));
    }
    out
}

/// The `.npz` part of a rendered table: the machine line, the rows of `npz/` operations and
/// the `.npz` targets (the rest of the table was not measured in this run).
fn npz_part(table: &str) -> String {
    let mut out = String::new();
    let mut in_targets = false;
    for (i, line) in table.lines().enumerate() {
        if line.starts_with("Targets (") {
            in_targets = line.contains(".npz");
        }
        let header = line.starts_with("| operation") || line.starts_with("|---");
        if i == 0 || header || line.starts_with("| npz") || in_targets {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The issue's targets, each met or missed with its ratio.
fn targets(r: &Results<'_>, peak_ratio: Option<f64>) -> String {
    let c = |id: &str| r.criterion(id);
    let mut lines = vec!["Targets (issue 7):".to_string(), String::new()];
    let mut check = |what: &str, value: Option<f64>, limit: f64, less: bool, unit: &str| {
        let line = match value {
            Some(v) => {
                let met = if less { v <= limit } else { v >= limit };
                format!(
                    "- {what}: {v:.2}{unit} (target {} {limit}{unit}) — **{}**",
                    if less { "≤" } else { "≥" },
                    if met { "met" } else { "missed" }
                )
            }
            None => format!("- {what}: not measured"),
        };
        lines.push(line);
    };
    let div = |a: Option<f64>, b: Option<f64>| Some(a? / b?);
    let read64 = c("read_f32/64MiB/npy-core");
    check(
        "owned read f32 64 MiB, ours / np.load",
        div(read64, r.numpy("read_f32/64MiB")),
        1.0,
        true,
        "×",
    );
    check(
        "owned read f32 64 MiB, ndarray-npy / ours (speed-up)",
        div(c("read_f32/64MiB/ndarray-npy"), read64),
        1.8,
        false,
        "×",
    );
    check(
        "owned read f32 64 MiB, npyz / ours (speed-up)",
        div(c("read_f32/64MiB/npyz"), read64),
        3.0,
        false,
        "×",
    );
    check(
        "read f32 64 MiB into a reused buffer, ours / memcpy",
        div(
            c("read_f32/64MiB/npy-core-into"),
            c("read_f32/64MiB/limit-memcpy"),
        ),
        1.1,
        true,
        "×",
    );
    check(
        "byte-swapped read (>f8 64 MiB), ours / our native f32 64 MiB read",
        div(c("read_other/f64be_64MiB/npy-core"), read64),
        1.3,
        true,
        "×",
    );
    let write = c("write_f32/64MiB/npy-core");
    check(
        "write f32 64 MiB, ours / fs::write",
        div(write, c("write_f32/64MiB/limit-fs-write")),
        1.05,
        true,
        "×",
    );
    check(
        "write f32 64 MiB, ours / np.save",
        div(write, r.numpy("write_f32/64MiB")),
        1.0,
        true,
        "×",
    );
    check(
        "header parse, typical",
        c("header_parse/typical_118B/npy-core").map(|t| t * 1e6),
        1.0,
        true,
        " µs",
    );
    check(
        "header parse, 4,000 fields, per 1,000 fields",
        c("header_parse/record_4000_fields/npy-core").map(|t| t * 1e6 / 4.0),
        20.0,
        true,
        " µs",
    );
    for layout in ["packed", "aligned"] {
        let g = format!("read_records/xyid_1M_{layout}");
        check(
            &format!("records 1M {layout}, npyz derive / our derive (speed-up)"),
            div(c(&format!("{g}/npyz")), c(&format!("{g}/npy-core"))),
            3.0,
            false,
            "×",
        );
        check(
            &format!("records 1M {layout}, npyz derive / our #[npy(pod)] derive (speed-up)"),
            div(c(&format!("{g}/npyz")), c(&format!("{g}/npy-core-pod"))),
            3.0,
            false,
            "×",
        );
    }
    check(
        "mmap, 1 GiB / 1 MiB (O(1))",
        div(
            c("view/f32_1GiB/npy-core-mmap"),
            c("view/f32_1MiB/npy-core-mmap"),
        ),
        1.5,
        true,
        "×",
    );
    check(
        "view of bytes in memory, 1 GiB / 1 MiB (O(1))",
        div(c("view/f32_1GiB/npy-core"), c("view/f32_1MiB/npy-core")),
        1.5,
        true,
        "×",
    );
    check(
        "peak memory reading 256 MiB into a Vec, / data size",
        peak_ratio,
        1.05,
        true,
        "×",
    );
    check(
        "append 1,000 batches of 1 MiB, ours / fs::File appends",
        div(
            c("append/1000x1MiB/npy-core"),
            c("append/1000x1MiB/limit-fs-append"),
        ),
        1.2,
        true,
        "×",
    );
    // The last line is issue 16's: under its own heading.
    let at = lines.len() - 1;
    lines.splice(at..at, ["", "Targets (issue 16):", ""].map(String::from));
    lines.push(String::new());
    lines.push("Targets (issue 11, .npz):".to_string());
    lines.push(String::new());
    let mut check = |what: &str, value: Option<f64>, limit: f64, less: bool| {
        lines.push(ratio_target(what, value, limit, less));
    };
    let member = c("npz/read_member_64MiB/npy-core");
    check(
        "one 64 MiB member of a stored 100-member archive, ours / np.load(f)[key]",
        div(member, r.numpy("npz/read_member_64MiB")),
        1.0,
        true,
    );
    check(
        "the same, ndarray-npy's NpzReader / ours (speed-up)",
        div(c("npz/read_member_64MiB/ndarray-npy"), member),
        1.5,
        false,
    );
    check(
        "a deflated 64 MiB member, ours / np.load(f)[key] (issue 22: libdeflate, whole member)",
        div(
            c("npz/read_deflated_64MiB/npy-npz"),
            r.numpy("npz/read_deflated_64MiB"),
        ),
        0.35,
        true,
    );
    check(
        "every header of 1,000 members, ours / numpy",
        div(
            c("npz/info_1000_members/npy-core"),
            r.numpy("npz/info_1000_members"),
        ),
        0.2,
        true,
    );
    check(
        "deflated write 64 MiB, np.savez_compressed / ours (speed-up)",
        div(
            r.numpy("npz/write_deflated_64MiB"),
            c("npz/write_deflated_64MiB/npy-core"),
        ),
        2.0,
        false,
    );
    let our_size = npy_bench::write_dir()
        .ok()
        .and_then(|d| fs::read_to_string(d.join("write_deflated_64MiB.size")).ok())
        .and_then(|s| s.trim().parse::<f64>().ok());
    check(
        "deflated write 64 MiB, our archive's size / numpy's",
        div(our_size, r.numpy("npz/write_deflated_64MiB#size")),
        1.05,
        true,
    );
    check(
        "stored write 256 MiB, ours / fs::write",
        div(
            c("npz/write_stored_256MiB/npy-core"),
            c("npz/write_stored_256MiB/limit-fs-write"),
        ),
        1.1,
        true,
    );
    lines.push(String::new());
    lines.push("Targets (issue 10, reads of large files):".to_string());
    lines.push(String::new());
    let read256 = c("read_f32/256MiB/npy-core");
    lines.push(ratio_target(
        "owned read 256 MiB, ours / single-threaded",
        div(read256, c("read_f32/256MiB/npy-core-1-thread")),
        0.7,
        true,
    ));
    lines.push(ratio_target(
        "owned read 256 MiB, ours / np.load",
        div(read256, r.numpy("read_f32/256MiB")),
        0.5,
        true,
    ));
    lines.push(ratio_target(
        "1,000,000 rows of 3 f32 read one by one, path reader / over a hand-made BufReader",
        div(
            c("read_rows/f32_1Mx3/npy-core"),
            c("read_rows/f32_1Mx3/npy-core-bufreader"),
        ),
        1.5,
        true,
    ));
    lines.join("\n") + "\n"
}

/// One target line of a ratio: its value against `limit` (`less`: at most, else at least),
/// met or missed.
fn ratio_target(what: &str, value: Option<f64>, limit: f64, less: bool) -> String {
    match value {
        Some(v) => format!(
            "- {what}: {v:.2}× (target {} {limit}×) — **{}**",
            if less { "≤" } else { "≥" },
            if (less && v <= limit) || (!less && v >= limit) {
                "met"
            } else {
                "missed"
            }
        ),
        None => format!("- {what}: not measured"),
    }
}

fn command_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn machine(numpy: &Value, quick: bool) -> String {
    let numpy_version = numpy["numpy_version"].as_str().unwrap_or("?");
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "?".to_string());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let thp = fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .map_or_else(|_| "?".to_string(), |s| s.trim().to_string());
    let rustc = command_line("rustc", &["-V"]).unwrap_or_else(|| "?".to_string());
    let arch = command_line("uname", &["-m"]).unwrap_or_else(|| "?".to_string());
    let kernel = command_line("uname", &["-r"]).unwrap_or_else(|| "?".to_string());
    let date =
        command_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "?".to_string());
    let load = fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string());
    format!(
        "Machine: {arch}, {cpu}, {cores} cores, Linux {kernel} (transparent huge pages: \
         `{thp}`); {rustc}; numpy {numpy_version}; {date}; load average {load} at the end; \
         {}. Times are medians (criterion; numpy: median of {} batches of {} calls); inputs \
         are in the page cache; writes go to `{}`.",
        if quick {
            "`cargo xtask bench --quick`"
        } else {
            "`cargo xtask bench`"
        },
        numpy["repeat"],
        numpy["number"],
        numpy["write_dir"].as_str().unwrap_or("?"),
    )
}

fn update_readme(path: &Path, table: &str) -> Result<(), String> {
    let block = format!("{START}\n{table}{END}");
    let text = match fs::read_to_string(path) {
        Ok(old) => match (old.find(START), old.find(END)) {
            (Some(a), Some(b)) if a < b => {
                format!("{}{block}{}", &old[..a], &old[b + END.len()..])
            }
            _ => format!("{}\n{block}\n", old.trim_end()),
        },
        Err(_) => format!("# npy-bench\n\n{block}\n"),
    };
    write_file(path, text.as_bytes())
}
