"""Check files written by npy-core against numpy (run by `cargo xtask interop`).

usage: python interop.py PAIRS_TSV

Each line of PAIRS_TSV is `OURS<TAB>ORIGINAL`: a file npy-core wrote and the numpy fixture
whose values it holds. For each pair:

(a) np.load both (allow_pickle=False) and compare dtype, shape, fortran_order (from the header)
    and values: NaN-aware for floats and complex (array_equal with equal_nan, and the sign of
    zeros), tick-exact for datetime/timedelta (NaT included), byte-exact for S/U/V;
(b) compare our file's bytes with the fixture's;
(c) for `memmap_*` files (created with NpyMmapMut::create and filled), also with the file
    numpy's `open_memmap(mode='w+')` writes for the fixture's dtype, shape, order and values.

Object arrays (ORIGINAL in a directory with a manifest.json, i.e. fixtures/object/) are loaded
with allow_pickle=True and compared element by element, type for type (NaN-aware, recursively
through lists, tuples, dicts, sets and nested arrays); their bytes are compared when the
manifest marks the fixture `byte_identical`.

Archives (`.npz`, paired with numpy's archive or `-`) go through check_npz: zipfile's
testzip (every CRC), np.load's keys and values, 64-byte aligned members where promised.

Prints each failure, then `interop: N files, N passed, N failed`; exits 1 on any failure.
"""

import json
import math
import os
import sys

import numpy as np


def header_facts(path):
    """(version, shape, fortran_order, dtype) from the file's header."""
    fmt = np.lib.format
    with open(path, "rb") as f:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran_order, dtype = fmt.read_array_header_1_0(f, max_header_size=1 << 20)
        elif version == (2, 0):
            shape, fortran_order, dtype = fmt.read_array_header_2_0(f, max_header_size=1 << 20)
        else:  # 3.0 (UTF-8 header) has no public reader
            from numpy.lib import _format_impl

            shape, fortran_order, dtype = _format_impl._read_array_header(f, version, max_header_size=1 << 20)
    return version, shape, fortran_order, dtype


def compare_values(ours, theirs):
    """Returns None when equal, else a description of the first difference."""
    kind = theirs.dtype.kind
    if kind in "fc":
        if not np.array_equal(ours, theirs, equal_nan=True):
            return "values differ (NaN-aware)"
        parts = [ours, theirs] if kind == "f" else [ours.real, theirs.real, ours.imag, theirs.imag]
        for a, b in zip(parts[0::2], parts[1::2]):
            if not np.array_equal(np.signbit(a), np.signbit(b)):
                return "signs of zeros or NaNs differ"
        return None
    if kind in "Mm":
        if not np.array_equal(ours.view(np.int64), theirs.view(np.int64)):
            return "ticks differ"
        if not np.array_equal(np.isnat(ours), np.isnat(theirs)):
            return "NaT positions differ"
        return None
    if kind in "SUV":
        # Byte-exact in logical C order (padding NULs included).
        if np.ascontiguousarray(ours).tobytes() != np.ascontiguousarray(theirs).tobytes():
            return "bytes of the values differ"
        return None
    if not np.array_equal(ours, theirs):
        return "values differ"
    return None


def same_object(a, b):
    """Python equality that also requires equal types, NaN == NaN and equal signs of zeros."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, complex):
        return same_object(a.real, b.real) and same_object(a.imag, b.imag)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_object(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same_object(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return (
            a.dtype == b.dtype
            and a.shape == b.shape
            and a.flags.f_contiguous == b.flags.f_contiguous
            and same_object(a.tolist(), b.tolist())
        )
    return a == b


def byte_identical(theirs_path):
    manifest = os.path.join(os.path.dirname(theirs_path), "manifest.json")
    with open(manifest, encoding="utf-8") as f:
        entries = json.load(f)["fixtures"]
    name = os.path.basename(theirs_path)
    return any(e["file"] == name and e["byte_identical"] for e in entries)


def check_objects(ours_path, theirs_path):
    problems = []
    ours = np.load(ours_path, allow_pickle=True)
    theirs = np.load(theirs_path, allow_pickle=True)
    if ours.dtype != np.dtype(object):
        problems.append(f"dtype {ours.dtype}, expected object")
    if ours.shape != theirs.shape:
        problems.append(f"shape {ours.shape}, numpy {theirs.shape}")
    elif ours.flags.f_contiguous != theirs.flags.f_contiguous:
        problems.append("memory order differs")
    elif not same_object(np.ravel(ours).tolist(), np.ravel(theirs).tolist()):
        problems.append("values differ")
    if byte_identical(theirs_path):
        with open(ours_path, "rb") as f, open(theirs_path, "rb") as g:
            if f.read() != g.read():
                problems.append("file bytes differ from np.save's")
    return problems


def check_npz(ours_path, theirs_path):
    """An archive npy-core wrote: zipfile checks every CRC, np.load reads numpy's values."""
    import struct
    import zipfile

    problems = []
    with zipfile.ZipFile(ours_path) as z:
        bad = z.testzip()
        if bad is not None:
            problems.append(f"zipfile: bad CRC in {bad}")
        infos = z.infolist()
        raw = open(ours_path, "rb").read()
    ours = np.load(ours_path, allow_pickle=False)
    name = os.path.basename(ours_path)
    if theirs_path == "-":
        if name == "streamed.npz":
            want = np.arange(30000, dtype=np.uint32).reshape(10000, 3)
            if not np.array_equal(ours["rows"], want) or ours["rows"].dtype != want.dtype:
                problems.append("streamed rows differ")
        elif name == "blocks.npz":
            want = np.arange(400000, dtype=np.float64) * 0.5
            if not np.array_equal(ours["ramp"], want) or ours["ramp"].dtype != want.dtype:
                problems.append("ramp (deflated in parallel blocks) differs")
            if ours["empty"].shape != (0,) or ours["empty"].dtype != np.float32:
                problems.append("empty member differs")
            if any(i.compress_type != zipfile.ZIP_DEFLATED for i in infos):
                problems.append("members not deflated")
        else:
            if len(ours.files) != 70000 or ours["k69999"] != 69999 % 251:
                problems.append(f"{len(ours.files)} members")
        return problems
    theirs = np.load(theirs_path, allow_pickle=False)
    want_files = list(dict.fromkeys(theirs.files))  # we write a duplicated name once
    if ours.files != want_files:
        problems.append(f"files {ours.files}, numpy {want_files}")
        return problems
    for key in want_files:
        try:
            a, b = ours[key], theirs[key]
        except ValueError as e:  # an object array is refused by both (allow_pickle=False)
            if "allow_pickle" not in str(e):
                problems.append(f"{key}: {e}")
            continue
        if isinstance(b, bytes):
            if a != b:
                problems.append(f"{key}: bytes differ")
            continue
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{key}: dtype/shape {a.dtype}{a.shape}, numpy {b.dtype}{b.shape}")
            continue
        diff = compare_values(a, b)
        if diff:
            problems.append(f"{key}: {diff}")
    if ".aligned." in name:
        for info in infos:
            if info.compress_type != zipfile.ZIP_STORED:
                continue
            o = info.header_offset
            n, e = struct.unpack("<HH", raw[o + 26 : o + 30])
            start = o + 30 + n + e
            if raw[start : start + 6] == b"\x93NUMPY" and start % 64:
                problems.append(f"{info.filename}: member at {start}, not a multiple of 64")
    return problems


def check(ours_path, theirs_path):
    if os.path.exists(os.path.join(os.path.dirname(theirs_path), "manifest.json")) and os.path.basename(
        os.path.dirname(theirs_path)
    ) == "object":
        return check_objects(ours_path, theirs_path)
    if ours_path.endswith(".npz"):
        return check_npz(ours_path, theirs_path)
    problems = []
    # rec_wide's header (72 KB) is over np.load's default 10,000-byte limit.
    ours = np.load(ours_path, allow_pickle=False, max_header_size=1 << 20)
    theirs = np.load(theirs_path, allow_pickle=False, max_header_size=1 << 20)
    if ours.dtype != theirs.dtype or ours.dtype.str != theirs.dtype.str:
        problems.append(f"dtype {ours.dtype.str!r}, numpy {theirs.dtype.str!r}")
    if ours.shape != theirs.shape:
        problems.append(f"shape {ours.shape}, numpy {theirs.shape}")
    _, _, ours_fortran, _ = header_facts(ours_path)
    _, _, theirs_fortran, _ = header_facts(theirs_path)
    if ours_fortran != theirs_fortran:
        problems.append(f"fortran_order {ours_fortran}, numpy {theirs_fortran}")
    if not problems:
        diff = compare_values(ours, theirs)
        if diff:
            problems.append(diff)
    with open(ours_path, "rb") as f:
        ours_bytes = f.read()
    with open(theirs_path, "rb") as f:
        theirs_bytes = f.read()
    if ours_bytes != theirs_bytes:
        at = next(
            (i for i, (a, b) in enumerate(zip(ours_bytes, theirs_bytes)) if a != b),
            min(len(ours_bytes), len(theirs_bytes)),
        )
        problems.append(
            f"file bytes differ: {len(ours_bytes)} vs numpy {len(theirs_bytes)}, first at byte {at}"
        )
    if os.path.basename(ours_path).startswith("memmap_"):
        numpy_path = os.path.join(os.path.dirname(ours_path), "numpy_" + os.path.basename(ours_path))
        m = np.lib.format.open_memmap(
            numpy_path, mode="w+", dtype=theirs.dtype, shape=theirs.shape,
            fortran_order=bool(theirs_fortran),
        )
        m[...] = theirs
        m.flush()
        del m
        with open(numpy_path, "rb") as f:
            if f.read() != ours_bytes:
                problems.append("file bytes differ from numpy's open_memmap(mode='w+')")
    return problems


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    passed = failed = 0
    for ours_path, theirs_path in pairs:
        try:
            problems = check(ours_path, theirs_path)
        except Exception as e:  # a file numpy cannot load is a failure, not a crash
            problems = [f"{type(e).__name__}: {e}"]
        if problems:
            failed += 1
            print(f"FAIL {ours_path} (vs {theirs_path}): " + "; ".join(problems))
        else:
            passed += 1
    print(f"interop: {len(pairs)} files, {passed} passed, {failed} failed")
    return 1 if failed or not pairs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
