//! Issue 42, F6: an `.npy` header's text is latin-1 in formats 1.0 and 2.0 (UTF-8 in 3.0),
//! and its `HEADER_LEN` counts the encoded bytes. `NpzWriter::add_npy` wrote the text's UTF-8
//! bytes after the original `HEADER_LEN`, so a field named `'é'` made the header a byte longer
//! than numpy skips: `np.load` read the data one byte early, silently (r06:
//! `[(266, 1024), (512, 1280), (768, 1536)]` for `[(1, 4), (2, 5), (3, 6)]`).
//!
//! Every writer path that makes an `.npz` member from an array is checked here against numpy:
//! `add_npy` (a `.npy` stream copied, which `npy pack` and `npy convert X OUT.npz` use),
//! `add_dyn` and a typed `add` of a derived record.

use std::io::Cursor;

use npy_core::{format::Version, Header};
use npy_npz::{Compression, NpzArchive, NpzWriter};

/// r06's array: `np.zeros(3, [('é', '<i4'), ('b', '<i2')])`, `é` 1, 2, 3 and `b` 4, 5, 6,
/// as `np.save` writes it (format 1.0, the header latin-1, padded to 64 bytes by the rules of
/// numpy's `_wrap_header`).
fn r06_npy() -> Vec<u8> {
    let mut b = Header::new(
        "[('\u{e9}', '<i4'), ('b', '<i2')]".parse().unwrap(),
        vec![3],
    )
    .to_bytes(None)
    .unwrap();
    for (x, y) in [(1i32, 4i16), (2, 5), (3, 6)] {
        b.extend_from_slice(&x.to_le_bytes());
        b.extend_from_slice(&y.to_le_bytes());
    }
    b
}

/// r06 through `add_npy`: the member is the `.npy` stream byte for byte, whose header is what
/// the format's rules give (checked here without this crate: magic, 1.0, `HEADER_LEN`, the
/// dict with `é` as the one byte 0xE9, spaces to a 64-byte boundary, `\n`), and reads back.
#[test]
fn r06_member_is_the_npy_stream_byte_for_byte() {
    let npy = r06_npy();
    let dict: &[u8] =
        b"{'descr': [('\xe9', '<i4'), ('b', '<i2')], 'fortran_order': False, 'shape': (3,), }";
    // 80 bytes of dict ('é' one byte), 20 spaces for the growth axis, 1 for '\n': 101, and
    // 17 of padding bring the data to 10 + 118 = 128.
    let mut want = b"\x93NUMPY\x01\x00".to_vec();
    want.extend_from_slice(&118u16.to_le_bytes());
    want.extend_from_slice(dict);
    want.resize(127, b' ');
    want.push(b'\n');
    assert_eq!(npy[..128], want[..], "the input is np.save's");
    for compression in [Compression::Stored, Compression::NUMPY_DEFLATED] {
        let mut w = NpzWriter::new(Cursor::new(Vec::new())).compression(compression);
        w.add_npy("x", &npy[..]).unwrap();
        let npz = NpzArchive::new(w.finish().unwrap().into_inner()).unwrap();
        assert_eq!(npz.read_bytes("x").unwrap(), npy, "{compression:?}");
        let h = npz.header("x").unwrap();
        assert_eq!((h.version, h.data_offset()), (Version::V1_0, 128));
        let a = npz.read_dyn("x").unwrap();
        assert_eq!(a.shape(), [3]);
    }
}

/// A parsed header writes back the bytes it was read from, in each version (a latin-1 char
/// in 1.0 and 2.0 is one byte; 3.0 is UTF-8), and `HEADER_LEN` counts those bytes.
#[test]
fn parsed_headers_write_back_their_bytes() {
    for (descr, version) in [
        ("[('\u{e9}', '<i4')]", Version::V1_0),
        ("[('\u{ff}\u{e9}', '<i4'), ('b', '<f8')]", Version::V2_0),
        ("[('\u{65e5}\u{e9}', '<i4')]", Version::V3_0),
    ] {
        let bytes = Header::new(descr.parse().unwrap(), vec![2])
            .to_bytes(Some(version))
            .unwrap();
        let parsed = Header::read(&mut &bytes[..]).unwrap();
        assert_eq!(parsed.to_bytes().unwrap(), bytes, "{descr} {version}");
        assert_eq!(bytes.len() % 64, 0);
    }
}

/// numpy's side, seeded: record arrays whose field names are drawn from latin-1 (U+0080 to
/// U+00FF among ASCII, of lengths that move the header across 64-byte boundaries), a nested
/// record, a 2.0 file, and names past latin-1 (which numpy writes as 3.0). Each `np.save`'d
/// file goes into an archive by `add_npy`, by `add_dyn` of its `read_dyn`, stored and
/// deflated; `np.load` of every archive must give the file's dtype and bytes. Stored with
/// numpy's layout, the archives must be `np.savez`'s byte for byte.
#[test]
fn latin1_field_names_load_in_numpy_as_written() {
    let Some(python) = npy_test_support::python::python_for("np.load of latin-1 field names")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let make = r"
import sys, time, random, numpy as np
time.localtime = lambda *a: time.struct_time((1980, 1, 1, 0, 0, 0, 1, 1, 0))
d = sys.argv[1]
random.seed(42)
arrays = []
a = np.zeros(3, [('é', '<i4'), ('b', '<i2')]); a['é'] = [1, 2, 3]; a['b'] = [4, 5, 6]
arrays.append((a, None))
arrays.append((np.zeros(2, [('\xff', '<u2'), ('ñ', [('é', 'u1'), ('x', '>f4')])]), None))
for k in range(40):
    n = random.randint(1, 3)
    names = set()
    while len(names) < n:
        names.add(''.join(chr(random.choice([random.randint(0x80, 0xff), random.randint(0x61, 0x7a)])) for _ in range(random.randint(1, 12))))
    dt = np.dtype([(nm, random.choice(['<i4', '>u2', '<f8', 'u1', 'S3'])) for nm in sorted(names)])
    a = np.frombuffer(bytes(random.getrandbits(8) for _ in range(dt.itemsize * 3)), dt)
    arrays.append((a, None))
arrays.append((arrays[0][0], (2, 0)))
arrays.append((np.zeros(2, [('日é', '<i4')]), None))
for i, (a, version) in enumerate(arrays):
    with open(f'{d}/{i}.npy', 'wb') as f:
        np.lib.format.write_array(f, a, version=version)
    np.savez(f'{d}/{i}.ref.npz', x=a)
print(len(arrays))
";
    let count: usize = npy_test_support::python::run_script(&python, make, [dir.path()])
        .trim()
        .parse()
        .unwrap();
    assert!(count > 40);
    let mut made = Vec::new();
    for i in 0..count {
        let src = dir.path().join(format!("{i}.npy"));
        let npy = std::fs::read(&src).unwrap();
        let version = Header::read(&mut &npy[..]).unwrap().version;
        let dynamic = npy_core::read_dyn(&src).unwrap();
        let reference = std::fs::read(dir.path().join(format!("{i}.ref.npz"))).unwrap();
        for (how, compression) in [
            ("stored", Compression::Stored),
            ("deflated", Compression::NUMPY_DEFLATED),
        ] {
            let numpy_layout = || {
                NpzWriter::new(Cursor::new(Vec::new()))
                    .alignment(1)
                    .threads(1)
                    .compression(compression)
            };
            let mut w = numpy_layout();
            w.add_npy("x", &npy[..]).unwrap();
            let by_npy = w.finish().unwrap().into_inner();
            let mut w = numpy_layout();
            w.add_dyn("x", &dynamic).unwrap();
            let by_dyn = w.finish().unwrap().into_inner();
            if how == "stored" {
                // np.savez writes the array in numpy's version choice, as add_dyn does; the
                // copied stream keeps its own version (the 2.0 file's differs from np.savez's).
                assert_eq!(by_dyn, reference, "{i}: add_dyn");
                if version != Version::V2_0 {
                    assert_eq!(by_npy, reference, "{i}: add_npy");
                }
            }
            for (what, bytes) in [("npy", by_npy), ("dyn", by_dyn)] {
                let path = dir.path().join(format!("{i}.{what}.{how}.npz"));
                std::fs::write(&path, bytes).unwrap();
                made.push((src.clone(), path));
            }
        }
    }
    // The typed path: r06's record through the derive, beside np.savez of the same array.
    #[derive(npy_core::NpyElement)]
    struct R06 {
        #[npy(rename = "\u{e9}")]
        e: i32,
        b: i16,
    }
    let rows = [R06 { e: 1, b: 4 }, R06 { e: 2, b: 5 }, R06 { e: 3, b: 6 }];
    let mut w = NpzWriter::new(Cursor::new(Vec::new()))
        .alignment(1)
        .threads(1);
    w.add("x", &rows, &[3u64]).unwrap();
    let typed = w.finish().unwrap().into_inner();
    assert_eq!(
        typed,
        std::fs::read(dir.path().join("0.ref.npz")).unwrap(),
        "typed add"
    );
    let path = dir.path().join("typed.npz");
    std::fs::write(&path, typed).unwrap();
    made.push((dir.path().join("0.npy"), path));

    let check = r"
import sys, numpy as np
args = sys.argv[1:]
for src, npz in zip(args[::2], args[1::2]):
    a = np.load(src)
    with np.load(npz) as z:
        b = z['x']
    ok = a.dtype == b.dtype and a.dtype.names == b.dtype.names and a.shape == b.shape and a.tobytes() == b.tobytes()
    print('ok' if ok else f'DIFF {npz}: {a.dtype} {a.tolist()} loaded as {b.dtype} {b.tolist()}')
";
    let args: Vec<&std::path::Path> = made
        .iter()
        .flat_map(|(s, n)| [s.as_path(), n.as_path()])
        .collect();
    let out = npy_test_support::python::run_script(&python, check, &args);
    let bad: Vec<&str> = out.lines().filter(|l| *l != "ok").collect();
    assert_eq!(out.lines().count(), made.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
