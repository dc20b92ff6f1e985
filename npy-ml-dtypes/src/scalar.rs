//! The one-byte element types of ml_dtypes' float8, float6, float4 and int4/int2 kinds: a code
//! byte each, valued by its [`MlType`].

use std::fmt;

use crate::MlType;

/// The one-byte ml_dtypes types: each struct (named as its [`MlType`]) with its docs.
macro_rules! one_byte {
    ($($(#[$doc:meta])* $name:ident;)*) => { $(
        $(#[$doc])*
        ///
        /// The value is its code byte ([`Self::to_bits`]), as ml_dtypes stores it; `==`
        /// compares codes (so a NaN equals itself and, where the kind has one, `-0` differs
        /// from `0`). `Display` prints what `str()` of the ml_dtypes scalar prints.
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// The element type's [`MlType`].
            pub const KIND: MlType = MlType::$name;

            /// The element whose code is `bits` (the bits above the kind's width are kept, and
            /// ignored by [`Self::to_f64`], as ml_dtypes ignores them).
            pub const fn from_bits(bits: u8) -> Self {
                $name(bits)
            }

            /// The element's code byte.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// The nearest element to `x` (ties to even), as ml_dtypes' `astype` rounds (see
            /// [`MlType::encode`]).
            pub fn from_f64(x: f64) -> Self {
                $name(MlType::$name.encode(x) as u8)
            }

            /// The nearest element to `x`, as [`Self::from_f64`].
            pub fn from_f32(x: f32) -> Self {
                Self::from_f64(f64::from(x))
            }

            /// The element's value, exactly.
            pub fn to_f64(self) -> f64 {
                MlType::$name.decode(u16::from(self.0))
            }

            /// The element's value, exactly (every value of these kinds is an `f32`).
            pub fn to_f32(self) -> f32 {
                self.to_f64() as f32
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&MlType::$name.format_code(u16::from(self.0)))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({self})", stringify!($name))
            }
        }

    )* };
}

one_byte! {
    /// ml_dtypes' `float8_e4m3fn` (OCP FP8 E4M3): finite, max 448, NaN `0x7f`/`0xff`.
    Float8E4M3Fn;
    /// ml_dtypes' `float8_e5m2` (OCP FP8 E5M2): IEEE-like, max 57344; numpy writes its descr
    /// as `'<f1'`.
    Float8E5M2;
    /// ml_dtypes' `float8_e4m3fnuz`: bias 8, no infinities, no negative zero, NaN `0x80`.
    Float8E4M3FnUz;
    /// ml_dtypes' `float8_e5m2fnuz`: bias 16, no infinities, no negative zero, NaN `0x80`.
    Float8E5M2FnUz;
    /// ml_dtypes' `float8_e4m3b11fnuz`: bias 11, no infinities, no negative zero, NaN `0x80`.
    Float8E4M3B11FnUz;
    /// ml_dtypes' `float8_e4m3`: IEEE-like E4M3 with infinities.
    Float8E4M3;
    /// ml_dtypes' `float8_e3m4`: IEEE-like E3M4 with infinities.
    Float8E3M4;
    /// ml_dtypes' `float8_e8m0fnu` (OCP MX scale): unsigned powers of two, NaN `0xff`.
    Float8E8M0Fnu;
    /// ml_dtypes' `float6_e2m3fn` (OCP MX FP6), in the low 6 bits.
    Float6E2M3Fn;
    /// ml_dtypes' `float6_e3m2fn` (OCP MX FP6), in the low 6 bits.
    Float6E3M2Fn;
    /// ml_dtypes' `float4_e2m1fn` (OCP MX FP4), in the low 4 bits: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    Float4E2M1Fn;
    /// ml_dtypes' `int4`: -8..=7 in the low 4 bits (two's complement).
    Int4;
    /// ml_dtypes' `uint4`: 0..=15 in the low 4 bits.
    UInt4;
    /// ml_dtypes' `int2`: -2..=1 in the low 2 bits (two's complement).
    Int2;
    /// ml_dtypes' `uint2`: 0..=3 in the low 2 bits.
    UInt2;
}
