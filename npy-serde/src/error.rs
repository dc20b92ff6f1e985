//! The one error type of the crate.

use std::fmt::{self, Display};
use std::io;

use npy_core::literal::{LiteralError, LiteralErrorKind};

/// A specialised `Result` for this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// An error from serialising or deserialising a Python literal.
///
/// One pointer wide, since every `Result` of the crate carries it. [`Error::classify`] says what
/// kind of problem it is; syntax errors know where they are ([`Error::offset`], [`Error::line`],
/// [`Error::column`]).
pub struct Error(Box<ErrorImpl>);

struct ErrorImpl {
    code: ErrorCode,
    position: Option<Position>,
}

#[derive(Clone, Copy)]
struct Position {
    offset: usize,
    line: usize,
    column: usize,
}

enum ErrorCode {
    /// A message from serde or from this crate about the data.
    Message(Box<str>),
    /// A syntax error of the literal parser.
    Literal(LiteralErrorKind),
    /// The input is not UTF-8.
    InvalidUtf8,
    /// Reading or writing failed.
    Io(io::Error),
}

/// The kinds of [`Error`], as [`Error::classify`] reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Reading or writing the underlying stream failed.
    Io,
    /// The text is not a valid Python literal (or not UTF-8).
    Syntax,
    /// The text is a valid literal, but not of the shape the Rust type asks for (or a value
    /// cannot be written as a literal, like `inf`).
    Data,
    /// The text ended inside a value.
    Eof,
}

impl Error {
    /// What kind of error this is.
    pub fn classify(&self) -> Category {
        match &self.0.code {
            ErrorCode::Message(_) => Category::Data,
            ErrorCode::Io(_) => Category::Io,
            ErrorCode::InvalidUtf8 => Category::Syntax,
            ErrorCode::Literal(
                LiteralErrorKind::UnexpectedEnd { .. } | LiteralErrorKind::UnterminatedString,
            ) => Category::Eof,
            ErrorCode::Literal(_) => Category::Syntax,
        }
    }

    /// Whether this is a [`Category::Io`] error.
    pub fn is_io(&self) -> bool {
        self.classify() == Category::Io
    }

    /// Whether this is a [`Category::Syntax`] error.
    pub fn is_syntax(&self) -> bool {
        self.classify() == Category::Syntax
    }

    /// Whether this is a [`Category::Data`] error.
    pub fn is_data(&self) -> bool {
        self.classify() == Category::Data
    }

    /// Whether this is a [`Category::Eof`] error.
    pub fn is_eof(&self) -> bool {
        self.classify() == Category::Eof
    }

    /// Byte offset in the input where a syntax or eof error was found.
    pub fn offset(&self) -> Option<usize> {
        self.0.position.map(|p| p.offset)
    }

    /// 1-based line of a syntax or eof error; 0 for other errors (as `serde_json`).
    pub fn line(&self) -> usize {
        self.0.position.map_or(0, |p| p.line)
    }

    /// 1-based column (in characters) of a syntax or eof error; 0 for other errors.
    pub fn column(&self) -> usize {
        self.0.position.map_or(0, |p| p.column)
    }

    /// The kind of the underlying I/O error, for [`Category::Io`] errors.
    pub fn io_error_kind(&self) -> Option<io::ErrorKind> {
        match &self.0.code {
            ErrorCode::Io(e) => Some(e.kind()),
            _ => None,
        }
    }

    #[cold]
    pub(crate) fn syntax(e: LiteralError, text: &str) -> Error {
        let (line, column) = e.line_col(text);
        Error(Box::new(ErrorImpl {
            code: ErrorCode::Literal(e.kind),
            position: Some(Position {
                offset: e.offset,
                line,
                column,
            }),
        }))
    }

    #[cold]
    pub(crate) fn invalid_utf8(bytes: &[u8], offset: usize) -> Error {
        let before = String::from_utf8_lossy(&bytes[..offset]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Error(Box::new(ErrorImpl {
            code: ErrorCode::InvalidUtf8,
            position: Some(Position {
                offset,
                line,
                column,
            }),
        }))
    }

    #[cold]
    pub(crate) fn io(e: io::Error) -> Error {
        Error(Box::new(ErrorImpl {
            code: ErrorCode::Io(e),
            position: None,
        }))
    }

    #[cold]
    pub(crate) fn data(msg: impl Display) -> Error {
        Error(Box::new(ErrorImpl {
            code: ErrorCode::Message(msg.to_string().into_boxed_str()),
            position: None,
        }))
    }
}

impl Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorCode::Message(m) => f.write_str(m),
            ErrorCode::Literal(k) => Display::fmt(k, f),
            ErrorCode::InvalidUtf8 => f.write_str("invalid utf-8"),
            ErrorCode::Io(e) => Display::fmt(e, f),
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.position {
            Some(p) => write!(
                f,
                "{} at line {} column {} (byte {})",
                self.0.code, p.line, p.column, p.offset
            ),
            None => Display::fmt(&self.0.code, f),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}, {:?})", self.to_string(), self.classify())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.code {
            ErrorCode::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Error {
        Error::data(msg)
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: Display>(msg: T) -> Error {
        Error::data(msg)
    }
}

impl From<Error> for io::Error {
    /// I/O errors unwrap to what they were; others become `InvalidData` (`UnexpectedEof` for
    /// [`Category::Eof`]).
    fn from(e: Error) -> io::Error {
        let kind = if e.is_eof() {
            io::ErrorKind::UnexpectedEof
        } else {
            io::ErrorKind::InvalidData
        };
        match *e.0 {
            ErrorImpl {
                code: ErrorCode::Io(io),
                ..
            } => io,
            inner => io::Error::new(kind, Error(Box::new(inner))),
        }
    }
}
