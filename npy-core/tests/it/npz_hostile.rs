//! Hostile `.npz` archives, built byte by byte: each is a typed error (or reads right), never
//! a panic or an allocation the archive cannot back.

#![cfg(feature = "npz")]

use std::io::{Cursor, Write};

use npy_core::npz::{NpzArchive, NpzError, NpzWriter};
use npy_core::{Error, Header};

/// One member as it will be laid out (no zip64: the table controls every 32-bit field).
struct Entry {
    name: &'static str,
    method: u16,
    flags: u16,
    /// The bytes in the archive (compressed when method 8).
    data: Vec<u8>,
    size: u32,
    crc: u32,
    local_extra: Vec<u8>,
    /// Overrides the central directory's compressed size.
    cd_csize: Option<u32>,
}

impl Entry {
    fn stored(name: &'static str, data: Vec<u8>) -> Entry {
        Entry {
            name,
            method: 0,
            flags: 0,
            size: data.len() as u32,
            crc: crc32fast::hash(&data),
            data,
            local_extra: Vec::new(),
            cd_csize: None,
        }
    }

    fn deflated(name: &'static str, plain: &[u8]) -> Entry {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(plain).unwrap();
        Entry {
            name,
            method: 8,
            flags: 0,
            size: plain.len() as u32,
            crc: crc32fast::hash(plain),
            data: e.finish().unwrap(),
            local_extra: Vec::new(),
            cd_csize: None,
        }
    }
}

/// A zip of `entries`; `count` overrides the end record's member count.
fn zip(entries: &[Entry], count: Option<u16>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for e in entries {
        offsets.push(out.len() as u32);
        out.extend_from_slice(b"PK\x03\x04");
        for v in [20u16, e.flags, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(e.local_extra.len() as u16).to_le_bytes());
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&e.local_extra);
        out.extend_from_slice(&e.data);
    }
    let cd_start = out.len() as u32;
    for (e, off) in entries.iter().zip(&offsets) {
        out.extend_from_slice(b"PK\x01\x02");
        for v in [20u16, 20, e.flags, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let csize = e.cd_csize.unwrap_or(e.data.len() as u32);
        for v in [e.crc, csize, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.name.len() as u16, 0, 0, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(e.name.as_bytes());
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

/// A `.npy` file of `n` u8 elements; the header may claim `claim` elements instead.
fn npy(n: usize, claim: u64) -> Vec<u8> {
    let mut b = Header::new("|u1".parse().unwrap(), vec![claim])
        .to_bytes(None)
        .unwrap();
    b.extend((0..n).map(|i| i as u8));
    b
}

/// What reading member `x` of `archive` gives.
fn read(archive: &[u8]) -> Result<Vec<u8>, Error> {
    NpzArchive::new(Cursor::new(archive))?
        .read::<u8>("x")
        .map(npy_core::NpyArray::into_vec)
}

fn npz_err(r: Result<Vec<u8>, Error>) -> NpzError {
    match r.map_err(Error::into_kind) {
        Err(npy_core::ErrorKind::Npz(e)) => e,
        other => panic!("expected an npz error, got {other:?}"),
    }
}

#[test]
fn well_formed_archives_read() {
    let want: Vec<u8> = (0..100).collect();
    assert_eq!(
        read(&zip(&[Entry::stored("x.npy", npy(100, 100))], None)).unwrap(),
        want
    );
    assert_eq!(
        read(&zip(&[Entry::deflated("x.npy", &npy(100, 100))], None)).unwrap(),
        want
    );
}

#[test]
fn the_local_header_gives_the_extra_field_length() {
    // 40 bytes of local extra field that the central directory does not have
    let mut e = Entry::stored("x.npy", npy(10, 10));
    e.local_extra = [0x34u8, 0x12, 36, 0]
        .into_iter()
        .chain([0xAA; 36])
        .collect();
    let archive = zip(&[e], None);
    assert_eq!(read(&archive).unwrap(), (0..10).collect::<Vec<u8>>());
    let mut npz = NpzArchive::new(Cursor::new(&archive)).unwrap();
    assert_eq!(npz.data_offset("x").unwrap(), 30 + 5 + 40 + 128);
}

/// What the archive is, its bytes, and the error it must give.
type Case = (&'static str, Vec<u8>, fn(&NpzError) -> bool);

#[test]
fn hostile_table() {
    let big = npy(100, 100);
    let cases: Vec<Case> = vec![
        (
            "unsupported method (bzip2)",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.method = 12;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::UnsupportedMethod { method: 12, .. }),
        ),
        (
            "unsupported method (aes)",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.method = 99;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::UnsupportedMethod { method: 99, .. }),
        ),
        (
            "encrypted",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.flags = 1;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::Encrypted { .. }),
        ),
        (
            "stored size past the central directory",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.cd_csize = Some(1 << 30);
                e.size = 1 << 30;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::Unbacked { claimed, .. } if *claimed == 1 << 30),
        ),
        (
            "stored sizes disagree",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.size = 90;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::Unbacked { .. }),
        ),
        (
            "deflate claims past its ratio (a header of 4 GiB)",
            {
                let mut e = Entry::deflated("x.npy", &npy(0, 0xFFFF_0000));
                e.size = u32::MAX;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::Unbacked { .. }),
        ),
        (
            "header claims more than the member",
            { zip(&[Entry::stored("x.npy", npy(100, 1000))], None) },
            |e| {
                matches!(
                    e,
                    NpzError::SizeMismatch {
                        declared: 228,
                        needed: 1128,
                        ..
                    }
                )
            },
        ),
        (
            "header claims less than the member",
            { zip(&[Entry::stored("x.npy", npy(100, 10))], None) },
            |e| {
                matches!(
                    e,
                    NpzError::SizeMismatch {
                        declared: 228,
                        needed: 138,
                        ..
                    }
                )
            },
        ),
        (
            "deflate stream inflates past the declared size",
            {
                let plain = npy(300, 100);
                let mut e = Entry::deflated("x.npy", &plain);
                e.size = 228; // what the header needs; the stream holds 200 bytes more
                e.crc = crc32fast::hash(&plain[..228]);
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::InflatesPast { declared: 228, .. }),
        ),
        (
            "CRC mismatch",
            {
                let mut e = Entry::stored("x.npy", big.clone());
                e.crc ^= 1;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::CrcMismatch { .. }),
        ),
        (
            "deflated CRC mismatch",
            {
                let mut e = Entry::deflated("x.npy", &big);
                e.crc ^= 1;
                zip(&[e], None)
            },
            |e| matches!(e, NpzError::CrcMismatch { .. }),
        ),
        (
            "not an .npy member",
            { zip(&[Entry::stored("x.npy", b"PK not numpy".to_vec())], None) },
            |e| matches!(e, NpzError::NotNpyMember { .. }),
        ),
        (
            "huge member count",
            zip(&[Entry::stored("x.npy", big.clone())], Some(u16::MAX)),
            |e| matches!(e, NpzError::Container(_)),
        ),
        ("not a zip", b"PK\x03\x04 and then nothing".to_vec(), |e| {
            matches!(e, NpzError::Container(_))
        }),
    ];
    for (what, archive, expect) in cases {
        let e = npz_err(read(&archive));
        assert!(expect(&e), "{what}: {e}");
        // the message names the member where there is one
        if !matches!(e, NpzError::Container(_)) {
            assert!(e.to_string().contains("x.npy"), "{what}: {e}");
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for archive in [
        zip(&[Entry::stored("x.npy", npy(100, 100))], None),
        zip(&[Entry::deflated("x.npy", &npy(100, 100))], None),
    ] {
        for len in 0..archive.len() {
            let cut = &archive[..len];
            let r = NpzArchive::new(Cursor::new(cut)).and_then(|mut a| a.read::<u8>("x"));
            assert!(r.is_err(), "a cut at {len} of {} read", archive.len());
        }
    }
}

#[test]
fn seventy_thousand_members_open() {
    // numpy writes zip64 end records past 65,535 members; opening is linear in the count.
    let mut w = NpzWriter::new(Cursor::new(Vec::new())).alignment(1);
    for i in 0..70_000u32 {
        w.add(&format!("k{i}"), &[i as u8], &[]).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let mut npz = NpzArchive::new(Cursor::new(&bytes)).unwrap();
    assert_eq!(npz.len(), 70_000);
    assert_eq!(npz.keys().nth(69_999), Some("k69999"));
    assert_eq!(
        npz.read::<u8>("k69999").unwrap().into_vec(),
        [69_999u32 as u8]
    );
}

// ---------------------------------------------------------------------------------------------
// round two (issue 23, ../shared/cases/turn3/r02, r11, r15): zip as Python's zipfile reads it
// ---------------------------------------------------------------------------------------------

/// A central-directory entry laid out by hand: its names (central and local), flags, extra
/// fields, and where its local header is (an index into the local headers written).
struct Dir {
    name: Vec<u8>,
    local_name: Vec<u8>,
    flags: u16,
    method: u16,
    data: Vec<u8>,
    size: u32,
    crc: u32,
    extra: Vec<u8>,
    /// Which local header the entry points at (several may point at one).
    points_at: usize,
}

impl Dir {
    fn stored(name: &str, data: Vec<u8>) -> Dir {
        Dir {
            name: name.as_bytes().to_vec(),
            local_name: name.as_bytes().to_vec(),
            flags: 0,
            method: 0,
            size: data.len() as u32,
            crc: crc32fast::hash(&data),
            data,
            extra: Vec::new(),
            points_at: usize::MAX,
        }
    }
}

/// An archive: a local header and data for each entry that points at itself, then a central
/// directory of every entry, then an end record counting `count` (default: all) entries.
fn raw_zip(entries: &[Dir], count: Option<u16>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        offsets.push(out.len() as u32);
        if e.points_at != usize::MAX && e.points_at != i {
            continue;
        }
        out.extend_from_slice(b"PK\x03\x04");
        for v in [20u16, e.flags, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.local_name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(e.extra.len() as u16).to_le_bytes());
        out.extend_from_slice(&e.local_name);
        out.extend_from_slice(&e.extra);
        out.extend_from_slice(&e.data);
    }
    let cd_start = out.len() as u32;
    for (i, e) in entries.iter().enumerate() {
        let at = if e.points_at == usize::MAX {
            i
        } else {
            e.points_at
        };
        out.extend_from_slice(b"PK\x01\x02");
        for v in [0x031e_u16, 20, e.flags, e.method, 0, 0x21] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.crc, e.data.len() as u32, e.size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [e.name.len() as u16, e.extra.len() as u16, 0, 0, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&offsets[at].to_le_bytes());
        out.extend_from_slice(&e.name);
        out.extend_from_slice(&e.extra);
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

/// `np.save` of `np.arange(3)` (int64), as r15 stores it.
fn arange3() -> Vec<u8> {
    let mut b = Header::new("<i8".parse().unwrap(), vec![3])
        .to_bytes(None)
        .unwrap();
    for i in 0..3i64 {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

/// The keys an archive lists, or its error.
fn keys(archive: &[u8]) -> Result<Vec<String>, Error> {
    Ok(NpzArchive::new(Cursor::new(archive))?
        .keys()
        .map(str::to_owned)
        .collect())
}

fn member_bytes(archive: &[u8], key: &str) -> Result<Vec<u8>, Error> {
    NpzArchive::new(Cursor::new(archive))?.read_bytes(key)
}

/// r11: a member whose directory says 0 bytes is CRC-checked like any other (the old reader
/// never checked it, as the check ran only on a read that returned bytes): a recorded CRC of
/// 208 deflated bytes is not the CRC of nothing. A zero-size member with CRC 0 reads (empty),
/// stored or deflated; variants: its deflate stream holding bytes is `InflatesPast`.
#[test]
fn r11_zero_size_members_have_their_crc_checked() {
    let data = arange3();
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    enc.write_all(&data).unwrap();
    let comp = enc.finish().unwrap();
    let mut e = Dir::stored("a.npy", comp.clone());
    e.method = 8;
    e.size = 0;
    e.crc = crc32fast::hash(&data);
    let archive = raw_zip(&[e], None);
    let err = npz_err(member_bytes(&archive, "a"));
    assert!(
        matches!(err, NpzError::CrcMismatch { expected, found: 0, .. } if expected == crc32fast::hash(&data))
            || matches!(err, NpzError::InflatesPast { declared: 0, .. }),
        "{err}"
    );
    let err = npz_err(
        NpzArchive::new(Cursor::new(&archive))
            .and_then(|mut z| z.verify("a"))
            .map(|()| Vec::new()),
    );
    assert!(
        matches!(
            err,
            NpzError::CrcMismatch { .. } | NpzError::InflatesPast { .. }
        ),
        "{err}"
    );
    // A stored empty member with a wrong CRC.
    let mut e = Dir::stored("b.npy", Vec::new());
    e.crc = 0x1234_5678;
    let archive = raw_zip(&[e], None);
    assert!(matches!(
        npz_err(member_bytes(&archive, "b")),
        NpzError::CrcMismatch {
            expected: 0x1234_5678,
            found: 0,
            ..
        }
    ));
    assert!(NpzArchive::new(Cursor::new(&archive))
        .unwrap()
        .is_npy("b")
        .is_err());
    // Right CRCs read: empty, stored or deflated (the empty deflate stream is 0x03 0x00).
    let archive = raw_zip(&[Dir::stored("c.npy", Vec::new())], None);
    assert_eq!(member_bytes(&archive, "c").unwrap(), b"");
    let mut e = Dir::stored("d.npy", vec![0x03, 0x00]);
    e.method = 8;
    e.size = 0;
    e.crc = 0;
    let archive = raw_zip(&[e], None);
    assert_eq!(member_bytes(&archive, "d").unwrap(), b"");
}

/// r02: K directory entries with distinct names all pointing at one local entry. As unzip's
/// check over every entry's range (local header to end of data), every member that shares
/// bytes with another is refused, the first too (Python's zipfile reads the first and
/// refuses the others, whose local name differs). Variants: an entry pointing into another's
/// data (both refused), two members back to back (both read).
#[test]
fn r02_members_that_share_bytes_are_refused() {
    let data = arange3();
    let mut entries: Vec<Dir> = (0..4)
        .map(|i| {
            let mut e = Dir::stored(&format!("m{i}.npy"), data.clone());
            e.local_name = b"m0.npy".to_vec();
            e.points_at = 0;
            e
        })
        .collect();
    entries[0].points_at = usize::MAX;
    let archive = raw_zip(&entries, None);
    assert_eq!(keys(&archive).unwrap(), ["m0", "m1", "m2", "m3"]);
    assert!(matches!(
        npz_err(member_bytes(&archive, "m0")),
        NpzError::Overlapped { next: 0, .. }
    ));
    for k in ["m1", "m2", "m3"] {
        // zipfile checks the local name first ("File name in directory ... and header ...
        // differ"), then the overlap; either refuses.
        let err = npz_err(member_bytes(&archive, k));
        assert!(matches!(err, NpzError::NameMismatch { .. }), "{k}: {err}");
    }
    // Two members laid out back to back (a's data ends exactly where b's header starts: read).
    let a = Dir::stored("a.npy", data.clone());
    let b = Dir::stored("b.npy", data.clone());
    let good = raw_zip(&[a, b], None);
    assert_eq!(member_bytes(&good, "a").unwrap(), data);
    assert_eq!(member_bytes(&good, "b").unwrap(), data);
    // Patch b's central offset to point 10 bytes into a's data: a and b share bytes.
    let mut bad = good.clone();
    let cd = bad.len() - 22 - 2 * 46 - 10;
    let b_entry = cd + 46 + 5;
    let a_data = 30 + 5;
    bad[b_entry + 42..b_entry + 46].copy_from_slice(&((a_data + 10) as u32).to_le_bytes());
    let err = npz_err(member_bytes(&bad, "a"));
    assert!(
        matches!(err, NpzError::Overlapped { data_end, next, .. } if next == (a_data + 10) as u64 && data_end == (a_data + data.len()) as u64),
        "{err}"
    );
    // b's "local header" is a's data: refused by the zip crate before the overlap check.
    assert!(member_bytes(&bad, "b").is_err());
}

/// r15: the archives numpy reads differently from the old reader, each read as numpy reads
/// it or refused where zipfile refuses, checked against numpy's `np.load` when the project's
/// Python is there (the expected values below are what numpy 2.4.6 under Python 3.11 gives).
#[test]
fn r15_zip_differentials_follow_zipfile() {
    let p = arange3();
    // EOCD count 0 with a real directory: numpy lists 'a' (zipfile reads the directory by
    // its size); this reader refuses the disagreement rather than read an empty archive.
    let count0 = raw_zip(&[Dir::stored("a.npy", p.clone())], Some(0));
    let err = npz_err(keys(&count0).map(|_| Vec::new()));
    assert!(
        matches!(&err, NpzError::Container(m) if m.contains("counts 0 entries")),
        "{err}"
    );
    // Local name != central name: listed under the central name, refused when read.
    let mut e = Dir::stored("ok.npy", p.clone());
    e.local_name = b"../../evil.npy".to_vec();
    let differs = raw_zip(&[e], None);
    assert_eq!(keys(&differs).unwrap(), ["ok"]);
    assert!(matches!(
        npz_err(member_bytes(&differs, "ok")),
        NpzError::NameMismatch { ref local, .. } if local == "../../evil.npy"
    ));
    // Unicode Path extra field naming 'renamed.npy': zipfile ignores it, the key is 'benign'.
    let mut up = vec![1u8];
    up.extend_from_slice(&crc32fast::hash(b"benign.npy").to_le_bytes());
    up.extend_from_slice(b"renamed.npy");
    let mut e = Dir::stored("benign.npy", p.clone());
    e.extra = [0x75u8, 0x70]
        .into_iter()
        .chain((up.len() as u16).to_le_bytes())
        .chain(up)
        .collect();
    let unicode = raw_zip(&[e], None);
    assert_eq!(keys(&unicode).unwrap(), ["benign"]);
    assert_eq!(member_bytes(&unicode, "benign").unwrap(), p);
    // Invalid UTF-8 under the UTF-8 flag: zipfile refuses the archive (UnicodeDecodeError).
    let mut e = Dir::stored("x.npy", p.clone());
    e.name = b"\xff\xfe.npy".to_vec();
    e.local_name = e.name.clone();
    e.flags = 1 << 11;
    let bad_utf8 = raw_zip(&[e], None);
    let err = npz_err(keys(&bad_utf8).map(|_| Vec::new()));
    assert!(
        matches!(&err, NpzError::Container(m) if m.contains("UTF-8 flag")),
        "{err}"
    );
    // Without the flag the same bytes are CP437, as zipfile decodes them.
    let mut e = Dir::stored("x.npy", p.clone());
    e.name = b"\x80\x9a\xe1.npy".to_vec();
    e.local_name = e.name.clone();
    let cp437 = raw_zip(&[e], None);
    assert_eq!(keys(&cp437).unwrap(), ["ÇÜß"]);
    // UTF-8 names under the flag.
    let mut e = Dir::stored("x.npy", p.clone());
    e.name = "é.npy".as_bytes().to_vec();
    e.local_name = e.name.clone();
    e.flags = 1 << 11;
    let utf8 = raw_zip(&[e], None);
    assert_eq!(keys(&utf8).unwrap(), ["é"]);

    // numpy's own reading of the same bytes.
    let Some(python) = npy_test_support::python::python_for("np.load of r15's archives") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = "import sys, numpy as np\nfor f in sys.argv[1:]:\n    try:\n        z = np.load(f)\n        out = []\n        for k in z.files:\n            try: z[k]; out.append(k)\n            except Exception as e: out.append(k + '!' + type(e).__name__)\n        print(','.join(out))\n    except Exception as e: print('!' + type(e).__name__)\n";
    let cases = [
        ("count0", &count0, "a"),
        ("differs", &differs, "ok!BadZipFile"),
        ("unicode", &unicode, "benign"),
        ("bad_utf8", &bad_utf8, "!UnicodeDecodeError"),
        ("cp437", &cp437, "ÇÜß"),
        ("utf8", &utf8, "é"),
    ];
    let mut args = Vec::new();
    for (name, bytes, _) in &cases {
        let path = dir.path().join(format!("{name}.npz"));
        std::fs::write(&path, bytes).unwrap();
        args.push(path);
    }
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .args(&args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    let want: Vec<&str> = cases.iter().map(|c| c.2).collect();
    assert_eq!(got, want, "{}", String::from_utf8_lossy(&out.stderr));
}
