#!/usr/bin/env python3
"""Generate the scipy.sparse fixtures in ``fixtures/sparse/`` (run by ``cargo xtask fixtures``).

    python xtask/fixtures_sparse.py OUT_DIR

Archives written by ``scipy.sparse.save_npz`` (scipy 1.17.1, numpy 2.4.6) of one small matrix
in every format it saves (csr, csc, coo, bsr with 1x1 and 2x2 blocks, dia), as ``*_matrix``
and ``*_array`` (which adds ``_is_array``), stored and compressed; plus int64-indexed,
float32/int/complex data, an empty matrix, and COO with duplicate entries (scipy sums them).

``manifest.json`` has one row per file: format, whether it is the array form, shape,
``stored`` (``data.size``: every element of the stored blocks for BSR, of the stored diagonals
for DIA), scipy's ``nnz``, the data and index dtypes, BSR's blocksize, the keys in file order,
and ``dense``: ``load_npz(f).toarray()`` as nested lists (complex as ``[re, im]``). The script
owns every file of OUT_DIR.
"""

import json
import os
import platform
import sys

import numpy as np
import scipy
import scipy.sparse as sp

REQUIRED = {"numpy": "2.4.6", "scipy": "1.17.1"}
GENERATED_BY = "xtask/fixtures_sparse.py (cargo xtask fixtures); do not edit"


def dense_json(a):
    if np.iscomplexobj(a):
        return [[[float(x.real), float(x.imag)] for x in row] for row in a]
    if a.dtype.kind == "f":
        return [[float(x) for x in row] for row in a]
    return [[int(x) for x in row] for row in a]


def cases():
    a = np.array([[1, 0, 2, 0], [0, 0, 3, 0], [4, 5, 0, 0], [0, 0, 0, 6]], dtype="f8")
    for fmt in ["csr", "csc", "coo", "dia"]:
        for kind in ["matrix", "array"]:
            yield f"{fmt}_{kind}", getattr(sp, f"{fmt}_{kind}")(a)
    yield "bsr_matrix", sp.bsr_matrix(a)
    yield "bsr_array", sp.bsr_array(a)
    yield "bsr_2x2", sp.bsr_matrix(a, blocksize=(2, 2))
    b = sp.csr_matrix(a.astype("f4"))
    b.indices = b.indices.astype("i8")
    b.indptr = b.indptr.astype("i8")
    yield "csr_f4_i64", b
    yield "csc_int", sp.csc_matrix(np.array([[0, -7], [3, 0], [0, 1]], dtype="i4"))
    yield "coo_complex", sp.coo_array(np.array([[0, 1 + 2j], [3j, 0]], dtype="c16"))
    yield "csr_empty", sp.csr_matrix((3, 5), dtype="f8")
    dup = sp.coo_matrix((np.array([1.0, 2.0, 5.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))),
                        shape=(2, 3))
    yield "coo_duplicates", dup


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if np.__version__ != REQUIRED["numpy"] or scipy.__version__ != REQUIRED["scipy"]:
        print(f"need {REQUIRED}, found numpy {np.__version__} scipy {scipy.__version__}",
              file=sys.stderr)
        return 1
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if os.path.isfile(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    rows = []
    for name, m in cases():
        for compressed in (False, True):
            file = f"{name}{'_z' if compressed else ''}.npz"
            path = os.path.join(out, file)
            sp.save_npz(path, m, compressed=compressed)
            with np.load(path) as z:
                keys = list(z.files)
                index = z["offsets"] if "offsets" in keys else z["indices"] if "indices" in keys else z["row"]
                data = z["data"]
                rows.append({
                    "file": file, "format": m.format,
                    "is_array": "_is_array" in keys and bool(z["_is_array"]),
                    "shape": [int(d) for d in m.shape], "stored": int(data.size),
                    "nnz": int(m.nnz), "data_descr": data.dtype.str, "index_descr": index.dtype.str,
                    "blocksize": [int(d) for d in data.shape[1:]] if m.format == "bsr" else None,
                    "keys": keys, "compressed": compressed,
                    "dense": dense_json(sp.load_npz(path).toarray()),
                })
    meta = {"numpy": np.__version__, "scipy": scipy.__version__, "machine": platform.machine()}
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write("{" + json.dumps("generated_by") + ":" + json.dumps(GENERATED_BY) + ",\n")
        for k, v in meta.items():
            f.write(json.dumps(k) + ":" + json.dumps(v) + ",\n")
        f.write('"files":[\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows))
        f.write("\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
