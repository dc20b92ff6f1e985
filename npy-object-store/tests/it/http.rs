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
