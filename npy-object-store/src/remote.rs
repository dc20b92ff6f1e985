//! [`RemoteNpy`]: a `.npy` object read by ranged GETs, asynchronously.

use std::future::Future;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{StreamExt, TryStreamExt};
use npy_core::{
    __private::{header_extent, FetchedRange},
    header::ParsedHeader,
    read::{ArrayMeta, Positional},
    DynArray, DynValue, Header, NpyArray, NpyElement, NpyReader, ReadOptions,
};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore};

use crate::error::{classify, RemoteError, RemoteErrorKind};

/// How a remote array is read: the `.npy` read options, the first GET's size, retries and the
/// parallel parts of whole-array reads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// Header limits, strict bools, casting, hint ([`ReadOptions`]).
    pub read: ReadOptions,
    /// Bytes of the first GET ([`npy_core::__private::FIRST_READ_BYTES`], 64 KiB): the header and the
    /// first rows, which later reads take from memory. `usize::MAX` sends the first GET
    /// without a `Range` and reads the whole object with it, so that a whole-array read
    /// sends no other GET: what a server that reads the whole object for every ranged GET
    /// (moto) or a small object rewards; memory is then the object's size, which the caller
    /// asked for.
    pub first_read: usize,
    /// How many times a GET that failed transiently (a short body, a reset, a timeout) is
    /// sent again, beyond the store's own retries (default 2).
    pub retries: u32,
    /// Bytes of each part of a whole-array read (default 8 MiB).
    pub part_bytes: u64,
    /// Parts of a whole-array read in flight at once (default 8).
    pub concurrency: usize,
    /// The most time one read of the object may take, from its request to the last byte of
    /// its body, the store's and this crate's retries included
    /// ([`DEFAULT_REQUEST_TIMEOUT`], 60 s): a server that answers slowly (a byte a second)
    /// gets [`RemoteErrorKind::TimeBudget`] then, whatever its headers promise.
    pub request_timeout: Duration,
}

/// [`RemoteOptions::request_timeout`]'s default: 60 s for one read (the first GET, a row range,
/// one part of a whole-array read of [`RemoteOptions::part_bytes`]), time for 8 MiB at
/// 140 KB/s.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            read: ReadOptions::default(),
            first_read: npy_core::__private::FIRST_READ_BYTES,
            retries: 2,
            part_bytes: 8 << 20,
            concurrency: 8,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

impl RemoteOptions {
    /// [`RemoteOptions::read`].
    #[must_use]
    pub fn read(mut self, read: ReadOptions) -> Self {
        self.read = read;
        self
    }

    /// [`RemoteOptions::first_read`] (at least 16 bytes are read; `usize::MAX`: the whole
    /// object in one GET).
    #[must_use]
    pub fn first_read(mut self, bytes: usize) -> Self {
        self.first_read = bytes.max(16);
        self
    }

    /// [`RemoteOptions::retries`].
    #[must_use]
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// [`RemoteOptions::part_bytes`] (at least 1).
    #[must_use]
    pub fn part_bytes(mut self, bytes: u64) -> Self {
        self.part_bytes = bytes.max(1);
        self
    }

    /// [`RemoteOptions::concurrency`] (at least 1).
    #[must_use]
    pub fn concurrency(mut self, parts: usize) -> Self {
        self.concurrency = parts.max(1);
        self
    }

    /// [`RemoteOptions::request_timeout`] (at least 1 ms).
    #[must_use]
    pub fn request_timeout(mut self, budget: Duration) -> Self {
        self.request_timeout = budget.max(Duration::from_millis(1));
        self
    }
}

/// One object of a store, read by ranged GETs: the GET behind every read, checked.
///
/// Every response is checked against its request: a `200` to a ranged GET (a server that
/// ignores `Range`) is refused before its body is read; another range than the one asked for,
/// a short body, or more bytes than asked are errors. The first response pins the object's
/// version: every later GET carries `If-Match` with its ETag, or, when it had none,
/// `If-Unmodified-Since` with its `Last-Modified`, and a response of another ETag, date or
/// size is [`RemoteErrorKind::Changed`] (a server that ignores the condition included). An
/// object with neither is pinned by its size only. Each read takes at most
/// [`RemoteOptions::request_timeout`] ([`RemoteErrorKind::TimeBudget`]). Memory is what was
/// asked for: a body is read into a buffer of the range's length and no further.
#[derive(Debug, Clone)]
pub struct RemoteObject {
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    size: u64,
    etag: Option<String>,
    /// The first response's metadata: its `Last-Modified` pins an object without an ETag.
    pinned: Option<ObjectMeta>,
    retries: u32,
    budget: Duration,
}

impl RemoteObject {
    /// Sends the first GET (bytes `0..first_read`, fewer when the object is shorter; the
    /// whole object, without a `Range`, for `usize::MAX`) and returns the object with those
    /// bytes.
    ///
    /// # Errors
    /// [`RemoteErrorKind::NotFound`], [`RemoteErrorKind::Denied`] and the faults listed on
    /// [`RemoteObject`].
    pub async fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
        first_read: usize,
        retries: u32,
    ) -> Result<(RemoteObject, Bytes), RemoteError> {
        let options = RemoteOptions::default()
            .first_read(first_read)
            .retries(retries);
        RemoteObject::open_with(store, path, url, &options).await
    }

    /// [`RemoteObject::open`] with the first read, retries and time budget of `options`.
    ///
    /// # Errors
    /// As [`RemoteObject::open`].
    pub async fn open_with(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
        options: &RemoteOptions,
    ) -> Result<(RemoteObject, Bytes), RemoteError> {
        let mut object = RemoteObject {
            store,
            path,
            url: url.into(),
            size: 0,
            etag: None,
            pinned: None,
            retries: options.retries,
            budget: options.request_timeout,
        };
        let want = if options.first_read == usize::MAX {
            0..u64::MAX
        } else {
            0..options.first_read.max(16) as u64
        };
        let (head, meta) = object
            .within(async {
                let mut attempt = 0;
                loop {
                    match object.get_once(want.clone(), true).await {
                        Ok(got) => break Ok(got),
                        Err(e) if e.is_transient() && attempt < object.retries => attempt += 1,
                        Err(e) => break Err(e),
                    }
                }
            })
            .await?;
        object.size = meta.size;
        object.etag.clone_from(&meta.e_tag);
        object.pinned = Some(meta);
        Ok((object, head))
    }

    /// `fut` (one read, its retries included) within [`RemoteOptions::request_timeout`]:
    /// [`RemoteErrorKind::TimeBudget`] when it is not done by then. The timer is this crate's
    /// runtime's, so the read itself runs on whatever executor polls it.
    async fn within<T>(
        &self,
        fut: impl Future<Output = Result<T, RemoteError>>,
    ) -> Result<T, RemoteError> {
        let Some(timer) = crate::blocking::timer(self.budget) else {
            return fut.await;
        };
        let fut = std::pin::pin!(fut);
        match futures_util::future::select(fut, timer).await {
            futures_util::future::Either::Left((done, _)) => done,
            futures_util::future::Either::Right(((), _)) => {
                Err(self.err(RemoteErrorKind::TimeBudget(self.budget)))
            }
        }
    }

    /// The object's URL, as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object's path in its store.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// The object's length in bytes, from the first response.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The ETag of the first response, which later GETs must match.
    pub fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    fn err(&self, kind: RemoteErrorKind) -> RemoteError {
        RemoteError::new(self.url.clone(), kind)
    }

    /// The bytes `range` of the object (clipped to its end): one GET, sent again up to
    /// [`RemoteOptions::retries`] times after a transient fault. An empty range sends nothing.
    ///
    /// # Errors
    /// The faults listed on [`RemoteObject`].
    pub async fn get(&self, range: Range<u64>) -> Result<Bytes, RemoteError> {
        let range = range.start.min(self.size)..range.end.min(self.size);
        if range.start >= range.end {
            return Ok(Bytes::new());
        }
        self.within(self.get_retried(range)).await
    }

    /// One GET of `range` after the first, sent again after transient faults.
    async fn get_retried(&self, range: Range<u64>) -> Result<Bytes, RemoteError> {
        let mut attempt = 0;
        loop {
            match self.get_once(range.clone(), false).await {
                Ok((bytes, _)) => return Ok(bytes),
                Err(e) if e.is_transient() && attempt < self.retries => attempt += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// Several ranges, nearby ones coalesced into one GET as object_store's `get_ranges`
    /// coalesces them ([`object_store::coalesce_ranges`], 1 MiB apart at most), each GET
    /// checked as [`RemoteObject::get`]'s (the version pinned), each range for its length;
    /// within one [`RemoteOptions::request_timeout`].
    ///
    /// # Errors
    /// The faults listed on [`RemoteObject`].
    pub async fn get_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Bytes>, RemoteError> {
        let clipped: Vec<Range<u64>> = ranges
            .iter()
            .map(|r| r.start.min(self.size)..r.end.min(self.size).max(r.start.min(self.size)))
            .collect();
        let wanted: Vec<Range<u64>> = clipped.iter().filter(|r| !r.is_empty()).cloned().collect();
        let fetched = self
            .within(object_store::coalesce_ranges(
                &wanted,
                |r| self.get_retried(r),
                object_store::OBJECT_STORE_COALESCE_DEFAULT,
            ))
            .await?;
        let mut fetched = fetched.into_iter();
        let mut out = Vec::with_capacity(ranges.len());
        for r in clipped {
            if r.is_empty() {
                out.push(Bytes::new());
                continue;
            }
            let b = fetched.next().unwrap_or_default();
            let len = r.end - r.start;
            if (b.len() as u64) < len {
                return Err(self.err(RemoteErrorKind::Truncated {
                    range: r,
                    got: b.len() as u64,
                }));
            }
            if b.len() as u64 > len {
                return Err(self.err(RemoteErrorKind::TooLong { range: r }));
            }
            out.push(b);
        }
        Ok(out)
    }

    /// The bytes `range` of the object (clipped to its end) streamed into `out`, which must
    /// be the clipped range's length: one GET, sent again up to [`RemoteOptions::retries`]
    /// times after a transient fault, without a buffer of its own.
    ///
    /// # Errors
    /// The faults listed on [`RemoteObject`].
    pub(crate) async fn get_into(
        &self,
        range: Range<u64>,
        out: &mut [u8],
    ) -> Result<(), RemoteError> {
        let range = range.start.min(self.size)..range.end.min(self.size);
        if range.start >= range.end {
            return Ok(());
        }
        self.within(self.get_into_retried(range, out)).await
    }

    /// [`RemoteObject::get_into`]'s GET, sent again after transient faults.
    async fn get_into_retried(&self, range: Range<u64>, out: &mut [u8]) -> Result<(), RemoteError> {
        let mut attempt = 0;
        loop {
            let res = async {
                let (result, expected, len) = self.send(range.clone(), false).await?;
                if len != out.len() {
                    return Err(self.err(RemoteErrorKind::RangeMismatch {
                        expected: expected.clone(),
                        actual: format!("a buffer of {} bytes", out.len()),
                    }));
                }
                let mut at = 0;
                let mut stream = result.into_stream();
                while let Some(chunk) = stream.next().await {
                    let chunk = chunk.map_err(|e| self.err(classify(e, Some(&expected))))?;
                    let Some(dst) = out.get_mut(at..at + chunk.len()) else {
                        return Err(self.err(RemoteErrorKind::TooLong { range: expected }));
                    };
                    dst.copy_from_slice(&chunk);
                    at += chunk.len();
                }
                if at < len {
                    return Err(self.err(RemoteErrorKind::Truncated {
                        range: expected,
                        got: at as u64,
                    }));
                }
                Ok(())
            }
            .await;
            match res {
                Ok(()) => return Ok(()),
                Err(e) if e.is_transient() && attempt < self.retries => attempt += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// One GET, its response checked; returns the bytes and the object's metadata.
    /// `first`: the opening GET (no condition; it learns size, ETag and date).
    async fn get_once(
        &self,
        range: Range<u64>,
        first: bool,
    ) -> Result<(Bytes, ObjectMeta), RemoteError> {
        let (result, expected, len) = self.send(range, first).await?;
        let meta = result.meta.clone();
        let mut buf = BytesMut::with_capacity(len);
        let mut stream = result.into_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| self.err(classify(e, Some(&expected))))?;
            if buf.len() + chunk.len() > len {
                return Err(self.err(RemoteErrorKind::TooLong { range: expected }));
            }
            buf.extend_from_slice(&chunk);
        }
        if buf.len() < len {
            return Err(self.err(RemoteErrorKind::Truncated {
                range: expected,
                got: buf.len() as u64,
            }));
        }
        Ok((buf.freeze(), meta))
    }

    /// Sends one GET of `range` (without a `Range` when it ends at `u64::MAX`: the whole
    /// object) and checks the response's size, ETag and range before its body is read;
    /// returns the response, the range it holds and that range's length.
    async fn send(
        &self,
        range: Range<u64>,
        first: bool,
    ) -> Result<(object_store::GetResult, Range<u64>, usize), RemoteError> {
        // The version pinned: the first response's ETag, else its date (a store gives the
        // epoch when the response had no `Last-Modified`: nothing to pin then).
        let since = self
            .pinned
            .as_ref()
            .filter(|m| m.e_tag.is_none() && m.last_modified.timestamp() != 0)
            .map(|m| m.last_modified);
        let options = GetOptions {
            range: (range.end != u64::MAX).then(|| GetRange::Bounded(range.clone())),
            if_match: if first { None } else { self.etag.clone() },
            if_unmodified_since: if first { None } else { since },
            ..GetOptions::default()
        };
        let result = self
            .store
            .get_opts(&self.path, options)
            .await
            .map_err(|e| self.err(classify(e, Some(&range))))?;
        let size = result.meta.size;
        let etag = &result.meta.e_tag;
        if !first {
            if size != self.size {
                return Err(self.err(RemoteErrorKind::Changed(format!(
                    "its size was {} bytes, it is now {size}",
                    self.size
                ))));
            }
            match (&self.etag, etag) {
                (Some(before), Some(now)) if before != now => {
                    return Err(self.err(RemoteErrorKind::Changed(format!(
                        "ETag {before} became {now}"
                    ))));
                }
                (Some(before), None) => {
                    return Err(self.err(RemoteErrorKind::Changed(format!(
                        "it had ETag {before}, the server now sends none"
                    ))));
                }
                _ => {}
            }
            if let Some(before) = since {
                let now = result.meta.last_modified;
                if now != before {
                    return Err(self.err(RemoteErrorKind::Changed(format!(
                        "Last-Modified {} became {}",
                        before.to_rfc2822(),
                        now.to_rfc2822()
                    ))));
                }
            }
        }
        let expected = range.start..range.end.min(size);
        if result.range != expected {
            return Err(self.err(RemoteErrorKind::RangeMismatch {
                expected,
                actual: format!("{:?}", result.range),
            }));
        }
        let len = usize::try_from(expected.end.saturating_sub(expected.start)).map_err(|_| {
            self.err(RemoteErrorKind::Npy(npy_core::Error::from(
                std::io::Error::other("a range longer than this platform's address space"),
            )))
        })?;
        Ok((result, expected, len))
    }
}

/// A remote `.npy` array: the header read with one ranged GET (a second only when the header
/// is longer than the first), rows and element ranges with one GET each, several ranges
/// coalesced (`get_ranges`), the whole array in parallel ranged parts.
///
/// Async and runtime-agnostic: it spawns nothing, so it runs on any executor the store runs
/// on (object_store's HTTP-based stores need tokio's); the timer of each read's time budget
/// ([`RemoteOptions::request_timeout`]) is this crate's own runtime's. For blocking
/// callers, [`crate::BlockingObject`] implements [`npy_core::ReadAt`].
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
/// let store = Arc::new(InMemory::new());
/// let mut bytes = Vec::new();
/// npy_core::WriteOptions::new().write_to(&mut bytes, &(0..12).map(|i| i as f32).collect::<Vec<_>>(), &[4, 3])?;
/// store.put(&Path::from("a.npy"), bytes.into()).await?;
///
/// let a = npy_object_store::RemoteNpy::open(store, "a.npy".into(), "memory:///a.npy").await?;
/// assert_eq!(a.shape(), [4, 3]);
/// assert_eq!(a.read_rows::<f32>(2..3).await?, [6.0, 7.0, 8.0]);
/// assert_eq!(a.read_vec::<f32>().await?.len(), 12);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RemoteNpy {
    object: RemoteObject,
    /// The header and the first GET's bytes.
    head: NpyReader<Positional<FetchedRange<Bytes>>>,
    options: RemoteOptions,
}

impl RemoteNpy {
    /// Opens the `.npy` at `url` (`s3://`, `gs://`, `az://`, `http(s)://`, `file://`; the store
    /// configured from the environment as [`crate::store_for_url`] does) and reads its header:
    /// the one call from a URL to an array.
    ///
    /// # Errors
    /// [`RemoteErrorKind::Url`] for a URL no store reads (a scheme whose feature this build
    /// lacks says which), then as [`RemoteNpy::open`].
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("w.npy");
    /// npy_core::write(&path, &[1i16, 2, 3, 4], &[2, 2])?;
    /// let url = format!("file://{}", path.display());
    /// let array = npy_object_store::RemoteNpy::open_url(&url).await?;
    /// assert_eq!(array.read_rows::<i16>(1..2).await?, [3, 4]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn open_url(url: &str) -> Result<RemoteNpy, RemoteError> {
        let (store, path) = crate::store_for_url(url)?;
        RemoteNpy::open(store, path, url).await
    }

    /// Opens the object at `path` of `store` (`url` names it in errors and output) and reads
    /// its header.
    ///
    /// # Errors
    /// The store's faults ([`RemoteErrorKind`]), header errors ([`RemoteErrorKind::Npy`]).
    pub async fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
    ) -> Result<RemoteNpy, RemoteError> {
        RemoteNpy::open_with(store, path, url, RemoteOptions::default()).await
    }

    /// [`RemoteNpy::open`] with options.
    ///
    /// # Errors
    /// As [`RemoteNpy::open`].
    pub async fn open_with(
        store: Arc<dyn ObjectStore>,
        path: Path,
        url: impl Into<String>,
        options: RemoteOptions,
    ) -> Result<RemoteNpy, RemoteError> {
        let (object, head) = RemoteObject::open_with(store, path, url, &options).await?;
        let head = read_header(&object, head, &options).await?;
        Ok(RemoteNpy {
            object,
            head,
            options,
        })
    }

    /// The object behind the array (its URL, size, ETag; raw ranged GETs).
    pub fn object(&self) -> &RemoteObject {
        &self.object
    }

    /// The object's URL.
    pub fn url(&self) -> &str {
        self.object.url()
    }

    /// The array's metadata (header, shape, dtype, data offset).
    pub fn meta(&self) -> &ArrayMeta {
        self.head.meta()
    }

    /// The header dict.
    pub fn header(&self) -> &Header {
        self.head.header()
    }

    /// The header as stored (version, length, text).
    pub fn parsed_header(&self) -> &ParsedHeader {
        self.head.parsed_header()
    }

    /// The shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        self.head.shape()
    }

    /// The dtype.
    pub fn dtype(&self) -> &npy_core::DType {
        self.head.dtype()
    }

    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.head.num_elements()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    /// The bytes of the first GET (header included).
    pub fn head(&self) -> &Bytes {
        self.head.source().bytes()
    }

    /// The header and the first GET's bytes, as npy-core's array over them.
    #[cfg(feature = "arrow")]
    pub(crate) fn source(&self) -> &NpyReader<Positional<FetchedRange<Bytes>>> {
        &self.head
    }

    pub(crate) fn npy(&self, e: npy_core::Error) -> RemoteError {
        RemoteError::new(self.url(), RemoteErrorKind::Npy(e))
    }

    /// The bytes `range` of the object: from the first GET's bytes when they hold them,
    /// otherwise one GET.
    pub(crate) async fn bytes(
        &self,
        range: Range<u64>,
    ) -> Result<FetchedRange<Bytes>, RemoteError> {
        let head = self.head();
        if range.end <= head.len() as u64 {
            let bytes = head.slice(range.start as usize..range.end as usize);
            return Ok(FetchedRange::new(range.start, bytes));
        }
        Ok(FetchedRange::new(
            range.start,
            self.object.get(range.clone()).await?,
        ))
    }

    /// An array over fetched bytes, for decoding them.
    fn over(
        &self,
        fetched: FetchedRange<Bytes>,
    ) -> Result<NpyReader<Positional<FetchedRange<Bytes>>>, RemoteError> {
        NpyReader::from_parts(
            fetched,
            self.head.parsed_header().clone(),
            self.object.size(),
            &self.options.read,
        )
        .map_err(|e| self.npy(e))
    }

    /// Whether a read of `bytes` is backed: a short object (one holding less than its
    /// header's data, which `np.load` refuses) is reported as npy-core's truncation, from the
    /// object's size, before anything is fetched for it.
    pub(crate) fn backed(&self, bytes: &Range<u64>) -> Result<(), RemoteError> {
        if bytes.end > self.object.size() {
            self.head
                .parsed_header()
                .check_data_len(self.object.size())
                .map_err(|e| self.npy(e))?;
        }
        Ok(())
    }

    /// Reads elements `range` (memory order) of `T` with one GET.
    ///
    /// # Errors
    /// The store's faults; as [`npy_core::NpyReader::read_range`].
    pub async fn read_range<T: NpyElement>(
        &self,
        range: Range<u64>,
    ) -> Result<Vec<T>, RemoteError> {
        let bytes = self
            .head
            .byte_range::<T>(range.clone())
            .map_err(|e| self.npy(e))?;
        self.backed(&bytes)?;
        let fetched = self.bytes(bytes).await?;
        self.over(fetched)?
            .read_range(range)
            .map_err(|e| self.npy(e))
    }

    /// Reads rows `rows` of a C-order array with one GET.
    ///
    /// # Errors
    /// As [`RemoteNpy::read_range`]; [`npy_core::ErrorKind::Unsupported`] for Fortran-order
    /// or 0-d arrays.
    pub async fn read_rows<T: NpyElement>(&self, rows: Range<u64>) -> Result<Vec<T>, RemoteError> {
        let elements = self.head.row_elements::<T>(rows).map_err(|e| self.npy(e))?;
        self.read_range(elements).await
    }

    /// Reads several element ranges with the store's `get_ranges` (nearby ones coalesced into
    /// one GET).
    ///
    /// # Errors
    /// As [`RemoteNpy::read_range`], every range checked before anything is fetched.
    pub async fn read_ranges<T: NpyElement>(
        &self,
        ranges: &[Range<u64>],
    ) -> Result<Vec<Vec<T>>, RemoteError> {
        let bytes = ranges
            .iter()
            .map(|r| self.head.byte_range::<T>(r.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.npy(e))?;
        for b in &bytes {
            self.backed(b)?;
        }
        let fetched = self.object.get_ranges(&bytes).await?;
        ranges
            .iter()
            .zip(bytes.iter().zip(fetched))
            .map(|(range, (at, data))| {
                self.over(FetchedRange::new(at.start, data))?
                    .read_range(range.clone())
                    .map_err(|e| self.npy(e))
            })
            .collect()
    }

    /// The array's data bytes `range` (offsets in the object), fetched as parallel GETs of
    /// [`RemoteOptions::part_bytes`] ([`RemoteOptions::concurrency`] in flight) into one
    /// buffer; the first GET's bytes are used where they cover the start.
    async fn parts(&self, range: Range<u64>) -> Result<FetchedRange<Bytes>, RemoteError> {
        let head = self.head();
        if range.end <= head.len() as u64 {
            // The first GET holds it all (`first_read`): no copy, no other GET.
            let bytes = head.slice(range.start as usize..range.end as usize);
            return Ok(FetchedRange::new(range.start, bytes));
        }
        let held = (head.len() as u64).clamp(range.start, range.end);
        let total = usize::try_from(range.end - range.start).map_err(|_| {
            self.npy(npy_core::Error::from(std::io::Error::other(
                "an array larger than this platform's address space",
            )))
        })?;
        let mut buf = vec![0u8; total];
        let from_head = (held - range.start) as usize;
        if from_head > 0 {
            buf[..from_head].copy_from_slice(&head[range.start as usize..held as usize]);
        }
        let step = self.options.part_bytes.max(1);
        let mut pieces: Vec<(usize, &mut [u8])> = Vec::new();
        let mut rest = &mut buf[from_head..];
        let mut at = held;
        while !rest.is_empty() {
            let n = (step.min(range.end - at)) as usize;
            let (piece, tail) = rest.split_at_mut(n);
            pieces.push(((at - range.start) as usize, piece));
            rest = tail;
            at += n as u64;
        }
        let start = range.start;
        futures_util::stream::iter(pieces.into_iter().map(|(off, piece)| {
            let object = &self.object;
            async move {
                let from = start + off as u64;
                object
                    .get_into(from..from + piece.len() as u64, piece)
                    .await
            }
        }))
        .buffer_unordered(self.options.concurrency.max(1))
        .try_collect::<Vec<()>>()
        .await?;
        Ok(FetchedRange::new(range.start, Bytes::from(buf)))
    }

    /// Reads the whole array into a vector (memory order), in parallel ranged parts.
    ///
    /// Memory: the data's bytes and the values (twice the data for numbers).
    ///
    /// # Errors
    /// As [`RemoteNpy::read_range`].
    pub async fn read_vec<T: NpyElement>(&self) -> Result<Vec<T>, RemoteError> {
        Ok(self.read_array::<T>().await?.into_vec())
    }

    /// Reads the whole array with its shape and order, in parallel ranged parts.
    ///
    /// # Errors
    /// As [`RemoteNpy::read_range`].
    pub async fn read_array<T: NpyElement>(&self) -> Result<NpyArray<T>, RemoteError> {
        let len = self.head.num_elements();
        let bytes = self.head.byte_range::<T>(0..len);
        // A type mismatch is the decoder's to report, with its own message.
        let Ok(bytes) = bytes else {
            return self.head.read_array::<T>().map_err(|e| self.npy(e));
        };
        self.backed(&bytes)?;
        let fetched = self.parts(bytes).await?;
        self.over(fetched)?.read_array().map_err(|e| self.npy(e))
    }

    /// Reads the whole array, whatever its dtype ([`npy_core::read_dyn`]), in parallel ranged
    /// parts. Object arrays are refused ([`npy_core::ErrorKind::ObjectArray`]), as by
    /// [`npy_core::read_dyn`].
    ///
    /// # Errors
    /// As [`RemoteNpy::read_range`]; as [`npy_core::NpyReader::read_dyn`].
    pub async fn read_dyn(&self) -> Result<DynArray, RemoteError> {
        let at = self.head.data_offset();
        let end = if self.dtype().has_object() {
            // Refused by the decoder without a codec (npy-pickle's), before any data is
            // fetched.
            at
        } else {
            let end = at.saturating_add(self.meta().nbytes());
            self.backed(&(at..end))?;
            end
        };
        let fetched = self.parts(at..end.max(at)).await?;
        self.over(fetched)?.read_dyn().map_err(|e| self.npy(e))
    }

    /// Reads elements `range` of any dtype with one GET.
    ///
    /// # Errors
    /// As [`npy_core::NpyReader::read_dyn_range`]; the store's faults.
    pub async fn read_dyn_range(&self, range: Range<u64>) -> Result<Vec<DynValue>, RemoteError> {
        let each = self.meta().itemsize();
        let at = self.head.data_offset();
        let bytes = match (range.start.checked_mul(each), range.end.checked_mul(each)) {
            (Some(s), Some(e)) if range.start <= range.end && range.end <= self.len() => {
                at + s..at + e
            }
            // Out of range: the decoder says so.
            _ => return self.head.read_dyn_range(range).map_err(|e| self.npy(e)),
        };
        self.backed(&bytes)?;
        let fetched = self.bytes(bytes).await?;
        self.over(fetched)?
            .read_dyn_range(range)
            .map_err(|e| self.npy(e))
    }
}

/// The header from the first GET's bytes, and when the header is longer, from one more GET of
/// the rest (sized by the header's length field, within the object's size and the header
/// limit, both known before it is sent).
async fn read_header(
    object: &RemoteObject,
    head: Bytes,
    options: &RemoteOptions,
) -> Result<NpyReader<Positional<FetchedRange<Bytes>>>, RemoteError> {
    let npy = |e| RemoteError::new(object.url(), RemoteErrorKind::Npy(e));
    let mut head = head;
    if (head.len() as u64) < object.size() {
        if let Some(end) = header_extent(&head, &options.read).map_err(npy)? {
            if end > head.len() as u64 {
                let rest = object.get(head.len() as u64..end).await?;
                let mut all = BytesMut::with_capacity(head.len() + rest.len());
                all.extend_from_slice(&head);
                all.extend_from_slice(&rest);
                head = all.freeze();
            }
        }
    }
    let parsed = Header::read_with(&mut &head[..], &options.read).map_err(npy)?;
    NpyReader::from_parts(
        FetchedRange::new(0, head),
        parsed,
        object.size(),
        &options.read,
    )
    .map_err(npy)
}
