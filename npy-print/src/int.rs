//! numpy's `IntegerFormat` and `BoolFormat`.

/// The widest of the integers seen, in constant memory: numpy's `IntegerFormat` pads to the
/// longer of `str(max)` and `str(min)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct IntStats {
    range: Option<(i128, i128)>,
}

impl IntStats {
    /// Takes one value into account.
    pub(crate) fn observe(&mut self, x: i128) {
        self.range = Some(match self.range {
            Some((lo, hi)) => (lo.min(x), hi.max(x)),
            None => (x, x),
        });
    }

    /// The common width.
    pub(crate) fn width(&self) -> usize {
        self.range
            .map_or(0, |(lo, hi)| lo.to_string().len().max(hi.to_string().len()))
    }
}

/// numpy's `BoolFormat`: `' True'` beside `'False'` in an array, `'True'` alone in a 0-d one.
pub(crate) fn format_bool(b: bool, zero_d: bool) -> &'static str {
    match (b, zero_d) {
        (true, false) => " True",
        (true, true) => "True",
        (false, _) => "False",
    }
}
