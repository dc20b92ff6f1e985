//! `npy append FILE IN...`: grow a file in place with the arrays of other files.

use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::write::AppendOptions;

use crate::format::fail;
use crate::progress::Progress;

/// Append the arrays of IN... to FILE, along its growth axis: the first in C order, the last in
/// Fortran order.
///
/// Every IN must have FILE's dtype (byte order included), its memory order, and its shape
/// except along the growth axis; every header is checked before anything is written (an IN
/// shorter than its header claims is found while copying, and FILE is restored). The data is
/// copied as it is, through two 1 MiB buffers (one read while the other is written), then
/// FILE's header is rewritten once with the new shape: in place (numpy leaves room for it), or,
/// for a header written without that room, by rewriting FILE atomically. The data is synced to the disk before the header claims it, so
/// a crash leaves FILE with its old shape or its new one. An exclusive lock on FILE keeps
/// concurrent `npy append` runs (and other `NpyAppender` users) from interleaving. On a
/// terminal, a progress bar on stderr follows appends of more than 256 MiB. `npy convert`,
/// `npy cat` and `npy pack` take the same lock before rewriting FILE. Shapes stay within
/// numpy's sizes (at most 2**63 - 1 elements, as `npy_intp`): an append past them is refused.
/// FILE and the INs must be regular files (a FIFO or device is refused at once).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The .npy file to grow.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The .npy files whose arrays are appended, in order.
    #[arg(value_name = "IN", required = true)]
    inputs: Vec<PathBuf>,
    /// Do not sync to the disk (faster; a crash of the system, rather than of this command,
    /// may then lose the append or leave FILE's header ahead of its data).
    #[arg(long)]
    no_sync: bool,
}

/// Runs `npy append`.
pub fn run(args: &Args) -> ExitCode {
    let mut bar: Option<Progress> = None;
    let mut append = || -> Result<(), npy_core::Error> {
        let mut appender = AppendOptions::new().sync(!args.no_sync).open(&args.file)?;
        npy_convert::append_files_with_progress(&mut appender, &args.inputs, |done, total| {
            bar.get_or_insert_with(|| Progress::new(total, "appending"))
                .set(done);
        })
    };
    let result = append();
    drop(bar);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, &args.file),
    }
}
