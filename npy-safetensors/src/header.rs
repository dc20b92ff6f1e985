//! The header: 8-byte length, JSON, validation.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;

use serde::de::{self, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dtype::SafeDType;
use crate::error::{Error, ErrorKind};

/// The largest header accepted, in bytes: 16 MiB, room for about 200,000 tensor entries. The
/// parsed entries take about twice the JSON's bytes, so a header costs at most ~50 MiB
/// whatever the file claims (the safetensors crate allows 100 MB).
pub const MAX_HEADER_LEN: u64 = 16 << 20;

/// The most dimensions a tensor may have (numpy's limit, so every tensor converts).
const MAX_DIMS: usize = 64;

/// One tensor of a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorEntry {
    name: String,
    dtype: SafeDType,
    shape: Vec<u64>,
    begin: u64,
    end: u64,
}

impl TensorEntry {
    /// The tensor's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its dtype.
    pub fn dtype(&self) -> SafeDType {
        self.dtype
    }
    /// Its shape, outermost first (`[]` for a scalar).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }
    /// Its bytes' range in the data section (`data_offsets`), in bytes from the section's start.
    pub fn data_range(&self) -> std::ops::Range<u64> {
        self.begin..self.end
    }
    /// Its size in bytes.
    pub fn nbytes(&self) -> u64 {
        self.end - self.begin
    }
}

/// A validated header: the tensors in data order, the metadata, where the data starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafetensorsHeader {
    tensors: Vec<TensorEntry>,
    /// Indices into `tensors` in name order, for [`SafetensorsHeader::tensor`]'s binary
    /// search (a name looked up per tensor stays O(n log n) over a header of 200,000).
    by_name: Vec<usize>,
    metadata: Option<BTreeMap<String, String>>,
    data_start: u64,
}

/// Other keys are ignored, as the safetensors crate ignores them.
#[derive(Deserialize)]
struct RawEntry {
    dtype: String,
    shape: Vec<u64>,
    data_offsets: (u64, u64),
}

/// The top-level object's entries in file order, each value left as raw JSON (borrowed).
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object of tensors")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn invalid(name: &str, reason: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidTensor {
        name: name.to_owned(),
        reason: reason.into(),
    })
}

impl SafetensorsHeader {
    /// Reads and validates the header at the start of `r`, a file of `file_len` bytes.
    ///
    /// Steps, each with its own error: the 8-byte length and the header within the file
    /// (npy-core's `ErrorKind::Truncated`, in [`ErrorKind::Npy`]), the length's limit
    /// ([`ErrorKind::HeaderTooLong`]: over [`MAX_HEADER_LEN`] or past the file's end, checked
    /// before anything is allocated), UTF-8 ([`ErrorKind::HeaderNotUtf8`]), JSON
    /// ([`ErrorKind::HeaderJson`]: also a repeated name or a metadata value that is not a
    /// string), each entry ([`ErrorKind::InvalidTensor`]: unknown dtype, more than 64
    /// dimensions, a size that overflows, offsets that do not match the size, overlap or leave
    /// a gap), and the data section's length ([`ErrorKind::DataLength`]).
    ///
    /// # Errors
    /// As above; [`ErrorKind::Io`] when reading fails.
    pub fn read<R: Read>(r: &mut R, file_len: u64) -> Result<SafetensorsHeader, Error> {
        let mut len = [0u8; 8];
        if file_len < 8 {
            return Err(truncated("header length", 8, file_len));
        }
        r.read_exact(&mut len)
            .map_err(|e| Error::io(e, "reading the header length"))?;
        let n = u64::from_le_bytes(len);
        if n > MAX_HEADER_LEN {
            return Err(Error::new(ErrorKind::HeaderTooLong {
                len: n,
                max: MAX_HEADER_LEN,
            }));
        }
        if n > file_len - 8 {
            return Err(truncated("header", n + 8, file_len));
        }
        let mut buf = vec![0u8; n as usize];
        r.read_exact(&mut buf)
            .map_err(|e| Error::io(e, "reading the header"))?;
        let header = Self::parse(&buf, file_len - 8 - n)?;
        Ok(SafetensorsHeader {
            data_start: 8 + n,
            ..header
        })
    }

    /// Parses and validates header JSON bytes (without the length prefix) for a data section
    /// of `data_len` bytes. `data_start` of the result is 0 (unknown).
    ///
    /// # Errors
    /// As [`SafetensorsHeader::read`] from the UTF-8 step on.
    pub fn parse(json: &[u8], data_len: u64) -> Result<SafetensorsHeader, Error> {
        let text = std::str::from_utf8(json).map_err(|e| {
            Error::new(ErrorKind::HeaderNotUtf8 {
                valid_up_to: e.valid_up_to(),
            })
        })?;
        let Entries(entries) = serde_json::from_str(text.trim_end_matches(' '))
            .map_err(|e| Error::new(ErrorKind::HeaderJson(e.to_string())))?;
        let mut metadata = None;
        let mut tensors = Vec::with_capacity(entries.len());
        for (name, raw) in entries {
            if name == "__metadata__" {
                if metadata.is_some() {
                    return Err(Error::new(ErrorKind::HeaderJson(
                        "\"__metadata__\" appears twice".to_owned(),
                    )));
                }
                let m: BTreeMap<String, String> = serde_json::from_str(raw.get())
                    .map_err(|e| Error::new(ErrorKind::HeaderJson(format!("__metadata__: {e}"))))?;
                metadata = Some(m);
                continue;
            }
            let e: RawEntry =
                serde_json::from_str(raw.get()).map_err(|e| invalid(&name, e.to_string()))?;
            let dtype = SafeDType::from_name(&e.dtype)
                .ok_or_else(|| invalid(&name, format!("unknown dtype {:?}", e.dtype)))?;
            if e.shape.len() > MAX_DIMS {
                return Err(invalid(
                    &name,
                    format!("{} dimensions, more than {MAX_DIMS}", e.shape.len()),
                ));
            }
            let (begin, end) = e.data_offsets;
            tensors.push(TensorEntry {
                name,
                dtype,
                shape: e.shape,
                begin,
                end,
            });
        }
        Self::validate(tensors, metadata, data_len)
    }

    /// The always-made check after parsing: names unique, sizes without overflow, the
    /// tensors tiling `0..data_len` exactly in offset order.
    fn validate(
        mut tensors: Vec<TensorEntry>,
        metadata: Option<BTreeMap<String, String>>,
        data_len: u64,
    ) -> Result<SafetensorsHeader, Error> {
        {
            let mut names: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
            names.sort_unstable();
            if let Some(name) = names.windows(2).find_map(|w| match w {
                [a, b] if a == b => Some(*a),
                _ => None,
            }) {
                return Err(Error::new(ErrorKind::HeaderJson(format!(
                    "tensor {name:?} appears twice"
                ))));
            }
        }
        tensors.sort_by_key(|t| (t.begin, t.end));
        let mut at = 0u64;
        for t in &tensors {
            let size = t
                .shape
                .iter()
                .try_fold(t.dtype.itemsize(), |acc, &d| acc.checked_mul(d))
                .ok_or_else(|| invalid(&t.name, "its size overflows 64 bits"))?;
            if t.begin != at {
                let why = if t.begin < at {
                    format!("data_offsets start at {}, overlapping the tensor before (which ends at {at})", t.begin)
                } else {
                    format!(
                        "data_offsets start at {}, leaving a gap after byte {at}",
                        t.begin
                    )
                };
                return Err(invalid(&t.name, why));
            }
            if t.end < t.begin || t.end - t.begin != size {
                return Err(invalid(
                    &t.name,
                    format!(
                        "data_offsets [{}, {}] do not hold its {size} bytes ({} of shape {:?})",
                        t.begin,
                        t.end,
                        t.dtype.name(),
                        t.shape
                    ),
                ));
            }
            at = t.end;
        }
        if at != data_len {
            return Err(Error::new(ErrorKind::DataLength {
                expected: at,
                found: data_len,
            }));
        }
        let mut by_name: Vec<usize> = (0..tensors.len()).collect();
        by_name.sort_unstable_by(|&a, &b| tensors[a].name.cmp(&tensors[b].name));
        Ok(SafetensorsHeader {
            tensors,
            by_name,
            metadata,
            data_start: 0,
        })
    }

    /// The tensors in data order (by `data_offsets`).
    pub fn tensors(&self) -> &[TensorEntry] {
        &self.tensors
    }

    /// The tensor named `name`.
    pub fn tensor(&self, name: &str) -> Option<&TensorEntry> {
        let at = self
            .by_name
            .binary_search_by(|&i| self.tensors[i].name.as_str().cmp(name))
            .ok()?;
        self.tensors.get(self.by_name[at])
    }

    /// The `"__metadata__"` map, when the header has one.
    pub fn metadata(&self) -> Option<&BTreeMap<String, String>> {
        self.metadata.as_ref()
    }

    /// The file offset of the data section (8 + the header length).
    pub fn data_start(&self) -> u64 {
        self.data_start
    }
}

/// A file shorter than the `what` it announces (`needed` bytes, `found` present): npy-core's
/// [`npy_core::ErrorKind::Truncated`], the one kind for a file that ends before what its own
/// prefix or header promises, whatever the format.
fn truncated(what: &'static str, needed: u64, found: u64) -> Error {
    Error::from(npy_core::Error::from(npy_core::ErrorKind::Truncated {
        what,
        needed,
        found,
    }))
}
