//! `.npz` archives: numpy's fixtures (`fixtures/npz/`, every expected value from numpy
//! 2.4.6), the external archives of numpy and npyz, and archives we write read back.

use npy_test_support::{dyn_json, npz_files};

use std::io::Cursor;
use std::path::{Path, PathBuf};

use dyn_json::{array_json, same};
use npy_core::WriteOptions;
use npy_npz::{Compression, Error, ErrorKind, NpzArchive, NpzWriter};
use serde_json::Value as Json;

fn npz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/npz")
}

fn manifest() -> Vec<Json> {
    let text = std::fs::read_to_string(npz_dir().join("manifest.json")).unwrap();
    let m: Json = serde_json::from_str(&text).unwrap();
    m["archives"].as_array().unwrap().clone()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npy-core-npz-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Checks one archive against numpy's description of it.
fn check_archive(entry: &Json) -> Result<usize, String> {
    let file = entry["file"].as_str().unwrap();
    let path = npz_dir().join(file);
    let npz = NpzArchive::open(&path).map_err(|e| format!("{file}: {e}"))?;
    // keys() is numpy's `files`, a duplicated name once per entry; members() once per name.
    let files = npz_files(entry);
    let keys: Vec<&str> = npz.keys().collect();
    if keys != files {
        return Err(format!("{file}: keys {keys:?}, numpy {files:?}"));
    }
    let mut distinct: Vec<&str> = Vec::new();
    for k in &files {
        if !distinct.contains(k) {
            distinct.push(k);
        }
    }
    let member_keys: Vec<&str> = npz.members().iter().map(npy_npz::Member::key).collect();
    if member_keys != distinct {
        return Err(format!(
            "{file}: members {member_keys:?}, numpy {distinct:?}"
        ));
    }
    let dupes = files.len() != distinct.len();
    if npz.has_duplicate_names() != dupes {
        return Err(format!("{file}: has_duplicate_names"));
    }
    let mut checked = 0;
    for (key, m) in entry["members"].as_object().unwrap() {
        let ctx = |e: &dyn std::fmt::Display| format!("{file}[{key}]: {e}");
        let member = npz.member(key).map_err(|e| ctx(&e))?.clone();
        if member.name != m["member"].as_str().unwrap()
            || u64::from(member.method) != m["method"].as_u64().unwrap()
            || member.size != m["size"].as_u64().unwrap()
            || member.compressed_size != m["compressed_size"].as_u64().unwrap()
        {
            return Err(ctx(&format!("member {member:?}, numpy {m}")));
        }
        if let Some(hex) = m.get("bytes_hex") {
            let bytes = npz.read_bytes(key).map_err(|e| ctx(&e))?;
            if dyn_json::hex(&bytes) != hex.as_str().unwrap() || npz.is_npy(key).unwrap() {
                return Err(ctx(&"raw bytes differ"));
            }
            match npz.read_dyn(key).map_err(Error::into_kind) {
                Err(ErrorKind::NotNpyMember { .. }) => {}
                other => return Err(ctx(&format!("read as array: {other:?}"))),
            }
            checked += 1;
            continue;
        }
        let parsed = npz.header(key).map_err(|e| ctx(&e))?;
        let descr = parsed.header.dtype.to_descr_value().to_string();
        let shape: Vec<u64> = m["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        if descr != m["descr"].as_str().unwrap()
            || parsed.header.shape != shape
            || parsed.data_offset() != m["npy_data_offset"].as_u64().unwrap()
        {
            return Err(ctx(&format!("header {parsed:?}, numpy {m}")));
        }
        if m.get("object").is_some() {
            // Refused without an ObjectCodec (npy-pickle's tests decode these members).
            match npz.read_dyn(key).map_err(npy_npz::Error::into_kind) {
                Err(npy_npz::ErrorKind::Npy(e))
                    if matches!(e.kind(), npy_core::ErrorKind::ObjectArray { .. }) =>
                {
                    checked += 1;
                }
                other => return Err(ctx(&format!("object array read as {other:?}"))),
            }
            continue;
        }
        if let Some(offset) = m.get("archive_data_offset") {
            let ours = npz.data_offset(key).map_err(|e| ctx(&e))?;
            if ours != offset.as_u64().unwrap() {
                return Err(ctx(&format!("data offset {ours}, numpy {offset}")));
            }
        }
        let a = npz.read_dyn(key).map_err(|e| ctx(&e))?;
        let fortran = m["fortran_order"].as_bool().unwrap();
        if (a.order() == npy_core::MemoryOrder::Fortran) != fortran
            && a.shape().iter().filter(|&&d| d > 1).count() > 1
        {
            return Err(ctx(&"order"));
        }
        same(&array_json(&a), &m["data"], key).map_err(|e| ctx(&e))?;
        npz.verify(key).map_err(|e| ctx(&e))?;
        checked += 1;
    }
    Ok(checked)
}

#[test]
fn every_numpy_archive_reads_as_numpy_describes_it() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in manifest() {
        match check_archive(&entry) {
            Ok(n) => checked += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} members checked");
}

#[test]
fn lookup_follows_numpy() {
    let npz = NpzArchive::open(npz_dir().join("names.npz")).unwrap();
    // keys with '/' as given; 'x.npy' was written as 'x.npy.npy'
    assert_eq!(npz.member("d/e").unwrap().name, "d/e.npy");
    assert_eq!(npz.member("x.npy").unwrap().name, "x.npy.npy");
    assert_eq!(npz.member("x.npy.npy").unwrap().name, "x.npy.npy");
    assert!(matches!(
        npz.member("x").map_err(Error::into_kind),
        Err(ErrorKind::MissingMember { .. })
    ));
    assert_eq!(npz.read::<u8>("x.npy").unwrap().into_vec(), [0, 1, 2]);
    // duplicates: the last entry wins
    let dup = NpzArchive::open(npz_dir().join("duplicates.npz")).unwrap();
    assert_eq!(
        dup.read::<i64>("a").unwrap().into_vec(),
        [0, 10, 20, 30, 40]
    );
}

#[test]
fn typed_reads_views_and_streams() {
    let path = npz_dir().join("order_endian.npz");
    let bytes = std::fs::read(&path).unwrap();
    let npz = NpzArchive::new(&bytes).unwrap();
    let f = npz.read::<f64>("f").unwrap();
    assert_eq!(f.get(&[1, 0]), Some(&3.0));
    let be = npz.read::<i32>("be").unwrap();
    let be_shape = be.shape().to_vec();
    assert_eq!(be.into_vec(), [0, 1, 2, 3, 4, 5]);
    // numpy's unaligned stored member: a copy, CRC-checked
    let values = npz.view_or_copy::<i32>("be").unwrap();
    assert!(!values.is_borrowed());
    assert_eq!(values.shape(), be_shape);
    assert_eq!(*values, [0, 1, 2, 3, 4, 5]);
    assert!(matches!(
        npz.view::<f64>("f").map_err(Error::into_kind),
        Err(ErrorKind::Npy(e)) if matches!(e.kind(), npy_core::ErrorKind::Misaligned { .. })
    ));
    let compressed = std::fs::read(npz_dir().join("order_endian_compressed.npz")).unwrap();
    let deflated = NpzArchive::new(&compressed).unwrap();
    assert!(matches!(
        deflated.view::<f64>("f").map_err(Error::into_kind),
        Err(ErrorKind::NotStored)
    ));
    assert_eq!(deflated.view_or_copy::<f64>("f").unwrap()[5], 5.0);
    // streaming with seeks: rows of a deflated member forward, of a stored one anywhere
    let npz = NpzArchive::new(&compressed).unwrap();
    let mut r = npz.npy_reader("be").unwrap();
    assert_eq!(r.read_rows::<i32>(1..2).unwrap(), [3, 4, 5]);
    assert!(r.read_rows::<i32>(0..1).is_err());
    let npz = NpzArchive::new(&bytes).unwrap();
    let mut r = npz.npy_reader("be").unwrap();
    assert_eq!(r.read_rows::<i32>(1..2).unwrap(), [3, 4, 5]);
    assert_eq!(r.read_rows::<i32>(0..1).unwrap(), [0, 1, 2]);
}

#[test]
fn records_through_the_derive() {
    #[derive(npy_core::NpyElement, Debug, PartialEq)]
    struct Rec {
        id: i64,
        x: f32,
    }
    let npz = NpzArchive::open(npz_dir().join("records.npz")).unwrap();
    let recs = npz.read::<Rec>("rec").unwrap().into_vec();
    assert_eq!(recs, [Rec { id: 7, x: 1.5 }, Rec { id: -1, x: -2.0 }]);
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_of_a_member() {
    let npz = NpzArchive::open(npz_dir().join("order_endian.npz")).unwrap();
    let a = npz.read_ndarray::<u16>("bef").unwrap();
    assert_eq!(a.shape(), [3, 4]);
    assert_eq!(a[[1, 2]], 6);
}

#[test]
fn external_archives_read() {
    let ext = npy_test_support::external_dir();
    let mut read = 0;
    for dir in ["npyz", "npyz/sparse", "numpy"] {
        let Ok(entries) = std::fs::read_dir(ext.join(dir)) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "npz") {
                continue;
            }
            let npz = NpzArchive::open(&path).unwrap();
            let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
            assert!(!keys.is_empty(), "{}", path.display());
            for key in keys {
                match npz.read_dyn(&key) {
                    Ok(_) => read += 1,
                    // Object members need npy-pickle's codec (its tests read them).
                    Err(e)
                        if matches!(e.kind(), npy_npz::ErrorKind::Npy(inner)
                            if matches!(inner.kind(), npy_core::ErrorKind::ObjectArray { .. })) => {
                    }
                    Err(e) => panic!("{}[{key}]: {e}", path.display()),
                }
            }
        }
    }
    assert!(read >= 40, "only {read} external members read");
}

#[test]
fn our_archives_read_back_aligned_and_deterministic() {
    let write = |compression| {
        let mut w = NpzWriter::new(Cursor::new(Vec::new())).compression(compression);
        w.add("f32", &[1.0f32, -2.5, 3.0, 4.0], &[2, 2]).unwrap();
        w.add_with(
            "be",
            &WriteOptions::new().byte_order(npy_core::ByteOrder::Big),
            &[1i64, 2],
            &[2],
        )
        .unwrap();
        w.add_positional(&["a".to_string(), "bc".to_string()], &[2])
            .unwrap();
        w.add_raw("notes.txt", b"hello").unwrap();
        w.finish().unwrap().into_inner()
    };
    let a = write(Compression::Stored);
    assert_eq!(a, write(Compression::Stored), "same arrays, same bytes");
    let npz = NpzArchive::new(&a).unwrap();
    assert_eq!(
        npz.keys().collect::<Vec<_>>(),
        ["f32", "be", "arr_0", "notes.txt"]
    );
    for key in ["f32", "be", "arr_0"] {
        assert_eq!(npz.data_offset(key).unwrap() % 64, 0, "{key}");
    }
    assert_eq!(npz.read::<String>("arr_0").unwrap().into_vec(), ["a", "bc"]);
    assert_eq!(npz.read_bytes("notes.txt").unwrap(), b"hello");
    let d = write(Compression::NUMPY_DEFLATED);
    let npz = NpzArchive::new(&d).unwrap();
    assert_eq!(npz.member("f32").unwrap().method, 8);
    assert_eq!(npz.read::<i64>("be").unwrap().into_vec(), [1, 2]);
}

#[test]
fn numpy_layout_puts_data_where_numpy_does() {
    // Rewrite numpy's savez.npz member by member with the unaligned layout: every array's
    // data lands at numpy's offset.
    let entry = manifest()
        .into_iter()
        .find(|e| e["file"] == "savez.npz")
        .unwrap();
    let src = NpzArchive::open(npz_dir().join("savez.npz")).unwrap();
    let mut w = NpzWriter::new(Cursor::new(Vec::new())).alignment(1);
    let keys: Vec<String> = src.keys().map(str::to_owned).collect();
    for key in &keys {
        w.add_dyn(key, &src.read_dyn(key).unwrap()).unwrap();
    }
    let ours = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(&ours).unwrap();
    for key in &keys {
        let numpy = entry["members"][key]["archive_data_offset"]
            .as_u64()
            .unwrap();
        assert_eq!(npz.data_offset(key).unwrap(), numpy, "{key}");
    }
}

#[test]
fn naming_rules() {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add("arr_0", &[1u8], &[1]).unwrap();
    // numpy: "Cannot use un-named variables and keyword arr_0"
    assert!(matches!(
        w.add_positional(&[2u8], &[1]).map_err(Error::into_kind),
        Err(ErrorKind::DuplicateMember)
    ));
    assert!(matches!(
        w.add("arr_0", &[2u8], &[1]).map_err(Error::into_kind),
        Err(ErrorKind::DuplicateMember)
    ));
    assert!(matches!(
        w.add("a\0b", &[2u8], &[1]).map_err(Error::into_kind),
        Err(ErrorKind::InvalidKey { .. })
    ));
    assert!(matches!(
        w.add("", &[2u8], &[1]).map_err(Error::into_kind),
        Err(ErrorKind::InvalidKey { .. })
    ));
    // a refused array leaves no member behind
    assert!(w.add("bad", &[1u8, 2], &[3]).is_err());
    w.add("x.npy", &[3u8], &[1]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(bytes).unwrap();
    let names: Vec<&str> = npz.members().iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["arr_0.npy", "x.npy.npy"]);
}

#[test]
fn streamed_member_and_atomic_path() {
    let path = scratch("streamed.npz");
    let mut w = NpzWriter::create(&path)
        .unwrap()
        .compression(Compression::NUMPY_DEFLATED);
    let mut s = w.stream::<u32>("rows", &WriteOptions::new(), &[3]).unwrap();
    for i in 0..1000u32 {
        s.push_row(&[i, i * 2, i * 3]).unwrap();
    }
    s.finish().unwrap();
    let pending = w.finish_pending().unwrap();
    assert!(!path.exists(), "nothing under the path before commit");
    pending.commit().unwrap();
    let npz = NpzArchive::open(&path).unwrap();
    let a = npz.read::<u32>("rows").unwrap();
    assert_eq!(a.shape(), [1000, 3]);
    assert_eq!(a.get(&[999, 2]), Some(&2997));
}

#[test]
fn crc_is_checked_at_the_end_of_a_read() {
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add("x", &[7u8; 100], &[100]).unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    let at = {
        let npz = NpzArchive::new(&bytes).unwrap();
        npz.data_offset("x").unwrap() as usize
    };
    bytes[at + 50] = 8;
    let npz = NpzArchive::new(&bytes).unwrap();
    assert_eq!(npz.header("x").unwrap().header.shape, [100]);
    for e in [
        npz.read::<u8>("x").unwrap_err(),
        npz.read_dyn("x").unwrap_err(),
        npz.read_bytes("x").unwrap_err(),
        npz.verify("x").unwrap_err(),
    ] {
        assert!(matches!(e.kind(), ErrorKind::CrcMismatch { .. }), "{e}");
    }
    assert!(npz.view_or_copy::<u8>("x").is_ok_and(|a| a.is_borrowed()));
}

/// A `Write + Seek + Read` that keeps only the 64 KiB pages holding a non-zero byte: an
/// archive of gigabytes of zeros costs megabytes.
#[derive(Default)]
struct Sparse {
    pages: std::collections::HashMap<u64, Vec<u8>>,
    len: u64,
    pos: u64,
}

const PAGE: u64 = 1 << 16;

impl std::io::Write for Sparse {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (first, last) = (self.pos / PAGE, (self.pos + buf.len() as u64) / PAGE);
        let untouched = (first..=last).all(|p| !self.pages.contains_key(&p));
        if untouched && buf.iter().all(|&b| b == 0) {
            self.pos += buf.len() as u64;
            self.len = self.len.max(self.pos);
            return Ok(buf.len());
        }
        for (i, &b) in buf.iter().enumerate() {
            let at = self.pos + i as u64;
            if b != 0 || self.pages.contains_key(&(at / PAGE)) {
                let page = self
                    .pages
                    .entry(at / PAGE)
                    .or_insert_with(|| vec![0; PAGE as usize]);
                page[(at % PAGE) as usize] = b;
            }
        }
        self.pos += buf.len() as u64;
        self.len = self.len.max(self.pos);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Read for Sparse {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.len.saturating_sub(self.pos)).min(buf.len() as u64) as usize;
        let mut done = 0;
        while done < n {
            let at = self.pos + done as u64;
            let within = (at % PAGE) as usize;
            let k = (PAGE as usize - within).min(n - done);
            match self.pages.get(&(at / PAGE)) {
                Some(p) => buf[done..done + k].copy_from_slice(&p[within..within + k]),
                None => buf[done..done + k].fill(0),
            }
            done += k;
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl std::io::Seek for Sparse {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.pos = match to {
            std::io::SeekFrom::Start(n) => n,
            std::io::SeekFrom::End(d) => self.len.checked_add_signed(d).unwrap(),
            std::io::SeekFrom::Current(d) => self.pos.checked_add_signed(d).unwrap(),
        };
        Ok(self.pos)
    }
}

impl npy_core::ReadAt for Sparse {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.len)
    }
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let n = (self.len.saturating_sub(offset)).min(buf.len() as u64) as usize;
        let mut done = 0;
        while done < n {
            let at = offset + done as u64;
            let within = (at % PAGE) as usize;
            let k = (PAGE as usize - within).min(n - done);
            match self.pages.get(&(at / PAGE)) {
                Some(p) => buf[done..done + k].copy_from_slice(&p[within..within + k]),
                None => buf[done..done + k].fill(0),
            }
            done += k;
        }
        Ok(n)
    }
}

#[test]
fn every_local_header_is_zip64() {
    // numpy's force_zip64 (gh-10776), and what lets a member of unknown length pass 4 GiB:
    // the local header's sizes are 0xFFFFFFFF, the real ones in a zip64 extra field (id 1).
    let mut w = NpzWriter::new(Cursor::new(Vec::new()));
    w.add("a", &[1u8, 2, 3], &[3]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert_eq!(&bytes[..4], b"PK\x03\x04");
    assert_eq!(
        &bytes[18..26],
        &[0xFF; 8],
        "compressed and uncompressed sizes"
    );
    let name_len = u16::from_le_bytes([bytes[26], bytes[27]]) as usize;
    let extra = &bytes[30 + name_len..];
    assert_eq!(&extra[..2], &[1, 0], "zip64 extra field first");
    let size = u64::from_le_bytes(extra[4..12].try_into().unwrap());
    assert_eq!(size, 128 + 3);
}

/// 4.5 GiB of zeros in one stored member, written and read back without 4.5 GiB of memory
/// or disk (a few seconds in release: `cargo test --release -p npy-core --test npz -- --ignored`).
#[test]
#[ignore = "inflates nothing but hashes 4.5 GiB twice: run in release"]
fn a_member_past_4_gib() {
    let n: u64 = (9 << 29) + 5;
    let npy = npy_core::Header::new("|u1".parse().unwrap(), vec![n])
        .to_bytes(None)
        .unwrap();
    let stream = std::io::Read::chain(&npy[..], std::io::Read::take(std::io::repeat(0), n));
    let mut w = NpzWriter::new(Sparse::default());
    w.add("small", &[7u8], &[1]).unwrap();
    w.add_npy("big", stream).unwrap();
    w.add("after", &[9u16], &[1]).unwrap();
    let mut sparse = w.finish().unwrap();
    sparse.pos = 0;
    assert!(sparse.len > 1 << 32);
    let npz = NpzArchive::new(sparse).unwrap();
    assert_eq!(npz.keys().collect::<Vec<_>>(), ["small", "big", "after"]);
    assert_eq!(npz.member("big").unwrap().size, 128 + n);
    assert!(npz.member("after").unwrap().header_offset > 1 << 32);
    assert_eq!(npz.read::<u16>("after").unwrap().into_vec(), [9]);
    let mut r = npz.npy_reader("big").unwrap();
    assert_eq!(r.shape(), [n]);
    assert_eq!(r.read_range::<u8>(n - 3..n).unwrap(), [0, 0, 0]);
    drop(r);
    npz.verify("big").unwrap();
}

/// A float32 signal whose member (128-byte header + data) is `n * 4 + 128` bytes.
fn signal(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (i as f32 * 0.0007).sin() + (i % 13) as f32 * 1e-3)
        .collect()
}

/// Writes the same members deflated on `threads` threads (`None`: the default).
fn deflated(threads: Option<usize>, big: &[f32]) -> Vec<u8> {
    let mut w = NpzWriter::new(Cursor::new(Vec::new())).compression(Compression::NUMPY_DEFLATED);
    if let Some(n) = threads {
        w = w.threads(n);
    }
    w.add("big", big, &[big.len() as u64]).unwrap();
    // exactly one 1 MiB block: header and data
    let one = vec![0.25f32; ((1 << 20) - 128) / 4];
    w.add("one_block", &one, &[one.len() as u64]).unwrap();
    w.add("empty", &[0f64; 0], &[0]).unwrap();
    w.add_raw("nothing.bin", b"").unwrap();
    let mut rows = w
        .stream::<i32>("streamed", &WriteOptions::new(), &[3])
        .unwrap();
    for i in 0..200_000 {
        rows.push_row(&[i, -i, 7]).unwrap();
    }
    rows.finish().unwrap();
    w.finish().unwrap().into_inner()
}

#[test]
fn parallel_deflate_reads_back_deterministic_and_numpy_sized() {
    // 2.5 MiB + 132 bytes of member: three blocks, the last one short
    let big = signal((5 << 18) + 1);
    let two = deflated(Some(2), &big);
    assert_eq!(two, deflated(Some(2), &big), "same arrays, same bytes");
    assert_eq!(
        two,
        deflated(Some(3), &big),
        "the same bytes for every thread count above 1"
    );
    assert_eq!(
        two,
        deflated(None, &big),
        "the default: blocks, whatever the core count"
    );
    let one = deflated(Some(1), &big);
    assert_ne!(
        one, two,
        "threads(1) is one zlib stream, threads(2) joined blocks"
    );
    for bytes in [&one, &two] {
        let npz = NpzArchive::new(bytes).unwrap();
        assert_eq!(
            npz.keys().collect::<Vec<_>>(),
            ["big", "one_block", "empty", "nothing.bin", "streamed"]
        );
        for key in ["big", "one_block", "empty", "nothing.bin", "streamed"] {
            assert_eq!(npz.member(key).unwrap().method, 8, "{key}");
            npz.verify(key).unwrap(); // inflates to the end and checks the CRC-32
        }
        assert_eq!(npz.read::<f32>("big").unwrap().into_vec(), big);
        let one_block = npz.read::<f32>("one_block").unwrap();
        assert_eq!(npz.member("one_block").unwrap().size, 1 << 20);
        assert!(one_block.data().iter().all(|&x| x == 0.25));
        assert_eq!(npz.read::<f64>("empty").unwrap().shape(), [0]);
        assert_eq!(npz.read_bytes("nothing.bin").unwrap(), b"");
        let streamed = npz.read::<i32>("streamed").unwrap();
        assert_eq!(streamed.shape(), [200_000, 3]);
        assert_eq!(streamed.data()[3 * 199_999..], [199_999, -199_999, 7]);
    }
    // the joined blocks cost a few bytes per block over one stream
    let size = |bytes: &Vec<u8>| {
        let npz = NpzArchive::new(bytes).unwrap();
        npz.member("big").unwrap().compressed_size
    };
    assert!(
        size(&two) <= size(&one) + 64,
        "{} vs {}",
        size(&two),
        size(&one)
    );
}

#[test]
fn a_failed_parallel_member_leaves_the_archive_as_it_was() {
    let big = signal(600_000);
    let mut npy = Vec::new();
    WriteOptions::new()
        .write_to(&mut npy, &big, &[big.len() as u64])
        .unwrap();
    let mut w = NpzWriter::new(Cursor::new(Vec::new()))
        .compression(Compression::NUMPY_DEFLATED)
        .threads(2);
    w.add("before", &[1u8, 2], &[2]).unwrap();
    let cut = &npy[..npy.len() - 10];
    let err = w.add_npy("cut", cut).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::EndsEarly { .. }), "{err}");
    w.add("after", &big, &[big.len() as u64]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(&bytes).unwrap();
    assert_eq!(npz.keys().collect::<Vec<_>>(), ["before", "after"]);
    assert_eq!(npz.read::<f32>("after").unwrap().into_vec(), big);
    npz.verify("after").unwrap();
}

/// A review's find: looking a member up by numpy's key asked the zip crate for the key itself
/// first, and for a key that is no member name (`m7` of `m7.npy`) the zip crate decodes every
/// name, so finding each member was linear and `npy info` of 70,000 members took 266 s. The
/// input: an archive of 70,000 members, each looked up by its key.
#[test]
fn every_key_of_a_70000_member_archive_is_found() {
    let n = 70_000u32;
    let mut w = npy_npz::NpzWriter::new(Cursor::new(Vec::new()));
    for i in 0..n {
        w.add(&format!("m{i}"), &[i], &[1]).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(bytes).unwrap();
    assert_eq!(npz.len(), n as usize);
    for i in (0..n).step_by(7) {
        assert_eq!(npz.index_of(&format!("m{i}")), Some(i as usize), "m{i}");
    }
}

/// Errors about a member name the archive's file and the member's key, in `path()`,
/// `member()` and the message, for every call that takes a key; views over bytes name the key.
#[test]
fn member_errors_name_the_file_and_the_key() {
    let path = npz_dir().join("order_endian.npz");
    let npz = NpzArchive::open(&path).unwrap();
    let prefix = format!("{}: member \"f\": ", path.display());
    let checks = [
        ("read", npz.read::<i32>("f").unwrap_err()),
        (
            "npy_reader",
            npz.npy_reader("f")
                .map(drop)
                .and_then(|()| npz.read::<u8>("f").map(drop))
                .unwrap_err(),
        ),
    ];
    for (what, e) in &checks {
        assert!(
            matches!(e.kind(), ErrorKind::Npy(n) if matches!(n.kind(), npy_core::ErrorKind::TypeMismatch { .. })),
            "{what}: {e:?}"
        );
        assert_eq!(e.path(), Some(path.as_path()), "{what}");
        assert_eq!(e.member(), Some("f"), "{what}");
        assert!(e.to_string().starts_with(&prefix), "{what}: {e}");
    }
    // An archive's own errors name the member once.
    let e = npz.read::<f64>("nope").unwrap_err();
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.member(), Some("nope"));
    assert_eq!(e.to_string().matches("nope").count(), 1, "{e}");
    // An archive that cannot be opened names its file.
    let missing = npz_dir().join("missing.npz");
    let e = NpzArchive::open(&missing).unwrap_err();
    assert_eq!(e.path(), Some(missing.as_path()));
    // Views over bytes know the key, not a file.
    let bytes = std::fs::read(&path).unwrap();
    let e = NpzArchive::new(&bytes)
        .unwrap()
        .view::<f64>("f")
        .unwrap_err();
    assert_eq!((e.path(), e.member()), (None, Some("f")));
    assert!(e.to_string().starts_with("member \"f\": "), "{e}");
}

/// `add` takes a shape as `write` does: `usize` dimensions (a length, ndarray's `shape()`)
/// as well as `u64` ones.
#[test]
fn members_take_any_shape_write_takes() {
    let v: Vec<f32> = (0..6u8).map(f32::from).collect();
    let dims: Vec<usize> = vec![2, v.len() / 2];
    let mut w = npy_npz::NpzWriter::new(Cursor::new(Vec::new()));
    w.add("a", &v, &dims).unwrap();
    w.add("b", &v, &[v.len() as u64]).unwrap();
    w.add("c", &v, &dims[..]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(bytes).unwrap();
    assert_eq!(npz.read::<f32>("a").unwrap().shape(), [2, 3]);
    assert_eq!(npz.read::<f32>("b").unwrap().shape(), [6]);
    assert_eq!(npz.read::<f32>("c").unwrap().shape(), [2, 3]);
}

/// The writer's zip container is zipfile's, byte for byte: `np.savez` and
/// `np.savez_compressed` (with zipfile's clock at 1980-01-01, the timestamp ours writes) give
/// the same bytes as `NpzWriter` with numpy's layout (`alignment(1)`) and, deflated, one zlib
/// stream (`threads(1)`).
#[test]
fn the_container_is_zipfiles_byte_for_byte() {
    let Some(python) = npy_test_support::python::python_for("np.savez's bytes") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = "import sys, time, numpy as np\n\
        time.localtime = lambda *a: time.struct_time((1980, 1, 1, 0, 0, 0, 1, 1, 0))\n\
        a = np.array([1.5, 2.5], dtype=np.float32)\n\
        x = np.arange(5)\n\
        np.savez(sys.argv[1], a, x=x, **{'d/e': np.zeros((2, 3), np.uint8)})\n\
        np.savez_compressed(sys.argv[2], a, x=x, **{'d/e': np.zeros((2, 3), np.uint8)})\n";
    let (stored, deflated) = (dir.path().join("s.npz"), dir.path().join("d.npz"));
    npy_test_support::python::run_script(&python, script, [&stored, &deflated]);
    for (compression, numpy) in [
        (Compression::Stored, &stored),
        (Compression::NUMPY_DEFLATED, &deflated),
    ] {
        let mut w = NpzWriter::new(Cursor::new(Vec::new()))
            .alignment(1)
            .threads(1)
            .compression(compression);
        w.add("x", &[0i64, 1, 2, 3, 4], &[5]).unwrap();
        w.add("d/e", &[0u8; 6], &[2, 3]).unwrap();
        w.add_positional(&[1.5f32, 2.5], &[2]).unwrap();
        let ours = w.finish().unwrap().into_inner();
        assert_eq!(ours, std::fs::read(numpy).unwrap(), "{compression:?}");
    }
}

/// Stored members start at any multiple the writer is given, up to `MAX_ALIGNMENT` (the
/// padding lives in one extra field); the archive reads back (and through zipfile).
#[test]
fn large_alignments_pad_within_one_extra_field() {
    for align in [4096u16, npy_npz::MAX_ALIGNMENT, u16::MAX] {
        let mut w = NpzWriter::new(Cursor::new(Vec::new())).alignment(align);
        w.add("a", &[1u8, 2, 3], &[3]).unwrap();
        w.add("b", &[4u16], &[1]).unwrap();
        let bytes = w.finish().unwrap().into_inner();
        let npz = NpzArchive::new(&bytes).unwrap();
        let want = u64::from(align.min(npy_npz::MAX_ALIGNMENT));
        for key in ["a", "b"] {
            assert_eq!(
                npz.member_range(key).unwrap().start % want,
                0,
                "{align} {key}"
            );
        }
        assert_eq!(npz.read::<u16>("b").unwrap().into_vec(), [4]);
    }
}
