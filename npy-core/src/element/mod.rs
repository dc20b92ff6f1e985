//! [`NpyElement`]: Rust types that map to a dtype. The file's dtype is checked once per array
//! ([`NpyElement::plan`]); the per-element work ([`NpyElement::read`], [`NpyElement::write`]) is
//! monomorphised and branch-free in the common case. A plain-data type
//! ([`NpyElement::pod_layout`]) reads with one `read_exact` into the output, then an in-place byte
//! swap when only the order differs. The per-type impls (numbers, `[T; N]`, strings, datetimes,
//! ml_dtypes) live beside this, all decoding through the crate's one scalar codec.

use std::fmt;

use crate::dtype::{ByteOrder, DType};
use crate::error::{Error, ErrorKind, Requested};

mod array;
mod ml;
mod number;
mod string;
mod time;
mod time_convert;
mod time_text;
mod widen;

pub use ml::{
    Float4E2M1Fn, Float6E2M3Fn, Float6E3M2Fn, Float8E3M4, Float8E4M3, Float8E4M3B11FnUz,
    Float8E4M3Fn, Float8E4M3FnUz, Float8E5M2, Float8E5M2FnUz, Float8E8M0Fnu, Int2, Int4, UInt2,
    UInt4,
};
pub use time::{units, Datetime64, Timedelta64, Unit, NAT};
pub(crate) use widen::widening;
pub use widen::Widening;

/// A Rust type that is the element of a `.npy` array: it can be read from and written to the
/// bytes of a dtype.
///
/// Implemented for `bool`, `i8`–`i64`, `u8`–`u64`, `f32`, `f64`, [`half::f16`], [`half::bf16`]
/// and the other ml_dtypes types ([`Float8E4M3Fn`], [`Float8E5M2`], [`Int4`], …; a `'<V2'` /
/// `'<V1'` file reads as the one requested), [`num_complex::Complex<f32>`] / `Complex<f64>`,
/// `[T; N]` (a subarray of `T`), `Vec<u8>` (bytes, `S`), `String` (UCS-4 strings, `U`),
/// [`Datetime64`] and [`Timedelta64`]; for a user's records by `#[derive(NpyElement)]` (feature
/// `derive`), whose code uses the hidden conversion machinery (plan, element and bulk codecs,
/// plain-data layout): not a stable interface, as serde's private items for `serde_derive`.
///
/// Reading is exact by default: the file's dtype must be the type's dtype in either byte order
/// (an `i4` file reads as `i64` only with [`Casting::Safe`](crate::read::Casting::Safe)), and
/// `bool` reads any non-zero byte as `true`, as numpy does (unless
/// [`ReadOptions::strict_bools`](crate::ReadOptions::strict_bools)).
pub trait NpyElement: Sized {
    /// What converting elements needs to know of the file's dtype (byte order, string width,
    /// field offsets...), built once per array by `NpyElement::plan`.
    #[doc(hidden)]
    type Plan: Clone + fmt::Debug;

    /// The dtype numpy writes for this type, in the machine's byte order (`'<c8'` for
    /// `Complex<f32>` on a little-endian machine). Variable-width types (`String`, `Vec<u8>`)
    /// give their zero-width dtype; writers size them with [`NpyElement::dtype_for`].
    fn npy_dtype() -> DType;

    /// The dtype to write `values` with: [`NpyElement::npy_dtype`] unless the type's width
    /// depends on the values (strings take the longest).
    fn dtype_for(values: &[Self]) -> DType {
        let _ = values;
        Self::npy_dtype()
    }

    /// The Rust type's name for error messages (`"Complex<f64>"`).
    fn rust_name() -> String;

    /// Checks that elements of `dtype` convert to and from `Self`, and prepares the conversion.
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`] naming the file's dtype and the Rust type.
    #[doc(hidden)]
    fn plan(dtype: &DType) -> Result<Self::Plan, Error>;

    /// Decodes one element from `src` (`src.len()` is the dtype's itemsize).
    ///
    /// # Errors
    /// Values the type cannot hold: [`ErrorKind::InvalidUnicode`].
    #[doc(hidden)]
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error>;

    /// Decodes the whole elements of `src`, `itemsize` bytes each (the dtype's, not 0; a
    /// trailing part is ignored), in order, handing each to `put`. The readers call it once per
    /// chunk (64 KiB), so a type resolves its plan once per chunk and decodes in a tight loop;
    /// the default calls [`NpyElement::read`] for each, `#[derive(NpyElement)]` overrides it.
    ///
    /// # Errors
    /// As [`NpyElement::read`]; the elements before the failing one have been handed to `put`.
    #[doc(hidden)]
    #[inline]
    fn read_each(
        plan: &Self::Plan,
        src: &[u8],
        itemsize: usize,
        mut put: impl FnMut(Self),
    ) -> Result<(), Error> {
        for element in src.chunks_exact(itemsize) {
            put(Self::read(plan, element)?);
        }
        Ok(())
    }

    /// Encodes one element into `dst` (`dst.len()` is the dtype's itemsize).
    ///
    /// # Errors
    /// [`ErrorKind::ValueTooLong`] for a string wider than the dtype.
    #[doc(hidden)]
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error>;

    /// How to read `dtype`, not the type's own, as `Self` where numpy casts it safely
    /// (`np.can_cast(dtype, npy_dtype, 'safe')`), for reads with
    /// [`Casting::Safe`](crate::read::Casting::Safe). `None`, the default, for types that do
    /// not widen (all but `bool`, the integers, floats and complex numbers).
    #[doc(hidden)]
    fn widening(dtype: &DType) -> Option<Widening<Self>> {
        let _ = dtype;
        None
    }

    /// `Some` when `[Self]` in memory is exactly the array bytes of [`NpyElement::npy_dtype`]
    /// in the machine's byte order, so arrays are read, written and viewed in bulk.
    #[doc(hidden)]
    fn pod_layout() -> Option<PodLayout<Self>> {
        None
    }
}

/// Proof that `[T]` in memory is the bytes of `T`'s dtype, with the casts that use it. Only a
/// `bytemuck::Pod` type can build one, so a type cannot claim a layout its memory lacks.
pub struct PodLayout<T> {
    swap_unit: usize,
    as_bytes: fn(&[T]) -> &[u8],
    as_bytes_mut: fn(&mut [T]) -> &mut [u8],
    zeroed_vec: fn(usize) -> Vec<T>,
}

impl<T: bytemuck::Pod> PodLayout<T> {
    /// The layout of a type whose byte swap reverses each `unit`-byte scalar (4 for
    /// `Complex<f32>`): data of the other byte order goes in bulk too, with one in-place swap.
    pub fn swapping(unit: usize) -> Self {
        PodLayout {
            swap_unit: unit.max(1),
            as_bytes: bytemuck::cast_slice::<T, u8>,
            as_bytes_mut: bytemuck::cast_slice_mut::<T, u8>,
            zeroed_vec: bytemuck::zeroed_vec::<T>,
        }
    }

    /// The layout of a type with no single swap unit (a `#[npy(pod)]` record of mixed scalar
    /// sizes): only the machine's byte order goes in bulk, the other element by element.
    pub fn native_only() -> Self {
        PodLayout {
            swap_unit: 0,
            ..PodLayout::swapping(1)
        }
    }
}

impl<T> PodLayout<T> {
    /// The scalar size a byte swap reverses; 0 when only the native order goes in bulk.
    pub fn swap_unit(&self) -> usize {
        self.swap_unit
    }

    /// The elements' memory as bytes.
    pub fn as_bytes<'a>(&self, values: &'a [T]) -> &'a [u8] {
        (self.as_bytes)(values)
    }

    /// The elements' memory as mutable bytes (every byte pattern is a valid value).
    pub fn as_bytes_mut<'a>(&self, values: &'a mut [T]) -> &'a mut [u8] {
        (self.as_bytes_mut)(values)
    }

    /// `n` zeroed elements, allocated zeroed (pages are touched only when data is read in).
    pub fn zeroed_vec(&self, n: usize) -> Vec<T> {
        (self.zeroed_vec)(n)
    }
}

impl<T> fmt::Debug for PodLayout<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PodLayout")
            .field("swap_unit", &self.swap_unit)
            .finish_non_exhaustive()
    }
}

/// `Clone` and `Copy` whatever `T` is (a derive would ask `T: Copy`): the types hold only
/// `fn` pointers and plain values.
macro_rules! copy_for_any_t {
    ($($name:ident),*) => {$(
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
    )*};
}

copy_for_any_t!(PodLayout, Bulk, Widening);

/// How a file's dtype relates to an element type's memory layout.
#[derive(Debug)]
pub(crate) enum Bulk<T> {
    /// The bytes are the values.
    Native(PodLayout<T>),
    /// The bytes are the values with each `swap_unit`-byte scalar reversed.
    Swapped(PodLayout<T>),
    /// Per-element conversion.
    No,
}

/// How elements of `dtype` read into (and write from) `[T]`.
pub(crate) fn bulk_kind<T: NpyElement>(dtype: &DType) -> Bulk<T> {
    let Some(layout) = T::pod_layout() else {
        return Bulk::No;
    };
    let native = T::npy_dtype();
    // A `|Vn` file of an ml_dtypes type's size is what numpy writes for it: the type is the hint.
    let ml_void = matches!((dtype, &native), (DType::Void(n), DType::Ml(t)) if *n == t.itemsize());
    if *dtype == native || ml_void {
        Bulk::Native(layout)
    } else if layout.swap_unit() != 0 && dtype.with_byte_order(ByteOrder::NATIVE) == native {
        Bulk::Swapped(layout)
    } else {
        Bulk::No
    }
}

/// [`ErrorKind::TypeMismatch`] for reading `dtype` as `T`.
#[cold]
pub(crate) fn mismatch<T: NpyElement>(dtype: &DType) -> Error {
    Error::new(ErrorKind::TypeMismatch {
        file: dtype.clone(),
        requested: Box::new(requested::<T>()),
        safe_cast: false,
    })
}

/// `T` and its own dtype, as errors name a Rust type.
pub(crate) fn requested<T: NpyElement>() -> Requested {
    Requested::rust(T::rust_name(), T::npy_dtype())
}
