//! Codecs that ship `.npy` tables and scans to other processes (feature `proto`): a Ballista
//! scheduler receives a query's logical plan from its client and sends stages of the physical
//! plan to executors, each through datafusion-proto, which knows DataFusion's built-in formats
//! only and asks an extension codec for the rest.
//!
//! - [`NpyLogicalCodec`]: the table ([`NpyTable`]: paths, globs, [`NpyOptions`]; the schema
//!   travels in DataFusion's own message) and the format factory ([`NpyFormatFactory`]'s
//!   options, for `COPY … STORED AS NPY` plans). [`NpyTableFactory`] makes `CREATE EXTERNAL
//!   TABLE … STORED AS NPY` create an [`NpyTable`].
//! - [`NpyPhysicalCodec`]: a `DataSourceExec` over [`NpySource`]: the file scan config (file
//!   groups with their byte ranges, schema, projection, limit, statistics, orderings) through
//!   datafusion-proto's own `serialize_file_scan_config` / `parse_protobuf_file_scan_config`,
//!   so an executor rebuilds the same scan.
//!
//! Each codec wraps another (DataFusion's default codec, or Ballista's, which encodes the
//! shuffle nodes) and hands it everything that is not `.npy`. The bytes of an `.npy` node start
//! with [`MAGIC`], which no protobuf message starts with (`N`, 0x4E, would be field 9 of wire
//! type 6, which does not exist), so decoding tells them from the inner codec's protobuf.
//!
//! Why a table of its own: DataFusion 55's datafusion-proto serializes a `ListingTable` only
//! when its format is one of its built-in ones (Parquet, CSV, JSON, Avro, Arrow) and fails with
//! "Error deserializing unknown file format" otherwise, before any extension codec is asked. A
//! [`NpyTable`] is a `ListingTable` over `.npy` files that the codec can encode; register it
//! (instead of a `ListingTable` or a quoted path in FROM) in a session whose plans are sent
//! elsewhere, or insert [`NpyTableFactory`] so that `CREATE EXTERNAL TABLE … STORED AS NPY`
//! makes one.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{Constraints, Statistics, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, CreateExternalTable, Expr, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF,
    TableProviderFilterPushDown, TableType, WindowUDF,
};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalPlanDecodeContext,
    PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf::FileScanExecConf;
use prost::Message;

use crate::format::{parse_options, NpyFormat, NpyFormatFactory, NpyOptions, NPY_EXTENSION};
use crate::source::NpySource;
use crate::Error;

/// The first bytes of every node these codecs write: `NPY` and the encoding's version.
pub const MAGIC: &[u8; 4] = b"NPY\x01";

/// A scan: DataFusion's file scan config and the format's options.
#[derive(Clone, PartialEq, prost::Message)]
struct ScanNode {
    #[prost(message, optional, tag = "1")]
    base_conf: Option<FileScanExecConf>,
    #[prost(string, optional, tag = "2")]
    column_name: Option<String>,
}

/// A table: where its files are and the format's options (the schema is DataFusion's part).
#[derive(Clone, PartialEq, prost::Message)]
struct TableNode {
    #[prost(message, repeated, tag = "1")]
    paths: Vec<TablePath>,
    #[prost(string, optional, tag = "2")]
    column_name: Option<String>,
}

/// One of a table's locations: its URL and the glob that filters its listing, if any.
#[derive(Clone, PartialEq, prost::Message)]
struct TablePath {
    #[prost(string, tag = "1")]
    url: String,
    #[prost(string, optional, tag = "2")]
    glob: Option<String>,
}

/// A format factory's options.
#[derive(Clone, PartialEq, prost::Message)]
struct FormatNode {
    #[prost(string, optional, tag = "1")]
    column_name: Option<String>,
}

/// `message` after [`MAGIC`].
fn encode_node(message: &impl Message, buf: &mut Vec<u8>) {
    buf.reserve(MAGIC.len() + message.encoded_len());
    buf.extend_from_slice(MAGIC);
    // A `Vec` grows as needed: encoding into it cannot run out of room.
    message.encode_raw(buf);
}

/// The node `what` in `body` (the bytes after [`MAGIC`]).
fn decode_node<M: Message + Default>(body: &[u8], what: &'static str) -> Result<M> {
    M::decode(body).map_err(|e| {
        Error::Codec {
            what: format!("{what}: {e}"),
        }
        .into()
    })
}

/// The listing options of an `.npy` table.
fn listing_options(options: &NpyOptions) -> ListingOptions {
    ListingOptions::new(Arc::new(NpyFormat::with_options(options.clone())))
        .with_file_extension(format!(".{NPY_EXTENSION}"))
}

/// A table over `.npy` files (a `ListingTable` of [`NpyFormat`]) that [`NpyLogicalCodec`] can
/// send to another process: its paths (URLs and globs) and options travel, the schema travels
/// in DataFusion's own message, and the other side lists the files again.
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
    /// DataFusion's if `paths` is empty or cannot be listed; this crate's [`Error`] (inside
    /// `DataFusionError::External`) if a header cannot be read or the shards differ.
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

/// Makes [`NpyTable`]s for `CREATE EXTERNAL TABLE … STORED AS NPY LOCATION '…'`, so that
/// tables made by SQL can be sent too: insert it in the session's table factories under
/// `"NPY"` (`state.table_factories_mut().insert("NPY".into(), Arc::new(NpyTableFactory))`).
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

/// DataFusion's [`LogicalExtensionCodec`] for `.npy`: encodes [`NpyTable`]s and
/// [`NpyFormatFactory`]s, and hands every other node to the codec it wraps.
///
/// For Ballista, wrap Ballista's logical codec and set the result with
/// `SessionConfigExt::with_ballista_logical_extension_codec` on the client, the scheduler and
/// the executors.
#[derive(Debug)]
pub struct NpyLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl Default for NpyLogicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

impl NpyLogicalCodec {
    /// The codec that hands what is not `.npy` to `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        Self { inner }
    }
}

impl LogicalExtensionCodec for NpyLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(body) = buf.strip_prefix(MAGIC) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node: TableNode = decode_node(body, "an .npy table")?;
        let paths = node
            .paths
            .iter()
            .map(|p| {
                let url = ListingTableUrl::parse(&p.url)?;
                match &p.glob {
                    Some(glob) => url.with_glob(glob),
                    None => Ok(url),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let options = NpyOptions {
            column_name: node.column_name,
        };
        Ok(Arc::new(NpyTable::with_schema(paths, options, schema)?))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = node.downcast_ref::<NpyTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let paths = table
            .inner
            .table_paths()
            .iter()
            .map(|p| TablePath {
                url: p.as_str().to_owned(),
                glob: p.get_glob().as_ref().map(|g| g.as_str().to_owned()),
            })
            .collect();
        let message = TableNode {
            paths,
            column_name: table.options.column_name.clone(),
        };
        encode_node(&message, buf);
        Ok(())
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        let Some(body) = buf.strip_prefix(MAGIC) else {
            return self.inner.try_decode_file_format(buf, ctx);
        };
        let node: FormatNode = decode_node(body, "an .npy format")?;
        Ok(Arc::new(NpyFormatFactory::with_options(NpyOptions {
            column_name: node.column_name,
        })))
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        let Some(factory) = node.downcast_ref::<NpyFormatFactory>() else {
            return self.inner.try_encode_file_format(buf, node);
        };
        let message = FormatNode {
            column_name: factory.options().column_name.clone(),
        };
        encode_node(&message, buf);
        Ok(())
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// DataFusion's [`PhysicalExtensionCodec`] for `.npy`: encodes a `DataSourceExec` over
/// [`NpySource`] (its file scan config by datafusion-proto's own functions, so file groups,
/// byte ranges, schema, projection, limit and statistics arrive as they left), and hands every
/// other node to the codec it wraps.
///
/// The decoded scan reads the headers again on its side (each process has its own header
/// cache) and checks each file against the table's schema before reading it.
#[derive(Debug)]
pub struct NpyPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl Default for NpyPhysicalCodec {
    fn default() -> Self {
        Self::new(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl NpyPhysicalCodec {
    /// The codec that hands what is not an `.npy` scan to `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        Self { inner }
    }
}

impl PhysicalExtensionCodec for NpyPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(body) = buf.strip_prefix(MAGIC) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let node: ScanNode = decode_node(body, "an .npy scan")?;
        let conf = node.base_conf.ok_or_else(|| Error::Codec {
            what: "an .npy scan without its file scan config".to_owned(),
        })?;
        let table_schema = parse_table_schema_from_proto(&conf)?;
        let options = NpyOptions {
            column_name: node.column_name,
        };
        let source = Arc::new(NpySource::new(table_schema, options, Arc::default()));
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let config = parse_protobuf_file_scan_config(&conf, &decode_ctx, proto_converter, source)?;
        Ok(DataSourceExec::from_data_source(config))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let scan = node
            .downcast_ref::<DataSourceExec>()
            .and_then(DataSourceExec::downcast_to_file_source::<NpySource>);
        let Some((config, source)) = scan else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let message = ScanNode {
            base_conf: Some(serialize_file_scan_config(config, self, proto_converter)?),
            column_name: source.options().column_name.clone(),
        };
        encode_node(&message, buf);
        Ok(())
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}
