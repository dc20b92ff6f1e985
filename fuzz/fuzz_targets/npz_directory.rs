//! An `.npz` archive's directory alone: opening it (the central directory walked, each local
//! header's name and range checked), its keys, and each member's header, without the data.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(npz) = npy_npz::NpzArchive::new(data) {
        let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
        for key in keys {
            let _ = npz.header(&key);
            let _ = npz.is_npy(&key);
        }
    }
});
