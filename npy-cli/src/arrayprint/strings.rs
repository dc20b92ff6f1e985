//! `S`, `U` and `V` values: Python's reprs through npy-core's writers, and numpy's void repr.

use std::fmt::Write as _;

use npy_core::__private::{write_repr_bytes, write_repr_code_points};
use npy_core::UcsString;

/// Python's repr of a `bytes` value: `b'a\x00b'`.
pub fn repr_bytes(b: &[u8]) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_repr_bytes(&mut s, b);
    s
}

/// Python's repr of a `U` string, lone surrogates (`'\ud805'`) and the code points Python
/// does not print (unassigned ones included) escaped as Python escapes them.
pub fn repr_ucs(u: &UcsString) -> String {
    let mut s = String::new();
    let _ = write_repr_code_points(&mut s, u.code_points().iter().copied());
    s
}

/// numpy's repr of a void value: `b'\x00\x0B…'`, every byte in upper-case hex.
pub fn repr_void(b: &[u8]) -> String {
    let mut s = String::from("b'");
    for x in b {
        let _ = write!(s, "\\x{x:02X}");
    }
    s.push('\'');
    s
}
