//! One large range of a file read on several threads (`read_at`), each reading its part with
//! positional reads (`pread`: no shared file offset, no lock) straight into the destination.
//!
//! Reading a large array is bound by copying from the page cache and by faulting in the
//! destination's pages; one thread does not saturate either, two or more do better
//! (`npy-bench`'s `read_f32/256MiB` rows).

#[cfg(any(unix, windows))]
use std::fs::File;
#[cfg(any(unix, windows))]
use std::io;

#[cfg(any(unix, windows))]
use crate::codec::{per_chunk, swap_in_place, SWAP_CHUNK_BYTES};
#[cfg(any(unix, windows))]
use crate::io::ReadAt;

/// Fewest data bytes per thread: a read of less than twice this stays on the calling thread,
/// and a larger one uses at most one thread per this many bytes. Spawning a thread costs tens
/// of microseconds; 8 MiB take a few milliseconds to read.
pub const PARALLEL_MIN_BYTES: usize = 8 << 20;

/// How many threads read `len` bytes when `requested` were asked for (`0`: the machine's
/// [`std::thread::available_parallelism`]): at most one per [`PARALLEL_MIN_BYTES`], at least 1.
pub(crate) fn threads_for(len: usize, requested: usize) -> usize {
    // Before asking the system: `available_parallelism` reads cgroup files (tens of
    // microseconds), which row-by-row reads must not pay.
    if len < 2 * PARALLEL_MIN_BYTES || requested == 1 {
        return 1;
    }
    let wanted = match requested {
        0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        n => n,
    };
    wanted.min(len / PARALLEL_MIN_BYTES).max(1)
}

/// Reads `buf.len()` bytes of `file` from `offset` on `threads` threads, each a contiguous
/// part of whole `align`-byte elements, and reverses every `swap_unit`-byte scalar (`0`: no
/// swap) of each piece right after reading it.
///
/// Returns how many bytes from the start of `buf` were read before the file ended (all of
/// them unless it is shorter than `offset + buf.len()`); the bytes after that are unspecified.
///
/// # Errors
/// The first I/O error of any part, in file order.
#[cfg(any(unix, windows))]
pub(crate) fn read_at(
    file: &File,
    offset: u64,
    buf: &mut [u8],
    threads: usize,
    align: usize,
    swap_unit: usize,
) -> io::Result<usize> {
    let align = align.max(1);
    let elements = buf.len() / align;
    let per_part = elements.div_ceil(threads.max(1)).max(1) * align;
    let results: Vec<io::Result<usize>> = std::thread::scope(|s| {
        let handles: Vec<_> = buf
            .chunks_mut(per_part)
            .enumerate()
            .map(|(i, part)| {
                let at = offset + (i * per_part) as u64;
                s.spawn(move || read_part(file, at, part, swap_unit))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut got = 0;
    for (i, r) in results.into_iter().enumerate() {
        let n = r?;
        let want = per_part.min(buf.len() - i * per_part);
        got += n;
        if n < want {
            break;
        }
    }
    Ok(got)
}

/// One thread's part: filled piece by piece (each swapped while in cache); returns how many
/// bytes were read before the file ended.
#[cfg(any(unix, windows))]
fn read_part(file: &File, offset: u64, part: &mut [u8], swap_unit: usize) -> io::Result<usize> {
    let step = if swap_unit == 0 {
        part.len().max(1)
    } else {
        per_chunk(swap_unit, SWAP_CHUNK_BYTES) * swap_unit
    };
    let mut done = 0;
    for piece in part.chunks_mut(step) {
        let n = ReadAt::read_at(file, piece, offset + done as u64)?;
        if swap_unit != 0 {
            swap_in_place(&mut piece[..n - n % swap_unit], swap_unit);
        }
        done += n;
        if n < piece.len() {
            break;
        }
    }
    Ok(done)
}

#[cfg(all(test, any(unix, windows)))]
mod tests {
    use std::io::Write;

    use super::*;

    fn file_of(bytes: &[u8]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    /// Any split of any range reads the file's bytes, swapped per unit when asked: the
    /// expected bytes are the file's, reversed per unit by hand.
    #[test]
    fn parts_read_the_range_and_swap_it() {
        let bytes: Vec<u8> = (0..100_003u32).map(|i| (i * 7 % 251) as u8).collect();
        let file = file_of(&bytes);
        for threads in [1, 2, 3, 7] {
            for (offset, len, align, unit) in [
                (0usize, 100_003usize, 1usize, 0usize),
                (3, 80_000, 4, 4),
                (11, 99_984, 8, 8),
                (1, 60_000, 6, 2),
                (5, 0, 4, 4),
            ] {
                let mut buf = vec![0u8; len];
                let got = read_at(&file, offset as u64, &mut buf, threads, align, unit).unwrap();
                assert_eq!(got, len);
                let mut want = bytes[offset..offset + len].to_vec();
                if unit != 0 {
                    for c in want.chunks_mut(unit) {
                        c.reverse();
                    }
                }
                assert!(buf == want, "threads {threads} offset {offset} unit {unit}");
            }
        }
    }

    /// A file shorter than the range: the count of bytes read in a row from the start, in
    /// whichever part the file ends.
    #[test]
    fn a_short_file_reports_how_much_was_there() {
        let bytes = vec![9u8; 10_000];
        let file = file_of(&bytes);
        for threads in [1, 2, 4, 5] {
            for offset in [0u64, 1_000, 9_999, 10_000, 20_000] {
                let mut buf = vec![0u8; 12_000];
                let got = read_at(&file, offset, &mut buf, threads, 4, 4).unwrap();
                let there = 10_000u64.saturating_sub(offset) as usize;
                assert_eq!(got, there, "threads {threads} offset {offset}");
                assert!(buf[..there].iter().all(|&b| b == 9));
            }
        }
    }

    /// Thread counts: the request, capped at one per `PARALLEL_MIN_BYTES`, never 0.
    #[test]
    fn thread_counts_at_their_boundaries() {
        assert_eq!(threads_for(0, 4), 1);
        assert_eq!(threads_for(2 * PARALLEL_MIN_BYTES - 1, 4), 1);
        assert_eq!(threads_for(2 * PARALLEL_MIN_BYTES, 4), 2);
        assert_eq!(threads_for(100 * PARALLEL_MIN_BYTES, 4), 4);
        assert_eq!(threads_for(100 * PARALLEL_MIN_BYTES, 1), 1);
        assert!(threads_for(100 * PARALLEL_MIN_BYTES, 0) >= 1);
    }
}
