//! x87 `longdouble` bit patterns: `fixtures/parity/ld_classes_*.npy` hold one element of each
//! class (normal, zero, infinity, quiet and signalling NaN, pseudo-infinity, pseudo-NaN,
//! unnormal, pseudo-denormal, denormal, extremes) with non-zero padding, little- and big-endian
//! and as the parts of `clongdouble`; the manifest holds numpy's `astype('<f8')` and `isnan`.
//! The patterns the FPU does not take as numbers read as NaN, as numpy prints them.

use npy_core::{read_dyn, DynValue};
use serde_json::Value as Json;

use super::support::{files, path};

/// A Python `float.hex()` string (`0x1.5555555555555p-2`, `-0x0.0p+0`, `inf`) as an `f64`:
/// exact, from its bits.
fn from_hex(s: &str) -> f64 {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = if s == "inf" {
        f64::INFINITY
    } else {
        let body = s.strip_prefix("0x").expect("0x");
        let (mantissa, exp) = body.split_once('p').expect("p");
        let (int, frac) = mantissa.split_once('.').expect(".");
        let exp: i64 = exp.parse().expect("exponent");
        let digits = u64::from_str_radix(frac, 16).expect("hex digits");
        let frac_bits = digits << (4 * (13 - frac.len()));
        match int {
            "1" => f64::from_bits((((exp + 1023) as u64) << 52) | frac_bits),
            // Subnormals (p-1022) and zero (p+0).
            "0" => f64::from_bits(frac_bits),
            other => panic!("integer digit {other}"),
        }
    };
    if neg {
        -v
    } else {
        v
    }
}

fn check(name: &str, got: f64, class: &str, want: &Json, isnan: bool, failures: &mut Vec<String>) {
    let ok = if isnan {
        got.is_nan()
    } else {
        let w = from_hex(want.as_str().expect("hex"));
        got.to_bits() == w.to_bits()
    };
    if !ok {
        failures.push(format!(
            "{name} {class}: ours {got:e}, numpy {want} (isnan {isnan})"
        ));
    }
}

#[test]
fn longdouble_classes_read_as_numpy() {
    let entry = files("longdouble").remove(0);
    let classes = entry["classes"].as_array().expect("classes");
    let hex = entry["f8_hex"].as_array().expect("f8_hex");
    let isnan: Vec<bool> = entry["isnan"]
        .as_array()
        .expect("isnan")
        .iter()
        .map(|b| b.as_bool().expect("bool"))
        .collect();
    let n = classes.len();
    let mut failures = Vec::new();
    for name in ["ld_classes_le.npy", "ld_classes_be.npy"] {
        let a = read_dyn(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(a.len(), n, "{name}");
        for (i, v) in a.iter().enumerate() {
            let DynValue::LongDouble { approx, .. } = *v else {
                panic!("{name}: {v:?}");
            };
            let class = classes[i].as_str().unwrap();
            check(name, approx, class, &hex[i], isnan[i], &mut failures);
        }
    }
    // clongdouble: element i is (class i, class n-1-i).
    let name = "ld_complex.npy";
    let a = read_dyn(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, v) in a.iter().enumerate() {
        let DynValue::CLongDouble { re, im, .. } = *v else {
            panic!("{name}: {v:?}");
        };
        let j = n - 1 - i;
        check(
            name,
            re,
            classes[i].as_str().unwrap(),
            &hex[i],
            isnan[i],
            &mut failures,
        );
        check(
            name,
            im,
            classes[j].as_str().unwrap(),
            &hex[j],
            isnan[j],
            &mut failures,
        );
    }
    super::support::report("longdouble classes", 4 * n, &failures);
}
