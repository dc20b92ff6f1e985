//! safetensors dtypes and their numpy counterparts.

use npy_core::{
    dtype::{MlType, Primitive},
    ByteOrder, DType,
};

/// A safetensors element type, in the order of the safetensors crate's `Dtype` enum (which
/// `save_file` sorts tensors by, largest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SafeDType {
    /// `BOOL`: numpy `b1`.
    Bool,
    /// `U8`
    U8,
    /// `I8`
    I8,
    /// `F8_E5M2`: ml_dtypes `float8_e5m2`.
    F8E5M2,
    /// `F8_E4M3`: ml_dtypes `float8_e4m3fn`.
    F8E4M3,
    /// `F8_E8M0`: ml_dtypes `float8_e8m0fnu`.
    F8E8M0,
    /// `F8_E4M3FNUZ`: ml_dtypes `float8_e4m3fnuz`.
    F8E4M3FnUz,
    /// `F8_E5M2FNUZ`: ml_dtypes `float8_e5m2fnuz`.
    F8E5M2FnUz,
    /// `I16`
    I16,
    /// `U16`
    U16,
    /// `F16`
    F16,
    /// `BF16`: ml_dtypes `bfloat16`.
    BF16,
    /// `I32`
    I32,
    /// `U32`
    U32,
    /// `F32`
    F32,
    /// `C64`: numpy complex64.
    C64,
    /// `F64`
    F64,
    /// `I64`
    I64,
    /// `U64`
    U64,
}

const ALL: [SafeDType; 19] = [
    SafeDType::Bool,
    SafeDType::U8,
    SafeDType::I8,
    SafeDType::F8E5M2,
    SafeDType::F8E4M3,
    SafeDType::F8E8M0,
    SafeDType::F8E4M3FnUz,
    SafeDType::F8E5M2FnUz,
    SafeDType::I16,
    SafeDType::U16,
    SafeDType::F16,
    SafeDType::BF16,
    SafeDType::I32,
    SafeDType::U32,
    SafeDType::F32,
    SafeDType::C64,
    SafeDType::F64,
    SafeDType::I64,
    SafeDType::U64,
];

impl SafeDType {
    /// The name in a header: `"F32"`, `"BF16"`, `"F8_E4M3"`.
    pub fn name(self) -> &'static str {
        use SafeDType::*;
        match self {
            Bool => "BOOL",
            U8 => "U8",
            I8 => "I8",
            F8E5M2 => "F8_E5M2",
            F8E4M3 => "F8_E4M3",
            F8E8M0 => "F8_E8M0",
            F8E4M3FnUz => "F8_E4M3FNUZ",
            F8E5M2FnUz => "F8_E5M2FNUZ",
            I16 => "I16",
            U16 => "U16",
            F16 => "F16",
            BF16 => "BF16",
            I32 => "I32",
            U32 => "U32",
            F32 => "F32",
            C64 => "C64",
            F64 => "F64",
            I64 => "I64",
            U64 => "U64",
        }
    }

    /// The dtype named `name` in a header (exact, as the safetensors crate matches it).
    pub fn from_name(name: &str) -> Option<SafeDType> {
        ALL.into_iter().find(|d| d.name() == name)
    }

    /// Bytes per element.
    pub fn itemsize(self) -> u64 {
        use SafeDType::*;
        match self {
            Bool | U8 | I8 | F8E5M2 | F8E4M3 | F8E8M0 | F8E4M3FnUz | F8E5M2FnUz => 1,
            I16 | U16 | F16 | BF16 => 2,
            I32 | U32 | F32 => 4,
            C64 | F64 | I64 | U64 => 8,
        }
    }

    /// The numpy dtype of the data (little-endian, as safetensors stores it).
    pub fn to_npy(self) -> DType {
        use SafeDType::*;
        let n = |p: Primitive| {
            let order = if p.itemsize() == 1 {
                ByteOrder::NotApplicable
            } else {
                ByteOrder::Little
            };
            DType::Number(p, order)
        };
        match self {
            Bool => n(Primitive::Bool),
            U8 => n(Primitive::U8),
            I8 => n(Primitive::I8),
            I16 => n(Primitive::I16),
            U16 => n(Primitive::U16),
            F16 => n(Primitive::F16),
            I32 => n(Primitive::I32),
            U32 => n(Primitive::U32),
            F32 => n(Primitive::F32),
            C64 => n(Primitive::C64),
            F64 => n(Primitive::F64),
            I64 => n(Primitive::I64),
            U64 => n(Primitive::U64),
            BF16 => DType::Ml(MlType::BFloat16),
            F8E5M2 => DType::Ml(MlType::Float8E5M2),
            F8E4M3 => DType::Ml(MlType::Float8E4M3Fn),
            F8E8M0 => DType::Ml(MlType::Float8E8M0Fnu),
            F8E4M3FnUz => DType::Ml(MlType::Float8E4M3FnUz),
            F8E5M2FnUz => DType::Ml(MlType::Float8E5M2FnUz),
        }
    }

    /// The safetensors dtype of a numpy dtype, in either byte order (the data is swapped to
    /// little-endian when written); `None` for what safetensors cannot hold (records, strings,
    /// objects, datetimes, longdouble, complex128, void without a hint, int4, …).
    pub fn from_npy(dtype: &DType) -> Option<SafeDType> {
        use SafeDType::*;
        Some(match dtype {
            DType::Number(p, _) => match p {
                Primitive::Bool => Bool,
                Primitive::U8 => U8,
                Primitive::I8 => I8,
                Primitive::I16 => I16,
                Primitive::U16 => U16,
                Primitive::F16 => F16,
                Primitive::I32 => I32,
                Primitive::U32 => U32,
                Primitive::F32 => F32,
                Primitive::C64 => C64,
                Primitive::F64 => F64,
                Primitive::I64 => I64,
                Primitive::U64 => U64,
                _ => return None,
            },
            DType::Ml(MlType::BFloat16) => BF16,
            DType::Ml(MlType::Float8E5M2) => F8E5M2,
            DType::Ml(MlType::Float8E4M3Fn) => F8E4M3,
            DType::Ml(MlType::Float8E8M0Fnu) => F8E8M0,
            DType::Ml(MlType::Float8E4M3FnUz) => F8E4M3FnUz,
            DType::Ml(MlType::Float8E5M2FnUz) => F8E5M2FnUz,
            _ => return None,
        })
    }
}
