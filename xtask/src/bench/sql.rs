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
//!   records make a scan touch every byte.
//!
//! Targets: at most 0.5× numpy + DuckDB; at most 1.0× DataFusion over Parquet, or within 1.25×
//! of the floor, whichever is larger. Python's side includes its interpreter's start and
//! imports. Inputs are removed afterwards.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::show::{load_average, run};
use crate::python::numpy_python;

/// The query of the target.
const QUERY: &str =
    "SELECT label, count(*) AS n, avg(score) AS mean FROM t GROUP BY label ORDER BY label";

/// Shards of the target.
const SHARDS: usize = 8;

/// Measures the rows; returns `{"ours", "duckdb", "datafusion_parquet", "numpy", "pyarrow",
/// "floor"}` (each `{"seconds", "peak_bytes"}`), `"rows"` and `"load"`.
pub fn measure(quick: bool) -> Result<Value, String> {
    let dir = npy_bench::write_dir()
        .map_err(|e| format!("write directory: {e}"))?
        .join("sql_shards");
    let result = measure_in(&dir.join("npy"), &dir.join("parquet"), quick);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn measure_in(dir: &Path, parquet_dir: &Path, quick: bool) -> Result<Value, String> {
    let python = numpy_python()?;
    let rows = if quick { 100_000 } else { 1_000_000 };
    for d in [dir, parquet_dir] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let d = dir.display().to_string();
    let pd = parquet_dir.display().to_string();
    eprintln!("xtask: writing {SHARDS} shards of {rows} records in {d}");
    let make = format!(
        "import numpy as np\nn = {rows}\nrng = np.random.default_rng(41)\n\
         dt = [('id','<i8'), ('label','<i4'), ('score','<f4'), ('when','<M8[ms]'), ('name','<U8')]\n\
         for k in range({SHARDS}):\n\
         \x20   a = np.zeros(n, dt)\n\
         \x20   a['id'] = np.arange(n) + k * n\n\
         \x20   a['label'] = rng.integers(0, 16, n)\n\
         \x20   a['score'] = rng.random(n, dtype=np.float32)\n\
         \x20   a['when'] = (1_700_000_000_000 + a['id']).astype('M8[ms]')\n\
         \x20   a['name'] = np.char.add('n', (a['id'] % 1000).astype('U6'))\n\
         \x20   np.save(f'{d}/s{{k}}.npy', a)\n"
    );
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
    let status = Command::new(&python)
        .args(["-c", &make])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("making the shards failed ({status})"));
    }
    eprintln!("xtask: writing them as uncompressed Parquet in {pd}");
    let status = Command::new(&python)
        .args(["-c", &make_parquet])
        .status()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !status.success() {
        return Err(format!("writing the Parquet files failed ({status})"));
    }
    let (npy, parquet_sql) = build()?;
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
    Ok(json!({
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
    }))
}

/// Builds `npy` (feature `sql`) and npy-datafusion's example `parquet_sql` in one release
/// build, so both link one DataFusion; returns their paths.
fn build() -> Result<(PathBuf, PathBuf), String> {
    let status = super::cargo()
        .args(["build", "--release", "-q", "-p", "npy-cli", "--features"])
        .args(["npy-cli/sql", "--bin", "npy", "-p", "npy-datafusion"])
        .args(["--example", "parquet_sql"])
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building npy --features sql and the parquet_sql example failed ({status})"
        ));
    }
    let release = crate::target_dir().join("release");
    Ok((
        release.join("npy"),
        release.join("examples").join("parquet_sql"),
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
    out
}

/// Where the measurements are kept.
pub fn results_path(data: &Path) -> PathBuf {
    data.join("sql.json")
}
