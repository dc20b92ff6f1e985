//! Arrow IPC and Parquet input to `.npy`: the bytes written once as an `.arrow` and once as a
//! `.parquet` file and converted. Typed errors are fine; a panic that reaches the caller is a
//! bug. arrow-rs and parquet panic on some malformed input, and npy-arrow turns those panics
//! into `ErrorKind::Malformed`; libfuzzer-sys's panic hook aborts before that containment can
//! catch them, so the target puts back a hook that only prints the message: a contained
//! panic is then the typed error a user gets, and one that escapes `convert` still aborts
//! (libfuzzer-sys catches it at the target's boundary), which is the finding.
#![no_main]

fn print_only() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| eprintln!("panic (contained?): {info}")));
    });
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    print_only();
    let Ok(dir) = tempfile::tempdir() else { return };
    let out = dir.path().join("out.npy");
    for name in ["in.arrow", "in.parquet"] {
        let input = dir.path().join(name);
        if std::fs::write(&input, data).is_ok() {
            let _ = npy_arrow::convert(&input, &out, &npy_arrow::ConvertOptions::new());
        }
    }
});
