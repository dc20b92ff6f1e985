//! How much a pickle may make the reader build.

/// Deepest nesting of decoded values (a list in a list is depth 2; an object array's elements
/// are at depth 1 below the array). numpy's own pickles of object arrays nest three levels
/// around the elements; real data (ragged lists, dicts of lists) rarely goes past ten.
pub const MAX_PICKLE_DEPTH: usize = 128;

/// Most bytes of decoded values per byte of pickle, beyond [`PICKLE_ALLOWANCE`].
///
/// Every value is counted when it is built, each copy of a shared value (memo references)
/// again: a [`PyObject`](super::PyObject) is 32 bytes plus its text or bytes, an element of
/// a nested numeric array a [`DynValue`](crate::DynValue) of 48 bytes plus its bytes. Plain
/// pickles stay far below the limit (a list of small ints: 16 bytes per pickle byte; a `|u1`
/// array inside an object array: 49); only a pickle that references large shared values many
/// times (a memo bomb) goes past it.
pub const MAX_PICKLE_EXPANSION: u64 = 256;

/// Bytes of decoded values allowed whatever the pickle's size (64 MiB).
///
/// Python shares what a pickle references twice; this reader copies it, so an ordinary file
/// that repeats one long string or list (numpy's `np.array(['...'] * 20000, dtype=object)`:
/// a 40 KB pickle of 12 MB of values) needs more than the per-byte budget: the allowance
/// covers such files up to tens of megabytes of values while a memo bomb, which doubles with
/// every level, still goes past it within a few more bytes of pickle.
pub const PICKLE_ALLOWANCE: u64 = 64 << 20;

/// Limits of the pickle reader; the defaults are the constants of this module.
///
/// # Examples
/// ```
/// use npy_core::pickle::{loads_with, PickleError, PickleLimits};
/// // [[[]]]: three levels.
/// let nested = b"\x80\x04]]]aa.";
/// assert!(loads_with(nested, &PickleLimits::default()).is_ok());
/// let mut limits = PickleLimits::default();
/// limits.max_depth = 2;
/// assert!(matches!(loads_with(nested, &limits), Err(PickleError::TooDeep { limit: 2 })));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PickleLimits {
    /// Deepest nesting of values ([`MAX_PICKLE_DEPTH`]). Values are built recursively, so a
    /// much larger limit needs a thread stack in proportion.
    pub max_depth: usize,
    /// Bytes of values per pickle byte ([`MAX_PICKLE_EXPANSION`]).
    pub max_expansion: u64,
    /// Bytes of values allowed beyond that ([`PICKLE_ALLOWANCE`]).
    pub allowance: u64,
}

impl Default for PickleLimits {
    fn default() -> Self {
        PickleLimits {
            max_depth: MAX_PICKLE_DEPTH,
            max_expansion: MAX_PICKLE_EXPANSION,
            allowance: PICKLE_ALLOWANCE,
        }
    }
}

impl PickleLimits {
    /// Bytes of values a pickle of `len` bytes may decode into.
    pub fn budget(&self, len: u64) -> u64 {
        len.saturating_mul(self.max_expansion)
            .saturating_add(self.allowance)
    }
}
