//! A raw deflate stream through npy-npz's two-thread inflate (its block-boundary search and
//! marker decoder), compared with the sequential inflate at two declared sizes: libdeflate's
//! own result and the size the input's last three bytes name, so that sizes a split that read
//! on past the stream's end would fill can be reached (issue 42, F7).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| npy_npz::exercise_inflate(data));
