//! The differential round trip of issue 42's r16 harness, ported: seeded random arrays (every
//! simple dtype of the harness, both byte orders, records nested two deep with subarray fields
//! and non-ASCII names, 0-d to 3-d, empty axes, Fortran order), each converted `.npy` →
//! `.parquet` / `.arrow` → `.npy` by [`convert`], compared by numpy with the input array itself
//! (its shape and values; 0-d arrays, N-d record arrays and records of one field included: 58
//! of r16's round trips at seed 7, count 150 changed shape before the tables held numpy's
//! layout), and by its bytes with what `np.save` writes for the input in the dtype we give
//! back, and read by pyarrow (row counts, and the layout metadata numpy's own descr and shape).
//! Time units change as the crate docs' table says (`M8[W]` → `M8[D]`, `m8[D]` → `m8[s]`,
//! Parquet's `M8[s]` → `M8[ms]`); the values are compared after casting back to the input's
//! dtype, which numpy does exactly for these units.

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

/// For each `a<i>.npy` and format: `c<i>_<fmt>.npy` (our round trip) against the input
/// array, or `a<i>.<fmt>.refused` (our refusal) against the table's refusals; prints the
/// number of comparisons, then one line per mismatch.
const CHECK: &str = r"
import sys, glob, os, io, json, math, numpy as np, pyarrow.parquet as pq, pyarrow.ipc as ipc
from numpy.lib.format import dtype_to_descr
d = sys.argv[1]

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

def saved(a):
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()

checked, same_bytes, bad = 0, 0, []
for src in sorted(glob.glob(f'{d}/a*.npy')):
    a = np.load(src)
    stem = os.path.basename(src)[:-4]
    descr = dtype_to_descr(a.dtype)
    descr = descr if isinstance(descr, str) else repr(descr)
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
        md = t.schema.metadata or {}
        if md.get(b'numpy:descr', b'').decode() != descr or json.loads(md.get(b'numpy:shape', b'null')) != list(a.shape):
            bad.append(f'{stem} {fmt}: pyarrow reads the layout {md!r:.200}, numpy has {descr} {a.shape}')
        out = f'{d}/c{stem[1:]}_{fmt}.npy'
        b = np.load(out)
        if b.shape != a.shape:
            bad.append(f'{stem} {fmt}: shape {b.shape}, the input {a.shape} ({a.dtype})')
            continue
        if not (same(a.tolist(), b.tolist()) or same(a.tolist(), b.astype(a.dtype).tolist())):
            bad.append(f'{stem} {fmt}: values {a.dtype} {a.shape}: {a.reshape(-1)[:2].tolist()!r:.200} vs {b.reshape(-1)[:2].tolist()!r:.200}')
            continue
        # Our file is what numpy writes for the input's values in our dtype (C order), where
        # numpy casts to it without changing a value.
        try:
            c = a.astype(b.dtype).copy(order='C')
        except (TypeError, ValueError):
            continue
        if same(a.tolist(), c.tolist()):
            same_bytes += 1
            with open(out, 'rb') as f:
                if f.read() != saved(c):
                    bad.append(f'{stem} {fmt}: bytes differ from np.save of the input as {b.dtype} ({a.dtype} {a.shape})')
print(checked, same_bytes)
for line in bad:
    print(line)
";

/// Seed 7, 150 arrays: r16's own run (`r16_differential_roundtrip.py 7 150`).
#[test]
fn random_arrays_round_trip_through_parquet_and_ipc_in_numpys_layout() {
    let Some(python) = pyarrow_python("r16's differential round trip, in numpy's layout") else {
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
    let counts: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let (checked, same_bytes) = (counts[0], counts[1]);
    assert_eq!(checked, 2 * made);
    // Most round trips come back in a dtype numpy casts the input to exactly.
    assert!(
        same_bytes > made,
        "{same_bytes} of {checked} compared by bytes"
    );
    let mismatches: Vec<&str> = lines.collect();
    assert!(
        mismatches.is_empty(),
        "{} of {checked} round trips differ from the input:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// The kinds of input whose shape r16 saw change (issue 42), as numpy writes them, in dtypes
/// the mapping gives back unchanged (native numbers, `U` at its longest value, packed
/// records): 0-d arrays (plain, records, a record of one field), records of one field (1-d,
/// with a subarray field, 2-d), N-d record arrays (nested records, subarray fields, Fortran
/// order, an empty axis, no rows). Each goes to `c_<case>.npy` through Parquet and IPC.
const LAYOUTS: &str = r"
import sys, numpy as np
d = sys.argv[1]
def filled(dt, shape, order='C'):
    a = np.zeros(shape, dt)
    b = a.reshape(-1).view(np.uint8)
    b[:] = np.arange(b.size) % 97 + 1
    return np.asfortranarray(a) if order == 'F' else a
rec2 = [('a', '<i4'), ('b\u00e9', '<f8')]
cases = {
    'zero_d_f8': np.array(2.5),
    'zero_d_u': np.array('h\u00e9llo', '<U5'),
    'zero_d_record': np.array((1, 2.5), rec2),
    'zero_d_one_field': np.array((7,), [('z', '<i8')]),
    'one_field': np.array([(1,), (-2,), (3,)], [('f0_\u65e5', '<i2')]),
    'one_field_subarray': filled([('x', '<i4', (2, 2))], (3,)),
    'one_field_2d': filled([('v', '<u2')], (2, 3)),
    'records_2d': filled(rec2, (2, 3)),
    'records_3d_fortran': filled([('p', '<i2'), ('q', '<u1', (2,))], (2, 3, 2), 'F'),
    'records_nested_2d': filled([('p', [('x', '<i2'), ('y', '<u1')]), ('q', '<f4', (2,))], (3, 2)),
    'records_empty_axis': np.zeros((2, 0), rec2),
    'records_no_rows': np.zeros((0, 3), rec2),
}
for name, a in cases.items():
    np.save(f'{d}/{name}.npy', a)
print(' '.join(cases))
";

/// For each case and format: `c_<case>_<fmt>.npy` must be numpy's array: its shape, its
/// dtype, and the bytes `np.save` writes for it in C order. Prints one line per mismatch.
const LAYOUTS_CHECK: &str = r"
import sys, io, numpy as np
d = sys.argv[1]
for name in sys.argv[2:]:
    a = np.load(f'{d}/{name}.npy')
    want = io.BytesIO()
    np.save(want, a.copy(order='C'))
    for fmt in ('parquet', 'arrow'):
        b = np.load(f'{d}/c_{name}_{fmt}.npy')
        if b.shape != a.shape or b.dtype != a.dtype:
            print(f'{name} {fmt}: {b.dtype} {b.shape}, numpy {a.dtype} {a.shape}')
        elif open(f'{d}/c_{name}_{fmt}.npy', 'rb').read() != want.getvalue():
            print(f'{name} {fmt}: bytes differ from np.save: {b.tolist()!r:.200} vs {a.tolist()!r:.200}')
";

/// r16's failing kinds (0-d arrays, N-d record arrays, records of one field) come back as the
/// array numpy saved, byte for byte.
#[test]
fn zero_d_arrays_nd_records_and_one_field_records_keep_numpys_layout() {
    let Some(python) = pyarrow_python("numpy's layout through Parquet and IPC") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let names = run_script(&python, LAYOUTS, [dir.path()]);
    let names: Vec<&str> = names.split_whitespace().collect();
    assert_eq!(names.len(), 12);
    for name in &names {
        let src = dir.path().join(format!("{name}.npy"));
        for fmt in ["parquet", "arrow"] {
            let mid = dir.path().join(format!("{name}.{fmt}"));
            let out = dir.path().join(format!("c_{name}_{fmt}.npy"));
            convert(&src, &mid, &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{name} → {fmt}: {e}"));
            convert(&mid, &out, &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{name}.{fmt} → npy: {e}"));
        }
    }
    let mut args = vec![dir.path().as_os_str().to_owned()];
    args.extend(names.iter().map(std::ffi::OsString::from));
    let report = run_script(&python, LAYOUTS_CHECK, args);
    assert!(report.trim().is_empty(), "{report}");
}
