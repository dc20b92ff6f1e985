//! [`Datetime64`] and [`Timedelta64`] to and from the standard library's time types
//! ([`SystemTime`], [`Duration`]) and, with feature `chrono`, chrono's `DateTime<Utc>`,
//! `NaiveDateTime` and `TimeDelta`.
//!
//! Every conversion goes through a count of nanoseconds in `i128`, exactly as numpy's
//! `astype('M8[ns]')` / `astype('m8[ns]')` computes it: calendar units (years, months) of a
//! datetime count from 1970-01-01 in the proleptic Gregorian calendar, and a conversion into a
//! coarser unit floors (numpy's `astype('M8[D]')` of `1969-12-31T23:00` is `1969-12-31`), as
//! does one into the std and chrono types from a unit finer than a nanosecond. Each impl says
//! which values are errors (NaT, the generic unit, timedelta years and months, out of range).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::time::{Datetime64, Timedelta64, Unit};
use super::time_text::{civil_from_days, days_from_civil};
use crate::dtype::{TimeKind, TimeType, TimeUnit};
use crate::error::{Error, ErrorKind};

const NS_PER_DAY: i128 = 86_400_000_000_000;

/// How ticks of a unit relate to nanoseconds.
enum Scale {
    /// Calendar years of a datetime, counted from 1970.
    Years,
    /// Calendar months of a datetime, counted from 1970-01.
    Months,
    /// Nanoseconds per unit.
    Nanos(i128),
    /// Units per nanosecond.
    PerNano(i128),
}

/// The scale of `ty`'s unit, or why it has none: the generic unit, and timedelta years and
/// months (`years_months` says why).
fn scale(ty: TimeType, years_months: &'static str) -> Result<Scale, &'static str> {
    use TimeUnit::*;
    Ok(match ty.unit {
        Generic => return Err("the generic unit has no length"),
        Year | Month if ty.kind == TimeKind::Timedelta => return Err(years_months),
        Year => Scale::Years,
        Month => Scale::Months,
        Week => Scale::Nanos(7 * NS_PER_DAY),
        Day => Scale::Nanos(NS_PER_DAY),
        Hour => Scale::Nanos(3_600_000_000_000),
        Minute => Scale::Nanos(60_000_000_000),
        Second => Scale::Nanos(1_000_000_000),
        Millisecond => Scale::Nanos(1_000_000),
        Microsecond => Scale::Nanos(1_000),
        Nanosecond => Scale::Nanos(1),
        Picosecond => Scale::PerNano(1_000),
        Femtosecond => Scale::PerNano(1_000_000),
        Attosecond => Scale::PerNano(1_000_000_000),
    })
}

/// Why a value does not convert, for [`ErrorKind::TimeConversion`].
fn refuse(value: String, target: &'static str, reason: &'static str) -> Error {
    Error::new(ErrorKind::TimeConversion {
        value,
        target,
        reason,
    })
}

/// `ticks` of `ty` as a `target`, made by `convert` from their nanoseconds ([`to_nanos`]);
/// either step gives the reason it cannot be, and the value is named as
/// `datetime64[s] 2024-01-01T00:00:00`.
fn convert_ticks<T>(
    ticks: i64,
    ty: TimeType,
    target: &'static str,
    convert: impl FnOnce(i128) -> Result<T, &'static str>,
) -> Result<T, Error> {
    to_nanos(ticks, ty).and_then(convert).map_err(|reason| {
        let kind = kind_name(ty.kind);
        let value = format!("{kind}[{}] {}", ty.unit.code(), ty.value_str(ticks));
        refuse(value, target, reason)
    })
}

/// Nanoseconds since 1970-01-01T00:00 (a datetime) or in all (a timedelta) of `ticks` of `ty`,
/// or why there are none.
fn to_nanos(ticks: i64, ty: TimeType) -> Result<i128, &'static str> {
    if ticks == super::NAT {
        return Err("NaT is no point in time or duration");
    }
    let total = i128::from(ticks) * i128::from(ty.multiplier);
    let years_months =
        "years and months have no fixed length (numpy refuses to cast them to seconds)";
    Ok(match scale(ty, years_months)? {
        Scale::Years => days_from_civil(1970 + total, 1, 1) * NS_PER_DAY,
        Scale::Months => {
            let month = total.rem_euclid(12) as u32 + 1;
            days_from_civil(1970 + total.div_euclid(12), month, 1) * NS_PER_DAY
        }
        Scale::Nanos(n) => total * n,
        Scale::PerNano(n) => total.div_euclid(n),
    })
}

/// Ticks of `ty` for `nanos` nanoseconds (floored), if they fit `i64` and are not NaT.
fn from_nanos(nanos: i128, ty: TimeType, source: &str) -> Result<i64, Error> {
    const TOO_BIG: &str = "the value does not fit 64-bit ticks of the unit";
    let refuse_here = |reason| refuse(source.to_owned(), kind_name(ty.kind), reason);
    let scale = scale(ty, "years and months have no fixed length").map_err(refuse_here)?;
    let units = match scale {
        Scale::Years => civil_from_days(nanos.div_euclid(NS_PER_DAY)).0 - 1970,
        Scale::Months => {
            let (y, m, _) = civil_from_days(nanos.div_euclid(NS_PER_DAY));
            (y - 1970) * 12 + i128::from(m) - 1
        }
        Scale::Nanos(n) => nanos.div_euclid(n),
        Scale::PerNano(n) => nanos.checked_mul(n).ok_or_else(|| refuse_here(TOO_BIG))?,
    };
    let ticks = units.div_euclid(i128::from(ty.multiplier.max(1)));
    match i64::try_from(ticks) {
        Ok(t) if t != super::NAT => Ok(t),
        _ => Err(refuse_here(TOO_BIG)),
    }
}

fn kind_name(kind: TimeKind) -> &'static str {
    match kind {
        TimeKind::Datetime => "datetime64",
        TimeKind::Timedelta => "timedelta64",
    }
}

/// `nanos` since the epoch as a [`SystemTime`].
fn system_time(nanos: i128) -> Option<SystemTime> {
    let secs = u64::try_from(nanos.unsigned_abs() / 1_000_000_000).ok()?;
    let magnitude = Duration::new(secs, (nanos.unsigned_abs() % 1_000_000_000) as u32);
    if nanos >= 0 {
        UNIX_EPOCH.checked_add(magnitude)
    } else {
        UNIX_EPOCH.checked_sub(magnitude)
    }
}

/// Nanoseconds since the epoch of a [`SystemTime`] (negative before it).
fn system_nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

impl<U: Unit> TryFrom<Datetime64<U>> for SystemTime {
    type Error = Error;

    /// The point in time, floored to the nanosecond for units finer than one.
    ///
    /// # Errors
    /// [`ErrorKind::TimeConversion`] for NaT, the generic unit, or a time `SystemTime` cannot
    /// hold on this platform.
    fn try_from(value: Datetime64<U>) -> Result<SystemTime, Error> {
        convert_ticks(value.ticks, Datetime64::<U>::TYPE, "SystemTime", |nanos| {
            system_time(nanos).ok_or("the time is beyond what SystemTime holds on this platform")
        })
    }
}

impl<U: Unit> TryFrom<SystemTime> for Datetime64<U> {
    type Error = Error;

    /// The datetime in unit `U`, floored (a time within a day is that day for `Datetime64<D>`).
    ///
    /// # Errors
    /// [`ErrorKind::TimeConversion`] for the generic unit, or a time beyond `i64` ticks of `U`.
    fn try_from(value: SystemTime) -> Result<Self, Error> {
        from_nanos(system_nanos(value), Self::TYPE, &format!("{value:?}")).map(Self::new)
    }
}

impl<U: Unit> TryFrom<Timedelta64<U>> for Duration {
    type Error = Error;

    /// The duration, floored to the nanosecond for units finer than one.
    ///
    /// # Errors
    /// [`ErrorKind::TimeConversion`] for NaT, a negative value (`Duration` is unsigned), the
    /// generic unit, and years or months (no fixed length).
    fn try_from(value: Timedelta64<U>) -> Result<Duration, Error> {
        convert_ticks(value.ticks, Timedelta64::<U>::TYPE, "Duration", |nanos| {
            if nanos < 0 {
                return Err("Duration cannot be negative");
            }
            let secs = u64::try_from(nanos / 1_000_000_000)
                .map_err(|_| "the duration is beyond Duration's range")?;
            Ok(Duration::new(secs, (nanos % 1_000_000_000) as u32))
        })
    }
}

impl<U: Unit> TryFrom<Duration> for Timedelta64<U> {
    type Error = Error;

    /// The duration in unit `U`, floored.
    ///
    /// # Errors
    /// [`ErrorKind::TimeConversion`] for the generic unit, years and months, or a duration
    /// beyond `i64` ticks of `U`.
    fn try_from(value: Duration) -> Result<Self, Error> {
        from_nanos(value.as_nanos() as i128, Self::TYPE, &format!("{value:?}")).map(Self::new)
    }
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};

    #[allow(unused_imports, reason = "named by the docs' links")]
    use crate::error::ErrorKind;

    use super::{convert_ticks, from_nanos, Datetime64, Error, Timedelta64, Unit};

    fn date_time(nanos: i128) -> Option<DateTime<Utc>> {
        let secs = i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?;
        DateTime::from_timestamp(secs, nanos.rem_euclid(1_000_000_000) as u32)
    }

    fn date_time_nanos(t: &DateTime<Utc>) -> i128 {
        i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos())
    }

    impl<U: Unit> TryFrom<Datetime64<U>> for DateTime<Utc> {
        type Error = Error;

        /// The point in time in UTC (numpy's datetimes have no zone), floored to the
        /// nanosecond.
        ///
        /// # Errors
        /// [`ErrorKind::TimeConversion`] for NaT, the generic unit, or a year chrono cannot
        /// hold (beyond ±262,143).
        fn try_from(value: Datetime64<U>) -> Result<Self, Error> {
            let ty = Datetime64::<U>::TYPE;
            convert_ticks(value.ticks, ty, "DateTime<Utc>", |nanos| {
                date_time(nanos).ok_or("the year is beyond chrono's range")
            })
        }
    }

    impl<U: Unit> TryFrom<Datetime64<U>> for NaiveDateTime {
        type Error = Error;

        /// As `DateTime<Utc>` (with its errors), without the zone: numpy's datetimes are naive.
        fn try_from(value: Datetime64<U>) -> Result<Self, Error> {
            DateTime::<Utc>::try_from(value).map(|t| t.naive_utc())
        }
    }

    impl<U: Unit> TryFrom<DateTime<Utc>> for Datetime64<U> {
        type Error = Error;

        /// The datetime in unit `U`, floored.
        ///
        /// # Errors
        /// [`ErrorKind::TimeConversion`] for the generic unit or a time beyond `i64` ticks.
        fn try_from(value: DateTime<Utc>) -> Result<Self, Error> {
            from_nanos(date_time_nanos(&value), Self::TYPE, &value.to_rfc3339()).map(Self::new)
        }
    }

    impl<U: Unit> TryFrom<NaiveDateTime> for Datetime64<U> {
        type Error = Error;

        /// The naive datetime read as UTC, as from `DateTime<Utc>` (with its errors).
        fn try_from(value: NaiveDateTime) -> Result<Self, Error> {
            Self::try_from(value.and_utc())
        }
    }

    impl<U: Unit> TryFrom<Timedelta64<U>> for TimeDelta {
        type Error = Error;

        /// The signed duration, floored to the nanosecond.
        ///
        /// # Errors
        /// [`ErrorKind::TimeConversion`] for NaT, the generic unit, years and months, or a
        /// duration beyond chrono's range (about ±292 billion years is `i64` milliseconds).
        fn try_from(value: Timedelta64<U>) -> Result<Self, Error> {
            convert_ticks(value.ticks, Timedelta64::<U>::TYPE, "TimeDelta", |nanos| {
                i64::try_from(nanos.div_euclid(1_000_000_000))
                    .ok()
                    .and_then(|s| TimeDelta::new(s, nanos.rem_euclid(1_000_000_000) as u32))
                    .ok_or("the duration is beyond chrono's range")
            })
        }
    }

    impl<U: Unit> TryFrom<TimeDelta> for Timedelta64<U> {
        type Error = Error;

        /// The duration in unit `U`, floored.
        ///
        /// # Errors
        /// [`ErrorKind::TimeConversion`] for the generic unit, years and months, or a duration
        /// beyond `i64` ticks of `U`.
        fn try_from(value: TimeDelta) -> Result<Self, Error> {
            let nanos =
                i128::from(value.num_seconds()) * 1_000_000_000 + i128::from(value.subsec_nanos());
            from_nanos(nanos, Self::TYPE, &value.to_string()).map(Self::new)
        }
    }
}
