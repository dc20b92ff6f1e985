//! npy-convert's integration tests: one binary, a module per subject. Expected values come
//! from numpy (the fixture set `cargo xtask fixtures` writes and its manifests) or from the
//! format's rules, cited where used.

// `convert_file`: every layout to numpy's bytes for every other, in bounded memory.
mod convert;
// `concatenate` and `append_files`: fixtures rebuilt from their parts, mismatches, progress.
mod join;
