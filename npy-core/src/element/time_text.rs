//! The text of datetime64 and timedelta64 values as numpy writes it ([`TimeType::value_str`]),
//! shared by `Display` of [`Datetime64`](super::Datetime64) / [`Timedelta64`](super::Timedelta64),
//! of dynamic values, and by the printer (crate npy-print, through `DynValue`'s datetimes).

use std::fmt::Write as _;

use crate::dtype::{TimeKind, TimeType, TimeUnit};

impl TimeType {
    /// numpy's `str()` of a scalar of this type holding `ticks`: for a datetime
    /// `datetime_as_string` in the dtype's unit (`str(np.datetime64(1_700_000_000, 's'))` is
    /// `2023-11-14T22:13:20`), for a timedelta the count and the unit's plural name (`30
    /// milliseconds`, the multiplier applied), `NaT` for [`NAT`](super::NAT) ticks. Years far
    /// beyond the calendar follow numpy's wrapping int64 arithmetic, as numpy's text does.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{dtype::{TimeKind, TimeType, TimeUnit}, DType};
    /// let ms = TimeType { kind: TimeKind::Datetime, unit: TimeUnit::Millisecond, multiplier: 1 };
    /// assert_eq!(ms.value_str(1_704_164_645_678), "2024-01-02T03:04:05.678");
    /// assert_eq!(ms.value_str(npy_core::element::NAT), "NaT");
    /// let d = TimeType { kind: TimeKind::Timedelta, unit: TimeUnit::Day, multiplier: 7 };
    /// assert_eq!(d.value_str(2), "14 days");
    /// ```
    pub fn value_str(self, ticks: i64) -> String {
        if ticks == super::NAT {
            return "NaT".to_owned();
        }
        match self.kind {
            TimeKind::Datetime => datetime_iso(ticks, self),
            // numpy multiplies in int64, wrapping.
            TimeKind::Timedelta => {
                let total = ticks.wrapping_mul(i64::from(self.multiplier));
                format!("{total} {}", self.unit.plural_name())
            }
        }
    }
}

/// Civil date of a day count since 1970-01-01 (proleptic Gregorian; Howard Hinnant's
/// `civil_from_days`).
pub(crate) fn civil_from_days(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y, m, d)
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian; Howard Hinnant's
/// `days_from_civil`), the inverse of [`civil_from_days`].
pub(crate) fn days_from_civil(y: i128, m: u32, d: u32) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i128::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i128::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// numpy's `datetime_as_string` in the dtype's unit: `2023-12-09`, `2023-11-14T22:13:20`,
/// `1970-01-01T00:00:00.000000000`, `1970-01`, `1970`.
pub(crate) fn datetime_iso(ticks: i64, ty: TimeType) -> String {
    // numpy computes in int64 and wraps where that overflows (far beyond any calendar): the
    // multiplier, weeks to days, 1970 + years, and the shift of days to the year 2000.
    let total = ticks.wrapping_mul(i64::from(ty.multiplier));
    let date = |days: i64| {
        let (y, m, d) = civil_from_days(i128::from(days.wrapping_sub(10_957)) + 10_957);
        format!("{y:04}-{m:02}-{d:02}")
    };
    let total128 = i128::from(total);
    // (units per second, fractional digits) for time units; per day for the others.
    let (per_day, frac_digits): (i128, u32) = match ty.unit {
        TimeUnit::Generic => return ticks.to_string(),
        TimeUnit::Year => return format!("{:04}", total.wrapping_add(1970)),
        TimeUnit::Month => {
            let y = 1970 + total.div_euclid(12);
            return format!("{y:04}-{:02}", total.rem_euclid(12) + 1);
        }
        TimeUnit::Week => return date(total.wrapping_mul(7)),
        TimeUnit::Day => return date(total),
        TimeUnit::Hour => (24, 0),
        TimeUnit::Minute => (1440, 0),
        TimeUnit::Second => (86_400, 0),
        TimeUnit::Millisecond => (86_400_000, 3),
        TimeUnit::Microsecond => (86_400_000_000, 6),
        TimeUnit::Nanosecond => (86_400_000_000_000, 9),
        TimeUnit::Picosecond => (86_400_000_000_000_000, 12),
        TimeUnit::Femtosecond => (86_400_000_000_000_000_000, 15),
        TimeUnit::Attosecond => (86_400_000_000_000_000_000_000, 18),
    };
    let days = total128.div_euclid(per_day);
    let rem = total128.rem_euclid(per_day);
    // |total| <= 2^63 and a day has at least 24 units: the day count fits.
    let mut s = date(i64::try_from(days).unwrap_or_default());
    // Writing to a `String` cannot fail.
    let _ = match ty.unit {
        TimeUnit::Hour => write!(s, "T{rem:02}"),
        TimeUnit::Minute => write!(s, "T{:02}:{:02}", rem / 60, rem % 60),
        _ => {
            let scale = 10i128.pow(frac_digits);
            let secs = rem / scale;
            let (h, m, sec) = (secs / 3600, secs / 60 % 60, secs % 60);
            let _ = write!(s, "T{h:02}:{m:02}:{sec:02}");
            match frac_digits {
                0 => Ok(()),
                w => write!(s, ".{:0w$}", rem % scale, w = w as usize),
            }
        }
    };
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_from_civil_inverts_civil_from_days() {
        for days in (-800_000..800_000)
            .step_by(997)
            .chain([-1, 0, 1, 59, 60, 365])
        {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn datetimes_as_numpy() {
        let t = |unit| TimeType {
            kind: TimeKind::Datetime,
            unit,
            multiplier: 1,
        };
        assert_eq!(datetime_iso(-719_162, t(TimeUnit::Day)), "0001-01-01");
        assert_eq!(datetime_iso(2_932_896, t(TimeUnit::Day)), "9999-12-31");
        assert_eq!(datetime_iso(-8_641_976, t(TimeUnit::Day)), "-21691-01-28");
        assert_eq!(
            datetime_iso(-1, t(TimeUnit::Nanosecond)),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(
            datetime_iso(1_700_000_000, t(TimeUnit::Second)),
            "2023-11-14T22:13:20"
        );
        // numpy 2.4.6: str(np.datetime64(2**40, 'W')) and so on.
        assert_eq!(
            datetime_iso(1 << 40, t(TimeUnit::Week)),
            "21072526099-09-03"
        );
        assert_eq!(datetime_iso(-5, t(TimeUnit::Month)), "1969-08");
        assert_eq!(datetime_iso(7, t(TimeUnit::Hour)), "1970-01-01T07");
        assert_eq!(datetime_iso(-1, t(TimeUnit::Minute)), "1969-12-31T23:59");
        assert_eq!(
            datetime_iso(i64::MIN + 1, t(TimeUnit::Attosecond)),
            "1969-12-31T23:59:50.776627963145224193"
        );
        // numpy's int64 arithmetic wraps: str(np.datetime64(2**63 - 1, 'Y')),
        // str(np.datetime64(-(2**63 - 1), 'D')).
        assert_eq!(
            datetime_iso(i64::MAX, t(TimeUnit::Year)),
            "-9223372036854773839"
        );
        assert_eq!(
            datetime_iso(-i64::MAX, t(TimeUnit::Day)),
            "25252734927768524-07-29"
        );
    }
}
