//! The DataFusion-over-Parquet peer of issue 41's SQL bench (`cargo xtask bench --only sql`):
//! the same query over the same records, written once as uncompressed Parquet, read by
//! DataFusion's own `ParquetFormat` through a listing table — what a user of DataFusion alone
//! runs. Built in the same release build as `npy sql`, so both use one DataFusion.
//!
//! ```text
//! cargo run --release -p npy-datafusion --example parquet_sql -- NAME=DIR QUERY
//! ```
//!
//! DIR is a directory of `.parquet` files (or one file); the result is printed as a table.
//! DataFusion's settings come from `DATAFUSION_*` environment variables, as in `npy sql`.

use std::process::ExitCode;

use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [table, query] = args.as_slice() else {
        eprintln!("usage: parquet_sql NAME=DIR QUERY");
        return ExitCode::from(2);
    };
    let Some((name, location)) = table.split_once('=') else {
        eprintln!("parquet_sql: {table}: expected NAME=DIR");
        return ExitCode::from(2);
    };
    match run(name, location, query).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parquet_sql: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Registers `location` as the Parquet table `name` and prints the answer to `query`.
async fn run(name: &str, location: &str, query: &str) -> datafusion::error::Result<()> {
    // DataFusion's settings from `DATAFUSION_*` variables, as `npy sql` reads them.
    let ctx = SessionContext::new_with_config(SessionConfig::from_env()?);
    ctx.register_parquet(name, location, ParquetReadOptions::default())
        .await?;
    ctx.sql(query).await?.show().await
}
