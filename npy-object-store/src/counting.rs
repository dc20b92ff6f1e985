//! [`CountingStore`]: a store wrapper that counts requests and the bytes they carried.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// Requests and bytes counted by a [`CountingStore`].
#[derive(Debug, Default)]
pub struct Counts {
    gets: AtomicU64,
    heads: AtomicU64,
    bytes: AtomicU64,
}

/// A snapshot of [`Counts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// GET requests (ranged or not) that returned a response.
    pub gets: u64,
    /// HEAD requests (`head`, or a GET with `head: true`).
    pub heads: u64,
    /// Body bytes handed out by those GETs.
    pub bytes: u64,
}

impl Counts {
    /// The counts now.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            gets: self.gets.load(Ordering::Relaxed),
            heads: self.heads.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// The counts now, set back to zero.
    pub fn take(&self) -> Snapshot {
        Snapshot {
            gets: self.gets.swap(0, Ordering::Relaxed),
            heads: self.heads.swap(0, Ordering::Relaxed),
            bytes: self.bytes.swap(0, Ordering::Relaxed),
        }
    }
}

/// Wraps a store and counts every GET and HEAD it serves and the body bytes read from them;
/// `get_ranges` is object_store's coalescing default over the counted GETs, so a test sees how
/// many requests a set of ranges became.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use npy_object_store::CountingStore;
/// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
/// let store = CountingStore::new(InMemory::new());
/// let counts = store.counts();
/// store.put(&Path::from("x"), vec![0u8; 100].into()).await?;
/// store.get_range(&Path::from("x"), 10..20).await?;
/// assert_eq!(counts.snapshot().gets, 1);
/// assert_eq!(counts.snapshot().bytes, 10);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct CountingStore<S> {
    inner: S,
    counts: Arc<Counts>,
}

impl<S: ObjectStore> CountingStore<S> {
    /// Counts the requests to `inner`.
    pub fn new(inner: S) -> Self {
        CountingStore {
            inner,
            counts: Arc::new(Counts::default()),
        }
    }

    /// The counters (shared: they go on counting after the store is moved).
    pub fn counts(&self) -> Arc<Counts> {
        Arc::clone(&self.counts)
    }
}

impl<S: ObjectStore> fmt::Display for CountingStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counting({})", self.inner)
    }
}

#[async_trait]
impl<S: ObjectStore> ObjectStore for CountingStore<S> {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let head = options.head;
        let result = self.inner.get_opts(location, options).await?;
        if head {
            self.counts.heads.fetch_add(1, Ordering::Relaxed);
            return Ok(result);
        }
        self.counts.gets.fetch_add(1, Ordering::Relaxed);
        let counts = Arc::clone(&self.counts);
        let GetResult {
            payload,
            meta,
            range,
            attributes,
            extensions,
        } = result;
        let stream = match payload {
            GetResultPayload::Stream(s) => s,
            // A local file: read in chunks, so its bytes are counted as they are read.
            file @ GetResultPayload::File(..) => GetResult {
                payload: file,
                meta: meta.clone(),
                range: range.clone(),
                attributes: attributes.clone(),
                extensions: extensions.clone(),
            }
            .into_stream(),
        };
        let stream = stream
            .map(move |chunk: Result<Bytes>| {
                if let Ok(b) = &chunk {
                    counts.bytes.fetch_add(b.len() as u64, Ordering::Relaxed);
                }
                chunk
            })
            .boxed();
        Ok(GetResult {
            payload: GetResultPayload::Stream(stream),
            meta,
            range,
            attributes,
            extensions,
        })
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
