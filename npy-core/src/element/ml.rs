//! The `ml_dtypes` element types: [`half::bf16`], and npy-ml-dtypes' one-byte types for the
//! float8, float6, float4 and int4/int2 kinds ([`MlType`] has the encodings), re-exported here.
//!
//! numpy has no such types, so `np.save` of an `ml_dtypes` array writes a descr that loses the
//! type (measured with numpy 2.4.6 and ml_dtypes 0.7.0): bfloat16 is `'<V2'`, float8_e5m2 is
//! `'<f1'` (a descr numpy itself cannot load), every other kind is `'<V1'`. A typed read takes
//! the requested type as the hint: a `'<V2'` file reads as `bf16`, a `'<V1'` one as any
//! one-byte kind, a `'<f1'` one as [`Float8E5M2`]; a dynamic read takes
//! [`ReadOptions::hint`](crate::ReadOptions). Writes give the descr `np.save` writes for the
//! ml_dtypes array, byte for byte.

#![allow(
    clippy::doc_markdown,
    reason = "ml_dtypes' type names (float8_e4m3fn, int4, …) are written as ml_dtypes spells them"
)]

use half::bf16;
pub use npy_ml_dtypes::{
    Float4E2M1Fn, Float6E2M3Fn, Float6E3M2Fn, Float8E3M4, Float8E4M3, Float8E4M3B11FnUz,
    Float8E4M3Fn, Float8E4M3FnUz, Float8E5M2, Float8E5M2FnUz, Float8E8M0Fnu, Int2, Int4, UInt2,
    UInt4,
};

use super::{mismatch, NpyElement, PodLayout};
use crate::dtype::{DType, MlType};
use crate::error::Error;

/// `T`'s plan when a file of `dtype` holds elements of `t`: its own dtype, or `np.save`'s `|Vn`.
fn plan<T: NpyElement>(dtype: &DType, t: MlType) -> Result<(), Error> {
    match dtype {
        DType::Ml(d) if *d == t => Ok(()),
        DType::Void(n) if *n == t.itemsize() => Ok(()),
        _ => Err(mismatch::<T>(dtype)),
    }
}

/// `NpyElement` for the ml_dtypes type `$t` of kind `$kind`: its memory is its bytes as ml_dtypes
/// stores them (bfloat16 in the machine's byte order: its descr is `<V2` here), and a byte swap
/// reverses `$unit` bytes. The second arm takes the one-byte types, each named as its `MlType`
/// variant, unit 1.
macro_rules! ml_element {
    ($t:ident, $kind:ident, $unit:literal) => {
        impl NpyElement for $t {
            type Plan = ();
            fn npy_dtype() -> DType {
                DType::Ml(MlType::$kind)
            }
            fn rust_name() -> String {
                stringify!($t).to_owned()
            }
            fn plan(dtype: &DType) -> Result<(), Error> {
                plan::<Self>(dtype, MlType::$kind)
            }
            #[inline]
            fn read((): &(), src: &[u8]) -> Result<Self, Error> {
                Ok(bytemuck::pod_read_unaligned(src))
            }
            #[inline]
            fn write(&self, (): &(), dst: &mut [u8]) -> Result<(), Error> {
                dst.copy_from_slice(bytemuck::bytes_of(self));
                Ok(())
            }
            fn pod_layout() -> Option<PodLayout<Self>> {
                Some(PodLayout::swapping($unit))
            }
        }
    };
    ($($t:ident),*) => { $(ml_element!($t, $t, 1);)* };
}

ml_element!(bf16, BFloat16, 2);
ml_element! {
    Float8E4M3Fn, Float8E5M2, Float8E4M3FnUz, Float8E5M2FnUz, Float8E4M3B11FnUz, Float8E4M3,
    Float8E3M4, Float8E8M0Fnu, Float6E2M3Fn, Float6E3M2Fn, Float4E2M1Fn, Int4, UInt4, Int2, UInt2
}
