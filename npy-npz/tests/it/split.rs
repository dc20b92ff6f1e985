//! Issue 42, F7 (r07): the two-thread inflate of a large deflated member must accept exactly
//! what the sequential inflate (and zipfile) accept. r07's member holds a deflate stream S1
//! that ends (final block) after 100,128 bytes, its last byte 0, then garbage, then from the
//! exact middle of the compressed bytes a second stream S2; the zip header declares the size
//! and CRC-32 of S1's bytes less the last, then S2's. The split found its point inside S2,
//! took S1's last byte for its end marker (the byte 0), and `read`, `read_dyn` and
//! `read_bytes` returned 5.3 MB the stream does not hold; zipfile says "Bad CRC-32" (it reads
//! S1's bytes alone), and npy's streaming paths refused.

use std::io::Write;

use npy_core::{Header, ReadOptions};
use npy_npz::{ErrorKind, NpzArchive};
use npy_test_support::zip::{crc32, zip, ZipEntry};

/// r07's generator, ported: `D2` 5 MiB of bytes 1..=255 (xorshift here, numpy's generator
/// there), `D1` an `.npy` header for `Z - 1 + |D2|` bytes of `|u1` and `Z` zeros, `S1` D1
/// deflated at level 9 with a full flush half way, `S2` D2 at level 0, `0x5a` between them
/// so that S2 starts at the middle; sizes and CRC-32 of `D1[:-1] + D2`.
fn r07_archive() -> (Vec<u8>, usize) {
    use flate2::{Compress, Compression, FlushCompress};
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let d2: Vec<u8> = (0..5 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8 | 1
        })
        .collect();
    let z = 100_000usize;
    let n = (z - 1 + d2.len()) as u64;
    let mut d1 = Header::new("|u1".parse().unwrap(), vec![n])
        .to_bytes(None)
        .unwrap();
    d1.resize(d1.len() + z, 0);
    let mut c = Compress::new(Compression::new(9), false);
    let mut s1 = Vec::with_capacity(d1.len());
    c.compress_vec(&d1[..50_000], &mut s1, FlushCompress::Full)
        .unwrap();
    c.compress_vec(&d1[50_000..], &mut s1, FlushCompress::Finish)
        .unwrap();
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), Compression::new(0));
    e.write_all(&d2).unwrap();
    let s2 = e.finish().unwrap();
    let mut comp = s1.clone();
    comp.resize(s2.len(), 0x5a);
    comp.extend_from_slice(&s2);
    assert_eq!(
        comp.len() / 2,
        comp.len() - s2.len(),
        "S2 starts at the middle"
    );
    let data = [&d1[..d1.len() - 1], &d2[..]].concat();
    let entry = ZipEntry {
        method: 8,
        size: data.len() as u32,
        crc: crc32(&data),
        data: comp,
        ..ZipEntry::stored("x.npy", &[])
    };
    (zip(&[entry], None), d1.len())
}

#[test]
fn r07_a_second_stream_at_the_split_point_is_refused_by_every_read() {
    let (bytes, held) = r07_archive();
    for threads in [2, 1, 0] {
        let npz =
            NpzArchive::with_options(&bytes[..], ReadOptions::new().threads(threads)).unwrap();
        let refused = |what: &str, r: Result<(), npy_npz::Error>| {
            let e = r.expect_err(what);
            // The stream holds D1 alone, less than the declared size: the sequential
            // inflate's EndsEarly (the streaming paths' too), naming the member.
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::EndsEarly { found, .. } if *found == held as u64
                ),
                "{threads} {what}: {e}"
            );
            assert_eq!(e.member(), Some("x"), "{what}");
        };
        refused("read", npz.read::<u8>("x").map(drop));
        refused("read_bytes", npz.read_bytes("x").map(drop));
        refused("read_dyn", npz.read_dyn("x").map(drop));
        refused("verify", npz.verify("x").map(drop));
    }
    // zipfile agrees: the member is refused (its stream inflates to D1, 100,128 bytes).
    let Some(python) = npy_test_support::python::python_for("zipfile on r07's archive") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("split_lie.npz");
    std::fs::write(&path, &bytes).unwrap();
    let script = r"
import sys, zipfile, zlib
z = zipfile.ZipFile(sys.argv[1])
raw = z.open('x.npy')
try:
    z.read('x.npy'); print('read')
except zipfile.BadZipFile as e:
    print('refused', e)
with open(sys.argv[1], 'rb') as f:
    data = f.read()
info = z.getinfo('x.npy')
start = info.header_offset + 30 + len(info.filename)
print(len(zlib.decompressobj(-15).decompress(data[start:start + info.compress_size])))
";
    let out = npy_test_support::python::run_script(&python, script, [&path]);
    let mut lines = out.lines();
    assert!(
        lines.next().unwrap().starts_with("refused Bad CRC-32"),
        "{out}"
    );
    let inflated: usize = lines.next().unwrap().parse().unwrap();
    assert_eq!(inflated, held, "zlib inflates the stream to D1 alone");
}
