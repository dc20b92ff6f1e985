//! `cargo xtask fuzz`: every cargo-fuzz target of `fuzz/` for N minutes, seeded and bounded.
//!
//! Each target's corpus (`fuzz/corpus/<target>/`, not committed) is seeded from the fixtures
//! (as `fuzz/seed.sh` does: `.npy` files, the pickles of `fixtures/object/`, the archives of
//! `fixtures/npz/`, the header texts) and from issue 23's hostile inputs
//! (`../shared/cases/turn3/`), built here at seed size: r01's empty array of shape (2^62, 0)
//! in a set, as a dict key and bare; r03's runs of `EMPTY_TUPLE`, `MARK`, `DUP`; r04's memoised
//! tuple reduced many times; r05's long `LONG4`; r02's entries sharing one local header; r11's
//! zero-size member with a wrong CRC; r15's end record counting 0, differing local name,
//! Unicode Path extra field and bad UTF-8 name.
//!
//! Each target runs with `-malloc_limit_mb` (the largest single allocation) and
//! `-rss_limit_mb` of its documented budget. `pickle`: 128 MiB, `npy_pickle::PICKLE_BUDGET`
//! itself (everything the interpreter allocates is charged to it before it is allocated, so
//! no one allocation can be larger), and an RSS of 768 MiB: twice the budget (what the
//! allocator may hold for it), the address sanitizer's quarantine of freed blocks (256 MiB by
//! default) and 256 MiB for its redzones and shadow and libFuzzer's own memory. Measured: 34
//! MiB of RSS for `N.`, 306-338 MiB for the pickles that allocate 125 MiB, and 523 MiB during
//! a 3-minute run with 84 MiB live and 216 MiB quarantined (an `oom-` at 512 MiB that was the
//! sanitizer's, not the interpreter's). 256 MiB for `npz_directory` and `safetensors`, 512
//! MiB for the others (what `fuzz/README.md` gives them), with twice that of RSS. The
//! `remote` target is seeded with fixtures behind scripted store answers. A crash, a leak, an
//! allocation past the limit or a timeout (10 s) is a finding: its input is left in
//! `fuzz/artifacts/<target>/` (each log in `fuzz/artifacts/logs/`) and the task fails after
//! running every target.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::workspace_root;

/// The targets, their `-malloc_limit_mb` and `-rss_limit_mb`.
const TARGETS: &[(&str, u32, u32)] = &[
    ("header", 512, 1024),
    ("read_dyn", 512, 1024),
    ("typed", 512, 1024),
    ("pickle", 128, 768),
    ("npz", 512, 1024),
    ("npz_directory", 256, 512),
    ("inflate", 256, 512),
    ("serde_from_str", 512, 1024),
    ("safetensors", 256, 512),
    ("arrow", 512, 1024),
    ("parquet", 512, 1024),
    ("remote", 512, 1024),
];

/// Runs the targets (all, or `flags.target`) for `flags.minutes` each.
pub fn run(flags: &crate::flags::Fuzz) -> Result<(), String> {
    let chosen: Vec<(&str, u32, u32)> = match &flags.target {
        Some(t) => vec![*TARGETS
            .iter()
            .find(|(name, ..)| name == t)
            .ok_or_else(|| format!("no fuzz target {t:?}; the targets: {TARGETS:?}"))?],
        None => TARGETS.to_vec(),
    };
    let fuzz = workspace_root().join("fuzz");
    seed(&fuzz).map_err(|e| format!("seeding fuzz/corpus: {e}"))?;
    let seconds = (flags.minutes * 60.0).round().max(1.0) as u64;
    let mut findings = Vec::new();
    for (target, malloc_mb, rss_mb) in chosen {
        let artifacts = fuzz.join("artifacts").join(target);
        let before = count_files(&artifacts);
        // libFuzzer refuses a corpus directory that does not exist (`arrow` without Python).
        fs::create_dir_all(fuzz.join("corpus").join(target))
            .map_err(|e| format!("making fuzz/corpus/{target}: {e}"))?;
        let out = Command::new("cargo")
            .current_dir(&fuzz)
            .args(["+nightly", "fuzz", "run", target])
            .arg(fuzz.join("corpus").join(target))
            .args([
                "--",
                &format!("-max_total_time={seconds}"),
                &format!("-malloc_limit_mb={malloc_mb}"),
                &format!("-rss_limit_mb={rss_mb}"),
                "-timeout=10",
                "-print_final_stats=1",
            ])
            .output()
            .map_err(|e| {
                format!("running cargo +nightly fuzz: {e} (`cargo install --locked cargo-fuzz`)")
            })?;
        let log = String::from_utf8_lossy(&out.stderr);
        // The whole log beside the artifacts (not committed), for the triage.
        let logs = fuzz.join("artifacts").join("logs");
        fs::create_dir_all(&logs)
            .and_then(|()| fs::write(logs.join(format!("{target}.log")), &out.stderr))
            .map_err(|e| format!("writing fuzz/artifacts/logs/{target}.log: {e}"))?;
        let runs = stat(&log, "stat::number_of_executed_units:").unwrap_or(0);
        let found = count_files(&artifacts).saturating_sub(before);
        let corpus = count_files(&fuzz.join("corpus").join(target));
        println!(
            "{target:>15}: {runs} executions in {seconds} s, corpus {corpus}, -malloc_limit_mb={malloc_mb} -rss_limit_mb={rss_mb}, {} ({})",
            if found == 0 && out.status.success() {
                "no findings".to_owned()
            } else {
                format!("{found} new finding(s) in fuzz/artifacts/{target}/")
            },
            out.status
        );
        if found > 0 || !out.status.success() {
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            for line in tail.into_iter().rev() {
                println!("    {line}");
            }
            findings.push(target);
        }
    }
    if findings.is_empty() {
        Ok(())
    } else {
        Err(format!("findings in {findings:?}"))
    }
}

/// A libFuzzer final stat (`-print_final_stats=1`).
fn stat(log: &str, key: &str) -> Option<u64> {
    log.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, Iterator::count)
}

/// Writes the seeds of every target into `fuzz/corpus/`.
fn seed(fuzz: &Path) -> std::io::Result<()> {
    let corpus = fuzz.join("corpus");
    let fixtures = workspace_root().join("fixtures");
    let put = |target: &str, name: &str, bytes: &[u8]| -> std::io::Result<()> {
        let dir = corpus.join(target);
        fs::create_dir_all(&dir)?;
        fs::write(dir.join(name), bytes)
    };
    for entry in fs::read_dir(&fixtures)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npy") {
            let bytes = fs::read(&path)?;
            let name = file_name(&path);
            for t in ["header", "read_dyn", "typed"] {
                put(t, &name, &bytes)?;
            }
            if let Some(header) = header_text(&bytes) {
                put("serde_from_str", &format!("{name}.txt"), header)?;
            }
        }
    }
    for entry in fs::read_dir(fixtures.join("object"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npy") {
            let bytes = fs::read(&path)?;
            let name = file_name(&path);
            put("read_dyn", &name, &bytes)?;
            if let Some(pickle) = data(&bytes) {
                put("pickle", &format!("{name}.pkl"), pickle)?;
            }
        }
    }
    for entry in fs::read_dir(fixtures.join("npz"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npz") {
            let bytes = fs::read(&path)?;
            put("npz", &file_name(&path), &bytes)?;
            put("npz_directory", &file_name(&path), &bytes)?;
            for (i, stream) in deflate_streams(&bytes).iter().enumerate() {
                put("inflate", &format!("{}_{i}", file_name(&path)), stream)?;
            }
        }
    }
    for (name, pickle) in hostile_pickles() {
        put("pickle", &format!("turn3_{name}.pkl"), &pickle)?;
        put(
            "read_dyn",
            &format!("turn3_{name}.npy"),
            &object_npy(&pickle),
        )?;
    }
    for (name, archive) in hostile_archives() {
        put("npz", &format!("turn3_{name}.npz"), &archive)?;
        put("npz_directory", &format!("turn3_{name}.npz"), &archive)?;
    }
    // The remote target: a script length byte, the script (one byte per GET: honest, a short
    // or long body, another range, a lying size or ETag, the whole object, an error), then
    // the object. Each fixture with no script (every answer honest) and with one of each.
    let scripts: [&[u8]; 3] = [
        &[],
        &[0, 0x13, 0x24, 0x35, 0x06, 0x07, 0x08, 0x09],
        &[0, 0, 0xF0],
    ];
    let mut remote_seeds = Vec::new();
    for name in ["f4_le_c_2x3x4.npy", "i8_le_c_2x3x4.npy", "f4_le_c_5.npy"] {
        if let Ok(bytes) = fs::read(fixtures.join(name)) {
            remote_seeds.push((name.to_owned(), bytes));
        }
    }
    for entry in fs::read_dir(fixtures.join("npz"))?.take(4) {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npz") {
            remote_seeds.push((file_name(&path), fs::read(&path)?));
        }
    }
    for (name, bytes) in remote_seeds {
        for (i, script) in scripts.iter().enumerate() {
            let mut seed = vec![script.len() as u8];
            seed.extend_from_slice(script);
            seed.extend_from_slice(&bytes);
            put("remote", &format!("{name}.{i}"), &seed)?;
        }
    }
    // A two-tensor safetensors file by the format's rules: the header's length (u64 LE), its
    // JSON padded with spaces to a multiple of 8, then the tensors' bytes back to back.
    let mut json =
        br#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I8","shape":[1,2],"data_offsets":[8,10]}}"#
            .to_vec();
    while !json.len().is_multiple_of(8) {
        json.push(b' ');
    }
    let mut st = (json.len() as u64).to_le_bytes().to_vec();
    st.extend_from_slice(&json);
    st.extend_from_slice(&[0, 0, 128, 63, 0, 0, 0, 64, 1, 255]);
    put("safetensors", "two_tensors.safetensors", &st)?;
    // The arrow target: fixtures written by pyarrow (`xtask/fuzz_arrow_seeds.py`), when the
    // pinned interpreter is there; without seeds libFuzzer starts from nothing, and finds no
    // Arrow or Parquet file in minutes.
    match npy_test_support::python::pinned_python() {
        Ok(python) => {
            let dir = corpus.join("arrow");
            crate::python::run_script(&python, "fuzz_arrow_seeds.py", [&fixtures, &dir])
                .map_err(std::io::Error::other)?;
            // The parquet target starts from the same files (it reads any as Parquet).
            let pq = corpus.join("parquet");
            std::fs::create_dir_all(&pq)?;
            for e in std::fs::read_dir(&dir)? {
                let path = e?.path();
                std::fs::copy(&path, pq.join(file_name(&path)))?;
            }
        }
        Err(why) => eprintln!("xtask fuzz: the arrow target has no seeds: {why}"),
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The header text of a `.npy` file (format 1.0: a 2-byte length; later: 4 bytes).
fn header_text(b: &[u8]) -> Option<&[u8]> {
    let (n, off) = match b.get(6)? {
        1 => (
            usize::from(u16::from_le_bytes([*b.get(8)?, *b.get(9)?])),
            10,
        ),
        _ => (
            u32::from_le_bytes(b.get(8..12)?.try_into().ok()?) as usize,
            12,
        ),
    };
    b.get(off..off + n)
}

/// The bytes after a `.npy` file's header.
fn data(b: &[u8]) -> Option<&[u8]> {
    let header = header_text(b)?;
    let off = if b.get(6)? == &1 { 10 } else { 12 };
    b.get(off + header.len()..)
}

/// `SHORT_BINUNICODE s`.
fn su(s: &str) -> Vec<u8> {
    let mut o = vec![0x8c, s.len() as u8];
    o.extend_from_slice(s.as_bytes());
    o
}

fn glob(module: &str, name: &str) -> Vec<u8> {
    [su(module), su(name), vec![0x93]].concat()
}

fn dt(s: &str) -> Vec<u8> {
    [glob("numpy", "dtype"), su(s), b"\x89\x88\x87R".to_vec()].concat()
}

/// numpy's pickle of `np.array([item], dtype=object)`.
fn object_array(item: &[u8]) -> Vec<u8> {
    [
        vec![0x80, 4],
        glob("numpy._core.multiarray", "_reconstruct"),
        glob("numpy", "ndarray"),
        b"K\x00\x85C\x01b\x87R(K\x01K\x01\x85".to_vec(),
        dt("O8"),
        b"(K\x03".to_vec(),
        su("|"),
        b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](".to_vec(),
        item.to_vec(),
        b"etb.".to_vec(),
    ]
    .concat()
}

fn object_npy(pickle: &[u8]) -> Vec<u8> {
    let dict = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }";
    let mut out = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    out.extend_from_slice(format!("{dict:<117}\n").as_bytes());
    out.extend_from_slice(pickle);
    out
}

/// `numpy._core.multiarray.scalar(dtype, bytes)` memoised, then a list of it three times.
fn shared_scalar(dtype: &[u8], bytes: &[u8]) -> Vec<u8> {
    [
        vec![0x80, 4],
        glob("numpy._core.multiarray", "scalar"),
        b"(".to_vec(),
        dtype.to_vec(),
        vec![b'C', bytes.len() as u8],
        bytes.to_vec(),
        b"tR\x940](h\x00h\x00h\x00e.".to_vec(),
    ]
    .concat()
}

/// Issue 23's hostile pickles (r01, r03, r04, r05) at seed size, and the shapes that overran
/// the pickle budget.
fn hostile_pickles() -> Vec<(&'static str, Vec<u8>)> {
    let empty = [
        glob("numpy._core.numeric", "_frombuffer"),
        b"(C\x00".to_vec(),
        dt("u1"),
        b"(\x8a\x08".to_vec(),
        (1u64 << 62).to_le_bytes().to_vec(),
        b"K\x00t".to_vec(),
        su("C"),
        b"tR".to_vec(),
    ]
    .concat();
    let slice = [glob("builtins", "slice"), empty.clone(), b"\x85R".to_vec()].concat();
    let quad = [
        vec![0x80, 4],
        su("numpy"),
        su("dtype"),
        b"\x93\x94(".to_vec(),
        su("f8"),
        vec![b'N'; 20],
        b"t\x94".to_vec(),
        b"h\x00h\x01R0".repeat(5),
        b"N.".to_vec(),
    ]
    .concat();
    // dtype(('u1', (16,))): a V16 whose BUILD state names the subarray.
    let subarray = [
        glob("numpy", "dtype"),
        su("V16"),
        b"\x89\x88\x87R(K\x03".to_vec(),
        su("|"),
        dt("u1"),
        b"K\x10\x85\x86NNK\x10K\x01K\x00tb".to_vec(),
    ]
    .concat();
    let mut long4 = vec![0x8b];
    long4.extend_from_slice(&2000i32.to_le_bytes());
    long4.extend(std::iter::repeat_n(0x7f, 2000));
    vec![
        (
            "r01_set",
            object_array(&[vec![0x8f, b'('], slice.clone(), vec![0x90]].concat()),
        ),
        (
            "r01_key",
            object_array(&[vec![b'}'], slice, b"K\x01s".to_vec()].concat()),
        ),
        ("r01_plain", object_array(&empty)),
        (
            "r03_tuples",
            [b"\x80\x04(".to_vec(), vec![b')'; 1000], b"l.".to_vec()].concat(),
        ),
        (
            "r03_marks",
            [b"\x80\x04".to_vec(), vec![b'('; 1000], b"N.".to_vec()].concat(),
        ),
        (
            "r03_dups",
            [b"\x80\x04N".to_vec(), vec![b'2'; 1000], b".".to_vec()].concat(),
        ),
        ("r04_quad", quad),
        ("r05_long4", object_array(&long4)),
        // The shapes that overran the pickle budget (npy-pickle/tests/pickle_peak_memory.rs),
        // small: 3^6 shared tuples in a frozenset and as a dict key, a numpy str scalar shared
        // through the memo, a scalar of a subarray dtype.
        (
            "dag_frozenset",
            [
                b"\x80\x04()".to_vec(),
                b"22\x87".repeat(6),
                b"\x91.".to_vec(),
            ]
            .concat(),
        ),
        (
            "dag_dict_key",
            [b"\x80\x04})".to_vec(), b"22\x87".repeat(6), b"Ns.".to_vec()].concat(),
        ),
        (
            "shared_scalar",
            shared_scalar(&dt("U4"), &b"a\0\0\0".repeat(4)),
        ),
        ("subarray_scalar", shared_scalar(&subarray, &[1; 16])),
    ]
}

/// Issue 23's hostile archives (r02, r11, r15) at seed size, laid out by
/// [`npy_test_support::zip`].
fn hostile_archives() -> Vec<(&'static str, Vec<u8>)> {
    use npy_test_support::zip::{crc32, zip, ZipEntry};
    let dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
    let mut p = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    p.extend_from_slice(format!("{dict:<117}\n").as_bytes());
    for i in 0..3i64 {
        p.extend_from_slice(&i.to_le_bytes());
    }
    let plain = |name: &str| ZipEntry::stored(name, &p);
    // Info-ZIP Unicode Path: id 0x7075, 16 bytes: version 1, the CRC of the name, the new name.
    let mut up = vec![0x75, 0x70, 16, 0, 1];
    up.extend_from_slice(&crc32(b"benign.npy").to_le_bytes());
    up.extend_from_slice(b"renamed.npy");
    let shared: Vec<ZipEntry> = ["m0.npy", "m1.npy", "m2.npy", "m3.npy"]
        .into_iter()
        .enumerate()
        .map(|(i, name)| ZipEntry {
            local_name: b"m0.npy".to_vec(),
            points_at: (i > 0).then_some(0),
            ..plain(name)
        })
        .collect();
    let zero_size = ZipEntry {
        data: Vec::new(),
        size: 0,
        ..plain("a.npy")
    };
    let renamed = ZipEntry {
        local_name: b"../../evil.npy".to_vec(),
        ..plain("ok.npy")
    };
    let unicode = ZipEntry {
        extra: up.clone(),
        local_extra: up,
        ..plain("benign.npy")
    };
    let bad_utf8 = ZipEntry {
        name: b"\xff\xfe.npy".to_vec(),
        local_name: b"\xff\xfe.npy".to_vec(),
        flags: 1 << 11,
        ..plain("x.npy")
    };
    vec![
        ("r02_shared_header", zip(&shared, None)),
        ("r11_zero_size_crc", zip(&[zero_size], None)),
        ("r15_count_0", zip(&[plain("a.npy")], Some(0))),
        ("r15_local_name", zip(&[renamed], None)),
        ("r15_unicode_path", zip(&[unicode], None)),
        ("r15_bad_utf8", zip(&[bad_utf8], None)),
    ]
}

/// The raw deflate streams of an archive's deflated members (numpy's zlib output), for the
/// `inflate` target: each member's bytes after its local header.
fn deflate_streams(archive: &[u8]) -> Vec<Vec<u8>> {
    let Ok(npz) = npy_npz::NpzArchive::new(archive) else {
        return Vec::new();
    };
    let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
    keys.iter()
        .filter_map(|k| {
            let m = npz.member(k).ok()?;
            if m.method != 8 {
                return None;
            }
            let at = usize::try_from(m.header_offset).ok()?;
            let len = |i: usize| -> Option<usize> {
                let b = archive.get(at + i..at + i + 2)?;
                Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
            };
            let start = at + 30 + len(26)? + len(28)?;
            let end = start.checked_add(usize::try_from(m.compressed_size).ok()?)?;
            archive.get(start..end).map(<[u8]>::to_vec)
        })
        .collect()
}
