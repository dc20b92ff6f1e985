//! The `.npy` header: magic, version, header length, and the Python-literal dict.
//!
//! Reading follows numpy's `read_magic` and `_read_array_header`
//! (`numpy/lib/_format_impl.py`), stricter where numpy defers a failure to later
//! (negative dimensions, bools as dimensions). Writing reproduces `np.save`'s bytes exactly:
//! key order, `repr` of each value, the spaces numpy reserves for growing the shape, and padding
//! so the data starts at a multiple of [`ARRAY_ALIGN`].

use std::fmt;
use std::io::Read;

use crate::dtype::DType;
use crate::error::{Error, NotNpy};
use crate::literal::{self, ParseOptions, Value};

/// The six bytes every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// numpy aligns the start of the data to this many bytes when writing (since numpy 1.14; older
/// files are 16-aligned, and reading does not require any alignment).
pub const ARRAY_ALIGN: u64 = 64;

/// numpy reserves room for a growth-axis dimension of this many digits when writing
/// (`GROWTH_AXIS_MAX_DIGITS`), so the shape can be rewritten in place.
pub const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The most dimensions an array may have: numpy's `NPY_MAXDIMS` (64 since numpy 2.0). Headers
/// with more are refused, as `np.load` refuses them.
pub const MAX_DIMS: usize = 64;

/// Default of [`ReadOptions::max_header_len`]: 16 MiB, far above numpy's 10,000 so that wide
/// records (a 4,000-field record needs about 100 KB) load, while bounding what a hostile length
/// field can make the reader buffer.
pub const DEFAULT_MAX_HEADER_LEN: u64 = 16 << 20;

/// A `.npy` format version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// 1.0: u16 header length, latin-1 header.
    V1_0,
    /// 2.0: u32 header length, latin-1 header.
    V2_0,
    /// 3.0: u32 header length, UTF-8 header.
    V3_0,
}

impl Version {
    /// From the two version bytes.
    ///
    /// # Errors
    /// [`Error::UnsupportedVersion`] for anything but (1,0), (2,0), (3,0).
    pub fn from_bytes(major: u8, minor: u8) -> Result<Version, Error> {
        match (major, minor) {
            (1, 0) => Ok(Version::V1_0),
            (2, 0) => Ok(Version::V2_0),
            (3, 0) => Ok(Version::V3_0),
            _ => Err(Error::UnsupportedVersion { major, minor }),
        }
    }

    /// `(major, minor)`.
    pub fn bytes(self) -> (u8, u8) {
        match self {
            Version::V1_0 => (1, 0),
            Version::V2_0 => (2, 0),
            Version::V3_0 => (3, 0),
        }
    }

    /// Size in bytes of the header-length field: 2 for 1.0, 4 otherwise.
    pub fn len_field_size(self) -> u64 {
        match self {
            Version::V1_0 => 2,
            _ => 4,
        }
    }

    /// Bytes before the header text: magic, version, header length (10 or 12).
    pub fn prefix_len(self) -> u64 {
        MAGIC.len() as u64 + 2 + self.len_field_size()
    }

    /// The largest header length the version's field holds.
    pub fn max_header_len(self) -> u64 {
        match self {
            Version::V1_0 => u64::from(u16::MAX),
            _ => u64::from(u32::MAX),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = self.bytes();
        write!(f, "{a}.{b}")
    }
}

/// Options for reading a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The largest header length (bytes) accepted; longer is [`Error::HeaderTooLong`].
    pub max_header_len: u64,
    /// How deep the header literal may nest (see [`ParseOptions::max_depth`]).
    pub max_depth: usize,
    /// Whether [`NpyReader::read_dyn`](crate::NpyReader::read_dyn) decodes the pickle of an
    /// object array (feature `pickle`, on by default): decoding never executes anything (see
    /// `npy_core::pickle`). Off, object arrays are refused with
    /// [`Error::ObjectArray`] as typed reads refuse them.
    pub decode_pickles: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_header_len: DEFAULT_MAX_HEADER_LEN,
            max_depth: literal::DEFAULT_MAX_DEPTH,
            decode_pickles: true,
        }
    }
}

impl ReadOptions {
    /// These options with decoding of object-array pickles on (the default) or off; off,
    /// [`NpyReader::read_dyn`](crate::NpyReader::read_dyn) refuses object arrays with
    /// [`Error::ObjectArray`] as typed reads do. Without feature
    /// `pickle` object arrays are always refused.
    pub fn decode_pickles(mut self, on: bool) -> Self {
        self.decode_pickles = on;
        self
    }

    /// These options with another header-length limit.
    pub fn max_header_len(mut self, bytes: u64) -> Self {
        self.max_header_len = bytes;
        self
    }
}

/// The header dict of a `.npy` file: dtype, memory order and shape.
///
/// # Examples
/// ```
/// use npy_core::{DType, Header};
/// let h = Header::new("<f4".parse::<DType>()?, vec![4, 64]);
/// let bytes = h.to_bytes(None)?;
/// assert_eq!(bytes.len(), 128); // data starts at a multiple of 64
/// assert_eq!(&bytes[10..70], b"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }");
/// let parsed = Header::read(&mut &bytes[..])?;
/// assert_eq!(parsed.header, h);
/// assert_eq!(parsed.data_offset(), 128);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// The element dtype (the header's `descr`).
    pub dtype: DType,
    /// `True`: data is in Fortran (column-major) order; `False`: C (row-major) order.
    pub fortran_order: bool,
    /// The logical shape, outermost dimension first, in both orders.
    pub shape: Vec<u64>,
}

/// A header as read from a file: the dict and how it was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedHeader {
    /// The parsed dict.
    pub header: Header,
    /// The format version.
    pub version: Version,
    /// The HEADER_LEN field: bytes of header text, padding and newline included.
    pub header_len: u64,
    /// The header text exactly as stored (latin-1 or UTF-8 decoded), padding included.
    pub text: String,
}

impl ParsedHeader {
    /// Byte offset of the array data from the start of the file.
    pub fn data_offset(&self) -> u64 {
        self.version.prefix_len() + self.header_len
    }
}

impl Header {
    /// A C-order header.
    pub fn new(dtype: DType, shape: Vec<u64>) -> Header {
        Header {
            dtype,
            fortran_order: false,
            shape,
        }
    }

    /// Number of elements: the product of the shape (1 for `()`).
    ///
    /// # Errors
    /// [`Error::SizeOverflow`] when the product of the non-zero dimensions does not fit in 64
    /// bits (as numpy, a zero dimension does not excuse the others, wherever it stands).
    pub fn num_elements(&self) -> Result<u64, Error> {
        let (product, any_zero) = self.nonzero_product(1)?;
        Ok(if any_zero { 0 } else { product })
    }

    /// Bytes of array data: elements × itemsize.
    ///
    /// # Errors
    /// [`Error::SizeOverflow`] when the element count or itemsize × the non-zero dimensions
    /// does not fit in 64 bits.
    pub fn nbytes(&self) -> Result<u64, Error> {
        self.num_elements()?;
        let (product, any_zero) = self.nonzero_product(self.dtype.itemsize())?;
        Ok(if any_zero { 0 } else { product })
    }

    /// `start` × every non-zero dimension, checked, and whether a dimension is zero; the result
    /// does not depend on where a zero stands (numpy's `PyArray_NewFromDescr` rule).
    fn nonzero_product(&self, start: u64) -> Result<(u64, bool), Error> {
        let mut product = start;
        let mut any_zero = false;
        for &d in &self.shape {
            if d == 0 {
                any_zero = true;
            } else {
                product = product.checked_mul(d).ok_or_else(|| self.overflow())?;
            }
        }
        Ok((product, any_zero))
    }

    #[cold]
    fn overflow(&self) -> Error {
        Error::SizeOverflow {
            shape: self.shape.clone(),
            itemsize: self.dtype.itemsize(),
        }
    }

    /// Reads the magic, version, header length and header from `r`, leaving `r` at the first
    /// byte of the array data. Reads exactly the header's bytes; allocation is bounded by what
    /// the input holds, whatever the length field claims.
    ///
    /// # Errors
    /// [`Error::NotNpy`], [`Error::UnsupportedVersion`], [`Error::Truncated`],
    /// [`Error::HeaderTooLong`] and the header validation errors of [`Header::from_text`].
    pub fn read<R: Read + ?Sized>(r: &mut R) -> Result<ParsedHeader, Error> {
        Header::read_with(r, &ReadOptions::default())
    }

    /// [`Header::read`] with options.
    ///
    /// # Errors
    /// As [`Header::read`].
    pub fn read_with<R: Read + ?Sized>(
        r: &mut R,
        options: &ReadOptions,
    ) -> Result<ParsedHeader, Error> {
        let mut prefix = [0u8; 8];
        let got = read_up_to(r, &mut prefix)?;
        let head = &prefix[..got];
        if got < MAGIC.len() || &head[..MAGIC.len()] != MAGIC {
            if got == 0 {
                return Err(Error::NotNpy(NotNpy::Empty));
            }
            if MAGIC.starts_with(head) {
                return Err(Error::Truncated {
                    what: "magic string",
                    needed: 8,
                    found: got as u64,
                });
            }
            if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
                return Err(Error::NotNpy(NotNpy::Npz));
            }
            if head[0] == 0x80 {
                return Err(Error::NotNpy(NotNpy::Pickle));
            }
            return Err(Error::NotNpy(NotNpy::Magic(head[..got.min(6)].to_vec())));
        }
        if got < 8 {
            return Err(Error::Truncated {
                what: "version",
                needed: 8,
                found: got as u64,
            });
        }
        let version = Version::from_bytes(prefix[6], prefix[7])?;
        let mut len_buf = [0u8; 4];
        let len_size = version.len_field_size() as usize;
        let got = read_up_to(r, &mut len_buf[..len_size])?;
        if got < len_size {
            return Err(Error::Truncated {
                what: "header length",
                needed: len_size as u64,
                found: got as u64,
            });
        }
        let header_len = match version {
            Version::V1_0 => u64::from(u16::from_le_bytes([len_buf[0], len_buf[1]])),
            _ => u64::from(u32::from_le_bytes(len_buf)),
        };
        if header_len > options.max_header_len {
            return Err(Error::HeaderTooLong {
                len: header_len,
                limit: options.max_header_len,
            });
        }
        // Grows with what arrives, never to the claimed length up front.
        let mut raw = Vec::with_capacity(header_len.min(4096) as usize);
        r.take(header_len).read_to_end(&mut raw)?;
        if (raw.len() as u64) < header_len {
            return Err(Error::Truncated {
                what: "header",
                needed: header_len,
                found: raw.len() as u64,
            });
        }
        let text = decode_header(raw, version)?;
        let header = Header::from_text(&text, version, options)?;
        Ok(ParsedHeader {
            header,
            version,
            header_len,
            text,
        })
    }

    /// Parses and validates header text (the dict literal, padding allowed) as numpy does for a
    /// file of `version`: Python 2 long suffixes are accepted in 1.0 and 2.0 only.
    ///
    /// # Errors
    /// [`Error::HeaderSyntax`], [`Error::HeaderNotDict`], [`Error::HeaderKeys`],
    /// [`Error::InvalidShape`], [`Error::InvalidFortranOrder`], [`Error::InvalidDescr`],
    /// [`Error::SizeOverflow`].
    pub fn from_text(text: &str, version: Version, options: &ReadOptions) -> Result<Header, Error> {
        // numpy's own layout (every file np.save writes) takes the fast path; anything else,
        // and every error, goes through the general literal parser.
        if let Some(header) = crate::fast_header::parse(text, options.max_depth) {
            return Ok(header);
        }
        let opts = ParseOptions {
            long_suffix: version != Version::V3_0,
            max_depth: options.max_depth,
        };
        let value = literal::parse(text, opts)?;
        Header::from_value(&value)
    }

    /// Validates a parsed header dict.
    ///
    /// # Errors
    /// As [`Header::from_text`], less the syntax errors.
    pub fn from_value(value: &Value) -> Result<Header, Error> {
        let Value::Dict(items) = value else {
            return Err(Error::HeaderNotDict {
                found: value.type_name(),
            });
        };
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        let mut keys_ok = items.len() == 3;
        for (k, v) in items {
            match k {
                Value::Str(s) if s == "descr" => descr = Some(v),
                Value::Str(s) if s == "fortran_order" => fortran = Some(v),
                Value::Str(s) if s == "shape" => shape = Some(v),
                _ => keys_ok = false,
            }
        }
        let (Some(descr), Some(fortran), Some(shape), true) = (descr, fortran, shape, keys_ok)
        else {
            let mut found: Vec<String> = items.iter().map(|(k, _)| k.to_string()).collect();
            found.sort();
            return Err(Error::HeaderKeys { found });
        };
        let shape = parse_shape(shape)?;
        let fortran_order = match fortran {
            Value::Bool(b) => *b,
            other => {
                return Err(Error::InvalidFortranOrder {
                    found: other.to_string(),
                })
            }
        };
        let dtype = DType::from_descr_value(descr)?;
        let header = Header {
            dtype,
            fortran_order,
            shape,
        };
        header.nbytes()?;
        Ok(header)
    }

    /// The header dict as numpy writes it, before padding: keys in sorted order, `repr` of each
    /// value, a trailing `, }`, then the spaces numpy reserves for the growth axis (21 minus
    /// the digits of the first dimension in C order, the last in Fortran order; none for `()`).
    pub fn to_text(&self) -> String {
        let shape = Value::Tuple(
            self.shape
                .iter()
                .map(|&d| Value::Int(i128::from(d)))
                .collect(),
        );
        let mut s = format!(
            "{{'descr': {}, 'fortran_order': {}, 'shape': {}, }}",
            self.dtype.to_descr_value(),
            if self.fortran_order { "True" } else { "False" },
            shape
        );
        let growth = if self.fortran_order {
            self.shape.last()
        } else {
            self.shape.first()
        };
        if let Some(d) = growth {
            let digits = d.to_string().len();
            s.extend(std::iter::repeat_n(
                ' ',
                GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
            ));
        }
        s
    }

    /// The whole prefix and header as `np.save` writes them: magic, version, header length,
    /// text, 1 to 64 spaces and `\n`, so that the data starts at a multiple of [`ARRAY_ALIGN`].
    ///
    /// With `version` `None`, numpy's choice: 1.0; 2.0 when the header needs more than 65,535
    /// bytes; 3.0 when the text is not latin-1.
    ///
    /// # Errors
    /// For an explicit `version`: [`Error::HeaderNotLatin1`] (1.0, 2.0 with non-latin-1 text),
    /// [`Error::HeaderTooLargeForVersion`].
    pub fn to_bytes(&self, version: Option<Version>) -> Result<Vec<u8>, Error> {
        let text = self.to_text();
        match version {
            Some(v) => wrap_header(&text, v),
            None => wrap_header(&text, Version::V1_0)
                .or_else(|_| wrap_header(&text, Version::V2_0))
                .or_else(|_| wrap_header(&text, Version::V3_0)),
        }
    }
}

/// numpy's `_wrap_header`.
fn wrap_header(text: &str, version: Version) -> Result<Vec<u8>, Error> {
    let encoded: Vec<u8> = match version {
        Version::V3_0 => text.as_bytes().to_vec(),
        _ => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).map_err(|_| Error::HeaderNotLatin1 { version }))
            .collect::<Result<_, _>>()?,
    };
    let hlen = encoded.len() as u64 + 1;
    let pad = ARRAY_ALIGN - (version.prefix_len() + hlen) % ARRAY_ALIGN;
    let total = hlen + pad;
    if total > version.max_header_len() {
        return Err(Error::HeaderTooLargeForVersion {
            version,
            len: total,
            max: version.max_header_len(),
        });
    }
    let mut out = Vec::with_capacity((version.prefix_len() + total) as usize);
    out.extend_from_slice(MAGIC);
    let (major, minor) = version.bytes();
    out.extend_from_slice(&[major, minor]);
    match version {
        Version::V1_0 => out.extend_from_slice(&(total as u16).to_le_bytes()),
        _ => out.extend_from_slice(&(total as u32).to_le_bytes()),
    }
    out.extend_from_slice(&encoded);
    out.resize(out.len() + pad as usize, b' ');
    out.push(b'\n');
    Ok(out)
}

fn parse_shape(v: &Value) -> Result<Vec<u64>, Error> {
    let bad = |reason| Error::InvalidShape {
        found: v.to_string(),
        reason,
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

fn decode_header(raw: Vec<u8>, version: Version) -> Result<String, Error> {
    match String::from_utf8(raw) {
        // ASCII is both latin-1 and UTF-8: the common case costs one validation pass.
        Ok(s) if version == Version::V3_0 || s.is_ascii() => Ok(s),
        Ok(s) => Ok(s.bytes().map(char::from).collect()),
        Err(e) if version != Version::V3_0 => {
            Ok(e.into_bytes().into_iter().map(char::from).collect())
        }
        Err(e) => Err(Error::HeaderNotUtf8 {
            offset: e.utf8_error().valid_up_to(),
        }),
    }
}

/// Fills `buf` as far as the input allows; returns how many bytes were read.
pub(crate) fn read_up_to<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<usize, Error> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(n)
}
