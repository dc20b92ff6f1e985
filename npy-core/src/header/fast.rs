//! A fast path for header text in `np.save`'s one fixed layout, parsed directly into a
//! [`Header`] without building the general [`crate::literal::Value`] tree:
//! `{'descr': D, 'fortran_order': B, 'shape': S, }`, then spaces and `\n`, with `D` a quoted
//! type string or a list of `('name', type[, shape])` entries. Anything else (other key order,
//! escapes in strings, titles, nested subarray tuples, comments, Python 2 suffixes, errors of
//! any kind) returns `None`, and the general parser decides, so both paths accept and reject the
//! same headers and produce the same errors. Record rules (padding, offsets, validation) are
//! shared through [`RecordBuilder`], type strings through [`parse_type_str`].

use super::Header;
use crate::dtype::{
    number_type, parse_type_str, subarray_or_base, CompactString, DType, Primitive, RecordBuilder,
};
use crate::format::ByteOrder;

/// The header in `text` when it is in numpy's own layout and valid; `None` otherwise.
/// `max_depth` is the general parser's nesting limit: a record nested `k` deep uses `2k + 2`
/// levels there (dict, then a list and a tuple per level, then a shape tuple), so the fast path
/// takes at most `(max_depth - 2) / 2` levels and leaves deeper input to the general parser.
pub(crate) fn parse(text: &str, max_depth: usize) -> Option<Header> {
    // The dict and the shape tuple are two levels: below that the general parser refuses all.
    if max_depth < 2 {
        return None;
    }
    let mut c = Cursor {
        text,
        pos: 0,
        sized: false,
    };
    c.lit("{'descr': ")?;
    let dtype = c.descr(max_depth.saturating_sub(2) / 2)?;
    c.lit(", 'fortran_order': ")?;
    let fortran_order = c.eat("True");
    if !fortran_order {
        c.lit("False")?;
    }
    c.lit(", 'shape': ")?;
    let shape = c.shape()?;
    c.lit(", }")?;
    // numpy pads with spaces and ends with '\n'.
    let rest = c.rest();
    let body = rest.strip_suffix(b"\n").unwrap_or(rest);
    if !body.iter().all(|&b| b == b' ') {
        return None;
    }
    let header = Header {
        dtype,
        fortran_order,
        shape,
    };
    header.nbytes().ok()?;
    Some(header)
}

/// Where the single-quoted string whose text starts `s` ends: the index of its first `'`,
/// `\\`, `\n`, `\r` or NUL (the fast path takes no escapes or line breaks, and Python refuses
/// source holding a NUL byte, so the general parser must give that error), or `None` if there
/// is none. Eight bytes at a time: a byte equal to one of those five zeroes its lane of
/// `word ^ pattern`, and the zero-lane test (`(x - 0x01…) & !x & 0x80…`) flags the first zero
/// lane exactly (a borrow only ever flags lanes above a true zero), so the lowest flag is the
/// answer.
#[inline(always)]
fn string_end(s: &[u8]) -> Option<usize> {
    const LO: u64 = u64::from_ne_bytes([0x01; 8]);
    const HI: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_lanes = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut at = 0;
    while let Some(chunk) = s[at..].first_chunk::<8>() {
        let word = u64::from_le_bytes(*chunk);
        let flags = zero_lanes(word ^ (LO * u64::from(b'\'')))
            | zero_lanes(word ^ (LO * u64::from(b'\\')))
            | zero_lanes(word ^ (LO * u64::from(b'\n')))
            | zero_lanes(word ^ (LO * u64::from(b'\r')))
            | zero_lanes(word);
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    s[at..]
        .iter()
        .position(|&b| matches!(b, b'\'' | b'\\' | b'\n' | b'\r' | 0))
        .map(|p| at + p)
}

/// Bytes of the shortest field entry of a descr list with its separator: `('', '?'), `.
const MIN_ENTRY_BYTES: usize = 11;

/// The most fields the fast path reserves up front (6.5 MiB of [`crate::dtype::Field`]s); a
/// longer list grows as its fields parse.
const MAX_RESERVED_FIELDS: usize = 1 << 16;

/// How many fields to reserve for a field list whose text starts `rest`: one per `(` left (an
/// entry opens with one), no more than a valid list of this length could hold, and at most
/// [`MAX_RESERVED_FIELDS`], so that a hostile header that fails after its first field has not
/// allocated more than that.
fn reservation(rest: &[u8]) -> usize {
    // Counted 255 bytes at a time in bytes, which vectorises.
    let opening: usize = rest
        .chunks(255)
        .map(|c| usize::from(c.iter().map(|&b| u8::from(b == b'(')).sum::<u8>()))
        .sum();
    opening
        .min(rest.len() / MIN_ENTRY_BYTES)
        .min(MAX_RESERVED_FIELDS)
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    /// Whether the outermost field list has reserved its fields.
    sized: bool,
}

impl<'a> Cursor<'a> {
    /// The bytes not yet parsed.
    fn rest(&self) -> &'a [u8] {
        &self.text.as_bytes()[self.pos..]
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.rest().starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn lit(&mut self, lit: &str) -> Option<()> {
        self.eat(lit).then_some(())
    }

    /// A single-quoted string without escapes, line breaks or NUL bytes.
    fn string(&mut self) -> Option<&'a str> {
        self.lit("'")?;
        let start = self.pos;
        self.pos += string_end(self.rest())?;
        self.lit("'")?;
        // The quotes are ASCII, so both ends are char boundaries.
        self.text.get(start..self.pos - 1)
    }

    fn descr(&mut self, depth_left: usize) -> Option<DType> {
        match self.rest().first()? {
            b'\'' => parse_type_str(self.string()?).ok(),
            b'[' if depth_left > 0 => self.record(depth_left - 1),
            _ => None,
        }
    }

    fn record(&mut self, depth_left: usize) -> Option<DType> {
        self.lit("[")?;
        let mut record = RecordBuilder::default();
        if !self.sized {
            // The outermost list reserves its fields once (nested lists are small and grow).
            self.sized = true;
            record.reserve(reservation(self.rest()));
        }
        if !self.eat("]") {
            loop {
                if let Some((name, (primitive, order), len)) = self.number_entry() {
                    record.push_number(name, primitive, order)?;
                    self.pos += len;
                    if self.eat("]") {
                        break;
                    }
                    self.lit(", ")?;
                    continue;
                }
                self.lit("(")?;
                let name = CompactString::from(self.string()?);
                self.lit(", ")?;
                let mut dtype = self.descr(depth_left)?;
                if self.eat(", ") {
                    dtype = subarray_or_base(dtype, self.shape()?).ok()?;
                }
                self.lit(")")?;
                record.push(None, name, dtype).ok()?;
                if self.eat("]") {
                    break;
                }
                self.lit(", ")?;
            }
        }
        record.finish().ok()
    }

    /// The commonest entry, `('name', 'Xkn')` (a name without escapes, a number type as
    /// `dtype.str` writes it), in one step: its name, number type and length in bytes.
    /// `None` for any other entry, with nothing consumed: the general entry parse decides.
    #[inline]
    fn number_entry(&self) -> Option<(&'a str, (Primitive, ByteOrder), usize)> {
        let rest = self.rest().strip_prefix(b"('")?;
        let len = string_end(rest)?;
        // `', 'Xkn')`: the eight bytes up to the type's closing quote as one word (the five
        // fixed ones compared at once, the three type bytes masked out), then the `)`.
        let tail = rest.get(len..)?;
        let word = u64::from_le_bytes(*tail.first_chunk::<8>()?);
        const FIXED: u64 = u64::from_le_bytes([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0xff]);
        const QUOTES: u64 = u64::from_le_bytes([b'\'', b',', b' ', b'\'', 0, 0, 0, b'\'']);
        if word & FIXED != QUOTES || tail.get(8) != Some(&b')') {
            return None;
        }
        let [.., e, kind, size, _] = word.to_le_bytes();
        let number = number_type(e, kind, size)?;
        // The quotes are ASCII, so both ends are char boundaries.
        let name = self.text.get(self.pos + 2..self.pos + 2 + len)?;
        Some((name, number, 2 + len + 9))
    }

    /// `()`, `(n,)` or `(n, m, ...)` of decimal ints without leading zeros, each fitting u64.
    fn shape(&mut self) -> Option<Vec<u64>> {
        self.lit("(")?;
        let mut dims = Vec::new();
        if self.eat(")") {
            return Some(dims);
        }
        loop {
            if dims.len() == crate::format::MAX_DIMS {
                return None;
            }
            dims.push(self.int()?);
            let comma = self.eat(",");
            if self.eat(")") {
                // A comma after the only dimension, none after the last of several.
                return (comma == (dims.len() == 1)).then_some(dims);
            }
            (comma && self.eat(" ")).then_some(())?;
        }
    }

    fn int(&mut self) -> Option<u64> {
        let len = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let digits = self.text.get(self.pos..self.pos + len)?;
        // No leading zeros (`parse` refuses an empty string).
        if len > 1 && digits.starts_with('0') {
            return None;
        }
        self.pos += len;
        digits.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::DEFAULT_MAX_DEPTH;
    use npy_test_support::Rng;

    fn slow(text: &str) -> Result<Header, crate::error::Error> {
        let value = crate::literal::parse(text, crate::literal::ParseOptions::default())
            .map_err(|e| crate::error::Error::new(crate::error::ErrorKind::HeaderSyntax(e)))?;
        Header::from_value(&value)
    }

    /// Whatever the fast path accepts, the general parser parses to the same header.
    #[test]
    fn agrees_with_the_general_parser() {
        let cases = [
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }                    \n",
            "{'descr': '|b1', 'fortran_order': True, 'shape': (), }\n",
            "{'descr': '<U5', 'fortran_order': False, 'shape': (0,), }",
            "{'descr': [('a', '|u1'), ('', '|V3'), ('b', '<i4')], 'fortran_order': False, 'shape': (3,), }  \n",
            "{'descr': [('p', [('x', '<f4'), ('y', '<f4')]), ('m', '<f8', (2, 3))], 'fortran_order': False, 'shape': (3,), }\n",
            "{'descr': [('整形', '<i4'), ('x', '<f8')], 'fortran_order': False, 'shape': (2, 0, 3), }\n",
            "{'descr': [('z', '<f4', (4, 0, 4)), ('k', '<i2')], 'fortran_order': False, 'shape': (3,), }\n",
            "{'descr': [('', '<i4', (2,)), ('a', '<i2')], 'fortran_order': False, 'shape': (1,), }\n",
            "{'descr': [], 'fortran_order': False, 'shape': (2,), }\n",
            "{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807,), }\n",
            "{'descr': '<M8[10ms]', 'fortran_order': False, 'shape': (3,), }\n",
        ];
        for text in cases {
            let fast = parse(text, DEFAULT_MAX_DEPTH)
                .unwrap_or_else(|| panic!("fast path refused {text}"));
            assert_eq!(fast, slow(text).unwrap(), "{text}");
        }
        // Past numpy's npy_intp (np.load: "negative dimensions are not allowed", "Maximum
        // allowed dimension exceeded"): both refuse.
        for text in [
            "{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775808,), }\n",
            "{'descr': '|V0', 'fortran_order': False, 'shape': (0, 18446744073709551615), }\n",
        ] {
            assert_eq!(parse(text, DEFAULT_MAX_DEPTH), None, "{text}");
            assert!(slow(text).is_err(), "{text}");
        }
    }

    /// The word-at-a-time scan finds what a byte-by-byte scan finds: every position of each
    /// stop byte in strings of 0 to 40 bytes, over fillers that include the bytes the lane
    /// trick could confuse (0x00, 0x01, 0x7f, 0x80, 0xff and the stop bytes plus or minus one).
    #[test]
    fn string_end_matches_a_byte_scan() {
        let naive = |s: &[u8]| {
            s.iter()
                .position(|&b| matches!(b, b'\'' | b'\\' | b'\n' | b'\r' | 0))
        };
        let fillers = [
            0x00u8,
            0x01,
            0x7f,
            0x80,
            0xff,
            b'a',
            b'\'' - 1,
            b'\'' + 1,
            b'\\' + 1,
            0x0b,
            0x0c,
            0x0e,
            0xa7,
            0xdc,
            0x8a,
            0x8d,
        ];
        for len in 0..=40 {
            for &fill in &fillers {
                let mut s: Vec<u8> = (0..len).map(|i| fill.wrapping_add((i % 3) as u8)).collect();
                for b in &mut s {
                    if matches!(*b, b'\'' | b'\\' | b'\n' | b'\r' | 0) {
                        *b = b'x';
                    }
                }
                assert_eq!(string_end(&s), None, "len {len} fill {fill:#x}");
                for at in 0..len {
                    for stop in [b'\'', b'\\', b'\n', b'\r', 0] {
                        let mut t = s.clone();
                        t[at] = stop;
                        // A second stop byte later must not move the answer.
                        if at + 3 < len {
                            t[at + 3] = b'\'';
                        }
                        assert_eq!(string_end(&t), naive(&t), "{t:?}");
                        assert_eq!(string_end(&t), Some(at));
                    }
                }
            }
        }
    }

    /// The one-step number entry agrees with the general parser for every type string of a
    /// number kind and names of every length from 0 to 30 bytes (inline and heap
    /// `CompactString`s, multi-byte UTF-8), in increasing, decreasing and repeated order.
    #[test]
    fn number_entries_agree_with_the_general_parser() {
        let mut types = Vec::new();
        for e in ['<', '>', '|', '='] {
            for kind in ['b', 'i', 'u', 'f', 'c', 'V', 'S'] {
                for size in '0'..='9' {
                    types.push(format!("{e}{kind}{size}"));
                }
            }
        }
        let names: Vec<String> = (0..=30)
            .flat_map(|n| {
                [
                    "abcdefghijklmnopqrstuvwxyz0123456789"[..n].to_string(),
                    "é".repeat(n / 2),
                    "整".repeat(n / 3) + &"z".repeat(n % 3),
                ]
            })
            .collect();
        let header = |entries: &[(String, &str)]| {
            let list: Vec<String> = entries
                .iter()
                .map(|(n, t)| format!("('{n}', '{t}')"))
                .collect();
            format!(
                "{{'descr': [{}], 'fortran_order': False, 'shape': (3,), }}\n",
                list.join(", ")
            )
        };
        let mut taken = 0;
        let mut check = |text: String| {
            let slow = slow(&text);
            match parse(&text, DEFAULT_MAX_DEPTH) {
                Some(fast) => {
                    taken += 1;
                    assert_eq!(Some(&fast), slow.as_ref().ok(), "{text}");
                }
                // Void and byte-string fields, and ml_dtypes' `'<f1'` (float8_e5m2, not a
                // numpy type), are left to the general parser.
                None => assert!(
                    slow.is_err()
                        || text.contains("'V")
                        || text.contains("'S")
                        || text.contains("f1'"),
                    "fast path refused a valid header: {text}"
                ),
            }
        };
        for t in &types {
            for pair in names.windows(2) {
                check(header(&[(pair[0].clone(), t), (pair[1].clone(), "<f4")]));
                check(header(&[(pair[1].clone(), "<i2"), (pair[0].clone(), t)]));
                check(header(&[(pair[0].clone(), t), (pair[0].clone(), t)]));
            }
        }
        assert!(taken > 10_000, "{taken}");
    }

    /// A number entry that takes a record past numpy's itemsize limit (a C int) is left to
    /// the general parser, which refuses it; one byte less is taken.
    #[test]
    fn number_entry_past_the_itemsize_limit_falls_back() {
        let text = |n: i64| {
            format!(
                "{{'descr': [('a', '|u1', ({n},)), ('b', '<f8')], 'fortran_order': False, 'shape': (), }}\n"
            )
        };
        let over = text(i64::from(i32::MAX) - 7);
        assert_eq!(parse(&over, DEFAULT_MAX_DEPTH), None);
        assert!(slow(&over).is_err());
        let at = text(i64::from(i32::MAX) - 8);
        assert_eq!(parse(&at, DEFAULT_MAX_DEPTH).unwrap(), slow(&at).unwrap());
    }

    /// A NUL byte in a name or type string: Python (so numpy's `np.load`: "Cannot parse
    /// header") and the general parser refuse any source holding one, so the fast path must
    /// not take it, neither in a number entry, a general entry nor the top-level type string.
    #[test]
    fn nul_in_a_string_falls_back() {
        for text in [
            "{'descr': [('a\0b', '<f4')], 'fortran_order': False, 'shape': (0,), }\n",
            "{'descr': [('\0', '<f4')], 'fortran_order': False, 'shape': (0,), }\n",
            "{'descr': [('abcdefgh\0', '<i8'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }\n",
            "{'descr': [('a\0', '<f4', (2,))], 'fortran_order': False, 'shape': (0,), }\n",
            "{'descr': [('a', [('\0', '<f4')])], 'fortran_order': False, 'shape': (0,), }\n",
        ] {
            assert!(slow(text).is_err(), "{text:?}");
            assert_eq!(parse(text, DEFAULT_MAX_DEPTH), None, "{text:?}");
        }
    }

    /// A nesting limit below two levels (the dict and the shape tuple every header has): the
    /// general parser refuses every header, so the fast path must take none.
    #[test]
    fn nesting_limit_below_two_falls_back() {
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n";
        for max_depth in [0, 1] {
            assert!(slow_at(text, max_depth).is_err());
            assert_eq!(parse(text, max_depth), None, "at {max_depth}");
        }
        assert_eq!(parse(text, 2).unwrap(), slow_at(text, 2).unwrap());
    }

    /// Type strings: every number type as `dtype.str` writes it (mostly), and near misses.
    const TYPES: &[&str] = &[
        "<f4", "<f8", "<i4", "<i8", "<u1", "|u1", "|b1", "<b1", "|i1", ">i1", "<f2", ">f2", "<c8",
        ">c8", "=f4", "|f4", ">u8", "<u2", "<i2", ">i4", "=c8", "|V4", "|V0", "<V4", "<U3", "|S5",
        "|S0", "<M8[ns]", "|O", "<f16", "<c16", "f4", "<f", "<f 4", "!f4", "&f4", "<F4", "<x4", "",
        "<f4 ", "<d", "<i3", "<b2", "<q", "|u0", "<U0",
    ];

    /// A field name: lengths around the word (8), inline (24) and `compact_name` (16) limits,
    /// ASCII, multi-byte UTF-8, Python-significant punctuation and (rarely) the bytes the fast
    /// path must stop at.
    fn name(rng: &mut Rng) -> String {
        const CHARS: &[char] = &[
            'a', 'b', 'z', 'A', '0', '_', ' ', 'é', '整', '😀', ',', '(', ')', '[', ']', '"', '#',
            '\t', '\x0b', '\x0c', '\u{85}', '\u{2028}', '\u{ff}', '\u{7f}', '\u{1}',
        ];
        const RARE: &[char] = &['\'', '\\', '\n', '\r', '\0'];
        let len = match rng.below(4) {
            0 => *rng.pick(&[0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25]),
            _ => rng.below(30),
        };
        let mut out = String::new();
        while out.len() < len {
            let c = if rng.below(60) == 0 {
                *rng.pick(RARE)
            } else if rng.below(3) == 0 {
                *rng.pick(CHARS)
            } else {
                char::from(b'a' + rng.below(26) as u8)
            };
            out.push(c);
        }
        out
    }

    fn shape(rng: &mut Rng, big: bool) -> String {
        let dim = |rng: &mut Rng| {
            if big && rng.below(4) == 0 {
                rng.pick(&["1073741824", "268435455", "268435456", "4294967296", "0"])
                    .to_string()
            } else {
                rng.below(5).to_string()
            }
        };
        match rng.below(4) {
            0 => "()".to_string(),
            1 | 2 => format!("({},)", dim(rng)),
            _ => format!("({}, {})", dim(rng), dim(rng)),
        }
    }

    /// A descr in numpy's layout (records nest at most `depth` deep).
    fn descr(rng: &mut Rng, depth: usize, names: &mut Vec<String>) -> String {
        if depth == 0 || rng.below(4) == 0 {
            return format!("'{}'", rng.pick(TYPES));
        }
        let n = rng.below(7);
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let field = if !names.is_empty() && rng.below(8) == 0 {
                rng.pick(names).clone()
            } else {
                let f = name(rng);
                names.push(f.clone());
                f
            };
            let entry = match rng.below(12) {
                0 => format!("('{field}', '|V{}')", rng.below(6)),
                1 => format!("('', '|V{}')", rng.below(6)),
                2 => format!("('{field}', '{}', {})", rng.pick(TYPES), shape(rng, true)),
                3 => format!("('{field}', {})", descr(rng, depth - 1, names)),
                4 => format!("(('t', '{field}'), '{}')", rng.pick(TYPES)),
                _ => format!("('{field}', '{}')", rng.pick(TYPES)),
            };
            entries.push(entry);
        }
        format!("[{}]", entries.join(", "))
    }

    fn header(rng: &mut Rng) -> String {
        let mut names = Vec::new();
        let d = descr(rng, 3, &mut names);
        let order = if rng.below(2) == 0 { "False" } else { "True" };
        let s = shape(rng, true);
        let pad = " ".repeat(rng.below(20));
        let end = if rng.below(5) == 0 { "" } else { "\n" };
        format!("{{'descr': {d}, 'fortran_order': {order}, 'shape': {s}, }}{pad}{end}")
    }

    /// The general parser at a nesting limit.
    fn slow_at(text: &str, max_depth: usize) -> Result<Header, crate::error::Error> {
        let opts = crate::literal::ParseOptions {
            max_depth,
            ..Default::default()
        };
        let value = crate::literal::parse(text, opts)
            .map_err(|e| crate::error::Error::new(crate::error::ErrorKind::HeaderSyntax(e)))?;
        Header::from_value(&value)
    }

    /// Whatever the fast path takes, the general parser parses to the same header (and never
    /// refuses); `true` when the fast path took it.
    fn agrees(text: &str, max_depth: usize) -> bool {
        match parse(text, max_depth) {
            Some(fast) => {
                let slow = slow_at(text, max_depth);
                assert_eq!(
                    Some(&fast),
                    slow.as_ref().ok(),
                    "{text:?} at depth {max_depth}"
                );
                true
            }
            None => false,
        }
    }

    /// Differential: seeded random headers in numpy's layout (number entries with names of
    /// 0-30 bytes, multi-byte UTF-8 and Python punctuation next to the quotes, near-miss type
    /// strings, padding, subarrays, nested records, titles, repeated names, itemsizes past the
    /// C-int limit), each then mutated char-wise (replaced, deleted, inserted, truncated: an
    /// entry cut short anywhere), at nesting limits around the fast path's. The fast path must
    /// agree with the general parser whenever it answers, and never panic.
    #[test]
    fn random_headers_and_mutations_agree_with_the_general_parser() {
        const MUTANTS: &[char] = &[
            '\'', '"', ')', '(', ',', ' ', '[', ']', '<', '>', '|', '=', 'f', '4', 'V', '\0', '\\',
            '\n', '\r', 'é', '整', '#', 'L', '0', '9',
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut taken, mut mutants_taken, mut total) = (0, 0, 0);
        for _ in 0..10_000 {
            let text = header(&mut rng);
            let depth = *rng.pick(&[DEFAULT_MAX_DEPTH, 0, 3, 4, 5, 6, 7, 8]);
            total += 1;
            taken += usize::from(agrees(&text, depth));
            // The whole reader on the file's bytes: latin-1 text in a 1.0 file where it can be
            // (chars up to U+00FF as one byte each), UTF-8 in 3.0 otherwise.
            let latin1: Option<Vec<u8>> = text.chars().map(|c| u8::try_from(c).ok()).collect();
            let (version, raw) = match latin1 {
                Some(raw) => ([1u8, 0], raw),
                None => ([3, 0], text.as_bytes().to_vec()),
            };
            let mut file = b"\x93NUMPY".to_vec();
            file.extend_from_slice(&version);
            if version[0] == 1 {
                file.extend_from_slice(&u16::try_from(raw.len()).unwrap().to_le_bytes());
            } else {
                file.extend_from_slice(&u32::try_from(raw.len()).unwrap().to_le_bytes());
            }
            file.extend_from_slice(&raw);
            let read = Header::read(&mut file.as_slice()).map(|p| p.header);
            assert_eq!(
                read.ok(),
                slow(&text).ok(),
                "{text:?} read from {version:?}"
            );
            for _ in 0..4 {
                let mut chars: Vec<char> = text.chars().collect();
                for _ in 0..=rng.below(3) {
                    let at = rng.below(chars.len() + 1);
                    match rng.below(4) {
                        0 if at < chars.len() => chars[at] = *rng.pick(MUTANTS),
                        1 if at < chars.len() => {
                            chars.remove(at);
                        }
                        2 => chars.truncate(at),
                        _ => chars.insert(at, *rng.pick(MUTANTS)),
                    }
                }
                let mutant: String = chars.into_iter().collect();
                total += 1;
                mutants_taken += usize::from(agrees(&mutant, depth));
            }
        }
        // The generator must reach the fast path (the comparison) often enough to mean much.
        assert!(
            taken > 2_000 && mutants_taken > 500,
            "{taken} {mutants_taken} of {total}"
        );
    }

    /// The reservation: one field per `(`, bounded by the text's length and by the limit.
    #[test]
    fn reservation_is_bounded_at_the_limit() {
        let entry = "('', '?'), ";
        assert_eq!(entry.len(), MIN_ENTRY_BYTES);
        assert_eq!(reservation(entry.repeat(3).as_bytes()), 3);
        assert_eq!(reservation(b"(((((((((((((("), 1, "14 bytes hold one entry");
        let at = entry.repeat(MAX_RESERVED_FIELDS);
        assert_eq!(reservation(at.as_bytes()), MAX_RESERVED_FIELDS);
        let past = entry.repeat(MAX_RESERVED_FIELDS + 1);
        assert_eq!(reservation(past.as_bytes()), MAX_RESERVED_FIELDS);
        let below = entry.repeat(MAX_RESERVED_FIELDS - 1);
        assert_eq!(reservation(below.as_bytes()), MAX_RESERVED_FIELDS - 1);
        // A hostile list: a first field, then a long run of `(` the parser refuses.
        let hostile = format!(
            "{{'descr': [('a', '<f4'), {}], 'fortran_order': False, 'shape': (), }}",
            "(".repeat(10 * MAX_RESERVED_FIELDS)
        );
        assert!(parse(&hostile, DEFAULT_MAX_DEPTH).is_none());
    }

    /// Everything outside numpy's own layout, and every invalid header, is left to the general
    /// parser (which gives the error).
    #[test]
    fn falls_back_outside_numpys_layout() {
        for text in [
            "{'fortran_order': False, 'descr': '<f4', 'shape': (4,), }",
            "{\"descr\": '<f4', 'fortran_order': False, 'shape': (4,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4L,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (04,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } # c\n",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\0",
            "{'descr': 'x\\'', 'fortran_order': False, 'shape': (4,), }",
            "{'descr': [(('t', 'a'), '<i4')], 'fortran_order': False, 'shape': (4,), }",
            "{'descr': [('c', ('<f8', (5,)), (2,))], 'fortran_order': False, 'shape': (3,), }",
            "{'descr': [('a', '<i4'), ('a', '<f4')], 'fortran_order': False, 'shape': (4,), }",
            "{'descr': '<i3', 'fortran_order': False, 'shape': (4,), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }",
            "{'descr': '<f8', 'fortran_order': 0, 'shape': (4,), }",
        ] {
            assert_eq!(parse(text, DEFAULT_MAX_DEPTH), None, "{text}");
        }
        // The depth limit holds on the fast path too.
        let deep = format!(
            "{{'descr': {}'<f4'{}, 'fortran_order': False, 'shape': (), }}",
            "[('a', ".repeat(10),
            ")]".repeat(10)
        );
        assert!(parse(&deep, 21).is_none());
        assert!(parse(&deep, 22).is_some());
        let opts = crate::literal::ParseOptions {
            max_depth: 21,
            ..Default::default()
        };
        assert!(
            crate::literal::parse(&deep, opts).is_ok(),
            "the general parser takes it at 21"
        );
    }

    /// Every header numpy wrote in `fixtures/`: the fast path takes it (titles and nested
    /// subarray tuples excepted) and agrees with the general parser.
    #[test]
    fn takes_numpys_fixture_headers_and_agrees() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let (mut taken, mut total) = (0, 0);
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("npy") {
                continue;
            }
            let mut file = std::fs::File::open(&path).unwrap();
            let text = Header::read(&mut file).unwrap().text;
            total += 1;
            match parse(&text, DEFAULT_MAX_DEPTH) {
                Some(fast) => {
                    taken += 1;
                    assert_eq!(fast, slow(&text).unwrap(), "{}", path.display());
                }
                None => {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    assert!(
                        ["rec_titles.npy", "rec_subsub.npy", "rec_quote.npy"]
                            .contains(&name.as_str()),
                        "fast path refused numpy's header of {name}"
                    );
                }
            }
        }
        assert!(total >= 200 && taken >= total - 3, "{taken} of {total}");
    }
}
