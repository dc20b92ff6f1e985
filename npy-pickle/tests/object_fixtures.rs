//! Object arrays written by numpy (`fixtures/object/`, protocols 2, 3 and 4): `read_dyn` must
//! give exactly the values `np.load(..., allow_pickle=True)` gives (the manifest), every
//! element's `Display` must be Python's `repr()`, and writing the values back must give
//! numpy's bytes where the manifest says that is possible.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use npy_core::{DynArray, DynValue};
use npy_pickle::{read_objects, PickleCodec, PyObject};
use serde_json::Value as Json;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/object")
}

fn manifest() -> Vec<Json> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("fixtures/object");
    let v: Json = serde_json::from_str(&text).unwrap();
    v["fixtures"].as_array().unwrap().clone()
}

fn py_float(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("float {s}"))
}

fn same_float(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn tagged<'a>(e: &'a Json, tag: &str) -> Option<&'a Json> {
    e.as_object()
        .filter(|m| m.len() == 1)
        .and_then(|m| m.get(tag))
}

/// Whether `got` is the value the manifest describes; `Err` says where it is not.
fn check(e: &Json, got: &PyObject) -> Result<(), String> {
    let fail = || Err(format!("expected {e}, got {got:?}"));
    let items = |e: &Json, got: &[PyObject]| -> Result<(), String> {
        let e = e.as_array().ok_or("not a list")?;
        if e.len() != got.len() {
            return Err(format!("{} items, expected {}", got.len(), e.len()));
        }
        e.iter().zip(got).try_for_each(|(e, g)| check(e, g))
    };
    match (e, got) {
        (Json::Null, PyObject::None) => Ok(()),
        (Json::Bool(b), PyObject::Bool(g)) if b == g => Ok(()),
        (Json::String(s), PyObject::Str(g)) if s == g => Ok(()),
        (Json::Array(_), PyObject::List(g)) => items(e, g),
        _ => {
            if let Some(i) = tagged(e, "int") {
                let want = i.as_str().unwrap();
                return match got {
                    PyObject::Int(g) if g.to_string() == want => Ok(()),
                    PyObject::BigInt(g) if g.to_string() == want => Ok(()),
                    _ => fail(),
                };
            }
            if let Some(f) = tagged(e, "float") {
                return match got {
                    PyObject::Float(g) if same_float(*g, py_float(f.as_str().unwrap())) => Ok(()),
                    _ => fail(),
                };
            }
            if let Some(c) = tagged(e, "complex") {
                let (re, im) = (
                    py_float(c[0].as_str().unwrap()),
                    py_float(c[1].as_str().unwrap()),
                );
                return match got {
                    PyObject::Complex(a, b) if same_float(*a, re) && same_float(*b, im) => Ok(()),
                    _ => fail(),
                };
            }
            for (tag, bytearray) in [("bytes", false), ("bytearray", true)] {
                if let Some(h) = tagged(e, tag) {
                    let want = hex(h.as_str().unwrap());
                    return match (got, bytearray) {
                        (PyObject::Bytes(g), false) | (PyObject::ByteArray(g), true)
                            if *g == want =>
                        {
                            Ok(())
                        }
                        _ => fail(),
                    };
                }
            }
            if let Some(t) = tagged(e, "tuple") {
                return match got {
                    PyObject::Tuple(g) => items(t, g),
                    _ => fail(),
                };
            }
            if let Some(t) = tagged(e, "set") {
                return match got {
                    PyObject::Set(g) => items(t, g),
                    _ => fail(),
                };
            }
            if let Some(t) = tagged(e, "frozenset") {
                return match got {
                    PyObject::FrozenSet(g) => items(t, g),
                    _ => fail(),
                };
            }
            if let Some(d) = tagged(e, "dict") {
                let PyObject::Dict(g) = got else {
                    return fail();
                };
                let d = d.as_array().unwrap();
                if d.len() != g.len() {
                    return fail();
                }
                return d.iter().zip(g).try_for_each(|(kv, (k, v))| {
                    check(&kv[0], k)?;
                    check(&kv[1], v)
                });
            }
            if let Some(r) = tagged(e, "range") {
                let r: Vec<i64> = r
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64().unwrap())
                    .collect();
                return match got {
                    PyObject::Range(a, b, c) if [*a, *b, *c] == r[..] => Ok(()),
                    _ => fail(),
                };
            }
            if let Some(s) = tagged(e, "slice") {
                return match got {
                    PyObject::Slice(g) => items(s, &g[..]),
                    _ => fail(),
                };
            }
            if let Some(g) = tagged(e, "global") {
                return match got {
                    PyObject::Global(x) => {
                        let (m, n) = x.path();
                        if format!("{m}.{n}") == g.as_str().unwrap() {
                            Ok(())
                        } else {
                            fail()
                        }
                    }
                    _ => fail(),
                };
            }
            if let Some(a) = tagged(e, "ndarray") {
                let PyObject::Array(g) = got else {
                    return fail();
                };
                return check_array(a, g);
            }
            if let Some(s) = tagged(e, "scalar") {
                let PyObject::Scalar(g) = got else {
                    return fail();
                };
                if g.dtype.to_string() != s["dtype"].as_str().unwrap() {
                    return Err(format!("scalar dtype {} expected {}", g.dtype, s["dtype"]));
                }
                return check_dyn(&s["value"], &g.value);
            }
            fail()
        }
    }
}

/// An element of a nested array (or a record field) as `tolist()` gives it.
fn check_dyn(e: &Json, got: &DynValue) -> Result<(), String> {
    let fail = || Err(format!("expected {e}, got {got:?}"));
    if let Some(o) = PyObject::of(got) {
        return check(e, o);
    }
    match got {
        DynValue::Bool(b) if e.as_bool() == Some(*b) => Ok(()),
        DynValue::Int(i) if tagged(e, "int").and_then(Json::as_str) == Some(&i.to_string()) => {
            Ok(())
        }
        DynValue::UInt(i) if tagged(e, "int").and_then(Json::as_str) == Some(&i.to_string()) => {
            Ok(())
        }
        DynValue::Datetime { ticks: Some(t), .. } | DynValue::Timedelta { ticks: Some(t), .. }
            if tagged(e, "int").and_then(Json::as_str) == Some(&t.to_string()) =>
        {
            Ok(())
        }
        DynValue::Float(x) => check(e, &PyObject::Float(*x)),
        DynValue::Complex(re, im) => check(e, &PyObject::Complex(*re, *im)),
        DynValue::Str(s) if e.as_str() == Some(&s.to_string_lossy()) => Ok(()),
        DynValue::Bytes(b) => check(e, &PyObject::Bytes(b.clone())),
        DynValue::Record(fields) => {
            let t = tagged(e, "tuple")
                .and_then(Json::as_array)
                .ok_or("not a tuple")?;
            if t.len() != fields.len() {
                return fail();
            }
            t.iter()
                .zip(fields)
                .try_for_each(|(e, (_, v))| check_dyn(e, v))
        }
        _ => fail(),
    }
}

fn check_array(e: &Json, got: &DynArray) -> Result<(), String> {
    if got.dtype().to_string() != e["descr"].as_str().unwrap() {
        return Err(format!("dtype {} expected {}", got.dtype(), e["descr"]));
    }
    let shape: Vec<u64> = e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    let fortran = got.order().is_fortran();
    if got.shape() != shape || fortran != e["fortran_order"].as_bool().unwrap() {
        return Err(format!(
            "shape {:?} / fortran {fortran}, expected {e}",
            got.shape()
        ));
    }
    let items = e["items"].as_array().unwrap();
    let values: Vec<DynValue> = got.iter_c_order().map(Cow::into_owned).collect();
    if items.len() != values.len() {
        return Err(format!("{} values, expected {}", values.len(), items.len()));
    }
    items
        .iter()
        .zip(values)
        .try_for_each(|(e, v)| check_dyn(e, &v))
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn every_fixture_reads_as_numpy_loads_it() {
    let fixtures = manifest();
    assert!(fixtures.len() >= 70, "{} fixtures", fixtures.len());
    let mut protocols = [0usize; 6];
    for f in &fixtures {
        let name = f["file"].as_str().unwrap();
        protocols[f["protocol"].as_u64().unwrap() as usize] += 1;
        let a = npy_pickle::read_dyn(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let whole = serde_json::json!({
            "descr": f["descr"], "shape": f["shape"], "fortran_order": f["fortran_order"],
            "items": f["items"],
        });
        check_array(&whole, &a).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(
        protocols[2] >= 20 && protocols[3] >= 20 && protocols[4] >= 20,
        "{protocols:?}"
    );
}

/// numpy scalars print in numpy 2's repr, which this crate gives in a simplified form for
/// arrays and datetimes; everything else must be Python's repr exactly.
fn repr_is_exact(v: &PyObject) -> bool {
    match v {
        PyObject::Array(_) => false,
        PyObject::Scalar(s) => !matches!(s.dtype, npy_core::DType::Time(..)),
        PyObject::List(v) | PyObject::Tuple(v) | PyObject::Set(v) | PyObject::FrozenSet(v) => {
            v.iter().all(repr_is_exact)
        }
        PyObject::Dict(d) => d.iter().all(|(k, v)| repr_is_exact(k) && repr_is_exact(v)),
        _ => true,
    }
}

#[test]
fn display_is_pythons_repr() {
    let mut checked = 0;
    for f in manifest() {
        let Some(reprs) = f.get("reprs").and_then(Json::as_array) else {
            continue;
        };
        let name = f["file"].as_str().unwrap();
        let a = npy_pickle::read_dyn(dir().join(name)).unwrap();
        for (r, v) in reprs.iter().zip(a.iter_c_order()) {
            let Some(o) = PyObject::of(&v) else {
                panic!("{name}: not an object: {v:?}")
            };
            if repr_is_exact(o) {
                assert_eq!(
                    npy_print::repr(o).to_string(),
                    r.as_str().unwrap(),
                    "{name}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "{checked} reprs checked");
}

#[test]
fn writing_gives_numpys_bytes() {
    let mut identical = 0;
    for f in manifest() {
        let name = f["file"].as_str().unwrap();
        let path = dir().join(name);
        let a = npy_pickle::read_dyn(&path).unwrap();
        let mut ours = Vec::new();
        let written = npy_core::dynamic::write_dyn_to_using(&mut ours, &a, &PickleCodec::default());
        if f["byte_identical"].as_bool().unwrap() {
            written.unwrap_or_else(|e| panic!("{name}: {e}"));
            let theirs = std::fs::read(&path).unwrap();
            if ours != theirs {
                let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
                panic!(
                    "{name}: {} bytes vs numpy's {}, first difference at {at:?}",
                    ours.len(),
                    theirs.len()
                );
            }
            identical += 1;
        } else if written.is_ok() && *a.dtype() == npy_core::DType::Object {
            // Not byte-identical, but it must read back to the same values.
            let back = npy_core::NpyReader::new(&ours[..])
                .unwrap()
                .read_dyn_using(&PickleCodec::default())
                .unwrap();
            // Debug, not ==: NaN elements must come back as NaN.
            assert_eq!(format!("{back:?}"), format!("{a:?}"), "{name}");
        }
    }
    assert!(identical >= 24, "{identical} byte-identical files");
}

#[test]
fn typed_reads_of_objects() {
    let strs = read_objects::<Option<String>>(dir().join("str_none_p3.npy")).unwrap();
    assert_eq!(
        strs.data(),
        [
            Some("x".into()),
            None,
            Some("yz".into()),
            None,
            Some("last one".into())
        ]
    );
    let ints = read_objects::<i64>(dir().join("ints_p2.npy")).unwrap();
    assert_eq!(ints.data()[..4], [0, 1, -1, 255]);
    let floats = read_objects::<f64>(dir().join("floats_p4.npy")).unwrap();
    assert_eq!(floats.data()[0], 1.5);
    assert!(floats.data()[1].is_nan());
    let f = read_objects::<PyObject>(dir().join("f_2x3_p4.npy")).unwrap();
    assert_eq!(f.order(), npy_core::MemoryOrder::Fortran);
    assert_eq!(f.get(&[0, 1]), Some(&PyObject::Str("a".into())));
    // A str where an int is asked for names the element.
    let path = dir().join("mixed_p4.npy");
    let e = read_objects::<i64>(&path).unwrap_err();
    assert_eq!(
        e.kind().to_string(),
        "object array: object element 1 is float, requested i64"
    );
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.classify(), npy_core::error::Category::Mismatch);
    // Not an object array.
    let e = read_objects::<f64>(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/f8_le_c_5.npy"),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), npy_core::ErrorKind::TypeMismatch { .. }),
        "{e}"
    );
}

#[test]
fn external_numpy_files() {
    // numpy's own test files: Python 2 (protocol 2, numpy.core paths, '|O8') and Python 3.
    let ext = npy_test_support::external_dir().join("numpy");
    // numpy's test_pickle_python2_python3 expects [None, range, '優良', b'\xe4\xb8\x8d\xe8\x89\xaf']
    // (with encoding='bytes' for the Python 2 files, whose str values are bytes).
    let want = [
        PyObject::None,
        PyObject::Global(npy_pickle::PyGlobal::Range),
        PyObject::Str("優良".into()),
        PyObject::Bytes(b"\xe4\xb8\x8d\xe8\x89\xaf".to_vec()),
    ];
    for f in ["py2-objarr.npy", "py2-np0-objarr.npy", "py3-objarr.npy"] {
        let a = read_objects::<PyObject>(ext.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(a.data(), want, "{f}");
    }
}

/// A review's find: `write_dyn` of a record array with an object field (numpy's
/// `fixtures/object/record_p4.npy`, which `read_dyn` reads) failed with the reading refusal's
/// words ("it is not read, because unpickling can execute code"); it is a write this crate
/// does not do, and says so.
#[test]
fn records_with_object_fields_are_an_unsupported_write() {
    let a = npy_pickle::read_dyn(npy_test_support::fixture("object/record_p4.npy")).unwrap();
    let err =
        npy_core::dynamic::write_dyn_to_using(Vec::new(), &a, &PickleCodec::default()).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            npy_core::ErrorKind::Unsupported { operation, .. } if *operation == "writing records with object fields"
        ),
        "{err}"
    );
}

/// An object member of an `.npz` archive (`fixtures/npz/object.npz`, `np.savez` of an object
/// array): refused by npy-core's `NpzArchive::read_dyn`, decoded by the member's reader given
/// the codec, with the shape numpy's manifest records.
#[test]
fn npz_object_members_decode_through_the_codec() {
    let path = npy_test_support::fixtures_dir().join("npz/object.npz");
    let manifest: Json = serde_json::from_str(
        &std::fs::read_to_string(npy_test_support::fixtures_dir().join("npz/manifest.json"))
            .unwrap(),
    )
    .unwrap();
    let entry = manifest["archives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == "object.npz")
        .expect("object.npz in the manifest");
    let shape: Vec<u64> = entry["members"]["obj"]["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    let npz = npy_npz::NpzArchive::open(&path).unwrap();
    let refused = npz.read_dyn("obj").unwrap_err();
    assert!(
        matches!(refused.kind(), npy_npz::ErrorKind::Npy(e)
            if matches!(e.kind(), npy_core::ErrorKind::ObjectArray { .. })),
        "{refused}"
    );
    let a = npz
        .npy_reader("obj")
        .unwrap()
        .read_dyn_using(&PickleCodec::default())
        .unwrap();
    assert_eq!(*a.dtype(), npy_core::DType::Object);
    assert_eq!(a.shape(), shape);
}

/// numpy's own object-array archive (`fixtures/external/numpy/py3-objarr.npz`, from numpy's
/// test data): every member decodes through the codec, into object values.
#[test]
fn numpys_object_archive_decodes() {
    let path = npy_test_support::external_dir().join("numpy/py3-objarr.npz");
    let npz = npy_npz::NpzArchive::open(&path).unwrap();
    let keys: Vec<String> = npz.keys().map(str::to_owned).collect();
    assert!(!keys.is_empty());
    for key in keys {
        let a = npz
            .npy_reader(&key)
            .unwrap()
            .read_dyn_using(&PickleCodec::default())
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        assert!(a.dtype().has_object(), "{key}");
        assert!(a.iter().all(|v| PyObject::of(&v).is_some()), "{key}");
    }
}

/// Every kind of dtype numpy pickles (`pickle.dumps(np.dtype(x))`, protocols 2 and 4, both
/// byte orders, datetime units and multipliers, flexible sizes, records and subarrays) decodes
/// to the dtype whose `dtype.str` (or `descr`) numpy prints for it.
#[test]
fn pickled_dtypes_decode_to_numpys_dtype() {
    let Some(python) = npy_test_support::python::python_for("numpy's pickles of dtypes") else {
        return;
    };
    let script = r"
import pickle, sys, numpy as np
kinds = ['?', 'i1', 'u1', '<i2', '>i2', '<i4', '>u4', '<i8', '>u8', '<f2', '>f4', '<f8', '>f8',
         '<c8', '>c16', '<f16', '<c32', 'S0', 'S7', 'V3', '<U0', '<U5', '>U9', 'O',
         '<M8', '<M8[D]', '>M8[10ms]', '<m8[us]', '>m8[3h]', '<M8[ns]', '<m8[Y]', '<M8[25as]',
         '|b1', '=i8', '=U2', [('a', '<i4'), ('b', '>f8')], ('<i2', (2, 3)),
         {'names': ['x'], 'formats': ['<u2'], 'offsets': [4], 'itemsize': 8}]
for k in kinds:
    d = np.dtype(k)
    if d.subdtype is not None:
        want = repr((d.subdtype[0].str, d.subdtype[1]))
    elif d.fields is not None:
        want = repr(d.descr)
    else:
        want = d.str
    for proto in (2, 4):
        sys.stdout.write(pickle.dumps(d, protocol=proto).hex() + ' ' + want + '\n')
";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let (hex, want) = line.split_once(' ').unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let got = match npy_pickle::loads(&bytes) {
            Ok(PyObject::DType(d)) => match *d {
                npy_pickle::PyDType::Numpy(dt) => dt,
                other => panic!("{want}: {other:?}"),
            },
            other => panic!("{want}: {other:?}"),
        };
        // numpy's descr of a record or subarray, or its dtype.str, parsed by npy-core's
        // descr parser (held to np.dtype by fixtures/parity/descr.json).
        let expected: npy_core::DType = want.parse().unwrap_or_else(|e| panic!("{want}: {e}"));
        assert_eq!(got, expected, "{want}");
        n += 1;
    }
    assert_eq!(n, 76);
}

/// Where a refused pickle came from (issue 40): [`npy_pickle::PickleError`] is about bytes and
/// names no file; the error `read_dyn` returns carries it and names the file. The file is
/// numpy's (`np.save` of an object array holding a `fractions.Fraction`, whose pickle calls
/// `fractions.Fraction`, a global outside the allow-list).
#[test]
fn a_refused_pickle_names_its_file() {
    let Some(python) = npy_test_support::python::python_for("a refused pickle's file") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fraction.npy");
    npy_test_support::python::run_script(
        &python,
        "import sys, fractions, numpy as np\n\
         np.save(sys.argv[1], np.array([fractions.Fraction(1, 3)], dtype=object), \
         allow_pickle=True)",
        [&path],
    );
    let err = npy_pickle::read_dyn(&path).unwrap_err();
    assert_eq!(err.path(), Some(path.as_path()));
    match npy_pickle::PickleError::of(&err) {
        Some(npy_pickle::PickleError::Global { module, name }) => {
            assert_eq!((module.as_str(), name.as_str()), ("fractions", "Fraction"));
        }
        other => panic!("{other:?}: {err}"),
    }
}
