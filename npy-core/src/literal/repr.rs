//! Python's `repr` of the scalar types a header holds: floats, `str` and `bytes`.

use std::fmt;

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
/// Printability follows `str.isprintable` for control characters, separators, the format
/// characters in common use and the private-use planes; unassigned code points (which CPython
/// also escapes) are written as they are, since that needs the full Unicode database.
pub fn write_repr_str(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    f.write_char(quote)?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c == quote => {
                f.write_char('\\')?;
                f.write_char(c)?;
            }
            c if !is_printable(c) => {
                let cp = c as u32;
                if cp < 0x100 {
                    write!(f, "\\x{cp:02x}")?;
                } else if cp < 0x10000 {
                    write!(f, "\\u{cp:04x}")?;
                } else {
                    write!(f, "\\U{cp:08x}")?;
                }
            }
            c => f.write_char(c)?,
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

/// Whether CPython's `str.isprintable` holds for `c` (see [`write_repr_str`] for the limits).
fn is_printable(c: char) -> bool {
    let cp = c as u32;
    if c == ' ' {
        return true;
    }
    if c.is_control() {
        return false;
    }
    !matches!(cp,
        // Zs (space separators other than ' '), Zl, Zp
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
        // Cf (format characters)
        | 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890 | 0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F
        // Co (private use); noncharacters at the end of the BMP
        | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFFFE | 0xFFFF
    )
}
