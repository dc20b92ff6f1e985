//! `npy convert IN OUT`: rewrite a file with another byte order, memory order or format version.

use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::{convert_file_with_progress, ByteOrder, ConvertOptions, Order, Version};

use crate::format::{fail, printable};
use crate::progress::Progress;

/// Rewrite a .npy file with another byte order, memory order or format version; every value
/// is preserved (records and strings included; object arrays are refused).
///
/// Memory stays bounded whatever the size: a byte-order or version change streams the data
/// through two 1 MiB buffers, an order change transposes it tile by tile through three 8 MiB
/// buffers, so files larger than memory convert. OUT is written atomically (temporary file
/// beside it, then rename), so OUT may be IN. On a terminal, a progress bar on stderr follows
/// conversions of more than 256 MiB.
///
/// Other formats, chosen by extension: IN and OUT may be .npy, .npz (--member KEY picks the
/// array), .arrow (the Arrow IPC file format) or .parquet (Snappy). The type mapping is
/// npy-arrow's table (a record's fields become columns, an (n, d1, ...) array a
/// tensor column, NaT a null). Arrow and Parquet input is read twice, batch by
/// batch (once for the rows and string widths, once to write), and .npy input is streamed in
/// 8 MiB batches, so memory stays bounded (Parquet adds one row group).
#[derive(Debug, clap::Args)]
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
    if let Some(code) = columnar(args) {
        return code;
    }
    let mut options = ConvertOptions::default();
    options.byte_order = args.byte_order.map(|b| match b {
        ByteOrderArg::Little => ByteOrder::Little,
        ByteOrderArg::Big => ByteOrder::Big,
        ByteOrderArg::Native => ByteOrder::NATIVE,
    });
    options.order = args.order.map(|o| match o {
        OrderArg::C => Order::C,
        OrderArg::F => Order::Fortran,
    });
    options.version = args.version.as_deref().map(|v| match v {
        "1" => Version::V1_0,
        "2" => Version::V2_0,
        _ => Version::V3_0,
    });
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
    let mut bar: Option<Progress> = None;
    let result = npy_arrow::convert(&args.input, &args.output, &options, |done, total| {
        bar.get_or_insert_with(|| Progress::new(total, "converting"))
            .set(done);
    });
    drop(bar);
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let mut msg = String::from("npy: ");
            if e.path().is_none() {
                msg.push_str(&printable(&args.input.display().to_string()));
                msg.push_str(": ");
            }
            msg.push_str(&printable(&e.to_string()));
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    })
}
