//! Issue 41's one-machine SQL target, measured as whole processes: `SELECT label, count(*),
//! avg(score) … GROUP BY label` over 8 shards of 1,000,000 records `[('id','<i8'),
//! ('label','<i4'), ('score','<f4'), ('when','<M8[ms]'), ('name','<U8')]` (56 bytes each,
//! 448 MB in all; `--quick`: 8 × 100,000), written by the pinned numpy in the write benchmarks'
//! folder (tmpfs where it exists), warm in the page cache:
//!
//! - ours: `npy sql --table t=DIR QUERY` (release, feature `sql`);
//! - numpy + DuckDB, the peer: `np.load` of each shard, `pa.table` of the query's
//!   columns, `pa.concat_tables`, `duckdb.sql(QUERY)` (the pinned `duckdb`);
//! - DataFusion over the same records as uncompressed Parquet (written once by pyarrow,
//!   `compression='none'`, outside the timing): npy-datafusion's example `parquet_sql`, a
//!   listing table with DataFusion's own `ParquetFormat`, built in the same release build as
//!   ours (one DataFusion, its `parquet` feature on for both);
//! - numpy alone: `np.load` of each shard, `np.concatenate`, then `np.unique` and
//!   `np.bincount` for the groups;
//! - pyarrow alone: `np.load` of each shard, `pa.table`, `group_by().aggregate()`;
//! - the floor: reading the shards' bytes once (`cat DIR/* > /dev/null`), since interleaved
//!   records make a scan touch every byte;
//! - Ballista: the same query through npy-ballista's example `cluster` (a scheduler and two
//!   executors started in its process on 127.0.0.1), built in the same release build as ours;
//!   its whole process and, as the example prints it, the query alone (cluster start-up left
//!   out);
//! - at scale: ours over [`SCALE_SHARDS`] shards of the same records (4.3 GB; `--quick`:
//!   430 MB), written by the same numpy generator, with the floor beside it.
//!
//! Targets: at most 0.5× numpy + DuckDB; at most 1.0× DataFusion over Parquet, or within 1.25×
//! of the floor, whichever is larger; over the 4.3 GB, a peak resident set of at most
//! [`SCALE_PEAK_LIMIT`]; on Ballista, numpy's answers. The answers of ours (both sizes) and of
//! Ballista are checked against numpy's, computed shard by shard (`np.bincount` sums, bounded
//! memory). Python's side includes its interpreter's start and imports. Inputs are removed
//! afterwards.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

use super::show::{load_average, median, run, wait_rusage};
use crate::python::numpy_python;

/// The query of the target.
const QUERY: &str =
    "SELECT label, count(*) AS n, avg(score) AS mean FROM t GROUP BY label ORDER BY label";

/// Ballista's example names its table `shards`.
const BALLISTA_QUERY: &str =
    "SELECT label, count(*) AS n, avg(score) AS mean FROM shards GROUP BY label ORDER BY label";

/// Task slots of each executor of Ballista's example (npy-ballista's `EXECUTOR_SLOTS`; xtask
/// does not link npy-ballista), for the table.
const BALLISTA_SLOTS: usize = 2;

/// Shards of the target.
const SHARDS: usize = 8;

/// Shards of the run at scale: 77 × 1,000,000 records of 56 bytes, 4.3 GB (over 4 GiB).
pub const SCALE_SHARDS: usize = 77;

/// The bound on our peak resident set over [`SCALE_SHARDS`] shards: 512 MiB.
pub const SCALE_PEAK_LIMIT: u64 = 512 << 20;

/// The relative difference allowed between a mean and numpy's (sums of the same `float32`
/// values in `float64`, in another order).
const MEAN_TOLERANCE: f64 = 1e-9;

/// Measures the rows; returns `{"ours", "duckdb", "datafusion_parquet", "numpy", "pyarrow",
/// "floor", "ballista", "scale_ours", "scale_floor"}` (each `{"seconds", "peak_bytes"}`;
/// Ballista's also `"query_seconds"`), `"rows"`, `"scale_rows"`, `"scale_bytes"` and
/// `"load"`.
pub fn measure(quick: bool) -> Result<Value, String> {
    let dir = npy_bench::write_dir()
        .map_err(|e| format!("write directory: {e}"))?
        .join("sql_shards");
    let result = measure_in(&dir, quick);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Writes `shards` shards of `rows` records each in `dir` (`s0.npy`, `s1.npy`, …) with the
/// pinned numpy: the records of the target, the same for every run (seeded).
fn make_shards(python: &Path, dir: &Path, shards: usize, rows: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let d = dir.display().to_string();
    eprintln!("xtask: writing {shards} shards of {rows} records in {d}");
    let make = format!(
        "import numpy as np\nn = {rows}\nrng = np.random.default_rng(41)\n\
         dt = [('id','<i8'), ('label','<i4'), ('score','<f4'), ('when','<M8[ms]'), ('name','<U8')]\n\
         for k in range({shards}):\n\
         \x20   a = np.zeros(n, dt)\n\
         \x20   a['id'] = np.arange(n) + k * n\n\
         \x20   a['label'] = rng.integers(0, 16, n)\n\
         \x20   a['score'] = rng.random(n, dtype=np.float32)\n\
         \x20   a['when'] = (1_700_000_000_000 + a['id']).astype('M8[ms]')\n\
         \x20   a['name'] = np.char.add('n', (a['id'] % 1000).astype('U6'))\n\
         \x20   np.save(f'{d}/s{{k}}.npy', a)\n"
    );
    let status = Command::new(python)
        .args(["-c", &make])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("making the shards failed ({status})"));
    }
    Ok(())
}

/// numpy's answer to the query over `dir`'s shards, computed one shard at a time (memory: one
/// shard): `[{"label", "n", "mean"}, …]` by label.
fn numpy_answer(python: &Path, dir: &Path) -> Result<Value, String> {
    let d = dir.display().to_string();
    let script = format!(
        "import glob, json, numpy as np\n\
         n = np.zeros(0, np.int64); s = np.zeros(0, np.float64)\n\
         for f in sorted(glob.glob({d:?} + '/*.npy')):\n\
         \x20   a = np.load(f)\n\
         \x20   lab = a['label'].astype(np.int64)\n\
         \x20   assert lab.size == 0 or lab.min() >= 0\n\
         \x20   c = np.bincount(lab)\n\
         \x20   w = np.bincount(lab, weights=a['score'].astype(np.float64))\n\
         \x20   m = max(len(n), len(c))\n\
         \x20   n = np.pad(n, (0, m - len(n))); s = np.pad(s, (0, m - len(s)))\n\
         \x20   n[:len(c)] += c; s[:len(w)] += w\n\
         print(json.dumps([{{'label': int(k), 'n': int(n[k]), 'mean': float(s[k] / n[k])}} \
         for k in np.nonzero(n)[0]]))\n"
    );
    let out = Command::new(python)
        .args(["-c", &script])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!("numpy's answer over {d} failed ({})", out.status));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("numpy's answer over {d}: {e}"))
}

/// Whether `got` (rows of `label`, `n`, `mean`) is `want` (numpy's): labels and counts equal,
/// means within [`MEAN_TOLERANCE`].
fn check_answer(what: &str, got: &[Value], want: &Value) -> Result<(), String> {
    let want = want.as_array().map_or(&[][..], Vec::as_slice);
    let same = got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            let mean = |v: &Value| v["mean"].as_f64().unwrap_or(f64::NAN);
            g["label"].as_i64() == w["label"].as_i64()
                && g["n"].as_i64() == w["n"].as_i64()
                && (mean(g) - mean(w)).abs() <= MEAN_TOLERANCE * mean(w).abs().max(1.0)
        });
    if same {
        eprintln!("xtask: {what}: numpy's answer ({} groups)", want.len());
        Ok(())
    } else {
        Err(format!(
            "{what} differs from numpy's: {got:?} against {want:?}"
        ))
    }
}

/// Our answer over `dir`: `npy sql --json` (JSON Lines), one object per row.
fn npy_answer(npy: &Path, dir: &Path) -> Result<Vec<Value>, String> {
    let table = format!("t={}", dir.display());
    let out = Command::new(npy)
        .args(["sql", "--json", "--table", &table, QUERY])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", npy.display()))?;
    if !out.status.success() {
        return Err(format!("npy sql --json failed ({})", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("npy sql --json: {e}: {l}")))
        .collect()
}

/// The rows of a table printed by Arrow's `pretty_format_batches` whose header is `label`,
/// `n`, `mean` (Ballista's example prints its answer so); other lines are left out.
fn pretty_rows(text: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for line in text.lines().map(str::trim) {
        if !line.starts_with('|') {
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect();
        match &header {
            None => header = Some(cells),
            Some(names) => {
                let mut row = serde_json::Map::new();
                for (name, cell) in names.iter().zip(&cells) {
                    let v = cell
                        .parse::<i64>()
                        .map(Value::from)
                        .or_else(|_| cell.parse::<f64>().map(Value::from))
                        .unwrap_or_else(|_| Value::from(cell.as_str()));
                    row.insert(name.clone(), v);
                }
                rows.push(Value::Object(row));
            }
        }
    }
    rows
}

/// Runs Ballista's example `cluster` over `dir` `runs` times: `{"seconds": median of the
/// whole process, "query_seconds": median of the query alone (the example's stderr),
/// "peak_bytes": largest}`, and the last run's answer.
fn run_ballista(
    cluster: &Path,
    dir: &Path,
    out: &Path,
    runs: usize,
) -> Result<(Value, Vec<Value>), String> {
    let (stdout, stderr) = (out.join("ballista.out"), out.join("ballista.err"));
    let location = dir.display().to_string();
    let (mut times, mut query_times, mut peak, mut answer) =
        (Vec::new(), Vec::new(), 0u64, Vec::new());
    for _ in 0..runs {
        let file = |p: &Path| File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let start = Instant::now();
        let child = Command::new(cluster)
            .args([location.as_str(), BALLISTA_QUERY])
            .stdout(file(&stdout)?)
            .stderr(file(&stderr)?)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", cluster.display()))?;
        let (ok, rss) = wait_rusage(child.id())?;
        times.push(start.elapsed().as_secs_f64());
        let read =
            |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
        let err = read(&stderr)?;
        if !ok {
            return Err(format!("{} failed: {err}", cluster.display()));
        }
        peak = peak.max(rss);
        let query = err
            .lines()
            .find_map(|l| l.split("query answered in ").nth(1))
            .and_then(|t| t.trim_end_matches(" s").trim().parse::<f64>().ok())
            .ok_or_else(|| format!("{}: no query time on stderr: {err}", cluster.display()))?;
        query_times.push(query);
        answer = pretty_rows(&read(&stdout)?);
    }
    Ok((
        json!({
            "seconds": median(&mut times),
            "query_seconds": median(&mut query_times),
            "peak_bytes": peak,
        }),
        answer,
    ))
}

fn measure_in(root: &Path, quick: bool) -> Result<Value, String> {
    let (dir, parquet_dir, scale_dir) =
        (root.join("npy"), root.join("parquet"), root.join("scale"));
    let python = numpy_python()?;
    let rows = if quick { 100_000 } else { 1_000_000 };
    make_shards(&python, &dir, SHARDS, rows)?;
    std::fs::create_dir_all(&parquet_dir).map_err(|e| format!("{}: {e}", parquet_dir.display()))?;
    let d = dir.display().to_string();
    let pd = parquet_dir.display().to_string();
    // The same records as uncompressed Parquet, one file per shard (pyarrow's default row
    // groups), for the DataFusion peer.
    let make_parquet = format!(
        "import glob, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq\n\
         for f in sorted(glob.glob({d:?} + '/*.npy')):\n\
         \x20   a = np.load(f)\n\
         \x20   t = pa.table({{k: a[k] for k in a.dtype.names}})\n\
         \x20   name = os.path.basename(f)[:-4] + '.parquet'\n\
         \x20   pq.write_table(t, os.path.join({pd:?}, name), compression='none')\n"
    );
    eprintln!("xtask: writing them as uncompressed Parquet in {pd}");
    let status = Command::new(&python)
        .args(["-c", &make_parquet])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("writing the Parquet files failed ({status})"));
    }
    let (npy, parquet_sql, cluster) = build()?;
    let runs = if quick { 3 } else { 5 };
    let numpy = format!(
        "import glob, numpy as np\n\
         a = np.concatenate([np.load(f) for f in sorted(glob.glob({d:?} + '/*.npy'))])\n\
         labels, inv = np.unique(a['label'], return_inverse=True)\n\
         n = np.bincount(inv)\nmean = np.bincount(inv, weights=a['score']) / n\n"
    );
    let pyarrow = format!(
        "import glob, numpy as np, pyarrow as pa\n\
         ts = []\n\
         for f in sorted(glob.glob({d:?} + '/*.npy')):\n\
         \x20   a = np.load(f)\n\
         \x20   ts.append(pa.table({{k: a[k] for k in ('label', 'score')}}))\n\
         t = pa.concat_tables(ts).group_by('label').aggregate([('score', 'count'), ('score', 'mean')])\n"
    );
    let duckdb = format!(
        "import glob, numpy as np, pyarrow as pa, duckdb\n\
         ts = []\n\
         for f in sorted(glob.glob({d:?} + '/*.npy')):\n\
         \x20   a = np.load(f)\n\
         \x20   ts.append(pa.table({{k: a[k] for k in ('label', 'score')}}))\n\
         t = pa.concat_tables(ts)\n\
         print(duckdb.sql({QUERY:?}).fetchall())\n"
    );
    let floor = format!("cat {d}/*.npy > /dev/null");
    // Warm the page cache once, then measure.
    run(Command::new("sh").args(["-c", &floor]), 1)?;
    eprintln!(
        "xtask: timing npy sql, numpy + DuckDB, DataFusion on Parquet, numpy, pyarrow and cat"
    );
    let table = format!("t={d}");
    let parquet_table = format!("t={pd}");
    let mut v = json!({
        "ours": run(Command::new(&npy).args(["sql", "--table", &table, QUERY]), runs)?,
        "duckdb": run(Command::new(&python).args(["-c", &duckdb]), runs)?,
        "datafusion_parquet": run(
            Command::new(&parquet_sql).args([&parquet_table, QUERY]),
            runs
        )?,
        "numpy": run(Command::new(&python).args(["-c", &numpy]), runs)?,
        "pyarrow": run(Command::new(&python).args(["-c", &pyarrow]), runs)?,
        "floor": run(Command::new("sh").args(["-c", &floor]), runs)?,
        "rows": rows * SHARDS,
        "load": load_average(),
    });
    let want = numpy_answer(&python, &dir)?;
    check_answer("npy sql", &npy_answer(&npy, &dir)?, &want)?;

    eprintln!("xtask: timing the same query on Ballista (a scheduler and 2 executors)");
    let (ballista, answer) = run_ballista(&cluster, &dir, root, runs)?;
    check_answer("Ballista", &answer, &want)?;
    v["ballista"] = ballista;
    // Free the 8 shards' memory (tmpfs) before writing the large set.
    for d in [&dir, &parquet_dir] {
        std::fs::remove_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }

    make_shards(&python, &scale_dir, SCALE_SHARDS, rows)?;
    let scale_bytes: u64 = std::fs::read_dir(&scale_dir)
        .map_err(|e| format!("{}: {e}", scale_dir.display()))?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let sd = scale_dir.display().to_string();
    let scale_floor = format!("cat {sd}/*.npy > /dev/null");
    run(Command::new("sh").args(["-c", &scale_floor]), 1)?;
    let want = numpy_answer(&python, &scale_dir)?;
    check_answer(
        &format!("npy sql over {SCALE_SHARDS} shards"),
        &npy_answer(&npy, &scale_dir)?,
        &want,
    )?;
    eprintln!("xtask: timing npy sql and cat over {SCALE_SHARDS} shards ({scale_bytes} bytes)");
    let scale_table = format!("t={sd}");
    v["scale_ours"] = run(
        Command::new(&npy).args(["sql", "--table", &scale_table, QUERY]),
        runs,
    )?;
    v["scale_floor"] = run(Command::new("sh").args(["-c", &scale_floor]), runs)?;
    v["scale_rows"] = json!(rows * SCALE_SHARDS);
    v["scale_bytes"] = json!(scale_bytes);
    Ok(v)
}

/// Builds `npy` (feature `sql`), npy-datafusion's example `parquet_sql` and npy-ballista's
/// example `cluster` in one release build, so all three link one DataFusion (with the
/// features Ballista asks for); returns their paths.
fn build() -> Result<(PathBuf, PathBuf, PathBuf), String> {
    let status = super::cargo()
        .args(["build", "--release", "-q", "-p", "npy-cli", "--features"])
        .args(["npy-cli/sql", "--bin", "npy", "-p", "npy-datafusion"])
        .args(["--example", "parquet_sql", "-p", "npy-ballista"])
        .args(["--example", "cluster"])
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building npy --features sql and the parquet_sql and cluster examples failed \
             ({status})"
        ));
    }
    let release = crate::target_dir().join("release");
    let examples = release.join("examples");
    Ok((
        release.join("npy"),
        examples.join("parquet_sql"),
        examples.join("cluster"),
    ))
}

/// The table's section: our time against each peer and the floor, with the target.
pub fn render(v: &Value) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let secs = |k: &str| v[k]["seconds"].as_f64().unwrap_or(f64::NAN);
    let ours = secs("ours");
    let duckdb_limit = 0.5 * secs("duckdb");
    let datafusion_limit = secs("datafusion_parquet").max(1.25 * secs("floor"));
    let mut out = format!(
        "Issue 41's group-by over {SHARDS} shards ({} records in all) in tmpfs, warm, whole \
         processes (load average {} when measured):\n\n\
         | run | seconds | peak RSS (MiB) | ours ÷ it |\n|---|--:|--:|--:|\n",
        v["rows"],
        v["load"].as_str().unwrap_or("?")
    );
    for (k, name) in [
        ("ours", "`npy sql --table t=DIR` (DataFusion)"),
        (
            "duckdb",
            "numpy + DuckDB: `np.load` each, `pa.table`, `duckdb.sql`",
        ),
        (
            "datafusion_parquet",
            "DataFusion on the same records as uncompressed Parquet",
        ),
        ("numpy", "`np.load` each, `np.unique` + `np.bincount`"),
        (
            "pyarrow",
            "`np.load` each, `pa.table`, `group_by().aggregate()`",
        ),
        ("floor", "`cat DIR/*.npy > /dev/null` (the bytes once)"),
    ] {
        out += &format!(
            "| {name} | {:.3} | {:.0} | {:.2} |\n",
            secs(k),
            v[k]["peak_bytes"].as_f64().unwrap_or(f64::NAN) / MIB,
            ours / secs(k)
        );
    }
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    out += &format!(
        "\nTargets: ours ≤ 0.5 × numpy + DuckDB = {duckdb_limit:.3} s: {}; ours ≤ max(1.0 × \
         DataFusion on Parquet, 1.25 × the floor) = {datafusion_limit:.3} s: {}\n",
        verdict(ours <= duckdb_limit),
        verdict(ours <= datafusion_limit)
    );
    out += &render_ballista(v);
    out += &render_scale(v);
    out
}

/// Ballista's row beside ours over the same shards.
fn render_ballista(v: &Value) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let get = |k: &str, f: &str| v[k][f].as_f64().unwrap_or(f64::NAN);
    let ours = get("ours", "seconds");
    format!(
        "\nThe same query on Ballista (npy-ballista's example `cluster`: a scheduler and 2 \
         executors of {} task slots in one process on 127.0.0.1), numpy's answer checked:\n\n\
         | run | seconds | peak RSS (MiB) | it ÷ ours |\n|---|--:|--:|--:|\n\
         | ours, one machine: `npy sql --table t=DIR` | {ours:.3} | {:.0} | 1.00 |\n\
         | Ballista, whole process (cluster start-up, query) | {:.3} | {:.0} | {:.2} |\n\
         | Ballista, the query alone (the example's own timing) | {:.3} | – | {:.2} |\n",
        BALLISTA_SLOTS,
        get("ours", "peak_bytes") / MIB,
        get("ballista", "seconds"),
        get("ballista", "peak_bytes") / MIB,
        get("ballista", "seconds") / ours,
        get("ballista", "query_seconds"),
        get("ballista", "query_seconds") / ours,
    )
}

/// Our row over [`SCALE_SHARDS`] shards, with the floor and the peak target.
fn render_scale(v: &Value) -> String {
    const MIB: f64 = (1u64 << 20) as f64;
    let get = |k: &str, f: &str| v[k][f].as_f64().unwrap_or(f64::NAN);
    let peak = get("scale_ours", "peak_bytes");
    #[allow(clippy::cast_precision_loss)] // 512 MiB is exact in f64
    let limit = SCALE_PEAK_LIMIT as f64;
    format!(
        "\nThe group-by over {SCALE_SHARDS} shards ({} records, {:.2} GB), numpy's answer \
         checked:\n\n\
         | run | seconds | peak RSS (MiB) |\n|---|--:|--:|\n\
         | ours: `npy sql --table t=DIR` | {:.3} | {:.0} |\n\
         | floor: `cat DIR/*.npy > /dev/null` | {:.3} | {:.0} |\n\
         \nTarget: our peak RSS ≤ {:.0} MiB: {}{}\n",
        v["scale_rows"],
        v["scale_bytes"].as_f64().unwrap_or(f64::NAN) / 1e9,
        get("scale_ours", "seconds"),
        peak / MIB,
        get("scale_floor", "seconds"),
        get("scale_floor", "peak_bytes") / MIB,
        limit / MIB,
        if peak <= limit { "met" } else { "NOT met" },
        if v["scale_bytes"].as_u64().unwrap_or(0) < 4 << 30 {
            " (but not over 4 GiB: `--quick` writes shards of 100,000 records)"
        } else {
            ""
        },
    )
}

/// Where the measurements are kept.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("sql.json")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{check_answer, pretty_rows};

    /// Arrow's pretty table as Ballista's example prints it, after the query's line.
    const TABLE: &str = "\
SELECT label, count(*) AS n, avg(score) AS mean FROM shards GROUP BY label ORDER BY label
+-------+--------+--------------------+
| label | n      | mean               |
+-------+--------+--------------------+
| 0     | 499877 | 0.5001234567890123 |
| 15    | 3      | 0.25               |
+-------+--------+--------------------+
";

    #[test]
    fn a_pretty_table_is_read_back_as_rows() {
        let rows = pretty_rows(TABLE);
        assert_eq!(
            rows,
            vec![
                json!({"label": 0, "n": 499_877, "mean": 0.500_123_456_789_012_3}),
                json!({"label": 15, "n": 3, "mean": 0.25}),
            ]
        );
    }

    #[test]
    fn answers_must_match_numpy_in_labels_counts_and_means() {
        let want = json!([{"label": 0, "n": 499_877, "mean": 0.500_123_456_789_012_3},
                          {"label": 15, "n": 3, "mean": 0.25}]);
        let rows = pretty_rows(TABLE);
        assert!(check_answer("same", &rows, &want).is_ok());
        let mut off = rows.clone();
        off[1]["mean"] = json!(0.250_001);
        assert!(check_answer("mean off", &off, &want).is_err());
        let mut off = rows.clone();
        off[0]["n"] = json!(499_876);
        assert!(check_answer("count off", &off, &want).is_err());
        assert!(check_answer("a group missing", &rows[..1], &want).is_err());
    }
}
