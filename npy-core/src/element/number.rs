//! Numbers, complex numbers and `bool`: fixed-size scalars in either byte order.

use half::f16;
use num_complex::Complex;

use super::{mismatch, widening, NpyElement, PodLayout, Widening};
use crate::codec::{decode_bool, Endian, Scalar};
use crate::dtype::{DType, Primitive};
use crate::error::Error;

/// The byte order of `dtype` when it is `want` in either order; the mismatch error for `T`
/// otherwise.
fn plan<T: NpyElement>(dtype: &DType, want: Primitive) -> Result<Endian, Error> {
    match dtype {
        DType::Number(p, o) if *p == want => Ok(Endian::of(*o)),
        _ => Err(mismatch::<T>(dtype)),
    }
}

/// A number type: its dtype's primitive, its name, and the scalar size a byte swap reverses.
macro_rules! number {
    ($t:ty, $prim:ident, $name:literal, $unit:expr) => {
        impl NpyElement for $t {
            type Plan = Endian;
            fn npy_dtype() -> DType {
                DType::native_number(Primitive::$prim)
            }
            fn rust_name() -> String {
                $name.to_owned()
            }
            fn plan(dtype: &DType) -> Result<Endian, Error> {
                plan::<Self>(dtype, Primitive::$prim)
            }
            #[inline]
            fn read(plan: &Endian, src: &[u8]) -> Result<Self, Error> {
                Ok(<$t as Scalar>::decode(src, *plan))
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                Scalar::encode(*self, dst, *plan);
                Ok(())
            }
            fn pod_layout() -> Option<PodLayout<Self>> {
                Some(PodLayout::swapping($unit))
            }
            fn widening(dtype: &DType) -> Option<Widening<Self>> {
                widening::<Self>(dtype)
            }
        }
    };
}

number!(i8, I8, "i8", 1);
number!(i16, I16, "i16", 2);
number!(i32, I32, "i32", 4);
number!(i64, I64, "i64", 8);
number!(u8, U8, "u8", 1);
number!(u16, U16, "u16", 2);
number!(u32, U32, "u32", 4);
number!(u64, U64, "u64", 8);
number!(f16, F16, "f16", 2);
number!(f32, F32, "f32", 4);
number!(f64, F64, "f64", 8);
// Complex numbers swap each part on its own.
number!(Complex<f32>, C64, "Complex<f32>", 4);
number!(Complex<f64>, C128, "Complex<f64>", 8);

/// `b1`: one byte; any non-zero byte reads as `true`, as numpy reads it (the strict check of
/// [`ReadOptions::strict_bools`](crate::ReadOptions::strict_bools) refuses bytes other than 0
/// and 1). No pod layout: not every byte is a `bool` in memory, so reads decode each one.
impl NpyElement for bool {
    type Plan = ();
    fn npy_dtype() -> DType {
        DType::native_number(Primitive::Bool)
    }
    fn rust_name() -> String {
        "bool".to_owned()
    }
    fn plan(dtype: &DType) -> Result<(), Error> {
        plan::<Self>(dtype, Primitive::Bool).map(drop)
    }
    #[inline]
    fn read((): &(), src: &[u8]) -> Result<Self, Error> {
        Ok(decode_bool(src[0]))
    }
    #[inline]
    fn write(&self, (): &(), dst: &mut [u8]) -> Result<(), Error> {
        dst[0] = u8::from(*self);
        Ok(())
    }
}
