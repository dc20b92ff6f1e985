#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's fixtures and ../shared/fixtures-external
# (the corpus itself is not committed). serde_from_str gets each fixture's header text.
set -euo pipefail
cd "$(dirname "$0")"
ext=../../shared/fixtures-external
for t in header read_dyn typed; do
    mkdir -p "corpus/$t"
    cp ../fixtures/*.npy "corpus/$t/"
    if [ -d "$ext" ]; then
        find "$ext" -name '*.npy' -exec cp {} "corpus/$t/" \;
    fi
done
mkdir -p corpus/npz
cp ../fixtures/npz/*.npz corpus/npz/
if [ -d "$ext" ]; then
    find "$ext" -name '*.npz' -exec cp {} corpus/npz/ \;
fi
mkdir -p corpus/serde_from_str
for f in ../fixtures/*.npy; do
    python3 - "$f" "corpus/serde_from_str/$(basename "$f" .npy).txt" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
if b[6] == 1:
    n, off = struct.unpack("<H", b[8:10])[0], 10
else:
    n, off = struct.unpack("<I", b[8:12])[0], 12
open(sys.argv[2], "wb").write(b[off:off + n])
PY
done
