//! Type strings and names: `'<f4'`, `'M8[10ms]'`, `'float32'`, `'i4,(2,3)f8'` ⇄ [`DType`], as
//! `np.dtype(str)` and `dtype.str`.
//!
//! Parsing follows numpy 2.4.6's `_convert_from_str` (`descriptor.c`) step by step, since a
//! header's descr is whatever `np.dtype` accepts: comma strings first (`comma.rs`), then the
//! byte-order character, datetimes, one-character codes, kind and size (read as C's `strtol`
//! reads them: `'f 8'` and `'f+8'` are `'<f8'`), and last numpy's type names (`np.sctypeDict`,
//! which is looked up with the byte-order character: `'<double'` is refused). The table
//! `fixtures/parity/descr.json` holds numpy's verdict on thousands of strings, and a test checks
//! every row.

use super::{
    comma, descr_error, ByteOrder, DType, DescrError, Primitive, TimeKind, TimeType, TimeUnit,
};

impl DType {
    /// numpy's `dtype.str`: the type string of a simple dtype (`'<f4'`, `'|S7'`, `'<M8[ns]'`);
    /// `'|Vn'` for records and subarrays.
    pub fn type_str(&self) -> String {
        match self {
            DType::Number(p, o) => {
                let (c, n) = match p {
                    Primitive::Bool => ('b', 1),
                    p => (p.kind(), p.itemsize()),
                };
                format!("{}{c}{n}", o.as_char())
            }
            DType::Time(t, o) => format!("{}{t}", o.as_char()),
            DType::Bytes(n) => format!("|S{n}"),
            DType::Unicode(n, o) => format!("{}U{n}", o.as_char()),
            DType::Void(n) => format!("|V{n}"),
            DType::Object => "|O".to_owned(),
            DType::Record(_) | DType::SubArray(_) => format!("|V{}", self.itemsize()),
            DType::Ml(t) => t.type_str(),
        }
    }
}

impl TimeUnit {
    /// numpy's `parse_datetime_unit_from_string`: the codes of [`TimeUnit::code`], `μs` and
    /// `generic`.
    fn from_code(code: &[u8]) -> Option<TimeUnit> {
        match code {
            b"" => None,
            b"generic" => Some(TimeUnit::Generic),
            [0xce, 0xbc, b's'] => Some(TimeUnit::Microsecond), // "μs" in UTF-8
            _ => TimeUnit::ALL
                .iter()
                .copied()
                .find(|u| u.code().as_bytes() == code),
        }
    }
}

/// Parses a type string as `np.dtype(str)` does (numpy's `_convert_from_str`).
#[inline]
pub(crate) fn parse_type_str(s: &str) -> Result<DType, DescrError> {
    match number_type_str(s.as_bytes()) {
        Some(d) => Ok(d),
        None => parse_general(s),
    }
}

/// The shortcut for what `dtype.str` writes for a number (`'<f4'`, `'|b1'`: a byte-order
/// character, a kind, one digit); `None` for anything else. [`parse_general`] gives the same
/// dtype for these strings (tested).
#[inline]
pub(crate) fn number_type_str(s: &[u8]) -> Option<DType> {
    let &[e, kind, size] = s else {
        return None;
    };
    number_type(e, kind, size).map(|(p, order)| DType::Number(p, order))
}

/// [`number_type_str`]'s rule on the three bytes of such a string, as a primitive and byte
/// order (two bytes, kept in registers by the header fast path).
#[inline(always)]
pub(crate) fn number_type(e: u8, kind: u8, size: u8) -> Option<(Primitive, ByteOrder)> {
    use Primitive::*;
    if !matches!(e, b'<' | b'>' | b'|' | b'=') {
        return None;
    }
    let p = match (kind, size) {
        (b'b', b'1') => return Some((Bool, ByteOrder::NotApplicable)),
        (b'i', b'1') => return Some((I8, ByteOrder::NotApplicable)),
        (b'u', b'1') => return Some((U8, ByteOrder::NotApplicable)),
        (b'i', b'2') => I16,
        (b'i', b'4') => I32,
        (b'i', b'8') => I64,
        (b'u', b'2') => U16,
        (b'u', b'4') => U32,
        (b'u', b'8') => U64,
        (b'f', b'2') => F16,
        (b'f', b'4') => F32,
        (b'f', b'8') => F64,
        (b'c', b'8') => C64,
        _ => return None,
    };
    Some((p, order_of(e)))
}

/// The byte order a type string's byte-order character stands for (`'|'` and `'='`: the
/// machine's).
#[inline]
fn order_of(endian: u8) -> ByteOrder {
    match endian {
        b'<' => ByteOrder::Little,
        b'>' => ByteOrder::Big,
        _ => ByteOrder::NATIVE,
    }
}

/// [`parse_type_str`] step by step, as numpy's `_convert_from_str`.
pub(super) fn parse_general(s: &str) -> Result<DType, DescrError> {
    let bad = |reason: &str| descr_error(&format!("'{s}'"), reason);
    let b = s.as_bytes();
    if comma::is_comma_string(b) {
        return comma::parse(s);
    }
    // The byte-order character; '|' is '='. Alone it is no type.
    let (endian, ty) = match b {
        [e @ (b'<' | b'>' | b'='), rest @ ..] if !rest.is_empty() => (*e, rest),
        [b'|', rest @ ..] if !rest.is_empty() => (b'=', rest),
        _ => (b'=', b),
    };
    let order = order_of(endian);
    let Some((&code, size)) = ty.split_first() else {
        return Err(bad("data type not understood"));
    };
    if is_datetime(ty) {
        let (kind, unit, multiplier) = parse_datetime(ty).map_err(&bad)?;
        let t = TimeType {
            kind,
            unit,
            multiplier,
        };
        return Ok(DType::Time(t, order));
    }
    let found = if size.is_empty() {
        from_code(code)
    } else {
        match strtol(size) {
            // numpy: "make sure it doesn't overflow or go negative".
            Strtol { value, .. } if !(0..=i64::from(i32::MAX)).contains(&value) => {
                return Err(bad("data type not understood"))
            }
            Strtol {
                value,
                end,
                overflow: false,
            } if end == size.len() && end > 0 => {
                let n = value as u64; // in 0..=i32::MAX
                match code {
                    b'S' | b'a' => Some(Found::Sized(DType::Bytes(n))),
                    b'V' => Some(Found::Sized(DType::Void(n))),
                    // numpy counts characters, and keeps the itemsize (4 per character) in a
                    // C int.
                    b'U' if n <= i32::MAX as u64 / 4 => {
                        Some(Found::Sized(DType::Unicode(n, ByteOrder::NATIVE)))
                    }
                    b'U' => return Err(bad("itemsize exceeds numpy's limit of 2147483647 bytes")),
                    _ if n == 0 => None,
                    kind => kind_and_size(kind, n),
                }
            }
            // A number that does not reach the end (or none at all): only a name is left.
            _ => None,
        }
    };
    let found = match found {
        Some(f) => f,
        // numpy looks the whole string up, byte-order character included.
        None => named_type(s).ok_or_else(|| bad("data type not understood"))?,
    };
    let dtype = match found {
        Found::Sized(d) | Found::Plain(d) => d,
        Found::StringDType => {
            return Err(DescrError::StringDType {
                found: format!("'{s}'"),
            })
        }
    };
    Ok(dtype.with_byte_order(order))
}

/// What a code, kind and size, or name stands for.
enum Found {
    /// A dtype whose size the string gave.
    Sized(DType),
    /// A dtype of fixed (or zero) size.
    Plain(DType),
    /// `'T'`: numpy's variable-width `StringDType`, whose arrays `np.save` pickles.
    StringDType,
}

/// [`DType::native_number`] of `p`.
fn number(p: Primitive) -> Found {
    Found::Plain(DType::native_number(p))
}

fn generic_time(kind: TimeKind) -> Found {
    Found::Plain(DType::Time(
        TimeType {
            kind,
            unit: TimeUnit::Generic,
            multiplier: 1,
        },
        ByteOrder::NATIVE,
    ))
}

/// One-character type codes (numpy's `PyArray_DescrFromType` of the character's value, so the
/// control characters 0 to 23 are numpy's type numbers: `'\x00'` is `bool`). C `long` and
/// `intptr_t` are 64 bits and `long double` is x87 in 16 bytes, as on x86-64 Linux.
fn from_code(code: u8) -> Option<Found> {
    use Primitive::*;
    const TYPE_NUMBERS: &[u8; 24] = b"?bBhHiIlLqQfdgFDGOSUVMme";
    if let Some(&c) = TYPE_NUMBERS.get(usize::from(code)) {
        return from_code(c);
    }
    Some(match code {
        b'?' => number(Bool),
        b'b' => number(I8),
        b'B' => number(U8),
        b'h' => number(I16),
        b'H' => number(U16),
        b'i' => number(I32),
        b'I' => number(U32),
        b'l' | b'q' | b'p' | b'n' => number(I64),
        b'L' | b'Q' | b'P' | b'N' => number(U64),
        b'e' => number(F16),
        b'f' => number(F32),
        b'd' => number(F64),
        b'g' => number(LongDouble { size: 16 }),
        b'F' => number(C64),
        b'D' => number(C128),
        b'G' => number(CLongDouble { size: 32 }),
        b'S' => Found::Plain(DType::Bytes(0)),
        b'c' => Found::Plain(DType::Bytes(1)),
        b'U' => Found::Plain(DType::Unicode(0, ByteOrder::NATIVE)),
        b'V' => Found::Plain(DType::Void(0)),
        b'O' => Found::Plain(DType::Object),
        b'M' => generic_time(TimeKind::Datetime),
        b'm' => generic_time(TimeKind::Timedelta),
        b'T' => Found::StringDType,
        _ => return None,
    })
}

/// numpy's `PyArray_TypestrConvert`: a kind character and a size in bytes (not 0).
fn kind_and_size(kind: u8, size: u64) -> Option<Found> {
    use Primitive::*;
    Some(match (kind, size) {
        (b'b', 1) => number(Bool),
        (b'i', 1) => number(I8),
        (b'i', 2) => number(I16),
        (b'i', 4) => number(I32),
        (b'i', 8) => number(I64),
        (b'u', 1) => number(U8),
        (b'u', 2) => number(U16),
        (b'u', 4) => number(U32),
        (b'u', 8) => number(U64),
        (b'f', 2) => number(F16),
        (b'f', 4) => number(F32),
        (b'f', 8) => number(F64),
        // sizeof(long double) is 16 here: numpy refuses 'f12' and 'c24' on x86-64.
        (b'f', 16) => number(LongDouble { size: 16 }),
        (b'c', 8) => number(C64),
        (b'c', 16) => number(C128),
        (b'c', 32) => number(CLongDouble { size: 32 }),
        (b'O', 4 | 8) => Found::Plain(DType::Object),
        (b'M', 8) => generic_time(TimeKind::Datetime),
        (b'm', 8) => generic_time(TimeKind::Timedelta),
        _ => return None,
    })
}

/// The names of `np.sctypeDict` (numpy 2.4.6, x86-64 Linux), looked up as written: no
/// byte-order character.
fn named_type(s: &str) -> Option<Found> {
    use Primitive::*;
    Some(match s {
        "bool" | "bool_" => number(Bool),
        "int8" | "byte" => number(I8),
        "int16" | "short" => number(I16),
        "int32" | "intc" => number(I32),
        "int64" | "int" | "int_" | "intp" | "long" | "longlong" => number(I64),
        "uint8" | "ubyte" => number(U8),
        "uint16" | "ushort" => number(U16),
        "uint32" | "uintc" => number(U32),
        "uint64" | "uint" | "uintp" | "ulong" | "ulonglong" => number(U64),
        "float16" | "half" => number(F16),
        "float32" | "single" => number(F32),
        "float64" | "float" | "double" => number(F64),
        "float128" | "longdouble" => number(LongDouble { size: 16 }),
        "complex64" | "csingle" => number(C64),
        "complex128" | "complex" | "cdouble" => number(C128),
        "complex256" | "clongdouble" => number(CLongDouble { size: 32 }),
        "str" | "str_" | "unicode" => Found::Plain(DType::Unicode(0, ByteOrder::NATIVE)),
        "bytes" | "bytes_" | "a" => Found::Plain(DType::Bytes(0)),
        "void" => Found::Plain(DType::Void(0)),
        "object" | "object_" => Found::Plain(DType::Object),
        _ => return None,
    })
}

/// The result of C's `strtol(s, &end, 10)` on a `long` of 64 bits.
struct Strtol {
    /// The value, clamped to the `i64` range on overflow.
    value: i64,
    /// Bytes of `s` consumed (0 when no digits were found).
    end: usize,
    /// Whether the value overflowed (`errno == ERANGE`).
    overflow: bool,
}

/// C's `strtol` in base 10: leading white space, a sign, digits.
fn strtol(s: &[u8]) -> Strtol {
    let mut i = s
        .iter()
        .position(|&c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .unwrap_or(s.len());
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return Strtol {
            value: 0,
            end: 0,
            overflow: false,
        };
    }
    let mut value: i64 = 0;
    let mut overflow = false;
    for &d in &s[i..i + digits] {
        let d = i64::from(d - b'0');
        let next = value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        });
        match next {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = if negative { i64::MIN } else { i64::MAX };
                break;
            }
        }
    }
    Strtol {
        value,
        end: i + digits,
        overflow,
    }
}

/// numpy's `is_datetime_typestr`.
fn is_datetime(ty: &[u8]) -> bool {
    (ty.len() >= 2 && ty[1] == b'8' && matches!(ty[0], b'M' | b'm'))
        || ty.starts_with(b"datetime64")
        || ty.starts_with(b"timedelta64")
}

/// numpy's `parse_dtype_from_datetime_typestr`: the root, then nothing (generic) or
/// `[<multiplier><unit>[/<divisor>]]`.
fn parse_datetime(ty: &[u8]) -> Result<(TimeKind, TimeUnit, u32), &'static str> {
    let (kind, meta) = if let Some(m) = ty.strip_prefix(b"m8") {
        (TimeKind::Timedelta, m)
    } else if let Some(m) = ty.strip_prefix(b"M8") {
        (TimeKind::Datetime, m)
    } else if let Some(m) = ty.strip_prefix(b"timedelta64") {
        (TimeKind::Timedelta, m)
    } else if let Some(m) = ty.strip_prefix(b"datetime64") {
        (TimeKind::Datetime, m)
    } else {
        return Err("invalid datetime type string");
    };
    if meta.is_empty() {
        return Ok((kind, TimeUnit::Generic, 1));
    }
    const BAD: &str = "invalid datetime metadata";
    let inner = match meta {
        [b'[', rest @ ..] if meta.len() >= 3 => rest,
        _ => return Err(BAD),
    };
    let close = inner.iter().position(|&c| c == b']').ok_or(BAD)?;
    // The ']' must end the string and the brackets hold something.
    if close == 0 || close + 1 != inner.len() {
        return Err(BAD);
    }
    let inner = &inner[..close];
    // An optional multiplier (a C int, not negative), then the unit up to '/' or the end.
    let mult = strtol(inner);
    let multiplier = if mult.end == 0 {
        1
    } else if mult.overflow || !(0..=i64::from(i32::MAX)).contains(&mult.value) {
        return Err(BAD);
    } else {
        mult.value as u32
    };
    let rest = &inner[mult.end..];
    let unit_len = rest.iter().position(|&c| c == b'/').unwrap_or(rest.len());
    if unit_len == 0 {
        return Err(BAD);
    }
    let unit = TimeUnit::from_code(&rest[..unit_len]).ok_or("invalid datetime unit")?;
    let (unit, multiplier) = match rest.get(unit_len..) {
        Some([b'/', den @ ..]) => {
            // "If the '/' exists, there must be a number followed by ']'".
            let d = strtol(den);
            if d.end == 0 || d.end != den.len() {
                return Err(BAD);
            }
            // numpy keeps the divisor in a C int (truncating) and refuses 0 by dividing by it
            // (a crash in numpy 2.4.6) and a negative one by making a negative multiplier it
            // cannot read back; both are refused here.
            let den = d.value as i32;
            match den {
                1 => (unit, multiplier),
                ..=0 => return Err("datetime divisor must be positive"),
                _ => divide_unit(unit, multiplier, den as u32)?,
            }
        }
        _ => (unit, multiplier),
    };
    if unit == TimeUnit::Generic {
        return Ok((kind, unit, 1));
    }
    Ok((kind, unit, multiplier))
}

/// numpy's `convert_datetime_divisor_to_multiple`: `[s/2]` is `[500ms]`, `[Y/2]` `[6M]`. The
/// divisor must divide one of the unit's multiples in a finer unit.
fn divide_unit(unit: TimeUnit, multiplier: u32, den: u32) -> Result<(TimeUnit, u32), &'static str> {
    use TimeUnit::*;
    let finer: &[(u32, TimeUnit)] = match unit {
        Generic => return Err("a datetime divisor needs a unit"),
        Year => &[(12, Month), (52, Week), (365, Day)],
        Month => &[(4, Week), (30, Day), (720, Hour)],
        Week => &[(7, Day), (168, Hour), (10080, Minute)],
        Day => &[(24, Hour), (1440, Minute), (86400, Second)],
        Hour => &[(60, Minute), (3600, Second)],
        Minute => &[(60, Second), (60000, Millisecond)],
        Second => &[(1000, Millisecond), (1_000_000, Microsecond)],
        Millisecond => &[(1000, Microsecond), (1_000_000, Nanosecond)],
        Microsecond => &[(1000, Nanosecond), (1_000_000, Picosecond)],
        Nanosecond => &[(1000, Picosecond), (1_000_000, Femtosecond)],
        Picosecond => &[(1000, Femtosecond), (1_000_000, Attosecond)],
        Femtosecond => &[(1000, Attosecond)],
        Attosecond => &[],
    };
    let (q, finer) = finer
        .iter()
        .find(|(m, _)| m % den == 0)
        .map(|&(m, u)| (m / den, u))
        .ok_or("the datetime divisor divides no multiple of a finer unit")?;
    let multiplier = multiplier
        .checked_mul(q)
        .filter(|&m| i32::try_from(m).is_ok())
        .ok_or("datetime multiplier overflows a C int")?;
    Ok((finer, multiplier))
}
