//! The codecs of feature `proto` (`npy_datafusion::proto`): a plan encoded in one session and
//! decoded in another that never saw the table or the format answers as numpy does, and the
//! decoded scan is the one that was sent (file groups with their byte ranges, projection,
//! limit, statistics).

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::json::writer::{JsonArray, WriterBuilder};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::SessionContext;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes,
    physical_plan_to_bytes_with_extension_codec,
};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};
use npy_datafusion::proto::{NpyLogicalCodec, NpyPhysicalCodec, MAGIC};
use npy_datafusion::{Error, NpyFormatFactory, NpyOptions, NpyTable};
use serde_json::{json, Value};

use super::{assert_rows_close, expected, listing, python_for, runtime, session, GROUP_BY, SHARDS};

/// Rows of SHARDS' four files (its `enumerate([1000, 0, 2345, 777])`).
const SHARD_ROWS: usize = 1000 + 2345 + 777;

fn to_rows(batches: &[RecordBatch]) -> Vec<Value> {
    let mut out = Vec::new();
    {
        let mut w = WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, JsonArray>(&mut out);
        for b in batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
    }
    if out.is_empty() {
        return Vec::new();
    }
    let v: Value = serde_json::from_slice(&out).unwrap();
    v.as_array().cloned().unwrap_or_default()
}

/// The plan's scans as EXPLAIN prints them: file groups with byte ranges, projection, limit.
fn scans(plan: &Arc<dyn ExecutionPlan>) -> Vec<String> {
    displayable(plan.as_ref())
        .indent(true)
        .to_string()
        .lines()
        .filter(|l| l.contains("DataSourceExec"))
        .map(|l| l.trim().to_owned())
        .collect()
}

/// The statistics of the plan's scans (all partitions), as debug text.
fn scan_statistics(plan: &Arc<dyn ExecutionPlan>) -> Vec<String> {
    let mut out = Vec::new();
    if plan.is::<DataSourceExec>() {
        let stats = StatisticsContext::new()
            .compute(plan.as_ref(), &StatisticsArgs::new())
            .unwrap();
        out.push(format!("{stats:?}"));
    }
    for child in plan.children() {
        out.extend(scan_statistics(child));
    }
    out
}

#[test]
fn the_physical_codec_ships_a_scan_that_answers_as_numpy() {
    let Some(python) = python_for("an .npy scan through the physical codec against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let want = expected(&python, SHARDS, dir.path());
    let d = dir.path().display().to_string();
    runtime().block_on(async {
        let ctx = session(4096, 1000);
        listing(&ctx, "t", &format!("{d}/"), None).await;
        let codec = NpyPhysicalCodec::default();
        let sql = GROUP_BY.replace("{}", "t");
        let plan = ctx
            .sql(&sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        // DataFusion alone cannot send the scan; with the codec it can.
        assert!(physical_plan_to_bytes(Arc::clone(&plan)).is_err());
        let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &codec).unwrap();
        // The other side: a session without the table or the format.
        let other = SessionContext::new();
        let decoded =
            physical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &codec)
                .unwrap();
        let sent = scans(&plan);
        assert_eq!(scans(&decoded), sent);
        // 4 target partitions, two scan partitions each.
        let groups = format!(
            "file_groups={{{} groups",
            4 * npy_datafusion::SCAN_PARTITIONS_PER_TARGET
        );
        assert!(
            sent[0].contains(&groups) && sent[0].contains(".npy:"),
            "the files split into byte ranges over 8 partitions: {sent:?}"
        );
        let stats = scan_statistics(&plan);
        assert_eq!(scan_statistics(&decoded), stats);
        assert!(
            stats[0].contains(&format!("num_rows: Exact({SHARD_ROWS})")),
            "the headers' row count: {stats:?}"
        );
        let got = to_rows(&collect(decoded, other.task_ctx()).await.unwrap());
        assert_rows_close(&got, &want, "group-by, decoded in another session");

        // A projection in another order than the record's and a limit pushed into the scan.
        let plan = ctx
            .sql("SELECT name, id FROM t LIMIT 7")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &codec).unwrap();
        let decoded =
            physical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &codec)
                .unwrap();
        let sent = scans(&plan);
        assert_eq!(scans(&decoded), sent);
        assert!(sent[0].contains("limit=7"), "{sent:?}");
        let got = to_rows(&collect(decoded, other.task_ctx()).await.unwrap());
        assert_eq!(got.len(), 7);
        for r in &got {
            // SHARDS names row i of a shard `n{i % 13}`, and shard k's ids start at 10 000 k.
            let id = r["id"].as_i64().unwrap();
            assert_eq!(r["name"], json!(format!("n{}", (id % 10_000) % 13)), "{r}");
        }
    });
}

#[test]
fn the_logical_codec_ships_a_table_that_answers_as_numpy() {
    let Some(python) = python_for("an .npy table through the logical codec against numpy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let want = expected(&python, SHARDS, dir.path());
    let d = dir.path().display().to_string();
    runtime().block_on(async {
        let ctx = session(4096, 1000);
        let state = ctx.state();
        for (name, location) in [("t", format!("{d}/")), ("g", format!("{d}/part-[01].npy"))] {
            let url = ListingTableUrl::parse(&location).unwrap();
            let table = NpyTable::try_new(&state, vec![url], NpyOptions::default())
                .await
                .unwrap();
            ctx.register_table(name, Arc::new(table)).unwrap();
        }
        // A table made by SQL (`register` inserted NpyTableFactory).
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE c STORED AS NPY LOCATION '{d}/'"
        ))
        .await
        .unwrap();
        let codec = NpyLogicalCodec::default();
        // The glob keeps the first two shards: 1000 and 0 rows.
        let cases = [
            (GROUP_BY.replace("{}", "t"), want.clone()),
            (GROUP_BY.replace("{}", "c"), want),
            (
                "SELECT count(*) AS n FROM g".to_owned(),
                json!([{"n": 1000}]),
            ),
        ];
        for (sql, want) in cases {
            let plan = ctx.sql(&sql).await.unwrap().logical_plan().clone();
            let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
            let other = SessionContext::new();
            let decoded =
                logical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &codec)
                    .unwrap();
            let batches = other
                .execute_logical_plan(decoded)
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
            assert_rows_close(&to_rows(&batches), &want, &sql);
        }

        // A ListingTable of the format cannot be sent: DataFusion's proto refuses formats it
        // does not know before asking a codec (hence NpyTable).
        listing(&ctx, "plain", &format!("{d}/"), None).await;
        let plan = ctx
            .sql("SELECT count(*) FROM plain")
            .await
            .unwrap()
            .logical_plan()
            .clone();
        let err = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap_err();
        assert!(err.to_string().contains("unknown file format"), "{err}");
    });
}

#[test]
fn the_format_round_trips_and_foreign_bytes_are_errors() {
    let ctx = SessionContext::new();
    let task = ctx.task_ctx();
    let codec = NpyLogicalCodec::default();
    let options = NpyOptions {
        column_name: Some("v".to_owned()),
        member: Some("emb".to_owned()),
    };
    let mut buf = Vec::new();
    codec
        .try_encode_file_format(&mut buf, Arc::new(NpyFormatFactory::with_options(options)))
        .unwrap();
    assert!(buf.starts_with(MAGIC));
    let back = codec.try_decode_file_format(&buf, &task).unwrap();
    let back = back.downcast_ref::<NpyFormatFactory>().unwrap();
    assert_eq!(back.options().column_name.as_deref(), Some("v"));
    assert_eq!(back.options().member.as_deref(), Some("emb"));

    // The magic, then bytes that are no message of ours (a field of wire type 7): our error.
    let bad = [&MAGIC[..], &[0x0f, 0xff, 0xff]].concat();
    let err = codec.try_decode_file_format(&bad, &task).unwrap_err();
    assert!(
        matches!(Error::find(&err), Some(Error::Codec { .. })),
        "{err}"
    );
    let physical = NpyPhysicalCodec::default();
    let err = physical
        .try_decode(&bad, &[], &task, &DefaultPhysicalProtoConverter {})
        .unwrap_err();
    assert!(
        matches!(Error::find(&err), Some(Error::Codec { .. })),
        "{err}"
    );
    // A scan message without its file scan config.
    let err = physical
        .try_decode(MAGIC, &[], &task, &DefaultPhysicalProtoConverter {})
        .unwrap_err();
    assert!(
        matches!(Error::find(&err), Some(Error::Codec { .. })),
        "{err}"
    );

    // Bytes without the magic are the inner codec's (DataFusion's default knows no format).
    let err = codec
        .try_decode_file_format(&[0x0a, 0x00], &task)
        .unwrap_err();
    assert!(Error::find(&err).is_none(), "{err}");
}
