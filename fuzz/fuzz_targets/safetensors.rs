//! A safetensors file's header: length, JSON, validation (npy-safetensors), in bounded memory.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    npy_safetensors::exercise(data);
});
