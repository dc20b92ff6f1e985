//! numpy's `StructuredVoidFormat` (records as tuples) and `SubArrayFormat` (subarray fields as
//! nested lists, summarised past the threshold).

use super::fit::Format;
use super::PrintOptions;
use npy_core::DynValue;

/// A record: its fields' texts joined by `", "` in parentheses (`(1,)` for one field).
pub(crate) fn format_record(fmts: &[Format], fields: &[(String, DynValue)]) -> String {
    let parts: Vec<String> = fmts
        .iter()
        .zip(fields)
        .map(|(f, (_, x))| f.format(x))
        .collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// A subarray field: nested lists joined by `", "`, with `...` past the options' threshold.
pub(crate) fn format_subarray(
    base: &Format,
    shape: &[u64],
    values: &[DynValue],
    options: &PrintOptions,
) -> String {
    let summarise = options.summarises(values.len() as u64);
    let mut out = String::new();
    nested(base, shape, values, summarise, options, &mut out);
    out
}

fn nested(
    base: &Format,
    shape: &[u64],
    values: &[DynValue],
    summarise: bool,
    options: &PrintOptions,
    out: &mut String,
) {
    let Some((&n, rest)) = shape.split_first() else {
        if let Some(v) = values.first() {
            out.push_str(&base.format(v));
        }
        return;
    };
    let block = rest.iter().product::<u64>() as usize;
    let (lead, trail) = options.shown(n, summarise);
    out.push('[');
    let mut first = true;
    let mut item = |i: u64, out: &mut String| {
        if !first {
            out.push_str(", ");
        }
        first = false;
        let start = (i as usize).saturating_mul(block).min(values.len());
        nested(base, rest, &values[start..], summarise, options, out);
    };
    for i in lead {
        item(i, out);
    }
    if let Some(trail) = trail {
        out.push_str(", ...");
        for i in trail {
            item(i, out);
        }
    }
    out.push(']');
}
