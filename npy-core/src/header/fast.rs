//! A fast path for header text exactly as `np.save` writes it.
//!
//! numpy's writer emits one fixed layout: `{'descr': D, 'fortran_order': B, 'shape': S, }`,
//! then spaces and `\n`, with `D` a quoted type string or a list of `('name', type[, shape])`
//! entries. This module parses that layout directly into a [`Header`], without building the
//! general [`crate::literal::Value`] tree. Anything else (other key order, escapes in strings,
//! titles, nested subarray tuples, comments, Python 2 suffixes, errors of any kind) returns
//! `None`, and the general parser decides, so both paths accept and reject the same headers and
//! produce the same errors. Record rules (padding, offsets, validation) are shared through
//! [`RecordBuilder`], type strings through [`parse_type_str`].

use super::Header;
use crate::dtype::{parse_type_str_ok, subarray_or_base, CompactString, DType, RecordBuilder};

/// The header in `text` when it is in numpy's own layout and valid; `None` otherwise.
/// `max_depth` is the general parser's nesting limit: a record nested `k` deep uses `2k + 2`
/// levels there (dict, then a list and a tuple per level, then a shape tuple), so the fast path
/// takes at most `(max_depth - 2) / 2` levels and leaves deeper input to the general parser.
pub(crate) fn parse(text: &str, max_depth: usize) -> Option<Header> {
    let mut c = Cursor {
        s: text.as_bytes(),
        text,
        pos: 0,
        sized: false,
    };
    c.lit("{'descr': ")?;
    let dtype = c.descr(max_depth.saturating_sub(2) / 2)?;
    c.lit(", 'fortran_order': ")?;
    let fortran_order = if c.eat("True") {
        true
    } else if c.eat("False") {
        false
    } else {
        return None;
    };
    c.lit(", 'shape': ")?;
    let shape = c.shape()?;
    c.lit(", }")?;
    // numpy pads with spaces and ends with '\n'.
    let rest = &c.s[c.pos..];
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
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    /// Whether the outermost field list has reserved its fields.
    sized: bool,
}

impl<'a> Cursor<'a> {
    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn lit(&mut self, lit: &str) -> Option<()> {
        self.eat(lit).then_some(())
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// A single-quoted string without escapes or line breaks.
    fn string(&mut self) -> Option<&'a str> {
        self.lit("'")?;
        let start = self.pos;
        let len = self.s[start..]
            .iter()
            .position(|&b| matches!(b, b'\'' | b'\\' | b'\n' | b'\r'))?;
        self.pos += len;
        self.lit("'")?;
        // The quotes are ASCII, so both ends are char boundaries.
        self.text.get(start..start + len)
    }

    fn descr(&mut self, depth_left: usize) -> Option<DType> {
        match self.peek()? {
            b'\'' => parse_type_str_ok(self.string()?),
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
            record.reserve(reservation(&self.s[self.pos..]));
        }
        if !self.eat("]") {
            loop {
                self.lit("(")?;
                let name = CompactString::from(self.string()?);
                self.lit(", ")?;
                // A type string (most fields) without the call through `descr`.
                let mut dtype = if self.peek()? == b'\'' {
                    parse_type_str_ok(self.string()?)?
                } else {
                    self.descr(depth_left)?
                };
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
            if dims.len() == 1 {
                self.lit(",")?;
                if self.eat(")") {
                    return Some(dims);
                }
                self.lit(" ")?;
                continue;
            }
            if self.eat(")") {
                return Some(dims);
            }
            self.lit(", ")?;
        }
    }

    fn int(&mut self) -> Option<u64> {
        let start = self.pos;
        let len = self.s[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if len == 0 || (len > 1 && self.s[start] == b'0') {
            return None;
        }
        self.pos += len;
        self.text.get(start..start + len)?.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::DEFAULT_MAX_DEPTH;

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
            "{'descr': '|u1', 'fortran_order': False, 'shape': (18446744073709551615,), }\n",
            "{'descr': '<M8[10ms]', 'fortran_order': False, 'shape': (3,), }\n",
        ];
        for text in cases {
            let fast = parse(text, DEFAULT_MAX_DEPTH)
                .unwrap_or_else(|| panic!("fast path refused {text}"));
            assert_eq!(fast, slow(text).unwrap(), "{text}");
        }
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
