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

Prints each failure, then `interop: N files, N passed, N failed`; exits 1 on any failure.
"""

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


def check(ours_path, theirs_path):
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
