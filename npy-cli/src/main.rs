//! `npy`: inspect NumPy `.npy` files from the command line.
//!
//! ```text
//! npy info FILE...          what each file holds: dtype, shape, sizes, layout, header
//! npy info --json FILE...   the same, one JSON object per line per file
//! npy show FILE             the values, as numpy prints them (--json: as JSON)
//! npy header FILE           the header dict as JSON (--python: the text as stored)
//! npy convert IN OUT        rewrite with another --byte-order, --order or --version
//! npy pack OUT.npz FILE...  .npy files into an .npz archive, keys from the file stems
//! npy unpack X.npz DIR      an archive's members into DIR, CRC-checked
//! npy cat OUT IN...         concatenate along the first axis (streaming, atomic)
//! npy append FILE IN...     grow FILE in place along its growth axis
//! ```
//!
//! `npy info` describes each member of an `.npz` archive (`--json`: one line per member with
//! `"member"`, the key numpy uses, and `"compressed_size"`); `npy header X.npz --member KEY`
//! prints a member's header and `npy show X.npz --member KEY` its values.
//!
//! With the feature `remote`, `info`, `header`, `show` and `convert` read URLs as well as paths (`s3://`, `gs://`,
//! `az://`, `http(s)://`, `file://`; `.npy` and `.npz`) by ranged GETs, with credentials and
//! endpoints from the standard environment variables (`AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`,
//! `AWS_ACCESS_KEY_ID`, …); the output is the local file's, with the URL where a path is
//! printed. A member's header of a remote archive takes 3 requests; `info` and `show` of a
//! whole remote archive read every member's headers in one coalesced read (3 requests for
//! archives whose headers lie within a few MiB, whatever the member count). `convert` of a URL
//! downloads only what its input needs (an `.npy`'s header and the data it describes, an
//! `.npz`'s members and directory, never the object's claimed length; at most 64 GiB) into an
//! unnamed temporary file, removed on exit and on SIGTERM, SIGINT and SIGHUP. Each read of an
//! object has a time budget of 60 s (npy-object-store's `DEFAULT_REQUEST_TIMEOUT`).
//!
//! Each subcommand is a module (`info`); `main` parses the command line and dispatches.
//!
//! # `npy info`
//!
//! Reads the header of each file (never the data) and prints a block per file:
//!
//! ```text
//! w_f32
//!   dtype        <f4 float32
//!   shape        4 × 64
//!   data bytes   1,024
//!   file size    1,152
//!   version      1.0
//!   data offset  128
//!   order        C
//!   byte order   little
//!   header       {'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }
//! ```
//!
//! The canonical number type follows the descr when there is one; a 0-d array has shape `()`;
//! a record dtype is followed by one line per field (name, descr, offset). A file shorter than
//! its header promises gets a `warning` line. Blocks are separated by a blank line; a file that
//! cannot be read is reported on stderr as `npy: FILE: message` and the others are still
//! described.
//!
//! ## `--json`
//!
//! One JSON object per line per file, in the order the files were given. Its fields are listed
//! once, in `npy info --help` (`JSON_FIELDS` in `info.rs`): npy-core's serialised
//! `TensorInfo` plus `path` and `file_size`. The encoding of `npy show --json` is likewise in
//! `npy show --help` (`JSON_ENCODING` in `show/mod.rs`).
//!
//! A shortfall warning goes to stderr as `npy: FILE: warning: ...` in this mode.
//!
//! # Exit status
//!
//! 0 when every file was read and holds all the data its header describes; 1 when a file could
//! not be read or is shorter than its header promises; 2 for a usage error.

// Two unsafe sites, each allowed where it is: mallopt (convert.rs) and the signal handler
// that removes a partial download (remote.rs).
#![deny(unsafe_code)]

mod append;
mod cat;
mod convert;
mod format;
mod header;
mod info;
mod npz;
mod progress;
#[cfg_attr(not(feature = "remote"), path = "remote_off.rs")]
mod remote;
mod safetensors;
mod show;
mod sql;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Inspect, convert and pack NumPy .npy files and .npz archives.
#[derive(Debug, Parser)]
#[command(name = "npy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Info(info::Args),
    Show(show::Args),
    Header(header::Args),
    Convert(convert::Args),
    Pack(npz::PackArgs),
    Unpack(npz::UnpackArgs),
    Cat(cat::Args),
    Append(append::Args),
    Sql(sql::Args),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Info(args) => info::run(&args),
        Command::Show(args) => show::run(&args),
        Command::Header(args) => header::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Pack(args) => npz::pack(&args),
        Command::Unpack(args) => npz::unpack(&args),
        Command::Cat(args) => cat::run(&args),
        Command::Append(args) => append::run(&args),
        Command::Sql(args) => sql::run(&args),
    }
}
