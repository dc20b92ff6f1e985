//! [`NpzError`]: what can be wrong with an `.npz` archive or a member, beyond the `.npy`
//! errors.
//!
//! Defined here, beside [`ErrorKind`](super::ErrorKind), which carries it as
//! [`ErrorKind::Npz`](super::ErrorKind::Npz): the error module sits below every other, and the
//! archive module at the top of the module graph.

use super::Category;

/// What is wrong with an `.npz` archive, one of its members, or a write (the crate's
/// [`Error`](crate::Error) carries it as [`ErrorKind::Npz`](super::ErrorKind::Npz)).
///
/// Messages name the member (its name inside the zip) and what was found there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NpzError {
    /// The zip container cannot be read: no end-of-central-directory record, a central
    /// directory that runs past the file, a bad signature (the zip crate's message).
    #[error("not a readable zip archive: {0}")]
    Container(String),

    /// No member has the key (numpy's lookup: the exact member name, then the key + `.npy`).
    #[error("archive has no member {key:?} (keys: {})", list(.keys))]
    MissingMember {
        /// The key asked for.
        key: String,
        /// The archive's keys (numpy's `files`), the first few.
        keys: Vec<String>,
    },

    /// A compression method other than stored (0) and deflate (8), which numpy never writes.
    #[error("member {member:?} is compressed with method {method} ({}), only stored (0) and deflate (8) are read", method_name(*.method))]
    UnsupportedMethod {
        /// The member's name.
        member: String,
        /// The method number from the central directory.
        method: u16,
    },

    /// An encrypted member (general-purpose flag bit 0): numpy cannot read it either.
    #[error("member {member:?} is encrypted; encrypted members are not read")]
    Encrypted {
        /// The member's name.
        member: String,
    },

    /// The member's bytes do not have the CRC-32 the archive records for them.
    #[error("member {member:?} fails its CRC check: the archive records {expected:#010x}, its bytes give {found:#010x}")]
    CrcMismatch {
        /// The member's name.
        member: String,
        /// The CRC-32 in the central directory.
        expected: u32,
        /// The CRC-32 of the bytes read.
        found: u32,
    },

    /// The member inflates to more bytes than the archive declares for it (a zip bomb, or a
    /// lying size).
    #[error("member {member:?} inflates past its declared size of {declared} bytes")]
    InflatesPast {
        /// The member's name.
        member: String,
        /// The uncompressed size the central directory declares.
        declared: u64,
    },

    /// The member's declared size is not what its `.npy` header needs (header + data).
    #[error("member {member:?} declares {declared} bytes, its .npy header describes {needed} (header and data)")]
    SizeMismatch {
        /// The member's name.
        member: String,
        /// The uncompressed size the central directory declares.
        declared: u64,
        /// `data offset + prod(shape) × itemsize` of the member's `.npy` header.
        needed: u64,
    },

    /// A size the archive declares that its bytes cannot back: a stored member running past
    /// the central directory, or a deflated member claiming more than deflate can expand its
    /// compressed bytes to.
    #[error("member {member:?} claims {claimed} bytes, which its {backing} cannot hold")]
    Unbacked {
        /// The member's name.
        member: String,
        /// The size claimed, in bytes.
        claimed: u64,
        /// What bounds it, e.g. "1,024 compressed bytes (at most 1032× when inflated)".
        backing: String,
    },

    /// The member is not a `.npy` file (numpy's `np.load(...)[key]` returns such members as
    /// raw bytes): read it with `read_bytes`.
    #[error("member {member:?} is not an .npy file (it starts with {start}); read it as bytes")]
    NotNpyMember {
        /// The member's name.
        member: String,
        /// Its first bytes, escaped.
        start: String,
    },

    /// A zero-copy view of a deflated member, whose bytes exist only once inflated.
    #[error("member {member:?} is deflated; only stored members can be viewed in place (use view_or_copy or a copying read)")]
    NotStored {
        /// The member's name.
        member: String,
    },

    /// The member's bytes (local header to the end of its data) share bytes with another
    /// member's, or run into the central directory: members that share bytes let a small
    /// archive name gigabytes (unzip: "overlapped components (possible zip bomb)", Python's
    /// zipfile: "Overlapped entries"). Every member of an overlap is refused.
    #[error("member {member:?} shares bytes with another entry: it ends at byte {data_end}, and the entry at byte {next} overlaps it; refused (a possible zip bomb)")]
    Overlapped {
        /// The member's name.
        member: String,
        /// Where the member's compressed data ends in the archive.
        data_end: u64,
        /// Where the overlapping entry (its local header), or the central directory, starts.
        next: u64,
    },

    /// The member's local header names another file than its central-directory entry
    /// (Python's zipfile refuses to read it: "File name in directory ... and header ...
    /// differ").
    #[error("member {member:?}: its local header names {local:?}; refused (the names must agree)")]
    NameMismatch {
        /// The member's name in the central directory.
        member: String,
        /// The name in its local header (lossy UTF-8).
        local: String,
    },

    /// Writing: a key numpy would refuse or that would not round-trip (a NUL, empty).
    #[error("invalid key {key:?}: {reason}")]
    InvalidKey {
        /// The key.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// Writing: a member name already in the archive (numpy refuses `savez(f, x, arr_0=y)`).
    #[error("member {member:?} is already in the archive")]
    DuplicateMember {
        /// The member's name.
        member: String,
    },
}

fn list(keys: &[String]) -> String {
    if keys.is_empty() {
        return "none".to_owned();
    }
    let shown: Vec<String> = keys.iter().take(8).map(|k| format!("{k:?}")).collect();
    let more = keys.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{}, ... ({more} more)", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// APPNOTE 4.4.5's name of a compression method number.
pub(crate) fn method_name(method: u16) -> &'static str {
    match method {
        0 => "stored",
        1 => "shrink",
        2..=5 => "reduce",
        6 => "implode",
        8 => "deflate",
        9 => "deflate64",
        12 => "bzip2",
        14 => "lzma",
        93 => "zstd",
        95 => "xz",
        96 => "jpeg",
        97 => "wavpack",
        98 => "ppmd",
        99 => "aes",
        _ => "unknown",
    }
}

impl NpzError {
    /// The [`Category`] of this error: a broken container or member is the input's fault
    /// (`Format`), a missing key or a member of another kind is a `Mismatch`, sizes beyond
    /// what the bytes back are a `Limit`, methods and encryption numpy never writes are
    /// `Unsupported`, and bad keys on writing are `Usage`.
    pub fn category(&self) -> Category {
        use NpzError::*;
        match self {
            Container(_)
            | CrcMismatch { .. }
            | InflatesPast { .. }
            | SizeMismatch { .. }
            | Overlapped { .. }
            | NameMismatch { .. } => Category::Format,
            MissingMember { .. } | NotNpyMember { .. } | NotStored { .. } => Category::Mismatch,
            Unbacked { .. } => Category::Limit,
            UnsupportedMethod { .. } | Encrypted { .. } => Category::Unsupported,
            InvalidKey { .. } | DuplicateMember { .. } => Category::Usage,
        }
    }
}
