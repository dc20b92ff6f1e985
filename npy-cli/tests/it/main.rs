//! The `npy` command's integration tests, run as a program: one binary, a module per
//! subcommand. Expected values come from numpy (the manifests of `fixtures/`) or from the
//! real files of `fixtures/external/`; shared helpers are in `npy-test-support`.
//! `memory.rs` stays a binary of its own: it measures a child's peak resident set,
//! which other tests running in the same process would inflate.

mod common;
#[path = "../hostile/mod.rs"]
mod hostile;

mod cat_append;
mod convert;
mod convert_columnar;
mod features;
mod header;
mod info;
mod npz;
mod output_files;
mod progress;
#[cfg(feature = "remote")]
mod remote;
mod safetensors;
mod show;
mod show_ml;
mod sparse;
#[cfg(feature = "sql")]
mod sql;
