//! [`NpyTable`], a `ListingTable` of `.npy` files that remembers how it was made (paths,
//! globs, options), and [`NpyTableFactory`], which makes one for `CREATE EXTERNAL TABLE …
//! STORED AS NPY`.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::logical_expr::{CreateExternalTable, Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use futures::TryStreamExt as _;
use object_store::ObjectMeta;

use crate::format::{parse_options, NpyFormat, NpyOptions};
use crate::location::{file_name, location_name, special_file};
use crate::Error;

/// The listing options of an `.npy` table (of `.npz` archives with [`NpyOptions::member`])
/// over `paths`. The listing compares extensions byte for byte, so a first path spelling the
/// extension in another case (`UP.NPZ`, `shards/*.NPY`) sets it. The format knows the paths'
/// stores, so that its errors name files by URL. Also the format, for the schema.
fn listing_options(
    options: &NpyOptions,
    paths: &[ListingTableUrl],
) -> (ListingOptions, Arc<NpyFormat>) {
    let dotted = format!(".{}", options.extension());
    let extension = paths
        .first()
        .map(location_name)
        .and_then(|first| {
            let tail = first.get(first.len().checked_sub(dotted.len())?..)?;
            tail.eq_ignore_ascii_case(&dotted).then(|| tail.to_owned())
        })
        .unwrap_or(dotted);
    let format = Arc::new(NpyFormat::for_stores(options.clone(), stores(paths)));
    let listing = ListingOptions::new(Arc::clone(&format) as Arc<dyn FileFormat>)
        .with_file_extension(extension);
    (listing, format)
}

/// The URLs of the stores `paths` read, each once.
fn stores(paths: &[ListingTableUrl]) -> Vec<ObjectStoreUrl> {
    let mut bases: Vec<ObjectStoreUrl> = Vec::new();
    for url in paths {
        let base = url.object_store();
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    bases
}

/// The files of the table location `url` (`name`: the location as the user gave it), with
/// the checks DataFusion's listing leaves out: a location without a file of the table's
/// extension is [`Error::NoFiles`] naming it, and a 0-byte file (which DataFusion's listing
/// drops, so a table was answered without it) is [`Error::Empty`] naming it (numpy's `np.load`
/// refuses an empty file). One listing, DataFusion's own (`list_all_files`), which keeps it in
/// the session's list-files cache for the scan: a directory or glob is listed once.
async fn list_files(
    state: &dyn Session,
    url: &ListingTableUrl,
    name: &str,
    listing: &ListingOptions,
) -> Result<(Arc<dyn object_store::ObjectStore>, Vec<ObjectMeta>)> {
    let store = state.runtime_env().object_store(url)?;
    let mut files: Vec<ObjectMeta> = url
        .list_all_files(state, store.as_ref(), &listing.file_extension)
        .await?
        .try_collect()
        .await?;
    if files.is_empty() {
        return Err(Error::NoFiles {
            path: name.to_owned(),
            extension: listing.file_extension.trim_start_matches('.').to_owned(),
        }
        .into());
    }
    files.sort_by(|a, b| a.location.cmp(&b.location));
    if let Some(empty) = files.iter().find(|m| m.size == 0) {
        return Err(Error::Empty {
            path: file_name(Some(&url.object_store()), &empty.location),
        }
        .into());
    }
    Ok((store, files))
}

/// A table over `.npy` files (a `ListingTable` of [`NpyFormat`], `*.npy` of a directory) that
/// the logical codec of feature `proto` can send to another process: its paths (URLs and
/// globs) and options travel, the schema travels in DataFusion's own message, and the other
/// side lists the files again.
///
/// It answers every query as the `ListingTable` inside it does (scans, filter and limit
/// pushdown, statistics). Partition columns and sort orders are not part of it.
#[derive(Debug)]
pub struct NpyTable {
    inner: ListingTable,
    options: NpyOptions,
}

impl NpyTable {
    /// The table over `paths` (files, directories — their `*.npy` — or globs), its schema
    /// inferred from the first path's headers as [`NpyFormat`] does. Errors name a location as
    /// [`NpyTable::try_new_named`] does with the path's own spelling (a local path, a URL).
    ///
    /// # Errors
    /// As [`NpyTable::try_new_named`].
    pub async fn try_new(
        state: &dyn Session,
        paths: Vec<ListingTableUrl>,
        options: NpyOptions,
    ) -> Result<Self> {
        let named = paths
            .into_iter()
            .map(|url| {
                let name = location_name(&url);
                (url, name)
            })
            .collect();
        Self::try_new_named(state, named, options).await
    }

    /// The table over `locations`, each a URL (a file, a directory — its `*.npy` —, a glob)
    /// and the name errors give it (the location as the user typed it), its schema inferred
    /// from the first location's headers as [`NpyFormat`] does.
    ///
    /// Every location is listed once (DataFusion's listing, kept in the session's list-files
    /// cache for the scans) and checked: a location without a file of the table's extension
    /// is [`Error::NoFiles`] naming it, and a 0-byte file is [`Error::Empty`] naming it — a
    /// truncated shard, which numpy refuses (`np.load` raises `EOFError`), where DataFusion's
    /// own listing leaves empty files out and a table would be answered without them. (A file
    /// emptied after the table is made is still left out by the scan's listing.)
    ///
    /// # Errors
    /// DataFusion's if `locations` is empty or cannot be listed; this crate's [`Error`]
    /// (inside `DataFusionError::External`) for a location without files, an empty file, a
    /// header that cannot be read or shards that differ.
    pub async fn try_new_named(
        state: &dyn Session,
        locations: Vec<(ListingTableUrl, String)>,
        options: NpyOptions,
    ) -> Result<Self> {
        let paths: Vec<ListingTableUrl> = locations.iter().map(|(u, _)| u.clone()).collect();
        let (listing, format) = listing_options(&options, &paths);
        if locations.is_empty() {
            return Err(DataFusionError::Plan(
                "npy table: no location (a file, a directory or a glob) given".to_owned(),
            ));
        }
        let mut listed = Vec::with_capacity(locations.len());
        for (url, name) in &locations {
            if let Some(refused) = local_path(url).and_then(|p| special_file(&p, name)) {
                return Err(refused.into());
            }
            listed.push(list_files(state, url, name, &listing).await?);
        }
        // Every location's files against the first's: a table of several locations is one
        // array, checked as one (DataFusion infers from the first location only).
        // The listing's own format, whose header cache the statistics and scans then use.
        let schema = format.schema_of(state, &listed).await?;
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(listing)
            .with_schema(schema);
        Ok(Self {
            inner: ListingTable::try_new(config)?,
            options,
        })
    }

    /// The table over `paths` with `schema` as it is (no file is read, no location listed: the
    /// checks of [`NpyTable::try_new_named`] are not made, and the scans' listing leaves 0-byte
    /// files out, as DataFusion's does).
    ///
    /// # Errors
    /// DataFusion's, if it refuses the listing table's configuration.
    pub fn with_schema(
        paths: Vec<ListingTableUrl>,
        options: NpyOptions,
        schema: SchemaRef,
    ) -> Result<Self> {
        let (listing, _) = listing_options(&options, &paths);
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(listing)
            .with_schema(schema);
        Ok(Self {
            inner: ListingTable::try_new(config)?,
            options,
        })
    }

    /// The `ListingTable` that answers the queries.
    pub fn listing_table(&self) -> &ListingTable {
        &self.inner
    }

    /// The format's options.
    pub fn options(&self) -> &NpyOptions {
        &self.options
    }
}

#[async_trait]
impl TableProvider for NpyTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.inner.constraints()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.inner.get_table_definition()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.inner.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: datafusion::catalog::ScanArgs<'a>,
    ) -> Result<datafusion::catalog::ScanResult> {
        self.inner.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }
}

/// Makes [`NpyTable`]s for `CREATE EXTERNAL TABLE … STORED AS NPY LOCATION '…'`: DataFusion
/// looks the `STORED AS` name up in the session's table factories, which hold only its
/// built-in formats; [`crate::register`] inserts this one under `"NPY"`. The tables it makes
/// read a directory's `*.npy` only, and can be sent by feature `proto`'s logical codec.
///
/// Options: `'format.column_name'` (see [`NpyOptions`]). The schema is inferred from the
/// headers unless the statement lists the columns. Partition columns are refused.
#[derive(Debug, Default)]
pub struct NpyTableFactory;

#[async_trait]
impl TableProviderFactory for NpyTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        if !cmd.table_partition_cols.is_empty() {
            return Err(DataFusionError::NotImplemented(format!(
                "npy table {}: partition columns ({})",
                cmd.name,
                cmd.table_partition_cols.join(", ")
            )));
        }
        let options = parse_options(NpyOptions::default(), &cmd.options)?;
        let named = cmd
            .locations
            .iter()
            .map(|l| Ok((ListingTableUrl::parse(l)?, l.clone())))
            .collect::<Result<Vec<_>>>()?;
        let table = if cmd.schema.fields().is_empty() {
            NpyTable::try_new_named(state, named, options).await?
        } else {
            let paths = named.into_iter().map(|(u, _)| u).collect();
            NpyTable::with_schema(paths, options, Arc::clone(cmd.schema.inner()))?
        };
        Ok(Arc::new(table))
    }
}

/// The local path of a `file://` location without a glob (a file or a directory).
fn local_path(url: &ListingTableUrl) -> Option<std::path::PathBuf> {
    (url.scheme() == "file" && url.get_glob().is_none())
        .then(|| url.get_url().to_file_path().ok())
        .flatten()
}
