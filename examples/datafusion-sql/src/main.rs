//! SQL over a NumPy `.npy` file (or an `.npz` member) through Apache DataFusion.
//!
//! ```text
//! npy-datafusion-sql [--timings] FILE.npy "SELECT ..."
//! npy-datafusion-sql [--timings] FILE.npz[:KEY] "SELECT ..."
//! ```
//!
//! The array becomes one table (npy-arrow's mapping: one column per record field, a plain
//! array one column), named by the file's stem (`data.npy` → `data`) or by the member's key
//! (`data.npz:points` → `points`). The query's result is printed as a table on stdout;
//! `--timings` prints how long loading and the query took on stderr.
//!
//! npy-arrow builds on arrow-rs 60 and DataFusion 55 on arrow-rs 59: two families of types
//! that do not mix. Each batch crosses as an Arrow IPC stream message in memory, written by
//! arrow-ipc 60 and decoded by arrow-ipc 59 over the same bytes (its columns point into them),
//! so the data is copied once, by the encoder.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamDecoder;
use datafusion::common::TableReference;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};

const USAGE: &str = "usage: npy-datafusion-sql [--timings] FILE.npy|FILE.npz[:KEY] \"SELECT ...\"";

/// What the command line asks for.
#[derive(Debug)]
struct Args {
    path: PathBuf,
    member: Option<String>,
    sql: String,
    timings: bool,
}

/// `[--timings] FILE SQL`, where FILE may be `ARCHIVE.npz:KEY`.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut timings = false;
    let mut rest = Vec::new();
    for arg in args {
        if arg == "--timings" {
            timings = true;
        } else {
            rest.push(arg);
        }
    }
    let [file, sql]: [String; 2] = rest
        .try_into()
        .map_err(|_| "expected a file and a query".to_string())?;
    // `a.npz:key` names a member; a path that merely contains ':' (and exists) is a path.
    let (path, member) = match file.rsplit_once(':') {
        Some((archive, key))
            if archive.ends_with(".npz") && !key.is_empty() && !Path::new(&file).exists() =>
        {
            (PathBuf::from(archive), Some(key.to_string()))
        }
        _ => (PathBuf::from(file), None),
    };
    Ok(Args {
        path,
        member,
        sql,
        timings,
    })
}

/// The table's name: the member's key, else the file's stem.
fn table_name(args: &Args) -> String {
    match &args.member {
        Some(key) => key.clone(),
        None => npy_arrow::stem_name(&args.path),
    }
}

/// The arrow-rs 59 side of the bridge: decodes the IPC stream as it is written and deals the
/// batches round robin into partitions, so that DataFusion scans them in parallel.
struct Bridge {
    decoder: StreamDecoder,
    partitions: Vec<Vec<RecordBatch>>,
    batches: usize,
}

impl Bridge {
    fn new(partitions: usize) -> Bridge {
        Bridge {
            decoder: StreamDecoder::new(),
            partitions: vec![Vec::new(); partitions.max(1)],
            batches: 0,
        }
    }

    /// Decodes what the writer has produced so far. The bytes move into an arrow-rs 59
    /// buffer without a copy, and the decoded columns are slices of it.
    fn drain(&mut self, written: &mut Vec<u8>) -> Result<(), npy_arrow::Error> {
        let mut buffer = Buffer::from_vec(std::mem::take(written));
        while !buffer.is_empty() {
            let decoded = self.decoder.decode(&mut buffer).map_err(|e| {
                // An error of the other arrow-rs family, carried in npy-arrow's error.
                npy_arrow::Error::from(arrow_schema::ArrowError::IpcError(format!(
                    "arrow-rs 59 decoding the batch arrow-rs 60 encoded: {e}"
                )))
            })?;
            if let Some(batch) = decoded {
                let k = self.batches % self.partitions.len();
                self.partitions[k].push(batch);
                self.batches += 1;
            }
        }
        Ok(())
    }
}

/// Reads the array as DataFusion's (arrow-rs 59) batches in `partitions` partitions, one
/// npy-arrow batch (about [`npy_arrow::BATCH_BYTES`] of data) at a time: memory is the
/// array's Arrow columns plus one batch.
fn load(
    path: &Path,
    member: Option<&str>,
    partitions: usize,
) -> Result<(SchemaRef, Vec<Vec<RecordBatch>>), npy_arrow::Error> {
    type Writer = arrow_ipc::writer::StreamWriter<Vec<u8>>;
    let mut bridge = Bridge::new(partitions);
    let schema = OnceCell::new();
    let mut writer: Option<Writer> = None;
    npy_arrow::for_each_batch(
        path,
        member,
        None,
        |s| {
            let _ = schema.set(s);
            Ok(())
        },
        |batch, _, _| {
            let w = match &mut writer {
                Some(w) => w,
                None => writer.insert(Writer::try_new(Vec::new(), &batch.schema())?),
            };
            w.write(&batch)?;
            bridge.drain(w.get_mut())
        },
    )?;
    // A Fortran-order array without rows hands out no batch, only its schema.
    let mut w = match (writer, schema.get()) {
        (Some(w), _) => w,
        (None, Some(s)) => Writer::try_new(Vec::new(), s)?,
        (None, None) => {
            return Err(npy_arrow::Error::new(npy_arrow::ErrorKind::Invalid(
                "npy-arrow gave neither a schema nor a batch".into(),
            )))
        }
    };
    w.finish()?;
    bridge.drain(w.get_mut())?;
    let finished = bridge.decoder.finish().and_then(|()| {
        bridge.decoder.schema().ok_or_else(|| {
            datafusion::arrow::error::ArrowError::IpcError("no schema message".into())
        })
    });
    let schema = finished.map_err(|e| {
        npy_arrow::Error::from(arrow_schema::ArrowError::IpcError(format!(
            "arrow-rs 59 ending the stream arrow-rs 60 wrote: {e}"
        )))
    })?;
    Ok((schema, bridge.partitions))
}

async fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let config = SessionConfig::new();
    let partitions = config.target_partitions();
    let (schema, batches) = load(&args.path, args.member.as_deref(), partitions)?;
    let loaded = start.elapsed();
    let ctx = SessionContext::new_with_config(config);
    let table = MemTable::try_new(schema, batches)?;
    // `bare`: the name is one identifier even when it holds a '.', not `schema.table`.
    ctx.register_table(TableReference::bare(table_name(args)), Arc::new(table))?;
    let result = ctx.sql(&args.sql).await?.collect().await?;
    let queried = start.elapsed() - loaded;
    println!(
        "{}",
        datafusion::arrow::util::pretty::pretty_format_batches(&result)?
    );
    if args.timings {
        eprintln!(
            "load (npy → Arrow IPC → DataFusion's Arrow): {:.3} s; query: {:.3} s",
            loaded.as_secs_f64(),
            queried.as_secs_f64()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("{why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cannot start the tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // DataFusion's errors already say what failed (a plan error names the column).
            match e.downcast_ref::<DataFusionError>() {
                Some(df) => eprintln!("{df}"),
                None => eprintln!("{e}"),
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, String> {
        parse_args(list.iter().map(|s| (*s).to_string()))
    }

    #[test]
    fn a_member_is_named_after_the_colon_of_an_npz() {
        let a = args(&["--timings", "dir/data.npz:points", "SELECT 1"]).unwrap();
        assert_eq!(a.path, PathBuf::from("dir/data.npz"));
        assert_eq!(a.member.as_deref(), Some("points"));
        assert_eq!(table_name(&a), "points");
        assert!(a.timings);
        let a = args(&["dir/data.npy", "SELECT 1"]).unwrap();
        assert_eq!(a.member, None);
        assert_eq!(table_name(&a), "data");
        // A ':' in a .npy path is part of the path.
        let a = args(&["c:x.npy", "SELECT 1"]).unwrap();
        assert_eq!(a.path, PathBuf::from("c:x.npy"));
        assert_eq!(a.member, None);
    }

    #[test]
    fn a_file_and_a_query_are_required() {
        assert!(args(&["data.npy"]).is_err());
        assert!(args(&["data.npy", "SELECT 1", "extra"]).is_err());
    }
}
