//! The columnar targets of issue 24, measured as whole processes like [`super::convert`], on
//! numpy's file of 1,000,000 records `[('id', '<i8'), ('name', '<U12'), ('score', '<f4'),
//! ('when', '<M8[ms]'), ('ok', '?')]` (69,000,000 data bytes), written by the pinned numpy in
//! the write benchmarks' folder (tmpfs where it exists):
//!
//! - `read_dyn`: npy-bench's `dyn_peak dyn FILE` (release) against
//!   `python -c "np.load(f)"`; target at most 1.0× the time, peak resident set at most 1.3×
//!   the data;
//! - to a `RecordBatch`: npy-arrow's example `read_batch FILE` (release) against `np.load`, then
//!   `pa.table({f: a[f] ...})`; target at most 0.5×;
//! - to Parquet: `npy convert FILE OUT.parquet` against `pq.write_table` of that table with
//!   the same compression (Snappy, both sides' default) and pyarrow's other defaults; target at
//!   most 0.7×; a fourth row puts the same `npy convert` against `write_table` alone, timed
//!   inside one Python process that keeps the table (the stricter reading of that target),
//!   the two taken in turn, 11 pairs (5 with `--quick`), medians compared; each timed
//!   call of pyarrow's follows an untimed one, so pyarrow is timed warm;
//! - a map to Arrow: npy-bench's `map_batch DIR` maps sparse `<f4` files of 1 MiB, 64 MiB and
//!   1 GiB and makes each a `RecordBatch` (`batch_from_npy_bytes`): the column's buffer must
//!   be the map (the pointer test), and the 1 GiB call take at most 2× the 1 MiB one (a copy
//!   of 1 GiB would take about a thousand times as long).
//!
//! Python's side includes its interpreter's start and `import numpy` (and pyarrow), as a user
//! running it pays them. `--quick` runs each 3 times instead of 5. Inputs and outputs are
//! removed afterwards.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::show::{build_npy, load_average, median, run};
use crate::python::numpy_python;
use crate::target_dir;

/// Data bytes of the records file (1,000,000 × 69).
const DATA_BYTES: f64 = 69_000_000.0;

/// Measures the five rows; returns `{"read_dyn": .., "batch": .., "parquet": ..,
/// "write_table": .., "map": .., "load": ..}`, the first four `{"ours": {"seconds",
/// "peak_bytes"}, "python": {...}}` (`write_table`'s `python` has seconds only), `map`
/// `map_batch`'s output.
pub fn measure(quick: bool) -> Result<Value, String> {
    let dir = npy_bench::write_dir().map_err(|e| format!("write directory: {e}"))?;
    let files: Vec<PathBuf> = ["col_records.npy", "col_ours.parquet", "col_py.parquet"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    let result = measure_in(&files, quick);
    for f in &files {
        let _ = std::fs::remove_file(f);
    }
    result
}

fn measure_in(files: &[PathBuf], quick: bool) -> Result<Value, String> {
    let [input, ours_pq, py_pq] = [&files[0], &files[1], &files[2]];
    let python = numpy_python()?;
    eprintln!("xtask: writing {}", input.display());
    let make = format!(
        "import numpy as np\nn = 1_000_000\n\
         dt = np.dtype([('id', '<i8'), ('name', '<U12'), ('score', '<f4'), ('when', '<M8[ms]'), ('ok', '?')])\n\
         a = np.zeros(n, dt)\na['id'] = np.arange(n)\n\
         a['name'] = np.char.add('name', np.arange(n).astype('U8'))\n\
         a['score'] = np.arange(n, dtype=np.float32) * 0.5\n\
         a['when'] = (1_700_000_000_000 + np.arange(n)).astype('M8[ms]')\n\
         a['ok'] = np.arange(n) % 3 == 0\nnp.save({:?}, a)\n",
        input.display().to_string()
    );
    let status = Command::new(&python)
        .args(["-c", &make])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("making the records file failed ({status})"));
    }
    let (dyn_peak, read_batch, map_batch) = build_bins()?;
    let npy = build_npy()?;
    let runs = if quick { 3 } else { 5 };
    let f = input.display().to_string();
    let load = format!("import numpy as np\na = np.load({f:?})\n");
    let table = format!(
        "import numpy as np, pyarrow as pa\na = np.load({f:?})\n\
         t = pa.table({{n: a[n] for n in a.dtype.names}})\n"
    );
    let parquet = format!(
        "import numpy as np, pyarrow as pa, pyarrow.parquet as pq\na = np.load({f:?})\n\
         t = pa.table({{n: a[n] for n in a.dtype.names}})\n\
         pq.write_table(t, {:?}, compression='snappy')\n",
        py_pq.display().to_string()
    );
    eprintln!("xtask: timing read_dyn, read_batch and npy convert against numpy and pyarrow");
    let read_dyn = json!({
        "ours": run(Command::new(&dyn_peak).arg("dyn").arg(input), runs)?,
        "python": run(Command::new(&python).args(["-c", &load]), runs)?,
    });
    let batch = json!({
        "ours": run(Command::new(&read_batch).arg(input), runs)?,
        "python": run(Command::new(&python).args(["-c", &table]), runs)?,
    });
    let parquet = json!({
        "ours": run(
            Command::new(&npy).arg("convert").arg(input).arg(ours_pq),
            runs,
        )?,
        "python": run(Command::new(&python).args(["-c", &parquet]), runs)?,
    });
    // pyarrow's encoding alone: `write_table` of the built table, timed inside one Python
    // process that keeps the table, against the same whole `npy convert`, the two taken in
    // turn (ours, then one call of theirs) so that a change in the machine's speed during
    // the run (a shared VM's varies by a third within a minute) reaches both sides alike.
    // Each timed call of theirs follows an untimed one right before it: pyarrow is timed
    // warm, its best case (a call just after one of our processes took 193-226 ms where
    // the warm one took 154).
    let pairs = if quick { 5 } else { 11 };
    let write_table = interleaved(&python, &f, py_pq, &npy, input, ours_pq, pairs)?;
    let dir = input.parent().ok_or("the records file has no folder")?;
    let out = Command::new(&map_batch)
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", map_batch.display()))?;
    if !out.status.success() {
        return Err(format!(
            "map_batch failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let map: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("map_batch's output is not JSON: {e}"))?;
    Ok(json!({
        "map": map,
        "read_dyn": read_dyn,
        "batch": batch,
        "parquet": parquet,
        "write_table": write_table,
        "load": load_average(),
    }))
}

/// `npy convert INPUT OURS` and `pq.write_table(t, PY)` of the table numpy and pyarrow build
/// from `input`, `pairs` times each, in turn: one of ours, then one of theirs. Python times
/// its call inside a process that reads a line from its stdin per call, makes one untimed
/// call and one timed, and answers with the seconds the timed one took. Returns the
/// medians, `{"ours": {"seconds", "peak_bytes"}, "python": {"seconds"}}`.
fn interleaved(
    python: &Path,
    input: &str,
    py_pq: &Path,
    npy: &Path,
    npy_input: &Path,
    ours_pq: &Path,
    pairs: usize,
) -> Result<Value, String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let script = format!(
        "import sys, time, numpy as np, pyarrow as pa, pyarrow.parquet as pq\n\
         a = np.load({input:?})\nt = pa.table({{n: a[n] for n in a.dtype.names}})\n\
         pq.write_table(t, {py:?}, compression='snappy')\nprint('ready', flush=True)\n\
         for _ in sys.stdin:\n\
         \x20   pq.write_table(t, {py:?}, compression='snappy')\n\
         \x20   s = time.perf_counter()\n\
         \x20   pq.write_table(t, {py:?}, compression='snappy')\n\
         \x20   print(time.perf_counter() - s, flush=True)\n",
        py = py_pq.display().to_string()
    );
    let mut child = Command::new(python)
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let (Some(mut to), Some(from)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("the timing process has no pipes".into());
    };
    let mut lines = BufReader::new(from).lines();
    let mut answer = |what: &str| -> Result<String, String> {
        match lines.next() {
            Some(Ok(line)) => Ok(line),
            _ => Err(format!("timing write_table: no answer to {what}")),
        }
    };
    let measured = (|| {
        if answer("the start")? != "ready" {
            return Err("timing write_table: the process did not start".to_string());
        }
        let mut ours = Vec::with_capacity(pairs);
        let mut theirs = Vec::with_capacity(pairs);
        let mut peak = 0u64;
        for _ in 0..pairs {
            let one = run(
                Command::new(npy).arg("convert").arg(npy_input).arg(ours_pq),
                1,
            )?;
            ours.push(one["seconds"].as_f64().unwrap_or(f64::NAN));
            peak = peak.max(one["peak_bytes"].as_u64().unwrap_or(0));
            writeln!(to, "go").map_err(|e| format!("timing write_table: {e}"))?;
            let line = answer("a call")?;
            theirs.push(
                line.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("timing write_table: {line:?} is no time"))?,
            );
        }
        Ok(json!({
            "ours": { "seconds": median(&mut ours), "peak_bytes": peak },
            "python": { "seconds": median(&mut theirs) },
        }))
    })();
    drop(to);
    let status = child
        .wait()
        .map_err(|e| format!("timing write_table: {e}"))?;
    match measured {
        Ok(v) if status.success() => Ok(v),
        Ok(_) => Err(format!("timing write_table failed ({status})")),
        Err(e) => Err(e),
    }
}

/// Builds npy-bench's `dyn_peak` and npy-arrow's example `read_batch` (release).
fn build_bins() -> Result<(PathBuf, PathBuf, PathBuf), String> {
    for args in [
        &["-p", "npy-bench", "--bin", "dyn_peak", "--bin", "map_batch"][..],
        &["-p", "npy-arrow", "--example", "read_batch"][..],
    ] {
        let status = super::cargo()
            .args(["build", "--release", "-q"])
            .args(args)
            .status()
            .map_err(|e| format!("cannot run cargo build: {e}"))?;
        if !status.success() {
            return Err(format!("building {args:?} failed ({status})"));
        }
    }
    let release = target_dir().join("release");
    Ok((
        release.join("dyn_peak"),
        release.join("examples").join("read_batch"),
        release.join("map_batch"),
    ))
}

/// The table's section: the rows against their targets.
pub fn render(v: &Value) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let mut out = format!(
        "Issue 24's 1,000,000-record file `[('id','<i8'), ('name','<U12'), ('score','<f4'), \
         ('when','<M8[ms]'), ('ok','?')]` (69 MB) in tmpfs, whole processes, Python's start and \
         imports included (load average {} when measured):\n\n\
         | operation | ours | peer | ours/peer (target) | our peak / data |\n\
         |---|--:|--:|--:|--:|\n",
        v["load"].as_str().unwrap_or("?")
    );
    for (case, name, peer, limit, peak_limit) in [
        (
            "read_dyn",
            "`read_dyn` (`dyn_peak dyn`)",
            "`np.load(f)`",
            1.0,
            Some(1.3),
        ),
        (
            "batch",
            "to a RecordBatch (`read_batch`)",
            "`np.load` + `pa.table({f: a[f]})`",
            0.5,
            None,
        ),
        (
            "parquet",
            "`npy convert f.npy f.parquet`",
            "`pq.write_table(t, compression='snappy')`",
            0.7,
            None,
        ),
        (
            "write_table",
            "`npy convert f.npy f.parquet` (whole process)",
            "`pq.write_table` alone (in-process, warm; calls taken in turn with ours, medians)",
            0.7,
            None,
        ),
    ] {
        let seconds = |side: &str| v[case][side]["seconds"].as_f64();
        let (a, b) = (seconds("ours"), seconds("python"));
        let ratio = a.zip(b).map(|(a, b)| a / b);
        let peak = v[case]["ours"]["peak_bytes"].as_f64();
        let verdict = |ok: Option<bool>| match ok {
            Some(true) => "met",
            Some(false) => "missed",
            None => "not measured",
        };
        let peak_cell = match (peak, peak_limit) {
            (Some(p), Some(l)) => format!(
                "{:.2} (≤ {l}: **{}**)",
                p / DATA_BYTES,
                verdict(Some(p / DATA_BYTES <= l))
            ),
            (Some(p), None) => format!("{:.2} ({:.0} MiB)", p / DATA_BYTES, p / MIB),
            _ => "–".into(),
        };
        out.push_str(&format!(
            "| {name} vs {peer} | {} | {} | {} (≤ {limit:.1}×: **{}**) | {peak_cell} |\n",
            super::cell(a),
            super::cell(b),
            ratio.map_or("–".into(), |r| format!("{r:.3}×")),
            verdict(ratio.map(|r| r <= limit)),
        ));
    }
    out.push_str(&map_row(&v["map"]));
    out
}

/// The map target's line: `map_batch`'s median per call at each size, whether every
/// column was the map itself, and the 1 GiB call against the 1 MiB one (at most 2×).
fn map_row(map: &Value) -> String {
    let cases = map["cases"].as_array().cloned().unwrap_or_default();
    let seconds: Vec<Option<f64>> = cases.iter().map(|c| c["seconds"].as_f64()).collect();
    let sizes: Vec<String> = cases
        .iter()
        .zip(&seconds)
        .map(|(c, s)| {
            let mib = c["data_bytes"].as_f64().unwrap_or(0.0) / (1u64 << 20) as f64;
            let size = if mib >= 1024.0 {
                format!("{:.0} GiB", mib / 1024.0)
            } else {
                format!("{mib:.0} MiB")
            };
            format!(
                "{size} {}",
                s.map_or("–".into(), |s| format!("{:.1} µs", s * 1e6))
            )
        })
        .collect();
    let uncopied = !cases.is_empty() && cases.iter().all(|c| c["zero_copy"] == true);
    let growth = match (seconds.first(), seconds.last()) {
        (Some(Some(small)), Some(Some(big))) if *small > 0.0 => Some(big / small),
        _ => None,
    };
    let met = |ok: bool| if ok { "met" } else { "missed" };
    format!(
        "\nA mapped `<f4` file as a RecordBatch (`map_batch`: open, map, `batch_from_npy_bytes`; \
         median of 101 calls): {}. The column is the map, no data copied: **{}**. 1 GiB \
         against 1 MiB: {} (time independent of size, ≤ 2×: **{}**).\n",
        sizes.join(", "),
        if uncopied { "yes" } else { "no" },
        growth.map_or("–".into(), |g| format!("{g:.2}×")),
        growth.map_or("not measured", |g| met(uncopied && g <= 2.0)),
    )
}

/// Where the measurements are kept for `--table-only`.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("columnar.json")
}
