//! [`NpyTable`], a `ListingTable` of `.npy` files that remembers how it was made (paths,
//! globs, options), and [`NpyTableFactory`], which makes one for `CREATE EXTERNAL TABLE …
//! STORED AS NPY`.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{CreateExternalTable, Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;

use crate::format::{parse_options, NpyFormat, NpyOptions};

/// The listing options of an `.npy` table (of `.npz` archives with [`NpyOptions::member`]).
fn listing_options(options: &NpyOptions) -> ListingOptions {
    ListingOptions::new(Arc::new(NpyFormat::with_options(options.clone())))
        .with_file_extension(format!(".{}", options.extension()))
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
    /// inferred from the first path's headers as [`NpyFormat`] does.
    ///
    /// # Errors
    /// DataFusion's if `paths` is empty or cannot be listed; this crate's [`crate::Error`]
    /// (inside `DataFusionError::External`) if a header cannot be read or the shards differ.
    pub async fn try_new(
        state: &dyn Session,
        paths: Vec<ListingTableUrl>,
        options: NpyOptions,
    ) -> Result<Self> {
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(listing_options(&options))
            .infer_schema(state)
            .await?;
        Ok(Self {
            inner: ListingTable::try_new(config)?,
            options,
        })
    }

    /// The table over `paths` with `schema` as it is (no file is read).
    ///
    /// # Errors
    /// DataFusion's, if it refuses the listing table's configuration.
    pub fn with_schema(
        paths: Vec<ListingTableUrl>,
        options: NpyOptions,
        schema: SchemaRef,
    ) -> Result<Self> {
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(listing_options(&options))
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
        let paths = cmd
            .locations
            .iter()
            .map(ListingTableUrl::parse)
            .collect::<Result<Vec<_>>>()?;
        let table = if cmd.schema.fields().is_empty() {
            NpyTable::try_new(state, paths, options).await?
        } else {
            NpyTable::with_schema(paths, options, Arc::clone(cmd.schema.inner()))?
        };
        Ok(Arc::new(table))
    }
}
