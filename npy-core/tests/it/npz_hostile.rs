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
