//! The type table row by row against pyarrow: numpy writes one `.npy` per row of the table, we
//! convert each to Arrow IPC and Parquet, and pyarrow reads them and compares every column with
//! numpy's values; then pyarrow writes tables (nulls, chunked columns, tensors) and we convert
//! them to `.npy`, compared with the bytes numpy writes for the expected array.

use npy_arrow::{convert, ConvertOptions, ErrorKind, FromArrowOptions};

use crate::pyarrow_python;
use npy_test_support::python::run_script;

/// numpy arrays of every row of the mapping, written as `<name>.npy` into argv[1].
const MAKE: &str = r"
import sys, numpy as np
d = sys.argv[1]
nat = np.datetime64('NaT')
cases = {
  'b1': np.array([True, False, True]),
  'i1': np.array([-128, 0, 127], 'i1'), 'i2': np.array([-3, 0, 300], 'i2'),
  'i4': np.array([-1, 2**31 - 1], 'i4'), 'i8': np.array([-2**63, 2**63 - 1], 'i8'),
  'u1': np.array([0, 255], 'u1'), 'u2': np.array([0, 65535], 'u2'),
  'u4': np.array([0, 2**32 - 1], 'u4'), 'u8': np.array([0, 2**64 - 1], 'u8'),
  'f2': np.array([1.5, -0.0, np.inf, np.nan], 'f2'), 'f4': np.array([0.1, np.nan], 'f4'),
  'f8': np.array([1e300, -np.inf], 'f8'),
  'be_i4': np.array([1, -2, 70000], '>i4'), 'be_f8': np.array([0.5, 1e-300], '>f8'),
  'be_u2': np.array([1, 258], '>u2'),
  'c8': np.array([1+2j, -0.5j], 'c8'), 'c16': np.array([3-4j, np.nan], '>c16'),
  'M8s': np.array(['2024-01-01T00:00:01', 'NaT', '1960-05-06T07:08:09'], 'M8[s]'),
  'M8ms': np.array(['2024-01-01T00:00:00.123', 'NaT'], 'M8[ms]'),
  'M8us': np.array(['1900-01-01T00:00:00.000001', 'NaT'], 'M8[us]'),
  'M8ns': np.array(['2262-04-11T23:47:16.854775807', 'NaT'], 'M8[ns]'),
  'be_M8ms': np.array(['2001-02-03T04:05:06.007', 'NaT'], '>M8[ms]'),
  'M8D': np.array(['2024-02-29', 'NaT', '1066-10-14'], 'M8[D]'),
  'M8W': np.array(['2024-02-29', 'NaT'], 'M8[W]'),
  'M8h': np.array(['2024-02-29T13', 'NaT'], 'M8[h]'),
  'M8m': np.array(['2024-02-29T13:14', 'NaT'], 'M8[m]'),
  'M8_10ms': np.array([5, -7, -2**63], 'M8[10ms]'),
  'm8s': np.array([1, -2, -2**63], 'm8[s]'), 'm8ms': np.array([1, -2**63], 'm8[ms]'),
  'm8us': np.array([7, -2**63], 'm8[us]'), 'm8ns': np.array([9, -2**63], 'm8[ns]'),
  'm8D': np.array([2, -2**63], 'm8[D]'), 'm8W': np.array([3, -2**63], 'm8[W]'),
  'm8h': np.array([-4, -2**63], 'm8[h]'), 'm8m': np.array([61, -2**63], 'm8[m]'),
  'S5': np.array([b'ab', b'a\x00b', b'', b'abcde', b'\x00\x00x'], 'S5'),
  'U4': np.array(['', '\u00e9t\u00e9', 'a\x00b', 'abcd', '\U0001F600'], '<U4'),
  'be_U3': np.array(['xy', 'z\u20ac'], '>U3'),
  'V3': np.array([b'abc', b'\x00\x01\x00'], 'V3'),
  'record': np.array([(1, 'alpha', 0.5, '2024-01-01T00:00:00.001', True),
                      (-2, '', np.nan, 'NaT', False)],
                     [('id', '<i8'), ('name', '<U12'), ('score', '<f4'), ('when', '<M8[ms]'), ('ok', '?')]),
  'nested': np.array([((1.0, 2.0), 3), ((-1.0, 0.5), -4)],
                     [('p', [('x', '<f4'), ('y', '>f8')]), ('k', '>i2')]),
  'subarray': np.array([(np.arange(6).reshape(2, 3), 7), (-np.arange(6).reshape(2, 3), 8)],
                       [('v', '<f4', (2, 3)), ('n', 'u1')]),
  'zero_width_tail': np.array([(1, '', b''), (-2, '', b''), (3, '', b'')],
                              [('a', '<i4'), ('u', '<U0'), ('s', 'S0')]),
  'aligned': np.array([(1, 2), (3, -4)], np.dtype([('a', 'u1'), ('b', '<i4')], align=True)),
  'matrix': np.arange(12.0).reshape(4, 3),
  'cube': np.arange(24, dtype='>i2').reshape(2, 3, 4),
  'fortran': np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)),
  'fortran3': np.asfortranarray(np.arange(24, dtype='<f8').reshape(2, 3, 4)),
  'records2d': np.array([[(1, 2.0), (3, 4.0)], [(5, 6.0), (7, 8.0)]], [('a', '<i4'), ('b', '<f8')]),
  'strings2d': np.array([['a', 'bc'], ['', 'def']], '<U3'),
  'scalar': np.array(2.5),
  'empty': np.zeros((0,), 'i4'),
  'empty2d': np.zeros((0, 3), 'f4'),
}
for k, v in cases.items():
    np.save(f'{d}/{k}.npy', v)
print(len(cases))
";

/// Reads argv[1]/<name>.npy with numpy and <name>.arrow / <name>.parquet with pyarrow, and
/// compares column by column.
const CHECK: &str = r"
import sys, glob, os, numpy as np, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
d = sys.argv[1]

def check_table(stem, a, v, table, where):
    if a.dtype.names is not None:
        assert table.column_names == list(a.dtype.names), (where, table.column_names)
        for f in a.dtype.names:
            expect_col(f, v[f], table.column(f).combine_chunks(), where)
    else:
        assert table.column_names == [stem], (where, table.column_names)
        expect_col(stem, v, table.column(0).combine_chunks(), where)

def arrow_unit(dt, where):
    u = np.datetime_data(dt)[0]
    kind = dt.kind
    if kind == 'M' and u in ('D', 'W'):
        return 'D'
    if kind == 'M' and where.endswith('.parquet') and u in ('s', 'm', 'h'):
        return 'ms'  # Parquet has no second unit: stored as milliseconds, as pyarrow does
    return {'s': 's', 'ms': 'ms', 'us': 'us', 'ns': 'ns', 'm': 's', 'h': 's', 'D': 's', 'W': 's'}[u]

def expect_col(name, v, col, where):
    t = col.type
    dt = v.dtype
    if v.ndim > 1:
        assert isinstance(t, pa.FixedShapeTensorType), (where, name, t)
        assert list(t.shape) == list(v.shape[1:]), (where, name, t.shape, v.shape)
        storage = col.storage if hasattr(col, 'storage') else col
        flat = storage.flatten()
        expect_col(name + '.item', v.reshape(-1), flat, where)
        return
    if dt.names is not None:
        assert pa.types.is_struct(t), (where, name, t)
        for f in dt.names:
            expect_col(name + '.' + f, v[f], col.field(f), where)
        return
    if dt.kind == 'c':
        assert [t.field(i).name for i in range(2)] == ['re', 'im'], (where, name, t)
        expect_col(name + '.re', v.real.copy(), col.field('re'), where)
        expect_col(name + '.im', v.imag.copy(), col.field('im'), where)
        return
    if dt.kind in 'Mm':
        unit = arrow_unit(dt, where)
        if dt.kind == 'M' and unit == 'D':
            assert t == pa.date32(), (where, name, t)
            want = v.astype('M8[D]')
        else:
            want_t = pa.timestamp(unit) if dt.kind == 'M' else pa.duration(unit)
            assert t == want_t, (where, name, t, want_t)
            want = v.astype(f'{dt.kind}8[{unit}]')
        ints = want.view('i8')
        exp = [None if x == -2**63 else int(x) for x in ints]
        got = col.cast(pa.int32() if t == pa.date32() else pa.int64()).to_pylist()
        assert got == exp, (where, name, got, exp)
        return
    if dt.kind == 'S':
        assert t == pa.binary(), (where, name, t)
        assert col.to_pylist() == v.tolist(), (where, name, col.to_pylist(), v.tolist())
        return
    if dt.kind == 'U':
        assert t == pa.string(), (where, name, t)
        assert col.to_pylist() == v.tolist(), (where, name, col.to_pylist(), v.tolist())
        return
    if dt.kind == 'V':
        assert t == pa.binary(dt.itemsize), (where, name, t)
        assert col.to_pylist() == [bytes(x) for x in v.tolist()], (where, name)
        return
    want_t = pa.from_numpy_dtype(dt.newbyteorder('='))
    assert t == want_t, (where, name, t, want_t)
    assert col.null_count == 0, (where, name)
    got = col.to_numpy(zero_copy_only=False)
    assert got.dtype == dt.newbyteorder('='), (where, name, got.dtype)
    assert got.tobytes() == v.astype(dt.newbyteorder('=')).tobytes(), (where, name, got, v)

checked = 0
failures = []
for npy in sorted(glob.glob(f'{d}/*.npy')):
    stem = os.path.basename(npy)[:-4]
    a = np.load(npy, max_header_size=1 << 24)
    for ext, read in (('arrow', lambda p: ipc.open_file(p).read_all()),
                      ('parquet', pq.read_table)):
        p = f'{d}/{stem}.{ext}'
        table = read(p)
        where = f'{stem}.{ext}'
        rows = a.shape[0] if a.ndim else 1
        assert table.num_rows == rows, (where, table.num_rows, rows)
        v = a if a.ndim else a.reshape(1)
        try:
            check_table(stem, a, v, table, where)
        except AssertionError as e:
            failures.append(repr(e))
            continue
        checked += 1
assert not failures, '\n'.join(failures)
print(checked)
";

/// Runs `script` on `dir` and parses the count it prints.
fn count(python: &std::path::Path, script: &str, dir: &std::path::Path) -> usize {
    run_script(python, script, [dir]).trim().parse().unwrap()
}

#[test]
fn pyarrow_reads_every_row_of_the_table_as_numpy_values() {
    let Some(python) = pyarrow_python("npy → Arrow IPC / Parquet, read by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let made: usize = count(&python, MAKE, dir.path());
    let mut converted = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let npy = entry.unwrap().path();
        for ext in ["arrow", "parquet"] {
            let out = npy.with_extension(ext);
            // Small batches, so that IPC and Parquet hold several (chunked columns).
            let mut options = ConvertOptions::new();
            options.batch_rows = Some(2);
            convert(&npy, &out, &options).unwrap_or_else(|e| panic!("{}: {e}", npy.display()));
            converted += 1;
        }
    }
    assert_eq!(converted, 2 * made);
    let checked: usize = count(&python, CHECK, dir.path());
    assert_eq!(checked, 2 * made);
}

/// Records big enough that `read_npy` transcodes their `U12` column on several threads (100,000
/// rows × 48 bytes ≥ 4 MiB), with non-ASCII text in every part of it, and a lone surrogate
/// nowhere (its refusal is in `rules.rs`).
const MAKE_BIG: &str = r"
import sys, numpy as np
d = sys.argv[1]
n = 100_000
a = np.zeros(n, [('id', '<i8'), ('name', '<U12'), ('ok', '?'), ('p', [('x', '>f4'), ('t', '<M8[ms]')])])
a['id'] = np.arange(n)
a['name'] = [f'n{i}\u00e9\U0001F600' if i % 3 == 0 else ('' if i % 3 == 1 else f'{i}') for i in range(n)]
a['ok'] = np.arange(n) % 5 == 0
a['p']['x'] = np.arange(n, dtype='f4') / 4
a['p']['t'] = np.where(np.arange(n) % 11 == 0, np.datetime64('NaT'), np.arange(n).astype('M8[ms]'))
np.save(f'{d}/big_records.npy', a)
";

/// `read_npy` reads a whole array (records through `read_dyn`'s columns, moved into the Arrow
/// arrays); every case, written back as IPC and Parquet from that one batch, is what numpy
/// loads.
#[test]
fn whole_arrays_read_by_read_npy_are_numpy_values() {
    let Some(python) = pyarrow_python("read_npy → Arrow IPC / Parquet, read by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let made: usize = count(&python, MAKE, dir.path());
    run_script(&python, MAKE_BIG, [dir.path()]);
    let mut converted = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let npy = entry.unwrap().path();
        let batch = npy_arrow::read_npy(&npy).unwrap_or_else(|e| panic!("{}: {e}", npy.display()));
        let schema = batch.schema();
        npy_arrow::write_ipc(npy.with_extension("arrow"), &schema, |push| push(&batch)).unwrap();
        npy_arrow::write_parquet(npy.with_extension("parquet"), &schema, |push| push(&batch))
            .unwrap();
        converted += 1;
    }
    assert_eq!(converted, made + 1);
    let checked: usize = count(&python, CHECK, dir.path());
    assert_eq!(checked, 2 * (made + 1));
}

/// pyarrow writes tables; numpy writes the array each should become (argv[1]/<name>.want.npy).
const WRITE: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
d = sys.argv[1]
def save(name, table, want):
    with ipc.new_file(f'{d}/{name}.arrow', table.schema) as w:
        w.write_table(table, max_chunksize=2)
    pq.write_table(table, f'{d}/{name}.parquet', row_group_size=2)
    np.save(f'{d}/{name}.want.npy', want)

ts = pa.chunked_array([pa.array([1000, None], pa.timestamp('ms')), pa.array([-5], pa.timestamp('ms'))])
table = pa.table({
    'i': pa.chunked_array([[1, 2], [3]], pa.int64()),
    'f': pa.array([0.5, np.nan, -1.0], pa.float32()),
    'b': pa.array([True, False, True]),
    's': pa.chunked_array([['x', 'h\u00e9llo'], ['']]),
    'big': pa.array(['a', 'bb', 'c'], pa.large_string()),
    'raw': pa.array([b'\x00a', b'', b'abc']),
    't': ts,
    'd': pa.array([0, None, 19000], pa.date32()),
    'du': pa.array([None, 5, -6], pa.duration('us')),
    'u16': pa.array([1, 65535, 0], pa.uint16()),
    'h': pa.array(np.array([1.5, 2.0, -0.0], 'f2')),
})
want = np.array([
    (1, 0.5, True, 'x', 'a', b'\x00a', 1000, 0, -2**63, 1, 1.5),
    (2, np.nan, False, 'h\u00e9llo', 'bb', b'', -2**63, -2**63, 5, 65535, 2.0),
    (3, -1.0, True, '', 'c', b'abc', -5, 19000, -6, 0, -0.0)],
    [('i', '<i8'), ('f', '<f4'), ('b', '?'), ('s', '<U5'), ('big', '<U2'), ('raw', 'S3'),
     ('t', '<i8'), ('d', '<i8'), ('du', '<i8'), ('u16', '<u2'), ('h', '<f2')])
want = want.astype([('i', '<i8'), ('f', '<f4'), ('b', '?'), ('s', '<U5'), ('big', '<U2'), ('raw', 'S3'),
                    ('t', '<M8[ms]'), ('d', '<M8[D]'), ('du', '<m8[us]'), ('u16', '<u2'), ('h', '<f2')])
save('mixed', table, want)

cube = np.arange(24, dtype='<f4').reshape(4, 2, 3)
tensor_t = pa.fixed_shape_tensor(pa.float32(), [2, 3])
tensors = pa.ExtensionArray.from_storage(tensor_t,
    pa.FixedSizeListArray.from_arrays(pa.array(cube.reshape(-1)), 6))
save('tensor', pa.table({'t': tensors}), cube)

save('plain', pa.table({'x': pa.chunked_array([[1.0], [2.0, 3.0]])}), np.array([1.0, 2.0, 3.0]))

nested = pa.table({'p': pa.array([{'x': 1, 'y': 2.0}, {'x': 3, 'y': 4.0}],
                               pa.struct([('x', pa.int32()), ('y', pa.float64())])),
                   'c': pa.array([{'re': 1.0, 'im': -1.0}, {'re': 0.0, 'im': 2.0}],
                               pa.struct([('re', pa.float64()), ('im', pa.float64())]))})
save('nested', nested, np.array([((1, 2.0), 1 - 1j), ((3, 4.0), 2j)],
                                [('p', [('x', '<i4'), ('y', '<f8')]), ('c', '<c16')]))
print('ok')
";

#[test]
fn what_pyarrow_writes_becomes_the_bytes_numpy_writes() {
    let Some(python) = pyarrow_python("Arrow IPC / Parquet written by pyarrow → npy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, WRITE, [dir.path()]);
    for name in ["mixed", "tensor", "plain", "nested"] {
        let want = std::fs::read(dir.path().join(format!("{name}.want.npy"))).unwrap();
        for ext in ["arrow", "parquet"] {
            let input = dir.path().join(format!("{name}.{ext}"));
            let out = dir.path().join(format!("{name}.{ext}.npy"));
            convert(&input, &out, &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            let got = std::fs::read(&out).unwrap();
            assert!(
                got == want,
                "{name}.{ext}: ours {:?}\nnumpy {:?}",
                npy_core::read_dyn(&out).map(|a| a.dtype().to_string()),
                npy_core::read_dyn(dir.path().join(format!("{name}.want.npy")))
                    .map(|a| a.dtype().to_string())
            );
        }
    }
}

const NULLS: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
pq.write_table(pa.table({'n': pa.array([1, None, 3], pa.int32())}), f'{d}/nulls.parquet')
np.save(f'{d}/filled.npy', np.array([1, -1, 3], '<i4'))
";

#[test]
fn null_numbers_need_a_fill_value() {
    let Some(python) = pyarrow_python("Parquet with null integers → npy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, NULLS, [dir.path()]);
    let input = dir.path().join("nulls.parquet");
    let out = dir.path().join("out.npy");
    let err = convert(&input, &out, &ConvertOptions::new()).unwrap_err();
    match err.kind() {
        ErrorKind::Nulls {
            column,
            nulls,
            first_row,
            dtype,
        } => {
            assert_eq!((column.as_str(), *nulls, *first_row), ("n", 1, 1));
            assert_eq!(dtype, "<i4");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.path(), Some(input.as_path()));
    // r14 (issue 42, F14): the message names the flag and the option, not "a fill value".
    let msg = err.to_string();
    for part in [
        "first at row 1",
        "`--fill VALUE`",
        "`FromArrowOptions::fill`",
    ] {
        assert!(msg.contains(part), "{msg}");
    }
    assert!(!out.exists(), "a failed conversion leaves no output");
    let mut options = ConvertOptions::new();
    options.from_arrow = FromArrowOptions::new().fill(-1.0);
    convert(&input, &out, &options).unwrap();
    let want = std::fs::read(dir.path().join("filled.npy")).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), want);
}

#[test]
fn pyarrow_reads_every_fixture_we_convert_as_numpy_loads_it() {
    let Some(python) = pyarrow_python("fixtures → Arrow IPC / Parquet, read by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fixtures = npy_test_support::fixtures_dir();
    let (mut converted, mut refused) = (0, Vec::new());
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let npy = entry.unwrap().path();
        if npy.extension().is_none_or(|e| e != "npy") {
            continue;
        }
        let copy = dir.path().join(npy.file_name().unwrap());
        let mut ok = true;
        for ext in ["arrow", "parquet"] {
            let mut options = ConvertOptions::new();
            options.batch_rows = Some(3);
            match convert(&npy, copy.with_extension(ext), &options) {
                Ok(()) => {}
                // The table's refusals: longdouble, generic M8 / m8, object.
                Err(e) if matches!(e.kind(), ErrorKind::UnsupportedDType { .. }) => {
                    refused.push(e.to_string());
                    ok = false;
                }
                Err(e) => panic!("{}: {e}", npy.display()),
            }
        }
        if ok {
            std::fs::copy(&npy, &copy).unwrap();
            converted += 1;
        }
    }
    for r in &refused {
        assert!(
            ["c32", "f16", "M8_", "m8_", "object", "without fields"]
                .iter()
                .any(|k| r.contains(k)),
            "refused: {r}"
        );
    }
    assert!(converted > 150, "{converted} fixtures converted");
    let checked: usize = count(&python, CHECK, dir.path());
    assert_eq!(checked, 2 * converted);
}

const OBJECTS: &str = r"
import sys, numpy as np
d = sys.argv[1]
np.save(f'{d}/words.npy', np.array(['a', None, '\u00e9t\u00e9', ''], dtype=object))
np.save(f'{d}/counts.npy', np.array([1, None, -2**63, 2**63 - 1], dtype=object))
np.save(f'{d}/ratios.npy', np.array([0.5, None, float('inf')], dtype=object))
np.save(f'{d}/mixed.npy', np.array(['a', 1], dtype=object))
np.save(f'{d}/lists.npy', np.array([None, [1, 2]], dtype=object))
";

const OBJECTS_CHECK: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq, pyarrow.ipc as ipc
d = sys.argv[1]
for stem, t in (('words', pa.string()), ('counts', pa.int64()), ('ratios', pa.float64())):
    want = np.load(f'{d}/{stem}.npy', allow_pickle=True).tolist()
    for table in (ipc.open_file(f'{d}/{stem}.arrow').read_all(), pq.read_table(f'{d}/{stem}.parquet')):
        col = table.column(stem)
        assert col.type == t, (stem, col.type)
        assert col.to_pylist() == want, (stem, col.to_pylist(), want)
print('ok')
";

#[test]
fn uniform_object_arrays_become_typed_columns_with_nulls() {
    let Some(python) = pyarrow_python("object arrays → Arrow / Parquet, read by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, OBJECTS, [dir.path()]);
    for stem in ["words", "counts", "ratios"] {
        let npy = dir.path().join(format!("{stem}.npy"));
        for ext in ["arrow", "parquet"] {
            convert(&npy, npy.with_extension(ext), &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{stem}: {e}"));
        }
    }
    assert_eq!(
        run_script(&python, OBJECTS_CHECK, [dir.path()]).trim(),
        "ok"
    );
    for (stem, index) in [("mixed", 1), ("lists", 1)] {
        let npy = dir.path().join(format!("{stem}.npy"));
        let err = convert(&npy, npy.with_extension("arrow"), &ConvertOptions::new()).unwrap_err();
        match err.kind() {
            ErrorKind::Value {
                column, index: i, ..
            } => {
                assert_eq!((column.as_str(), *i), (stem, index), "{err}");
            }
            other => panic!("{stem}: {other:?}"),
        }
    }
}

/// 200,000 records whose columns fall on both sides of the writers' 1 MiB dictionary limit:
/// `id` unique (1.6 MB of dictionary: abandoned), `cycle` 20,000 values over and over (160 kB:
/// kept), `name` unique strings (abandoned), `cat` 100 strings (kept), `score` unique `f4`
/// (800 kB: kept although unique), `ok` bools (no dictionary in any writer). pyarrow writes
/// the same table as `py.parquet`, and `over.txt` names the columns whose distinct values
/// take 1 MiB or more as dictionary entries (4 bytes of length and the UTF-8 for a string).
const MAKE_DICT: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
n = 200_000
a = np.zeros(n, [('id', '<i8'), ('cycle', '<i8'), ('name', '<U8'), ('cat', '<U3'), ('score', '<f4'), ('ok', '?')])
i = np.arange(n)
a['id'] = i * 7 - 50_000
a['cycle'] = (i % 20_000) * 3
a['name'] = np.char.add('n', i.astype('U7'))
a['cat'] = (i % 100).astype('U3')
a['score'] = i.astype('f4') * 0.25
a['ok'] = i % 3 == 0
np.save(f'{d}/dict.npy', a)
pq.write_table(pa.table({f: a[f] for f in a.dtype.names}), f'{d}/py.parquet', compression='snappy')
def entries(v):
    u = np.unique(v)
    if u.dtype.kind == 'U':
        return sum(4 + len(s.encode()) for s in u.tolist())
    return len(u) * u.dtype.itemsize
over = [f for f in a.dtype.names if a[f].dtype.kind != 'b' and entries(a[f]) >= 1 << 20]
open(f'{d}/over.txt', 'w').write(' '.join(over))
";

/// Ours against numpy's values and pyarrow's dictionaries: every column has a dictionary page
/// where pyarrow's file has one, except the columns whose dictionary passes the limit (which
/// pyarrow abandons for plain pages after its first 1 MiB).
const CHECK_DICT: &str = r"
import sys, numpy as np, pyarrow.parquet as pq
d = sys.argv[1]
a = np.load(f'{d}/dict.npy')
over = open(f'{d}/over.txt').read().split()
assert over == ['id', 'name'], over
t = pq.read_table(f'{d}/dict.parquet')
for f in a.dtype.names:
    assert (t[f].to_numpy() == a[f]).all(), f
ours, py = pq.ParquetFile(f'{d}/dict.parquet').metadata, pq.ParquetFile(f'{d}/py.parquet').metadata
for c in range(ours.num_columns):
    o, p = ours.row_group(0).column(c), py.row_group(0).column(c)
    assert o.path_in_schema == p.path_in_schema
    want = p.has_dictionary_page and o.path_in_schema not in over
    assert o.has_dictionary_page == want, (o.path_in_schema, o.has_dictionary_page, want)
print('ok')
";

#[test]
fn columns_whose_dictionary_pyarrow_abandons_are_written_plain_the_rest_keep_it() {
    let Some(python) = pyarrow_python("dictionary per column, against pyarrow's") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, MAKE_DICT, [dir.path()]);
    let npy = dir.path().join("dict.npy");
    convert(&npy, npy.with_extension("parquet"), &ConvertOptions::new()).unwrap();
    assert_eq!(run_script(&python, CHECK_DICT, [dir.path()]).trim(), "ok");
}

const ROW_NULLS: &str = r"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
st = pa.table({'st': pa.array([{'a': 1}, {'a': 2}, {'a': 3}, None])})
fl = pa.table({'v': pa.array([[1, 2], [3, 4], None], pa.list_(pa.int32(), 2))})
for name, t in [('st', st), ('fl', fl)]:
    pq.write_table(t, f'{d}/{name}.parquet')
    with pa.ipc.new_file(f'{d}/{name}.arrow', t.schema) as w:
        w.write_table(t)
";

#[test]
fn a_null_record_or_list_row_is_refused_at_its_own_row_fill_or_not() {
    let Some(python) = pyarrow_python("Parquet / IPC with a null struct or list row → npy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, ROW_NULLS, [dir.path()]);
    for (name, row) in [("st", 3), ("fl", 2)] {
        for ext in ["parquet", "arrow"] {
            let input = dir.path().join(format!("{name}.{ext}"));
            let out = dir.path().join("out.npy");
            for fill in [None, Some(0.0)] {
                let mut options = ConvertOptions::new();
                if let Some(f) = fill {
                    options.from_arrow = FromArrowOptions::new().fill(f);
                }
                let err = convert(&input, &out, &options).unwrap_err();
                match err.kind() {
                    ErrorKind::NullRows {
                        nulls, first_row, ..
                    } => assert_eq!((*nulls, *first_row), (1, row), "{name}.{ext} {fill:?}"),
                    other => panic!("{name}.{ext}: {other:?}"),
                }
                // A fill cannot help, given or not: the message does not ask for one.
                let message = err.to_string();
                assert!(
                    message.contains("null record or list row cannot be filled")
                        && !message.contains("give a fill"),
                    "{message}"
                );
                assert!(!out.exists());
            }
        }
    }
}

const SAME_FORMAT: &str = r"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
t = pa.table({'a': pa.array([1, None, 3], pa.int64()), 's': ['x', 'yy', None],
              'f': pa.array([0.5, 1.5, None], pa.float32())})
pq.write_table(t, f'{d}/t.parquet', row_group_size=2)
with pa.ipc.new_file(f'{d}/t.arrow', t.schema) as w:
    w.write_table(t, max_chunksize=2)
";

const SAME_CHECK: &str = r"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
want = pq.read_table(f'{d}/t.parquet')
assert pq.read_table(f'{d}/u.parquet').equals(want), pq.read_table(f'{d}/u.parquet')
got = pa.ipc.open_file(f'{d}/u.arrow').read_all()
assert got.equals(pa.ipc.open_file(f'{d}/t.arrow').read_all()), got
";

#[test]
fn parquet_to_parquet_and_ipc_to_ipc_rewrite_the_table() {
    let Some(python) = pyarrow_python("Parquet → Parquet, IPC → IPC, read by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, SAME_FORMAT, [dir.path()]);
    for (from, to) in [("t.parquet", "u.parquet"), ("t.arrow", "u.arrow")] {
        let (from, to) = (dir.path().join(from), dir.path().join(to));
        convert(&from, &to, &ConvertOptions::new())
            .unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
    run_script(&python, SAME_CHECK, [dir.path()]);
}

/// r12's input (issue 42, F12): a null of an `int64` and of a `uint64` column, filled with
/// 2^53 + 1 and 2^64 - 1, which an `f64` rounds; numpy writes the exact values.
const EXACT_FILL: &str = r"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
pq.write_table(pa.table({'x': pa.array([1, None, 3], pa.int64())}), f'{d}/i.parquet')
pq.write_table(pa.table({'x': pa.array([1, None], pa.uint64())}), f'{d}/u.parquet')
pq.write_table(pa.table({'x': pa.array([1, 2, None, 4], pa.int64())}), f'{d}/n.parquet')
np.save(f'{d}/i.want.npy', np.array([1, 2**53 + 1, 3], '<i8'))
np.save(f'{d}/u.want.npy', np.array([1, 2**64 - 1], '<u8'))
";

#[test]
fn an_integer_fill_is_written_exactly_and_one_that_does_not_fit_is_refused_at_the_null() {
    let Some(python) = pyarrow_python("Parquet nulls filled with 64-bit integers → npy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(&python, EXACT_FILL, [dir.path()]);
    let out = dir.path().join("out.npy");
    for (name, fill) in [("i", "9007199254740993"), ("u", "18446744073709551615")] {
        let mut options = ConvertOptions::new();
        let fill: npy_arrow::FillValue = fill.parse().unwrap();
        options.from_arrow = FromArrowOptions::new().fill(fill);
        let input = dir.path().join(format!("{name}.parquet"));
        convert(&input, &out, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = std::fs::read(dir.path().join(format!("{name}.want.npy"))).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), want, "{name}");
    }
    // Fills an int64 column cannot hold: a fraction, past its range, 1e300 (r14: reported at
    // the null's row 2, not the batch's first, naming the flag and the option, the fill as
    // given rather than 301 digits).
    let input = dir.path().join("n.parquet");
    let out = dir.path().join("refused.npy");
    for (fill, shown) in [
        ("1.5", "1.5"),
        ("9223372036854775808", "9223372036854775808"),
        ("1e300", "1e300"),
    ] {
        let mut options = ConvertOptions::new();
        options.from_arrow =
            FromArrowOptions::new().fill(fill.parse::<npy_arrow::FillValue>().unwrap());
        let err = convert(&input, &out, &options).unwrap_err();
        match err.kind() {
            ErrorKind::Value { column, index, .. } => {
                assert_eq!((column.as_str(), *index), ("x", 2), "{err}");
            }
            other => panic!("{fill}: {other:?}"),
        }
        let msg = err.to_string();
        for part in [shown, "`--fill`", "`FromArrowOptions::fill`", "<i8"] {
            assert!(msg.contains(part), "{fill}: {msg}");
        }
        assert!(msg.len() < 200, "{msg}");
        assert!(!out.exists());
    }
}

/// r14 (issue 42, F14 item 2): two columns of one name, which pyarrow writes to IPC, are
/// refused naming the name and both columns (was "invalid descr a: ...", the descr not `a`).
#[test]
fn two_columns_of_one_name_are_refused_naming_them() {
    let Some(python) = pyarrow_python("IPC with duplicate column names → npy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    run_script(
        &python,
        r"
import sys, pyarrow as pa, pyarrow.ipc as ipc
t = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=['a', 'a'])
with ipc.new_file(f'{sys.argv[1]}/dup.arrow', t.schema) as w: w.write_table(t)
",
        [dir.path()],
    );
    let input = dir.path().join("dup.arrow");
    let out = dir.path().join("out.npy");
    let err = convert(&input, &out, &ConvertOptions::new()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Invalid(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains(r#"two columns named "a" (at positions 0 and 1"#),
        "{msg}"
    );
    assert!(!msg.contains("invalid descr"), "{msg}");
    assert_eq!(err.path(), Some(input.as_path()));
    assert!(!out.exists());
}
