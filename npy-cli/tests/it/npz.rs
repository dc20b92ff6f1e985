//! `npy info` / `header --member` / `pack` / `unpack` on numpy's archives (fixtures/npz).

use crate::common::npy;
use std::path::{Path, PathBuf};

fn npz(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/npz")
        .join(name)
}

fn manifest(file: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(npz("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["archives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["file"] == file)
        .unwrap()
        .clone()
}

#[test]
fn info_json_has_a_line_per_member_with_numpy_keys() {
    let entry = manifest("savez_compressed.npz");
    let out = npy([
        Path::new("info"),
        Path::new("--json"),
        &npz("savez_compressed.npz"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let keys: Vec<&str> = lines
        .iter()
        .map(|l| l["member"].as_str().unwrap())
        .collect();
    assert_eq!(keys, npy_test_support::npz_files(&entry));
    for l in &lines {
        let m = &entry["members"][l["member"].as_str().unwrap()];
        assert_eq!(l["compressed_size"], m["compressed_size"]);
        assert_eq!(l["shape"], m["shape"]);
        assert_eq!(
            format!("'{}'", l["descr"].as_str().unwrap()),
            m["descr"].as_str().unwrap()
        );
    }
}

#[test]
fn info_text_lists_non_npy_members_and_empty_archives() {
    let out = npy([
        Path::new("info"),
        &npz("non_npy_member.npz"),
        &npz("empty.npz"),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("notes.txt\n  not an .npy file: 13 bytes"),
        "{text}"
    );
    assert!(text.contains("no members (an empty archive)"), "{text}");
}

#[test]
fn header_of_a_member() {
    let out = npy([
        Path::new("header"),
        &npz("order_endian.npz"),
        Path::new("--member"),
        Path::new("bef"),
    ]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"descr\":\">u2\",\"fortran_order\":true,\"shape\":[3,4]}\n"
    );
    let out = npy([
        Path::new("header"),
        &npz("order_endian.npz"),
        Path::new("--member"),
        Path::new("zz"),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no member \"zz\""));
}

#[test]
fn pack_then_unpack_gives_the_files_back() {
    let dir = std::env::temp_dir().join(format!("npy-cli-npz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let inputs = [fixtures.join("w_f32.npy"), fixtures.join("rec_nested.npy")];
    for compress in [false, true] {
        let out_npz = dir.join(format!("p{compress}.npz"));
        let mut args = vec![PathBuf::from("pack"), out_npz.clone()];
        args.extend(inputs.iter().cloned());
        if compress {
            args.push("--compress".into());
        }
        let out = npy(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let to = dir.join(format!("u{compress}"));
        let out = npy([Path::new("unpack"), &out_npz, &to]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for input in &inputs {
            let name = input.file_name().unwrap();
            assert_eq!(
                std::fs::read(to.join(name)).unwrap(),
                std::fs::read(input).unwrap()
            );
        }
    }
    // two files with the same stem: a duplicate key
    let out = npy([
        Path::new("pack"),
        &dir.join("d.npz"),
        &inputs[0],
        &inputs[0],
    ]);
    assert!(!out.status.success());
    assert!(!dir.join("d.npz").exists());
}

/// `npy show --json X.npz` (no `--member`): one object whose keys are numpy's `files`, in
/// order, each mapped to the member's `show --json` object, whose data is what numpy's
/// `tolist()` gives (the manifest's `data`); a non-.npy member is `null`.
#[test]
fn show_json_of_an_archive_maps_every_key() {
    for file in [
        "savez.npz",
        "savez_compressed.npz",
        "non_npy_member.npz",
        "names.npz",
    ] {
        let entry = manifest(file);
        let o = npy([Path::new("show"), Path::new("--json"), &npz(file)]);
        assert!(
            o.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let map = doc.as_object().unwrap();
        let files: Vec<&str> = entry["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(map.len(), files.len(), "{file}: one entry per key");
        // In numpy's order: each key's `"KEY":` appears after the previous one's (serde_json's
        // Map sorts its keys, so the order is read off the text).
        let text = String::from_utf8(o.stdout.clone()).unwrap();
        let mut at = 0;
        for key in &files {
            let quoted = format!("{}:", serde_json::to_string(key).unwrap());
            let found = text[at..]
                .find(&quoted)
                .unwrap_or_else(|| panic!("{file}: {key} missing or out of numpy's order"));
            at += found + quoted.len();
        }
        for (key, shown) in map {
            let member = &entry["members"][key];
            if member.get("bytes_hex").is_some() {
                assert!(shown.is_null(), "{file}[{key}]");
                continue;
            }
            if let Some(data) = member.get("data") {
                assert_eq!(&shown["data"], data, "{file}[{key}]");
                assert_eq!(shown["shape"], member["shape"], "{file}[{key}]");
            }
        }
    }
}

/// The text form lists every member under its key, as `--member` prints each.
#[test]
fn show_of_an_archive_prints_each_member_under_its_key() {
    let all = npy([Path::new("show"), &npz("savez.npz")]);
    assert!(all.status.success());
    let text = String::from_utf8(all.stdout).unwrap();
    let mut want = String::new();
    for (i, key) in manifest("savez.npz")["files"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let key = key.as_str().unwrap();
        let one = npy([
            Path::new("show"),
            &npz("savez.npz"),
            Path::new("--member"),
            Path::new(key),
        ]);
        assert!(one.status.success(), "{key}");
        if i > 0 {
            want.push('\n');
        }
        want.push_str(&format!(
            "{key}:\n{}",
            String::from_utf8(one.stdout).unwrap()
        ));
    }
    assert_eq!(text, want);
}

/// A review's find: a directory entry (`dir/`, which Python's zipfile writes with
/// `writestr('dir/', b'')`) made `npy unpack` fail; `extractall` makes the directory.
#[test]
fn unpack_makes_directory_entries() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("dirs.npz");
    // A stored zip by the format's rules (APPNOTE): a local header and a central-directory
    // entry for the empty member "d/", then the end record.
    let name = b"d/";
    let mut z = Vec::new();
    z.extend_from_slice(b"PK\x03\x04\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x00");
    z.extend_from_slice(&[0; 12]); // crc, sizes
    z.extend_from_slice(&(name.len() as u16).to_le_bytes());
    z.extend_from_slice(&[0, 0]);
    z.extend_from_slice(name);
    let cd = z.len() as u32;
    z.extend_from_slice(b"PK\x01\x02\x14\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x00");
    z.extend_from_slice(&[0; 12]);
    z.extend_from_slice(&(name.len() as u16).to_le_bytes());
    z.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attributes
    z.extend_from_slice(&[0x10, 0, 0, 0]); // external attributes: MS-DOS directory
    z.extend_from_slice(&[0; 4]); // local header offset
    z.extend_from_slice(name);
    let cd_len = z.len() as u32 - cd;
    z.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\x00\x01\x00");
    z.extend_from_slice(&cd_len.to_le_bytes());
    z.extend_from_slice(&cd.to_le_bytes());
    z.extend_from_slice(&[0, 0]);
    std::fs::write(&archive, &z).unwrap();
    let out = dir.path().join("out");
    let o = npy([
        std::ffi::OsStr::new("unpack"),
        archive.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("d").is_dir());
}

/// A review's find: `npy show x.npy --member k` said "not a readable zip archive: Could not
/// find EOCD"; it says what is wrong in the user's terms.
#[test]
fn member_of_a_plain_npy_file_is_a_clear_error() {
    let o = npy([
        Path::new("show"),
        &npy_test_support::fixture("w_f32.npy"),
        Path::new("--member"),
        Path::new("k"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not an .npz archive"), "{err}");
}

/// A review's find: when one member of an archive could not be shown, the error named only
/// the archive. The input: a good member, then a member that starts as an `.npy` file and
/// ends inside its header.
#[test]
fn an_archive_error_names_the_member() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.npz");
    let mut w = npy_npz::NpzWriter::create(&path).unwrap();
    w.add("a", &[1i32, 2], &[2]).unwrap();
    w.add_raw("b.npy", b"\x93NUMPY\x01\x00\x76\x00{'descr'")
        .unwrap();
    w.finish().unwrap();
    let o = npy([Path::new("show"), &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("member b"), "{err}");
}

/// Runs `npy ARGS`; (exit code, stdout, stderr).
fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let o = npy(args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

/// Issue 23, r11: `npy unpack` of a zero-size member whose recorded CRC is not the CRC of
/// nothing fails (exit 1, the CRC named) where it wrote an empty file and exited 0; Python's
/// zipfile: "Bad CRC-32".
#[test]
fn r11_unpack_checks_a_zero_size_members_crc() {
    use crate::hostile::{arange, crc32, zip_of, ZipEntry};
    let dir = tempfile::tempdir().unwrap();
    let data = arange(10);
    let mut e = ZipEntry::stored("a.npy", &[]);
    e.crc = crc32(&data);
    let path = dir.path().join("x.npz");
    std::fs::write(&path, zip_of(&[e], None)).unwrap();
    let out = dir.path().join("out");
    let (code, _, err) = run(&["unpack".as_ref(), path.as_os_str(), out.as_os_str()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("fails its CRC check"), "{err}");
    let (code, _, err) = run(&["show".as_ref(), path.as_os_str()]);
    assert_eq!(code, 1);
    assert!(err.contains("fails its CRC check"), "{err}");
}

/// Issue 23, r02 (scaled down: 4 directory entries on one 64 KiB member) and r15: members
/// sharing bytes are refused and nothing of the refused members is written; a local name that
/// differs is refused; an end record counting no entries is read as numpy reads it, by the
/// directory's size (the library's tests, `hostile.rs` and `differential.rs`, check the rest
/// of r15 against numpy).
#[test]
fn r02_r15_unpack_and_info_read_zip_as_zipfile() {
    use crate::hostile::{arange, zip_of, ZipEntry};
    let dir = tempfile::tempdir().unwrap();
    let data = arange(8192);
    let mut entries: Vec<ZipEntry> = (0..4)
        .map(|i| {
            let mut e = ZipEntry::stored(&format!("m{i}.npy"), &data);
            e.local_name = b"m0.npy".to_vec();
            e.points_at = Some(0);
            e
        })
        .collect();
    entries[0].points_at = None;
    let overlap = dir.path().join("overlap.npz");
    std::fs::write(&overlap, zip_of(&entries, None)).unwrap();
    let out = dir.path().join("out");
    let (code, _, err) = run(&["unpack".as_ref(), overlap.as_os_str(), out.as_os_str()]);
    assert_eq!(code, 1);
    assert!(err.contains("shares bytes with another entry"), "{err}");
    let written: u64 = std::fs::read_dir(&out)
        .map_or(0, |d| d.map(|e| e.unwrap().metadata().unwrap().len()).sum());
    assert_eq!(written, 0, "bytes of refused members written");

    let mut e = ZipEntry::stored("ok.npy", &arange(3));
    e.local_name = b"../../evil.npy".to_vec();
    let differs = dir.path().join("differs.npz");
    std::fs::write(&differs, zip_of(&[e], None)).unwrap();
    let (code, _, err) = run(&["show".as_ref(), differs.as_os_str()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("its local header names \"../../evil.npy\""),
        "{err}"
    );

    let count0 = dir.path().join("count0.npz");
    std::fs::write(
        &count0,
        zip_of(&[ZipEntry::stored("a.npy", &arange(3))], Some(0)),
    )
    .unwrap();
    let (code, out, err) = run(&["info".as_ref(), count0.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("member       a.npy in "), "{out}");
    let unpacked = dir.path().join("count0");
    let (code, _, err) = run(&["unpack".as_ref(), count0.as_os_str(), unpacked.as_os_str()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(unpacked.join("a.npy")).unwrap(), arange(3));
}

/// `npy pack` into a directory (a special output, issue 23) is refused naming the output once
/// (npy-core's error inside the archive's named it a second time).
#[test]
fn pack_into_a_directory_names_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.npy");
    std::fs::write(&a, crate::hostile::arange(3)).unwrap();
    let out = dir.path().join("adir");
    std::fs::create_dir(&out).unwrap();
    let (code, _, err) = run(&["pack".as_ref(), out.as_os_str(), a.as_os_str()]);
    assert_eq!(code, 1);
    assert!(err.contains("the output is a directory"), "{err}");
    assert_eq!(err.matches(&*out.to_string_lossy()).count(), 1, "{err}");
    assert!(out.is_dir());
}

/// A broken archive's error names the file once, whichever command reads it (library errors
/// carry the path themselves since they name archive and member).
#[test]
fn a_broken_archive_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.npz");
    std::fs::write(&bad, b"PK\x03\x04 not a whole zip").unwrap();
    let b = bad.to_str().unwrap();
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    for args in [
        vec!["info", b],
        vec!["show", b],
        vec!["unpack", b, &out("dir")],
        vec!["convert", b, &out("a.npy")],
        vec!["convert", b, &out("a.parquet")],
        vec!["convert", b, &out("a.safetensors")],
    ]
    .into_iter()
    // A build without Parquet refuses a.parquet before it reads the archive.
    .filter(|args| {
        cfg!(feature = "parquet") || !args.last().is_some_and(|a| a.ends_with(".parquet"))
    }) {
        let o = npy(&args);
        let err = crate::common::stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(err.matches("broken.npz").count(), 1, "{args:?}: {err}");
    }
}

/// Issue 42, F6 (r06): a record with latin-1 field names (`'é'`: one byte in a 1.0 header,
/// two in UTF-8) through every command that writes an `.npz` member from an array: `npy pack`
/// and `npy convert` of a `.npy` (the stream copied by `NpzWriter::add_npy`) and of a Parquet
/// table. They wrote the header's UTF-8 after its latin-1 length, and np.load read the data a
/// byte early (`[(266, 1024), ...]` for `[(1, 4), ...]`), without an error. numpy writes the
/// inputs (pyarrow the table) and loads each archive; its names and values must be the input's.
#[test]
fn latin1_field_names_survive_pack_and_convert_to_npz() {
    let Some(python) = npy_test_support::python::python_for("np.load of r06's archives") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    npy_test_support::python::run_script(
        &python,
        "import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq\n\
         d = sys.argv[1]\n\
         a = np.zeros(3, [('\u{e9}', '<i4'), ('b', '<i2')]); a['\u{e9}'] = [1, 2, 3]; a['b'] = [4, 5, 6]\n\
         np.save(d + '/e1.npy', a)\n\
         pq.write_table(pa.table({'\u{e9}': pa.array([1, 2, 3], pa.int32()), 'b': pa.array([4, 5, 6], pa.int16())}), d + '/e1.parquet')\n",
        [d],
    );
    let runs: [(&[&str], &str); 3] = [
        (&["pack", "p.npz", "e1.npy"], "p.npz"),
        (&["convert", "e1.npy", "c.npz"], "c.npz"),
        (&["convert", "e1.parquet", "q.npz"], "q.npz"),
    ];
    let mut outputs = Vec::new();
    // A build without Parquet has the first two.
    let runs = &runs[..if cfg!(feature = "parquet") { 3 } else { 2 }];
    for &(args, out) in runs {
        let argv: Vec<std::path::PathBuf> = args
            .iter()
            .map(|a| {
                if a.contains('.') {
                    d.join(a)
                } else {
                    PathBuf::from(a)
                }
            })
            .collect();
        let o = npy(&argv);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            crate::common::stderr(&o)
        );
        outputs.push(d.join(out));
    }
    let got = npy_test_support::python::run_script(
        &python,
        "import sys, numpy as np\n\
         a = np.load(sys.argv[1])\n\
         print(repr((a.dtype.names, a.tolist())))\n\
         for f in sys.argv[2:]:\n\
         \x20   with np.load(f) as z:\n\
         \x20       m = z[z.files[0]]\n\
         \x20   print(repr((m.dtype.names, m.tolist())))\n",
        std::iter::once(d.join("e1.npy")).chain(outputs),
    );
    let mut lines = got.lines();
    let want = lines.next().unwrap();
    assert_eq!(want, "(('\u{e9}', 'b'), [(1, 4), (2, 5), (3, 6)])");
    for (line, (args, _)) in lines.zip(runs) {
        assert_eq!(line, want, "{args:?}");
    }
    assert_eq!(got.lines().count(), 1 + runs.len(), "{got}");
}

/// r07's held-back variant (issue 42, F7): a deflated member whose stream ends (its final
/// block) long before the size the zip headers declare, followed by other bytes. zipfile
/// refuses it (a bad CRC); `npy show` refused it too, but with a bare "unexpected end of
/// file": its message now names the member and both sizes, as the library's reads do. The
/// member's `.npy` header claims 5 MiB of `|u1` data; the stream holds 1,000 bytes of it.
#[test]
fn show_of_a_member_whose_stream_ends_early_names_it() {
    use npy_test_support::zip::{crc32, deflate, zip, ZipEntry};
    let n = 5 << 20;
    let mut plain = npy_test_support::raw_npy_v2("'|u1'", &format!("({n},)"), &[]);
    let declared = plain.len() + n;
    plain.extend(std::iter::repeat_n(7u8, 1_000));
    let mut data = deflate(&plain);
    // Enough other bytes after the stream that the compressed size could hold the declared
    // one (deflate expands at most 1032 times): the check before inflating lets it through.
    data.extend(std::iter::repeat_n(0x5a, 16_384));
    let entry = ZipEntry {
        size: u32::try_from(declared).unwrap(),
        crc: crc32(&plain),
        data,
        ..ZipEntry::deflated("x.npy", &[])
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("early.npz");
    std::fs::write(&path, zip(&[entry], None)).unwrap();
    let o = npy([std::ffi::OsStr::new("show"), path.as_os_str()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "member \"x.npy\": ends after {} of its declared {declared} bytes",
            plain.len()
        )),
        "{err}"
    );
}
