//! The crate's one error type: [`Error`], a boxed [`ErrorKind`] with the file it concerns.
//!
//! Every `Result` of the crate carries an `Error`, so it is one pointer (`Result<f32, Error>`
//! is 16 bytes): the kind and its payload (shapes, dtype descriptions, names) live behind the
//! box, built only when an error happens (the constructors are `#[cold]`).
//!
//! - [`Error::kind`] is what happened, to match on; [`Error::classify`] sorts it into a
//!   [`Category`] a caller can act on (retry, report the file, fix the call).
//! - [`Error::path`] is the file, for every error of a function that takes a path.
//! - `Display` is one self-contained line, `path: message`; [`std::error::Error::source`]
//!   returns only causes that line does not already quote, so an error chain printed by
//!   `anyhow` or `eprintln!("{e:#}")` says nothing twice.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::dtype::{DType, DescrError};
use crate::format::Version;
use crate::literal::LiteralError;

/// An error of reading, parsing or writing `.npy` files (the [module](self) says what it holds).
///
/// # Examples
/// ```
/// use npy_core::{error::Category, Error, ErrorKind};
/// let err = npy_core::read::<f32>("no/such/file.npy").unwrap_err();
/// assert_eq!(err.classify(), Category::Io);
/// assert!(matches!(err.kind(), ErrorKind::Io(_)));
/// assert_eq!(err.path(), Some(std::path::Path::new("no/such/file.npy")));
/// assert!(err.to_string().starts_with("no/such/file.npy: I/O error: "));
/// let e = Error::from(ErrorKind::Truncated { what: "array data", needed: 16, found: 8 });
/// assert_eq!(e.to_string(), "file ends inside the array data: 16 bytes needed, 8 present");
/// ```
pub struct Error {
    // Boxed so that every `Result<T, Error>` stays small on the success path: the kind holds
    // strings, shapes and other errors.
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
}

/// What kind of problem an [`Error`] is, for a caller deciding what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The operating system or the underlying reader or writer failed ([`ErrorKind::Io`]):
    /// the file may be fine.
    Io,
    /// The input breaks the format: not an `.npy` file, a malformed header or descr, data
    /// shorter than the header promises, bytes that are no value of their dtype.
    Format,
    /// The file is valid but holds something other than what was asked: another dtype, a
    /// missing record field, another number of dimensions, data that cannot be borrowed as
    /// the requested type.
    Mismatch,
    /// The call is wrong whatever the file: data that does not fill its shape, an index or range
    /// outside the array, a value wider than its dtype, a version that cannot hold the header.
    Usage,
    /// A limit of this crate (header length, allocation bounds) or of the platform (a size
    /// beyond `usize`).
    Limit,
    /// Something this crate refuses or does not do: object arrays (pickles), unknown format
    /// versions, operations the array's layout does not support.
    Unsupported,
}

/// What a non-`.npy` input looks like, for [`ErrorKind::NotNpy`].
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

impl fmt::Display for NotNpy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotNpy::Empty => f.write_str("the file is empty"),
            NotNpy::Npz => f.write_str(
                "this looks like an .npz archive (a zip of .npy files); read it with npy_npz::NpzArchive (crate npy-npz)",
            ),
            NotNpy::Pickle => f.write_str(
                "this looks like a Python pickle, which is never loaded (it can execute code)",
            ),
            NotNpy::Magic(b) => write!(
                f,
                "it starts with {} instead of the magic \\x93NUMPY",
                b.escape_ascii()
            ),
        }
    }
}

/// The kinds of [`Error`]: what went wrong, with what the file holds and what was asked.
///
/// `Display` writes the message without the file's path ([`Error`]'s `Display` adds it).
///
/// To add a kind: a variant with a doc line saying when it happens and its message in its
/// `#[error(...)]` attribute (written once, beside the payload), its [`Category`] in
/// [`Error::classify`], and a test that produces it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An I/O error from the underlying reader or writer.
    #[error("I/O error: {0}")]
    Io(io::Error),

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
    #[error("file ends inside the {what}: {} needed, {found} present", count(*.needed, "byte"))]
    Truncated {
        /// Which part: "magic string", "header length", "header", "array data".
        what: &'static str,
        /// Bytes the part needs.
        needed: u64,
        /// Bytes that were there.
        found: u64,
    },

    /// The header length field exceeds the configured limit.
    #[error(
        "header length {} exceeds the limit of {} (raise ReadOptions::max_header_len to read it)",
        count(*.len, "byte"),
        count(*.limit, "byte")
    )]
    HeaderTooLong {
        /// The `HEADER_LEN` field.
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
    HeaderSyntax(LiteralError),

    /// A descr given as text ([`DType`]'s `FromStr`) is not a valid Python literal.
    #[error("descr is not a valid Python literal: {0}")]
    DescrSyntax(LiteralError),

    /// The header literal is not a dict.
    #[error("header is a {found}, expected a dict")]
    HeaderNotDict {
        /// Python type name of what was found.
        found: &'static str,
    },

    /// The header dict's keys are not exactly `descr`, `fortran_order`, `shape`.
    #[error(
        "header has keys [{}], expected exactly 'descr', 'fortran_order', 'shape'",
        .found.join(", ")
    )]
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

    /// A dimension, the element count or `prod(shape) × itemsize` exceeds numpy's sizes
    /// (`npy_intp`, at most 2^63 − 1: [`crate::header::MAX_NUMPY_SIZE`]).
    #[error(
        "array size overflows: shape {shape:?} with itemsize {} exceeds numpy's sizes \
         (dimensions, element count and bytes at most 2**63 - 1)",
        count(*.itemsize, "byte")
    )]
    SizeOverflow {
        /// The shape.
        shape: Vec<u64>,
        /// Bytes per element.
        itemsize: u64,
    },

    /// Writing: the header does not fit the requested format version.
    #[error(
        "header of {} does not fit format {version} (at most {})",
        count(*.len, "byte"),
        count(*.max, "byte")
    )]
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
    #[error(
        "file has dtype {}, requested {requested}{}{}",
        .file.describe(),
        if *.safe_cast { SAFE_CAST_HINT } else { "" },
        ml_dtypes_hint(.file)
    )]
    TypeMismatch {
        /// The file's dtype (in a record, the field's).
        file: DType,
        /// The Rust type and its own dtype.
        requested: Box<Requested>,
        /// Whether numpy casts the file's dtype to the requested one safely
        /// (`np.can_cast(file, requested, 'safe')`), so that a read with
        /// [`Casting::Safe`](crate::read::Casting::Safe) would succeed; the message then says so.
        safe_cast: bool,
    },

    /// A record field the Rust type needs is not in the file's record dtype.
    #[error("file's record has no field {field:?} (it has: {})", quoted_list(.available))]
    MissingField {
        /// The field asked for.
        field: String,
        /// The file's field names, in offset order.
        available: Vec<String>,
    },

    /// A record field whose dtype does not convert to the Rust field's type.
    #[error("field {field:?}: {}", .error.kind())]
    FieldType {
        /// The field's name.
        field: String,
        /// Why the field does not convert (usually [`ErrorKind::TypeMismatch`]); its message
        /// is part of this one.
        error: Error,
    },

    /// The array holds Python objects: its data is a pickle, which only a dynamic read given
    /// an [`ObjectCodec`](crate::dynamic::ObjectCodec) decodes (npy-pickle's, which never
    /// executes anything); typed reads, views and maps always refuse it.
    #[error(
        "file has dtype {}, an array of Python objects stored as a pickle, which no typed \
         read decodes; the crate npy-pickle decodes it without executing anything \
         (npy_pickle::read_dyn, npy_pickle::read_objects, or \
         NpyReader::read_dyn_using(&npy_pickle::PickleCodec::default()))",
        .dtype.describe()
    )]
    ObjectArray {
        /// The dtype holding `O` (itself, or a record with an object field).
        dtype: DType,
    },

    /// The descr is numpy's variable-width string dtype (`'T'`, `StringDType`), whose arrays
    /// `np.save` stores as Python objects; `np.load` refuses them without `allow_pickle`, and
    /// this crate refuses them.
    #[error(
        "file has dtype {found} (StringDType), numpy's variable-width strings, which np.save \
         stores as a pickle of Python objects: refused (np.load refuses it too without \
         allow_pickle)"
    )]
    StringDType {
        /// The type string, as the file wrote it.
        found: String,
    },

    /// A bool byte other than 0 or 1, found by the strict check
    /// ([`ReadOptions::strict_bools`](crate::ReadOptions::strict_bools)); by default numpy's
    /// rule applies and any non-zero byte is `true`.
    #[error(
        "bool byte {byte:#04x} at byte {offset} is not 0 or 1 (numpy reads it as True, and \
         np.save writes such bytes for masks viewed as bool; the strict bool check refuses it)"
    )]
    InvalidBool {
        /// The byte found.
        byte: u8,
        /// Its offset from the start of the input (the file), in bytes.
        offset: u64,
    },

    /// A zero-copy view (or map) of `bool` data holding a byte other than 0 and 1: numpy reads
    /// it as `True`, but a Rust `bool` in memory can only be 0 or 1, so the data cannot be
    /// borrowed. [`view_or_copy`](crate::view::view_or_copy) and the readers decode such data.
    #[error(
        "bool byte {byte:#04x} at byte {offset} cannot be borrowed as a Rust bool, which holds \
         only 0 and 1 (numpy reads it as True); read or view_or_copy the array, which decode it"
    )]
    NonCanonicalBool {
        /// The byte found.
        byte: u8,
        /// Its offset from the start of the input (the file), in bytes.
        offset: u64,
    },

    /// A `U` code point that a Rust `char` cannot hold (a lone surrogate, or past U+10FFFF).
    #[error(
        "invalid code point U+{code_point:04X} in a 'U' string (lone surrogate or out of range); \
         read_dyn keeps raw code points"
    )]
    InvalidUnicode {
        /// The code point found.
        code_point: u32,
    },

    /// Writing a string longer than its dtype's width.
    #[error("{}", too_long(*.len, .dtype, .field.as_deref()))]
    ValueTooLong {
        /// Length of the value (bytes for `S`, characters for `U`).
        len: usize,
        /// The dtype written (`S<n>` or `U<n>`).
        dtype: DType,
        /// The record field the value belongs to, when written through a derived record
        /// (whose remedy is `#[npy(width = N)]` rather than another dtype).
        field: Option<String>,
    },

    /// A buffer or slice whose length does not match the number of elements.
    #[error("{what}: {} given, {expected} expected", count(*.found, "element"))]
    LengthMismatch {
        /// What was being done.
        what: &'static str,
        /// Elements expected.
        expected: u64,
        /// Elements given.
        found: u64,
    },

    /// A range or position outside the array: an element or row range that is reversed or
    /// ends past the array, a seek past its last element.
    #[error("{}", out_of_range(.what, *.start, *.end, *.len))]
    OutOfRange {
        /// What was asked: `"element range"`, `"row range"`, `"seek position"`.
        what: &'static str,
        /// Start of the range (the position, for a seek).
        start: u64,
        /// End of the range, exclusive (the position, for a seek).
        end: u64,
        /// Elements (rows, for a row range) the array has.
        len: u64,
    },

    /// A path that must name a regular file names something else: npy-fs's
    /// [`NotRegularFile`](npy_fs::ErrorKind::NotRegularFile) (what is refused, and why).
    #[error("{}", not_regular(.role, .found))]
    NotRegularFile {
        /// What the path was for: `"output"` or `"input"`.
        role: &'static str,
        /// What is there: `"a FIFO"`, `"a character device"`, `"a directory"`, `"a symlink to
        /// a missing file …"`.
        found: &'static str,
    },

    /// An operation the array's layout or the reader's state does not support: rows of a
    /// Fortran-order or 0-d array, `[T; N]` elements written in Fortran order, a
    /// whole-array read after part of the array was read.
    #[error("{operation} is not supported here: {reason}")]
    Unsupported {
        /// The operation, e.g. `"read_rows"`.
        operation: &'static str,
        /// Why it cannot be done here.
        reason: String,
    },

    /// A size the format allows (64 bits) that this platform cannot address: a count of bytes
    /// or elements beyond `usize` (or `isize`, for `ndarray`).
    #[error(
        "{what} of {value} does not fit this platform's {}-bit address space",
        usize::BITS
    )]
    PlatformLimit {
        /// What does not fit, e.g. `"itemsize"`, `"dimension"`.
        what: &'static str,
        /// Its value.
        value: u64,
    },

    /// The data holds a byte pattern that is no value of the requested plain-data type (a
    /// `bool` byte other than 0 and 1 is [`ErrorKind::NonCanonicalBool`]).
    #[error("array data holds a byte pattern that is no valid {requested}")]
    InvalidBitPattern {
        /// The Rust type asked for.
        requested: String,
    },

    /// A zero-copy view needs the array data aligned in memory for the element type, and it is
    /// not: the buffer's start address or the file's data offset is not a multiple of `align`.
    #[error(
        "array data at byte offset {offset} is not aligned to {} in memory, which a zero-copy \
         view of the element type needs; use view_or_copy or a copying read",
        count(*.align as u64, "byte")
    )]
    Misaligned {
        /// Offset of the array data from the start of the input, in bytes.
        offset: u64,
        /// Alignment the element type needs, in bytes.
        align: usize,
    },

    /// The file's dtype holds the requested type, but its bytes are not the type's in-memory
    /// layout (another byte order, or a type decoded element by element), so they cannot be
    /// viewed without copying.
    #[error(
        "file has dtype {}, requested {requested}: {reason}; use view_or_copy or a copying read",
        .file.describe()
    )]
    NotViewable {
        /// The file's dtype.
        file: DType,
        /// The Rust type and its own dtype.
        requested: Box<Requested>,
        /// Why the bytes cannot be borrowed.
        reason: &'static str,
    },

    /// The file's number of dimensions differs from that of the requested array type.
    #[error(
        "file has shape {shape:?} ({}), requested a {expected}-dimensional array",
        count(.shape.len() as u64, "dimension")
    )]
    DimensionMismatch {
        /// The file's shape.
        shape: Vec<u64>,
        /// Dimensions of the requested type.
        expected: usize,
    },

    /// Reading would allocate memory that the input cannot back (zero-size elements in
    /// numbers no file holds).
    #[error(
        "refusing to allocate {} of {} each for {what}, which the input does not back",
        count(*.elements, "element"),
        count(*.bytes_each, "byte")
    )]
    AllocationLimit {
        /// What was being read.
        what: &'static str,
        /// Elements requested.
        elements: u64,
        /// Bytes per element in memory.
        bytes_each: u64,
    },

    /// Data appended to a file (or files concatenated) whose dtype or shape does not continue
    /// the file's array: the dtype must be the file's and every dimension but the growth axis
    /// (the first in C order, the last in Fortran order) the same.
    #[error(
        "{}",
        append_mismatch(.file_dtype, .file_shape, .appended, .shape, *.axis)
    )]
    AppendMismatch {
        /// The file's dtype.
        file_dtype: DType,
        /// The file's shape.
        file_shape: Vec<u64>,
        /// What was appended: a Rust type and its dtype, or another file's dtype
        /// ([`Requested::rust_type`] `None`).
        appended: Box<Requested>,
        /// The shape of what was appended.
        shape: Vec<u64>,
        /// The axis the file grows along.
        axis: usize,
    },

    /// Writing a dynamic value that the dtype cannot hold (wrong kind, out of range, wrong
    /// length, another datetime unit).
    #[error("value {value} does not fit dtype {}", .dtype.describe())]
    ValueMismatch {
        /// The dtype written.
        dtype: DType,
        /// The value, briefly.
        value: String,
    },

    /// A datetime64/timedelta64 value that the requested time type cannot hold: NaT, the
    /// generic unit, timedelta years or months (no fixed length), a negative `Duration`, or a
    /// value out of the target's range.
    #[error("{value} does not convert to {target}: {reason}")]
    TimeConversion {
        /// The value, with its unit, as numpy prints it (or the source value).
        value: String,
        /// The type asked for: `"SystemTime"`, `"Duration"`, `"datetime64"`, ...
        target: &'static str,
        /// Why it does not convert.
        reason: &'static str,
    },

    /// An object array's pickle was refused or could not be decoded, or a value could not be
    /// pickled, by the read's or write's [`ObjectCodec`](crate::dynamic::ObjectCodec);
    /// npy-pickle's gives its `PickleError`, which `npy_pickle::PickleError::of(&error)` finds.
    #[error("object array: {error}")]
    Pickle {
        /// The error's [`Category`], as the codec sorts it.
        category: Category,
        /// The codec's own error; its message is part of this one.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// What a typed read or write asked for, as [`ErrorKind::TypeMismatch`],
/// [`ErrorKind::NotViewable`] and [`ErrorKind::AppendMismatch`] report it: a Rust type and the
/// dtype it stands for, or (appending one file to another) another file's dtype.
///
/// `Display` writes `Complex<f64> ('<c16')`, `String ('U')` for a type of any width,
/// `'<f8' (of b.npy)` for another file's array, or `'<f8' (float64)`.
///
/// # Examples
/// ```
/// use npy_core::{DType, ErrorKind};
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("a.npy");
/// npy_core::write(&path, &[1.5f32, 2.0], &[2])?;
/// let err = npy_core::read::<i64>(&path).unwrap_err();
/// let ErrorKind::TypeMismatch { file, requested, .. } = err.kind() else { panic!("{err}") };
/// assert_eq!(*file, "<f4".parse::<DType>()?);
/// assert_eq!(requested.rust_type.as_deref(), Some("i64"));
/// assert_eq!(requested.dtype, "<i8".parse::<DType>()?);
/// assert_eq!(requested.to_string(), "i64 ('<i8')");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Requested {
    /// The Rust type, as its [`NpyElement::rust_name`](crate::NpyElement::rust_name) names it;
    /// `None` when what was given is another file's array.
    pub rust_type: Option<String>,
    /// The dtype the Rust type reads and writes (for a string type of any width, width 0:
    /// `|S0`, `<U0`), or the other file's dtype.
    pub dtype: DType,
    /// The other file, when what was given is another file's array.
    pub file: Option<PathBuf>,
}

impl Requested {
    /// Rust type `rust_type`, which stands for `dtype`.
    pub fn rust(rust_type: impl Into<String>, dtype: DType) -> Requested {
        Requested {
            rust_type: Some(rust_type.into()),
            ..Requested::dtype(dtype)
        }
    }

    /// An array of `dtype` given without a Rust type or file.
    pub fn dtype(dtype: DType) -> Requested {
        Requested {
            rust_type: None,
            dtype,
            file: None,
        }
    }

    /// The array of `dtype` that `file` holds.
    pub fn file(dtype: DType, file: impl AsRef<Path>) -> Requested {
        Requested {
            file: Some(file.as_ref().to_owned()),
            ..Requested::dtype(dtype)
        }
    }
}

impl fmt::Display for Requested {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.rust_type, &self.file, &self.dtype) {
            (None, Some(file), d) => write!(f, "'{d}' (of {})", file.display()),
            (None, None, d) => f.write_str(&d.describe()),
            (Some(rust), _, DType::Bytes(0)) => write!(f, "{rust} ('|S')"),
            (Some(rust), _, DType::Unicode(0, _)) => write!(f, "{rust} ('U')"),
            (Some(rust), _, d) => write!(f, "{rust} ('{d}')"),
        }
    }
}

impl From<DescrError> for Error {
    #[cold]
    fn from(e: DescrError) -> Error {
        Error::new(match e {
            DescrError::Syntax(e) => ErrorKind::DescrSyntax(e),
            DescrError::Invalid { found, reason } => ErrorKind::InvalidDescr { found, reason },
            DescrError::StringDType { found } => ErrorKind::StringDType { found },
        })
    }
}

// The check sits here, beside its error, since the dtype model is below this layer.
impl DType {
    /// [`ErrorKind::ObjectArray`] when the dtype holds Python objects anywhere: the one check
    /// every reader, view, conversion and writer makes before touching data, so that no pickle
    /// is ever read.
    pub(crate) fn refuse_object(&self) -> Result<(), Error> {
        if self.has_object() {
            return Err(Error::new(ErrorKind::ObjectArray {
                dtype: self.clone(),
            }));
        }
        Ok(())
    }
}

/// `1 byte`, `2 bytes`: a count with its unit, in the right number.
pub(crate) fn count(n: impl Into<u128>, unit: &str) -> String {
    let n = n.into();
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {unit}{s}")
}

/// A shape as Python writes a tuple: `()`, `(4,)`, `(3, 4)`.
pub(crate) fn py_shape<D: fmt::Display>(shape: &[D]) -> String {
    let dims: Vec<String> = shape.iter().map(D::to_string).collect();
    let comma = if shape.len() == 1 { "," } else { "" };
    format!("({}{comma})", dims.join(", "))
}

/// The remedy [`ErrorKind::TypeMismatch`] names when numpy casts safely.
const SAFE_CAST_HINT: &str =
    "; numpy casts it safely: read with ReadOptions::default().casting(Casting::Safe)";

/// The remedy [`ErrorKind::TypeMismatch`] names for a void file of one or two bytes per
/// element: what `np.save` writes for an ml_dtypes array (issue 26), whose type the descr lost.
fn ml_dtypes_hint(file: &DType) -> &'static str {
    if *file == DType::Void(2) {
        "; '|V2' is what np.save writes for an ml_dtypes bfloat16 array: read it as half::bf16, \
         or give ReadOptions::hint(Some(MlType::BFloat16)) (npy show --hint bfloat16)"
    } else if *file == DType::Void(1) {
        "; '|V1' is what np.save writes for ml_dtypes' one-byte types (float8_e4m3fn, int4, ...): \
         read it as that type (npy_core::element::Float8E4M3Fn, Int4, ...), or give ReadOptions::hint \
         (npy show --hint float8_e4m3fn)"
    } else {
        ""
    }
}

/// `"a", "b"`: names as Rust debug-quotes them, comma-separated.
fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    quoted.join(", ")
}

fn too_long(len: usize, dtype: &DType, field: Option<&str>) -> String {
    let dtype = match dtype {
        DType::Unicode(n, _) => format!("'U{n}'"),
        d => format!("'{d}'"),
    };
    let value = count(len as u64, "character");
    let (field, remedy) = match field {
        Some(f) => (
            format!("field {f:?}: "),
            "give the field a wider width with #[npy(width = N)]",
        ),
        None => (String::new(), "set a wider dtype with WriteOptions::dtype"),
    };
    format!("{field}value of {value} does not fit dtype {dtype} ({remedy})")
}

fn out_of_range(what: &str, start: u64, end: u64, len: u64) -> String {
    let unit = match what {
        "row range" => "row",
        _ => "element",
    };
    let len = count(len, unit);
    if !what.ends_with("range") {
        format!("{what} {start} is past the end of the array's {len}")
    } else if start > end {
        format!("{what} {start}..{end} is reversed")
    } else {
        format!("{what} {start}..{end} is outside the array's {len}")
    }
}

/// The message of [`ErrorKind::NotRegularFile`]: npy-fs's, which the refusals come from.
fn not_regular(role: &&'static str, found: &&'static str) -> String {
    npy_fs::ErrorKind::NotRegularFile { role, found }.to_string()
}

fn append_mismatch(
    file_dtype: &DType,
    file_shape: &[u64],
    dtype: &Requested,
    shape: &[u64],
    axis: usize,
) -> String {
    let mut wanted: Vec<String> = file_shape.iter().map(u64::to_string).collect();
    if let Some(d) = wanted.get_mut(axis) {
        *d = "n".into();
    }
    format!(
        "file has dtype {} shape {}; cannot append dtype {dtype} shape {} along axis \
         {axis}: appended data needs the file's dtype and shape {}",
        file_dtype.describe(),
        py_shape(file_shape),
        py_shape(shape),
        py_shape(&wanted)
    )
}

impl Error {
    /// An error of `kind`, with no path yet.
    #[cold]
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            inner: Box::new(Inner { kind, path: None }),
        }
    }

    /// [`ErrorKind::Pickle`]: `error`, an [`ObjectCodec`](crate::dynamic::ObjectCodec)'s own
    /// (npy-pickle's `PickleError`), sorted into `category`, its message quoted in this one:
    /// the one way a codec outside this crate reports a pickle it refuses (`ObjectCodec`'s
    /// example uses it).
    #[cold]
    pub fn from_codec(
        category: Category,
        error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error::new(ErrorKind::Pickle {
            category,
            error: error.into(),
        })
    }

    /// [`ErrorKind::Truncated`]: the input ends inside `what` (`needed` bytes) after `found`.
    #[cold]
    pub(crate) fn truncated(what: &'static str, needed: u64, found: u64) -> Error {
        Error::new(ErrorKind::Truncated {
            what,
            needed,
            found,
        })
    }

    /// [`ErrorKind::AllocationLimit`]: `elements` of `bytes_each` bytes for `what` refused.
    #[cold]
    pub(crate) fn allocation_limit(what: &'static str, elements: u64, bytes_each: u64) -> Error {
        Error::new(ErrorKind::AllocationLimit {
            what,
            elements,
            bytes_each,
        })
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }

    /// What went wrong, giving up the path.
    pub fn into_kind(self) -> ErrorKind {
        self.inner.kind
    }

    /// The [`Category`] of the error.
    pub fn classify(&self) -> Category {
        use {Category as C, ErrorKind::*};
        match &self.inner.kind {
            Io(_) => C::Io,
            NotNpy(_) | Truncated { .. } | HeaderNotUtf8 { .. } | HeaderSyntax(_) => C::Format,
            DescrSyntax(_) | HeaderNotDict { .. } | HeaderKeys { .. } => C::Format,
            InvalidShape { .. } | InvalidFortranOrder { .. } | InvalidDescr { .. } => C::Format,
            SizeOverflow { .. } | InvalidBool { .. } | InvalidUnicode { .. } => C::Format,
            InvalidBitPattern { .. } => C::Format,
            TypeMismatch { .. } | MissingField { .. } | FieldType { .. } => C::Mismatch,
            Misaligned { .. } | NotViewable { .. } | NonCanonicalBool { .. } => C::Mismatch,
            DimensionMismatch { .. } | AppendMismatch { .. } => C::Mismatch,
            HeaderTooLargeForVersion { .. } | HeaderNotLatin1 { .. } => C::Usage,
            ValueTooLong { .. } | LengthMismatch { .. } | OutOfRange { .. } => C::Usage,
            ValueMismatch { .. } | TimeConversion { .. } => C::Usage,
            HeaderTooLong { .. } | AllocationLimit { .. } | PlatformLimit { .. } => C::Limit,
            UnsupportedVersion { .. } | ObjectArray { .. } | StringDType { .. } => C::Unsupported,
            Unsupported { .. } | NotRegularFile { .. } => C::Unsupported,
            Pickle { category, .. } => *category,
        }
    }

    /// The file the error concerns, for errors of functions that take a path.
    ///
    /// There is no `member()`: npy-core knows no archive. Reading an `.npz` member, npy-npz
    /// wraps this error in its own, which names the member's key (`npy_npz::Error::member`).
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The error, naming `path` unless it already names a file (the innermost path wins: a
    /// conversion's output file stays named when the caller adds its input).
    #[cold]
    #[must_use]
    pub fn with_path(mut self, path: impl AsRef<Path>) -> Error {
        if self.inner.path.is_none() {
            self.inner.path = Some(path.as_ref().to_owned());
        }
        self
    }

    /// A [`ErrorKind::TypeMismatch`] that a read with [`Casting::Safe`](crate::read::Casting::Safe)
    /// would not have: its message then names that option.
    #[cold]
    pub(crate) fn with_safe_cast_hint(mut self) -> Error {
        if let ErrorKind::TypeMismatch { safe_cast, .. } = &mut self.inner.kind {
            *safe_cast = true;
        }
        self
    }
}

/// `value` as a `usize`, or [`ErrorKind::PlatformLimit`] naming `what` on a platform whose
/// address space cannot hold it.
pub(crate) fn to_usize(value: u64, what: &'static str) -> Result<usize, Error> {
    usize::try_from(value).map_err(|_| Error::new(ErrorKind::PlatformLimit { what, value }))
}

/// Adds the file's path to the error of a `Result`, for functions that take a path.
pub(crate) trait PathContext {
    /// `self` with `path` named in its error.
    fn at_path(self, path: &Path) -> Self;
}

impl<T> PathContext for Result<T, Error> {
    fn at_path(self, path: &Path) -> Self {
        self.map_err(|e| e.with_path(path))
    }
}

impl<T> PathContext for Result<T, npy_fs::Error> {
    fn at_path(self, path: &Path) -> Self {
        self.map_err(|e| e.with_path(path))
    }
}

/// An error of `kind`, with no path yet: how a crate reading the format through other means
/// (npy-arrow's batches, npy-npz's members) reports what npy-core would, in npy-core's words
/// ([`Error`]'s example makes one).
impl From<ErrorKind> for Error {
    #[cold]
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

impl From<io::Error> for Error {
    #[cold]
    fn from(e: io::Error) -> Error {
        Error::new(ErrorKind::Io(e))
    }
}

/// An error of npy-fs (opening an input, writing an output file): the same kind
/// ([`ErrorKind::Io`] or [`ErrorKind::NotRegularFile`]), the same path and the same message.
impl From<npy_fs::Error> for Error {
    #[cold]
    fn from(e: npy_fs::Error) -> Error {
        use npy_fs::ErrorKind as Fs;
        let (kind, path) = e.into_parts();
        let kind = match kind {
            Fs::NotRegularFile { role, found } => ErrorKind::NotRegularFile { role, found },
            Fs::Io(e) => ErrorKind::Io(e),
            // npy-fs's kinds are the two above; a later one reads as an I/O error.
            other => ErrorKind::Io(io::Error::other(other.to_string())),
        };
        Error {
            inner: Box::new(Inner { kind, path }),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.inner.path {
            write!(f, "{}: ", path.display())?;
        }
        fmt::Display::fmt(&self.inner.kind, f)
    }
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), Error>` and
/// `unwrap` print it as anyhow's and std's errors do; `{:#?}` is the structure (kind, path).
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.inner.kind);
        if let Some(path) = &self.inner.path {
            d.field("path", path);
        }
        d.finish()
    }
}

impl std::error::Error for Error {
    /// The causes `Display` does not already quote: an I/O error's own source (its message is
    /// in this one), and likewise for the error of a record field.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.kind {
            ErrorKind::Io(e) => e.source(),
            ErrorKind::FieldType { error, .. } => std::error::Error::source(error),
            ErrorKind::Pickle { error, .. } => error.source(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// The error and its sources, outermost first.
    fn chain(e: &Error) -> Vec<String> {
        let mut out = vec![e.to_string()];
        let mut next = e.source();
        while let Some(s) = next {
            out.push(s.to_string());
            next = s.source();
        }
        out
    }

    #[test]
    fn field_errors_say_their_cause_once() {
        let inner = Error::new(ErrorKind::TypeMismatch {
            file: "<f4".parse().unwrap(),
            requested: Box::new(Requested::rust("i64", "<i8".parse().unwrap())),
            safe_cast: false,
        });
        let e = Error::new(ErrorKind::FieldType {
            field: "x".into(),
            error: inner,
        });
        assert_eq!(
            chain(&e),
            ["field \"x\": file has dtype '<f4' (float32), requested i64 ('<i8')"]
        );
    }

    #[test]
    fn messages_count_in_number() {
        let e = Error::new(ErrorKind::DimensionMismatch {
            shape: vec![3],
            expected: 2,
        });
        assert_eq!(
            e.to_string(),
            "file has shape [3] (1 dimension), requested a 2-dimensional array"
        );
        let e = Error::new(ErrorKind::LengthMismatch {
            what: "row",
            expected: 3,
            found: 1,
        });
        assert_eq!(e.to_string(), "row: 1 element given, 3 expected");
    }

    /// Bytes that are not printable ASCII are escaped as `std::ascii::escape_default` does.
    #[test]
    fn other_magic_is_escaped() {
        let e = Error::new(ErrorKind::NotNpy(NotNpy::Magic(
            b"\x93\t'\"\\\x00".to_vec(),
        )));
        assert_eq!(
            e.to_string(),
            r#"not an .npy file: it starts with \x93\t\'\"\\\x00 instead of the magic \x93NUMPY"#
        );
    }

    #[test]
    fn result_stays_small() {
        assert!(std::mem::size_of::<Result<f32, Error>>() <= 16);
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(1u64, "dimension"), "1 dimension");
        assert_eq!(count(0u64, "dimension"), "0 dimensions");
        assert_eq!(count(3u64, "byte"), "3 bytes");
    }
}
