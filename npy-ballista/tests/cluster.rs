//! A Ballista scheduler and two executors answer SQL over `.npy` shards as numpy does: numpy
//! writes every shard and computes every expected answer; the cluster is the example's
//! (`examples/cluster.rs`): `npy_ballista::{session_state, start_cluster, connect,
//! register_shards, query}`.

use std::time::Duration;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::json::writer::{JsonArray, WriterBuilder};
use datafusion::prelude::SessionConfig;
use npy_datafusion::NpyOptions;
use npy_test_support::python::{python_for, run_script};
use serde_json::Value;

/// The batches' rows as JSON objects.
fn rows(batches: &[RecordBatch]) -> Vec<Value> {
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

fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * y.abs().max(1.0),
        _ => a == b,
    }
}

fn assert_rows_close(ours: &[Value], numpy: &Value, what: &str) {
    let numpy = numpy.as_array().unwrap();
    assert_eq!(ours.len(), numpy.len(), "{what}: {ours:?} vs {numpy:?}");
    for (o, n) in ours.iter().zip(numpy) {
        let (o, n) = (o.as_object().unwrap(), n.as_object().unwrap());
        assert_eq!(o.len(), n.len(), "{what}: {o:?} vs {n:?}");
        for (k, v) in n {
            assert!(
                close(&o[k], v),
                "{what}: column {k}: ours {} numpy {v}",
                o[k]
            );
        }
    }
}

/// Shards of a record (one big-endian, one empty), a plain N-d array's shards, and numpy's
/// answers: a group-by, a filtered sum, the first rows by id, and sums of the N-d rows' first
/// and last elements (a row is a flat list in C order: `emb[6]` is `e[:, 1, 2]`).
const SHARDS: &str = r"
import sys, os, json, numpy as np
d = sys.argv[1]
os.makedirs(f'{d}/rec'); os.makedirs(f'{d}/emb')
dt = [('id','<i8'), ('label','<i4'), ('score','<f8'), ('name','<U6')]
rng = np.random.default_rng(41)
parts = []
for k, n in enumerate([5000, 0, 7001, 3333]):
    a = np.zeros(n, dtype=dt)
    a['id'] = np.arange(n) + 100_000 * k
    a['label'] = rng.integers(0, 4, n)
    a['score'] = rng.random(n)
    a['name'] = [f'n{i % 7}' for i in range(n)]
    if k == 2:
        a = a.astype([(f, t.replace('<', '>')) for f, t in dt])
    np.save(f'{d}/rec/part-{k}.npy', a)
    parts.append(a.astype(dt))
a = np.concatenate(parts)
group = []
for lab in sorted(set(a['label'].tolist())):
    m = a['label'] == lab
    group.append({'label': int(lab), 'n': int(m.sum()), 's': int(a['id'][m].sum()),
                  'avg_score': float(a['score'][m].mean()), 'max_name': max(a['name'][m].tolist())})
m = a['score'] > 0.5
filtered = [{'n': int(m.sum()), 's': int(a['id'][m].sum())}]
o = np.sort(a['id'])[:5]
first = [{'id': int(i)} for i in o]
e = np.arange(6 * 1000, dtype=np.float32).reshape(1000, 2, 3) / 7
np.save(f'{d}/emb/e-0.npy', e[:400]); np.save(f'{d}/emb/e-1.npy', np.asfortranarray(e[400:]))
emb = [{'n': 1000, 'first': float(e[:, 0, 0].astype(np.float64).sum()),
        'last': float(e[:, 1, 2].astype(np.float64).sum())}]
print(json.dumps({'group': group, 'filtered': filtered, 'first': first, 'emb': emb}))
";

#[test]
fn a_scheduler_and_two_executors_answer_as_numpy() {
    let Some(python) = python_for("SQL over .npy shards on a Ballista cluster against numpy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let want: Value = serde_json::from_str(&run_script(&python, SHARDS, [dir.path()])).unwrap();
    let d = dir.path().display().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // Small batches and 4 partitions: the shards are split into byte ranges, so the
        // executors receive scans of parts of files.
        let config = SessionConfig::new()
            .with_target_partitions(4)
            .with_batch_size(1000)
            .with_repartition_file_scans(true)
            .with_repartition_file_min_size(4096);
        let state = npy_ballista::session_state(config).unwrap();
        let scheduler = npy_ballista::start_cluster(&state, 2).await.unwrap();
        let ctx = npy_ballista::connect(scheduler, state).await.unwrap();
        npy_ballista::register_shards(&ctx, "rec", &format!("{d}/rec/"), NpyOptions::default())
            .await
            .unwrap();
        // The other table by SQL (npy-datafusion's table factory).
        ctx.sql(&format!(
            "CREATE EXTERNAL TABLE emb STORED AS NPY LOCATION '{d}/emb/' \
             OPTIONS ('format.column_name' 'emb')"
        ))
        .await
        .unwrap();

        let run = |sql: &'static str| {
            let ctx = ctx.clone();
            async move { rows(&npy_ballista::query(&ctx, sql).await.unwrap()) }
        };
        let got = run(
            "SELECT label, count(*) AS n, sum(id) AS s, avg(score) AS avg_score, \
                       max(name) AS max_name FROM rec GROUP BY label ORDER BY label",
        )
        .await;
        assert_rows_close(&got, &want["group"], "group-by");
        let got = run("SELECT count(*) AS n, sum(id) AS s FROM rec WHERE score > 0.5").await;
        assert_rows_close(&got, &want["filtered"], "filtered sum");
        let got = run("SELECT id FROM rec ORDER BY id LIMIT 5").await;
        assert_rows_close(&got, &want["first"], "first rows");
        let got = run(
            "SELECT count(*) AS n, sum(CAST(emb[1] AS DOUBLE)) AS first, \
                       sum(CAST(emb[6] AS DOUBLE)) AS last FROM emb",
        )
        .await;
        assert_rows_close(&got, &want["emb"], "N-d rows, one shard in Fortran order");
    });
}

/// The codecs are what carries the table and the scans: with Ballista's own physical codec on
/// the scheduler, the `.npy` scan cannot be sent to an executor and the query fails; with
/// Ballista's own logical codec on the client, the table cannot leave it.
#[test]
fn without_the_codecs_the_scan_does_not_reach_the_executors() {
    use ballista_core::extension::SessionConfigExt;
    use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
    use datafusion::execution::{SessionState, SessionStateBuilder};
    use std::sync::Arc;

    // `npy_ballista::session_state` would put npy-datafusion's codecs back.
    fn plain_state(config: SessionConfig) -> SessionState {
        SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .build()
    }

    let dir = tempfile::tempdir().unwrap();
    npy_core::write(dir.path().join("a.npy"), &[1i64, 2, 3], &[3u64]).unwrap();
    let d = dir.path().display().to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let sql = "SELECT sum(a) AS s FROM t";
        let options = || NpyOptions {
            column_name: Some("a".to_owned()),
            ..NpyOptions::default()
        };
        // Our logical codec, Ballista's physical one: the scheduler plans, then cannot send.
        let config = npy_ballista::ballista_config(SessionConfig::new())
            .with_ballista_physical_extension_codec(Arc::new(
                BallistaPhysicalExtensionCodec::default(),
            ));
        let state = plain_state(config);
        let scheduler = npy_ballista::start_cluster(&state, 2).await.unwrap();
        let ctx = npy_ballista::connect(scheduler, state).await.unwrap();
        npy_ballista::register_shards(&ctx, "t", &format!("{d}/"), options())
            .await
            .unwrap();
        let answer = tokio::time::timeout(Duration::from_mins(2), npy_ballista::query(&ctx, sql))
            .await
            .expect("the failed job is reported");
        let err = answer.unwrap_err().to_string();
        assert!(
            err.contains("Unsupported plan node") && err.contains("a.npy"),
            "{err}"
        );

        // Ballista's logical codec: the client cannot send the table.
        let config = npy_ballista::ballista_config(SessionConfig::new())
            .with_ballista_logical_extension_codec(Arc::new(
                BallistaLogicalExtensionCodec::default(),
            ));
        let ctx = npy_ballista::connect(scheduler, plain_state(config))
            .await
            .unwrap();
        npy_ballista::register_shards(&ctx, "t", &format!("{d}/"), options())
            .await
            .unwrap();
        let err = npy_ballista::query(&ctx, sql)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("Error serializing custom table"), "{err}");
    });
}
