#!/usr/bin/env bash
# Builds the npm package's WebAssembly and its wasm-bindgen glue into pkg/:
#   bash build.sh              the package (with the pickle decoder for object arrays)
#   bash build.sh --nopickle   the same without it, into pkg-nopickle/ (for the size report)
# Needs: rustup target add wasm32-unknown-unknown, and the wasm-bindgen CLI of the crate's
# pinned version: cargo install --locked --version 0.2.125 wasm-bindgen-cli
# --no-default-features --bin wasm-bindgen.
# Prints the wasm's size, raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")"
WASM_BINDGEN_VERSION=0.2.125
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    echo "needs wasm-bindgen $WASM_BINDGEN_VERSION: cargo install --locked --version $WASM_BINDGEN_VERSION wasm-bindgen-cli --no-default-features --bin wasm-bindgen" >&2
    exit 1
fi
target_dir=${CARGO_TARGET_DIR:-$(cd .. && pwd)/target}
out=pkg
features=()
if [ "${1:-}" = "--nopickle" ]; then
    out=pkg-nopickle
    features=(--no-default-features)
fi
# Size: one codegen unit and LTO for this build only (the workspace's release profile is
# left as it is for the native crates).
CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
    cargo build --release -p npy-wasm --target wasm32-unknown-unknown "${features[@]}"
wasm-bindgen --target web --out-dir "$out" \
    "$target_dir/wasm32-unknown-unknown/release/npy_wasm.wasm"
raw=$(wc -c < "$out/npy_wasm_bg.wasm")
gz=$(gzip -9 -c "$out/npy_wasm_bg.wasm" | wc -c)
printf -- '--- %s/npy_wasm_bg.wasm: %s bytes, %s gzipped (gzip -9)\n' "$out" "$raw" "$gz"
