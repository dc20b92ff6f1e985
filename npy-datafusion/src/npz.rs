//! Members of `.npz` archives as shards ([`crate::NpyOptions::member`]): the archive's zip
//! directory and the member's header read through npy-npz over ranged reads of the store, and
//! a deflated member's rows inflated in one stream.
//!
//! npy-npz reads through the synchronous [`ReadAt`]; here each read is a ranged GET of the
//! object store, awaited on a blocking thread of DataFusion's (tokio's) runtime, so no worker
//! thread waits on I/O.

use std::io::Read as _;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use npy_core::ReadAt;
use npy_npz::NpzArchive;
use object_store::path::Path as StorePath;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use tokio::runtime::Handle;

use crate::shard::Shard;
use crate::Error;

/// An archive in an object store as npy-npz's [`ReadAt`]: every read is one ranged GET
/// (`read_ranges`: one `get_ranges`, which merges neighbouring ranges), awaited on the runtime
/// of `handle`. Call it from a blocking thread only ([`tokio::task::spawn_blocking`]).
struct StoreReader {
    store: Arc<dyn ObjectStore>,
    location: StorePath,
    size: u64,
    handle: Handle,
}

impl StoreReader {
    fn new(store: &Arc<dyn ObjectStore>, meta: &ObjectMeta, path: &str) -> Result<Self, Error> {
        let handle = Handle::try_current().map_err(|_| Error::Unsupported {
            path: path.to_owned(),
            what: "an .npz member is read on a tokio runtime (DataFusion's); none is running"
                .to_owned(),
        })?;
        Ok(StoreReader {
            store: Arc::clone(store),
            location: meta.location.clone(),
            size: meta.size,
            handle,
        })
    }
}

impl ReadAt for StoreReader {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.size)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let end = offset
            .saturating_add(buf.len() as u64)
            .min(self.size)
            .max(offset);
        if end == offset {
            return Ok(0);
        }
        let got = self
            .handle
            .block_on(self.store.get_range(&self.location, offset..end))
            .map_err(std::io::Error::other)?;
        // The store returns at most the range asked for; a shorter answer is a short read.
        let n = got.len().min(buf.len());
        buf[..n].copy_from_slice(&got[..n]);
        Ok(n)
    }

    fn read_ranges(&self, ranges: &[Range<u64>]) -> std::io::Result<Vec<Vec<u8>>> {
        let got = self
            .handle
            .block_on(self.store.get_ranges(&self.location, ranges))
            .map_err(std::io::Error::other)?;
        Ok(got.into_iter().map(|b| b.to_vec()).collect())
    }
}

/// Opens the archive with the least suffix read zipfile's search needs
/// ([`npy_npz::MIN_SUFFIX_BYTES`], 64 KiB + 98) rather than npy-npz's default 256 KiB: one
/// more request only for a directory longer than that (thousands of members).
fn open_archive(reader: StoreReader, path: &str) -> Result<NpzArchive<StoreReader>, Error> {
    NpzArchive::with_suffix_bytes(
        reader,
        npy_core::ReadOptions::default(),
        npy_npz::MIN_SUFFIX_BYTES,
    )
    .map_err(|e| npz_error(path, e))
}

fn npz_error(path: &str, source: npy_npz::Error) -> Error {
    Error::Npz {
        path: path.to_owned(),
        source,
    }
}

/// A read on a blocking thread that panicked or was cancelled, naming the file it read.
pub(crate) fn joined(path: &str, e: &tokio::task::JoinError) -> Error {
    Error::Unsupported {
        path: path.to_owned(),
        what: format!("a read of the file stopped: {e}"),
    }
}

/// The shard of member `key` of the archive `meta`: its header and checks as a `.npy` file's
/// ([`Shard::from_header`], over the member's uncompressed size); errors name the archive
/// `path` (`crate::location::file_name`). A stored member's
/// `data_offset` is its data's in the archive, so the scan reads it by byte ranges like a
/// `.npy` file; a deflated member is `streamed` from its local header.
///
/// Requests: the archive's last 64 KiB (the zip directory's end), the directory when that does
/// not hold it, and the member's local header with its `.npy` header: two or three.
///
/// # Errors
/// [`Error::Npz`] for a broken archive, a missing key, a member that is not an `.npy` or does
/// not hold what its header says; [`Error::Unsupported`] for a deflated Fortran-order member
/// of more than one axis (its rows are strided through a stream that cannot be read out of
/// order); as [`Shard::from_header`].
pub(crate) async fn read_member_shard(
    store: &Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
    key: &str,
    path: &str,
) -> Result<Shard, Error> {
    let reader = StoreReader::new(store, meta, path)?;
    let path = path.to_owned();
    let key = key.to_owned();
    let task_path = path.clone();
    tokio::task::spawn_blocking(move || member_shard(reader, &key, &task_path))
        .await
        .map_err(|e| joined(&path, &e))?
}

fn member_shard(reader: StoreReader, key: &str, path: &str) -> Result<Shard, Error> {
    let archive = open_archive(reader, path)?;
    let member = archive.member(key).map_err(|e| npz_error(path, e))?.clone();
    let parsed = archive.header(key).map_err(|e| npz_error(path, e))?;
    // The member's own faults (its data shorter than its header says, a dtype without an
    // Arrow type) name it as `npy sql` does: ARCHIVE:KEY.
    let at = format!("{path}:{key}");
    let mut shard = Shard::from_header(&parsed, member.size, &at)?;
    if member.is_stored() {
        let range = archive.member_range(key).map_err(|e| npz_error(path, e))?;
        // member_range proved start + size is inside the archive, and from_header that the
        // data offset is inside the member.
        shard.data_offset += range.start;
    } else {
        if shard.fortran {
            return Err(Error::Unsupported {
                path: at,
                what: format!(
                    "member {key:?} is deflated and in Fortran order: its rows are strided \
                     through one compressed stream (store the member, np.savez, or save the \
                     array in C order)"
                ),
            });
        }
        shard.streamed = true;
        shard.data_offset = member.header_offset;
    }
    Ok(shard)
}

/// The batches of a deflated member as they are inflated: each its row count and bytes.
pub(crate) type Batches = tokio::sync::mpsc::Receiver<Result<(u64, Bytes), Error>>;

/// Rows `[0, end)` of the deflated member `key` of the archive `meta`, `batch_rows` at a time,
/// as the bytes of each batch (`n × row_bytes`), inflated on a blocking thread. At most two
/// batches are held: the one being converted and the next. Dropping the stream stops the
/// inflation at its next batch. The member's CRC-32 is checked when its last row is read.
/// Errors name the archive `path`.
pub(crate) fn member_batches(
    store: &Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
    key: &str,
    shard: &Shard,
    end: u64,
    batch_rows: u64,
    path: &str,
) -> Result<Batches, Error> {
    let reader = StoreReader::new(store, meta, path)?;
    let path = path.to_owned();
    let key = key.to_owned();
    let row_bytes = shard.row_bytes;
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tokio::task::spawn_blocking(move || {
        let run = || -> Result<(), Error> {
            let archive = open_archive(reader, &path)?;
            let mut data = archive
                .npy_reader(&key)
                .map_err(|e| npz_error(&path, e))?
                .into_inner();
            let mut next = 0;
            while next < end {
                let n = batch_rows.min(end - next);
                let len = n
                    .checked_mul(row_bytes)
                    .and_then(|b| usize::try_from(b).ok())
                    .ok_or_else(|| Error::Unsupported {
                        path: path.clone(),
                        what: format!("a batch of {n} rows of {row_bytes} bytes overflows"),
                    })?;
                let mut buf = vec![0; len];
                data.read_exact(&mut buf).map_err(|e| Error::Npz {
                    path: path.clone(),
                    source: npy_npz::Error::from(e),
                })?;
                if tx.blocking_send(Ok((n, Bytes::from(buf)))).is_err() {
                    return Ok(());
                }
                next += n;
            }
            Ok(())
        };
        if let Err(e) = run() {
            let _ = tx.blocking_send(Err(e));
        }
    });
    Ok(rx)
}
