//! [`PickleError`]: what can go wrong decoding or encoding an object array's pickle.

use npy_core::{error::Category, Error, ErrorKind};

/// Why a pickle was refused or could not be decoded (or a value could not be pickled).
///
/// [`loads`](crate::loads) returns it alone; npy-core's [`Error`] carries it as
/// [`ErrorKind::Pickle`] (find it again with [`PickleError::of`]).
///
/// It has no `path()` or `member()`: it is about a pickle's bytes, which [`loads`](crate::loads)
/// is given without a file. Where the pickle came from is on the error that carries it: the
/// functions that read a file ([`read_dyn`](crate::read_dyn),
/// [`read_objects`](crate::read_objects)) return npy-core's [`Error`], whose
/// [`path`](Error::path) names the file; an `.npz` member's key is on npy-npz's error, which
/// wraps npy-core's (`npy_npz::Error::member`).
/// Every refusal happens before anything of the refused kind exists: the reader never imports,
/// calls or builds anything but its own values, so "refused" always means "nothing was
/// executed".
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PickleError {
    /// A global (`GLOBAL`, `STACK_GLOBAL`, `INST`) outside the allow-list: what an attack
    /// names (`os.system`, `builtins.eval`, a class with `__reduce__`).
    #[error("pickle calls {module}.{name}; refused, nothing was executed (only numpy's array, dtype and scalar constructors and a few builtins are allowed)")]
    Global {
        /// The module the pickle names, e.g. `os`.
        module: String,
        /// The name in that module, e.g. `system`.
        name: String,
    },

    /// An allowed global used in a way numpy's pickles never use it (`NEWOBJ` on it,
    /// `BUILD` on a value that has no state, arguments of the wrong kind).
    #[error("pickle uses {what} at byte {offset}: {reason}; refused, nothing was executed")]
    Unsupported {
        /// The opcode or global, e.g. `NEWOBJ on builtins.complex`.
        what: String,
        /// Offset of the opcode in the pickle.
        offset: u64,
        /// Why it is refused.
        reason: String,
    },

    /// Persistent ids (`PERSID`, `BINPERSID`), extension codes (`EXT1/2/4`) and out-of-band
    /// buffers (`NEXT_BUFFER`, `READONLY_BUFFER`) refer to objects outside the pickle.
    #[error("pickle refers to an object outside itself ({opcode} at byte {offset}); refused, nothing was executed")]
    External {
        /// The opcode's name.
        opcode: &'static str,
        /// Offset of the opcode in the pickle.
        offset: u64,
    },

    /// The pickle ends before its `STOP` opcode, or inside an opcode's argument or frame.
    #[error("pickle ends inside {what} at byte {offset} ({len} bytes in all)")]
    Truncated {
        /// What was being read, e.g. `the argument of BINUNICODE`.
        what: &'static str,
        /// Offset where it started.
        offset: u64,
        /// Length of the pickle in bytes.
        len: u64,
    },

    /// Malformed input: an unknown opcode, an argument of the wrong form, or stack contents an
    /// opcode cannot use (an empty stack, a missing `MARK`, a key that cannot be hashed).
    #[error("malformed pickle at byte {offset} ({opcode}): {reason}")]
    Malformed {
        /// Offset of the opcode in the pickle.
        offset: u64,
        /// The opcode's name, or `byte 0x..` for an unknown one.
        opcode: String,
        /// What is wrong.
        reason: String,
    },

    /// The decoded values nest deeper than the limit
    /// ([`PickleLimits::max_depth`](crate::PickleLimits)).
    #[error("pickle nests values deeper than {limit} levels")]
    TooDeep {
        /// The limit in force.
        limit: usize,
    },

    /// Decoding would hold or build more bytes than the budget
    /// ([`PickleLimits::max_bytes`](crate::PickleLimits)): the pickle itself, the
    /// interpreter's stack, memo and nodes, and the values built, each copy of a shared one
    /// again (the memo lets a few bytes name a huge tree).
    #[error("pickle of {pickle_bytes} bytes needs more than {limit} bytes to decode (its bytes, the interpreter's stack, memo and values; shared references are copied); refused")]
    TooLarge {
        /// Size of the pickle (for a pickle longer than the budget, which is not read to its
        /// end: the budget + 1).
        pickle_bytes: u64,
        /// The budget in force.
        limit: u64,
    },

    /// A value refers to itself (a list that contains itself), which a tree cannot hold.
    #[error("pickle holds a value that contains itself (memo entry {memo}); recursive values are not supported")]
    Recursive {
        /// The memo index of the value.
        memo: u64,
    },

    /// The pickle decoded, but is not the array the `.npy` header describes.
    #[error("the pickle holds {found}, but the header describes {expected}")]
    NotTheArray {
        /// What the pickle holds, briefly.
        found: String,
        /// What the header says.
        expected: String,
    },

    /// An element of an object array is not of the requested type (typed reads of objects).
    #[error("object element {index} is {found}, requested {requested}")]
    ElementType {
        /// Index of the element in memory order.
        index: u64,
        /// Python type of the element, e.g. `int`.
        found: String,
        /// The Rust type asked for.
        requested: &'static str,
    },

    /// Writing: a value this pickler cannot write.
    #[error("cannot pickle {what}: {reason}")]
    Unpicklable {
        /// The value, briefly.
        what: String,
        /// Why.
        reason: &'static str,
    },
}

impl PickleError {
    /// The error's [`Category`]: refused names and references outside the pickle are
    /// [`Category::Unsupported`], like the object arrays a reader without this feature
    /// refuses; broken pickles and pickles of another array are [`Category::Format`]; the
    /// depth and size limits [`Category::Limit`]; an element of another type than asked
    /// [`Category::Mismatch`]; a value that cannot be written [`Category::Usage`].
    pub fn classify(&self) -> Category {
        use PickleError::*;
        match self {
            Global { .. } | Unsupported { .. } | External { .. } | Recursive { .. } => {
                Category::Unsupported
            }
            Truncated { .. } | Malformed { .. } | NotTheArray { .. } => Category::Format,
            TooDeep { .. } | TooLarge { .. } => Category::Limit,
            ElementType { .. } => Category::Mismatch,
            Unpicklable { .. } => Category::Usage,
        }
    }
}

impl PickleError {
    /// The [`PickleError`] an npy-core [`Error`] carries, when it is one
    /// ([`ErrorKind::Pickle`] from this crate's codec).
    ///
    /// # Examples
    /// ```
    /// use npy_pickle::PickleError;
    /// let evil = b"\x80\x04cos\nsystem\n.";
    /// let err: npy_core::Error = npy_pickle::loads(evil).unwrap_err().into();
    /// assert!(matches!(PickleError::of(&err), Some(PickleError::Global { .. })));
    /// ```
    pub fn of(error: &Error) -> Option<&PickleError> {
        match error.kind() {
            ErrorKind::Pickle { error, .. } => error.downcast_ref(),
            _ => None,
        }
    }
}

impl From<PickleError> for Error {
    #[cold]
    fn from(e: PickleError) -> Error {
        Error::from_codec(e.classify(), e)
    }
}

/// `{:?}` is the message `Display` writes, so that `fn main() -> Result<(), PickleError>` and
/// `unwrap` print it as npy-core's, anyhow's and std's errors do; `{:#?}` wraps it in the
/// type's name.
impl std::fmt::Debug for PickleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            f.debug_tuple("PickleError")
                .field(&format_args!("{self}"))
                .finish()
        } else {
            std::fmt::Display::fmt(self, f)
        }
    }
}
