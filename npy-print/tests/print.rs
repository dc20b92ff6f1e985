//! The printer (npy-print) against numpy itself: for a table of arrays of every kind of
//! dtype, the pinned Python saves each one with `np.save` and prints its `str()` and `repr()`
//! (under the print options the case names); the file read back with `read_dyn` must print the
//! same through `npy_print::str` and `npy_print::repr`. Object arrays' items are also compared
//! one by one with Python's `repr()` of each item, `npy_print::repr` of a `PyObject`.
//!
//! Cases left out are the printer's documented differences (a 0-d longdouble's digits past
//! float64, control characters in a 0-d `U` array).

use npy_test_support::cpu::CpuTimer;
use std::path::Path;
use std::process::Command;

use npy_core::DynValue;
use npy_print::{Print, PrintOptions};
use serde_json::Value;

/// `name = expression` per line; `@threshold,edgeitems,linewidth,precision` after the
/// expression sets numpy's print options for that case.
const CASES: &str = r#"
i1 = np.array([-128, 0, 127], 'i1')
u8 = np.array([0, 2**64 - 1], 'u8')
i8_2d = np.arange(12).reshape(3, 4)
i4_be = np.array([1, -2], '>i4')
i2_neg = np.array([1, -2], 'i2')
i8_0d = np.array(-7)
u1_0d = np.array(200, 'u1')
u2_sum = np.arange(2000, dtype='u2').reshape(2, 1000)
i8_3d_sum = np.arange(3000).reshape(10, 10, 30)
i8_wrap = np.arange(100) * 1000
i8_wrap_2d = (np.arange(60) * 10**9).reshape(3, 20)
i8_empty = np.zeros(0, 'i8')
i8_empty_2d = np.zeros((3, 0), 'i8')
f4_empty = np.zeros((0, 2), 'f4')
f8_empty_2d = np.zeros((2, 0))
f8 = np.array([1.5, 2.25, 100.0])
f8_sci = np.array([1e-5, 1.0])
f8_nonfinite = np.array([np.nan, np.inf, -np.inf, 1.5])
f8_nan_only = np.array([np.nan, -np.inf])
f8_zeros = np.array([-0.0, 0.0])
f8_ratio = np.array([1.0, 1001.0])
f8_big = np.array([1e8, 1.0])
f8_sevenths = np.arange(6.0).reshape(2, 3) / 7
f8_sum = np.linspace(0, 1, 2001)
f8_sum_2d = np.linspace(-1, 1, 3000).reshape(30, 100)
f8_0d = np.array(1.123456789123)
f8_0d_big = np.array(1e16)
f8_0d_small = np.array(1.5e-5)
f8_0d_int = np.array(1e15)
f8_be = np.array([1.5, -3.0], '>f8')
f8_tie_0d = np.array(2.0**50 + 0.25)
f8_tie = np.array([2.0**50 + 0.25, 2.0**50 + 0.75, 1.0])  @1000,3,75,20
f8_tie_2 = np.array([2.0**51 + 0.5, 2.0**49 + 0.125])  @1000,3,75,20
f4_tie = np.array([-4040868.25, 1e-3], 'f4')
f4_tie_pos = np.array([4040868.25, 1.0], 'f4')  @1000,3,75,12
f4_tie_0d = np.array(4040868.25, 'f4')
f4_third = np.array([1 / 3, 0], 'f4')
f4_cutoff = np.array([2e6, 3e6], 'f4')
f4_0d = np.array(1e6, 'f4')
f4_0d_small = np.array(0.1, 'f4')
f2 = np.array([0.5, np.nan, -0.0, np.inf, 5.96e-08], 'f2')
f2_cutoff = np.array([1776, 913, -974, -102], 'f2')
f2_0d = np.array(65504, 'f2')
f2_0d_half = np.array(999.5, 'f2')
g_arr = np.array([1.5, 2.25, -0.125], np.longdouble)
c16 = np.array([1 + 2j, -1.5j, 0])
c16_nonfinite = np.array([complex(np.nan, np.inf), 1, complex(-np.inf, -0.0)])
c16_sci = np.array([1e-9 + 1j, 1e9 - 1j])
c8 = np.array([1e6 + 1j, 0.5 - 0.25j], 'c8')
c16_0d = np.array(1 - 2j)
c16_0d_imag = np.array(2j)
c8_0d = np.array(4.3365286e11 + 0.92481047j, 'c8')
b1 = np.array([True, False, True])
b1_2d = np.array([[True, False], [False, False]])
b1_0d = np.array(True)
b1_false_0d = np.array(False)
b1_sum = np.arange(3000) % 3 == 0
u_arr = np.array(['a', "it's", 'é優', '', 'q"uo\'te'])
u_wide = np.array(['x' * 30, 'y' * 30, 'z' * 30])
u_0d = np.array('abc')
s_arr = np.array([b'a', b'\x00b', b"'", b'\xff'])
s_0d = np.array(b'ab')
v3 = np.zeros(2, 'V3')
v2 = np.frombuffer(b'\xab\x01\x02\x7f', 'V2')
m8_d = np.array(['2020-01-01', 'NaT', '1969-12-31'], 'M8[D]')
m8_s = np.array(['2020-01-01T12:34:56', '1970-01-01'], 'M8[s]')
m8_10ms = np.array([1, 2, 3], 'M8[10ms]')
m8_h = np.array([1, -1], 'M8[h]')
m8_y = np.array(['2020', '1900'], 'M8[Y]')
m8_be = np.array(['2020-01-01'], '>M8[D]')
m8_generic = np.array(['NaT', 'NaT'], 'M8')
m8_0d = np.array('2023-12-09', 'M8[D]')
m8_nat_0d = np.array('NaT', 'M8[s]')
td_ms = np.array([1, -20, 'NaT'], 'm8[ms]')
td_0d = np.array(5, 'm8[s]')
td_generic = np.array([1, 2], 'm8')
rec = np.zeros(2, [('a', '<i4'), ('b', '<f4', (2,))])
rec_mixed = np.array([(1, 1.5, b'x', True), (-20, -2.25, b'yy', False)], [('i', '<i8'), ('f', '<f8'), ('s', 'S2'), ('b', '?')])
rec_one = np.array([(1,), (2,)], [('a', '<i2')])
rec_nested = np.array([((1, 2.5), 'u')], [('p', [('x', '<i4'), ('y', '<f8')]), ('t', '<U1')])
rec_sub_2d = np.array([([[1, 2], [3, 40]],)], [('m', '<i4', (2, 2))])
rec_time = np.array([('2020-01-01', 3)], [('d', '<M8[D]'), ('n', '<m8[s]')])
rec_0d = np.array((1.5, 2), [('a', '<f8'), ('b', '<i4')])
rec_0d_f4 = np.array((0.1, 1e6), [('a', '<f4'), ('b', '<f4')])
rec_0d_sub = np.array(([1, 10],), [('a', '<i4', (2,))])
rec_sum = np.zeros(1500, [('a', '<i4'), ('b', '<f8')])
rec_sub_sum = np.zeros(2, [('big', '<i2', (1200,))])
obj = np.array([1, 'a', None, 1.5, (1,), [1, 2], {'k': 2}, 2**70, b'x', 1 + 2j, True, (), frozenset(), set()], dtype=object)
obj_2d = np.array([[1, 'two'], [3.0, None]], dtype=object)
obj_scalars = np.array([np.float32(1e6), np.int16(3), np.float64(0.1), np.float16(0.1), np.complex64(1e6 + 1j), np.True_, np.str_('s'), np.bytes_(b'b'), np.uint8(200)], dtype=object)
obj_time = np.array([np.datetime64('2020-01-01'), np.datetime64(5, 'h'), np.timedelta64(10, 'ms'), np.datetime64('NaT', 's'), np.timedelta64(3)], dtype=object)
obj_ties = np.array([2.0**50 + 0.25, np.float32(4040868.25), complex(2.0**50 + 0.25, -0.5)], dtype=object)
obj_floats = np.array([0.1, 1e16, 1e-5, -0.0, float('nan'), float('inf'), 1e22, 5e-324], dtype=object)
obj_nested = np.array([np.arange(3), np.array([[1.5, 2.0], [3.0, 4.5]]), None, np.zeros((2, 0), 'f4'), np.array(7, 'u4'), [np.arange(2)], np.arange(2000.0)], dtype=object)
obj_nested_3d = np.array([np.arange(8).reshape(2, 2, 2), 'x'], dtype=object)
obj_0d = np.array(None, dtype=object)
obj_0d_str = np.array('text', dtype=object)
obj_sum = np.array(list(range(2000)), dtype=object)
opt_small = np.arange(10)  @5,2,75,8
opt_narrow = np.arange(12).reshape(3, 4) * 1001  @1000,3,20,8
opt_precision = np.array([1 / 3, 2 / 3, 10.0])  @1000,3,75,3
opt_precision_sci = np.array([1e-7 / 3, 1.0])  @1000,3,75,2
opt_all = np.arange(30).reshape(5, 6) / 4  @10,1,30,2
opt_full = np.arange(1200)  @100000,3,75,8
opt_obj_nested = np.array([np.arange(20), [np.arange(12) / 7]], dtype=object)  @10,2,60,3
opt_rec_sub = np.zeros(1, [('s', '<i4', (8,))])  @5,1,75,8
"#;

const SCRIPT: &str = r"
import json, sys
import numpy as np
out = {}
for line in sys.stdin.read().strip().splitlines():
    name, rest = line.split(' = ', 1)
    expr, _, opts = rest.partition('  @')
    arr = eval(expr)
    path = sys.argv[1] + '/' + name + '.npy'
    np.save(path, arr, allow_pickle=True)
    t, e, w, p = (int(x) for x in opts.split(',')) if opts else (1000, 3, 75, 8)
    with np.printoptions(threshold=t, edgeitems=e, linewidth=w, precision=p):
        case = {'str': str(arr), 'repr': repr(arr), 'options': [t, e, w, p]}
    if arr.dtype == object and arr.ndim == 1:
        case['items'] = [repr(x) for x in arr]
    out[name] = case
json.dump(out, sys.stdout)
";

#[test]
fn str_and_repr_match_numpy() {
    let Some(python) = npy_test_support::python::python_for("the printer against numpy's str()")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(CASES.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = want.as_object().unwrap();
    assert_eq!(want.len(), CASES.trim().lines().count());

    let mut failures = Vec::new();
    for (name, case) in want {
        check(dir.path(), name, case, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} mismatches with numpy:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check(dir: &Path, name: &str, case: &Value, failures: &mut Vec<String>) {
    let a = match read_any(&dir.join(format!("{name}.npy"))) {
        Ok(a) => a,
        Err(e) => return failures.push(format!("{name}: read_dyn: {e}")),
    };
    let o: Vec<u64> = case["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let options = PrintOptions::new()
        .threshold(o[0])
        .edgeitems(o[1])
        .linewidth(usize::try_from(o[2]).unwrap())
        .precision(usize::try_from(o[3]).unwrap());
    let shown = a.display_with(&options);
    let pairs = [("str", shown.to_string()), ("repr", format!("{shown:#}"))];
    for (what, got) in pairs {
        let want = case[what].as_str().unwrap();
        if got != want {
            failures.push(format!(
                "{name} {what}:\n  numpy: {want:?}\n  ours:  {got:?}"
            ));
        }
    }
    if options == PrintOptions::new() {
        // `str` and `repr` are the default options'.
        if npy_print::str(&a).to_string() != shown.to_string()
            || npy_print::repr(&a).to_string() != format!("{shown:#}")
        {
            failures.push(format!(
                "{name}: str/repr differ from display_with(default)"
            ));
        }
    }
    typed(dir, name, case, &options, failures);
    if let Some(items) = case.get("items").and_then(Value::as_array) {
        for (i, (v, want)) in a.iter_c_order().zip(items).enumerate() {
            let Some(o) = npy_pickle::PyObject::of(&v) else {
                failures.push(format!("{name}[{i}]: not an object"));
                continue;
            };
            let want = want.as_str().unwrap();
            let got = npy_print::repr(o).to_string();
            if got != want {
                failures.push(format!(
                    "{name}[{i}] repr:\n  numpy: {want:?}\n  ours:  {got}"
                ));
            }
        }
    }
}

/// A value without its dtype prints as a 0-d array of the widest type of its kind would
/// (Python's `str()` of `item()` for floats): numpy 2.4.6's `str(np.array(x))`.
#[test]
fn dyn_value_display_is_a_0d_arrays_str() {
    let cases = [
        (DynValue::Float(0.1), "0.1"),
        (DynValue::Float(1e16), "1e+16"),
        (DynValue::Float(2f64.powi(50) + 0.25), "1125899906842624.2"),
        (DynValue::Int(-3), "-3"),
        (DynValue::UInt(u64::MAX), "18446744073709551615"),
        (DynValue::Bool(false), "False"),
        (DynValue::Complex(0.0, -0.0), "-0j"),
        (DynValue::Complex(1.5, f64::NAN), "(1.5+nanj)"),
        (
            DynValue::Record(vec![
                ("a".into(), DynValue::Float(1.5)),
                ("b".into(), DynValue::Int(2)),
            ]),
            "(1.5, 2)",
        ),
        (
            DynValue::Record(vec![(
                "a".into(),
                DynValue::SubArray {
                    shape: vec![2],
                    values: vec![DynValue::Int(1), DynValue::Int(10)],
                },
            )]),
            "([ 1, 10],)",
        ),
    ];
    for (v, want) in cases {
        assert_eq!(npy_print::str(&v).to_string(), want, "{v:?}");
    }
}

/// The typed arrays of some cases print as their dynamic reading does, numpy's text.
fn typed(dir: &Path, name: &str, case: &Value, options: &PrintOptions, failures: &mut Vec<String>) {
    fn texts<T: npy_core::NpyElement>(path: &Path, options: &PrintOptions) -> Option<[String; 2]> {
        let a = npy_core::read::<T>(path).ok()?;
        let shown = a.display_with(options);
        Some([shown.to_string(), format!("{shown:#}")])
    }
    let path = dir.join(format!("{name}.npy"));
    let got = match name {
        "i1" => texts::<i8>(&path, options),
        "u8" => texts::<u64>(&path, options),
        "i8_2d" | "i8_3d_sum" | "i8_0d" | "opt_narrow" => texts::<i64>(&path, options),
        "i4_be" => texts::<i32>(&path, options),
        "u2_sum" => texts::<u16>(&path, options),
        "f8" | "f8_be" | "f8_sum_2d" | "f8_tie" | "f8_0d" | "opt_all" => {
            texts::<f64>(&path, options)
        }
        "f4_tie" | "f4_third" | "f4_0d" => texts::<f32>(&path, options),
        "f2" => texts::<npy_core::half::f16>(&path, options),
        "c8" => texts::<npy_core::num_complex::Complex<f32>>(&path, options),
        "b1" | "b1_sum" => texts::<bool>(&path, options),
        "u_arr" | "u_0d" => texts::<String>(&path, options),
        _ => return,
    };
    let Some(got) = got else {
        return failures.push(format!("{name}: typed read failed"));
    };
    for (what, got) in ["str", "repr"].into_iter().zip(got) {
        let want = case[what].as_str().unwrap();
        if got != want {
            failures.push(format!(
                "{name} typed {what}:\n  numpy: {want:?}\n  ours:  {got:?}"
            ));
        }
    }
}

/// Issue 23 F1: the text grows with the items printed, never with the shape alone. numpy 2.4.6
/// prints `repr(np.empty((2**62, 0), np.uint8))` as below and its `str()` as `[]`.
#[test]
fn huge_empty_arrays_print_in_constant_size() {
    let header = npy_core::Header {
        dtype: "|u1".parse().unwrap(),
        fortran_order: false,
        shape: vec![1 << 62, 0],
    };
    let a = npy_core::DynArray::new(header, Vec::new()).unwrap();
    assert_eq!(npy_print::str(&a).to_string(), "[]");
    assert_eq!(
        npy_print::repr(&a).to_string(),
        "array([], shape=(4611686018427387904, 0), dtype=uint8)"
    );
}

/// A row printed whole on one line (`full()`, no line width) is written as it goes: time and
/// memory per word stay constant, so 200,000 words take well under a second.
#[test]
fn an_unwrapped_row_prints_in_linear_time() {
    let n = 200_000u64;
    let header = npy_core::Header {
        dtype: "<i8".parse().unwrap(),
        fortran_order: false,
        shape: vec![n],
    };
    let values = (0..n as i64).map(|i| DynValue::Int(i % 10)).collect();
    let a = npy_core::DynArray::new(header, values).unwrap();
    let options = PrintOptions::new().full().linewidth(usize::MAX);
    let started = CpuTimer::start();
    let text = a.display_with(&options).to_string();
    assert_eq!(text.len() as u64, 2 * n + 1);
    assert!(!text.contains('\n'));
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

/// Every fixture prints under extreme options (no threshold, one edge item, no line width,
/// no precision, and their opposites) without a panic, its text bounded by what it shows.
#[test]
fn every_fixture_prints_under_any_options() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let options = [
        PrintOptions::new(),
        PrintOptions::new()
            .threshold(0)
            .edgeitems(1)
            .linewidth(0)
            .precision(0),
        PrintOptions::new().edgeitems(0).linewidth(1).precision(30),
        PrintOptions::new()
            .full()
            .linewidth(usize::MAX)
            .precision(usize::MAX),
    ];
    let mut printed = 0;
    for dir in [root.clone(), root.join("object")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "npy") {
                continue;
            }
            let Ok(a) = read_any(&path) else {
                continue;
            };
            for o in &options {
                let shown = a.display_with(o);
                let repr = format!("{shown:#}");
                assert!(repr.starts_with("array("), "{}: {repr}", path.display());
                let _ = shown.to_string();
            }
            a.iter_c_order()
                .for_each(|v| drop(npy_print::str(&*v).to_string()));
            printed += 1;
        }
    }
    assert!(printed > 250, "{printed} fixtures printed");
}

/// The array at `path`, object arrays decoded by npy-pickle's codec (as the CLI reads them).
fn read_any(path: &std::path::Path) -> Result<npy_core::DynArray, npy_core::Error> {
    npy_core::NpyReader::open(path)?.read_dyn_using(&npy_pickle::PickleCodec::default())
}
