//! `npy sql [--table NAME=LOCATION]... [--json | --output FILE] QUERY`: SQL over `.npy` shards
//! through DataFusion (npy-datafusion), in a build with the feature `sql`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::format::report;

/// Run a SQL query over .npy files (DataFusion; a build with the feature `sql`).
///
/// Tables: --table NAME=LOCATION, where LOCATION is a .npy file, a directory (its *.npy), a
/// glob ('shards/*.npy'), or ARCHIVE:KEY (member KEY of each .npz archive ARCHIVE names: a
/// file, a directory of archives, a glob; one KEY per table; a stored member's CRC-32 is not
/// checked), or with the feature `remote` a URL (s3://,
/// gs://, az://, http(s)://; HTTP has no listing: name each file) to any of those. The same NAME
/// repeated makes one table of all its locations. A quoted path in FROM is a table too:
/// SELECT count(*) FROM 'shards/*.npy', or FROM 'arch.npz:KEY' (its column named KEY).
///
/// The shards of a table are one array cut along its first axis: one dtype (byte order may
/// differ) and one shape after the first axis. A 0-byte shard is an error naming it (a
/// truncated write; numpy's np.load refuses it), as is a LOCATION that matches no file.
/// Columns are npy-arrow's mapping: one per record field; a plain array is one column named
/// NAME (in FROM: the first file's stem); an N-d array's rows are fixed-size lists (`emb[1]`,
/// the array functions); NaT is null. count(*) reads the headers only; scans read byte ranges,
/// one file on every core.
///
/// Output: a table on stdout; --json writes JSON Lines (one object per row, null for nulls);
/// --output FILE writes .parquet, .arrow (.ipc, .feather), .npy or .csv by its extension.
///
/// A scan of more than 256 MiB shows its progress on stderr (a terminal only). Ctrl-C stops
/// the query (exit status 130) and leaves no output file.
///
/// DataFusion's settings come from `DATAFUSION_*` environment variables, as in datafusion-cli:
/// `DATAFUSION_EXECUTION_BATCH_SIZE=32768` (rows per batch, default 8192),
/// `DATAFUSION_EXECUTION_TARGET_PARTITIONS` (partitions, default the number of cores).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A table NAME=LOCATION (repeatable; a NAME repeated adds its locations to the table).
    #[arg(long = "table", value_name = "NAME=LOCATION")]
    tables: Vec<String>,
    /// Write JSON Lines to stdout (one object per row; keys are the column names).
    #[arg(long, conflicts_with = "output")]
    json: bool,
    /// Write the result to FILE: .parquet, .arrow/.ipc/.feather, .npy or .csv.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The SQL query.
    #[arg(value_name = "QUERY")]
    query: String,
}

/// Without the feature `sql`: refuse before reading anything, naming the flag (exit 2).
#[cfg(not(feature = "sql"))]
pub fn run(_args: &Args) -> ExitCode {
    report(
        "`npy sql` needs the feature `sql`, which this build of npy lacks: \
         cargo install npy-cli --features sql",
    );
    ExitCode::from(2)
}

/// Runs the query and writes its result.
#[cfg(feature = "sql")]
pub fn run(args: &Args) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            report(format_args!("cannot start the query runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    match engine::run(&runtime, args) {
        Ok(()) => ExitCode::SUCCESS,
        // 128 + SIGINT, as a shell reports a command Ctrl-C ended.
        Err(e) if e == engine::INTERRUPTED => {
            // Rows already printed (a table, `--json`) stay printed; an `--output` file is
            // written only once complete.
            match &args.output {
                Some(_) => report(format_args!("{e}; no output was written")),
                None => report(format_args!(
                    "{e}; any rows printed are only part of its result"
                )),
            }
            ExitCode::from(130)
        }
        Err(e) => {
            report(e);
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "sql")]
mod engine {
    use std::io::Write as _;
    use std::path::Path;
    use std::sync::Arc;

    use datafusion::arrow::array::RecordBatch;
    use datafusion::arrow::datatypes::SchemaRef;
    use datafusion::arrow::error::ArrowError;
    use datafusion::common::tree_node::{TreeNode as _, TreeNodeRecursion};
    use datafusion::datasource::listing::ListingTableUrl;
    use datafusion::datasource::physical_plan::FileScanConfig;
    use datafusion::datasource::source::DataSourceExec;
    use datafusion::execution::SendableRecordBatchStream;
    use datafusion::physical_plan::ExecutionPlan;
    use datafusion::prelude::{SessionConfig, SessionContext};
    use futures::StreamExt as _;
    use npy_datafusion::{NpyOptions, NpyTable};

    use super::Args;

    /// What went wrong, as the message printed after `npy: `.
    type Fail = String;

    /// The message of a DataFusion or Arrow error: npy-datafusion's own when one is inside it
    /// (it names the file), without the `External error: ` wrappers a scan's error gathers on
    /// its way out of DataFusion's streams; else the error as DataFusion says it.
    fn said(e: &(dyn std::error::Error + 'static)) -> Fail {
        let mut at: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = at {
            if let Some(ours) = err.downcast_ref::<npy_datafusion::Error>() {
                // It names a file as the user would type it (an absolute path, a URL).
                return ours.to_string();
            }
            at = err.source();
        }
        e.to_string()
    }

    /// A LOCATION that cannot be an `.npy` table, said before DataFusion answers "no files
    /// found": an `.npz` archive without `:KEY` (its keys listed when it is a local file), or
    /// `FILE:KEY` where FILE is a local file that is not an `.npz`.
    fn not_npy(location: &str) -> Option<Fail> {
        if location.to_ascii_lowercase().ends_with(".npz") {
            let keys = npy_npz::NpzArchive::open(location)
                .map(|a| {
                    a.keys()
                        .map(|k| format!("{k:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .map(|k| format!(" (its keys: {k})"))
                .unwrap_or_default();
            return Some(format!(
                "{location}: an .npz archive is read through one member: \
                 --table NAME={location}:KEY{keys}"
            ));
        }
        let (file, key) = location.rsplit_once(':')?;
        if key.is_empty() && file.to_ascii_lowercase().ends_with(".npz") {
            return Some(format!(
                "{location}: the member key after ':' is empty (ARCHIVE.npz:KEY names member \
                 KEY; `npy info {file}` lists the keys)"
            ));
        }
        (!location.contains("://") && Path::new(file).is_file()).then(|| {
            format!(
                "{file}: not an .npz archive (ARCHIVE.npz:KEY names member KEY of an .npz; \
                 an .npy file is a LOCATION by itself)"
            )
        })
    }

    /// Registers the object store a URL LOCATION needs on `ctx` (`s3://`, `gs://`, `az://`,
    /// `http(s)://`: object_store's `parse_url_opts` with the `AWS_*`, `GOOGLE_*` and `AZURE_*`
    /// variables of the environment as its options); local paths and `file://` need none.
    #[cfg(feature = "remote")]
    fn register_store(ctx: &SessionContext, url: &ListingTableUrl) -> Result<(), Fail> {
        let base = url.object_store();
        if base.as_str().starts_with("file://") {
            return Ok(());
        }
        let mut options: Vec<(String, String)> = std::env::vars()
            .filter(|(k, _)| {
                ["AWS_", "GOOGLE_", "AZURE_"]
                    .iter()
                    .any(|p| k.starts_with(p))
            })
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        // object_store refuses plain HTTP unless told; an http:// LOCATION asks for it.
        if base.as_str().starts_with("http://") {
            options.push(("allow_http".to_owned(), "true".to_owned()));
        }
        // One store per base URL: the locations of a table share its cache of object metadata.
        if ctx.runtime_env().object_store(&base).is_ok() {
            return Ok(());
        }
        let (store, _) = object_store_sql::parse_url_opts(base.as_ref(), options)
            .map_err(|e| format!("{}: {e}", base.as_str()))?;
        let store = OnceHead {
            inner: Arc::from(store),
            heads: std::sync::Mutex::default(),
        };
        ctx.register_object_store(base.as_ref(), Arc::new(store));
        Ok(())
    }

    /// A store whose metadata requests (`HEAD`) are sent once per object for the life of one
    /// `npy sql` run. DataFusion asks for a named file's metadata when it infers the table's
    /// schema and again when it plans the scan, and over HTTP, which has no listing, every
    /// location is such a file: without this, each costs one more request (issue 41's targets:
    /// `count(*)` at most 2 requests per shard, `LIMIT 10` at most 3). Reads are not cached.
    #[cfg(feature = "remote")]
    #[derive(Debug)]
    struct OnceHead {
        inner: Arc<dyn object_store_sql::ObjectStore>,
        heads: std::sync::Mutex<
            std::collections::HashMap<object_store_sql::path::Path, object_store_sql::ObjectMeta>,
        >,
    }

    #[cfg(feature = "remote")]
    impl std::fmt::Display for OnceHead {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{} (metadata asked once)", self.inner)
        }
    }

    #[cfg(feature = "remote")]
    #[async_trait::async_trait]
    impl object_store_sql::ObjectStore for OnceHead {
        async fn put_opts(
            &self,
            location: &object_store_sql::path::Path,
            payload: object_store_sql::PutPayload,
            opts: object_store_sql::PutOptions,
        ) -> object_store_sql::Result<object_store_sql::PutResult> {
            self.inner.put_opts(location, payload, opts).await
        }

        async fn put_multipart_opts(
            &self,
            location: &object_store_sql::path::Path,
            opts: object_store_sql::PutMultipartOptions,
        ) -> object_store_sql::Result<Box<dyn object_store_sql::MultipartUpload>> {
            self.inner.put_multipart_opts(location, opts).await
        }

        async fn get_opts(
            &self,
            location: &object_store_sql::path::Path,
            options: object_store_sql::GetOptions,
        ) -> object_store_sql::Result<object_store_sql::GetResult> {
            // Only a plain HEAD (object_store 0.13 sends it as a GET with `head`) is answered
            // from the cache; one with conditions or a range goes to the server.
            let plain_head = options.head
                && options.range.is_none()
                && options.if_match.is_none()
                && options.if_none_match.is_none()
                && options.if_modified_since.is_none()
                && options.if_unmodified_since.is_none()
                && options.version.is_none();
            if plain_head {
                let known = self
                    .heads
                    .lock()
                    .ok()
                    .and_then(|h| h.get(location).cloned());
                if let Some(meta) = known {
                    return Ok(object_store_sql::GetResult {
                        payload: object_store_sql::GetResultPayload::Stream(Box::pin(
                            futures::stream::empty(),
                        )),
                        range: 0..meta.size,
                        meta,
                        attributes: object_store_sql::Attributes::default(),
                    });
                }
            }
            let got = self.inner.get_opts(location, options).await?;
            if plain_head {
                if let Ok(mut h) = self.heads.lock() {
                    h.insert(location.clone(), got.meta.clone());
                }
            }
            Ok(got)
        }

        fn delete_stream(
            &self,
            locations: futures::stream::BoxStream<
                'static,
                object_store_sql::Result<object_store_sql::path::Path>,
            >,
        ) -> futures::stream::BoxStream<
            'static,
            object_store_sql::Result<object_store_sql::path::Path>,
        > {
            self.inner.delete_stream(locations)
        }

        fn list(
            &self,
            prefix: Option<&object_store_sql::path::Path>,
        ) -> futures::stream::BoxStream<
            'static,
            object_store_sql::Result<object_store_sql::ObjectMeta>,
        > {
            self.inner.list(prefix)
        }

        async fn list_with_delimiter(
            &self,
            prefix: Option<&object_store_sql::path::Path>,
        ) -> object_store_sql::Result<object_store_sql::ListResult> {
            self.inner.list_with_delimiter(prefix).await
        }

        async fn copy_opts(
            &self,
            from: &object_store_sql::path::Path,
            to: &object_store_sql::path::Path,
            options: object_store_sql::CopyOptions,
        ) -> object_store_sql::Result<()> {
            self.inner.copy_opts(from, to, options).await
        }
    }

    /// An `http(s)://` LOCATION must name one file that exists: HTTP has no listing, and
    /// DataFusion takes a missing file for a folder, whose listing (a `PROPFIND` of `WebDAV`) a plain
    /// server refuses after retries, seconds later, in its words. One HEAD, which the store
    /// keeps for the table's own ([`OnceHead`]): no request is added.
    #[cfg(feature = "remote")]
    async fn check_http_file(
        ctx: &SessionContext,
        url: &ListingTableUrl,
        location: &str,
    ) -> Result<(), Fail> {
        use object_store_sql::ObjectStoreExt as _;
        let http = ["http://", "https://"]
            .iter()
            .any(|s| url.as_str().starts_with(s));
        if !http {
            return Ok(());
        }
        let no_listing = "HTTP has no listing: a URL LOCATION names one file";
        if url.is_collection() || location.contains('*') {
            return Err(format!("{location}: {no_listing} (no folders or globs)"));
        }
        let store = ctx
            .runtime_env()
            .object_store(url.object_store())
            .map_err(|e| said(&e))?;
        match store.head(url.prefix()).await {
            Ok(_) => Ok(()),
            Err(object_store_sql::Error::NotFound { .. }) => {
                Err(format!("{location}: not found ({no_listing})"))
            }
            Err(e) => Err(format!("{location}: {e}")),
        }
    }

    /// Without the feature `remote`, a URL other than `file://` is refused, naming the flag.
    #[cfg(not(feature = "remote"))]
    fn register_store(_ctx: &SessionContext, url: &ListingTableUrl) -> Result<(), Fail> {
        let base = url.object_store();
        if base.as_str().starts_with("file://") {
            return Ok(());
        }
        Err(format!(
            "{}: URLs in npy sql need the feature `remote` too: \
             cargo install npy-cli --features sql,remote",
            url.as_str()
        ))
    }

    /// The listing URL of a local or remote LOCATION (a directory gets its trailing `/`).
    fn listing_url(location: &str) -> Result<ListingTableUrl, Fail> {
        npy_datafusion::location_url(location).map_err(|e| format!("{location}: {e}"))
    }

    /// The tables of `--table`, in the order their names first appear.
    fn grouped(tables: &[String]) -> Result<Vec<(String, Vec<String>)>, Fail> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for t in tables {
            let Some((name, location)) = t.split_once('=') else {
                return Err(format!("--table {t:?}: expected NAME=LOCATION"));
            };
            if name.is_empty() || location.is_empty() {
                return Err(format!("--table {t:?}: expected NAME=LOCATION"));
            }
            match out.iter_mut().find(|(n, _)| n == name) {
                Some((_, locs)) => locs.push(location.to_owned()),
                None => out.push((name.to_owned(), vec![location.to_owned()])),
            }
        }
        Ok(out)
    }

    async fn register(ctx: &SessionContext, name: &str, locations: &[String]) -> Result<(), Fail> {
        // `ARCHIVE.npz:KEY` locations: the archives (files, directories, globs, URLs) and the
        // one member key a table reads from each.
        let members: Vec<_> = locations
            .iter()
            .filter_map(|l| npy_datafusion::npz_member(l))
            .collect();
        let mut member = None;
        let mut locations: Vec<&str> = locations.iter().map(String::as_str).collect();
        if !members.is_empty() {
            if members.len() != locations.len() {
                return Err(format!(
                    "table {name}: .npz members and .npy files cannot make one table"
                ));
            }
            let key = members[0].1;
            if let Some((archive, other)) = members.iter().find(|(_, k)| *k != key) {
                return Err(format!(
                    "table {name}: one table reads one member of its archives: \
                     {key:?} of {}, {other:?} of {archive}",
                    members[0].0
                ));
            }
            member = Some(key.to_owned());
            locations = members.iter().map(|(archive, _)| *archive).collect();
        } else if let Some(fail) = locations.iter().find_map(|l| not_npy(l)) {
            return Err(fail);
        }
        let urls = locations
            .iter()
            .map(|l| listing_url(l))
            .collect::<Result<Vec<_>, _>>()?;
        for (url, location) in urls.iter().zip(&locations) {
            register_store(ctx, url)?;
            #[cfg(feature = "remote")]
            check_http_file(ctx, url, location).await?;
            // Without `remote` there is no HTTP file to look at.
            #[cfg(not(feature = "remote"))]
            let _ = location;
        }
        let options = NpyOptions {
            column_name: Some(name.to_owned()),
            member,
        };
        // An NpyTable lists each location once and refuses what DataFusion's listing passes
        // over: a location without files (named as typed here) and a 0-byte shard. It spells
        // the extension as the first location does (`UP.NPZ`).
        let named = urls
            .into_iter()
            .zip(locations.iter().map(|l| (*l).to_owned()))
            .collect();
        let table = NpyTable::try_new_named(&ctx.state(), named, options)
            .await
            .map_err(|e| format!("table {name}: {}", said(&e)))?;
        ctx.register_table(name, Arc::new(table))
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// What a query's result is: its schema, its physical plan (whose scans report
    /// [`npy_datafusion::BYTES_SCANNED`]) and the stream of its batches.
    struct Planned {
        schema: SchemaRef,
        plan: Arc<dyn ExecutionPlan>,
        stream: SendableRecordBatchStream,
    }

    async fn plan(args: &Args) -> Result<Planned, Fail> {
        // Quoted paths in FROM, `'ARCHIVE.npz:KEY'` among them, checked as --table's are.
        // DataFusion's settings from `DATAFUSION_*` variables, as datafusion-cli reads them.
        let config = SessionConfig::from_env().map_err(|e| said(&e))?;
        let ctx = npy_datafusion::enable_url_table(SessionContext::new_with_config(config));
        npy_datafusion::register(&ctx).map_err(|e| e.to_string())?;
        for (name, locations) in grouped(&args.tables)? {
            register(&ctx, &name, &locations).await?;
        }
        let df = ctx.sql(&args.query).await.map_err(|e| said(&e))?;
        let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
        let plan = df.create_physical_plan().await.map_err(|e| said(&e))?;
        let stream = datafusion::physical_plan::execute_stream(Arc::clone(&plan), ctx.task_ctx())
            .map_err(|e| said(&e))?;
        Ok(Planned {
            schema,
            plan,
            stream,
        })
    }

    /// The message of a query Ctrl-C stopped (exit status 130).
    pub(super) const INTERRUPTED: &str = "interrupted (Ctrl-C): the query stopped";

    /// The bytes the file scans of `plan` cover (their byte ranges, or whole files), and the
    /// data bytes they have read so far.
    fn scan_progress(plan: &Arc<dyn ExecutionPlan>) -> (u64, u64) {
        let (mut total, mut done) = (0u64, 0u64);
        let _ = plan.apply(|node| {
            if let Some(scan) = node.downcast_ref::<DataSourceExec>() {
                if let Some(config) = scan.data_source().downcast_ref::<FileScanConfig>() {
                    for file in config
                        .file_groups
                        .iter()
                        .flat_map(datafusion::datasource::physical_plan::FileGroup::iter)
                    {
                        let bytes = file.range.as_ref().map_or(file.object_meta.size, |r| {
                            u64::try_from(r.end.saturating_sub(r.start)).unwrap_or(0)
                        });
                        total = total.saturating_add(bytes);
                    }
                }
            }
            if let Some(m) = node
                .metrics()
                .and_then(|m| m.sum_by_name(npy_datafusion::BYTES_SCANNED))
            {
                done = done.saturating_add(m.as_usize() as u64);
            }
            Ok(TreeNodeRecursion::Continue)
        });
        (total, done)
    }

    /// A bar on stderr of the bytes the scans of `plan` have read (when stderr is a terminal
    /// and the scans cover more than [`crate::progress::THRESHOLD`]), redrawn from the plan's
    /// metrics every 100 ms until `stop` is set.
    fn show_progress(
        plan: Arc<dyn ExecutionPlan>,
        stop: Arc<std::sync::atomic::AtomicBool>,
    ) -> Option<std::thread::JoinHandle<()>> {
        use std::sync::atomic::Ordering;
        let (total, _) = scan_progress(&plan);
        let bar = crate::progress::Progress::new(total, "scanning");
        if !bar.is_shown() {
            return None;
        }
        Some(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                bar.set(scan_progress(&plan).1);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }))
    }

    /// Runs the query of `args` on `runtime` and writes its result where `args` says.
    pub fn run(runtime: &tokio::runtime::Runtime, args: &Args) -> Result<(), Fail> {
        if let Some(path) = &args.output {
            output_kind(path)?;
        }
        // Ctrl-C (SIGINT) is watched from here on: planning and every batch race it, and when
        // it comes first the query's tasks are dropped and the output's temporary file with
        // them (outputs are committed only once complete).
        let mut interrupt = {
            let _runtime = runtime.enter();
            Box::pin(tokio::signal::ctrl_c())
        };
        let interrupted = std::cell::Cell::new(false);
        let planned = runtime.block_on(async {
            // The interrupt is polled first, each time the query gives the runtime its turn.
            match futures::future::select(interrupt.as_mut(), Box::pin(plan(args))).await {
                futures::future::Either::Right((planned, _)) => planned,
                futures::future::Either::Left(_) => Err(INTERRUPTED.to_owned()),
            }
        })?;
        let Planned {
            schema,
            plan,
            mut stream,
        } = planned;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ticker = show_progress(plan, Arc::clone(&stop));
        let mut next = || -> Option<Result<RecordBatch, ArrowError>> {
            if interrupted.get() {
                return None;
            }
            runtime.block_on(async {
                match futures::future::select(interrupt.as_mut(), stream.next()).await {
                    futures::future::Either::Right((batch, _)) => {
                        batch.map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e))))
                    }
                    futures::future::Either::Left(_) => {
                        interrupted.set(true);
                        Some(Err(ArrowError::ExternalError(INTERRUPTED.into())))
                    }
                }
            })
        };
        let result = write_result(args, schema, &mut next);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(ticker) = ticker {
            let _ = ticker.join();
        }
        if interrupted.get() {
            return Err(INTERRUPTED.to_owned());
        }
        result
    }

    /// Writes the batches `next` gives where `args` says: JSON Lines, a table on stdout, or
    /// the `--output` file.
    fn write_result(
        args: &Args,
        schema: SchemaRef,
        next: &mut dyn FnMut() -> Option<Result<RecordBatch, ArrowError>>,
    ) -> Result<(), Fail> {
        if args.json {
            let stdout = std::io::stdout();
            let mut w = datafusion::arrow::json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, datafusion::arrow::json::writer::LineDelimited>(stdout.lock());
            while let Some(b) = next() {
                let b = b.map_err(|e| said(&e))?;
                w.write(&b).map_err(|e| e.to_string())?;
            }
            w.finish().map_err(|e| e.to_string())?;
            return Ok(());
        }
        let Some(path) = &args.output else {
            let mut batches = Vec::new();
            while let Some(b) = next() {
                batches.push(b.map_err(|e| said(&e))?);
            }
            let table = datafusion::arrow::util::pretty::pretty_format_batches_with_schema(
                schema, &batches,
            )
            .map_err(|e| e.to_string())?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{table}").map_err(|e| e.to_string())?;
            return Ok(());
        };
        write_file(path, &schema, next)
    }

    /// The extension of an `--output` path, lowercase, when it is one `npy sql` writes.
    fn output_kind(path: &Path) -> Result<String, Fail> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        if ["arrow", "ipc", "feather", "parquet", "csv", "npy"].contains(&ext.as_str()) {
            Ok(ext)
        } else {
            Err(format!(
                "{}: --output writes .parquet, .arrow (.ipc, .feather), .npy or .csv",
                path.display()
            ))
        }
    }

    /// Writes the batches `next` gives into `path`, by its extension.
    fn write_file(
        path: &Path,
        schema: &SchemaRef,
        next: &mut dyn FnMut() -> Option<Result<RecordBatch, ArrowError>>,
    ) -> Result<(), Fail> {
        let shown = path.display();
        let ext = output_kind(path)?;
        let fill = |push: &mut dyn FnMut(&RecordBatch) -> Result<(), npy_arrow::Error>| {
            while let Some(b) = next() {
                push(&b?)?;
            }
            Ok(())
        };
        match ext.as_str() {
            "arrow" | "ipc" | "feather" => {
                npy_arrow::write_ipc(path, schema, fill).map_err(|e| e.to_string())
            }
            "parquet" => npy_arrow::write_parquet(path, schema, fill).map_err(|e| e.to_string()),
            "csv" => {
                let out = npy_fs::AtomicFile::create(path).map_err(|e| format!("{shown}: {e}"))?;
                {
                    let file = std::io::BufWriter::new(out.file());
                    let mut w = datafusion::arrow::csv::WriterBuilder::new().build(file);
                    while let Some(b) = next() {
                        let b = b.map_err(|e| said(&e))?;
                        w.write(&b).map_err(|e| format!("{shown}: {e}"))?;
                    }
                }
                out.commit().map_err(|e| format!("{shown}: {e}"))
            }
            _ => write_npy(path, schema, next),
        }
    }

    /// `.npy` output: the string widths and row count are known only after every batch, so
    /// the result is held in memory, then written as npy-arrow's reverse mapping says. Every
    /// output is written as `npy convert` writes: a temporary file beside it (unnamed on
    /// Linux, so an interrupted query leaves nothing), renamed over it once complete.
    fn write_npy(
        path: &Path,
        schema: &SchemaRef,
        next: &mut dyn FnMut() -> Option<Result<RecordBatch, ArrowError>>,
    ) -> Result<(), Fail> {
        let shown = path.display();
        let options = npy_arrow::FromArrowOptions::new();
        let mut plan =
            npy_arrow::NpyPlan::new(Arc::clone(schema), &options).map_err(|e| e.to_string())?;
        let mut batches = Vec::new();
        while let Some(b) = next() {
            let b = b.map_err(|e| said(&e))?;
            plan.observe(&b).map_err(|e| e.to_string())?;
            batches.push(b);
        }
        let header = plan.header().map_err(|e| e.to_string())?;
        let out = npy_fs::AtomicFile::create(path).map_err(|e| format!("{shown}: {e}"))?;
        {
            let mut file = std::io::BufWriter::new(out.file());
            let bytes = header.to_bytes(None).map_err(|e| e.to_string())?;
            file.write_all(&bytes)
                .map_err(|e| format!("{shown}: {e}"))?;
            let mut first = 0u64;
            for b in &batches {
                let data = plan.encode(b, first, &options).map_err(|e| e.to_string())?;
                file.write_all(&data).map_err(|e| format!("{shown}: {e}"))?;
                first += b.num_rows() as u64;
            }
            file.flush().map_err(|e| format!("{shown}: {e}"))?;
        }
        out.commit().map_err(|e| format!("{shown}: {e}"))
    }
}
