//! How much a pickle may make the reader build.

/// Deepest nesting of decoded values (a list in a list is depth 2; an object array's elements
/// are at depth 1 below the array). numpy's own pickles of object arrays nest three levels
/// around the elements; real data (ragged lists, dicts of lists) rarely goes past ten.
pub const MAX_PICKLE_DEPTH: usize = 128;

/// Bytes the pickle reader may hold and build for one pickle, whatever its size (128 MiB).
///
/// One budget counts everything: the pickle's own bytes (read whole before it is decoded),
/// the interpreter's stack (16 bytes a slot, at its deepest), memo (48 bytes an entry) and
/// arena (64 bytes a node, plus the text, bytes and 16 bytes per item it holds), every value
/// of the decoded tree (a [`PyObject`](crate::PyObject) is 32 bytes plus its text or bytes; an
/// element of a nested numeric array a [`DynValue`](npy_core::DynValue) of 48 bytes plus its
/// bytes; a numpy scalar its dtype and its decoded value, one [`DynValue`](npy_core::DynValue)
/// per element of a subarray), each copy of a shared value again, the keys built to compare
/// dict keys and set items and the `repr`s built for them, each charged before it is built.
/// The bytes counted are what the values take, not what the allocator reserves: the bytes
/// allocated stay within the budget (`tests/pickle_peak_memory.rs` measures them), and the
/// process's resident memory within 1.5× of it (the allocator's own overhead on small
/// values: 189 MiB at most in `npy show` of the review's 40 hostile pickles, for a set of a
/// million ints, refused). Printing what was decoded (`repr`, `npy show`) borrows the values and
/// adds at most its own text budget, `npy_print::OBJECT_TEXT_BUDGET` (64 MiB).
///
/// The budget is a constant and not a multiple of the input, so a pickle that compresses
/// well (16 MB of `EMPTY_TUPLE` opcodes deflate to 16 KB) gets no more than any other. Files
/// beyond it (an object array of a million strings takes about 200 MB) need a larger
/// [`PickleLimits::max_bytes`]; the printed forms of a decoded value (`repr`, `npy show`,
/// `npy show --json`) are proportional to what was counted here.
pub const PICKLE_BUDGET: u64 = 128 << 20;

/// Limits of the pickle reader; the defaults are the constants of this module.
///
/// # Examples
/// ```
/// use npy_pickle::{loads_with, PickleError, PickleLimits};
/// // [[[]]]: three levels.
/// let nested = b"\x80\x04]]]aa.";
/// assert!(loads_with(nested, &PickleLimits::default()).is_ok());
/// let mut limits = PickleLimits::default();
/// limits.max_depth = 2;
/// assert!(matches!(loads_with(nested, &limits), Err(PickleError::TooDeep { limit: 2 })));
/// limits.max_bytes = 100;
/// assert!(matches!(loads_with(nested, &limits), Err(PickleError::TooLarge { limit: 100, .. })));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PickleLimits {
    /// Deepest nesting of values ([`MAX_PICKLE_DEPTH`]). Values are built recursively, so a
    /// much larger limit needs a thread stack in proportion.
    pub max_depth: usize,
    /// Bytes the reader may hold and build, the pickle's own bytes included
    /// ([`PICKLE_BUDGET`], which says what is counted).
    pub max_bytes: u64,
}

impl Default for PickleLimits {
    fn default() -> Self {
        PickleLimits {
            max_depth: MAX_PICKLE_DEPTH,
            max_bytes: PICKLE_BUDGET,
        }
    }
}
