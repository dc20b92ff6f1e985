//! The pickle budget holds in memory: whatever a pickle builds, the bytes live while
//! `loads` runs stay within [`PICKLE_BUDGET`], measured by a counting global allocator (this
//! test binary only; one test, so nothing else is counted), and that printing a decoded
//! array adds only its text.
//!
//! The inputs are those the budget once let through: a tuple of three references to one tuple
//! of three references to ... (`DUP DUP TUPLE3` repeated: 3^n items from 3n bytes, what the
//! `pickle` fuzz target found) put in a set or used as a dict key, whose key was built whole
//! before it was charged (243 MiB live for 45 bytes); a numpy scalar shared through the memo,
//! whose copies were not charged (300 MiB from a 1 MiB scalar); a scalar of a `u1` subarray
//! dtype, decoded into one value of 48 bytes per byte and charged as its bytes (530 MiB for
//! ten references to a 1 MiB scalar).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use npy_pickle::{loads, PickleError, PyDType, PyObject, PICKLE_BUDGET};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's layout and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    // `realloc` is the default: a new block, a copy, the old block freed (both counted at
    // the copy, as they are both live then).
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// `loads(p)`, and the most bytes live above what was live before it.
fn peak_of(p: &[u8]) -> (Result<PyObject, PickleError>, u64) {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let r = loads(p);
    (r, (PEAK.load(Ordering::SeqCst) - before) as u64)
}

/// `PROTO 4`, `body`, `STOP`.
fn pickle(body: &[&[u8]]) -> Vec<u8> {
    [&[0x80u8, 4][..], &body.concat(), b"."].concat()
}

/// `leaf`, then `n` times `DUP DUP TUPLE3`: 3^n copies of the leaf in a tree of depth n.
fn dag(leaf: &[u8], n: usize) -> Vec<u8> {
    [leaf, &b"22\x87".repeat(n)].concat()
}

fn su(s: &str) -> Vec<u8> {
    [&[0x8c, s.len() as u8][..], s.as_bytes()].concat()
}

fn glob(module: &str, name: &str) -> Vec<u8> {
    [su(module), su(name), vec![0x93]].concat()
}

/// `numpy.dtype(typestr, False, True)`.
fn dt(typestr: &str) -> Vec<u8> {
    [
        glob("numpy", "dtype"),
        su(typestr),
        b"\x89\x88\x87R".to_vec(),
    ]
    .concat()
}

/// `numpy._core.multiarray.scalar(dtype, bytes)` memoised, then a list of `copies` of it.
fn shared_scalar(dtype: &[u8], bytes: &[u8], copies: usize) -> Vec<u8> {
    let mut b = vec![b'B'];
    b.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    b.extend_from_slice(bytes);
    pickle(&[
        &glob("numpy._core.multiarray", "scalar"),
        b"(",
        dtype,
        &b,
        b"tR\x940](",
        &b"h\x00".repeat(copies),
        b"e",
    ])
}

/// The depth of a tuple tree whose every tuple holds three of the same (None if it is not).
fn dag_depth(v: &PyObject) -> Option<usize> {
    match v {
        PyObject::Tuple(items) if items.is_empty() => Some(0),
        PyObject::Tuple(items) if items.len() == 3 && items[0] == items[1] => {
            dag_depth(&items[0]).map(|d| d + 1)
        }
        _ => None,
    }
}

/// Runs `p`, checks its result with `expect` and that the bytes live stayed within
/// `PICKLE_BUDGET`; returns them.
fn check(label: &str, p: &[u8], expect: impl FnOnce(Result<PyObject, PickleError>) -> bool) -> u64 {
    let (r, peak) = peak_of(p);
    let shown = format!("{:?}", r.as_ref().map(|_| "a value"));
    assert!(expect(r), "{label}: {shown}");
    assert!(
        peak <= PICKLE_BUDGET,
        "{label}: {peak} bytes live at the peak, budget {PICKLE_BUDGET}"
    );
    peak
}

fn too_large(r: Result<PyObject, PickleError>) -> bool {
    matches!(r, Err(PickleError::TooLarge { limit, .. }) if limit == PICKLE_BUDGET)
}

#[test]
fn what_a_pickle_builds_stays_within_the_budget_in_memory() {
    // The shared tuples: 3^12 fit the budget in a set, 3^13 in a set do not (the tuple alone,
    // bare, still fits), deeper ones never.
    for n in [12usize, 13, 14, 20] {
        let tree = dag(b")", n);
        let bare = pickle(&[&tree]);
        let frozenset = pickle(&[b"(", &tree, b"\x91"]);
        let set = pickle(&[b"\x8f(", &tree, b"\x90"]);
        let dict_key = pickle(&[b"}", &tree, b"Ns"]);
        let peak = check(&format!("bare 3^{n}"), &bare, |r| match r {
            Ok(v) if n <= 13 => dag_depth(&v) == Some(n),
            r => n > 13 && too_large(r),
        });
        // Past the budget by the copies alone: refused before any copy is built (the tree
        // of 3^13 copies takes 97 MiB).
        assert!(n <= 13 || peak < 1 << 20, "3^{n}: {peak} bytes live");
        for (label, p) in [
            ("frozenset", &frozenset),
            ("set", &set),
            ("dict key", &dict_key),
        ] {
            let peak = check(&format!("{label} 3^{n}"), p, |r| match r {
                Ok(PyObject::FrozenSet(items) | PyObject::Set(items)) if n <= 12 => {
                    items.len() == 1 && dag_depth(&items[0]) == Some(n)
                }
                Ok(PyObject::Dict(pairs)) if n <= 12 => {
                    pairs.len() == 1
                        && dag_depth(&pairs[0].0) == Some(n)
                        && pairs[0].1 == PyObject::None
                }
                r => n > 12 && too_large(r),
            });
            assert!(
                n <= 13 || peak < 1 << 20,
                "{label} 3^{n}: {peak} bytes live"
            );
        }
    }
    // The pickle fuzz target's findings (2026-12-01): shared tuples as a dict key, an
    // oom- under ASan (523 MiB of RSS) and a slow unit (10 s under ASan): refused before a
    // copy is built.
    let oom = b"\x80\x04})2)22\x872\x8722\x8722\x8722\x87222\x8722\x8722\x87222\x8722\x8722\x8722\x8722\x87222\x87222\x8722\x8722\x87\x87222.22\x8722\x87222\x872";
    let slow = b"\x80\x04})2)22\x872\x8722\x8722\x8722\x87222\x8722\x8722\x87222\x8722\x8722\x8722\x8722\x87222\x87222\x8722\x8722\x87222\x87.";
    for (label, p) in [("oom", &oom[..]), ("slow unit", &slow[..])] {
        let peak = check(label, p, too_large);
        assert!(peak < 1 << 20, "{label}: {peak} bytes live");
    }
    // A frozenset of shared dtypes: each copy's key is its repr, charged as it is written.
    let dtypes = pickle(&[b"(", &dag(&dt("f8"), 12), b"\x91"]);
    check("frozenset of 3^12 dtypes", &dtypes, |r| {
        let Ok(PyObject::FrozenSet(items)) = r else {
            return false;
        };
        let mut v = &items[0];
        for _ in 0..12 {
            match v {
                PyObject::Tuple(t) if t.len() == 3 && t[0] == t[2] => v = &t[0],
                _ => return false,
            }
        }
        let f8 = PyDType::Numpy("<f8".parse().expect("a dtype"));
        matches!(v, PyObject::DType(d) if **d == f8)
    });
    check(
        "frozenset of 3^13 dtypes",
        &pickle(&[b"(", &dag(&dt("f8"), 13), b"\x91"]),
        too_large,
    );

    // A 1 MiB numpy str (U262144) shared: 100 copies fit, 300 do not.
    let u = dt("U262144");
    let text = vec![b'a'; 1 << 20];
    check("U scalar x100", &shared_scalar(&u, &text, 100), |r| {
        matches!(r, Ok(PyObject::List(items)) if items.len() == 100
            && matches!(&items[99], PyObject::Scalar(s) if s.dtype.itemsize() == 1 << 20))
    });
    check("U scalar x300", &shared_scalar(&u, &text, 300), too_large);

    // A scalar of dtype ('u1', (2^20,)): its bytes decode into 2^20 values. One copy fits
    // (the decoded value twice: the interpreter's and the tree's), two do not.
    let n = (1u32 << 20).to_le_bytes();
    let subarray = [
        &glob("numpy", "dtype")[..],
        &su("V1048576"),
        b"\x89\x88\x87R(K\x03",
        &su("|"),
        &dt("u1"),
        b"J",
        &n,
        b"\x85\x86NNJ",
        &n,
        b"K\x01K\x00tb",
    ]
    .concat();
    let ones = vec![1u8; 1 << 20];
    check(
        "subarray scalar x1",
        &shared_scalar(&subarray, &ones, 1),
        |r| matches!(r, Ok(PyObject::List(items)) if items.len() == 1),
    );
    check(
        "subarray scalar x2",
        &shared_scalar(&subarray, &ones, 2),
        too_large,
    );

    decoded_and_printed_within_both_budgets();
}

/// An `io::Write` that counts the bytes and keeps none.
struct Counted(u64);

impl std::io::Write for Counted {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Issue 23, R3 (the review's `bigint_4300d_memo_x70k`): a 1,800-byte int memoised and
/// referenced 70,000 times, the item of an object array (a 126 KiB `.npy`), decodes to 126 MiB,
/// within the pickle budget. Printing it, or walking its elements as `npy show --json` does,
/// copied the whole item for each element visited (325 MiB peak in `npy show`, 259 MiB with
/// `--json`): now the walk borrows it, and a print holds only its text, cut at
/// `OBJECT_TEXT_BUDGET` (the allocator may reserve that string's capacity twice while it
/// grows), so decoding and printing stay within the 256 MiB.
fn decoded_and_printed_within_both_budgets() {
    use npy_core::{Header, NpyReader};
    use npy_pickle::PickleCodec;
    use npy_print::{Print, PrintOptions, OBJECT_TEXT_BUDGET};
    use std::borrow::Cow;
    use std::io::Write as _;

    let mut item = vec![0x8b]; // LONG4
    item.extend_from_slice(&1800u32.to_le_bytes());
    item.extend(std::iter::repeat_n(0x7fu8, 1800));
    item.extend_from_slice(b"\x940](");
    item.extend(b"h\x00".repeat(70_000));
    item.push(b'e');
    let array = pickle(&[
        &glob("numpy._core.multiarray", "_reconstruct"),
        &glob("numpy", "ndarray"),
        b"K\x00\x85C\x01b\x87R(K\x01K\x01\x85",
        &dt("O8"),
        b"(K\x03",
        &su("|"),
        b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tb\x89](",
        &item,
        b"etb",
    ]);
    let mut file = Header::new("|O".parse().expect("a dtype"), vec![1])
        .to_bytes(None)
        .expect("a header");
    file.extend_from_slice(&array);

    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let a = NpyReader::new(&file[..])
        .and_then(|mut r| r.read_dyn_using(&PickleCodec::default()))
        .expect("within the pickle budget");
    let decoded = (PEAK.load(Ordering::SeqCst) - before) as u64;
    assert!(
        decoded <= PICKLE_BUDGET + (4 << 20),
        "decoded: {decoded} bytes live at the peak"
    );
    let held = LIVE.load(Ordering::SeqCst);

    // The walk `npy show --json` makes: each element borrowed, not built again.
    PEAK.store(held, Ordering::SeqCst);
    for v in a.iter_c_order() {
        assert!(
            matches!(&v, Cow::Borrowed(d) if matches!(PyObject::of(d), Some(PyObject::List(items)) if items.len() == 70_000))
        );
    }
    let walked = (PEAK.load(Ordering::SeqCst) - held) as u64;
    assert!(walked < 1 << 20, "walked: {walked} bytes live at the peak");

    // The print (numpy's str): 70,000 × 3,600 hexadecimal digits, cut at the print budget.
    PEAK.store(held, Ordering::SeqCst);
    let shown = a.display_with(&PrintOptions::new());
    let mut out = Counted(0);
    write!(out, "{shown}").expect("printed");
    assert!(shown.was_cut());
    assert!(out.0 <= OBJECT_TEXT_BUDGET + 64, "{} bytes printed", out.0);
    let printed = (PEAK.load(Ordering::SeqCst) - held) as u64;
    assert!(
        printed <= 3 * OBJECT_TEXT_BUDGET,
        "printed: {printed} bytes live at the peak"
    );
    assert!(
        decoded.max(held as u64 - before as u64 + printed) <= 256 << 20,
        "decode and print: {} MiB",
        (held as u64 - before as u64 + printed) >> 20
    );
}
