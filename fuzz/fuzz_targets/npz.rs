//! A whole `.npz` archive: every member's header, `read_dyn` and raw bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| npy_npz::exercise(data));
