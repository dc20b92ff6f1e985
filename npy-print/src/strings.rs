//! `S`, `U` and `V` values: Python's reprs through the literal module's writers, numpy's void
//! repr, and text made safe for a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;

use npy_core::__private::{write_repr_bytes, write_repr_code_points};
use npy_core::dynamic::UcsString;

/// Python's repr of a `bytes` value: `b'a\x00b'`.
pub(crate) fn repr_bytes(b: &[u8]) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_repr_bytes(&mut s, b);
    s
}

/// Python's repr of a `U` string, lone surrogates (`'\ud805'`) and the code points Python
/// does not print (unassigned ones included) escaped as Python escapes them.
pub(crate) fn repr_ucs(u: &UcsString) -> String {
    let mut s = String::new();
    let _ = write_repr_code_points(&mut s, u.code_points().iter().copied());
    s
}

/// numpy's repr of a void value: `b'\x00\x0B…'`, every byte in upper-case hex.
pub(crate) fn repr_void(b: &[u8]) -> String {
    let mut s = String::from("b'");
    for x in b {
        let _ = write!(s, "\\x{x:02X}");
    }
    s.push('\'');
    s
}

/// `s` with its control characters escaped (`\n`, `\u{1b}`) and the rest as it is: the `str`
/// of a 0-d `U` array or of a `str` object, which numpy prints raw, so that a file cannot drive
/// the terminal.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
