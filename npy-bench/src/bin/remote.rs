//! `remote ENDPOINT BUCKET RUNS`: issue 25's S3 reads against an S3 API (moto, started by
//! `cargo xtask bench --only remote`, which filled `BUCKET` with `xtask/bench_remote.py`):
//!
//! - `whole.npy` (`np.arange(64 Mi, dtype='<u4')`, 256 MiB) read into memory with
//!   `RemoteNpy::read_vec`: parallel ranged GETs of `RemoteOptions::part_bytes` (8 MiB, 8 in
//!   flight), and with one GET of the whole object (`first_read(usize::MAX)`: the opening GET
//!   reads it all);
//! - the headers of `h/0.npy` … `h/999.npy`, opened concurrently (64 in flight), one GET each.
//!
//! `remote http BASE RUNS` (issue 42): the headers of `BASE/h/0.npy` … `BASE/h/999.npy` on an
//! HTTP server that serves requests concurrently (the project's range server, started by the
//! bench with a fixed delay per request), the same client opening them 64 in flight and one
//! at a time; prints `{"concurrent": {"seconds", "gets"}, "sequential": {...}}` (median of
//! `RUNS`, each run's shapes checked as below).
//!
//! Each is run `RUNS` times; prints JSON `{"whole": {"seconds", "gets", "bytes"}, "whole_one_get":
//! {...}, "headers": {...}}` with the median time and the GETs and bytes of one run, after checking the values
//! against the arrays the script wrote (every element of `whole.npy`, each header's shape).

use std::sync::Arc;
use std::time::Instant;

use futures_util::{StreamExt, TryStreamExt};
use npy_object_store::{CountingStore, RemoteNpy, RemoteOptions};
use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;

/// Members of the header set, as `bench_remote.py` writes them.
const HEADERS: usize = 1000;
/// Elements of `whole.npy`.
const WHOLE: usize = 64 << 20;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, base, runs] = &args[..] {
        if mode == "http" {
            return http(base, runs);
        }
    }
    let [_, endpoint, bucket, runs] = &args[..] else {
        return Err("usage: remote ENDPOINT BUCKET RUNS".into());
    };
    let runs: usize = runs.parse().map_err(|e| format!("RUNS: {e}"))?;
    let s3 = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_region("us-east-1")
        .with_endpoint(endpoint)
        .with_allow_http(true)
        .with_access_key_id("testing")
        .with_secret_access_key("testing")
        .build()
        .map_err(|e| e.to_string())?;
    let counting = CountingStore::new(s3);
    let counts = counting.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(counting);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let url = |key: &str| format!("s3://{bucket}/{key}");

    // 8 MiB parts, 8 in flight (the default); and one GET of the whole object, what a server
    // that reads the whole object for every ranged GET (moto) rewards.
    let mut whole = [Vec::new(), Vec::new()];
    let mut whole_counts = [None, None];
    for (k, options) in [
        RemoteOptions::default(),
        RemoteOptions::default().first_read(usize::MAX),
    ]
    .into_iter()
    .enumerate()
    {
        for _ in 0..runs {
            counts.take();
            let start = Instant::now();
            let values = rt.block_on(async {
                let a = RemoteNpy::open_with(
                    Arc::clone(&store),
                    "whole.npy".into(),
                    url("whole.npy"),
                    options,
                )
                .await?;
                a.read_vec::<u32>().await
            });
            let values = values.map_err(|e| e.to_string())?;
            whole[k].push(start.elapsed().as_secs_f64());
            whole_counts[k] = Some(counts.take());
            if values.len() != WHOLE || values.iter().enumerate().any(|(i, &v)| v as usize != i) {
                return Err("whole.npy: not np.arange(64 Mi, dtype='<u4')".into());
            }
        }
    }

    let mut headers = Vec::new();
    let mut header_counts = None;
    for _ in 0..runs {
        counts.take();
        let start = Instant::now();
        let shapes = rt.block_on(
            futures_util::stream::iter(0..HEADERS)
                .map(|i| {
                    let store = Arc::clone(&store);
                    let key = format!("h/{i}.npy");
                    let url = url(&key);
                    async move {
                        let a = RemoteNpy::open(store, key.as_str().into(), url).await?;
                        Ok::<_, npy_object_store::RemoteError>((i, a.shape().to_vec()))
                    }
                })
                .buffer_unordered(64)
                .try_collect::<Vec<_>>(),
        );
        let shapes = shapes.map_err(|e| e.to_string())?;
        headers.push(start.elapsed().as_secs_f64());
        header_counts = Some(counts.take());
        // bench_remote.py: h/{i}.npy holds an array of shape (i % 7 + 1, 3).
        if shapes.len() != HEADERS || shapes.iter().any(|(i, s)| s[..] != [(i % 7 + 1) as u64, 3]) {
            return Err("h/*.npy: shapes other than the script wrote".into());
        }
    }
    let h = header_counts.unwrap_or_default();
    let [w, w1] = whole_counts.map(Option::unwrap_or_default);
    let [mut parts, mut one] = whole;
    println!(
        "{{\"whole\": {{\"seconds\": {}, \"gets\": {}, \"bytes\": {}}}, \
         \"whole_one_get\": {{\"seconds\": {}, \"gets\": {}, \"bytes\": {}}}, \
         \"headers\": {{\"seconds\": {}, \"gets\": {}, \"bytes\": {}}}}}",
        median(&mut parts),
        w.gets,
        w.bytes,
        median(&mut one),
        w1.gets,
        w1.bytes,
        median(&mut headers),
        h.gets,
        h.bytes
    );
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Opens the `HEADERS` objects `h/{i}.npy` of `store` (URLs under `base`), `in_flight` at a
/// time, and checks their shapes.
fn open_headers(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    base: &str,
    in_flight: usize,
) -> Result<(), String> {
    let shapes = rt.block_on(
        futures_util::stream::iter(0..HEADERS)
            .map(|i| {
                let store = Arc::clone(store);
                let key = format!("h/{i}.npy");
                let url = format!("{base}/{key}");
                async move {
                    let a = RemoteNpy::open(store, key.as_str().into(), url).await?;
                    Ok::<_, npy_object_store::RemoteError>((i, a.shape().to_vec()))
                }
            })
            .buffer_unordered(in_flight)
            .try_collect::<Vec<_>>(),
    );
    let shapes = shapes.map_err(|e| e.to_string())?;
    if shapes.len() != HEADERS || shapes.iter().any(|(i, s)| s[..] != [(i % 7 + 1) as u64, 3]) {
        return Err("h/*.npy: shapes other than the bench wrote".into());
    }
    Ok(())
}

/// `remote http BASE RUNS`: see the module docs. The two sides alternate run by run, on one
/// client (one connection pool), so that both meet the same server and load.
fn http(base: &str, runs: &str) -> Result<(), String> {
    let runs: usize = runs.parse().map_err(|e| format!("RUNS: {e}"))?;
    let http = object_store::http::HttpBuilder::new()
        .with_url(base)
        .with_client_options(object_store::ClientOptions::new().with_allow_http(true))
        .build()
        .map_err(|e| e.to_string())?;
    let counting = CountingStore::new(http);
    let counts = counting.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(counting);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    // A first pass opens the connections both sides then reuse.
    open_headers(&rt, &store, base, 64)?;
    let mut times = [Vec::new(), Vec::new()];
    let mut gets = [0, 0];
    for _ in 0..runs {
        for (k, in_flight) in [64, 1].into_iter().enumerate() {
            counts.take();
            let start = Instant::now();
            open_headers(&rt, &store, base, in_flight)?;
            times[k].push(start.elapsed().as_secs_f64());
            gets[k] = counts.take().gets;
        }
    }
    let [mut concurrent, mut sequential] = times;
    println!(
        "{{\"concurrent\": {{\"seconds\": {}, \"gets\": {}, \"in_flight\": 64}}, \
         \"sequential\": {{\"seconds\": {}, \"gets\": {}, \"in_flight\": 1}}}}",
        median(&mut concurrent),
        gets[0],
        median(&mut sequential),
        gets[1]
    );
    Ok(())
}
