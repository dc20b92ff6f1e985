"""`npy show` against numpy (run by `cargo xtask interop`).

usage: python show_numpy.py OUT_DIR NPY_BIN SEED COUNT

Writes COUNT random arrays (seeded) into OUT_DIR with np.save, over every dtype (bool, ints,
f2/f4/f8/longdouble, c8/c16/clongdouble, M8/m8 of several units with NaT, S, U with non-ASCII,
astral, unassigned and surrogate code points, V, records nested, with subarrays, 0-d), shape
(0-d, empty, 1-d under and over numpy's threshold of 1000, 2-d, 3-d, Fortran order) and value
class (tiny, huge, integers as floats, nan/inf, -0, subnormals, magnitudes around each of
numpy's cutoffs), plus the inputs of public bug reports, plus object arrays (those of
`fixtures/object/`, summarised, wrapped, 0-d, numpy time scalars), plus every `.npy`
member of `fixtures/npz/`'s archives (`npy show ARCHIVE --member KEY`). For each, compares

- `npy show FILE` with numpy's `str(np.load(FILE))`, and
- `npy show --json FILE` with `tolist()` in the documented JSON encoding (`npy show --help`),
  floats exactly (sign of zero included).

Excluded, narrowly: the `str` of a 0-d longdouble or clongdouble, and of a 0-d record with a
longdouble field (numpy prints every digit of the 80-bit value; npy shows it through its
nearest float64), control characters in a 0-d `U` array (npy escapes them, numpy prints
them raw), and a lone surrogate in a 0-d `U` array (numpy's `str` holds it, which no UTF-8
output can; npy writes U+FFFD). Prints each mismatch with both texts and a diff, then
`show: N files, N passed, N failed`; exits 1 on any failure.
"""

import difflib
import json
import math
import os
import subprocess
import sys

import numpy as np

from fixtures import enc
import fixtures_object

UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "10ms", "3h"]
FLOATS = ["<f2", "<f4", ">f4", "<f8", ">f8", "<g"]
COMPLEX = ["<c8", ">c16", "<c16", "<G"]
INTS = ["|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8"]


def float_values(rng, dt, n):
    """Values of one class, as float64 (cast to dt by the caller)."""
    cls = rng.integers(0, 10)
    if cls == 0:  # integers as floats
        return rng.integers(-1000, 1000, n).astype(float)
    if cls == 1:  # around a cutoff: 1e3, 1e6, 1e8, 1e16, 1e-4, ratio 1000
        base = rng.choice([1e3, 1e6, 1e8, 1e16, 1e-4, 1e-5, 1e5, 1e7])
        return base * rng.choice([0.9999, 1.0, 1.0001, 0.5, 1.5, 999.0, 1000.0, 1001.0], n)
    if cls == 2:  # tiny / subnormal
        info = np.finfo(np.dtype(dt))
        return rng.choice([float(info.tiny), float(info.smallest_subnormal) * 3, 1e-300, 0.0, -0.0], n)
    if cls == 3:  # huge
        return rng.choice([1e300, -1e300, 1e38, 65504.0, 1e20], n)
    if cls == 4:  # specials mixed in
        v = rng.standard_normal(n)
        v[rng.random(n) < 0.3] = np.nan
        v[rng.random(n) < 0.2] = np.inf
        v[rng.random(n) < 0.2] = -np.inf
        v[rng.random(n) < 0.1] = -0.0
        return v
    if cls == 5:  # mixed magnitudes
        return rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    if cls == 6:  # short decimals
        return np.round(rng.standard_normal(n) * 100, rng.integers(0, 4))
    if cls == 7:  # only non-finite
        return rng.choice([np.nan, np.inf, -np.inf], n)
    return rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)


def text_values(rng, n, kind):
    pool = ["", "a", "numpy", "it's", 'say "hi"', "back\\slash", "tab\there", "new\nline", "é", "Ωμέ",
            "日本語", "\U0001F600", "\u0378", "\U00031350", "\u00ad", "\u2028", "\x00in", "\x7f", "  sp  "]
    if kind == "U":
        pool += ["\ud805", "a\udfff"]
        return [pool[i] for i in rng.integers(0, len(pool), n)]
    bpool = [b"", b"a", b"a\x00b", b"\xff\xe9", b"it's", b'q"', b"\\", b"\n\t", b"\x00", b"longer text"]
    return [bpool[i] for i in rng.integers(0, len(bpool), n)]


def record_dtype(rng, depth=0):
    fields = []
    for i in range(int(rng.integers(1, 4))):
        c = rng.integers(0, 8 if depth == 0 else 6)
        name = f"f{i}"
        if c == 0:
            fields.append((name, rng.choice(FLOATS[:5])))
        elif c == 1:
            fields.append((name, rng.choice(INTS)))
        elif c == 2:
            fields.append((name, "?"))
        elif c == 3:
            fields.append((name, rng.choice(["S3", "U2", "<M8[s]", "<m8[ms]", "<c8"])))
        elif c == 4:
            fields.append((name, rng.choice(["<f4", "<i2", "<f8"]), (int(rng.integers(1, 4)),)))
        elif c == 5:
            fields.append((name, "<f8", (2, 2)))
        elif c == 6:
            fields.append((name, record_dtype(rng, depth + 1)))
        else:
            fields.append((name, "<f8", (1200,)))
    return np.dtype(fields)


def fill(rng, dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    dt = np.dtype(dt)
    if dt.names:
        a = np.zeros(shape, dt)
        for name in dt.names:
            sub = dt[name]
            base, subshape = (sub.subdtype if sub.subdtype else (sub, ()))
            a[name] = fill(rng, base, tuple(shape) + tuple(subshape))
        return a
    if dt.kind == "b":
        raw = rng.integers(0, 2, n).astype(np.uint8)
        if rng.random() < 0.3:  # N22: any non-zero byte is True
            raw[rng.random(n) < 0.3] = rng.choice([0x7F, 0xFF, 2])
        return raw.view(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if rng.random() < 0.3:
            return rng.choice([info.min, info.max, 0, 1], n).astype(dt).reshape(shape)
        return rng.integers(max(info.min, -(10 ** int(rng.integers(1, 19)))), min(info.max, 10 ** int(rng.integers(1, 19))), n, dtype=np.int64 if dt.kind == "i" else np.uint64, endpoint=True).astype(dt).reshape(shape)
    if dt.kind == "f":
        with np.errstate(over="ignore"):
            return float_values(rng, dt, n).astype(dt).reshape(shape)
    if dt.kind == "c":
        part = np.dtype(dt.char.lower() if dt.char != "G" else "g")
        with np.errstate(over="ignore"):
            re = float_values(rng, part, n)
            im = float_values(rng, part, n)
        return (re + 1j * im).astype(dt).reshape(shape)
    if dt.kind in "Mm":
        spans = [10, 10 ** 4, 10 ** 9, 2 ** 62]
        t = rng.integers(-spans[rng.integers(0, 4)], spans[rng.integers(0, 4)], n)
        t[rng.random(n) < 0.15] = np.iinfo(np.int64).min  # NaT
        return t.view(dt).reshape(shape)
    if dt.kind == "S":
        return np.array(text_values(rng, n, "S"), dt).reshape(shape)
    if dt.kind == "U":
        return np.array(text_values(rng, n, "U"), dt).reshape(shape)
    if dt.kind == "V":
        return np.frombuffer(rng.bytes(n * dt.itemsize), dt).reshape(shape)
    raise ValueError(dt)


def random_dtype(rng):
    c = rng.integers(0, 12)
    if c == 0:
        return "|b1"
    if c <= 2:
        return str(rng.choice(INTS))
    if c <= 5:
        return str(rng.choice(FLOATS))
    if c == 6:
        return str(rng.choice(COMPLEX))
    if c == 7:
        return ("<M8[" if rng.random() < 0.5 else ">m8[") + str(rng.choice(UNITS)) + "]"
    if c == 8:
        return str(rng.choice(["|S4", "|S1", "<U3", ">U6"]))
    if c == 9:
        return "|V3"
    return record_dtype(rng)


def random_shape(rng):
    c = rng.integers(0, 9)
    if c == 0:
        return ()
    if c == 1:
        return [(0,), (3, 0), (0, 2, 2)][rng.integers(0, 3)]
    if c == 2:
        return (int(rng.integers(1, 8)),)
    if c == 3:
        return (int(rng.choice([999, 1000, 1001, 1500])),)
    if c == 4:
        return (int(rng.integers(1, 60)),)
    if c == 5:
        return (int(rng.integers(1, 9)), int(rng.integers(1, 12)))
    if c == 6:
        return (int(rng.integers(30, 60)), int(rng.integers(30, 60)))
    if c == 7:
        return (int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    return (int(rng.integers(8, 14)), int(rng.integers(8, 14)), int(rng.integers(8, 14)))


def excluded_text(a):
    """Why numpy's `str` is not compared, or None."""
    dt = a.dtype
    if a.shape == ():
        if dt.kind in "fc" and dt.itemsize in (12, 16, 24, 32) and dt.char in "gG":
            return "0-d longdouble: numpy prints all 80-bit digits"
        if dt.names and any(dt[n].base.char in "gG" for n in dt.names):
            return "0-d record with a longdouble field"
        if dt.kind == "U" and any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in str(a[()])):
            return "0-d U with control characters: npy escapes them"
        if dt.kind == "U" and any(0xD800 <= ord(c) < 0xE000 for c in str(a[()])):
            return "0-d U with a lone surrogate: no UTF-8 output can hold it (npy writes U+FFFD)"
    return None


def encode(a):
    """tolist() in the JSON encoding `npy show --help` documents: the fixture manifest's
    encoding (fixtures.enc), with lone surrogates as U+FFFD."""
    return no_surrogates(enc(a))


def no_surrogates(v):
    if isinstance(v, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in v)
    if isinstance(v, list):
        return [no_surrogates(x) for x in v]
    if isinstance(v, dict):
        return {k: no_surrogates(x) for k, x in v.items()}
    return v


def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return type(x) is type(y) and x == y and math.copysign(1, x) == math.copysign(1, y)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, dict):
        return isinstance(y, dict) and list(x) == list(y) and all(same(x[k], y[k]) for k in x)
    return type(x) is type(y) and x == y


def enc_object(v):
    """One object array item in the JSON encoding `npy show --help` documents."""
    if isinstance(v, np.generic):  # before str and float: np.str_ and np.float64 subclass them
        return encode_any(np.array(v))
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
    if isinstance(v, complex):
        return [enc_object(v.real), enc_object(v.imag)]
    if isinstance(v, (bytes, bytearray)):
        return v.decode("latin-1")
    if isinstance(v, (list, tuple, set, frozenset)):
        return [enc_object(x) for x in v]
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else repr(k)): enc_object(x) for k, x in v.items()}
    if isinstance(v, np.ndarray):
        return encode_any(v)
    return repr(v)


def encode_any(a):
    """`encode`, for arrays that may hold objects (in the array or in record fields)."""
    if a.dtype.hasobject:
        if a.dtype.names:
            def rec(r):
                return {n: (enc_object(r[n]) if a.dtype[n] == object else encode_any(np.array(r[n], a.dtype[n]))) for n in a.dtype.names}
            flat = [rec(r) for r in a.reshape(-1)]
        else:
            flat = [enc_object(x) for x in a.reshape(-1)]
        def nest(shape, items):
            if not shape:
                return items[0]
            step = len(items) // shape[0] if shape[0] else 0
            return [nest(shape[1:], items[i * step:(i + 1) * step]) for i in range(shape[0])]
        if 0 in a.shape:
            return encode(a)
        return nest(a.shape, flat)
    return encode(a)


def object_cases():
    """The object arrays of `fixtures/object/` and a few layouts it does not have."""
    for name, arr, _, _ in fixtures_object.fixtures():
        yield "obj_" + name, arr
    yield "obj_summarised", fixtures_object.objarr(list(range(2000)))
    yield "obj_summarised_2d", fixtures_object.objarr([str(i) for i in range(40 * 60)], (40, 60))
    yield "obj_times", fixtures_object.objarr([np.datetime64(5, "10s"), np.datetime64("NaT", "D"), np.timedelta64(5), np.timedelta64("NaT", "ms"), np.datetime64(1, "Y"), np.datetime64(3, "h"), np.datetime64("NaT"), np.timedelta64(3, "10ms"), np.datetime64(-1, "us")])
    yield "obj_wrapped", fixtures_object.objarr(["word %d" % i for i in range(30)], (3, 10), "F")
    for v in ["text", 2.5, [1, 2], np.float32(1.5), None, b"x", {"k": (1, 2)}]:
        a = np.empty((), dtype=object)
        a[()] = v
        yield f"obj_0d_{type(v).__name__}", a


def run(npy, *args):
    p = subprocess.run([npy, "show", *args], capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode("utf-8", "replace")
    return p.stdout.decode("utf-8"), None


def cases(rng, count):
    # Inputs of public bug reports (N21, N22), then random arrays.
    yield "N21_f2_small", np.array([1776, 913, -974, -102], np.float16)
    yield "N21_f2_0d", np.array(65504, np.float16)
    yield "N21_f4_0d", np.array(536870912, np.float32)
    yield "N21_f4_1d", np.array([2e6, 3e6], np.float32)
    yield "N21_c8_0d", np.array(4.3365286e11 + 0.92481047j, np.complex64)
    yield "N22_7f", np.frombuffer(bytes([1, 0x7F, 0, 1]), bool)
    yield "N22_mask255", (np.array([[0, 255], [255, 0]], np.uint8)).view(bool)
    for i in range(count):
        dt = random_dtype(rng)
        shape = random_shape(rng)
        itemsize = np.dtype(dt).itemsize
        if np.prod(shape) * itemsize > 256 << 10:  # records with long subarrays: fewer rows
            shape = (max(1, min(shape[0], (256 << 10) // itemsize)),)
        a = fill(rng, dt, shape)
        if a.ndim >= 2 and rng.random() < 0.4:
            a = np.asfortranarray(a)
        yield f"r{i:04d}", a


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__.strip().splitlines()[2])
    out_dir, npy, seed, count = argv[1], argv[2], int(argv[3]), int(argv[4])
    np.seterr(all="ignore")  # the value classes overflow on purpose (float16, casts)
    rng = np.random.default_rng(seed)
    passed = failed = skipped = 0
    for name, a in list(cases(rng, count)) + list(object_cases()):
        path = os.path.join(out_dir, name + ".npy")
        np.save(path, a, allow_pickle=True)
        b = np.load(path, allow_pickle=True)
        problems = []
        why = excluded_text(b)
        if why is None:
            want = str(b)
            got, err = run(npy, path)
            if err is not None:
                problems.append(f"npy show failed: {err}")
            elif got[:-1] != want:
                diff = "\n".join(difflib.unified_diff(want.splitlines(), got[:-1].splitlines(), "numpy str()", "npy show", lineterm=""))
                problems.append(f"text differs\n--- numpy:\n{want}\n--- npy show:\n{got[:-1]}\n{diff}")
        else:
            skipped += 1
        got, err = run(npy, "--json", path)
        if err is not None:
            problems.append(f"npy show --json failed: {err}")
        else:
            doc = json.loads(got)
            want = encode_any(b)
            if not same(doc["data"], want) or doc["shape"] != list(b.shape) or doc["fortran_order"] != (b.flags.f_contiguous and not b.flags.c_contiguous):
                problems.append(f"JSON differs\n--- tolist():\n{json.dumps(want)[:2000]}\n--- npy show --json:\n{got[:2000]}")
        if problems:
            failed += 1
            print(f"FAIL {path} (dtype {b.dtype.descr if b.dtype.names else b.dtype.str}, shape {b.shape}):")
            for p in problems:
                text = "  " + p.replace("\n", "\n  ")
                print(text.encode("utf-8", "backslashreplace").decode("utf-8"))
        else:
            passed += 1
    # Members of numpy's archives (fixtures/npz/), by key: `npy show FILE --member KEY`.
    npz_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "npz")
    for name in sorted(os.listdir(npz_dir)):
        if not name.endswith(".npz"):
            continue
        path = os.path.join(npz_dir, name)
        with np.load(path, allow_pickle=True) as z:
            for key in z.files:
                b = z[key]
                if not isinstance(b, np.ndarray):
                    continue  # raw bytes of a member that is not .npy
                problems = []
                got, err = run(npy, path, "--member", key)
                if err is not None:
                    problems.append(f"npy show --member failed: {err}")
                elif excluded_text(b) is None and got[:-1] != str(b):
                    problems.append(f"text differs\n--- numpy:\n{b}\n--- npy show:\n{got[:-1]}")
                got, err = run(npy, "--json", path, "--member", key)
                if err is not None:
                    problems.append(f"npy show --json --member failed: {err}")
                elif not same(json.loads(got)["data"], encode_any(b)):
                    problems.append(f"JSON differs\n--- tolist():\n{json.dumps(encode_any(b))[:2000]}\n--- npy show --json:\n{got[:2000]}")
                if problems:
                    failed += 1
                    print(f"FAIL {path} member {key!r}:")
                    for p in problems:
                        print("  " + p.replace("\n", "\n  "))
                else:
                    passed += 1
    print(f"show: {passed + failed} files ({skipped} text comparisons excluded), {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
