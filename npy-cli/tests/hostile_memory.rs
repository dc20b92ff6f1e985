//! Issue 23's hostile pickles (`../shared/cases/turn3/r01`, `r03`, `r04`, `r05`) shown or
//! refused by `npy show` within a bounded peak resident set and time. A binary of its own, as
//! `memory.rs`: the inputs this process builds would inflate other tests' readings of their
//! children.

#[path = "hostile/mod.rs"]
mod hostile;
mod peak;

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Runs `npy show ARGS PATH`; returns (exit code, stdout, peak resident set in bytes).
fn npy_show(args: &[&str], path: &Path, stdout: bool) -> (i32, String, u64) {
    let mut all: Vec<&OsStr> = vec![OsStr::new("show")];
    all.extend(args.iter().map(OsStr::new));
    all.push(path.as_os_str());
    peak::run_npy(&all, stdout)
}

/// Issue 23's read side: each hostile pickle of `../shared/cases/turn3/r01`, `r03`, `r04`,
/// `r05`, in a `.npy` and deflated in an `.npz`, is shown or refused within 256 MiB of peak
/// resident set and a few seconds (the bound: 256 MiB, 2 s for a release build; a
/// debug build gets 20 s). What is printed or refused is `it/show.rs`'s to check.
#[test]
fn hostile_pickles_are_refused_or_shown_in_bounded_memory_and_time() {
    const LIMIT: u64 = 256 * MIB;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cases: Vec<(String, Vec<u8>, i32, i32)> = Vec::new();
    for (name, item) in hostile::r01_items() {
        let ok = i32::from(name != "plain_element");
        // (label, file bytes, exit of `show`, exit of `show --json`)
        cases.push((
            format!("r01 {name}"),
            hostile::npy(&hostile::object_array(&item)),
            ok,
            1,
        ));
    }
    cases.push((
        "r03 tuples".into(),
        hostile::npy(&hostile::r03_tuples()),
        1,
        1,
    ));
    cases.push((
        "r03 str".into(),
        hostile::npy(&hostile::r03_shared_str()),
        1,
        1,
    ));
    cases.push((
        "r04 quad".into(),
        hostile::npy(&hostile::r04_quad(400_000, 120_000)),
        1,
        1,
    ));
    cases.push((
        "r04 quad big".into(),
        hostile::npy(&hostile::r04_quad(2_000_000, 400_000)),
        1,
        1,
    ));
    cases.push((
        "r05 bigint".into(),
        hostile::npy(&hostile::r05_bigint(4 << 20)),
        0,
        1,
    ));
    for (label, npy, text_exit, json_exit) in cases {
        let npz = hostile::deflated_npz(&npy);
        for (ext, bytes) in [("npy", &npy), ("npz", &npz)] {
            let path = dir.path().join(format!("case.{ext}"));
            fs::write(&path, bytes).expect("write");
            for (args, exit) in [(&[][..], text_exit), (&["--json"][..], json_exit)] {
                let start = std::time::Instant::now();
                let (code, _, rss) = npy_show(args, &path, false);
                let took = start.elapsed();
                assert_eq!(code, exit, "{label} .{ext} {args:?}");
                assert!(
                    rss < LIMIT,
                    "{label} .{ext} {args:?}: peak RSS {} MiB",
                    rss / MIB
                );
                let most = if cfg!(debug_assertions) { 20 } else { 2 };
                assert!(took.as_secs() < most, "{label} .{ext} {args:?}: {took:?}");
            }
        }
    }
}

/// Issue 42, F8 (`../shared/cases/turn4/r08`): `npy info` of a scipy.sparse archive read its
/// `shape` member (a DIA matrix's `offsets`) whole as `i64`: deflated `int8` zeros of 512 Mi
/// elements, half a megabyte of archive, took 5.8 GB. Here 64 Mi elements (512 MiB as `i64`
/// before the fix): the member is refused from its header, within 64 MiB and in a few seconds,
/// and the archive's members are still listed.
#[test]
fn sparse_members_of_a_summary_are_not_read_whole() {
    const N: u64 = 64 << 20;
    let dir = tempfile::tempdir().expect("tempdir");
    for which in ["shape", "offsets"] {
        let path = dir.path().join(format!("{which}.npz"));
        let mut w = npy_npz::NpzWriter::create(&path)
            .expect("create")
            .compression(npy_npz::Compression::Deflated { level: 9 });
        let format = if which == "shape" { "csr" } else { "dia" };
        w.add("format", &[format.as_bytes().to_vec()], &[])
            .expect("format");
        let zeros = vec![0i8; N as usize];
        if which == "shape" {
            w.add("shape", &zeros, &[N]).expect("shape");
        } else {
            w.add("shape", &[4i64, 4], &[2]).expect("shape");
        }
        w.add("data", &[0.0f64; 4], &[1, 4]).expect("data");
        if which == "shape" {
            w.add("indices", &[0i32], &[1]).expect("indices");
            w.add("indptr", &[0i32, 1, 1, 1, 1], &[5]).expect("indptr");
        } else {
            w.add("offsets", &zeros, &[N]).expect("offsets");
        }
        w.finish().expect("finish");
        drop(zeros);
        let start = std::time::Instant::now();
        let (code, out, rss) = peak::run_npy(&[OsStr::new("info"), path.as_os_str()], true);
        let took = start.elapsed();
        assert_eq!(code, 0, "{which}");
        let first = out.lines().next().unwrap_or_default().to_owned();
        let want = if which == "shape" {
            "not a valid csr matrix: shape must have length in (2,), it has 67108864".to_owned()
        } else {
            format!("not a valid dia matrix: number of diagonals (1) does not match the number of offsets ({N})")
        };
        assert_eq!(first, format!("{}: {want}", path.display()), "{which}");
        assert!(
            out.contains(which),
            "{which}: the members are listed: {out}"
        );
        assert!(rss < 64 * MIB, "{which}: peak RSS {} MiB", rss / MIB);
        let most = if cfg!(debug_assertions) { 20 } else { 2 };
        assert!(took.as_secs() < most, "{which}: {took:?}");
    }
}
