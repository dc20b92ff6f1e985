//! Deflating one member on several threads, as pigz does: the member's bytes are cut into
//! [`BLOCK_BYTES`] blocks, each deflated on its own thread with the 32 KiB before it as the
//! preset dictionary (so matches reach back across block boundaries and the size stays
//! within a few bytes per block of one zlib stream's) and ended with a sync flush (an empty
//! stored block, so every block ends on a byte boundary); the blocks' deflate output,
//! concatenated in order, is one valid deflate stream once a final block follows. The CRC-32
//! of each block is computed on the thread that deflates it and combined in order.
//!
//! The blocks' boundaries are fixed multiples of [`BLOCK_BYTES`] from the member's start and
//! each block's output depends only on its bytes and the 32 KiB before them, so the output
//! is the same for every thread count (one included). Memory: `threads` blocks of input and of
//! output, plus one window, whatever the member's size.

use std::io::{self, Write};

use flate2::{Compress, FlushCompress};

/// Uncompressed bytes of one block: large enough that the per-block cost (a fresh zlib
/// state, 5 bytes of sync flush, a thread hand-off) is noise, small enough that `threads`
/// of them in flight stay a few MiB.
pub(crate) const BLOCK_BYTES: usize = 1 << 20;

/// deflate's window: how far back a match may reach, so how much of the previous block
/// primes the next.
const WINDOW: usize = 32 << 10;

/// Deflates the bytes written to it in parallel blocks and hands each batch's compressed
/// bytes, in order, to `out`.
pub(crate) struct ParallelDeflate<O: FnMut(&[u8]) -> io::Result<()>> {
    out: O,
    level: flate2::Compression,
    threads: usize,
    /// The last [`WINDOW`] bytes already deflated (fewer at the start), then the pending
    /// input, up to `threads` blocks.
    buf: Vec<u8>,
    /// How many bytes at the start of `buf` are the dictionary.
    dict: usize,
    /// One output buffer per block of a batch, reused.
    outs: Vec<Vec<u8>>,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<O: FnMut(&[u8]) -> io::Result<()>> ParallelDeflate<O> {
    /// A stream deflating at `level` (0–9) on `threads` threads (at least 1), writing the
    /// compressed bytes through `out`.
    pub(crate) fn new(level: u32, threads: usize, out: O) -> Self {
        let threads = threads.max(1);
        ParallelDeflate {
            out,
            level: flate2::Compression::new(level.min(9)),
            threads,
            buf: Vec::new(),
            dict: 0,
            outs: (0..threads).map(|_| Vec::new()).collect(),
            crc: crc32fast::Hasher::new(),
            len: 0,
        }
    }

    fn capacity(&self) -> usize {
        self.dict + self.threads * BLOCK_BYTES
    }

    /// Deflates the pending input (whole blocks, and a short last one) and writes it out.
    fn flush_batch(&mut self) -> io::Result<()> {
        let pending = self.buf.len() - self.dict;
        if pending == 0 {
            return Ok(());
        }
        let buf = &self.buf;
        let dict = self.dict;
        let level = self.level;
        let jobs: Vec<(&[u8], &[u8], &mut Vec<u8>)> = buf[dict..]
            .chunks(BLOCK_BYTES)
            .enumerate()
            .zip(self.outs.iter_mut())
            .map(|((i, block), out)| {
                let start = dict + i * BLOCK_BYTES;
                // the first block's window is the dictionary (≤ WINDOW bytes before it);
                // a later block's is the end of the block before it (BLOCK_BYTES > WINDOW)
                let window = &buf[start.saturating_sub(WINDOW)..start];
                (window, block, out)
            })
            .collect();
        let crcs: Vec<io::Result<crc32fast::Hasher>> = std::thread::scope(|s| {
            let mut jobs = jobs.into_iter();
            let first = jobs.next();
            let handles: Vec<_> = jobs
                .map(|(window, block, out)| {
                    s.spawn(move || deflate_block(level, window, block, out))
                })
                .collect();
            let mut crcs = Vec::with_capacity(handles.len() + 1);
            if let Some((window, block, out)) = first {
                crcs.push(deflate_block(level, window, block, out));
            }
            for h in handles {
                crcs.push(
                    h.join()
                        .unwrap_or_else(|_| Err(io::Error::other("a deflate thread panicked"))),
                );
            }
            crcs
        });
        let blocks = crcs.len();
        for (crc, out) in crcs.into_iter().zip(&self.outs) {
            self.crc.combine(&crc?);
            (self.out)(out)?;
        }
        debug_assert_eq!(blocks, pending.div_ceil(BLOCK_BYTES));
        self.len += pending as u64;
        // Keep the last window as the next batch's dictionary.
        let keep = self.buf.len().min(WINDOW);
        let from = self.buf.len() - keep;
        self.buf.copy_within(from.., 0);
        self.buf.truncate(keep);
        self.dict = keep;
        Ok(())
    }

    /// Deflates what is pending and returns the uncompressed length and its CRC-32. The
    /// stream is left without its final block: the caller ends it (an empty final block,
    /// `03 00`, makes it complete).
    pub(crate) fn finish(mut self) -> io::Result<(u64, u32)> {
        self.flush_batch()?;
        Ok((self.len, self.crc.finalize()))
    }
}

impl<O: FnMut(&[u8]) -> io::Result<()>> Write for ParallelDeflate<O> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.capacity() < self.capacity() {
            self.buf.reserve_exact(self.capacity() - self.buf.len());
        }
        let room = self.capacity() - self.buf.len();
        let n = data.len().min(room);
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() == self.capacity() {
            self.flush_batch()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Deflates `block` (raw deflate, primed with `window`) into `out`, ending with a sync flush;
/// returns the block's CRC-32 hasher.
fn deflate_block(
    level: flate2::Compression,
    window: &[u8],
    block: &[u8],
    out: &mut Vec<u8>,
) -> io::Result<crc32fast::Hasher> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(block);
    let mut c = Compress::new(level, false);
    if !window.is_empty() {
        c.set_dictionary(window).map_err(io::Error::other)?;
    }
    out.clear();
    // deflate's worst case is ~5 bytes per 16 KiB stored block beyond the input.
    out.reserve(block.len() + block.len() / 1024 + 64);
    let mut input = block;
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        let (before, written) = (c.total_in(), out.len());
        c.compress_vec(input, out, FlushCompress::Sync)
            .map_err(io::Error::other)?;
        let used = usize::try_from(c.total_in() - before).map_err(io::Error::other)?;
        input = &input[used..];
        // zlib has flushed everything once it returns with output room to spare.
        if input.is_empty() && out.len() < out.capacity() {
            break;
        }
        if used == 0 && out.len() == written {
            return Err(io::Error::other("deflate made no progress"));
        }
    }
    Ok(crc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn deflate(data: &[u8], threads: usize, pieces: usize) -> (Vec<u8>, u64, u32) {
        let mut z = Vec::new();
        let mut p = ParallelDeflate::new(6, threads, |b: &[u8]| {
            z.extend_from_slice(b);
            Ok(())
        });
        for chunk in data.chunks(pieces.max(1)) {
            p.write_all(chunk).unwrap();
        }
        let (len, crc) = p.finish().unwrap();
        z.extend_from_slice(&[0x03, 0x00]); // the final empty block the zip writer adds
        (z, len, crc)
    }

    fn signal(n: usize) -> Vec<u8> {
        (0..n / 4)
            .flat_map(|i| ((i as f32 * 0.001).sin() + (i % 7) as f32 * 0.01).to_le_bytes())
            .collect()
    }

    #[test]
    fn blocks_join_into_one_stream_with_the_whole_crc() {
        for n in [
            0,
            1,
            100,
            BLOCK_BYTES,
            BLOCK_BYTES + 1,
            5 * BLOCK_BYTES / 2 + 12,
        ] {
            let data = signal(n - n % 4)
                .into_iter()
                .chain((0..n % 4).map(|i| i as u8))
                .collect::<Vec<_>>();
            let (z, len, crc) = deflate(&data, 3, 100_000);
            let mut back = Vec::new();
            flate2::read::DeflateDecoder::new(&z[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data, "n = {n}");
            assert_eq!(len, data.len() as u64);
            assert_eq!(crc, crc32fast::hash(&data));
        }
    }

    #[test]
    fn same_bytes_for_every_thread_count_and_write_pattern() {
        let data = signal(3 * BLOCK_BYTES + 4000);
        let (two, ..) = deflate(&data, 2, 1 << 20);
        assert_eq!(deflate(&data, 2, 333).0, two);
        assert_eq!(deflate(&data, 3, 1 << 22).0, two);
        assert_eq!(deflate(&data, 1, 7777).0, two);
        // primed blocks keep the size of one zlib stream, within a few bytes per block
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(&data).unwrap();
        let one = e.finish().unwrap();
        assert!(
            two.len() <= one.len() + one.len() / 200 + 64,
            "{} vs {}",
            two.len(),
            one.len()
        );
    }
}
