//! `npy show`: an array's values, printed as numpy prints them or as JSON.
//!
//! The text form follows numpy's `str(arr)` (`numpy/_core/arrayprint.py` with the default print
//! options: `linewidth=75`, `threshold=1000`, `edgeitems=3`, `precision=8`,
//! `floatmode='maxprec'`): integers right-aligned to a common width, floats in positional or
//! scientific notation chosen for the whole array as numpy chooses, strings and bytes as Python
//! reprs, records as tuples, datetimes as ISO 8601 strings, and lines wrapped at 75 columns.
//! Floats use the shortest digits of their own type (float16, float32 or float64); longdouble
//! is shown through its nearest float64, so its digits can differ from numpy's.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use npy_core::literal::{write_repr_bytes, write_repr_float, write_repr_str};
use npy_core::{DType, DynArray, DynValue, Primitive, TimeType, TimeUnit, UcsString};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::format::printable;

/// The `--json` encoding, for `npy show --help`.
const JSON_ENCODING: &str = "\
JSON output (--json):
  One object: {\"descr\": ..., \"shape\": [...], \"fortran_order\": bool, \"data\": ...}
    descr          the dtype as the header writes it, without the quotes of a simple one
    shape          the dimensions, outermost first ([] for a 0-d array)
    fortran_order  true when the file stores the data in Fortran (column-major) order
    data           the values as nested lists in logical C order (row-major, whatever the
                   file's order); a 0-d array is the bare value, shape (3, 0) is [[], [], []]
  Values:
    bool                     true / false
    int, uint                JSON integers (exact, 64-bit)
    float16/32/64, longdouble  JSON numbers of the value as float64 (longdouble rounded to the
                             nearest float64); NaN, infinity and -infinity as the strings
                             \"nan\", \"inf\", \"-inf\"
    complex                  [re, im], each part as a float
    datetime64, timedelta64  integer ticks of the dtype's unit; NaT is null
    S (bytes)                a string, one char per byte (latin-1), trailing NULs removed
    U (str)                  a string, trailing NULs removed; a code point that is not a
                             Unicode scalar value (a lone surrogate such as \\ud805, which numpy
                             allows) becomes U+FFFD, the replacement character
    V (void)                 lowercase hex of all the bytes
    record                   an object of the fields by name, in field order (padding skipped)
    subarray field           nested lists of the field's shape
  Object arrays (dtype O) are refused: their data is a pickle, which is never loaded.

Exit status:
  0 on success; 1 when the file cannot be read (the error goes to stderr); 2 for a usage error.";

/// Print an array's values, as numpy prints them or as JSON.
///
/// The text form is numpy's `str(arr)`: arrays of more than 1000 elements are summarised with
/// `...`, keeping 3 items at each edge of each axis (--full prints everything). Lines wrap at 75
/// columns.
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_ENCODING)]
pub struct Args {
    /// The .npy file to show.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Print {"descr", "shape", "fortran_order", "data"} as JSON (encoding: see --help).
    #[arg(long)]
    json: bool,

    /// Print every element, however many (text form; JSON always has every element).
    #[arg(long)]
    full: bool,
}

/// numpy's `threshold`: arrays with more elements are summarised.
const THRESHOLD: usize = 1000;
/// numpy's `edgeitems`.
const EDGE_ITEMS: usize = 3;
/// numpy's `linewidth`.
const LINE_WIDTH: usize = 75;
/// numpy's `precision`: most fractional digits a float shows.
const PRECISION: usize = 8;

/// Runs `npy show`.
pub fn run(args: &Args) -> ExitCode {
    let array = match npy_core::read_dyn(&args.file) {
        // Object arrays decode (npy_core::pickle); printing them comes with the arrayprint split.
        Ok(a) if a.dtype.has_object() => {
            let path = args.file.display().to_string();
            let _ = writeln!(
                io::stderr(),
                "npy: {}: dtype '{}' holds Python objects (a pickle); npy show does not print them yet",
                printable(&path),
                a.dtype
            );
            return ExitCode::FAILURE;
        }
        Ok(a) => a,
        Err(e) => {
            let path = args.file.display().to_string();
            let _ = writeln!(io::stderr(), "npy: {}: {e}", printable(&path));
            return ExitCode::FAILURE;
        }
    };
    // numpy prints any array without elements as `[]`; only JSON spells out the empty lists.
    let no_elements = array.shape.contains(&0);
    if let Err(e) = check_empty_lists(&array).or_else(|e| {
        if no_elements && !args.json {
            Ok(())
        } else {
            Err(e)
        }
    }) {
        let path = args.file.display().to_string();
        let _ = writeln!(io::stderr(), "npy: {}: {e}", printable(&path));
        return ExitCode::FAILURE;
    }
    let text = if args.json {
        match serde_json::to_string(&JsonArray(&array)) {
            Ok(s) => s + "\n",
            Err(e) => {
                let _ = writeln!(io::stderr(), "npy: encoding JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        to_text(&array, args.full) + "\n"
    };
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(io::stderr(), "npy: writing output: {e}");
        }
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Most empty lists (`[]` for an axis of length 0) an output may hold: a shape such as
/// `(10**12, 0)` has no elements, so no data bounds them.
const MAX_EMPTY_LISTS: u64 = 1 << 24;

/// Refuses arrays whose zero-length axes would print more than [`MAX_EMPTY_LISTS`] empty lists.
fn check_empty_lists(a: &DynArray) -> Result<(), String> {
    /// Empty lists of one value of `dtype`.
    fn per_value(dtype: &DType) -> u64 {
        match dtype {
            DType::Record(r) => r
                .fields()
                .iter()
                .fold(0u64, |acc, f| acc.saturating_add(per_value(&f.dtype))),
            DType::SubArray(_) => {
                let mut shape = Vec::new();
                let mut d = dtype;
                while let DType::SubArray(s) = d {
                    shape.extend_from_slice(s.shape());
                    d = s.base();
                }
                let count = shape.iter().fold(1u64, |x, &n| x.saturating_mul(n));
                empty_lists(&shape).saturating_add(count.saturating_mul(per_value(d)))
            }
            _ => 0,
        }
    }
    let n = a.shape.iter().fold(1u64, |x, &d| x.saturating_mul(d));
    let total = empty_lists(&a.shape).saturating_add(n.saturating_mul(per_value(&a.dtype)));
    if total > MAX_EMPTY_LISTS {
        return Err(format!(
            "its zero-length axes would print {total} empty lists (at most {MAX_EMPTY_LISTS} are printed)"
        ));
    }
    Ok(())
}

/// Empty lists in the nested lists of `shape`: the lists just above its first zero-length axis.
fn empty_lists(shape: &[u64]) -> u64 {
    match shape.iter().position(|&d| d == 0) {
        Some(i) => shape[..i].iter().fold(1u64, |x, &d| x.saturating_mul(d)),
        None => 0,
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

/// The whole `--json` object, fields in the documented order.
struct JsonArray<'a>(&'a DynArray);

impl Serialize for JsonArray<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let leaves: Vec<&DynValue> = a.iter_c_order().collect();
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("descr", &a.dtype.to_string())?;
        m.serialize_entry("shape", &a.shape)?;
        m.serialize_entry("fortran_order", &a.fortran_order)?;
        m.serialize_entry(
            "data",
            &Nested {
                shape: &a.shape,
                leaves: &leaves,
            },
        )?;
        m.end()
    }
}

/// Leaves in C order as nested lists of `shape` (the bare leaf for an empty shape).
struct Nested<'a> {
    shape: &'a [u64],
    leaves: &'a [&'a DynValue],
}

impl Serialize for Nested<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some((&n, rest)) = self.shape.split_first() else {
            return match self.leaves.first() {
                Some(v) => Json(v).serialize(s),
                None => s.serialize_none(),
            };
        };
        let block = usize::try_from(rest.iter().product::<u64>()).unwrap_or(usize::MAX);
        let mut seq = s.serialize_seq(usize::try_from(n).ok())?;
        for i in 0..n as usize {
            let start = i.saturating_mul(block).min(self.leaves.len());
            let end = start.saturating_add(block).min(self.leaves.len());
            seq.serialize_element(&Nested {
                shape: rest,
                leaves: &self.leaves[start..end],
            })?;
        }
        seq.end()
    }
}

/// One value in the `--json` encoding (see [`JSON_ENCODING`]). Serialised directly rather than
/// through `serde_json::Value`, whose maps would sort record fields by name.
struct Json<'a>(&'a DynValue);

/// A float: a JSON number, or "nan", "inf", "-inf".
struct JsonFloat(f64);

impl Serialize for JsonFloat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        if x.is_nan() {
            s.serialize_str("nan")
        } else if x.is_infinite() {
            s.serialize_str(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(x)
        }
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            DynValue::Bool(b) => s.serialize_bool(*b),
            DynValue::Int(i) => s.serialize_i64(*i),
            DynValue::UInt(u) => s.serialize_u64(*u),
            DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => {
                JsonFloat(*x).serialize(s)
            }
            DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
                (JsonFloat(*re), JsonFloat(*im)).serialize(s)
            }
            DynValue::Datetime { ticks, .. } | DynValue::Timedelta { ticks, .. } => {
                ticks.serialize(s)
            }
            DynValue::Bytes(b) => {
                s.serialize_str(&b.iter().map(|&c| char::from(c)).collect::<String>())
            }
            DynValue::Str(u) => s.serialize_str(&u.to_string_lossy()),
            DynValue::Void(b) => s.serialize_str(&b.iter().fold(String::new(), |mut h, x| {
                let _ = write!(h, "{x:02x}");
                h
            })),
            DynValue::Record(fields) => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for (name, v) in fields {
                    m.serialize_entry(name, &Json(v))?;
                }
                m.end()
            }
            DynValue::SubArray { shape, values } => {
                let leaves: Vec<&DynValue> = values.iter().collect();
                Nested {
                    shape,
                    leaves: &leaves,
                }
                .serialize(s)
            }
            // Not reached: `run` refuses object arrays until their printing lands.
            DynValue::Object(o) => s.serialize_str(&o.to_string()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text

/// numpy's `str(arr)` for the whole array.
fn to_text(a: &DynArray, full: bool) -> String {
    let leaves: Vec<&DynValue> = a.iter_c_order().collect();
    if a.shape.is_empty() {
        return match leaves.first() {
            Some(v) => scalar_str(&a.dtype, v, full),
            None => String::new(),
        };
    }
    if leaves.is_empty() {
        return "[]".to_owned();
    }
    let summarise = !full && leaves.len() > THRESHOLD;
    let shown: Vec<&DynValue> = if summarise {
        let mut shown = Vec::new();
        leading_trailing(&a.shape, &leaves, &mut shown);
        shown
    } else {
        leaves.clone()
    };
    let fmt = Fmt::new(&a.dtype, &shown, false, full);
    let printer = ArrayPrinter {
        shape: &a.shape,
        leaves: &leaves,
        fmt: &fmt,
        summarise,
    };
    printer.recurse(0, 0, " ", LINE_WIDTH)
}

/// Sizes of the blocks of each axis: `block[i]` is the product of `shape[i + 1..]`.
fn block_sizes(shape: &[u64]) -> Vec<usize> {
    let mut blocks = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        blocks[i] = blocks[i + 1].saturating_mul(shape[i + 1] as usize);
    }
    blocks
}

/// The indices along an axis of length `n` that a summarised print shows.
fn shown_indices(n: usize, summarise: bool) -> (Vec<usize>, bool) {
    if summarise && n > 2 * EDGE_ITEMS {
        let mut v: Vec<usize> = (0..EDGE_ITEMS).collect();
        v.extend(n - EDGE_ITEMS..n);
        (v, true)
    } else {
        ((0..n).collect(), false)
    }
}

/// numpy's `_leading_trailing`: the elements a summarised print shows, in C order.
fn leading_trailing<'a>(shape: &[u64], leaves: &[&'a DynValue], out: &mut Vec<&'a DynValue>) {
    let blocks = block_sizes(shape);
    fn walk<'a>(
        shape: &[u64],
        blocks: &[usize],
        axis: usize,
        offset: usize,
        leaves: &[&'a DynValue],
        out: &mut Vec<&'a DynValue>,
    ) {
        if axis == shape.len() {
            if let Some(v) = leaves.get(offset) {
                out.push(v);
            }
            return;
        }
        for i in shown_indices(shape[axis] as usize, true).0 {
            walk(
                shape,
                blocks,
                axis + 1,
                offset + i * blocks[axis],
                leaves,
                out,
            );
        }
    }
    walk(shape, &blocks, 0, 0, leaves, out);
}

/// numpy's `_formatArray` with separator `' '`.
struct ArrayPrinter<'a> {
    shape: &'a [u64],
    leaves: &'a [&'a DynValue],
    fmt: &'a Fmt,
    summarise: bool,
}

impl ArrayPrinter<'_> {
    fn recurse(&self, axis: usize, offset: usize, hanging: &str, width: usize) -> String {
        let ndim = self.shape.len();
        if axis == ndim {
            return match self.leaves.get(offset) {
                Some(v) => self.fmt.format(v),
                None => String::new(),
            };
        }
        let block: usize = self.shape[axis + 1..]
            .iter()
            .fold(1usize, |a, &d| a.saturating_mul(d as usize));
        let n = self.shape[axis] as usize;
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let (indices, gap) = shown_indices(n, self.summarise);
        let mut s = String::new();
        if n == 0 {
            return "[]".to_owned();
        }
        let child =
            |i: usize| self.recurse(axis + 1, offset + i * block, &next_hanging, next_width);
        if axis + 1 == ndim {
            // The last axis: words wrapped to the line width.
            let elem_width = width.saturating_sub(1);
            let mut line = hanging.to_owned();
            let last = indices.len() - 1;
            for (k, &i) in indices.iter().enumerate() {
                if gap && k == EDGE_ITEMS {
                    extend_line(&mut s, &mut line, "...", elem_width, hanging);
                    line.push(' ');
                }
                let word = child(i);
                extend_line_pretty(&mut s, &mut line, &word, elem_width, hanging);
                if k != last {
                    line.push(' ');
                }
            }
            s.push_str(&line);
        } else {
            // Outer axes: rows separated by as many newlines as axes remain below.
            let line_sep = "\n".repeat(ndim - axis - 1);
            let last = indices.len() - 1;
            for (k, &i) in indices.iter().enumerate() {
                if gap && k == EDGE_ITEMS {
                    s.push_str(hanging);
                    s.push_str("...");
                    s.push_str(&line_sep);
                }
                s.push_str(hanging);
                s.push_str(&child(i));
                if k != last {
                    s.push_str(&line_sep);
                }
            }
        }
        format!("[{}]", &s[hanging.len().min(s.len())..])
    }
}

/// numpy's `_extendLine`.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let needs_wrap = line.chars().count() + word.chars().count() > width
        && line.chars().count() > prefix.chars().count();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_owned();
    }
    line.push_str(word);
}

/// numpy's `_extendLine_pretty`: a word that spans lines keeps its own indentation.
fn extend_line_pretty(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let words: Vec<&str> = word.lines().collect();
    if words.len() <= 1 {
        return extend_line(s, line, word, width, prefix);
    }
    let max_len = words.iter().map(|w| w.chars().count()).max().unwrap_or(0);
    let indent;
    if line.chars().count() + max_len > width && line.chars().count() > prefix.chars().count() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{prefix}{}", words[0]);
        indent = prefix.to_owned();
    } else {
        indent = " ".repeat(line.chars().count());
        line.push_str(words[0]);
    }
    for w in &words[1..] {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = format!("{indent}{w}");
    }
    let last = words.last().map_or(0, |w| w.chars().count());
    line.push_str(&" ".repeat(max_len - last));
}

/// The precision a float was stored with: its shortest digits are those of that type.
#[derive(Debug, Clone, Copy, PartialEq)]
enum FloatKind {
    Half,
    Single,
    Double,
}

impl FloatKind {
    /// Shortest round-trip digits in scientific form: `(negative, digits, exponent)`, the value
    /// being `0.d1d2d3… × 10^(exponent + 1)`, i.e. `d1.d2d3… × 10^exponent`.
    fn shortest(self, x: f64) -> (bool, String, i32) {
        let sci = match self {
            FloatKind::Double => format!("{x:e}"),
            FloatKind::Single => format!("{:e}", x as f32),
            FloatKind::Half => {
                let target = npy_core::half::f16::from_f64(x);
                (0..6)
                    .map(|p| format!("{x:.p$e}"))
                    .find(|s| {
                        s.parse::<f64>()
                            .is_ok_and(|y| npy_core::half::f16::from_f64(y) == target)
                    })
                    .unwrap_or_else(|| format!("{x:e}"))
            }
        };
        split_sci(&sci)
    }
}

/// `"-1.25e-3"` as `(true, "125", -3)`.
fn split_sci(sci: &str) -> (bool, String, i32) {
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci),
    };
    let (mant, exp) = body.split_once('e').unwrap_or((body, "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    (neg, digits, exp.parse().unwrap_or(0))
}

/// A float in numpy's scientific form: sign, integer digit, fractional digits, exponent.
struct Sci {
    neg: bool,
    int: String,
    frac: String,
    exp: i32,
}

/// A float in positional form: sign, integer digits, fractional digits.
struct Pos {
    neg: bool,
    int: String,
    frac: String,
}

/// Scientific digits with at most [`PRECISION`] fractional digits (shortest, else rounded).
fn sci_capped(x: f64, kind: FloatKind) -> Sci {
    let (neg, mut digits, mut exp) = kind.shortest(x);
    if digits.len() > PRECISION + 1 {
        let (_, d, e) = split_sci(&format!("{x:.PRECISION$e}"));
        digits = d.trim_end_matches('0').to_owned();
        if digits.is_empty() {
            digits.push('0');
        }
        exp = e;
    }
    Sci {
        neg,
        int: digits[..1].to_owned(),
        frac: digits[1..].to_owned(),
        exp,
    }
}

/// Scientific digits with exactly `n` fractional digits, from the exact value.
fn sci_exact(x: f64, n: usize) -> Sci {
    let (neg, digits, exp) = split_sci(&format!("{x:.n$e}"));
    Sci {
        neg,
        int: digits[..1].to_owned(),
        frac: digits[1..].to_owned(),
        exp,
    }
}

/// Positional digits with at most [`PRECISION`] fractional digits (shortest, else rounded).
fn pos_capped(x: f64, kind: FloatKind) -> Pos {
    let (neg, digits, exp) = kind.shortest(x);
    let (int, frac) = if exp >= 0 {
        let point = exp as usize + 1;
        if digits.len() <= point {
            (format!("{digits:0<point$}"), String::new())
        } else {
            (digits[..point].to_owned(), digits[point..].to_owned())
        }
    } else {
        let zeros = "0".repeat((-exp - 1) as usize);
        ("0".to_owned(), format!("{zeros}{digits}"))
    };
    let frac = if digits == "0" { String::new() } else { frac };
    if frac.len() <= PRECISION {
        return Pos { neg, int, frac };
    }
    let rounded = format!("{:.PRECISION$}", x.abs());
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, ""));
    Pos {
        neg,
        int: int.to_owned(),
        frac: frac.trim_end_matches('0').to_owned(),
    }
}

fn sign_str(neg: bool, plus: bool) -> &'static str {
    if neg {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    }
}

/// numpy's `FloatingFormat` (floatmode `'maxprec'`, precision 8), fitted to the shown values.
#[derive(Debug, Clone)]
struct FloatFmt {
    kind: FloatKind,
    plus: bool,
    exp: bool,
    pad_left: usize,
    pad_right: usize,
    /// Fractional digits in scientific form.
    digits: usize,
    exp_size: usize,
}

impl FloatFmt {
    fn new(values: &[f64], kind: FloatKind, plus: bool) -> FloatFmt {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let nonzero: Vec<f64> = finite
            .iter()
            .filter(|x| **x != 0.0)
            .map(|x| x.abs())
            .collect();
        let exp = match (
            nonzero.iter().copied().reduce(f64::max),
            nonzero.iter().copied().reduce(f64::min),
        ) {
            (Some(max), Some(min)) => max >= 1e8 || min < 1e-4 || max / min > 1000.0,
            _ => false,
        };
        let mut f = FloatFmt {
            kind,
            plus,
            exp,
            pad_left: 0,
            pad_right: 0,
            digits: 0,
            exp_size: 0,
        };
        if finite.is_empty() {
            f.exp = false;
        } else if exp {
            let parts: Vec<Sci> = finite.iter().map(|&x| sci_capped(x, kind)).collect();
            f.digits = parts.iter().map(|p| p.frac.len()).max().unwrap_or(0);
            f.pad_left = parts
                .iter()
                .map(|p| sign_str(p.neg, plus).len() + p.int.len())
                .max()
                .unwrap_or(0);
            f.exp_size = parts
                .iter()
                .map(|p| p.exp.unsigned_abs().to_string().len().max(2))
                .max()
                .unwrap_or(2);
            f.pad_right = f.exp_size + 2 + f.digits;
        } else {
            let parts: Vec<Pos> = finite.iter().map(|&x| pos_capped(x, kind)).collect();
            f.pad_left = parts
                .iter()
                .map(|p| sign_str(p.neg, plus).len() + p.int.len())
                .max()
                .unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.frac.len()).max().unwrap_or(0);
        }
        if finite.len() < values.len() {
            let neginf = plus || values.contains(&f64::NEG_INFINITY);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + usize::from(neginf)).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = if x.is_nan() {
                format!("{}nan", if self.plus { "+" } else { "" })
            } else {
                format!("{}inf", sign_str(x < 0.0, self.plus))
            };
            return format!("{s:>w$}", w = self.pad_left + self.pad_right + 1);
        }
        if self.exp {
            let mut p = sci_capped(x, self.kind);
            if p.frac.len() < self.digits {
                p = sci_exact(x, self.digits);
            }
            let int = format!("{}{}", sign_str(p.neg, self.plus), p.int);
            format!(
                "{int:>l$}.{}e{}{:0>e$}",
                p.frac,
                if p.exp < 0 { '-' } else { '+' },
                p.exp.unsigned_abs(),
                l = self.pad_left,
                e = self.exp_size
            )
        } else {
            let p = pos_capped(x, self.kind);
            let int = format!("{}{}", sign_str(p.neg, self.plus), p.int);
            format!(
                "{int:>l$}.{:<r$}",
                p.frac,
                l = self.pad_left,
                r = self.pad_right
            )
        }
    }
}

/// A format function fitted to the values shown, per dtype (numpy's `_get_format_function`).
#[derive(Debug, Clone)]
enum Fmt {
    Bool {
        scalar: bool,
    },
    Int {
        width: usize,
    },
    Float(FloatFmt),
    Complex(FloatFmt, FloatFmt),
    Datetime {
        width: usize,
    },
    Timedelta {
        width: usize,
    },
    Bytes,
    Str,
    Void,
    Record(Vec<Fmt>),
    /// The base's format, and whether to print every element (`--full`).
    SubArray(Box<Fmt>, bool),
}

fn float_kind(dtype: &DType) -> FloatKind {
    match dtype {
        DType::Number(Primitive::F16, _) => FloatKind::Half,
        DType::Number(Primitive::F32 | Primitive::C64, _) => FloatKind::Single,
        _ => FloatKind::Double,
    }
}

/// The element dtype of a (possibly nested) subarray dtype.
fn subarray_base(dtype: &DType) -> &DType {
    let mut d = dtype;
    while let DType::SubArray(s) = d {
        d = s.base();
    }
    d
}

impl Fmt {
    /// A format for `values` (all of dtype `dtype`); `scalar` for a 0-d array's element, `full`
    /// to print subarrays whole.
    fn new(dtype: &DType, values: &[&DynValue], scalar: bool, full: bool) -> Fmt {
        match dtype {
            DType::Record(r) => Fmt::Record(
                r.fields()
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let column: Vec<&DynValue> = values
                            .iter()
                            .filter_map(|v| match v {
                                DynValue::Record(fields) => fields.get(i).map(|(_, x)| x),
                                _ => None,
                            })
                            .collect();
                        Fmt::new(&f.dtype, &column, scalar, full)
                    })
                    .collect(),
            ),
            DType::SubArray(_) => {
                let flat: Vec<&DynValue> = values
                    .iter()
                    .flat_map(|v| match v {
                        DynValue::SubArray { values, .. } => values.iter().collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                Fmt::SubArray(
                    Box::new(Fmt::new(subarray_base(dtype), &flat, false, full)),
                    full,
                )
            }
            _ => Fmt::leaf(dtype, values, scalar),
        }
    }

    fn leaf(dtype: &DType, values: &[&DynValue], scalar: bool) -> Fmt {
        let kind = float_kind(dtype);
        let first = values.first().copied();
        match first {
            Some(DynValue::Bool(_)) => Fmt::Bool { scalar },
            Some(DynValue::Int(_) | DynValue::UInt(_)) => {
                let width = values
                    .iter()
                    .map(|v| match v {
                        DynValue::Int(i) => i.to_string().len(),
                        DynValue::UInt(u) => u.to_string().len(),
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0);
                Fmt::Int { width }
            }
            Some(DynValue::Float(_) | DynValue::LongDouble { .. }) => {
                let xs: Vec<f64> = values.iter().filter_map(|v| v.as_f64()).collect();
                Fmt::Float(FloatFmt::new(&xs, kind, false))
            }
            Some(DynValue::Complex(..) | DynValue::CLongDouble { .. }) => {
                let (re, im): (Vec<f64>, Vec<f64>) =
                    values.iter().filter_map(|v| complex(v)).unzip();
                Fmt::Complex(
                    FloatFmt::new(&re, kind, false),
                    FloatFmt::new(&im, kind, true),
                )
            }
            Some(DynValue::Datetime { .. }) => Fmt::Datetime {
                width: time_width(values, |t, ty| format!("'{}'", datetime_iso(t, ty))),
            },
            Some(DynValue::Timedelta { .. }) => Fmt::Timedelta {
                width: time_width(values, |t, _| t.to_string()),
            },
            Some(DynValue::Bytes(_)) => Fmt::Bytes,
            Some(DynValue::Str(_)) => Fmt::Str,
            Some(DynValue::Void(_)) => Fmt::Void,
            // Empty (nothing to fit) or nested values: fitted when formatted.
            _ => match dtype {
                DType::Number(Primitive::Bool, _) => Fmt::Bool { scalar },
                _ => Fmt::Int { width: 0 },
            },
        }
    }

    fn format(&self, v: &DynValue) -> String {
        match (self, v) {
            (Fmt::Bool { scalar }, DynValue::Bool(b)) => match (b, scalar) {
                (true, false) => " True".to_owned(),
                (true, true) => "True".to_owned(),
                (false, _) => "False".to_owned(),
            },
            (Fmt::Int { width }, DynValue::Int(i)) => format!("{i:>width$}"),
            (Fmt::Int { width }, DynValue::UInt(u)) => format!("{u:>width$}"),
            (Fmt::Float(f), v) if v.as_f64().is_some() => f.format(v.as_f64().unwrap_or(0.0)),
            (Fmt::Complex(fr, fi), v) => match complex(v) {
                Some((re, im)) => {
                    let r = fr.format(re);
                    let i = fi.format(im);
                    let sp = i.trim_end().len();
                    format!("{r}{}j{}", &i[..sp], &i[sp..])
                }
                None => fallback(v),
            },
            (Fmt::Datetime { width }, DynValue::Datetime { ticks, unit }) => {
                let s = match ticks {
                    Some(t) => format!("'{}'", datetime_iso(*t, *unit)),
                    None => "'NaT'".to_owned(),
                };
                format!("{s:>width$}")
            }
            (Fmt::Timedelta { width }, DynValue::Timedelta { ticks, .. }) => {
                let s = match ticks {
                    Some(t) => t.to_string(),
                    None => "'NaT'".to_owned(),
                };
                format!("{s:>width$}")
            }
            (Fmt::Bytes, DynValue::Bytes(b)) => {
                let mut s = String::new();
                let _ = write_repr_bytes(&mut s, b);
                s
            }
            (Fmt::Str, DynValue::Str(u)) => repr_ucs(u),
            (Fmt::Void, DynValue::Void(b)) => void_repr(b),
            (Fmt::Record(fmts), DynValue::Record(fields)) => {
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
            (Fmt::SubArray(base, full), DynValue::SubArray { shape, values }) => {
                let summarise = !full && values.len() > THRESHOLD;
                let blocks = block_sizes(shape);
                subarray_str(base, shape, &blocks, 0, 0, values, summarise)
            }
            (_, v) => fallback(v),
        }
    }
}

/// numpy's `SubArrayFormat`: nested lists joined by `", "`, summarised past the threshold.
fn subarray_str(
    base: &Fmt,
    shape: &[u64],
    blocks: &[usize],
    axis: usize,
    offset: usize,
    values: &[DynValue],
    summarise: bool,
) -> String {
    if axis == shape.len() {
        return values
            .get(offset)
            .map_or_else(String::new, |v| base.format(v));
    }
    let (indices, gap) = shown_indices(shape[axis] as usize, summarise);
    let mut parts = Vec::with_capacity(indices.len() + 1);
    for (k, i) in indices.into_iter().enumerate() {
        if gap && k == EDGE_ITEMS {
            parts.push("...".to_owned());
        }
        parts.push(subarray_str(
            base,
            shape,
            blocks,
            axis + 1,
            offset + i * blocks[axis],
            values,
            summarise,
        ));
    }
    format!("[{}]", parts.join(", "))
}

/// A value whose dtype did not fit a format (not expected): its scalar form.
fn fallback(v: &DynValue) -> String {
    format!("{v:?}")
}

fn complex(v: &DynValue) -> Option<(f64, f64)> {
    match *v {
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => Some((re, im)),
        _ => None,
    }
}

/// numpy's `_TimelikeFormat` width: the longer of the largest and smallest value's text, at
/// least 5 (`'NaT'` with its quotes) when there is a NaT.
fn time_width(values: &[&DynValue], text: impl Fn(i64, TimeType) -> String) -> usize {
    let ticks: Vec<(i64, TimeType)> = values
        .iter()
        .filter_map(|v| match v {
            DynValue::Datetime { ticks, unit } | DynValue::Timedelta { ticks, unit } => {
                ticks.map(|t| (t, *unit))
            }
            _ => None,
        })
        .collect();
    let mut width = [
        ticks.iter().max_by_key(|(t, _)| *t),
        ticks.iter().min_by_key(|(t, _)| *t),
    ]
    .into_iter()
    .flatten()
    .map(|&(t, ty)| text(t, ty).chars().count())
    .max()
    .unwrap_or(0);
    if ticks.len() < values.len() {
        width = width.max(5);
    }
    width
}

/// Python's repr of a `U` string; code points that are not chars (lone surrogates) are written
/// as Python writes them, `'\ud805'`.
fn repr_ucs(u: &UcsString) -> String {
    let mut s = String::new();
    if let Ok(text) = u.to_string_strict() {
        let _ = write_repr_str(&mut s, &text);
        return s;
    }
    let has = |c: char| u.code_points().contains(&u32::from(c));
    let quote = if has('\'') && !has('"') { '"' } else { '\'' };
    s.push(quote);
    for &cp in u.code_points() {
        match char::from_u32(cp) {
            Some(c) if c == quote => {
                s.push('\\');
                s.push(c);
            }
            Some(c) if c == '"' || c == '\'' => s.push(c),
            Some(c) => {
                let mut one = String::new();
                let _ = write_repr_str(&mut one, c.encode_utf8(&mut [0; 4]));
                // Strip the quotes the single-char repr put around it.
                let inner = one.get(1..one.len() - 1).unwrap_or("");
                s.push_str(inner);
            }
            None if cp <= 0xFFFF => {
                let _ = write!(s, "\\u{cp:04x}");
            }
            None => {
                let _ = write!(s, "\\U{cp:08x}");
            }
        }
    }
    s.push(quote);
    s
}

/// numpy's repr of a void value: `b'\x00\x0B…'`, every byte in upper-case hex.
fn void_repr(b: &[u8]) -> String {
    let mut s = String::from("b'");
    for x in b {
        let _ = write!(s, "\\x{x:02X}");
    }
    s.push('\'');
    s
}

/// numpy's `str()` of a 0-d array: the scalar's own text.
fn scalar_str(dtype: &DType, v: &DynValue, full: bool) -> String {
    let kind = float_kind(dtype);
    match v {
        DynValue::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        DynValue::Int(i) => i.to_string(),
        DynValue::UInt(u) => u.to_string(),
        DynValue::Float(x) | DynValue::LongDouble { approx: x, .. } => py_float(*x, kind),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            let part = |x: f64| {
                let s = py_float(x, kind);
                s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
            };
            let imag = if im.is_sign_negative() && !im.is_nan() {
                format!("-{}", part(-im))
            } else {
                format!("+{}", part(*im))
            };
            if *re == 0.0 && re.is_sign_positive() {
                format!("{}j", imag.trim_start_matches('+'))
            } else {
                format!("({}{imag}j)", part(*re))
            }
        }
        DynValue::Datetime { ticks, unit } => match ticks {
            Some(t) => datetime_iso(*t, *unit),
            None => "NaT".to_owned(),
        },
        DynValue::Timedelta { ticks, unit } => match ticks {
            Some(t) => {
                let total = i128::from(*t) * i128::from(unit.multiplier);
                format!("{total} {}", unit_name(unit.unit))
            }
            None => "NaT".to_owned(),
        },
        DynValue::Bytes(b) => {
            // numpy 2 prints a 0-d bytes array through the scalar's repr.
            let mut s = String::from("np.bytes_(");
            let _ = write_repr_bytes(&mut s, b);
            s.push(')');
            s
        }
        DynValue::Str(u) => printable(&u.to_string_lossy()).into_owned(),
        DynValue::Void(b) => void_repr(b),
        DynValue::Record(_) | DynValue::SubArray { .. } => {
            Fmt::new(dtype, &[v], true, full).format(v)
        }
        // Not reached: `run` refuses object arrays until their printing lands.
        DynValue::Object(o) => o.to_string(),
    }
}

/// Python's repr of a float stored as `kind`: its shortest digits in repr's layout.
fn py_float(x: f64, kind: FloatKind) -> String {
    let y = match kind {
        FloatKind::Double => x,
        // The f64 nearest the type's shortest decimal repr has that decimal as its repr.
        _ if x.is_finite() => {
            let (neg, digits, exp) = kind.shortest(x);
            let s = format!("{}0.{digits}e{}", if neg { "-" } else { "" }, exp + 1);
            s.parse().unwrap_or(x)
        }
        _ => x,
    };
    let mut s = String::new();
    let _ = write_repr_float(&mut s, y);
    s
}

/// numpy's plural unit names, as `str(np.timedelta64(...))` writes them.
fn unit_name(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::Generic => "generic time units",
        TimeUnit::Year => "years",
        TimeUnit::Month => "months",
        TimeUnit::Week => "weeks",
        TimeUnit::Day => "days",
        TimeUnit::Hour => "hours",
        TimeUnit::Minute => "minutes",
        TimeUnit::Second => "seconds",
        TimeUnit::Millisecond => "milliseconds",
        TimeUnit::Microsecond => "microseconds",
        TimeUnit::Nanosecond => "nanoseconds",
        TimeUnit::Picosecond => "picoseconds",
        TimeUnit::Femtosecond => "femtoseconds",
        TimeUnit::Attosecond => "attoseconds",
    }
}

/// Civil date of a day count since 1970-01-01 (proleptic Gregorian; Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i128) -> (i128, u32, u32) {
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

/// numpy's `datetime_as_string` in the dtype's unit: `2023-12-09`, `2023-11-14T22:13:20`,
/// `1970-01-01T00:00:00.000000000`, `1970-01`, `1970`.
fn datetime_iso(ticks: i64, ty: TimeType) -> String {
    let total = i128::from(ticks) * i128::from(ty.multiplier);
    let date = |days: i128| {
        let (y, m, d) = civil_from_days(days);
        format!("{y:04}-{m:02}-{d:02}")
    };
    // (units per second, fractional digits) for time units; per day for the others.
    let (per_day, frac_digits): (i128, u32) = match ty.unit {
        TimeUnit::Generic => return ticks.to_string(),
        TimeUnit::Year => return format!("{:04}", 1970 + total),
        TimeUnit::Month => {
            let y = 1970 + total.div_euclid(12);
            return format!("{y:04}-{:02}", total.rem_euclid(12) + 1);
        }
        TimeUnit::Week => return date(total * 7),
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
    let days = total.div_euclid(per_day);
    let rem = total.rem_euclid(per_day);
    let mut s = date(days);
    match ty.unit {
        TimeUnit::Hour => {
            let _ = write!(s, "T{rem:02}");
        }
        TimeUnit::Minute => {
            let _ = write!(s, "T{:02}:{:02}", rem / 60, rem % 60);
        }
        _ => {
            let scale = 10i128.pow(frac_digits);
            let secs = rem / scale;
            let _ = write!(
                s,
                "T{:02}:{:02}:{:02}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
            if frac_digits > 0 {
                let _ = write!(s, ".{:0w$}", rem % scale, w = frac_digits as usize);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt_all(xs: &[f64], kind: FloatKind) -> Vec<String> {
        let f = FloatFmt::new(xs, kind, false);
        xs.iter().map(|&x| f.format(x)).collect()
    }

    /// Expected strings are numpy 2.4.6's `str()` of the same arrays.
    #[test]
    fn floats_as_numpy() {
        assert_eq!(
            fmt_all(&[1.5, 2.25, 100.0], FloatKind::Double),
            ["  1.5 ", "  2.25", "100.  "]
        );
        assert_eq!(
            fmt_all(&[1e-5, 1.0], FloatKind::Double),
            ["1.e-05", "1.e+00"]
        );
        assert_eq!(
            fmt_all(&[f64::NAN, f64::INFINITY], FloatKind::Double),
            ["nan", "inf"]
        );
        assert_eq!(
            fmt_all(
                &[0.5, f64::NAN, -0.0, f64::INFINITY, 5.960464477539063e-08],
                FloatKind::Half
            ),
            [" 5.e-01", "    nan", "-0.e+00", "    inf", " 6.e-08"]
        );
        assert_eq!(
            fmt_all(&[f64::from(1.0f32 / 3.0), 0.0], FloatKind::Single),
            ["0.33333334", "0.        "]
        );
    }

    #[test]
    fn datetimes_as_numpy() {
        let t = |unit| TimeType {
            kind: npy_core::TimeKind::Datetime,
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
        assert_eq!(
            datetime_iso(i64::MAX, t(TimeUnit::Year)),
            "9223372036854777777"
        );
    }
}
