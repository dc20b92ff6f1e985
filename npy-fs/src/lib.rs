//! Files written like a careful Unix tool, and inputs opened without hanging: the file plumbing
//! every npy-* crate shares.
//!
//! | task | the call |
//! |---|---|
//! | write a file atomically (nobody ever sees it partial) | [`PendingFile::create(path)`](PendingFile::create), `write_all`, then [`PendingFile::commit`] |
//! | extract an archive's member (a symlink there is replaced, never followed) | [`PendingFile::create_replacing_links`] |
//! | write parts of the file from several threads | [`PendingFile::offsets`] gives an [`OffsetWriter`] |
//! | clean up what killed writers left in a directory | [`remove_stale_temp_files`] |
//! | open an input that must be a regular file, never waiting on a FIFO | [`open_regular`] |
//! | open an input that may be a FIFO or a terminal, read once | [`open_stream`] |
//!
//! The rules a [`PendingFile`] follows are those of `cp`, `install` and editors that save by
//! rename: the temporary file is unnamed (`O_TMPFILE`, Linux) or unpredictably named
//! (`.npy-tmp-…`, created with `O_EXCL`), synced and renamed over the path; a new file's mode
//! is `0o666` less the umask and a replaced file keeps its mode; a directory, FIFO, device,
//! socket or dangling symlink at the path is refused and left as it is; the exclusive lock of
//! an existing file (the lock npy-core's appender takes) is held until the rename. The
//! module `atomic.rs` lists them in the order they are applied.
//!
//! Errors are one small [`Error`]: an I/O error or [`ErrorKind::NotRegularFile`], naming the
//! path where the function says so. The npy-* crates wrap it in their own error types, with
//! the same kind, path and message.
//!
//! The crate is `#![deny(unsafe_code)]` except one call: `madvise(MADV_HUGEPAGE)` on a buffer
//! the caller borrows mutably (`hugepage.rs`, a hint for large fresh read buffers that the
//! npy-* readers use; not public API).
//!
//! # Examples
//! ```
//! use std::io::Write;
//! # let dir = tempfile::tempdir()?;
//! let path = dir.path().join("out.txt");
//! let mut f = npy_fs::PendingFile::create(&path)?;
//! f.write_all(b"all or nothing")?;
//! f.commit()?; // the file appears here, whole
//! assert_eq!(std::fs::read(&path)?, b"all or nothing");
//!
//! let err = npy_fs::PendingFile::create(dir.path()).unwrap_err(); // a directory
//! assert!(matches!(err.kind(), npy_fs::ErrorKind::NotRegularFile { role: "output", .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod atomic;
mod error;
mod hugepage;
mod open;

pub use atomic::{remove_stale_temp_files, OffsetWriter, PendingFile, MAX_SYMLINKS, STALE_AFTER};
pub use error::{Error, ErrorKind};
pub use open::{open_regular, open_stream};

/// The npy-* crates' engine of atomic writes ([`PendingFile`]'s, without paths in its errors).
/// Not public API.
#[doc(hidden)]
pub use atomic::AtomicFile;
/// Huge-page advice for a large fresh buffer before its first write (npy-core's and npy-npz's
/// reads use it). Not public API.
#[doc(hidden)]
pub use hugepage::{advise_huge_pages, advise_huge_pages_spare};
/// An append's read-write open of a regular file. Not public API.
#[doc(hidden)]
pub use open::open_regular_rw;
