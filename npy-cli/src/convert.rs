//! `npy convert IN OUT`: rewrite a file with another byte order, memory order or format version.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::{convert_file_with_progress, ByteOrder, ConvertOptions, Order, Version};

use crate::format::{fail, printable, report};
use crate::progress::Progress;

/// Rewrite a .npy file with another byte order, memory order or format version; every value
/// is preserved (records and strings included; object arrays are refused by a .npy → .npy
/// rewrite, and copied between .npy and .npz with their pickle as it is). An OUT ending in
/// .safetensors converts an .npy or .npz IN to safetensors (as `safetensors.numpy.save_file`
/// writes it), an IN ending in .safetensors converts to .npz (or .npy for one tensor); an
/// .arrow or .parquet table goes through a temporary .npy (or .npz) on the way (a one-column
/// table is one tensor; several columns make a record, which safetensors cannot hold).
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
/// picks the array), .arrow (the Arrow IPC file format) or .parquet (Snappy), and .safetensors;
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
    hint: Option<npy_core::MlType>,
    /// The member of an .npz IN to convert (needed when it holds more than one array).
    #[arg(long, value_name = "KEY")]
    member: Option<String>,
    /// The value written for nulls of number, bool and string columns when reading Arrow or
    /// Parquet (without it such a null is an error; time columns get NaT).
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    fill: Option<f64>,
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
    // safetensors integration point: IN.npz|IN.npy -> OUT.safetensors and back.
    let (to_st, from_st) = (
        crate::safetensors::is_safetensors(&args.output),
        crate::safetensors::is_safetensors(&args.input),
    );
    if args.hint.is_some() && !to_st {
        let _ = writeln!(
            std::io::stderr(),
            "npy: --hint applies to a .safetensors OUT only (an .npy OUT keeps the descr numpy wrote)"
        );
        return ExitCode::from(2);
    }
    if to_st || from_st {
        if args.byte_order.is_some() || args.order.is_some() || args.version.is_some() {
            let _ = writeln!(
                std::io::stderr(),
                "npy: --byte-order, --order and --version do not apply to safetensors (always little-endian C order)"
            );
            return ExitCode::from(2);
        }
        if let Some(code) = through_npz(args, to_st) {
            return code;
        }
        let result = if to_st {
            let options = npy_safetensors::ToOptions::default().hint(args.hint);
            npy_safetensors::to_safetensors(&args.input, &args.output, &options)
        } else {
            npy_safetensors::from_safetensors(&args.input, &args.output)
        };
        return match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                report(e);
                ExitCode::FAILURE
            }
        };
    }
    if let Some(code) = columnar(args) {
        return code;
    }
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
            OrderArg::C => Order::C,
            OrderArg::F => Order::Fortran,
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

/// Conversions that involve Arrow IPC, Parquet or .npz (by IN's and OUT's extensions), done by
/// npy-arrow: `None` for .npy to .npy, which the code above does.
/// Arrow IPC or Parquet to safetensors, and back: safetensors converts from and to numpy
/// arrays, so the table goes through a temporary `.npy` (named by IN's stem, which names the
/// tensor) or `.npz` (a member per tensor) beside nothing the user sees, by
/// [`columnar`]'s rules (one column → a plain array; several → a record, which safetensors
/// refuses, naming it). `None` when neither side is a table.
fn through_npz(args: &Args, to_st: bool) -> Option<ExitCode> {
    use npy_arrow::Format;
    let table = |p: &std::path::Path| matches!(Format::of(p), Some(Format::Ipc | Format::Parquet));
    let side = if to_st { &args.input } else { &args.output };
    if !table(side) {
        return None;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            report(format_args!("a temporary directory: {e}"));
            return Some(ExitCode::FAILURE);
        }
    };
    let stem = side.file_stem().unwrap_or_else(|| "arr_0".as_ref());
    if to_st {
        let middle = dir.path().join(stem).with_extension("npy");
        let step = Args {
            output: middle.clone(),
            hint: None,
            ..args.clone()
        };
        match columnar(&step) {
            Some(code) if code == ExitCode::SUCCESS => {}
            Some(code) => return Some(code),
            None => return None,
        }
        let options = npy_safetensors::ToOptions::default().hint(args.hint);
        Some(
            match npy_safetensors::to_safetensors(&middle, &args.output, &options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    report(format_args!(
                        "{}: {} (the table, read as numpy arrays)",
                        printable(&args.input.display().to_string()),
                        printable(&e.kind().to_string())
                    ));
                    ExitCode::FAILURE
                }
            },
        )
    } else {
        let middle = dir.path().join(stem).with_extension("npz");
        if let Err(e) = npy_safetensors::from_safetensors(&args.input, &middle) {
            report(e);
            return Some(ExitCode::FAILURE);
        }
        columnar(&Args {
            input: middle,
            ..args.clone()
        })
    }
}

fn columnar(args: &Args) -> Option<ExitCode> {
    use npy_arrow::Format;
    let formats = (Format::of(&args.input), Format::of(&args.output));
    let plain = matches!(
        formats,
        (Some(Format::Npy) | None, Some(Format::Npy) | None)
    );
    if plain && args.member.is_none() {
        return None;
    }
    if args.byte_order.is_some() || args.order.is_some() || args.version.is_some() {
        eprintln!("npy: --byte-order, --order and --version apply to .npy → .npy only");
        return Some(ExitCode::FAILURE);
    }
    let mut options = npy_arrow::ConvertOptions::new();
    options.member.clone_from(&args.member);
    if let Some(fill) = args.fill {
        options.from_arrow = npy_arrow::FromArrowOptions::new().fill(fill);
    }
    if npy_arrow::Format::of(&args.output) == Some(npy_arrow::Format::Parquet) {
        keep_freed_memory();
    }
    let mut bar: Option<Progress> = None;
    let result = npy_arrow::convert(&args.input, &args.output, &options, |done, total| {
        bar.get_or_insert_with(|| Progress::new(total, "converting"))
            .set(done);
    });
    drop(bar);
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let mut msg = String::new();
            if e.path().is_none() {
                msg.push_str(&printable(&args.input.display().to_string()));
                msg.push_str(": ");
            }
            msg.push_str(&printable(&e.to_string()));
            report(msg);
            ExitCode::FAILURE
        }
    })
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
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
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
