//! Hostile `.npz` archives, built byte by byte: each is a typed error (or reads right), never
//! a panic or an allocation the archive cannot back.

use npy_core::Header;
use npy_npz::{ContainerFault, Error, ErrorKind, NpzArchive, NpzWriter};
use npy_test_support::zip::{crc32, deflate, zip, zip_with, Layout, ZipEntry};

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
    NpzArchive::new(archive)?
        .read::<u8>("x")
        .map(npy_core::NpyArray::into_vec)
}

fn npz_err(r: Result<Vec<u8>, Error>) -> ErrorKind {
    match r {
        Err(e) => e.into_kind(),
        Ok(v) => panic!("expected an npz error, read {} bytes", v.len()),
    }
}

#[test]
fn well_formed_archives_read() {
    let want: Vec<u8> = (0..100).collect();
    assert_eq!(
        read(&zip(&[ZipEntry::stored("x.npy", &npy(100, 100))], None)).unwrap(),
        want
    );
    assert_eq!(
        read(&zip(&[ZipEntry::deflated("x.npy", &npy(100, 100))], None)).unwrap(),
        want
    );
}

#[test]
fn the_local_header_gives_the_extra_field_length() {
    // 40 bytes of local extra field that the central directory does not have
    let mut e = ZipEntry::stored("x.npy", &npy(10, 10));
    e.local_extra = [0x34u8, 0x12, 36, 0]
        .into_iter()
        .chain([0xAA; 36])
        .collect();
    let archive = zip(&[e], None);
    assert_eq!(read(&archive).unwrap(), (0..10).collect::<Vec<u8>>());
    let npz = NpzArchive::new(&archive).unwrap();
    assert_eq!(npz.data_offset("x").unwrap(), 30 + 5 + 40 + 128);
}

/// What the archive is, its bytes, and the error it must give.
type Case = (&'static str, Vec<u8>, fn(&ErrorKind) -> bool);

#[test]
fn hostile_table() {
    let big = npy(100, 100);
    let cases: Vec<Case> = vec![
        (
            "unsupported method (bzip2)",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.method = 12;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::UnsupportedMethod { method: 12, .. }),
        ),
        (
            "unsupported method (aes)",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.method = 99;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::UnsupportedMethod { method: 99, .. }),
        ),
        (
            "encrypted",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.flags = 1;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::Encrypted),
        ),
        (
            "stored size past the central directory",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.cd_csize = Some(1 << 30);
                e.size = 1 << 30;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::Unbacked { claimed, .. } if *claimed == 1 << 30),
        ),
        (
            // zipfile reads a stored member's first `size` bytes: here a cut `.npy`
            "stored size below the stored bytes",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.size = 90;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::Npy(_)),
        ),
        (
            "stored size past the stored bytes",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.size = 300;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::Unbacked { .. }),
        ),
        (
            "deflate claims past its ratio (a header of 4 GiB)",
            {
                let mut e = ZipEntry::deflated("x.npy", &npy(0, 0xFFFF_0000));
                e.size = u32::MAX;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::Unbacked { .. }),
        ),
        (
            "header claims more than the member",
            { zip(&[ZipEntry::stored("x.npy", &npy(100, 1000))], None) },
            |e| {
                matches!(
                    e,
                    ErrorKind::SizeMismatch {
                        declared: 228,
                        needed: 1128,
                        ..
                    }
                )
            },
        ),
        (
            "header claims less than the member",
            { zip(&[ZipEntry::stored("x.npy", &npy(100, 10))], None) },
            |e| {
                matches!(
                    e,
                    ErrorKind::SizeMismatch {
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
                let mut e = ZipEntry::deflated("x.npy", &plain);
                e.size = 228; // what the header needs; the stream holds 200 bytes more
                e.crc = crc32(&plain[..228]);
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::InflatesPast { declared: 228, .. }),
        ),
        (
            "CRC mismatch",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.crc ^= 1;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::CrcMismatch { .. }),
        ),
        (
            "deflated CRC mismatch",
            {
                let mut e = ZipEntry::deflated("x.npy", &big);
                e.crc ^= 1;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::CrcMismatch { .. }),
        ),
        (
            "not an .npy member",
            { zip(&[ZipEntry::stored("x.npy", b"PK not numpy")], None) },
            |e| matches!(e, ErrorKind::NotNpyMember { .. }),
        ),
        (
            "strong encryption (flag bit 6)",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.flags = 1 << 6;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::UnsupportedFlags { flags: 0x40 }),
        ),
        (
            "compressed patched data (flag bit 5)",
            {
                let mut e = ZipEntry::stored("x.npy", &big);
                e.flags = 1 << 5;
                zip(&[e], None)
            },
            |e| matches!(e, ErrorKind::UnsupportedFlags { flags: 0x20 }),
        ),
        ("not a zip", b"PK\x03\x04 and then nothing".to_vec(), |e| {
            matches!(e, ErrorKind::NoEndRecord)
        }),
    ];
    for (what, archive, expect) in cases {
        let e = read(&archive).unwrap_err();
        assert!(expect(e.kind()), "{what}: {e}");
        // the message names the member where there is one
        if !matches!(
            e.kind(),
            ErrorKind::Container { .. } | ErrorKind::NoEndRecord
        ) {
            assert_eq!(e.member(), Some("x"), "{what}: {e}");
            assert!(e.to_string().starts_with("member \"x\": "), "{what}: {e}");
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for archive in [
        zip(&[ZipEntry::stored("x.npy", &npy(100, 100))], None),
        zip(&[ZipEntry::deflated("x.npy", &npy(100, 100))], None),
    ] {
        for len in 0..archive.len() {
            let cut = &archive[..len];
            let r = NpzArchive::new(cut).and_then(|a| a.read::<u8>("x"));
            assert!(r.is_err(), "a cut at {len} of {} read", archive.len());
        }
    }
}

#[test]
fn seventy_thousand_members_open() {
    // numpy writes zip64 end records past 65,535 members; opening is linear in the count.
    let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new())).alignment(1);
    for i in 0..70_000u32 {
        w.add(&format!("k{i}"), &[i as u8], &[]).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let npz = NpzArchive::new(&bytes).unwrap();
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
    Ok(NpzArchive::new(archive)?
        .keys()
        .map(str::to_owned)
        .collect())
}

fn member_bytes(archive: &[u8], key: &str) -> Result<Vec<u8>, Error> {
    NpzArchive::new(archive)?.read_bytes(key)
}

/// r11: a member whose directory says 0 bytes is CRC-checked like any other (the old reader
/// never checked it, as the check ran only on a read that returned bytes): a recorded CRC of
/// 208 deflated bytes is not the CRC of nothing. A zero-size member with CRC 0 reads (empty),
/// stored or deflated; variants: its deflate stream holding bytes is `InflatesPast`.
#[test]
fn r11_zero_size_members_have_their_crc_checked() {
    let data = arange3();
    let comp = deflate(&data);
    let mut e = ZipEntry::stored("a.npy", &comp);
    e.method = 8;
    e.size = 0;
    e.crc = crc32(&data);
    let archive = zip(&[e], None);
    let err = npz_err(member_bytes(&archive, "a"));
    assert!(
        matches!(err, ErrorKind::CrcMismatch { expected, found: 0, .. } if expected == crc32(&data))
            || matches!(err, ErrorKind::InflatesPast { declared: 0, .. }),
        "{err}"
    );
    let err = npz_err(
        NpzArchive::new(&archive)
            .and_then(|z| z.verify("a"))
            .map(|()| Vec::new()),
    );
    assert!(
        matches!(
            err,
            ErrorKind::CrcMismatch { .. } | ErrorKind::InflatesPast { .. }
        ),
        "{err}"
    );
    // A stored empty member with a wrong CRC.
    let mut e = ZipEntry::stored("b.npy", &[]);
    e.crc = 0x1234_5678;
    let archive = zip(&[e], None);
    assert!(matches!(
        npz_err(member_bytes(&archive, "b")),
        ErrorKind::CrcMismatch {
            expected: 0x1234_5678,
            found: 0,
            ..
        }
    ));
    assert!(NpzArchive::new(&archive).unwrap().is_npy("b").is_err());
    // Right CRCs read: empty, stored or deflated (the empty deflate stream is 0x03 0x00).
    let archive = zip(&[ZipEntry::stored("c.npy", &[])], None);
    assert_eq!(member_bytes(&archive, "c").unwrap(), b"");
    let mut e = ZipEntry::stored("d.npy", &[0x03, 0x00]);
    e.method = 8;
    e.size = 0;
    e.crc = 0;
    let archive = zip(&[e], None);
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
    let mut entries: Vec<ZipEntry> = (0..4)
        .map(|i| {
            let mut e = ZipEntry::stored(&format!("m{i}.npy"), &data);
            e.local_name = b"m0.npy".to_vec();
            e.points_at = Some(0);
            e
        })
        .collect();
    entries[0].points_at = None;
    let archive = zip(&entries, None);
    assert_eq!(keys(&archive).unwrap(), ["m0", "m1", "m2", "m3"]);
    assert!(matches!(
        npz_err(member_bytes(&archive, "m0")),
        ErrorKind::Overlapped { next: 0, .. }
    ));
    for k in ["m1", "m2", "m3"] {
        // zipfile checks the local name first ("File name in directory ... and header ...
        // differ"), then the overlap; either refuses.
        let err = npz_err(member_bytes(&archive, k));
        assert!(matches!(err, ErrorKind::NameMismatch { .. }), "{k}: {err}");
    }
    // Two members laid out back to back (a's data ends exactly where b's header starts: read).
    let a = ZipEntry::stored("a.npy", &data);
    let b = ZipEntry::stored("b.npy", &data);
    let good = zip(&[a, b], None);
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
        matches!(err, ErrorKind::Overlapped { data_end, next, .. } if next == (a_data + 10) as u64 && data_end == (a_data + data.len()) as u64),
        "{err}"
    );
    // b's "local header" is a's data: refused by the zip crate before the overlap check.
    assert!(member_bytes(&bad, "b").is_err());
}

/// A local header's extra field that the directory does not show, long enough to move the
/// member's data into the next member's local header: opening reads no local header (the
/// overlap check there runs over the directory's entries), so the first read of that member
/// finds it and refuses it (zipfile's "Overlapped entries" check at `open`, Python 3.12 on;
/// the pinned Python 3.11 refuses it too, by the CRC of the bytes it reads instead); the next
/// member, whose bytes are its own, reads. numpy's `np.load` agrees when the pinned Python is
/// there.
#[test]
fn a_local_extra_field_that_runs_into_the_next_member_is_refused_at_first_read() {
    let data = arange3();
    let good = zip(
        &[
            ZipEntry::stored("a.npy", &data),
            ZipEntry::stored("b.npy", &data),
        ],
        None,
    );
    let b_offset = 30 + 5 + data.len();
    for extra in [1u16, 20] {
        let mut bad = good.clone();
        // a's local extra field length (APPNOTE 4.3.7, offset 28): a's data moves `extra`
        // bytes on, over b's local header.
        bad[28..30].copy_from_slice(&extra.to_le_bytes());
        let npz = NpzArchive::new(&bad[..]).unwrap();
        let err = npz.read_bytes("a").unwrap_err().into_kind();
        let a_end = b_offset + usize::from(extra);
        assert!(
            matches!(err, ErrorKind::Overlapped { data_end, next } if next == b_offset as u64 && data_end == a_end as u64),
            "{err}"
        );
        assert!(matches!(
            npz.header("a").unwrap_err().into_kind(),
            ErrorKind::Overlapped { .. }
        ));
        assert_eq!(npz.read_bytes("b").unwrap(), data);

        let Some(python) = npy_test_support::python::python_for("np.load of an overlapped member")
        else {
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npz");
        std::fs::write(&path, &bad).unwrap();
        let script = "import sys, numpy as np\nz = np.load(sys.argv[1])\nfor k in ('a', 'b'):\n    try: print(k, z[k].tolist())\n    except Exception as e: print(k, type(e).__name__)\n";
        let out = std::process::Command::new(python)
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            text,
            "a BadZipFile\nb [0, 1, 2]\n",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// r15: the archives numpy reads differently from the old reader, each read as numpy reads
/// it or refused where zipfile refuses, checked against numpy's `np.load` when the project's
/// Python is there (the expected values below are what numpy 2.4.6 under Python 3.11 gives).
#[test]
fn r15_zip_differentials_follow_zipfile() {
    let p = arange3();
    // EOCD count 0 with a real directory: numpy lists 'a' (zipfile reads the directory by
    // its size and offset, never by the count), and so does this reader; a count past the
    // entries too.
    let count0 = zip(&[ZipEntry::stored("a.npy", &p)], Some(0));
    assert_eq!(keys(&count0).unwrap(), ["a"]);
    assert_eq!(member_bytes(&count0, "a").unwrap(), p);
    let count_max = zip(&[ZipEntry::stored("a.npy", &p)], Some(u16::MAX));
    assert_eq!(keys(&count_max).unwrap(), ["a"]);
    // Local name != central name: listed under the central name, refused when read.
    let mut e = ZipEntry::stored("ok.npy", &p);
    e.local_name = b"../../evil.npy".to_vec();
    let differs = zip(&[e], None);
    assert_eq!(keys(&differs).unwrap(), ["ok"]);
    assert!(matches!(
        npz_err(member_bytes(&differs, "ok")),
        ErrorKind::NameMismatch { ref local, .. } if local == "../../evil.npy"
    ));
    // Unicode Path extra field naming 'renamed.npy': zipfile ignores it, the key is 'benign'.
    let mut up = vec![1u8];
    up.extend_from_slice(&crc32(b"benign.npy").to_le_bytes());
    up.extend_from_slice(b"renamed.npy");
    let mut e = ZipEntry::stored("benign.npy", &p);
    e.extra = [0x75u8, 0x70]
        .into_iter()
        .chain((up.len() as u16).to_le_bytes())
        .chain(up)
        .collect();
    e.local_extra = e.extra.clone();
    let unicode = zip(&[e], None);
    assert_eq!(keys(&unicode).unwrap(), ["benign"]);
    assert_eq!(member_bytes(&unicode, "benign").unwrap(), p);
    // Invalid UTF-8 under the UTF-8 flag: zipfile refuses the archive (UnicodeDecodeError).
    let mut e = ZipEntry::stored("x.npy", &p);
    e.name = b"\xff\xfe.npy".to_vec();
    e.local_name = e.name.clone();
    e.flags = 1 << 11;
    let bad_utf8 = zip(&[e], None);
    let err = npz_err(keys(&bad_utf8).map(|_| Vec::new()));
    assert!(matches!(&err, ErrorKind::BadUtf8Name { .. }), "{err}");
    // Without the flag the same bytes are CP437, as zipfile decodes them.
    let mut e = ZipEntry::stored("x.npy", &p);
    e.name = b"\x80\x9a\xe1.npy".to_vec();
    e.local_name = e.name.clone();
    let cp437 = zip(&[e], None);
    assert_eq!(keys(&cp437).unwrap(), ["ÇÜß"]);
    // UTF-8 names under the flag.
    let mut e = ZipEntry::stored("x.npy", &p);
    e.name = "é.npy".as_bytes().to_vec();
    e.local_name = e.name.clone();
    e.flags = 1 << 11;
    let utf8 = zip(&[e], None);
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

/// Every central entry (46 bytes, no name) points at one local header whose name length says
/// 65535: opening read 64 KiB per entry for the error message (1 MB of archive, 1.4 GB of
/// memory, and one request per entry on a remote source). The name is now judged from the
/// batch of small reads; the entries are refused as overlapping, each with a bounded message.
#[test]
fn a01_local_name_length_does_not_size_reads() {
    let mut first = ZipEntry::stored("", &[]);
    first.local_name = vec![b'x'; 65535];
    let mut entries = vec![first];
    for _ in 1..2000 {
        let mut e = ZipEntry::stored("", &[]);
        e.points_at = Some(0);
        entries.push(e);
    }
    let archive = zip(&entries, None);
    let npz = NpzArchive::new(&archive[..]).unwrap();
    let err = npz.read_bytes("").unwrap_err();
    match err.kind() {
        ErrorKind::NameMismatch { local } => assert!(local.chars().count() <= 33, "{local}"),
        ErrorKind::Overlapped { .. } => {}
        k => panic!("{k}"),
    }
}

/// zipfile's reading beside r15's four: the version needed (past 6.3 refused at open), extra
/// fields whose records run past them (refused at open, zip64 or not), names cut at a NUL
/// (listed up to it; the local header gives the whole name), local names that decode to the
/// same text from other bytes (read), the end record's search (a comment, bytes after it),
/// and a lying directory offset (the directory is found from the end record; the header
/// offsets move by the lie).
#[test]
fn f15_zipfile_reading_beside_r15() {
    let p = arange3();
    let mut e = ZipEntry::stored("a.npy", &p);
    e.version = 64;
    assert!(matches!(
        npz_err(keys(&zip(&[e], None)).map(|_| Vec::new())),
        ErrorKind::Container {
            reason: ContainerFault::Version { needed: 64 },
            ..
        }
    ));
    let mut e = ZipEntry::stored("a.npy", &p);
    e.extra = vec![0x34, 0x12, 9, 0, 1, 2];
    assert!(matches!(
        npz_err(keys(&zip(&[e], None)).map(|_| Vec::new())),
        ErrorKind::Container {
            reason: ContainerFault::BadExtra,
            ..
        }
    ));
    let mut e = ZipEntry::stored("x", &p);
    e.name = b"a.npy\0evil".to_vec();
    e.local_name = e.name.clone();
    let nul = zip(&[e.clone()], None);
    assert_eq!(keys(&nul).unwrap(), ["a"]);
    assert_eq!(member_bytes(&nul, "a").unwrap(), p);
    e.local_name = b"a.npy".to_vec();
    assert!(matches!(
        npz_err(member_bytes(&zip(&[e], None), "a")),
        ErrorKind::NameMismatch { .. }
    ));
    // "é.npy" as UTF-8 in the directory and as CP437 (0x82) in the local header.
    let mut e = ZipEntry::stored("x", &p);
    e.name = "é.npy".as_bytes().to_vec();
    e.flags = 1 << 11;
    e.local_flags = Some(0);
    e.local_name = b"\x82.npy".to_vec();
    assert_eq!(member_bytes(&zip(&[e], None), "é").unwrap(), p);
    let two = [ZipEntry::stored("a.npy", &p), ZipEntry::stored("b.npy", &p)];
    for layout in [
        Layout {
            comment: b"PK\x05\x06 inside the comment....".to_vec(),
            ..Layout::default()
        },
        Layout {
            trailing: b"bytes after the end record".to_vec(),
            ..Layout::default()
        },
    ] {
        let archive = zip_with(&two, &layout);
        let got = keys(&archive).map_err(|e| e.to_string());
        if layout.trailing.is_empty() {
            // zipfile takes the signature in the comment: 22 bytes of it are no end record
            // for this archive.
            assert!(got.is_err(), "{got:?}");
        } else {
            assert_eq!(got.unwrap(), ["a", "b"]);
            assert_eq!(member_bytes(&archive, "b").unwrap(), p);
        }
    }
    let shifted = zip_with(
        &two,
        &Layout {
            offset_delta: 10,
            ..Layout::default()
        },
    );
    assert_eq!(keys(&shifted).unwrap(), ["a", "b"]);
    assert!(member_bytes(&shifted, "a").is_err());
}

/// The review's `local_in_comment` (issue 23): a member's local header and bytes sit after
/// the central directory, inside the end record's comment (member `a` first, so that
/// `np.load` sees a zip). zipfile (and so numpy) reads it; this reader refuses it, a
/// documented deviation (crate docs, "Untrusted archives"): what bounds a member's declared
/// size before anything is read is the room between its data and the central directory, and
/// no zip writer puts a member after its directory. The refusal names the member and the
/// room; numpy's reading is checked when Python is there, so that the deviation stays the
/// one documented.
#[test]
fn a_member_after_the_central_directory_is_refused_where_zipfile_reads_it() {
    let p = arange3();
    let (crc, size) = (crc32(&p), p.len() as u32);
    let local = |name: &[u8]| {
        let mut b = 0x0403_4b50u32.to_le_bytes().to_vec();
        for v in [20u16, 0, 0, 0, 0x21] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, size, size] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(&p);
        b
    };
    let central = |name: &[u8], offset: u32| {
        let mut b = 0x0201_4b50u32.to_le_bytes().to_vec();
        for v in [0x031eu16, 20, 0, 0, 0, 0x21] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, size, size] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [name.len() as u16, 0, 0, 0, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&offset.to_le_bytes());
        b.extend_from_slice(name);
        b
    };
    let mut archive = local(b"a.npy");
    let cd_at = archive.len();
    // Two entries of 46 bytes and a 5-byte name each, then the end record's fixed 22 bytes:
    // `c`'s local header is the comment's first byte.
    let c_at = cd_at + 2 * (46 + 5) + 22;
    let cd = [central(b"a.npy", 0), central(b"c.npy", c_at as u32)].concat();
    archive.extend_from_slice(&cd);
    archive.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    for v in [0u16, 0, 2, 2] {
        archive.extend_from_slice(&v.to_le_bytes());
    }
    archive.extend_from_slice(&(cd.len() as u32).to_le_bytes());
    archive.extend_from_slice(&(cd_at as u32).to_le_bytes());
    let comment = local(b"c.npy");
    archive.extend_from_slice(&(comment.len() as u16).to_le_bytes());
    assert_eq!(archive.len(), c_at);
    archive.extend_from_slice(&comment);

    assert_eq!(keys(&archive).unwrap(), ["a", "c"]);
    assert_eq!(member_bytes(&archive, "a").unwrap(), p);
    let err = member_bytes(&archive, "c").unwrap_err();
    assert_eq!(err.member(), Some("c"), "{err}");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Unbacked {
                backing: npy_npz::Backing::Room { room: 0, .. },
                ..
            }
        ),
        "{err}"
    );

    let Some(python) = npy_test_support::python::python_for("np.load of a member in the comment")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("local_in_comment.npz");
    std::fs::write(&path, &archive).unwrap();
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg("import sys, numpy as np\nz = np.load(sys.argv[1])\nprint(z.files, z['c'].tolist())")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "['a', 'c'] [0, 1, 2]\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
