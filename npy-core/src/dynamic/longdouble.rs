//! `longdouble` as numpy writes it on x86: the 80-bit extended format, rounded to `f64`.

use crate::codec::Endian;

/// A longdouble element (12 or 16 bytes, so at least the 10 of the x87 format) decoded as
/// x86 80-bit extended, rounded to `f64`.
pub(super) fn longdouble_to_f64(src: &[u8], endian: Endian) -> f64 {
    let mut ext = [0u8; 10];
    if endian.is_big() {
        // Big-endian: the value's low bytes are the slot's last ones, reversed.
        let rev = src.iter().rev();
        ext.iter_mut().zip(rev).for_each(|(d, s)| *d = *s);
    } else {
        // Zipped rather than sliced: a slot shorter than 10 bytes (no dtype the parser makes,
        // but `Primitive::LongDouble`'s size is a public field) leaves the rest zero.
        ext.iter_mut().zip(src).for_each(|(d, s)| *d = *s);
    }
    x87_to_f64(ext)
}

/// x86 80-bit extended precision (little-endian bytes: a 64-bit significand with an explicit
/// integer bit, then the 15-bit biased exponent and the sign) to the nearest `f64`, ties to
/// even, with the FPU's rules as [`DynValue::LongDouble`](super::DynValue::LongDouble) lists
/// them: exponent 0x7FFF is infinity when the significand is exactly the integer bit, else NaN;
/// an unnormal (exponent 1 to 0x7FFE without the integer bit) is NaN; exponent 0 (denormals,
/// and pseudo-denormals with the integer bit set) is taken at its face value
/// `significand × 2^(1 − 16383 − 63)`, as is every normal number.
pub(crate) fn x87_to_f64(b: [u8; 10]) -> f64 {
    let mant = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let se = u16::from_le_bytes([b[8], b[9]]);
    let sign = u64::from(se >> 15) << 63;
    let exp = i32::from(se & 0x7fff);
    let with_sign = |bits: u64| f64::from_bits(bits | sign);
    let inf = with_sign(f64::INFINITY.to_bits());
    if exp == 0x7fff {
        return if mant == 1 << 63 { inf } else { f64::NAN };
    }
    if exp != 0 && mant >> 63 == 0 {
        // An unnormal: an invalid operand to the FPU, which numpy prints as nan.
        return f64::NAN;
    }
    if mant == 0 {
        return with_sign(0);
    }
    let lz = mant.leading_zeros();
    // m is in [2^63, 2^64); value = m × 2^k = 1.f × 2^e with e = k + 63.
    let m = mant << lz;
    let k = exp.max(1) - 16383 - 63 - lz as i32;
    let e = k + 63;
    if e > 1023 {
        return inf;
    }
    if e >= -1022 {
        let mut r = round_shift(m, 11); // in [2^52, 2^53]
        let mut e = e;
        if r == 1 << 53 {
            r >>= 1;
            e += 1;
            if e > 1023 {
                return inf;
            }
        }
        let biased = (e + 1023) as u64;
        with_sign((biased << 52) | (r & ((1 << 52) - 1)))
    } else {
        // Subnormal: value = r × 2^-1074. A carry into 2^52 is the smallest normal, which the
        // same bits encode.
        let shift = (-1011 - e) as u32;
        with_sign(round_shift(m, shift))
    }
}

/// `m / 2^shift` rounded to nearest, ties to even.
fn round_shift(m: u64, shift: u32) -> u64 {
    match shift {
        0 => m,
        1..=63 => {
            let q = m >> shift;
            let rem = m & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            q + u64::from(rem > half || (rem == half && q & 1 == 1))
        }
        64 => u64::from(m > 1 << 63),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(mant: u64, se: u16) -> f64 {
        let mut b = [0u8; 10];
        b[..8].copy_from_slice(&mant.to_le_bytes());
        b[8..].copy_from_slice(&se.to_le_bytes());
        x87_to_f64(b)
    }

    #[test]
    fn x87_conversion() {
        assert_eq!(ext(1 << 63, 16383), 1.0);
        assert_eq!(ext(3 << 62, 16384 | 0x8000), -3.0);
        assert_eq!(ext(0, 0x8000).to_bits(), (-0.0f64).to_bits());
        assert_eq!(ext(1 << 63, 0x7fff), f64::INFINITY);
        assert_eq!(ext(1 << 63, 0xffff), f64::NEG_INFINITY);
        assert!(ext((1 << 63) | 1, 0x7fff).is_nan());
        // Too large / too small for f64.
        assert_eq!(ext(1 << 63, 16383 + 1024), f64::INFINITY);
        assert_eq!(ext(1 << 63, 16383 - 1080), 0.0);
        // Smallest f64 subnormal, and half of it (a tie, rounds to even: 0).
        assert_eq!(ext(1 << 63, 16383 - 1074), 5e-324);
        assert_eq!(ext(1 << 63, 16383 - 1075), 0.0);
        // Just above half of the smallest subnormal rounds up.
        assert_eq!(ext((1 << 63) | 1, 16383 - 1075), 5e-324);
        // Ties to even in the normal range: 1 + 2^-53 -> 1, 1 + 3·2^-53 -> 1 + 2^-51.
        assert_eq!(ext((1 << 63) | (1 << 10), 16383), 1.0);
        assert_eq!(ext((1 << 63) | (3 << 10), 16383), 1.0 + f64::EPSILON * 2.0);
        // Rounding carries into the next binade, and past the largest finite value.
        assert_eq!(ext(u64::MAX, 16383), 2.0);
        assert_eq!(ext(u64::MAX, 16383 + 1023), f64::INFINITY);
        // 1/3 in extended precision rounds to the f64 1/3.
        assert_eq!(ext(0xAAAA_AAAA_AAAA_AAAB, 16381), 1.0 / 3.0);
        // An x87 denormal (exponent 0) is far below f64's range.
        assert_eq!(ext(1, 0), 0.0);
    }

    #[test]
    fn round_shift_ties() {
        assert_eq!(round_shift(0b1010, 2), 0b10); // 2.5 -> 2
        assert_eq!(round_shift(0b1110, 2), 0b100); // 3.5 -> 4
        assert_eq!(round_shift(0b1011, 2), 0b11); // 2.75 -> 3
        assert_eq!(round_shift(u64::MAX, 64), 1);
        assert_eq!(round_shift(1 << 63, 64), 0);
        assert_eq!(round_shift(u64::MAX, 65), 0);
    }
}
