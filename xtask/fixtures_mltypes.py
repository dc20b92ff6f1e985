#!/usr/bin/env python3
"""Generate the ml_dtypes fixtures in ``fixtures/mltypes/`` (run by ``cargo xtask fixtures``).

    python xtask/fixtures_mltypes.py OUT_DIR

Files written by ``np.save`` of ml_dtypes arrays (numpy 2.4.6, ml_dtypes 0.7.0), the reference of
issue 26's element types:

- ``codes_{name}.npy``: every code of a one-byte kind (bytes 0..255, shape (16, 16)), or 4096
  bfloat16 codes (every 16th code, plus the specials), shape (64, 64): ml_dtypes' value of each.
- ``small_{name}.npy``: a (2, 3) array of everyday values, and ``small_{name}_f.npy`` the same
  in Fortran order.
- ``scalar_bfloat16.npy``: a 0-d bfloat16 array.
- ``be_{name}.npy``: the small array in big-endian byte order (``dtype.newbyteorder('>')``:
  ``'>V2'`` for bfloat16, whose bytes ml_dtypes swaps; ``'>f1'``, ``'>V1'`` for one-byte kinds,
  whose bytes are the little-endian file's).
- ``rec_ml.npy``: a record whose fields are ml_dtypes types (``'<f1'`` float8_e5m2, a
  float8_e5m2 subarray, ``'<V2'`` bfloat16, ``'<V1'`` float8_e4m3fn) beside ``'<f4'``.

``manifest.json`` has one row per file: the header text, the descr, shape, order, the data bytes
as hex, the values (``float(x)`` of each element in C order; nan and +-inf as strings; integer
kinds as integers) and ``str(arr)``, numpy's print of the array. ``variants.json`` has the same for the ``be_`` and
``rec_`` files, a record's values by field (``fields``: name to the values of every record in C
order, a subarray's flattened). ``encode.json`` has, for each
kind, ml_dtypes' rounding (``np.float32(x).astype(kind)``) of a sweep of float32 values: every
value of the kind, the midpoints between neighbours (the ties), the float32 just above and below
each midpoint, values beyond the largest, infinities, NaN and tiny values; each row is
``[kind, float32 bits as hex, code]``. The script owns every file of OUT_DIR.
"""

import io
import json
import math
import os
import platform
import sys

import numpy as np
import ml_dtypes

REQUIRED_NUMPY = "2.4.6"
REQUIRED_ML_DTYPES = "0.7.0"
GENERATED_BY = "xtask/fixtures_mltypes.py (cargo xtask fixtures); do not edit"

KINDS = [
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "int4", "uint4", "int2", "uint2",
]
INTS = {"int4", "uint4", "int2", "uint2"}


def value(x, kind):
    if kind in INTS:
        return int(x)
    f = float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f


def code_array(kind):
    t = getattr(ml_dtypes, kind)
    if kind == "bfloat16":
        codes = list(range(0, 65536, 16))
        # Codes 16..128 give way to subnormals, the largest finite and NaN payloads.
        codes[1:9] = [0x0001, 0x8001, 0x7f7f, 0x7fff, 0x807f, 0x0081, 0xff7f, 0x7fc1]
        return np.array(codes, dtype="<u2").view(t).reshape(64, 64)
    return np.frombuffer(bytes(range(256)), dtype=np.uint8).view(t).reshape(16, 16)


def small_array(kind):
    t = getattr(ml_dtypes, kind)
    if kind in INTS:
        info = ml_dtypes.iinfo(t)
        vals = [0, 1, int(info.max), int(info.min), 2 if info.max >= 2 else 0, -1 if info.min < 0 else 3]
        return np.array(vals, dtype=np.int64).astype(t).reshape(2, 3)
    vals = [0.0, 1.0, -1.5, 0.1, 3.3, 1e30]
    if kind == "float8_e8m0fnu":
        vals = [1.0, 2.0, 0.25, 3.0, 1e30, 1e-30]
    return np.array(vals, dtype=np.float32).astype(t).reshape(2, 3)


def npy_bytes(arr):
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def file_row(out_dir, name, kind, arr):
    data = npy_bytes(arr)
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    hlen = int.from_bytes(data[8:10], "little")
    header = data[10:10 + hlen].decode("latin-1")
    body = data[10 + hlen:]
    return {
        "file": name,
        "kind": kind,
        "header": header,
        "descr": arr.dtype.str,
        "shape": list(arr.shape),
        "fortran_order": bool(arr.flags.f_contiguous and not arr.flags.c_contiguous),
        "data_hex": body.hex(),
        "values": [value(x, kind) for x in np.asarray(arr).ravel(order="C")],
        "str": str(arr),
    }


def record_row(out_dir, name, arr):
    data = npy_bytes(arr)
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    hlen = int.from_bytes(data[8:10], "little")
    fields = {}
    for field in arr.dtype.names:
        sub = arr[field]
        kind = sub.dtype.base.name
        fields[field] = [value(x, kind) for x in np.asarray(sub).ravel(order="C")]
    return {
        "file": name,
        "header": data[10:10 + hlen].decode("latin-1"),
        "descr": str(arr.dtype.descr),
        "shape": list(arr.shape),
        "data_hex": data[10 + hlen:].hex(),
        "fields": fields,
        "str": str(arr),
    }


def ml_record():
    m = ml_dtypes
    dt = np.dtype([("a", m.float8_e5m2), ("s", m.float8_e5m2, (2,)), ("w", "<f4"),
                   ("b", m.bfloat16), ("e", m.float8_e4m3fn)])
    arr = np.zeros(3, dt)
    arr["a"] = np.array([1.5, -2.0, 57344.0], dtype=np.float32).astype(m.float8_e5m2)
    arr["s"] = np.array([[0.25, -0.5], [3.0, 1e-5], [-0.0, 6.0]], dtype=np.float32).astype(m.float8_e5m2)
    arr["w"] = [7.0, -1.25, 0.1]
    arr["b"] = np.array([3.0, 0.5, -1e10], dtype=np.float32).astype(m.bfloat16)
    arr["e"] = np.array([0.25, 448.0, -3.5], dtype=np.float32).astype(m.float8_e4m3fn)
    return arr


def sweep(kind):
    """float32 inputs that exercise every rounding decision of `kind`."""
    t = getattr(ml_dtypes, kind)
    if kind in INTS:
        info = ml_dtypes.iinfo(t)
        base = [float(v) for v in range(int(info.min) - 2, int(info.max) + 3)]
        base += [v + d for v in base for d in (0.25, 0.5, 0.75)]
        base += [-v for v in base]
        return np.array(sorted(set(base)), dtype=np.float32)
    if kind == "bfloat16":
        codes = np.arange(0, 65536, 37, dtype=np.uint32)
        finite = codes.astype("<u2").view(t).astype(np.float32)
    else:
        finite = np.frombuffer(bytes(range(256)), dtype=np.uint8).view(t).astype(np.float32)
    finite = np.unique(finite[np.isfinite(finite)])
    mids = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)
    up = np.nextafter(mids, np.float32(np.inf))
    down = np.nextafter(mids, np.float32(-np.inf))
    big = float(finite.max())
    with np.errstate(over="ignore"):  # big * 2 overflows float32 for bfloat16: inf is wanted
        extra = np.array([big * 1.0625, big * 1.125, big * 2, 3e38, np.inf, -np.inf, np.nan,
                          1e-30, -1e-30, 1e-45, 0.0, -0.0], dtype=np.float32)
    allv = np.concatenate([finite, mids, up, down, -finite, -mids, -up, -down, extra])
    bits = np.unique(allv.view(np.uint32))
    return bits.view(np.float32)


def encode_rows(kind):
    t = getattr(ml_dtypes, kind)
    xs = sweep(kind)
    with np.errstate(all="ignore"):
        ys = xs.astype(t)
    width = "<u2" if kind == "bfloat16" else "u1"
    codes = ys.view(width)
    return [[format(int(b), "08x"), int(c)] for b, c in zip(xs.view(np.uint32), codes)]


def write_rows(path, head, key, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("{" + json.dumps("generated_by") + ":" + json.dumps(GENERATED_BY) + ",\n")
        for k, v in head.items():
            f.write(json.dumps(k) + ":" + json.dumps(v, ensure_ascii=True) + ",\n")
        f.write(json.dumps(key) + ":[\n")
        for i, row in enumerate(rows):
            sep = "," if i + 1 < len(rows) else ""
            f.write(json.dumps(row, ensure_ascii=True, separators=(",", ":")) + sep + "\n")
        f.write("]}\n")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if np.__version__ != REQUIRED_NUMPY or ml_dtypes.__version__ != REQUIRED_ML_DTYPES:
        print(f"numpy {REQUIRED_NUMPY} and ml_dtypes {REQUIRED_ML_DTYPES} required, found "
              f"{np.__version__} and {ml_dtypes.__version__}", file=sys.stderr)
        return 1
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        path = os.path.join(out_dir, name)
        if os.path.isfile(path):
            os.remove(path)
    machine = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__,
               "machine": platform.machine()}
    files = []
    for kind in KINDS:
        files.append(file_row(out_dir, f"codes_{kind}.npy", kind, code_array(kind)))
        small = small_array(kind)
        files.append(file_row(out_dir, f"small_{kind}.npy", kind, small))
        files.append(file_row(out_dir, f"small_{kind}_f.npy", kind, np.asfortranarray(small)))
    scalar = np.array(3.140625, dtype=np.float32).astype(ml_dtypes.bfloat16)
    files.append(file_row(out_dir, "scalar_bfloat16.npy", "bfloat16", scalar))
    write_rows(os.path.join(out_dir, "manifest.json"), machine, "files", files)
    variants = []
    for kind in ["bfloat16", "float8_e5m2", "float8_e4m3fn", "int4"]:
        small = small_array(kind)
        variants.append(file_row(out_dir, f"be_{kind}.npy", kind,
                                 small.astype(small.dtype.newbyteorder(">"))))
    variants.append(record_row(out_dir, "rec_ml.npy", ml_record()))
    write_rows(os.path.join(out_dir, "variants.json"), machine, "files", variants)
    enc = [[k] + row for k in KINDS for row in encode_rows(k)]
    write_rows(os.path.join(out_dir, "encode.json"), machine, "rows", enc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
