//! Comma strings (`'i4,f8'`, `'(2,3)f4, i2'`, `'3<i4'`) and `(type, shape)` tuples, as numpy
//! 2.4.6 reads them: `_check_for_commastring` and `_convert_from_commastring` (`descriptor.c`),
//! `_commastring` (`numpy/_core/_internal.py`) and `_convert_from_tuple`.
//!
//! A comma string is a list of items `[order1][repeats][order2]type` (numpy's `format_re`, see
//! `item`) separated by `\s*,\s*`; `repeats` is a Python literal giving a shape (or, for `S`,
//! `U`, `V` without a size, the size). More than one item, or a trailing comma, makes a record
//! with fields `f0`, `f1`, ...; one item is its own dtype.

use super::{descr_error, parse_type_str, ByteOrder, DType, DescrError, RecordBuilder, SubArray};
use crate::codec::checked_product;
use crate::format::MAX_DIMS;
use crate::literal::{self, Value};

/// numpy's `_check_for_commastring`: a digit first (after an optional byte-order character),
/// `()` first, or a comma outside square brackets.
pub(super) fn is_comma_string(b: &[u8]) -> bool {
    let order = |c: u8| matches!(c, b'<' | b'>' | b'|' | b'=');
    let digit_first = b.first().is_some_and(u8::is_ascii_digit)
        || (b.len() > 1 && b[1].is_ascii_digit() && order(b[0]));
    let parens_first =
        b.starts_with(b"()") || (b.len() > 3 && order(b[0]) && b[1..].starts_with(b"()"));
    let mut depth = 0i64;
    digit_first
        || parens_first
        || b.iter().any(|&c| {
            depth += i64::from(c == b'[') - i64::from(c == b']');
            c == b',' && depth == 0
        })
}

/// Parses a comma string (one for which [`is_comma_string`] holds).
pub(super) fn parse(s: &str) -> Result<DType, DescrError> {
    let bad = |reason: &str| descr_error(&format!("'{s}'"), reason);
    let b = s.as_bytes();
    let mut items = Vec::new();
    let mut at = 0;
    let mut is_list = false;
    while at < b.len() {
        let (item, end) = item(s, at).map_err(&bad)?;
        items.push(item);
        // `\s*,\s*`, or white space to the end.
        let rest = s[end..].trim_start();
        at = s.len() - rest.len();
        if let Some(after) = rest.strip_prefix(',') {
            at = s.len() - after.trim_start().len();
            is_list = true;
        } else if !rest.is_empty() {
            return Err(bad("an item is not followed by a comma"));
        }
    }
    let mut dtypes = items
        .into_iter()
        .map(|(ty, reps)| {
            let base = parse_type_str(&ty)?;
            match reps {
                None => Ok(base),
                Some(r) => with_shape(base, &repeats(r).map_err(|e| bad(&e))?),
            }
        })
        .collect::<Result<Vec<DType>, DescrError>>()?;
    if !is_list {
        // One item at most: a second needs a comma.
        return dtypes.pop().ok_or_else(|| bad("data type not understood"));
    }
    let mut record = RecordBuilder::default();
    for (i, dtype) in dtypes.into_iter().enumerate() {
        record.push(None, compact_str::format_compact!("f{i}"), dtype)?;
    }
    record.finish()
}

/// `ast.literal_eval` of an item's repeats: an int, or a tuple with or without parentheses (`2,3`
/// is `(2, 3)`). The repeats hold only spaces, digits, commas and one pair of parentheses, so in
/// parentheses they are the same expression (`(2)` is still `2`), which the literal parser reads.
fn repeats(r: &str) -> Result<Value, String> {
    if r.trim().is_empty() {
        return Err("repeats are empty".to_owned());
    }
    literal::parse(&format!("({r})"), literal::ParseOptions::default())
        .map_err(|e| format!("repeats {r:?}: {e}"))
}

/// Matches numpy's `format_re` at `at`:
/// `([<>|=]?)( *[(]?[ ,0-9]*[)]? *)([<>|=]?)([A-Za-z0-9.?]*(?:\[[a-zA-Z0-9,.]+\])?)`. Every part
/// is optional, so the greedy match never backtracks. Returns the item (its type string and
/// the literal of its repeats, if any) and where it ends.
fn item(s: &str, at: usize) -> Result<((String, Option<&str>), usize), &'static str> {
    let b = s.as_bytes();
    let mut i = at;
    // The bytes from `i` on that satisfy `f`, at most `max` of them, consumed.
    let take = |i: &mut usize, max: usize, f: &dyn Fn(u8) -> bool| {
        let n = b[*i..].iter().take(max).take_while(|&&c| f(c)).count();
        *i += n;
        &b[*i - n..*i]
    };
    let order = |c: u8| matches!(c, b'<' | b'>' | b'|' | b'=');
    let order1 = take(&mut i, 1, &order).first().copied();
    let rep_start = i;
    take(&mut i, usize::MAX, &|c| c == b' ');
    take(&mut i, 1, &|c| c == b'(');
    take(&mut i, usize::MAX, &|c| {
        c == b' ' || c == b',' || c.is_ascii_digit()
    });
    take(&mut i, 1, &|c| c == b')');
    take(&mut i, usize::MAX, &|c| c == b' ');
    let repeats = &s[rep_start..i];
    let order2 = take(&mut i, 1, &order).first().copied();
    let ty_start = i;
    take(&mut i, usize::MAX, &|c| {
        c.is_ascii_alphanumeric() || c == b'.' || c == b'?'
    });
    if b.get(i) == Some(&b'[') {
        let inner = b[i + 1..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b',' || c == b'.')
            .count();
        if inner > 0 && b.get(i + 1 + inner) == Some(&b']') {
            i += inner + 2;
        }
    }
    let ty = &s[ty_start..i];
    // `_convorder` maps '=' to the machine's order before comparing; '|', '=' and the
    // machine's order then drop out.
    let native = ByteOrder::NATIVE.as_char() as u8;
    let norm = |o: u8| if o == b'=' { native } else { o };
    let order = match (order1, order2) {
        (o, None) | (None, o) => o,
        (Some(a), Some(b)) if norm(a) == norm(b) => Some(norm(a)),
        _ => return Err("inconsistent byte-order specification"),
    };
    let prefix = match order {
        Some(o) if o != b'|' && o != b'=' && o != native => (o as char).to_string(),
        _ => String::new(),
    };
    let repeats = (!repeats.is_empty()).then_some(repeats);
    Ok(((prefix + ty, repeats), i))
}

/// numpy's `_convert_from_tuple` for `(base, shape)`: an int sizes a flexible type without a
/// size (`('S', 5)` is `'|S5'`) and is otherwise a 1-d shape; a tuple or list is a shape (the
/// empty one gives `base` itself).
pub(crate) fn with_shape(base: DType, shape: &Value) -> Result<DType, DescrError> {
    let bad = |reason: &str| descr_error(&format!("({base}, {shape})"), reason);
    if base.is_unsized() {
        let Value::Int(n) = shape else {
            return Err(bad("invalid itemsize in generic type tuple"));
        };
        let per = if base.kind() == 'U' { 4 } else { 1 };
        let n = u64::try_from(*n)
            .ok()
            .filter(|n| n.checked_mul(per).is_some_and(|b| i32::try_from(b).is_ok()))
            .ok_or_else(|| bad("invalid itemsize in generic type tuple"))?;
        return Ok(match base {
            DType::Bytes(_) => DType::Bytes(n),
            DType::Unicode(_, o) => DType::Unicode(n, o),
            _ => DType::Void(n),
        });
    }
    let dims = match shape {
        Value::Int(_) => std::slice::from_ref(shape),
        Value::Tuple(items) | Value::List(items) => &items[..],
        _ => return Err(bad("invalid shape in fixed-type tuple")),
    };
    let dims = dims
        .iter()
        .map(|d| match d {
            Value::Int(i) => u64::try_from(*i)
                .map_err(|_| bad("invalid shape in fixed-type tuple: dimension smaller than zero")),
            _ => Err(bad("invalid shape in fixed-type tuple")),
        })
        .collect::<Result<Vec<u64>, DescrError>>()?;
    subarray_or_base(base, dims)
}

/// `(base, shape)` as numpy's `np.dtype((base, shape))` for a tuple shape: the base itself for
/// an empty shape, else a subarray within numpy's limits (at most 64 dimensions, each and the
/// whole itemsize in a C int).
pub(crate) fn subarray_or_base(base: DType, shape: Vec<u64>) -> Result<DType, DescrError> {
    let c_int = i32::MAX as u64;
    let reason = if base.is_unsized() {
        "invalid itemsize in generic type tuple" // even for an empty shape
    } else if shape.is_empty() {
        return Ok(base);
    } else if shape.len() > MAX_DIMS {
        "invalid shape in fixed-type tuple (more than 64 dimensions)"
    } else if shape.iter().any(|&d| d > c_int) {
        "invalid shape in fixed-type tuple: dimension does not fit into a C int"
    } else if checked_product(base.itemsize(), &shape).is_none_or(|n| n > c_int) {
        "invalid shape in fixed-type tuple: dtype size in bytes must fit into a C int"
    } else {
        return Ok(DType::SubArray(SubArray::new(base, shape)?));
    };
    Err(descr_error(&base.to_string(), reason))
}
