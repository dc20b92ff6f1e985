//! The one float formatter: numpy's `FloatingFormat` and `ComplexFloatingFormat` (floatmode
//! `'maxprec'`, the options' precision), the `str` of float and complex scalars, and Python's
//! `repr` of `float` and `complex` (a float64 scalar's `str` is Python's `repr`).
//!
//! Digits are the shortest that round-trip in the value's own type (float16, float32 or
//! float64), as numpy's Dragon4 in `unique` mode gives them, ties between two shortest
//! candidates going to the even one as Dragon4 and Python's repr do; a longdouble goes through
//! its nearest float64, which gives numpy's digits whenever they fit in the precision.

use crate::dtype::{DType, Primitive};

/// The type a float was stored as: its shortest digits and numpy's cutoffs depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatKind {
    /// float16.
    Half,
    /// float32, and the parts of complex64.
    Single,
    /// float64, longdouble (through float64), and the parts of complex128 and clongdouble.
    Double,
}

impl FloatKind {
    /// The kind of a float or complex dtype's values (float64 for the others).
    pub(crate) fn of(dtype: &DType) -> FloatKind {
        match dtype {
            DType::Number(Primitive::F16, _) => FloatKind::Half,
            DType::Number(Primitive::F32 | Primitive::C64, _) => FloatKind::Single,
            _ => FloatKind::Double,
        }
    }

    /// Where an array switches to scientific notation: `10**min(8, finfo(dtype).precision)`
    /// (numpy PR #28703): 1e3 for float16, 1e6 for float32, 1e8 for float64 and longdouble.
    fn array_cutoff(self) -> f64 {
        match self {
            FloatKind::Half => 1e3,
            FloatKind::Single => 1e6,
            FloatKind::Double => 1e8,
        }
    }

    /// Where a scalar's `str` switches to scientific notation (numpy 2.4's scalar types):
    /// 1e3 for float16, 1e6 for float32, 1e16 (Python's repr) for float64 and longdouble.
    fn scalar_cutoff(self) -> f64 {
        match self {
            FloatKind::Half => 1e3,
            FloatKind::Single => 1e6,
            FloatKind::Double => 1e16,
        }
    }

    /// Shortest round-trip digits in scientific form: `(negative, digits, exponent)`, the
    /// value being `d1.d2d3… × 10^exponent`.
    fn shortest(self, x: f64) -> Digits {
        let sci = match self {
            FloatKind::Double => format!("{x:e}"),
            FloatKind::Single => format!("{:e}", x as f32),
            FloatKind::Half => {
                let target = half::f16::from_f64(x);
                (0..6)
                    .map(|p| format!("{x:.p$e}"))
                    .find(|s| {
                        s.parse::<f64>()
                            .is_ok_and(|y| half::f16::from_f64(y) == target)
                    })
                    .unwrap_or_else(|| format!("{x:e}"))
            }
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

    /// When the value lies exactly halfway between two shortest candidates, Rust's shortest
    /// digits take the one away from zero (`4040868.25_f32` gives `4040868.3`) where numpy's
    /// Dragon4 (like Python's repr) takes the even one (`4040868.2`): the even one, if it
    /// round-trips too.
    fn even_tie(self, x: f64, d: Digits) -> Digits {
        let n = d.digits.len();
        if d.digits
            .bytes()
            .last()
            .is_none_or(|b| (b - b'0').is_multiple_of(2))
            || fraction_bits(x) > 26
        {
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
#[derive(Clone)]
#[allow(
    clippy::struct_field_names,
    reason = "`digits` is the term of the algorithm"
)]
struct Digits {
    neg: bool,
    digits: String,
    exp: i32,
}

impl Digits {
    /// `"-1.25e-3"` as `(true, "125", -3)`.
    fn parse(sci: &str) -> Digits {
        let (neg, body) = match sci.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, sci),
        };
        let (mant, exp) = body.split_once('e').unwrap_or((body, "0"));
        Digits {
            neg,
            digits: mant.chars().filter(char::is_ascii_digit).collect(),
            exp: exp.parse().unwrap_or(0),
        }
    }

    /// Exactly `n` fractional digits in scientific form, rounded from the exact value (ties
    /// to even, as Dragon4).
    fn exact_sci(x: f64, n: usize) -> Digits {
        Digits::parse(&format!("{x:.n$e}"))
    }

    /// At most `precision` fractional digits in scientific form: the shortest digits, or
    /// the exact value rounded when they are longer, trailing zeros trimmed.
    fn capped_sci(x: f64, shortest: &Digits, precision: usize) -> Digits {
        let mut d = shortest.clone();
        if d.digits.len() > precision + 1 {
            d = Digits::exact_sci(x, precision);
            let kept = d.digits.trim_end_matches('0').len().max(1);
            d.digits.truncate(kept);
        }
        d
    }

    /// Integer and fractional digits in positional form (no sign).
    fn positional(&self) -> (String, String) {
        let digits = &self.digits;
        if digits == "0" {
            return ("0".to_owned(), String::new());
        }
        if self.exp >= 0 {
            let point = self.exp as usize + 1;
            if digits.len() <= point {
                (format!("{digits:0<point$}"), String::new())
            } else {
                (digits[..point].to_owned(), digits[point..].to_owned())
            }
        } else {
            let zeros = "0".repeat((-self.exp - 1) as usize);
            ("0".to_owned(), format!("{zeros}{digits}"))
        }
    }

    /// Integer and fractional digits of the scientific form.
    fn sci_parts(&self) -> (&str, &str) {
        self.digits.split_at(1.min(self.digits.len()))
    }
}

/// Positional digits with at most `precision` fractional digits (shortest, else rounded
/// from the exact value), trailing zeros trimmed: `(negative, integer, fraction)`.
fn capped_pos(x: f64, d: &Digits, precision: usize) -> (bool, String, String) {
    let (int, frac) = d.positional();
    if frac.len() <= precision {
        return (d.neg, int, frac);
    }
    let rounded = format!("{:.precision$}", x.abs());
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, ""));
    (d.neg, int.to_owned(), frac.trim_end_matches('0').to_owned())
}

fn sign_str(neg: bool, plus: bool) -> &'static str {
    if neg {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    }
}

/// What [`FloatFormat`] needs to know of the values it will print, gathered one value at a
/// time in constant memory: numpy's `fillFormat` for both notations at once, since which one
/// applies is known only after the last value.
#[derive(Debug, Clone)]
pub(crate) struct FloatStats {
    kind: FloatKind,
    /// Most fractional digits shown (numpy's `precision`).
    precision: usize,
    /// numpy's `sign='+'` (the imaginary part of a complex).
    plus: bool,
    finite: u64,
    nonfinite: bool,
    neginf: bool,
    /// Largest and smallest absolute value of the finite non-zero values.
    max_abs: Option<f64>,
    min_abs: Option<f64>,
    /// Positional: widest sign and integer part, longest fraction.
    pos_left: usize,
    pos_right: usize,
    /// Scientific: widest sign and integer digit, longest fraction, widest exponent.
    sci_left: usize,
    sci_digits: usize,
    sci_exp: usize,
}

impl FloatStats {
    /// Nothing seen yet; `plus` for a sign on every value (imaginary parts).
    pub(crate) fn new(kind: FloatKind, precision: usize, plus: bool) -> FloatStats {
        FloatStats {
            kind,
            precision,
            plus,
            finite: 0,
            nonfinite: false,
            neginf: false,
            max_abs: None,
            min_abs: None,
            pos_left: 0,
            pos_right: 0,
            sci_left: 0,
            sci_digits: 0,
            sci_exp: 0,
        }
    }

    /// Takes one value into account.
    pub(crate) fn observe(&mut self, x: f64) {
        if !x.is_finite() {
            self.nonfinite = true;
            self.neginf |= x == f64::NEG_INFINITY;
            return;
        }
        self.finite += 1;
        if x != 0.0 {
            let a = x.abs();
            self.max_abs = Some(self.max_abs.map_or(a, |m| m.max(a)));
            self.min_abs = Some(self.min_abs.map_or(a, |m| m.min(a)));
        }
        let shortest = self.kind.shortest(x);
        let (neg, int, frac) = capped_pos(x, &shortest, self.precision);
        let sign = sign_str(neg, self.plus).len();
        self.pos_left = self.pos_left.max(sign + int.len());
        self.pos_right = self.pos_right.max(frac.len());
        let d = Digits::capped_sci(x, &shortest, self.precision);
        let (int, frac) = d.sci_parts();
        self.sci_left = self.sci_left.max(sign + int.len());
        self.sci_digits = self.sci_digits.max(frac.len());
        let exp = d.exp.unsigned_abs().to_string().len().max(2);
        self.sci_exp = self.sci_exp.max(exp);
    }

    /// The format for the values seen.
    pub(crate) fn finish(&self) -> FloatFormat {
        let exp = match (self.max_abs, self.min_abs) {
            (Some(max), Some(min)) => {
                max >= self.kind.array_cutoff() || min < 1e-4 || max / min > 1000.0
            }
            _ => false,
        };
        let mut f = FloatFormat {
            kind: self.kind,
            precision: self.precision,
            plus: self.plus,
            exp: exp && self.finite > 0,
            pad_left: 0,
            pad_right: 0,
            digits: 0,
            exp_size: 0,
        };
        if self.finite > 0 {
            if f.exp {
                f.pad_left = self.sci_left;
                f.digits = self.sci_digits;
                f.exp_size = self.sci_exp;
                f.pad_right = f.exp_size + 2 + f.digits;
            } else {
                f.pad_left = self.pos_left;
                f.pad_right = self.pos_right;
            }
        }
        if self.nonfinite {
            let neginf = self.plus || self.neginf;
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + usize::from(neginf)).saturating_sub(offset));
        }
        f
    }
}

/// numpy's `FloatingFormat`, fitted to the values shown.
#[derive(Debug, Clone)]
pub(crate) struct FloatFormat {
    kind: FloatKind,
    precision: usize,
    plus: bool,
    exp: bool,
    pad_left: usize,
    pad_right: usize,
    /// Fractional digits in scientific form.
    digits: usize,
    exp_size: usize,
}

impl FloatFormat {
    /// One value, padded to the common width.
    pub(crate) fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = if x.is_nan() {
                format!("{}nan", if self.plus { "+" } else { "" })
            } else {
                format!("{}inf", sign_str(x < 0.0, self.plus))
            };
            return format!("{s:>w$}", w = self.pad_left + self.pad_right + 1);
        }
        if self.exp {
            let mut d = Digits::capped_sci(x, &self.kind.shortest(x), self.precision);
            if d.digits.len() < self.digits + 1 {
                d = Digits::exact_sci(x, self.digits);
            }
            let (int, frac) = d.sci_parts();
            let int = format!("{}{int}", sign_str(d.neg, self.plus));
            format!(
                "{int:>l$}.{frac}e{}{:0>e$}",
                if d.exp < 0 { '-' } else { '+' },
                d.exp.unsigned_abs(),
                l = self.pad_left,
                e = self.exp_size
            )
        } else {
            let (neg, int, frac) = capped_pos(x, &self.kind.shortest(x), self.precision);
            let int = format!("{}{int}", sign_str(neg, self.plus));
            format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

/// numpy's `ComplexFloatingFormat`: the real part's format, then the imaginary part's with a
/// sign and a `j` before its padding.
pub(crate) fn format_complex(re: &FloatFormat, im: &FloatFormat, x: (f64, f64)) -> String {
    let r = re.format(x.0);
    let i = im.format(x.1);
    let sp = i.trim_end().len();
    format!("{r}{}j{}", &i[..sp], &i[sp..])
}

/// `str()` of a float scalar of `kind`: shortest digits, positional from 1e-4 up to the
/// type's cutoff ([`FloatKind::scalar_cutoff`]), scientific outside, in Python's layout
/// (`1.0`, `0.0001`, `1e+16`, `6.55e+04`).
pub(crate) fn scalar_str(x: f64, kind: FloatKind) -> String {
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
        let esign = if d.exp < 0 { '-' } else { '+' };
        format!(
            "{sign}{int}{point}{frac}e{esign}{:02}",
            d.exp.unsigned_abs()
        )
    }
}

/// `str()` of a complex scalar whose parts are of `kind`: `(1+2j)`, `-0j`, `(nan+infj)`; parts
/// as [`scalar_str`] without a trailing `.0`, and a bare imaginary part when the real part is
/// +0.
pub(crate) fn complex_scalar_str(re: f64, im: f64, kind: FloatKind) -> String {
    match complex_body(re, im, kind) {
        (body, true) => format!("({body})"),
        (body, false) => body,
    }
}

/// The text of a complex value without parentheses (`1+2j`, `-0j`), and whether Python's
/// repr (and a complex scalar's `str`) puts it in parentheses: not for a bare imaginary part,
/// printed when the real part is +0.
pub(crate) fn complex_body(re: f64, im: f64, kind: FloatKind) -> (String, bool) {
    let part = |x: f64| {
        let s = scalar_str(x, kind);
        s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
    };
    let imag = if im.is_sign_negative() && !im.is_nan() {
        format!("-{}", part(-im))
    } else {
        format!("+{}", part(im))
    };
    if re == 0.0 && re.is_sign_positive() {
        (format!("{}j", imag.trim_start_matches('+')), false)
    } else {
        (format!("{}{imag}j", part(re)), true)
    }
}

/// Python's `repr()` of a `float` (the `str` of a float64 scalar): `1.0`, `1e+16`, `nan`;
/// without `dot0`, an integral value loses its `.0`.
#[cfg(feature = "pickle")]
pub(crate) fn float_repr(x: f64, dot0: bool) -> String {
    let s = scalar_str(x, FloatKind::Double);
    match s.strip_suffix(".0") {
        Some(t) if !dot0 => t.to_owned(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt_all(xs: &[f64], kind: FloatKind) -> Vec<String> {
        let mut stats = FloatStats::new(kind, 8, false);
        for &x in xs {
            stats.observe(x);
        }
        let f = stats.finish();
        xs.iter().map(|&x| f.format(x)).collect()
    }

    /// Expected strings are numpy 2.4.6's `str()` of the same arrays.
    #[test]
    fn floats_as_numpy() {
        assert_eq!(
            fmt_all(&[1.5, 2.25, 100.0], FloatKind::Double),
            ["  1.5 ", "  2.25", "100.  "]
        );
        assert_eq!(
            fmt_all(&[1e-5, 1.0], FloatKind::Double),
            ["1.e-05", "1.e+00"]
        );
        assert_eq!(
            fmt_all(&[f64::NAN, f64::INFINITY], FloatKind::Double),
            ["nan", "inf"]
        );
        assert_eq!(
            fmt_all(
                &[0.5, f64::NAN, -0.0, f64::INFINITY, 5.960464477539063e-08],
                FloatKind::Half
            ),
            [" 5.e-01", "    nan", "-0.e+00", "    inf", " 6.e-08"]
        );
        assert_eq!(
            fmt_all(&[f64::from(1.0f32 / 3.0), 0.0], FloatKind::Single),
            ["0.33333334", "0.        "]
        );
        // N21: the cutoff depends on the dtype (numpy PR #28703).
        assert_eq!(
            fmt_all(&[1776.0, 913.0, -974.0, -102.0], FloatKind::Half),
            [" 1.776e+03", " 9.130e+02", "-9.740e+02", "-1.020e+02"]
        );
        assert_eq!(
            fmt_all(&[2e6, 3e6], FloatKind::Single),
            ["2.e+06", "3.e+06"]
        );
        // An exact tie between two shortest candidates goes to the even digit, as Dragon4:
        // numpy prints float32 -4040868.25 as -4.0408682e+06 (Rust's shortest gives ...83).
        assert_eq!(
            fmt_all(&[-4040868.25, 1e-3], FloatKind::Single),
            ["-4.0408682e+06", " 1.0000000e-03"]
        );
    }

    /// numpy 2.4.6: `str(np.float16(65504))`, `str(np.float32(536870912))`, ...
    #[test]
    fn scalars_as_numpy() {
        assert_eq!(scalar_str(65504.0, FloatKind::Half), "6.55e+04");
        assert_eq!(scalar_str(999.5, FloatKind::Half), "999.5");
        assert_eq!(scalar_str(536870912.0, FloatKind::Single), "5.368709e+08");
        assert_eq!(scalar_str(123456.0, FloatKind::Single), "123456.0");
        assert_eq!(scalar_str(1e15, FloatKind::Double), "1000000000000000.0");
        assert_eq!(scalar_str(1e16, FloatKind::Double), "1e+16");
        assert_eq!(scalar_str(1e-5, FloatKind::Double), "1e-05");
        assert_eq!(scalar_str(-0.0, FloatKind::Double), "-0.0");
        let c = f64::from(4.3365286e11f32);
        let i = f64::from(0.92481047f32);
        assert_eq!(
            complex_scalar_str(c, i, FloatKind::Single),
            "(4.3365286e+11+0.92481047j)"
        );
        assert_eq!(
            complex_scalar_str(1e6, 1.0, FloatKind::Single),
            "(1e+06+1j)"
        );
        assert_eq!(complex_scalar_str(0.0, -0.0, FloatKind::Double), "-0j");
    }
}
