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

use super::Primitive::{self, *};
use super::{comma, descr_error, ByteOrder, DType, DescrError, TimeKind, TimeType, TimeUnit};

impl DType {
    /// numpy's `dtype.str`: the type string of a simple dtype (`'<f4'`, `'|S7'`, `'<M8[ns]'`);
    /// `'|Vn'` for records and subarrays.
    pub fn type_str(&self) -> String {
        match self {
            DType::Number(p, o) => format!("{}{}{}", o.as_char(), p.kind(), p.itemsize()),
            DType::Time(t, o) => format!("{}{t}", o.as_char()),
            DType::Unicode(n, o) => format!("{}U{n}", o.as_char()),
            DType::Object => "|O".to_owned(),
            DType::Ml(t) => t.type_str(),
            // `S`, `V`, records and subarrays: no byte order, the size in bytes.
            _ => format!("|{}{}", self.kind(), self.itemsize()),
        }
    }
}

impl TimeUnit {
    /// numpy's `parse_datetime_unit_from_string`: the codes of [`TimeUnit::code`], `μs` and
    /// `generic` (`code` is not empty: `""` is generic's code but no unit string).
    fn from_code(code: &[u8]) -> Option<TimeUnit> {
        match code {
            b"generic" => Some(TimeUnit::Generic),
            [0xce, 0xbc, b's'] => Some(TimeUnit::Microsecond), // "μs" in UTF-8
            _ => TimeUnit::ALL
                .iter()
                .copied()
                .find(|u| u.code().as_bytes() == code),
        }
    }
}

/// [`parse_general`], with a shortcut for what `dtype.str` writes for a number ([`number_type`];
/// both read it the same, tested).
#[inline]
pub(crate) fn parse_type_str(s: &str) -> Result<DType, DescrError> {
    if let &[e, kind, size] = s.as_bytes() {
        if let Some((p, order)) = number_type(e, kind, size) {
            return Ok(DType::Number(p, order));
        }
    }
    parse_general(s)
}

/// What `dtype.str` writes for a number (`'<f4'`, `'|b1'`: a byte-order character, a kind, one
/// digit) as a primitive and byte order (two bytes, kept in registers by the header fast path);
/// `None` for anything else.
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

/// The byte order a type string's byte-order character stands for (`'|'` and `'='`: the machine's).
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
    // The byte-order character ('|' and '=' are the machine's order). Alone it is no type.
    let (endian, ty) = match b {
        [e @ (b'<' | b'>' | b'=' | b'|'), rest @ ..] if !rest.is_empty() => (*e, rest),
        _ => (b'=', b),
    };
    let order = order_of(endian);
    let Some((&code, size)) = ty.split_first() else {
        return Err(bad("data type not understood"));
    };
    if let Some((kind, meta)) = datetime_root(ty) {
        let (unit, multiplier) = parse_datetime(meta).map_err(&bad)?;
        let t = TimeType {
            kind,
            unit,
            multiplier,
        };
        return Ok(DType::Time(t, order));
    }
    if code == b'T' && size.is_empty() {
        // numpy's variable-width `StringDType`, whose arrays `np.save` pickles.
        let found = format!("'{s}'");
        return Err(DescrError::StringDType { found });
    }
    let found = if size.is_empty() {
        from_code(code)
    } else {
        match strtol(size) {
            // numpy: "make sure it doesn't overflow or go negative" (an overflow is clamped
            // out of this range).
            (value, _) if !(0..=i64::from(i32::MAX)).contains(&value) => {
                return Err(bad("data type not understood"))
            }
            (value, end) if end == size.len() && end > 0 => {
                let n = value as u64; // in 0..=i32::MAX
                match code {
                    b'S' | b'a' => Some(DType::Bytes(n)),
                    b'V' => Some(DType::Void(n)),
                    // numpy counts characters, and keeps the itemsize (4 per character) in a C int.
                    b'U' if n <= i32::MAX as u64 / 4 => Some(DType::Unicode(n, ByteOrder::NATIVE)),
                    b'U' => return Err(bad("itemsize exceeds numpy's limit of 2147483647 bytes")),
                    _ if n == 0 => None,
                    kind => kind_and_size(kind, n),
                }
            }
            // A number that does not reach the end (or none at all): only a name is left.
            _ => None,
        }
    };
    // numpy looks the whole string up, byte-order character included.
    let dtype = found
        .or_else(|| named_type(s))
        .ok_or_else(|| bad("data type not understood"))?;
    Ok(dtype.with_byte_order(order))
}

fn generic_time(kind: TimeKind) -> DType {
    let unit = TimeUnit::Generic;
    let generic = TimeType {
        kind,
        unit,
        multiplier: 1,
    };
    DType::Time(generic, ByteOrder::NATIVE)
}

/// One-character type codes (numpy's `PyArray_DescrFromType` of the character's value, so the
/// control characters 0 to 23 are numpy's type numbers: `'\x00'` is `bool`). C `long` and
/// `intptr_t` are 64 bits and `long double` is x87 in 16 bytes, as on x86-64 Linux.
fn from_code(code: u8) -> Option<DType> {
    const TYPE_NUMBERS: &[u8; 24] = b"?bBhHiIlLqQfdgFDGOSUVMme";
    if let Some(&c) = TYPE_NUMBERS.get(usize::from(code)) {
        return from_code(c);
    }
    let number = DType::native_number;
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
        b'S' => DType::Bytes(0),
        b'c' => DType::Bytes(1),
        b'U' => DType::Unicode(0, ByteOrder::NATIVE),
        b'V' => DType::Void(0),
        b'O' => DType::Object,
        b'M' => generic_time(TimeKind::Datetime),
        b'm' => generic_time(TimeKind::Timedelta),
        _ => return None,
    })
}

/// numpy's `PyArray_TypestrConvert`: a kind character and a size in bytes (not 0); the
/// one-digit sizes of numbers are those of [`number_type`].
fn kind_and_size(kind: u8, size: u64) -> Option<DType> {
    let number = DType::native_number;
    let digit = u8::try_from(size).ok().filter(|&n| n < 10);
    if let Some((p, _)) = digit.and_then(|n| number_type(b'=', kind, b'0' + n)) {
        return Some(number(p));
    }
    Some(match (kind, size) {
        // sizeof(long double) is 16 here: numpy refuses 'f12' and 'c24' on x86-64.
        (b'f', 16) => number(LongDouble { size: 16 }),
        (b'c', 16) => number(C128),
        (b'c', 32) => number(CLongDouble { size: 32 }),
        (b'O', 4 | 8) | (b'M' | b'm', 8) => return from_code(kind),
        _ => return None,
    })
}

/// The names of `np.sctypeDict` (numpy 2.4.6, x86-64 Linux), looked up as written: no
/// byte-order character.
fn named_type(s: &str) -> Option<DType> {
    let number = DType::native_number;
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
        "str" | "str_" | "unicode" => DType::Unicode(0, ByteOrder::NATIVE),
        "bytes" | "bytes_" | "a" => DType::Bytes(0),
        "void" => DType::Void(0),
        "object" | "object_" => DType::Object,
        _ => return None,
    })
}

/// C's `strtol(s, &end, 10)` on a 64-bit `long` (leading white space, a sign, digits): the
/// value, clamped to the `i64` range on overflow (`errno == ERANGE`), and the bytes of `s`
/// consumed (0 when no digits were found).
fn strtol(s: &[u8]) -> (i64, usize) {
    let start = s
        .iter()
        .position(|&c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .unwrap_or(s.len());
    let negative = s.get(start) == Some(&b'-');
    let i = start + usize::from(matches!(s.get(start), Some(b'+' | b'-')));
    let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return (0, 0);
    }
    // An optional sign and digits, which `i64::from_str` reads too: only an overflow fails.
    let text = std::str::from_utf8(&s[start..i + digits]).unwrap_or("");
    let clamped = if negative { i64::MIN } else { i64::MAX };
    (text.parse().unwrap_or(clamped), i + digits)
}

/// numpy's `is_datetime_typestr`: the kind of a type string that starts with `M8`, `m8`,
/// `datetime64` or `timedelta64`, and what follows that root.
fn datetime_root(ty: &[u8]) -> Option<(TimeKind, &[u8])> {
    use TimeKind::*;
    let roots: [(&[u8], TimeKind); 4] = [
        (b"m8", Timedelta),
        (b"M8", Datetime),
        (b"timedelta64", Timedelta),
        (b"datetime64", Datetime),
    ];
    roots
        .into_iter()
        .find_map(|(root, kind)| Some((kind, ty.strip_prefix(root)?)))
}

/// numpy's `parse_dtype_from_datetime_typestr` after the root ([`datetime_root`]): nothing
/// (generic) or `[<multiplier><unit>[/<divisor>]]`.
fn parse_datetime(meta: &[u8]) -> Result<(TimeUnit, u32), &'static str> {
    use TimeUnit::Generic;
    if meta.is_empty() {
        return Ok((Generic, 1));
    }
    const BAD: &str = "invalid datetime metadata";
    // Brackets that end the string and hold something, the first ']' closing them.
    let inner = match meta {
        [b'[', inner @ .., b']'] if !inner.is_empty() && !inner.contains(&b']') => inner,
        _ => return Err(BAD),
    };
    // An optional multiplier (a C int, not negative), then the unit up to '/' or the end.
    let (mult, end) = strtol(inner);
    let multiplier = match end {
        0 => 1,
        // An overflow is clamped out of this range.
        _ if (0..=i64::from(i32::MAX)).contains(&mult) => mult as u32,
        _ => return Err(BAD),
    };
    let rest = &inner[end..];
    let unit_len = rest.iter().position(|&c| c == b'/').unwrap_or(rest.len());
    if unit_len == 0 {
        return Err(BAD);
    }
    let unit = TimeUnit::from_code(&rest[..unit_len]).ok_or("invalid datetime unit")?;
    let (unit, multiplier) = match rest.get(unit_len..) {
        Some([b'/', den @ ..]) => {
            // "If the '/' exists, there must be a number followed by ']'".
            let (d, end) = strtol(den);
            if end == 0 || end != den.len() {
                return Err(BAD);
            }
            // numpy keeps the divisor in a C int (truncating) and refuses 0 by dividing by it
            // (a crash in numpy 2.4.6) and a negative one by making a negative multiplier it
            // cannot read back; both are refused here.
            let den = d as i32;
            match den {
                1 => (unit, multiplier),
                ..=0 => return Err("datetime divisor must be positive"),
                _ => divide_unit(unit, multiplier, den as u32)?,
            }
        }
        _ => (unit, multiplier),
    };
    Ok((unit, if unit == Generic { 1 } else { multiplier }))
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
