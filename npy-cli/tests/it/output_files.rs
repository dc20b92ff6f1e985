//! The turn-3 findings on writing (issue 23: F6–F10, F12–F14), each script of
//! `shared/cases/turn3/` as a test holding its input, and variants of each kind.
//!
//! Expected behaviour: what Python's `zipfile.extractall` and `np.save` do with the same input
//! (both members kept, nothing outside DIR touched, `0o666` less the umask), what `cp` does
//! with special outputs (never replaced), numpy's `npy_intp` sizes; and for every run: bounded
//! in time, and nothing left behind.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{npy, stderr};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_npy")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Waits for `child` at most `secs` (killing it then, and failing).
fn wait_within(mut child: Child, secs: u64, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {secs} s (blocked on a special file?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `npy ARGS`, killed and failed after 10 s.
fn npy_within<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let child = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let what = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    wait_within(child, 10, &what)
}

/// The bytes of an `.npy` file of `data`, as `np.save` writes it.
fn npy_bytes(data: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    npy_core::WriteOptions::new()
        .write_to(&mut out, data, &[data.len() as u64])
        .unwrap();
    out
}

/// A stored zip of `members`, as the scripts' `mkzip` builds it (APPNOTE 4.3.7 local headers,
/// 4.3.12 central headers, 4.3.16 end record), by [`npy_test_support::zip`].
fn mkzip(members: &[(&str, &[u8])]) -> Vec<u8> {
    use npy_test_support::zip::{zip, ZipEntry};
    let entries: Vec<ZipEntry> = members
        .iter()
        .map(|(name, data)| ZipEntry::stored(name, data))
        .collect();
    zip(&entries, None)
}

/// r06 (F6): (a) a symlink planted at `DIR/x.npy.partial` (and at other guessable names) is
/// never followed: VICTIM outside DIR keeps its bytes; (b) members `x.npy.partial` and `x.npy`
/// are both written, as `zipfile.extractall` writes them.
#[test]
fn unpack_never_follows_planted_links_nor_loses_a_member() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let victim = d.join("VICTIM");
    fs::write(&victim, "VICTIM ORIGINAL").unwrap();
    let out = d.join("out");
    fs::create_dir(&out).unwrap();
    for name in ["x.npy.partial", "x.npy.tmp", ".npy-tmp-000000"] {
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    let a = d.join("a.npz");
    fs::write(&a, mkzip(&[("x.npy", &npy_bytes(&[0, 1, 2]))])).unwrap();
    let o = npy_within(&[Path::new("unpack"), &a, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&victim).unwrap(), b"VICTIM ORIGINAL");
    assert_eq!(fs::read(out.join("x.npy")).unwrap(), npy_bytes(&[0, 1, 2]));
    assert!(fs::symlink_metadata(out.join("x.npy.partial"))
        .unwrap()
        .file_type()
        .is_symlink());

    let (seven, three) = (npy_bytes(&[0, 1, 2, 3, 4, 5, 6]), npy_bytes(&[0, 1, 2]));
    let b = d.join("b.npz");
    fs::write(&b, mkzip(&[("x.npy.partial", &seven), ("x.npy", &three)])).unwrap();
    let outb = d.join("outb");
    let o = npy_within(&[Path::new("unpack"), &b, &outb]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(listing(&outb), ["x.npy", "x.npy.partial"]);
    assert_eq!(fs::read(outb.join("x.npy.partial")).unwrap(), seven);
    assert_eq!(fs::read(outb.join("x.npy")).unwrap(), three);
}

/// r12 (F12): a directory entry `a/` then a member `a`: the member is refused with an error
/// naming it, and nothing is left beside the directory.
#[test]
fn unpack_over_a_directory_names_the_member_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npz");
    fs::write(
        &x,
        mkzip(&[("a/", b""), ("a", b"hello"), ("b.npy", &npy_bytes(&[5]))]),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = npy_within(&[Path::new("unpack"), &x, &out]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("x.npz[a]") && err.contains("a directory"),
        "{err}"
    );
    assert_eq!(
        listing(&out),
        ["a", "b.npy"],
        "the other members are still written"
    );
    assert!(out.join("a").is_dir());
    assert!(listing(&out.join("a")).is_empty());
}

/// r07 (F7): convert, cat, pack and unpack never replace a device, FIFO, socket or a link to
/// a process's stdout: each refuses at once, the node stays. A symlink to a regular file is
/// written through: the file gets the array, the link stays a link.
#[test]
fn special_outputs_are_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = d.join("a.npy");
    npy_core::write(&a, &[0.0f64, 1.0, 2.0], &[3]).unwrap();
    let z = d.join("z.npz");
    fs::write(&z, mkzip(&[("m.npy", &npy_bytes(&[1]))])).unwrap();
    mkfifo(&d.join("myfifo"));
    let _socket = std::os::unix::net::UnixListener::bind(d.join("mysocket")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("mynull")).unwrap();
    std::os::unix::fs::symlink("/proc/self/fd/1", d.join("mystdout")).unwrap();
    let before = listing(d);
    for out in ["myfifo", "mysocket", "mynull", "mystdout"] {
        let o_path = d.join(out);
        let runs: [Vec<&Path>; 3] = [
            vec![Path::new("convert"), &a, &o_path],
            vec![Path::new("cat"), &o_path, &a],
            vec![Path::new("pack"), &o_path, &a],
        ];
        for args in runs {
            let o = npy_within(&args);
            assert!(!o.status.success(), "{args:?}");
            assert!(
                stderr(&o).contains("not a regular file"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
    // A member whose path is a FIFO in DIR.
    let udir = d.join("u");
    fs::create_dir(&udir).unwrap();
    mkfifo(&udir.join("m.npy"));
    let o = npy_within(&[Path::new("unpack"), &z, &udir]);
    assert!(!o.status.success());
    assert!(fs::symlink_metadata(udir.join("m.npy"))
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(listing(&udir), ["m.npy"]);

    let mut after = listing(d);
    after.retain(|n| n != "u");
    assert_eq!(after, before);
    assert!(fs::symlink_metadata(d.join("myfifo"))
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // Through a link to a regular file.
    fs::write(d.join("real.txt"), "target\n").unwrap();
    std::os::unix::fs::symlink("real.txt", d.join("mylink")).unwrap();
    let o = npy_within(&[Path::new("convert"), &a, &d.join("mylink")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fs::symlink_metadata(d.join("mylink"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(d.join("real.txt")).unwrap(), fs::read(&a).unwrap());
}

/// `sh -c 'umask U; exec npy ARGS'` from `dir`.
fn npy_umask(dir: &Path, umask: &str, args: &[&str]) -> Output {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// r10 (F10): files written under umasks 022, 077 and 002 get `0o666 & !umask`, as `np.save`
/// and `open()` give; an in-place convert keeps 0640 (and 0604, 0660).
#[test]
fn modes_follow_the_umask_and_rewrites_keep_theirs() {
    for (umask, expected) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        npy_core::write(d.join("a.npy"), &[0.0f64, 1.0, 2.0], &[3]).unwrap();
        fs::write(d.join("z.npz"), mkzip(&[("m.npy", &npy_bytes(&[1, 2]))])).unwrap();
        npy_umask(d, umask, &["convert", "a.npy", "b.npy"]);
        npy_umask(d, umask, &["cat", "c.npy", "a.npy"]);
        npy_umask(d, umask, &["pack", "p.npz", "a.npy"]);
        npy_umask(d, umask, &["unpack", "z.npz", "u"]);
        for f in ["b.npy", "c.npy", "p.npz", "u/m.npy"] {
            assert_eq!(mode(&d.join(f)), expected, "umask {umask}: {f}");
        }
        for kept in [0o640, 0o604, 0o660] {
            fs::set_permissions(d.join("a.npy"), fs::Permissions::from_mode(kept)).unwrap();
            npy_umask(
                d,
                umask,
                &["convert", "--byte-order", "big", "a.npy", "a.npy"],
            );
            assert_eq!(mode(&d.join("a.npy")), kept, "umask {umask}: in place");
            npy_umask(d, umask, &["cat", "a.npy", "a.npy", "a.npy"]);
            assert_eq!(mode(&d.join("a.npy")), kept, "umask {umask}: cat in place");
            fs::remove_file(d.join("a.npy")).unwrap();
            npy_core::write(d.join("a.npy"), &[0.0f64, 1.0, 2.0], &[3]).unwrap();
        }
    }
}

/// r09 (F9), and its variants for `cat` and `pack`: SIGKILL at random moments of a long write
/// never leaves a partial OUT nor a temporary file behind.
#[test]
fn sigkill_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("in.npy");
    // 64 MiB: long enough to be killed in the middle.
    let rows = vec![0.5f64; 4096 * 2048];
    npy_core::write(&input, &rows, &[4096, 2048]).unwrap();
    drop(rows);
    let mut rng = npy_test_support::Rng(9);
    let commands: [Vec<&str>; 3] = [
        vec!["convert", "--order", "F", "in.npy", "out.npy"],
        vec!["cat", "out.npy", "in.npy", "in.npy"],
        vec!["pack", "--compress", "out.npz", "in.npy"],
    ];
    let mut killed = 0;
    for args in &commands {
        for _ in 0..3 {
            let mut child = Command::new(bin())
                .args(args)
                .current_dir(d)
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(20 + rng.below(200) as u64));
            if child.try_wait().unwrap().is_none() {
                killed += 1;
            }
            let _ = child.kill();
            let _ = child.wait();
            let mut left = listing(d);
            left.retain(|n| n != "out.npy" && n != "out.npz");
            assert_eq!(left, ["in.npy"], "{args:?}: a temporary file was left");
            // An OUT that is there is complete.
            if let Ok(bytes) = fs::read(d.join("out.npy")) {
                assert!(npy_core::NpyReader::new(&bytes[..]).is_ok());
                fs::remove_file(d.join("out.npy")).unwrap();
            }
            let _ = fs::remove_file(d.join("out.npz"));
        }
    }
    assert!(
        killed > 0,
        "no run was killed while writing: the test proves nothing"
    );
}

/// r08 (F8): `npy convert F F` and `npy cat F F X` started while `npy append F` runs wait for
/// its lock: an append that exits 0 is never lost.
#[test]
fn rewrites_during_an_append_keep_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    npy_core::write(d.join("base.npy"), &vec![0.0f64; 1000 * 64], &[1000, 64]).unwrap();
    npy_core::write(
        d.join("more.npy"),
        &vec![1.0f64; 20_000 * 64],
        &[20_000, 64],
    )
    .unwrap();
    npy_core::write(d.join("one.npy"), &vec![2.0f64; 64], &[1, 64]).unwrap();
    for round in 0..6u64 {
        fs::copy(d.join("base.npy"), d.join("f.npy")).unwrap();
        let append = Command::new(bin())
            .args(["append", "f.npy", "more.npy", "more.npy", "more.npy"])
            .current_dir(d)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 * round));
        // Rewrites that keep the dtype, so the append fits whichever runs first.
        let (rewrite, expected): (&[&str], &[u64]) = if round % 2 == 0 {
            (&["convert", "--version", "2", "f.npy", "f.npy"], &[61_000])
        } else {
            // OUT = f.npy, INs = f.npy one.npy: before the append 1000 + 1, then 60,000 more;
            // after it 61,000 + 1. A lost append leaves 1001.
            (&["cat", "f.npy", "f.npy", "one.npy"], &[61_001])
        };
        let rewrite = Command::new(bin())
            .args(rewrite)
            .current_dir(d)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let ra = wait_within(append, 60, "append");
        let rc = wait_within(rewrite, 60, "rewrite");
        assert!(ra.status.success(), "round {round}: {}", stderr(&ra));
        assert!(rc.status.success(), "round {round}: {}", stderr(&rc));
        let rows = npy_core::NpyReader::open(d.join("f.npy")).unwrap().shape()[0];
        assert!(
            expected.contains(&rows),
            "round {round}: {rows} rows, expected one of {expected:?}: an append was lost"
        );
        assert_eq!(
            listing(d),
            ["base.npy", "f.npy", "more.npy", "one.npy"],
            "round {round}"
        );
    }
}

/// r13 (F13): appending one element to a zero-size array of 2**63 - 1 is refused (numpy's
/// `npy_intp`), and FILE keeps its header.
#[test]
fn append_past_npy_intp_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v0 = |n: u64| {
        npy_core::Header::new("|V0".parse().unwrap(), vec![n])
            .to_bytes(None)
            .unwrap()
    };
    fs::write(d.join("f.npy"), v0(npy_core::header::MAX_NUMPY_SIZE)).unwrap();
    fs::write(d.join("one.npy"), v0(1)).unwrap();
    let before = fs::read(d.join("f.npy")).unwrap();
    let o = npy_within(&[Path::new("append"), &d.join("f.npy"), &d.join("one.npy")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("2**63 - 1"), "{}", stderr(&o));
    assert_eq!(fs::read(d.join("f.npy")).unwrap(), before);
    let o = npy(["header".as_ref(), d.join("f.npy").as_os_str()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("9223372036854775807"));
}

/// r14 (F14): a FIFO with no writer (and a character device) as the input of any subcommand:
/// a clear error at once, never a hang.
#[test]
fn special_inputs_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = d.join("p");
    mkfifo(&p);
    let good = d.join("good.npy");
    npy_core::write(&good, &[1.0f64], &[1]).unwrap();
    let (o_dir, o_npy, o_npz) = (d.join("o"), d.join("o.npy"), d.join("o.npz"));
    for input in [p.clone(), PathBuf::from("/dev/zero")] {
        let runs: [Vec<&Path>; 9] = [
            vec![Path::new("info"), &input],
            vec![Path::new("show"), &input],
            vec![Path::new("header"), &input],
            vec![Path::new("unpack"), &input, &o_dir],
            vec![Path::new("convert"), &input, &o_npy],
            vec![Path::new("append"), &input, &good],
            vec![Path::new("append"), &good, &input],
            vec![Path::new("cat"), &o_npy, &input],
            vec![Path::new("pack"), &o_npz, &input],
        ];
        for args in runs {
            let o = npy_within(&args);
            assert!(!o.status.success(), "{args:?}");
            let err = stderr(&o);
            // `header` reads streams: an empty FIFO or /dev/zero's zeros are no .npy.
            let streamed = args[0] == Path::new("header");
            assert!(
                err.contains("a FIFO")
                    || err.contains("a character device")
                    || streamed && err.contains("not an .npy file"),
                "{args:?}: {err}"
            );
        }
    }
    assert_eq!(listing(d), ["good.npy", "p"]);
}

/// F14, the one-pass side: `npy header` reads standard input (`-`) and a FIFO with a writer
/// as streams, giving the same header as for the file.
#[test]
fn header_reads_stdin_and_fifos_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = d.join("good.npy");
    npy_core::write(&good, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let expected = npy_within(&[Path::new("header"), &good]);
    assert!(expected.status.success());
    let o = Command::new(bin())
        .args(["header", "-"])
        .stdin(fs::File::open(&good).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, expected.stdout);
    let p = d.join("p");
    mkfifo(&p);
    let (p2, bytes) = (p.clone(), fs::read(&good).unwrap());
    let writer = std::thread::spawn(move || {
        // Blocks until the reader has opened the FIFO; the reader may close it early.
        let _ = fs::OpenOptions::new()
            .write(true)
            .open(&p2)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes));
    });
    // The writer may not be there when `npy` opens the FIFO: then the stream is empty and npy
    // says so; retried until the writer is met (it waits in open() for a reader).
    let start = Instant::now();
    loop {
        let o = npy_within(&[Path::new("header"), &p]);
        if o.status.success() {
            assert_eq!(o.stdout, expected.stdout);
            break;
        }
        assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never met the writer"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    writer.join().unwrap();
}

/// F6's variants at the member's own path: a symlink at `DIR/x.npy` (to a file outside DIR)
/// is replaced by the member, never followed, as tar replaces it; a symlinked directory on the
/// way (`DIR/d -> outside`) is refused for `d/e.npy`. Nothing outside DIR is touched.
#[test]
fn unpack_never_writes_through_links_in_dir() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (victim, outside) = (d.join("VICTIM"), d.join("outside"));
    fs::write(&victim, "VICTIM ORIGINAL").unwrap();
    fs::create_dir(&outside).unwrap();
    let out = d.join("out");
    fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("x.npy")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("d")).unwrap();
    let x = npy_bytes(&[1, 2, 3]);
    let z = d.join("z.npz");
    fs::write(&z, mkzip(&[("x.npy", &x), ("d/e.npy", &x), ("d/", b"")])).unwrap();
    let o = npy_within(&[Path::new("unpack"), &z, &out]);
    assert!(!o.status.success(), "d/e.npy must be refused");
    let err = stderr(&o);
    assert!(
        err.contains("z.npz[d/e.npy]") && err.contains("a symlink"),
        "{err}"
    );
    assert_eq!(fs::read(&victim).unwrap(), b"VICTIM ORIGINAL");
    assert!(listing(&outside).is_empty(), "nothing written outside DIR");
    let kind = fs::symlink_metadata(out.join("x.npy")).unwrap().file_type();
    assert!(kind.is_file(), "the link at the member's path was replaced");
    assert_eq!(fs::read(out.join("x.npy")).unwrap(), x);
    assert_eq!(listing(&out), ["d", "x.npy"]);
}

/// Two zip64 entries each declaring 2^63 bytes (APPNOTE 4.5.3: the 32-bit size 0xFFFFFFFF,
/// the real one in extra field 0x0001): `npy unpack` refuses them (no bytes back the claims)
/// with an error, and summing the declared sizes for its progress bar does not overflow (it
/// panicked in a debug build; the review of 2026-12-01 found it).
#[test]
fn unpack_of_zip64_sizes_past_u64_fails_cleanly() {
    use npy_test_support::zip::{zip, ZipEntry};
    let huge = |name: &str| {
        let mut zip64 = vec![0x01, 0x00, 8, 0];
        zip64.extend_from_slice(&(1u64 << 63).to_le_bytes());
        ZipEntry {
            size: u32::MAX,
            extra: zip64.clone(),
            local_extra: zip64,
            ..ZipEntry::stored(name, b"x")
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npz");
    fs::write(&x, zip(&[huge("a.npy"), huge("b.npy")], None)).unwrap();
    let out = dir.path().join("out");
    let o = npy_within(&[Path::new("unpack"), &x, &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(stderr(&o).contains("a.npy"), "{}", stderr(&o));
}

/// `npy show` of a deflated Fortran-order member inflates it into a temporary file that has
/// no name (`O_TMPFILE`), so nothing is left in TMPDIR when the command is killed: while the
/// command is blocked writing its output (stdout a pipe nobody reads), TMPDIR holds nothing.
/// Before, a named `.tmpXXXXXX` holding the whole member stayed behind after a SIGKILL.
#[test]
fn show_of_a_deflated_fortran_member_leaves_no_named_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    // (300, 300) f8 in Fortran order, deflated: --json prints every element (> 64 KiB, more
    // than a pipe holds).
    let data: Vec<f64> = (0..90_000).map(f64::from).collect();
    let mut member = Vec::new();
    npy_core::WriteOptions::new()
        .order(npy_core::MemoryOrder::Fortran)
        .write_to(&mut member, &data, &[300, 300])
        .unwrap();
    let x = dir.path().join("x.npz");
    fs::write(
        &x,
        npy_test_support::zip::zip(
            &[npy_test_support::zip::ZipEntry::deflated("a.npy", &member)],
            None,
        ),
    )
    .unwrap();
    let mut child = Command::new(bin())
        .args(["show", "--json", "--member", "a"])
        .arg(&x)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first output bytes come after the member is inflated into the temporary file.
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().unwrap();
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    let left = listing(&tmp);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        left,
        Vec::<String>::new(),
        "named temporary files in TMPDIR"
    );
    assert_eq!(listing(&tmp), Vec::<String>::new());
}

/// A process's open file reached by other spellings than `/proc/PID/fd/N` (`/dev/fd/1`, and
/// `fd/1` relative to `/proc/self`) is refused as `/proc/self/fd/1` is: with stdout a regular
/// file, `npy convert a.npy /dev/fd/1` replaced that file by rename, a file the command was
/// never given (the review of 2026-12-01 lost its own log this way).
#[test]
fn links_to_an_open_file_by_any_spelling_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.npy");
    fs::write(&a, npy_bytes(&[1, 2, 3])).unwrap();
    for (cwd, out) in [(None, "/dev/fd/1"), (Some("/proc/self"), "fd/1")] {
        let log = dir.path().join("stdout.log");
        fs::write(&log, "LOG").unwrap();
        let mut cmd = Command::new(bin());
        cmd.arg("convert")
            .arg(&a)
            .arg(out)
            .stdin(Stdio::null())
            .stdout(fs::File::options().append(true).open(&log).unwrap())
            .stderr(Stdio::piped());
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{out}: {err}");
        assert!(err.contains("open file"), "{out}: {err}");
        assert_eq!(fs::read(&log).unwrap(), b"LOG", "{out}");
    }
}
