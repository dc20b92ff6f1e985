//! Real `.npy` files written by numpy and by peer libraries (`fixtures/external/`).
//!
//! Every expected fact below is copied from `fixtures/external/README.txt` (the table
//! was transcribed from its per-file lines: version, `HEADER_LEN`, data offset, data bytes and the
//! header text; descr, shape and order are the header's own values). The folder lives outside
//! the repository: when it is absent the tests say so and pass.

use npy_test_support::sha256_hex;
use std::fs;
use std::path::Path;

use npy_core::{
    dtype::Primitive, error::NotNpy, format::Version, ByteOrder, DType, Error, ErrorKind, Header,
    MemoryOrder, TensorInfo,
};

#[derive(Debug)]
struct Ext {
    path: &'static str,
    size: u64,
    sha256_prefix: &'static str,
    version: (u8, u8),
    header_len: u64,
    data_offset: u64,
    data_bytes: u64,
    header: &'static str,
    descr: &'static str,
    shape: &'static [u64],
    fortran_order: bool,
}

/// README.txt, "Per-file details", every `.npy` file.
const NPY: &[Ext] = &[
    Ext {
        path: "numpy/py2-np0-objarr.npy",
        size: 258,
        sha256_prefix: "64ba08ecade24295",
        version: (1, 0),
        header_len: 70,
        data_offset: 80,
        data_bytes: 178,
        header: "{'descr': '|O8', 'fortran_order': False, 'shape': (4,), }",
        descr: "|O8",
        shape: &[4],
        fortran_order: false,
    },
    Ext {
        path: "numpy/py2-objarr.npy",
        size: 258,
        sha256_prefix: "178732502fbf4c1f",
        version: (1, 0),
        header_len: 70,
        data_offset: 80,
        data_bytes: 178,
        header: "{'descr': '|O8', 'fortran_order': False, 'shape': (4,), }",
        descr: "|O8",
        shape: &[4],
        fortran_order: false,
    },
    Ext {
        path: "numpy/py3-objarr.npy",
        size: 325,
        sha256_prefix: "ee6b6290a9475e9e",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 197,
        header: "{'descr': '|O', 'fortran_order': False, 'shape': (4,), }",
        descr: "|O",
        shape: &[4],
        fortran_order: false,
    },
    Ext {
        path: "numpy/python3.npy",
        size: 96,
        sha256_prefix: "5f469dde101a2c65",
        version: (1, 0),
        header_len: 70,
        data_offset: 80,
        data_bytes: 16,
        header: "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
        descr: "<f8",
        shape: &[2],
        fortran_order: false,
    },
    Ext {
        path: "numpy/win64python2.npy",
        size: 96,
        sha256_prefix: "6a039c807558149a",
        version: (1, 0),
        header_len: 70,
        data_offset: 80,
        data_bytes: 16,
        header: "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }",
        descr: "<f8",
        shape: &[2],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/array.npy",
        size: 152,
        sha256_prefix: "13c3cd0866e72d15",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 24,
        header: "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
        descr: "<i4",
        shape: &[2, 3],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_bool_bad_value.npy",
        size: 152,
        sha256_prefix: "49eea723fd00e419",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 24,
        header: "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3, 4), }",
        descr: "|b1",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_bool_standard.npy",
        size: 152,
        sha256_prefix: "bbcbddf64be12580",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 24,
        header: "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3, 4)}",
        descr: "|b1",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_c64_big_endian_fortran.npy",
        size: 512,
        sha256_prefix: "8c6277965608da54",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 384,
        header: "{'descr': '>c16', 'fortran_order': True, 'shape': (2, 3, 4)}",
        descr: ">c16",
        shape: &[2, 3, 4],
        fortran_order: true,
    },
    Ext {
        path: "ndarray-npy/example_c64_big_endian_standard.npy",
        size: 512,
        sha256_prefix: "8dd07b7ac19fa6ca",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 384,
        header: "{'descr': '>c16', 'fortran_order': False, 'shape': (2, 3, 4)}",
        descr: ">c16",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_c64_little_endian_fortran.npy",
        size: 512,
        sha256_prefix: "61df1ca75b34f993",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 384,
        header: "{'descr': '<c16', 'fortran_order': True, 'shape': (2, 3, 4)}",
        descr: "<c16",
        shape: &[2, 3, 4],
        fortran_order: true,
    },
    Ext {
        path: "ndarray-npy/example_c64_little_endian_standard.npy",
        size: 512,
        sha256_prefix: "b8222b14e63ae903",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 384,
        header: "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3, 4)}",
        descr: "<c16",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_f64_big_endian_fortran.npy",
        size: 320,
        sha256_prefix: "d327cb1d1f52bc29",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3, 4)}",
        descr: ">f8",
        shape: &[2, 3, 4],
        fortran_order: true,
    },
    Ext {
        path: "ndarray-npy/example_f64_big_endian_standard.npy",
        size: 320,
        sha256_prefix: "68bf372727a97755",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3, 4)}",
        descr: ">f8",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "ndarray-npy/example_f64_little_endian_fortran.npy",
        size: 320,
        sha256_prefix: "0ba08c47e1efe3a6",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3, 4)}",
        descr: "<f8",
        shape: &[2, 3, 4],
        fortran_order: true,
    },
    Ext {
        path: "ndarray-npy/example_f64_little_endian_standard.npy",
        size: 320,
        sha256_prefix: "2bf2044f5bb31b1d",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4)}",
        descr: "<f8",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "npyz/c-order.npy",
        size: 320,
        sha256_prefix: "6251f881a78c5e01",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 4), }",
        descr: "<i8",
        shape: &[2, 3, 4],
        fortran_order: false,
    },
    Ext {
        path: "npyz/f-order.npy",
        size: 320,
        sha256_prefix: "601c8e092b0f3368",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 192,
        header: "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 4), }",
        descr: "<i8",
        shape: &[2, 3, 4],
        fortran_order: true,
    },
    Ext {
        path: "npyz/pickle.npy",
        size: 317,
        sha256_prefix: "db23c26a350fc39a",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 189,
        header: "{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }",
        descr: "|O",
        shape: &[2, 3],
        fortran_order: false,
    },
    Ext {
        path: "npyz/plain.npy",
        size: 112,
        sha256_prefix: "c75b7463a84328aa",
        version: (1, 0),
        header_len: 70,
        data_offset: 80,
        data_bytes: 32,
        header: "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
        descr: "<f8",
        shape: &[4],
        fortran_order: false,
    },
    Ext {
        path: "npyz/structured.npy",
        size: 144,
        sha256_prefix: "52e02cdc189ab8d9",
        version: (1, 0),
        header_len: 102,
        data_offset: 112,
        data_bytes: 32,
        header: "{'descr': [('a', '<i4'), ('b', '<f4'), ('c', '<i8')], 'fortran_order': False, 'shape': (2,), }",
        descr: "[('a', '<i4'), ('b', '<f4'), ('c', '<i8')]",
        shape: &[2],
        fortran_order: false,
    },
    Ext {
        path: "npyz/unicode/ok.npy",
        size: 160,
        sha256_prefix: "23a2b20ae40f2699",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 32,
        header: "{'descr': '<U8', 'fortran_order': False, 'shape': (1,), }",
        descr: "<U8",
        shape: &[1],
        fortran_order: false,
    },
    Ext {
        path: "npyz/unicode/surrogate-pair.npy",
        size: 136,
        sha256_prefix: "23ee62dd70310157",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 8,
        header: "{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }",
        descr: "<U2",
        shape: &[1],
        fortran_order: false,
    },
    Ext {
        path: "npyz/unicode/surrogate.npy",
        size: 132,
        sha256_prefix: "e36b827836ef3381",
        version: (1, 0),
        header_len: 118,
        data_offset: 128,
        data_bytes: 4,
        header: "{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }",
        descr: "<U1",
        shape: &[1],
        fortran_order: false,
    },
];

/// README.txt, every `.npz` file.
const NPZ: &[&str] = &[
    "numpy/py2-objarr.npz",
    "numpy/py3-objarr.npz",
    "npyz/compressed.npz",
    "npyz/uncompressed.npz",
    "npyz/sparse/bsr-bad-ndim.npz",
    "npyz/sparse/bsr-f-order.npz",
    "npyz/sparse/bsr.npz",
    "npyz/sparse/coo-dupes.npz",
    "npyz/sparse/coo-long.npz",
    "npyz/sparse/coo.npz",
    "npyz/sparse/csc.npz",
    "npyz/sparse/csr-unsorted.npz",
    "npyz/sparse/csr.npz",
    "npyz/sparse/dia-long.npz",
    "npyz/sparse/dia.npz",
];

fn files_with_ext(dir: &Path, ext: &str, out: &mut Vec<String>, root: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            files_with_ext(&p, ext, out, root);
        } else if p.extension().is_some_and(|e| e == ext) {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(rel);
        }
    }
}

#[test]
fn the_table_covers_every_file() {
    let dir = npy_test_support::external_dir();
    let mut npy = Vec::new();
    files_with_ext(&dir, "npy", &mut npy, &dir);
    npy.sort();
    let mut want: Vec<String> = NPY.iter().map(|e| e.path.to_owned()).collect();
    want.sort();
    assert_eq!(npy, want);
    let mut npz = Vec::new();
    files_with_ext(&dir, "npz", &mut npz, &dir);
    npz.sort();
    let mut want: Vec<String> = NPZ.iter().map(|p| (*p).to_owned()).collect();
    want.sort();
    assert_eq!(npz, want);
    // README: "Total: 39 data files".
    assert_eq!(NPY.len() + NPZ.len(), 39);
}

#[test]
fn every_npy_parses_with_the_readme_facts() {
    let dir = npy_test_support::external_dir();
    for e in NPY {
        let bytes = fs::read(dir.join(e.path)).unwrap();
        assert_eq!(bytes.len() as u64, e.size, "{}", e.path);
        assert!(
            sha256_hex(&bytes).starts_with(e.sha256_prefix),
            "{}: file differs",
            e.path
        );

        let mut r = &bytes[..];
        let parsed = Header::read(&mut r).unwrap_or_else(|err| panic!("{}: {err}", e.path));
        assert_eq!(parsed.version.bytes(), e.version, "{}", e.path);
        assert_eq!(parsed.header_len, e.header_len, "{}", e.path);
        assert_eq!(parsed.data_offset(), e.data_offset, "{}", e.path);
        assert_eq!(
            (bytes.len() - r.len()) as u64,
            e.data_offset,
            "{}: reader position",
            e.path
        );
        assert!(
            parsed.text.starts_with(e.header),
            "{}: {:?}",
            e.path,
            parsed.text
        );
        assert!(parsed.text.ends_with('\n'), "{}", e.path);
        assert_eq!(parsed.header.shape, e.shape, "{}", e.path);
        assert_eq!(parsed.header.fortran_order, e.fortran_order, "{}", e.path);
        let want: DType = e
            .descr
            .parse()
            .unwrap_or_else(|err| panic!("{}: {err}", e.path));
        assert_eq!(parsed.header.dtype, want, "{}", e.path);
        if e.descr.starts_with('|') && e.descr.contains('O') {
            assert_eq!(parsed.header.dtype, DType::Object, "{}", e.path);
            assert!(parsed.header.dtype.has_object());
        } else {
            // Not an object array: prod(shape) x itemsize is the data that follows.
            assert_eq!(parsed.header.nbytes().unwrap(), e.data_bytes, "{}", e.path);
        }
        assert_eq!(e.size - e.data_offset, e.data_bytes, "{}", e.path);

        let info = TensorInfo::from_path(dir.join(e.path)).unwrap();
        assert_eq!(info.shape, e.shape);
        assert_eq!(info.data_offset, e.data_offset);
        assert_eq!(info.order == MemoryOrder::Fortran, e.fortran_order);

        // Files numpy wrote with 64-byte alignment and its ", }" are reproduced byte for byte.
        if e.data_offset % 64 == 0 && e.header.ends_with(", }") && !e.descr.ends_with("O8") {
            let ours = parsed.header.to_bytes(None).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&bytes[..e.data_offset as usize]),
                "{}",
                e.path
            );
        }
    }
}

#[test]
fn object_arrays_are_headers_with_object_dtype() {
    let dir = npy_test_support::external_dir();
    for (path, n) in [
        ("numpy/py2-np0-objarr.npy", 4),
        ("numpy/py2-objarr.npy", 4),
        ("numpy/py3-objarr.npy", 4),
    ] {
        let bytes = fs::read(dir.join(path)).unwrap();
        let h = Header::read(&mut &bytes[..]).unwrap().header;
        assert_eq!(h.dtype, DType::Object, "{path}");
        assert_eq!(
            h.dtype.to_string(),
            "|O",
            "{path}: numpy writes '|O8' as '|O'"
        );
        assert_eq!(h.shape, [n]);
    }
    let bytes = fs::read(dir.join("npyz/pickle.npy")).unwrap();
    let h = Header::read(&mut &bytes[..]).unwrap().header;
    assert_eq!(h.dtype, DType::Object);
    assert_eq!(h.shape, [2, 3]);
}

#[test]
fn python2_long_shape_in_a_1_0_header() {
    let dir = npy_test_support::external_dir();
    let bytes = fs::read(dir.join("numpy/win64python2.npy")).unwrap();
    let p = Header::read(&mut &bytes[..]).unwrap();
    assert_eq!(p.version, Version::V1_0);
    assert!(p
        .text
        .starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }"));
    assert_eq!(p.header.shape, [2]);
    assert_eq!(
        p.header.dtype,
        DType::Number(Primitive::F64, ByteOrder::Little)
    );
    // Same array as python3.npy, the control case.
    let control = fs::read(dir.join("numpy/python3.npy")).unwrap();
    let c = Header::read(&mut &control[..]).unwrap();
    assert_eq!(c.header, p.header);
    assert_eq!(bytes[80..], control[80..]);
    // Two float64 1.0.
    assert_eq!(
        &bytes[80..],
        [1.0f64.to_le_bytes(), 1.0f64.to_le_bytes()].concat()
    );
}

#[test]
fn hand_edited_headers_without_trailing_comma() {
    let dir = npy_test_support::external_dir();
    let bytes = fs::read(dir.join("ndarray-npy/example_c64_big_endian_fortran.npy")).unwrap();
    let p = Header::read(&mut &bytes[..]).unwrap();
    assert!(p
        .text
        .starts_with("{'descr': '>c16', 'fortran_order': True, 'shape': (2, 3, 4)}"));
    assert_eq!(
        p.header.dtype,
        DType::Number(Primitive::C128, ByteOrder::Big)
    );
    assert!(p.header.fortran_order);
    assert_eq!(p.header.shape, [2, 3, 4]);
    assert_eq!(p.header_len, 118);
    // We write numpy's form (with ", }"), so the bytes differ from this hand-edited file but
    // the layout is the same.
    let ours = p.header.to_bytes(None).unwrap();
    assert_eq!(ours.len(), 128);
    assert_ne!(ours[..], bytes[..128]);
    assert_eq!(Header::read(&mut &ours[..]).unwrap().header, p.header);
}

#[test]
fn sixteen_byte_aligned_plain_npy() {
    let dir = npy_test_support::external_dir();
    let bytes = fs::read(dir.join("npyz/plain.npy")).unwrap();
    let info = TensorInfo::from_reader("plain", &mut &bytes[..]).unwrap();
    assert_eq!(info.header_len, 70);
    assert_eq!(info.data_offset, 80);
    assert_eq!(info.nbytes, 32);
    assert_eq!(
        info.canonical.map(npy_core::dtype::Canonical::name),
        Some("float64")
    );
    let data: Vec<f64> = bytes[80..]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // README: values=[ 1.   3.5 -6.   2.3]
    assert_eq!(data, [1.0, 3.5, -6.0, 2.3]);
}

#[test]
fn structured_from_npyz() {
    let dir = npy_test_support::external_dir();
    let bytes = fs::read(dir.join("npyz/structured.npy")).unwrap();
    let h = Header::read(&mut &bytes[..]).unwrap().header;
    let DType::Record(rec) = &h.dtype else {
        panic!("{:?}", h.dtype)
    };
    let got: Vec<(&str, u64)> = rec
        .fields()
        .iter()
        .map(|f| (f.name.as_str(), f.offset))
        .collect();
    assert_eq!(got, [("a", 0), ("b", 4), ("c", 8)]);
    assert_eq!(rec.itemsize(), 16);
    assert_eq!(
        h.dtype.to_string(),
        "[('a', '<i4'), ('b', '<f4'), ('c', '<i8')]"
    );
}

#[test]
fn npz_archives_are_recognised() {
    let dir = npy_test_support::external_dir();
    for p in NPZ {
        let bytes = fs::read(dir.join(p)).unwrap();
        match Header::read(&mut &bytes[..]).map_err(Error::into_kind) {
            Err(ErrorKind::NotNpy(NotNpy::Npz)) => {}
            other => panic!("{p}: {other:?}"),
        }
        match TensorInfo::from_path(dir.join(p)).map_err(Error::into_kind) {
            Err(ErrorKind::NotNpy(NotNpy::Npz)) => {}
            other => panic!("{p}: {other:?}"),
        }
    }
}
