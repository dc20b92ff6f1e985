//! Inflating members.
//!
//! - Whole members ([`inflate`]): a member's compressed and uncompressed sizes are in the
//!   directory, so one call of libdeflate (its whole-buffer decompressor, 2–3× zlib's speed)
//!   fills a buffer of exactly the declared size, and a stream that goes on past it is refused
//!   there. A member of at least 4 MiB is inflated on two threads when
//!   `ReadOptions::threads` allows (`crate::parinflate`: libdeflate on each half, the second
//!   half started at a block boundary found by trial), and a typed read of a member of the
//!   type's own number dtype inflates straight into the array's memory, its header into a
//!   buffer of its own. On issue 22's member (64 MiB of the bench signal, 60.6 MB deflated by
//!   zlib at level 6), timed in sequence on this 2-core machine: libdeflate's one call into a
//!   fresh buffer 194–215 ms; the first half 106 ms, the second (decoder, then libdeflate)
//!   100 ms, joining them 8–12 ms, reading the compressed bytes 25 ms. Interleaved round by
//!   round (`npy-bench`'s `inflaters`, least and median of 15, load average 1.2–1.4):
//!   `read::<f32>` on two threads 138 / 147 ms, on one 239 / 252, libdeflate alone into a
//!   fresh buffer 214 / 218, and `np.load(f)[key]` just after 451 / 463: 0.32×, 0.54× and
//!   0.47× np.load (medians). Criterion in the same quiet spell (load 1.3–2.0): 195 ms
//!   [160, 244] on two threads, 274 on one, libdeflate alone 219. With other builds on the
//!   cores the second thread waits: criterion at load 2.6–2.8 gave 267 ms on two threads, 268
//!   on one, libdeflate 217, np.load 531 (0.50×); at ~4, 292, 293, 239 and 536.
//! - Streams ([`Inflater`]: a member read piece by piece, in bounded memory): zlib-rs, the
//!   pure-Rust zlib, whose streaming inflate ran at 1.7–1.8× C zlib's (flate2's `zlib`
//!   backend, which the writer keeps for its byte-identical level-6 output) and 1.2× `miniz_oxide`'s
//!   on 64 MiB of random float32 deflated at level 6, CRC-32 included: 108–125 MB/s against
//!   61–75 and 92–102 on this (loaded) 2-core machine, as fast as libdeflate's whole-buffer
//!   call (109–137 MB/s) without a buffer of the member's size.
//! - On `wasm32` (the npy-wasm package), where libdeflate's C does not build, whole members
//!   are inflated by zlib-rs too ([`inflate_zlib_rs`]: one call into the buffer of the
//!   declared size, with the same errors), on one thread (no `parinflate`). Natively, on 64
//!   MiB of random-looking float32 deflated by zlib at level 6 (the ignored test
//!   `inflater_timing`, release, best of 5, load average ~10 on 2 cores): libdeflate 506 ms
//!   (133 MB/s), zlib-rs 741 ms (91 MB/s), 1.46× libdeflate's time.

use std::io::{self, Read};

#[cfg(not(target_arch = "wasm32"))]
use libdeflater::{DecompressionError, Decompressor};
use zlib_rs::{InflateFlush, Status};

use crate::error::ErrorKind;

/// Inflates the raw deflate stream `compressed` into exactly `size` bytes.
///
/// Memory: `size` bytes, which the caller checked against what the compressed bytes can
/// expand to ([`crate::limits::max_inflated`]).
///
/// # Errors
/// [`ErrorKind::InflatesPast`] when the stream holds more than `size` bytes,
/// [`ErrorKind::EndsEarly`] when fewer, [`ErrorKind::BadDeflate`] when it is not deflate.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn inflate(compressed: &[u8], size: usize) -> Result<Vec<u8>, ErrorKind> {
    let mut out = vec![0u8; size];
    match Decompressor::new().deflate_decompress(compressed, &mut out) {
        Ok(n) if n == size => Ok(out),
        Ok(n) => Err(ErrorKind::EndsEarly {
            declared: size as u64,
            found: n as u64,
        }),
        Err(DecompressionError::InsufficientSpace) => Err(ErrorKind::InflatesPast {
            declared: size as u64,
        }),
        Err(DecompressionError::BadData) => Err(ErrorKind::BadDeflate),
    }
}

/// Inflates as the native [`inflate`] does, through zlib-rs (pure Rust): what `wasm32` builds
/// use, libdeflate's C not building there.
#[cfg(target_arch = "wasm32")]
pub(crate) fn inflate(compressed: &[u8], size: usize) -> Result<Vec<u8>, ErrorKind> {
    inflate_zlib_rs(compressed, size)
}

/// Inflates the raw deflate stream `compressed` into exactly `size` bytes with zlib-rs, in
/// one call: [`inflate`] on `wasm32`; natively only its tests and timing use it.
///
/// Memory: `size` bytes and zlib-rs's state (no window beyond the output).
///
/// # Errors
/// As [`inflate`]: [`ErrorKind::InflatesPast`], [`ErrorKind::EndsEarly`],
/// [`ErrorKind::BadDeflate`].
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn inflate_zlib_rs(compressed: &[u8], size: usize) -> Result<Vec<u8>, ErrorKind> {
    let mut out = vec![0u8; size];
    inflate_zlib_rs_into(compressed, &mut out)?;
    Ok(out)
}

/// [`inflate_zlib_rs`] into `out`, which the stream must fill exactly (its length is the
/// declared size): no buffer of its own.
///
/// # Errors
/// As [`inflate_zlib_rs`].
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn inflate_zlib_rs_into(compressed: &[u8], out: &mut [u8]) -> Result<(), ErrorKind> {
    let size = out.len();
    let mut z = zlib_rs::Inflate::new(false, 15);
    let status = z
        .decompress(compressed, out, InflateFlush::Finish)
        .map_err(|_| ErrorKind::BadDeflate)?;
    let made = z.total_out();
    if status == Status::StreamEnd {
        return if made == size as u64 {
            Ok(())
        } else {
            Err(ErrorKind::EndsEarly {
                declared: size as u64,
                found: made,
            })
        };
    }
    if made == size as u64 && z.total_in() < compressed.len() as u64 {
        // The output is full and the stream goes on.
        return Err(ErrorKind::InflatesPast {
            declared: size as u64,
        });
    }
    // Input used up before the end block.
    Err(ErrorKind::EndsEarly {
        declared: size as u64,
        found: made,
    })
}

/// Inflates `data` into `head` then `body` with one call of [`inflate`] (`wasm32`: no
/// threads, no two-part inflate); returns the CRC-32 of all the bytes.
///
/// # Errors
/// As [`inflate`].
#[cfg(target_arch = "wasm32")]
pub(crate) fn inflate_parts(
    data: &mut [u8],
    head: &mut [u8],
    body: &mut [u8],
    _split: bool,
) -> Result<u32, ErrorKind> {
    if head.is_empty() {
        // A whole member (`read_bytes`): straight into its buffer, not into a second one of
        // the member's size (npy-wasm's peak memory for a 1 GiB member was 3 GiB).
        inflate_zlib_rs_into(data, body)?;
        return Ok(crc32fast::hash(body));
    }
    let size = head.len() + body.len();
    let all = inflate(data, size)?;
    head.copy_from_slice(&all[..head.len()]);
    body.copy_from_slice(&all[head.len()..]);
    Ok(crc32fast::hash(&all))
}

/// Members from this size on could be inflated on two threads natively; `wasm32` never
/// splits (see [`inflate_parts`]), the constant only keeps the caller's test alike.
#[cfg(target_arch = "wasm32")]
pub(crate) const SPLIT_MIN_BYTES: usize = usize::MAX;

/// Bytes of compressed input read at first: a header's read inflates a few hundred bytes,
/// so the first request (one HTTP range, remote) stays small.
const FIRST_INPUT_BYTES: usize = 32 << 10;

/// Bytes of compressed input read at most at once, once the reads go on: the input buffer
/// doubles from [`FIRST_INPUT_BYTES`] to this with each refill.
const MAX_INPUT_BYTES: usize = 256 << 10;

/// A raw deflate stream read from `src`, inflated as it is read (zlib-rs; see the module
/// docs for why).
///
/// Memory: zlib-rs's state and 32 KiB window, and an input buffer of at most
/// [`MAX_INPUT_BYTES`], whatever the stream's length.
///
/// As a `Read`: `Ok(0)` once the stream's end block is inflated, and also when `src` ends
/// before it (the caller, who knows the member's declared size, reports that short member);
/// an `io::Error` of kind `InvalidData` for bytes that are not deflate.
pub(crate) struct Inflater<S> {
    src: S,
    z: zlib_rs::Inflate,
    input: Vec<u8>,
    /// `input[at..filled]` is read from `src` and not yet consumed.
    at: usize,
    filled: usize,
    src_done: bool,
    /// The stream's last block was inflated.
    ended: bool,
}

impl<S> std::fmt::Debug for Inflater<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflater")
            .field("total_in", &self.z.total_in())
            .field("total_out", &self.z.total_out())
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl<S: Read> Inflater<S> {
    pub(crate) fn new(src: S) -> Self {
        Inflater {
            src,
            // Raw deflate (no zlib header), a window of 2^15 bytes: what zip members hold.
            z: zlib_rs::Inflate::new(false, 15),
            input: Vec::new(),
            at: 0,
            filled: 0,
            src_done: false,
            ended: false,
        }
    }

    /// Reads the next piece of compressed input, each larger than the last up to
    /// [`MAX_INPUT_BYTES`].
    fn refill(&mut self) -> io::Result<()> {
        let len = (self.input.len() * 2).clamp(FIRST_INPUT_BYTES, MAX_INPUT_BYTES);
        self.input.resize(len, 0);
        let n = loop {
            match self.src.read(&mut self.input) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.src_done = n == 0;
        (self.at, self.filled) = (0, n);
        Ok(())
    }
}

impl<S: Read> Read for Inflater<S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.ended {
            return Ok(0);
        }
        loop {
            if self.at == self.filled {
                if self.src_done {
                    return Ok(0);
                }
                self.refill()?;
                if self.src_done {
                    return Ok(0);
                }
            }
            let (in0, out0) = (self.z.total_in(), self.z.total_out());
            let status = self
                .z
                .decompress(
                    &self.input[self.at..self.filled],
                    out,
                    InflateFlush::NoFlush,
                )
                .map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("corrupt deflate stream: {}", e.as_str()),
                    )
                })?;
            // Both are bounded by the slices just given.
            let used = (self.z.total_in() - in0) as usize;
            let made = (self.z.total_out() - out0) as usize;
            self.at += used;
            if status == Status::StreamEnd {
                self.ended = true;
                return Ok(made);
            }
            if made > 0 {
                return Ok(made);
            }
            if used == 0 {
                // Input and room were both given: zlib consumes or produces, or fails.
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "corrupt deflate stream: no progress",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// The errors of a whole-member inflate, for libdeflate's (native) and zlib-rs's (`wasm32`).
    fn exact_short_long_and_broken_with(inflate: fn(&[u8], usize) -> Result<Vec<u8>, ErrorKind>) {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let c = deflate(&data);
        assert_eq!(inflate(&c, data.len()).unwrap(), data);
        assert!(matches!(
            inflate(&c, data.len() - 1),
            Err(ErrorKind::InflatesPast { .. })
        ));
        assert!(matches!(
            inflate(&c, data.len() + 1),
            Err(ErrorKind::EndsEarly { found: 100_000, .. })
        ));
        assert!(matches!(
            inflate(&[0xff; 8], 10),
            Err(ErrorKind::BadDeflate)
        ));
        // the empty stream, as zlib writes it
        assert_eq!(inflate(&[0x03, 0x00], 0).unwrap(), b"");
        // cut short: fewer bytes than declared, or an error, never the declared size
        assert!(inflate(&c[..c.len() / 2], data.len()).is_err());
    }

    #[test]
    fn exact_short_long_and_broken() {
        exact_short_long_and_broken_with(inflate);
    }

    #[test]
    fn exact_short_long_and_broken_zlib_rs() {
        exact_short_long_and_broken_with(inflate_zlib_rs);
    }

    /// Times libdeflate's whole-member inflate (native) against zlib-rs's (what `wasm32`
    /// builds use) on 64 MiB of random-looking float32 deflated by zlib at level 6:
    /// `cargo test --release -p npy-npz --lib -- --ignored --nocapture inflater_timing`.
    #[test]
    #[ignore = "timing, run by hand in release"]
    fn inflater_timing() {
        let mut x = 0x2545_f491_u32;
        let data: Vec<u8> = (0..(16u32 << 20))
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (f32::from(u16::try_from(x >> 16).unwrap()) / 65536.0).to_le_bytes()
            })
            .collect();
        let c = deflate(&data);
        for (name, f) in [
            ("libdeflate", inflate as fn(&[u8], usize) -> _),
            ("zlib-rs", inflate_zlib_rs),
        ] {
            let mut best = f64::MAX;
            for _ in 0..5 {
                let t = std::time::Instant::now();
                let out = f(&c, data.len()).unwrap();
                best = best.min(t.elapsed().as_secs_f64());
                assert!(out == data);
            }
            println!(
                "{name}: {:.1} ms best of 5, {:.0} MB/s of output",
                best * 1e3,
                data.len() as f64 / best / 1e6
            );
        }
    }

    /// Reads everything through `Inflater` in pieces of `piece` bytes (and a source that
    /// gives `src_piece` bytes per read).
    fn stream(c: &[u8], piece: usize, src_piece: usize) -> io::Result<Vec<u8>> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.1).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut z = Inflater::new(Trickle(c, src_piece));
        let (mut out, mut buf) = (Vec::new(), vec![0u8; piece]);
        loop {
            match z.read(&mut buf)? {
                0 => return Ok(out),
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    #[test]
    fn streams_what_zlib_wrote_in_any_pieces() {
        // Compressible and incompressible parts, several deflate blocks, as zlib writes them.
        let mut data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut x = 26u32;
        data.extend((0..700_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        }));
        for level in [0, 1, 6, 9] {
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(&data).unwrap();
            let c = e.finish().unwrap();
            for (piece, src_piece) in [(1 << 20, usize::MAX), (1, 7), (4093, 1), (65536, 300_001)] {
                assert_eq!(
                    stream(&c, piece, src_piece).unwrap(),
                    data,
                    "level {level} {piece} {src_piece}"
                );
            }
            // Cut short: what was there, then Ok(0) (the caller reports the short member).
            let cut = stream(&c[..c.len() / 2], 1 << 16, usize::MAX).unwrap();
            assert!(
                cut.len() < data.len() && data.starts_with(&cut),
                "level {level}"
            );
        }
        // The empty stream, as zlib writes it, and a stream of no bytes at all.
        assert_eq!(stream(&[0x03, 0x00], 16, 16).unwrap(), b"");
        assert_eq!(stream(&[], 16, 16).unwrap(), b"");
    }

    #[test]
    fn stops_at_the_end_block_and_refuses_garbage() {
        let c = deflate(b"hello hello hello");
        // Bytes after the end block are not inflated (the member's size bounds the reader).
        let mut more = c.clone();
        more.extend_from_slice(&c);
        assert_eq!(stream(&more, 5, 3).unwrap(), b"hello hello hello");
        // 0xff..: block type 3, which deflate does not have.
        let e = stream(&[0xff; 64], 16, 16).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("corrupt deflate stream"), "{e}");
    }
}
