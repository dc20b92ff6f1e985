//! The DataFusion [`FileFormat`] of `.npy` files and its factory.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::physical_plan::ExecutionPlan;
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore};

use crate::location::file_name;
use crate::shard::{HeaderCache, Shard};
use crate::source::NpySource;
use crate::Error;

/// The file extension of `.npy` files, without its dot.
pub const NPY_EXTENSION: &str = "npy";

/// The file extension of `.npz` archives, without its dot: the extension of a table whose
/// [`NpyOptions::member`] is set.
pub const NPZ_EXTENSION: &str = "npz";

/// Headers read at once while inferring a table's schema (each one or two ranged reads).
pub const HEADER_CONCURRENCY: usize = 32;

/// Options of the `.npy` format.
#[derive(Debug, Clone, Default)]
pub struct NpyOptions {
    /// The column name of a plain (non-record) array; `None`: the stem of the table's first
    /// file in location order (`emb.npy` → `emb`), as npy-arrow names a single file's column.
    pub column_name: Option<String>,
    /// `Some(key)`: the table's files are `.npz` archives and its rows are those of member
    /// `key` of each (numpy's key: `np.load(archive)[key]`, the member `key.npy`); the files'
    /// extension is then `.npz`. A stored member (`np.savez`) is read by byte ranges like a
    /// `.npy` file; a deflated one (`np.savez_compressed`) is inflated in one stream per
    /// archive, a batch at a time. A deflated member's CRC-32 is checked when its last row is
    /// read; a stored member's is not (its rows are read by ranges, never all in one pass:
    /// `npy_npz::NpzArchive::verify` checks it, as `np.load` does). `None`: the files are
    /// `.npy` files.
    pub member: Option<String>,
}

impl NpyOptions {
    /// The extension of the table's files, without its dot: [`NPY_EXTENSION`], or
    /// [`NPZ_EXTENSION`] when [`NpyOptions::member`] is set.
    pub fn extension(&self) -> &'static str {
        if self.member.is_some() {
            NPZ_EXTENSION
        } else {
            NPY_EXTENSION
        }
    }
}

/// Makes [`NpyFormat`]s: register it with
/// `SessionContext::register_file_format` (or [`crate::register`]) and DataFusion reads
/// `.npy` files by their extension, as it reads `.parquet`: `CREATE EXTERNAL TABLE … STORED
/// AS NPY`, `ListingTable`s, and quoted paths in FROM when URL tables are enabled.
#[derive(Debug, Default)]
pub struct NpyFormatFactory {
    options: NpyOptions,
}

impl NpyFormatFactory {
    /// A factory of formats with default options.
    pub fn new() -> Self {
        Self {
            options: NpyOptions::default(),
        }
    }

    /// A factory of formats with `options`.
    pub fn with_options(options: NpyOptions) -> Self {
        Self { options }
    }

    /// The options of the formats it makes.
    pub fn options(&self) -> &NpyOptions {
        &self.options
    }
}

impl FileFormatFactory for NpyFormatFactory {
    fn create(
        &self,
        _state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let options = parse_options(self.options.clone(), format_options)?;
        Ok(Arc::new(NpyFormat::with_options(options)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(NpyFormat::with_options(self.options.clone()))
    }
}

/// `base` with the format options of a `CREATE EXTERNAL TABLE … OPTIONS (…)` or `COPY`
/// (`column_name` and `member`, with or without the `format.` prefix).
pub(crate) fn parse_options(
    mut options: NpyOptions,
    format_options: &HashMap<String, String>,
) -> Result<NpyOptions> {
    for (key, value) in format_options {
        match key.strip_prefix("format.").unwrap_or(key) {
            "column_name" => options.column_name = Some(value.clone()),
            "member" => options.member = Some(value.clone()),
            other => {
                return Err(DataFusionError::Configuration(format!(
                    "npy format: unknown option {other:?} (known: column_name, member)"
                )))
            }
        }
    }
    Ok(options)
}

impl GetExt for NpyFormatFactory {
    fn get_ext(&self) -> String {
        NPY_EXTENSION.to_owned()
    }
}

/// The `.npy` file format: one table over one or many `.npy` files (shards of one array cut
/// along its first axis), one row per index of the first axis.
///
/// - The schema comes from the headers by npy-arrow's mapping ([`npy_arrow::schema_for`]): a
///   record's fields are the columns; a plain array is one column; an N-d array's rows are
///   fixed-size lists (`arrow.fixed_shape_tensor`). Every shard must hold the first shard's
///   dtype (byte order may differ) and shape after the first axis, else [`Error::Mismatch`]
///   names the first file that differs.
/// - Statistics are exact, from the headers: rows and data bytes, so `count(*)` reads headers
///   only.
/// - Scans read row-aligned byte ranges of at most a batch each ([`crate::NpySource`]).
/// - 0-byte files: DataFusion's listing drops them before a format sees the list, so a
///   `ListingTable` of this format answers without a truncated (empty) shard and cannot be
///   told otherwise; [`crate::NpyTable`] lists its locations itself and refuses one
///   ([`Error::Empty`]).
#[derive(Debug, Default)]
pub struct NpyFormat {
    options: NpyOptions,
    headers: Arc<HeaderCache>,
    /// The URLs of the stores its table reads (set by [`crate::NpyTable`]), so that errors
    /// name a file by its URL ([`crate::location::store_url`]); local files are found without.
    bases: Vec<ObjectStoreUrl>,
}

impl NpyFormat {
    /// The format with default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// The format with `options`.
    pub fn with_options(options: NpyOptions) -> Self {
        Self {
            options,
            headers: Arc::default(),
            bases: Vec::new(),
        }
    }

    /// The format with `options` for a table over the stores of `bases`: errors name a file of
    /// those stores by its URL (`s3://bucket/key.npy`) rather than by the store's path.
    pub(crate) fn for_stores(options: NpyOptions, bases: Vec<ObjectStoreUrl>) -> Self {
        Self {
            bases,
            ..Self::with_options(options)
        }
    }

    /// The options.
    pub fn options(&self) -> &NpyOptions {
        &self.options
    }

    /// The URL of `store` when this format knows it (see [`crate::location::store_url`]).
    fn base(&self, state: &dyn Session, store: &Arc<dyn ObjectStore>) -> Option<ObjectStoreUrl> {
        crate::location::store_url(state, store, &self.bases)
    }

    /// The schema of the files of `listed` (each group the files of one store, in the order
    /// of a table's locations; a group's files in path order), from their headers: every file
    /// must agree with the first on dtype (byte order aside) and on the shape after the first
    /// axis ([`Error::Mismatch`] naming the first that differs), across groups too, so that a
    /// table of several locations is checked as one. A plain array's column is named after
    /// the first file (or [`NpyOptions::column_name`]).
    pub(crate) async fn schema_of(
        &self,
        state: &dyn Session,
        listed: &[(Arc<dyn ObjectStore>, Vec<ObjectMeta>)],
    ) -> Result<SchemaRef> {
        let mut files: Vec<(Arc<dyn ObjectStore>, ObjectMeta, String)> = Vec::new();
        for (store, objects) in listed {
            let base = self.base(state, store);
            let mut objects: Vec<&ObjectMeta> = objects.iter().collect();
            objects.sort_by(|a, b| a.location.cmp(&b.location));
            files.extend(objects.into_iter().map(|meta| {
                let name = file_name(base.as_ref(), &meta.location);
                (Arc::clone(store), meta.clone(), name)
            }));
        }
        let Some((_, first_meta, first_path)) = files.first() else {
            return Ok(Arc::new(Schema::empty()));
        };
        let reads: Vec<_> = files
            .iter()
            .map(|(store, meta, path)| {
                let (headers, store, meta) =
                    (Arc::clone(&self.headers), Arc::clone(store), meta.clone());
                let member = self.options.member.clone();
                let path = path.clone();
                async move { headers.get(&store, &meta, member.as_deref(), &path).await }
            })
            .collect();
        let shards: Vec<Arc<Shard>> = futures::stream::iter(reads)
            .buffered(HEADER_CONCURRENCY)
            .try_collect()
            .await?;
        for ((_, _, path), shard) in files.iter().zip(&shards).skip(1) {
            check_same((first_path, &shards[0]), (path, shard))?;
        }
        let name = self
            .options
            .column_name
            .clone()
            .unwrap_or_else(|| npy_arrow::stem_name(Path::new(first_meta.location.as_ref())));
        Ok(shard_schema(&shards[0], &name, first_path)?)
    }
}

/// `Shard`'s values compared across files, rendered for [`Error::Mismatch`].
fn check_same(first: (&str, &Shard), other: (&str, &Shard)) -> Result<(), Error> {
    let (fp, f) = first;
    let (op, o) = other;
    if f.native_dtype() != o.native_dtype() {
        return Err(Error::Mismatch {
            path: op.to_owned(),
            first: fp.to_owned(),
            what: "dtype",
            found: o.dtype.to_string(),
            expected: f.dtype.to_string(),
        });
    }
    if f.trailing != o.trailing {
        return Err(Error::Mismatch {
            path: op.to_owned(),
            first: fp.to_owned(),
            what: "shape after the first axis",
            found: format!("{:?}", o.trailing),
            expected: format!("{:?}", f.trailing),
        });
    }
    Ok(())
}

/// The Arrow schema of `shard`'s rows, the plain column named `name`.
pub(crate) fn shard_schema(shard: &Shard, name: &str, path: &str) -> Result<SchemaRef, Error> {
    let mut shape = vec![shard.rows];
    shape.extend_from_slice(&shard.trailing);
    npy_arrow::schema_for(&shard.native_dtype(), &shape, name).map_err(|e| Error::Arrow {
        path: path.to_owned(),
        source: e,
    })
}

#[async_trait]
impl FileFormat for NpyFormat {
    fn get_ext(&self) -> String {
        self.options.extension().to_owned()
    }

    fn get_ext_with_compression(&self, c: &FileCompressionType) -> Result<String> {
        if c.is_compressed() {
            return Err(DataFusionError::NotImplemented(
                "npy format: compressed .npy files (rows are read by byte ranges)".into(),
            ));
        }
        Ok(self.get_ext())
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        None
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.schema_of(state, &[(Arc::clone(store), objects.to_vec())])
            .await
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let path = file_name(self.base(state, store).as_ref(), &object.location);
        let shard = self
            .headers
            .get(store, object, self.options.member.as_deref(), &path)
            .await?;
        let rows = usize::try_from(shard.rows).ok();
        let bytes = usize::try_from(shard.data_bytes).ok();
        let mut stats = Statistics::new_unknown(&table_schema);
        if let Some(rows) = rows {
            stats.num_rows = Precision::Exact(rows);
        }
        if let Some(bytes) = bytes {
            stats.total_byte_size = Precision::Exact(bytes);
        }
        Ok(stats)
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(NpySource::new(
            table_schema,
            self.options.clone(),
            Arc::clone(&self.headers),
        ))
    }
}
