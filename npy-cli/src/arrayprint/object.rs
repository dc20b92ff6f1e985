//! numpy's printing of object arrays (`O`): each item's Python `repr` (numpy's
//! `_object_format`, which writes a list as `list([...])` so that it does not read as an
//! axis), and a 0-d array as its item's `str`.

use npy_core::object::PyObject;
use npy_core::{DynValue, TimeKind, TimeType, TimeUnit};

use super::{array_str, scalar_str};
use crate::format::printable;

/// An item of an object array, as numpy prints it inside the array.
pub fn repr(o: &PyObject) -> String {
    match o {
        PyObject::List(_) => format!("list({o})"),
        PyObject::Scalar(s) => match s.value {
            DynValue::Datetime { ticks, unit } => time_repr("datetime64", ticks, unit),
            DynValue::Timedelta { ticks, unit } => time_repr("timedelta64", ticks, unit),
            _ => o.to_string(),
        },
        _ => o.to_string(),
    }
}

/// numpy 2's `repr` of a datetime64 or timedelta64 scalar (`scalartypes.c.src`):
/// `np.datetime64('1970-01-02')`, with the unit as a second argument when the ISO text does
/// not imply it (a multiplier, or hours); `np.timedelta64(10,'ms')`; NaT with its unit.
fn time_repr(name: &str, ticks: Option<i64>, ty: TimeType) -> String {
    let generic = ty.unit == TimeUnit::Generic;
    let unit = match ty.multiplier {
        _ if generic => "generic".to_owned(),
        1 => ty.unit.code().to_owned(),
        m => format!("{m}{}", ty.unit.code()),
    };
    match (ticks, ty.kind) {
        (None, _) => format!("np.{name}('NaT','{unit}')"),
        (Some(t), TimeKind::Datetime) => {
            let iso = ty.value_str(t);
            if generic || (ty.multiplier == 1 && ty.unit != TimeUnit::Hour) {
                format!("np.{name}('{iso}')")
            } else {
                format!("np.{name}('{iso}','{unit}')")
            }
        }
        (Some(t), TimeKind::Timedelta) if generic => format!("np.{name}({t})"),
        (Some(t), TimeKind::Timedelta) => format!("np.{name}({t},'{unit}')"),
    }
}

/// Python's `str` of an item, as numpy prints a 0-d object array: a `str` bare (control
/// characters escaped, as for a 0-d `U` array), a numpy scalar or array as numpy's own `str`,
/// anything else as its `repr`.
pub fn str(o: &PyObject, full: bool) -> String {
    match o {
        PyObject::Str(s) => printable(s).into_owned(),
        PyObject::Scalar(s) => scalar_str(&s.dtype, &s.value, full),
        PyObject::Array(a) => array_str(a, full),
        _ => o.to_string(),
    }
}
