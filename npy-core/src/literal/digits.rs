//! Shortest round-trip digits of floats, the one engine of every float the crate prints: as
//! numpy's Dragon4 in `unique` mode and Python's `repr` give them, in the value's own type
//! (float16, float32 or float64), ties between two shortest candidates going to the even one.
//! [`write_repr_float`](super::write_repr_float) and the printer (crate npy-print) lay them out.

/// The type a float was stored as: its shortest digits and numpy's cutoffs depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatKind {
    /// float16.
    Half,
    /// float32, and the parts of complex64.
    Single,
    /// float64, longdouble (through float64), and the parts of complex128 and clongdouble.
    Double,
}

impl FloatKind {
    /// Where a scalar's `str` switches to scientific notation (numpy 2.4's scalar types):
    /// 1e3 for float16, 1e6 for float32, 1e16 (Python's repr) for float64 and longdouble.
    pub fn scalar_cutoff(self) -> f64 {
        match self {
            FloatKind::Half => 1e3,
            FloatKind::Single => 1e6,
            FloatKind::Double => 1e16,
        }
    }

    /// Shortest round-trip digits in scientific form: `(negative, digits, exponent)`, the
    /// value being `d1.d2d3… × 10^exponent`.
    pub fn shortest(self, x: f64) -> Digits {
        let sci = match self {
            FloatKind::Double => format!("{x:e}"),
            FloatKind::Single => format!("{:e}", x as f32),
            // The fewest digits that read back as the same float16.
            FloatKind::Half => (0..6)
                .map(|p| format!("{x:.p$e}"))
                .find(|s| s.parse::<f64>().is_ok_and(|y| self.same(x, y)))
                .unwrap_or_else(|| format!("{x:e}")),
        };
        self.even_tie(x, Digits::parse(&sci))
    }

    /// Whether `y` rounds to the same value of this type as `x`.
    fn same(self, x: f64, y: f64) -> bool {
        match self {
            FloatKind::Double => x == y,
            FloatKind::Single => x as f32 == y as f32,
            FloatKind::Half => half::f16::from_f64(x) == half::f16::from_f64(y),
        }
    }

    /// When the value lies exactly halfway between two shortest candidates, Rust's shortest digits
    /// take the one away from zero (`4040868.25_f32` gives `4040868.3`) where numpy's Dragon4 (like
    /// Python's repr) takes the even one (`4040868.2`): the even one, if it round-trips too.
    fn even_tie(self, x: f64, d: Digits) -> Digits {
        let n = d.digits.len();
        if !d.digits.ends_with(['1', '3', '5', '7', '9']) || fraction_bits(x) > 26 {
            return d;
        }
        // A tie puts the exact value (float16 and float32 values widen exactly) at a midpoint
        // `digits ± ½` of the last place: cheap to rule out, then confirmed exactly.
        let Ok(k) = d.digits.parse::<u64>() else {
            return d;
        };
        let sign = if d.neg { "-" } else { "" };
        let midpoint = |m: u64| format!("{sign}{m}5e{}", d.exp - n as i32);
        let near = [k.wrapping_sub(1), k]
            .into_iter()
            .any(|m| midpoint(m).parse::<f64>() == Ok(x));
        if !near {
            return d;
        }
        let fine = Digits::parse(&format!("{x:.p$e}", p = n + 40));
        let Some((head, tail)) = (fine.exp == d.exp)
            .then(|| fine.digits.split_at_checked(n))
            .flatten()
        else {
            return d;
        };
        if !(tail.starts_with('5') && tail[1..].bytes().all(|b| b == b'0')) {
            return d;
        }
        let Ok(low) = head.parse::<u64>() else {
            return d;
        };
        let other = if head == d.digits { low + 1 } else { low }.to_string();
        if other.len() != n {
            return d;
        }
        let text = format!("{sign}{}.{}e{}", &other[..1], &other[1..], d.exp);
        match text.parse::<f64>() {
            Ok(y) if self.same(x, y) => Digits { digits: other, ..d },
            _ => d,
        }
    }
}

/// Bits after the binary point of `x` (0 for an integer). A value with `f` of them has `f`
/// decimal fractional digits and at least `0.69 f` significant ones, so no tie between two
/// shortest candidates (at most 17 digits, plus the deciding 5) is possible past 26.
fn fraction_bits(x: f64) -> u32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let mut m = bits & ((1 << 52) - 1);
    let mut e = -1074;
    if biased != 0 {
        m |= 1 << 52;
        e = biased - 1075;
    }
    if m == 0 {
        return 0;
    }
    (-(e + m.trailing_zeros() as i32)).max(0) as u32
}

/// A finite float as sign, significant digits and decimal exponent.
#[derive(Clone, Debug)]
#[allow(
    clippy::struct_field_names,
    reason = "`digits` is the term of the algorithm"
)]
pub struct Digits {
    /// The sign.
    pub neg: bool,
    /// The significant digits, the first before the point.
    pub digits: String,
    /// The decimal exponent of the first digit.
    pub exp: i32,
}

impl Digits {
    /// `"-1.25e-3"` (Rust's `{:e}` form) as `(true, "125", -3)`.
    pub fn parse(sci: &str) -> Digits {
        let unsigned = sci.strip_prefix('-');
        let (neg, body) = (unsigned.is_some(), unsigned.unwrap_or(sci));
        let (mant, exp) = body.split_once('e').unwrap_or((body, "0"));
        Digits {
            neg,
            digits: mant.chars().filter(char::is_ascii_digit).collect(),
            exp: exp.parse().unwrap_or(0),
        }
    }

    /// Integer and fractional digits in positional form (no sign).
    pub fn positional(&self) -> (String, String) {
        let digits = &self.digits;
        if digits == "0" {
            return ("0".to_owned(), String::new());
        }
        if self.exp >= 0 {
            let point = self.exp as usize + 1;
            // Padded with zeros up to the point when the digits end before it.
            let (int, frac) = digits.split_at(point.min(digits.len()));
            (format!("{int:0<point$}"), frac.to_owned())
        } else {
            let zeros = "0".repeat((-self.exp - 1) as usize);
            ("0".to_owned(), format!("{zeros}{digits}"))
        }
    }

    /// Integer and fractional digits of the scientific form.
    pub fn sci_parts(&self) -> (&str, &str) {
        self.digits.split_at(1.min(self.digits.len()))
    }
}

/// `str()` of a float scalar of `kind`: shortest digits, positional from 1e-4 up to the
/// type's cutoff ([`FloatKind::scalar_cutoff`]), scientific outside, in Python's layout
/// (`1.0`, `0.0001`, `1e+16`, `6.55e+04`).
pub fn scalar_str(x: f64, kind: FloatKind) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let d = kind.shortest(x);
    let sign = if d.neg { "-" } else { "" };
    let a = x.abs();
    if a == 0.0 || (1e-4..kind.scalar_cutoff()).contains(&a) {
        let (int, frac) = d.positional();
        let frac = if frac.is_empty() { "0" } else { &frac };
        format!("{sign}{int}.{frac}")
    } else {
        let (int, frac) = d.sci_parts();
        let point = if frac.is_empty() { "" } else { "." };
        let (esign, exp) = (if d.exp < 0 { '-' } else { '+' }, d.exp.unsigned_abs());
        format!("{sign}{int}{point}{frac}e{esign}{exp:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python 3's `repr()` and numpy 2.4.6's scalar `str()` of values halfway between two
    /// shortest candidates: the even one (Rust's `{:e}` takes the one away from zero).
    #[test]
    fn ties_go_to_even() {
        let two50 = 2f64.powi(50);
        assert_eq!(
            scalar_str(two50 + 0.25, FloatKind::Double),
            "1125899906842624.2"
        );
        assert_eq!(
            scalar_str(two50 + 0.75, FloatKind::Double),
            "1125899906842624.8"
        );
        assert_eq!(
            scalar_str(-(two50 + 0.25), FloatKind::Double),
            "-1125899906842624.2"
        );
        assert_eq!(scalar_str(4040868.25, FloatKind::Single), "4.0408682e+06");
        let mut s = String::new();
        super::super::write_repr_float(&mut s, two50 + 0.25).unwrap();
        assert_eq!(s, "1125899906842624.2");
    }
}
