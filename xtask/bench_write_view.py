"""numpy's side of the non-contiguous write of `cargo xtask bench` (issue 10, report R9).

usage: python bench_write_view.py OUT [N]

Builds the array of npy-bench's `write_view` (uint8, shape (N, N, N), Fortran order,
a[i, j, k] = (i ^ j ^ k) % 256; N = 1024 gives 1 GiB), then times
`np.save(OUT, a.transpose(1, 2, 0))` once. Prints one JSON object like `write_view`'s: the
array's bytes, VmHWM (KiB) before and after the save, and the save's wall time in seconds.
"""

import json
import sys
import time

import numpy as np


def hwm_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise SystemExit("no VmHWM in /proc/self/status (Linux only)")


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    a = np.empty((n, n, n), dtype=np.uint8, order="F")
    i = np.arange(n, dtype=np.int64)
    # One k-plane at a time: bounded temporaries, the same values as the Rust side.
    for k in range(n):
        a[:, :, k] = ((i[:, None] ^ i[None, :] ^ k) % 256).astype(np.uint8)
    before = hwm_kib()
    start = time.perf_counter()
    np.save(out, a.transpose(1, 2, 0))
    seconds = time.perf_counter() - start
    print(json.dumps({"array_bytes": a.nbytes, "hwm_before_kib": before,
                      "hwm_after_kib": hwm_kib(), "seconds": seconds}))


if __name__ == "__main__":
    main()
