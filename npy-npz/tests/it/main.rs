//! npy-npz's integration tests, a module per subject (run one with a filter:
//! `cargo test -p npy-npz --test it hostile::`). Expected values come from numpy
//! (`fixtures/npz/`, written by numpy 2.4.6; `np.load` run where the project's Python is),
//! from Python's zipfile and from APPNOTE, never from this crate's own output.

// numpy's archives and ours read back.
mod npz;
// Every member's headers in one coalesced read (issue 42).
mod prefetch;
// One array between .npy and .npz (npy_npz::convert).
mod convert;
// F15: generated variants read here and by np.load (issue 23).
mod differential;
// Hostile archives built byte by byte (issue 23).
mod hostile;
// Latin-1 field names in members' headers (issue 42, F6).
mod latin1;
// The two-thread inflate accepts what the sequential one does (issue 42, F7).
mod split;
// What the path writers leave behind (unix: modes and listings).
#[cfg(unix)]
mod output_files;
// The workspace README's `.npz` lines.
mod readme;
