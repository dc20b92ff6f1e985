//! npy-core's integration tests: one binary, a module per subject.
//!
//! Expected values come from numpy (the manifests of `fixtures/`, written by `cargo xtask
//! fixtures`), from the real files of `fixtures/external/` and their README.txt, or from the
//! format's rules, cited where used; shared helpers are in the `npy-test-support` crate.
//! A regression test sits with its subject, holding the input that once failed.
//! Two tests that install a counting global allocator stay binaries of their own
//! (`alloc_bound.rs`, `write_numpy.rs`): an allocator is process-wide.
//!
//! Run one subject with a filter: `cargo test -p npy-core --test it header_time::`.

// The header: what numpy accepts, what is malformed, how long parsing takes.
mod accepted;
mod header_time;
mod malformed;

// numpy's own files: the fixture set and the external files from numpy and peer projects.
mod external;
mod fixtures;

// Typed reads and writes, views, maps, ndarray, conversion, appending.
mod append;
mod file_reads;
mod miri_paths;
mod mmap;
mod ndarray;
mod roundtrip;
mod stream_drop;
mod time;
// What the path writers do with what is at the path, and leave behind (issue 23).
mod output_files;
mod typed;
mod view;

// ml_dtypes' element types: bfloat16, float8, int4 (`fixtures/mltypes/`).
mod mltypes;

// Dynamic values: `read_dyn` and `write_dyn`.
mod columns;
mod dynamic;
mod write_dyn;

// Object arrays: refused by every read without an ObjectCodec (npy-pickle decodes them).
mod object_arrays;

// numpy parity: numpy's and Python's verdicts, table by table (`fixtures/parity/`).
mod parity;

// The error type's contract.
mod errors;

// Limits at their boundaries: claims the input does not back, sizes past numpy's limits.
mod limits;
