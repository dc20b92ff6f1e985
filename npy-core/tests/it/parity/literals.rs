//! The Python-literal side of a header: `fixtures/parity/literals.json` holds what Python's
//! `ast.literal_eval` makes of string literals in every escape form (`\x`, `\u`, `\U`, octal,
//! `\N{...}` with names, aliases, Hangul and CJK names), raw and bytes prefixes, quotes,
//! implicit concatenation and line continuations, and of headers written with them. Every
//! row is checked both ways.

use npy_core::literal::{parse, LiteralErrorKind, ParseOptions, Value};
use serde_json::Value as Json;

use super::support::{report, rows};

/// The value a row's tagged JSON describes; `Err` for what a `String` cannot hold (a lone
/// surrogate, which Python allows in `str`).
fn value(j: &Json) -> Result<Value, &'static str> {
    let (tag, v) = j
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("a tagged value");
    let list = |v: &Json| -> Result<Vec<Value>, &'static str> {
        v.as_array().expect("items").iter().map(value).collect()
    };
    Ok(match tag.as_str() {
        "none" => Value::None,
        "bool" => Value::Bool(v.as_bool().expect("bool")),
        "int" => Value::Int(v.as_str().expect("int").parse().expect("an i128")),
        "str" => Value::Str(
            v.as_array()
                .expect("code points")
                .iter()
                .map(|c| char::from_u32(c.as_u64().expect("code point") as u32))
                .collect::<Option<String>>()
                .ok_or("a lone surrogate")?,
        ),
        "bytes" => Value::Bytes(
            v.as_array()
                .expect("bytes")
                .iter()
                .map(|b| b.as_u64().expect("byte") as u8)
                .collect(),
        ),
        "tuple" => Value::Tuple(list(v)?),
        "list" => Value::List(list(v)?),
        "dict" => Value::Dict(
            v.as_array()
                .expect("items")
                .iter()
                .map(|kv| Ok((value(&kv[0])?, value(&kv[1])?)))
                .collect::<Result<_, &'static str>>()?,
        ),
        other => panic!("tag {other} is not used by the table"),
    })
}

#[test]
fn every_literal_as_python() {
    let rows = rows("literals.json", "rows");
    let mut failures = Vec::new();
    for row in &rows {
        let text = row["text"].as_str().expect("text");
        let ours = parse(text, ParseOptions::default());
        let problem = match (row["ok"].as_bool().expect("ok"), &ours) {
            (true, _) => match (value(&row["value"]), &ours) {
                (Ok(want), Ok(got)) => (want != *got).then(|| format!("{got:?}, Python {want:?}")),
                (Ok(want), Err(e)) => Some(format!("refused ({e}), Python {want:?}")),
                // A `str` holding a lone surrogate: refused, by name.
                (Err(_), Err(e)) if matches!(e.kind, LiteralErrorKind::InvalidCodePoint) => None,
                (Err(why), other) => Some(format!("{other:?}, Python holds {why}")),
            },
            (false, Ok(v)) => Some(format!("accepted as {v:?}, Python: {}", row["error"])),
            (false, Err(_)) => None,
        };
        if let Some(p) = problem {
            failures.push(format!("{text:?}: {p}"));
        }
    }
    report("literals", rows.len(), &failures);
}
