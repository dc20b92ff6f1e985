//! The literal parser: one left-to-right pass, as `ast.literal_eval` reads a header.

use std::collections::HashMap;

use super::{LiteralError, LiteralErrorKind, ParseOptions, Value};

/// Dicts up to this many keys find repeated keys by comparison, larger ones through a hash map.
const SMALL_DICT: usize = 16;

/// Parses `text` as one Python literal, rejecting anything but whitespace and comments after it.
///
/// # Errors
/// [`LiteralError`] with the byte offset of the first problem.
///
/// # Examples
/// ```
/// use npy_core::literal::{parse, ParseOptions, Value};
/// let v = parse("{'shape': (2, 3), }", ParseOptions::default())?;
/// assert_eq!(v.get("shape"), Some(&Value::Tuple(vec![Value::Int(2), Value::Int(3)])));
/// assert_eq!(v.to_string(), "{'shape': (2, 3)}");
/// # Ok::<(), npy_core::literal::LiteralError>(())
/// ```
pub fn parse(text: &str, options: ParseOptions) -> Result<Value, LiteralError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        options,
        value_end: 0,
    };
    p.skip_ws();
    let v = p.value()?;
    p.value_end = p.pos;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.err(LiteralErrorKind::TrailingCharacters));
    }
    // Python refuses source holding NUL bytes, in a string literal too.
    if let Some(at) = p.bytes.iter().position(|&b| b == 0) {
        p.pos = at;
        return Err(p.unexpected("a character other than NUL"));
    }
    // A line continuation with nothing after it: Python's "unexpected EOF".
    let tail = text.trim_end_matches([' ', '\t', '\x0c']);
    if tail.ends_with("\\\n") || tail.ends_with("\\\r") || tail.ends_with("\\\r\n") {
        let cont = tail.rfind('\\').unwrap_or(0);
        let in_comment = text[..cont]
            .rsplit(['\n', '\r'])
            .next()
            .is_some_and(|line| line.contains('#'));
        if !in_comment && cont >= p.value_end {
            let expected = "a token after the line continuation";
            return Err(p.err_at(cont, LiteralErrorKind::UnexpectedEnd { expected }));
        }
    }
    Ok(v)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    options: ParseOptions,
    /// Where the last value ended (for the check of a trailing line continuation).
    value_end: usize,
}

impl Parser<'_> {
    #[cold]
    fn err(&self, kind: LiteralErrorKind) -> LiteralError {
        self.err_at(self.pos, kind)
    }

    #[cold]
    fn err_at(&self, offset: usize, kind: LiteralErrorKind) -> LiteralError {
        LiteralError { offset, kind }
    }

    #[cold]
    fn unexpected(&self, expected: &'static str) -> LiteralError {
        match self.text[self.pos..].chars().next() {
            Some(found) => self.err(LiteralErrorKind::Unexpected { found, expected }),
            None => self.err(LiteralErrorKind::UnexpectedEnd { expected }),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Whether the text at the current position starts with three `quote`s.
    fn at_triple(&self, quote: u8) -> bool {
        self.bytes.get(self.pos..self.pos + 3) == Some(&[quote; 3][..])
    }

    /// How many bytes from the current position on satisfy `pred`.
    fn count_while(&self, pred: impl Fn(u8) -> bool) -> usize {
        self.bytes[self.pos..]
            .iter()
            .take_while(|&&b| pred(b))
            .count()
    }

    /// Steps over the next byte if it is one of `set`, saying whether it did.
    fn eat(&mut self, set: &[u8]) -> bool {
        let hit = self.peek().is_some_and(|b| set.contains(&b));
        self.pos += usize::from(hit);
        hit
    }

    /// Steps over the `\n` of a CR LF whose `\r` was just consumed: Python reads source with
    /// universal newlines, so CR LF is one line break.
    fn skip_lf_after_cr(&mut self) {
        self.eat(b"\n");
    }

    /// After an item: a comma (`false`) or `close` (`true`), blanks before it skipped;
    /// anything else is an error expecting `expected`.
    fn comma_or_close(&mut self, close: u8, expected: &'static str) -> Result<bool, LiteralError> {
        self.skip_ws();
        if self.eat(b",") {
            return Ok(false);
        }
        if self.eat(&[close]) {
            return Ok(true);
        }
        Err(self.unexpected(expected))
    }

    fn skip_ws(&mut self) {
        self.skip_blanks(true);
    }

    /// Skips blanks, comments and line continuations; line breaks too when `lines` (inside
    /// brackets, or around the whole value), not between the tokens of a value outside
    /// brackets, where Python ends the expression at a line break.
    fn skip_blanks(&mut self, lines: bool) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | 0x0c => self.pos += 1,
                b'\n' | b'\r' if lines => self.pos += 1,
                b'#' => self.pos += self.count_while(|b| b != b'\n' && b != b'\r'),
                b'\\' => match self.bytes.get(self.pos + 1) {
                    Some(b'\n') => self.pos += 2,
                    Some(b'\r') => {
                        self.pos += 2;
                        self.skip_lf_after_cr();
                    }
                    _ => break,
                },
                _ => break,
            }
        }
    }

    /// `f` past the opener, one level deeper (refused beyond [`ParseOptions::max_depth`]).
    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Value, LiteralError>,
    ) -> Result<Value, LiteralError> {
        self.depth += 1;
        let limit = self.options.max_depth;
        if self.depth > limit {
            return Err(self.err(LiteralErrorKind::TooDeep { limit }));
        }
        self.pos += 1;
        let v = f(self)?;
        self.depth -= 1;
        Ok(v)
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        match self.peek() {
            None => Err(self.unexpected("a value")),
            Some(b'{') => self.nested(Self::dict),
            Some(b'[') => self.nested(|p| p.items(b']', "',' or ']'").map(Value::List)),
            Some(b'(') => self.nested(Self::paren),
            Some(b'\'' | b'"') => self.string(),
            Some(b'0'..=b'9' | b'.' | b'+' | b'-') => self.number(),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => self.name(),
            Some(_) => Err(self.unexpected("a value")),
        }
    }

    /// Comma-separated values up to `close`, trailing comma allowed; the opener is consumed.
    /// `expected` names the comma and `close` for the error of anything else.
    fn items(&mut self, close: u8, expected: &'static str) -> Result<Vec<Value>, LiteralError> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(&[close]) {
                return Ok(items);
            }
            items.push(self.value()?);
            if self.comma_or_close(close, expected)? {
                return Ok(items);
            }
        }
    }

    fn paren(&mut self) -> Result<Value, LiteralError> {
        self.skip_ws();
        if self.eat(b")") {
            return Ok(Value::Tuple(Vec::new()));
        }
        let first = self.value()?;
        if self.comma_or_close(b')', "',' or ')'")? {
            // A parenthesised value, not a tuple.
            return Ok(first);
        }
        let mut items = self.items(b')', "',' or ')'")?;
        items.insert(0, first);
        Ok(Value::Tuple(items))
    }

    fn dict(&mut self) -> Result<Value, LiteralError> {
        let mut items: Vec<(Value, Value)> = Vec::new();
        // Python's rule for repeated keys: first position, last value. Small dicts (every
        // header) compare keys directly; larger ones index keys by their repr, so the check
        // stays linear in the size of the text.
        let mut index: Option<HashMap<String, usize>> = None;
        loop {
            self.skip_ws();
            if self.eat(b"}") {
                break;
            }
            let key_pos = self.pos;
            let key = self.value()?;
            if let Value::List(_) | Value::Dict(_) = key {
                return Err(self.err_at(key_pos, LiteralErrorKind::UnhashableKey(key.type_name())));
            }
            self.skip_ws();
            if !self.eat(b":") {
                return Err(self.unexpected("':'"));
            }
            self.skip_ws();
            let value = self.value()?;
            // Once past SMALL_DICT keys, always (a dict never shrinks).
            let existing = if items.len() < SMALL_DICT {
                items.iter().position(|(k, _)| *k == key)
            } else {
                let index = index.get_or_insert_with(|| {
                    let reprs = items.iter().map(|(k, _)| k.to_string());
                    reprs.zip(0..).collect()
                });
                let len = items.len();
                let at = *index.entry(key.to_string()).or_insert(len);
                (at < len).then_some(at)
            };
            match existing {
                Some(i) => items[i].1 = value,
                None => items.push((key, value)),
            }
            if self.comma_or_close(b'}', "',' or '}'")? {
                break;
            }
        }
        Ok(Value::Dict(items))
    }

    fn name(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        self.pos += self.count_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        if is_string_prefix(&self.text[start..self.pos], self.peek()) {
            self.pos = start;
            return self.string();
        }
        // A name may continue with non-ASCII identifier characters; report the whole word.
        let rest = self.text[self.pos..]
            .chars()
            .take_while(|c| c.is_alphanumeric());
        self.pos += rest.map(char::len_utf8).sum::<usize>();
        match &self.text[start..self.pos] {
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            "None" => Ok(Value::None),
            other => Err(self.err_at(start, LiteralErrorKind::UnknownName(other.to_owned()))),
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let negative = self.peek() == Some(b'-');
        if self.eat(b"+-") {
            // Python allows space between a sign and its number ("- 1"), not a second sign
            // (nor a line break outside brackets).
            self.skip_blanks(self.depth > 0);
        }
        let num_start = self.pos;
        if !matches!(self.peek(), Some(b'0'..=b'9' | b'.')) {
            return Err(self.unexpected("a number"));
        }
        let radix = match self.bytes.get(self.pos..self.pos + 2) {
            Some([b'0', b'x' | b'X']) => 16,
            Some([b'0', b'o' | b'O']) => 8,
            Some([b'0', b'b' | b'B']) => 2,
            _ => 10,
        };
        let value = if radix == 10 {
            let int_part = self.digits(10, false)?;
            let point = self.eat(b".");
            if point && self.digits(10, false)?.is_empty() && int_part.is_empty() {
                return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
            }
            let exponent = self.eat(b"eE");
            if exponent {
                self.eat(b"+-");
                if self.digits(10, false)?.is_empty() {
                    return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
                }
            }
            if let Some(b'j' | b'J') = self.peek() {
                return Err(self.err_at(num_start, LiteralErrorKind::Complex));
            }
            if point || exponent {
                // Rust reads Python's float syntax (`1.`, `.5`, `1e5`) once the `_` are gone.
                let text = self.text[num_start..self.pos].replace('_', "");
                let x: f64 = text
                    .parse()
                    .map_err(|_| self.err_at(num_start, LiteralErrorKind::InvalidNumber))?;
                Value::Float(if negative { -x } else { x })
            } else {
                // Python 3 forbids leading zeros in a non-zero decimal literal ("012").
                if int_part.starts_with('0') && !int_part.trim_start_matches('0').is_empty() {
                    return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
                }
                Value::Int(self.int_value(&int_part, 10, negative, num_start)?)
            }
        } else {
            self.pos += 2;
            let digits = self.digits(radix, true)?;
            if digits.is_empty() {
                return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
            }
            Value::Int(self.int_value(&digits, radix, negative, num_start)?)
        };
        if matches!(value, Value::Int(_)) && self.eat(b"L") && !self.options.long_suffix {
            return Err(self.err_at(self.pos - 1, LiteralErrorKind::LongSuffix));
        }
        // "12abc" is not a number followed by a name.
        let next = self.text[self.pos..].chars().next();
        if next.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
        }
        Ok(value)
    }

    /// Digits of `radix`, with single `_` separators between digits (or right after a radix
    /// prefix when `after_prefix`); returns them without separators.
    fn digits(&mut self, radix: u32, after_prefix: bool) -> Result<String, LiteralError> {
        let start = self.pos;
        self.pos += self.count_while(|b| b == b'_' || char::from(b).is_digit(radix));
        let run = &self.text[start..self.pos];
        // After a radix prefix, another hex digit is a wrong digit, not the number's end.
        let wrong_digit = radix != 10 && self.peek().is_some_and(|b| b.is_ascii_hexdigit());
        let misplaced_separator =
            run.contains("__") || run.ends_with('_') || (run.starts_with('_') && !after_prefix);
        if wrong_digit || misplaced_separator {
            return Err(self.err_at(start, LiteralErrorKind::InvalidNumber));
        }
        Ok(run.replace('_', ""))
    }

    fn int_value(
        &self,
        digits: &str,
        radix: u32,
        negative: bool,
        at: usize,
    ) -> Result<i128, LiteralError> {
        // `digits` are digits of `radix` (no sign, no separators), so only the range can fail.
        let magnitude = u128::from_str_radix(digits, radix).ok();
        magnitude
            .and_then(|m| {
                if negative {
                    0i128.checked_sub_unsigned(m)
                } else {
                    i128::try_from(m).ok()
                }
            })
            .ok_or_else(|| self.err_at(at, LiteralErrorKind::IntegerOutOfRange))
    }

    fn string(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        let mut acc = self.one_string()?;
        loop {
            let before = self.pos;
            self.skip_blanks(self.depth > 0);
            if self.depth == 0 && matches!(self.peek(), Some(b'\n' | b'\r')) {
                // `'a'` then a line break: the value ends here (Python's NEWLINE).
                self.pos = before;
                break;
            }
            let end = self.pos + self.count_while(|b| b.is_ascii_alphabetic());
            if !is_string_prefix(&self.text[self.pos..end], self.bytes.get(end).copied()) {
                break;
            }
            let next = self.one_string()?;
            match (&mut acc, next) {
                (Value::Str(a), Value::Str(b)) => a.push_str(&b),
                (Value::Bytes(a), Value::Bytes(b)) => a.extend_from_slice(&b),
                _ => return Err(self.err_at(start, LiteralErrorKind::MixedStringKinds)),
            }
        }
        Ok(acc)
    }

    /// One string literal: a [`Value::Str`] or a [`Value::Bytes`].
    fn one_string(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        self.pos += self.count_while(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u'));
        let prefix = self.text[start..self.pos].to_ascii_lowercase();
        let (raw, bytes) = (prefix.contains('r'), prefix.contains('b'));
        let Some(quote @ (b'\'' | b'"')) = self.peek() else {
            return Err(self.unexpected("a string"));
        };
        let triple = self.at_triple(quote);
        self.pos += if triple { 3 } else { 1 };
        // Text is collected as chars; a bytes literal is converted at the end (its source must
        // be ASCII, and escapes give code points < 256).
        let mut out = String::new();
        loop {
            // Fast path: copy the run up to the next quote, backslash or line break at once
            // (it ends at an ASCII byte or the end, so it is a whole-char slice).
            let stop =
                |b| b == quote || b == b'\\' || b == b'\n' || b == b'\r' || (bytes && b >= 0x80);
            let run = self.count_while(|b| !stop(b));
            out.push_str(&self.text[self.pos..self.pos + run]);
            self.pos += run;
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            };
            // The closing quote (a lone quote in a triple-quoted string is text).
            if c as u32 == u32::from(quote) && (!triple || self.at_triple(quote)) {
                self.pos += if triple { 3 } else { 1 };
                break;
            }
            if (c == '\n' || c == '\r') && !triple {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            }
            if bytes && !c.is_ascii() {
                return Err(self.err(LiteralErrorKind::NonAsciiBytes));
            }
            self.pos += c.len_utf8();
            if c == '\r' {
                // Python reads source with universal newlines: CR LF and CR are LF.
                out.push('\n');
                self.skip_lf_after_cr();
                continue;
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let esc_start = self.pos - 1;
            let Some(e) = self.text[self.pos..].chars().next() else {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            };
            self.pos += e.len_utf8();
            if raw {
                // In raw strings a backslash only stops the next character from closing.
                out.push('\\');
                if e == '\r' {
                    out.push('\n');
                    self.skip_lf_after_cr();
                } else {
                    out.push(e);
                }
                continue;
            }
            match e {
                '\n' => {}
                '\r' => self.skip_lf_after_cr(),
                '\\' | '\'' | '"' => out.push(e),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let more = self.count_while(|d| matches!(d, b'0'..=b'7')).min(2);
                    let octal = &self.bytes[self.pos - 1..self.pos + more];
                    let v = octal.iter().fold(0, |v, d| v * 8 + u32::from(d - b'0'));
                    self.pos += more;
                    // Python keeps the low byte of an octal escape past 0o377 in bytes
                    // (with a warning); in a str it is the code point.
                    let v = if bytes { v & 0xff } else { v };
                    out.push(char::from_u32(v).unwrap_or('\0'));
                }
                'x' => out.push(self.hex_escape(2, esc_start)?),
                'u' if !bytes => out.push(self.hex_escape(4, esc_start)?),
                'U' if !bytes => out.push(self.hex_escape(8, esc_start)?),
                'N' if !bytes => out.push(self.named_escape(esc_start)?),
                other => {
                    // Python keeps unknown escapes as they are (with a warning).
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        Ok(if bytes {
            Value::Bytes(out.chars().map(|c| c as u32 as u8).collect())
        } else {
            Value::Str(out)
        })
    }

    /// `\N{NAME}`: the character of that Unicode name, alias, Hangul syllable or CJK
    /// ideograph, case-insensitively, as Python's `unicodedata` finds it (named sequences are
    /// not characters and are refused, as Python does).
    fn named_escape(&mut self, esc_start: usize) -> Result<char, LiteralError> {
        let invalid = |p: &Self, end: usize| {
            let shown = p.text.get(esc_start..end).unwrap_or("\\N");
            p.err_at(esc_start, LiteralErrorKind::InvalidEscape(shown.to_owned()))
        };
        if self.peek() != Some(b'{') {
            return Err(invalid(self, self.pos));
        }
        let name_start = self.pos + 1;
        let Some(len) = self.bytes[name_start..]
            .iter()
            .position(|&b| b == b'}' || b == b'\n' || b == b'\r' || b == b'\'' || b == b'"')
            .filter(|&len| self.bytes[name_start + len] == b'}')
        else {
            return Err(invalid(self, name_start));
        };
        let end = name_start + len + 1;
        let name = &self.text[name_start..name_start + len];
        let c = python_name_lookup(name).ok_or_else(|| invalid(self, end))?;
        self.pos = end;
        Ok(c)
    }

    fn hex_escape(&mut self, n: usize, esc_start: usize) -> Result<char, LiteralError> {
        self.bytes
            .get(self.pos..self.pos + n)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| {
                let end = (self.pos + n).min(self.text.len());
                let shown = self.text.get(esc_start..end).unwrap_or("\\");
                self.err_at(esc_start, LiteralErrorKind::InvalidEscape(shown.to_owned()))
            })?;
        // At most 8 hex digits: no sign, no overflow.
        let v = u32::from_str_radix(&self.text[self.pos..self.pos + n], 16).unwrap_or(0);
        self.pos += n;
        char::from_u32(v).ok_or_else(|| self.err_at(esc_start, LiteralErrorKind::InvalidCodePoint))
    }
}

/// Whether `word` followed by `next` starts a string literal: `next` is a quote and `word`
/// nothing or a string prefix (`r`, `u`, `b`, `br`, `rb` in any case).
fn is_string_prefix(word: &str, next: Option<u8>) -> bool {
    matches!(next, Some(b'\'' | b'"'))
        && matches!(
            word.to_ascii_lowercase().as_str(),
            "" | "r" | "u" | "b" | "br" | "rb"
        )
}

/// The character Python's `\\N{name}` names: a character name or alias compared without case,
/// a Hangul syllable or CJK unified ideograph name exactly (upper case), nothing looser. The
/// table (`unicode_names2`) matches loosely (UAX44-LM2: case, spaces, underscores and medial
/// hyphens ignored), so its answer is checked against the name as written.
#[cfg(not(target_arch = "wasm32"))]
fn python_name_lookup(name: &str) -> Option<char> {
    if name.is_empty() || !name.is_ascii() {
        return None;
    }
    let c = unicode_names2::character(name)?;
    let canonical = unicode_names2::name(c).map(|n| n.to_string());
    let canonical = canonical.as_deref();
    let algorithmic = matches!(u32::from(c), 0xAC00..=0xD7A3) || name.starts_with("CJK UNIFIED");
    if algorithmic || canonical.is_some_and(|n| n.starts_with("CJK UNIFIED")) {
        return (canonical == Some(name)).then_some(c);
    }
    let upper = name.to_ascii_uppercase();
    if canonical == Some(upper.as_str()) {
        return Some(c);
    }
    // Otherwise the name must be an alias (`BEL`, `LATIN CAPITAL LETTER GHA`) as written in
    // the standard: words of letters and digits joined by single spaces or hyphens, and not a
    // loose spelling of the character's own name (`HYPHEN MINUS`).
    let well_formed = upper
        .split([' ', '-'])
        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric()));
    let loose = |s: &str| -> String { s.chars().filter(char::is_ascii_alphanumeric).collect() };
    let respelled = canonical.is_some_and(|n| loose(n) == loose(&upper));
    (well_formed && !respelled).then_some(c)
}

/// On `wasm32` (the npy-wasm package) the Unicode name table is left out: it would be most of the
/// package's size (about 1 MB of the 2 MB module), for an escape numpy never writes (a header's
/// strings are `repr()`s, which print characters, not names). `\N{NAME}` is then an invalid escape.
#[cfg(target_arch = "wasm32")]
fn python_name_lookup(_name: &str) -> Option<char> {
    None
}
