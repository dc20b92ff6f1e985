//! How errors name files and locations: as a user would type them. object_store's paths are
//! relative to their store's root (a local `/tmp/x/a.npy` is `tmp/x/a.npy`, an S3 object has no
//! bucket), so an error naming one would name a file nobody wrote.

use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::object_store::ObjectStoreUrl;
use object_store::path::Path as StorePath;
use object_store::ObjectStore;

/// The name of `location` of the store at `base`: the absolute path for `file://` (object
/// store paths drop the leading `/`), the URL (`s3://bucket/key`) for any other store; the
/// location as the store spells it when the store's URL is unknown.
pub(crate) fn file_name(base: Option<&ObjectStoreUrl>, location: &StorePath) -> String {
    match base {
        // ObjectStoreUrl's path is always `/`: `file:///`, `s3://bucket/`.
        Some(url) if url.as_str().starts_with("file://") => format!("/{location}"),
        Some(url) => format!("{}{location}", url.as_str()),
        None => location.to_string(),
    }
}

/// The URL of `store` among `candidates` and the local file system: the one whose store in
/// `state`'s registry is `store` itself. DataFusion hands a format its store without its URL
/// (`infer_schema`, `infer_stats`); the tables of this crate tell their format their stores'
/// URLs, and any table's local files are found this way.
pub(crate) fn store_url(
    state: &dyn Session,
    store: &Arc<dyn ObjectStore>,
    candidates: &[ObjectStoreUrl],
) -> Option<ObjectStoreUrl> {
    let local = ObjectStoreUrl::local_filesystem();
    candidates
        .iter()
        .chain(std::iter::once(&local))
        .find(|url| {
            state
                .runtime_env()
                .object_store(url)
                .is_ok_and(|s| std::ptr::addr_eq(Arc::as_ptr(&s), Arc::as_ptr(store)))
        })
        .cloned()
}

/// A table location (`ListingTableUrl`) as a user would type it: a local path (absolute,
/// percent-decoded) or the URL, with its glob.
pub(crate) fn location_name(url: &ListingTableUrl) -> String {
    let glob = url.get_glob().as_ref().map_or("", |g| g.as_str());
    let base = match url.get_url().to_file_path() {
        Ok(path) if url.scheme() == "file" => {
            let mut s = path.display().to_string();
            // to_file_path drops a directory's trailing `/`; a glob follows it.
            if url.is_collection() && !s.ends_with('/') {
                s.push('/');
            }
            s
        }
        _ => url.as_str().to_owned(),
    };
    format!("{base}{glob}")
}

/// The refusal of a local `path` (named `name` in the error) that is neither a regular file
/// nor a directory: a FIFO, socket or device, said before anything opens it (DataFusion's
/// listing opens a file to measure it, and opening a FIFO waits for a writer: the query hung).
pub(crate) fn special_file(path: &std::path::Path, name: &str) -> Option<crate::Error> {
    let meta = std::fs::metadata(path).ok()?;
    (!meta.is_file() && !meta.is_dir()).then(|| crate::Error::Unsupported {
        path: name.to_owned(),
        what: "not a regular file or a directory (a FIFO, socket or device); a table is read \
               from .npy files, directories, globs or URLs"
            .to_owned(),
    })
}
