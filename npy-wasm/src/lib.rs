//! NumPy `.npy` and `.npz` files in JavaScript, through WebAssembly: the Rust half of the npm
//! package `npy-wasm` (its JavaScript half, `js/index.js`, turns what these functions return
//! into typed arrays, strings and objects; see `README.md`).
//!
//! Everything here is parsing in memory with the workspace's crates: npy-core reads the header
//! and the data ([`npy_core::NpyReader`], [`npy_core::DynArray`]'s columns), npy-npz the
//! archives ([`npy_npz::NpzArchive`], whose whole-member inflate is zlib-rs on `wasm32`),
//! npy-pickle object arrays (a decoder that never executes anything; feature `pickle`), and
//! npy-print numpy's `str()`. Every error is a JavaScript `Error` whose message is the crate's
//! error message (what the file holds and what was asked).
//!
//! The functions are the package's internals (their JavaScript names start with `_`); the
//! package's API is `parse`, `openNpz`, `fetchNpy`, `fetchNpz`, `toNpy` in `js/index.js`.

#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::fmt::Display;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect, Uint16Array, Uint32Array, Uint8Array};
use npy_core::{
    dtype::Primitive, dynamic::Column, ByteOrder, DType, DynArray, DynValue, Header, NpyReader,
};
use wasm_bindgen::prelude::*;

/// The most rounds of "fetch the range the reader asked for, then try again" that
/// [`RangeArchive`] allows for one open or one member read: the zip end record, the central
/// directory, a local header and the member's bytes take four; a reader asking for more is
/// refused rather than looping.
pub const MAX_RANGE_ROUNDS: u32 = 16;

fn js_err(e: impl Display) -> JsError {
    JsError::new(&e.to_string())
}

fn set(o: &Object, key: &str, value: impl Into<JsValue>) {
    // `Reflect::set` fails only on frozen objects and proxies; these are fresh plain objects.
    let _ = Reflect::set(o, &JsValue::from_str(key), &value.into());
}

/// A `u64` as a JavaScript number: exact up to 2^53, which every size and shape of a file
/// that fits a `wasm32` memory is.
fn num(v: u64) -> JsValue {
    JsValue::from_f64(v as f64)
}

fn shape_array(shape: &[u64]) -> Array {
    shape.iter().map(|&d| num(d)).collect()
}

/// numpy's `dtype.name`: `float32`, `datetime64[10ms]`, `str160` (`<U5`), `bytes56` (`|S7`),
/// `void128` for a 16-byte record, `object`, and ml_dtypes' names.
fn dtype_name(d: &DType) -> String {
    let bits = d.itemsize().saturating_mul(8);
    match d {
        DType::Number(p, _) => match (p.canonical(), p) {
            (Some(c), _) => c.name().to_owned(),
            (None, Primitive::CLongDouble { .. }) => format!("complex{bits}"),
            (None, _) => format!("float{bits}"),
        },
        DType::Time(t, _) => {
            let s = t.to_string();
            let kind = match t.kind {
                npy_core::dtype::TimeKind::Datetime => "datetime64",
                npy_core::dtype::TimeKind::Timedelta => "timedelta64",
            };
            format!("{kind}{}", &s[2..])
        }
        DType::Bytes(_) => format!("bytes{bits}"),
        DType::Unicode(..) => format!("str{bits}"),
        DType::Void(_) | DType::Record(_) | DType::SubArray(_) => format!("void{bits}"),
        DType::Object => "object".to_owned(),
        DType::Ml(m) => m.name().to_owned(),
    }
}

/// The time unit of a datetime or timedelta dtype as numpy writes it in brackets (`D`,
/// `10ms`), `""` for the generic unit.
fn time_unit(t: npy_core::dtype::TimeType) -> String {
    let s = t.to_string();
    s.get(3..s.len().saturating_sub(1)).unwrap_or("").to_owned()
}

/// The JavaScript typed array that holds a number dtype's values in place, when there is one
/// (complex: two values per element; `f2`: `Float16Array`, or the package's fallback).
fn typed_array_name(p: Primitive) -> Option<&'static str> {
    Some(match p {
        Primitive::Bool | Primitive::U8 => "Uint8Array",
        Primitive::I8 => "Int8Array",
        Primitive::I16 => "Int16Array",
        Primitive::U16 => "Uint16Array",
        Primitive::I32 => "Int32Array",
        Primitive::U32 => "Uint32Array",
        Primitive::I64 => "BigInt64Array",
        Primitive::U64 => "BigUint64Array",
        Primitive::F16 => "Float16Array",
        Primitive::F32 | Primitive::C64 => "Float32Array",
        Primitive::F64 | Primitive::C128 => "Float64Array",
        Primitive::LongDouble { .. } | Primitive::CLongDouble { .. } => return None,
    })
}

/// How the JavaScript side presents a number or datetime dtype's values: `kind`, the typed
/// array, and the time unit; `None` for other dtypes.
fn plain_layout(base: &DType) -> Option<(&'static str, &'static str, Option<String>)> {
    match base {
        DType::Number(p, _) => {
            let ctor = typed_array_name(*p)?;
            let kind = match p {
                Primitive::Bool => "bool",
                Primitive::F16 => "float16",
                Primitive::C64 | Primitive::C128 => "complex",
                _ => "number",
            };
            Some((kind, ctor, None))
        }
        DType::Time(t, _) => Some(("time", "BigInt64Array", Some(time_unit(*t)))),
        _ => None,
    }
}

/// Sets `kind`, `ctor` (and `unit`) of [`plain_layout`] on `o`; `false` for other dtypes.
fn layout_of(base: &DType, o: &Object) -> bool {
    let Some((kind, ctor, unit)) = plain_layout(base) else {
        return false;
    };
    set(o, "kind", kind);
    set(o, "ctor", ctor);
    if let Some(u) = unit {
        set(o, "unit", u);
    }
    true
}

/// `s` as a JSON string literal.
fn json_str(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The header's facts as the JavaScript side uses them, as JSON (one string crosses into
/// JavaScript and one `JSON.parse` makes the object: a tenth of the time of setting each
/// property from wasm, which was most of a zero-copy parse).
fn header_json(h: &Header, data_offset: u64) -> Result<String, JsError> {
    use std::fmt::Write as _;
    let d = &h.dtype;
    let count = h
        .shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| JsError::new("the shape's element count overflows"))?;
    let nbytes = count
        .checked_mul(d.itemsize())
        .ok_or_else(|| JsError::new("the array's byte size overflows"))?;
    let mut o = String::with_capacity(256);
    o.push_str("{\"descr\":");
    json_str(&mut o, &d.to_string());
    o.push_str(",\"name\":");
    json_str(&mut o, &dtype_name(d));
    o.push_str(",\"shape\":[");
    for (i, n) in h.shape.iter().enumerate() {
        let _ = write!(o, "{}{n}", if i > 0 { "," } else { "" });
    }
    let _ = write!(
        o,
        "],\"fortranOrder\":{},\"dataOffset\":{data_offset},\"itemsize\":{},\"count\":{count},\"nbytes\":{nbytes},\"hasObject\":{},\"plain\":",
        h.fortran_order,
        d.itemsize(),
        has_object(d)
    );
    // Values the JavaScript side views in place: numbers and datetimes stored little-endian
    // (every JavaScript engine's order) or in no order at all.
    let native = matches!(d.byte_order(), ByteOrder::Little | ByteOrder::NotApplicable);
    match (native, plain_layout(d)) {
        (true, Some((kind, ctor, unit))) => {
            let _ = write!(o, "{{\"kind\":\"{kind}\",\"ctor\":\"{ctor}\"");
            if let Some(u) = unit {
                o.push_str(",\"unit\":");
                json_str(&mut o, &u);
            }
            o.push('}');
        }
        _ => o.push_str("null"),
    }
    o.push('}');
    Ok(o)
}

fn has_object(d: &DType) -> bool {
    match d {
        DType::Object => true,
        DType::Record(r) => r.fields().iter().any(|f| has_object(&f.dtype)),
        DType::SubArray(s) => has_object(s.flatten().1),
        _ => false,
    }
}

/// Bytes from the start of a `.npy` file to its data, from the file's first bytes (at least
/// 12; the magic, the version and the header length): how much [`read_header`] needs.
///
/// # Errors
/// Fewer than 12 bytes, a file that does not start with numpy's magic, an unknown version.
fn header_length(prefix: &[u8]) -> Result<f64, JsError> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if prefix.len() < 10 {
        return Err(JsError::new(&format!(
            "not a .npy file: {} bytes, the smallest header takes 10",
            prefix.len()
        )));
    }
    if &prefix[..6] != MAGIC {
        return Err(JsError::new(
            "not a .npy file: it does not start with numpy's magic \\x93NUMPY",
        ));
    }
    let (len, start) = match prefix[6] {
        1 => (u64::from(u16::from_le_bytes([prefix[8], prefix[9]])), 10u64),
        2 | 3 if prefix.len() >= 12 => (
            u64::from(u32::from_le_bytes([
                prefix[8], prefix[9], prefix[10], prefix[11],
            ])),
            12,
        ),
        2 | 3 => {
            return Err(JsError::new(
                "not a .npy file: 10 bytes, a version 2.0 or 3.0 header takes 12",
            ))
        }
        v => {
            return Err(JsError::new(&format!(
                "unsupported .npy format version {v}.{}",
                prefix[7]
            )))
        }
    };
    Ok((start + len) as f64)
}

/// Parses the header at the start of `prefix` (the file's first bytes: any number, the whole
/// header when they hold it) of a file of `file_len` bytes (`-1`: unknown), checking that the
/// file holds the data the header describes (for dtypes without objects: an object array's
/// data is a pickle, whose length the header does not give).
///
/// Returns JSON: `{"need": n}` when the header takes `n` bytes, more than `prefix` holds (the
/// caller reads them and asks again); else `{descr, name, shape, fortranOrder, dataOffset,
/// itemsize, count, nbytes, hasObject, plain}`, `plain` being `{kind, ctor, unit?}` when the
/// values can be viewed in place as a typed array (little-endian or byte-order-less numbers
/// and datetimes), else `null`.
///
/// # Errors
/// Not a `.npy` file (no magic, an unknown version, too few bytes); npy-core's header errors (truncated, malformed dict, unknown dtype,
/// limits); a file shorter than its header says.
#[wasm_bindgen(js_name = "_readHeader")]
pub fn read_header(prefix: &[u8], file_len: f64) -> Result<String, JsError> {
    let need = header_length(prefix)?;
    if need > prefix.len() as f64 {
        if file_len >= 0.0 && need > file_len {
            return Err(JsError::new(&format!(
                "truncated .npy file: its header takes {need} bytes, the file has {file_len}"
            )));
        }
        return Ok(format!("{{\"need\":{need}}}"));
    }
    let parsed = Header::read(&mut &prefix[..need as usize]).map_err(js_err)?;
    // An object array's data (records with object fields too) is one pickle, of any length:
    // not 8 bytes an element. Its decoder finds a short one, naming what it was reading.
    if file_len >= 0.0 && !has_object(&parsed.header.dtype) {
        parsed.check_data_len(file_len as u64).map_err(js_err)?;
    }
    header_json(&parsed.header, parsed.data_offset())
}

/// Code points as UTF-16 units: surrogate code points stay single units, values past
/// U+10FFFF (which no string holds) become U+FFFD.
fn push_utf16(units: &mut Vec<u16>, cp: u32) {
    match char::from_u32(cp) {
        Some(c) => {
            let mut b = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut b));
        }
        None if cp <= 0xFFFF => units.push(cp as u16),
        None => units.push(0xFFFD),
    }
}

/// How a string column's elements store their characters: `U` code points (4 bytes each, in
/// the given byte order) or `S` bytes (latin-1, one character a byte).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chars {
    Ucs4 { big: bool },
    Latin1,
}

/// Where a string column's elements are: in each of the rows of `stride` bytes of `data`,
/// the `width` bytes from `offset` hold `width / size` strings of `size` bytes.
#[derive(Clone, Copy)]
struct StringLayout<'a> {
    data: &'a [u8],
    stride: usize,
    offset: usize,
    width: usize,
    size: usize,
}

/// Character `c` (`UNIT` bytes, big-endian or little-endian).
#[inline]
fn code<const UNIT: usize, const BIG: bool>(c: &[u8]) -> u32 {
    match (c, BIG) {
        ([b], _) => u32::from(*b),
        (&[a, b, c, d], false) => u32::from_le_bytes([a, b, c, d]),
        (&[a, b, c, d], true) => u32::from_be_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// A string column being gathered: one text (bytes while every character is ASCII, UTF-16
/// units from the first that is not) and the offset of each string's end (`n + 1` offsets
/// from 0), which the JavaScript side decodes once and slices: numpy's `item()` values,
/// trailing NULs removed; `S` bytes as latin-1 (one character a byte).
struct StringsOut {
    chars: Chars,
    ascii: Vec<u8>,
    /// The text once a character past ASCII came (the ASCII before it widened).
    units: Option<Vec<u16>>,
    /// Whether a surrogate code point (U+D800 to U+DFFF) came: a `U` string holds them as
    /// Python's `str` does, and the JavaScript side must then keep each as its own UTF-16
    /// unit (its `TextDecoder` would make a lone one U+FFFD).
    surrogates: bool,
    ends: Vec<u32>,
}

impl StringsOut {
    /// For `count` strings of `size` bytes each, stored as `chars`.
    fn new(count: usize, size: usize, chars: Chars) -> StringsOut {
        let unit = if chars == Chars::Latin1 { 1 } else { 4 };
        let mut ends = Vec::with_capacity(count.saturating_add(1));
        ends.push(0);
        StringsOut {
            chars,
            // Characters in all, which bounds the text.
            ascii: Vec::with_capacity(count.saturating_mul(size / unit)),
            units: None,
            surrogates: false,
            ends,
        }
    }

    /// Appends the strings at `at` (of this column's `chars`); strings of no bytes are
    /// empty, `count` of them.
    fn push(&mut self, at: &StringLayout<'_>, count: usize) {
        if at.size == 0 || at.stride == 0 {
            let end = *self.ends.last().unwrap_or(&0);
            self.ends.resize(self.ends.len().saturating_add(count), end);
            return;
        }
        match self.chars {
            Chars::Ucs4 { big: false } => self.push_in::<4, false>(at),
            Chars::Ucs4 { big: true } => self.push_in::<4, true>(at),
            Chars::Latin1 => self.push_in::<1, false>(at),
        }
    }

    fn push_in<const UNIT: usize, const BIG: bool>(&mut self, at: &StringLayout<'_>) {
        if UNIT == 4 && !BIG && self.push_words(at) {
            return;
        }
        for row in at.data.chunks_exact(at.stride) {
            for el in row[at.offset..at.offset + at.width].chunks_exact(at.size) {
                let mut len = el.len() / UNIT;
                while len > 0 && code::<UNIT, BIG>(&el[(len - 1) * UNIT..len * UNIT]) == 0 {
                    len -= 1;
                }
                self.push_string(el[..len * UNIT].chunks_exact(UNIT).map(code::<UNIT, BIG>));
            }
        }
    }

    /// [`StringsOut::push`] of little-endian `U` strings whose code points are 4-byte aligned
    /// in memory (`np.save`'s records of 4-byte multiples, read into wasm's memory): word
    /// loads. `false` (nothing done) when they are not aligned.
    fn push_words(&mut self, at: &StringLayout<'_>) -> bool {
        if ![at.stride, at.offset, at.width, at.size]
            .iter()
            .all(|v| v.is_multiple_of(4))
        {
            return false;
        }
        let Ok(words) = npy_core::bytemuck::try_cast_slice::<u8, u32>(at.data) else {
            return false;
        };
        let (stride, offset, width, chars) =
            (at.stride / 4, at.offset / 4, at.width / 4, at.size / 4);
        for row in words.chunks_exact(stride) {
            for el in row[offset..offset + width].chunks_exact(chars) {
                let mut len = el.len();
                while len > 0 && el[len - 1] == 0 {
                    len -= 1;
                }
                self.push_string(el[..len].iter().map(|&c| u32::from_le(c)));
            }
        }
        true
    }

    /// Appends one string, its code points `cps`.
    #[inline]
    fn push_string(&mut self, cps: impl Iterator<Item = u32> + Clone) {
        if self.units.is_none() {
            // Written as bytes, and taken back when one was past ASCII.
            let start = self.ascii.len();
            let mut any = 0;
            self.ascii.extend(cps.clone().map(|c| {
                any |= c;
                c as u8
            }));
            if any < 0x80 {
                self.ends.push(self.ascii.len() as u32);
                return;
            }
            self.ascii.truncate(start);
            // Past ASCII: the text so far, one unit a character, in UTF-16.
            let mut units = Vec::with_capacity(self.ascii.capacity());
            units.extend(self.ascii.iter().map(|&b| u16::from(b)));
            self.ascii = Vec::new();
            self.units = Some(units);
        }
        let units = self.units.get_or_insert_with(Vec::new);
        for cp in cps {
            if cp < 0xD800 {
                // One UTF-16 unit, no char conversion.
                units.push(cp as u16);
            } else {
                self.surrogates |= cp < 0xE000;
                push_utf16(units, cp);
            }
        }
        self.ends.push(units.len() as u32);
    }

    /// Sets `kind: "strings"`, `ascii` or `text` (and `surrogates: true` when the text holds
    /// a surrogate code point, which may be a lone one), and `ends` on `o`.
    fn finish(self, o: &Object) {
        set(o, "kind", "strings");
        match self.units {
            Some(units) => set(o, "text", Uint16Array::from(&units[..])),
            None => set(o, "ascii", Uint8Array::from(&self.ascii[..])),
        }
        if self.surrogates {
            set(o, "surrogates", true);
        }
        set(o, "ends", Uint32Array::from(&self.ends[..]));
    }
}

/// A leaf's dtype with numbers, datetimes and `U` strings in the machine's byte order (what
/// npy-core's columns hold, and what the JavaScript side describes), and the size of the unit
/// swapped to get there from the file's order (0: none).
fn native_base(base: &DType) -> (DType, usize) {
    let native = |o: ByteOrder| o == ByteOrder::NATIVE || o == ByteOrder::NotApplicable;
    match base {
        DType::Number(p, o) if !native(*o) => {
            let unit = match p {
                Primitive::C64 => 4,
                Primitive::C128 => 8,
                Primitive::LongDouble { .. } | Primitive::CLongDouble { .. } => {
                    return (base.clone(), 0)
                }
                p => p.itemsize() as usize,
            };
            (DType::Number(*p, ByteOrder::NATIVE), unit)
        }
        DType::Time(t, o) if !native(*o) => (DType::Time(*t, ByteOrder::NATIVE), 8),
        DType::Unicode(n, o) if !native(*o) => (DType::Unicode(*n, ByteOrder::NATIVE), 4),
        d => (d.clone(), 0),
    }
}

/// A column's description for the JavaScript side: `{path, subshape, count, descr, name}`;
/// `base` is the leaf's dtype without its subarray shape, in the column's byte order.
fn column_head(path: &[String], subshape: &[u64], base: &DType, count: usize) -> Object {
    let o = Object::new();
    let path: Array = path.iter().map(|s| JsValue::from_str(s)).collect();
    set(&o, "path", path);
    set(&o, "subshape", shape_array(subshape));
    set(&o, "count", num(count as u64));
    set(&o, "descr", base.to_string());
    set(&o, "name", dtype_name(base));
    o
}

/// One column of a [`DynArray`] for the JavaScript side: `{path, subshape, kind, ...}`.
fn column_object(col: &Column) -> Object {
    let (subshape, base) = match col.dtype() {
        DType::SubArray(s) => {
            let (shape, base) = s.flatten();
            (shape, base.clone())
        }
        d => (Vec::new(), d.clone()),
    };
    let o = column_head(col.path(), &subshape, &base, col.len());
    if layout_of(&base, &o) {
        set(&o, "bytes", Uint8Array::from(col.bytes()));
        return o;
    }
    match &base {
        DType::Unicode(..) | DType::Bytes(_) => {
            let chars = if matches!(base, DType::Unicode(..)) {
                // The column holds code points in the machine's order.
                Chars::Ucs4 {
                    big: ByteOrder::NATIVE == ByteOrder::Big,
                }
            } else {
                Chars::Latin1
            };
            // Strings in all: the elements times a subarray field's values per element.
            let count = (subshape.iter().product::<u64>() as usize).saturating_mul(col.len());
            let size = base.itemsize() as usize;
            let at = StringLayout {
                data: col.bytes(),
                stride: col.width(),
                offset: 0,
                width: col.width(),
                size,
            };
            let mut out = StringsOut::new(count, size, chars);
            out.push(&at, count);
            out.finish(&o);
        }
        DType::Void(n) => {
            set(&o, "kind", "void");
            set(&o, "width", num(*n));
            set(&o, "bytes", Uint8Array::from(col.bytes()));
        }
        _ => {
            // Longdouble, ml_dtypes, subarrays of records, objects: element by element.
            set(&o, "kind", "values");
            let values: Array = (0..col.len())
                .map(|i| col.value(i).map_or(JsValue::UNDEFINED, |v| dyn_to_js(&v)))
                .collect();
            set(&o, "values", values);
        }
    }
    o
}

/// An integer as a JavaScript number when exact (|v| ≤ 2^53), else a `BigInt`.
fn int_to_js(v: i128) -> JsValue {
    const SAFE: i128 = 1 << 53;
    if (-SAFE..=SAFE).contains(&v) {
        JsValue::from_f64(v as f64)
    } else {
        js_sys::BigInt::from(v).into()
    }
}

fn latin1(b: &[u8]) -> JsValue {
    let s: String = b.iter().map(|&c| char::from(c)).collect();
    JsValue::from_str(&s)
}

/// Nests `values` (C order) by `shape`, as numpy's `tolist()` does.
fn nest(values: &[JsValue], shape: &[u64]) -> JsValue {
    match shape {
        [] => values.first().cloned().unwrap_or(JsValue::UNDEFINED),
        [_] => values.iter().cloned().collect::<Array>().into(),
        [n, rest @ ..] => {
            let step = rest.iter().product::<u64>() as usize;
            let out = Array::new();
            for i in 0..*n as usize {
                let part = values.get(i * step..(i + 1) * step).unwrap_or(&[]);
                out.push(&nest(part, rest));
            }
            out.into()
        }
    }
}

/// A value as numpy's `tolist()` would give it, in JavaScript terms: numbers (integers past
/// 2^53 as `BigInt`), `[re, im]` for complex, datetimes as `BigInt` ticks (`null` for NaT),
/// strings, latin-1 strings for `S`, `Uint8Array` for `V`, objects for records, nested arrays
/// for subarrays.
fn dyn_to_js(v: &DynValue) -> JsValue {
    match v {
        DynValue::Bool(b) => JsValue::from_bool(*b),
        DynValue::Int(i) => int_to_js(i128::from(*i)),
        DynValue::UInt(u) => int_to_js(i128::from(*u)),
        DynValue::Float(f) => JsValue::from_f64(*f),
        DynValue::LongDouble { approx, .. } => JsValue::from_f64(*approx),
        DynValue::Complex(re, im) | DynValue::CLongDouble { re, im, .. } => {
            Array::of2(&JsValue::from_f64(*re), &JsValue::from_f64(*im)).into()
        }
        DynValue::Datetime { ticks, .. } | DynValue::Timedelta { ticks, .. } => {
            ticks.map_or(JsValue::NULL, |t| js_sys::BigInt::from(t).into())
        }
        DynValue::Bytes(b) => latin1(b),
        DynValue::Str(s) => {
            let mut units = Vec::with_capacity(s.len());
            for &cp in s.code_points() {
                push_utf16(&mut units, cp);
            }
            JsValue::from(js_sys::JsString::from_char_code(&units))
        }
        DynValue::Void(b) => Uint8Array::from(&b[..]).into(),
        DynValue::Record(fields) => {
            let o = Object::new();
            for (name, value) in fields {
                set(&o, name, dyn_to_js(value));
            }
            o.into()
        }
        DynValue::SubArray { shape, values } => {
            let vals: Vec<JsValue> = values.iter().map(dyn_to_js).collect();
            nest(&vals, shape)
        }
        DynValue::Object(o) => {
            #[cfg(feature = "pickle")]
            if let Some(py) = npy_pickle::PyObject::of(v) {
                return py_to_js(py);
            }
            // No read of this build makes any other object: its text.
            JsValue::from_str(&npy_print::repr(&**o).to_string())
        }
    }
}

/// A Python object decoded from an object array's pickle, as a JavaScript value: `None` →
/// `null`, `bool`, `int` (a `BigInt` past 2^53), `float`, `complex` → `[re, im]`, `str`,
/// `bytes`/`bytearray` → `Uint8Array`, `list`/`tuple`/`set`/`frozenset` → `Array`, `dict` →
/// `Map`, numpy arrays → the package's parse result shape (`{dtype, shape, data}` nested
/// lists), numpy scalars → their value (datetime64 / timedelta64 scalars → `{type:
/// "datetime64" | "timedelta64", unit, value}`, `value` a `BigInt` of ticks or `null` for
/// NaT, `unit` as numpy writes it in brackets), anything else (ranges, slices, dtypes, allowed
/// globals) → `{type, repr}` with Python's `repr()`.
#[cfg(feature = "pickle")]
fn py_to_js(py: &npy_pickle::PyObject) -> JsValue {
    use npy_pickle::PyObject as P;
    match py {
        P::None => JsValue::NULL,
        P::Bool(b) => JsValue::from_bool(*b),
        P::Int(i) => int_to_js(i128::from(*i)),
        P::BigInt(b) => js_sys::BigInt::new(&JsValue::from_str(&b.to_string()))
            .map_or(JsValue::UNDEFINED, JsValue::from),
        P::Float(f) => JsValue::from_f64(*f),
        P::Complex(re, im) => Array::of2(&JsValue::from_f64(*re), &JsValue::from_f64(*im)).into(),
        P::Str(s) => JsValue::from_str(s),
        P::Bytes(b) | P::ByteArray(b) => Uint8Array::from(&b[..]).into(),
        P::List(v) | P::Tuple(v) | P::Set(v) | P::FrozenSet(v) => {
            v.iter().map(py_to_js).collect::<Array>().into()
        }
        P::Dict(items) => {
            let m = js_sys::Map::new();
            for (k, v) in items {
                m.set(&py_to_js(k), &py_to_js(v));
            }
            m.into()
        }
        P::Array(a) => {
            let o = Object::new();
            let d = &a.header().dtype;
            let dt = Object::new();
            set(&dt, "descr", d.to_string());
            set(&dt, "name", dtype_name(d));
            set(&o, "dtype", dt);
            set(&o, "shape", shape_array(&a.header().shape));
            let vals: Vec<JsValue> = a.iter_c_order().map(|v| dyn_to_js(&v)).collect();
            set(&o, "data", nest(&vals, &a.header().shape));
            o.into()
        }
        P::Scalar(s) => match &s.value {
            // A bare tick count would lose its unit: `{type, unit, value}` (value `null` for NaT).
            DynValue::Datetime { unit, .. } | DynValue::Timedelta { unit, .. } => {
                let o = Object::new();
                let kind = if matches!(s.value, DynValue::Datetime { .. }) {
                    "datetime64"
                } else {
                    "timedelta64"
                };
                set(&o, "type", kind);
                set(&o, "unit", time_unit(*unit));
                set(&o, "value", dyn_to_js(&s.value));
                o.into()
            }
            v => dyn_to_js(v),
        },
        other => {
            let o = Object::new();
            let kind = match other {
                P::Range(..) => "range",
                P::Slice(_) => "slice",
                P::DType(_) => "dtype",
                _ => "global",
            };
            set(&o, "type", kind);
            set(&o, "repr", npy_print::repr(other).to_string());
            o.into()
        }
    }
}

/// The records `values` (elements of dtype `r`, as a pickle gives them) as one `Array` of
/// values per field, nested records as nested objects of columns.
fn record_columns(values: &[DynValue], r: &npy_core::dtype::Record) -> Object {
    let o = Object::new();
    for f in r.fields() {
        let name = f.name.as_str();
        let column: Vec<&DynValue> = values.iter().filter_map(|v| v.field(name)).collect();
        match &f.dtype {
            DType::Record(inner) => {
                let owned: Vec<DynValue> = column.into_iter().cloned().collect();
                set(&o, name, record_columns(&owned, inner));
            }
            _ => {
                let arr: Array = column.into_iter().map(dyn_to_js).collect();
                set(&o, name, arr);
            }
        }
    }
    o
}

/// The nested records of `dtype` that have no fields (`[]`, which numpy's `tolist()` gives as
/// `()`): each its path and the number of leaf fields before it in field order (leaves being
/// every field that is not a record, as npy-core's columns and [`direct_leaves`] take them).
/// They have no column, so without these the JavaScript side would leave them out.
fn empty_records(
    dtype: &DType,
    path: &mut Vec<String>,
    leaves: &mut usize,
    out: &mut Vec<(Vec<String>, usize)>,
) {
    match dtype {
        DType::Record(r) if r.fields().is_empty() => {
            // The whole array's record (no path) is the JavaScript side's empty `data`.
            if !path.is_empty() {
                out.push((path.clone(), *leaves));
            }
        }
        DType::Record(r) => {
            for f in r.fields() {
                path.push(f.name.to_string());
                empty_records(&f.dtype, path, leaves, out);
                path.pop();
            }
        }
        _ => *leaves += 1,
    }
}

/// `columns` (one per leaf field of `dtype`, in field order) with a `{path, kind: "record"}`
/// entry at the place of each nested record of no fields ([`empty_records`]), so that the
/// JavaScript side gives it, in field order, as an empty object of columns.
fn with_empty_records(columns: Vec<Object>, dtype: &DType) -> Array {
    let mut empty = Vec::new();
    empty_records(dtype, &mut Vec::new(), &mut 0, &mut empty);
    let marker = |path: &[String]| {
        let o = Object::new();
        let path: Array = path.iter().map(|s| JsValue::from_str(s)).collect();
        set(&o, "path", path);
        set(&o, "kind", "record");
        o
    };
    let mut empty = empty.into_iter().peekable();
    let out = Array::new();
    for (i, c) in columns.into_iter().enumerate() {
        while let Some((path, _)) = empty.next_if(|(_, at)| *at <= i) {
            out.push(&marker(&path));
        }
        out.push(&c);
    }
    for (path, _) in empty {
        out.push(&marker(&path));
    }
    out
}

/// A leaf field of a dtype read straight from the file's bytes by [`decode_direct`].
struct Leaf {
    path: Vec<String>,
    /// Where the field sits in the element, and its bytes (a subarray's values in all).
    offset: usize,
    width: usize,
    subshape: Vec<u64>,
    /// The leaf's dtype without its subarray shape, in the file's byte order.
    base: DType,
}

/// The leaves of `dtype` at `offset` into `out`, when every one is a number with a typed
/// array, a datetime, a `U` or `S` string or a `V` of some bytes (alone or as a subarray):
/// `false` for any other (objects, longdouble, ml_dtypes, subarrays of records, zero-width
/// leaves), which npy-core's dynamic read decodes instead.
fn direct_leaves(dtype: &DType, offset: u64, path: &mut Vec<String>, out: &mut Vec<Leaf>) -> bool {
    if let DType::Record(r) = dtype {
        for f in r.fields() {
            path.push(f.name.to_string());
            let Some(at) = offset.checked_add(f.offset) else {
                return false;
            };
            if !direct_leaves(&f.dtype, at, path, out) {
                return false;
            }
            path.pop();
        }
        return true;
    }
    let (subshape, base) = match dtype {
        DType::SubArray(s) => {
            let (shape, base) = s.flatten();
            (shape, base.clone())
        }
        d => (Vec::new(), d.clone()),
    };
    let direct = match &base {
        DType::Number(p, _) => typed_array_name(*p).is_some(),
        DType::Time(..) | DType::Unicode(..) | DType::Bytes(_) | DType::Void(_) => true,
        _ => false,
    };
    let (Ok(offset), Ok(width)) = (usize::try_from(offset), usize::try_from(dtype.itemsize()))
    else {
        return false;
    };
    if !direct || width == 0 || base.itemsize() == 0 {
        return false;
    }
    out.push(Leaf {
        path: path.clone(),
        offset,
        width,
        subshape,
        base,
    });
    true
}

/// A number, datetime or void column being gathered: words of the field's width (one load
/// and store each, not a copy call) where it is 1 to 16 bytes, else bytes; `BigWords` are
/// byte-swapped as they load.
enum ColumnOut {
    W2(Vec<u16>),
    W4(Vec<u32>),
    W8(Vec<u64>),
    W16(Vec<u128>),
    /// Any width: the bytes, then each `swap` bytes reversed (0 or 1: as stored).
    Bytes {
        out: Vec<u8>,
        swap: usize,
    },
}

impl ColumnOut {
    /// For `count` fields of `width` bytes whose units of `swap` bytes are reversed (0: none).
    fn new(count: usize, width: usize, swap: usize) -> ColumnOut {
        let words = swap <= 1 || swap == width;
        match width {
            2 if words => ColumnOut::W2(Vec::with_capacity(count)),
            4 if words => ColumnOut::W4(Vec::with_capacity(count)),
            8 if words => ColumnOut::W8(Vec::with_capacity(count)),
            16 if words => ColumnOut::W16(Vec::with_capacity(count)),
            _ => ColumnOut::Bytes {
                out: Vec::with_capacity(count.saturating_mul(width)),
                swap,
            },
        }
    }

    /// Appends the field (`width` bytes at `offset`) of each element of `rows` (elements of
    /// `itemsize` bytes); `swap`: as given to [`ColumnOut::new`].
    fn push(&mut self, rows: &[u8], itemsize: usize, offset: usize, width: usize, swap: usize) {
        fn words<T, const W: usize>(
            out: &mut Vec<T>,
            rows: &[u8],
            itemsize: usize,
            offset: usize,
            load: impl Fn([u8; W]) -> T,
        ) {
            out.extend(
                rows.chunks_exact(itemsize)
                    .map(|row| load(row[offset..offset + W].try_into().unwrap_or([0; W]))),
            );
        }
        let (r, s, o) = (rows, itemsize, offset);
        match (self, swap > 1) {
            (ColumnOut::W2(v), false) => words(v, r, s, o, u16::from_le_bytes),
            (ColumnOut::W2(v), true) => words(v, r, s, o, u16::from_be_bytes),
            (ColumnOut::W4(v), false) => words(v, r, s, o, u32::from_le_bytes),
            (ColumnOut::W4(v), true) => words(v, r, s, o, u32::from_be_bytes),
            (ColumnOut::W8(v), false) => words(v, r, s, o, u64::from_le_bytes),
            (ColumnOut::W8(v), true) => words(v, r, s, o, u64::from_be_bytes),
            (ColumnOut::W16(v), false) => words(v, r, s, o, u128::from_le_bytes),
            (ColumnOut::W16(v), true) => words(v, r, s, o, u128::from_be_bytes),
            (ColumnOut::Bytes { out, .. }, _) => {
                for row in rows.chunks_exact(itemsize) {
                    out.extend_from_slice(&row[offset..offset + width]);
                }
            }
        }
    }

    /// The column's bytes, little-endian, as a `Uint8Array`.
    fn finish(self) -> Uint8Array {
        use npy_core::bytemuck::cast_slice;
        match self {
            ColumnOut::W2(v) => Uint8Array::from(cast_slice::<u16, u8>(&v)),
            ColumnOut::W4(v) => Uint8Array::from(cast_slice::<u32, u8>(&v)),
            ColumnOut::W8(v) => Uint8Array::from(cast_slice::<u64, u8>(&v)),
            ColumnOut::W16(v) => Uint8Array::from(cast_slice::<u128, u8>(&v)),
            ColumnOut::Bytes { mut out, swap } => {
                if swap > 1 {
                    for v in out.chunks_exact_mut(swap) {
                        v.reverse();
                    }
                }
                Uint8Array::from(&out[..])
            }
        }
    }
}

/// What [`decode_direct`] gathers for one leaf.
enum LeafOut {
    Values(ColumnOut),
    Strings(StringsOut),
}

/// Rows gathered at a time by [`decode_direct`], each leaf in turn: about this many bytes of
/// them, so that the rows are read from memory once (they stay in the cache while every leaf
/// takes its field), not once per leaf.
const DIRECT_BLOCK_BYTES: usize = 64 * 1024;

/// [`decode`]'s columns read straight from the file's bytes (numbers gathered and
/// byte-swapped to little-endian, strings gathered into their text and ends), a block of
/// rows at a time: for dtypes whose leaves [`direct_leaves`] takes, whose data the file holds
/// whole. `None` for the others, which npy-core's dynamic read decodes (and whose errors it
/// gives).
///
/// # Errors
/// npy-core's header errors.
fn decode_direct(bytes: &[u8]) -> Result<Option<Object>, JsError> {
    let r = NpyReader::new(bytes).map_err(js_err)?;
    let parsed = r.parsed_header();
    let h = &parsed.header;
    let mut leaves = Vec::new();
    if has_object(&h.dtype) || !direct_leaves(&h.dtype, 0, &mut Vec::new(), &mut leaves) {
        return Ok(None);
    }
    let count = h.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    let Some(itemsize) = usize::try_from(h.dtype.itemsize()).ok().filter(|&s| s > 0) else {
        return Ok(None);
    };
    let span = count
        .and_then(|n| n.checked_mul(itemsize as u64))
        .and_then(|n| n.checked_add(parsed.data_offset()));
    let (Some(n), Some(end)) = (count, span) else {
        return Ok(None);
    };
    let (Ok(n), Ok(start), Ok(end)) = (
        usize::try_from(n),
        usize::try_from(parsed.data_offset()),
        usize::try_from(end),
    ) else {
        return Ok(None);
    };
    let Some(data) = bytes.get(start..end) else {
        return Ok(None);
    };
    // npy-core keeps every field inside its record; checked here too, as the slicing below
    // relies on it.
    if leaves
        .iter()
        .any(|l| l.offset.checked_add(l.width).is_none_or(|e| e > itemsize))
    {
        return Ok(None);
    }
    let mut outs: Vec<(DType, usize, LeafOut)> = leaves
        .iter()
        .map(|leaf| {
            let (native, swap) = native_base(&leaf.base);
            let size = leaf.base.itemsize() as usize;
            let out = match leaf.base {
                DType::Unicode(_, o) => LeafOut::Strings(StringsOut::new(
                    n.saturating_mul(leaf.width / size),
                    size,
                    Chars::Ucs4 {
                        big: o == ByteOrder::Big,
                    },
                )),
                DType::Bytes(_) => LeafOut::Strings(StringsOut::new(
                    n.saturating_mul(leaf.width / size),
                    size,
                    Chars::Latin1,
                )),
                _ => LeafOut::Values(ColumnOut::new(n, leaf.width, swap)),
            };
            (native, swap, out)
        })
        .collect();
    let block = (DIRECT_BLOCK_BYTES / itemsize).max(1) * itemsize;
    for rows in data.chunks(block) {
        for (leaf, (_, swap, out)) in leaves.iter().zip(&mut outs) {
            match out {
                LeafOut::Values(v) => v.push(rows, itemsize, leaf.offset, leaf.width, *swap),
                LeafOut::Strings(s) => {
                    let at = StringLayout {
                        data: rows,
                        stride: itemsize,
                        offset: leaf.offset,
                        width: leaf.width,
                        size: leaf.base.itemsize() as usize,
                    };
                    s.push(&at, 0);
                }
            }
        }
    }
    let o = Object::new();
    set(&o, "header", header_json(h, parsed.data_offset())?);
    let mut cols = Vec::with_capacity(leaves.len());
    for (leaf, (native, _, out)) in leaves.iter().zip(outs) {
        let c = column_head(&leaf.path, &leaf.subshape, &native, n);
        match out {
            LeafOut::Values(v) => {
                if let DType::Void(w) = native {
                    set(&c, "kind", "void");
                    set(&c, "width", num(w));
                } else {
                    layout_of(&native, &c);
                }
                set(&c, "bytes", v.finish());
            }
            LeafOut::Strings(s) => s.finish(&c),
        }
        cols.push(c);
    }
    set(&o, "columns", with_empty_records(cols, &h.dtype));
    Ok(Some(o))
}

fn read_dyn(bytes: &[u8]) -> Result<(npy_core::header::ParsedHeader, DynArray), JsError> {
    let r = NpyReader::new(bytes).map_err(js_err)?;
    let parsed = r.parsed_header().clone();
    // The whole file is here: the reader checks the data's length against the header before
    // allocating, and allocates each column once (not grown as chunks arrive).
    let mut r = r.with_available_bytes((bytes.len() as u64).saturating_sub(parsed.data_offset()));
    #[cfg(feature = "pickle")]
    let a = r
        .read_dyn_using(&npy_pickle::PickleCodec::default())
        .map_err(js_err)?;
    #[cfg(not(feature = "pickle"))]
    let a = if has_object(&parsed.header.dtype) {
        return Err(JsError::new(
            "object arrays (|O) need the npy-wasm build with the `pickle` feature",
        ));
    } else {
        r.read_dyn().map_err(js_err)?
    };
    Ok((parsed, a))
}

/// Decodes a whole `.npy` file: `header` (the JSON of [`read_header`]) and `columns` (one per
/// leaf field, `{path, subshape, count, kind, ...}`: `bytes` of little-endian values for
/// numbers and datetimes, `text`/`ends` for strings, `values` otherwise) or, for object
/// arrays, `objects` (the decoded Python values in file order).
///
/// # Errors
/// npy-core's errors (truncated, lying or malformed headers, limits); npy-pickle's for object
/// arrays (a pickle naming anything outside its allow-list is refused, never run).
#[wasm_bindgen(js_name = "_decode")]
pub fn decode(bytes: &[u8]) -> Result<JsValue, JsError> {
    if let Some(o) = decode_direct(bytes)? {
        return Ok(o.into());
    }
    let (parsed, a) = read_dyn(bytes)?;
    let o = Object::new();
    set(
        &o,
        "header",
        header_json(&parsed.header, parsed.data_offset())?,
    );
    if let Some(objects) = a.objects() {
        if let DType::Record(r) = &parsed.header.dtype {
            // Records with object fields: columns, as for every other record.
            set(&o, "record", record_columns(objects, r));
        } else {
            let vals: Array = objects.iter().map(dyn_to_js).collect();
            set(&o, "objects", vals);
        }
    } else {
        let cols = a.columns().iter().map(column_object).collect();
        set(
            &o,
            "columns",
            with_empty_records(cols, &parsed.header.dtype),
        );
    }
    Ok(o.into())
}

/// numpy's `str()` of the array in the `.npy` file `bytes`, as npy-print writes it.
///
/// # Errors
/// As [`decode`].
#[wasm_bindgen(js_name = "_format")]
pub fn format(bytes: &[u8]) -> Result<String, JsError> {
    let (_, a) = read_dyn(bytes)?;
    let text = npy_print::str(&a).to_string();
    Ok(text)
}

/// The size in bytes of the unit swapped to change a dtype's byte order (0: none).
fn swap_unit(d: &DType) -> usize {
    match d {
        DType::Number(p, ByteOrder::Big) => match p {
            Primitive::C64 => 4,
            Primitive::C128 => 8,
            Primitive::LongDouble { .. } | Primitive::CLongDouble { .. } => 0,
            p => p.itemsize() as usize,
        },
        DType::Time(_, ByteOrder::Big) => 8,
        DType::Unicode(_, ByteOrder::Big) => 4,
        _ => 0,
    }
}

/// A `.npy` file of dtype `descr`, `shape` and order, from `data`: the elements' bytes in
/// the order the flag says, numbers, datetimes and `U` code points little-endian (swapped
/// here for a big-endian `descr`), `S` as the file stores it (the JavaScript side refuses
/// records, `V` and `O` before this). The header is written as `np.save` writes it (format
/// 1.0 unless it needs 2.0 or 3.0), so the file is byte for byte `np.save`'s for the same
/// array.
///
/// # Errors
/// An unknown `descr`, a shape with negative or fractional lengths, data of another size than
/// the shape and dtype make, object dtypes (not written here).
#[wasm_bindgen(js_name = "_encode")]
pub fn encode(
    descr: &str,
    shape: Vec<f64>,
    fortran_order: bool,
    data: &[u8],
) -> Result<Vec<u8>, JsError> {
    let dtype: DType = descr.parse().map_err(js_err)?;
    if has_object(&dtype) {
        return Err(JsError::new(
            "toNpy does not write object arrays (|O): numpy's pickle is not written here",
        ));
    }
    let mut dims = Vec::with_capacity(shape.len());
    for d in shape {
        if !(d >= 0.0 && d.fract() == 0.0 && d <= 9_007_199_254_740_992.0) {
            return Err(JsError::new(&format!(
                "shape lengths must be whole numbers from 0 to 2^53, not {d}"
            )));
        }
        dims.push(d as u64);
    }
    let mut header = Header::new(dtype, dims);
    header.fortran_order = fortran_order;
    let nbytes = header
        .shape
        .iter()
        .try_fold(header.dtype.itemsize(), |n, &d| n.checked_mul(d));
    if nbytes != Some(data.len() as u64) {
        return Err(JsError::new(&format!(
            "data of {} bytes for dtype '{}' and shape {:?}, which take {} bytes",
            data.len(),
            header.dtype,
            header.shape,
            nbytes.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string())
        )));
    }
    let mut out = header.to_bytes(None).map_err(js_err)?;
    let start = out.len();
    out.extend_from_slice(data);
    let unit = swap_unit(&header.dtype);
    if unit > 1 {
        for c in out[start..].chunks_exact_mut(unit) {
            c.reverse();
        }
    }
    Ok(out)
}

/// The IEEE half-precision bits of `values`, each rounded to the nearest (ties to even) from
/// its double, as numpy's `astype(float16)`: `toNpy`'s conversion by value to `f2` (from a
/// `Float32Array`, which `parse` gives for `f2` where the runtime has no `Float16Array`, from
/// other typed arrays and from plain arrays).
#[wasm_bindgen(js_name = "_f16Bits")]
pub fn f16_bits(values: &[f64]) -> Vec<u16> {
    values.iter().map(|&v| f64_to_f16_bits(v)).collect()
}

/// IEEE binary16 bits of `x` rounded once to the nearest, ties to even (IEEE 754's
/// conversion, numpy's `npy_double_to_half`): overflow to infinity, underflow through the
/// subnormals to zero, a NaN a NaN of the same sign with its payload's top bits.
/// (`half::f16::from_f64` rounds through `f32`, twice: 1 + 2^-11 + 2^-30 became 1.)
fn f64_to_f16_bits(x: f64) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 48) & 0x8000) as u16;
    let exp = ((b >> 52) & 0x7ff) as i64;
    let man = b & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        if man == 0 {
            return sign | 0x7c00;
        }
        let nan = 0x7c00 | (man >> 42) as u16;
        return sign | if nan == 0x7c00 { 0x7c01 } else { nan };
    }
    // x = m × 2^(e − 52), m with its implicit bit (f64 subnormals are far below f16's).
    let e = exp - 1023;
    if e > 15 {
        return sign | 0x7c00;
    }
    let m = if exp == 0 { man } else { man | (1u64 << 52) };
    // Bits dropped: 42 for a normal result (52 − 10), more below 2^-14 (subnormal).
    let shift = if e >= -14 { 42 } else { 42 + (-14 - e) };
    if shift > 53 {
        // Below half the smallest subnormal (m < 2^53).
        return sign;
    }
    let shift = shift as u32;
    let half = 1u64 << (shift - 1);
    let rem = m & ((1u64 << shift) - 1);
    let mut q = m >> shift;
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    let bits = if e >= -14 {
        // q holds the implicit bit (2^10, or 2^11 after rounding up): it carries into the
        // exponent field.
        (((e + 14) as u64) << 10) + q
    } else {
        q
    };
    sign | bits.min(0x7c00) as u16
}

/// A `.npz` archive held in memory: its keys, and each member read when asked (stored or
/// deflated, CRC-checked).
#[wasm_bindgen(js_name = "_Npz")]
#[derive(Debug)]
pub struct Npz {
    inner: npy_npz::NpzArchive<Vec<u8>>,
}

#[wasm_bindgen(js_class = "_Npz")]
impl Npz {
    /// Opens the archive in `bytes` (copied into the module's memory once): its central
    /// directory is read and checked, no member is.
    ///
    /// # Errors
    /// npy-npz's errors: not a zip, a broken or lying directory.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>) -> Result<Npz, JsError> {
        let inner = npy_npz::NpzArchive::new(bytes).map_err(js_err)?;
        Ok(Npz { inner })
    }

    /// The keys, as numpy's `NpzFile.files` lists them.
    pub fn keys(&self) -> Vec<String> {
        self.inner.keys().map(str::to_owned).collect()
    }

    /// The member `key`'s bytes (a `.npy` file), inflated and CRC-checked.
    ///
    /// # Errors
    /// No such key (the message lists the keys); npy-npz's member errors.
    pub fn member(&self, key: &str) -> Result<Vec<u8>, JsError> {
        self.inner.read_bytes(key).map_err(js_err)
    }

    /// The member `key`'s size in bytes (inflated), as the central directory declares it:
    /// what [`Npz::member`] allocates, and never inflates past (npy-npz stops a member at its
    /// declared size), so the JavaScript side checks it against its budget first.
    ///
    /// # Errors
    /// No such key (the message lists the keys).
    pub fn size(&self, key: &str) -> Result<f64, JsError> {
        Ok(self.inner.member(key).map_err(js_err)?.size as f64)
    }
}

/// The parts of a remote file fetched so far: a [`npy_core::ReadAt`] whose reads outside them
/// fail and record the range that was missing, which the JavaScript side fetches before it
/// tries again.
#[derive(Debug, Default)]
struct Ranges {
    size: u64,
    parts: Vec<(u64, Vec<u8>)>,
    missing: Option<(u64, u64)>,
}

#[derive(Debug, Clone)]
struct Shared(Rc<RefCell<Ranges>>);

impl npy_core::ReadAt for Shared {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.0.borrow().size)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let mut r = self.0.borrow_mut();
        let end = offset.saturating_add(buf.len() as u64).min(r.size);
        if offset >= end {
            return Ok(0);
        }
        let want = (end - offset) as usize;
        for (start, bytes) in &r.parts {
            let stop = start + bytes.len() as u64;
            if *start <= offset && end <= stop {
                let at = (offset - start) as usize;
                buf[..want].copy_from_slice(&bytes[at..at + want]);
                return Ok(want);
            }
        }
        r.missing = Some((offset, end));
        Err(std::io::Error::other(format!(
            "bytes {offset}..{end} are not fetched yet"
        )))
    }
}

/// Bytes `fetchNpz` fetches first from an archive's end: npy-npz's
/// [`npy_npz::MIN_SUFFIX_BYTES`] (64 KiB + 98: the end record after the longest comment zip
/// allows, and zip64's records before it), which [`RangeArchive::open`] reads from the end.
#[wasm_bindgen(js_name = "_npzTailBytes")]
pub fn npz_tail_bytes() -> f64 {
    npy_npz::MIN_SUFFIX_BYTES as f64
}

/// A `.npz` archive read by HTTP ranges: the JavaScript side adds the ranges it fetched
/// ([`RangeArchive::add`]) and asks again while the archive reports the range it needs
/// ([`RangeArchive::needed`]), at most [`MAX_RANGE_ROUNDS`] times per step.
#[wasm_bindgen(js_name = "_RangeArchive")]
#[derive(Debug)]
pub struct RangeArchive {
    source: Shared,
    npz: Option<npy_npz::NpzArchive<Shared>>,
}

#[wasm_bindgen(js_class = "_RangeArchive")]
impl RangeArchive {
    /// An archive of `size` bytes of which nothing is fetched yet.
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> RangeArchive {
        let r = Ranges {
            size: size as u64,
            ..Ranges::default()
        };
        RangeArchive {
            source: Shared(Rc::new(RefCell::new(r))),
            npz: None,
        }
    }

    /// Adds the fetched bytes that start at `offset`.
    pub fn add(&self, offset: f64, bytes: Vec<u8>) {
        self.source
            .0
            .borrow_mut()
            .parts
            .push((offset as u64, bytes));
    }

    /// The range `[start, end)` the last step needed and did not have, or `undefined`.
    pub fn needed(&self) -> Option<Vec<f64>> {
        self.source
            .0
            .borrow_mut()
            .missing
            .take()
            .map(|(a, b)| vec![a as f64, b as f64])
    }

    /// Opens the archive from what is fetched: `true` when open, `false` when a range is
    /// needed first ([`RangeArchive::needed`]).
    ///
    /// # Errors
    /// npy-npz's errors for a broken archive.
    pub fn open(&mut self) -> Result<bool, JsError> {
        // Read from the end only what `fetchNpz`'s first request fetched
        // ([`npz_tail_bytes`]): a directory in it opens the archive with no other request.
        match npy_npz::NpzArchive::with_suffix_bytes(
            self.source.clone(),
            npy_core::ReadOptions::default(),
            npy_npz::MIN_SUFFIX_BYTES,
        ) {
            Ok(npz) => {
                self.npz = Some(npz);
                Ok(true)
            }
            Err(_) if self.source.0.borrow().missing.is_some() => Ok(false),
            Err(e) => Err(js_err(e)),
        }
    }

    /// The keys of the opened archive.
    pub fn keys(&self) -> Vec<String> {
        self.npz
            .as_ref()
            .map(|n| n.keys().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// The member `key`'s size in bytes (inflated), as the central directory declares it
    /// (see [`Npz::size`]).
    ///
    /// # Errors
    /// The archive is not open; no such key (the message lists the keys).
    pub fn size(&self, key: &str) -> Result<f64, JsError> {
        let npz = self
            .npz
            .as_ref()
            .ok_or_else(|| JsError::new("the archive is not open"))?;
        Ok(npz.member(key).map_err(js_err)?.size as f64)
    }

    /// The member's bytes where the fetched ranges hold them, `undefined` when a range is
    /// needed first ([`RangeArchive::needed`]).
    ///
    /// # Errors
    /// The archive is not open; npy-npz's member errors.
    pub fn member(&self, key: &str) -> Result<Option<Vec<u8>>, JsError> {
        let npz = self
            .npz
            .as_ref()
            .ok_or_else(|| JsError::new("the archive is not open"))?;
        match npz.read_bytes(key) {
            Ok(b) => Ok(Some(b)),
            Err(_) if self.source.0.borrow().missing.is_some() => Ok(None),
            Err(e) => Err(js_err(e)),
        }
    }
}

/// The header of a `.npy` file of `rows` rows (the first dimension) with the dtype and the
/// other dimensions of the header in `prefix`, C order: what the package's `fetchNpy` puts
/// before the rows it fetched.
///
/// # Errors
/// As [`read_header`].
#[wasm_bindgen(js_name = "_rowsHeader")]
pub fn rows_header(prefix: &[u8], rows: f64) -> Result<Vec<u8>, JsError> {
    let parsed = Header::read(&mut &prefix[..]).map_err(js_err)?;
    let mut h = parsed.header;
    if h.shape.is_empty() {
        return Err(JsError::new("a 0-d array has no rows"));
    }
    h.shape[0] = rows as u64;
    h.to_bytes(None).map_err(js_err)
}
