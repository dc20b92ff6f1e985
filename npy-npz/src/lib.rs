//! `.npz` archives — a zip of `.npy` members — as `np.savez`, `np.savez_compressed` and
//! `np.load` write and read them, over [npy-core](npy_core)'s `.npy` format.
//!
//! - [`NpzArchive`] opens an archive ([`NpzArchive::open`] for a file, [`NpzArchive::new`]
//!   for any positional source: bytes in memory, a memory map's slice, a remote object
//!   through [`npy_core::ReadAt`]), lists its members as numpy's `files` does and reads each
//!   by numpy's lookup rules ([`names`]): the header alone, a typed array,
//!   [`npy_core::DynArray`], a streaming [`npy_core::NpyReader`], raw bytes for members that
//!   are not `.npy` files, or a view of a stored member in the archive's own bytes.
//! - [`NpzWriter`] writes archives, stored or deflated (on several threads), deterministic,
//!   with stored members 64-byte aligned so that they can be viewed in place. The zip
//!   container is written here, as Python's zipfile writes it for `np.savez`.
//! - [`Error`] names the archive's file and the member; [`ErrorKind`] says what is wrong,
//!   npy-core's error inside for a member's `.npy` content.
//!
//! | task | the call |
//! |---|---|
//! | read a member | [`NpzArchive::open`]`(path)?.`[`read::<T>`](NpzArchive::read)`(key)?` |
//! | any dtype | [`NpzArchive::read_dyn`] |
//! | header only | [`NpzArchive::header`] / [`NpzArchive::info`] |
//! | stream rows | [`NpzArchive::npy_reader`] |
//! | view in place | [`NpzArchive::view`] (over bytes in memory) |
//! | write | [`NpzWriter::create`]`(path)?`, [`add`](NpzWriter::add), [`finish`](NpzPathWriter::finish) |
//! | one array `.npy` ↔ `.npz` | [`convert`]`(input, output, member)` |
//!
//! # Examples
//! ```
//! use npy_npz::{NpzArchive, NpzWriter};
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("pair.npz");
//! let mut w = NpzWriter::create(&path)?;
//! w.add("x", &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
//! w.add("labels", &[7i64, 8], &[2])?;
//! w.finish()?;
//!
//! let npz = NpzArchive::open(&path)?;
//! assert_eq!(npz.keys().collect::<Vec<_>>(), ["x", "labels"]);
//! assert_eq!(npz.read::<f32>("x")?.shape(), [2, 2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Untrusted archives
//!
//! What reading an archive from a stranger guarantees, beyond npy-core's `.npy` guarantees:
//!
//! - Opening reads the end of the source once and walks the central directory once, in time
//!   linear in the number of members; every size and offset is checked arithmetic, and the
//!   directory must lie inside the file before its bytes are read.
//! - A member's declared sizes must be backed by the archive ([`limits`]): a stored member
//!   lies between its local header and the central directory, its size at most its stored
//!   bytes (zipfile reads the first `size` of them); a deflated one claims at most
//!   [`limits::MAX_DEFLATE_RATIO`] times its compressed bytes. The `.npy` header must then
//!   describe exactly the member's size before its data is allocated, and inflating past the
//!   declared size is [`ErrorKind::InflatesPast`].
//! - Zip as Python's zipfile and unzip read it: the end record is found as zipfile finds it
//!   (bytes may follow it) and the directory is the bytes its size gives before it, walked by
//!   that size whatever the entry counts say (a count of 0 with a real directory lists its
//!   members, as numpy does); members that share bytes are refused
//!   ([`ErrorKind::Overlapped`]); the local header must name the member as the directory
//!   does, compared as decoded text ([`ErrorKind::NameMismatch`]); names decode as UTF-8
//!   under flag bit 11 (refused if they are not) and as CP437 otherwise, and are listed up to
//!   a NUL; the Unicode Path extra field (0x7075) is not read; every extra field must be
//!   well formed, and zip64 fields replace the 0xFFFFFFFF ones; an entry needing a version
//!   past 6.3 refuses the archive, flag bits 5 and 6 the member
//!   ([`ErrorKind::UnsupportedFlags`]); a repeated name reads its last entry. Where zipfile
//!   reads a member whose bytes end before its declared size, this reader refuses it (the
//!   declared size bounds every allocation); and where zipfile reads a member placed after
//!   the central directory (its local header in the end record's comment), this reader
//!   refuses it as [`ErrorKind::Unbacked`]: the room that bounds a member's declared size
//!   before anything is read is the bytes between its data and the directory, and no zip
//!   writer puts a member after its directory.
//! - The CRC-32 is checked once by every read that reaches a member's end, zero-size members
//!   included ([`ErrorKind::CrcMismatch`]); views do not read the bytes and do not check it.
//! - Compression methods other than stored and deflate, and encrypted members, are typed
//!   errors naming what was found.
//!
//! Object members (`|O`) are decoded by npy-core's dynamic read with the archive's
//! [`npy_core::ReadOptions`], whatever decoder those options name.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod convert;
mod error;
mod inflate;
pub mod limits;
pub mod names;
mod pardeflate;
#[cfg(not(target_arch = "wasm32"))]
mod parinflate;
mod read;
mod write;
mod zip;

pub use convert::convert;
pub use error::{Backing, ContainerFault, Error, ErrorKind};
pub use names::{key_of, member_name, positional_key};
pub use read::{
    Member, MemberReader, NpzArchive, PREFETCH_AHEAD_BYTES, PREFETCH_BUDGET_BYTES,
    PREFETCH_GAP_BYTES,
};
pub use write::{
    Compression, MemberStream, NpzPathWriter, NpzWriter, DEFAULT_ALIGNMENT, MAX_ALIGNMENT,
};
pub use zip::{MIN_SUFFIX_BYTES, SUFFIX_BYTES};

/// Reads everything an archive in `bytes` holds, ignoring errors: every member's header,
/// array ([`NpzArchive::read_dyn`]), bytes and view. The fuzz target `fuzz/fuzz_targets/npz.rs`
/// feeds it hostile input; it must never panic nor allocate beyond what the input backs.
#[doc(hidden)]
pub fn exercise(bytes: &[u8]) {
    let Ok(npz) = NpzArchive::new(bytes) else {
        return;
    };
    let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
    for key in keys {
        let _ = npz.info(&key);
        let _ = npz.read_dyn(&key);
        let _ = npz.read_bytes(&key);
        let _ = npz.read::<f32>(&key);
        let _ = npz.verify(&key);
        if let Ok(mut r) = npz.npy_reader(&key) {
            let _ = r.read_range::<u8>(1..2);
        }
        let _ = npz.view_or_copy::<f32>(&key);
    }
}

/// Inflates `bytes` as a raw deflate stream with the two-thread inflate and compares it with
/// the sequential inflate (libdeflate's one call), at two declared sizes: what libdeflate makes
/// of the stream (up to 4 MiB) and the size the input's last three bytes name (up to 16 MiB,
/// so that sizes a wrong split would fill are reachable, issue 42's F7). Both must give the
/// same bytes and CRC-32, or the same error. The fuzz target `fuzz/fuzz_targets/inflate.rs`
/// feeds it hostile input; it panics only on a mismatch.
#[doc(hidden)]
#[cfg(not(target_arch = "wasm32"))]
pub fn exercise_inflate(bytes: &[u8]) {
    parinflate::exercise(bytes);
}
