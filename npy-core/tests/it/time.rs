//! `Display` of `Datetime64` / `Timedelta64` against numpy's `str()` of the same scalar, and
//! their conversions to `SystemTime` / `Duration` (and chrono's types, with the feature)
//! against numpy's `astype('M8[ns]')` / `astype('m8[ns]')` and back to the unit.
//!
//! A few rows are numpy 2.4.6's output copied here, so the test checks something without
//! Python; the differential over every unit, both kinds, NaT and a spread of values runs with
//! the project's Python (`npy_test_support::python`).

use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use npy_core::element::units::*;
use npy_core::element::{Unit, NAT};
use npy_core::{element::Timedelta64, error::Category, Datetime64, ErrorKind};

/// numpy 2.4.6: `str(np.datetime64(v, u))` and `str(np.timedelta64(v, u))`.
#[test]
fn display_is_numpys_str() {
    assert_eq!(
        Datetime64::<Ms>::new(1_704_164_645_678).to_string(),
        "2024-01-02T03:04:05.678"
    );
    assert_eq!(Datetime64::<W>::new(-1).to_string(), "1969-12-25");
    assert_eq!(
        Datetime64::<Mo>::new(-123_456_789).to_string(),
        "-10286096-04"
    );
    assert_eq!(Datetime64::<Y>::new(1).to_string(), "1971");
    assert_eq!(
        Datetime64::<Min>::new(-123_456_789).to_string(),
        "1735-04-09T02:51"
    );
    assert_eq!(
        Datetime64::<As>::new(-123_456_789).to_string(),
        "1969-12-31T23:59:59.999999999876543211"
    );
    assert_eq!(Datetime64::<H>::NAT.to_string(), "NaT");
    assert_eq!(Timedelta64::<Ms>::new(-1).to_string(), "-1 milliseconds");
    assert_eq!(Timedelta64::<Y>::new(1).to_string(), "1 years");
    assert_eq!(Timedelta64::<Ns>::NAT.to_string(), "NaT");
}

#[test]
fn conversions_refuse_what_the_target_cannot_hold() {
    let e = SystemTime::try_from(Datetime64::<S>::NAT).unwrap_err();
    assert_eq!(e.classify(), Category::Usage);
    assert!(matches!(
        e.kind(),
        ErrorKind::TimeConversion {
            target: "SystemTime",
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "datetime64[s] NaT does not convert to SystemTime: NaT is no point in time or duration"
    );
    let e = Duration::try_from(Timedelta64::<S>::new(-1)).unwrap_err();
    assert!(
        e.to_string().ends_with("Duration cannot be negative"),
        "{e}"
    );
    let e = Duration::try_from(Timedelta64::<Mo>::new(1)).unwrap_err();
    assert!(e.to_string().contains("no fixed length"), "{e}");
    assert!(Datetime64::<Generic>::try_from(UNIX_EPOCH).is_err());
    // 2^63 ns is past i64 nanoseconds: Datetime64<Ns> cannot hold it, Datetime64<S> can.
    let far = UNIX_EPOCH + Duration::from_secs(1 << 34);
    assert!(Datetime64::<Ns>::try_from(far).is_err());
    assert_eq!(Datetime64::<S>::try_from(far).unwrap().ticks, 1 << 34);
    // i64::MIN ticks is NaT, never a value a conversion makes.
    let min_ns = UNIX_EPOCH - Duration::from_nanos(i64::MAX as u64) - Duration::from_nanos(1);
    assert!(Datetime64::<Ns>::try_from(min_ns).is_err());
}

/// Nanoseconds since the epoch of a `SystemTime`.
fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Values each unit is checked at: small ones of both signs, calendar edges, and large ones
/// whose nanoseconds still fit numpy's int64 for the coarse units.
const VALUES: [i64; 12] = [
    0,
    1,
    -1,
    59,
    -61,
    365,
    -719_162,
    1_000_003,
    -123_456_789,
    1_704_164_645_678,
    i64::MAX,
    NAT,
];

/// One unit's lines: `kind unit ticks ours_str ours_ns back_ticks`, for Python to check.
fn lines<U: Unit>(out: &mut String) {
    for v in VALUES {
        let d = Datetime64::<U>::new(v);
        let ns = SystemTime::try_from(d).map_or_else(|_| "x".to_owned(), |t| nanos(t).to_string());
        let back = SystemTime::try_from(d)
            .ok()
            .and_then(|t| Datetime64::<U>::try_from(t).ok())
            .map_or_else(|| "x".to_owned(), |b| b.ticks.to_string());
        out.push_str(&format!("M8\t{}\t{v}\t{d}\t{ns}\t{back}\n", U::UNIT.code()));
        let t = Timedelta64::<U>::new(v);
        let ns =
            Duration::try_from(t).map_or_else(|_| "x".to_owned(), |d| d.as_nanos().to_string());
        let back = Duration::try_from(t)
            .ok()
            .and_then(|d| Timedelta64::<U>::try_from(d).ok())
            .map_or_else(|| "x".to_owned(), |b| b.ticks.to_string());
        out.push_str(&format!("m8\t{}\t{v}\t{t}\t{ns}\t{back}\n", U::UNIT.code()));
    }
}

/// Checks each line against numpy. A conversion we refuse (`x`) must be one numpy cannot do
/// exactly either: NaT, a calendar timedelta, a negative `Duration`, or a value whose
/// nanoseconds overflow int64 (numpy's `astype('M8[ns]')` then wraps; we refuse).
const CHECK: &str = r"
import sys, numpy as np
bad = 0
checked = 0
for line in sys.stdin.read().splitlines():
    kind, unit, v, text, ns, back = line.split('\t')
    v = int(v)
    make = np.datetime64 if kind == 'M8' else np.timedelta64
    x = make(v if v != -2**63 else 'NaT', unit)
    want = str(x)
    if text != want:
        print('str', line, 'numpy:', want); bad += 1
    if np.isnat(x) or (kind == 'm8' and unit in ('Y', 'M')):
        if ns != 'x': print('converted', line); bad += 1
        continue
    with np.errstate(all='ignore'):
        n = x.astype(kind + '[ns]')
        exact = n.astype(f'{kind}[{unit}]') == x or unit in ('ps', 'fs', 'as')
    n = int(n.astype(np.int64))
    if kind == 'm8' and n < 0:
        exact = False
    if not exact:
        continue  # numpy wraps or Duration cannot be negative; our refusal is checked in Rust
    if ns == 'x':
        print('refused', line); bad += 1; continue
    checked += 1
    if int(ns) != n:
        print('ns', line, 'numpy:', n); bad += 1
    # Back to the unit, floored as numpy's astype floors.
    b = int(np.array(n, dtype=kind + '[ns]').astype(f'{kind}[{unit}]').astype(np.int64))
    if back != str(b):
        print('back', line, 'numpy:', b); bad += 1
print('checked', checked)
sys.exit(1 if bad else 0)
";

#[test]
fn display_and_conversions_match_numpy_for_every_unit() {
    let mut table = String::new();
    lines::<Y>(&mut table);
    lines::<Mo>(&mut table);
    lines::<W>(&mut table);
    lines::<D>(&mut table);
    lines::<H>(&mut table);
    lines::<Min>(&mut table);
    lines::<S>(&mut table);
    lines::<Ms>(&mut table);
    lines::<Us>(&mut table);
    lines::<Ns>(&mut table);
    lines::<Ps>(&mut table);
    lines::<Fs>(&mut table);
    lines::<As>(&mut table);
    let Some(python) = npy_test_support::python::python_for("datetime64 text and conversions")
    else {
        return;
    };
    let mut child = Command::new(python)
        .args(["-c", CHECK])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), table.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "differences from numpy:\n{stdout}");
    // Most values convert exactly in numpy too, so most conversions were compared.
    let checked: usize = stdout
        .trim()
        .strip_prefix("checked ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count from the check: {stdout}"));
    assert!(
        checked >= 150,
        "only {checked} conversions compared with numpy"
    );
}

#[cfg(feature = "chrono")]
#[test]
fn chrono_conversions_agree_with_system_time() {
    use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
    for v in VALUES {
        let d = Datetime64::<Us>::new(v);
        let std = SystemTime::try_from(d).ok().map(nanos);
        let chrono = DateTime::<Utc>::try_from(d).ok().map(|t| {
            i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos())
        });
        // chrono holds years to ±262,143, fewer than SystemTime: where it converts, it agrees.
        if chrono.is_some() || v == NAT {
            assert_eq!(std, chrono, "{v}");
        } else {
            assert!(
                std.is_some_and(|n| n.abs() > 262_000 * 365 * 86_400 * 1_000_000_000),
                "{v}"
            );
        }
        if let Ok(t) = NaiveDateTime::try_from(d) {
            assert_eq!(Datetime64::<Us>::try_from(t).unwrap(), d);
        }
        let t = Timedelta64::<Ms>::new(v);
        if let Ok(c) = TimeDelta::try_from(t) {
            assert_eq!(c.num_milliseconds(), v);
            assert_eq!(Timedelta64::<Ms>::try_from(c).unwrap(), t);
        }
    }
    // Negative durations, which std's Duration cannot hold, convert with chrono.
    let c = TimeDelta::try_from(Timedelta64::<S>::new(-90)).unwrap();
    assert_eq!(c, TimeDelta::seconds(-90));
}

/// `{:?}` of a time scalar names its type and unit, then the value as numpy's `str()` prints
/// it (`str(np.datetime64(1704164645678, 'ms'))` is `2024-01-02T03:04:05.678`), not the
/// unit's `PhantomData`.
#[test]
fn debug_names_the_unit_and_prints_the_value_as_numpy() {
    use npy_core::element::units::{Ms, S};
    use npy_core::{element::Timedelta64, Datetime64};
    assert_eq!(
        format!("{:?}", Datetime64::<Ms>::new(1_704_164_645_678)),
        "Datetime64[ms](2024-01-02T03:04:05.678)"
    );
    assert_eq!(
        format!("{:?}", Timedelta64::<S>::NAT),
        "Timedelta64[s](NaT)"
    );
}
