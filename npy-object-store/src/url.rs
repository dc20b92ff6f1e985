//! Opening a URL: the store for its scheme, configured from the environment.

use std::sync::Arc;

use object_store::path::Path;
use object_store::ObjectStore;
use url::Url;

use crate::error::{classify, RemoteError, RemoteErrorKind};

/// Whether `s` is a URL this crate opens (`s3://`, `s3a://`, `gs://`, `az://`, `abfs://`,
/// `abfss://`, `adl://`, `azure://`, `http://`, `https://`, `file://`, `memory://`), rather than
/// a local path. Only the scheme is looked at.
///
/// # Examples
/// ```
/// assert!(npy_object_store::is_url("s3://bucket/a.npy"));
/// assert!(npy_object_store::is_url("https://example.org/a.npy"));
/// assert!(!npy_object_store::is_url("data/a.npy"));
/// assert!(!npy_object_store::is_url("C:/data/a.npy"));
/// ```
pub fn is_url(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once("://") else {
        return false;
    };
    matches!(
        scheme.to_ascii_lowercase().as_str(),
        "s3" | "s3a"
            | "gs"
            | "az"
            | "abfs"
            | "abfss"
            | "adl"
            | "azure"
            | "http"
            | "https"
            | "file"
            | "memory"
    )
}

/// The store and path for `url`, with the store configured from the process's environment as
/// object_store's builders read it (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `GOOGLE_SERVICE_ACCOUNT`,
/// `AZURE_STORAGE_ACCOUNT_NAME`, …); an `http://` URL allows plain HTTP. A scheme whose backend feature was not built is
/// [`RemoteErrorKind::Url`], naming the feature.
///
/// # Errors
/// [`RemoteErrorKind::Url`] for a malformed URL or a backend not built; the builder's
/// configuration errors.
///
/// # Examples
/// ```
/// let (_store, path) = npy_object_store::store_for_url("file:///tmp/a.npy")?;
/// assert_eq!(path.as_ref(), "tmp/a.npy");
/// # Ok::<(), npy_object_store::RemoteError>(())
/// ```
pub fn store_for_url(url: &str) -> Result<(Arc<dyn ObjectStore>, Path), RemoteError> {
    let bad = |m: String| RemoteError::new(url, RemoteErrorKind::Url(m));
    let parsed = Url::parse(url).map_err(|e| bad(format!("not a URL: {e}")))?;
    let feature = match parsed.scheme() {
        "s3" | "s3a" => Some("aws"),
        "gs" => Some("gcp"),
        "az" | "abfs" | "abfss" | "adl" | "azure" => Some("azure"),
        "http" | "https" => Some("http"),
        _ => None,
    };
    let built = match feature {
        Some("aws") => cfg!(feature = "aws"),
        Some("gcp") => cfg!(feature = "gcp"),
        Some("azure") => cfg!(feature = "azure"),
        Some("http") => cfg!(feature = "http"),
        _ => true,
    };
    if let (Some(feature), false) = (feature, built) {
        return Err(bad(format!(
            "{}:// needs npy-object-store's feature `{feature}`, not built here",
            parsed.scheme()
        )));
    }
    // Keys object_store's builders understand are their environment variables' names,
    // lower-cased; other variables are ignored by them.
    let mut env: Vec<(String, String)> = std::env::vars()
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
        .collect();
    if parsed.scheme() == "http" {
        // An http:// URL asks for plain HTTP: the client refuses it unless allowed.
        env.push(("allow_http".into(), "true".into()));
    }
    let (store, path) = object_store::parse_url_opts(&parsed, env)
        .map_err(|e| RemoteError::new(url, classify(e, None)))?;
    Ok((Arc::from(store), path))
}
