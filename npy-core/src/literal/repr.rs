//! Python's `repr` of the scalar types a header holds: floats, `str` and `bytes`.

use std::fmt;

use super::digits::{scalar_str, FloatKind};

/// Writes Python's `repr` of a float: the shortest digits that round-trip (a tie between two
/// going to the even one, as Python's), in fixed notation for decimal exponents -4..16 and
/// scientific (`1e+16`, `1.5e-07`) outside, `inf`, `-inf`, `nan`.
///
/// # Errors
/// Only those of the writer `f`.
pub fn write_repr_float(f: &mut impl fmt::Write, x: f64) -> fmt::Result {
    f.write_str(&scalar_str(x, FloatKind::Double))
}

/// Writes Python's `repr` of a `str`: single quotes unless the text holds `'` and no `"`; `\\`,
/// `\n`, `\r`, `\t` and the quote escaped; what `str.isprintable` refuses (Python 3.11, Unicode
/// 14.0.0, unassigned code points included) as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
///
/// # Errors
/// Only those of the writer `f`.
pub fn write_repr_str(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    write_repr_code_points(f, s.chars().map(u32::from))
}

/// Writes Python's `repr` of a string given as code points, as [`write_repr_str`] does, for
/// text that a Rust `str` cannot hold: a numpy `U` string may store lone surrogates
/// (`'\ud805'`), which Python escapes as `\ud805` (category Cs is not printable).
///
/// # Errors
/// Only those of the writer `f`.
///
/// # Examples
/// ```
/// let mut s = String::new();
/// npy_core::__private::write_repr_code_points(&mut s, [0x61, 0xD805, 0x27].into_iter())?;
/// assert_eq!(s, r#""a\ud805'""#);
/// # Ok::<(), std::fmt::Error>(())
/// ```
pub fn write_repr_code_points(
    f: &mut impl fmt::Write,
    code_points: impl Iterator<Item = u32> + Clone,
) -> fmt::Result {
    write_quoted(f, code_points, is_printable)
}

/// Writes Python's `repr` of a `bytes` value.
///
/// # Errors
/// Only those of the writer `f`.
pub fn write_repr_bytes(f: &mut impl fmt::Write, b: &[u8]) -> fmt::Result {
    f.write_char('b')?;
    // Every byte is below 0x100, so what is not printable ASCII is written as `\xhh`.
    let printable = |c| matches!(c, ' '..='~');
    write_quoted(f, b.iter().map(|&c| u32::from(c)), printable)
}

/// The quoted, escaped text of a `str` or `bytes` repr by [`write_repr_str`]'s rules, which
/// differ only in what they write as it is (`printable`).
fn write_quoted(
    f: &mut impl fmt::Write,
    code_points: impl Iterator<Item = u32> + Clone,
    printable: impl Fn(char) -> bool,
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
            Some(c) if c == quote => f.write_str(if c == '"' { "\\\"" } else { "\\'" })?,
            Some(c) if printable(c) => f.write_char(c)?,
            _ if cp < 0x100 => write_escape(f, 'x', cp, 2)?,
            _ if cp < 0x10000 => write_escape(f, 'u', cp, 4)?,
            _ => write_escape(f, 'U', cp, 8)?,
        }
    }
    f.write_char(quote)
}

/// `\\` `kind` and the `digits` lowest hex digits of `cp` (lowercase), in one write: a repr of
/// a long string of control characters is mostly these, and `write!` costs many times more.
fn write_escape(f: &mut impl fmt::Write, kind: char, cp: u32, digits: u32) -> fmt::Result {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [b'\\', kind as u8, 0, 0, 0, 0, 0, 0, 0, 0];
    for i in 0..digits {
        let shift = 4 * (digits - 1 - i);
        buf[2 + i as usize] = HEX[((cp >> shift) & 0xF) as usize];
    }
    // ASCII throughout.
    f.write_str(std::str::from_utf8(&buf[..2 + digits as usize]).map_err(|_| fmt::Error)?)
}

/// Whether CPython's `str.isprintable` holds for `c` (not a control, format, surrogate,
/// private-use or unassigned code point, nor a separator but the space), by the table
/// `cargo xtask unicode` generates from the Python that runs numpy, unassigned points included.
fn is_printable(c: char) -> bool {
    let flips = super::printable::NOT_PRINTABLE_FLIPS.partition_point(|&f| f <= u32::from(c));
    flips % 2 == 0
}
