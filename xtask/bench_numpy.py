"""numpy's side of `cargo xtask bench`: np.load / np.save / header parse timings.

usage: python bench_numpy.py DATA_DIR WRITE_DIR [--quick] [--only=npz]

DATA_DIR is the suite's `target/bench-data`: the `.npy` inputs the Rust benchmarks read (made
by npy-bench, so numpy reads the very same bytes) and the two headers `header_typical.bin` and
`header_4000_fields.bin` (npy-core's bytes, which are numpy's). np.save writes into WRITE_DIR,
the folder the Rust write benchmarks use (tmpfs where there is one). Each operation is timed as the
median of 5 batches of 10 calls (per call); `--quick` takes 3 batches of 3. Header parses,
which take microseconds, run batches of 1,000 (typical) and 10 (4,000 fields) calls.
When the `npy_append_array` package is installed, its 1,000 appends of 1 MiB are timed too
(median of 3 single calls).

Prints one JSON object: `numpy_version`, `python_version`, `repeat`, `number`, and `results`,
seconds per call keyed like the criterion benchmarks (`group/case`, e.g. `read_f32/64MiB`).
"""

import io
import json
import os
import statistics
import sys
import time

import numpy as np
from numpy.lib import _format_impl

MIB = 1 << 20
FMT = np.lib.format


def per_call(fn, repeat, number):
    """Median over `repeat` batches of the time of one of `number` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def parse_header(data):
    """numpy's header parse: read_magic and the versioned read_array_header."""
    f = io.BytesIO(data)
    version = FMT.read_magic(f)
    if version == (1, 0):
        return FMT.read_array_header_1_0(f, max_header_size=1 << 24)
    return FMT.read_array_header_2_0(f, max_header_size=1 << 24)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv[1:]
    # `--only=npz`: the .npz timings alone (`cargo xtask bench --only npz`).
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")), None)
    if only not in (None, "npz"):
        sys.exit(f"bench_numpy.py: --only={only}: only npz is known")
    if len(args) != 2:
        sys.exit(__doc__)
    data_dir, write_dir = args
    repeat, number = (3, 3) if quick else (5, 10)

    def path(name):
        p = os.path.join(data_dir, name)
        if not os.path.exists(p):
            sys.exit(f"bench_numpy.py: missing input {p} (made by npy-bench)")
        return p

    results = {}

    if only is None:
        for key, name, batch in [
            ("header_parse/typical_118B", "header_typical.bin", 1000),
            ("header_parse/record_4000_fields", "header_4000_fields.bin", 10),
        ]:
            with open(path(name), "rb") as f:
                data = f.read()
            parse_header(data)  # fails loudly if numpy does not read it
            results[key] = per_call(lambda: parse_header(data), repeat, batch)

        loads = [
            ("read_f32/1MiB", f"f32_{MIB}.npy"),
            ("read_f32/64MiB", f"f32_{64 * MIB}.npy"),
            ("read_f32/256MiB", f"f32_{256 * MIB}.npy"),
            ("read_other/f64be_64MiB", f"f64be_{64 * MIB}.npy"),
            ("read_other/f16_64MiB", f"f16_{64 * MIB}.npy"),
            ("read_records/xyid_1M_packed", "records_packed_1000000.npy"),
            ("read_records/xyid_1M_aligned", "records_aligned_1000000.npy"),
        ]
        for key, name in loads:
            p = path(name)
            np.load(p)  # warm the page cache
            results[key] = per_call(lambda: np.load(p), repeat, number)

        # Memory maps: the counterpart of npy-core's mmap view (O(1) in the file size).
        for key, name in [("view/f32_1MiB", f"f32_{MIB}.npy"), ("view/f32_1GiB", f"f32_{1024 * MIB}.npy")]:
            p = path(name)
            results[key + "#mmap"] = per_call(lambda: np.load(p, mmap_mode="r"), repeat, number * 10)

    # .npz: one 64 MiB member of a stored 100-member archive; every header of 1,000 members
    # (what `npy info` reads); savez_compressed of a 64 MiB float32 signal (npy-bench's
    # signal_f32, the same values) and its size.
    p = path("npz_100_members.npz")

    def npz_member():
        with np.load(p) as f:
            return f["big"]

    npz_member()
    results["npz/read_member_64MiB"] = per_call(npz_member, repeat, number)
    # The same 64 MiB signal as the one member of a deflated archive (npy-bench's
    # npz_deflated_file: the bytes savez_compressed writes), read as np.load(f)[key] reads it.
    deflated = path("npz_deflated_signal_64MiB.npz")

    def npz_deflated():
        with np.load(deflated) as f:
            return f["signal"]

    npz_deflated()
    results["npz/read_deflated_64MiB"] = per_call(npz_deflated, repeat, max(1, number // 5))
    many = path("npz_1000_members.npz")

    def npz_headers():
        with np.load(many) as f:
            for name in f.zip.namelist():
                with f.zip.open(name) as m:
                    version = FMT.read_magic(m)
                    _format_impl._read_array_header(m, version)

    npz_headers()
    results["npz/info_1000_members"] = per_call(npz_headers, repeat, number)
    signal = np.load(path(f"signal_f32_{64 * MIB}.npy"))
    out = os.path.join(write_dir, "write_out_numpy.npz")
    np.savez_compressed(out, signal=signal)
    results["npz/write_deflated_64MiB"] = per_call(lambda: np.savez_compressed(out, signal=signal), repeat, max(1, number // 5))
    results["npz/write_deflated_64MiB#size"] = os.path.getsize(out)
    os.remove(out)
    big = np.arange(64 * MIB, dtype=np.float32)
    out = os.path.join(write_dir, "write_out_numpy.npz")
    results["npz/write_stored_256MiB"] = per_call(lambda: np.savez(out, x=big), repeat, max(1, number // 5))
    os.remove(out)

    if only is None:
        data = np.load(path(f"f32_{64 * MIB}.npy"))
        out = os.path.join(write_dir, "write_out_numpy.npy")
        np.save(out, data)
        results["write_f32/64MiB"] = per_call(lambda: np.save(out, data), repeat, number)
        os.remove(out)

        # npy-append-array (PyPI), the Python tool for growing a .npy, when it is installed: 1,000
        # appends of a 1 MiB row, as npy-core's append/1000x1MiB (neither syncs). Fewer batches:
        # each call writes 1 GiB.
        try:
            from npy_append_array import NpyAppendArray
        except ImportError:
            NpyAppendArray = None
        if NpyAppendArray is not None:
            row = np.arange(MIB // 4, dtype="<f4").reshape(1, -1)
            grown = os.path.join(write_dir, "append_out_numpy.npy")

            def append_1000():
                if os.path.exists(grown):
                    os.remove(grown)
                with NpyAppendArray(grown) as a:
                    for _ in range(1000):
                        a.append(row)

            results["append/1000x1MiB#npy-append-array"] = per_call(append_1000, 3, 1)
            os.remove(grown)

    json.dump(
        {
            "numpy_version": np.__version__,
            "python_version": sys.version.split()[0],
            "repeat": repeat,
            "number": number,
            "write_dir": write_dir,
            "results": results,
        },
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
