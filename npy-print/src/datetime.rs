//! datetime64 and timedelta64 in arrays: quoted ISO text and `_TimelikeFormat`'s common
//! width. The text of one value is npy-core's ([`TimeType::value_str`]).

use npy_core::dtype::TimeType;

/// The widest of the non-NaT values seen and whether a NaT was, in constant memory: numpy's
/// `_TimelikeFormat` pads to the longer text of the largest and smallest value, and to at
/// least 5 (`'NaT'` with its quotes) when there is a NaT.
#[derive(Debug, Clone, Default)]
pub(crate) struct TimeStats {
    range: Option<((i64, TimeType), (i64, TimeType))>,
    nat: bool,
}

impl TimeStats {
    /// Takes one value (`None` for NaT) into account.
    pub(crate) fn observe(&mut self, ticks: Option<i64>, unit: TimeType) {
        let Some(t) = ticks else {
            self.nat = true;
            return;
        };
        self.range = Some(match self.range {
            Some((lo, hi)) => (
                if t < lo.0 { (t, unit) } else { lo },
                if t > hi.0 { (t, unit) } else { hi },
            ),
            None => ((t, unit), (t, unit)),
        });
    }

    /// The common width, given the text of a value.
    pub(crate) fn width(&self, text: impl Fn(i64, TimeType) -> String) -> usize {
        let w = self.range.map_or(0, |(lo, hi)| {
            text(lo.0, lo.1)
                .chars()
                .count()
                .max(text(hi.0, hi.1).chars().count())
        });
        if self.nat {
            w.max(5)
        } else {
            w
        }
    }
}

/// A datetime in an array: `'2023-12-09'`, quoted.
pub(crate) fn datetime_quoted(ticks: i64, ty: TimeType) -> String {
    format!("'{}'", ty.value_str(ticks))
}
