#!/usr/bin/env python3
"""Generate the `.npz` fixtures in ``fixtures/npz/`` (run by ``cargo xtask fixtures``).

    python xtask/fixtures_npz.py OUT_DIR

Archives written by numpy 2.4.6's ``np.savez`` / ``np.savez_compressed``, and by Python's
``zipfile`` for what numpy does not write itself (a member that is not ``.npy``, duplicate
names) or writes only to a non-seekable stream (data descriptors). ``manifest.json`` holds
what numpy says about each: ``np.load(...).files``, and per key the member numpy reads, its
zip method, the array's dtype, shape, order and values (``enc`` of xtask/fixtures.py) or the
raw bytes of a non-``.npy`` member, and where a stored member's array data starts in the
archive file. The script owns every file of OUT_DIR.
"""

import io
import json
import os
import struct
import sys
import warnings
import zipfile

import numpy as np
from numpy.lib import _format_impl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures as fx  # noqa: E402  (enc, compact, REQUIRED_NUMPY)

GENERATED_BY = "cargo xtask fixtures (xtask/fixtures_npz.py); do not edit"


def arrays():
    """Several dtypes, by keyword."""
    return {
        "i4": np.arange(6, dtype="<i4").reshape(2, 3),
        "f8": np.array([0.5, -0.0, np.inf, np.nan, 1e-310], dtype="<f8"),
        "c16": np.array([1 + 2j, -0.5j], dtype="<c16"),
        "b1": np.array([True, False, True]),
        "u2": np.array([0, 65535, 7], dtype="<u2"),
        "U5": np.array(["hi", "numpy", "αβ"], dtype="<U5"),
        "S3": np.array([b"ab", b"\x00c", b"xyz"], dtype="|S3"),
        "M8D": np.array(["2024-02-29", "NaT", "1969-12-31"], dtype="<M8[D]"),
    }


def record():
    dt = np.dtype([("x", "<f4"), ("id", "<i8"), ("tag", "|S2")])
    return np.array([(1.5, 7, b"ab"), (-2.0, -1, b"z")], dtype=dt)


def pipe_archive(path, **kwds):
    """np.savez to a non-seekable stream: zipfile writes data descriptors."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        with os.fdopen(w, "wb") as f:
            np.savez(f, **kwds)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    with open(path, "wb") as f:
        f.write(data)


def zip_with(path, members):
    """A zip of (name, bytes) written by Python's zipfile (stored, fixed timestamps)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Duplicate name")
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
            for name, data in members:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                z.writestr(info, data)


def cp437_archive(path):
    """Names as zip's default code page: one member whose name has no UTF-8 flag (bytes
    `x 82 82`, which Python's zipfile and numpy read as CP437 'xéé'), one with the flag
    ('ü', as zipfile writes non-ASCII names)."""
    zip_with(path, [("x\u00e9.npy", npy_bytes(np.arange(3, dtype="<i2"))),
                    ("\u00fc.npy", npy_bytes(np.array([2.5], dtype="<f4")))])
    raw = bytearray(open(path, "rb").read())
    utf8 = "x\u00e9".encode()
    assert len(utf8) == 3 and raw.count(utf8) == 2
    raw = raw.replace(utf8, b"x\x82\x82")
    # Clear the UTF-8 flag (bit 11) of that member's local and central headers.
    for sig, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        o = raw.find(sig)
        (flags,) = struct.unpack_from("<H", raw, o + at)
        struct.pack_into("<H", raw, o + at, flags & ~0x800)
    with open(path, "wb") as f:
        f.write(raw)


def npy_bytes(arr):
    f = io.BytesIO()
    np.lib.format.write_array(f, arr, allow_pickle=False)
    return f.getvalue()


def archives(out):
    a = arrays()
    yield "savez.npz", lambda p: np.savez(p, np.arange(4, dtype="<i8"), np.ones((2, 2), "<f4"), **a)
    yield "savez_compressed.npz", lambda p: np.savez_compressed(
        p, np.arange(4, dtype="<i8"), np.ones((2, 2), "<f4"), **a
    )
    yield "names.npz", lambda p: np.savez(p, **{"d/e": np.arange(2, dtype="<i2"), "x.npy": np.arange(3, dtype="<u1")})
    yield "empty.npz", lambda p: np.savez(p)
    yield "scalar_and_empty.npz", lambda p: np.savez_compressed(
        p,
        scalar=np.array(3.25, dtype="<f8"),
        empty=np.zeros((0,), "<f4"),
        empty2d=np.zeros((3, 0), "<i2"),
    )
    yield "records.npz", lambda p: np.savez(p, rec=record(), rec_scalar=record()[0:1].reshape(()))
    yield "order_endian.npz", lambda p: np.savez(
        p,
        be=np.arange(6, dtype=">i4").reshape(2, 3),
        f=np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3)),
        bef=np.asfortranarray(np.arange(12, dtype=">u2").reshape(3, 4)),
    )
    yield "order_endian_compressed.npz", lambda p: np.savez_compressed(
        p,
        be=np.arange(6, dtype=">i4").reshape(2, 3),
        f=np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3)),
    )
    yield "non_npy_member.npz", lambda p: zip_with(
        p, [("a.npy", npy_bytes(np.arange(3, dtype="<i4"))), ("notes.txt", b"not an array\n")]
    )
    yield "duplicates.npz", lambda p: zip_with(
        p,
        [
            ("a.npy", npy_bytes(np.arange(3, dtype="<i4"))),
            ("b.npy", npy_bytes(np.array([1.5], dtype="<f8"))),
            ("a.npy", npy_bytes(np.arange(5, dtype="<i8") * 10)),
        ],
    )
    yield "names_cp437.npz", cp437_archive
    yield "pipe.npz", lambda p: pipe_archive(p, a=np.arange(4, dtype="<i8"), b=np.ones(3, "<f4"))
    yield "object.npz", lambda p: np.savez(p, ok=np.arange(2, dtype="<i4"), obj=np.array([1, "two", None], dtype=object))


def local_data_start(raw, info):
    """Where a member's bytes start: after its local header, whose extra field is its own."""
    o = info.header_offset
    name_len, extra_len = struct.unpack("<HH", raw[o + 26 : o + 30])
    return o + 30 + name_len + extra_len


def describe(path):
    raw = open(path, "rb").read()
    z = zipfile.ZipFile(path)
    assert z.testzip() is None, path
    npz = np.load(path, allow_pickle=True)
    files = list(npz.files)
    members = {}
    for key in dict.fromkeys(files):
        name = npz._files[key]
        info = z.getinfo(name)  # the last entry of a duplicated name, as numpy reads
        m = {
            "member": name,
            "method": info.compress_type,
            "size": info.file_size,
            "compressed_size": info.compress_size,
        }
        value = npz[key]
        if isinstance(value, bytes):
            m["bytes_hex"] = value.hex()
        else:
            with z.open(info) as f:
                version = np.lib.format.read_magic(f)
                _format_impl._read_array_header(f, version)
                header_end = f.tell()
            m["descr"] = repr(np.lib.format.dtype_to_descr(value.dtype))
            m["shape"] = list(value.shape)
            m["fortran_order"] = bool(value.flags.f_contiguous and not value.flags.c_contiguous)
            m["npy_data_offset"] = header_end
            if info.compress_type == zipfile.ZIP_STORED:
                m["archive_data_offset"] = local_data_start(raw, info) + header_end
            if value.dtype.hasobject:
                m["object"] = True
            else:
                m["data"] = fx.enc(value)
        members[key] = m
    return {"file": os.path.basename(path), "files": files, "members": members}


def main(argv):
    if len(argv) != 2:
        print("usage: fixtures_npz.py OUT_DIR", file=sys.stderr)
        return 2
    if np.__version__ != fx.REQUIRED_NUMPY:
        print(f"fixtures_npz.py: need numpy=={fx.REQUIRED_NUMPY}, found {np.__version__}", file=sys.stderr)
        return 1
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        os.remove(os.path.join(out, old))
    entries = []
    for name, make in archives(out):
        path = os.path.join(out, name)
        make(path)
        entries.append(describe(path))
    manifest = {"archives": entries, "generated_by": GENERATED_BY, "numpy_version": np.__version__}
    text = json.dumps(manifest, ensure_ascii=False, allow_nan=False, indent=1, sort_keys=True) + "\n"
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"fixtures_npz.py: wrote {len(entries)} archives and manifest.json to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
