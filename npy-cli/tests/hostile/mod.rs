//! The hostile inputs of issue 23's read side (`../shared/cases/turn3/r01`–`r05`), built
//! here byte for byte as the scripts build them: small pickles and the archives that deflate
//! large ones into a few kilobytes. Shared by `memory.rs` (peak memory) and `it/show.rs`
//! (messages).

#![allow(dead_code, reason = "each test binary uses a part")]

use npy_core::npz::{Compression, NpzWriter};
use npy_core::Header;

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

/// One central-directory entry of [`zip_of`]: names, method, the bytes stored, the size and
/// CRC the directory records, and which local header it points at (`None`: its own).
pub struct ZipEntry {
    pub name: Vec<u8>,
    pub local_name: Vec<u8>,
    pub method: u16,
    pub data: Vec<u8>,
    pub size: u32,
    pub crc: u32,
    pub points_at: Option<usize>,
}

impl ZipEntry {
    pub fn stored(name: &str, data: &[u8]) -> ZipEntry {
        ZipEntry {
            name: name.as_bytes().to_vec(),
            local_name: name.as_bytes().to_vec(),
            method: 0,
            data: data.to_vec(),
            size: data.len() as u32,
            crc: crc32(data),
            points_at: None,
        }
    }
}

/// CRC-32 (IEEE), bitwise: test inputs are small.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A zip laid out by hand (as the r02, r11 and r15 scripts write theirs): local headers for
/// the entries that point at themselves, the central directory, an end record counting
/// `count` entries (default all).
pub fn zip_of(entries: &[ZipEntry], count: Option<u16>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        offsets.push(out.len() as u32);
        if e.points_at.is_some_and(|p| p != i) {
            continue;
        }
        out.extend_from_slice(b"PK\x03\x04");
        for v in [20u16, 0, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.local_name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&e.local_name);
        out.extend_from_slice(&e.data);
    }
    let cd_start = out.len() as u32;
    for (i, e) in entries.iter().enumerate() {
        out.extend_from_slice(b"PK\x01\x02");
        for v in [0x031e_u16, 20, 0, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.name.len() as u16, 0, 0, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&offsets[e.points_at.unwrap_or(i)].to_le_bytes());
        out.extend_from_slice(&e.name);
    }
    let cd_len = out.len() as u32 - cd_start;
    let n = count.unwrap_or(entries.len() as u16);
    out.extend_from_slice(b"PK\x05\x06");
    for v in [0u16, 0, n, n] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&cd_len.to_le_bytes());
    out.extend_from_slice(&cd_start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

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
