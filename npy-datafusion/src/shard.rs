//! One `.npy` file of a table (a shard): its header read by byte ranges, its rows' layout,
//! and its checks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npy_core::{ByteOrder, DType, Header};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use crate::Error;

/// Bytes of a file read first for its header: numpy's headers are 64 to a few hundred bytes,
/// so one request holds the whole header of nearly every file; a longer header (a wide record)
/// takes a second request of exactly its length.
pub const HEADER_PROBE_BYTES: u64 = 4096;

/// The magic string every `.npy` file starts with.
const MAGIC: &[u8] = b"\x93NUMPY";

/// What a shard's header says, and the layout of its rows.
#[derive(Debug, Clone)]
pub(crate) struct Shard {
    /// The dtype as stored (its byte order may differ from other shards').
    pub dtype: DType,
    /// The shape after the first axis (empty for 1-d and 0-d arrays).
    pub trailing: Vec<u64>,
    /// Rows: the first axis (1 for a 0-d array).
    pub rows: u64,
    /// `True` when the data is in Fortran order and that differs from C order (more than one
    /// axis longer than 1): a row's elements are then strided through the file.
    pub fortran: bool,
    /// Byte offset of the data in the file (in an `.npz` archive: of a stored member's data in
    /// the archive; of a deflated member's local header, where its one stream starts).
    pub data_offset: u64,
    /// `True` for a deflated `.npz` member: its rows are inflated from the start in one stream
    /// (no byte ranges), by the scan range holding `data_offset`.
    pub streamed: bool,
    /// Bytes per row: itemsize × the product of `trailing`.
    pub row_bytes: u64,
    /// Bytes of data (rows × `row_bytes`).
    pub data_bytes: u64,
}

impl Shard {
    /// The dtype in native byte order, as its Arrow columns hold it (the same for shards of
    /// either order).
    pub fn native_dtype(&self) -> DType {
        let native = if cfg!(target_endian = "little") {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        };
        self.dtype.with_byte_order(native)
    }

    /// Elements per row (the product of `trailing`), checked.
    pub fn row_elements(&self) -> Option<u64> {
        self.trailing
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }

    /// The rows `[first, end)` whose first byte lies in the file's byte range `[start, stop)`:
    /// DataFusion splits a file into byte ranges that tile it, so every row falls in exactly
    /// one range. Rows of 0 bytes all go to the range holding the data's offset (the last range
    /// when the data is at the end of the file).
    /// A deflated member's rows (`streamed`) all go to the range holding its local header.
    pub fn rows_in(&self, start: u64, stop: u64, file_size: u64) -> (u64, u64) {
        if self.row_bytes == 0 || self.streamed {
            let here = start <= self.data_offset && (self.data_offset < stop || stop >= file_size);
            return if here { (0, self.rows) } else { (0, 0) };
        }
        let row_at = |byte: u64| -> u64 {
            let from_data = byte.saturating_sub(self.data_offset);
            from_data.div_ceil(self.row_bytes).min(self.rows)
        };
        (row_at(start), row_at(stop))
    }
}

/// Headers already read, by location, size and modification time: `infer_schema` reads every
/// shard's header once and `infer_stats` and the scans of the same session take them from here
/// (a changed file, a new size or time, is read again). One entry per file a table lists.
#[derive(Debug, Default)]
pub(crate) struct HeaderCache {
    entries: Mutex<HashMap<(String, u64, i64), Arc<Shard>>>,
}

impl HeaderCache {
    fn key(meta: &ObjectMeta) -> (String, u64, i64) {
        (
            meta.location.to_string(),
            meta.size,
            meta.last_modified.timestamp_nanos_opt().unwrap_or_default(),
        )
    }

    /// The shard of `meta`, from the cache or read from `store`: the `.npy` file, or with
    /// `member` the member of that key of the `.npz` archive (one format, one member: the
    /// cache is the format's). Errors name the file `path` (`crate::location::file_name`).
    pub async fn get(
        &self,
        store: &Arc<dyn ObjectStore>,
        meta: &ObjectMeta,
        member: Option<&str>,
        path: &str,
    ) -> Result<Arc<Shard>, Error> {
        let key = Self::key(meta);
        if let Some(s) = self.lock().get(&key) {
            return Ok(Arc::clone(s));
        }
        let shard = Arc::new(match member {
            None => read_shard(store, meta, path).await?,
            Some(member) => crate::npz::read_member_shard(store, meta, member, path).await?,
        });
        self.lock().insert(key, Arc::clone(&shard));
        Ok(shard)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, u64, i64), Arc<Shard>>> {
        // A panic while holding the lock cannot leave the map half-written (one insert).
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn store_error(path: &str, source: object_store::Error) -> Error {
    Error::Store {
        path: path.to_owned(),
        source,
    }
}

fn npy_error(path: &str, source: npy_core::Error) -> Error {
    Error::Npy {
        path: path.to_owned(),
        source,
    }
}

/// The header length a prefix states (magic, version, `HEADER_LEN`), prefix included, when the
/// prefix is whole and well formed; `None` lets [`Header::read`] say what is wrong.
fn stated_header_end(head: &[u8]) -> Option<u64> {
    if head.len() < 12 || &head[..6] != MAGIC {
        return None;
    }
    match head[6] {
        1 => Some(10 + u64::from(u16::from_le_bytes([head[8], head[9]]))),
        2 | 3 => Some(12 + u64::from(u32::from_le_bytes([head[8], head[9], head[10], head[11]]))),
        _ => None,
    }
}

/// Reads and checks the header of the `.npy` file `meta` in `store`: one ranged read of
/// [`HEADER_PROBE_BYTES`], a second one of the header's exact length when it is longer (at
/// most npy-core's [`npy_core::header::DEFAULT_MAX_HEADER_LEN`]). Errors name the file `path`.
///
/// # Errors
/// [`Error::Store`] for a failed read; [`Error::Npy`] for a malformed header or a file shorter
/// than its header's data; [`Error::Unsupported`] for object dtypes; [`Error::UnbackedRows`]
/// past [`npy_arrow::MAX_UNBACKED_ROWS`]; [`Error::Arrow`] for a dtype with no Arrow type.
pub(crate) async fn read_shard(
    store: &Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
    path: &str,
) -> Result<Shard, Error> {
    let size = meta.size;
    let probe = size.min(HEADER_PROBE_BYTES);
    let mut head = if probe == 0 {
        bytes::Bytes::new()
    } else {
        store
            .get_range(&meta.location, 0..probe)
            .await
            .map_err(|e| store_error(path, e))?
    };
    if let Some(end) = stated_header_end(&head) {
        let limit = npy_core::header::DEFAULT_MAX_HEADER_LEN.saturating_add(12);
        if end > probe && end <= size && end <= limit {
            head = store
                .get_range(&meta.location, 0..end)
                .await
                .map_err(|e| store_error(path, e))?;
        }
    }
    let parsed = Header::read(&mut &head[..]).map_err(|e| npy_error(path, e))?;
    Shard::from_header(&parsed, size, path)
}

impl Shard {
    /// The shard a parsed header describes, in a file (or `.npz` member) of `size` bytes, with
    /// its checks: the data fits in `size`, no Python objects, rows of no bytes within
    /// budget, a dtype npy-arrow maps. `data_offset` is from the start of the `.npy` bytes.
    ///
    /// # Errors
    /// As [`read_shard`], less the store's.
    pub(crate) fn from_header(
        parsed: &npy_core::header::ParsedHeader,
        size: u64,
        path: &str,
    ) -> Result<Shard, Error> {
        parsed
            .check_data_len(size)
            .map_err(|e| npy_error(path, e))?;
        let header = &parsed.header;
        if header.dtype.has_object() {
            return Err(Error::Unsupported {
                path: path.to_owned(),
                what: format!(
                    "dtype {} holds Python objects (pickled data has no fixed row size; \
                     convert the array to a string or number dtype)",
                    header.dtype
                ),
            });
        }
        let data_bytes = header.nbytes().map_err(|e| npy_error(path, e))?;
        let (rows, trailing) = match header.shape.split_first() {
            Some((&n, rest)) => (n, rest.to_vec()),
            None => (1, Vec::new()),
        };
        let fortran = header.fortran_order
            && !header.shape.contains(&0)
            && header.shape.iter().filter(|&&d| d != 1).count() > 1;
        // nbytes() proved itemsize × every non-zero axis fits, so a row's bytes fit too.
        let row_bytes = trailing
            .iter()
            .try_fold(header.dtype.itemsize(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::Unsupported {
                path: path.to_owned(),
                what: format!("a row of shape {trailing:?} overflows 64 bits"),
            })?;
        if row_bytes == 0 && rows > npy_arrow::MAX_UNBACKED_ROWS {
            return Err(Error::UnbackedRows {
                path: path.to_owned(),
                rows,
                budget: npy_arrow::MAX_UNBACKED_ROWS,
            });
        }
        let shard = Shard {
            dtype: header.dtype.clone(),
            trailing,
            rows,
            fortran,
            data_offset: parsed.data_offset(),
            streamed: false,
            row_bytes,
            data_bytes,
        };
        // The mapping is checked here, so a dtype without an Arrow type names its file.
        npy_arrow::schema_for(&shard.native_dtype(), &header.shape, "value").map_err(|e| {
            Error::Arrow {
                path: path.to_owned(),
                source: e,
            }
        })?;
        Ok(shard)
    }
}
