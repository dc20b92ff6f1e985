//! npy-derive's integration tests: one binary, a module per subject.

mod common;

// `#[derive(NpyElement)]` against numpy's record fixtures.
mod derive;
// `#[npy(pod)]` records cast to and from bytes (also run under Miri by `cargo xtask miri`).
mod pod;
// Compile-error messages (trybuild).
mod ui;
