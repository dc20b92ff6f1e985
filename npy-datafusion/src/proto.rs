//! Codecs that ship `.npy` tables and scans to other processes (feature `proto`): a Ballista
//! scheduler receives a query's logical plan from its client and sends stages of the physical
//! plan to executors, each through datafusion-proto, which knows DataFusion's built-in formats
//! only and asks an extension codec for the rest.
//!
//! - [`NpyLogicalCodec`]: the table ([`NpyTable`]: paths, globs, [`NpyOptions`]; the schema
//!   travels in DataFusion's own message) and the format factory ([`NpyFormatFactory`]'s
//!   options, for `COPY … STORED AS NPY` plans).
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
//! elsewhere. `CREATE EXTERNAL TABLE … STORED AS NPY` makes one in a session where
//! [`crate::register`] (or [`crate::NpyTableFactory`]) is registered.

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
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

use crate::format::{NpyFormatFactory, NpyOptions};
use crate::source::NpySource;
use crate::{Error, NpyTable};

/// The first bytes of every node these codecs write: `NPY` and the encoding's version.
pub const MAGIC: &[u8; 4] = b"NPY\x01";

/// A scan: DataFusion's file scan config and the format's options.
#[derive(Clone, PartialEq, prost::Message)]
struct ScanNode {
    #[prost(message, optional, tag = "1")]
    base_conf: Option<FileScanExecConf>,
    #[prost(string, optional, tag = "2")]
    column_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    member: Option<String>,
}

/// A table: where its files are and the format's options (the schema is DataFusion's part).
#[derive(Clone, PartialEq, prost::Message)]
struct TableNode {
    #[prost(message, repeated, tag = "1")]
    paths: Vec<TablePath>,
    #[prost(string, optional, tag = "2")]
    column_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    member: Option<String>,
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
    #[prost(string, optional, tag = "2")]
    member: Option<String>,
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
            member: node.member,
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
            .listing_table()
            .table_paths()
            .iter()
            .map(|p| TablePath {
                url: p.as_str().to_owned(),
                glob: p.get_glob().as_ref().map(|g| g.as_str().to_owned()),
            })
            .collect();
        let message = TableNode {
            paths,
            column_name: table.options().column_name.clone(),
            member: table.options().member.clone(),
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
            member: node.member,
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
            member: factory.options().member.clone(),
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
            member: node.member,
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
            member: source.options().member.clone(),
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
