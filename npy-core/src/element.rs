//! [`NpyElement`]: Rust types that map to a dtype, and the per-type read and write plans.
//!
//! A reader checks the file's dtype against the requested type once per array
//! ([`NpyElement::plan`]); the per-element work ([`NpyElement::read`], [`NpyElement::write`]) is
//! monomorphised and branch-free in the common case. Plain-data types also declare a bulk layout
//! ([`NpyElement::bulk_swap_unit`]): when the file's bytes have exactly the type's in-memory
//! layout the array is read with one `read_exact` into the output buffer, and when only the byte
//! order differs, with one read followed by an in-place byte swap.

use std::fmt;
use std::marker::PhantomData;

use half::f16;
use num_complex::Complex;

use crate::dtype::{ByteOrder, DType, Primitive, SubArray, TimeKind, TimeType, TimeUnit};
use crate::error::{Error, ErrorKind};

/// A Rust type that is the element of a `.npy` array.
///
/// Implemented for `bool`, `i8`–`i64`, `u8`–`u64`, `f32`, `f64`, [`half::f16`],
/// [`num_complex::Complex<f32>`] / `Complex<f64>`, `[T; N]` (a subarray of `T`), `Vec<u8>`
/// (bytes, `S`), `String` (UCS-4 strings, `U`), [`Datetime64`] and [`Timedelta64`]; and by
/// `#[derive(NpyElement)]` for records.
///
/// Reading is strict: the file's dtype must be the type's dtype in either byte order (an `i4`
/// file does not read as `i64`). `bool` accepts only the bytes 0 and 1 (numpy would read any
/// non-zero byte as `True`; here it is [`ErrorKind::InvalidBool`], so that corrupt data is noticed).
pub trait NpyElement: Sized {
    /// What the type needs to know about the file's dtype to convert elements (byte order,
    /// string width, field offsets...). Built once per array by [`NpyElement::plan`].
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
    fn plan(dtype: &DType) -> Result<Self::Plan, Error>;

    /// Decodes one element from `src` (`src.len()` is the dtype's itemsize).
    ///
    /// # Errors
    /// Values the type cannot hold: [`ErrorKind::InvalidBool`], [`ErrorKind::InvalidUnicode`].
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error>;

    /// Encodes one element into `dst` (`dst.len()` is the dtype's itemsize).
    ///
    /// # Errors
    /// [`ErrorKind::ValueTooLong`] for a string wider than the dtype.
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error>;

    /// `Some(unit)` when `[Self]` in memory is exactly the array bytes of [`NpyElement::npy_dtype`]
    /// (so it can be read and written in bulk) and a byte swap reverses each `unit`-byte chunk
    /// (the scalar size: 4 for `Complex<f32>`). `None` (the default) for other types.
    ///
    /// `Some(0)` means the layout has no single swap unit (a record of mixed scalar sizes,
    /// `#[npy(pod)]`): only a file whose dtype is exactly [`NpyElement::npy_dtype`], in the
    /// machine's byte order, is read and written in bulk; any other byte order is converted
    /// element by element.
    fn bulk_swap_unit() -> Option<usize> {
        None
    }

    /// The elements' memory as bytes, for types with a bulk layout.
    fn as_bytes(values: &[Self]) -> Option<&[u8]> {
        let _ = values;
        None
    }

    /// The elements' memory as mutable bytes, for types with a bulk layout (every byte pattern
    /// must be a valid value).
    fn as_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
        let _ = values;
        None
    }

    /// A vector of `n` zeroed elements, for types with a bulk layout (allocated zeroed, so the
    /// pages are only touched when the data is read into them).
    fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
        let _ = n;
        None
    }
}

/// How a file's dtype relates to a bulk type's memory layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bulk {
    /// The bytes are the values.
    Native,
    /// The bytes are the values with each `unit`-byte scalar reversed.
    Swapped(usize),
    /// Per-element conversion.
    No,
}

pub(crate) fn bulk_kind<T: NpyElement>(dtype: &DType) -> Bulk {
    let Some(unit) = T::bulk_swap_unit() else {
        return Bulk::No;
    };
    let native = T::npy_dtype();
    if *dtype == native {
        Bulk::Native
    } else if unit != 0 && dtype.with_byte_order(ByteOrder::NATIVE) == native {
        Bulk::Swapped(unit)
    } else {
        Bulk::No
    }
}

/// Reverses every `unit`-byte chunk of `bytes` in place.
pub(crate) fn swap_in_place(bytes: &mut [u8], unit: usize) {
    match unit {
        2 => swap_words::<u16>(bytes, u16::swap_bytes),
        4 => swap_words::<u32>(bytes, u32::swap_bytes),
        8 => swap_words::<u64>(bytes, u64::swap_bytes),
        _ => bytes
            .chunks_exact_mut(unit.max(1))
            .for_each(<[u8]>::reverse),
    }
}

fn swap_words<W: bytemuck::Pod>(bytes: &mut [u8], swap: fn(W) -> W) {
    // Aligned buffers (every Vec<T> of a bulk type) take the word-wise loop, which compiles to
    // vector shuffles; anything else the byte-wise one.
    match bytemuck::try_cast_slice_mut::<u8, W>(bytes) {
        Ok(words) => words.iter_mut().for_each(|w| *w = swap(*w)),
        Err(_) => bytes
            .chunks_exact_mut(std::mem::size_of::<W>())
            .for_each(<[u8]>::reverse),
    }
}

#[cold]
pub(crate) fn mismatch<T: NpyElement>(dtype: &DType) -> Error {
    let requested = T::npy_dtype();
    let requested = match requested {
        DType::Bytes(0) => "'|S'".to_owned(),
        DType::Unicode(0, _) => "'U'".to_owned(),
        d => format!("'{d}'"),
    };
    Error::new(ErrorKind::TypeMismatch {
        file: dtype.describe(),
        requested: format!("{} ({requested})", T::rust_name()),
    })
}

/// Byte order to decode a scalar with: `NotApplicable` (one-byte types) reads as native.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endian(pub(crate) bool);

impl Endian {
    fn of(o: ByteOrder) -> Endian {
        Endian(o == ByteOrder::Big)
    }
}

macro_rules! number {
    ($t:ty, $prim:ident, $name:literal, $unit:expr) => {
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
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(src);
                Ok(if plan.0 {
                    <$t>::from_be_bytes(b)
                } else {
                    <$t>::from_le_bytes(b)
                })
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                dst.copy_from_slice(&if plan.0 {
                    self.to_be_bytes()
                } else {
                    self.to_le_bytes()
                });
                Ok(())
            }
            fn bulk_swap_unit() -> Option<usize> {
                Some($unit)
            }
            fn as_bytes(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }
            fn as_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }
            fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
                Some(bytemuck::zeroed_vec(n))
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
                const N: usize = std::mem::size_of::<$f>();
                let re = <$f as NpyElement>::read(plan, &src[..N])?;
                let im = <$f as NpyElement>::read(plan, &src[N..])?;
                Ok(Complex::new(re, im))
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                const N: usize = std::mem::size_of::<$f>();
                self.re.write(plan, &mut dst[..N])?;
                self.im.write(plan, &mut dst[N..])
            }
            fn bulk_swap_unit() -> Option<usize> {
                Some(std::mem::size_of::<$f>())
            }
            fn as_bytes(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }
            fn as_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }
            fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
                Some(bytemuck::zeroed_vec(n))
            }
        }
    };
}

complex!(f32, C64, "Complex<f32>");
complex!(f64, C128, "Complex<f64>");

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
        match src[0] {
            0 => Ok(false),
            1 => Ok(true),
            byte => Err(Error::new(ErrorKind::InvalidBool { byte })),
        }
    }
    #[inline]
    fn write(&self, _: &(), dst: &mut [u8]) -> Result<(), Error> {
        dst[0] = u8::from(*self);
        Ok(())
    }
}

/// `[T; N]`: a subarray of `N` elements of `T` (`[[f32; 3]; 2]` is a `(2, 3)` subarray).
///
/// As a record field it is a subarray field. As the element of a whole array it is stored as
/// numpy stores such arrays: the base dtype with the subarray's dimensions appended to the
/// shape, so `write(path, &[[1i16, 2, 3], [4, 5, 6]], &[2])` writes a `'<i2'` array of shape
/// `(2, 3)`, and reading a C-order `(2, 3)` file as `[i16; 3]` gives 2 elements of shape `(2,)`.
impl<T: NpyElement, const N: usize> NpyElement for [T; N] {
    type Plan = (T::Plan, usize);
    fn npy_dtype() -> DType {
        let inner = T::npy_dtype();
        let (base, mut shape) = match inner {
            DType::SubArray(s) => (s.base().clone(), s.shape().to_vec()),
            d => (d, Vec::new()),
        };
        shape.insert(0, N as u64);
        match SubArray::new(base.clone(), shape) {
            Ok(s) => DType::SubArray(s),
            // Only for N == 0 nested in a zero-size base; fall back to the base itself.
            Err(_) => base,
        }
    }
    fn rust_name() -> String {
        format!("[{}; {N}]", T::rust_name())
    }
    fn plan(dtype: &DType) -> Result<Self::Plan, Error> {
        let DType::SubArray(s) = dtype else {
            return Err(mismatch::<Self>(dtype));
        };
        if s.shape().first() != Some(&(N as u64)) {
            return Err(mismatch::<Self>(dtype));
        }
        let inner = if s.shape().len() == 1 {
            s.base().clone()
        } else {
            DType::SubArray(SubArray::new(s.base().clone(), s.shape()[1..].to_vec())?)
        };
        let plan = T::plan(&inner).map_err(|_| mismatch::<Self>(dtype))?;
        let item = usize::try_from(inner.itemsize()).map_err(|_| mismatch::<Self>(dtype))?;
        Ok((plan, item))
    }
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error> {
        let mut out = Vec::with_capacity(N);
        for i in 0..N {
            out.push(T::read(&plan.0, &src[i * plan.1..(i + 1) * plan.1])?);
        }
        out.try_into().map_err(|_| {
            Error::new(ErrorKind::InvalidDescr {
                found: Self::rust_name(),
                reason: "subarray length".into(),
            })
        })
    }
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
        for (i, v) in self.iter().enumerate() {
            v.write(&plan.0, &mut dst[i * plan.1..(i + 1) * plan.1])?;
        }
        Ok(())
    }
}

/// `S` strings: bytes, NUL-padded in the file. Reading strips trailing NULs, as numpy's item
/// access does; writing pads with NULs.
impl NpyElement for Vec<u8> {
    type Plan = usize;
    fn npy_dtype() -> DType {
        DType::Bytes(0)
    }
    fn dtype_for(values: &[Self]) -> DType {
        DType::Bytes(
            values
                .iter()
                .map(|v| v.len() as u64)
                .max()
                .unwrap_or(0)
                .max(1),
        )
    }
    fn rust_name() -> String {
        "Vec<u8>".to_owned()
    }
    fn plan(dtype: &DType) -> Result<usize, Error> {
        match dtype {
            DType::Bytes(n) => usize::try_from(*n).map_err(|_| mismatch::<Self>(dtype)),
            _ => Err(mismatch::<Self>(dtype)),
        }
    }
    fn read(_: &usize, src: &[u8]) -> Result<Self, Error> {
        let end = src.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        Ok(src[..end].to_vec())
    }
    fn write(&self, width: &usize, dst: &mut [u8]) -> Result<(), Error> {
        if self.len() > *width {
            return Err(Error::new(ErrorKind::ValueTooLong {
                len: self.len(),
                dtype: format!("'|S{width}'"),
                field: None,
            }));
        }
        dst[..self.len()].copy_from_slice(self);
        dst[self.len()..].fill(0);
        Ok(())
    }
}

/// `U` strings: UCS-4 code points, NUL-padded. Reading strips trailing NULs (as numpy) and
/// refuses code points a `String` cannot hold (lone surrogates, values past U+10FFFF) with
/// [`ErrorKind::InvalidUnicode`]; read such files with `read_dyn`, which keeps raw code points.
impl NpyElement for String {
    type Plan = (Endian, usize);
    fn npy_dtype() -> DType {
        DType::Unicode(0, ByteOrder::NATIVE)
    }
    fn dtype_for(values: &[Self]) -> DType {
        let n = values
            .iter()
            .map(|v| v.chars().count() as u64)
            .max()
            .unwrap_or(0)
            .max(1);
        DType::Unicode(n, ByteOrder::NATIVE)
    }
    fn rust_name() -> String {
        "String".to_owned()
    }
    fn plan(dtype: &DType) -> Result<Self::Plan, Error> {
        match dtype {
            DType::Unicode(n, o) => Ok((
                Endian::of(*o),
                usize::try_from(*n).map_err(|_| mismatch::<Self>(dtype))?,
            )),
            _ => Err(mismatch::<Self>(dtype)),
        }
    }
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error> {
        let mut s = String::new();
        let mut pending_nuls = 0usize;
        for chunk in src.chunks_exact(4) {
            let cp = u32::read(&plan.0, chunk)?;
            if cp == 0 {
                pending_nuls += 1;
                continue;
            }
            let c = char::from_u32(cp)
                .ok_or(Error::new(ErrorKind::InvalidUnicode { code_point: cp }))?;
            s.extend(std::iter::repeat_n('\0', pending_nuls));
            pending_nuls = 0;
            s.push(c);
        }
        Ok(s)
    }
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
        let mut chunks = dst.chunks_exact_mut(4);
        for c in self.chars() {
            let slot = chunks.next().ok_or_else(|| {
                Error::new(ErrorKind::ValueTooLong {
                    len: self.chars().count(),
                    dtype: format!("'U{}'", plan.1),
                    field: None,
                })
            })?;
            (c as u32).write(&plan.0, slot)?;
        }
        chunks.for_each(|c| c.fill(0));
        Ok(())
    }
}

/// A datetime64/timedelta64 unit fixed at compile time, for [`Datetime64`] and [`Timedelta64`].
pub trait Unit: Copy + fmt::Debug + Default + 'static {
    /// The unit.
    const UNIT: TimeUnit;
}

/// Compile-time units for [`Datetime64`] and [`Timedelta64`] (`Datetime64<units::Ns>`).
pub mod units {
    use super::Unit;
    use crate::dtype::TimeUnit;
    macro_rules! unit {
        ($($name:ident = $u:ident, $doc:literal;)*) => {$(
            #[doc = $doc]
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $name;
            impl Unit for $name {
                const UNIT: TimeUnit = TimeUnit::$u;
            }
        )*};
    }
    unit! {
        Generic = Generic, "No unit (`M8`): numpy only stores NaT in such arrays.";
        Y = Year, "Years (`[Y]`).";
        Mo = Month, "Months (`[M]`).";
        W = Week, "Weeks (`[W]`).";
        D = Day, "Days (`[D]`).";
        H = Hour, "Hours (`[h]`).";
        Min = Minute, "Minutes (`[m]`).";
        S = Second, "Seconds (`[s]`).";
        Ms = Millisecond, "Milliseconds (`[ms]`).";
        Us = Microsecond, "Microseconds (`[us]`).";
        Ns = Nanosecond, "Nanoseconds (`[ns]`).";
        Ps = Picosecond, "Picoseconds (`[ps]`).";
        Fs = Femtosecond, "Femtoseconds (`[fs]`).";
        As = Attosecond, "Attoseconds (`[as]`).";
    }
}

/// The tick value numpy uses for NaT ("not a time"): `i64::MIN`.
pub const NAT: i64 = i64::MIN;

macro_rules! time_type {
    ($name:ident, $kind:ident, $code:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// The unit is part of the type: reading a file whose unit (or multiplier) differs is
        /// [`ErrorKind::TypeMismatch`], never a silent reinterpretation. [`NAT`] ticks are NaT.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name<U: Unit> {
            /// Ticks of `U` (since 1970-01-01T00:00 for datetimes).
            pub ticks: i64,
            unit: PhantomData<U>,
        }

        impl<U: Unit> $name<U> {
            /// The value `ticks` units.
            pub const fn new(ticks: i64) -> Self {
                Self {
                    ticks,
                    unit: PhantomData,
                }
            }
            /// NaT.
            pub const NAT: Self = Self::new(NAT);
            /// Whether this is NaT.
            pub const fn is_nat(self) -> bool {
                self.ticks == NAT
            }
        }

        impl<U: Unit> NpyElement for $name<U> {
            type Plan = Endian;
            fn npy_dtype() -> DType {
                DType::Time(
                    TimeType {
                        kind: TimeKind::$kind,
                        unit: U::UNIT,
                        multiplier: 1,
                    },
                    ByteOrder::NATIVE,
                )
            }
            fn rust_name() -> String {
                match U::UNIT {
                    TimeUnit::Generic => format!("{}", stringify!($name)),
                    u => format!("{}[{}]", stringify!($name), u.code()),
                }
            }
            fn plan(dtype: &DType) -> Result<Endian, Error> {
                match dtype {
                    DType::Time(t, o)
                        if t.kind == TimeKind::$kind && t.unit == U::UNIT && t.multiplier == 1 =>
                    {
                        Ok(Endian::of(*o))
                    }
                    _ => Err(mismatch::<Self>(dtype)),
                }
            }
            #[inline]
            fn read(plan: &Endian, src: &[u8]) -> Result<Self, Error> {
                Ok(Self::new(i64::read(plan, src)?))
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                self.ticks.write(plan, dst)
            }
        }
    };
}

time_type!(
    Datetime64,
    Datetime,
    "M8",
    "A datetime64 value of unit `U`: `i64` ticks since the Unix epoch."
);
time_type!(
    Timedelta64,
    Timedelta,
    "m8",
    "A timedelta64 value of unit `U`: `i64` ticks."
);
