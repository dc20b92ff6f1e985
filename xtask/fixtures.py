#!/usr/bin/env python3
"""Generate the NumPy ``.npy`` fixture set used by the npy workspace tests.

Run through ``cargo xtask fixtures`` (which provides a Python with exactly
numpy==2.4.6), not by hand:

    python xtask/fixtures.py OUT_DIR

Every ``.npy`` file is written by ``np.save`` and every value in
``manifest.json`` is taken from numpy or from the bytes numpy wrote. The
output is deterministic: no unseeded randomness, no timestamps.

The script owns the top-level ``*.npy`` files, ``manifest.json`` and
``README.md`` of OUT_DIR: it deletes all top-level ``*.npy`` files before
writing the new set. Of the sub-directories it owns ``object/`` (written by
``fixtures_object.py``) and ``npz/`` (``fixtures_npz.py``); others are left alone.
"""

import ast
import hashlib
import json
import os
import platform
import sys
import warnings

import numpy as np
from numpy.lib import format as npformat

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures_object  # noqa: E402  (object arrays: fixtures/object/)

REQUIRED_NUMPY = "2.4.6"
DATA_LIMIT = 4096  # "data" is only written for arrays with at most this many elements
GENERATED_BY = "cargo xtask fixtures (xtask/fixtures.py); do not edit"

# ---------------------------------------------------------------------------
# value pools (deterministic)
# ---------------------------------------------------------------------------

N = 24  # elements of the (2, 3, 4) arrays; smaller shapes take a prefix


def int_pool(dt):
    info = np.iinfo(dt)
    lo, hi = int(info.min), int(info.max)
    if lo < 0:
        special = [lo, hi, 0, -1, 1, lo + 1, hi - 1, 2, -2]
    else:
        special = [0, hi, 1, hi - 1, 2, 127, 128, 255 if hi > 255 else 3]
    bits = dt.itemsize * 8
    vals = list(special)
    # a ramp ...
    vals += [j * 3 - 4 if lo < 0 else j * 3 for j in range(5, 11)]
    # ... and values spread over the whole range (multiplicative hash)
    j = 1
    while len(vals) < N:
        v = (j * 0x9E3779B97F4A7C15) % (1 << bits)
        if lo < 0 and v >= (1 << (bits - 1)):
            v -= 1 << bits
        vals.append(v)
        j += 1
    assert all(lo <= v <= hi for v in vals)
    return np.array(vals[:N], dtype=dt.newbyteorder("="))


def float_pool(dt):
    """Floats: nan, +-inf, -0.0, subnormals, extremes and ordinary fractions."""
    ndt = dt.newbyteorder("=")
    t = ndt.type
    fi = np.finfo(ndt)
    one = t(1)
    vals = [
        t(0.5),
        t(np.nan),
        t(-0.0),
        t(np.inf),
        fi.smallest_subnormal,
        t(-np.inf),
        one / t(3),  # computed in the target precision
        t(-1.25),
        t(0.0),
        fi.smallest_subnormal * t(3),
        fi.tiny,  # smallest normal
        fi.max,
        -fi.max,
        fi.eps,
        t(0.1),
        t(-7.75),
        t(100.0),
        t(2.0) / t(-3),
        t(1.5),
        t(2.0**-10),
        t(12345.678),
        t(-0.0625),
        one + fi.eps,
        t(3.0),
    ]
    assert len(vals) == N
    return np.array(vals, dtype=ndt)


def complex_pool(dt):
    ndt = dt.newbyteorder("=")
    fl = float_pool(np.dtype(ndt.char.lower()))  # c8 -> f4 (F->f), etc.
    arr = np.zeros(N, dtype=ndt)
    # mixed real/imaginary parts; index 1 gives (nan, 1/3), index 3 (inf, 0.5)
    arr.real = fl
    arr.imag = fl[[(i * 7 + 6) % N for i in range(N)]]
    return arr


DT_TICKS = {
    # datetime64 units: NaT, epoch, before 1970, far past/future, ramps
    "ns": [
        0,
        None,
        -1,
        1_700_000_000_123_456_789,
        -86_400_000_000_000,
        -(2**63) + 1,
        2**63 - 1,
        -1_000_000_000_000_000_000,
    ],
    "D": [0, None, -1, 19_700, -719_162, 2_932_896, -25_567, 365],
    "s": [0, None, -1, 1_700_000_000, -2_208_988_800, 253_402_300_799, -62_135_596_800, 86_400],
    # timedelta64 units
    "ms": [0, None, -1, 1_500, -86_400_000, 2**63 - 1, -(2**63) + 1, 60_000],
    "10ms": [0, None, -1, 150, -8_640_000, 12, -12, 360_000],
    "": [0, None, -1, 7, -42, 1_000_000, -1_000_000, 2**40],
}


def time_pool(dt):
    ndt = dt.newbyteorder("=")
    unit = np.datetime_data(ndt)[0]
    if unit == "generic" and ndt.kind == "M":
        # generic-unit datetime64 can only hold NaT
        return np.array(["NaT"] * N, dtype=ndt)
    count = np.datetime_data(ndt)[1]
    key = "" if unit == "generic" else (unit if count == 1 else f"{count}{unit}")
    base = DT_TICKS[key]
    ticks = list(base)
    j = 1
    while len(ticks) < N:
        ticks.append(None if j % 7 == 0 else (j * 1_234_567 - 9_876_543) * (1 if j % 2 else -1))
        j += 1
    nat = np.iinfo(np.int64).min
    raw = np.array([nat if v is None else v for v in ticks], dtype=np.int64)
    return raw.view(ndt)


def bool_pool(dt):
    return np.array([(i * 5 + i // 3) % 3 == 0 for i in range(N)], dtype=dt)


S_VALUES = [
    b"abc",
    b"a\x00b",  # NUL inside
    b"",
    b"\xe9t\xe9",  # latin-1 "été"
    b"full7ch",  # exactly the width
    b"\x00lead",  # leading NUL
    b"x",  # shorter than the width: trailing NULs in the file
    b"\x80\xff\xa0",
]


def bytes_pool(dt):
    width = dt.itemsize
    vals = []
    i = 0
    while len(vals) < N:
        if i < len(S_VALUES):
            vals.append(S_VALUES[i])
        else:
            vals.append(bytes((i * 31 + k * 7) % 94 + 33 for k in range((i % width) + 1)))
        i += 1
    return np.array([v[:width] for v in vals], dtype=dt)


U_VALUES = ["héllo", "漢字", "😀", "", "a\x00b", "ñandú", "Ωμέγα", "x", "tab\t", "€uro"]


def str_pool(dt):
    width = dt.itemsize // 4
    vals = []
    i = 0
    while len(vals) < N:
        if i < len(U_VALUES):
            vals.append(U_VALUES[i])
        else:
            vals.append("".join(chr(0x41 + (i * 3 + k) % 26) for k in range((i % width) + 1)))
        i += 1
    return np.array([v[:width] for v in vals], dtype=dt.newbyteorder("="))


def void_pool(dt):
    size = dt.itemsize
    raw = bytes((i * 37 + k * 11 + (i * k) % 5) % 256 for i in range(N) for k in range(size))
    return np.frombuffer(raw, dtype=dt).copy()


# (filename code, dtype spelling without byte order, has byte order)
SIMPLE = [
    ("b1", "?", False),
    ("i1", "i1", False),
    ("u1", "u1", False),
    ("i2", "i2", True),
    ("u2", "u2", True),
    ("i4", "i4", True),
    ("u4", "u4", True),
    ("i8", "i8", True),
    ("u8", "u8", True),
    ("f2", "f2", True),
    ("f4", "f4", True),
    ("f8", "f8", True),
    (None, "g", True),  # longdouble; code from numpy: f16 on x86-64 linux
    ("c8", "c8", True),
    ("c16", "c16", True),
    (None, "G", True),  # clongdouble; c32 on x86-64 linux
    ("M8ns", "M8[ns]", True),
    ("M8D", "M8[D]", True),
    ("M8s", "M8[s]", True),
    ("M8", "M8", True),  # generic unit: NaT only
    ("m8ms", "m8[ms]", True),
    ("m8_10ms", "m8[10ms]", True),
    ("m8", "m8", True),  # generic unit
    ("S7", "S7", False),
    ("U5", "U5", True),
    ("V6", "V6", False),
]


def pool_for(dt):
    kind = dt.kind
    if kind == "b":
        return bool_pool(dt)
    if kind in "iu":
        return int_pool(dt)
    if kind == "f":
        return float_pool(dt)
    if kind == "c":
        return complex_pool(dt)
    if kind in "mM":
        return time_pool(dt)
    if kind == "S":
        return bytes_pool(dt)
    if kind == "U":
        return str_pool(dt)
    if kind == "V":
        return void_pool(dt)
    raise ValueError(f"no value pool for {dt}")


def shape_name(shape):
    if shape == ():
        return "scalar"
    return "x".join(str(d) for d in shape)


def simple_fixtures():
    out = []
    for code, spelling, has_order in SIMPLE:
        native = np.dtype(spelling)
        if code is None:
            code = native.str[1:]
        orders = [("le", "<"), ("be", ">")] if has_order else [("na", "|")]
        for tag, order in orders:
            dt = native.newbyteorder(order) if has_order else native
            pool = pool_for(native).astype(dt)
            if pool.dtype != dt:
                # numpy drops the byte order of generic-unit datetime64/timedelta64
                # when allocating (np.zeros/astype); a byte-swapped view keeps it
                pool = pool_for(native).byteswap().view(dt)
            assert pool.dtype == dt and pool.dtype.str[0] == order, (pool.dtype.str, order)
            c = pool.reshape(2, 3, 4)
            f = np.asfortranarray(c)
            out.append((f"{code}_{tag}_c_2x3x4.npy", c))
            out.append((f"{code}_{tag}_f_2x3x4.npy", f))
            if tag == "be":
                continue
            # scalar: a value that is not the first of the pool
            out.append((f"{code}_{tag}_c_scalar.npy", pool[3:4].reshape(())))
            for shape in [(0,), (3, 0), (5,)]:
                n = int(np.prod(shape))
                out.append((f"{code}_{tag}_c_{shape_name(shape)}.npy", pool[:n].reshape(shape).copy()))
    return out


# ---------------------------------------------------------------------------
# structured dtypes
# ---------------------------------------------------------------------------


def fill_record(arr):
    """Fill every field of a structured array with varied deterministic values."""
    for k, name in enumerate(arr.dtype.names):
        fdt = arr.dtype.fields[name][0]
        sub = arr[name]
        if fdt.base.names is not None and fdt.shape == ():
            fill_record(sub)
            continue
        if fdt.base.names is not None:
            fill_record(sub.reshape(-1))
            continue
        n = sub.size
        if n == 0:
            continue
        base = fdt
        while base.subdtype is not None:
            base = base.subdtype[0]
        pool = pool_for(base)
        # rotate so different fields do not all start with the same value
        idx = [(i + 5 * k + 1) % N for i in range(n)]
        sub[...] = pool[idx].astype(base).reshape(sub.shape)


def rec(dtype, shape=(3,)):
    arr = np.zeros(shape, dtype=dtype)
    fill_record(arr.reshape(-1))
    return arr


def wide():
    """4000 fields (header > 65535 bytes -> format 2.0); values derived from the field index."""
    dt = np.dtype([(f"f{i:04d}", "<f4" if i % 2 == 0 else "<i2") for i in range(4000)])
    arr = np.zeros((2,), dtype=dt)
    for i, name in enumerate(dt.names):
        arr[name] = [i / 4, -i] if i % 2 == 0 else [i, -i]
    return arr


def record_fixtures():
    packed = np.dtype([("x", "<f4"), ("y", "<f4"), ("id", "<i8")])
    out = [
        ("rec_packed.npy", rec(packed)),
        ("rec_aligned.npy", rec(np.dtype([("a", "u1"), ("b", "<i4")], align=True))),
        (
            "rec_offsets.npy",
            rec(np.dtype({"names": ["a", "b"], "formats": ["<i2", "<f8"], "offsets": [0, 8], "itemsize": 24})),
        ),
        ("rec_titles.npy", rec(np.dtype([(("Title A", "a"), "<i4"), (("Title B", "b"), "<f8")]))),
        ("rec_nested.npy", rec(np.dtype([("p", [("x", "<f4"), ("y", "<f4")]), ("m", "<f8", (2, 3))]))),
        ("rec_subsub.npy", rec(np.dtype([("c", ("<f8", (5,)), (2,))]))),
        ("rec_utf8.npy", rec(np.dtype([("整形", "<i4"), ("x", "<f8")]))),
        ("rec_quote.npy", rec(np.dtype([("it's", "<i4"), ('b"q', "<f4")]))),
        ("rec_scalar.npy", rec(packed, shape=())),
        ("rec_zero_sub.npy", rec(np.dtype([("z", "<f4", (4, 0, 4)), ("k", "<i2")]))),
        ("rec_mixed_bo.npy", rec(np.dtype([("a", ">i4"), ("b", "<i4"), ("c", ">f8"), ("d", "|u1")]))),
        ("rec_wide.npy", wide()),
        (
            "rec_strings.npy",
            rec(np.dtype([("name", "S5"), ("u", "<U3"), ("flag", "?"), ("t", "<M8[s]"), ("c", "<c8")])),
        ),
        ("rec_be.npy", rec(np.dtype([("x", ">f4"), ("y", ">f4"), ("id", ">i8")]))),
        ("rec_empty.npy", np.zeros((2,), dtype=np.dtype([]))),
        # More than one 64 KiB read chunk (128 records each): fields out of the struct order,
        # both byte orders and padding, for the readers' chunked decoding.
        (
            "rec_chunks.npy",
            rec(
                np.dtype(
                    {
                        "names": ["id", "y", "x"],
                        "formats": [">i8", ">f4", "<f4"],
                        "offsets": [0, 200, 508],
                        "itemsize": 512,
                    }
                ),
                shape=(300,),
            ),
        ),
    ]
    return out


def other_fixtures():
    w = np.arange(256, dtype="<f4").reshape(4, 64) / 8
    assert w.dtype == np.dtype("<f4")
    long_shape = np.full((1,) * 16, 42, dtype="<u1")
    return [("w_f32.npy", w), ("long_shape.npy", long_shape)]


# ---------------------------------------------------------------------------
# JSON encoding of values (the same encoding `npy show --json` prints)
# ---------------------------------------------------------------------------


def enc_float(x):
    x = float(x)
    if x != x:
        return "nan"
    if x == float("inf"):
        return "inf"
    if x == float("-inf"):
        return "-inf"
    return x


def enc(a):
    """Encode an ndarray (any ndim) as nested lists in logical C order."""
    if a.ndim > 0:
        return [enc(a[i, ...]) for i in range(a.shape[0])]
    dt = a.dtype
    if dt.names is not None:
        return {name: enc(a[name]) for name in dt.names}
    kind = dt.kind
    x = a[()]
    if kind == "b":
        return bool(x)
    if kind in "iu":
        return int(x)
    if kind == "f":
        return enc_float(x)
    if kind == "c":
        return [enc_float(x.real), enc_float(x.imag)]
    if kind in "mM":
        if np.isnat(x):
            return None
        # reinterpret the ticks as an int64 of the same byte order (astype to a
        # native generic-unit dtype is a no-op in numpy, so do not use it)
        return int(a.view(dt.str[0] + "i8")[()])
    if kind == "S":
        return a.item().decode("latin-1")
    if kind == "U":
        return a.item()
    if kind == "V":
        return a.tobytes().hex()
    raise ValueError(f"cannot encode dtype {dt}")


# ---------------------------------------------------------------------------
# manifest entries
# ---------------------------------------------------------------------------

CANONICAL = {
    ("b", 1): "bool",
    ("i", 1): "int8",
    ("i", 2): "int16",
    ("i", 4): "int32",
    ("i", 8): "int64",
    ("u", 1): "uint8",
    ("u", 2): "uint16",
    ("u", 4): "uint32",
    ("u", 8): "uint64",
    ("f", 2): "float16",
    ("f", 4): "float32",
    ("f", 8): "float64",
    ("c", 8): "complex64",
    ("c", 16): "complex128",
}


def canonical(dt):
    if dt.names is not None or dt.subdtype is not None:
        return None
    # longdouble/clongdouble are f16/c32 here (not in the table) and so get null
    return CANONICAL.get((dt.kind, dt.itemsize))


def flatten_subarray(dt):
    """Element dtype and full subarray shape of a (possibly nested) subarray dtype."""
    shape = ()
    while dt.subdtype is not None:
        shape += dt.shape
        dt = dt.subdtype[0]
    return dt, shape


def field_entries(dt):
    out = []
    for name in dt.names:
        field = dt.fields[name]
        fdt, offset = field[0], field[1]
        title = field[2] if len(field) > 2 else None
        base, shape = flatten_subarray(fdt)
        out.append(
            {
                "descr": repr(npformat.dtype_to_descr(base)),
                "itemsize": fdt.itemsize,
                "name": name,
                "offset": offset,
                "shape": list(shape),
                "title": title,
            }
        )
    return out


def parse_file(raw):
    assert raw[:6] == b"\x93NUMPY", "bad magic"
    major, minor = raw[6], raw[7]
    if major == 1:
        header_len = int.from_bytes(raw[8:10], "little")
        start = 10
    else:
        header_len = int.from_bytes(raw[8:12], "little")
        start = 12
    encoding = "utf-8" if major >= 3 else "latin-1"
    header = raw[start : start + header_len].decode(encoding)
    return (major, minor), header_len, header, start + header_len


def entry(name, arr, raw):
    version, header_len, header, data_offset = parse_file(raw)
    parsed = ast.literal_eval(header)
    descr = npformat.dtype_to_descr(arr.dtype)
    descr_repr = repr(descr)
    assert header.startswith("{'descr': " + descr_repr + ", "), (name, header[:200])
    assert parsed["descr"] == descr
    assert header.endswith("\n") and data_offset % 64 == 0, name
    dt = arr.dtype
    e = {
        "byte_order": "na" if dt.names is not None else {"<": "little", ">": "big", "|": "na"}[dt.str[0]],
        "canonical": canonical(dt),
        "data_offset": data_offset,
        "data_sha256": hashlib.sha256(raw[data_offset:]).hexdigest(),
        "descr": descr_repr,
        "dtype_str": dt.str,
        "file": name,
        "file_size": len(raw),
        "fortran_order": bool(parsed["fortran_order"]),
        "header": header,
        "header_len": header_len,
        "itemsize": dt.itemsize,
        "kind": dt.kind,
        "nbytes": int(arr.nbytes),
        "shape": [int(d) for d in parsed["shape"]],
        "version": [version[0], version[1]],
    }
    assert tuple(e["shape"]) == arr.shape, name
    assert len(raw) - data_offset == arr.nbytes, name
    if dt.names is not None:
        e["fields"] = field_entries(dt)
    if arr.size <= DATA_LIMIT:
        e["data"] = enc(arr)
    return e


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------


def compact(v):
    return json.dumps(v, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def render_manifest(manifest):
    """Pretty JSON with sorted keys, except that record values in "data" keep field order.

    The top-level object, the fixture list and each fixture object are indented;
    "data" and "fields" lists get one element per line; everything else is
    written compactly on its key's line.
    """
    lines = ["{"]
    top = sorted(manifest)
    for ti, key in enumerate(top):
        tcomma = "," if ti + 1 < len(top) else ""
        if key != "fixtures":
            lines.append(f"  {compact(key)}: {compact(manifest[key])}{tcomma}")
            continue
        lines.append(f'  "fixtures": [')
        fixtures = manifest["fixtures"]
        for fi, fx in enumerate(fixtures):
            lines.append("    {")
            keys = sorted(fx)
            for ki, k in enumerate(keys):
                comma = "," if ki + 1 < len(keys) else ""
                v = fx[k]
                if k in ("data", "fields") and isinstance(v, list) and v:
                    lines.append(f"      {compact(k)}: [")
                    for vi, item in enumerate(v):
                        icomma = "," if vi + 1 < len(v) else ""
                        if k == "fields":
                            item = dict(sorted(item.items()))
                        lines.append(f"        {compact(item)}{icomma}")
                    lines.append(f"      ]{comma}")
                else:
                    lines.append(f"      {compact(k)}: {compact(v)}{comma}")
            lines.append("    }" + ("," if fi + 1 < len(fixtures) else ""))
        lines.append(f"  ]{tcomma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


README = """\
# NumPy `.npy` fixtures

Generated by `cargo xtask fixtures` (script: `xtask/fixtures.py`, numpy {numpy}). **Do not edit.**
Regenerate with `cargo xtask fixtures`; `cargo xtask fixtures --check` verifies that this folder
matches what the generator writes. The generator owns the top-level `*.npy` files,
`manifest.json` and this README, `object/` (object arrays: see its README) and `npz/`
(`.npz` archives, with their own `manifest.json`); other sub-directories are left alone.

{count} files, all written by `np.save`:

- `w_f32.npy`: float32 (4, 64), `np.arange(256, dtype='<f4').reshape(4, 64) / 8`.
- Simple dtypes, named `{{code}}_{{le|be|na}}_{{c|f}}_{{shape}}.npy`: bool (`b1`), `i1`..`u8`,
  `f2`/`f4`/`f8`, longdouble (`{ld}`), `c8`/`c16`, clongdouble (`{cld}`),
  datetime64 `M8ns`/`M8D`/`M8s`/generic `M8` (NaT only), timedelta64 `m8ms`/`m8_10ms`/generic `m8`,
  `S7`, `U5`, `V6`. `na` marks byte-order-less dtypes (`|`). The 6 unused bytes of each
  80-bit longdouble in its 16-byte slot are zeroed (numpy leaves them undefined).
  Every dtype and byte order has shape (2, 3, 4) in C and Fortran order (same logical values);
  little-endian (or `na`) also has C-order shapes `scalar` (0-d), `0`, `3x0` and `5`.
  Values cover integer extremes, 0, -1 and ramps; nan, +-inf, -0.0, subnormals and fractions;
  complex numbers with nan parts; NaT and pre-1970 datetimes; bytes with NULs inside, trailing
  NULs and latin-1 bytes; non-ASCII and astral strings; arbitrary void bytes.
- Structured dtypes `rec_*.npy`: packed, aligned (padding), explicit offsets with trailing
  padding, titles, nested records and subarrays, subarray of subarray, a UTF-8 field name
  (format 3.0), names needing quote escapes, a 0-d record, a zero-size subarray, mixed byte
  orders, 4000 fields (header > 65535 bytes, format 2.0), string/bool/datetime/complex fields,
  big-endian, and a record with no fields.
- `long_shape.npy`: uint8 with 16 dimensions of length 1.

`manifest.json` describes every file: version, header text and length, descr, dtype, shape,
order, data offset, sizes, sha256 of the data and, for arrays of at most {limit} elements, the
values as JSON in logical C order (nan/inf/-inf as strings, complex as [re, im], datetimes as
integer ticks with NaT as null, bytes as latin-1 text, void as hex, records as objects in
field order). For record fields, "descr" is the element dtype of the field and "shape" its
full (flattened) subarray shape.
"""


def zero_longdouble_padding(arr):
    """Zero the unused bytes of x87 80-bit long doubles, in place.

    On x86-64 a longdouble occupies 16 bytes of which only 10 are significant;
    numpy leaves whatever was in memory in the other 6, which would make the
    files non-deterministic. Only simple (non-structured) arrays hold longdoubles here.
    """
    ld = np.dtype(np.longdouble)
    if np.finfo(ld).nmant != 63 or ld.itemsize != 16:
        return  # not x87 extended precision in 16 bytes: no padding to fix
    dt = arr.dtype
    if dt.names is not None or (dt.kind, dt.itemsize) not in (("f", 16), ("c", 32)):
        return
    assert arr.flags.c_contiguous or arr.flags.f_contiguous
    units = arr.ravel(order="K").view(np.uint8).reshape(-1, 16)
    assert np.shares_memory(units, arr) or arr.size == 0
    if dt.str[0] == ">":
        units[:, :6] = 0  # byte-swapped: padding comes first
    else:
        units[:, 10:] = 0


def save(path, arr):
    """np.save to path; returns the bytes numpy wrote."""
    with warnings.catch_warnings():
        # format 2.0 (huge header) and 3.0 (utf-8 field names) trigger a
        # UserWarning; that is intended
        warnings.filterwarnings("ignore", message="Stored array in format [23].0")
        np.save(path, arr, allow_pickle=False)
    with open(path, "rb") as fh:
        return fh.read()


def main(argv):
    if len(argv) != 2:
        print("usage: fixtures.py OUT_DIR", file=sys.stderr)
        return 2
    if np.__version__ != REQUIRED_NUMPY:
        print(f"fixtures.py: need numpy=={REQUIRED_NUMPY}, found {np.__version__}", file=sys.stderr)
        return 1
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)

    fixtures = other_fixtures() + simple_fixtures() + record_fixtures()
    names = [n for n, _ in fixtures]
    assert len(names) == len(set(names)), "duplicate fixture names"

    # delete stale files we own (all top-level .npy files)
    for old in sorted(os.listdir(out_dir)):
        path = os.path.join(out_dir, old)
        if old.endswith(".npy") and os.path.isfile(path):
            os.remove(path)

    entries = []
    for name, arr in sorted(fixtures, key=lambda t: t[0]):
        path = os.path.join(out_dir, name)
        zero_longdouble_padding(arr)
        raw = save(path, arr)
        # the file must load back to the same dtype, shape and values
        back = np.load(path, allow_pickle=False, max_header_size=1 << 20)
        assert back.dtype == arr.dtype and back.shape == arr.shape, name
        assert enc(back) == enc(arr), name
        entries.append(entry(name, arr, raw))

    manifest = {
        "fixtures": entries,
        "generated_by": GENERATED_BY,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
    }
    text = render_manifest(manifest)
    assert json.loads(text) == json.loads(json.dumps(manifest)), "manifest rendering mismatch"
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)

    readme = README.format(
        numpy=np.__version__,
        count=len(entries),
        ld=np.dtype(np.longdouble).str[1:],
        cld=np.dtype(np.clongdouble).str[1:],
        limit=DATA_LIMIT,
    )
    with open(os.path.join(out_dir, "README.md"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(readme)

    total = sum(e["file_size"] for e in entries)
    print(f"fixtures.py: wrote {len(entries)} .npy files ({total} bytes), manifest.json, README.md to {out_dir}")
    count = fixtures_object.generate(os.path.join(out_dir, "object"))
    print(f"fixtures.py: wrote {count} object-array files to {os.path.join(out_dir, 'object')}")
    import fixtures_npz  # here, not at the top: it imports this module for its encoder

    return fixtures_npz.main(["fixtures_npz.py", os.path.join(out_dir, "npz")])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
