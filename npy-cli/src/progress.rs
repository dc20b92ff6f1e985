//! Progress bars on stderr for commands that work through much data: `npy convert`, `npy cat`,
//! `npy append`, `npy pack`, `npy unpack`, and `npy show --full` / `--json` when their output
//! goes to a file or a pipe. A bar appears only when stderr is a terminal (never in a pipe, a
//! file or a test's captured output) and the work exceeds [`THRESHOLD`] bytes; it is cleared
//! when the work ends, so nothing of it stays on the screen. `npy show` draws none when stdout
//! is the terminal too, where a bar would cut through the values.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work of more bytes than this shows a bar (256 MiB: about a quarter second at memory speed,
/// below which a bar would only flash).
pub const THRESHOLD: u64 = 256 << 20;

/// A byte-counting bar, or nothing when stderr is not a terminal or the work is small.
#[derive(Debug)]
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar for `total` bytes of work, labelled `what` (a verb: "converting").
    pub fn new(total: u64, what: &str) -> Progress {
        if total <= THRESHOLD || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} {wide_bar} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(what.to_owned());
        Progress(Some(bar))
    }

    /// No bar (work that never shows one).
    pub fn none() -> Progress {
        Progress(None)
    }

    /// Whether a bar is drawn (stderr is a terminal and the work is large).
    #[cfg(feature = "sql")]
    pub fn is_shown(&self) -> bool {
        self.0.is_some()
    }

    /// Sets the bytes done.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(done);
        }
    }

    /// Adds `n` bytes done.
    pub fn add(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }

    /// `inner`, counting the bytes read or written through it.
    pub fn counted<T>(&self, inner: T) -> Counted<'_, T> {
        Counted { inner, bar: self }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A reader or writer that adds the bytes it moves to a [`Progress`].
#[derive(Debug)]
pub struct Counted<'a, T> {
    inner: T,
    bar: &'a Progress,
}

impl<T: std::io::Read> std::io::Read for Counted<'_, T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.add(n as u64);
        Ok(n)
    }
}

/// Seeking moves no bytes: the count stays (a summarised `npy show` seeks; the bar counts
/// bytes read).
impl<T: std::io::Seek> std::io::Seek for Counted<'_, T> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl<T: std::io::Write> std::io::Write for Counted<'_, T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bar.add(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
