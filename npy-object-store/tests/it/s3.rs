//! object_store's S3 client against moto's S3 API (`moto_server` from the project's venv) on
//! 127.0.0.1: a bucket created and filled by the test, `AWS_ALLOW_HTTP` (here: the builder's
//! `allow_http`), the same operations and counts as the in-memory store.

use std::sync::Arc;

use npy_object_store::CountingStore;
use npy_test_support::moto::Moto;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::stores::{exercise_async, exercise_blocking};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moto_s3() {
    let Some(moto) = Moto::start("npy-object-store's S3 test (moto_server)") else {
        return;
    };
    moto.create_bucket("npy-test");
    let endpoint = moto.endpoint();
    let s3 = AmazonS3Builder::new()
        .with_bucket_name("npy-test")
        .with_region("us-east-1")
        .with_endpoint(&endpoint)
        .with_allow_http(true)
        .with_access_key_id("testing")
        .with_secret_access_key("testing")
        .build()
        .unwrap();
    let store = CountingStore::new(s3);
    let counts = store.counts();
    let store: Arc<dyn ObjectStore> = Arc::new(store);
    let s = Arc::clone(&store);
    let put = async |p: &str, b: Vec<u8>| {
        s.put(&Path::from(p), b.into()).await.unwrap();
    };
    exercise_async(Arc::clone(&store), &counts, "s3://npy-test/m.npy", put).await;
    counts.take();
    tokio::task::spawn_blocking(move || exercise_blocking(store, &counts, "s3://npy-test/m.npy"))
        .await
        .unwrap();
    drop(moto);
}

/// No credentials in the configuration: object_store asks AWS's instance metadata service
/// (here a port of 127.0.0.1 nobody listens on, as 169.254.169.254 off the cloud); its
/// failure is [`npy_object_store::RemoteErrorKind::NoCredentials`], naming the URL and the
/// variables to set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_credentials_are_named() {
    use npy_object_store::{RemoteErrorKind, RemoteNpy};
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let s3 = AmazonS3Builder::new()
        .with_bucket_name("nobody")
        .with_region("us-east-1")
        .with_endpoint(format!("http://127.0.0.1:{closed}"))
        .with_allow_http(true)
        .with_metadata_endpoint(format!("http://127.0.0.1:{closed}"))
        .with_retry(crate::common::quick_retry())
        .build()
        .unwrap();
    let url = "s3://nobody/a.npy";
    let err = RemoteNpy::open(Arc::new(s3), "a.npy".into(), url)
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RemoteErrorKind::NoCredentials(_)),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("s3://nobody/a.npy: no credentials")
            && message.contains("AWS_ACCESS_KEY_ID")
            && message.contains("Connection refused"),
        "{message}"
    );
}
