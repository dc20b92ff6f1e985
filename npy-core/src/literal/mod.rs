//! The Python-literal subset of `.npy` headers, which numpy reads with `ast.literal_eval` and
//! writes with Python's `repr`: the workspace's one parser and `repr` writer for that syntax,
//! which [`crate::Header`] and `npy-serde`'s serde data format go through.
//!
//! Accepted (as `ast.literal_eval` accepts them): dicts, tuples, lists, strings (single, double and
//! triple quotes; `r`, `u`, `b` prefixes; Python escapes, `\N{NAME}` included; adjacent literals
//! concatenated, across lines only inside brackets), integers (decimal, `0x`, `0o`, `0b`, `_`
//! separators, an optional sign), floats, `True`, `False`, `None`, `#` comments, any whitespace
//! (tabs, CR/LF, form feed), backslash line joins, trailing commas, and Python 2 long suffixes
//! (`2L`) with [`ParseOptions::long_suffix`].
//!
//! Not accepted: sets, complex numbers (`1j`), f-strings, expressions, NUL bytes (as Python) and
//! strings holding lone surrogates (`'\ud800'`), which a Rust `String` cannot hold.
//! `fixtures/parity/literals.json` holds Python's verdict on every escape form, prefix, quote
//! and line-continuation case; a test checks each row both ways.
//!
//! Parsing is a single left-to-right pass (linear time); nesting deeper than
//! [`ParseOptions::max_depth`] is an error rather than a stack overflow.

use std::fmt;

pub(crate) mod digits;
mod parse;
mod printable;
pub(crate) mod repr;
#[cfg(test)]
mod tests;

pub use parse::parse;
pub use printable::UNICODE_VERSION;
pub(crate) use repr::{write_repr_bytes, write_repr_float, write_repr_str};

/// Default nesting limit of [`ParseOptions::max_depth`]: far above any real header (a record
/// nested 10 levels deep uses about 30), far below what would exhaust a thread's stack.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// A Python literal value.
///
/// `Display` writes Python's `repr` of the value, byte for byte as CPython does for the types a
/// header uses (see [`write_repr_str`] for which characters are escaped).
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
        let Value::Dict(items) = self else {
            return None;
        };
        let mut entries = items.iter();
        entries.find_map(|(k, v)| matches!(k, Value::Str(s) if s == key).then_some(v))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write_repr_float(f, *x),
            Value::Str(s) => write_repr_str(f, s),
            Value::Bytes(b) => write_repr_bytes(f, b),
            Value::Tuple(items) => {
                let close = if items.len() == 1 { ",)" } else { ")" };
                write_joined(f, "(", items, close, |f, v| write!(f, "{v}"))
            }
            Value::List(items) => write_joined(f, "[", items, "]", |f, v| write!(f, "{v}")),
            Value::Dict(items) => {
                write_joined(f, "{", items, "}", |f, (k, v)| write!(f, "{k}: {v}"))
            }
        }
    }
}

/// Writes `open`, each of `items` with `one` separated by `", "`, and `close`, as Python's
/// `repr` of a container.
fn write_joined<W: fmt::Write, T>(
    f: &mut W,
    open: &str,
    items: &[T],
    close: &str,
    one: impl Fn(&mut W, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        f.write_str(if i > 0 { ", " } else { "" })?;
        one(f, item)?;
    }
    f.write_str(close)
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
