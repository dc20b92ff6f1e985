//! `npy convert` to and from Arrow IPC, Parquet and `.npz`, by extension: numpy's fixtures go
//! through Parquet and Arrow and come back as numpy's bytes; an `.npz` member is picked with
//! `--member`; errors name the file and exit 1.

use std::ffi::OsStr;
#[cfg(feature = "parquet")]
use std::path::Path;

use crate::common::{npy, stderr};

#[cfg(feature = "parquet")]
fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(name)
}

#[cfg(feature = "parquet")]
#[test]
fn fixtures_round_trip_through_parquet_and_arrow_to_numpys_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Native-order C-order numbers and times come back byte for byte (the format's rule for
    // these types: the dtype and shape are kept, NaT survives as null).
    for name in [
        "f8_le_c_2x3x4.npy",
        "i2_le_c_5.npy",
        "M8ns_le_c_5.npy",
        "b1_na_c_2x3x4.npy",
    ] {
        for ext in ["parquet", "arrow"] {
            let mid = dir.path().join(format!("mid.{ext}"));
            let back = dir.path().join("back.npy");
            let o = npy([
                OsStr::new("convert"),
                fixture(name).as_os_str(),
                mid.as_os_str(),
            ]);
            assert!(o.status.success(), "{name} → {ext}: {}", stderr(&o));
            let o = npy([OsStr::new("convert"), mid.as_os_str(), back.as_os_str()]);
            assert!(o.status.success(), "{ext} → npy: {}", stderr(&o));
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(fixture(name)).unwrap(),
                "{name} through {ext}"
            );
        }
    }
}

#[test]
fn an_npz_member_is_chosen_with_member() {
    let dir = tempfile::tempdir().unwrap();
    let npz = dir.path().join("two.npz");
    let mut w = npy_npz::NpzWriter::create(&npz).unwrap();
    w.add("a", &[1i32, 2], &[2]).unwrap();
    w.add("b", &[3i64], &[1]).unwrap();
    w.finish().unwrap();
    let out = dir.path().join("b.npy");
    let o = npy([OsStr::new("convert"), npz.as_os_str(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("two.npz") && err.contains("a, b"), "{err}");
    let o = npy([
        OsStr::new("convert"),
        OsStr::new("--member"),
        OsStr::new("b"),
        npz.as_os_str(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(npy_core::read::<i64>(&out).unwrap().into_vec(), [3]);
}

#[cfg(feature = "parquet")]
#[test]
fn layout_flags_are_refused_for_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let o = npy([
        OsStr::new("convert"),
        OsStr::new("--order"),
        OsStr::new("F"),
        fixture("f8_le_c_2x3x4.npy").as_os_str(),
        dir.path().join("x.parquet").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(".npy → .npy only"));
}

/// The second review of issue 23 (`f_convert_objrec_npz.sh`): `.npy` ↔ `.npz` of a dtype
/// holding objects copied `nbytes` of data (8 per object) instead of its pickle: a record
/// with an object field wrote a member of its header alone, exit 0, that numpy could not
/// load; a plain object array was refused as truncated. numpy writes the inputs; numpy loads
/// each output (`allow_pickle=True`) and compares it with the input.
#[test]
fn arrays_holding_objects_convert_between_npy_and_npz() {
    let Some(python) = npy_test_support::python::python_for("object arrays written by numpy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    npy_test_support::python::run_script(
        &python,
        "import numpy as np, sys, os\n\
         os.chdir(sys.argv[1])\n\
         r = np.zeros(2, dtype=[('o', 'O'), ('i', '<i4')]); r[0] = ('abc', 1); r[1] = ({'k': [1, 2]}, 2)\n\
         np.save('rec.npy', r)\n\
         s = np.zeros((2, 2), dtype=[('o', 'O', (2,)), ('f', '<f8')]); s[0, 1] = (['x', None], 1.5)\n\
         np.save('rec2.npy', s)\n\
         a = np.empty(3, dtype=object); a[:] = ['x', 1, None]; np.save('obj.npy', a)\n\
         np.savez('objz.npz', a=a, r=r)\n",
        [d],
    );
    let cases: [(&[&str], &str, &str); 5] = [
        (&["rec.npy"], "o1.npz", "rec.npy"),
        (&["rec2.npy"], "o2.npz", "rec2.npy"),
        (&["obj.npy"], "o3.npz", "obj.npy"),
        (&["--member", "r", "objz.npz"], "o4.npz", "rec.npy"),
        (&["--member", "a", "objz.npz"], "o5.npy", "obj.npy"),
    ];
    for (args, out, _) in &cases {
        let mut argv = vec![OsStr::new("convert").to_owned()];
        for a in *args {
            argv.push(if a.ends_with(".npy") || a.ends_with(".npz") {
                d.join(a).into_os_string()
            } else {
                (*a).into()
            });
        }
        argv.push(d.join(out).into_os_string());
        let o = npy(&argv);
        assert!(o.status.success(), "{args:?} → {out}: {}", stderr(&o));
    }
    let script = "import numpy as np, sys\n\
        d = sys.argv[1]\n\
        for out, orig in zip(sys.argv[2::2], sys.argv[3::2]):\n\
        \x20   got = np.load(f'{d}/{out}', allow_pickle=True)\n\
        \x20   got = got[got.files[0]] if hasattr(got, 'files') else got\n\
        \x20   want = np.load(f'{d}/{orig}', allow_pickle=True)\n\
        \x20   same = got.dtype == want.dtype and got.shape == want.shape and repr(got) == repr(want)\n\
        \x20   print(out, same)\n";
    let mut argv: Vec<std::ffi::OsString> = vec![d.as_os_str().to_owned()];
    for (_, out, orig) in &cases {
        argv.push((*out).into());
        argv.push((*orig).into());
    }
    let got = npy_test_support::python::run_script(&python, script, &argv);
    assert_eq!(
        got,
        "o1.npz True\no2.npz True\no3.npz True\no4.npz True\no5.npy True\n"
    );
    // The second review (N7): the pickle is copied as it is, not decoded and pickled again
    // (which dropped what it shares: 1.3 KB in, 126 MB out, at 250 MiB of memory). Each
    // member is byte for byte the file numpy wrote.
    let same = npy_test_support::python::run_script(
        &python,
        "import sys, zipfile\n\
         d = sys.argv[1]\n\
         for out, orig in (('o1.npz', 'rec.npy'), ('o3.npz', 'obj.npy')):\n\
         \x20   z = zipfile.ZipFile(f'{d}/{out}')\n\
         \x20   print(z.read(z.namelist()[0]) == open(f'{d}/{orig}', 'rb').read())\n",
        [d],
    );
    assert_eq!(same, "True\nTrue\n");
    // The second tester's N13: a pickle numpy cannot load (cut short) is refused, not copied.
    let rec = std::fs::read(d.join("rec.npy")).unwrap();
    std::fs::write(d.join("cut.npy"), &rec[..rec.len() - 10]).unwrap();
    let numpy_says = npy_test_support::python::run_script(
        &python,
        "import sys, numpy as np\n\
         try:\n\
         \x20   np.load(sys.argv[1], allow_pickle=True); print('loads')\n\
         except Exception as e: print('refused')\n",
        [d.join("cut.npy")],
    );
    assert_eq!(numpy_says, "refused\n");
    let out = d.join("cut.npz");
    let o = npy([
        OsStr::new("convert"),
        d.join("cut.npy").as_os_str(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!out.exists());
}

/// r12 (issue 42, F12): `--fill` above 2^53 is written exactly into 64-bit integer columns
/// (numpy's values), one a column cannot hold names the flag, and text that is no number is
/// refused by the flag's parser.
#[cfg(feature = "parquet")]
#[test]
fn fill_is_exact_for_64_bit_integer_columns() {
    let Some(python) = npy_test_support::python::python_for("Parquet written by pyarrow") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    npy_test_support::python::run_script(
        &python,
        r"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
pq.write_table(pa.table({'x': pa.array([1, None, 3], pa.int64())}), f'{d}/i.parquet')
pq.write_table(pa.table({'x': pa.array([1, None], pa.uint64())}), f'{d}/u.parquet')
",
        [dir.path()],
    );
    for (name, fill, want) in [
        ("i", "9007199254740993", "[1, 9007199254740993, 3]"),
        ("u", "18446744073709551615", "[1, 18446744073709551615]"),
    ] {
        let input = dir.path().join(format!("{name}.parquet"));
        let out = dir.path().join(format!("{name}.npy"));
        let o = npy([
            OsStr::new("convert"),
            OsStr::new("--fill"),
            OsStr::new(fill),
            input.as_os_str(),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let got = npy_test_support::python::run_script(
            &python,
            "import sys, numpy as np; print(np.load(sys.argv[1]).tolist())",
            [&out],
        );
        assert_eq!(got.trim(), want, "{name}");
    }
    let input = dir.path().join("u.parquet");
    let out = dir.path().join("refused.npy");
    // A float above 2^53 is not the integer it was written as (9007199254740993.0 parses to
    // ...992): refused for an integer column, as numpy's int64('9007199254740993.0') is.
    for (fill, says) in [
        ("-1", "`--fill`"),
        ("abc", "--fill"),
        ("9007199254740993.0", "`--fill`"),
    ] {
        let o = npy([
            OsStr::new("convert"),
            OsStr::new("--fill"),
            OsStr::new(fill),
            input.as_os_str(),
            out.as_os_str(),
        ]);
        assert!(!o.status.success(), "{fill}");
        assert!(stderr(&o).contains(says), "{fill}: {}", stderr(&o));
        assert!(!out.exists());
    }
}
