//! `npy header`: the header dict of a file, as JSON or exactly as stored.

use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::Header;

use crate::format::printable;

/// Print the header dict of a .npy file (or of an .npz archive's member, with --member).
///
/// As JSON by default, one line: `{"descr": ..., "fortran_order": ..., "shape": [...]}`, where
/// descr is the type string (`"<f4"`) of a simple dtype and numpy's descr list for a record
/// (`[["x", "<f4"], ["", "|V4"], ["y", "<i8", [2]]]`: `[name, descr]` or `[name, descr, shape]`,
/// `[title, name]` for a titled field, `["", "|Vn"]` for padding).
///
/// FILE may be `-` (standard input), a FIFO or a character device: the header is read in one
/// pass, never waiting for a FIFO's writer to appear (with none, the input is empty).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The .npy file (or .npz archive); `-` for standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The member of an .npz archive, by numpy's key (`arr_0`, `weights`; `arr_0.npy` too).
    #[arg(long, value_name = "KEY")]
    member: Option<String>,

    /// Print the header text exactly as stored (Python literal, trailing padding and newline
    /// kept) instead of JSON.
    #[arg(long)]
    python: bool,
}

/// Runs `npy header`.
pub fn run(args: &Args) -> ExitCode {
    let fail = |message: &dyn std::fmt::Display| {
        let path = args.file.display().to_string();
        let _ = writeln!(io::stderr(), "npy: {}: {message}", printable(&path));
        ExitCode::FAILURE
    };
    // npz integration point: a member of an archive.
    let parsed = match &args.member {
        Some(key) => crate::npz::header(&args.file, key),
        // One pass over the bytes: standard input, a FIFO or a device are read as streams
        // (opened without waiting for a FIFO's writer; with none, the stream is empty).
        None if args.file.as_os_str() == "-" => {
            Header::read(&mut io::stdin().lock()).map_err(|e| crate::format::describe(&e))
        }
        None if crate::remote::is_url(&args.file) => {
            crate::remote::header(&args.file).map_err(|e| crate::format::describe(&e))
        }
        None => npy_fs::open_stream(&args.file)
            .map_err(npy_core::Error::from)
            .and_then(|f| Header::read(&mut BufReader::new(f)))
            .map_err(|e| crate::format::describe(&e)),
    };
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let text = if args.python {
        parsed.text
    } else {
        match serde_json::to_string(&parsed.header) {
            Ok(line) => line + "\n",
            Err(e) => return fail(&e),
        }
    };
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(io::stderr(), "npy: writing output: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
