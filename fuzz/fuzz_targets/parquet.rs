//! Parquet input (issue 42, F1–F5 and F13): the bytes as a `.parquet` file, read by
//! `npy_arrow::read_parquet` in small batches and converted to `.npy` and to `.arrow` with
//! small budgets (64 MiB of output, 64 groups of nesting, 4 Ki characters of string width), so
//! that each run is bounded by the budgets rather than by what the file claims. npy-arrow reads
//! the footer and every page header itself before the parquet crate does (its recursion per
//! schema level and its allocations by page-header counts are aborts no catch can contain);
//! an abort, an allocation past `-malloc_limit_mb` or a timeout here is a finding. Typed errors
//! are fine. As in the `arrow` target, arrow-rs / parquet panics that npy-arrow contains are
//! only printed (libfuzzer-sys's hook would abort before the containment catches them).
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
    let input = dir.path().join("in.parquet");
    if std::fs::write(&input, data).is_err() {
        return;
    }
    let mut rows = 0usize;
    let _ = npy_arrow::read_parquet(
        &input,
        7,
        |_| Ok(()),
        |b| {
            rows += b.num_rows();
            Ok(())
        },
    );
    let options = npy_arrow::ConvertOptions::new()
        .max_output_bytes(64 << 20)
        .max_nesting_depth(64)
        .max_string_width(4096);
    for out in ["out.npy", "out.arrow"] {
        let out = dir.path().join(out);
        let _ = npy_arrow::convert(&input, &out, &options);
    }
});
