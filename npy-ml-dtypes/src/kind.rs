//! [`MlType`]: the table of ml_dtypes' kinds, and their encodings (each variant's doc).

use std::fmt;

/// ml_dtypes' types, one row per type (`Type = "name", bits, encoding`): declares [`MlType`]
/// and its [`ALL`](MlType::ALL), [`name`](MlType::name), [`bits`](MlType::bits) and `encoding`.
macro_rules! ml_types {
    ($($(#[$doc:meta])* $t:ident = $name:literal, $bits:literal, $enc:expr;)*) => {
        /// An `ml_dtypes` element type: what a `'<V2'`, `'<V1'` or `'<f1'` descr written by
        /// numpy with ml_dtypes holds.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum MlType {
            $($(#[$doc])* $t,)*
        }

        impl MlType {
            /// Every type, in ml_dtypes' order.
            pub const ALL: [MlType; 16] = [$(MlType::$t),*];

            /// ml_dtypes' name (`"bfloat16"`, `"float8_e4m3fn"`, `"int4"`), as `str(arr.dtype)`
            /// prints it.
            pub fn name(self) -> &'static str {
                match self {
                    $(MlType::$t => $name,)*
                }
            }

            /// The number of value bits in an element (16, 8, 6, 4 or 2).
            pub fn bits(self) -> u32 {
                match self {
                    $(MlType::$t => $bits,)*
                }
            }

            /// How the kind's bits encode its values (a total table: no kind lacks a layout).
            fn encoding(self) -> Encoding {
                use Specials::*;
                match self {
                    $(MlType::$t => $enc,)*
                }
            }
        }
    };
}

ml_types! {
    /// `bfloat16`: the high half of an IEEE binary32 (8 exponent bits, 7 mantissa bits); 2 bytes.
    BFloat16 = "bfloat16", 16, float(8, 7, 127, Ieee);
    /// `float8_e4m3fn` (OCP FP8 E4M3): bias 7, no infinities, NaN `S.1111.111`; max 448.
    Float8E4M3Fn = "float8_e4m3fn", 8, float(4, 3, 7, Fn);
    /// `float8_e5m2` (OCP FP8 E5M2): IEEE-like, bias 15, with infinities and NaNs; max 57344.
    Float8E5M2 = "float8_e5m2", 8, float(5, 2, 15, Ieee);
    /// `float8_e4m3fnuz`: bias 8, no infinities, no negative zero, NaN `0x80`.
    Float8E4M3FnUz = "float8_e4m3fnuz", 8, float(4, 3, 8, FnUz);
    /// `float8_e5m2fnuz`: bias 16, no infinities, no negative zero, NaN `0x80`.
    Float8E5M2FnUz = "float8_e5m2fnuz", 8, float(5, 2, 16, FnUz);
    /// `float8_e4m3b11fnuz`: bias 11, no infinities, no negative zero, NaN `0x80`.
    Float8E4M3B11FnUz = "float8_e4m3b11fnuz", 8, float(4, 3, 11, FnUz);
    /// `float8_e4m3`: IEEE-like E4M3, bias 7, with infinities and NaNs.
    Float8E4M3 = "float8_e4m3", 8, float(4, 3, 7, Ieee);
    /// `float8_e3m4`: IEEE-like E3M4, bias 3, with infinities and NaNs.
    Float8E3M4 = "float8_e3m4", 8, float(3, 4, 3, Ieee);
    /// `float8_e8m0fnu` (OCP MX scale): unsigned powers of two `2^(c - 127)`, no zero, NaN `0xff`.
    Float8E8M0Fnu = "float8_e8m0fnu", 8, Encoding::E8M0;
    /// `float6_e2m3fn` (OCP MX FP6): bias 1, finite only, in the low 6 bits of a byte.
    Float6E2M3Fn = "float6_e2m3fn", 6, float(2, 3, 1, Finite);
    /// `float6_e3m2fn` (OCP MX FP6): bias 3, finite only, in the low 6 bits of a byte.
    Float6E3M2Fn = "float6_e3m2fn", 6, float(3, 2, 3, Finite);
    /// `float4_e2m1fn` (OCP MX FP4): bias 1, finite only, in the low 4 bits of a byte.
    Float4E2M1Fn = "float4_e2m1fn", 4, float(2, 1, 1, Finite);
    /// `int4`: a two's-complement integer in -8..=7, in the low 4 bits of a byte.
    Int4 = "int4", 4, Encoding::Int { signed: true };
    /// `uint4`: an integer in 0..=15, in the low 4 bits of a byte.
    UInt4 = "uint4", 4, Encoding::Int { signed: false };
    /// `int2`: a two's-complement integer in -2..=1, in the low 2 bits of a byte.
    Int2 = "int2", 2, Encoding::Int { signed: true };
    /// `uint2`: an integer in 0..=3, in the low 2 bits of a byte.
    UInt2 = "uint2", 2, Encoding::Int { signed: false };
}

/// How a float kind spends its special codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Specials {
    /// IEEE: the top exponent holds infinities (mantissa 0) and NaNs.
    Ieee,
    /// `fn`: no infinities; the all-ones code of each sign is NaN.
    Fn,
    /// `fnuz`: no infinities, no negative zero; `1000…0` is the one NaN.
    FnUz,
    /// Finite only: no NaN, no infinities.
    Finite,
}

/// How an [`MlType`]'s bits encode its values ([`MlType::encoding`]).
#[derive(Debug, Clone, Copy)]
enum Encoding {
    /// Sign, exponent and mantissa bits.
    Float(Layout),
    /// `float8_e8m0fnu`: an unsigned exponent alone.
    E8M0,
    /// An integer in the low bits: two's complement when `signed`.
    Int { signed: bool },
}

/// The bit layout of a float kind.
#[derive(Debug, Clone, Copy)]
struct Layout {
    exp: u32,
    man: u32,
    bias: i32,
    specials: Specials,
}

/// [`Encoding::Float`] of `exp` exponent bits, `man` mantissa bits, `bias` and `specials`.
const fn float(exp: u32, man: u32, bias: i32, specials: Specials) -> Encoding {
    Encoding::Float(Layout {
        exp,
        man,
        bias,
        specials,
    })
}

impl MlType {
    /// The type named `name`: ml_dtypes' name (`bfloat16`, `float8_e4m3fn`, …,
    /// case-insensitive) or safetensors' (`BF16`, `F8_E4M3` for float8_e4m3fn, `F8_E5M2`).
    pub fn from_name(name: &str) -> Option<MlType> {
        let lower = name.to_ascii_lowercase();
        Some(match lower.as_str() {
            "bf16" => MlType::BFloat16,
            "f8_e4m3" => MlType::Float8E4M3Fn,
            "f8_e5m2" => MlType::Float8E5M2,
            _ => return MlType::ALL.into_iter().find(|t| t.name() == lower),
        })
    }

    /// Bytes per element: 2 for bfloat16, 1 for the others.
    pub fn itemsize(self) -> u64 {
        u64::from(self.bits().div_ceil(8))
    }

    /// Whether the type is one of the integer kinds.
    pub fn is_integer(self) -> bool {
        matches!(self.encoding(), Encoding::Int { .. })
    }

    /// numpy's `dtype.kind` for the type: `'f'` for float8_e5m2, `'V'` for the others.
    pub fn kind(self) -> char {
        match self {
            MlType::Float8E5M2 => 'f',
            _ => 'V',
        }
    }

    /// The descr `np.save` writes for the type on this machine: `'<V2'` for bfloat16, `'<f1'`
    /// for float8_e5m2, `'<V1'` for the others (`'>'` on a big-endian machine).
    pub fn type_str(self) -> String {
        let order = if cfg!(target_endian = "little") {
            '<'
        } else {
            '>'
        };
        format!("{order}{}{}", self.kind(), self.itemsize())
    }

    /// The value of the element whose bits are `code`, exactly as an `f64`; integer kinds give
    /// their integer value. Bits above a sub-byte kind's width are read as ml_dtypes reads them
    /// (measured): int4/int2/uint4/uint2 ignore them; for float6 and float4 any of them set
    /// makes the value negative (ml_dtypes takes the sign as "the bits above the magnitude").
    pub fn decode(self, code: u16) -> f64 {
        let bits = self.bits();
        let low = code & (u16::MAX >> (16 - bits));
        match self.encoding() {
            // bfloat16 is the high half of a binary32, which widens exactly.
            Encoding::Float(_) if self == MlType::BFloat16 => {
                f64::from(f32::from_bits(u32::from(code) << 16))
            }
            Encoding::Float(l) => decode_float(l, code & 0xff),
            Encoding::E8M0 if code == 0xff => f64::NAN,
            Encoding::E8M0 => pow2(i32::from(code) - 127),
            // Sign-extended from the top value bit.
            Encoding::Int { signed: true } => {
                f64::from(((low << (16 - bits)) as i16) >> (16 - bits))
            }
            Encoding::Int { signed: false } => f64::from(low),
        }
    }

    /// The code of the value nearest `x` (ties to even), as ml_dtypes' `astype` from float64
    /// rounds it: beyond the largest finite value, infinity where the kind has one, NaN where
    /// it has NaN but no infinity, the largest value (saturated) for the finite-only kinds
    /// (whose NaN is ml_dtypes' `-0`). Integer kinds truncate towards zero and give 0 out of
    /// range (NaN and infinities too), as ml_dtypes 0.7.0 casts (measured).
    pub fn encode(self, x: f64) -> u16 {
        match self.encoding() {
            Encoding::E8M0 => encode_e8m0(x),
            Encoding::Int { .. } => self.encode_int(x.trunc() as i64).map_or(0, u16::from),
            Encoding::Float(l) => encode_float(l, x),
        }
    }

    /// The code of the integer `v` for an integer kind, `None` when `v` is out of its range.
    pub fn encode_int(self, v: i64) -> Option<u8> {
        let (lo, hi) = match self {
            MlType::Int4 => (-8, 7),
            MlType::UInt4 => (0, 15),
            MlType::Int2 => (-2, 1),
            MlType::UInt2 => (0, 3),
            _ => return None,
        };
        (lo..=hi)
            .contains(&v)
            .then(|| (v as u8) & ((1u8 << self.bits()) - 1))
    }

    /// What `str()` of the ml_dtypes scalar whose bits are `code` prints (so numpy's element,
    /// unpadded): integer kinds the integer, floats C's `%g` of the value (ml_dtypes' C++
    /// stream: 6 significant digits, trailing zeros dropped, `e+XX` exponents outside
    /// 1e-4..1e6, `nan` whatever the sign, `inf`, `-inf`).
    pub fn format_code(self, code: u16) -> String {
        self.format_value(self.decode(code))
    }

    /// What `str()` of the ml_dtypes scalar of value `v` prints (see [`MlType::format_code`];
    /// `v` is one of the type's values, as [`MlType::decode`] gives it).
    pub fn format_value(self, v: f64) -> String {
        if self.is_integer() {
            return format!("{}", v as i64);
        }
        format_g(v)
    }
}

/// C's `printf("%g", v)`: 6 significant digits, the shorter of fixed and exponent forms as C
/// chooses them, trailing zeros removed.
fn format_g(v: f64) -> String {
    const P: i32 = 6;
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() {
        // ml_dtypes prints every NaN as `nan`, whatever its sign (measured).
        return "nan".to_owned();
    }
    if v.is_infinite() {
        return format!("{sign}inf");
    }
    if v == 0.0 {
        return format!("{sign}0");
    }
    // C's rule: the exponent of the value rounded to P significant digits decides the form,
    // fixed with P - 1 - exponent decimals from 1e-4 up to 10^P, else `d.ddddde±XX`.
    let sci = format!("{:.*e}", (P - 1) as usize, v.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` writes an integer exponent");
    let trim = |s: &str| s.trim_end_matches('0').trim_end_matches('.').to_owned();
    if (-4..P).contains(&exp) {
        let fixed = format!("{:.*}", (P - 1 - exp) as usize, v.abs());
        return format!(
            "{sign}{}",
            if fixed.contains('.') {
                trim(&fixed)
            } else {
                fixed
            }
        );
    }
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{}e{esign}{:02}", trim(mantissa), exp.unsigned_abs())
}

impl fmt::Display for MlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `2^e` for `e` in f64's normal range.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

fn decode_float(l: Layout, code: u16) -> f64 {
    let sign_bit = 1u16 << (l.exp + l.man);
    let magnitude = code & (sign_bit - 1);
    let sign = if code >= sign_bit { -1.0 } else { 1.0 };
    let exp_field = i32::from(magnitude >> l.man);
    let man_field = f64::from(magnitude & ((1u16 << l.man) - 1));
    let exp_max = (1i32 << l.exp) - 1;
    let scale = pow2(-(l.man as i32));
    let value = match l.specials {
        Specials::FnUz if code == sign_bit => return f64::NAN,
        Specials::Fn if magnitude == sign_bit - 1 => return f64::NAN,
        Specials::Ieee if exp_field == exp_max && man_field != 0.0 => return f64::NAN,
        Specials::Ieee if exp_field == exp_max => f64::INFINITY,
        _ if exp_field == 0 => man_field * scale * pow2(1 - l.bias),
        _ => (1.0 + man_field * scale) * pow2(exp_field - l.bias),
    };
    sign * value
}

fn encode_float(l: Layout, x: f64) -> u16 {
    let sign_bit = 1u16 << (l.exp + l.man);
    let exp_max = (1i32 << l.exp) - 1;
    let sign = if x.is_sign_negative() { sign_bit } else { 0 };
    let inf = (exp_max as u16) << l.man;
    // The largest finite code of the positive half, the code of NaN, the code beyond it.
    let (max_finite, nan, overflow) = match l.specials {
        Specials::Ieee => (inf - 1, inf | (1 << (l.man - 1)) | sign, inf | sign),
        Specials::Fn => (sign_bit - 2, (sign_bit - 1) | sign, (sign_bit - 1) | sign),
        Specials::FnUz => (sign_bit - 1, sign_bit, sign_bit),
        // No NaN: ml_dtypes 0.7.0 gives -0 for NaN and +0 for -NaN (measured,
        // fixtures/mltypes/encode.json); saturated beyond.
        Specials::Finite => (sign_bit - 1, sign_bit ^ sign, (sign_bit - 1) | sign),
    };
    if x.is_nan() {
        return nan;
    }
    let a = x.abs();
    if a.is_infinite() {
        return overflow;
    }
    // The codes of the positive half run up in value order, so the rounded code is the
    // subnormal quantum count below the smallest normal, and exponent·2^m + mantissa above it.
    let emin = 1 - l.bias;
    let code = if a < pow2(emin) {
        (a / pow2(emin - l.man as i32)).round_ties_even()
    } else {
        let e = exponent(a);
        let mantissa = (a / pow2(e) - 1.0) * pow2(l.man as i32);
        f64::from(e - emin + 1) * pow2(l.man as i32) + mantissa.round_ties_even()
    };
    if code > f64::from(max_finite) {
        return overflow;
    }
    let code = code as u16;
    if code == 0 && l.specials == Specials::FnUz {
        return 0; // no negative zero
    }
    code | sign
}

/// `floor(log2(a))` for a positive finite `a`.
fn exponent(a: f64) -> i32 {
    let bits = a.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    // An f64 subnormal is far below every kind's range: the caller treats it as tiny.
    if biased == 0 {
        -1075
    } else {
        biased - 1023
    }
}

fn encode_e8m0(x: f64) -> u16 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return 0xff;
    }
    let e = exponent(x);
    // Round to the nearest power of two (ties, 1.5·2^e, up), as ml_dtypes rounds the mantissa.
    let e = if x / pow2(e) >= 1.5 { e + 1 } else { e };
    match e + 127 {
        c if c < 0 => 0,
        c if c > 254 => 0xff,
        c => c as u16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in MlType::ALL {
            assert_eq!(MlType::from_name(t.name()), Some(t));
        }
        assert_eq!(MlType::from_name("BF16"), Some(MlType::BFloat16));
        assert_eq!(MlType::from_name("F8_E4M3"), Some(MlType::Float8E4M3Fn));
        assert_eq!(MlType::from_name("float9"), None);
    }

    #[test]
    fn percent_g() {
        // C's printf("%g") on these values.
        for (v, want) in [
            (0.333984375, "0.333984"),
            (100.0, "100"),
            (123392.0, "123392"),
            (1236992.0, "1.23699e+06"),
            (1.00117e-08, "1.00117e-08"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-1.5, "-1.5"),
            (-0.0, "-0"),
            (f64::NEG_INFINITY, "-inf"),
            (999999.5, "1e+06"),
        ] {
            assert_eq!(format_g(v), want, "{v}");
        }
    }

    #[test]
    fn format_rules() {
        // OCP FP8: E4M3 max 448, E5M2 max 57344, both from their bit layouts.
        assert_eq!(MlType::Float8E4M3Fn.decode(0x7e), 448.0);
        assert!(MlType::Float8E4M3Fn.decode(0x7f).is_nan());
        assert_eq!(MlType::Float8E5M2.decode(0x7b), 57344.0);
        assert_eq!(MlType::Float8E5M2.decode(0x7c), f64::INFINITY);
        // OCP MX FP4: 0b0111 is 6.0, 0b0001 the subnormal 0.5.
        assert_eq!(MlType::Float4E2M1Fn.decode(0x7), 6.0);
        assert_eq!(MlType::Float4E2M1Fn.decode(0x1), 0.5);
        assert_eq!(MlType::Int4.decode(0xf), -1.0);
        assert_eq!(MlType::Int4.encode_int(-8), Some(0x8));
        assert_eq!(MlType::Int4.encode_int(8), None);
    }
}
