//! [`BlockingObject`]: a remote object as a synchronous [`npy_core::ReadAt`], so that
//! npy-core's readers ([`npy_core::NpyReader::open_at`], [`npy_core::TensorInfo`]) run on it.

use std::future::Future;
use std::ops::Range;
use std::sync::{mpsc, Arc, OnceLock};

use bytes::Bytes;
use npy_core::ReadAt;
use object_store::path::Path;
use object_store::ObjectStore;

use crate::error::{RemoteError, RemoteErrorKind};
use crate::remote::{RemoteObject, RemoteOptions};

/// The runtime the blocking calls run their requests on: two worker threads, made on first
/// use and kept for the process (never dropped, so never dropped inside an async context).
fn runtime() -> Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("npy-object-store")
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the I/O runtime: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// A timer of `duration` on this crate's runtime (`None` when it cannot start): made in its
/// context, so that any executor may poll it; the runtime's threads fire it.
pub(crate) fn timer(
    duration: std::time::Duration,
) -> Option<std::pin::Pin<Box<tokio::time::Sleep>>> {
    let rt = runtime().ok()?;
    let _context = rt.enter();
    Some(Box::pin(tokio::time::sleep(duration)))
}

/// Runs `fut` to completion on this crate's runtime and waits for it on the calling thread.
/// Works from any thread, an async runtime's own included (the thread then blocks, as any
/// blocking call does there).
///
/// # Errors
/// `fut`'s errors; [`RemoteErrorKind::Url`] when the runtime cannot start or the request's
/// task is lost.
pub fn block_on<T, F>(url: &str, fut: F) -> Result<T, RemoteError>
where
    T: Send + 'static,
    F: Future<Output = Result<T, RemoteError>> + Send + 'static,
{
    let rt = runtime().map_err(|e| RemoteError::new(url, RemoteErrorKind::Url(e)))?;
    let (tx, rx) = mpsc::sync_channel(1);
    rt.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv().unwrap_or_else(|_| {
        Err(RemoteError::new(
            url,
            RemoteErrorKind::Url("the request's task ended without an answer".into()),
        ))
    })
}

/// A remote object read synchronously by ranged GETs: [`npy_core::ReadAt`] for it.
///
/// Opening sends the first GET ([`RemoteOptions::first_read`] bytes), which gives the size and
/// ETag; reads inside those bytes are answered from memory, so `NpyReader::open_at` on it reads
/// the header with that one GET. Every other `read_at` is one ranged GET (checked as
/// [`RemoteObject`] checks it); [`ReadAt::read_ranges`] is one `get_ranges` call (coalesced) for
/// the ranges outside the first GET's bytes.
/// Errors reach the caller as `std::io::Error`s that hold the [`RemoteError`] (URL and kind).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use npy_core::NpyReader;
/// use npy_object_store::{block_on, BlockingObject, RemoteError, RemoteErrorKind};
/// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
/// let store = Arc::new(InMemory::new());
/// let mut bytes = Vec::new();
/// npy_core::WriteOptions::new().write_to(&mut bytes, &[1u16, 2, 3, 4], &[2, 2])?;
/// let s = Arc::clone(&store);
/// block_on("memory:///a.npy", async move {
///     let put = s.put(&Path::from("a.npy"), bytes.into()).await;
///     put.map(drop).map_err(|e| RemoteError::new("memory:///a.npy", RemoteErrorKind::Store(e)))
/// })?;
///
/// let object = BlockingObject::open(store, "a.npy".into(), "memory:///a.npy")?;
/// let a = NpyReader::open_at(object)?;
/// assert_eq!(a.read_rows::<u16>(1..2)?, [3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct BlockingObject {
    object: Arc<RemoteObject>,
    head: Bytes,
}

impl BlockingObject {
    /// Opens the object at `url` (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`; the store
    /// configured from the environment as [`crate::store_for_url`] does) with the default
    /// options: the one call from a URL to a [`npy_core::ReadAt`].
    ///
    /// # Errors
    /// [`RemoteErrorKind::Url`] for a URL no store reads (a scheme whose feature this build
    /// lacks says which), then as [`RemoteObject::open`].
    ///
    /// # Examples
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("w.npy");
    /// npy_core::write(&path, &[1.0f32, 2.0, 3.0], &[3])?;
    /// let url = format!("file://{}", path.display());
    /// let object = npy_object_store::BlockingObject::open_url(&url)?;
    /// let source = npy_core::NpyReader::open_at(object)?;
    /// assert_eq!(source.shape(), [3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_url(url: &str) -> Result<BlockingObject, RemoteError> {
        let (store, path) = crate::store_for_url(url)?;
        BlockingObject::open(store, path, url)
    }

    /// Opens `path` of `store` with the default options (`url` names it in errors).
    ///
    /// # Errors
    /// As [`RemoteObject::open`].
    pub fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
    ) -> Result<BlockingObject, RemoteError> {
        BlockingObject::open_with(store, path, url, RemoteOptions::default())
    }

    /// [`BlockingObject::open`] with options (first read, retries).
    ///
    /// # Errors
    /// As [`RemoteObject::open`].
    pub fn open_with(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
        options: RemoteOptions,
    ) -> Result<BlockingObject, RemoteError> {
        let url = url.into();
        let (object, head) = block_on(&url.clone(), async move {
            RemoteObject::open_with(store, path, url, &options).await
        })?;
        Ok(BlockingObject {
            object: Arc::new(object),
            head,
        })
    }

    /// The object (URL, size, ETag).
    pub fn object(&self) -> &RemoteObject {
        &self.object
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        self.object.url()
    }

    /// The bytes `range` with one GET (from memory inside the first GET's bytes).
    ///
    /// # Errors
    /// As [`RemoteObject::get`].
    pub fn get(&self, range: Range<u64>) -> Result<Bytes, RemoteError> {
        let held = self.head.len() as u64;
        if range.end <= held && range.start <= range.end {
            return Ok(self.head.slice(range.start as usize..range.end as usize));
        }
        let object = Arc::clone(&self.object);
        block_on(self.object.url(), async move { object.get(range).await })
    }
}

impl ReadAt for BlockingObject {
    /// The size the first response gave.
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.object.size())
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let end = offset
            .saturating_add(buf.len() as u64)
            .min(self.object.size());
        if offset >= end {
            return Ok(0);
        }
        let bytes = self.get(offset..end).map_err(RemoteError::into_io)?;
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(n)
    }

    /// The ranges inside the first GET's bytes from memory, the others with one
    /// `get_ranges` call (coalesced), each clipped to the object's end.
    fn read_ranges(&self, ranges: &[Range<u64>]) -> std::io::Result<Vec<Vec<u8>>> {
        let held = self.head.len() as u64;
        let inside = |r: &Range<u64>| r.start <= r.end && r.end.min(self.object.size()) <= held;
        let wanted: Vec<Range<u64>> = ranges.iter().filter(|r| !inside(r)).cloned().collect();
        let mut got = if wanted.is_empty() {
            Vec::new()
        } else {
            let object = Arc::clone(&self.object);
            block_on(self.object.url(), async move {
                object.get_ranges(&wanted).await
            })
            .map_err(RemoteError::into_io)?
        }
        .into_iter();
        Ok(ranges
            .iter()
            .map(|r| {
                if inside(r) {
                    let end = r.end.min(self.object.size());
                    self.head[r.start.min(end) as usize..end as usize].to_vec()
                } else {
                    got.next().map(|b| b.to_vec()).unwrap_or_default()
                }
            })
            .collect())
    }
}
