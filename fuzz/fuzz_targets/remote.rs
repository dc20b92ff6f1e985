//! The remote-response surface: `npy-object-store`'s reader over a store whose every answer
//! the input scripts (honest, a short or long body, another range, a lying size or ETag, the
//! whole object for a ranged GET, an error, a body in many chunks), read as an `.npy`
//! (`NpyReader::open_at`: header, a range, rows, the whole array) and as an `.npz` (`NpzArchive` over
//! `BlockingObject`: every member's header, bytes and array). Every fault must be an error,
//! never a panic, a hang or an allocation the request did not ask for.
//!
//! Input: one byte `n`, then `n % 32` script bytes (one per GET, cycled), then the object.
#![no_main]

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::{self, BoxStream, StreamExt};
use npy_object_store::{BlockingObject, RemoteOptions};
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetRange, GetResult, GetResultPayload, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
};

/// A store of one object whose answers follow `script`.
#[derive(Debug)]
struct Scripted {
    object: Bytes,
    script: Vec<u8>,
    calls: AtomicUsize,
}

impl fmt::Display for Scripted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Scripted")
    }
}

fn unsupported(operation: &str) -> object_store::Error {
    object_store::Error::NotImplemented {
        operation: operation.to_owned(),
        implementer: "Scripted".to_owned(),
    }
}

#[async_trait]
impl ObjectStore for Scripted {
    async fn put_opts(&self, _: &Path, _: PutPayload, _: PutOptions) -> Result<PutResult> {
        Err(unsupported("put"))
    }

    async fn put_multipart_opts(
        &self,
        _: &Path,
        _: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        Err(unsupported("put_multipart"))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let act = if self.script.is_empty() {
            0
        } else {
            self.script[call % self.script.len()]
        };
        let (kind, k) = (act % 12, u64::from(act >> 4));
        let size = self.object.len() as u64;
        let asked: Range<u64> = match options.range {
            Some(GetRange::Bounded(r)) => r,
            Some(GetRange::Offset(o)) => o..size,
            Some(GetRange::Suffix(n)) => size.saturating_sub(n)..size,
            None => 0..size,
        };
        let mut range = asked.start.min(size)..asked.end.min(size).max(asked.start.min(size));
        let mut meta_size = size;
        let mut etag = Some("e0".to_owned());
        let mut chunk = usize::MAX;
        let mut extra = 0u64;
        let mut short = 0u64;
        match kind {
            3 => short = k + 1,
            4 => extra = k + 1,
            5 => range = range.start.saturating_add(k + 1).min(size)..range.end,
            6 => meta_size = size.saturating_add(k + 1),
            7 => meta_size = size.saturating_sub(k + 1),
            8 => etag = Some(format!("e{}", k + 1)),
            9 => range = 0..size,
            10 => {
                return Err(object_store::Error::NotFound {
                    path: location.to_string(),
                    source: "scripted".into(),
                })
            }
            11 => {
                return Err(object_store::Error::Generic {
                    store: "Scripted",
                    source: "scripted".into(),
                })
            }
            _ => chunk = (k as usize) + 1,
        }
        let end = range.end.saturating_sub(short).max(range.start);
        let mut body = self
            .object
            .slice(range.start as usize..end as usize)
            .to_vec();
        body.extend(std::iter::repeat_n(0xA5u8, extra as usize));
        let chunks: Vec<Result<Bytes>> = body
            .chunks(chunk.max(1))
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        Ok(GetResult {
            payload: GetResultPayload::Stream(stream::iter(chunks).boxed()),
            meta: ObjectMeta {
                location: location.clone(),
                last_modified: Default::default(),
                size: meta_size,
                e_tag: etag,
                version: None,
            },
            range,
            attributes: Default::default(),
            extensions: Default::default(),
        })
    }

    fn delete_stream(
        &self,
        _: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        stream::empty().boxed()
    }

    fn list(&self, _: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        stream::empty().boxed()
    }

    async fn list_with_delimiter(&self, _: Option<&Path>) -> Result<ListResult> {
        Err(unsupported("list_with_delimiter"))
    }

    async fn copy_opts(&self, _: &Path, _: &Path, _: CopyOptions) -> Result<()> {
        Err(unsupported("copy"))
    }
}

fn open(data: &[u8], first_read: usize) -> Option<BlockingObject> {
    let (&n, rest) = data.split_first()?;
    let script_len = usize::from(n % 32).min(rest.len());
    let (script, object) = rest.split_at(script_len);
    let store = Scripted {
        object: Bytes::copy_from_slice(object),
        script: script.to_vec(),
        calls: AtomicUsize::new(0),
    };
    let options = RemoteOptions::default().first_read(first_read).retries(1);
    BlockingObject::open_with(Arc::new(store), Path::from("x"), "fuzz:///x", options).ok()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // A first read of 64 bytes: the later reads are GETs (the default reads 64 KiB at once).
    if let Some(object) = open(data, 64) {
        if let Ok(src) = npy_core::NpyReader::open_at_reading(object, &Default::default(), 64) {
            let _ = src.read_range::<u8>(0..16);
            let _ = src.read_rows::<u8>(0..2);
            let _ = src.read_vec::<u8>();
            let _ = src.stream().read_dyn();
        }
    }
    if let Some(object) = open(data, 64) {
        if let Ok(npz) = npy_npz::NpzArchive::new(object) {
            let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
            for key in keys.iter().take(8) {
                let _ = npz.header(key);
                let _ = npz.read_bytes(key);
                let _ = npz.read_dyn(key);
            }
        }
    }
});
