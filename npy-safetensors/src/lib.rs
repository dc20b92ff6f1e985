//! safetensors files for NumPy users: read their header safely, and convert `.npy` / `.npz`
//! files to and from them, streaming, in bounded memory.
//!
//! A safetensors file is an 8-byte little-endian header length `N`, `N` bytes of JSON
//! (`{"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, …}`, an
//! optional `"__metadata__"` map of strings, padded with spaces), then the tensors' raw
//! little-endian bytes in C order, back to back. This crate depends on no safetensors
//! implementation: the format is that small, and a converter needs to stream the data, which
//! the `safetensors` crate's API (whole buffers in, whole buffers out) does not.
//!
//! - [`SafetensorsHeader::read`] parses and validates a header: the length against the file,
//!   UTF-8, JSON, every dtype, shape and offset with checked arithmetic, the tensors exactly
//!   tiling the data. Every hostile header is an [`Error`], and the memory it takes is bounded
//!   by [`MAX_HEADER_LEN`] whatever it claims.
//! - [`SafetensorsFile`] opens a file: its tensors, and each one as an `.npy` stream
//!   ([`SafetensorsFile::npy_reader`]) for `npy_core`'s readers.
//! - [`to_safetensors`] converts an `.npz` or `.npy` file; the output is byte for byte what
//!   `safetensors.numpy.save_file` writes for the same arrays (its key order, JSON and
//!   padding). [`from_safetensors`] converts back to `.npz` (or `.npy` for one tensor).
//! - [`TensorWriter`] writes one tensor from an `npy_core::Header` and its data bytes as they
//!   come (through [`std::io::Write`]): the file [`to_safetensors`] writes for an `.npy` of
//!   that header and data, for a producer with no `.npy` file (a table converted to an array).
//!
//! # Examples
//! ```
//! # fn main() -> Result<(), npy_safetensors::Error> {
//! let dir = tempfile::tempdir().map_err(|e| npy_safetensors::Error::io(e, "tempdir"))?;
//! let npy = dir.path().join("w.npy");
//! npy_core::write(&npy, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! let st = dir.path().join("w.safetensors");
//! npy_safetensors::to_safetensors(&npy, &st, &npy_safetensors::ToOptions::default())?;
//! let file = npy_safetensors::SafetensorsFile::open(&st)?;
//! let t = &file.header().tensors()[0];
//! assert_eq!((t.name(), t.dtype().name(), t.shape()), ("w", "F32", &[2u64, 2][..]));
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

mod dtype;
mod error;
mod file;
mod header;
mod write;

pub use dtype::SafeDType;
pub use error::{Error, ErrorKind};
pub use file::{from_safetensors, SafetensorsFile};
pub use header::{SafetensorsHeader, TensorEntry, MAX_HEADER_LEN};
pub use write::{to_safetensors, TensorWriter, ToOptions, COPY_BUFFER_BYTES, MAX_THREADS};

/// Feeds `data` to every parser of the crate, as the fuzz target `safetensors` does: the
/// whole bytes as a file, and as header JSON for a data section of every length the bytes
/// could claim. Never panics; returns how many parses succeeded.
#[doc(hidden)]
pub fn exercise(data: &[u8]) -> usize {
    let mut ok = 0;
    if let Ok(h) = SafetensorsHeader::read(&mut &data[..], data.len() as u64) {
        for t in h.tensors() {
            let _ = (t.name(), t.dtype().to_npy(), t.shape(), t.data_range());
        }
        ok += 1;
    }
    for len in [0, data.len() as u64, u64::MAX] {
        ok += usize::from(SafetensorsHeader::parse(data, len).is_ok());
    }
    ok
}
