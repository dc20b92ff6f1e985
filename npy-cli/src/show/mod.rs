//! `npy show`: an array's values, printed as numpy prints them or as JSON.
//!
//! The text form follows numpy's `str(arr)` (`numpy/_core/arrayprint.py` with the default print
//! options: `linewidth=75`, `threshold=1000`, `edgeitems=3`, `precision=8`,
//! `floatmode='maxprec'`): integers right-aligned to a common width, floats in positional or
//! scientific notation chosen for the whole array as numpy chooses, strings and bytes as Python
//! reprs, records as tuples, datetimes as ISO 8601 strings, and lines wrapped at 75 columns.
//! The formatting is the printer's (crate [`npy_print`]); this module reads the file for it.
//!
//! Memory stays bounded whatever the file's size: a summarised print reads only the elements
//! it shows ([`source`]); `--full` reads the file twice, once to fit the format (numpy's
//! widths depend on every value) and once to print; `--json` writes values as it reads them.
//! Both show a progress bar on stderr for files over 256 MiB when stderr is a terminal and
//! stdout is not (`npy show --json big.npy > out.json`).

mod json;
mod source;

use std::io::{self, BufWriter, IsTerminal, Read, Seek, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::{DType, DynValue, Error, NpyReader};
use npy_npz::NpzArchive;
use npy_print::{self as print, FormatBuilder, Print, PrintOptions};

use crate::format::printable;
use crate::progress::Progress;

use self::source::Values;

/// The `--json` encoding, for `npy show --help`.
const JSON_ENCODING: &str = "\
JSON output (--json):
  One object: {\"descr\": ..., \"shape\": [...], \"fortran_order\": bool, \"data\": ...}
    descr          the dtype as the header writes it, without the quotes of a simple one
    shape          the dimensions, outermost first ([] for a 0-d array)
    fortran_order  true when the file stores the data in Fortran (column-major) order
    data           the values as nested lists in logical C order (row-major, whatever the
                   file's order); a 0-d array is the bare value, shape (3, 0) is [[], [], []]
  Values:
    bool                     true / false
    int, uint                JSON integers (exact, 64-bit)
    float16/32/64, longdouble  JSON numbers of the value as float64 (longdouble rounded to the
                             nearest float64); NaN, infinity and -infinity as the strings
                             \"nan\", \"inf\", \"-inf\"
    complex                  [re, im], each part as a float
    datetime64, timedelta64  integer ticks of the dtype's unit; NaT is null
    S (bytes)                a string, one char per byte (latin-1), trailing NULs removed
    U (str)                  a string, trailing NULs removed; a code point that is not a
                             Unicode scalar value (a lone surrogate such as \\ud805, which numpy
                             allows) becomes U+FFFD, the replacement character
    V (void)                 lowercase hex of all the bytes
    record                   an object of the fields by name, in field order (padding skipped)
    subarray field           nested lists of the field's shape
    O (object)               each Python value as JSON: str a string; int an integer (exact,
                             up to 4300 digits, Python's limit: a larger one is an error, as
                             in json.dumps, and the output stops there); float as above; bool;
                             None null; complex [re, im]; list, tuple, set and frozenset arrays
                             (sets in the file's order); dict an object (a key that is not a
                             str becomes its Python repr); bytes and bytearray a string, one
                             char per byte (latin-1); a numpy scalar as its dtype's value
                             above; a numpy array nested lists of its values in C order (empty
                             arrays whose empty lists pass 16,777,216 in all are an error);
                             range, slice, dtype and other named objects the string of their
                             Python repr
  An .npz archive without --member: one object mapping each key (numpy's `files`, in order)
  to the object above for that member, or null for a member that is not an .npy file.
  An object array's data is a pickle: it is decoded by npy's own reader, which never executes
  anything (a pickle naming anything but numpy's array, dtype and scalar constructors and a few
  builtins is refused). The text or JSON of objects, in all the members one `npy show` prints,
  stops at 64 MiB (the print budget): the output is cut there (`...`), the command ends with
  status 1 naming the member, and the members after it are not shown; `--member KEY` shows
  one member with the whole budget.

Exit status:
  0 on success; 1 when the file cannot be read (the error goes to stderr); 2 for a usage error.";

/// Print an array's values, as numpy prints them or as JSON.
///
/// For an .npz archive: the member given by --member, or every member under its key.
///
/// The text form is numpy's `str(arr)`: arrays of more than 1000 elements are summarised with
/// `...`, keeping 3 items at each edge of each axis (--full prints everything). Lines wrap at 75
/// columns.
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_ENCODING)]
pub struct Args {
    /// The .npy file, or .npz archive (see --member), to show.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Print {"descr", "shape", "fortran_order", "data"} as JSON (encoding: see --help).
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long)]
    json: bool,

    /// Print every element, however many (text form; JSON always has every element).
    #[arg(long)]
    full: bool,

    /// The member of an .npz archive to show, by numpy's key (`arr_0`, `weights`; `arr_0.npy`
    /// too).
    #[arg(long, value_name = "KEY")]
    member: Option<String>,

    /// The element type of data whose descr lost it: numpy with ml_dtypes saves bfloat16 as
    /// '<V2' and float8_e4m3fn, int4, ... as '<V1'. TYPE is an ml_dtypes name (bfloat16,
    /// float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz,
    /// float8_e4m3, float8_e3m4, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,
    /// int4, uint4, int2, uint2). Values print as numpy with ml_dtypes prints them; a file
    /// (or member) whose descr is not what numpy saves for TYPE is an error.
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long, value_name = "TYPE", value_parser = crate::format::parse_hint)]
    hint: Option<npy_core::dtype::MlType>,
}

/// Arrays with at most this many printed elements are read once and kept; larger ones are
/// read twice (format, then print) rather than held.
const KEEP_ELEMENTS: u64 = source::CHUNK_ELEMENTS;

/// Why `npy show` stopped.
#[derive(Debug)]
enum Failure {
    /// The file could not be read.
    Read(Error),
    /// Writing the output failed.
    Write(io::Error),
    /// The archive, or one of its members, could not be read.
    Archive(npy_npz::Error),
    /// The file is readable but not shown (the message says why).
    Refused(String),
}

impl From<npy_npz::Error> for Failure {
    fn from(e: npy_npz::Error) -> Failure {
        Failure::Archive(e)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Read(e)
    }
}

impl From<npy_fs::Error> for Failure {
    fn from(e: npy_fs::Error) -> Failure {
        Failure::Read(e.into())
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Write(e)
    }
}

thread_local! {
    /// What is left of one `npy show`'s output budget for the text of Python objects
    /// ([`print::OBJECT_TEXT_BUDGET`]): every object array it shows — each member of an
    /// archive — spends the same one, so the output stays bounded whatever the number of
    /// members (16 members of 57 MiB of text each wrote 919 MiB from a 27 KB archive).
    static OBJECT_OUTPUT_LEFT: std::cell::Cell<u64> =
        const { std::cell::Cell::new(print::OBJECT_TEXT_BUDGET) };
}

/// Charges `bytes` of object output (or of work that makes it, such as converting a big int to
/// decimal) to the command's budget: `false`, and the budget spent, when they are not left.
pub(crate) fn spend_object_output(bytes: u64) -> bool {
    OBJECT_OUTPUT_LEFT.with(|left| match left.get().checked_sub(bytes) {
        Some(rest) => {
            left.set(rest);
            true
        }
        None => {
            left.set(0);
            false
        }
    })
}

/// Runs `npy show`.
pub fn run(args: &Args) -> ExitCode {
    OBJECT_OUTPUT_LEFT.with(|left| left.set(print::OBJECT_TEXT_BUDGET));
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = show(args, &mut out).and_then(|()| Ok(out.flush()?));
    let path = args.file.display().to_string();
    let message = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            return ExitCode::FAILURE
        }
        // A value --json refuses (serde's errors, see `json::refused`): the file's fault.
        Err(Failure::Write(e)) if e.kind() == io::ErrorKind::InvalidData => {
            format!("npy: {}: {e}", printable(&path))
        }
        Err(Failure::Write(e)) => format!("npy: writing output: {e}"),
        Err(Failure::Read(e)) => format!("npy: {}: {}", printable(&path), e.kind()),
        Err(Failure::Archive(e)) => {
            format!("npy: {}: {}", printable(&path), crate::npz::detail(&e))
        }
        Err(Failure::Refused(m)) => format!("npy: {}: {m}", printable(&path)),
    };
    drop(out);
    let _ = writeln!(io::stderr(), "{message}");
    ExitCode::FAILURE
}

fn show(args: &Args, out: &mut impl Write) -> Result<(), Failure> {
    if crate::safetensors::is_safetensors(&args.file) {
        return show_safetensors(args, out);
    }
    // A URL: read by ranged GETs (the source hook of crate::remote); an archive's members
    // as a local archive's.
    let remote = if crate::remote::is_url(&args.file) {
        Some(crate::remote::open(&args.file)?)
    } else {
        None
    };
    let remote_zip = remote.as_ref().is_some_and(crate::remote::is_zip);
    if let Some(key) = &args.member {
        let not_npz = match &remote {
            Some(_) => !remote_zip,
            None => !crate::npz::is_npz(&args.file) && args.file.is_file(),
        };
        if not_npz {
            return Err(Failure::Refused(
                "not an .npz archive (--member picks a member of one)".to_owned(),
            ));
        }
        match remote {
            Some(object) => show_member(args, args.hint, &NpzArchive::new(object)?, key, out)?,
            None => show_member(args, args.hint, &NpzArchive::open(&args.file)?, key, out)?,
        }
        if args.json {
            out.write_all(b"\n")?;
        }
        return Ok(());
    }

    if let (Some(object), true) = (&remote, remote_zip) {
        let npz = crate::remote::prefetched(NpzArchive::new(object.clone()))?;
        return show_archive(args, npz, out);
    }
    if crate::npz::is_npz(&args.file) {
        return show_archive(args, NpzArchive::open(&args.file)?, out);
    }
    if let Some(object) = remote {
        let source = npy_core::NpyReader::open_at(object)?;
        show_reader(args, args.hint, source.stream(), source.source_len(), out)?;
        if args.json {
            out.write_all(b"\n")?;
        }
        return Ok(());
    }
    let file = npy_fs::open_regular(&args.file)?;
    let size = file.metadata().map_err(Error::from)?.len();
    // `--full` and `--json` read every byte (`--full` twice): a bar on stderr when it is a
    // terminal and stdout is not (on one terminal the bar would cut through the values).
    let progress = if (args.full || args.json) && !io::stdout().is_terminal() {
        let passes = if args.json { 1 } else { 2 };
        Progress::new(size.saturating_mul(passes), "reading")
    } else {
        Progress::none()
    };
    let buffered = io::BufReader::with_capacity(npy_core::__private::FILE_BUFFER_BYTES, file);
    let reader = NpyReader::new(progress.counted(buffered))?;
    let backed = size.saturating_sub(reader.parsed_header().data_offset());
    show_reader(
        args,
        args.hint,
        reader.with_available_bytes(backed),
        size,
        out,
    )?;
    drop(progress);
    if args.json {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Shows the member `key` of `npz` as `npy show` shows a file (`--json`: without the final
/// newline), read with `hint`.
fn show_member<R: npy_core::ReadAt>(
    args: &Args,
    hint: Option<npy_core::dtype::MlType>,
    npz: &NpzArchive<R>,
    key: &str,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let member = npz.member(key)?;
    let (size, stored) = (member.size, member.is_stored());
    let reader = npz.npy_reader(key)?;
    let crosswise = reader.order() == npy_core::MemoryOrder::Fortran
        && reader.shape().iter().filter(|&&d| d > 1).count() > 1;
    if !stored && crosswise && !reader.dtype().has_object() {
        // C order walks a Fortran-order array back and forth, and a deflate stream only goes
        // forward: the member is inflated once into a temporary file (on disk, so memory stays
        // bounded), which is then read as a file. The file has no name (`O_TMPFILE`, or removed
        // at once where the system has none), so a killed `npy show` leaves nothing behind.
        drop(reader);
        let mut tmp = tempfile::tempfile().map_err(Error::from)?;
        npz.open_member(key)?.copy_to(&mut tmp)?;
        tmp.rewind().map_err(Error::from)?;
        let reader = NpyReader::new(std::io::BufReader::new(tmp))?;
        return show_reader(args, hint, reader, size, out);
    }
    if stored && crosswise && size <= WHOLE_MEMBER_BYTES {
        // C order walks a Fortran-order array back and forth: a small member is read whole
        // (one read of the archive, one request for a URL) rather than piece by piece.
        drop(reader);
        let bytes = npz.read_bytes(key)?;
        let reader = NpyReader::new(std::io::Cursor::new(bytes))?;
        return show_reader(args, hint, reader, size, out);
    }
    show_reader(args, hint, reader, size, out)
}

/// Bytes of a stored Fortran-order member that `show` reads whole into memory (8 MiB): C
/// order walks it back and forth, which over a URL is a request per piece.
const WHOLE_MEMBER_BYTES: u64 = 8 << 20;

/// Shows every member of an archive under its key, in the archive's order: as text, each
/// `KEY:` line followed by what `npy show --member KEY` prints, a blank line between members;
/// as JSON, one object mapping each key to what `--json --member KEY` prints (a member that
/// is not an `.npy` file is a line saying so, or `null`).
fn show_archive<R: npy_core::ReadAt>(
    args: &Args,
    npz: NpzArchive<R>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    // Each name once (a repeated name shows its last entry, the one numpy reads).
    let keys: Vec<String> = npz.members().iter().map(|m| m.key().to_owned()).collect();
    if args.json {
        out.write_all(b"{")?;
    }
    for (i, key) in keys.iter().enumerate() {
        if args.json {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key).map_err(io::Error::from)?;
            out.write_all(b":")?;
        } else {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            writeln!(out, "{}:", printable(key))?;
        }
        if npz.is_npy(key)? {
            // A whole archive with --hint: the hint reads the members it fits (a checkpoint
            // holds bfloat16 weights beside float32 and int64 ones), the others show as they
            // are; a big-endian '>V2' is still refused.
            let hint = match args.hint {
                Some(h) => {
                    let parsed = npz.header(key)?;
                    match parsed.hinted_dtype(h) {
                        Ok(Some(_)) => Some(h),
                        Ok(None) => None,
                        Err(_) => Some(h),
                    }
                }
                None => None,
            };
            // An error names the member: the archive's path alone does not say which.
            show_member(args, hint, &npz, key, out).map_err(|f| match f {
                Failure::Read(e) => {
                    Failure::Refused(format!("member {}: {}", printable(key), e.kind()))
                }
                Failure::Archive(e) => {
                    Failure::Refused(format!("member {}: {}", printable(key), e.kind()))
                }
                Failure::Refused(m) => Failure::Refused(format!("member {}: {m}", printable(key))),
                // A value --json refuses (the output budget, an int past 4,300 digits).
                Failure::Write(e) if e.kind() == io::ErrorKind::InvalidData => {
                    Failure::Write(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("member {}: {e}", printable(key)),
                    ))
                }
                other @ Failure::Write(_) => other,
            })?;
        } else if args.json {
            out.write_all(b"null")?;
        } else {
            let size = npz.member(key)?.size;
            writeln!(
                out,
                "not an .npy file ({size} bytes; npy unpack extracts it)"
            )?;
        }
    }
    if args.json {
        out.write_all(b"}\n")?;
    }
    Ok(())
}

/// Shows the tensors of a safetensors file as [`show_archive`] shows members (`--member NAME`:
/// that tensor alone, as a file is shown).
fn show_safetensors(args: &Args, out: &mut impl Write) -> Result<(), Failure> {
    let mut st = npy_safetensors::SafetensorsFile::open(&args.file)
        .map_err(|e| Failure::Refused(e.kind().to_string()))?;
    let names: Vec<String> = match &args.member {
        Some(m) => vec![m.clone()],
        None => st
            .header()
            .tensors()
            .iter()
            .map(|t| t.name().to_owned())
            .collect(),
    };
    let whole = args.member.is_none();
    if args.json && whole {
        out.write_all(b"{")?;
    }
    for (i, name) in names.iter().enumerate() {
        if whole {
            if args.json {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, name).map_err(io::Error::from)?;
                out.write_all(b":")?;
            } else {
                if i > 0 {
                    out.write_all(b"\n")?;
                }
                writeln!(out, "{}:", printable(name))?;
            }
        }
        let reader = st
            .npy_reader(name)
            .map_err(|e| Failure::Refused(e.kind().to_string()))?;
        let size = reader.parsed_header().data_offset() + reader.header().nbytes()?;
        show_reader(args, args.hint, reader, size, out).map_err(|f| match f {
            Failure::Read(e) => {
                Failure::Refused(format!("tensor {}: {}", printable(name), e.kind()))
            }
            other => other,
        })?;
    }
    if args.json {
        out.write_all(if whole { b"}\n" } else { b"\n" })?;
    }
    Ok(())
}

/// Shows the array of `reader`, whose input (a file, or an archive's member) holds `size`
/// bytes in all, read with `hint` (an error when it does not fit).
fn show_reader<R: Read + Seek>(
    args: &Args,
    hint: Option<npy_core::dtype::MlType>,
    reader: NpyReader<R>,
    size: u64,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let mut reader = match hint {
        Some(hint) => {
            crate::format::hinted(reader.parsed_header(), hint).map_err(Failure::Refused)?;
            reader.with_hint(Some(hint))
        }
        None => reader,
    };
    if reader.dtype().has_object() {
        return show_objects(args, reader, out);
    }
    // Refusals that need no data come before any output: a file shorter than its header
    // says, which numpy does not load either.
    reader.parsed_header().check_data_len(size)?;
    let dtype = reader.dtype().clone();
    let shape = reader.shape().to_vec();
    if args.json {
        check_empty_lists(&dtype, &shape)?;
        check_unbacked_values(&dtype, &shape)?;
        let fortran = reader.order() == npy_core::MemoryOrder::Fortran;
        let mut values = Values::new(&mut reader, false, PrintOptions::new());
        let mut next = || next_value(&mut values);
        return json::write_json(out, &dtype.to_string(), &shape, fortran, &mut next);
    }
    let options = print_options(args);
    if shape.is_empty() {
        let v = next_value(&mut Values::new(&mut reader, false, options))?;
        writeln!(out, "{}", print::scalar_str(&dtype, &v, &options))?;
        return Ok(());
    }
    if shape.contains(&0) {
        // numpy prints any array without elements as `[]`.
        out.write_all(b"[]\n")?;
        return Ok(());
    }
    let summarise = options.summarises(reader.num_elements());
    let mut builder = FormatBuilder::new(&dtype, &options);
    if options.shown_count(&shape, summarise) <= KEEP_ELEMENTS {
        let kept = Values::new(&mut reader, summarise, options).collect::<Result<Vec<_>, _>>()?;
        for v in &kept {
            builder.observe(v);
        }
        let mut kept = kept.into_iter();
        let mut next = || kept.next().ok_or_else(too_few);
        print::write_str(out, &shape, &builder.finish(), &options, &mut next)?;
    } else {
        let first = if summarise {
            Values::new(&mut reader, true, options)
        } else {
            Values::memory_order(&mut reader)
        };
        for v in first {
            builder.observe(&v?);
        }
        let mut values = Values::new(&mut reader, summarise, options);
        let mut next = || next_value(&mut values);
        print::write_str(out, &shape, &builder.finish(), &options, &mut next)?;
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// numpy's default print options, with every element shown for `--full`.
fn print_options(args: &Args) -> PrintOptions {
    if args.full {
        PrintOptions::new().full()
    } else {
        PrintOptions::new()
    }
}

/// Shows an array with objects (`O`, also as a record field): its data is one pickle,
/// decoded whole (never executed; see `npy_pickle`), so memory follows the pickle's
/// size, within the decoder's budget (`npy_pickle::PICKLE_BUDGET`, 128 MiB in all). The
/// output is bounded by the printer's budget for the text of objects
/// ([`print::OBJECT_TEXT_BUDGET`], 64 MiB): the text form stops each object's text there
/// (`...`) and then fails; `--json` fails as soon as it would write more.
fn show_objects<R: Read + Seek>(
    args: &Args,
    mut reader: NpyReader<R>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let array = reader.read_dyn_using(&npy_pickle::PickleCodec::default())?;
    if args.json {
        check_empty_lists(array.dtype(), array.shape())?;
        let fortran = array.order() == npy_core::MemoryOrder::Fortran;
        let mut values = array.iter_c_order();
        let mut next = || values.next().ok_or_else(too_few);
        let mut capped = json::Capped::new(out);
        return json::write_json(
            &mut capped,
            &array.dtype().to_string(),
            array.shape(),
            fortran,
            &mut next,
        );
    }
    // The print's budget is what the command has left, and what it spent is the command's.
    let left = OBJECT_OUTPUT_LEFT.with(std::cell::Cell::get);
    let shown = array.display_with(&print_options(args).object_budget(left));
    writeln!(out, "{shown}")?;
    spend_object_output(shown.spent_budget().min(left));
    if shown.was_cut() {
        return Err(Failure::Refused(format!(
            "the text of its objects passes npy's print budget of {} MiB for the objects of \
             one `npy show`: the output above is cut where it ran out (`...`)",
            print::OBJECT_TEXT_BUDGET >> 20
        )));
    }
    Ok(())
}

fn next_value<R: Read + Seek>(values: &mut Values<'_, R>) -> Result<DynValue, Failure> {
    values.next().ok_or_else(too_few)?.map_err(Failure::Read)
}

/// The walk yields exactly the elements of the shape (the layout takes no more).
#[cold]
fn too_few() -> Failure {
    Failure::Refused("fewer elements than the shape holds".to_owned())
}

/// Most empty lists (`[]` for an axis of length 0) an output may hold: a shape such as
/// `(10**12, 0)` has no elements, so no data bounds them.
pub(crate) const MAX_EMPTY_LISTS: u64 = 1 << 24;

/// Refuses arrays whose zero-length axes would print more than [`MAX_EMPTY_LISTS`] empty lists.
fn check_empty_lists(dtype: &DType, shape: &[u64]) -> Result<(), Failure> {
    /// Empty lists of one value of `dtype`.
    fn per_value(dtype: &DType) -> u64 {
        match dtype {
            DType::Record(r) => r
                .fields()
                .iter()
                .fold(0u64, |acc, f| acc.saturating_add(per_value(&f.dtype))),
            DType::SubArray(_) => {
                let mut shape = Vec::new();
                let mut d = dtype;
                while let DType::SubArray(s) = d {
                    shape.extend_from_slice(s.shape());
                    d = s.base();
                }
                let count = shape.iter().fold(1u64, |x, &n| x.saturating_mul(n));
                empty_lists(&shape).saturating_add(count.saturating_mul(per_value(d)))
            }
            _ => 0,
        }
    }
    let n = shape.iter().fold(1u64, |x, &d| x.saturating_mul(d));
    let total = empty_lists(shape).saturating_add(n.saturating_mul(per_value(dtype)));
    if total > MAX_EMPTY_LISTS {
        return Err(Failure::Refused(format!(
            "its zero-length axes would print {total} empty lists (at most {MAX_EMPTY_LISTS} are printed)"
        )));
    }
    Ok(())
}

/// Most elements that hold no bytes (itemsize 0) `--json` prints: 2^20, a few MB of output.
pub(crate) const MAX_UNBACKED_VALUES: u64 = 1 << 20;

/// Refuses JSON of more than [`MAX_UNBACKED_VALUES`] elements that hold no bytes (itemsize 0:
/// `V0`, `S0`, records of such fields): nothing in the file backs them, so their output
/// would be bounded only by the header's claim. (Elements of some bytes are backed by the
/// file, which is at least that long; `check_data_len` checked it.)
fn check_unbacked_values(dtype: &DType, shape: &[u64]) -> Result<(), Failure> {
    let n = shape.iter().fold(1u64, |x, &d| x.saturating_mul(d));
    if dtype.itemsize() == 0 && n > MAX_UNBACKED_VALUES {
        return Err(Failure::Refused(format!(
            "its {n} elements of dtype {dtype} hold no bytes, which the file does not back (at \
             most {MAX_UNBACKED_VALUES} are printed as JSON)"
        )));
    }
    Ok(())
}

/// Empty lists in the nested lists of `shape`: the lists just above its first zero-length axis.
pub(crate) fn empty_lists(shape: &[u64]) -> u64 {
    match shape.iter().position(|&d| d == 0) {
        Some(i) => shape[..i].iter().fold(1u64, |x, &d| x.saturating_mul(d)),
        None => 0,
    }
}
