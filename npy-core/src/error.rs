//! The crate's one error type.

use std::io;

use crate::header::Version;
use crate::literal::LiteralError;

/// What a non-`.npy` input looks like, for [`Error::NotNpy`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotNpy {
    /// Zero bytes.
    Empty,
    /// Starts with a zip signature (`PK\x03\x04`): `np.savez` writes those.
    Npz,
    /// Starts with a pickle protocol marker (`\x80`): `np.load` would unpickle it.
    Pickle,
    /// Anything else: the first bytes found instead of `\x93NUMPY`.
    Magic(Vec<u8>),
}

impl std::fmt::Display for NotNpy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotNpy::Empty => f.write_str("the file is empty"),
            NotNpy::Npz => f.write_str(
                "this looks like an .npz archive (a zip of .npy files); read it with npy_core::npz::NpzArchive",
            ),
            NotNpy::Pickle => f.write_str(
                "this looks like a Python pickle, which is never loaded (it can execute code)",
            ),
            NotNpy::Magic(b) => write!(
                f,
                "it starts with {} instead of the magic \\x93NUMPY",
                escape(b)
            ),
        }
    }
}

fn escape(b: &[u8]) -> String {
    b.iter()
        .flat_map(|&c| std::ascii::escape_default(c))
        .map(char::from)
        .collect()
}

/// Errors of reading, parsing and writing `.npy` files.
///
/// Messages name what the file holds and, where it applies, what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error from the underlying reader or writer.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),

    /// The input is not an `.npy` file.
    #[error("not an .npy file: {0}")]
    NotNpy(NotNpy),

    /// A format version other than 1.0, 2.0 and 3.0.
    #[error("unsupported .npy format version {major}.{minor} (supported: 1.0, 2.0, 3.0)")]
    UnsupportedVersion {
        /// Major version byte found.
        major: u8,
        /// Minor version byte found.
        minor: u8,
    },

    /// The input ends before a part the file's own prefix or header promises.
    #[error("file ends inside the {what}: {needed} bytes needed, {found} present")]
    Truncated {
        /// Which part: "magic string", "header length", "header", "array data".
        what: &'static str,
        /// Bytes the part needs.
        needed: u64,
        /// Bytes that were there.
        found: u64,
    },

    /// The header length field exceeds the configured limit.
    #[error("header length {len} bytes exceeds the limit of {limit} bytes (raise ReadOptions::max_header_len to read it)")]
    HeaderTooLong {
        /// The HEADER_LEN field.
        len: u64,
        /// The limit in force.
        limit: u64,
    },

    /// A format 3.0 header that is not UTF-8.
    #[error("format 3.0 header is not valid UTF-8 (byte {offset} of the header)")]
    HeaderNotUtf8 {
        /// Offset of the first invalid byte within the header text.
        offset: usize,
    },

    /// The header text is not a valid Python literal.
    #[error("header is not a valid Python literal: {0}")]
    HeaderSyntax(#[from] LiteralError),

    /// The header literal is not a dict.
    #[error("header is a {found}, expected a dict")]
    HeaderNotDict {
        /// Python type name of what was found.
        found: &'static str,
    },

    /// The header dict's keys are not exactly `descr`, `fortran_order`, `shape`.
    #[error("header has keys [{}], expected exactly 'descr', 'fortran_order', 'shape'", .found.join(", "))]
    HeaderKeys {
        /// The keys found, as Python reprs.
        found: Vec<String>,
    },

    /// The `shape` value is not a tuple of non-negative ints.
    #[error("header 'shape' is {found}: {reason}")]
    InvalidShape {
        /// Python repr of the value.
        found: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// The `fortran_order` value is not a bool.
    #[error("header 'fortran_order' is {found}, expected True or False")]
    InvalidFortranOrder {
        /// Python repr of the value.
        found: String,
    },

    /// The `descr` value is not a dtype numpy can read.
    #[error("invalid descr {found}: {reason}")]
    InvalidDescr {
        /// The offending descr or part of it.
        found: String,
        /// What is wrong with it.
        reason: String,
    },

    /// `prod(shape) × itemsize` does not fit in 64 bits.
    #[error("array size overflows: shape {shape:?} with itemsize {itemsize} bytes does not fit in 64 bits")]
    SizeOverflow {
        /// The shape.
        shape: Vec<u64>,
        /// Bytes per element.
        itemsize: u64,
    },

    /// Writing: the header does not fit the requested format version.
    #[error("header of {len} bytes does not fit format {version} (at most {max} bytes)")]
    HeaderTooLargeForVersion {
        /// The version asked for.
        version: Version,
        /// Bytes the header needs.
        len: u64,
        /// The most the version's length field can hold.
        max: u64,
    },

    /// Writing: the header text has characters outside latin-1, which only format 3.0 can hold.
    #[error(
        "header text is not latin-1, which format {version} requires (format 3.0 allows UTF-8)"
    )]
    HeaderNotLatin1 {
        /// The version asked for.
        version: Version,
    },

    /// The file's dtype does not convert to the requested Rust type.
    #[error("file has dtype {file}, requested {requested}")]
    TypeMismatch {
        /// The file's dtype, e.g. `'<c8' (complex64)`.
        file: String,
        /// The Rust type and its dtype, e.g. `Complex<f64> ('<c16')`.
        requested: String,
    },

    /// A record field the Rust type needs is not in the file's record dtype.
    #[error("file's record has no field {field:?} (it has: {})", .available.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", "))]
    MissingField {
        /// The field asked for.
        field: String,
        /// The file's field names, in offset order.
        available: Vec<String>,
    },

    /// A record field whose dtype does not convert to the Rust field's type.
    #[error("field {field:?}: {source}")]
    FieldType {
        /// The field's name.
        field: String,
        /// Why the field does not convert (usually [`Error::TypeMismatch`]).
        source: Box<Error>,
    },

    /// The array holds Python objects: its data is a pickle, which is never interpreted.
    #[error("file has dtype {dtype}, an array of Python objects stored as a pickle; it is not read, because unpickling can execute code")]
    ObjectArray {
        /// The dtype holding `O`.
        dtype: String,
    },

    /// A bool byte other than 0 or 1.
    #[error("invalid bool byte {byte:#04x} (numpy writes only 0 and 1)")]
    InvalidBool {
        /// The byte found.
        byte: u8,
    },

    /// A `U` code point that a Rust `char` cannot hold (a lone surrogate, or past U+10FFFF).
    #[error("invalid code point U+{code_point:04X} in a 'U' string (lone surrogate or out of range); read_dyn keeps raw code points")]
    InvalidUnicode {
        /// The code point found.
        code_point: u32,
    },

    /// Writing a string longer than its dtype's width.
    #[error("value of {len} characters does not fit dtype {dtype} (set a wider dtype with WriteOptions::dtype)")]
    ValueTooLong {
        /// Length of the value (bytes for `S`, characters for `U`).
        len: usize,
        /// The dtype written.
        dtype: String,
    },

    /// A buffer or slice whose length does not match the number of elements.
    #[error("{what}: {found} elements given, {expected} expected")]
    LengthMismatch {
        /// What was being done.
        what: &'static str,
        /// Elements expected.
        expected: u64,
        /// Elements given.
        found: u64,
    },

    /// A request that this array's layout cannot serve (rows of a Fortran-order array, an
    /// index out of range, a shape `ndarray` cannot hold).
    #[error("{0}")]
    Layout(String),

    /// A zero-copy view needs the array data aligned in memory for the element type, and it is
    /// not: the buffer's start address or the file's data offset is not a multiple of `align`.
    #[error("array data at byte offset {offset} is not aligned to {align} bytes in memory, which a zero-copy view of the element type needs; use view_or_copy or a copying read")]
    Misaligned {
        /// Offset of the array data from the start of the input, in bytes.
        offset: u64,
        /// Alignment the element type needs, in bytes.
        align: usize,
    },

    /// The file's dtype holds the requested type, but its bytes are not the type's in-memory
    /// layout (another byte order, or a type decoded element by element), so they cannot be
    /// viewed without copying.
    #[error("file has dtype {file}, requested {requested}: {reason}; use view_or_copy or a copying read")]
    NotViewable {
        /// The file's dtype, e.g. `'>f8' (float64)`.
        file: String,
        /// The Rust type and its dtype, e.g. `f64 ('<f8')`.
        requested: String,
        /// Why the bytes cannot be borrowed.
        reason: &'static str,
    },

    /// The file's number of dimensions differs from that of the requested array type.
    #[error("file has shape {shape:?} ({} dimensions), requested a {expected}-dimensional array", .shape.len())]
    DimensionMismatch {
        /// The file's shape.
        shape: Vec<u64>,
        /// Dimensions of the requested type.
        expected: usize,
    },

    /// Reading would allocate memory that the input cannot back (zero-size elements in
    /// numbers no file holds).
    #[error("refusing to allocate {elements} elements of {bytes_each} bytes each for {what}, which the input does not back")]
    AllocationLimit {
        /// What was being read.
        what: &'static str,
        /// Elements requested.
        elements: u64,
        /// Bytes per element in memory.
        bytes_each: u64,
    },

    /// An `.npz` archive or member problem (npz integration point; feature `npz`).
    #[cfg(feature = "npz")]
    #[error("{0}")]
    Npz(#[from] crate::npz::NpzError),

    /// Writing a dynamic value that the dtype cannot hold (wrong kind, out of range, wrong
    /// length, another datetime unit).
    #[error("value {value} does not fit dtype {dtype}")]
    ValueMismatch {
        /// The dtype written, e.g. `'<i2'`.
        dtype: String,
        /// The value, briefly.
        value: String,
    },
}
