#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's fixtures and ../shared/fixtures-external
# (the corpus itself is not committed). serde_from_str gets each fixture's header text.
set -euo pipefail
cd "$(dirname "$0")"
ext=../../shared/fixtures-external
for t in header read_dyn typed; do
    mkdir -p "corpus/$t"
    cp ../fixtures/*.npy "corpus/$t/"
    if [ "$t" = read_dyn ]; then
        cp ../fixtures/object/*_p[234].npy "corpus/$t/"
    fi
    if [ -d "$ext" ]; then
        find "$ext" -name '*.npy' -exec cp {} "corpus/$t/" \;
    fi
done
mkdir -p corpus/pickle
for f in ../fixtures/object/*.npy; do
    # the pickle after the header (object files are format 1.0: 10-byte prefix)
    python3 - "$f" "corpus/pickle/$(basename "$f" .npy).pkl" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<H", b[8:10])[0]
open(sys.argv[2], "wb").write(b[10 + n:])
PY
done
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
