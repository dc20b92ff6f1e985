//! Python's `str()` of an `int` ([`int_decimal`]) within Python's limit on its digits
//! ([`MAX_INT_DIGITS`]), and what a caller with a budget charges for the conversion
//! ([`int_decimal_work`]): the interpreter (decimal `int` text in a pickle), the `repr` of
//! values and `npy show --json` share them.

use num_bigint::BigInt;

/// Python's limit on the decimal digits of an `int` converted to or from text
/// (`sys.int_info.default_max_str_digits`, Python 3.11 and later): `str(n)`, `int(s)` and
/// `json.dumps` refuse more, because the conversion takes time quadratic in the digits.
pub const MAX_INT_DIGITS: usize = 4300;

/// Bits from which [`int_decimal`] keeps the last text it made (below, converting is cheaper
/// than comparing).
const CACHED_BITS: u64 = 1024;

/// Digits from which a conversion is charged its work ([`int_decimal_work`]).
const WORK_FREE_DIGITS: u64 = 1024;

/// What [`int_decimal`] made of an int.
type Decimal = Result<String, u64>;

std::thread_local! {
    /// The last large int [`int_decimal`] converted on this thread, with what it made of it.
    static LAST_DECIMAL: std::cell::RefCell<Option<(BigInt, Decimal)>> =
        const { std::cell::RefCell::new(None) };
}

/// The fewest decimal digits `n` has: `n` ≥ 2^(bits−1) has at least
/// ⌊(bits − 1) × log10 2⌋ + 1.
fn digits_at_least(n: &BigInt) -> u64 {
    n.bits().saturating_sub(1) * 30_103 / 100_000 + 1
}

/// What [`int_decimal`] already made of `n`, when `n` is the last large int it converted.
fn cached(n: &BigInt) -> Option<Decimal> {
    if n.bits() < CACHED_BITS {
        return None;
    }
    LAST_DECIMAL.with(|last| match &*last.borrow() {
        Some((m, made)) if m == n => Some(made.clone()),
        _ => None,
    })
}

/// Python's `str(n)` of an int: its decimal digits, `-` before a negative one; or, when it
/// has more than [`MAX_INT_DIGITS`] digits (where Python raises `ValueError`), `Err` with the
/// number of digits it has at least.
///
/// Most ints past the limit are told from their size alone (bits × log10 2), before any
/// conversion. An int equal to the last large one converted on this thread reuses what was
/// made of it: a pickle's memo makes one int into many equal copies. Converting takes time
/// quadratic in the digits; [`int_decimal_work`] is what a caller with a budget charges.
///
/// # Errors
/// The digits the int has at least, when that passes [`MAX_INT_DIGITS`].
///
/// # Examples
/// ```
/// use npy_pickle::{int_decimal, BigInt, MAX_INT_DIGITS};
/// assert_eq!(int_decimal(&BigInt::from(-42i32)).as_deref(), Ok("-42"));
/// let big = BigInt::from(10u32).pow(MAX_INT_DIGITS as u32 - 1); // 4300 digits
/// assert_eq!(int_decimal(&big).map(|t| t.len()), Ok(MAX_INT_DIGITS));
/// assert_eq!(int_decimal(&(big * 10u32)), Err(MAX_INT_DIGITS as u64 + 1));
/// ```
pub fn int_decimal(n: &BigInt) -> Result<String, u64> {
    let at_least = digits_at_least(n);
    if at_least > MAX_INT_DIGITS as u64 {
        return Err(at_least);
    }
    if let Some(made) = cached(n) {
        return made;
    }
    let text = n.to_string();
    let digits = text.trim_start_matches('-').len();
    let made = if digits > MAX_INT_DIGITS {
        Err(digits as u64)
    } else {
        Ok(text)
    };
    if n.bits() >= CACHED_BITS {
        LAST_DECIMAL.with(|last| *last.borrow_mut() = Some((n.clone(), made.clone())));
    }
    made
}

/// Bytes of an output budget that [`int_decimal`] of `n` is charged besides its text, for the
/// time it takes: converting d digits to decimal is quadratic, so an int whose size says it
/// has d > 1,024 digits at least is charged d² / 1,024 bytes (18 KB for 4,300 digits: a 64
/// MiB budget then pays for about 3,000 such conversions, 0.3 s, where it would pay for
/// 15,000 by their text alone); none when no conversion is made (the int is the cached one,
/// or refused by its size).
///
/// # Examples
/// ```
/// use npy_pickle::{int_decimal_work, BigInt};
/// assert_eq!(int_decimal_work(&BigInt::from(7u32)), 0);
/// let n = BigInt::from(10u32).pow(4299); // 4300 digits; 14,281 bits say 4,299 at least
/// assert_eq!(int_decimal_work(&n), 4299 * 4299 / 1024);
/// npy_pickle::int_decimal(&n).unwrap();
/// assert_eq!(int_decimal_work(&n), 0); // its text is kept: no conversion to pay for
/// ```
pub fn int_decimal_work(n: &BigInt) -> u64 {
    let digits = digits_at_least(n);
    if digits <= WORK_FREE_DIGITS || digits > MAX_INT_DIGITS as u64 || cached(n).is_some() {
        return 0;
    }
    digits * digits / 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache gives each int its own text: equal ints the text once made, unequal ones
    /// (alternating, or one digit apart) theirs, as num-bigint's `to_string` writes them.
    #[test]
    fn int_decimal_reuses_only_the_text_of_an_equal_int() {
        let a: BigInt = BigInt::from(7u32).pow(1200) - 1u32;
        let b: BigInt = -(&a);
        let c = BigInt::from(7u32).pow(1200);
        for n in [&a, &a, &b, &a, &c, &c, &b] {
            assert_eq!(int_decimal(n), Ok(n.to_string()));
        }
        // 10^4300 has 4301 digits, but its size says 4,300 at least: converted to find the
        // 4,301, and the refusal kept, so a second reference costs no conversion (the review's
        // `c_same_4301d_P_list_70k` converted it for each of 70,000 references).
        let limit = BigInt::from(10u32).pow(MAX_INT_DIGITS as u32);
        assert!(int_decimal_work(&limit) > 0);
        assert_eq!(int_decimal(&limit), Err(MAX_INT_DIGITS as u64 + 1));
        assert_eq!(int_decimal_work(&limit), 0);
        assert_eq!(int_decimal(&limit), Err(MAX_INT_DIGITS as u64 + 1));
        // 10^4300 - 1 has 4300 digits: converted.
        let nines: BigInt = &limit - 1u32;
        assert_eq!(int_decimal(&nines), Ok("9".repeat(MAX_INT_DIGITS)));
        assert_eq!(
            int_decimal(&-&nines),
            Ok(format!("-{}", "9".repeat(MAX_INT_DIGITS)))
        );
        // Far past the limit: refused from its size, nothing to charge.
        let huge = BigInt::from(10u32).pow(5000);
        assert_eq!(int_decimal_work(&huge), 0);
        assert!(int_decimal(&huge).is_err());
    }
}
