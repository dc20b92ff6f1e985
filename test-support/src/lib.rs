//! Test support for the npy workspace (`publish = false`), used by the integration tests of
//! every crate and by xtask: where the fixtures are, the numpy-written manifests, a dispatch
//! from a file's dtype to the Rust element type that reads it, and the comparison of values
//! read with the manifest's JSON encoding of numpy's values ([`dyn_json`] for `read_dyn`).
//!
//! Every expected value here comes from numpy (the manifests `cargo xtask fixtures` writes) or
//! from the real files in `fixtures/external/` and their README.txt; nothing is computed from
//! our own output.

#![forbid(unsafe_code)]
// Lint policy for test support (see README.md "Checks"): its helpers panic by design, since
// a panic is how a test reports a failed expectation or a broken fixture set.
#![allow(clippy::missing_panics_doc)]

pub mod cpu;
pub mod dyn_json;
pub mod growth;
pub mod moto;
pub mod python;
pub mod range_server;
pub mod readme;
pub mod zip;

use std::fmt::Debug;
use std::fs;
use std::path::{Path, PathBuf};

use npy_core::element::units;
use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{
    dtype::{Primitive, TimeKind, TimeUnit},
    element::Timedelta64,
    DType, Datetime64, MemoryOrder, NpyArray, NpyElement,
};
use serde_json::Value as Json;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `fixtures/`: the files numpy wrote for us, with `manifest.json`.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("fixtures")
}

/// `fixtures/external/`: real files written by numpy and peer projects (see its README.txt),
/// copied into the repository so that their tests always run.
///
/// # Panics
/// When the folder or its README.txt is missing: a test that needs them fails loudly rather
/// than passing without having checked anything.
pub fn external_dir() -> PathBuf {
    let dir = fixtures_dir().join("external");
    assert!(
        dir.join("README.txt").is_file(),
        "{} is missing (it is part of the repository: check out the whole tree)",
        dir.display()
    );
    dir
}

/// A hand-built `.npy` 2.0 file: the magic, the header length, the dict
/// `{'descr': DESCR, 'fortran_order': False, 'shape': SHAPE, }` and a newline (no padding),
/// then `data`. `descr` and `shape` are Python literal text, so a test can write what no
/// writer would.
pub fn raw_npy_v2(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n");
    let len = u32::try_from(text.len()).expect("a test header under 4 GiB");
    let mut out = b"\x93NUMPY\x02\x00".to_vec();
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Lowercase hex of the SHA-256 of `bytes` (the manifests record numpy's data hashes).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn fixture(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// A manifest entry's file name, numpy's bytes of that file, and its array read as `T`: what a
/// visitor that rebuilds a fixture starts from.
///
/// # Errors
/// The read's error, as text.
pub fn read_fixture<T: Elem>(e: &Json) -> Result<(&str, Vec<u8>, npy_core::NpyArray<T>), String> {
    let name = e["file"].as_str().expect("a manifest entry names its file");
    let original = fs::read(fixture(name)).expect("the fixture is readable");
    let a = npy_core::read::<T>(fixture(name)).map_err(|err| format!("read: {err}"))?;
    Ok((name, original, a))
}

/// The manifest's per-file entries.
pub fn manifest() -> Vec<Json> {
    let text = fs::read_to_string(fixtures_dir().join("manifest.json")).expect("manifest.json");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    m["fixtures"].as_array().expect("fixtures list").clone()
}

/// numpy's `files` for an archive of `fixtures/npz/manifest.json`: every entry's key in
/// central-directory order, a repeated name once per entry.
pub fn npz_files(archive: &Json) -> Vec<&str> {
    archive["files"]
        .as_array()
        .expect("files list")
        .iter()
        .map(|k| k.as_str().expect("a key"))
        .collect()
}

pub fn entry(name: &str) -> Json {
    manifest()
        .into_iter()
        .find(|e| e["file"] == name)
        .unwrap_or_else(|| panic!("{name} is not in the manifest"))
}

pub fn dtype_of(e: &Json) -> DType {
    e["dtype_str"]
        .as_str()
        .expect("dtype_str")
        .parse()
        .expect("manifest dtype parses")
}

pub fn shape_of(e: &Json) -> Vec<u64> {
    e["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dimension"))
        .collect()
}

pub fn order_of(e: &Json) -> MemoryOrder {
    if e["fortran_order"].as_bool().expect("fortran_order") {
        MemoryOrder::Fortran
    } else {
        MemoryOrder::C
    }
}

/// The manifest's values, flattened to logical C order (`ndim` levels of nesting; the element
/// encodings themselves may be arrays, e.g. complex `[re, im]`).
pub fn expected_values(e: &Json) -> Vec<Json> {
    fn walk(v: &Json, depth: usize, out: &mut Vec<Json>) {
        if depth == 0 {
            out.push(v.clone());
        } else {
            for x in v.as_array().expect("nested data") {
                walk(x, depth - 1, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&e["data"], shape_of(e).len(), &mut out);
    out
}

/// The elements of `a` in logical C order, whatever its memory order.
pub fn logical_c<T: Clone>(a: &NpyArray<T>) -> Vec<T> {
    let shape = a.shape().to_vec();
    let n: u64 = shape.iter().product();
    let mut idx = vec![0u64; shape.len()];
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        out.push(a.get(&idx).expect("index in range").clone());
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// A Rust element type that can be compared with the manifest's encoding of a numpy value.
pub trait Elem: NpyElement + Clone + Debug + PartialEq {
    /// Exact comparison: floats bit for bit (-0.0 and NaN included), NaT as `null`.
    fn matches(&self, v: &Json) -> bool;

    /// Identity of two values: `==` except that floats compare bit for bit (NaN is itself).
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

/// Element-wise [`Elem::same`].
pub fn all_same<T: Elem>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
}

fn float_matches(x: f64, v: &Json) -> bool {
    match v {
        Json::String(s) => match s.as_str() {
            "nan" => x.is_nan(),
            "inf" => x == f64::INFINITY,
            "-inf" => x == f64::NEG_INFINITY,
            _ => false,
        },
        Json::Number(n) => n.as_f64().is_some_and(|y| y.to_bits() == x.to_bits()),
        _ => false,
    }
}

impl Elem for bool {
    fn matches(&self, v: &Json) -> bool {
        v.as_bool() == Some(*self)
    }
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn matches(&self, v: &Json) -> bool {
                #[allow(irrefutable_let_patterns, clippy::unnecessary_fallible_conversions)]
                match (v.as_i64(), v.as_u64()) {
                    (Some(i), _) => i64::try_from(*self).is_ok_and(|s| s == i),
                    (None, Some(u)) => u64::try_from(*self).is_ok_and(|s| s == u),
                    _ => false,
                }
            }
        }
    )*};
}
int_elem!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Elem for f16 {
    fn matches(&self, v: &Json) -> bool {
        float_matches(self.to_f64(), v)
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Elem for f32 {
    fn matches(&self, v: &Json) -> bool {
        float_matches(f64::from(*self), v)
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Elem for f64 {
    fn matches(&self, v: &Json) -> bool {
        float_matches(*self, v)
    }
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl Elem for Complex<f32> {
    fn matches(&self, v: &Json) -> bool {
        v.as_array().is_some_and(|p| {
            p.len() == 2
                && float_matches(self.re.into(), &p[0])
                && float_matches(self.im.into(), &p[1])
        })
    }
    fn same(&self, other: &Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

impl Elem for Complex<f64> {
    fn matches(&self, v: &Json) -> bool {
        v.as_array().is_some_and(|p| {
            p.len() == 2 && float_matches(self.re, &p[0]) && float_matches(self.im, &p[1])
        })
    }
    fn same(&self, other: &Self) -> bool {
        self.re.to_bits() == other.re.to_bits() && self.im.to_bits() == other.im.to_bits()
    }
}

fn ticks_match(ticks: i64, v: &Json) -> bool {
    match v {
        Json::Null => ticks == npy_core::element::NAT,
        _ => ticks != npy_core::element::NAT && v.as_i64() == Some(ticks),
    }
}

impl<U: npy_core::element::Unit + PartialEq> Elem for Datetime64<U> {
    fn matches(&self, v: &Json) -> bool {
        ticks_match(self.ticks, v)
    }
}

impl<U: npy_core::element::Unit + PartialEq> Elem for Timedelta64<U> {
    fn matches(&self, v: &Json) -> bool {
        ticks_match(self.ticks, v)
    }
}

/// `S` values are latin-1 text in the manifest: one char per byte.
impl Elem for Vec<u8> {
    fn matches(&self, v: &Json) -> bool {
        v.as_str().is_some_and(|s| {
            let bytes: Option<Vec<u8>> = s.chars().map(|c| u8::try_from(c).ok()).collect();
            bytes.as_deref() == Some(self.as_slice())
        })
    }
}

impl Elem for String {
    fn matches(&self, v: &Json) -> bool {
        v.as_str() == Some(self.as_str())
    }
}

/// Something done with the Rust type that reads a dtype.
pub trait Visitor {
    type Out;
    fn visit<T: Elem>(self) -> Self::Out;
}

/// Calls `v.visit::<T>()` with the element type for `dtype`; `None` for dtypes without one
/// (longdouble, clongdouble, void, records, datetimes with a multiplier).
pub fn dispatch<V: Visitor>(dtype: &DType, v: V) -> Option<V::Out> {
    use Primitive as P;
    Some(match dtype {
        DType::Number(p, _) => match p {
            P::Bool => v.visit::<bool>(),
            P::I8 => v.visit::<i8>(),
            P::I16 => v.visit::<i16>(),
            P::I32 => v.visit::<i32>(),
            P::I64 => v.visit::<i64>(),
            P::U8 => v.visit::<u8>(),
            P::U16 => v.visit::<u16>(),
            P::U32 => v.visit::<u32>(),
            P::U64 => v.visit::<u64>(),
            P::F16 => v.visit::<f16>(),
            P::F32 => v.visit::<f32>(),
            P::F64 => v.visit::<f64>(),
            P::C64 => v.visit::<Complex<f32>>(),
            P::C128 => v.visit::<Complex<f64>>(),
            _ => return None,
        },
        DType::Time(t, _) if t.multiplier == 1 => {
            macro_rules! units {
                ($($variant:ident => $u:ident),*) => {
                    match (t.kind, t.unit) {
                        $(
                            (TimeKind::Datetime, TimeUnit::$variant) => {
                                v.visit::<Datetime64<units::$u>>()
                            }
                            (TimeKind::Timedelta, TimeUnit::$variant) => {
                                v.visit::<Timedelta64<units::$u>>()
                            }
                        )*
                    }
                };
            }
            units!(
                Generic => Generic, Year => Y, Month => Mo, Week => W, Day => D, Hour => H,
                Minute => Min, Second => S, Millisecond => Ms, Microsecond => Us,
                Nanosecond => Ns, Picosecond => Ps, Femtosecond => Fs, Attosecond => As
            )
        }
        DType::Bytes(_) => v.visit::<Vec<u8>>(),
        DType::Unicode(..) => v.visit::<String>(),
        _ => return None,
    })
}

/// Reports whether a dtype has a typed element (for counting and skipping).
#[derive(Debug)]
pub struct Probe;
impl Visitor for Probe {
    type Out = ();
    fn visit<T: Elem>(self) {}
}

/// The manifest entries of the simple-dtype fixtures (those [`dispatch`] handles).
pub fn simple_fixtures() -> Vec<Json> {
    manifest()
        .into_iter()
        .filter(|e| dispatch(&dtype_of(e), Probe).is_some())
        .collect()
}

/// The dtype codes the typed API does not cover, so the skip list is explicit: extended
/// precision, void, records and a datetime unit with a multiplier.
pub fn assert_skips_are_expected() {
    for e in manifest() {
        let dt = dtype_of(&e);
        if dispatch(&dt, Probe).is_some() {
            continue;
        }
        let file = e["file"].as_str().unwrap();
        let known = file.starts_with("f16_")
            || file.starts_with("c32_")
            || file.starts_with("V6_")
            || file.starts_with("m8_10ms_")
            || file.starts_with("rec_");
        assert!(
            known,
            "{file} ({dt}) has no typed reader and is not a known skip"
        );
    }
}

/// xorshift64*: a seeded, reproducible generator for the randomised tests (mutators and
/// differential generators), without a dependency.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits (the seed must not be 0).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 for `n` = 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }
}
