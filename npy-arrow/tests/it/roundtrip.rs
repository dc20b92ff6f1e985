//! The differential round trip of issue 42's r16 harness, ported: seeded random arrays (every
//! simple dtype of the harness, both byte orders, records nested two deep with subarray fields
//! and non-ASCII names, 0-d to 3-d, empty axes, Fortran order), each converted `.npy` →
//! `.parquet` / `.arrow` → `.npy` by [`convert`], compared by numpy with what the crate docs'
//! type table promises for the input (`PROMISED` below), and read by pyarrow (row counts).
//!
//! What the table promises differs from the input in three documented ways, which r16 counts
//! as differences (58 of them at seed 7, count 150; none a wrong value): a 0-d array comes back
//! as one row, shape `(1,)`; a record of one field comes back as that field's plain array
//! (its subarray shape appended); a record array of shape `(n, d1…dk)` comes back as records
//! of shape `(n,)` whose fields are subarrays `(d1…dk)` (each field was one tensor column).
//! Time units change as the table says (`M8[W]` → `M8[D]`, `m8[D]` → `m8[s]`, Parquet's
//! `M8[s]` → `M8[ms]`); the values are compared after casting back to the promised dtype, which
//! numpy does exactly for these units.

use npy_arrow::{convert, ConvertOptions, ErrorKind};

use crate::pyarrow_python;
use npy_test_support::python::run_script;

/// r16's generator (same dtypes, shapes and values), seed argv[2], count argv[3], writing
/// `a<i>.npy` into argv[1].
const MAKE: &str = r"
import sys, random, numpy as np
d, seed, COUNT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed); random.seed(seed)
SIMPLE = ['?', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8', 'f2', 'f4', 'f8', 'c8', 'c16', 'S5', 'U4',
          'M8[s]', 'M8[ms]', 'M8[us]', 'M8[ns]', 'M8[D]', 'm8[s]', 'm8[ns]', 'm8[D]', 'M8[h]', 'm8[m]', 'V3',
          'f16' if hasattr(np, 'float128') else 'f8', 'M8[Y]', 'M8[M]', 'M8[W]', 'm8[us]', 'M8[2s]']
def rand_simple():
    t = random.choice(SIMPLE)
    if t[0] in 'iufcmM' and random.random() < 0.3 and np.dtype(t).itemsize > 1:
        t = '>' + t
    return t
def rand_dtype(depth=0):
    r = random.random()
    if r < 0.6 or depth > 1:
        return np.dtype(rand_simple())
    if r < 0.85:
        fields = []
        for i in range(random.randint(1, 3)):
            sub = rand_dtype(depth + 1)
            name = f'f{i}_' + random.choice(['a', 'b', 'x y', '\u00e9', '\u65e5'])
            if random.random() < 0.25:
                fields.append((name, sub, (random.randint(1, 3),) * random.randint(1, 2)))
            else:
                fields.append((name, sub))
        return np.dtype(fields)
    return np.dtype((rand_simple(), (random.randint(1, 3),)))
def rnd(d, n):
    if d.fields:
        out = np.zeros(n, d)
        for name in d.names:
            out[name] = rnd(d.fields[name][0], n)
        return out
    if d.subdtype:
        base, sh = d.subdtype
        return rnd(base, n * int(np.prod(sh))).reshape((n,) + sh)
    k = d.kind
    if k == 'b': return rng.integers(0, 2, n).astype(d)
    if k in 'iu':
        info = np.iinfo(d)
        if d.itemsize == 8:
            return rng.integers(info.min, info.max, n, dtype=np.int64 if k == 'i' else np.uint64, endpoint=True).astype(d)
        return rng.integers(info.min, info.max + 1, n).astype(d)
    if k == 'f':
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        v[rng.random(n) < 0.1] = np.nan
        v[rng.random(n) < 0.05] = np.inf
        return v.astype(d)
    if k == 'c': return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(d)
    if k == 'S':
        return np.array([bytes(rng.integers(1, 256, rng.integers(0, d.itemsize + 1), dtype=np.uint8)) for _ in range(n)], d)
    if k == 'U':
        return np.array([''.join(chr(c) for c in rng.integers(32, 0x3000, rng.integers(0, d.itemsize // 4 + 1))) for _ in range(n)], d)
    if k in 'mM':
        v = rng.integers(-10**6, 10**6, n).astype(d)
        v[rng.random(n) < 0.1] = np.datetime64('NaT') if k == 'M' else np.timedelta64('NaT')
        return v
    if k == 'V': return np.frombuffer(bytes(rng.integers(0, 256, n * d.itemsize, dtype=np.uint8)), d)
    raise ValueError(d)
made, i = 0, -1
while made < COUNT:
    i += 1
    dt = rand_dtype()
    nd = random.choice([0, 1, 1, 1, 2, 2, 3])
    if random.random() < 0.2:
        shape = tuple(random.choice([0, 1, 2, 3, 5]) for _ in range(nd))
    else:
        shape = tuple(random.randint(1, 5) for _ in range(nd))
    try:
        a = np.zeros(shape, dt)
        flat = a.reshape(-1) if a.ndim else a.reshape(1)
        if flat.size:
            v = rnd(dt, flat.size)
            for j in range(flat.size): flat[j] = v[j]
    except Exception:
        continue
    made += 1
    if random.random() < 0.3 and a.ndim >= 2:
        a = np.asfortranarray(a)
    np.save(f'{d}/a{i}.npy', a)
print(made)
";

/// For each `a<i>.npy` and format: `c<i>_<fmt>.npy` (our round trip) against the promised
/// array, or `a<i>.<fmt>.refused` (our refusal) against the table's refusals; prints the
/// number of comparisons, then one line per mismatch.
const CHECK: &str = r"
import sys, glob, os, math, numpy as np, pyarrow.parquet as pq, pyarrow.ipc as ipc
d = sys.argv[1]

def promised(a):
    # The crate docs' table: 0-d is one row; one field is its plain array; an N-d record
    # array is records of shape (n,) with the trailing axes in each field's subarray.
    v = a.reshape(1) if a.ndim == 0 else a
    if v.dtype.names is not None and len(v.dtype.names) == 1:
        return v[v.dtype.names[0]]
    if v.dtype.names is not None and v.ndim > 1:
        fields = []
        for n in v.dtype.names:
            f = v.dtype.fields[n][0]
            base, sub = f.subdtype if f.subdtype else (f, ())
            fields.append((n, base, v.shape[1:] + sub))
        out = np.empty(v.shape[0], fields)
        for n in v.dtype.names:
            out[n] = v[n]
        return out
    return v

def refused_by_table(dt):
    # M8[Y] / M8[M] (calendar units) and longdouble have no Arrow type.
    if dt.names is not None:
        return any(refused_by_table(dt.fields[n][0]) for n in dt.names)
    if dt.subdtype:
        return refused_by_table(dt.subdtype[0])
    if dt.kind in 'mM':
        return np.datetime_data(dt)[0] in ('Y', 'M')
    return dt.kind in 'fc' and dt.itemsize > (8 if dt.kind == 'f' else 16)

def same(x, y):
    if isinstance(x, float) and isinstance(y, float):
        return (math.isnan(x) and math.isnan(y)) or x == y
    if isinstance(x, complex) and isinstance(y, complex):
        return same(x.real, y.real) and same(x.imag, y.imag)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return same(np.asarray(x).tolist(), np.asarray(y).tolist())
    if x != x and y != y:
        return True
    return x == y

checked, bad = 0, []
for src in sorted(glob.glob(f'{d}/a*.npy')):
    a = np.load(src)
    stem = os.path.basename(src)[:-4]
    for fmt in ('parquet', 'arrow'):
        checked += 1
        if os.path.exists(f'{d}/{stem}.{fmt}.refused'):
            if not refused_by_table(a.dtype):
                bad.append(f'{stem} {fmt}: refused {a.dtype}')
            continue
        if refused_by_table(a.dtype):
            bad.append(f'{stem} {fmt}: {a.dtype} converted, the table refuses it')
            continue
        mid = f'{d}/{stem}.{fmt}'
        t = pq.read_table(mid) if fmt == 'parquet' else ipc.open_file(mid).read_all()
        if t.num_rows != (a.shape[0] if a.ndim else 1):
            bad.append(f'{stem} {fmt}: pyarrow reads {t.num_rows} rows of {a.shape}')
        b = np.load(f'{d}/c{stem[1:]}_{fmt}.npy')
        p = promised(a)
        if b.shape != p.shape:
            bad.append(f'{stem} {fmt}: shape {b.shape}, promised {p.shape} ({a.dtype} {a.shape})')
            continue
        if not (same(p.tolist(), b.tolist()) or same(p.tolist(), b.astype(p.dtype).tolist())):
            bad.append(f'{stem} {fmt}: values {a.dtype} {a.shape}: {p.reshape(-1)[:2].tolist()!r:.200} vs {b.reshape(-1)[:2].tolist()!r:.200}')
print(checked)
for line in bad:
    print(line)
";

/// Seed 7, 150 arrays: r16's own run (`r16_differential_roundtrip.py 7 150`).
#[test]
fn random_arrays_round_trip_through_parquet_and_ipc_as_the_table_promises() {
    let Some(python) = pyarrow_python("r16's differential round trip, as the table promises")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let made: usize = run_script(
        &python,
        MAKE,
        [dir.path().as_os_str(), "7".as_ref(), "150".as_ref()],
    )
    .trim()
    .parse()
    .unwrap();
    assert_eq!(made, 150);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let src = entry.unwrap().path();
        let stem = src.file_stem().unwrap().to_str().unwrap().to_owned();
        for fmt in ["parquet", "arrow"] {
            let mid = dir.path().join(format!("{stem}.{fmt}"));
            let out = dir.path().join(format!("c{}_{fmt}.npy", &stem[1..]));
            match convert(&src, &mid, &ConvertOptions::new()) {
                Ok(()) => {}
                Err(e) if matches!(e.kind(), ErrorKind::UnsupportedDType { .. }) => {
                    std::fs::write(
                        dir.path().join(format!("{stem}.{fmt}.refused")),
                        e.to_string(),
                    )
                    .unwrap();
                    continue;
                }
                Err(e) => panic!("{stem} → {fmt}: {e}"),
            }
            convert(&mid, &out, &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{stem}.{fmt} → npy: {e}"));
        }
    }
    let report = run_script(&python, CHECK, [dir.path()]);
    let mut lines = report.lines();
    let checked: usize = lines.next().unwrap().trim().parse().unwrap();
    assert_eq!(checked, 2 * made);
    let mismatches: Vec<&str> = lines.collect();
    assert!(
        mismatches.is_empty(),
        "{} of {checked} round trips differ from the table:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
