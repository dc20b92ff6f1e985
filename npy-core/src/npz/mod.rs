//! `.npz` archives: a zip of `.npy` members, as `np.savez`, `np.savez_compressed` and
//! `np.load` write and read them (feature `npz`, on by default).
//!
//! - [`NpzArchive`] opens an archive (a path or any `Read + Seek`), lists its members as
//!   numpy's `files` does and reads each by numpy's lookup rules ([`names`]): the header
//!   alone, a typed array, [`crate::DynArray`], records, an `ndarray`, a streaming
//!   [`crate::NpyReader`], or raw bytes for members that are not `.npy` files.
//! - [`view_member`] and [`view_or_copy_member`] borrow a stored member's array from the
//!   archive's bytes in memory (a `Vec` or a memory map) without copying.
//! - [`NpzWriter`] writes archives, stored or deflated, deterministic, with stored members
//!   64-byte aligned so that they can be viewed in place.
//!
//! # Untrusted archives
//!
//! What reading an archive from a stranger guarantees, beyond the `.npy` guarantees of the
//! crate root:
//!
//! - Opening reads the central directory only, in time linear in the number of members; a
//!   count the directory's bytes cannot hold fails when they run out.
//! - A member's declared sizes must be backed by the archive ([`limits`]): a stored member
//!   lies between its local header and the central directory; a deflated one claims at most
//!   [`limits::MAX_DEFLATE_RATIO`] times its compressed bytes. The `.npy` header must then
//!   describe exactly the member's size, so nothing is allocated beyond what the archive can
//!   back, and inflating past the declared size is [`NpzError::InflatesPast`] at the first
//!   extra byte.
//! - The CRC-32 is checked by every read that reaches a member's end
//!   ([`NpzError::CrcMismatch`]); views do not read the bytes and do not check it.
//! - Compression methods other than stored and deflate, and encrypted members, are typed
//!   errors naming what was found; the data offset comes from each member's local header.

mod error;
pub mod limits;
pub mod names;
mod pardeflate;
mod read;
mod write;

pub use crate::write::PendingFile;
pub use error::NpzError;
pub use names::{key_of, member_name, positional_key};
pub use read::{view_member, view_or_copy_member, Member, MemberReader, NpzArchive};
pub use write::{Compression, MemberStream, NpzPathWriter, NpzWriter, DEFAULT_ALIGNMENT};

/// Reads everything an archive in `bytes` holds, ignoring errors: every member's header,
/// array ([`NpzArchive::read_dyn`]), bytes and view. The fuzz target `fuzz/fuzz_targets/npz.rs`
/// feeds it hostile input; it must never panic nor allocate beyond what the input backs.
#[doc(hidden)]
pub fn exercise(bytes: &[u8]) {
    let Ok(mut npz) = NpzArchive::new(std::io::Cursor::new(bytes)) else {
        return;
    };
    let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
    for key in keys {
        let _ = npz.info(&key);
        let _ = npz.read_dyn(&key);
        let _ = npz.read_bytes(&key);
        if let Ok(mut r) = npz.npy_reader(&key) {
            let _ = r.read_range::<u8>(1..2);
        }
        let _ = view_or_copy_member::<f32>(bytes, &key);
    }
}
