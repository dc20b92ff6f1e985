//! The hostile inputs of issue 23's read side (`../shared/cases/turn3/r01`–`r05`), built
//! here byte for byte as the scripts build them: small pickles and the archives that deflate
//! large ones into a few kilobytes. Shared by `memory.rs` (peak memory) and `it/show.rs`
//! (messages).

#![allow(dead_code, reason = "each test binary uses a part")]

use npy_core::Header;
use npy_npz::{Compression, NpzWriter};

/// `SHORT_BINUNICODE s` (or `BINUNICODE` from 256 bytes).
pub fn su(s: &str) -> Vec<u8> {
    let mut o = if s.len() < 256 {
        vec![0x8c, s.len() as u8]
    } else {
        let mut o = vec![b'X'];
        o.extend_from_slice(&(s.len() as u32).to_le_bytes());
        o
    };
    o.extend_from_slice(s.as_bytes());
    o
}

/// `module.name` by `STACK_GLOBAL`.
pub fn glob(module: &str, name: &str) -> Vec<u8> {
    let mut o = su(module);
    o.extend(su(name));
    o.push(0x93);
    o
}

/// `numpy.dtype(s, False, True)`.
pub fn dt(s: &str) -> Vec<u8> {
    let mut o = glob("numpy", "dtype");
    o.extend(su(s));
    o.extend_from_slice(b"\x89\x88\x87R");
    o
}

/// numpy's pickle of `np.array([item], dtype=object)` around the opcodes of `item`.
pub fn object_array(item: &[u8]) -> Vec<u8> {
    let mut p = vec![0x80, 4];
    p.extend(glob("numpy._core.multiarray", "_reconstruct"));
    p.extend(glob("numpy", "ndarray"));
    p.extend_from_slice(b"K\x00\x85C\x01b\x87R(K\x01K\x01\x85");
    p.extend(dt("O8"));
    p.extend_from_slice(b"(K\x03");
    p.extend(su("|"));
    p.extend_from_slice(b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](");
    p.extend_from_slice(item);
    p.extend_from_slice(b"etb.");
    p
}

/// An `.npy` of shape (1,) and dtype `|O` whose data is `pickle`.
pub fn npy(pickle: &[u8]) -> Vec<u8> {
    let mut out = Header::new("|O".parse().expect("descr"), vec![1])
        .to_bytes(None)
        .expect("header");
    out.extend_from_slice(pickle);
    out
}

/// An `.npz` of one member `a.npy` holding `npy`, deflated at level 9.
pub fn deflated_npz(npy: &[u8]) -> Vec<u8> {
    let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()))
        .compression(Compression::Deflated { level: 9 });
    w.add_raw("a.npy", npy).expect("member");
    w.finish().expect("archive").into_inner()
}

/// r01: `_frombuffer(b'', dtype('u1'), (2**62, 0), 'C')`.
pub fn empty_array() -> Vec<u8> {
    let mut o = glob("numpy._core.numeric", "_frombuffer");
    o.extend_from_slice(b"(C\x00");
    o.extend(dt("u1"));
    o.extend_from_slice(b"(\x8a\x08");
    o.extend_from_slice(&(1u64 << 62).to_le_bytes());
    o.extend_from_slice(b"K\x00t");
    o.extend(su("C"));
    o.extend_from_slice(b"tR");
    o
}

/// r01's three items: the empty array in a set (inside a slice), as a dict key (inside a
/// slice), and bare.
pub fn r01_items() -> [(&'static str, Vec<u8>); 3] {
    let slice = |item: &[u8]| {
        let mut o = glob("builtins", "slice");
        o.extend_from_slice(item);
        o.extend_from_slice(b"\x85R");
        o
    };
    let mut set = vec![0x8f, b'('];
    set.extend(slice(&empty_array()));
    set.push(0x90);
    let mut key = vec![b'}'];
    key.extend(slice(&empty_array()));
    key.extend_from_slice(b"K\x01s");
    [
        ("set_of_slice", set),
        ("dict_key_slice", key),
        ("plain_element", empty_array()),
    ]
}

/// r03: 16 million `EMPTY_TUPLE`s in a list (a bare pickle, not an array).
pub fn r03_tuples() -> Vec<u8> {
    let mut p = vec![0x80, 4, b'('];
    p.extend(std::iter::repeat_n(b')', 16_000_000));
    p.extend_from_slice(b"l.");
    p
}

/// r03: a 1 MiB str referenced 290 times through the memo, in an object array.
pub fn r03_shared_str() -> Vec<u8> {
    let mut item = su(&"a".repeat(1 << 20));
    item.extend_from_slice(b"\x940](");
    for _ in 0..290 {
        item.extend_from_slice(b"h\x00");
    }
    item.push(b'e');
    object_array(&item)
}

/// r04: `numpy.dtype` in memo 0, `('f8', None * n)` in memo 1, `m` times `dtype(*memo1)`.
pub fn r04_quad(n: usize, m: usize) -> Vec<u8> {
    let mut o = vec![0x80, 4];
    o.extend(su("numpy"));
    o.extend(su("dtype"));
    o.extend_from_slice(b"\x93\x94(");
    o.extend(su("f8"));
    o.extend(std::iter::repeat_n(b'N', n));
    o.extend_from_slice(b"t\x94");
    for _ in 0..m {
        o.extend_from_slice(b"h\x00h\x01R0");
    }
    o.extend_from_slice(b"N.");
    o
}

/// r05: a `LONG4` int of `n` bytes of 0x7f, in an object array.
pub fn r05_bigint(n: usize) -> Vec<u8> {
    let mut item = vec![0x8b];
    item.extend_from_slice(&(n as i32).to_le_bytes());
    item.extend(std::iter::repeat_n(0x7f, n));
    object_array(&item)
}

#[allow(unused_imports, reason = "each test binary uses a part")]
pub use npy_test_support::zip::{crc32, zip as zip_of, ZipEntry};

/// `np.save` of `np.arange(n)` (int64).
pub fn arange(n: i64) -> Vec<u8> {
    let mut b = Header::new("<i8".parse().expect("descr"), vec![n as u64])
        .to_bytes(None)
        .expect("header");
    for i in 0..n {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

/// The printed-output budget: 1 MiB of BEL characters (`'\x07'`, four bytes of repr each,
/// six of JSON) referenced 101 times through the memo, as the items of an object array of
/// 101 elements: 101 MiB of values the pickle budget allows, about 404 MiB of text and 606
/// MiB of JSON, from a 1 MiB file (1.3 KiB deflated).
pub fn shared_bells() -> Vec<u8> {
    let mut p = vec![0x80, 4];
    p.extend(glob("numpy._core.multiarray", "_reconstruct"));
    p.extend(glob("numpy", "ndarray"));
    p.extend_from_slice(b"K\x00\x85C\x01b\x87R(K\x01Ke\x85");
    p.extend(dt("O8"));
    p.extend_from_slice(b"(K\x03");
    p.extend(su("|"));
    p.extend_from_slice(b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](X");
    p.extend_from_slice(&(1u32 << 20).to_le_bytes());
    p.extend(std::iter::repeat_n(7u8, 1 << 20));
    p.push(0x94);
    for _ in 0..100 {
        p.extend_from_slice(b"h\x00");
    }
    p.extend_from_slice(b"etb.");
    p
}

/// An `.npy` of 101 objects holding `pickle`.
pub fn npy_of_101(pickle: &[u8]) -> Vec<u8> {
    let mut out = Header::new("|O".parse().expect("descr"), vec![101])
        .to_bytes(None)
        .expect("header");
    out.extend_from_slice(pickle);
    out
}
