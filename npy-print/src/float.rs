//! The one float formatter: numpy's `FloatingFormat` and `ComplexFloatingFormat` (floatmode
//! `'maxprec'`, the options' precision), the `str` of float and complex scalars, and Python's
//! `repr` of `float` and `complex` (a float64 scalar's `str` is Python's `repr`).
//!
//! Digits are the literal module's shortest round-trip digits (`literal/digits.rs`, shared
//! with the header's float repr), ties to even as Dragon4 and Python's repr; a longdouble goes
//! through its nearest float64, which gives numpy's digits whenever they fit in the precision.

use npy_core::__private::Digits;
pub(crate) use npy_core::__private::{scalar_str, FloatKind};
use npy_core::dtype::{DType, Primitive};

/// The kind of a float or complex dtype's values (float64 for the others).
pub fn kind_of(dtype: &DType) -> FloatKind {
    match dtype {
        DType::Number(Primitive::F16, _) => FloatKind::Half,
        DType::Number(Primitive::F32 | Primitive::C64, _) => FloatKind::Single,
        _ => FloatKind::Double,
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

/// Exactly `n` fractional digits in scientific form, rounded from the exact value (ties to
/// even, as Dragon4).
fn exact_sci(x: f64, n: usize) -> Digits {
    Digits::parse(&format!("{x:.n$e}"))
}

/// At most `precision` fractional digits in scientific form: the shortest digits, or the
/// exact value rounded when they are longer, trailing zeros trimmed.
fn capped_sci(x: f64, shortest: &Digits, precision: usize) -> Digits {
    let mut d = shortest.clone();
    if d.digits.len() > precision.saturating_add(1) {
        d = exact_sci(x, precision);
        let kept = d.digits.trim_end_matches('0').len().max(1);
        d.digits.truncate(kept);
    }
    d
}

/// Where an array of `kind` switches to scientific notation: `10**min(8,
/// finfo(dtype).precision)` (numpy PR #28703): 1e3 for float16, 1e6 for float32, 1e8 for
/// float64 and longdouble.
fn array_cutoff(kind: FloatKind) -> f64 {
    match kind {
        FloatKind::Half => 1e3,
        FloatKind::Single => 1e6,
        FloatKind::Double => 1e8,
    }
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
        let d = capped_sci(x, &shortest, self.precision);
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
                max >= array_cutoff(self.kind) || min < 1e-4 || max / min > 1000.0
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
            let mut d = capped_sci(x, &self.kind.shortest(x), self.precision);
            if d.digits.len() < self.digits + 1 {
                d = exact_sci(x, self.digits);
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

/// `str()` of a complex scalar whose parts are of `kind`: `(1+2j)`, `-0j`, `(nan+infj)`; parts
/// as [`scalar_str`] without a trailing `.0`, and a bare imaginary part when the real part is
/// +0.
pub fn complex_scalar_str(re: f64, im: f64, kind: FloatKind) -> String {
    match complex_body(re, im, kind) {
        (body, true) => format!("({body})"),
        (body, false) => body,
    }
}

/// The text of a complex value without parentheses (`1+2j`, `-0j`), and whether Python's
/// repr (and a complex scalar's `str`) puts it in parentheses: not for a bare imaginary part,
/// printed when the real part is +0.
pub fn complex_body(re: f64, im: f64, kind: FloatKind) -> (String, bool) {
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
pub fn float_repr(x: f64, dot0: bool) -> String {
    let s = scalar_str(x, FloatKind::Double);
    match s.strip_suffix(".0") {
        Some(t) if !dot0 => t.to_owned(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_is_pythons() {
        // Expected strings are Python 3's repr() of the same floats.
        let cases = [
            (1.5, "1.5"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123456789.125, "123456789.125"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x, true), want, "{x:e}");
        }
    }

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
