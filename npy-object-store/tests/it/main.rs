//! npy-object-store against real stores: object_store's `InMemory` and `LocalFileSystem`, an HTTP
//! range server on 127.0.0.1 (feature `http`), moto's S3 API on 127.0.0.1 (feature `aws`).
//! Every test counts the GETs and bytes of each operation (`CountingStore`).

#[cfg(feature = "arrow")]
mod arrow;
mod common;
#[cfg(feature = "http")]
mod http;
mod npz;
#[cfg(feature = "aws")]
mod s3;
mod stores;
