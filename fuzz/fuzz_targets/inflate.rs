//! A raw deflate stream through npy-npz's two-thread inflate (its block-boundary search and
//! marker decoder), compared with libdeflate's one call.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| npy_npz::exercise_inflate(data));
