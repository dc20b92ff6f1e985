//! npy-serde's integration tests: one binary, a module per subject.

// Every fixture header through both serde directions.
mod fixtures;
// Table tests of the literal format into Rust types and back, and its errors.
mod literal;
// Property tests: values through the format and back.
mod roundtrip;
// The README's example.
mod readme;
