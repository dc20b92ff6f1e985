//! Reading a header: the prefix (magic, version, length), the text, then the dict, validated;
//! numpy's own layout takes the fast path ([`super::fast`]), the rest the literal parser.

use std::io::Read;

use super::{Header, ParsedHeader, ReadOptions};
use crate::dtype::{parse_type_str, DType, MlType};
use crate::error::{Error, ErrorKind, NotNpy};
use crate::format::{Version, MAGIC, MAX_DIMS};
use crate::io::read_up_to;
use crate::literal::{self, ParseOptions, Value};

impl Header {
    /// Reads the magic, version, header length and header from `r`, leaving `r` at the first
    /// byte of the array data. Reads exactly the header's bytes; allocation is bounded by what
    /// the input holds, whatever the length field claims.
    ///
    /// # Errors
    /// [`ErrorKind::NotNpy`], [`ErrorKind::UnsupportedVersion`], [`ErrorKind::Truncated`],
    /// [`ErrorKind::HeaderTooLong`] and the header validation errors of [`Header::from_text`].
    pub fn read<R: Read + ?Sized>(r: &mut R) -> Result<ParsedHeader, Error> {
        Header::read_with(r, &ReadOptions::default())
    }

    /// [`Header::read`] with a read's options: their header-length and nesting limits and
    /// their type hint.
    ///
    /// # Errors
    /// As [`Header::read`].
    pub fn read_with<R: Read + ?Sized>(
        r: &mut R,
        options: &ReadOptions,
    ) -> Result<ParsedHeader, Error> {
        // The magic string and version, then the length field the version says.
        let mut prefix = [0u8; 12];
        let mut got = read_up_to(r, &mut prefix[..8])?;
        let mut found = parse_prefix(&prefix[..got], options)?;
        if let (Prefix::Short(whole), 8) = (found, got) {
            got += read_up_to(r, &mut prefix[8..whole])?;
            found = parse_prefix(&prefix[..got], options)?;
        }
        let (version, header_len) = match found {
            Prefix::Whole(version, header_len) => (version, header_len),
            Prefix::Short(whole) => return Err(truncated_prefix(got, whole)),
        };
        // Grows with what arrives, never to the claimed length up front.
        let mut raw = Vec::with_capacity(header_len.min(4096) as usize);
        r.take(header_len).read_to_end(&mut raw)?;
        if (raw.len() as u64) < header_len {
            return Err(Error::truncated("header", header_len, raw.len() as u64));
        }
        let text = decode_header(raw, version)?;
        let mut parsed = ParsedHeader {
            header: Header::from_text(&text, version, options)?,
            version,
            header_len,
            text,
        };
        if let Some(hint) = options.get_hint() {
            parsed.header.dtype = parsed.hinted_dtype(hint)?.unwrap_or(parsed.header.dtype);
        }
        Ok(parsed)
    }

    /// Parses and validates header text (the dict literal, padding allowed) as numpy does for a
    /// file of `version`: Python 2 long suffixes are accepted in 1.0 and 2.0 only.
    ///
    /// # Errors
    /// [`ErrorKind::HeaderSyntax`], [`ErrorKind::HeaderNotDict`], [`ErrorKind::HeaderKeys`],
    /// [`ErrorKind::InvalidShape`], [`ErrorKind::InvalidFortranOrder`], [`ErrorKind::InvalidDescr`],
    /// [`ErrorKind::SizeOverflow`].
    pub fn from_text(text: &str, version: Version, options: &ReadOptions) -> Result<Header, Error> {
        if let Some(header) = super::fast::parse(text, options.get_max_depth()) {
            return Ok(header);
        }
        let opts = ParseOptions {
            long_suffix: version != Version::V3_0,
            max_depth: options.get_max_depth(),
        };
        let value =
            literal::parse(text, opts).map_err(|e| Error::new(ErrorKind::HeaderSyntax(e)))?;
        Header::from_value(&value)
    }

    /// Validates a parsed header dict.
    ///
    /// # Errors
    /// As [`Header::from_text`], less the syntax errors.
    pub fn from_value(value: &Value) -> Result<Header, Error> {
        let Value::Dict(items) = value else {
            let found = value.type_name();
            return Err(Error::new(ErrorKind::HeaderNotDict { found }));
        };
        // Three items, each key found: exactly the three keys.
        let keys = ["descr", "fortran_order", "shape"].map(|k| value.get(k));
        let ([Some(descr), Some(fortran), Some(shape)], 3) = (keys, items.len()) else {
            let mut found: Vec<String> = items.iter().map(|(k, _)| k.to_string()).collect();
            found.sort();
            return Err(Error::new(ErrorKind::HeaderKeys { found }));
        };
        let shape = parse_shape(shape)?;
        let Value::Bool(fortran_order) = *fortran else {
            let found = fortran.to_string();
            return Err(Error::new(ErrorKind::InvalidFortranOrder { found }));
        };
        // `'<f1'`, no numpy dtype, is ml_dtypes' float8_e5m2 in a header (issue 26).
        let header = Header {
            dtype: DType::from_header_descr(descr)?,
            fortran_order,
            shape,
        };
        header.nbytes()?;
        Ok(header)
    }
}

/// What [`parse_prefix`] found at the start of a header's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Prefix {
    /// The whole prefix: the format version and the header length field.
    Whole(Version, u64),
    /// The bytes end inside a prefix that is right so far, which takes this many bytes in all
    /// (8 until the version says how long its length field is).
    Short(usize),
}

/// Parses the prefix of a header at the start of `bytes` (magic string, version, header
/// length) and checks the length against `options`: the one reading of the prefix, for a
/// stream ([`Header::read_with`]) and for bytes fetched ahead (`header_extent`).
///
/// # Errors
/// [`ErrorKind::NotNpy`], [`ErrorKind::UnsupportedVersion`], [`ErrorKind::HeaderTooLong`].
pub(crate) fn parse_prefix(bytes: &[u8], options: &ReadOptions) -> Result<Prefix, Error> {
    let head = &bytes[..bytes.len().min(8)];
    if head.len() < MAGIC.len() || head[..MAGIC.len()] != MAGIC[..] {
        let not_npy = match head {
            [] => NotNpy::Empty,
            _ if MAGIC.starts_with(head) => return Ok(Prefix::Short(8)),
            [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => NotNpy::Npz,
            [0x80, ..] => NotNpy::Pickle,
            _ => NotNpy::Magic(head[..head.len().min(MAGIC.len())].to_vec()),
        };
        return Err(Error::new(ErrorKind::NotNpy(not_npy)));
    }
    let (Some(&major), Some(&minor)) = (head.get(6), head.get(7)) else {
        return Ok(Prefix::Short(8));
    };
    let version = Version::from_bytes(major, minor)
        .ok_or_else(|| Error::new(ErrorKind::UnsupportedVersion { major, minor }))?;
    let whole = version.prefix_len() as usize;
    let len = match bytes.get(8..whole) {
        Some(&[a, b]) => u64::from(u16::from_le_bytes([a, b])),
        Some(&[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
        _ => return Ok(Prefix::Short(whole)),
    };
    let limit = options.get_max_header_len();
    if len > limit {
        return Err(Error::new(ErrorKind::HeaderTooLong { len, limit }));
    }
    Ok(Prefix::Whole(version, len))
}

/// The error of a stream that ended after `got` bytes of a prefix that was right so far and
/// takes `whole` bytes.
#[cold]
fn truncated_prefix(got: usize, whole: usize) -> Error {
    let (what, needed, found) = match got {
        0..=5 => ("magic string", 8, got),
        6 | 7 => ("version", 8, got),
        _ => ("header length", whole - 8, got - 8),
    };
    Error::truncated(what, needed as u64, found as u64)
}

fn parse_shape(v: &Value) -> Result<Vec<u64>, Error> {
    let bad = |reason| {
        Error::new(ErrorKind::InvalidShape {
            found: v.to_string(),
            reason,
        })
    };
    let Value::Tuple(items) = v else {
        return Err(bad(match v {
            Value::List(_) => "a list, expected a tuple of ints",
            _ => "expected a tuple of ints",
        }));
    };
    if items.len() > MAX_DIMS {
        return Err(bad("more than 64 dimensions (numpy's limit)"));
    }
    items
        .iter()
        .map(|d| match d {
            Value::Int(i) if *i < 0 => Err(bad("dimensions must not be negative")),
            Value::Int(i) => {
                u64::try_from(*i).map_err(|_| bad("dimension does not fit in 64 bits"))
            }
            Value::Bool(_) => Err(bad("a bool is not a dimension")),
            _ => Err(bad("dimensions must be ints")),
        })
        .collect()
}

pub(super) fn decode_header(raw: Vec<u8>, version: Version) -> Result<String, Error> {
    match String::from_utf8(raw) {
        // ASCII is both latin-1 and UTF-8: the common case costs one validation pass.
        Ok(s) if version == Version::V3_0 || s.is_ascii() => Ok(s),
        Ok(s) => Ok(s.bytes().map(char::from).collect()),
        Err(e) if version != Version::V3_0 => {
            Ok(e.into_bytes().into_iter().map(char::from).collect())
        }
        Err(e) => Err(Error::new(ErrorKind::HeaderNotUtf8 {
            offset: e.utf8_error().valid_up_to(),
        })),
    }
}

impl ParsedHeader {
    /// The dtype this header's array has when read with `hint` ([`DType::with_hint`]):
    /// `Some` of it when the descr is what `np.save` writes for the hinted ml_dtypes type,
    /// `None` when the hint does not apply (the descr stands as it is).
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for a bfloat16 hint (the one ml_dtypes type wider than a
    /// byte) and a `'>V2'` descr (any void of more than one byte in the byte order this
    /// machine does not use, in a record field too), naming the descr and numpy's remedy:
    /// ml_dtypes writes big-endian bfloat16 so, numpy reads it as `|V2` (only the header text
    /// keeps the order), and this crate's readers hold ml_dtypes values in little-endian order.
    /// One-byte kinds (`'>V1'`, `'>f1'`) have no byte order and read as they stand.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DType, Header, dtype::MlType};
    /// // The header `np.save` writes for big-endian bfloat16 (`dtype.newbyteorder('>')`).
    /// let text = "{'descr': '>V2', 'fortran_order': False, 'shape': (1,), }\n";
    /// let mut big = b"\x93NUMPY\x01\x00".to_vec();
    /// big.extend_from_slice(&(text.len() as u16).to_le_bytes());
    /// big.extend_from_slice(text.as_bytes());
    /// let parsed = Header::read(&mut &big[..])?;
    /// assert_eq!(parsed.header.dtype, DType::Void(2)); // as numpy reads it
    /// assert!(parsed.hinted_dtype(MlType::BFloat16).is_err());
    /// assert_eq!(parsed.hinted_dtype(MlType::Float8E4M3Fn)?, None); // not one byte
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn hinted_dtype(&self, hint: MlType) -> Result<Option<DType>, Error> {
        let Some(dtype) = self.header.dtype.with_hint(hint) else {
            return Ok(None);
        };
        if let Some(descr) = (hint.itemsize() > 1).then(|| self.swapped_void()).flatten() {
            return Err(Error::new(ErrorKind::Unsupported {
                operation: "reading with a bfloat16 hint",
                reason: format!(
                    "the descr '{descr}' is big-endian bfloat16 as ml_dtypes writes it \
                     (numpy reads it as '|V2', its byte order lost); this reader takes \
                     little-endian bfloat16 only: convert it with numpy and ml_dtypes \
                     first, np.save(f, a.astype(ml_dtypes.bfloat16))"
                ),
            }));
        }
        Ok(Some(dtype))
    }

    /// The first type string of the descr (alone, or a record field's, or a subarray's base)
    /// naming a void type of more than one byte in the byte order this machine does not use:
    /// `'>V2'` on a little-endian machine, which numpy reads as `|V2`.
    pub(crate) fn swapped_void(&self) -> Option<String> {
        let options = ParseOptions {
            long_suffix: self.version != Version::V3_0,
            ..ParseOptions::default()
        };
        swapped_void_in(literal::parse(&self.text, options).ok()?.get("descr")?)
    }
}

/// [`ParsedHeader::swapped_void`] of one descr value.
fn swapped_void_in(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => {
            let foreign: &[char] = if cfg!(target_endian = "little") {
                &['>', '!']
            } else {
                &['<']
            };
            let wide_void = matches!(parse_type_str(s), Ok(DType::Void(n)) if n > 1);
            (s.starts_with(foreign) && wide_void).then(|| s.clone())
        }
        Value::List(fields) => fields.iter().find_map(|f| match f {
            Value::Tuple(parts) | Value::List(parts) if parts.len() >= 2 => {
                swapped_void_in(&parts[1])
            }
            _ => None,
        }),
        Value::Tuple(items) if items.len() == 2 => swapped_void_in(&items[0]),
        _ => None,
    }
}
