//! Allocation bounds on hostile input: whatever a file claims, reading it allocates memory in
//! proportion to the bytes it actually holds, and never panics.
//!
//! A counting global allocator (this test binary only) tracks the bytes live and their peak.
//! Each call under test runs with the peak reset to the bytes live just before it, so the
//! measure is what the call itself holds at its worst. Every test takes [`LOCK`], so no other
//! test's allocations are counted.
//!
//! The bounds, per call, for a file of `len` bytes whose header (prefix and header text, as far
//! as the file holds it) is `hdr` bytes and whose data is the other `len - hdr`:
//! - header text: `hdr × 48`. Parsing builds a literal tree first, and a `Value` is 32 bytes
//!   (an `i128` is its largest payload) that can stand for two bytes of text (`1,`): 16× for
//!   the tree, and a vector grown by doubling holds up to twice that at the moment it moves
//!   (this allocator counts both blocks then). A dict entry is 64 bytes plus its entry in the
//!   parser's repeated-key index. Measured worst: 31× for a dict of 20,000 int keys, 26× for a
//!   list of `1`s, 23× for a 100,000-dimension shape; 48 leaves room for growth points. The
//!   default header limit, 16 MiB, caps this part at 768 MiB; `ReadOptions::max_header_len`
//!   lowers it.
//! - data, for [`Header::read`], [`TensorInfo`], typed reads of `f32`/`f64` (owned or
//!   streamed) and views: `(len - hdr) × 16`. A typed read holds one `T` per `itemsize`
//!   bytes with `T` exactly the file's type (factor 1; a stream's growing vector ×2), plus a
//!   decode chunk; views hold nothing.
//! - data, for [`NpyReader::read_dyn`]: `(len - hdr) × 2 × MAX_DYN_EXPANSION`. A tree of
//!   `DynValue`s is bigger than the bytes it decodes (48 bytes per `|u1` byte, more per record
//!   field); the reader refuses trees beyond [`npy_core::dynamic::MAX_DYN_EXPANSION`] bytes per data
//!   byte plus [`npy_core::dynamic::DYN_ALLOWANCE`] (zero-size values), and a stream's vector may hold
//!   twice that while it grows.
//! - plus 1 MiB for everything (chunk buffers, a stream's first step), and the dynamic
//!   allowance twice over for `read_dyn`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use npy_core::{Header, NpyReader, NpyView, TensorInfo};
use npy_test_support::Rng;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn add(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::SeqCst) + n;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

fn sub(n: usize) {
    CURRENT.fetch_sub(n, Ordering::SeqCst);
}

// SAFETY: every method forwards to `System` with the caller's layout and only adds counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) };
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as both blocks live for the moment of the move: the worst case.
            add(new_size);
            sub(layout.size());
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static LOCK: Mutex<()> = Mutex::new(());

const MIB: u64 = 1 << 20;

/// Heap bytes allowed per byte of header (see the module docs).
const HEADER_FACTOR: u64 = 48;

/// Heap bytes allowed per byte of data for typed reads and views.
const DATA_FACTOR: u64 = 16;

/// Heap bytes allowed per byte of data for `read_dyn`.
const DYN_FACTOR: u64 = npy_core::dynamic::MAX_DYN_EXPANSION * 2;

/// A bound for a file: header bytes, data bytes and the constant.
#[derive(Clone, Copy)]
struct Bound {
    hdr: u64,
    data: u64,
    data_factor: u64,
    constant: u64,
}

impl Bound {
    fn bytes(self) -> u64 {
        self.hdr * HEADER_FACTOR + self.data * self.data_factor + self.constant
    }
}

/// Runs `f`, returning the peak bytes it held above what was live before, and whether it
/// panicked.
fn measure(f: impl FnOnce()) -> (u64, bool) {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let panicked = catch_unwind(AssertUnwindSafe(f)).is_err();
    let peak = PEAK.load(Ordering::SeqCst);
    (peak.saturating_sub(base) as u64, panicked)
}

/// What each call under test reached, for the report.
#[derive(Default)]
struct Report {
    failures: Vec<String>,
    /// Worst peak / file length per call, and the file that reached it.
    worst: Vec<(&'static str, f64, String)>,
    calls: u64,
}

impl Report {
    fn check(&mut self, call: &'static str, name: &str, bound: Bound, f: impl FnOnce()) {
        let (peak, panicked) = measure(f);
        self.calls += 1;
        if panicked {
            self.failures.push(format!("{name}: {call} panicked"));
        }
        let len = bound.hdr + bound.data;
        let bound = bound.bytes();
        if peak > bound {
            self.failures.push(format!(
                "{name}: {call} allocated {peak} bytes for a {len}-byte file (bound {bound})"
            ));
        }
        // Small files sit under the constant; the ratio means something for large ones.
        if len < 1 << 16 {
            return;
        }
        let ratio = peak as f64 / len as f64;
        match self.worst.iter_mut().find(|w| w.0 == call) {
            Some(w) if w.1 < ratio => {
                w.1 = ratio;
                name.clone_into(&mut w.2);
            }
            Some(_) => {}
            None => self.worst.push((call, ratio, name.to_owned())),
        }
    }
}

/// Every reading entry point on `bytes`, each measured.
fn exercise(report: &mut Report, dir: &std::path::Path, name: &str, bytes: &[u8]) {
    let hdr = header_end(bytes) as u64;
    let typed = Bound {
        hdr,
        data: bytes.len() as u64 - hdr,
        data_factor: DATA_FACTOR,
        constant: MIB,
    };
    let dynamic = Bound {
        data_factor: DYN_FACTOR,
        constant: MIB + 2 * npy_core::dynamic::DYN_ALLOWANCE,
        ..typed
    };
    let path = dir.join("input.npy");
    std::fs::write(&path, bytes).unwrap();
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    let aligned = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()];
    aligned.copy_from_slice(bytes);
    let aligned = &*aligned;

    report.check("Header::read", name, typed, || {
        let _ = Header::read(&mut &bytes[..]);
    });
    report.check("TensorInfo::from_reader", name, typed, || {
        let _ = TensorInfo::from_reader("x", &mut &bytes[..]);
    });
    report.check("TensorInfo::from_path", name, typed, || {
        let _ = TensorInfo::from_path(&path);
    });
    report.check("read::<f32>(path)", name, typed, || {
        let _ = npy_core::read::<f32>(&path);
    });
    report.check("read::<f64>(path)", name, typed, || {
        let _ = npy_core::read::<f64>(&path);
    });
    report.check("read_vec::<f64>(stream)", name, typed, || {
        if let Ok(mut r) = NpyReader::new(bytes) {
            let _ = r.read_vec::<f64>();
        }
    });
    report.check("NpyView::<f64>::new", name, typed, || {
        let _ = NpyView::<f64>::new(aligned);
    });
    report.check("view_or_copy::<f32>", name, typed, || {
        let _ = npy_core::view::view_or_copy::<f32>(aligned);
    });
    report.check("read_dyn(path)", name, dynamic, || {
        let _ = npy_core::read_dyn(&path);
    });
    report.check("read_dyn(stream)", name, dynamic, || {
        if let Ok(mut r) = NpyReader::new(bytes) {
            let _ = r.read_dyn();
        }
    });
}

/// `\x93NUMPY`, version, the little-endian length of `text` (u16 for 1.0, u32 for 2.0/3.0).
fn file(major: u8, text: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&u16::try_from(text.len()).unwrap().to_le_bytes());
    } else {
        out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(text);
    out
}

/// A 2.0 file with this descr and shape, and `data` after the header.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut f = file(2, text.as_bytes());
    f.extend_from_slice(data);
    f
}

/// Hostile files: huge claims on tiny files, zero-size elements, deep and wide headers.
fn hostile() -> Vec<(String, Vec<u8>)> {
    let tera = "(1000000000000,)";
    let mut v: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>| v.push((name.to_owned(), bytes));
    // 10^12 elements claimed, a few bytes present.
    for descr in [
        "'<f8'",
        "'>f8'",
        "'<f4'",
        "'|u1'",
        "'|b1'",
        "'<U1'",
        "'<U7'",
        "'|S1'",
        "'|S16'",
        "'|V1'",
        "'|V8'",
        "'<c16'",
        "'<f16'",
        "'<M8[ns]'",
        "[('a', '<f8'), ('b', '|u1')]",
        "[('a', '|u1', (4,))]",
        "[('x', '<f4'), ('id', '<i8'), ('pos', '<f8', (2,)), ('tag', '<U4'), ('raw', '|S3'), ('flag', '|b1')]",
    ] {
        add(&format!("10^12 of {descr}"), npy(descr, tera, &[0; 40]));
        add(
            &format!("10^12 of {descr}, Fortran"),
            file(
                1,
                format!("{{'descr': {descr}, 'fortran_order': True, 'shape': (1000, 1000000000), }}\n")
                    .as_bytes(),
            ),
        );
    }
    // Overflowing shapes.
    add(
        "shape overflow",
        npy("'<f8'", "(4294967296, 4294967296, 16)", &[]),
    );
    add("2**61 f8", npy("'<f8'", "(2305843009213693952,)", &[]));
    // Zero-size elements with huge shapes: no byte backs them.
    for descr in [
        "'|S0'",
        "'|V0'",
        "'<U0'",
        "[]",
        "[('a', '|S0')]",
        "[('a', '<f8', (0,))]",
        "[('a', '|V0', (1000000,))]",
        "('|S0', (1000, 1000))",
    ] {
        for shape in [
            "(1000000000000,)",
            "(16777216,)",
            "(100000,)",
            "(1000, 1000000)",
        ] {
            add(&format!("{descr} × {shape}"), npy(descr, shape, &[]));
        }
    }
    // Huge elements.
    add("U with 2**28 chars", npy("'<U268435456'", "(1,)", &[0; 64]));
    add(
        "U with 2**28 chars × 10^12",
        npy("'<U268435456'", tera, &[0; 64]),
    );
    add("S2147483647", npy("'|S2147483647'", "(2,)", &[0; 64]));
    add("V2147483647", npy("'|V2147483647'", "(1,)", b"abc"));
    add(
        "huge subarray field",
        npy("[('a', '<f8', (1000000000, 1000000000))]", "(1,)", &[0; 8]),
    );
    add(
        "huge subarray field of u1",
        npy("[('a', '|u1', (1073741824,))]", "(3,)", &[0; 8]),
    );
    add(
        "subarray of subarrays",
        npy("[('a', ('|u1', (65536,)), (65536,))]", "(1,)", &[1; 8]),
    );
    // Headers claiming far more than they have.
    add(
        "2.0 claims 4 GiB",
        b"\x93NUMPY\x02\x00\xf0\xff\xff\xff".to_vec(),
    );
    add(
        "3.0 claims 16 MiB",
        b"\x93NUMPY\x03\x00\x00\x00\x00\x01{".to_vec(),
    );
    add(
        "1.0 claims 64 KiB",
        b"\x93NUMPY\x01\x00\xff\xff{'descr'".to_vec(),
    );
    // Deep nesting.
    for (open, close) in [("(", ")"), ("[", "]"), ("{1:", "}"), ("[(", ")]")] {
        let text = format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
        add(&format!("100,000 × {open}"), file(2, text.as_bytes()));
        let text = format!(
            "{{'descr': {}'<f8'{}, 'fortran_order': False, 'shape': (2,), }}",
            open.repeat(100_000),
            close.repeat(100_000)
        );
        add(
            &format!("100,000 × {open} in descr"),
            file(2, text.as_bytes()),
        );
    }
    // Records with many fields, long names, titles; each element of 1 byte.
    let many: Vec<String> = (0..5000).map(|i| format!("('f{i}', '|u1')")).collect();
    let descr = format!("[{}]", many.join(", "));
    add("5,000 fields × 10^12", npy(&descr, tera, &[0; 64]));
    add(
        "5,000 fields × 200",
        npy(&descr, "(200,)", &vec![0; 5000 * 200]),
    );
    let long = "n".repeat(1 << 20);
    add(
        "1 MiB field name, 1-byte field × 4096",
        npy(&format!("[('{long}', '|u1')]"), "(4096,)", &[0; 4096]),
    );
    add(
        "1 MiB title, 1-byte field × 4096",
        npy(
            &format!("[(('{long}', 'a'), '|u1')]"),
            "(4096,)",
            &[0; 4096],
        ),
    );
    let dims = vec!["1"; 100_000].join(", ");
    add(
        "100,000-dimension subarray × 4096",
        npy(&format!("[('a', '|u1', ({dims},))]"), "(4096,)", &[0; 4096]),
    );
    add(
        "100,000-dimension shape",
        npy("'|u1'", &format!("({dims},)"), &[0; 8]),
    );
    // Big headers of small values: the literal tree's worst density.
    let ones = vec!["1"; 1 << 17].join(",");
    add("256 KiB of 1,", npy(&format!("[{ones}]"), "(1,)", &[]));
    let empties = vec!["[]"; 1 << 16].join(",");
    add("192 KiB of [],", npy(&format!("[{empties}]"), "(1,)", &[]));
    let keys: Vec<String> = (0..20_000).map(|i| format!("{i}:0")).collect();
    add(
        "20,000 dict keys",
        npy(&format!("{{{}}}", keys.join(",")), "(1,)", &[]),
    );
    v
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "npy"))
        .collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, std::fs::read(&p).unwrap()));
    }
    out
}

/// Where the header text ends in a well-formed file (the mutations aim there).
fn header_end(f: &[u8]) -> usize {
    let len = match f.get(6) {
        Some(1) if f.len() >= 10 => 10 + usize::from(u16::from_le_bytes([f[8], f[9]])),
        Some(_) if f.len() >= 12 => 12 + u32::from_le_bytes([f[8], f[9], f[10], f[11]]) as usize,
        _ => f.len(),
    };
    len.min(f.len())
}

const SPLICES: &[&[u8]] = &[
    b"1000000000000",
    b"18446744073709551615",
    b"'|S0'",
    b"'|O'",
    b"[('a', '|O')]",
    b"'<U268435456'",
    b"(((((((",
    b"]]]]",
    b"'|V2147483647'",
    b", 'shape': (1000000000000,), ",
    b"True",
    b"\\x00",
    b"0",
];

fn mutate(rng: &mut Rng, f: &[u8]) -> Vec<u8> {
    let mut m = f.to_vec();
    let hend = header_end(f).max(1);
    for _ in 0..=rng.below(3) {
        match rng.below(7) {
            // Bit flip anywhere.
            0 if !m.is_empty() => {
                let i = rng.below(m.len());
                m[i] ^= 1 << rng.below(8);
            }
            // A byte of the header changed.
            1 if !m.is_empty() => {
                let i = rng.below(hend.min(m.len()));
                m[i] = rng.next_u64() as u8;
            }
            // Truncation.
            2 => {
                let n = rng.below(m.len() + 1);
                m.truncate(n);
            }
            // The length field edited.
            3 if m.len() >= 12 => {
                let i = 8 + rng.below(if m[6] == 1 { 2 } else { 4 });
                m[i] = match rng.below(3) {
                    0 => 0xff,
                    1 => 0,
                    _ => rng.next_u64() as u8,
                };
            }
            // Header text spliced: a hostile token replaces a span of the header.
            4 | 5 if m.len() > 10 => {
                let at = 10 + rng.below(hend.saturating_sub(10).max(1));
                let at = at.min(m.len());
                let cut = rng.below(12).min(m.len() - at);
                let piece = SPLICES[rng.below(SPLICES.len())];
                m.splice(at..at + cut, piece.iter().copied());
            }
            // Digits of the shape multiplied.
            _ => {
                if let Some(p) = m[..hend.min(m.len())]
                    .windows(8)
                    .position(|w| w == b"'shape':")
                {
                    let at = p + 10;
                    if at <= m.len() {
                        m.splice(at..at, b"99999999".iter().copied());
                    }
                }
            }
        }
    }
    m
}

fn finish(report: &Report, what: &str) {
    let mut lines: Vec<String> = report
        .worst
        .iter()
        .map(|(call, ratio, name)| format!("  {call}: {ratio:.1} bytes per file byte ({name})"))
        .collect();
    lines.sort();
    eprintln!(
        "{what}: {} calls; worst peak/len:\n{}",
        report.calls,
        lines.join("\n")
    );
    assert!(
        report.failures.is_empty(),
        "{} failures:\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
}

#[test]
fn hostile_files_allocate_in_proportion_to_their_length() {
    let _guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let mut report = Report::default();
    for (name, bytes) in hostile() {
        let start = Instant::now();
        exercise(&mut report, dir.path(), &name, &bytes);
        if start.elapsed() > Duration::from_secs(10) {
            report
                .failures
                .push(format!("{name}: took {:?}", start.elapsed()));
        }
    }
    finish(&report, "hostile table");
}

#[test]
fn malformed_table_allocates_in_proportion() {
    // The header-only cases of tests/it/malformed.rs, reached through every entry point: longer
    // length claims and truncations (the table's own test checks the error variants).
    let _guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let mut report = Report::default();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "1.0 claims 65528 bytes, has none",
            b"\x93NUMPY\x01\x00\xf8\xff".to_vec(),
        ),
        (
            "2.0 claims 4 GiB",
            b"\x93NUMPY\x02\x00\xf0\xff\xff\xff".to_vec(),
        ),
        ("zeroed", vec![0; 64]),
        (
            "pickle",
            b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00]\x94.".to_vec(),
        ),
        (
            "5,000-digit dimension",
            npy("'<f8'", &format!("({},)", "9".repeat(5000)), &[]),
        ),
    ];
    for (name, bytes) in cases {
        exercise(&mut report, dir.path(), name, &bytes);
    }
    finish(&report, "malformed");
}

#[test]
fn mutated_fixtures_allocate_in_proportion() {
    let _guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let mut report = Report::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let fixtures = fixtures();
    assert!(fixtures.len() > 100, "fixtures/ not found");
    let start = Instant::now();
    let budget = Duration::from_secs(20);
    let mut mutations = 0u64;
    'outer: for round in 0..20 {
        for (name, bytes) in &fixtures {
            if start.elapsed() > budget {
                break 'outer;
            }
            let m = mutate(&mut rng, bytes);
            exercise(
                &mut report,
                dir.path(),
                &format!("{name} mutation {round}"),
                &m,
            );
            mutations += 1;
        }
    }
    eprintln!("{mutations} mutations in {:?}", start.elapsed());
    assert!(
        mutations >= 500,
        "only {mutations} mutations in the time budget"
    );
    finish(&report, "mutations");
}
