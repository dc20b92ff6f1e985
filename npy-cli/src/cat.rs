//! `npy cat OUT IN...`: concatenate files along their first axis.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::format::fail;
use crate::progress::Progress;

/// Concatenate .npy files along their first axis into OUT, as
/// `np.save(OUT, np.concatenate([np.load(f) for f in INs]))` would.
///
/// Every IN must have the first one's dtype (byte order included) and the same dimensions
/// after the first, in C order (convert a Fortran-order file with `npy convert --order C`
/// first). The data streams through two 1 MiB buffers (one read while the other is written),
/// so files larger than memory concatenate. OUT appears complete or not at all, and may be one
/// of the INs. On a terminal, a progress bar on stderr follows a concatenation of more than
/// 256 MiB (never in a pipe).
///
/// OUT is written as a careful Unix tool writes a file: a temporary file beside it (unnamed on
/// Linux, so a killed run leaves nothing), renamed over it once complete. A symlink OUT is
/// followed and the file it names replaced (the link stays); a FIFO, device, socket,
/// directory or dangling link is refused and left as it is, never replaced. An existing OUT
/// keeps its mode and is locked as `npy append` locks it (a running append finishes first); a
/// new one gets 0666 less the umask. Inputs must be regular files: a FIFO or device is
/// refused at once.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output .npy file.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// The input .npy files, in order.
    #[arg(value_name = "IN", required = true)]
    inputs: Vec<PathBuf>,
}

/// Runs `npy cat`.
pub fn run(args: &Args) -> ExitCode {
    let mut bar: Option<Progress> = None;
    let result =
        npy_convert::concatenate_with_progress(&args.output, &args.inputs, |done, total| {
            bar.get_or_insert_with(|| Progress::new(total, "concatenating"))
                .set(done);
        });
    drop(bar);
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(&e, &args.output),
    }
}
