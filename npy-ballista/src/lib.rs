//! SQL over folders of NumPy `.npy` shards on a Ballista cluster: npy-datafusion's codecs
//! ([`npy_datafusion::proto`]) registered on the client, the scheduler and every executor,
//! so a query's `.npy` table reaches the scheduler and its scans reach the executors.
//!
//! - [`session_state`]: a Ballista session whose codecs know `.npy` (npy-datafusion's, each
//!   wrapping Ballista's own, which encode the shuffle nodes) and whose format registry reads
//!   `.npy`.
//! - [`start_cluster`]: a scheduler and `executors` executors in this process, on loopback
//!   ports the system picks (Ballista's `standalone` functions, given the session above).
//! - [`register_shards`] and [`query`]: a table of `.npy` shards ([`NpyTable`], the table the
//!   logical codec can send) and a query's batches.
//!
//! `cargo run -p npy-ballista --example cluster -- DIR 'SELECT …'` runs a query over a folder
//! of shards on a scheduler and two executors.
//!
//! Ballista's crates build DataFusion with its default features (Parquet, compression, …): this
//! crate is outside the workspace's default members and npy-datafusion's own build; the codecs
//! alone need only npy-datafusion's `proto` feature.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::array::RecordBatch;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use npy_datafusion::proto::{NpyLogicalCodec, NpyPhysicalCodec};
use npy_datafusion::{NpyFormatFactory, NpyOptions, NpyTable, NpyTableFactory};

/// Attempts to connect an executor to the scheduler just started (which listens before
/// [`start_cluster`] connects: one attempt is the rule), [`CONNECT_PAUSE`] apart.
pub const CONNECT_ATTEMPTS: u32 = 50;

/// The pause between two attempts to reach the scheduler.
pub const CONNECT_PAUSE: Duration = Duration::from_millis(100);

/// Task slots of each executor started by [`start_cluster`].
pub const EXECUTOR_SLOTS: usize = 2;

/// A Ballista error as DataFusion's.
fn from_ballista(e: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// `config` with Ballista's settings and codecs that know `.npy` (npy-datafusion's, each
/// wrapping Ballista's).
pub fn ballista_config(config: SessionConfig) -> SessionConfig {
    let logical = NpyLogicalCodec::new(Arc::new(BallistaLogicalExtensionCodec::default()));
    let physical = NpyPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default()));
    config
        .upgrade_for_ballista()
        .with_ballista_logical_extension_codec(Arc::new(logical))
        .with_ballista_physical_extension_codec(Arc::new(physical))
}

/// A session state for Ballista's client, scheduler and executors: [`ballista_config`] of
/// `config`, DataFusion's default functions, `.npy` in the format registry, and
/// [`NpyTableFactory`] for `CREATE EXTERNAL TABLE … STORED AS NPY` (tables that the logical
/// codec can send).
///
/// # Errors
/// DataFusion's, if the state refuses the format's registration.
pub fn session_state(config: SessionConfig) -> Result<SessionState> {
    let mut state = SessionStateBuilder::new()
        .with_config(ballista_config(config))
        .with_default_features()
        .build();
    state.register_file_format(Arc::new(NpyFormatFactory::new()), true)?;
    state
        .table_factories_mut()
        .insert("NPY".into(), Arc::new(NpyTableFactory));
    Ok(state)
}

/// Starts a scheduler and `executors` executors (each of [`EXECUTOR_SLOTS`] task slots) in
/// this process, all with `state`'s codecs and configuration, on loopback ports the system
/// picks; returns the scheduler's address. They run on the current Tokio runtime until it
/// stops.
///
/// # Errors
/// Ballista's (as [`DataFusionError::External`]) if the scheduler cannot listen or an
/// executor cannot reach it within [`CONNECT_ATTEMPTS`] attempts.
pub async fn start_cluster(state: &SessionState, executors: usize) -> Result<SocketAddr> {
    let addr = ballista_scheduler::standalone::new_standalone_scheduler_from_state(state)
        .await
        .map_err(from_ballista)?;
    let url = format!("http://localhost:{}", addr.port());
    for _ in 0..executors {
        let mut attempt = 1;
        let scheduler = loop {
            match SchedulerGrpcClient::connect(url.clone()).await {
                Ok(client) => break client,
                Err(e) if attempt >= CONNECT_ATTEMPTS => return Err(from_ballista(e.into())),
                Err(_) => {
                    attempt += 1;
                    tokio::time::sleep(CONNECT_PAUSE).await;
                }
            }
        };
        ballista_executor::new_standalone_executor_from_state(scheduler, EXECUTOR_SLOTS, state)
            .await
            .map_err(from_ballista)?;
    }
    Ok(addr)
}

/// A client session of the scheduler at `scheduler`, with `state`'s codecs and configuration.
///
/// # Errors
/// DataFusion's, if Ballista refuses the address or the state.
pub async fn connect(scheduler: SocketAddr, state: SessionState) -> Result<SessionContext> {
    SessionContext::remote_with_state(&format!("df://localhost:{}", scheduler.port()), state).await
}

/// Registers `name`, the table over `location` (a directory — its `*.npy` —, a file or a
/// glob), as an [`NpyTable`] so that the query's plan can be sent to the scheduler.
///
/// # Errors
/// DataFusion's if `location` does not parse or cannot be listed; npy-datafusion's (inside
/// DataFusion's) if a header cannot be read or the shards differ.
pub async fn register_shards(
    ctx: &SessionContext,
    name: &str,
    location: &str,
    options: NpyOptions,
) -> Result<()> {
    let url = ListingTableUrl::parse(location)?;
    let table = NpyTable::try_new(&ctx.state(), vec![url], options).await?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

/// The batches of `sql`, run on the cluster behind `ctx`.
///
/// # Errors
/// DataFusion's and Ballista's: the query's plan, the scheduler, the executors.
pub async fn query(ctx: &SessionContext, sql: &str) -> Result<Vec<RecordBatch>> {
    ctx.sql(sql).await?.collect().await
}
