//! numpy's naming rules for `.npz` members (`numpy/lib/_npyio_impl.py`, numpy 2.4.6).
//!
//! - **Writing** (`_savez`): a keyword array `key` is stored as the member `key + ".npy"`,
//!   always, even when `key` already ends in `.npy` (`x.npy` becomes `x.npy.npy`); positional
//!   arrays are named `arr_0`, `arr_1`, … in order; a positional name that is also a keyword
//!   is an error (`ValueError: Cannot use un-named variables and keyword arr_0`). Keys with
//!   `/` are written as given (a member in a zip "folder").
//! - **Listing** (`NpzFile.files`): every member, in central-directory order, with one
//!   trailing `.npy` removed (`name.removesuffix(".npy")`); members that are not `.npy`
//!   files are listed too.
//! - **Lookup** (`NpzFile.__getitem__`): the exact member name first, then the key +
//!   `.npy`; with duplicate member names the last one wins.
//! - **Content** (`__getitem__`): a member whose bytes start with the `.npy` magic is read as
//!   an array, any other member is returned as its raw bytes (whatever its name).

use crate::error::{Error, ErrorKind};

/// The key numpy lists a member under: its name with one trailing `.npy` removed.
///
/// # Examples
/// ```
/// use npy_npz::key_of;
/// assert_eq!(key_of("arr_0.npy"), "arr_0");
/// assert_eq!(key_of("x.npy.npy"), "x.npy");
/// assert_eq!(key_of("notes.txt"), "notes.txt");
/// ```
pub fn key_of(member: &str) -> &str {
    member.strip_suffix(".npy").unwrap_or(member)
}

/// The member name `np.savez` writes for a key: the key + `.npy`, always.
///
/// # Errors
/// [`ErrorKind::InvalidKey`] for an empty key or one holding a NUL (zip names are
/// NUL-free C strings to many readers; Python's `zipfile` cuts a name at its first NUL).
pub fn member_name(key: &str) -> Result<String, Error> {
    check_key(key)?;
    Ok(format!("{key}.npy"))
}

/// The key of the `index`-th positional array: `arr_0`, `arr_1`, …
pub fn positional_key(index: u64) -> String {
    format!("arr_{index}")
}

/// Refuses keys that numpy's archive could not hold or give back.
pub(crate) fn check_key(key: &str) -> Result<(), Error> {
    let reason = if key.is_empty() {
        "a key must not be empty"
    } else if key.contains('\0') {
        "a zip member name cannot hold a NUL (Python's zipfile cuts the name there)"
    } else if key.len() > usize::from(u16::MAX) - 4 {
        "a zip member name holds at most 65,535 bytes"
    } else {
        return Ok(());
    };
    let shown: String = key.chars().take(64).collect();
    Err(Error::from(ErrorKind::InvalidKey { reason }).with_member(&shown))
}
