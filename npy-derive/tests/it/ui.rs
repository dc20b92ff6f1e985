//! Compile-error messages of `#[derive(NpyElement)]` (trybuild; regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p npy-derive --test it ui::` and review them).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
