//! Inflating one large deflated member on two threads, each with libdeflate's whole-buffer
//! decompressor for the bulk of its half.
//!
//! Deflate blocks depend on each other only through the 32 KiB window of back-references, and
//! zlib ends a block every ~16K symbols. So:
//!
//! 1. A block start `P` is found by trial past the middle of the compressed bytes: a dynamic
//!    block's header parsed strictly (complete Huffman codes with an end-of-block code) or a
//!    stored block's `LEN`/`NLEN`, then its whole first block decoded and the next header
//!    checked ([`find_split`]).
//! 2. The calling thread inflates `[0, P)` with libdeflate, the stream ended with a block of
//!    [`SENTINEL_LEN`] random bytes and an empty last block written over the bits after `P`
//!    (for a stored block at `P`, whose 3 header bits can sit anywhere in the byte before its
//!    `LEN`, its header is kept and `LEN` 0 written instead of its own). The output must end
//!    with those random bytes: libdeflate reports neither where it stopped nor why, and a
//!    stream whose own last block ends before `P`, or whose block goes on across `P` (so
//!    that `P` was no boundary), stops elsewhere with output the archive chose (issue 42,
//!    F7: a first stream ending in a `0` byte passed for the old one-byte sentinel `0`). The
//!    bytes are drawn anew for every split, so no archive can hold them.
//! 3. The second thread decodes from `P` with this module's small decoder ([`Decoder`]) into
//!    16-bit symbols, where a back-reference reaching before `P` yields a marker naming the
//!    window byte. At the first block boundary `Q` whose last 32 KiB of output hold no
//!    marker, the rest goes to libdeflate: a stored block holding those 32 KiB and an empty
//!    dynamic block of the length that brings the bit position to `Q`'s within its byte,
//!    written over the consumed bytes before `Q` (so the bits from `Q` are used in place and
//!    keep their position, and stored blocks after them their padding); the first 32 KiB of
//!    its output are dropped. Every byte written over is put back after the call.
//!    Should markers never die out within [`MARKED_BUDGET`] symbols (very compressible data,
//!    whose back-references chain on), the rest is inflated after the first half, from the
//!    boundary reached, with the window the first half gives.
//! 4. The markers are resolved from the first half's last 32 KiB and the parts joined.
//!
//! The CRC-32 of each part is computed on the thread that made it and combined. Any decode
//! error, size mismatch, missing sentinel or boundary not found makes the caller fall back to
//! one sequential libdeflate call, whose errors are the ones reported: a false-positive
//! boundary costs time, never other bytes than the sequential inflate's (the sentinel shows
//! that the first half's stream reached the boundary; the declared size and CRC-32 are
//! checked over the joined output too, but an archive can make those fit what it likes).
//!
//! The output is a `head` and a `body` (one output, cut in two: an `.npy` header and the
//! array's bytes, the latter an array's own memory): libdeflate writes the body directly,
//! after this module's decoder has produced the head and the first window (the first
//! libdeflate call starts there, the window given again as a stored block that lands on the
//! same bytes). The second half's bytes are inflated into a buffer of their own and copied in
//! once the first half's length is known.
//!
//! Memory: the output, the compressed bytes (changed in place and put back), the second
//! half's bytes and at most twice [`MARKED_BUDGET`] 16-bit symbols. Time bounded by the declared
//! size and, for the search, [`SEARCH_BYTES`] and [`SEARCH_SYMBOLS`].

use libdeflater::Decompressor;

use crate::error::ErrorKind;

/// deflate's window: how far back a match may reach.
const WINDOW: usize = 32 << 10;

/// Compressed bytes searched for a block start past the middle before giving up (zlib at
/// level 6 ends a block every ~16K symbols, a few to a few tens of KiB of compressed bytes;
/// libdeflate's blocks are at most ~300K symbols).
const SEARCH_BYTES: usize = 256 << 10;

/// Symbols the search decodes in all, over every candidate block start: a hostile stream
/// full of plausible headers costs this much decoding at most.
const SEARCH_SYMBOLS: usize = 8 << 20;

/// Symbols the second thread decodes with markers in its window before it stops and leaves
/// the rest to be inflated after the first half.
const MARKED_BUDGET: usize = 4 << 20;

/// The fewest bytes a member must inflate to for the two-thread inflate: below it, the
/// search for a split point and a thread's start are not paid back. Measured (least of 30, the
/// bench signal deflated by zlib at level 6, load average ~2.3): 1 MiB 3.1 ms on one thread,
/// 3.7 split; 2 MiB 6.1 and 5.4; 4 MiB 12.2 and 9.5. Break-even lies between 1 and 2 MiB;
/// 4 MiB keeps a margin for a loaded machine, where the second thread waits.
pub(crate) const SPLIT_MIN_BYTES: usize = 4 << 20;

/// Why the split path stopped: the caller falls back to the sequential inflate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fallback;

type Res<T> = Result<T, Fallback>;

// ---------------------------------------------------------------------------------------
// Bits

/// A little-endian bit reader over `data`, from any bit; past the end it reads zeros, which
/// [`Bits::overrun`] reports.
struct Bits<'a> {
    data: &'a [u8],
    /// The next byte to load.
    next: usize,
    buf: u64,
    cnt: u32,
}

impl<'a> Bits<'a> {
    fn at(data: &'a [u8], bit: usize) -> Self {
        let mut b = Bits {
            data,
            next: bit / 8,
            buf: 0,
            cnt: 0,
        };
        b.refill();
        b.consume((bit % 8) as u32);
        b
    }

    /// At least 56 bits in `buf`.
    #[inline]
    fn refill(&mut self) {
        if let Some(w) = self.data.get(self.next..self.next + 8) {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            self.buf |= u64::from_le_bytes(a) << self.cnt;
            self.next += ((63 - self.cnt) >> 3) as usize;
            self.cnt |= 0b11_1000;
        } else {
            while self.cnt <= 56 {
                let byte = self.data.get(self.next).copied().unwrap_or(0);
                self.buf |= u64::from(byte) << self.cnt;
                self.next += 1;
                self.cnt += 8;
            }
        }
    }

    #[inline]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.cnt -= n;
    }

    /// The next `n` (at most 32) bits.
    #[inline]
    fn take(&mut self, n: u32) -> u32 {
        if self.cnt < n {
            self.refill();
        }
        let v = (self.buf & ((1u64 << n) - 1)) as u32;
        self.consume(n);
        v
    }

    /// The bit position of the next bit to read.
    fn pos(&self) -> usize {
        self.next * 8 - self.cnt as usize
    }

    fn overrun(&self) -> bool {
        self.pos() > self.data.len() * 8
    }
}

// ---------------------------------------------------------------------------------------
// Huffman codes

/// A canonical Huffman code as a lookup table over its longest code length: each entry is
/// `symbol << 4 | length`, 0 where no code starts (an incomplete code's gaps).
struct Table {
    entries: Vec<u16>,
    bits: u32,
}

/// Whether code `lengths` are valid: `Some(true)` complete, `Some(false)` incomplete (or
/// empty), `None` over-subscribed.
fn kraft(lengths: &[u8]) -> Option<bool> {
    let mut count = [0i32; 16];
    for &l in lengths {
        count[usize::from(l)] += 1;
    }
    let mut left = 1i32;
    for &c in &count[1..] {
        left = left * 2 - c;
        if left < 0 {
            return None;
        }
    }
    Some(left == 0)
}

impl Table {
    /// The code of `lengths` (each at most 15); `None` when over-subscribed, or incomplete
    /// while `complete` is asked.
    fn new(lengths: &[u8], complete: bool) -> Option<Table> {
        let full = kraft(lengths)?;
        if complete && !full {
            return None;
        }
        let bits = u32::from(lengths.iter().copied().max().unwrap_or(0).max(1));
        let mut count = [0u16; 16];
        for &l in lengths {
            count[usize::from(l)] += 1;
        }
        let mut next = [0u16; 16];
        let mut code = 0u16;
        count[0] = 0;
        for len in 1..16 {
            code = (code + count[len - 1]) << 1;
            next[len] = code;
        }
        let size = 1usize << bits;
        let mut entries = vec![0u16; size];
        for (sym, &l) in lengths.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let c = next[usize::from(l)];
            next[usize::from(l)] += 1;
            let rev = (c.reverse_bits() >> (16 - u32::from(l))) as usize;
            let e = ((sym as u16) << 4) | u16::from(l);
            let mut i = rev;
            while i < size {
                entries[i] = e;
                i += 1 << l;
            }
        }
        Some(Table { entries, bits })
    }

    #[inline]
    fn decode(&self, b: &mut Bits<'_>) -> Res<usize> {
        if b.cnt < 15 {
            b.refill();
        }
        let e = self.entries[(b.buf & ((1u64 << self.bits) - 1)) as usize];
        if e == 0 {
            return Err(Fallback);
        }
        b.consume(u32::from(e & 15));
        Ok(usize::from(e >> 4))
    }
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order of the code-length code's lengths in a dynamic header.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// A dynamic block's literal/length and distance code lengths, read from its header;
/// `strict`: every code complete (what zlib and libdeflate write) and the end-of-block code
/// present.
fn dynamic_lengths(b: &mut Bits<'_>, strict: bool) -> Res<(Vec<u8>, Vec<u8>)> {
    let hlit = b.take(5) as usize + 257;
    let hdist = b.take(5) as usize + 1;
    let hclen = b.take(4) as usize + 4;
    if hlit > 286 || hdist > 30 {
        return Err(Fallback);
    }
    let mut cl = [0u8; 19];
    for &i in &CL_ORDER[..hclen] {
        cl[i] = b.take(3) as u8;
    }
    let cl = Table::new(&cl, true).ok_or(Fallback)?;
    let mut lengths = vec![0u8; hlit + hdist];
    let mut i = 0;
    while i < lengths.len() {
        let sym = cl.decode(b)?;
        let (value, times) = match sym {
            0..=15 => (sym as u8, 1),
            16 => {
                let prev = *lengths[..i].last().ok_or(Fallback)?;
                (prev, 3 + b.take(2) as usize)
            }
            17 => (0, 3 + b.take(3) as usize),
            _ => (0, 11 + b.take(7) as usize),
        };
        let end = i.checked_add(times).filter(|&e| e <= lengths.len());
        let end = end.ok_or(Fallback)?;
        lengths[i..end].fill(value);
        i = end;
    }
    let dist = lengths.split_off(hlit);
    if lengths[256] == 0 {
        return Err(Fallback);
    }
    if strict && (kraft(&lengths) != Some(true) || kraft(&dist) != Some(true)) {
        return Err(Fallback);
    }
    Ok((lengths, dist))
}

/// Whether a deflate block plausibly starts at `bit`: a stored block whose `NLEN` is its
/// `LEN`'s complement, or a dynamic one whose header holds complete codes. Fixed blocks are
/// not taken (their header is any 3 bits, too weak a sign).
fn plausible_block(data: &[u8], bit: usize) -> bool {
    let mut b = Bits::at(data, bit);
    let _final = b.take(1);
    match b.take(2) {
        0 => {
            let pad = (8 - b.pos() % 8) % 8;
            b.consume(pad as u32);
            let len = b.take(16);
            let nlen = b.take(16);
            len == !nlen & 0xffff && !b.overrun()
        }
        2 => dynamic_lengths(&mut b, true).is_ok() && !b.overrun(),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// The marker decoder

/// Decodes deflate blocks from a bit into 16-bit symbols: bytes, and `256 + i` for byte `i`
/// of the `WINDOW` bytes before the start (a back-reference reaching there), when `marked`.
struct Decoder<'a> {
    bits: Bits<'a>,
    out: Vec<u16>,
    /// How many bytes before the start back-references may reach (0 or [`WINDOW`]).
    window: usize,
    /// The index of the last marker written.
    last_mark: Option<usize>,
    /// The most symbols `out` may hold.
    limit: usize,
}

impl<'a> Decoder<'a> {
    fn new(data: &'a [u8], bit: usize, window: usize, limit: usize) -> Self {
        Decoder {
            bits: Bits::at(data, bit),
            out: Vec::new(),
            window,
            last_mark: None,
            limit,
        }
    }

    /// Whether the last [`WINDOW`] symbols are all bytes.
    fn clean(&self) -> bool {
        let n = self.out.len();
        n >= WINDOW && self.last_mark.is_none_or(|m| n - (m + 1) >= WINDOW)
    }

    /// Decodes one block; `Ok(true)` when it was the last.
    fn block(&mut self) -> Res<bool> {
        let last = self.bits.take(1) == 1;
        match self.bits.take(2) {
            0 => self.stored()?,
            1 => {
                let mut lit = [8u8; 288];
                lit[144..256].fill(9);
                lit[256..280].fill(7);
                let t = Table::new(&lit, true).ok_or(Fallback)?;
                let d = Table::new(&[5u8; 30], false).ok_or(Fallback)?;
                self.codes(&t, &d)?;
            }
            2 => {
                let (lit, dist) = dynamic_lengths(&mut self.bits, false)?;
                let t = Table::new(&lit, false).ok_or(Fallback)?;
                let d = Table::new(&dist, false).ok_or(Fallback)?;
                self.codes(&t, &d)?;
            }
            _ => return Err(Fallback),
        }
        if self.bits.overrun() {
            return Err(Fallback);
        }
        Ok(last)
    }

    fn stored(&mut self) -> Res<()> {
        let pad = (8 - self.bits.pos() % 8) % 8;
        self.bits.consume(pad as u32);
        let len = self.bits.take(16) as usize;
        let nlen = self.bits.take(16) as usize;
        if len != !nlen & 0xffff {
            return Err(Fallback);
        }
        let at = self.bits.pos() / 8;
        let bytes = self.bits.data.get(at..at + len).ok_or(Fallback)?;
        if self.out.len() + len > self.limit {
            return Err(Fallback);
        }
        self.out.extend(bytes.iter().map(|&x| u16::from(x)));
        self.bits = Bits::at(self.bits.data, (at + len) * 8);
        Ok(())
    }

    fn codes(&mut self, lit: &Table, dist: &Table) -> Res<()> {
        loop {
            let sym = lit.decode(&mut self.bits)?;
            if sym < 256 {
                if self.out.len() >= self.limit {
                    return Err(Fallback);
                }
                self.out.push(sym as u16);
                continue;
            }
            if sym == 256 {
                return Ok(());
            }
            let k = sym - 257;
            if k >= 29 {
                return Err(Fallback);
            }
            let len = usize::from(LEN_BASE[k]) + self.bits.take(u32::from(LEN_EXTRA[k])) as usize;
            let dk = dist.decode(&mut self.bits)?;
            if dk >= 30 {
                return Err(Fallback);
            }
            let d = usize::from(DIST_BASE[dk]) + self.bits.take(u32::from(DIST_EXTRA[dk])) as usize;
            self.copy(d, len)?;
        }
    }

    fn copy(&mut self, d: usize, len: usize) -> Res<()> {
        let i = self.out.len();
        if i + len > self.limit || d > i + self.window {
            return Err(Fallback);
        }
        let mut marked = false;
        for p in i..i + len {
            let v = if p >= d {
                self.out[p - d]
            } else {
                // d - p bytes before the start: window byte WINDOW - (d - p).
                (256 + WINDOW - (d - p)) as u16
            };
            marked |= v >= 256;
            self.out.push(v);
        }
        if marked {
            self.last_mark = Some(i + len - 1);
        }
        Ok(())
    }
}

/// A block start past the middle of `data` and its first block decoded: the first bit
/// plausible ([`plausible_block`]) whose first block decodes (markers allowed) and is
/// followed by another plausible block, or is the last one and ends at `data`'s end.
fn find_split(data: &[u8], limit: usize) -> Option<(End, Decoder<'_>, bool)> {
    let from = data.len() / 2 * 8;
    let to = (data.len().min(data.len() / 2 + SEARCH_BYTES)) * 8;
    let mut budget = SEARCH_SYMBOLS;
    let mark = Sentinel::random();
    for bit in from..to {
        if !plausible_block(data, bit) {
            continue;
        }
        if budget == 0 {
            return None;
        }
        let mut dec = Decoder::new(data, bit, WINDOW, limit.min(budget));
        let end = if dec.bits.take(3) & 0b110 == 0 {
            // stored: LEN at the next byte boundary
            End::Stored(dec.bits.pos().div_ceil(8), mark)
        } else {
            End::Block(bit, mark)
        };
        dec.bits = Bits::at(data, bit);
        match dec.block() {
            // A last block ends the member's bytes (zip holds nothing after the stream).
            Ok(true) if dec.bits.pos().div_ceil(8) == data.len() => {
                return Some((end, dec, true));
            }
            Ok(false) if plausible_block(data, dec.bits.pos()) => {
                return Some((end, dec, false));
            }
            _ => budget -= dec.out.len().min(budget),
        }
        // Each candidate costs at least a block header's worth.
        budget = budget.saturating_sub(64);
    }
    None
}

// ---------------------------------------------------------------------------------------
// libdeflate from a bit

/// Bytes of a first half's [`Sentinel`].
const SENTINEL_LEN: usize = 16;

/// Bytes after a first half's end byte that [`put_end`] may write over (its 3 + 16 x 9 + 7 +
/// 10 bits, from any bit of the end byte, after the 4 bytes of a stored block's `LEN` and
/// `NLEN`): the second half starts past them.
const END_ROOM: usize = 32;

/// The bytes the end of a first half inflates to ([`put_end`]): random, drawn for each split
/// from std's `RandomState` (`SipHash` under keys the OS's randomness seeds), so that an
/// archive cannot make libdeflate's output end with them except by reaching this end at a
/// block boundary (by chance: one in 2^128 for output that does not depend on them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sentinel([u8; SENTINEL_LEN]);

impl Sentinel {
    fn random() -> Sentinel {
        use std::hash::BuildHasher;
        let keys = std::collections::hash_map::RandomState::new();
        let mut b = [0u8; SENTINEL_LEN];
        for (i, chunk) in b.chunks_mut(8).enumerate() {
            chunk.copy_from_slice(&keys.hash_one(i).to_le_bytes());
        }
        Sentinel(b)
    }
}

/// Ends a first half at bit `at`: a non-final block of fixed codes holding the literals of
/// `mark`, then a final empty one. The sentinel tells that libdeflate reached this end at a
/// block boundary: a stream whose own final block ends before the split point stops there,
/// and one whose block goes on across it decodes these bits as that block's codes (the
/// sequential inflate refuses what such a member's size declares, so the split must too).
fn put_end(out: &mut Vec<u8>, at: &mut usize, mark: &Sentinel) {
    // BFINAL 0, BTYPE 01.
    put_bits(out, at, 0b010, 3);
    for &lit in &mark.0 {
        // Fixed codes: 0..=143 are 0x30.. in 8 bits, 144..=255 0x190.. in 9; a code goes
        // from its most significant bit.
        let (code, len) = if lit < 144 {
            (0x30 + u32::from(lit), 8)
        } else {
            (0x190 + u32::from(lit) - 144, 9)
        };
        put_bits(out, at, code.reverse_bits() >> (32 - len), len);
    }
    // End-of-block (7 zero bits); then BFINAL 1, BTYPE 01, end-of-block.
    put_bits(out, at, 0, 7);
    put_bits(out, at, 0b011, 10);
}

/// The bytes a first half made before its end's [`Sentinel`] (`n` made in all); `Fallback`
/// when the sentinel is not there: the stream did not reach the split point at a block
/// boundary (it ended before it, or a block went on across it).
fn before_end(out: &[u8], n: usize, end: End) -> Res<usize> {
    let mark = match end {
        End::Stream => return Ok(n),
        End::Block(_, mark) | End::Stored(_, mark) => mark,
    };
    match n.checked_sub(SENTINEL_LEN) {
        Some(k) if out.get(k..n) == Some(&mark.0[..]) => Ok(k),
        _ => Err(Fallback),
    }
}

/// Appends the `n` low bits of `v` at bit `*at` of `out` (whose bits from `*at` are zero).
fn put_bits(out: &mut Vec<u8>, at: &mut usize, v: u32, n: u32) {
    for k in 0..n {
        if *at / 8 == out.len() {
            out.push(0);
        }
        if (v >> k) & 1 == 1 {
            out[*at / 8] |= 1 << (*at % 8);
        }
        *at += 1;
    }
}

/// Appends a non-last dynamic block that inflates to nothing and is `331 + x` bits long,
/// `x` in `0..8` chosen so that it ends at a bit `≡ residue (mod 8)`: so that the bits that
/// follow keep their position in the byte, and the stored blocks among them their padding.
///
/// Its codes: the code-length code has symbols 0 and 1 (one bit each); literal/length code
/// lengths are 1 for literal 0 and end-of-block, 0 for the other 255 + `x` symbols; two
/// distance codes of one bit; then the end-of-block code (`1`). Every code is complete.
fn put_empty_block(out: &mut Vec<u8>, at: &mut usize, residue: usize) {
    let x = (residue + 8 - (*at + 331) % 8) % 8;
    put_bits(out, at, 0b100, 3); // BFINAL 0, BTYPE 10
    put_bits(out, at, x as u32, 5); // HLIT - 257
    put_bits(out, at, 1, 5); // HDIST - 1
    put_bits(out, at, 14, 4); // HCLEN - 4: 18 lengths, through symbol 1's
    for &sym in &CL_ORDER[..18] {
        put_bits(out, at, u32::from(sym <= 1), 3);
    }
    // literal 0: 1; 1..=255: 0; end-of-block: 1; x unused: 0; two distances: 1.
    put_bits(out, at, 1, 1);
    for _ in 0..255 {
        put_bits(out, at, 0, 1);
    }
    put_bits(out, at, 1, 1);
    for _ in 0..x {
        put_bits(out, at, 0, 1);
    }
    put_bits(out, at, 0b11, 2);
    put_bits(out, at, 1, 1); // end-of-block
}

/// Where a stream made by [`resume_stream`] ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Where `data`'s own stream does.
    Stream,
    /// Before the block that starts at this bit: [`put_end`] with the sentinel follows.
    Block(usize, Sentinel),
    /// Before the `LEN` (at this byte) of a stored block whose header precedes it: `LEN` 0
    /// and an empty last block follow. (A stored block's 3 header bits can sit anywhere in
    /// the byte before; this end takes them, wherever they are.)
    Stored(usize, Sentinel),
}

/// A deflate stream that inflates to `window` and then to what `data`'s bits from `from`
/// inflate to, up to `end`: a stored block of the window, an empty block that brings the
/// bit position to `from`'s in its byte, then `data`'s bytes as they are.
fn resume_stream(data: &[u8], from: usize, end: End, window: &[u8]) -> Res<Vec<u8>> {
    let last = match end {
        End::Stream => data.len(),
        End::Block(p, _) => p.div_ceil(8),
        End::Stored(l, _) => l,
    };
    let first = from / 8;
    if last > data.len() || first >= last {
        return Err(Fallback);
    }
    let mut out = Vec::with_capacity(window.len() + 64 + (last - first));
    npy_fs::advise_huge_pages_spare(&mut out);
    if !window.is_empty() {
        // BFINAL 0, BTYPE 00, padding; LEN, NLEN. The window is at most WINDOW bytes.
        let len = window.len() as u16;
        out.push(0);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(window);
    }
    let mut at = out.len() * 8;
    let r = from % 8;
    if r == 0 {
        out.extend_from_slice(&data[first..last]);
    } else {
        put_empty_block(&mut out, &mut at, r);
        let partial = out.last_mut().ok_or(Fallback)?;
        *partial |= data[first] & (0xff << r);
        out.extend_from_slice(&data[first + 1..last]);
    }
    match end {
        End::Stream => {}
        End::Block(p, mark) => {
            at = out.len() * 8;
            if p % 8 != 0 {
                let partial = out.last_mut().ok_or(Fallback)?;
                *partial &= (1u8 << (p % 8)) - 1;
                at -= 8 - p % 8;
            }
            put_end(&mut out, &mut at, &mark);
        }
        End::Stored(_, mark) => {
            out.extend_from_slice(&[0, 0, 0xff, 0xff]);
            at = out.len() * 8;
            put_end(&mut out, &mut at, &mark);
        }
    }
    Ok(out)
}

/// Inflates with libdeflate the stream of `window` then `data`'s bits from `from` (to `end`)
/// into `out`, which must have room for the window first; returns how many bytes after the
/// window it made.
fn resume(data: &[u8], from: usize, end: End, window: &[u8], out: &mut [u8]) -> Res<usize> {
    let stream = resume_stream(data, from, end, window)?;
    let n = Decompressor::new()
        .deflate_decompress(&stream, out)
        .map_err(|_| Fallback)?;
    before_end(out, n, end)?
        .checked_sub(window.len())
        .ok_or(Fallback)
}

/// Bytes of `buf` overwritten in place, to be put back.
struct Saved {
    at: usize,
    bytes: Vec<u8>,
}

impl Saved {
    fn restore(self, buf: &mut [u8]) {
        buf[self.at..self.at + self.bytes.len()].copy_from_slice(&self.bytes);
    }
}

/// [`resume_stream`]'s start (the window's stored block, the empty block to bit `r` of a
/// byte) written in place in the bytes of `buf` before bit `from`, which are consumed
/// already, none below byte `lo`: the bits from `from` keep their place. Returns where the
/// stream starts and what was overwritten; `None` when the bytes before `from` are too few.
fn place_prefix(buf: &mut [u8], lo: usize, from: usize, window: &[u8]) -> Option<(usize, Saved)> {
    let (first, r) = (from / 8, from % 8);
    let mut pre = Vec::with_capacity(window.len() + 64);
    if !window.is_empty() {
        let len = window.len() as u16;
        pre.push(0);
        pre.extend_from_slice(&len.to_le_bytes());
        pre.extend_from_slice(&(!len).to_le_bytes());
        pre.extend_from_slice(window);
    }
    // With r != 0 the prefix's last byte is `from`'s byte, its bits from r kept.
    let end = if r == 0 {
        first
    } else {
        let mut at = pre.len() * 8;
        put_empty_block(&mut pre, &mut at, r);
        first + 1
    };
    let start = end.checked_sub(pre.len()).filter(|&s| s >= lo)?;
    if end > buf.len() {
        return None;
    }
    let saved = Saved {
        at: start,
        bytes: buf[start..end].to_vec(),
    };
    if r != 0 {
        let keep = buf[first] & (0xff << r);
        *pre.last_mut()? |= keep;
    }
    buf[start..end].copy_from_slice(&pre);
    Some((start, saved))
}

/// [`resume_stream`]'s end written in place at `end` (an empty last block; `LEN` 0 before it
/// for a stored split); returns the stream's end byte and what was overwritten.
fn place_end(buf: &mut [u8], end: End) -> Option<(usize, Saved)> {
    let (at, tail) = match end {
        End::Stream => {
            let saved = Saved {
                at: buf.len(),
                bytes: Vec::new(),
            };
            return Some((buf.len(), saved));
        }
        End::Block(p, mark) => {
            let mut t = vec![*buf.get(p / 8)? & ((1u8 << (p % 8)) - 1)];
            let mut bit = p % 8;
            put_end(&mut t, &mut bit, &mark);
            (p / 8, t)
        }
        End::Stored(l, mark) => {
            let mut t = vec![0, 0, 0xff, 0xff];
            let mut bit = 32;
            put_end(&mut t, &mut bit, &mark);
            (l, t)
        }
    };
    let stop = at + tail.len();
    let saved = Saved {
        at,
        bytes: buf.get(at..stop)?.to_vec(),
    };
    buf[at..stop].copy_from_slice(&tail);
    Some((stop, saved))
}

/// [`resume`] with the stream made in place in `buf` (bytes below `lo` and the consumed ones
/// before `from` overwritten, then put back), or copied when there is no room for that.
fn resume_in_place(
    buf: &mut [u8],
    lo: usize,
    from: usize,
    end: End,
    window: &[u8],
    out: &mut [u8],
) -> Res<usize> {
    let end_byte = match end {
        End::Stream => usize::MAX,
        End::Block(p, _) => p / 8,
        End::Stored(l, _) => l,
    };
    if from / 8 + 1 >= end_byte {
        return resume(buf, from, end, window, out);
    }
    let Some((start, pre)) = place_prefix(buf, lo, from, window) else {
        return resume(buf, from, end, window, out);
    };
    let Some((stop, post)) = place_end(buf, end) else {
        pre.restore(buf);
        return resume(buf, from, end, window, out);
    };
    let n = Decompressor::new().deflate_decompress(&buf[start..stop], out);
    post.restore(buf);
    pre.restore(buf);
    before_end(out, n.map_err(|_| Fallback)?, end)?
        .checked_sub(window.len())
        .ok_or(Fallback)
}

// ---------------------------------------------------------------------------------------
// The whole

/// What the second thread made from the split point on.
enum Second {
    /// Symbols to the stream's end.
    Done(Vec<u16>),
    /// Symbols, then the bytes inflated after them (`tail[WINDOW..]`) and their CRC-32.
    Tail(Vec<u16>, Vec<u8>, usize, crc32fast::Hasher),
    /// Symbols up to block boundary `.1`, from which the rest is still to inflate.
    Stuck(Vec<u16>, usize),
}

/// The second thread: decodes from bit `pos` of `part` (the bytes from the split point's
/// neighbourhood on), after `out` (the first block, decoded by [`find_split`]), then hands
/// the rest to libdeflate in place; bit positions it returns are `part`'s.
fn second(
    part: &mut [u8],
    pos: usize,
    first: Vec<u16>,
    mark: Option<usize>,
    last: bool,
    room: usize,
) -> Res<Second> {
    let (out, q) = {
        // Stopped between blocks once past the budget: room for the block under way.
        let mut dec = Decoder::new(part, pos, WINDOW, room.min(2 * MARKED_BUDGET));
        (dec.out, dec.last_mark) = (first, mark);
        let mut last = last;
        loop {
            if last {
                return Ok(Second::Done(dec.out));
            }
            if dec.out.len() >= MARKED_BUDGET {
                return Ok(Second::Stuck(dec.out, dec.bits.pos()));
            }
            if dec.clean() {
                break (dec.out, dec.bits.pos());
            }
            last = dec.block()?;
        }
    };
    let n = out.len();
    let window: Vec<u8> = out[n - WINDOW..].iter().map(|&s| s as u8).collect();
    let cap = WINDOW.checked_add(room.checked_sub(n).ok_or(Fallback)?);
    let mut tail = vec![0u8; cap.ok_or(Fallback)?];
    npy_fs::advise_huge_pages(&mut tail);
    let made = resume_in_place(part, 0, q, End::Stream, &window, &mut tail)?;
    let mut h = crc32fast::Hasher::new();
    h.update(&tail[WINDOW..WINDOW + made]);
    Ok(Second::Tail(out, tail, made, h))
}

/// The output so far, `head` then `body`, as one sequence of `len` bytes.
struct Output<'o> {
    head: &'o mut [u8],
    body: &'o mut [u8],
}

impl Output<'_> {
    fn len(&self) -> usize {
        self.head.len() + self.body.len()
    }

    fn get(&self, i: usize) -> u8 {
        match i.checked_sub(self.head.len()) {
            None => self.head[i],
            Some(j) => self.body[j],
        }
    }

    fn set(&mut self, i: usize, v: u8) {
        match i.checked_sub(self.head.len()) {
            None => self.head[i] = v,
            Some(j) => self.body[j] = v,
        }
    }

    /// The `w` bytes before `at`.
    fn window(&self, at: usize, w: usize) -> Vec<u8> {
        (at - w..at).map(|i| self.get(i)).collect()
    }

    /// [`Output::resume_at`] with the stream made in place in `data`, whose bytes before
    /// `from` are consumed.
    fn resume_in_place_at(
        &mut self,
        data: &mut [u8],
        from: usize,
        end: End,
        at: usize,
    ) -> Res<usize> {
        let w = at.min(WINDOW);
        let start = (at - w).checked_sub(self.head.len()).ok_or(Fallback)?;
        let window = self.window(at, w);
        resume_in_place(data, 0, from, end, &window, &mut self.body[start..])
    }

    /// Inflates `data`'s bits from `from` (to `to`) at output position `at` with the window
    /// before it, into the body (`at` is past the head plus the window, or the window empty
    /// and `at` 0 with no head); returns the bytes made.
    fn resume_at(&mut self, data: &[u8], from: usize, end: End, at: usize) -> Res<usize> {
        let w = at.min(WINDOW);
        let start = (at - w).checked_sub(self.head.len()).ok_or(Fallback)?;
        let window = self.window(at, w);
        resume(data, from, end, &window, &mut self.body[start..])
    }
}

/// Inflates `data` (a raw deflate stream) into `head` then `body`, exactly filling both, on
/// this thread and one more; returns the CRC-32 of all the bytes.
///
/// # Errors
/// [`Fallback`] for anything but a stream that split, inflated and filled the output exactly:
/// the caller then inflates sequentially (which reports the stream's fault).
pub(crate) fn inflate_split(
    data: &mut [u8],
    head: &mut [u8],
    body: &mut [u8],
) -> Res<crc32fast::Hasher> {
    let mut out = Output { head, body };
    let size = out.len();
    let (end, dec, last) = find_split(data, MARKED_BUDGET).ok_or(Fallback)?;
    let (pos, first, mark) = (dec.bits.pos(), dec.out, dec.last_mark);
    // The first half's end is written in place in the bytes before `cut`; the second
    // thread reads from past them (its first block is decoded already).
    let cut = match end {
        End::Block(p, _) => p / 8,
        End::Stored(l, _) => l,
        End::Stream => return Err(Fallback),
    } + END_ROOM;
    if pos / 8 < cut + 8 {
        return Err(Fallback);
    }
    let (a_part, b_part) = data.split_at_mut(cut);
    let (first_res, second_res) = std::thread::scope(|s| {
        let b = s.spawn(move || second(b_part, pos - cut * 8, first, mark, last, size));
        let a = first_half(a_part, end, &mut out);
        (a, b.join())
    });
    let (a, mut crc) = first_res?;
    let second = match second_res.map_err(|_| Fallback)?? {
        Second::Stuck(s, q) => Second::Stuck(s, q + cut * 8),
        other => other,
    };
    join(data, &mut out, a, &mut crc, second)?;
    Ok(crc)
}

/// Inflates the output before the split `end` (all of it: [`End::Stream`]) into `out`;
/// returns its length and CRC-32.
fn first_half(data: &mut [u8], end: End, out: &mut Output<'_>) -> Res<(usize, crc32fast::Hasher)> {
    let hl = out.head.len();
    let mut q0 = 0;
    let mut made = 0;
    if hl > 0 {
        // The head and a window's worth after it with this module's decoder, so that
        // libdeflate's output (which starts with the window again) lands in the body alone.
        let mut dec = Decoder::new(&*data, 0, 0, out.len());
        let mut ended = false;
        loop {
            // A split this near the start (a member of a few blocks) is not worth it.
            let near = match end {
                End::Stream => false,
                End::Block(p, _) => dec.bits.pos() + 64 >= p,
                End::Stored(l, _) => dec.bits.pos() + 64 >= l * 8,
            };
            if near {
                return Err(Fallback);
            }
            if ended || dec.out.len() >= hl + WINDOW {
                break;
            }
            ended = dec.block()?;
        }
        if ended && end != End::Stream {
            return Err(Fallback);
        }
        q0 = if ended { usize::MAX } else { dec.bits.pos() };
        made = dec.out.len();
        for (i, &s) in dec.out.iter().enumerate() {
            out.set(i, s as u8);
        }
    }
    if q0 != usize::MAX {
        made += out.resume_in_place_at(data, q0, end, made)?;
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&out.head[..hl.min(made)]);
    h.update(&out.body[..made.saturating_sub(hl)]);
    Ok((made, h))
}

/// Resolves the second part's markers from the first part's last window and writes the
/// second part after the first (`a` bytes), combining its CRC-32 into `crc`.
fn join(
    data: &[u8],
    out: &mut Output<'_>,
    a: usize,
    crc: &mut crc32fast::Hasher,
    second: Second,
) -> Res<()> {
    let (syms, rest) = match second {
        Second::Done(s) => (s, None),
        Second::Tail(s, tail, made, h) => (s, Some((Some((tail, made, h)), 0))),
        Second::Stuck(s, q) => (s, Some((None, q))),
    };
    let end = a
        .checked_add(syms.len())
        .filter(|&e| e <= out.len())
        .ok_or(Fallback)?;
    let mut h = crc32fast::Hasher::new();
    let mut piece = Vec::with_capacity(syms.len());
    for &s in &syms {
        let v = match s.checked_sub(256) {
            None => s as u8,
            // window byte i: output byte a - WINDOW + i
            Some(i) => out.get((a + usize::from(i)).checked_sub(WINDOW).ok_or(Fallback)?),
        };
        piece.push(v);
    }
    h.update(&piece);
    for (i, &v) in piece.iter().enumerate() {
        out.set(a + i, v);
    }
    crc.combine(&h);
    let total = match rest {
        None => end,
        Some((Some((tail, made, th)), _)) => {
            let t = end
                .checked_add(made)
                .filter(|&e| e <= out.len())
                .ok_or(Fallback)?;
            let hl = out.head.len();
            if end < hl {
                return Err(Fallback);
            }
            out.body[end - hl..t - hl].copy_from_slice(&tail[WINDOW..WINDOW + made]);
            crc.combine(&th);
            t
        }
        Some((None, q)) => {
            if end < WINDOW + out.head.len() {
                return Err(Fallback);
            }
            let made = out.resume_at(data, q, End::Stream, end)?;
            let hl = out.head.len();
            let mut th = crc32fast::Hasher::new();
            th.update(&out.body[end - hl..end - hl + made]);
            crc.combine(&th);
            end + made
        }
    };
    if total != out.len() {
        return Err(Fallback);
    }
    Ok(())
}

/// Inflates `data` into `head` then `body` as [`inflate_split`] does, or with one libdeflate
/// call when it cannot split; returns the CRC-32 of all the bytes.
///
/// # Errors
/// As [`crate::inflate::inflate`].
pub(crate) fn inflate_parts(
    data: &mut [u8],
    head: &mut [u8],
    body: &mut [u8],
    split: bool,
) -> Result<u32, ErrorKind> {
    if split {
        if let Ok(h) = inflate_split(&mut *data, &mut *head, &mut *body) {
            return Ok(h.finalize());
        }
    } else {
        let mut out = Output {
            head: &mut *head,
            body: &mut *body,
        };
        if let Ok((n, h)) = first_half(&mut *data, End::Stream, &mut out) {
            if n == out.len() {
                return Ok(h.finalize());
            }
        }
    }
    let size = head.len() + body.len();
    let all = crate::inflate::inflate(data, size)?;
    head.copy_from_slice(&all[..head.len()]);
    body.copy_from_slice(&all[head.len()..]);
    Ok(crc32fast::hash(&all))
}

/// See [`crate::exercise_inflate`]: `bytes` as a raw deflate stream, inflated to each of two
/// declared sizes, what libdeflate's one call makes of it (up to 4 MiB) and the size its
/// last three bytes name (little-endian, up to 16 MiB: any size, so that a fuzzer can reach
/// the sizes a wrong split would fill, issue 42's F7), with a head of as many bytes as its
/// first byte says. The two-thread inflate must do exactly what the sequential one does:
/// the same bytes and CRC-32, or the same error.
pub(crate) fn exercise(bytes: &[u8]) {
    let head_len = usize::from(bytes.first().copied().unwrap_or(0));
    let mut all = vec![0u8; 4 << 20];
    let made = Decompressor::new().deflate_decompress(bytes, &mut all).ok();
    let named = match bytes {
        [.., a, b, c] => usize::from(*a) | usize::from(*b) << 8 | usize::from(*c) << 16,
        _ => 0,
    };
    for size in made.into_iter().chain([named]) {
        agrees_with_sequential(bytes, size, head_len);
    }
}

/// Panics unless [`inflate_parts`] on two threads gives for `bytes` inflated to `size` (a
/// head of `head_len` bytes) what [`crate::inflate::inflate`] gives.
fn agrees_with_sequential(bytes: &[u8], size: usize, head_len: usize) {
    let sequential = crate::inflate::inflate(bytes, size);
    let hl = head_len.min(size);
    let (mut head, mut body) = (vec![0u8; hl], vec![0u8; size - hl]);
    let mut data = bytes.to_vec();
    let split = inflate_parts(&mut data, &mut head, &mut body, true);
    assert!(data == bytes, "the compressed bytes were not put back");
    match (sequential, split) {
        (Ok(all), Ok(crc)) => {
            assert_eq!(crc, crc32fast::hash(&all));
            assert!(head == all[..hl] && body == all[hl..], "other bytes");
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (a, b) => panic!(
            "size {size}: sequential {:?}, two threads {:?}",
            a.map(|v| v.len()),
            b
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zlib(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn libdeflate(data: &[u8], level: i32) -> Vec<u8> {
        let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
        let mut out = vec![0u8; c.deflate_compress_bound(data.len())];
        let n = c.deflate_compress(data, &mut out).unwrap();
        out.truncate(n);
        out
    }

    fn xorshift(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 32) as u8
            })
            .collect()
    }

    /// numpy-bench's signal: a slow sine plus small noise, as float32 bytes.
    pub(super) fn signal(n: usize) -> Vec<u8> {
        let noise = xorshift(n, 7);
        (0..n)
            .flat_map(|i| {
                ((i as f32 * 0.001).sin() + 0.01 * f32::from(noise[i]) / 256.0).to_le_bytes()
            })
            .collect()
    }

    fn text(n: usize) -> Vec<u8> {
        let words = [
            "numpy ", "array ", "deflate ", "block ", "window ", "the ", "of ", "\n",
        ];
        let r = xorshift(n, 3);
        let mut out = Vec::new();
        let mut i = 0;
        while out.len() < n {
            out.extend_from_slice(words[usize::from(r[i % n]) % words.len()].as_bytes());
            i += 1;
        }
        out.truncate(n);
        out
    }

    /// Splits and inflates `c` into a head of `hl` bytes and the rest; the split path must
    /// be taken (`split`) and give `data`, CRC-32 included.
    fn check(data: &[u8], c: &[u8], hl: usize, split: bool, what: &str) {
        let mut head = vec![0u8; hl];
        let mut body = vec![0u8; data.len() - hl];
        let mut cc = c.to_vec();
        let got = inflate_split(&mut cc, &mut head, &mut body);
        assert!(cc == c, "{what}: the compressed bytes were not put back");
        if split {
            let h = got.clone().unwrap_or_else(|_| panic!("{what}: no split"));
            assert_eq!(h.finalize(), crc32fast::hash(data), "{what}");
        }
        if got.is_ok() {
            assert!(
                head == data[..hl] && body == data[hl..],
                "{what}: wrong bytes"
            );
        }
        let mut head = vec![0u8; hl];
        let mut body = vec![0u8; data.len() - hl];
        for s in [false, true] {
            let crc = inflate_parts(&mut cc, &mut head, &mut body, s).unwrap();
            assert!(cc == c, "{what}: the compressed bytes were not put back");
            assert_eq!(crc, crc32fast::hash(data), "{what} {s}");
            assert!(
                head == data[..hl] && body == data[hl..],
                "{what} {s}: wrong bytes"
            );
        }
    }

    /// The review of the two-thread inflate (review22, `rand_bfinal_early`): the first half
    /// of the data deflated and finished (its last block final), then the continuation of a
    /// compressor sync-flushed at the same point, with the whole data's CRC and size. zlib,
    /// zipfile and the sequential inflate stop at the final block and refuse; the split,
    /// finding its boundary there, read on past it and accepted all of it. Both must refuse.
    #[test]
    fn a_final_block_at_the_split_point_ends_the_stream_for_both() {
        use flate2::{Compress, Compression, FlushCompress};
        let n = 6 << 20;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut random = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        };
        let rand: Vec<u8> = (0..n).map(|_| random()).collect();
        let piece: Vec<u8> = rand[..1000].to_vec();
        let pattern: Vec<u8> = piece.iter().copied().cycle().take(n).collect();
        let ints: Vec<u8> = (0..n as u32 / 4)
            .flat_map(|i| (i / 3).to_le_bytes())
            .collect();
        let mut refused_both = 0;
        for (name, data) in [("random", &rand), ("pattern", &pattern), ("ints", &ints)] {
            let half = data.len() / 2;
            let first = zlib(&data[..half], 6);
            let mut c = Compress::new(Compression::new(6), false);
            let mut scratch = Vec::with_capacity(data.len() + 1024);
            c.compress_vec(&data[..half], &mut scratch, FlushCompress::Sync)
                .unwrap();
            let mut rest = Vec::with_capacity(data.len() + 1024);
            c.compress_vec(&data[half..], &mut rest, FlushCompress::Finish)
                .unwrap();
            let stream = [first, rest].concat();
            for split in [false, true] {
                let mut cc = stream.clone();
                let mut head = vec![0u8; 128];
                let mut body = vec![0u8; data.len() - 128];
                let got = inflate_parts(&mut cc, &mut head, &mut body, split);
                assert!(
                    cc == stream,
                    "{name} {split}: the compressed bytes were not put back"
                );
                assert!(
                    got.is_err(),
                    "{name}: split {split} read past the final block"
                );
                refused_both += 1;
            }
        }
        assert_eq!(refused_both, 6);
    }

    #[test]
    fn splits_what_zlib_and_libdeflate_write() {
        let n = 3 << 20;
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("signal", signal(n / 4)),
            ("random", xorshift(n, 11)),
            ("text", text(n)),
        ];
        for (name, data) in &cases {
            for level in [1, 6, 9] {
                let c = zlib(data, level);
                check(data, &c, 128, true, &format!("{name} zlib {level}"));
                check(data, &c, 0, true, &format!("{name} zlib {level} no head"));
            }
            for level in [1, 6, 12] {
                let c = libdeflate(data, level);
                check(data, &c, 128, true, &format!("{name} libdeflate {level}"));
            }
        }
    }

    /// A random piece of just under the window repeated: every match reaches ~30 KB back,
    /// across the split point, and the markers never die out (the second part stays in
    /// 16-bit symbols to its end, or past the budget, is finished after the first).
    #[test]
    fn matches_across_the_split_resolve_from_the_first_half() {
        for (n, what) in [(3 << 20, "to the end"), (12 << 20, "past the budget")] {
            // Every 64th byte random, so that blocks end every few hundred KiB.
            let piece = xorshift(30_001, 17);
            let noise = xorshift(n, 19);
            let data: Vec<u8> = (0..n)
                .map(|i| {
                    if i % 64 == 0 {
                        noise[i]
                    } else {
                        piece[i % piece.len()]
                    }
                })
                .collect();
            let c = zlib(&data, 6);
            check(&data, &c, 128, true, &format!("repeated piece, {what}"));
        }
    }

    #[test]
    fn zeros_and_runs_inflate_whatever_the_split() {
        // Back-references chain on forever: markers never die out.
        let zeros = vec![0u8; 20 << 20];
        let runs: Vec<u8> = (0..(8 << 20)).map(|i: u32| (i / 100_000) as u8).collect();
        for (name, data) in [("zeros", &zeros), ("runs", &runs)] {
            for level in [1, 6, 9] {
                check(
                    data,
                    &zlib(data, level),
                    128,
                    false,
                    &format!("{name} {level}"),
                );
            }
        }
    }

    #[test]
    fn the_fuzz_targets_check_holds_for_streams_and_garbage() {
        let data = text(300_000);
        crate::exercise_inflate(&zlib(&data, 6));
        crate::exercise_inflate(&libdeflate(&signal(100_000), 6));
        crate::exercise_inflate(&xorshift(5000, 9));
        crate::exercise_inflate(&[]);
    }

    #[test]
    fn stored_blocks_split_too() {
        let data = xorshift(4 << 20, 5);
        check(&data, &zlib(&data, 0), 128, true, "stored");
    }

    /// Data of a kind: 0 random, 1 zeros, 2 runs, 3 text, 4 the signal, 5 a random piece
    /// repeated (matches from just under the window, crossing any split point), 6 a mix.
    fn kind(k: u8, n: usize, seed: u64) -> Vec<u8> {
        match k {
            0 => xorshift(n, seed),
            1 => vec![0; n],
            2 => {
                let r = xorshift(n / 1000 + 1, seed);
                (0..n).map(|i| r[i / 1000]).collect()
            }
            3 => text(n),
            4 => signal(n / 4 + 1)[..n].to_vec(),
            5 => {
                let piece = xorshift(30_000 + (seed % 2768) as usize, seed);
                piece.iter().copied().cycle().take(n).collect()
            }
            _ => {
                let mut v = Vec::with_capacity(n);
                let mut j = 0u64;
                while v.len() < n {
                    let part = kind((j % 6) as u8, 40_000, seed.wrapping_add(j));
                    v.extend_from_slice(&part);
                    j += 1;
                }
                v.truncate(n);
                v
            }
        }
    }

    /// r07's stream, scaled: `d1` deflated and finished (its last block final), bytes of
    /// `0x5a`, then `d2` deflated at `level2`, starting `delta` bytes from the middle of the
    /// whole (where the split is searched for); `None` when `d1`'s stream is too long for that.
    fn stream_then_another(d1: &[u8], d2: &[u8], level2: u32, delta: isize) -> Option<Vec<u8>> {
        use flate2::{Compress, Compression, FlushCompress};
        let mut c = Compress::new(Compression::new(9), false);
        let mut s1 = Vec::with_capacity(d1.len() + 1024);
        let half = d1.len() / 2;
        c.compress_vec(&d1[..half], &mut s1, FlushCompress::Full)
            .unwrap();
        c.compress_vec(&d1[half..], &mut s1, FlushCompress::Finish)
            .unwrap();
        let s2 = zlib(d2, level2);
        // S2 starts at |S1| + g, the middle is (|S1| + g + |S2|) / 2.
        let g = (s2.len() as isize + 2 * delta).checked_sub(s1.len() as isize)?;
        let g = usize::try_from(g).ok()?;
        let mut c = s1;
        c.resize(c.len() + g, 0x5a);
        c.extend_from_slice(&s2);
        Some(c)
    }

    /// Issue 42, F7 (r07, scaled down): a first stream that ends early, garbage, and a second
    /// stream from the middle on; sized as its first stream's bytes less `k` (the old
    /// one-byte sentinel took `d1`'s last byte, 0, for itself at `k` 1) and then the second's,
    /// and as other sizes around it. zipfile and the sequential inflate stop at the first
    /// stream's final block; the split must give what the sequential inflate gives.
    #[test]
    fn r07_a_second_stream_at_the_split_is_refused_as_sequentially() {
        let mut d1 = xorshift(100_128, 23);
        *d1.last_mut().unwrap() = 0;
        let d2: Vec<u8> = xorshift(1 << 20, 29).iter().map(|&b| b | 1).collect();
        let c = stream_then_another(&d1, &d2, 0, 0).unwrap();
        assert_eq!(c.len() / 2, c.len() - zlib(&d2, 0).len());
        for k in [0, 1, 2, SENTINEL_LEN] {
            agrees_with_sequential(&c, d1.len() - k + d2.len(), 128);
        }
        // The sequential inflate refuses each of those sizes: the stream holds d1 alone.
        assert!(crate::inflate::inflate(&c, d1.len() - 1 + d2.len()).is_err());
        assert_eq!(crate::inflate::inflate(&c, d1.len()).unwrap(), d1);
        agrees_with_sequential(&c, d1.len(), 128);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Streams that end at or around the split point (r07's kind): a finished stream,
        /// garbage, and another from `delta` bytes off the middle, read at sizes near what
        /// a split that ran on past the first stream's end would fill. The two-thread inflate
        /// gives what the sequential one gives: the first stream's bytes or a refusal.
        #[test]
        fn stream_ends_around_the_split_agree_with_sequential(
            k1 in 0u8..7,
            n1 in 1usize..120_000,
            k2 in 0u8..7,
            n2 in 100_000usize..400_000,
            seed in proptest::prelude::any::<u64>(),
            level2 in 0u32..10,
            delta in proptest::prop_oneof![proptest::prelude::Just(0isize), -300isize..300],
            last in proptest::prop_oneof![proptest::prelude::Just(0u8), proptest::prelude::any::<u8>()],
            back in 0usize..40,
            hl in 0usize..300,
        ) {
            let mut d1 = kind(k1, n1, seed);
            *d1.last_mut().unwrap() = last;
            let d2 = kind(k2, n2, seed ^ 0x55);
            let Some(c) = stream_then_another(&d1, &d2, level2, delta) else {
                return Ok(());
            };
            let joined = |back: usize| d1.len().saturating_sub(back) + d2.len();
            for size in [d1.len(), joined(0), joined(1), joined(SENTINEL_LEN), joined(back)] {
                agrees_with_sequential(&c, size, hl);
            }
        }

        /// zlib's and libdeflate's streams of any kind of data, any level: the split inflate
        /// gives the bytes, whatever the head's length, or falls back to the same.
        #[test]
        fn inflates_what_zlib_and_libdeflate_write(
            k in 0u8..7,
            n in 0usize..400_000,
            seed in proptest::prelude::any::<u64>(),
            by_zlib in proptest::prelude::any::<bool>(),
            level in 0u32..10,
            hl in 0usize..300,
        ) {
            let data = kind(k, n, seed);
            let c = if by_zlib { zlib(&data, level) } else { libdeflate(&data, level as i32 + 1) };
            let hl = hl.min(data.len());
            let mut head = vec![0u8; hl];
            let mut body = vec![0u8; data.len() - hl];
            let mut cc = c.clone();
            if let Ok(h) = inflate_split(&mut cc, &mut head, &mut body) {
                proptest::prop_assert_eq!(h.finalize(), crc32fast::hash(&data));
                proptest::prop_assert!(head == data[..hl] && body == data[hl..]);
            }
            for split in [false, true] {
                proptest::prop_assert!(cc == c);
                let crc = inflate_parts(&mut cc, &mut head, &mut body, split).unwrap();
                proptest::prop_assert_eq!(crc, crc32fast::hash(&data));
                proptest::prop_assert!(head == data[..hl] && body == data[hl..]);
            }
        }

        /// Corrupted streams: an error, or bytes whose CRC-32 tells them apart from the
        /// original's (so the member's CRC check refuses them), never a panic, and never
        /// other bytes with the original's CRC-32.
        #[test]
        fn corrupt_streams_never_pass_for_the_original(
            k in 0u8..7,
            n in 1usize..300_000,
            seed in proptest::prelude::any::<u64>(),
            flips in proptest::collection::vec((proptest::prelude::any::<usize>(), 1u8..=255), 1..4),
            cut in proptest::prelude::any::<bool>(),
        ) {
            let data = kind(k, n, seed);
            let mut c = zlib(&data, 6);
            for (at, x) in flips {
                let i = at % c.len();
                c[i] ^= x;
            }
            if cut {
                c.truncate(c.len() / 2 + 1);
            }
            let mut head = vec![0u8; 128.min(n)];
            let mut body = vec![0u8; n - head.len()];
            let mut cc = c.clone();
            let got = inflate_parts(&mut cc, &mut head, &mut body, true);
            proptest::prop_assert!(cc == c);
            if let Ok(crc) = got {
                let got: Vec<u8> = head.iter().chain(&body).copied().collect();
                proptest::prop_assert_eq!(crc, crc32fast::hash(&got));
                if crc == crc32fast::hash(&data) {
                    proptest::prop_assert!(got == data);
                }
            }
        }
    }
}
