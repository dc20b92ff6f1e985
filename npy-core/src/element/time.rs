//! datetime64 and timedelta64: [`Datetime64`] and [`Timedelta64`] with a compile-time unit.

use std::fmt;
use std::marker::PhantomData;

use super::{mismatch, NpyElement};
use crate::codec::{Endian, Scalar};
use crate::dtype::{ByteOrder, DType, TimeKind, TimeType, TimeUnit};
use crate::error::Error;

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

/// `Name, TimeKind, "first doc line";`: a time type of that kind, generic over its unit.
macro_rules! time_type {
    ($($name:ident, $kind:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// The unit is part of the type: reading a file whose unit (or multiplier) differs is
        /// [`ErrorKind::TypeMismatch`](crate::ErrorKind::TypeMismatch), never a silent reinterpretation. [`NAT`] ticks are NaT.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
            /// The dtype's kind and unit (multiplier 1).
            pub(crate) const TYPE: TimeType = TimeType {
                kind: TimeKind::$kind,
                unit: U::UNIT,
                multiplier: 1,
            };
        }

        /// numpy's `str()` of the scalar ([`TimeType::value_str`]): `2024-01-02T03:04:05.678`
        /// for a `Datetime64<Ms>`, `30 milliseconds` for a `Timedelta64<Ms>`, `NaT`.
        impl<U: Unit> fmt::Display for $name<U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&Self::TYPE.value_str(self.ticks))
            }
        }

        /// The type with its unit, then the value as numpy prints it:
        /// `Datetime64[ms](2024-01-02T03:04:05.678)`, `Timedelta64[s](NaT)`.
        impl<U: Unit> fmt::Debug for $name<U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({self})", <Self as NpyElement>::rust_name())
            }
        }

        impl<U: Unit> NpyElement for $name<U> {
            type Plan = Endian;
            fn npy_dtype() -> DType {
                DType::Time(Self::TYPE, ByteOrder::NATIVE)
            }
            fn rust_name() -> String {
                match U::UNIT {
                    TimeUnit::Generic => format!("{}", stringify!($name)),
                    u => format!("{}[{}]", stringify!($name), u.code()),
                }
            }
            fn plan(dtype: &DType) -> Result<Endian, Error> {
                match dtype {
                    DType::Time(t, o) if *t == Self::TYPE => Ok(Endian::of(*o)),
                    _ => Err(mismatch::<Self>(dtype)),
                }
            }
            #[inline]
            fn read(plan: &Endian, src: &[u8]) -> Result<Self, Error> {
                Ok(Self::new(i64::decode(src, *plan)))
            }
            #[inline]
            fn write(&self, plan: &Endian, dst: &mut [u8]) -> Result<(), Error> {
                self.ticks.encode(dst, *plan);
                Ok(())
            }
        }
    )*};
}

time_type! {
    Datetime64, Datetime, "A datetime64 value of unit `U`: `i64` ticks since the Unix epoch.";
    Timedelta64, Timedelta, "A timedelta64 value of unit `U`: `i64` ticks.";
}
