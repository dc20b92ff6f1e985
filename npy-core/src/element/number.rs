//! Numbers, complex numbers and `bool`: fixed-size scalars in either byte order.

use half::f16;
use num_complex::Complex;

use super::{mismatch, NpyElement, PodLayout};
use crate::codec::{decode_bool, Endian, Scalar};
use crate::dtype::{ByteOrder, DType, Primitive};
use crate::error::Error;

macro_rules! number {
    ($t:ty, $prim:ident, $name:literal) => {
        impl NpyElement for $t {
            type Plan = Endian;
            fn npy_dtype() -> DType {
                let p = Primitive::$prim;
                let o = if p.itemsize() == 1 {
                    ByteOrder::NotApplicable
                } else {
                    ByteOrder::NATIVE
                };
                DType::Number(p, o)
            }
            fn rust_name() -> String {
                $name.to_owned()
            }
            fn plan(dtype: &DType) -> Result<Endian, Error> {
                match dtype {
                    DType::Number(Primitive::$prim, o) => Ok(Endian::of(*o)),
                    _ => Err(mismatch::<Self>(dtype)),
                }
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
                Some(PodLayout::swapping(std::mem::size_of::<$t>()))
            }
        }
    };
}

number!(i8, I8, "i8");
number!(i16, I16, "i16");
number!(i32, I32, "i32");
number!(i64, I64, "i64");
number!(u8, U8, "u8");
number!(u16, U16, "u16");
number!(u32, U32, "u32");
number!(u64, U64, "u64");
number!(f16, F16, "f16");
number!(f32, F32, "f32");
number!(f64, F64, "f64");

macro_rules! complex {
    ($f:ty, $prim:ident, $name:literal) => {
        impl NpyElement for Complex<$f> {
            type Plan = Endian;
            fn npy_dtype() -> DType {
                DType::Number(Primitive::$prim, ByteOrder::NATIVE)
            }
            fn rust_name() -> String {
                $name.to_owned()
            }
            fn plan(dtype: &DType) -> Result<Endian, Error> {
                match dtype {
                    DType::Number(Primitive::$prim, o) => Ok(Endian::of(*o)),
                    _ => Err(mismatch::<Self>(dtype)),
                }
            }
            #[inline]
            fn read(plan: &Endian, src: &[u8]) -> Result<Self, Error> {
                let (re, im) = src.split_at(<$f as Scalar>::SIZE);
                Ok(Complex::new(
                    <$f as Scalar>::decode(re, *plan),
                    <$f as Scalar>::decode(im, *plan),
                ))
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                let (re, im) = dst.split_at_mut(<$f as Scalar>::SIZE);
                self.re.encode(re, *plan);
                self.im.encode(im, *plan);
                Ok(())
            }
            fn pod_layout() -> Option<PodLayout<Self>> {
                Some(PodLayout::swapping(<$f as Scalar>::SIZE))
            }
        }
    };
}

complex!(f32, C64, "Complex<f32>");
complex!(f64, C128, "Complex<f64>");

/// `b1`: one byte, 0 or 1 (anything else is [`ErrorKind::InvalidBool`](crate::ErrorKind)).
/// No pod layout: not every byte is a `bool`, so reads check each one.
impl NpyElement for bool {
    type Plan = ();
    fn npy_dtype() -> DType {
        DType::Number(Primitive::Bool, ByteOrder::NotApplicable)
    }
    fn rust_name() -> String {
        "bool".to_owned()
    }
    fn plan(dtype: &DType) -> Result<(), Error> {
        match dtype {
            DType::Number(Primitive::Bool, _) => Ok(()),
            _ => Err(mismatch::<Self>(dtype)),
        }
    }
    #[inline]
    fn read(_: &(), src: &[u8]) -> Result<Self, Error> {
        decode_bool(src[0])
    }
    #[inline]
    fn write(&self, _: &(), dst: &mut [u8]) -> Result<(), Error> {
        dst[0] = u8::from(*self);
        Ok(())
    }
}
