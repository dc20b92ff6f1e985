//! `AtomicFile`: how every path writer of the npy-* crates replaces a file, so that an error, a
//! crash or a reader holding the old file (a memory map) never sees a partial one; and
//! [`PendingFile`], its public face.
//!
//! The rules, in the order [`AtomicFile::create`] applies them (the behaviour of a careful Unix
//! tool: `cp`, `install`, editors that save by rename):
//!
//! 1. **What the path is.** The target's last component is looked at without following it
//!    (`lstat`). A symlink (or a chain of them, at most [`MAX_SYMLINKS`]) is followed to the
//!    file it names, and *that* file is replaced, beside itself: the symlink stays a symlink.
//!    A symlink to nothing is refused (as `cp` refuses to write through a dangling symlink), as
//!    is a link to a process's open file (`/dev/stdout` → `/proc/self/fd/1`), and so is
//!    anything that is not a regular file: a directory, a FIFO, a character or block
//!    device, a socket ([`ErrorKind::NotRegularFile`]). Renaming a temporary file over
//!    `/dev/null` would replace the device for the whole system; writing a FIFO would block.
//! 2. **The lock.** An existing target is opened (read-only, non-blocking, not following
//!    links) and its exclusive advisory lock taken, the lock npy-core's `NpyAppender` takes, held
//!    until the new file has replaced it: a rewrite waits for an appender and an appender for a
//!    rewrite, so neither's work is lost (Unix; on Windows the lock is not taken, as a file that
//!    is open cannot be renamed over there).
//! 3. **The temporary file.** On Linux, an unnamed file (`O_TMPFILE`) in the target's
//!    directory: a process killed while writing leaves nothing behind, whatever the size. It
//!    gets a name only at commit (`linkat` from `/proc/self/fd`), for the microseconds before
//!    the rename. Elsewhere, or on a file system without `O_TMPFILE`, a file named
//!    `.npy-tmp-` + random characters, created with `O_CREAT | O_EXCL` (so never through a
//!    planted symlink) and locked while it is written. Either is removed on every error path.
//! 4. **Stale files.** Once per directory and process, before its first temporary file there,
//!    files named `.npy-tmp-*` that are regular, unlocked and not modified for
//!    [`STALE_AFTER`] are removed: what a killed writer left ([`remove_stale_temp_files`]).
//! 5. **Permissions.** A new file gets `0o666` less the umask, as `open()`, `np.save` and
//!    `zipfile` give; a replaced file keeps its mode (and, where permitted, its owner and
//!    group).
//! 6. **Commit.** Flush, `fsync`, check again that the target is still a regular file (or
//!    absent), rename over it.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

#[cfg(doc)]
use crate::error::ErrorKind;
use crate::error::{Error, PathContext};
use crate::open::{describe_type, write_all_at};

/// The most symlinks followed from an output path to its file (Linux's `MAXSYMLINKS`).
pub const MAX_SYMLINKS: usize = 40;

/// How long a `.npy-tmp-*` file must be unmodified (and unlocked) before
/// [`remove_stale_temp_files`] takes it for a killed writer's leftover.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// The prefix of the crate's named temporary files.
pub(crate) const TEMP_PREFIX: &str = ".npy-tmp-";

/// What an output path turned out to be.
#[derive(Debug)]
enum Target {
    /// Nothing there yet: a new file.
    New,
    /// A regular file, replaced.
    Existing(fs::Metadata),
}

/// How the temporary file is named.
#[derive(Debug)]
enum Temp {
    /// Unnamed (`O_TMPFILE`): named at commit.
    #[cfg(target_os = "linux")]
    Unnamed,
    /// `.npy-tmp-XXXXXX`, removed when dropped.
    Named(tempfile::TempPath),
}

/// A temporary file beside `target`, renamed over it by [`AtomicFile::commit`]; removed if
/// dropped uncommitted: [`PendingFile`]'s engine, whose errors do not name the path (npy-core's
/// writers add it). Not public API: the npy-* crates' writers use it.
#[doc(hidden)]
#[derive(Debug)]
pub struct AtomicFile {
    file: BufWriter<File>,
    temp: Temp,
    /// The path as given (errors, [`AtomicFile::target`]).
    target: PathBuf,
    /// The file replaced: `target` with its symlinks followed.
    dest: PathBuf,
    /// Whether a symlink at `target` was followed (else it is replaced).
    follow: bool,
    /// The existing file at `dest`, locked until the rename (Unix).
    #[allow(dead_code, reason = "held for its lock only")]
    guard: Option<File>,
}

impl AtomicFile {
    /// A temporary file for `target`, taking the lock of an existing target (waiting for an
    /// appender or another rewrite to finish).
    ///
    /// # Errors
    /// As [`PendingFile::create`], without the path.
    pub fn create(target: &Path) -> Result<Self, Error> {
        Self::create_with(target, true, true)
    }

    /// [`AtomicFile::create`] for a caller that already holds the target's lock (an
    /// appender's rewrite): taking it again would wait forever.
    ///
    /// # Errors
    /// As [`PendingFile::create`], without the path.
    pub fn create_locked_by_caller(target: &Path) -> Result<Self, Error> {
        Self::create_with(target, false, true)
    }

    /// [`AtomicFile::create`] for an archive's member: a symlink at `target` is replaced by
    /// the file, never followed.
    ///
    /// # Errors
    /// As [`PendingFile::create`], without the path.
    pub fn create_replacing_links(target: &Path) -> Result<Self, Error> {
        Self::create_with(target, true, false)
    }

    fn create_with(target: &Path, lock: bool, follow: bool) -> Result<Self, Error> {
        let (dest, found, guard) = loop {
            let (dest, found) = resolve(target, follow)?;
            let guard = match (&found, lock) {
                (Target::Existing(meta), true) => match lock_existing(&dest, meta)? {
                    Some(file) => Some(file),
                    // Replaced while this process waited for the lock: look again.
                    None => continue,
                },
                _ => None,
            };
            break (dest, found, guard);
        };
        let dir = parent_dir(&dest);
        clean_once(dir);
        let (file, temp) = create_temp(dir)?;
        if let Target::Existing(meta) = &found {
            keep_mode(&file, meta)?;
        }
        Ok(AtomicFile {
            file: BufWriter::with_capacity(1 << 16, file),
            temp,
            target: target.to_owned(),
            dest,
            follow,
            guard,
        })
    }

    /// The path the file appears under once committed, as given.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Syncs the file and renames it over its target.
    ///
    /// # Errors
    /// As [`PendingFile::commit`], without the path.
    pub fn commit(self) -> Result<(), Error> {
        self.persist().map(drop)
    }

    /// The temporary file (to lock it, or set its permissions, before it appears).
    pub fn file(&self) -> &File {
        self.file.get_ref()
    }

    /// Writes all of `buf` at byte `offset` of the file (after what is buffered), leaving the
    /// position of sequential writes where it was: the tiles of `convert_file`.
    ///
    /// # Errors
    /// I/O errors of the flush and the write.
    pub fn write_all_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.flush()?;
        write_all_at(self.file.get_ref(), buf, offset)
    }

    /// [`AtomicFile::commit`], keeping the file open (read and write) and any lock on it.
    ///
    /// # Errors
    /// As [`AtomicFile::commit`].
    pub fn persist(self) -> Result<File, Error> {
        let AtomicFile {
            file,
            temp,
            target,
            dest,
            follow,
            guard,
        } = self;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        // Something other than a regular file may have been put there while we wrote.
        let now = match fs::symlink_metadata(&dest) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        if let Some(meta) = &now {
            let replaced_link = !follow && meta.file_type().is_symlink();
            if !meta.file_type().is_file() && !replaced_link {
                return Err(not_regular(meta.file_type()).with_path(&target));
            }
        }
        match temp {
            #[cfg(target_os = "linux")]
            Temp::Unnamed => link_unnamed(&file, &dest, now.is_none())?,
            Temp::Named(path) => path.persist(&dest).map_err(|e| e.error)?,
        }
        // The old file's lock goes only now: a waiting appender then finds the new file.
        #[cfg_attr(not(unix), allow(clippy::drop_non_drop, reason = "no lock off unix"))]
        drop(guard);
        Ok(file)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

/// A file being written to a temporary file beside its path, put there by
/// [`PendingFile::commit`] (a rename, so a reader never sees it partial); dropped uncommitted,
/// it is removed and the path left as it was.
///
/// This is the two-phase form of the npy-* crates' path writers (`finish_pending()` of
/// `npy_npz::NpzPathWriter` and `npy_core::write::PathStreamWriter` return one), and a way to
/// write any file by the same rules (`npy unpack` writes members with it): symlinks followed
/// to their file, anything but a regular file refused ([`ErrorKind::NotRegularFile`]), the
/// existing file's lock held, an unnamed temporary file on Linux, the umask honoured for a new
/// file and the mode kept for a replaced one. See [`remove_stale_temp_files`] for what is left
/// when a writer is killed.
///
/// # Examples
/// ```
/// use std::io::Write;
/// # let dir = std::env::temp_dir().join(format!("npy-fs-pending-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("notes.txt");
/// let mut f = npy_fs::PendingFile::create(&path)?;
/// f.write_all(b"hello")?;
/// assert!(!path.exists()); // not yet
/// f.commit()?;
/// assert_eq!(std::fs::read(&path)?, b"hello");
/// # Ok::<(), npy_fs::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "the file appears under its path only once commit() renames it there"]
pub struct PendingFile(AtomicFile);

/// The file an npy-* crate's writer wrote through the engine, handed to its caller to commit
/// (npy-core's `PathStreamWriter::finish_pending`). Not public API.
#[doc(hidden)]
impl From<AtomicFile> for PendingFile {
    fn from(file: AtomicFile) -> PendingFile {
        PendingFile(file)
    }
}

impl PendingFile {
    /// A temporary file for `path` (see the type's docs for the rules), waiting for the lock of
    /// an existing file there.
    ///
    /// # Blocking
    /// The wait lasts while any other handle holds that lock, an npy-core's `NpyAppender` of
    /// this very process on the same file included (`flock` locks belong to open files, not
    /// processes): drop an appender before rewriting its file. Every path writer of the crate
    /// waits the same way.
    ///
    /// # Errors
    /// [`ErrorKind::NotRegularFile`] when `path` is (or links to) a directory, FIFO, device or
    /// socket, or is a dangling symlink or a chain of more than [`MAX_SYMLINKS`]; I/O errors
    /// (a missing directory, permissions). Each names the path.
    pub fn create(path: impl AsRef<Path>) -> Result<PendingFile, Error> {
        let path = path.as_ref();
        AtomicFile::create(path).map(PendingFile).at_path(path)
    }

    /// [`PendingFile::create`] for extracting an archive's member: a symlink at `path` is
    /// replaced by the new file (as `tar` replaces it), never followed, so a link planted in
    /// the target directory cannot send the member outside it. The other rules are
    /// [`PendingFile::create`]'s (a FIFO, device, socket or directory there is refused).
    ///
    /// # Errors
    /// As [`PendingFile::create`].
    pub fn create_replacing_links(path: impl AsRef<Path>) -> Result<PendingFile, Error> {
        let path = path.as_ref();
        AtomicFile::create_replacing_links(path)
            .map(PendingFile)
            .at_path(path)
    }

    /// The path the file appears under once committed.
    pub fn path(&self) -> &Path {
        self.0.target()
    }

    /// Flushes what the sequential writes buffered and gives a handle for writes at explicit
    /// byte offsets, which several threads may share (each
    /// [`OffsetWriter::write_all_at`] is one positional write, `pwrite` on Unix): a
    /// converter that knows where each part of the output goes writes the parts in parallel.
    /// Sequential writes resume where they were once the handle is gone.
    ///
    /// # Errors
    /// I/O errors of the flush.
    ///
    /// # Examples
    /// ```
    /// use std::io::Write;
    /// # let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("parts.bin");
    /// let mut f = npy_fs::PendingFile::create(&path)?;
    /// f.write_all(b"head:")?;
    /// let at = f.offsets()?;
    /// std::thread::scope(|s| {
    ///     s.spawn(|| at.write_all_at(b"two", 8));
    ///     s.spawn(|| at.write_all_at(b"one", 5));
    /// });
    /// f.commit()?;
    /// assert_eq!(std::fs::read(&path)?, b"head:onetwo");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn offsets(&mut self) -> io::Result<OffsetWriter<'_>> {
        self.0.flush()?;
        Ok(OffsetWriter(self.0.file()))
    }

    /// Syncs the file and renames it over its path (over the file a symlink there names).
    ///
    /// # Errors
    /// [`ErrorKind::NotRegularFile`] when something other than a regular file was put at the
    /// path meanwhile; I/O errors. Each names the path.
    pub fn commit(self) -> Result<(), Error> {
        let path = self.0.target().to_owned();
        self.0.commit().at_path(&path)
    }
}

/// Writes at explicit byte offsets of a [`PendingFile`], from [`PendingFile::offsets`]:
/// `Copy` and `Sync`, so threads writing disjoint ranges of the file share it.
#[derive(Debug, Clone, Copy)]
pub struct OffsetWriter<'a>(&'a File);

impl OffsetWriter<'_> {
    /// Writes all of `buf` at byte `offset` of the file (growing it if it ends before),
    /// without moving the position of the file's sequential writes. On Unix and Windows one
    /// positional write (several threads may write at once); elsewhere a seek and a write,
    /// for one thread at a time.
    ///
    /// # Errors
    /// I/O errors of the write (a full disk: `WriteZero` or the system's error).
    pub fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        write_all_at(self.0, buf, offset)
    }
}

impl Write for PendingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Seek for PendingFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.0.seek(pos)
    }
}

/// The directory of `path` (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Follows the symlinks of `target`'s last component: the file to replace and what it is.
fn resolve(target: &Path, follow: bool) -> Result<(PathBuf, Target), Error> {
    let mut path = target.to_owned();
    for _ in 0..=MAX_SYMLINKS {
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound && path == target => {
                return Ok((path, Target::New));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::not_regular(
                    "output",
                    "a symlink to a missing file (never written through, as cp does)",
                ));
            }
            Err(e) => return Err(e.into()),
        };
        let kind = meta.file_type();
        if kind.is_symlink() && !follow {
            // Replaced by the new file, as tar replaces a link it extracts over.
            return Ok((path, Target::New));
        }
        if kind.is_symlink() && is_proc_fd(&path) {
            // `/dev/stdout` -> `/proc/self/fd/1`: a process's open file, whose "path" may be a
            // pipe, a deleted file, or a file the caller never named. Not replaced.
            return Err(Error::not_regular(
                "output",
                "a link to a process's open file (/proc/PID/fd/N)",
            ));
        }
        if kind.is_symlink() {
            let link = fs::read_link(&path)?;
            path = parent_dir(&path).join(link);
            continue;
        }
        if kind.is_file() {
            return Ok((path, Target::Existing(meta)));
        }
        return Err(not_regular(kind));
    }
    Err(Error::not_regular(
        "output",
        "a chain of more than 40 symlinks",
    ))
}

/// Whether the symlink `path` is one of Linux's magic links to an open file: its directory,
/// with every link in it followed, is `/proc/<pid>/fd` or `/proc/<pid>/task/<tid>/fd`. The
/// directory decides, not the spelling: `/dev/fd/1`, `fd/1` under `/proc/self` and
/// `/proc/self/fd/1` are all the same link.
fn is_proc_fd(path: &Path) -> bool {
    let Ok(dir) = fs::canonicalize(parent_dir(path)) else {
        return false;
    };
    let parts: Vec<&std::ffi::OsStr> = dir
        .components()
        .map(std::path::Component::as_os_str)
        .collect();
    let is = |p: &std::ffi::OsStr, s: &str| p == std::ffi::OsStr::new(s);
    match parts.as_slice() {
        [root, proc, _, fd] => is(root, "/") && is(proc, "proc") && is(fd, "fd"),
        [root, proc, _, task, _, fd] => {
            is(root, "/") && is(proc, "proc") && is(task, "task") && is(fd, "fd")
        }
        _ => false,
    }
}

/// [`ErrorKind::NotRegularFile`] for an output of `kind`.
fn not_regular(kind: fs::FileType) -> Error {
    Error::not_regular("output", describe_type(kind))
}

/// Opens the existing file `dest` (seen as `meta`) and waits for its exclusive lock; `None`
/// when, once locked, it is no longer the file at `dest` (another writer replaced it).
#[cfg(unix)]
fn lock_existing(dest: &Path, meta: &fs::Metadata) -> Result<Option<File>, Error> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    // Non-blocking and not following links: if a FIFO or a symlink took the file's place
    // since it was looked at, this fails or is found out below rather than hanging.
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(NONBLOCK_NOFOLLOW)
        .open(dest)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let held = file.metadata()?;
    if !held.file_type().is_file() {
        return Err(not_regular(held.file_type()));
    }
    if (held.dev(), held.ino()) != (meta.dev(), meta.ino()) {
        return Ok(None);
    }
    file.lock()?;
    match fs::symlink_metadata(dest) {
        Ok(now) if (now.dev(), now.ino()) == (held.dev(), held.ino()) => Ok(Some(file)),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Windows cannot rename over a file this process holds open, so no lock is taken there: a
/// rewrite of a file an appender holds fails at the rename instead.
#[cfg(not(unix))]
#[allow(
    clippy::unnecessary_wraps,
    reason = "the unix version's signature, which the caller matches"
)]
fn lock_existing(_dest: &Path, _meta: &fs::Metadata) -> Result<Option<File>, Error> {
    Ok(None)
}

/// `O_NONBLOCK | O_NOFOLLOW`: opening never waits for a FIFO's writer nor follows a link.
#[cfg(unix)]
pub(crate) const NONBLOCK_NOFOLLOW: i32 =
    (rustix::fs::OFlags::NONBLOCK.bits() | rustix::fs::OFlags::NOFOLLOW.bits()) as i32;

/// The temporary file in `dir`: unnamed where the system can, else named and locked.
fn create_temp(dir: &Path) -> Result<(File, Temp), Error> {
    #[cfg(target_os = "linux")]
    if let Some(file) = unnamed_temp(dir) {
        return Ok((file, Temp::Unnamed));
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Less the umask, as open() applies it: 0644 under umask 022.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let (file, path) = builder
        .tempfile_in(dir)
        .map_err(|e| without_temp_name(dir, e))?
        .into_parts();
    // Alive while locked: remove_stale_temp_files leaves it alone.
    file.lock()?;
    Ok((file, Temp::Named(path)))
}

/// `e` without the name tempfile adds (`… at path "/d/.npy-tmp-Ab12Cd"`): a name the caller
/// never gave, gone with the file; the writers name the output path instead. tempfile keeps
/// the system's error to itself (its wrapper is private and hides it from `source`), so when
/// `dir` itself is missing or unreadable, that error is the one returned, with its OS code;
/// otherwise the system's text without the name.
fn without_temp_name(dir: &Path, e: io::Error) -> io::Error {
    if let Err(d) = fs::metadata(dir) {
        return d;
    }
    match e.to_string().rsplit_once(" at path ") {
        Some((os, _)) => io::Error::new(e.kind(), os.to_owned()),
        None => e,
    }
}

/// An `O_TMPFILE` file in `dir`, if the file system has them and `/proc/self/fd` is there to
/// name it at commit.
#[cfg(target_os = "linux")]
fn unnamed_temp(dir: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::TMPFILE.bits() as i32)
        // Less the umask, as open() applies it.
        .mode(0o666)
        .open(dir)
        .ok()
}

/// Gives the unnamed `file` the name `dest`: directly when `dest` was absent (`linkat` never
/// replaces), else through a random name renamed over `dest`.
#[cfg(target_os = "linux")]
fn link_unnamed(file: &File, dest: &Path, absent: bool) -> Result<(), Error> {
    use std::os::fd::AsRawFd;
    let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
    let link = |to: &Path| {
        rustix::fs::linkat(
            rustix::fs::CWD,
            proc.as_str(),
            rustix::fs::CWD,
            to,
            rustix::fs::AtFlags::SYMLINK_FOLLOW,
        )
    };
    if absent {
        match link(dest) {
            Ok(()) => return Ok(()),
            // Created meanwhile: replace it by rename as any other.
            Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(io::Error::from(e).into()),
        }
    }
    let dir = parent_dir(dest);
    for _ in 0..16 {
        let name = dir.join(format!("{TEMP_PREFIX}{}", random_suffix()));
        match link(&name) {
            Ok(()) => {
                return match fs::rename(&name, dest) {
                    Ok(()) => Ok(()),
                    Err(e) => {
                        let _ = fs::remove_file(&name);
                        Err(e.into())
                    }
                }
            }
            Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(io::Error::from(e).into()),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary name beside the output after 16 tries",
    )
    .into())
}

/// 16 hex digits no other process can predict (std's randomly keyed hasher).
#[cfg(target_os = "linux")]
fn random_suffix() -> String {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let h = std::hash::RandomState::new().hash_one((std::process::id(), n));
    format!("{h:016x}")
}

/// Gives the new file the replaced one's mode, and its owner and group where permitted.
fn keep_mode(file: &File, old: &fs::Metadata) -> Result<(), Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let new = file.metadata()?;
        if (new.uid(), new.gid()) != (old.uid(), old.gid()) {
            // Only root may give a file away; a member of the group may set it. Otherwise the
            // file is the writer's, as with any editor that saves by rename.
            let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()))
                .or_else(|_| std::os::unix::fs::fchown(file, None, Some(old.gid())));
        }
        file.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))?;
    }
    #[cfg(not(unix))]
    file.set_permissions(old.permissions())?;
    Ok(())
}

/// Directories whose stale temporary files this process has already removed.
static CLEANED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// [`remove_stale_temp_files`] for `dir`, once per process; errors are ignored (the cleanup is
/// a courtesy to the directory, never a reason to fail a write).
fn clean_once(dir: &Path) {
    let key = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    {
        let mut cleaned = CLEANED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !cleaned.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    let _ = remove_stale_temp_files(dir);
}

/// Removes what writers killed in `dir` left: regular files named `.npy-tmp-*` that no process
/// holds locked and that nobody modified for [`STALE_AFTER`]. Returns the files removed.
///
/// The npy-* crates' path writers call it themselves, once per directory and process, before their
/// first temporary file there; it matters where they use named temporary files (not Linux,
/// whose unnamed `O_TMPFILE` files vanish with a killed writer, but other systems, or Linux
/// file systems without `O_TMPFILE`), and for files left by versions before this rule. A
/// writer holds its named file locked from its creation to its rename, so a live one is
/// never taken; the age rule covers the instant between creating and locking. Names starting
/// with `.npy-tmp-` are therefore the crates': do not give your own files such names.
///
/// # Errors
/// I/O errors reading `dir`; a file that cannot be examined or removed is skipped.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-fs-stale-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let removed = npy_fs::remove_stale_temp_files(&dir)?;
/// assert!(removed.is_empty()); // nothing was killed here
/// # Ok::<(), npy_fs::Error>(())
/// ```
pub fn remove_stale_temp_files(dir: impl AsRef<Path>) -> Result<Vec<PathBuf>, Error> {
    let dir = dir.as_ref();
    let scan = || -> Result<Vec<PathBuf>, Error> {
        let mut removed = Vec::new();
        for entry in fs::read_dir(dir)? {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            let is_ours = name
                .to_str()
                .is_some_and(|n| n.starts_with(TEMP_PREFIX) && n.len() > TEMP_PREFIX.len());
            if !is_ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            if is_stale(&path) && fs::remove_file(&path).is_ok() {
                removed.push(path);
            }
        }
        Ok(removed)
    };
    scan().at_path(dir)
}

/// Whether the temporary file at `path` is unlocked and old enough to be a dead writer's.
fn is_stale(path: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    let old = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age >= STALE_AFTER);
    if !old || !meta.file_type().is_file() {
        return false;
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(NONBLOCK_NOFOLLOW);
    }
    let Ok(file) = options.open(path) else {
        return false;
    };
    // Locked: a live writer. The lock is released when this handle closes.
    file.try_lock().is_ok()
}
