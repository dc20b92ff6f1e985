//! `npy show` run as a program: `--json` on every fixture with data in `fixtures/manifest.json`
//! (whose values numpy 2.4.6 wrote with the files), and the text form against numpy's own
//! `str(arr)` output pasted below.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fixture, manifest, npy, same, stdout, ROOT};
use serde_json::Value;

/// The text `npy show` prints, without the final newline; the run must succeed.
fn show_text(path: &Path) -> String {
    let o = npy([Path::new("show"), path]);
    assert!(o.status.success(), "{}: {o:?}", path.display());
    let s = stdout(&o);
    s.strip_suffix('\n').unwrap_or(&s).to_owned()
}

#[test]
fn json_of_every_fixture_matches_the_manifest() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in manifest() {
        let Some(want) = entry.get("data") else {
            continue;
        };
        let file = entry["file"].as_str().expect("file");
        let o = npy([Path::new("show"), Path::new("--json"), &fixture(file)]);
        if !o.status.success() {
            failures.push(format!("{file}: {}", String::from_utf8_lossy(&o.stderr)));
            continue;
        }
        let out = stdout(&o);
        assert_eq!(out.matches('\n').count(), 1, "{file}: one line");
        let got: Value = serde_json::from_str(&out).expect("stdout is JSON");
        let descr = entry["descr"].as_str().expect("descr");
        let descr = descr
            .strip_prefix('\'')
            .and_then(|d| d.strip_suffix('\''))
            .unwrap_or(descr);
        assert_eq!(got["descr"], descr, "{file}: descr");
        assert_eq!(got["shape"], entry["shape"], "{file}: shape");
        assert_eq!(got["fortran_order"], entry["fortran_order"], "{file}");
        if let Err(e) = same(&got["data"], want, file) {
            failures.push(e);
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 200, "only {checked} fixtures had data");
}

#[test]
fn json_objects_keep_key_and_field_order() {
    let out = stdout(&npy(["show", "--json", "fixtures/rec_quote.npy"]));
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} in {out}"));
    assert!(at("\"descr\"") < at("\"shape\""));
    assert!(at("\"shape\"") < at("\"fortran_order\""));
    assert!(at("\"fortran_order\"") < at("\"data\""));
    // Field order is dtype order ("it's" before "b\"q"), not sorted.
    assert!(at("\"it's\"") < at(r#""b\"q""#));
    let out = stdout(&npy(["show", "--json", "fixtures/rec_wide.npy"]));
    let keys: Vec<usize> = ["\"f0000\"", "\"f0001\"", "\"f0010\"", "\"f3999\""]
        .iter()
        .map(|k| out.find(k).expect("key"))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
}

#[test]
fn json_edge_shapes() {
    let get = |file: &str| -> Value {
        serde_json::from_str(&stdout(&npy(["show", "--json", file]))).expect("JSON")
    };
    let v = get("fixtures/f8_le_c_scalar.npy");
    assert_eq!(v["shape"], serde_json::json!([]));
    assert_eq!(v["data"], "inf");
    let v = get("fixtures/f8_le_c_3x0.npy");
    assert_eq!(v["data"], serde_json::json!([[], [], []]));
    let v = get("fixtures/rec_scalar.npy");
    assert!(v["data"].is_object());
}

#[test]
fn lone_surrogate_is_the_replacement_char_in_json() {
    let path = npy_test_support::external_dir().join("npyz/unicode/surrogate.npy");
    let o = npy([Path::new("show"), Path::new("--json"), &path]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["data"], serde_json::json!(["\u{FFFD}"]));
    // The text form shows the code point as Python does.
    assert_eq!(show_text(&path), r"['\ud805']");
}

/// Every object-array fixture shows, as text and as JSON; what each prints is compared with
/// numpy's `str()` and `tolist()` by `cargo xtask interop` (`xtask/show_numpy.py`).
#[test]
fn object_arrays_show() {
    let dir = Path::new(ROOT).join("fixtures/object");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/object") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "npy") {
            continue;
        }
        for json in [false, true] {
            let mut args = vec![PathBuf::from("show")];
            if json {
                args.push("--json".into());
            }
            args.push(path.clone());
            let o = npy(&args);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        count += 1;
    }
    assert!(count >= 81, "fixtures/object holds {count} files");
}

/// A pickle that names `os.system` is refused at that opcode: exit 1, nothing printed,
/// nothing run (the command would have created the marker file).
#[test]
fn hostile_object_arrays_are_refused_without_running_anything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("marker");
    // np.save's header for a (1,) object array, then protocol 2: GLOBAL 'os system',
    // MARK, SHORT_BINSTRING the command, TUPLE, REDUCE, STOP.
    let command = format!("touch {}", marker.display());
    let mut pickle = b"\x80\x02cos\nsystem\n(U".to_vec();
    pickle.push(u8::try_from(command.len()).expect("short path"));
    pickle.extend_from_slice(command.as_bytes());
    pickle.extend_from_slice(b"tR.");
    let dict = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }";
    let mut header = format!("{dict:<117}\n").into_bytes();
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&u16::try_from(header.len()).expect("short").to_le_bytes());
    file.append(&mut header);
    assert_eq!(file.len() % 64, 0);
    file.extend_from_slice(&pickle);
    let path = dir.path().join("hostile.npy");
    std::fs::write(&path, &file).expect("write");
    for json in [false, true] {
        let mut args = vec![PathBuf::from("show")];
        if json {
            args.push("--json".into());
        }
        args.push(path.clone());
        let o = npy(&args);
        assert_eq!(o.status.code(), Some(1));
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("os.system") && err.contains("nothing was executed"),
            "{err}"
        );
    }
    assert!(!marker.exists(), "the pickle's command ran");
}

#[test]
fn missing_and_truncated_files_fail() {
    let o = npy(["show", "fixtures/no-such-file.npy"]);
    assert_eq!(o.status.code(), Some(1));
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(fixture("i4_le_c_2x3x4.npy")).expect("fixture");
    let short = dir.path().join("short.npy");
    std::fs::write(&short, &bytes[..bytes.len() - 1]).expect("write");
    let o = npy([Path::new("show"), &short]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ends inside the array data"));
}

#[test]
fn text_matches_numpy_str() {
    for (file, want) in [
        // 256 elements: under numpy's threshold of 1000, so printed whole, wrapped at 75.
        ("w_f32.npy", NUMPY_W_F32),
        ("i4_le_c_2x3x4.npy", NUMPY_I4),
        ("i4_le_f_2x3x4.npy", NUMPY_I4_FORTRAN),
        ("b1_na_c_2x3x4.npy", NUMPY_B1),
        ("u8_le_c_5.npy", NUMPY_U8),
        ("rec_packed.npy", NUMPY_REC_PACKED),
        ("rec_strings.npy", NUMPY_REC_STRINGS),
        ("M8D_le_c_5.npy", NUMPY_M8D),
        ("i2_le_c_scalar.npy", NUMPY_I2_SCALAR),
        ("f8_le_c_scalar.npy", NUMPY_F8_SCALAR),
        ("rec_scalar.npy", NUMPY_REC_SCALAR),
        ("f8_le_c_3x0.npy", NUMPY_F8_3X0),
    ] {
        assert_eq!(show_text(&fixture(file)), want, "{file}");
    }
}

#[test]
fn large_arrays_are_summarised_unless_full() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p2 = dir.path().join("a2.npy");
    let v: Vec<i64> = (0..2000).collect();
    npy_core::write(&p2, &v, &[40, 50]).expect("write");
    assert_eq!(show_text(&p2), NUMPY_SUMMARY_2D);
    let p3 = dir.path().join("a3.npy");
    let v: Vec<i16> = (0..8000).collect();
    npy_core::write(&p3, &v, &[20, 20, 20]).expect("write");
    assert_eq!(show_text(&p3), NUMPY_SUMMARY_3D);

    let o = npy([Path::new("show"), Path::new("--full"), &p2]);
    let full = stdout(&o);
    assert!(!full.contains("..."));
    assert_eq!(
        full.lines().count(),
        40 * 4,
        "50 numbers of width 4 wrap to 4 lines"
    );
    assert!(full.contains(" 1234 "));
}

/// A `.npy` file of `descr` and `shape` holding `data` (raw little-endian bytes).
fn raw_file(dir: &Path, name: &str, descr: &str, shape: &[u64], data: &[u8]) -> PathBuf {
    let header = npy_core::Header::new(descr.parse().expect("descr"), shape.to_vec());
    let mut bytes = header.to_bytes(None).expect("header");
    bytes.extend_from_slice(data);
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

fn le<T: Copy, const N: usize>(xs: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    xs.iter().flat_map(|&x| to(x)).collect()
}

/// N21 (../shared/cases/turn2): numpy switches to scientific notation at
/// 10**min(8, finfo(dtype).precision) for arrays and at the scalar types' own cutoffs for 0-d
/// arrays. Expected strings are numpy 2.4.6's `str(np.load(f))` of the report's files.
#[test]
fn n21_scientific_cutoff_depends_on_the_dtype() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let f16 = |x: f32| npy_core::half::f16::from_f32(x).to_le_bytes();
    let cases = [
        (
            raw_file(
                d,
                "f2_small.npy",
                "<f2",
                &[4],
                &le(&[1776.0, 913.0, -974.0, -102.0], f16),
            ),
            "[ 1.776e+03  9.130e+02 -9.740e+02 -1.020e+02]",
        ),
        (
            raw_file(d, "f2_0d.npy", "<f2", &[], &le(&[65504.0], f16)),
            "6.55e+04",
        ),
        (
            raw_file(
                d,
                "f4_0d.npy",
                "<f4",
                &[],
                &le(&[536870912f32], f32::to_le_bytes),
            ),
            "5.368709e+08",
        ),
        (
            raw_file(
                d,
                "f4_1d.npy",
                "<f4",
                &[2],
                &le(&[2e6f32, 3e6], f32::to_le_bytes),
            ),
            "[2.e+06 3.e+06]",
        ),
        (
            raw_file(
                d,
                "c8_0d.npy",
                "<c8",
                &[],
                &le(&[4.3365286e11f32, 0.92481047], f32::to_le_bytes),
            ),
            "(4.3365286e+11+0.92481047j)",
        ),
    ];
    for (path, want) in cases {
        assert_eq!(show_text(&path), want, "{}", path.display());
    }
}

/// N22: numpy reads any non-zero bool byte as True (np.save of a 0/255 mask viewed as bool
/// writes 0xff); `npy show` refused such files. numpy 2.4.6's `str()` and `tolist()`.
#[test]
fn n22_any_nonzero_bool_byte_is_true() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = raw_file(dir.path(), "7f.npy", "|b1", &[4], &[1, 0x7f, 0, 1]);
    assert_eq!(show_text(&p), "[ True  True False  True]");
    let p = raw_file(
        dir.path(),
        "mask255.npy",
        "|b1",
        &[2, 2],
        &[0, 0xff, 0xff, 0],
    );
    assert_eq!(show_text(&p), "[[False  True]\n [ True False]]");
    let o = npy([Path::new("show"), Path::new("--json"), &p]);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["data"], serde_json::json!([[false, true], [true, false]]));
}

#[test]
fn help_documents_the_json_encoding() {
    let help = stdout(&npy(["show", "--help"]));
    for needle in [
        "\"nan\"",
        "NaT is null",
        "latin-1",
        "U+FFFD",
        "lowercase hex",
        "field order",
    ] {
        assert!(help.contains(needle), "{needle} in {help}");
    }
    // It shows archives too, as its FILE argument says (it once said `.npy` only).
    let short = stdout(&npy(["show", "-h"]));
    let file_line = short
        .lines()
        .find(|l| l.trim_start().starts_with("<FILE>"))
        .unwrap_or_else(|| panic!("no <FILE> line in {short}"));
    assert!(file_line.contains(".npz"), "{file_line}");
}

// Generated by numpy 2.4.6 (target/xtask-venv/bin/python): `str(np.load(FILE))` for the
// fixtures, and `str(np.arange(2000, dtype='<i8').reshape(40, 50))` /
// `str(np.arange(8000, dtype='<i2').reshape(20, 20, 20))` for the summarised arrays.
const NUMPY_W_F32: &str = r"[[ 0.     0.125  0.25   0.375  0.5    0.625  0.75   0.875  1.     1.125
   1.25   1.375  1.5    1.625  1.75   1.875  2.     2.125  2.25   2.375
   2.5    2.625  2.75   2.875  3.     3.125  3.25   3.375  3.5    3.625
   3.75   3.875  4.     4.125  4.25   4.375  4.5    4.625  4.75   4.875
   5.     5.125  5.25   5.375  5.5    5.625  5.75   5.875  6.     6.125
   6.25   6.375  6.5    6.625  6.75   6.875  7.     7.125  7.25   7.375
   7.5    7.625  7.75   7.875]
 [ 8.     8.125  8.25   8.375  8.5    8.625  8.75   8.875  9.     9.125
   9.25   9.375  9.5    9.625  9.75   9.875 10.    10.125 10.25  10.375
  10.5   10.625 10.75  10.875 11.    11.125 11.25  11.375 11.5   11.625
  11.75  11.875 12.    12.125 12.25  12.375 12.5   12.625 12.75  12.875
  13.    13.125 13.25  13.375 13.5   13.625 13.75  13.875 14.    14.125
  14.25  14.375 14.5   14.625 14.75  14.875 15.    15.125 15.25  15.375
  15.5   15.625 15.75  15.875]
 [16.    16.125 16.25  16.375 16.5   16.625 16.75  16.875 17.    17.125
  17.25  17.375 17.5   17.625 17.75  17.875 18.    18.125 18.25  18.375
  18.5   18.625 18.75  18.875 19.    19.125 19.25  19.375 19.5   19.625
  19.75  19.875 20.    20.125 20.25  20.375 20.5   20.625 20.75  20.875
  21.    21.125 21.25  21.375 21.5   21.625 21.75  21.875 22.    22.125
  22.25  22.375 22.5   22.625 22.75  22.875 23.    23.125 23.25  23.375
  23.5   23.625 23.75  23.875]
 [24.    24.125 24.25  24.375 24.5   24.625 24.75  24.875 25.    25.125
  25.25  25.375 25.5   25.625 25.75  25.875 26.    26.125 26.25  26.375
  26.5   26.625 26.75  26.875 27.    27.125 27.25  27.375 27.5   27.625
  27.75  27.875 28.    28.125 28.25  28.375 28.5   28.625 28.75  28.875
  29.    29.125 29.25  29.375 29.5   29.625 29.75  29.875 30.    30.125
  30.25  30.375 30.5   30.625 30.75  30.875 31.    31.125 31.25  31.375
  31.5   31.625 31.75  31.875]]";

const NUMPY_I4: &str = r"[[[-2147483648  2147483647           0          -1]
  [          1 -2147483647  2147483646           2]
  [         -2          11          14          17]]

 [[         20          23          26  2135587861]
  [  -23791574  2111796287   -47583148  2088004713]
  [  -71374722  2064213139   -95166296  2040421565]]]";

const NUMPY_I4_FORTRAN: &str = r"[[[-2147483648  2147483647           0          -1]
  [          1 -2147483647  2147483646           2]
  [         -2          11          14          17]]

 [[         20          23          26  2135587861]
  [  -23791574  2111796287   -47583148  2088004713]
  [  -71374722  2064213139   -95166296  2040421565]]]";

const NUMPY_B1: &str = r"[[[ True False False False]
  [ True False False False]
  [ True  True False False]]

 [[False  True False False]
  [False  True  True False]
  [False False  True False]]]";

const NUMPY_U8: &str = r"[                   0 18446744073709551615                    1
 18446744073709551614                    2]";

const NUMPY_REC_PACKED: &str =
    r"[(nan,  0.33333334, 17) (-0., -1.25      , 20) (inf,  0.        , 23)]";

const NUMPY_REC_STRINGS: &str = r"[(b'a\x00b', 'Ωμέ', False, '1970-01-15T06:56:00', -0.0625   +4.e-45j)
 (b'', 'x', False, '1969-12-03T10:07:53',  1.0000001+1.e+02j)
 (b'\xe9t\xe9', 'tab',  True, '1970-02-12T20:48:14',  3.       +3.e+00j)]";

const NUMPY_M8D: &str = r"['1970-01-01'        'NaT' '1969-12-31' '2023-12-09' '0001-01-01']";

const NUMPY_SUMMARY_2D: &str = r"[[   0    1    2 ...   47   48   49]
 [  50   51   52 ...   97   98   99]
 [ 100  101  102 ...  147  148  149]
 ...
 [1850 1851 1852 ... 1897 1898 1899]
 [1900 1901 1902 ... 1947 1948 1949]
 [1950 1951 1952 ... 1997 1998 1999]]";

const NUMPY_SUMMARY_3D: &str = r"[[[   0    1    2 ...   17   18   19]
  [  20   21   22 ...   37   38   39]
  [  40   41   42 ...   57   58   59]
  ...
  [ 340  341  342 ...  357  358  359]
  [ 360  361  362 ...  377  378  379]
  [ 380  381  382 ...  397  398  399]]

 [[ 400  401  402 ...  417  418  419]
  [ 420  421  422 ...  437  438  439]
  [ 440  441  442 ...  457  458  459]
  ...
  [ 740  741  742 ...  757  758  759]
  [ 760  761  762 ...  777  778  779]
  [ 780  781  782 ...  797  798  799]]

 [[ 800  801  802 ...  817  818  819]
  [ 820  821  822 ...  837  838  839]
  [ 840  841  842 ...  857  858  859]
  ...
  [1140 1141 1142 ... 1157 1158 1159]
  [1160 1161 1162 ... 1177 1178 1179]
  [1180 1181 1182 ... 1197 1198 1199]]

 ...

 [[6800 6801 6802 ... 6817 6818 6819]
  [6820 6821 6822 ... 6837 6838 6839]
  [6840 6841 6842 ... 6857 6858 6859]
  ...
  [7140 7141 7142 ... 7157 7158 7159]
  [7160 7161 7162 ... 7177 7178 7179]
  [7180 7181 7182 ... 7197 7198 7199]]

 [[7200 7201 7202 ... 7217 7218 7219]
  [7220 7221 7222 ... 7237 7238 7239]
  [7240 7241 7242 ... 7257 7258 7259]
  ...
  [7540 7541 7542 ... 7557 7558 7559]
  [7560 7561 7562 ... 7577 7578 7579]
  [7580 7581 7582 ... 7597 7598 7599]]

 [[7600 7601 7602 ... 7617 7618 7619]
  [7620 7621 7622 ... 7637 7638 7639]
  [7640 7641 7642 ... 7657 7658 7659]
  ...
  [7940 7941 7942 ... 7957 7958 7959]
  [7960 7961 7962 ... 7977 7978 7979]
  [7980 7981 7982 ... 7997 7998 7999]]]";

const NUMPY_I2_SCALAR: &str = r"-1";

const NUMPY_F8_SCALAR: &str = r"inf";

const NUMPY_REC_SCALAR: &str = r"(nan, 0.33333334, 17)";

const NUMPY_F8_3X0: &str = r"[]";

// Inputs a review found: many dimensions crashed `npy show` by recursion; an empty array with
// a huge first dimension was refused where numpy prints `[]`.

fn npy_file(shape: &str) -> tempfile::NamedTempFile {
    let text = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    let version: &[u8] = if text.len() + 11 > 65535 {
        b"\x02\x00"
    } else {
        b"\x01\x00"
    };
    let prefix = if version[0] == 1 { 10 } else { 12 };
    // Pad so the data starts at a multiple of 64, as numpy does.
    let total = prefix + text.len() + 1;
    let hlen = text.len() + 1 + (64 - total % 64) % 64;
    let mut bytes = b"\x93NUMPY".to_vec();
    bytes.extend_from_slice(version);
    if version[0] == 1 {
        bytes.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        bytes.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    bytes.extend_from_slice(text.as_bytes());
    bytes.resize(prefix + hlen - 1, b' ');
    bytes.push(b'\n');
    bytes.extend_from_slice(&[0u8; 8]);
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), bytes).unwrap();
    f
}

#[test]
fn thirty_thousand_dimensions_are_an_error_not_a_crash() {
    let f = npy_file(&format!("({})", "1, ".repeat(30_000)));
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .arg("show")
        .arg(f.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("64 dimensions"));
}

#[test]
fn an_empty_array_prints_as_numpy_prints_it() {
    // numpy 2.4.6: print(np.zeros((10**10, 0))) prints "[]".
    let f = npy_file("(10000000000, 0)");
    let out = Command::new(env!("CARGO_BIN_EXE_npy"))
        .arg("show")
        .arg(f.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[]\n");
}

/// Runs `npy show ARGS` on a file holding `bytes`; (exit code, stdout, stderr).
fn show_bytes(dir: &Path, name: &str, bytes: &[u8], json: bool) -> (i32, String, String) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    let mut args = vec![PathBuf::from("show")];
    if json {
        args.push("--json".into());
    }
    args.push(path);
    let o = npy(&args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code().unwrap_or(-1), stdout(&o), err)
}

/// Issue 23, r01: an empty array of shape (2^62, 0) in a set or as a dict key (inside a
/// slice) is unhashable, refused at once; as a plain element `npy show` prints numpy's
/// `str()` of the object array (checked against numpy when the project's Python is there)
/// and `--json` refuses the 2^62 empty lists it would print.
#[test]
fn r01_huge_empty_nested_arrays() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, item) in crate::hostile::r01_items() {
        let file = crate::hostile::npy(&crate::hostile::object_array(&item));
        let (code, out, err) = show_bytes(dir.path(), &format!("{name}.npy"), &file, false);
        let (jcode, jout, jerr) = show_bytes(dir.path(), &format!("{name}.npy"), &file, true);
        if name == "plain_element" {
            assert_eq!(code, 0, "{err}");
            let want = "[array([], shape=(4611686018427387904, 0), dtype=uint8)]\n";
            assert_eq!(out, want);
            assert_eq!(jcode, 1);
            assert!(jerr.contains("empty lists"), "{jerr}");
            assert!(jout.len() < 100, "{jout}");
            if let Some(python) = npy_test_support::python::python_for("numpy's str() of r01") {
                let path = dir.path().join(format!("{name}.npy"));
                let o = Command::new(python)
                    .args([
                        "-c",
                        "import sys, numpy as np; print(np.load(sys.argv[1], allow_pickle=True))",
                    ])
                    .arg(&path)
                    .output()
                    .expect("python");
                assert_eq!(String::from_utf8_lossy(&o.stdout), want);
            }
        } else {
            for (c, o, e) in [(code, &out, &err), (jcode, &jout, &jerr)] {
                assert_eq!(c, 1, "{name}");
                assert!(o.is_empty(), "{name}: {o}");
                assert!(e.contains("unhashable type"), "{name}: {e}");
            }
        }
    }
}

/// Issue 23, r03 and r04: the constant pickle budget and the argument check at REDUCE, as
/// `npy show` reports them, whether the pickle is stored or deflated into a few KB.
#[test]
fn r03_r04_pickle_budget_and_arguments_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "tuples",
            crate::hostile::npy(&crate::hostile::r03_tuples()),
            "needs more than 134217728 bytes",
        ),
        (
            "str",
            crate::hostile::npy(&crate::hostile::r03_shared_str()),
            "needs more than 134217728 bytes",
        ),
        (
            "quad",
            crate::hostile::npy(&crate::hostile::r04_quad(400_000, 120_000)),
            "numpy.dtype at byte 400029: takes at most 4 arguments (400001 given)",
        ),
    ];
    for (name, npy_bytes, message) in cases {
        let npz = crate::hostile::deflated_npz(&npy_bytes);
        for (file, bytes) in [
            (format!("{name}.npy"), &npy_bytes),
            (format!("{name}.npz"), &npz),
        ] {
            let (code, _, err) = show_bytes(dir.path(), &file, bytes, false);
            assert_eq!(code, 1, "{file}");
            assert!(err.contains(message), "{file}: {err}");
        }
    }
}

/// Issue 23's budget for printed and JSON output: a 1 MiB file whose 101 objects share one
/// 1 MiB string of BELs would print about 404 MiB of text and 606 MiB of JSON. Both stop at
/// the printer's budget (`npy_print::OBJECT_TEXT_BUDGET`): the text with each object
/// cut at `...` and an error saying so, the JSON refused where it would pass it.
#[test]
fn object_output_is_bounded_by_the_print_budget() {
    let budget = npy_print::OBJECT_TEXT_BUDGET as usize;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::hostile::npy_of_101(&crate::hostile::shared_bells());
    let path = dir.path().join("bells.npy");
    std::fs::write(&path, &file).expect("write");
    let o = npy([OsStr::new("show"), OsStr::new("--full"), path.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("print budget of 64 MiB"), "{err}");
    assert!(o.stdout.len() <= budget + 101 * 16, "{}", o.stdout.len());
    assert!(o.stdout.len() > budget / 2, "{}", o.stdout.len());
    assert!(
        o.stdout.ends_with(b"...]\n"),
        "{:?}",
        &o.stdout[o.stdout.len() - 20..]
    );
    let (code, out, err) = show_bytes(dir.path(), "bells.npy", &file, true);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("output budget of 64 MiB"), "{err}");
    assert!(out.len() <= budget, "{}", out.len());
}

/// The second review of issue 23 (`f_npz_members_budget.py`): the print budget was each
/// member's, so 16 members printing 57 MiB of text each wrote 919 MiB from a 27 KB archive.
/// One `npy show` now has one budget for the objects of all its members: 20 members of 16 MiB
/// of text each (a 1 MiB string of BELs referenced 4 times) print at most 64 MiB in all, then
/// the cut is reported; `--json` likewise.
#[test]
fn one_show_has_one_object_budget_for_all_members() {
    use npy_test_support::zip::{zip, ZipEntry};
    let budget = npy_print::OBJECT_TEXT_BUDGET as usize;
    let mut item = b"](X".to_vec();
    item.extend_from_slice(&(1u32 << 20).to_le_bytes());
    item.extend(std::iter::repeat_n(7u8, 1 << 20));
    item.push(0x94);
    item.extend_from_slice(b"h\x00h\x00h\x00e");
    let member = crate::hostile::npy(&crate::hostile::object_array(&item));
    let entries: Vec<ZipEntry> = (0..20)
        .map(|i| ZipEntry::deflated(&format!("m{i}.npy"), &member))
        .collect();
    let archive = zip(&entries, None);
    assert!(archive.len() < 1 << 20, "{}", archive.len());
    let dir = tempfile::tempdir().expect("tempdir");
    for json in [false, true] {
        let (code, out, err) = show_bytes(dir.path(), "members.npz", &archive, json);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("for the objects of one `npy show`"), "{err}");
        // The member that ran out is named (--json's refusal did not say which): each
        // member's text is 16 MiB (`'\x07'`, 4 bytes a character), its JSON 24 MiB
        // (`\u0007`), so the fourth member passes 64 MiB as text, the third as JSON.
        let last = if json { "member m2: " } else { "member m3: " };
        assert!(err.contains(last), "{err}");
        assert!(out.len() <= budget + 20 * 64, "{}", out.len());
        assert!(out.len() > budget / 2, "{}", out.len());
    }
}

/// Issue 23, r05: an int of 4 MiB (about 10 million digits) in `--json` is refused from its
/// size, as Python's `json.dumps` refuses more than 4300 digits; the text form prints it in
/// hexadecimal. At the limit: 4300 digits are written, 4301 refused.
#[test]
fn r05_big_ints_in_json_follow_pythons_digit_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::hostile::npy(&crate::hostile::r05_bigint(4 << 20));
    let (code, _, err) = show_bytes(dir.path(), "big.npy", &file, true);
    assert_eq!(code, 1);
    assert!(err.contains("4300"), "{err}");
    let (code, out, _) = show_bytes(dir.path(), "big.npy", &file, false);
    assert_eq!(code, 0);
    assert!(out.starts_with("[0x7f7f7f"), "{}", &out[..20]);
    // 10**4299 has 4300 digits; 10**4300 has 4301. LONG1/LONG4 of their two's complement.
    for (digits, ok) in [(4300usize, true), (4301, false)] {
        let n = npy_pickle::BigInt::from(10u32).pow(u32::try_from(digits - 1).expect("small"));
        let bytes = n.to_signed_bytes_le();
        let mut item = vec![0x8b];
        item.extend_from_slice(&u32::try_from(bytes.len()).expect("small").to_le_bytes());
        item.extend_from_slice(&bytes);
        let file = crate::hostile::npy(&crate::hostile::object_array(&item));
        let (code, out, err) = show_bytes(dir.path(), "edge.npy", &file, true);
        if ok {
            assert_eq!(code, 0, "{err}");
            let want = format!("\"data\":[1{}]}}\n", "0".repeat(digits - 1));
            assert!(out.ends_with(&want), "{out}");
        } else {
            assert_eq!(code, 1);
            assert!(err.contains("4301"), "{err}");
        }
    }
}

/// The second review of issue 23 (`f_bigint_nocache.py`): two 4,299-digit ints alternating
/// 70,000 times in a list defeat the one-entry cache of their decimal text; `--json` wrote
/// 15,000 of them (quadratic work each) before its 64 MiB of output ran out. Each conversion
/// is charged its work too, so the refusal comes after about a fifth as many.
#[test]
fn decimal_conversions_are_charged_to_the_json_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long4 = |n: &npy_pickle::BigInt| {
        let bytes = n.to_signed_bytes_le();
        let mut o = vec![0x8b];
        o.extend_from_slice(&u32::try_from(bytes.len()).expect("small").to_le_bytes());
        o.extend_from_slice(&bytes);
        o.extend_from_slice(b"\x940");
        o
    };
    let a: npy_pickle::BigInt = "7".repeat(4299).parse().expect("an int");
    let mut item = long4(&a);
    item.extend(long4(&(&a + 1u32)));
    item.extend_from_slice(b"](");
    for _ in 0..35_000 {
        item.extend_from_slice(b"h\x00h\x01");
    }
    item.push(b'e');
    let file = crate::hostile::npy(&crate::hostile::object_array(&item));
    let (code, out, err) = show_bytes(dir.path(), "alternating.npy", &file, true);
    assert_eq!(code, 1);
    // The work and the text spend one budget: either may be the charge that passes it.
    assert!(err.contains("output budget of 64 MiB"), "{err}");
    let written = out.matches(&"7".repeat(4298)).count() as u64;
    let per_int = npy_pickle::int_decimal_work(&a) + 4299;
    assert!(
        (1000..=npy_print::OBJECT_TEXT_BUDGET / per_int + 1).contains(&written),
        "{written} ints written"
    );
}

/// Elements that hold no bytes (`V0`), in headers numpy's own `write_array_header_1_0`
/// writes: `--json` of more than `MAX_UNBACKED_VALUES` (2^20) of them is refused before any
/// output, whatever the order (a Fortran-order (2^31, 2^31) array streamed without end
/// before: the review of 2026-12-01); a small one prints its elements, as many as numpy's
/// `tolist()` has.
#[test]
fn json_of_elements_without_bytes_is_bounded() {
    let Some(python) = npy_test_support::python::python_for("V0 headers written by numpy") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let script = "import numpy as np, sys, json\n\
        for path, shape, f in [(sys.argv[1], (2**20 + 1,), False), (sys.argv[2], (2**31, 2**31), True), (sys.argv[3], (3, 2), True)]:\n\
        \x20   with open(path, 'wb') as out:\n\
        \x20       np.lib.format.write_array_header_1_0(out, {'descr': '|V0', 'fortran_order': f, 'shape': shape})\n\
        print(len(np.load(sys.argv[3]).tolist()), len(np.load(sys.argv[3]).tolist()[0]))";
    let paths = ["c.npy", "f.npy", "small.npy"].map(|n| dir.path().join(n));
    let lens = npy_test_support::python::run_script(&python, script, &paths);
    for big in &paths[..2] {
        let o = npy([Path::new("show"), Path::new("--json"), big.as_path()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(o.stdout.is_empty(), "{}", stdout(&o));
        assert!(err.contains("hold no bytes"), "{err}");
    }
    let o = npy([Path::new("show"), Path::new("--json"), paths[2].as_path()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let data = v["data"].as_array().expect("rows");
    assert_eq!(
        format!(
            "{} {}\n",
            data.len(),
            data[0].as_array().expect("row").len()
        ),
        lens
    );
}

/// numpy dtypes inside an object array print as numpy's `repr(dtype)`: native-order numbers
/// by their type's name (`dtype('float64')`), the others by their `str` (`dtype('>f4')`,
/// `dtype('<U3')`), records by their descr. The expected text is numpy's `str()` of the
/// array. (The fuzz run of 2026-12-01 found `dtype('<f8')` where numpy prints
/// `dtype('float64')`.)
#[test]
fn dtypes_in_object_arrays_print_as_numpy_prints_them() {
    let Some(python) = npy_test_support::python::python_for("numpy's str() of dtypes") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("dtypes.npy");
    let script = "import numpy as np, sys\n\
        a = np.empty(20, dtype=object)\n\
        a[:] = [np.dtype(d) for d in ['?', 'i1', '<i2', '>i2', 'i4', 'u8', 'f2', 'f4', '>f4', 'f8', 'g', 'c8', '>c16', 'G', 'S5', '<U3', 'V8', 'O', '<M8[ns]', 'i4,f8']]\n\
        np.save(sys.argv[1], a, allow_pickle=True)\n\
        print(np.array2string(a, threshold=1000, max_line_width=75))";
    let want = npy_test_support::python::run_script(&python, script, [&path]);
    let o = npy([Path::new("show"), path.as_path()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), want);
}
