//! Widening reads: a file's number dtype read as a wider number type, where numpy's
//! `np.can_cast(file, type, 'safe')` holds ([`Casting::Safe`](crate::read::Casting::Safe)).
//!
//! The table below is numpy 2.4.6's; `fixtures/parity/casting.json` holds `np.can_cast` over
//! every pair of the number dtypes and `casting_values.json` the `astype` results, and a test
//! checks both ways that the pairs allowed here are exactly numpy's and the values its values.

use std::fmt;

use half::f16;
use num_complex::Complex;

use crate::codec::{decode_bool, Endian, Scalar};
use crate::dtype::{DType, Primitive};

/// How to read one element of a narrower number dtype as `T` (see
/// [`NpyElement::widening`](super::NpyElement::widening)).
pub struct Widening<T> {
    from: Primitive,
    endian: Endian,
    convert: fn(&[u8], Endian) -> T,
}

impl<T> Widening<T> {
    /// The file's element type being widened.
    pub fn from(&self) -> Primitive {
        self.from
    }

    /// The value of one element (`src` is exactly the file dtype's itemsize bytes), as numpy's
    /// `astype` gives it.
    #[inline]
    pub fn read(&self, src: &[u8]) -> T {
        (self.convert)(src, self.endian)
    }
}

impl<T> fmt::Debug for Widening<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Widening")
            .field("from", &self.from)
            .field("endian", &self.endian)
            .finish_non_exhaustive()
    }
}

/// A number type that numpy casts narrower numbers to safely.
pub(crate) trait WidenTo: Sized {
    /// The conversion from `from`, when numpy's safe casting allows it and `from` is not the
    /// type's own dtype.
    fn converter(from: Primitive) -> Option<fn(&[u8], Endian) -> Self>;
}

/// The widening of `dtype` to `T`, if `dtype` is a number dtype numpy casts to `T` safely.
pub(crate) fn widening<T: WidenTo>(dtype: &DType) -> Option<Widening<T>> {
    let DType::Number(from, order) = dtype else {
        return None;
    };
    Some(Widening {
        from: *from,
        endian: Endian::of(*order),
        convert: T::converter(*from)?,
    })
}

fn via<S: Scalar, T: From<S>>(src: &[u8], e: Endian) -> T {
    T::from(S::decode(src, e))
}

fn via_bool<T: From<bool>>(src: &[u8], _: Endian) -> T {
    T::from(decode_bool(src[0]))
}

fn bool_to_f16(src: &[u8], _: Endian) -> f16 {
    f16::from(u8::from(decode_bool(src[0])))
}

/// numpy's int64 and uint64 to float64 casts: the nearest `f64` (ties to even), as `as` does.
fn i64_to_f64(src: &[u8], e: Endian) -> f64 {
    i64::decode(src, e) as f64
}

fn u64_to_f64(src: &[u8], e: Endian) -> f64 {
    u64::decode(src, e) as f64
}

fn c64_to_c128(src: &[u8], e: Endian) -> Complex<f64> {
    let c = Complex::<f32>::decode(src, e);
    Complex::new(f64::from(c.re), f64::from(c.im))
}

/// `target: source => conversion, ...`: the sources numpy casts to `target` safely.
macro_rules! widen_to {
    ($($t:ty: $($from:ident => $f:expr),*;)*) => {$(
        impl WidenTo for $t {
            fn converter(from: Primitive) -> Option<fn(&[u8], Endian) -> Self> {
                use Primitive::*;
                let f: fn(&[u8], Endian) -> Self = match from {
                    $($from => $f,)*
                    _ => return None,
                };
                Some(f)
            }
        }
    )*};
}

/// A complex target from a real source: the real part converted, the imaginary part zero.
macro_rules! to_complex {
    ($f:ty, $real:expr) => {{
        fn convert(src: &[u8], e: Endian) -> Complex<$f> {
            Complex::new($real(src, e), <$f>::default())
        }
        convert
    }};
}

widen_to! {
    i8: Bool => via_bool::<i8>;
    u8: Bool => via_bool::<u8>;
    i16: Bool => via_bool::<i16>, I8 => via::<i8, i16>, U8 => via::<u8, i16>;
    i32: Bool => via_bool::<i32>, I8 => via::<i8, i32>, I16 => via::<i16, i32>,
        U8 => via::<u8, i32>, U16 => via::<u16, i32>;
    i64: Bool => via_bool::<i64>, I8 => via::<i8, i64>, I16 => via::<i16, i64>,
        I32 => via::<i32, i64>, U8 => via::<u8, i64>, U16 => via::<u16, i64>,
        U32 => via::<u32, i64>;
    u16: Bool => via_bool::<u16>, U8 => via::<u8, u16>;
    u32: Bool => via_bool::<u32>, U8 => via::<u8, u32>, U16 => via::<u16, u32>;
    u64: Bool => via_bool::<u64>, U8 => via::<u8, u64>, U16 => via::<u16, u64>,
        U32 => via::<u32, u64>;
    f16: Bool => bool_to_f16, I8 => via::<i8, f16>, U8 => via::<u8, f16>;
    f32: Bool => via_bool::<f32>, I8 => via::<i8, f32>, I16 => via::<i16, f32>,
        U8 => via::<u8, f32>, U16 => via::<u16, f32>, F16 => via::<f16, f32>;
    f64: Bool => via_bool::<f64>, I8 => via::<i8, f64>, I16 => via::<i16, f64>,
        I32 => via::<i32, f64>, I64 => i64_to_f64, U8 => via::<u8, f64>,
        U16 => via::<u16, f64>, U32 => via::<u32, f64>, U64 => u64_to_f64,
        F16 => via::<f16, f64>, F32 => via::<f32, f64>;
    Complex<f32>: Bool => to_complex!(f32, via_bool::<f32>),
        I8 => to_complex!(f32, via::<i8, f32>), I16 => to_complex!(f32, via::<i16, f32>),
        U8 => to_complex!(f32, via::<u8, f32>), U16 => to_complex!(f32, via::<u16, f32>),
        F16 => to_complex!(f32, via::<f16, f32>), F32 => to_complex!(f32, via::<f32, f32>);
    Complex<f64>: Bool => to_complex!(f64, via_bool::<f64>),
        I8 => to_complex!(f64, via::<i8, f64>), I16 => to_complex!(f64, via::<i16, f64>),
        I32 => to_complex!(f64, via::<i32, f64>), I64 => to_complex!(f64, i64_to_f64),
        U8 => to_complex!(f64, via::<u8, f64>), U16 => to_complex!(f64, via::<u16, f64>),
        U32 => to_complex!(f64, via::<u32, f64>), U64 => to_complex!(f64, u64_to_f64),
        F16 => to_complex!(f64, via::<f16, f64>), F32 => to_complex!(f64, via::<f32, f64>),
        F64 => to_complex!(f64, via::<f64, f64>), C64 => c64_to_c128;
}
