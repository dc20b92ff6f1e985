//! `NpzArchive::prefetch_headers` (issue 42): every member's local and `.npy` headers in one
//! `read_ranges` call, within `PREFETCH_BUDGET_BYTES`; what the members read afterwards is what
//! they read without it (numpy's fixtures, stored and deflated, whose values the `npz` module
//! checks against numpy).

use std::cell::RefCell;
use std::ops::Range;
use std::path::Path;

use npy_core::ReadAt;
use npy_npz::{NpzArchive, NpzWriter, PREFETCH_BUDGET_BYTES};

/// Bytes in memory that count the reads made of them.
#[derive(Default)]
struct Counted {
    bytes: Vec<u8>,
    /// Each `read_at`'s length, and each `read_ranges` call's ranges.
    reads: RefCell<Vec<usize>>,
    range_calls: RefCell<Vec<Vec<Range<u64>>>>,
}

impl ReadAt for Counted {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        self.reads.borrow_mut().push(buf.len());
        self.bytes.read_at(buf, offset)
    }
    fn read_ranges(&self, ranges: &[Range<u64>]) -> std::io::Result<Vec<Vec<u8>>> {
        self.range_calls.borrow_mut().push(ranges.to_vec());
        ranges
            .iter()
            .map(|r| {
                let mut b = vec![0u8; (r.end - r.start) as usize];
                let n = self.bytes.read_at(&mut b, r.start)?;
                b.truncate(n);
                Ok(b)
            })
            .collect()
    }
}

fn counted(bytes: Vec<u8>) -> Counted {
    Counted {
        bytes,
        ..Counted::default()
    }
}

/// Every member read as without a prefetch: the header, the summary, whether it is an
/// `.npy` file, its values (or its error, the same).
fn same_members(prefetched: &NpzArchive<Counted>, plain: &NpzArchive<Vec<u8>>) {
    for key in plain.keys() {
        let is = plain.is_npy(key).map_err(|e| e.to_string());
        assert_eq!(
            prefetched.is_npy(key).map_err(|e| e.to_string()),
            is,
            "{key}"
        );
        if is != Ok(true) {
            continue;
        }
        let h = |a: Result<npy_core::header::ParsedHeader, npy_npz::Error>| format!("{a:?}");
        assert_eq!(h(prefetched.header(key)), h(plain.header(key)), "{key}");
        let i = |a: Result<npy_core::TensorInfo, npy_npz::Error>| format!("{a:?}");
        assert_eq!(i(prefetched.info(key)), i(plain.info(key)), "{key}");
        let v = |a: Result<npy_core::DynArray, npy_npz::Error>| format!("{a:?}");
        assert_eq!(v(prefetched.read_dyn(key)), v(plain.read_dyn(key)), "{key}");
    }
}

#[test]
fn numpy_archives_read_the_same_after_one_call() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/npz");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "npz") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let Ok(plain) = NpzArchive::new(bytes.clone()) else {
            continue;
        };
        let npz = NpzArchive::new(counted(bytes)).unwrap();
        let opening = npz.source().reads.borrow().len();
        let members = npz.members().len();
        assert_eq!(
            npz.prefetch_headers().unwrap(),
            members,
            "{}",
            path.display()
        );
        assert_eq!(npz.prefetch_headers().unwrap(), 0, "read already");
        assert!(npz.source().range_calls.borrow().len() <= 1);
        // The headers (numpy's: all within PREFETCH_AHEAD_BYTES) from memory: no read.
        for key in plain.keys() {
            if plain.is_npy(key).unwrap_or(false) {
                npz.info(key).unwrap();
                npz.header(key).unwrap();
            }
        }
        assert_eq!(
            npz.source().reads.borrow().len(),
            opening,
            "{}: reads after the prefetch",
            path.display()
        );
        same_members(&npz, &plain);
        seen += 1;
    }
    assert!(seen >= 10, "{seen} fixtures");
}

/// 2,500 members of 4 KiB (10 MB of headers and data): the prefetch stops at its budget
/// (bytes read and kept), and the members past it read as before, one by one.
#[test]
fn the_prefetch_stays_within_its_budget() {
    for compressed in [false, true] {
        let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new()));
        if compressed {
            w = w.compression(npy_npz::Compression::Deflated { level: 6 });
        }
        let data: Vec<u32> = (0..1024).collect();
        for i in 0..2500 {
            w.add(&format!("m{i}"), &data, &[1024]).unwrap();
        }
        let bytes = w.finish().unwrap().into_inner();
        let plain = NpzArchive::new(bytes.clone()).unwrap();
        let npz = NpzArchive::new(counted(bytes)).unwrap();
        let n = npz.prefetch_headers().unwrap();
        let calls = npz.source().range_calls.borrow().clone();
        assert_eq!(calls.len(), 1);
        let read: u64 = calls[0].iter().map(|r| r.end - r.start).sum();
        assert!(read <= PREFETCH_BUDGET_BYTES, "{read} bytes read");
        // Stored: 4 KiB read and about 4 KiB kept a member, 16 MiB for about 2,000.
        assert!(n > 1000, "{n} members prefetched");
        if !compressed {
            assert!(n < 2500, "{n} members prefetched");
        }
        same_members(&npz, &plain);
    }
}

/// `with_suffix_bytes(MIN_SUFFIX_BYTES)` (npy-wasm's `fetchNpz`, whose first request is the
/// archive's last `MIN_SUFFIX_BYTES`): opening an archive larger than that whose directory
/// is in them is that one read, and a member then one read (its local header and bytes),
/// never the default 256 KiB suffix again; an end record after the longest comment zip allows
/// (65,535 bytes, APPNOTE 4.3.16) is still found in them (issue 43 follow-up, F4).
#[test]
fn min_suffix_bytes_open_is_one_read_and_a_member_one_more() {
    // numpy's layout: no padding in an extra field (which a local header read's slack does
    // not cover; the member is then a second read).
    let mut w = NpzWriter::new(std::io::Cursor::new(Vec::new())).alignment(1);
    w.add("big", &vec![7u8; 300_000], &[300_000]).unwrap();
    w.add("small", &[1i64, 2, 3], &[3]).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    assert!(bytes.len() as u64 > npy_npz::SUFFIX_BYTES);
    let mut commented = bytes.clone();
    // The end record without a comment is the last 22 bytes; its comment length is at 20.
    let n = commented.len();
    assert_eq!(&commented[n - 22..n - 18], b"PK\x05\x06");
    commented[n - 2..].copy_from_slice(&u16::MAX.to_le_bytes());
    commented.extend(std::iter::repeat_n(b'c', usize::from(u16::MAX)));
    for (archive, long_comment) in [(bytes, false), (commented, true)] {
        let src = counted(archive.clone());
        let npz = NpzArchive::with_suffix_bytes(
            src,
            npy_core::ReadOptions::default(),
            npy_npz::MIN_SUFFIX_BYTES,
        )
        .unwrap();
        let opening = npz.source().reads.borrow().clone();
        if long_comment {
            // The end record is found in the suffix; the directory before the comment is
            // a second read.
            assert_eq!(opening[0], npy_npz::MIN_SUFFIX_BYTES as usize);
            assert_eq!(opening.len(), 2, "{opening:?}");
            npz.source().reads.borrow_mut().remove(1);
        } else {
            assert_eq!(opening, [npy_npz::MIN_SUFFIX_BYTES as usize]);
        }
        let small = npz.read_bytes("small").unwrap();
        // (Reads of no bytes, which ask nothing of a remote source, are not counted.)
        let reads: Vec<usize> = (npz.source().reads.borrow().iter().copied())
            .filter(|&n| n > 0)
            .collect();
        assert_eq!(reads.len(), 2, "{reads:?}");
        // The local header (30 bytes, the name, slack for its extra field) and the member.
        assert!(
            reads[1] <= 30 + 3 * "small.npy".len() + 32 + small.len(),
            "{reads:?}"
        );
        let plain = NpzArchive::new(archive).unwrap();
        assert_eq!(small, plain.read_bytes("small").unwrap());
        assert_eq!(npz.read::<i64>("small").unwrap().into_vec(), [1, 2, 3]);
    }
}
