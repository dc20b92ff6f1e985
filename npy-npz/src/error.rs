//! [`Error`]: what went wrong with an archive, naming the archive's file (when it was opened
//! from a path) and the member; [`ErrorKind`] says what, with typed payloads.

use std::fmt;
use std::path::{Path, PathBuf};

use npy_core::error::Category;

/// An error of reading or writing an `.npz` archive.
///
/// [`Error::path`] is the archive's file when it was opened or created by path,
/// [`Error::member`] the member's key (numpy's name for it: the zip name with one `.npy`
/// removed, or the key asked for when no member has it). [`Error::kind`] says what is wrong; errors of a member's `.npy` content are
/// [`ErrorKind::Npy`], holding npy-core's error.
///
/// `Display` is one line: `path: member "key": message`.
///
/// # Examples
/// ```
/// use npy_npz::{ErrorKind, NpzArchive, NpzWriter};
/// let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
/// w.add("x", &[1u8, 2], &[2])?;
/// let bytes = w.finish()?.into_inner();
/// let npz = NpzArchive::new(bytes)?;
/// let e = npz.read::<u8>("y").unwrap_err();
/// assert!(matches!(e.kind(), ErrorKind::MissingMember { .. }));
/// assert_eq!(e.member(), Some("y"));
/// # Ok::<(), npy_npz::Error>(())
/// ```
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    member: Option<String>,
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as anyhow's and std's errors do; `{:#?}` is the structure (kind, path, member).
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("path", &self.path)
            .field("member", &self.member)
            .finish()
    }
}

/// What is wrong with an `.npz` archive, one of its members, or a write.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the archive's bytes failed (the operating system, the source).
    Io(std::io::Error),

    /// The member's `.npy` content is refused by npy-core (a broken header, data of another
    /// dtype than asked, a limit): its error.
    Npy(npy_core::Error),

    /// No end-of-central-directory record in the last 64 KiB + 22 bytes.
    NoEndRecord,

    /// The zip container is broken: a directory outside the file, a bad signature, a
    /// truncated entry, a corrupt extra field; `reason` says which, `at` is the byte where it
    /// was found.
    Container {
        /// What is wrong.
        reason: ContainerFault,
        /// Offset in the archive, in bytes.
        at: u64,
    },

    /// A name is not UTF-8 although its UTF-8 flag (bit 11) is set (Python's zipfile refuses
    /// the archive too).
    BadUtf8Name {
        /// The raw name, lossily decoded.
        lossy: String,
    },

    /// No member has the key (numpy's lookup: the exact member name, then the key + `.npy`).
    MissingMember {
        /// The key asked for.
        key: String,
        /// The archive's keys (numpy's `files`), the first eight.
        keys: Vec<String>,
    },

    /// A compression method other than stored (0) and deflate (8), which numpy never writes.
    UnsupportedMethod {
        /// The method number from the central directory.
        method: u16,
    },

    /// An encrypted member (general-purpose flag bit 0): numpy cannot read it either.
    Encrypted,

    /// A member whose general-purpose flags ask for what zip 2.7+ readers alone do: patched
    /// data (bit 5) or strong encryption (bit 6); Python's zipfile refuses it too.
    UnsupportedFlags {
        /// The flags, from the central directory.
        flags: u16,
    },

    /// The member's bytes do not have the CRC-32 the archive records for them.
    CrcMismatch {
        /// The CRC-32 in the central directory.
        expected: u32,
        /// The CRC-32 of the bytes read.
        found: u32,
    },

    /// The member inflates to more bytes than the archive declares for it.
    InflatesPast {
        /// The uncompressed size the central directory declares, in bytes.
        declared: u64,
    },

    /// The member's data ends before its declared size (a short stored member, a deflate
    /// stream that ends early).
    EndsEarly {
        /// The declared size, in bytes.
        declared: u64,
        /// The bytes there are.
        found: u64,
    },

    /// The member's deflate stream is not valid deflate.
    BadDeflate,

    /// The member's declared size is not what its `.npy` header needs (header + data).
    SizeMismatch {
        /// The uncompressed size the central directory declares, in bytes.
        declared: u64,
        /// `data offset + prod(shape) × itemsize` of the member's `.npy` header, in bytes.
        needed: u64,
    },

    /// A size the archive declares that its bytes cannot back (see [`crate::limits`]).
    Unbacked {
        /// The size claimed, in bytes.
        claimed: u64,
        /// What bounds it.
        backing: Backing,
    },

    /// The member is not a `.npy` file (numpy returns such members as raw bytes): read it
    /// with [`crate::NpzArchive::read_bytes`].
    NotNpyMember {
        /// Its first bytes (at most 8).
        start: Vec<u8>,
    },

    /// A zero-copy view of a deflated member, whose bytes exist only once inflated.
    NotStored,

    /// The member's bytes (local header to the end of its data) share bytes with another
    /// entry's, or run into the central directory (unzip: "overlapped components (possible
    /// zip bomb)"). Every member of an overlap is refused.
    Overlapped {
        /// Where the member's compressed data ends in the archive, in bytes.
        data_end: u64,
        /// Where the overlapping entry (its local header), or the central directory, starts.
        next: u64,
    },

    /// The member's local header names another file than its central-directory entry
    /// (Python's zipfile refuses to read it).
    NameMismatch {
        /// The name in its local header (lossy UTF-8).
        local: String,
    },

    /// Writing: a key numpy would refuse or that would not round-trip (a NUL, empty).
    InvalidKey {
        /// What is wrong with it.
        reason: &'static str,
    },

    /// Writing: a member name already in the archive (numpy refuses `savez(f, x, arr_0=y)`).
    DuplicateMember,
    /// [`crate::convert`]: a member key was given for an input that is a `.npy` file, not an
    /// archive.
    MemberOfNpy {
        /// The key given.
        key: String,
    },
    /// [`crate::convert`]: the input archive holds other than one array and no member key
    /// was given.
    ChooseMember {
        /// The archive's keys.
        keys: Vec<String>,
    },
    /// [`crate::convert`] of an object array (`|O`) without the feature `pickle`: its pickle
    /// is copied only once it decodes, which needs npy-pickle.
    NeedsPickle,
}

/// What is wrong with the zip container, for [`ErrorKind::Container`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContainerFault {
    /// The central directory's offset and size put it outside the file (or after its end
    /// record).
    DirectoryOutside,
    /// A central-directory entry without its signature, or cut short.
    BadEntry,
    /// An extra field whose record runs past it, or a zip64 record shorter than the
    /// 0xFFFFFFFF fields it must replace (Python's zipfile: "Corrupt extra field").
    BadExtra,
    /// An entry needs a later version of the format than 6.3 to be extracted (Python's
    /// zipfile refuses the archive too).
    Version {
        /// The "version needed to extract" (major × 10 + minor).
        needed: u8,
    },
    /// A multi-disk archive.
    MultiDisk,
    /// No local file header where the central directory says the member starts.
    NoLocalHeader,
}

/// What bounds a declared size, for [`ErrorKind::Unbacked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backing {
    /// The bytes between the member's data start and the central directory.
    Room {
        /// Where the member's data starts, in bytes.
        data_start: u64,
        /// Bytes from there to the central directory.
        room: u64,
    },
    /// A stored member's compressed size (its two sizes must agree).
    Stored {
        /// The compressed size, in bytes.
        compressed: u64,
    },
    /// A deflated member's compressed size: deflate expands at most
    /// [`crate::limits::MAX_DEFLATE_RATIO`]×.
    Deflate {
        /// The compressed size, in bytes.
        compressed: u64,
        /// The most it can inflate to, in bytes.
        most: u64,
    },
    /// This platform's address space (`usize`, 32 bits on `wasm32`): a whole-member read's
    /// buffer cannot be larger.
    AddressSpace {
        /// The bits of the address space (`usize::BITS`).
        bits: u32,
    },
}

impl Error {
    /// An error of `kind`, naming neither file nor member.
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            kind,
            path: None,
            member: None,
        }
    }

    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What is wrong, by value.
    pub fn into_kind(self) -> ErrorKind {
        self.kind
    }

    /// The archive's file, when it was opened or created by path (or the file npy-core's
    /// error inside names).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref().or(match &self.kind {
            ErrorKind::Npy(e) => e.path(),
            _ => None,
        })
    }

    /// The member's key, or the key asked for when no member has it.
    pub fn member(&self) -> Option<&str> {
        self.member.as_deref()
    }

    /// The error naming the archive's file `path` unless it names one already.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Error {
        if self.path().is_none() {
            self.path = Some(path.into());
        }
        self
    }

    /// The error naming the member `key` unless it names one already.
    #[must_use]
    pub(crate) fn with_member(mut self, key: &str) -> Error {
        if self.member.is_none() {
            self.member = Some(key.to_owned());
        }
        self
    }

    /// The kind of failure, as npy-core's [`Category`]: I/O, a broken container or member
    /// (`Format`), a missing key or a member of another kind (`Mismatch`), sizes beyond what
    /// the bytes back (`Limit`), methods and encryption numpy never writes (`Unsupported`),
    /// bad keys on writing (`Usage`); a member's content error has npy-core's category.
    pub fn classify(&self) -> Category {
        use ErrorKind::*;
        match &self.kind {
            Io(_) => Category::Io,
            Npy(e) => e.classify(),
            NoEndRecord
            | Container { .. }
            | BadUtf8Name { .. }
            | CrcMismatch { .. }
            | InflatesPast { .. }
            | EndsEarly { .. }
            | BadDeflate
            | SizeMismatch { .. }
            | Overlapped { .. }
            | NameMismatch { .. } => Category::Format,
            MissingMember { .. } | NotNpyMember { .. } | NotStored => Category::Mismatch,
            Unbacked { .. } => Category::Limit,
            UnsupportedMethod { .. } | Encrypted | UnsupportedFlags { .. } => Category::Unsupported,
            InvalidKey { .. } | DuplicateMember | MemberOfNpy { .. } | ChooseMember { .. } => {
                Category::Usage
            }
            NeedsPickle => Category::Unsupported,
        }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io(e))
    }
}

impl From<npy_core::Error> for Error {
    fn from(e: npy_core::Error) -> Error {
        Error::new(ErrorKind::Npy(e))
    }
}

/// An error of npy-fs (an archive opened, an output file written): npy-core's error of the
/// same kind, path and message ([`ErrorKind::Npy`]), as before the file plumbing had its crate.
impl From<npy_fs::Error> for Error {
    fn from(e: npy_fs::Error) -> Error {
        Error::from(npy_core::Error::from(e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}: ", p.display())?;
        }
        // A missing member's message names the key itself.
        if let (Some(m), false) = (
            &self.member,
            matches!(self.kind, ErrorKind::MissingMember { .. }),
        ) {
            write!(f, "member {m:?}: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::Npy(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Io(e) => write!(f, "{e}"),
            Npy(e) => write!(f, "{e}"),
            NoEndRecord => f.write_str(
                "not a readable zip archive: no end of central directory record",
            ),
            Container { reason, at } => {
                write!(f, "not a readable zip archive: {reason} (at byte {at})")
            }
            BadUtf8Name { lossy } => write!(
                f,
                "the name {lossy:?} is not UTF-8 although its UTF-8 flag (bit 11) is set (Python's zipfile refuses the archive too)"
            ),
            MissingMember { key, keys } => {
                write!(f, "archive has no member {key:?} (keys: {})", list(keys))
            }
            UnsupportedMethod { method } => write!(
                f,
                "compressed with method {method} ({}), only stored (0) and deflate (8) are read",
                method_name(*method)
            ),
            Encrypted => f.write_str("encrypted; encrypted members are not read"),
            UnsupportedFlags { flags } => write!(
                f,
                "its flags {flags:#06x} ask for {} (Python's zipfile refuses it too)",
                if flags & (1 << 5) != 0 {
                    "compressed patched data (bit 5)"
                } else {
                    "strong encryption (bit 6)"
                }
            ),
            CrcMismatch { expected, found } => write!(
                f,
                "fails its CRC check: the archive records {expected:#010x}, its bytes give {found:#010x}"
            ),
            InflatesPast { declared } => {
                write!(f, "inflates past its declared size of {declared} bytes")
            }
            EndsEarly { declared, found } => write!(
                f,
                "ends after {found} of its declared {declared} bytes"
            ),
            BadDeflate => f.write_str("its deflate stream is corrupt"),
            SizeMismatch { declared, needed } => write!(
                f,
                "declares {declared} bytes, its .npy header describes {needed} (header and data)"
            ),
            Unbacked { claimed, backing } => {
                write!(f, "claims {claimed} bytes, which ")?;
                match backing {
                    Backing::Room { data_start, room } => write!(
                        f,
                        "the {room} bytes between its data start ({data_start}) and the central directory cannot hold"
                    ),
                    Backing::Stored { compressed } => {
                        write!(f, "its {compressed} stored bytes cannot hold")
                    }
                    Backing::AddressSpace { bits } => write!(
                        f,
                        "this platform's {bits}-bit address space cannot hold in one buffer"
                    ),
                    Backing::Deflate { compressed, most } => write!(
                        f,
                        "its {compressed} compressed bytes cannot hold (deflate expands at most {}×, so at most {most} bytes)",
                        crate::limits::MAX_DEFLATE_RATIO
                    ),
                }
            }
            NotNpyMember { start } => {
                f.write_str("not an .npy file (it starts with ")?;
                for &b in start {
                    write!(f, "{}", std::ascii::escape_default(b))?;
                }
                f.write_str("); read it as bytes")
            }
            NotStored => f.write_str(
                "deflated; only stored members can be viewed in place (use view_or_copy or a copying read)",
            ),
            Overlapped { data_end, next } => write!(
                f,
                "shares bytes with another entry: it ends at byte {data_end}, and the entry at byte {next} overlaps it; refused (a possible zip bomb)"
            ),
            NameMismatch { local } => write!(
                f,
                "its local header names {local:?}; refused (the names must agree)"
            ),
            InvalidKey { reason } => write!(f, "invalid key: {reason}"),
            DuplicateMember => f.write_str("already in the archive"),
            MemberOfNpy { key } => write!(
                f,
                "member {key:?} was asked of a file that is not an .npz"
            ),
            ChooseMember { keys } => write!(
                f,
                "the archive holds {} arrays ({}); choose one by its key: the `member` \
                 argument, Some(KEY) (npy convert --member KEY)",
                keys.len(),
                keys.join(", ")
            ),
            NeedsPickle => f.write_str(
                "an object array's pickle is copied only once it decodes, which needs npy-npz's feature `pickle`",
            ),
        }
    }
}

impl fmt::Display for ContainerFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContainerFault::DirectoryOutside => {
                f.write_str("the central directory lies outside the file")
            }
            ContainerFault::BadEntry => {
                f.write_str("a central directory entry is broken or cut short")
            }
            ContainerFault::BadExtra => f.write_str(
                "an extra field is corrupt (a record runs past it, or a zip64 record is too short)",
            ),
            ContainerFault::Version { needed } => write!(
                f,
                "an entry needs zip version {}.{} to be extracted (6.3 at most is read)",
                needed / 10,
                needed % 10
            ),
            ContainerFault::MultiDisk => f.write_str("archives spanning disks are not read"),
            ContainerFault::NoLocalHeader => {
                f.write_str("no local file header where the central directory points")
            }
        }
    }
}

fn list(keys: &[String]) -> String {
    if keys.is_empty() {
        return "none".to_owned();
    }
    let shown: Vec<String> = keys.iter().take(8).map(|k| format!("{k:?}")).collect();
    shown.join(", ")
}

/// APPNOTE 4.4.5's name of a compression method number.
fn method_name(method: u16) -> &'static str {
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
