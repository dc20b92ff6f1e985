//! npy-serde's deserializer over arbitrary text: into a dynamic value, a header-like struct
//! and npy-core's `Header` (its serde impls).
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Dict {
    descr: npy_serde::Value,
    fortran_order: bool,
    shape: Vec<u64>,
    #[serde(default)]
    extra: Option<(String, Vec<u8>, f64, i128, Option<char>)>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = npy_serde::from_str::<npy_serde::Value>(text);
    let _ = npy_serde::from_str::<Dict>(text);
    let _ = npy_serde::from_str::<BTreeMap<String, Vec<(u8, i16, String)>>>(text);
    let _ = npy_serde::from_str::<npy_core::Header>(text);
    let _ = npy_serde::from_str::<npy_core::DType>(text);
});
