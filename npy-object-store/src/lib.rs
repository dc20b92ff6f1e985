//! Read NumPy `.npy` arrays from object stores by byte ranges: S3 (and S3 APIs), Google Cloud
//! Storage, Azure Blob Storage, HTTP servers and local files, on Apache Arrow's
//! [`object_store`].
//!
//! A `.npy` file's header is at its start and its data follows in one block, so a reader needs
//! one ranged GET for the header and one for any row range:
//!
//! | operation | requests |
//! |---|---|
//! | open, header | 1 GET of the first 64 KiB (a second only for a longer header) |
//! | rows, an element range | 1 GET (none when the first GET's bytes hold it) |
//! | several ranges | `get_ranges`: nearby ranges coalesced into one GET |
//! | the whole array | parallel GETs of [`RemoteOptions::part_bytes`] |
//! | rows as an Arrow `RecordBatch` (feature `arrow`) | 1 GET (`RemoteNpy::read_record_batch`) |
//!
//! - [`RemoteNpy::open_url`]: one call from a URL (`s3://`, `gs://`, `az://`, `http(s)://`,
//!   `file://`, the store configured from object_store's environment variables) to an array
//!   whose header is read. [`RemoteNpy`] is async and runtime-agnostic (it spawns nothing;
//!   the HTTP-based stores need tokio, as object_store's client does).
//! - [`BlockingObject::open_url`]: the same from blocking code, a [`npy_core::ReadAt`] over
//!   the object, so npy-core's [`npy_core::NpyReader::open_at`] and every reader on a range
//!   source run on it.
//! - [`store_for_url`] then [`RemoteNpy::open`] (or [`BlockingObject::open`]): the two steps
//!   apart, to open many objects of one store through one client (its connections and
//!   credentials shared), or to read from a store built by hand (an in-memory store, a
//!   [`CountingStore`]).
//! - [`CountingStore`]: a store wrapper counting GETs and bytes (this crate's tests assert
//!   both for every operation).
//!
//! Faults are typed ([`RemoteErrorKind`]) and name the URL: a missing object, a refused one,
//! a server that ignores `Range` (refused before its body is read), a short body, a
//! `Content-Range` other than asked, timeouts (retries bounded: [`RemoteOptions::retries`]
//! and the store's own `RetryConfig`), a read slower than its time budget
//! ([`RemoteOptions::request_timeout`], [`DEFAULT_REQUEST_TIMEOUT`] = 60 s for one read, the
//! body and every retry included), an object that changed between requests (the first
//! response's version pinned: `If-Match` with its ETag on every later GET, or
//! `If-Unmodified-Since` with its `Last-Modified` when it has no ETag; ETag, date and size
//! compared). Memory is bounded by what was asked: no body is buffered beyond the range
//! requested.
//!
//! Cloud backends are features: `aws`, `gcp`, `azure`, `http` (each object_store's feature of
//! that name, with reqwest and rustls). Without any, `file://` and in-memory stores work.
//!
//! # Examples
//! From a URL, in one call:
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("w.npy");
//! npy_core::write(&path, &[1i16, 2, 3, 4], &[2, 2])?;
//! let url = format!("file://{}", path.display()); // or s3://bucket/w.npy, https://…
//! let a = npy_object_store::RemoteNpy::open_url(&url).await?;
//! assert_eq!(a.shape(), [2, 2]);
//! assert_eq!(a.read_rows::<i16>(1..2).await?, [3, 4]);
//! # Ok(()) }
//! ```
//!
//! A store built by hand (here one counting its requests), shared by every object opened on
//! it:
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use npy_object_store::{CountingStore, RemoteNpy};
//! use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
//!
//! let store = Arc::new(CountingStore::new(InMemory::new()));
//! let counts = store.counts();
//! let mut bytes = Vec::new();
//! let data: Vec<f32> = (0..100_000).map(|i| i as f32).collect();
//! npy_core::WriteOptions::new().write_to(&mut bytes, &data, &[1000, 100])?;
//! store.put(&Path::from("x.npy"), bytes.into()).await?;
//!
//! let a = RemoteNpy::open(store, "x.npy".into(), "memory:///x.npy").await?;
//! assert_eq!(a.shape(), [1000, 100]);
//! assert_eq!(counts.take().gets, 1); // the header
//! let rows = a.read_rows::<f32>(900..902).await?;
//! assert_eq!(rows[0], 90_000.0);
//! let c = counts.take();
//! assert_eq!((c.gets, c.bytes), (1, 800)); // one GET of exactly the two rows
//! # Ok(()) }
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(feature = "arrow")]
mod arrow;
mod blocking;
mod counting;
mod error;
mod remote;
mod url;

pub use blocking::{block_on, BlockingObject};
pub use counting::{CountingStore, Counts, Snapshot};
pub use error::{RemoteError, RemoteErrorKind};
pub use remote::{RemoteNpy, RemoteObject, RemoteOptions, DEFAULT_REQUEST_TIMEOUT};
pub use url::{is_url, store_for_url};

/// The README's examples, run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
