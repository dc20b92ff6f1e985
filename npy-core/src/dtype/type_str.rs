//! Type strings and names: `'<f4'`, `'M8[10ms]'`, `'float32'` ⇄ [`DType`], as `np.dtype(str)`
//! and `dtype.str`.

use super::{descr_error, ByteOrder, DType, Primitive, TimeKind, TimeType, TimeUnit};
use crate::error::Error;

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
        }
    }
}

impl TimeUnit {
    fn from_code(code: &str) -> Option<TimeUnit> {
        use TimeUnit::*;
        Some(match code {
            "Y" => Year,
            "M" => Month,
            "W" => Week,
            "D" => Day,
            "h" => Hour,
            "m" => Minute,
            "s" => Second,
            "ms" => Millisecond,
            "us" | "μs" => Microsecond,
            "ns" => Nanosecond,
            "ps" => Picosecond,
            "fs" => Femtosecond,
            "as" => Attosecond,
            _ => return None,
        })
    }
}

/// Parses a type string as `np.dtype(str)` does for the types a `.npy` file can hold.
pub(crate) fn parse_type_str(s: &str) -> Result<DType, Error> {
    let bad = |reason: &str| descr_error(&format!("'{s}'"), reason);
    if let Some(dt) = named_type(s) {
        return Ok(dt);
    }
    let (order, rest) = match s.chars().next() {
        Some('<') => (Some(ByteOrder::Little), &s[1..]),
        Some('>') => (Some(ByteOrder::Big), &s[1..]),
        Some('|') => (None, &s[1..]),
        Some('=') => (None, &s[1..]),
        _ => (None, s),
    };
    // Multi-byte types with '|', '=' or no order character take the machine's order, as numpy.
    let multi = order.unwrap_or(ByteOrder::NATIVE);
    let mut chars = rest.chars();
    let code = chars.next().ok_or_else(|| bad("empty type string"))?;
    let tail = chars.as_str();
    let (digits, after) = tail.split_at(
        tail.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len()),
    );
    let size: Option<u64> = if digits.is_empty() {
        None
    } else {
        Some(digits.parse().map_err(|_| bad("size out of range"))?)
    };
    let number = |p: Primitive| {
        let o = if p.itemsize() == 1 {
            ByteOrder::NotApplicable
        } else {
            multi
        };
        Ok(DType::Number(p, o))
    };
    if !after.is_empty() && !matches!(code, 'M' | 'm') {
        return Err(bad("data type not understood"));
    }
    use Primitive::*;
    match (code, size) {
        ('?', None) | ('b', Some(1)) => number(Bool),
        ('b', None) => number(I8),
        ('B', None) => number(U8),
        ('h', None) => number(I16),
        ('H', None) => number(U16),
        ('i', None) => number(I32),
        ('I', None) => number(U32),
        // C long and intptr: 64 bits on the LP64 platforms numpy 2 writes from.
        ('l' | 'q' | 'p', None) => number(I64),
        ('L' | 'Q' | 'P', None) => number(U64),
        ('e', None) => number(F16),
        ('f', None) => number(F32),
        ('d', None) => number(F64),
        ('g', None) => number(LongDouble { size: 16 }),
        ('F', None) => number(C64),
        ('D', None) => number(C128),
        ('G', None) => number(CLongDouble { size: 32 }),
        ('i', Some(1)) => number(I8),
        ('i', Some(2)) => number(I16),
        ('i', Some(4)) => number(I32),
        ('i', Some(8)) => number(I64),
        ('u', Some(1)) => number(U8),
        ('u', Some(2)) => number(U16),
        ('u', Some(4)) => number(U32),
        ('u', Some(8)) => number(U64),
        ('f', Some(2)) => number(F16),
        ('f', Some(4)) => number(F32),
        ('f', Some(8)) => number(F64),
        ('f', Some(n @ (12 | 16))) => number(LongDouble { size: n as u8 }),
        ('c', Some(8)) => number(C64),
        ('c', Some(16)) => number(C128),
        ('c', Some(n @ (24 | 32))) => number(CLongDouble { size: n as u8 }),
        // numpy keeps a flexible itemsize in a C int: `np.dtype('S2147483648')` is refused.
        ('S' | 'a' | 'V' | 'U', Some(n))
            if n.saturating_mul(if code == 'U' { 4 } else { 1 }) > MAX_FLEXIBLE_ITEMSIZE =>
        {
            Err(bad("itemsize exceeds numpy's limit of 2147483647 bytes"))
        }
        ('S' | 'a', n) => Ok(DType::Bytes(n.unwrap_or(0))),
        ('V', n) => Ok(DType::Void(n.unwrap_or(0))),
        ('U', n) => Ok(DType::Unicode(n.unwrap_or(0), multi)),
        ('O', None | Some(4 | 8)) => Ok(DType::Object),
        // A unit needs the size: numpy reads 'M' (generic) but not 'M[ns]'.
        ('M' | 'm', None) if !after.is_empty() => Err(bad("data type not understood")),
        ('M' | 'm', None | Some(8)) => {
            let kind = if code == 'M' {
                TimeKind::Datetime
            } else {
                TimeKind::Timedelta
            };
            let (unit, multiplier) =
                parse_time_unit(after).ok_or_else(|| bad("invalid datetime unit"))?;
            Ok(DType::Time(
                TimeType {
                    kind,
                    unit,
                    multiplier,
                },
                multi,
            ))
        }
        _ => Err(bad("data type not understood")),
    }
}

/// The largest itemsize numpy gives an `S`, `U` or `V` dtype (`NPY_MAX_INT`).
const MAX_FLEXIBLE_ITEMSIZE: u64 = i32::MAX as u64;

/// `""` (generic) or `"[10ms]"`.
fn parse_time_unit(s: &str) -> Option<(TimeUnit, u32)> {
    if s.is_empty() {
        return Some((TimeUnit::Generic, 1));
    }
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let split = inner
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(inner.len());
    let (num, code) = inner.split_at(split);
    let multiplier = if num.is_empty() {
        1
    } else {
        // numpy keeps the multiplier in a C int.
        num.parse()
            .ok()
            .filter(|&m| m > 0 && m <= i32::MAX as u32)?
    };
    let unit = TimeUnit::from_code(code)?;
    Some((unit, multiplier))
}

/// numpy's type names accepted by `np.dtype(name)`.
fn named_type(s: &str) -> Option<DType> {
    use Primitive::*;
    let p = match s {
        "bool" => Bool,
        "int8" => I8,
        "int16" => I16,
        "int32" => I32,
        "int64" | "int" => I64,
        "uint8" => U8,
        "uint16" => U16,
        "uint32" => U32,
        "uint64" => U64,
        "float16" => F16,
        "float32" => F32,
        "float64" | "float" => F64,
        "longdouble" => LongDouble { size: 16 },
        "complex64" => C64,
        "complex128" | "complex" => C128,
        "clongdouble" => CLongDouble { size: 32 },
        _ => return None,
    };
    let o = if p.itemsize() == 1 {
        ByteOrder::NotApplicable
    } else {
        ByteOrder::NATIVE
    };
    Some(DType::Number(p, o))
}
