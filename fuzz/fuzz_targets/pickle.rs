//! Any bytes as a pickle: `npy_pickle::loads` (values within the allow-list, or an error).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| drop(npy_pickle::loads(data)));
