//! The Python-literal subset used by `.npy` headers: a parser and a `repr` writer.
//!
//! numpy reads a header with `ast.literal_eval` and writes it with Python's `repr`. This module is
//! the one codec the workspace has for that syntax: [`crate::Header`] parsing and writing go through
//! it, and `npy-serde` builds its serde data format on top of it.
//!
//! Accepted (as `ast.literal_eval` accepts them): dicts, tuples, lists, strings (single, double and
//! triple quotes; `r`, `u`, `b` prefixes; Python escapes; adjacent literals concatenated), integers
//! (decimal, `0x`, `0o`, `0b`, `_` separators, an optional sign), floats, `True`, `False`, `None`,
//! `#` comments, any whitespace (tabs, CR/LF, form feed), backslash line joins and trailing commas.
//! Python 2 long suffixes (`2L`) are accepted only when [`ParseOptions::long_suffix`] is set, as
//! numpy's `_filter_header` does for format 1.0 and 2.0 headers.
//!
//! Not accepted: sets, complex numbers (`1j`), f-strings, expressions, `\N{...}` escapes and
//! strings holding lone surrogates (`'\ud800'`), which a Rust `String` cannot hold.
//!
//! Parsing is a single left-to-right pass (linear time); nesting deeper than
//! [`ParseOptions::max_depth`] is an error rather than a stack overflow.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

mod printable;
pub use printable::UNICODE_VERSION;

/// Default nesting limit of [`ParseOptions::max_depth`]: far above any real header (a record
/// nested 10 levels deep uses about 30), far below what would exhaust a thread's stack.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Dicts up to this many keys find repeated keys by comparison, larger ones through a hash map.
const SMALL_DICT: usize = 16;

/// A Python literal value.
///
/// `Display` writes Python's `repr` of the value, byte for byte as CPython does for the types a
/// header uses (see [`write_repr_str`] for the one approximation).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An integer; literals outside the `i128` range are a parse error.
    Int(i128),
    /// A float.
    Float(f64),
    /// A `str`.
    Str(String),
    /// A `bytes` literal (`b'...'`).
    Bytes(Vec<u8>),
    /// A tuple.
    Tuple(Vec<Value>),
    /// A list.
    List(Vec<Value>),
    /// A dict, in insertion order. Parsing applies Python's rule for a repeated key: the key keeps
    /// its first position and takes the last value.
    Dict(Vec<(Value, Value)>),
}

impl Value {
    /// The Python type name of the value (`'dict'`, `'int'`, ...), for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
        }
    }

    /// The value of `key` when `self` is a dict with a `str` key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Dict(items) => items.iter().find_map(|(k, v)| match k {
                Value::Str(s) if s == key => Some(v),
                _ => None,
            }),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write_repr_float(f, *x),
            Value::Str(s) => write_repr_str(f, s),
            Value::Bytes(b) => write_repr_bytes(f, b),
            Value::Tuple(items) => {
                f.write_char('(')?;
                write_items(f, items)?;
                if items.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            Value::List(items) => {
                f.write_char('[')?;
                write_items(f, items)?;
                f.write_char(']')
            }
            Value::Dict(items) => {
                f.write_char('{')?;
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
        }
    }
}

fn write_items(f: &mut impl fmt::Write, items: &[Value]) -> fmt::Result {
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

/// Writes Python's `repr` of a float: the shortest digits that round-trip, in fixed notation for
/// decimal exponents -4..16 and scientific (`1e+16`, `1.5e-07`) outside, `inf`, `-inf`, `nan`.
pub fn write_repr_float(f: &mut impl fmt::Write, x: f64) -> fmt::Result {
    if x.is_nan() {
        return f.write_str("nan");
    }
    if x.is_infinite() {
        return f.write_str(if x > 0.0 { "inf" } else { "-inf" });
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Python's repr does; only the layout
    // differs.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if x.is_sign_negative() {
        f.write_char('-')?;
    }
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            f.write_str("0.")?;
            for _ in 0..-point {
                f.write_char('0')?;
            }
            f.write_str(&digits)
        } else {
            let point = point as usize;
            if point >= digits.len() {
                f.write_str(&digits)?;
                for _ in digits.len()..point {
                    f.write_char('0')?;
                }
                f.write_str(".0")
            } else {
                write!(f, "{}.{}", &digits[..point], &digits[point..])
            }
        }
    } else {
        f.write_str(&digits[..1])?;
        if digits.len() > 1 {
            write!(f, ".{}", &digits[1..])?;
        }
        let sign = if exp < 0 { '-' } else { '+' };
        write!(f, "e{sign}{:02}", exp.unsigned_abs())
    }
}

/// Writes Python's `repr` of a `str`: single quotes unless the text holds `'` and no `"`;
/// `\\`, `\n`, `\r`, `\t` and the quote escaped; other non-printable characters as `\xhh`,
/// `\uhhhh` or `\Uhhhhhhhh`.
///
/// Printability follows `str.isprintable` of Python 3.11 (Unicode
/// 14.0.0: see `cargo xtask unicode`), unassigned code points included.
pub fn write_repr_str(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    write_repr_code_points(f, s.chars().map(u32::from))
}

/// Writes Python's `repr` of a string given as code points, as [`write_repr_str`] does, for
/// text that a Rust `str` cannot hold: a numpy `U` string may store lone surrogates
/// (`'\ud805'`), which Python escapes as `\ud805` (category Cs is not printable).
///
/// # Examples
/// ```
/// let mut s = String::new();
/// npy_core::literal::write_repr_code_points(&mut s, [0x61, 0xD805, 0x27].into_iter())?;
/// assert_eq!(s, r#""a\ud805'""#);
/// # Ok::<(), std::fmt::Error>(())
/// ```
pub fn write_repr_code_points(
    f: &mut impl fmt::Write,
    code_points: impl Iterator<Item = u32> + Clone,
) -> fmt::Result {
    let has = |q: char| code_points.clone().any(|cp| cp == u32::from(q));
    let quote = if has('\'') && !has('"') { '"' } else { '\'' };
    f.write_char(quote)?;
    for cp in code_points {
        match char::from_u32(cp) {
            Some('\\') => f.write_str("\\\\")?,
            Some('\n') => f.write_str("\\n")?,
            Some('\r') => f.write_str("\\r")?,
            Some('\t') => f.write_str("\\t")?,
            Some(c) if c == quote => {
                f.write_char('\\')?;
                f.write_char(c)?;
            }
            Some(c) if is_printable(c) => f.write_char(c)?,
            _ if cp < 0x100 => write!(f, "\\x{cp:02x}")?,
            _ if cp < 0x10000 => write!(f, "\\u{cp:04x}")?,
            _ => write!(f, "\\U{cp:08x}")?,
        }
    }
    f.write_char(quote)
}

/// Writes Python's `repr` of a `bytes` value.
pub fn write_repr_bytes(f: &mut impl fmt::Write, b: &[u8]) -> fmt::Result {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    f.write_char('b')?;
    f.write_char(quote as char)?;
    for &c in b {
        match c {
            b'\\' => f.write_str("\\\\")?,
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            b'\t' => f.write_str("\\t")?,
            c if c == quote => {
                f.write_char('\\')?;
                f.write_char(c as char)?;
            }
            0x20..=0x7e => f.write_char(c as char)?,
            c => write!(f, "\\x{c:02x}")?,
        }
    }
    f.write_char(quote as char)
}

/// Whether CPython's `str.isprintable` holds for `c`: not a control, format, surrogate,
/// private-use or unassigned code point, nor a separator other than the space. The table is
/// generated from the Python that runs numpy (`cargo xtask unicode`), so that Unicode version's
/// unassigned code points are escaped as that Python escapes them.
fn is_printable(c: char) -> bool {
    let cp = u32::from(c);
    printable::NOT_PRINTABLE
        .binary_search_by(|&(first, last)| {
            if last < cp {
                std::cmp::Ordering::Less
            } else if first > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_err()
}

/// Options of [`parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept Python 2 long-integer suffixes (`2L`), as numpy does for 1.0 and 2.0 headers. Only
    /// the capital `L` that Python 2's `repr` wrote: numpy's `_filter_header` drops the token `L`
    /// after a number and nothing else, so it refuses `2l`.
    pub long_suffix: bool,
    /// How deep dicts, tuples and lists may nest before [`LiteralErrorKind::TooDeep`].
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            long_suffix: false,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// A syntax error in a Python literal, with the byte offset in the text where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at byte {offset}")]
pub struct LiteralError {
    /// Byte offset in the parsed text.
    pub offset: usize,
    /// What is wrong.
    pub kind: LiteralErrorKind,
}

impl LiteralError {
    /// 1-based line and column (in characters) of the error in `text`, the text that was parsed.
    pub fn line_col(&self, text: &str) -> (usize, usize) {
        let upto = text.get(..self.offset.min(text.len())).unwrap_or(text);
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

/// The kinds of [`LiteralError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiteralErrorKind {
    /// The text ended inside a value.
    #[error("unexpected end of text, expected {expected}")]
    UnexpectedEnd {
        /// What would have been valid here.
        expected: &'static str,
    },
    /// A character that cannot stand here.
    #[error("unexpected {found:?}, expected {expected}")]
    Unexpected {
        /// The character found.
        found: char,
        /// What would have been valid here.
        expected: &'static str,
    },
    /// A name other than `True`, `False`, `None` (Python is case-sensitive: `false` is a name).
    #[error("unknown name '{0}' (only True, False and None are literals)")]
    UnknownName(String),
    /// An integer literal outside the range this parser holds (`i128`).
    #[error("integer literal out of range")]
    IntegerOutOfRange,
    /// A malformed number (`1__0`, `0x`, `01`, `1e`).
    #[error("invalid number literal")]
    InvalidNumber,
    /// A complex literal (`1j`).
    #[error("complex literals are not supported")]
    Complex,
    /// A Python 2 long suffix where it is not allowed (format 3.0 headers, as numpy).
    #[error("Python 2 long suffix 'L' is not allowed here")]
    LongSuffix,
    /// A string escape that Python rejects or this parser does not support.
    #[error("invalid escape {0:?}")]
    InvalidEscape(String),
    /// A `\u`/`\U`/octal escape naming a surrogate or a code point beyond U+10FFFF.
    #[error("escape names a code point a string cannot hold (lone surrogate or > U+10FFFF)")]
    InvalidCodePoint,
    /// A string literal not closed before the end of its line (or of the text).
    #[error("unterminated string literal")]
    UnterminatedString,
    /// A non-ASCII character inside a bytes literal.
    #[error("bytes literal holds a non-ASCII character")]
    NonAsciiBytes,
    /// A `str` literal next to a `bytes` literal.
    #[error("cannot mix bytes and str literals")]
    MixedStringKinds,
    /// A list or dict used as a dict key.
    #[error("unhashable dict key of type '{0}'")]
    UnhashableKey(&'static str),
    /// Nesting beyond [`ParseOptions::max_depth`].
    #[error("nesting deeper than {limit} levels")]
    TooDeep {
        /// The limit in force.
        limit: usize,
    },
    /// Text after the value.
    #[error("unexpected text after the value")]
    TrailingCharacters,
}

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
    };
    p.skip_ws();
    let v = p.value()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.err(LiteralErrorKind::TrailingCharacters));
    }
    Ok(v)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    options: ParseOptions,
}

enum StrLit {
    Str(String),
    Bytes(Vec<u8>),
}

impl<'a> Parser<'a> {
    #[cold]
    fn err(&self, kind: LiteralErrorKind) -> LiteralError {
        LiteralError {
            offset: self.pos,
            kind,
        }
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

    fn skip_ws(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c => self.pos += 1,
                b'#' => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' || b == b'\r' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'\\' => match self.bytes.get(self.pos + 1) {
                    Some(b'\n') => self.pos += 2,
                    Some(b'\r') => {
                        self.pos += 2;
                        if self.peek() == Some(b'\n') {
                            self.pos += 1;
                        }
                    }
                    _ => break,
                },
                _ => break,
            }
        }
    }

    fn enter(&mut self) -> Result<(), LiteralError> {
        self.depth += 1;
        if self.depth > self.options.max_depth {
            return Err(self.err(LiteralErrorKind::TooDeep {
                limit: self.options.max_depth,
            }));
        }
        self.pos += 1;
        Ok(())
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        match self.peek() {
            None => Err(self.unexpected("a value")),
            Some(b'{') => self.dict(),
            Some(b'[') => {
                self.enter()?;
                let items = self.items(b']')?;
                self.depth -= 1;
                Ok(Value::List(items))
            }
            Some(b'(') => self.paren(),
            Some(b'\'' | b'"') => self.string(),
            Some(b'0'..=b'9' | b'.' | b'+' | b'-') => self.number(),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => self.name(),
            Some(_) => Err(self.unexpected("a value")),
        }
    }

    /// Comma-separated values up to `close`, trailing comma allowed; the opener is consumed.
    fn items(&mut self, close: u8) -> Result<Vec<Value>, LiteralError> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(items);
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ => {
                    return Err(self.unexpected(if close == b']' {
                        "',' or ']'"
                    } else {
                        "',' or ')'"
                    }))
                }
            }
        }
    }

    fn paren(&mut self) -> Result<Value, LiteralError> {
        self.enter()?;
        self.skip_ws();
        if self.peek() == Some(b')') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Tuple(Vec::new()));
        }
        let first = self.value()?;
        self.skip_ws();
        let v = match self.peek() {
            // A parenthesised value, not a tuple.
            Some(b')') => {
                self.pos += 1;
                first
            }
            Some(b',') => {
                self.pos += 1;
                let mut items = self.items(b')')?;
                items.insert(0, first);
                Value::Tuple(items)
            }
            _ => return Err(self.unexpected("',' or ')'")),
        };
        self.depth -= 1;
        Ok(v)
    }

    fn dict(&mut self) -> Result<Value, LiteralError> {
        self.enter()?;
        let mut items: Vec<(Value, Value)> = Vec::new();
        // Python's rule for repeated keys: first position, last value. Small dicts (every
        // header) compare keys directly; larger ones index keys by their repr, so the check
        // stays linear in the size of the text.
        let mut index: Option<HashMap<String, usize>> = None;
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key_pos = self.pos;
            let key = self.value()?;
            if let Value::List(_) | Value::Dict(_) = key {
                return Err(self.err_at(key_pos, LiteralErrorKind::UnhashableKey(key.type_name())));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected("':'"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            if index.is_none() && items.len() >= SMALL_DICT {
                index = Some(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, (k, _))| (k.to_string(), i))
                        .collect(),
                );
            }
            let existing = match &mut index {
                None => items.iter().position(|(k, _)| *k == key),
                Some(index) => {
                    let repr = key.to_string();
                    let found = index.get(&repr).copied();
                    if found.is_none() {
                        index.insert(repr, items.len());
                    }
                    found
                }
            };
            match existing {
                Some(i) => items[i].1 = value,
                None => items.push((key, value)),
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.unexpected("',' or '}'")),
            }
        }
        self.depth -= 1;
        Ok(Value::Dict(items))
    }

    fn name(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        let word = &self.text[start..self.pos];
        if matches!(self.peek(), Some(b'\'' | b'"')) {
            let lower = word.to_ascii_lowercase();
            if matches!(lower.as_str(), "r" | "u" | "b" | "br" | "rb") {
                self.pos = start;
                return self.string();
            }
        }
        // A name may continue with non-ASCII identifier characters; report the whole word.
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_alphanumeric() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        match &self.text[start..self.pos] {
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            "None" => Ok(Value::None),
            other => Err(self.err_at(start, LiteralErrorKind::UnknownName(other.to_owned()))),
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        let negative = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                true
            }
            Some(b'+') => {
                self.pos += 1;
                false
            }
            _ => false,
        };
        if self.pos > start {
            // Python allows space between a sign and its number ("- 1"), not a second sign.
            self.skip_ws();
        }
        let num_start = self.pos;
        match self.peek() {
            Some(b'0'..=b'9' | b'.') => {}
            _ => return Err(self.unexpected("a number")),
        }
        let radix = match (
            self.peek(),
            self.bytes.get(self.pos + 1).map(u8::to_ascii_lowercase),
        ) {
            (Some(b'0'), Some(b'x')) => 16,
            (Some(b'0'), Some(b'o')) => 8,
            (Some(b'0'), Some(b'b')) => 2,
            _ => 10,
        };
        let value = if radix != 10 {
            self.pos += 2;
            let digits = self.digits(radix, true)?;
            if digits.is_empty() {
                return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
            }
            Value::Int(self.int_value(&digits, radix, negative, num_start)?)
        } else {
            let int_part = self.digits(10, false)?;
            let mut is_float = false;
            let mut frac = String::new();
            let mut exp = String::new();
            if self.peek() == Some(b'.') {
                self.pos += 1;
                is_float = true;
                frac = self.digits(10, false)?;
                if int_part.is_empty() && frac.is_empty() {
                    return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
                }
            }
            if let Some(b'e' | b'E') = self.peek() {
                self.pos += 1;
                is_float = true;
                if let Some(s @ (b'+' | b'-')) = self.peek() {
                    exp.push(s as char);
                    self.pos += 1;
                }
                let d = self.digits(10, false)?;
                if d.is_empty() {
                    return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
                }
                exp.push_str(&d);
            }
            if let Some(b'j' | b'J') = self.peek() {
                return Err(self.err_at(num_start, LiteralErrorKind::Complex));
            }
            if is_float {
                let text = format!(
                    "{}{}.{}e{}",
                    if negative { "-" } else { "" },
                    if int_part.is_empty() { "0" } else { &int_part },
                    if frac.is_empty() { "0" } else { &frac },
                    if exp.is_empty() { "0" } else { &exp }
                );
                let x: f64 = text
                    .parse()
                    .map_err(|_| self.err_at(num_start, LiteralErrorKind::InvalidNumber))?;
                Value::Float(x)
            } else {
                // Python 3 forbids leading zeros in a non-zero decimal literal ("012").
                if int_part.len() > 1
                    && int_part.starts_with('0')
                    && int_part.bytes().any(|b| b != b'0')
                {
                    return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
                }
                Value::Int(self.int_value(&int_part, 10, negative, num_start)?)
            }
        };
        if let Value::Int(_) = value {
            if let Some(b'L') = self.peek() {
                if !self.options.long_suffix {
                    return Err(self.err(LiteralErrorKind::LongSuffix));
                }
                self.pos += 1;
            }
        }
        // "12abc" is not a number followed by a name.
        if let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_alphanumeric() || c == '_' {
                return Err(self.err_at(num_start, LiteralErrorKind::InvalidNumber));
            }
        }
        Ok(value)
    }

    /// Digits of `radix`, with single `_` separators between digits (or right after a radix
    /// prefix when `after_prefix`); returns them without separators.
    fn digits(&mut self, radix: u32, after_prefix: bool) -> Result<String, LiteralError> {
        let mut out = String::new();
        let mut last_underscore = false;
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b == b'_' {
                if last_underscore || (out.is_empty() && !after_prefix) {
                    return Err(self.err_at(start, LiteralErrorKind::InvalidNumber));
                }
                last_underscore = true;
            } else if (b as char).is_digit(radix) {
                out.push(b as char);
                last_underscore = false;
            } else if radix == 10 || !(b as char).is_ascii_hexdigit() {
                break;
            } else {
                return Err(self.err_at(start, LiteralErrorKind::InvalidNumber));
            }
            self.pos += 1;
        }
        if last_underscore {
            return Err(self.err_at(start, LiteralErrorKind::InvalidNumber));
        }
        Ok(out)
    }

    fn int_value(
        &self,
        digits: &str,
        radix: u32,
        negative: bool,
        at: usize,
    ) -> Result<i128, LiteralError> {
        let mut v: i128 = 0;
        for d in digits.chars() {
            let d = i128::from(d.to_digit(radix).unwrap_or(0));
            v = v
                .checked_mul(i128::from(radix))
                .and_then(|v| {
                    if negative {
                        v.checked_sub(d)
                    } else {
                        v.checked_add(d)
                    }
                })
                .ok_or_else(|| self.err_at(at, LiteralErrorKind::IntegerOutOfRange))?;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        let mut acc = self.one_string()?;
        loop {
            self.skip_ws();
            let next_is_string = match self.peek() {
                Some(b'\'' | b'"') => true,
                Some(b) if b.is_ascii_alphabetic() => {
                    let mut end = self.pos;
                    while end < self.bytes.len() && self.bytes[end].is_ascii_alphabetic() {
                        end += 1;
                    }
                    let prefix = self.text[self.pos..end].to_ascii_lowercase();
                    matches!(self.bytes.get(end), Some(b'\'' | b'"'))
                        && matches!(prefix.as_str(), "r" | "u" | "b" | "br" | "rb")
                }
                _ => false,
            };
            if !next_is_string {
                break;
            }
            let next = self.one_string()?;
            match (&mut acc, next) {
                (StrLit::Str(a), StrLit::Str(b)) => a.push_str(&b),
                (StrLit::Bytes(a), StrLit::Bytes(b)) => a.extend_from_slice(&b),
                _ => return Err(self.err_at(start, LiteralErrorKind::MixedStringKinds)),
            }
        }
        Ok(match acc {
            StrLit::Str(s) => Value::Str(s),
            StrLit::Bytes(b) => Value::Bytes(b),
        })
    }

    fn one_string(&mut self) -> Result<StrLit, LiteralError> {
        let start = self.pos;
        let (mut raw, mut bytes) = (false, false);
        while let Some(b) = self.peek() {
            match b.to_ascii_lowercase() {
                b'r' => raw = true,
                b'b' => bytes = true,
                b'u' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let Some(quote @ (b'\'' | b'"')) = self.peek() else {
            return Err(self.unexpected("a string"));
        };
        let triple = self.bytes.get(self.pos + 1) == Some(&quote)
            && self.bytes.get(self.pos + 2) == Some(&quote);
        self.pos += if triple { 3 } else { 1 };
        // Text is collected as chars; a bytes literal is converted at the end (its source must
        // be ASCII, and escapes give code points < 256).
        let mut out = String::new();
        loop {
            // Fast path: copy the run up to the next quote, backslash or line break at once.
            let run = self.bytes[self.pos..]
                .iter()
                .position(|&b| {
                    b == quote || b == b'\\' || b == b'\n' || b == b'\r' || (bytes && b >= 0x80)
                })
                .unwrap_or(self.bytes.len() - self.pos);
            if run > 0 {
                // The run ends at an ASCII byte or the end, so it is a whole-char slice.
                out.push_str(&self.text[self.pos..self.pos + run]);
                self.pos += run;
            }
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            };
            if c as u32 == u32::from(quote) {
                if !triple {
                    self.pos += 1;
                    break;
                }
                if self.bytes.get(self.pos + 1) == Some(&quote)
                    && self.bytes.get(self.pos + 2) == Some(&quote)
                {
                    self.pos += 3;
                    break;
                }
                out.push(c);
                self.pos += 1;
                continue;
            }
            if (c == '\n' || c == '\r') && !triple {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            }
            if bytes && !c.is_ascii() {
                return Err(self.err(LiteralErrorKind::NonAsciiBytes));
            }
            if c != '\\' {
                out.push(c);
                self.pos += c.len_utf8();
                continue;
            }
            // A backslash.
            let esc_start = self.pos;
            self.pos += 1;
            let Some(e) = self.text[self.pos..].chars().next() else {
                return Err(self.err_at(start, LiteralErrorKind::UnterminatedString));
            };
            if raw {
                // In raw strings a backslash only stops the next character from closing.
                out.push('\\');
                out.push(e);
                self.pos += e.len_utf8();
                continue;
            }
            self.pos += e.len_utf8();
            match e {
                '\n' => {}
                '\r' => {
                    if self.peek() == Some(b'\n') {
                        self.pos += 1;
                    }
                }
                '\\' | '\'' | '"' => out.push(e),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let mut v = e as u32 - '0' as u32;
                    for _ in 0..2 {
                        match self.peek() {
                            Some(d @ b'0'..=b'7') => {
                                v = v * 8 + u32::from(d - b'0');
                                self.pos += 1;
                            }
                            _ => break,
                        }
                    }
                    if bytes && v > 0xff {
                        return Err(self.err_at(esc_start, LiteralErrorKind::InvalidCodePoint));
                    }
                    out.push(char::from_u32(v).unwrap_or('\0'));
                }
                'x' => out.push(self.hex_escape(2, esc_start)?),
                'u' | 'U' if !bytes => {
                    out.push(self.hex_escape(if e == 'u' { 4 } else { 8 }, esc_start)?)
                }
                'N' if !bytes => {
                    return Err(
                        self.err_at(esc_start, LiteralErrorKind::InvalidEscape("\\N".into()))
                    )
                }
                other => {
                    // Python keeps unknown escapes as they are (with a warning).
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        Ok(if bytes {
            StrLit::Bytes(out.chars().map(|c| c as u32 as u8).collect())
        } else {
            StrLit::Str(out)
        })
    }

    fn hex_escape(&mut self, n: usize, esc_start: usize) -> Result<char, LiteralError> {
        let hex = self
            .bytes
            .get(self.pos..self.pos + n)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .ok_or_else(|| {
                let end = (self.pos + n).min(self.text.len());
                let shown = self.text.get(esc_start..end).unwrap_or("\\");
                self.err_at(esc_start, LiteralErrorKind::InvalidEscape(shown.to_owned()))
            })?;
        let v = hex.iter().fold(0u32, |acc, d| {
            acc * 16 + (*d as char).to_digit(16).unwrap_or(0)
        });
        self.pos += n;
        char::from_u32(v).ok_or_else(|| self.err_at(esc_start, LiteralErrorKind::InvalidCodePoint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Value, LiteralErrorKind> {
        parse(s, ParseOptions::default()).map_err(|e| e.kind)
    }

    fn repr(v: &Value) -> String {
        v.to_string()
    }

    /// Expected strings are Python 3.11's `repr` (Unicode 14.0.0): unassigned code points
    /// (U+0378; U+31350, assigned only in Unicode 15) are escaped, as are format characters
    /// and separators; assigned astral characters are not.
    #[test]
    fn repr_escapes_what_python_does_not_print() {
        for (s, want) in [
            ("\u{378}", r"'\u0378'"),
            ("\u{1F600}", "'\u{1F600}'"),
            ("\u{30000}", "'\u{30000}'"),
            ("\u{31350}", r"'\U00031350'"),
            ("\u{AD}", r"'\xad'"),
            ("\u{2028}", r"'\u2028'"),
            ("\u{E0080}", r"'\U000e0080'"),
            ("\u{890}", r"'\u0890'"),
            ("a\u{378}b", r"'a\u0378b'"),
        ] {
            let mut got = String::new();
            write_repr_str(&mut got, s).unwrap();
            assert_eq!(got, want, "{s:?}");
        }
        assert_eq!(printable::UNICODE_VERSION, "14.0.0");
        let runs = printable::NOT_PRINTABLE;
        assert!(runs.windows(2).all(|w| w[0].1 < w[1].0 && w[0].0 <= w[0].1));
    }

    #[test]
    fn scalars() {
        assert_eq!(p("None"), Ok(Value::None));
        assert_eq!(p("True"), Ok(Value::Bool(true)));
        assert_eq!(p(" False "), Ok(Value::Bool(false)));
        assert_eq!(p("0"), Ok(Value::Int(0)));
        assert_eq!(p("000"), Ok(Value::Int(0)));
        assert_eq!(p("-12"), Ok(Value::Int(-12)));
        assert_eq!(p("+7"), Ok(Value::Int(7)));
        assert_eq!(p("1_000"), Ok(Value::Int(1000)));
        assert_eq!(p("0xFF"), Ok(Value::Int(255)));
        assert_eq!(p("0o17"), Ok(Value::Int(15)));
        assert_eq!(p("0b101"), Ok(Value::Int(5)));
        assert_eq!(p("0x_f"), Ok(Value::Int(15)));
        assert_eq!(p("1.5"), Ok(Value::Float(1.5)));
        assert_eq!(p(".5"), Ok(Value::Float(0.5)));
        assert_eq!(p("1."), Ok(Value::Float(1.0)));
        assert_eq!(p("1e3"), Ok(Value::Float(1000.0)));
        assert_eq!(p("-2.5E-1"), Ok(Value::Float(-0.25)));
        assert_eq!(p("1e999"), Ok(Value::Float(f64::INFINITY)));
        assert_eq!(
            p("-170141183460469231731687303715884105728"),
            Ok(Value::Int(i128::MIN))
        );
    }

    #[test]
    fn number_errors() {
        for s in [
            "01", "1__0", "1_", "0x", "0xg", "1e", "12abc", "_1", "0b2", ".",
        ] {
            assert!(p(s).is_err(), "{s} must be rejected");
        }
        assert_eq!(p("1j"), Err(LiteralErrorKind::Complex));
        assert_eq!(
            p("170141183460469231731687303715884105728"),
            Err(LiteralErrorKind::IntegerOutOfRange)
        );
        assert_eq!(
            p(&"9".repeat(5000)),
            Err(LiteralErrorKind::IntegerOutOfRange)
        );
        assert_eq!(
            p("--1"),
            Err(LiteralErrorKind::Unexpected {
                found: '-',
                expected: "a number"
            })
        );
    }

    #[test]
    fn long_suffix_only_when_allowed() {
        assert_eq!(p("(2L, 3)"), Err(LiteralErrorKind::LongSuffix));
        let opts = ParseOptions {
            long_suffix: true,
            ..ParseOptions::default()
        };
        assert_eq!(
            parse("(2L, 3L)", opts),
            Ok(Value::Tuple(vec![Value::Int(2), Value::Int(3)]))
        );
        // numpy 2.4.6 refuses "(2l, 3)" in a 1.0 header ("Cannot parse header").
        assert_eq!(
            parse("(2l, 3)", opts).map_err(|e| e.kind),
            Err(LiteralErrorKind::InvalidNumber)
        );
        // Only after integers.
        assert!(parse("1.5L", opts).is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(p("'a'"), Ok(Value::Str("a".into())));
        assert_eq!(p("\"a'b\""), Ok(Value::Str("a'b".into())));
        assert_eq!(
            p(r"'\x41\u00e9\U0001F600\n\t\\\'\101'"),
            Ok(Value::Str("Aé😀\n\t\\'A".into()))
        );
        assert_eq!(p(r"r'\n'"), Ok(Value::Str("\\n".into())));
        assert_eq!(p(r"'\q'"), Ok(Value::Str("\\q".into())));
        assert_eq!(p("'a' \"b\""), Ok(Value::Str("ab".into())));
        assert_eq!(p("'''a'b\nc'''"), Ok(Value::Str("a'b\nc".into())));
        assert_eq!(p("u'x'"), Ok(Value::Str("x".into())));
        assert_eq!(p(r"b'\xff\x00a'"), Ok(Value::Bytes(vec![0xff, 0, b'a'])));
        assert_eq!(p("'整形'"), Ok(Value::Str("整形".into())));
        assert_eq!(p("'a\nb'"), Err(LiteralErrorKind::UnterminatedString));
        assert_eq!(p("'abc"), Err(LiteralErrorKind::UnterminatedString));
        assert_eq!(p("b'é'"), Err(LiteralErrorKind::NonAsciiBytes));
        assert_eq!(p("'a' b'b'"), Err(LiteralErrorKind::MixedStringKinds));
        assert_eq!(p(r"'\ud800'"), Err(LiteralErrorKind::InvalidCodePoint));
        assert!(matches!(
            p(r"'\x4'"),
            Err(LiteralErrorKind::InvalidEscape(_))
        ));
        assert!(matches!(
            p(r"'\N{DASH}'"),
            Err(LiteralErrorKind::InvalidEscape(_))
        ));
        assert_eq!(p("f'x'"), Err(LiteralErrorKind::UnknownName("f".into())));
    }

    #[test]
    fn containers() {
        assert_eq!(p("()"), Ok(Value::Tuple(vec![])));
        assert_eq!(p("(1)"), Ok(Value::Int(1)));
        assert_eq!(p("(1,)"), Ok(Value::Tuple(vec![Value::Int(1)])));
        assert_eq!(
            p("[1, 2,]"),
            Ok(Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
        assert_eq!(p("[]"), Ok(Value::List(vec![])));
        assert_eq!(p("{}"), Ok(Value::Dict(vec![])));
        assert_eq!(
            p("{'a': 1, 'b': 2, 'a': 3}"),
            Ok(Value::Dict(vec![
                (Value::Str("a".into()), Value::Int(3)),
                (Value::Str("b".into()), Value::Int(2)),
            ]))
        );
        assert_eq!(p("{[1]: 2}"), Err(LiteralErrorKind::UnhashableKey("list")));
        assert_eq!(
            p("{1 2}"),
            Err(LiteralErrorKind::Unexpected {
                found: '2',
                expected: "':'"
            })
        );
        assert_eq!(
            p("(1 2)"),
            Err(LiteralErrorKind::Unexpected {
                found: '2',
                expected: "',' or ')'"
            })
        );
        assert_eq!(
            p("[1,,]"),
            Err(LiteralErrorKind::Unexpected {
                found: ',',
                expected: "a value"
            })
        );
        assert_eq!(
            p("{'a': 1"),
            Err(LiteralErrorKind::UnexpectedEnd {
                expected: "',' or '}'"
            })
        );
        assert_eq!(p("1 2"), Err(LiteralErrorKind::TrailingCharacters));
        assert_eq!(
            p("false"),
            Err(LiteralErrorKind::UnknownName("false".into()))
        );
    }

    #[test]
    fn whitespace_and_comments() {
        let v = p("\t{ # comment\r\n 'a' :\x0c(1 ,\\\n 2) ,\n}\n  ").unwrap();
        assert_eq!(v.to_string(), "{'a': (1, 2)}");
        assert!(p("{'a': 1}\0").is_err());
    }

    #[test]
    fn depth_limit() {
        let deep = "(".repeat(100_000);
        assert_eq!(
            p(&deep),
            Err(LiteralErrorKind::TooDeep {
                limit: DEFAULT_MAX_DEPTH
            })
        );
        let ok = format!(
            "{}1{}",
            "[".repeat(DEFAULT_MAX_DEPTH),
            "]".repeat(DEFAULT_MAX_DEPTH)
        );
        assert!(p(&ok).is_ok());
        let over = format!(
            "{}1{}",
            "[".repeat(DEFAULT_MAX_DEPTH + 1),
            "]".repeat(DEFAULT_MAX_DEPTH + 1)
        );
        assert!(p(&over).is_err());
    }

    #[test]
    fn repr_matches_python() {
        // Expected strings are CPython's repr of the same values.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(repr(&Value::Float(*x)), *want);
        }
        assert_eq!(repr(&Value::Str("it's".into())), "\"it's\"");
        assert_eq!(repr(&Value::Str("a'\"".into())), "'a\\'\"'");
        assert_eq!(
            repr(&Value::Str("\u{0}\u{7f}\u{a0}é\u{2028}😀\\".into())),
            "'\\x00\\x7f\\xa0é\\u2028😀\\\\'"
        );
        assert_eq!(
            repr(&Value::Bytes(b"a'\x00\xff".to_vec())),
            "b\"a'\\x00\\xff\""
        );
        assert_eq!(repr(&Value::Tuple(vec![Value::Int(5)])), "(5,)");
        assert_eq!(repr(&Value::Tuple(vec![])), "()");
        assert_eq!(
            repr(&Value::List(vec![Value::Tuple(vec![
                Value::Str("x".into()),
                Value::Str("<f4".into())
            ])])),
            "[('x', '<f4')]"
        );
    }

    #[test]
    fn line_col() {
        let text = "{'a':\n  1 2}";
        let e = parse(text, ParseOptions::default()).unwrap_err();
        assert_eq!(e.line_col(text), (2, 5));
    }
}
