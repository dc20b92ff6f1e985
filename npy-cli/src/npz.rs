//! `.npz` archives on the command line: `info` of every member, `header --member`, `pack`
//! and `unpack`.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use npy_core::ReadAt;
use npy_fs::PendingFile;
use npy_npz::{Compression, NpzArchive};
use serde::Serialize;

use crate::format::{printable, thousands};
use crate::info::{complain, output_failed, Json, Report};
use crate::progress::Progress;

/// An archive's error as the commands print it after the archive's path: the member (when
/// the error names one) and what is wrong.
pub fn detail(e: &npy_npz::Error) -> String {
    // npy-core's error names its file itself: its kind alone, the caller names the path.
    let what = match e.kind() {
        npy_npz::ErrorKind::Npy(inner) => inner.kind().to_string(),
        kind => kind.to_string(),
    };
    match (e.member(), e.kind()) {
        (Some(m), kind) if !matches!(kind, npy_npz::ErrorKind::MissingMember { .. }) => {
            format!("member {m:?}: {what}")
        }
        _ => what,
    }
}

/// An error of a command over an archive: the archive's, or the file system's while writing
/// a member out. `Display` is what follows the path the command names.
#[derive(Debug)]
enum Fault {
    Npz(npy_npz::Error),
    Npy(npy_core::Error),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Npz(e) => write!(f, "{}", e.kind()),
            Fault::Npy(e) => write!(f, "{}", e.kind()),
        }
    }
}

impl From<npy_npz::Error> for Fault {
    fn from(e: npy_npz::Error) -> Fault {
        Fault::Npz(e)
    }
}

impl From<npy_core::Error> for Fault {
    fn from(e: npy_core::Error) -> Fault {
        Fault::Npy(e)
    }
}

impl From<npy_fs::Error> for Fault {
    fn from(e: npy_fs::Error) -> Fault {
        Fault::Npy(e.into())
    }
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Fault {
        Fault::Npy(e.into())
    }
}

/// Whether `path` starts with a zip signature (a local header, or the end record of an
/// empty archive), as `np.load` decides.
pub fn is_npz(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    // Never a FIFO or device: peeking would consume it (or wait for a writer).
    npy_fs::open_regular(path)
        .ok()
        .ok_or_else(|| io::Error::from(io::ErrorKind::Unsupported))
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"PK\x03\x04" || &magic == b"PK\x05\x06")
}

/// One member in `npy info --json`: the usual fields, the key and the compressed size.
#[derive(Debug, Serialize)]
struct MemberJson<'a> {
    #[serde(flatten)]
    base: Json<'a>,
    member: &'a str,
    compressed_size: u64,
}

/// A member that is not an `.npy` file, in `npy info --json`.
#[derive(Debug, Serialize)]
struct RawJson<'a> {
    name: &'a str,
    path: std::borrow::Cow<'a, str>,
    member: &'a str,
    file_size: u64,
    compressed_size: u64,
    npy: bool,
}

/// `npy info` of an archive: a block (or a JSON line) per member. Returns whether every
/// member was described without a problem, and how many blocks were written.
pub fn info(
    path: &Path,
    json: bool,
    hint: Option<npy_core::dtype::MlType>,
    blocks_before: usize,
    out: &mut impl Write,
) -> (bool, usize) {
    info_of(path, NpzArchive::open(path), json, hint, blocks_before, out)
}

/// [`info`] of the archive opened from `path` (a file, or an object at a URL).
pub fn info_of<R: ReadAt>(
    path: &Path,
    npz: Result<NpzArchive<R>, npy_npz::Error>,
    json: bool,
    hint: Option<npy_core::dtype::MlType>,
    blocks_before: usize,
    out: &mut impl Write,
) -> (bool, usize) {
    let npz = match npz {
        Ok(a) => a,
        Err(e) => {
            complain(path, &detail(&e));
            return (false, 0);
        }
    };
    let members = npz.members().to_vec();
    let mut ok = true;
    let mut blocks = 0;
    if members.is_empty() && !json {
        let sep = if blocks_before > 0 { "\n" } else { "" };
        let text = format!(
            "{sep}{}\n  no members (an empty archive)\n",
            printable(&path.display().to_string())
        );
        if let Err(e) = out.write_all(text.as_bytes()) {
            output_failed(&e);
            return (false, 0);
        }
        return (true, 1);
    }
    for m in &members {
        let key = m.key();
        let at = PathBuf::from(format!("{}[{key}]", path.display()));
        let mut text = String::new();
        if blocks_before + blocks > 0 && !json {
            text.push('\n');
        }
        match npz.is_npy(key) {
            Ok(false) => {
                if json {
                    let raw = RawJson {
                        name: key,
                        path: path.to_string_lossy(),
                        member: key,
                        file_size: m.size,
                        compressed_size: m.compressed_size,
                        npy: false,
                    };
                    text = serde_json::to_string(&raw).unwrap_or_default() + "\n";
                } else {
                    let _ = writeln!(text, "{}", printable(key));
                    let _ = writeln!(
                        text,
                        "  not an .npy file: {} bytes ({} in the archive); np.load returns it as bytes",
                        thousands(m.size),
                        thousands(m.compressed_size)
                    );
                }
            }
            Ok(true) => match npz.info(key) {
                Ok(mut info) => {
                    // The hint describes the members it fits; the others as they are.
                    if let Err(m) = crate::info::apply_hint_where_fits(&mut info, hint) {
                        complain(&at, &m);
                        ok = false;
                        continue;
                    }
                    let report = Report {
                        path,
                        info,
                        file_size: m.size,
                    };
                    let shortfall = report.shortfall();
                    if json {
                        if let Some(w) = &shortfall {
                            complain(&at, &format_args!("warning: {w}"));
                        }
                        let line = MemberJson {
                            base: report.json(),
                            member: key,
                            compressed_size: m.compressed_size,
                        };
                        text = serde_json::to_string(&line).unwrap_or_default() + "\n";
                    } else {
                        report.write_text(&mut text, shortfall.as_deref());
                        let method = if m.is_stored() { "stored" } else { "deflated" };
                        let _ = writeln!(
                            text,
                            "  {:<13}{} in {}, {method}, {} bytes in the archive",
                            "member",
                            printable(&m.name),
                            printable(&path.display().to_string()),
                            thousands(m.compressed_size)
                        );
                    }
                    ok &= shortfall.is_none();
                }
                Err(e) => {
                    complain(&at, &e.kind());
                    ok = false;
                    continue;
                }
            },
            Err(e) => {
                complain(&at, &e.kind());
                ok = false;
                continue;
            }
        }
        blocks += 1;
        if let Err(e) = out.write_all(text.as_bytes()) {
            output_failed(&e);
            return (false, blocks);
        }
    }
    (ok, blocks)
}

/// The header of member `key` of the archive at `path`.
///
/// # Errors
/// The archive's error, as [`detail`] prints it.
pub fn header(path: &Path, key: &str) -> Result<npy_core::header::ParsedHeader, String> {
    if crate::remote::is_url(path) {
        return crate::remote::archive(path)
            .and_then(|npz| npz.header(key))
            .map_err(|e| detail(&e));
    }
    NpzArchive::open(path)
        .and_then(|npz| npz.header(key))
        .map_err(|e| detail(&e))
}

/// Pack .npy files into an .npz archive, each under its file stem (as np.savez(OUT, stem=array)).
///
/// Each file's header is checked and its bytes copied as they are (the archive's members are
/// the files).
///
/// OUT is written as a careful Unix tool writes a file: a temporary file beside it (unnamed on
/// Linux, so a killed run leaves nothing), renamed over it once complete. A symlink OUT is
/// followed and the file it names replaced (the link stays); a FIFO, device, socket,
/// directory or dangling link is refused and left as it is, never replaced. An existing OUT
/// keeps its mode and is locked as `npy append` locks it (a running append finishes first); a
/// new one gets 0666 less the umask. Inputs must be regular files: a FIFO or device is
/// refused at once.
#[derive(Debug, clap::Args)]
pub struct PackArgs {
    /// The archive to write.
    #[arg(value_name = "OUT.npz")]
    output: PathBuf,
    /// The .npy files; keys are their stems (`w.npy` becomes the key `w`).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Deflate the members (np.savez_compressed, level 6) instead of storing them.
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long)]
    compress: bool,
}

/// Runs `npy pack`.
pub fn pack(args: &PackArgs) -> ExitCode {
    let run = || -> Result<(), (PathBuf, String)> {
        let out = |e: npy_npz::Error| (args.output.clone(), detail(&e));
        let mut w = npy_npz::NpzWriter::create(&args.output).map_err(out)?;
        if args.compress {
            w = w.compression(Compression::NUMPY_DEFLATED);
        }
        let total = args
            .files
            .iter()
            .filter_map(|f| fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        let bar = Progress::new(total, "packing");
        for file in &args.files {
            let key = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let f = npy_fs::open_regular(file).map_err(|e| (file.clone(), e.to_string()))?;
            w.add_npy(&key, BufReader::with_capacity(1 << 16, bar.counted(f)))
                .map_err(|e| (file.clone(), e.kind().to_string()))?;
        }
        w.finish().map_err(out)
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err((path, e)) => {
            complain(&path, &e);
            ExitCode::FAILURE
        }
    }
}

/// Unpack an .npz archive's members into a directory, each as the file its zip name says
/// (`arr_0.npy`, `d/e.npy`; a member that is not .npy keeps its name).
///
/// Every member's CRC is checked; a member name that would leave DIR (`..`, an absolute
/// path) is refused. Each member is written through a temporary file renamed into place, so
/// no partial file and no temporary file is left on any error; a symlink at a member's path
/// is replaced (never followed), a symlink or file in place of a directory on its way is
/// refused, and so is a directory, FIFO or device at its path. New files get 0666 less the
/// umask. The archive must be a regular file.
#[derive(Debug, clap::Args)]
pub struct UnpackArgs {
    /// The archive.
    #[arg(value_name = "X.npz")]
    archive: PathBuf,
    /// The directory to write into (created if missing).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// Runs `npy unpack`.
pub fn unpack(args: &UnpackArgs) -> ExitCode {
    let npz = match NpzArchive::open(&args.archive) {
        Ok(a) => a,
        Err(e) => {
            complain(&args.archive, &detail(&e));
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<String> = npz.members().iter().map(|m| m.name.clone()).collect();
    // Declared sizes, not yet checked against the bytes: summed saturating (two zip64 entries
    // may claim 2^63 each), for the bar alone.
    let total = npz
        .members()
        .iter()
        .fold(0u64, |sum, m| sum.saturating_add(m.size));
    let bar = Progress::new(total, "unpacking");
    let mut failed = false;
    for name in names {
        let at = PathBuf::from(format!("{}[{name}]", args.archive.display()));
        if enclosed(&args.dir, &name).is_none() {
            complain(&at, &"member name leaves the directory; not written");
            failed = true;
            continue;
        }
        // A directory entry (`dir/`, as zipfile writes one): the directory, as Python's
        // extractall makes it.
        if name.ends_with('/') {
            if let Err(e) = make_dirs(&args.dir, Path::new(name.trim_end_matches('/'))) {
                complain(&at, &e.kind());
                failed = true;
            }
            continue;
        }
        if let Err(e) = extract(&npz, &name, &args.dir, &bar) {
            complain(&at, &e);
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `dir/name` when `name` is a relative path of normal components.
fn enclosed(dir: &Path, name: &str) -> Option<PathBuf> {
    let rel = Path::new(name);
    let normal = rel.components().all(|c| matches!(c, Component::Normal(_)));
    (normal && rel.components().next().is_some()).then(|| dir.join(rel))
}

/// Writes member `name` (the exact zip name) to `target` through a temporary file
/// ([`PendingFile`]: unnamed or randomly named, never through a symlink planted in DIR)
/// renamed there once the member's CRC has checked out. A symlink at `target` is replaced,
/// never followed, and the directories on the way must be real directories inside DIR
/// ([`make_dirs`]); a directory, FIFO or device at `target` is refused. Nothing is left
/// behind on any error.
fn extract<R: ReadAt>(
    npz: &NpzArchive<R>,
    name: &str,
    dir: &Path,
    bar: &Progress,
) -> Result<(), Fault> {
    let rel = Path::new(name);
    if let Some(parent) = rel.parent() {
        make_dirs(dir, parent)?;
    }
    let target = dir.join(rel);
    let mut r = npz.open_member(name)?;
    let mut f = PendingFile::create_replacing_links(&target)?;
    r.copy_to(&mut bar.counted(&mut f))?;
    Ok(f.commit()?)
}

/// Creates `dir/rel` one component at a time (and `dir` itself), refusing a component that is
/// a symlink or not a directory: a link planted in DIR (`d -> /elsewhere`) would otherwise
/// send `d/e.npy` out of DIR.
fn make_dirs(dir: &Path, rel: &Path) -> Result<(), npy_core::Error> {
    fs::create_dir_all(dir)?;
    let mut at = dir.to_owned();
    for part in rel.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(m) => {
                let what = if m.file_type().is_symlink() {
                    "a symlink"
                } else {
                    "not a directory"
                };
                return Err(npy_core::Error::from(io::Error::other(format!(
                    "{} is {what}: members are written only into real directories inside DIR",
                    at.display()
                ))));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&at)?,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_stay_inside_the_directory() {
        let dir = Path::new("out");
        assert_eq!(enclosed(dir, "a/b.npy"), Some(dir.join("a/b.npy")));
        assert_eq!(enclosed(dir, "x.npy.npy"), Some(dir.join("x.npy.npy")));
        for bad in ["../x.npy", "/etc/passwd", "a/../../b", "", "./a"] {
            assert_eq!(enclosed(dir, bad), None, "{bad}");
        }
    }
}
