//! SQL over a folder of `.npy` shards on a Ballista scheduler and two executors, all in this
//! process on loopback ports.
//!
//! `cargo run -p npy-ballista --example cluster -- [DIR [SQL]]`
//!
//! The table is `shards`: DIR's `*.npy` (one array cut along its first axis). Without DIR, the
//! example writes three shards of a plain `int64` array `x` (0, 1, …, 9999) to a temporary
//! folder and sums them; without SQL it counts the rows.
//!
//! On stderr, apart from the answer: the seconds from the start of the process to the cluster
//! up with the table registered, and the seconds of the query itself (planning, the
//! executors' scans, the batches back) — `cargo xtask bench --only sql` reads the latter.
use std::path::PathBuf;
use std::time::Instant;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::SessionConfig;
use npy_datafusion::NpyOptions;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let mut args = std::env::args().skip(1);
    let demo = tempfile::tempdir()?;
    let (dir, options, default_sql) = match args.next() {
        Some(dir) => (
            PathBuf::from(dir),
            NpyOptions::default(),
            "SELECT count(*) AS n FROM shards",
        ),
        None => {
            // 10 000 values in shards of 3000, 3000 and 4000 rows.
            let values: Vec<i64> = (0..10_000).collect();
            for (k, part) in [&values[..3000], &values[3000..6000], &values[6000..]]
                .into_iter()
                .enumerate()
            {
                npy_core::write(
                    demo.path().join(format!("part-{k}.npy")),
                    part,
                    &[part.len() as u64],
                )?;
            }
            let options = NpyOptions {
                column_name: Some("x".to_owned()),
                ..NpyOptions::default()
            };
            let sql = "SELECT count(*) AS n, sum(x) AS s, min(x) AS lo, max(x) AS hi FROM shards";
            (demo.path().to_owned(), options, sql)
        }
    };
    let sql = args.next().unwrap_or_else(|| default_sql.to_owned());

    let state = npy_ballista::session_state(SessionConfig::new())?;
    let scheduler = npy_ballista::start_cluster(&state, 2).await?;
    println!("scheduler on {scheduler}, 2 executors");
    let ctx = npy_ballista::connect(scheduler, state).await?;
    let location = format!("{}/", dir.display());
    npy_ballista::register_shards(&ctx, "shards", &location, options).await?;
    let up = started.elapsed();
    println!("{sql}");
    let asked = Instant::now();
    let batches = npy_ballista::query(&ctx, &sql).await?;
    let answered = asked.elapsed();
    println!("{}", pretty_format_batches(&batches)?);
    eprintln!(
        "cluster up in {:.3} s; query answered in {:.3} s",
        up.as_secs_f64(),
        answered.as_secs_f64()
    );
    Ok(())
}
