//! F15 (issue 23): archives generated variant by variant, each read by this crate and by
//! numpy's `np.load` (Python's zipfile underneath), through the project's pinned Python
//! ([`npy_test_support::python`]). Both must agree on each archive: refused at open, or the
//! same keys, and for each key the same member bytes or a refusal.
//!
//! The variants are the kinds of r15 (end record counts, local names, the Unicode Path extra
//! field, UTF-8 names) and what zipfile's reading implies beside them: names cut at a NUL,
//! local names that decode alike from other bytes, comments and bytes after the end record, a
//! lying directory offset, a last entry cut by the directory's end, the version needed,
//! corrupt extra fields, zip64 sizes, flag bits 3, 5 and 6, stored members with bytes to
//! spare, zero-size members' CRCs, repeated names; each stored and deflated.
//!
//! Where this crate refuses what zipfile reads, by design, the test holds the refusal
//! ([`DEVIATIONS`]): a declared size that the member's bytes contradict (zipfile reads what the
//! data gives, however much the directory declares; here the declared size bounds every
//! allocation, so a member that ends before it is `EndsEarly` or `Unbacked`). Left out:
//! members that share bytes (unzip's overlap check, r02) and methods numpy never writes
//! (bzip2, lzma), refused here with their reason.

/// Variants this crate refuses and zipfile reads: each names its member `a`, refused here.
const DEVIATIONS: &[&str] = &[
    // size 0xFFFFFFFF without the zip64 record that would give the real one
    "stored_zip64_size_missing",
    "deflated_zip64_size_missing",
    // a stored member of fewer bytes than its size
    "stored_too_few_bytes",
    // a deflate stream that ends before its declared size
    "deflated_size_long",
];

use npy_core::Header;
use npy_npz::NpzArchive;
use npy_test_support::zip::{crc32, deflate, zip, zip_with, Layout, ZipEntry};

/// `np.save` of `np.arange(3)` (int64).
fn arange3() -> Vec<u8> {
    let mut b = Header::new("<i8".parse().unwrap(), vec![3])
        .to_bytes(None)
        .unwrap();
    for i in 0..3i64 {
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

/// A member of `plain` named `name`, stored or deflated.
fn member(name: &str, plain: &[u8], deflated: bool) -> ZipEntry {
    if deflated {
        ZipEntry::deflated(name, plain)
    } else {
        ZipEntry::stored(name, plain)
    }
}

/// Sets both names of `e` to `name`'s bytes.
fn named(mut e: ZipEntry, name: &[u8]) -> ZipEntry {
    e.name = name.to_vec();
    e.local_name = name.to_vec();
    e
}

/// The Unicode Path extra field (0x7075) naming `name` for the original `orig`.
fn unicode_path(orig: &[u8], name: &str) -> Vec<u8> {
    let mut body = vec![1u8];
    body.extend_from_slice(&crc32(orig).to_le_bytes());
    body.extend_from_slice(name.as_bytes());
    let mut out = vec![0x75, 0x70];
    out.extend_from_slice(&(body.len() as u16).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Every variant, by name.
fn variants() -> Vec<(String, Vec<u8>)> {
    let p = arange3();
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for deflated in [false, true] {
        let m = |name: &str| member(name, &p, deflated);
        let kind = if deflated { "deflated" } else { "stored" };
        let mut add = |what: &str, bytes: Vec<u8>| out.push((format!("{kind}_{what}"), bytes));
        add("plain", zip(&[m("a.npy"), m("b.npy")], None));
        // End record counts: zipfile walks the directory by its size, never by the count.
        for count in [0u16, 1, 3, u16::MAX] {
            add(
                &format!("count_{count}"),
                zip(&[m("a.npy"), m("b.npy")], Some(count)),
            );
        }
        // Local names.
        for (what, local) in [
            ("local_other", b"../../evil.npy".to_vec()),
            ("local_case", b"A.npy".to_vec()),
            ("local_longer", b"a.npy.npy".to_vec()),
            ("local_shorter", b"a.np".to_vec()),
            ("local_empty", Vec::new()),
            ("local_nul", b"a.npy\0".to_vec()),
        ] {
            let mut e = m("a.npy");
            e.local_name = local;
            add(what, zip(&[e, m("b.npy")], None));
        }
        // The same text from other bytes: UTF-8 centrally, CP437 locally and back.
        let mut e = named(m("x"), "é.npy".as_bytes());
        e.flags = 1 << 11;
        e.local_flags = Some(0);
        e.local_name = b"\x82.npy".to_vec();
        add("local_cp437_of_utf8", zip(&[e], None));
        let mut e = named(m("x"), b"\x82\xc4.npy");
        e.local_flags = Some(1 << 11);
        e.local_name = "é─.npy".as_bytes().to_vec();
        add("local_utf8_of_cp437", zip(&[e], None));
        let mut e = named(m("x"), "é.npy".as_bytes());
        e.flags = 1 << 11;
        e.local_flags = Some(0);
        add("local_utf8_bytes_as_cp437", zip(&[e], None));
        let mut e = named(m("x"), b"\xff.npy");
        e.local_flags = Some(1 << 11);
        add("local_bad_utf8", zip(&[e], None));
        // Unicode Path extra field, central, local or both: zipfile does not read it.
        for (what, central, local) in [
            ("unicode_path_both", true, true),
            ("unicode_path_central", true, false),
            ("unicode_path_local", false, true),
        ] {
            let mut e = m("benign.npy");
            let extra = unicode_path(b"benign.npy", "renamed.npy");
            if central {
                e.extra.clone_from(&extra);
            }
            if local {
                e.local_extra = extra;
            }
            add(what, zip(&[e], None));
        }
        // UTF-8 names.
        let mut e = named(m("x"), b"\xff\xfe.npy");
        e.flags = 1 << 11;
        add("bad_utf8", zip(&[e, m("b.npy")], None));
        let mut e = named(m("x"), "é優.npy".as_bytes());
        e.flags = 1 << 11;
        add("utf8", zip(&[e], None));
        add(
            "cp437",
            zip(&[named(m("x"), b"\x80\x9a\xe1\xff.npy")], None),
        );
        // A NUL in the name: zipfile lists the name up to it.
        add(
            "nul_name",
            zip(&[named(m("x"), b"a.npy\0evil"), m("b.npy")], None),
        );
        add("nul_first", zip(&[named(m("x"), b"\0a.npy")], None));
        // What follows the end record; a comment.
        let two = [m("a.npy"), m("b.npy")];
        let layout = |f: &dyn Fn(&mut Layout)| {
            let mut l = Layout::default();
            f(&mut l);
            zip_with(&two, &l)
        };
        add("comment", layout(&|l| l.comment = b"a comment".to_vec()));
        add(
            "trailing",
            layout(&|l| l.trailing = b"garbage after".to_vec()),
        );
        add(
            "comment_len_short",
            layout(&|l| {
                l.comment = b"a comment".to_vec();
                l.comment_len = Some(3);
            }),
        );
        add(
            "comment_len_long",
            layout(&|l| {
                l.comment = b"a comment".to_vec();
                l.comment_len = Some(200);
            }),
        );
        add(
            "end_sig_in_comment",
            layout(&|l| l.comment = b"PK\x05\x06 and 22 more bytes in all....".to_vec()),
        );
        add(
            "end_sig_in_short_comment",
            layout(&|l| l.comment = b"xPK\x05\x06".to_vec()),
        );
        // A lying directory offset: zipfile takes the directory from the end record's
        // position and moves every header offset by the lie.
        for delta in [-10i64, -1, 1, 10, 1000] {
            add(
                &format!("offset_{delta}"),
                layout(&|l| l.offset_delta = delta),
            );
        }
        // The last entry's comment (or name) runs past the directory's end.
        let mut b = m("b.npy");
        b.comment_len = Some(500);
        add("entry_comment_past_end", zip(&[m("a.npy"), b], None));
        let mut a = m("a.npy");
        a.comment_len = Some(500);
        add("first_entry_comment_past_end", zip(&[a, m("b.npy")], None));
        // The version needed to extract (zipfile reads up to 6.3).
        for version in [63u16, 64, 0x0114, 0xff] {
            let mut e = m("a.npy");
            e.version = version;
            add(&format!("version_{version}"), zip(&[e, m("b.npy")], None));
        }
        // Extra fields: a record past the field's end (any id), a tail of three bytes.
        for (what, extra) in [
            ("extra_past_end", vec![0x34, 0x12, 9, 0, 1, 2]),
            ("extra_zip64_past_end", vec![1, 0, 9, 0, 1, 2]),
            ("extra_tail", vec![0x34, 0x12, 2, 0, 1, 2, 7, 7, 7]),
        ] {
            let mut e = m("a.npy");
            e.extra = extra;
            add(what, zip(&[e, m("b.npy")], None));
        }
        // zip64: the size as 0xFFFFFFFF with the real one in the extra field, or missing.
        let mut e = m("a.npy");
        e.size = u32::MAX;
        e.extra = [1u8, 0, 8, 0]
            .into_iter()
            .chain((p.len() as u64).to_le_bytes())
            .collect();
        add("zip64_size", zip(&[e, m("b.npy")], None));
        let mut e = m("a.npy");
        e.size = u32::MAX;
        add("zip64_size_missing", zip(&[e, m("b.npy")], None));
        // Flags: a data descriptor (bit 3: the local sizes are zero), patched data, strong
        // encryption, encryption.
        for bit in [0u16, 3, 5, 6] {
            let mut e = m("a.npy");
            e.flags = 1 << bit;
            add(&format!("flag_{bit}"), zip(&[e, m("b.npy")], None));
        }
        // Zero-size members: right and wrong CRCs.
        let mut e = member("z.npy", &[], deflated);
        add("zero_size", zip(&[e.clone(), m("b.npy")], None));
        e.crc = 0x1234_5678;
        add("zero_size_bad_crc", zip(&[e, m("b.npy")], None));
        // A repeated name: listed twice, read from its last entry.
        let mut second = member("a.npy", &[p.clone(), b"tail".to_vec()].concat(), deflated);
        second.local_name = b"a.npy".to_vec();
        add("repeated", zip(&[m("a.npy"), second], None));
        // A wrong CRC.
        let mut e = m("a.npy");
        e.crc ^= 1;
        add("bad_crc", zip(&[e, m("b.npy")], None));
    }
    // Stored members whose stored bytes are more (zipfile reads the first `size`) or fewer
    // than their size.
    let mut long = ZipEntry::stored("a.npy", &[p.clone(), b"spare bytes".to_vec()].concat());
    long.size = p.len() as u32;
    long.crc = crc32(&p);
    out.push(("stored_spare_bytes".into(), zip(&[long], None)));
    let mut short = ZipEntry::stored("a.npy", &p[..p.len() - 4]);
    short.size = p.len() as u32;
    out.push(("stored_too_few_bytes".into(), zip(&[short], None)));
    // A deflated member whose directory says fewer bytes than it inflates to, or more.
    let mut e = ZipEntry::deflated("a.npy", &p);
    e.size -= 1;
    out.push(("deflated_size_short".into(), zip(&[e], None)));
    let mut e = ZipEntry::deflated("a.npy", &p);
    e.size += 1;
    out.push(("deflated_size_long".into(), zip(&[e], None)));
    let mut e = ZipEntry::stored("a.npy", &deflate(&p)[..10]);
    e.method = 8;
    e.size = p.len() as u32;
    e.crc = crc32(&p);
    out.push(("deflated_cut".into(), zip(&[e], None)));
    out
}

/// This crate's reading of `archive` in the form the Python side prints: `!` when opening
/// fails, else each key (numpy's `files`) with `=` and the CRC-32 of its member's bytes, or
/// `!` where reading them fails.
fn ours(archive: &[u8]) -> String {
    let Ok(npz) = NpzArchive::new(archive) else {
        return "!".to_owned();
    };
    let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
    keys.iter()
        .map(|k| match npz.read_bytes(k) {
            Ok(bytes) => format!("{k}={:08x}", crc32(&bytes)),
            Err(_) => format!("{k}=!"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// np.load of each file: `!` and the exception's name when it cannot be opened, else each key
/// and the CRC-32 of the bytes `np.load(f)[key]` reads (the member numpy's lookup finds), or
/// `!` and the exception's name.
const SCRIPT: &str = r"
import sys, zlib, numpy as np
for f in sys.argv[1:]:
    try:
        z = np.load(f)
        files = z.files
    except Exception as e:
        print('!' + type(e).__name__)
        continue
    out = []
    for k in files:
        name = z._files[k]
        try:
            out.append('%s=%08x' % (k, zlib.crc32(z.zip.read(name))))
        except Exception as e:
            out.append(k + '=!' + type(e).__name__)
    print(','.join(out))
";

/// Every variant reads here as numpy reads it (exception names aside): listed under the
/// same keys, each member's bytes the same or refused by both.
#[test]
fn f15_variants_read_as_numpy_reads_them() {
    let variants = variants();
    // Without Python, each variant must still be a typed outcome (no panic).
    let here: Vec<String> = variants.iter().map(|(_, b)| ours(b)).collect();
    let Some(python) = npy_test_support::python::python_for("np.load of F15's zip variants") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for (name, bytes) in &variants {
        let path = dir.path().join(format!("{name}.npz"));
        std::fs::write(&path, bytes).unwrap();
        args.push(path);
    }
    let text = npy_test_support::python::run_script(&python, SCRIPT, &args);
    let theirs: Vec<&str> = text.lines().collect();
    assert_eq!(theirs.len(), variants.len());
    // Exception names are Python's alone: only that there was one is compared.
    let plain = |s: &str| -> String {
        s.split(',')
            .map(|part| match part.find('!') {
                Some(i) => &part[..=i],
                None => part,
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut differ = Vec::new();
    for (((name, _), ours), theirs) in variants.iter().zip(&here).zip(&theirs) {
        if DEVIATIONS.contains(&name.as_str()) {
            assert!(
                ours.starts_with("a=!") && !theirs.starts_with("a=!"),
                "{name}: npy-npz {ours:?}, numpy {theirs:?}"
            );
            continue;
        }
        if plain(ours) != plain(theirs) {
            differ.push(format!("{name}: npy-npz {ours:?}, numpy {theirs:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        variants.len(),
        differ.join("\n")
    );
}
