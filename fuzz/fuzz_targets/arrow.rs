//! Arrow IPC and Parquet input to `.npy`: the bytes written once as an `.arrow` and once as a
//! `.parquet` file and converted. Typed errors are fine; a crash is a bug. libfuzzer's panic
//! hook aborts before npy-arrow's containment of arrow-rs / parquet panics can catch them, so
//! this target also finds the upstream panics that `ErrorKind::Malformed` hides from users.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let out = dir.path().join("out.npy");
    for name in ["in.arrow", "in.parquet"] {
        let input = dir.path().join(name);
        if std::fs::write(&input, data).is_ok() {
            let _ = npy_arrow::convert(&input, &out, &npy_arrow::ConvertOptions::new(), |_, _| {});
        }
    }
});
