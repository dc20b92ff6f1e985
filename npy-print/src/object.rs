//! Python objects (`O`): an object array's element is an opaque
//! [`ObjectValue`](npy_core::dynamic::ObjectValue) to this crate, whose text its codec writes
//! ([`ObjectValue::write_text`](npy_core::dynamic::ObjectValue::write_text); npy-pickle's
//! `PyObject` writes Python's `repr()` and `str()`, its nested arrays printed by this crate
//! with the options passed). Here that text is charged to the print's budget.

use npy_core::dynamic::{ObjectText, ObjectValue};

use super::budget::capped;
use super::PrintOptions;

/// The `text` of `o` asked for, its nested arrays printed with `options`, charged to the
/// print's budget ([`PrintOptions::object_budget`]): cut past it, ending with `...`.
pub fn object_text(o: &dyn ObjectValue, text: ObjectText, options: &PrintOptions) -> String {
    capped(options.object_budget_bytes(), |w| {
        o.write_text(w, text, options)
    })
}
