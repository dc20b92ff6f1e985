#!/usr/bin/env python3
"""Generate the numpy-parity fixtures in ``fixtures/parity/`` (run by ``cargo xtask fixtures``).

    python xtask/fixtures_parity.py OUT_DIR

Tables of numpy's and Python's own verdicts, and ``.npy`` files written by numpy 2.4.6, for the
kinds of issue 13:

- ``descr.json``: strings a header's ``descr`` may hold; for each, what ``np.dtype(s)`` (which is
  what ``np.load`` calls) makes of it on this machine (x86-64 Linux): the dtype, written as the
  header would write it, or the refusal.
- ``literals.json``: Python literals as they may appear in a header (every escape form, raw and
  bytes prefixes, implicit concatenation, line continuations) and what ``ast.literal_eval``
  makes of them.
- ``casting.json``: ``np.can_cast(a, b, 'safe')`` over every pair of the number-table dtypes,
  and for each allowed pair the bytes of ``astype`` of the source pool.
- ``bool_*.npy``: ``b1`` data holding bytes other than 0 and 1 (all 256 byte values, a 0/255
  mask viewed as bool, bool record fields and subarrays), with numpy's ``tolist()``.
- ``pad_*.npy``: record arrays whose padding holds non-zero bytes, as numpy saves them.
- ``ld_*.npy``: x87 long doubles of every class (pseudo-NaN, pseudo-infinity, unnormal,
  pseudo-denormal...) with non-zero padding, and what numpy computes from each.
- ``fstream_*.npy``: Fortran-order arrays as ``np.save`` writes them, the reference of the
  Fortran-order streaming writer.

``manifest.json`` lists the files and what numpy says of each. The script owns every file of
OUT_DIR.
"""

import ast
import json
import os
import platform
import re
import sys
import unicodedata
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures as fx  # noqa: E402  (REQUIRED_NUMPY)

GENERATED_BY = "cargo xtask fixtures (xtask/fixtures_parity.py); do not edit"

# ---------------------------------------------------------------------------
# descr strings
# ---------------------------------------------------------------------------

ORDERS = ["", "<", ">", "=", "|"]


def descr_value(d):
    """The descr as the header writes it (numpy's ``dtype_to_descr`` plus subarrays)."""
    if d.subdtype is not None:
        base, shape = d.subdtype
        return (descr_value(base), shape)
    if d.names is not None:
        return d.descr
    return d.str


def canon(d):
    """``DType``'s Display: the type string of a simple dtype, the repr of the rest."""
    v = descr_value(d)
    return v if isinstance(v, str) else repr(v)


def descr_candidates():
    out = []

    def add(s):
        if s not in seen:
            seen.add(s)
            out.append(s)

    seen = set()
    names = sorted(k for k in np.sctypeDict if isinstance(k, str))
    for name in names:
        for o in ORDERS:
            add(o + name)
    # numpy 1.x names, removed in 2.0, and near-misses of the names above.
    for name in [
        "float_", "complex_", "unicode_", "string_", "longfloat", "cfloat", "singlecomplex",
        "longcomplex", "clongfloat", "object0", "bool8", "int0", "uint0", "str0", "bytes0",
        "void0", "datetime64_", "Float64", "FLOAT32", "Int32", "Bool", "float96", "complex192",
        "float80", "int128", "uint128", "float8", "float256", "StringDType", "np.float32",
        "numpy.float64", "float64 ", " float64", "float 64", "double ", "DOUBLE",
    ]:
        add(name)
    # Every one-character code, with each byte-order prefix.
    for c in list(range(0x00, 0x7F)) + [0xE9, 0x3BC]:
        for o in ORDERS:
            add(o + chr(c))
    add("")
    add(" ")
    # Kind and size.
    sizes = ["0", "1", "2", "3", "4", "5", "6", "8", "10", "12", "16", "24", "32", "64",
             "128", "08", "+8", "-4", " 8", "8 ", "8.0", "0x8", "2147483647", "2147483648",
             "536870911", "536870912", "99999999999999999999"]
    for kind in "?bBiuflcdeFDGgSUVaMmOTqQhHpPnNxyzE":
        for size in sizes:
            for o in ["", "<", ">", "|"]:
                add(o + kind + size)
    # datetime64 / timedelta64 with units, multipliers and divisors.
    units = ["Y", "M", "W", "B", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as",
             "generic", "", "x", "S", "NS", "H", "Ms", "sec"]
    for root in ["M8", "m8", "datetime64", "timedelta64", "M", "m", "M4", "Datetime64"]:
        for unit in units:
            for o in ["", "<", ">", "|"]:
                add(f"{o}{root}[{unit}]")
        add(root)
    for root in ["M8", "m8"]:
        for mult in ["0", "1", "2", "10", "007", "-1", "+5", " 5", "5 ", "2147483647",
                     "2147483648", "1e3", "0x10"]:
            for unit in ["s", "ns", "D", "generic", "Y", "as"]:
                add(f"{root}[{mult}{unit}]")
        for unit in ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]:
            for div in ["/1", "/2", "/3", "/4", "/7", "/12", "/24", "/60", "/1000", "/0", "/-2",
                        "/", "/2x"]:
                add(f"{root}[{unit}{div}]")
                add(f"{root}[3{unit}{div}]")
        for junk in ["[ns", "ns]", "[ns]]", "[[ns]]", "[ns] ", " [ns]", "[]", "[ ]", "[,]",
                     "[ns,2]", "[2,ns]", "[ns/2]x", "()", "[ns][s]", "8[ns]"]:
            add(root + junk)
    # Comma-separated records and subarray prefixes.
    items = ["i4", "f8", "<f4", ">i2", "|u1", "double", "M8[ns]", ">m8[s]", "S5", "U3", "V4",
             "(2,3)f4", "2i4", "()f4", "0f4", "?", "O", "b1", "c16", "float16", "(2,)S3",
             "<(2,)f4", "(2,)>f4", "<(2,)>f4", "<(2,)<f4", "=(2,)<f4", "|(2,)>i4", "(1,)u1",
             "( 2 , 3 )i2", "1 f4", "3 i2", "(2)f4", "(2 3)f4", "(2,-1)f4", "(,)f4", "(2,3,)f4",
             "((2,),)f4", "[2]f4", "2.0f4", "S", "U", "a5", "T", "g", "G", "f12"]
    for a in items:
        add(a)
        for b in ["f8", "i2", ">u4"]:
            for sep in [",", ", ", " ,", " , ", ",  "]:
                add(a + sep + b)
                add(b + sep + a)
    for s in ["i4,", "i4, ", "i4 ,", ",i4", ",", ",,", "i4,,f8", "i4 f8", "i4;f8", "i4,f8,",
              "i4,f8 ", " i4,f8", "i4,f8\t", "i4\t,f8", "i4,\nf8", "i4,f8,u1,i8,c8,S2,U1,?",
              "f4,f4,f4", "2", "(2,)", "(2,)S", "()", "(),f4", "i4,()", "[('a','f4')]",
              "{'names':['a']}", "i4,M8", "i4,M8[ns],m8[ms]", "i4,datetime64[ns]", "O,O",
              "f4,(2,3)f4,(4,)i2", "(2,3)f4, i2", "i4,f8", "3i4", "<3i4", "3<i4", "<3<i4",
              "<3>i4", "=3<i4", "|3>i4", "0i4", "(0,)i4", "(2,0)i4", "(1,)i4", "1i4",
              "2147483648i1", "(2147483648,)i1", "(65536,65536)i1", "(1,)*64i1",
              "(" + ",".join(["1"] * 64) + ",)i1", "(" + ",".join(["1"] * 65) + ",)i1",
              "S0,S0", "V0", "V0,V0", "2V0", "2S0", "2U", "f4,T", "T,T", "5S,i4", "(2)f4,i4",
              "i4,(2)f4", "2S", "5U", "0S", "(2,)S0", "0U,i4", "2147483647S", "2147483648S",
              "536870911U", "536870912U", "2a", "2c", "f8\x00", "\x00", "M8[ns]\x00",
              "i4,\x00", "00f4", "01f4", "(0)f4,i4", "(00,)f4", "2,3f4", "i4,2,3f8"]:
        add(s)
    return out


def crashes(s):
    """Whether ``np.dtype(s)`` kills the process (numpy 2.4.6 divides by zero on a datetime
    divisor of 0, ``'M8[s/0]'``): tried in a forked child."""
    pid = os.fork()
    if pid == 0:
        try:
            np.dtype(s)
        except Exception:  # noqa: BLE001
            pass
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]


def numpy_bug(s, d):
    """Strings numpy 2.4.6 turns into nonsense: a datetime divisor below 0 gives a negative
    multiplier (``'M8[s/-2]'`` is ``datetime64[-500ms]``, whose own string numpy refuses), and a
    week divisor that divides none of the week's multiples reads past numpy's table of
    multiples (``'M8[W/1000]'`` is ``datetime64[0Y]``, a coarser unit)."""
    if d is None or d.kind not in "Mm":
        return False
    unit, count = np.datetime_data(d)
    if unit != "generic" and count < 0:
        return True
    src = re.search(r"\[[ +\-]?\d*([A-Za-z]+)/", s)
    return bool(src and src.group(1) in UNITS and unit in UNITS
                and UNITS.index(unit) < UNITS.index(src.group(1)))


def descr_rows():
    rows = []
    for s in descr_candidates():
        if "/" in s and crashes(s):
            rows.append({"descr": s, "ok": False, "numpy_bug": "np.dtype crashes (SIGFPE)"})
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                d = np.dtype(s)
                err = None
            except Exception as e:  # noqa: BLE001 - any refusal is numpy's verdict
                d, err = None, f"{type(e).__name__}: {e}"
        deprecated = any(issubclass(w.category, DeprecationWarning) for w in caught)
        row = {"descr": s, "ok": d is not None}
        if numpy_bug(s, d):
            row = {"descr": s, "ok": False,
                   "numpy_bug": f"np.dtype gives {canon(d)!r}, which numpy cannot read back"}
        elif d is not None:
            row["canon"] = canon(d)
            row["itemsize"] = d.itemsize
            row["hasobject"] = bool(d.hasobject)
            if deprecated:
                row["deprecated"] = True
        else:
            row["error"] = err
        rows.append(row)
    return rows


def descr_value_rows():
    """Descr values that are not strings, as a header may hold them: numpy's
    ``descr_to_dtype`` of each."""
    from numpy.lib.format import descr_to_dtype

    values = [
        ("f4", 1), ("f4", (1,)), ("f4", 0), ("f4", [2, 3]), ("f4", ()), ("S", 5), ("U", 5),
        ("V", 5), ("S", (5,)), ("S", ()), ("S5", 2), ("f4", -1), ("f4", (2, -1)), ("f4", True),
        ("f4", 2.0), ("f4", (2147483648,)), ("i1", (65536, 65536)), ("U", 536870912),
        ("S", 2147483648), ("U", 4611686018427387904), ("U", 18446744073709551615),
        ("S", 18446744073709551615), ("V", 18446744073709551616),
        [("a", "U", 4611686018427387904)], ("(2,)i4", (3,)), ("i4,f8", 2), ("M8[ns]", (2,)),
        [("a", "f4")], [("a", "f4", 2)], [("a", "f4", (2,))], [("a", "f4", ())],
        [["a", "f4"]], [("a", "i4,f8")], [("", "i4,f8")], [("", "2i4")], [("", "<i4", (2,))],
        [(("t", "a"), "f4")], [("a", "S")], [("a", "S", 5)], [("a", "U", 3)], [("a", "f4", 0)],
        [("a", "f4", (0,))], [("a", "f4", 1)], [("a", "f4", (1,))], [("a", "(2,)f4", (3,))],
        [("a", "f4", True)], [("a", "f4", (2147483648,))], [("a", "T")], [("a", "O")],
        [("a", "f4"), ("", "|V3"), ("b", "<i4")], [("", "|V0")], [], [("a", "M8[ns]")],
        [("a", "f4"), ("a", "i4")], [("a", "double"), ("b", "complex")],
        [("a", "(2,3)f4, i2")], [("a", "f12")], [("a", "datetime64[D]", (2,))],
        [("a", "S2000000000"), ("b", "S2000000000")], [("a", "S2147483647"), ("b", "u1")],
        [("a", "S2147483646"), ("b", "u1")], [("a", "u1", (1000,)), ("b", "S2147483000")],
    ]
    rows = []
    for v in values:
        try:
            d = descr_to_dtype(v)
            row = {"literal": repr(v), "ok": True, "canon": canon(d), "itemsize": d.itemsize,
                   "hasobject": bool(d.hasobject)}
        except Exception as e:  # noqa: BLE001 - any refusal is numpy's verdict
            row = {"literal": repr(v), "ok": False, "error": f"{type(e).__name__}: {e}"}
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# Python literals
# ---------------------------------------------------------------------------


def literal_candidates():
    out = []
    q = ["'", '"']
    bodies = [
        r"\x41", r"\x4", r"\xg1", r"\X41", r"\u00e9", r"\u00E9", r"\u12", r"\U0001F600",
        r"\U00110000", r"\U0010FFFF", r"\ud800", r"\udfff", r"\ud83d\ude00", r"\0", r"\7",
        r"\101", r"\1011", r"\377", r"\400", r"\777", r"\8", r"\9", r"\a\b\f\n\r\t\v",
        r"\\", r"\'", r"\"", r"\q", r"\ ", r"\N{LATIN SMALL LETTER A}",
        r"\N{latin small letter a}", r"\N{Latin Small Letter A}", r"\N{LATIN SMALL LETTER  A}",
        r"\N{ LATIN SMALL LETTER A}", r"\N{BEL}", r"\N{BELL}", r"\N{LINE FEED}", r"\N{LF}",
        r"\N{NULL}", r"\N{NUL}", r"\N{SPACE}", r"\N{EURO SIGN}", r"\N{GREEK SMALL LETTER MU}",
        r"\N{MICRO SIGN}", r"\N{HANGUL SYLLABLE GA}", r"\N{HANGUL SYLLABLE GAG}",
        r"\N{hangul syllable ga}", r"\N{CJK UNIFIED IDEOGRAPH-4E00}",
        r"\N{CJK UNIFIED IDEOGRAPH-4e00}", r"\N{cjk unified ideograph-4e00}",
        r"\N{CJK UNIFIED IDEOGRAPH-FFFF}", r"\N{CJK COMPATIBILITY IDEOGRAPH-F900}",
        r"\N{TANGUT IDEOGRAPH-17000}", r"\N{LATIN CAPITAL LETTER GHA}",
        r"\N{LATIN CAPITAL LETTER OI}", r"\N{BYTE ORDER MARK}", r"\N{ZWSP}", r"\N{VS1}",
        r"\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}", r"\N{NO SUCH CHARACTER}",
        r"\N{}", r"\N", r"\N{LATIN SMALL LETTER A", r"\N{U+0041}", r"\N{0041}",
        r"\N{SNOWMAN}", r"\N{GRINNING FACE}", r"\N{HYPHEN-MINUS}", r"\N{HYPHEN MINUS}",
        r"\N{TIBETAN MARK TSA -PHRU}", r"\N{TIBETAN MARK TSA-PHRU}",
        r"\N{HANGUL JUNGSEONG O-E}", r"\N{HANGUL JUNGSEONG OE}",
        r"\N{DIGIT ZERO}\N{DIGIT ONE}", "<f4", "é", "漢字", "😀", "a\tb", "",
    ]
    for body in bodies:
        for quote in q[:1]:
            for prefix in ["", "u", "r", "b", "br", "rb", "R", "B", "Rb", "bR", "U", "f", "ur"]:
                out.append(f"{prefix}{quote}{body}{quote}")
    # Quotes, triple quotes and line breaks.
    out += [
        "'it''s'", "'it\\'s'", '"it\'s"', "'''a\nb'''", '"""a\nb"""', "'''a''b'''",
        "'a\nb'", "'a\\\nb'", "'a\\\r\nb'", "'''a\\\nb'''", "r'a\\\nb'", "'abc", "'abc\\'",
        "'''abc''", "'a' 'b'", "'a''b'", "'a' \"b\"", "'a'   'b'  'c'", "'a' \\\n 'b'",
        "'a' b'b'", "b'a' b'b'", "b'a' 'b'", "r'a' 'b'", "'a' r'\\n'", "'a' # c\n 'b'",
        "('a'\n 'b')", "('a' # comment\n 'b')", "['a'\n,\n'b']", "'\\x41' '\\101' '\\u0041'",
        "b'\\x80\\xff'", "b'\\777'", "b'\\400'", "b'\\u1234'", "b'\\N{BEL}'", "b'é'",
        "b'\\q'", "rb'\\x41'", "'\\\n'", "'\\\\\n'", "'''\\\n'''",
        "'\t'", "'\x0c'", "'\x00'", "'\r'", "'''\r'''", "'''\r\n'''", "'\u2028'", "'\u0085'",
        "''''''", "''", '""', "'''''", "'''''''", "' '''", "'''a'''", '"""a"""',
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': '\\N{LESS-THAN SIGN}f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': u'<f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': r'<f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': b'<f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': '''<f4''', 'fortran_order': False, 'shape': (3,), }",
        "{'des' 'cr': '<f4', 'fortran_order': False, 'shape': (3,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\\\n",
        "{'descr': '<f4', \\\n'fortran_order': False, 'shape': (3,), }",
        "{'descr': [('\\N{GREEK SMALL LETTER ALPHA}', '<f4')], 'fortran_order': False, "
        "'shape': (), }",
        "{'descr': [(u'x', '<f4'), (r'y\\z', '<i2')], 'fortran_order': False, 'shape': (), }",
    ]
    return out


def enc_value(v):
    """A literal's value, tagged, lossless: strings as code points, ints as text."""
    if v is None:
        return {"none": None}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": v.hex()}
    if isinstance(v, complex):
        return {"complex": [v.real.hex(), v.imag.hex()]}
    if isinstance(v, str):
        return {"str": [ord(c) for c in v]}
    if isinstance(v, bytes):
        return {"bytes": list(v)}
    if isinstance(v, tuple):
        return {"tuple": [enc_value(x) for x in v]}
    if isinstance(v, list):
        return {"list": [enc_value(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[enc_value(k), enc_value(x)] for k, x in v.items()]}
    if isinstance(v, set):
        return {"set": sorted(repr(x) for x in v)}
    raise TypeError(type(v))


def literal_rows():
    rows = []
    for text in literal_candidates():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                v = ast.literal_eval(text)
                row = {"text": text, "ok": True, "value": enc_value(v)}
            except Exception as e:  # noqa: BLE001 - any refusal is Python's verdict
                # Without object addresses, which change from run to run.
                msg = re.sub(r" at 0x[0-9a-f]+", "", f"{type(e).__name__}: {e}")
                row = {"text": text, "ok": False, "error": msg}
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# safe casting
# ---------------------------------------------------------------------------

NUMBER_DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4",
                 "<f8", "<c8", "<c16"]
TIME_DTYPES = ["<M8[s]", "<M8[ms]", "<M8[D]", "<M8[M]", "<m8[s]", "<m8[ms]", "<m8", "<M8"]


def cast_pool(dt):
    """Source values for widening: extremes, zero, signs, NaN, infinities, fractions."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return np.array([False, True, True, False], dtype=dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [0, 1, int(info.max), int(info.min), int(info.max) - 1, 2, 100]
        if info.min < 0:
            vals += [-1, -2, int(info.min) + 1, -100]
        vals += [int(info.max) // 3, int(info.max) // 7 * 5]
        return np.array(vals, dtype=dt)
    if dt.kind == "f":
        fi = np.finfo(dt)
        t = dt.type
        return np.array([0.0, -0.0, 1.0, -1.5, np.nan, np.inf, -np.inf, fi.max, -fi.max,
                         fi.tiny, fi.smallest_subnormal, t(1) / t(3), t(0.1), fi.eps],
                        dtype=dt)
    if dt.kind == "c":
        re = cast_pool(np.dtype(dt.char.lower()).newbyteorder(dt.byteorder))
        c = np.zeros(len(re), dtype=dt)
        c.real = re
        c.imag = re[::-1]
        return c
    raise ValueError(dt)


def casting_table(out_dir, manifest):
    rows = []
    for a in NUMBER_DTYPES + TIME_DTYPES:
        for b in NUMBER_DTYPES + TIME_DTYPES:
            rows.append({"from": a, "to": b, "safe": bool(np.can_cast(a, b, "safe"))})
    values = []
    for order in ["<", ">"]:
        for a in NUMBER_DTYPES:
            src = np.dtype(a).newbyteorder(order) if a[0] != "|" else np.dtype(a)
            if a[0] == "|" and order == ">":
                continue
            pool = cast_pool(src)
            name = f"cast_{src.str.replace('<', 'le_').replace('>', 'be_').replace('|', '')}.npy"
            np.save(os.path.join(out_dir, name), pool)
            manifest.append({"file": name, "kind": "cast_source", "descr": src.str})
            for b in NUMBER_DTYPES:
                if np.can_cast(src, b, "safe"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("error")
                        res = pool.astype(b)
                    values.append({"file": name, "from": src.str, "to": b,
                                   "hex": res.tobytes().hex()})
    return {"generated_by": GENERATED_BY, "numpy": np.__version__, "pairs": rows,
            "values": values}


# ---------------------------------------------------------------------------
# .npy fixtures
# ---------------------------------------------------------------------------


def save(out_dir, name, arr):
    path = os.path.join(out_dir, name)
    np.save(path, arr, allow_pickle=False)
    return path


def tolist_json(a):
    def conv(x):
        if isinstance(x, np.ndarray):
            return conv(x.tolist())
        if isinstance(x, (list, tuple)):
            return [conv(y) for y in x]
        if isinstance(x, bytes):
            return list(x)
        if isinstance(x, float):
            return x.hex()
        return x
    return conv(a.tolist())


def bool_fixtures(out_dir, manifest):
    every = np.frombuffer(bytes(range(256)), dtype=np.uint8).view(bool).reshape(16, 16)
    mask = (np.array([[0, 255], [255, 0]], dtype=np.uint8)).view(bool)
    rec_dt = np.dtype([("flag", "?"), ("n", "<i2"), ("flags", "?", (3,))])
    raw = bytes([0x7F, 1, 0, 0xFF, 0, 2] + [0, 0, 0, 0, 0, 0] + [1, 2, 0, 0x80, 0x40, 0])
    rec = np.frombuffer(raw, dtype=rec_dt).copy()
    sub = np.frombuffer(bytes([0, 1, 2, 3, 0, 0xFE]), dtype=np.dtype(("?", (3,)))).copy()
    for name, arr in [("bool_all256.npy", every), ("bool_mask255.npy", mask),
                      ("bool_record.npy", rec), ("bool_fortran.npy", np.asfortranarray(
                          np.frombuffer(bytes([0, 3, 0x7F, 1, 0, 0xFF]), dtype=bool)
                          .reshape(2, 3)))]:
        save(out_dir, name, arr)
        manifest.append({"file": name, "kind": "bool", "descr": canon(arr.dtype),
                         "shape": list(arr.shape), "tolist": tolist_json(arr),
                         "nonzero": int(np.count_nonzero(arr.view(np.uint8)))})
    # A bool subarray dtype at the top level is saved as a bool array with a longer shape.
    save(out_dir, "bool_subarray.npy", sub)
    manifest.append({"file": "bool_subarray.npy", "kind": "bool", "descr": "|b1",
                     "shape": list(sub.shape), "tolist": tolist_json(sub), "nonzero": 4})


def padding_fixtures(out_dir, manifest):
    """Records whose gaps hold non-zero bytes. Each array is a view of its bytes (a copy would
    not keep the gaps), and np.save writes the memory as it is: checked below."""
    made = []
    # 1. A multi-field view: the unselected field's bytes stay in the saved record.
    base = np.zeros(4, dtype=[("x", "<i4"), ("y", "<f8"), ("z", "<u2")])
    base["x"] = [1, -2, 3, -4]
    base["y"] = [0.5, np.pi, -1e300, np.nan]
    base["z"] = [7, 8, 9, 65535]
    made.append(("pad_multifield_view.npy", base[["x", "z"]], base.tobytes()))
    # 2. An aligned record with garbage in its gaps.
    al = np.dtype([("a", "u1"), ("b", "<i4"), ("c", "u1"), ("d", "<f8")], align=True)
    raw = bytes((i * 37 + 11) % 256 for i in range(al.itemsize * 3))
    made.append(("pad_aligned_garbage.npy", np.frombuffer(raw, dtype=al), raw))
    # 3. Explicit offsets with gaps, and bytes after the last field.
    ex = np.dtype({"names": ["p", "q"], "formats": ["<i2", ">f4"], "offsets": [3, 9],
                   "itemsize": 17})
    raw = bytes((i * 91 + 5) % 255 + 1 for i in range(ex.itemsize * 2))
    made.append(("pad_offsets_gaps.npy", np.frombuffer(raw, dtype=ex), raw))
    # 4. Nested records and a subarray of records, each with gaps.
    inner = np.dtype({"names": ["u"], "formats": ["<u2"], "offsets": [1], "itemsize": 4})
    outer = np.dtype({"names": ["r", "s", "t"], "formats": [inner, (inner, (2,)), "|S2"],
                      "offsets": [0, 5, 14], "itemsize": 18})
    raw = bytes((i * 53 + 17) % 256 for i in range(outer.itemsize * 2))
    made.append(("pad_nested.npy", np.frombuffer(raw, dtype=outer), raw))
    # 5. Fortran order, and a 0-d record.
    raw = bytes((i * 29 + 3) % 256 for i in range(ex.itemsize * 6))
    made.append(("pad_fortran.npy", np.frombuffer(raw, dtype=ex).reshape((2, 3), order="F"),
                 raw))
    raw = bytes(range(1, 18))
    made.append(("pad_scalar.npy", np.frombuffer(raw, dtype=ex).reshape(()), raw))
    for name, arr, raw in made:
        path = save(out_dir, name, arr)
        with open(path, "rb") as f:
            data = f.read()
        assert data.endswith(raw), f"{name}: np.save did not keep the gaps"
        manifest.append({"file": name, "kind": "padding", "descr": canon(arr.dtype),
                         "shape": list(arr.shape)})


LD_CLASSES = [
    # (class, significand, sign and exponent)
    ("one", 1 << 63, 16383),
    ("minus_three", 3 << 62, 0x8000 | 16384),
    ("zero", 0, 0),
    ("minus_zero", 0, 0x8000),
    ("inf", 1 << 63, 0x7FFF),
    ("minus_inf", 1 << 63, 0xFFFF),
    ("qnan", 3 << 62, 0x7FFF),
    ("minus_qnan", 3 << 62, 0xFFFF),
    ("snan", (1 << 63) | 1, 0x7FFF),
    ("pseudo_inf", 0, 0x7FFF),
    ("minus_pseudo_inf", 0, 0xFFFF),
    ("pseudo_nan", 1, 0x7FFF),
    ("pseudo_nan_high", 1 << 62, 0x7FFF),
    ("unnormal", 1 << 62, 16383),
    ("unnormal_zero_significand", 0, 16383),
    ("minus_unnormal", 5, 0x8000 | 100),
    ("unnormal_max_exponent", (1 << 63) - 1, 0x7FFE),
    ("pseudo_denormal", 1 << 63, 0),
    ("minus_pseudo_denormal", (1 << 63) | 5, 0x8000),
    ("denormal", 1, 0),
    ("max", (1 << 64) - 1, 0x7FFE),
    ("f64_max_plus", 1 << 63, 16383 + 1024),
    ("smallest_f64_subnormal", 1 << 63, 16383 - 1074),
    ("third", 0xAAAAAAAAAAAAAAAB, 16381),
]


def longdouble_fixtures(out_dir, manifest):
    assert np.dtype(np.longdouble).itemsize == 16, "x86-64 long double expected"
    raw = b""
    for i, (_, mant, se) in enumerate(LD_CLASSES):
        pad = bytes((i * 7 + k * 13 + 1) % 256 for k in range(6))  # non-zero padding
        raw += mant.to_bytes(8, "little") + se.to_bytes(2, "little") + pad
    le = np.frombuffer(raw, dtype="<f16").copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_f8 = le.astype("<f8")
        isnan = np.isnan(le)
        printed = [s.strip() for s in np.array2string(le, separator=",",
                                                      threshold=10**6)[1:-1].split(",")]
    cle = np.zeros(len(le), dtype="<c32")
    cle.real = le
    cle.imag = le[::-1]
    # Rebuild the complex bytes so that both parts keep their exact patterns and padding.
    craw = b"".join(raw[16 * i:16 * i + 16] + raw[16 * (len(le) - 1 - i):16 * (len(le) - i)]
                    for i in range(len(le)))
    cle = np.frombuffer(craw, dtype="<c32").copy()
    for name, arr in [("ld_classes_le.npy", le), ("ld_classes_be.npy", le.byteswap().view(">f16")),
                      ("ld_complex.npy", cle)]:
        save(out_dir, name, arr)
    manifest.append({
        "file": "ld_classes_le.npy", "kind": "longdouble",
        "classes": [c for c, _, _ in LD_CLASSES],
        "f8_hex": [x.hex() if not np.isnan(x) else "nan" for x in as_f8.tolist()],
        "isnan": [bool(x) for x in isnan],
        "array_str": printed,
    })
    manifest.append({"file": "ld_classes_be.npy", "kind": "longdouble_same_as",
                     "same_as": "ld_classes_le.npy"})
    manifest.append({"file": "ld_complex.npy", "kind": "clongdouble",
                     "same_as": "ld_classes_le.npy"})


FSTREAM = [
    ("<f8", (3, 5)), ("<f8", (3, 0)), ("<f8", (3, 1)), ("<f8", (3, 2)), ("<f8", (3,)),
    ("<i2", (2, 3, 4)), (">i4", (4, 7)), ("|u1", (5, 1000)), ("<c8", (2, 2, 12)),
    ("|b1", (3, 4)), ("<u8", (1000, 3)), ("<f4", (2, 12347)), (">f8", (4, 1, 3)),
    ("<i8", (7, 3, 1, 2)), ("<f2", (65, 2)), ("<i4", (2, 0)), ("<u2", (0,)), ("<u2", (4,)),
    # Eight leading 1s: fortran_order stays False, so numpy's spare room follows the first
    # axis while the row count's digits grow the shape text; np.save's header is 128 bytes
    # for 3 rows but 192 for a 20-digit count, which a streaming writer must reserve.
    ("<f8", (1, 1, 1, 1, 1, 1, 1, 1, 3)),
]


def fstream_fixtures(out_dir, manifest):
    for descr, shape in FSTREAM:
        n = int(np.prod(shape))
        flat = np.arange(n)
        dt = np.dtype(descr)
        if dt.kind == "b":
            vals = (flat % 3 == 1)
        elif dt.kind == "c":
            vals = flat + 1j * (flat % 5)
        else:
            vals = flat % (1 << min(8 * dt.itemsize - 1, 62)) if dt.kind in "iu" else flat
        arr = np.asarray(vals).astype(dt).reshape(shape, order="F")
        dims = "x".join(map(str, shape)) or "scalar"
        name = f"fstream_{descr.replace('<', 'le').replace('>', 'be').replace('|', '')}_{dims}.npy"
        save(out_dir, name, arr)
        manifest.append({"file": name, "kind": "fstream", "descr": descr, "shape": list(shape),
                         "fortran_order": bool(arr.flags.f_contiguous and not
                                               arr.flags.c_contiguous)})


def write_json(path, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, ensure_ascii=True, indent=None, separators=(",", ":"))
        f.write("\n")


def write_rows(path, head, key, rows):
    """One row per line, so that diffs of the tables are readable."""
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
    if np.__version__ != fx.REQUIRED_NUMPY:
        print(f"numpy {fx.REQUIRED_NUMPY} required, found {np.__version__}", file=sys.stderr)
        return 1
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):
        path = os.path.join(out_dir, name)
        if os.path.isfile(path):
            os.remove(path)
    machine = {"numpy": np.__version__, "python": platform.python_version(),
               "unicodedata": unicodedata.unidata_version, "machine": platform.machine(),
               "longdouble": np.dtype(np.longdouble).str}
    write_rows(os.path.join(out_dir, "descr.json"), machine, "rows", descr_rows())
    write_rows(os.path.join(out_dir, "descr_values.json"), machine, "rows", descr_value_rows())
    write_rows(os.path.join(out_dir, "literals.json"), machine, "rows", literal_rows())
    files = []
    casting = casting_table(out_dir, files)
    write_rows(os.path.join(out_dir, "casting.json"), machine, "pairs", casting["pairs"])
    write_rows(os.path.join(out_dir, "casting_values.json"), machine, "values",
               casting["values"])
    bool_fixtures(out_dir, files)
    padding_fixtures(out_dir, files)
    longdouble_fixtures(out_dir, files)
    fstream_fixtures(out_dir, files)
    write_rows(os.path.join(out_dir, "manifest.json"), machine, "files", files)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
