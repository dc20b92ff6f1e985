//! `npy convert IN OUT`: rewrite a file with another byte order, memory order or format version.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npy_convert::{convert_file_with_progress, ConvertOptions};
use npy_core::{format::Version, ByteOrder, MemoryOrder};

use crate::format::{fail, printable, report};
use crate::progress::Progress;

/// Rewrite a .npy file with another byte order, memory order or format version; every value
/// is preserved (records and strings included; object arrays are refused by a .npy → .npy
/// rewrite, and copied between .npy and .npz with their pickle as it is). An OUT ending in
/// .safetensors converts an .npy or .npz IN to safetensors (as `safetensors.numpy.save_file`
/// writes it), an IN ending in .safetensors converts to .npz (or .npy for one tensor); an
/// .arrow or .parquet table converts to and from safetensors as the numpy array it maps to,
/// streamed with no file between (a one-column table is one tensor, named by the table's
/// stem; several columns make a record, which safetensors cannot hold; to a table, a file of
/// several tensors needs --member KEY).
///
/// Memory stays bounded whatever the size: a byte-order or version change streams the data
/// through two 1 MiB buffers, an order change transposes it tile by tile through three 8 MiB
/// buffers, so files larger than memory convert. OUT appears complete or not at all, and may
/// be IN. On a terminal, a progress bar on stderr follows conversions of more than 256 MiB.
///
/// OUT is written as a careful Unix tool writes a file: a temporary file beside it (unnamed on
/// Linux, so a killed run leaves nothing), renamed over it once complete. A symlink OUT is
/// followed and the file it names replaced (the link stays); a FIFO, device, socket,
/// directory or dangling link is refused and left as it is, never replaced. An existing OUT
/// keeps its mode and is locked as `npy append` locks it (a running append finishes first); a
/// new one gets 0666 less the umask. Inputs must be regular files: a FIFO or device is
/// refused at once.
///
/// Other formats, chosen by extension (in any case): IN and OUT may be .npy, .npz (--member KEY
/// picks the array), .arrow (the Arrow IPC file format; a build with the feature `arrow`) or
/// .parquet (Snappy; the feature `parquet`), and .safetensors;
/// an .npy IN with any other OUT name writes an .npy. The type
/// mapping is npy-arrow's table (a record's fields become columns, an (n, d1, ...) array a
/// tensor column, NaT a null). Arrow and Parquet input is read twice, batch by
/// batch (once for the rows and string widths, once to write), and .npy input is streamed in
/// batches (8 MiB for .arrow, 1 MiB for .parquet), so memory stays bounded (Parquet adds one
/// row group).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The input file (.npy, .npz, .arrow, .parquet).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The output file (.npy, .npz, .arrow, .parquet).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Byte order of every multi-byte scalar in OUT.
    #[arg(long, value_enum)]
    byte_order: Option<ByteOrderArg>,
    /// Memory order of OUT (arrays of fewer than 2 dimensions are always C, as numpy writes them).
    #[arg(long, value_enum, ignore_case = true)]
    order: Option<OrderArg>,
    /// Format version of OUT (default: numpy's choice, 1 unless the header needs 2 or 3).
    #[arg(long, value_parser = ["1", "2", "3"])]
    version: Option<String>,
    /// For a .safetensors OUT: the ml_dtypes type of members whose descr lost it ('<V2'
    /// bfloat16 -> BF16, '<V1' float8_e4m3fn -> F8_E4M3, ...; see `npy show --help`).
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long, value_name = "TYPE", value_parser = crate::format::parse_hint)]
    hint: Option<npy_core::dtype::MlType>,
    /// The member of an .npz IN to convert (needed when it holds more than one array), or the
    /// tensor of a .safetensors IN converted to .arrow or .parquet.
    #[arg(long, value_name = "KEY")]
    member: Option<String>,
    /// The value written for nulls of number, bool and string columns when reading Arrow or
    /// Parquet (without it such a null is an error; time columns get NaT). An integer is
    /// written exactly into integer columns (no rounding through a float); a value a column
    /// cannot hold is an error.
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true, value_parser = parse_fill)]
    fill: Option<String>,
}

/// `--fill VALUE`: an integer (kept exact, as npy-arrow's `FillValue::Int`) or a float, the
/// text kept for npy-arrow to parse per column type.
fn parse_fill(s: &str) -> Result<String, String> {
    if s.parse::<i128>().is_ok() || s.parse::<f64>().is_ok() {
        Ok(s.to_owned())
    } else {
        Err(format!("{s:?} is not a number (an integer or a float)"))
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ByteOrderArg {
    Little,
    Big,
    Native,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OrderArg {
    #[value(name = "C")]
    C,
    #[value(name = "F")]
    F,
}

/// Runs `npy convert`.
pub fn run(args: &Args) -> ExitCode {
    // A URL IN: downloaded (in bounded parts) to a temporary copy, converted from there.
    if crate::remote::is_url(&args.input) {
        return match crate::remote::download(&args.input) {
            Ok(copy) => {
                crate::format::name_copy_as_url(copy.path(), &args.input);
                run(&Args {
                    input: copy.path().to_path_buf(),
                    ..args.clone()
                })
            }
            Err(e) => fail(&e, &args.input),
        };
    }
    let (from, to) = (Format::of(&args.input), Format::of(&args.output));
    if let Some(message) = usage_error(args, from, to) {
        let _ = writeln!(std::io::stderr(), "npy: {message}");
        return ExitCode::from(2);
    }
    let layout = args.byte_order.is_some() || args.order.is_some() || args.version.is_some();
    let (to_st, from_st) = (to == Format::Safetensors, from == Format::Safetensors);
    if layout && (to_st || from_st) {
        let _ = writeln!(
            std::io::stderr(),
            "npy: --byte-order, --order and --version do not apply to safetensors (always little-endian C order)"
        );
        return ExitCode::from(2);
    }
    if from.is_table() || to.is_table() {
        if let Some((path, message)) = [(&args.input, from), (&args.output, to)]
            .into_iter()
            .find_map(|(p, f)| Some((p, f.missing_feature()?)))
        {
            report(format_args!(
                "{}: {message}",
                printable(&path.display().to_string())
            ));
            return ExitCode::from(2);
        }
        if layout {
            eprintln!("npy: --byte-order, --order and --version apply to .npy → .npy only");
            return ExitCode::FAILURE;
        }
        // Without the feature `arrow`, `missing_feature` has refused every table above.
        #[cfg(feature = "arrow")]
        return tables(args, from, to);
    }
    match (from, to) {
        (_, Format::Safetensors) | (Format::Safetensors, _) => {
            let result = if to_st {
                let options = npy_safetensors::ToOptions::default().hint(args.hint);
                npy_safetensors::to_safetensors(&args.input, &args.output, &options)
            } else {
                npy_safetensors::from_safetensors(&args.input, &args.output)
            };
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    report(e);
                    ExitCode::FAILURE
                }
            }
        }
        (Format::Npy | Format::Other, Format::Npy | Format::Other) if args.member.is_none() => {
            npy_to_npy(args)
        }
        _ if layout => {
            eprintln!("npy: --byte-order, --order and --version apply to .npy → .npy only");
            ExitCode::FAILURE
        }
        (Format::Other, _) => unknown_extension(&args.input),
        (_, Format::Other) => unknown_extension(&args.output),
        _ => match npy_npz::convert(&args.input, &args.output, args.member.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                report(printable(&npz_message(&e, "the archive", "arrays")));
                ExitCode::FAILURE
            }
        },
    }
}

/// The message of npy-npz's `e` at the command line: its own, except that the refusal of an
/// input holding several arrays without --member (`ChooseMember`) names the option, and the
/// arrays as `what` (the archive, the file) holds `them` (arrays, tensors).
fn npz_message(e: &npy_npz::Error, what: &str, them: &str) -> String {
    match (e.kind(), e.path()) {
        (npy_npz::ErrorKind::ChooseMember { keys }, Some(path)) => {
            choose_member(path, keys, what, them)
        }
        _ => e.to_string(),
    }
}

/// The refusal of `path`, holding the arrays `keys`, converted without --member.
fn choose_member(path: &Path, keys: &[String], what: &str, them: &str) -> String {
    format!(
        "{}: {what} holds {} {them} ({}); choose one with --member KEY",
        path.display(),
        keys.len(),
        keys.join(", ")
    )
}

/// The message of a conversion or an option that `run` refuses before reading anything (exit
/// status 2): .safetensors → .safetensors (no conversion: a tensor's bytes are the same), and
/// an option the conversion `from` → `to` would ignore (--hint, for a .safetensors OUT only;
/// --member, which picks the array of an .npz IN, or the tensor of a .safetensors IN to a
/// table).
fn usage_error(args: &Args, from: Format, to: Format) -> Option<&'static str> {
    if from == Format::Safetensors && to == Format::Safetensors {
        return Some(
            ".safetensors → .safetensors is not a conversion: a .safetensors IN converts to \
             .npz, .npy (one tensor), .arrow or .parquet, and a .safetensors OUT is written \
             from .npy, .npz, .arrow or .parquet",
        );
    }
    if args.hint.is_some() && to != Format::Safetensors {
        return Some(if matches!(to, Format::Npy | Format::Other) {
            "--hint applies to a .safetensors OUT only (an .npy OUT keeps the descr numpy wrote)"
        } else {
            "--hint applies to a .safetensors OUT only"
        });
    }
    if args.member.is_some() {
        match (from, to) {
            (Format::Npz, Format::Safetensors) => {
                return Some(
                    "--member does not apply to .npz → .safetensors: every member of the \
                     archive becomes a tensor",
                )
            }
            (Format::Safetensors, _) if !to.is_table() => {
                return Some(
                    "--member does not apply to .safetensors → .npz or .npy: every tensor is \
                     converted (--member picks one for an .arrow or .parquet OUT)",
                )
            }
            (Format::Npz | Format::Safetensors, _) => {}
            _ => {
                return Some(
                    "--member applies to an .npz or .safetensors IN only (it names the array \
                     to convert)",
                )
            }
        }
    }
    None
}

/// The refusal of a file whose extension names no format `npy convert` reads or writes.
fn unknown_extension(path: &Path) -> ExitCode {
    report(format_args!(
        "{}: the extension is none of .npy, .npz, .arrow (.ipc, .feather), .parquet",
        printable(&path.display().to_string())
    ));
    ExitCode::FAILURE
}

/// What `npy convert` reads and writes, by extension (in any case): decided once, for IN and
/// for OUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// `.npy`
    Npy,
    /// `.npz`
    Npz,
    /// `.arrow`, `.ipc`, `.feather`: the Arrow IPC file format.
    Arrow,
    /// `.parquet`
    Parquet,
    /// `.safetensors`
    Safetensors,
    /// Any other name: an `.npy` file, where both sides are one.
    Other,
}

impl Format {
    fn of(path: &Path) -> Format {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("npy") => Format::Npy,
            Some("npz") => Format::Npz,
            Some("arrow" | "ipc" | "feather") => Format::Arrow,
            Some("parquet") => Format::Parquet,
            Some("safetensors") => Format::Safetensors,
            _ => Format::Other,
        }
    }

    /// npy-arrow's name of the format (`None` for the two it does not convert).
    #[cfg(feature = "arrow")]
    fn arrow_format(self) -> Option<npy_arrow::Format> {
        match self {
            Format::Npy => Some(npy_arrow::Format::Npy),
            Format::Npz => Some(npy_arrow::Format::Npz),
            Format::Arrow => Some(npy_arrow::Format::Ipc),
            Format::Parquet => Some(npy_arrow::Format::Parquet),
            Format::Safetensors | Format::Other => None,
        }
    }

    fn is_table(self) -> bool {
        matches!(self, Format::Arrow | Format::Parquet)
    }

    /// For a format this build cannot read or write: the feature that brings it, as the
    /// message says it.
    fn missing_feature(self) -> Option<&'static str> {
        match self {
            Format::Arrow if cfg!(not(feature = "arrow")) => Some(
                "Arrow IPC files need the feature `arrow`, which this build of npy lacks: \
                 cargo install npy-cli --features arrow (or --features full)",
            ),
            Format::Parquet if cfg!(not(feature = "parquet")) => Some(
                "Parquet files need the feature `parquet`, which this build of npy lacks: \
                 cargo install npy-cli --features parquet (or --features full)",
            ),
            _ => None,
        }
    }
}

/// `.npy` → `.npy`: another byte order, memory order or format version (npy-core).
fn npy_to_npy(args: &Args) -> ExitCode {
    let mut options = ConvertOptions::new();
    if let Some(b) = args.byte_order {
        options = options.byte_order(match b {
            ByteOrderArg::Little => ByteOrder::Little,
            ByteOrderArg::Big => ByteOrder::Big,
            ByteOrderArg::Native => ByteOrder::NATIVE,
        });
    }
    if let Some(o) = args.order {
        options = options.order(match o {
            OrderArg::C => MemoryOrder::C,
            OrderArg::F => MemoryOrder::Fortran,
        });
    }
    if let Some(v) = args.version.as_deref() {
        options = options.version(match v {
            "1" => Version::V1_0,
            "2" => Version::V2_0,
            _ => Version::V3_0,
        });
    }
    let mut bar: Option<Progress> = None;
    let result = convert_file_with_progress(&args.input, &args.output, &options, |done, total| {
        bar.get_or_insert_with(|| Progress::new(total, "converting"))
            .set(done);
    });
    drop(bar);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The error names the input or the output file, whichever failed.
        Err(e) => fail(&e, &args.input),
    }
}

/// Conversions with an Arrow IPC or Parquet side (npy-arrow), `from` and `to` as [`run`]
/// decided them. With safetensors on the other side, no file stands between: a table is read
/// as the array npy-arrow makes of it (one column → a plain array; several → a record, which
/// safetensors refuses, naming it) straight into npy-safetensors' [`TensorWriter`]; a tensor
/// is read as an `.npy` stream straight into npy-arrow's table writer.
///
/// [`TensorWriter`]: npy_safetensors::TensorWriter
#[cfg(feature = "arrow")]
fn tables(args: &Args, from: Format, to: Format) -> ExitCode {
    match (from, to) {
        (_, Format::Safetensors) => table_to_safetensors(args, from),
        (Format::Safetensors, _) => safetensors_to_table(args, to),
        _ => columnar(args, from, to),
    }
}

/// npy-arrow's options for a conversion `from` → `to` (both npy-arrow formats): the formats
/// as [`run`] decided them (npy-arrow does not look at the names again), `--fill`.
#[cfg(feature = "arrow")]
fn arrow_options(
    args: &Args,
    from: npy_arrow::Format,
    to: npy_arrow::Format,
) -> Result<npy_arrow::ConvertOptions, ExitCode> {
    let mut options = npy_arrow::ConvertOptions::new().formats(from, to);
    if let Some(fill) = &args.fill {
        // `parse_fill` accepted the text: an integer (exact) or a float.
        let Ok(fill) = fill.parse::<npy_arrow::FillValue>() else {
            report(format!("--fill {fill:?}: not a number"));
            return Err(ExitCode::FAILURE);
        };
        options.from_arrow = npy_arrow::FromArrowOptions::new().fill(fill);
    }
    Ok(options)
}

/// Reports an error of npy-arrow, naming `input` when the error names no file.
#[cfg(feature = "arrow")]
fn arrow_failed(e: &npy_arrow::Error, input: &Path) -> ExitCode {
    if let npy_arrow::ErrorKind::Npz(inner) = e.kind() {
        if let npy_npz::ErrorKind::ChooseMember { keys } = inner.kind() {
            let path = inner.path().or(e.path()).unwrap_or(input);
            report(printable(&choose_member(
                path,
                keys,
                "the archive",
                "arrays",
            )));
            return ExitCode::FAILURE;
        }
    }
    let mut msg = String::new();
    if e.path().is_none() {
        msg.push_str(&printable(&input.display().to_string()));
        msg.push_str(": ");
    }
    msg.push_str(&printable(&e.to_string()));
    report(msg);
    ExitCode::FAILURE
}

/// An Arrow IPC or Parquet table (`from`) to a safetensors file of one tensor: npy-arrow reads
/// the table a first time for the array's header (dtype, rows), npy-safetensors writes the
/// safetensors header from it, and npy-arrow's second read streams the data bytes into it
/// (memory: a batch of about 8 MiB and the output file's buffer; the whole table is never
/// held). The tensor is named by the table's file stem, as `.npy` → safetensors names it
/// (`a.b.parquet` gives `a.b`; through the temporary `.npy` it once went through, `a`).
#[cfg(feature = "arrow")]
fn table_to_safetensors(args: &Args, from: Format) -> ExitCode {
    let Some(input_format) = from.arrow_format() else {
        return unknown_extension(&args.input);
    };
    let options = match arrow_options(args, input_format, npy_arrow::Format::Npy) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let table = match npy_arrow::NpyFromTable::open(&args.input, &options) {
        Ok(t) => t,
        Err(e) => return arrow_failed(&e, &args.input),
    };
    let name = args
        .input
        .file_stem()
        .map_or_else(|| "arr_0".to_owned(), |s| s.to_string_lossy().into_owned());
    let st_options = npy_safetensors::ToOptions::default().hint(args.hint);
    // A dtype safetensors lacks (a record, strings) is the table's: named by it, as numpy
    // arrays; the output's own errors name the output.
    let st_failed = |e: npy_safetensors::Error| {
        if e.path().is_some() {
            report(e);
        } else {
            report(format_args!(
                "{}: {} (the table, read as numpy arrays)",
                printable(&args.input.display().to_string()),
                printable(&e.kind().to_string())
            ));
        }
        ExitCode::FAILURE
    };
    let mut out = match npy_safetensors::TensorWriter::create(
        &args.output,
        &name,
        table.header(),
        &st_options,
    ) {
        Ok(w) => w,
        Err(e) => return st_failed(e),
    };
    let mut bar: Option<Progress> = None;
    let result = table.write_data(&mut out, |done, total| {
        bar.get_or_insert_with(|| Progress::new(total, "converting"))
            .set(done);
    });
    drop(bar);
    if let Err(e) = result {
        // Unwritten: the output's temporary file goes with `out`.
        return arrow_failed(&e.at_path(&args.output), &args.input);
    }
    match out.finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => st_failed(e),
    }
}

/// A safetensors file to an Arrow IPC or Parquet table (`to`): the tensor `--member` names (or
/// the only one) read as an `.npy` stream by npy-arrow, as it reads an `.npz` member (a plain
/// array's column named by the member key as given), the file opened once.
#[cfg(feature = "arrow")]
fn safetensors_to_table(args: &Args, to: Format) -> ExitCode {
    let Some(output_format) = to.arrow_format() else {
        return unknown_extension(&args.output);
    };
    let options = match arrow_options(args, npy_arrow::Format::Npy, output_format) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut file = match npy_safetensors::SafetensorsFile::open(&args.input) {
        Ok(f) => f,
        Err(e) => {
            report(e);
            return ExitCode::FAILURE;
        }
    };
    let (tensor, column) = match pick_tensor(&file, &args.input, args.member.as_deref()) {
        Ok(picked) => picked,
        Err(e) => {
            report(printable(&npz_message(&e, "the file", "tensors")));
            return ExitCode::FAILURE;
        }
    };
    let stream = match file.npy_stream(&tensor) {
        Ok(s) => std::io::BufReader::with_capacity(1 << 16, s),
        Err(e) => {
            report(e);
            return ExitCode::FAILURE;
        }
    };
    if to == Format::Parquet {
        keep_freed_memory();
    }
    let mut bar: Option<Progress> = None;
    let result =
        npy_arrow::convert_npy_stream(stream, &column, &args.output, &options, |done, total| {
            bar.get_or_insert_with(|| Progress::new(total, "converting"))
                .set(done);
        });
    drop(bar);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => arrow_failed(&e.at_path(&args.input), &args.input),
    }
}

/// The tensor of `file` (at `path`) that `member` names, and the name its column takes: as
/// `npy convert` picked a member of the `.npz` it once converted the file to (a member per
/// tensor, in data order, each stored as `NAME.npy`), with that archive's messages. Without
/// `member`, the file's only tensor (else npy-npz's `ChooseMember`, listing the tensors, which
/// [`npz_message`] words for the command line); with
/// it, the tensor whose stored name `NAME.npy` is `member`, else the tensor named `member`
/// (else npy-npz's `MissingMember`, listing the first 8). The column is named `member` as
/// given.
#[cfg(feature = "arrow")]
fn pick_tensor(
    file: &npy_safetensors::SafetensorsFile,
    path: &Path,
    member: Option<&str>,
) -> Result<(String, String), npy_npz::Error> {
    let tensors = file.header().tensors();
    let names = || tensors.iter().map(|t| t.name().to_owned());
    let Some(member) = member else {
        return match tensors {
            [one] => Ok((one.name().to_owned(), one.name().to_owned())),
            _ => Err(npy_npz::Error::from(npy_npz::ErrorKind::ChooseMember {
                keys: names().collect(),
            })
            .with_path(path)),
        };
    };
    let stored = tensors
        .iter()
        .find(|t| member.strip_suffix(".npy") == Some(t.name()));
    match stored.or_else(|| file.header().tensor(member)) {
        Some(t) => Ok((t.name().to_owned(), member.to_owned())),
        None => Err(npy_npz::Error::from(npy_npz::ErrorKind::MissingMember {
            key: member.to_owned(),
            keys: names().take(8).collect(),
        })
        .with_path(path)),
    }
}

/// A conversion npy-arrow does (`.npy`/`.npz` to and from `.arrow`/`.parquet`, and between
/// tables), `from` and `to` as [`run`] decided them (npy-arrow does not look at the names
/// again).
#[cfg(feature = "arrow")]
fn columnar(args: &Args, from: Format, to: Format) -> ExitCode {
    let (input, output) = match (from.arrow_format(), to.arrow_format()) {
        (Some(input), Some(output)) => (input, output),
        (None, _) => return unknown_extension(&args.input),
        (_, None) => return unknown_extension(&args.output),
    };
    let mut options = match arrow_options(args, input, output) {
        Ok(o) => o,
        Err(code) => return code,
    };
    options.member.clone_from(&args.member);
    if to == Format::Parquet {
        keep_freed_memory();
    }
    let mut bar: Option<Progress> = None;
    let result =
        npy_arrow::convert_with_progress(&args.input, &args.output, &options, |done, total| {
            bar.get_or_insert_with(|| Progress::new(total, "converting"))
                .set(done);
        });
    drop(bar);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => arrow_failed(&e, &args.input),
    }
}

/// Asks glibc's allocator to keep the memory this process frees for its next allocations.
///
/// parquet's writer allocates and frees about 1 MiB for every page it compresses, on every
/// encoding thread. glibc's defaults hand such blocks back to the kernel (`munmap`, or a
/// trimmed arena) as they are freed, so each page's buffer is mapped and zero-filled again.
/// Serving allocations under 64 MiB from the heap and trimming it only past 256 MiB free
/// took `npy convert` of issue 24's 1M-record file from 19,800 page faults to 7,470, CPU
/// 168 → 144 ms and wall 198 → 139 ms (medians of 12 runs each, interleaved, load 3.8-4.9).
/// The cost is memory kept until the process exits, which the conversion ends (peak 35 →
/// 38 MB). Elsewhere than glibc, nothing.
#[cfg(feature = "arrow")]
fn keep_freed_memory() {
    #[cfg(all(feature = "parquet", target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code, reason = "the one libc call that sets glibc's thresholds")]
    {
        // SAFETY: mallopt only changes two of glibc's thresholds; it takes no pointer, and a
        // value glibc refuses leaves the setting as it was (the allocator stays sound).
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
    }
}
