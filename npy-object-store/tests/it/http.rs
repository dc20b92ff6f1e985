//! object_store's HTTP store against the range server of `npy_test_support` on 127.0.0.1: the
//! same operations and counts as the in-memory store, then each fault switch.

use std::sync::Arc;
use std::time::Duration;

use npy_object_store::{CountingStore, RemoteErrorKind, RemoteNpy, RemoteOptions};
use npy_test_support::range_server::RangeServer;
use object_store::http::{HttpBuilder, HttpStore};
use object_store::{ClientOptions, ObjectStore};
use std::sync::atomic::Ordering;

use crate::common::npy;
use crate::stores::{exercise_async, exercise_blocking};

/// object_store's HTTP client for `server`: one retry of its own, short backoff, `timeout` a
/// request.
fn http_store(server: &RangeServer, timeout: Duration) -> HttpStore {
    HttpBuilder::new()
        .with_url(server.base())
        .with_client_options(
            ClientOptions::new()
                .with_allow_http(true)
                .with_timeout(timeout),
        )
        .with_retry(crate::common::quick_retry())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_range_server() {
    let server = RangeServer::start();
    let store = CountingStore::new(http_store(&server, Duration::from_secs(10)));
    let counts = store.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(store);
    let url = server.url("m.npy");
    let put = async |p: &str, b: Vec<u8>| server.put(p, b);
    exercise_async(Arc::clone(&store), &counts, &url, put).await;
    counts.take();
    let u = url.clone();
    tokio::task::spawn_blocking(move || exercise_blocking(store, &counts, &u))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_faults_are_typed_and_bounded() {
    let server = RangeServer::start();
    let data: Vec<u32> = (0..250_000).collect();
    server.put("a.npy", npy(&data, &[250_000]));
    let url = server.url("a.npy");
    let store: Arc<dyn ObjectStore> = Arc::new(http_store(&server, Duration::from_secs(10)));
    let open =
        |o: RemoteOptions| RemoteNpy::open_with(Arc::clone(&store), "a.npy".into(), url.clone(), o);
    let opts = RemoteOptions::default().retries(1);
    let f = server.faults();

    // A server that ignores Range: refused at the status line, one request.
    f.ignore_range.store(true, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::RangeIgnored), "{e}");
    assert!(e.to_string().starts_with(&url), "{e}");
    assert_eq!(server.take_requests(), 1);
    f.ignore_range.store(false, Ordering::SeqCst);

    // A Content-Range other than asked.
    f.wrong_content_range.store(true, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    assert!(
        matches!(e.kind(), RemoteErrorKind::RangeMismatch { .. }),
        "{e}"
    );
    assert_eq!(server.take_requests(), 1);
    f.wrong_content_range.store(false, Ordering::SeqCst);

    // r14 (issue 42, F14 item 4): a Content-Range total smaller than the bytes sent is named
    // as such, not as object_store's clipped range ("the server sent 0..208: Requested 0..16").
    f.content_range_total.store(16, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    match e.kind() {
        RemoteErrorKind::RangeMismatch { actual, .. } => {
            assert!(
                actual.ends_with("its Content-Range says the object holds 16 bytes"),
                "{e}"
            );
            assert!(!actual.contains("Requested"), "{e}");
        }
        other => panic!("{other:?}: {e}"),
    }
    f.content_range_total.store(0, Ordering::SeqCst);
    server.take_requests();

    // 403 and 404: typed, not retried.
    f.status.store(403, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::Denied(_)), "{e}");
    assert_eq!(server.take_requests(), 1);
    f.status.store(404, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::NotFound), "{e}");
    assert_eq!(server.take_requests(), 1);
    // 500: object_store's one retry, then ours (retries(1)): 4 requests in all.
    f.status.store(500, Ordering::SeqCst);
    let e = open(opts).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::Store(_)), "{e}");
    assert_eq!(server.take_requests(), 4);
    f.status.store(0, Ordering::SeqCst);

    // One body cut mid-stream: object_store resumes it with a ranged GET of the rest.
    let a = open(opts).await.unwrap();
    server.take_requests();
    f.truncate_next.store(1, Ordering::SeqCst);
    assert_eq!(
        a.read_range::<u32>(100_000..200_000).await.unwrap(),
        data[100_000..200_000]
    );
    assert_eq!(server.take_requests(), 2);
    // Every body cut: an error after a bounded number of requests.
    f.truncate_next.store(1000, Ordering::SeqCst);
    let e = a.read_range::<u32>(100_000..200_000).await.unwrap_err();
    let sent = server.take_requests();
    assert!((2..=8).contains(&sent), "{sent} requests: {e}");
    assert!(e.is_transient(), "{e}");
    f.truncate_next.store(0, Ordering::SeqCst);

    // The object changes after opening: If-Match is answered 412.
    f.change_etag.store(true, Ordering::SeqCst);
    let e = a.read_range::<u32>(200_000..200_001).await.unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::Changed(_)), "{e}");
    f.change_etag.store(false, Ordering::SeqCst);
    server.take_requests();

    // A stalled server: Timeout, after object_store's retry and ours.
    let slow: Arc<dyn ObjectStore> = Arc::new(http_store(&server, Duration::from_millis(300)));
    f.stall_ms.store(1500, Ordering::SeqCst);
    let e = RemoteNpy::open_with(slow, "a.npy".into(), url.clone(), opts)
        .await
        .unwrap_err();
    f.stall_ms.store(0, Ordering::SeqCst);
    assert!(matches!(e.kind(), RemoteErrorKind::Timeout(_)), "{e}");
    let sent = server.take_requests();
    assert!((1..=4).contains(&sent), "{sent} requests");
}

/// A port nobody listens on: the store's connection error becomes
/// [`RemoteErrorKind::Unreachable`], naming the URL and saying what to check, not retried by
/// this crate beyond the store's own retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_is_unreachable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let store = HttpBuilder::new()
        .with_url(&base)
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .with_retry(crate::common::quick_retry())
        .build()
        .unwrap();
    let url = format!("{base}/a.npy");
    let err = RemoteNpy::open(Arc::new(store), "a.npy".into(), url.as_str())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RemoteErrorKind::Unreachable(_)),
        "{err:?}"
    );
    assert!(!err.is_transient());
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{url}: cannot connect to the server"))
            && message.contains("AWS_ENDPOINT_URL")
            && message.contains("Connection refused"),
        "{message}"
    );
}

/// Issue 42, F10 (case r10): a server that answers at once and then sends its body a byte a
/// second held a read for minutes (object_store's 30 s timeout per GET, its resumed ranges and
/// this crate's retries). The read's time budget ends it, naming the URL and the budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_drips_ends_at_the_time_budget() {
    let server = RangeServer::start();
    let data: Vec<f64> = (0..10).map(f64::from).collect();
    server.put("small.npy", npy(&data, &[10]));
    let url = server.url("small.npy");
    let store: Arc<dyn ObjectStore> = Arc::new(http_store(&server, Duration::from_secs(30)));
    server
        .faults()
        .drip_bytes_per_sec
        .store(1, Ordering::SeqCst);
    let opts = RemoteOptions::default().request_timeout(Duration::from_secs(2));
    let t0 = std::time::Instant::now();
    let e = RemoteNpy::open_with(Arc::clone(&store), "small.npy".into(), url.clone(), opts)
        .await
        .unwrap_err();
    let took = t0.elapsed();
    assert!(
        matches!(e.kind(), RemoteErrorKind::TimeBudget(d) if *d == Duration::from_secs(2)),
        "{e}"
    );
    assert!(!e.is_transient(), "{e}");
    let message = e.to_string();
    assert!(
        message.starts_with(&url) && message.contains("time budget of 2 s"),
        "{message}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(server.take_requests(), 1);

    // The blocking face keeps the same budget.
    let u = url.clone();
    let e = tokio::task::spawn_blocking(move || {
        npy_object_store::BlockingObject::open_with(store, "small.npy".into(), u, opts)
    })
    .await
    .unwrap()
    .unwrap_err();
    assert!(matches!(e.kind(), RemoteErrorKind::TimeBudget(_)), "{e}");

    // The same server at full speed: read within the budget.
    server
        .faults()
        .drip_bytes_per_sec
        .store(0, Ordering::SeqCst);
    let store: Arc<dyn ObjectStore> = Arc::new(http_store(&server, Duration::from_secs(30)));
    let a = RemoteNpy::open_with(store, "small.npy".into(), url, opts)
        .await
        .unwrap();
    assert_eq!(a.read_vec::<f64>().await.unwrap(), data);
}

/// Issue 42, F11 (case r11): an object without an ETag that changes between two ranged GETs
/// (same size, a later `Last-Modified`) was read torn, half of each version. Its date is pinned
/// by the first response: `If-Unmodified-Since` on every later GET (a 412 from a server that
/// honours it), and the response's date compared (a server that ignores it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_without_etag_that_changes_is_refused() {
    let server = RangeServer::start();
    let v1: Vec<f64> = (0..1 << 20).map(f64::from).collect();
    let v2: Vec<f64> = v1.iter().map(|v| -v).collect();
    let store: Arc<dyn ObjectStore> = Arc::new(http_store(&server, Duration::from_secs(10)));
    let url = server.url("big.npy");
    let f = server.faults();
    f.no_etag.store(true, Ordering::SeqCst);
    let last = (1 << 20) - 3..1 << 20;
    for ignore in [false, true] {
        f.ignore_conditions.store(ignore, Ordering::SeqCst);
        server.put("big.npy", npy(&v1, &[1 << 20]));
        let a = RemoteNpy::open_with(
            Arc::clone(&store),
            "big.npy".into(),
            url.clone(),
            RemoteOptions::default().retries(0),
        )
        .await
        .unwrap();
        assert_eq!(a.object().etag(), None);
        // Unchanged: read as it is (the date condition holds).
        assert_eq!(
            a.read_range::<f64>(last.clone()).await.unwrap(),
            v1[last.start as usize..]
        );
        assert_eq!(
            a.read_ranges::<f64>(&[0..2, last.clone()]).await.unwrap()[1],
            v1[last.start as usize..]
        );
        server.put("big.npy", npy(&v2, &[1 << 20]));
        for e in [
            a.read_range::<f64>(last.clone()).await.unwrap_err(),
            a.read_ranges::<f64>(&[0..2, 100_000..100_002])
                .await
                .unwrap_err(),
            a.read_vec::<f64>().await.unwrap_err(),
        ] {
            assert!(matches!(e.kind(), RemoteErrorKind::Changed(_)), "{e}");
            let message = e.to_string();
            assert!(
                message.starts_with(&url)
                    && message.contains("the object changed while being read"),
                "{message}"
            );
            if ignore {
                assert!(message.contains("Last-Modified"), "{message}");
            }
        }
    }
}
