//! ml_dtypes element types (issue 26): bfloat16, float8/float6/float4, int4/uint4/int2/uint2.
//!
//! Every expected value comes from `fixtures/mltypes/` (written by numpy 2.4.6 + ml_dtypes
//! 0.7.0, `xtask/fixtures_mltypes.py`): the files `np.save` wrote, ml_dtypes' value of every
//! code, and its rounding of a sweep of float32 values (`encode.json`).

use std::path::{Path, PathBuf};

use half::bf16;
use npy_core::{
    DType, DynValue, Float4E2M1Fn, Float6E2M3Fn, Float6E3M2Fn, Float8E3M4, Float8E4M3,
    Float8E4M3B11FnUz, Float8E4M3Fn, Float8E4M3FnUz, Float8E5M2, Float8E5M2FnUz, Float8E8M0Fnu,
    Int2, Int4, MlType, NpyElement, NpyReader, Order, ReadOptions, UInt2, UInt4, WriteOptions,
};
use serde_json::Value as Json;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/mltypes")
}

fn rows(file: &str, key: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(dir().join(file)).unwrap();
    let m: Json = serde_json::from_str(&text).unwrap();
    m[key].as_array().unwrap().clone()
}

fn kind_of(e: &Json) -> MlType {
    MlType::from_name(e["kind"].as_str().unwrap()).unwrap()
}

/// The manifest's value (a number, or "nan" / "inf" / "-inf") as an f64.
fn json_f64(v: &Json) -> f64 {
    match v.as_str() {
        Some("nan") => f64::NAN,
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        Some(other) => panic!("unexpected value {other}"),
        None => v.as_f64().unwrap(),
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn descr_is_what_np_save_writes() {
    for e in rows("manifest.json", "files") {
        let kind = kind_of(&e);
        assert_eq!(
            DType::Ml(kind).to_string(),
            e["descr"].as_str().unwrap(),
            "{kind}"
        );
    }
}

/// Every code of every kind decodes to ml_dtypes' value, read dynamically with the hint
/// (through the file numpy wrote, so the header path, hint and decoder are all covered).
#[test]
fn dynamic_read_with_hint_gives_ml_dtypes_values() {
    let mut checked = 0;
    for e in rows("manifest.json", "files") {
        let kind = kind_of(&e);
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let options = ReadOptions::default().hint(Some(kind));
        let mut r = NpyReader::with_options(&bytes[..], &options).unwrap();
        assert_eq!(*r.dtype(), DType::Ml(kind), "{file}");
        let a = r.read_dyn().unwrap();
        let want = e["values"].as_array().unwrap();
        let got: Vec<DynValue> = a.iter_c_order().collect();
        assert_eq!(got.len(), want.len(), "{file}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            if kind.is_integer() {
                assert_eq!(*g, DynValue::Int(w.as_i64().unwrap()), "{file}[{i}]");
            } else {
                let g = g.as_f64().unwrap();
                assert!(same(g, json_f64(w)), "{file}[{i}]: {g} vs {w}");
            }
            checked += 1;
        }
    }
    assert!(checked > 16 * 256, "{checked}");
}

/// Without a hint the descr reads as numpy reads it: `|V2`, `|V1`; `<f1` (which numpy refuses)
/// is `float8_e5m2`.
#[test]
fn without_hint_descr_reads_as_numpy() {
    for e in rows("manifest.json", "files") {
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let r = NpyReader::new(&bytes[..]).unwrap();
        let want = match e["descr"].as_str().unwrap() {
            "<V2" => DType::Void(2),
            "<V1" => DType::Void(1),
            "<f1" => DType::Ml(MlType::Float8E5M2),
            other => panic!("{file}: descr {other}"),
        };
        assert_eq!(*r.dtype(), want, "{file}");
    }
    // np.dtype('<f1') is refused (fixtures/parity/descr.json): only a header reads it.
    assert!("<f1".parse::<DType>().is_err());
}

/// The typed read of `T` from every file of its kind, and the write back: bytes identical to
/// the file `np.save` wrote.
fn typed_round_trip<T: NpyElement + Copy>(kind: MlType, to_f64: impl Fn(T) -> f64) {
    let mut files = 0;
    for e in rows("manifest.json", "files") {
        if kind_of(&e) != kind {
            continue;
        }
        let file = e["file"].as_str().unwrap();
        let path = dir().join(file);
        let a = npy_core::read::<T>(&path).unwrap_or_else(|err| panic!("{file}: {err}"));
        let want = e["values"].as_array().unwrap();
        let c: Vec<T> = a.clone().into_c_order_vec();
        for (i, (g, w)) in c.iter().zip(want).enumerate() {
            let w = if kind.is_integer() {
                w.as_i64().unwrap() as f64
            } else {
                json_f64(w)
            };
            assert!(same(to_f64(*g), w), "{file}[{i}]");
        }
        // Write back in the file's order: the bytes np.save wrote.
        let order = if e["fortran_order"].as_bool().unwrap() {
            Order::Fortran
        } else {
            Order::C
        };
        let shape: Vec<u64> = e["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        let mut out = Vec::new();
        WriteOptions::new()
            .order(order)
            .write_to(&mut out, a.data(), &shape)
            .unwrap();
        assert_eq!(out, std::fs::read(&path).unwrap(), "{file}: write differs");
        assert_eq!(
            &out[out.len() - want.len() * kind.itemsize() as usize..],
            &hex(e["data_hex"].as_str().unwrap())[..]
        );
        files += 1;
    }
    assert!(files >= 3, "{kind}: {files} files");
}

#[test]
fn typed_reads_and_writes_match_np_save() {
    typed_round_trip::<bf16>(MlType::BFloat16, |x| f64::from(x.to_f32()));
    typed_round_trip::<Float8E4M3Fn>(MlType::Float8E4M3Fn, Float8E4M3Fn::to_f64);
    typed_round_trip::<Float8E5M2>(MlType::Float8E5M2, Float8E5M2::to_f64);
    typed_round_trip::<Float8E4M3FnUz>(MlType::Float8E4M3FnUz, Float8E4M3FnUz::to_f64);
    typed_round_trip::<Float8E5M2FnUz>(MlType::Float8E5M2FnUz, Float8E5M2FnUz::to_f64);
    typed_round_trip::<Float8E4M3B11FnUz>(MlType::Float8E4M3B11FnUz, Float8E4M3B11FnUz::to_f64);
    typed_round_trip::<Float8E4M3>(MlType::Float8E4M3, Float8E4M3::to_f64);
    typed_round_trip::<Float8E3M4>(MlType::Float8E3M4, Float8E3M4::to_f64);
    typed_round_trip::<Float8E8M0Fnu>(MlType::Float8E8M0Fnu, Float8E8M0Fnu::to_f64);
    typed_round_trip::<Float6E2M3Fn>(MlType::Float6E2M3Fn, Float6E2M3Fn::to_f64);
    typed_round_trip::<Float6E3M2Fn>(MlType::Float6E3M2Fn, Float6E3M2Fn::to_f64);
    typed_round_trip::<Float4E2M1Fn>(MlType::Float4E2M1Fn, Float4E2M1Fn::to_f64);
    typed_round_trip::<Int4>(MlType::Int4, Int4::to_f64);
    typed_round_trip::<UInt4>(MlType::UInt4, UInt4::to_f64);
    typed_round_trip::<Int2>(MlType::Int2, Int2::to_f64);
    typed_round_trip::<UInt2>(MlType::UInt2, UInt2::to_f64);
}

/// A typed read of another type is refused, naming what the file holds.
#[test]
fn typed_read_of_wrong_width_is_refused() {
    let path = dir().join("small_bfloat16.npy");
    let err = npy_core::read::<Float8E4M3Fn>(&path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("V2") && msg.contains("Float8E4M3Fn"), "{msg}");
    let err = npy_core::read::<f32>(&path).unwrap_err();
    assert!(err.to_string().contains("V2"), "{err}");
    // A `<f1` file is float8_e5m2 and nothing else of one byte.
    let path = dir().join("small_float8_e5m2.npy");
    assert!(npy_core::read::<Float8E5M2>(&path).is_ok());
    assert!(npy_core::read::<Float8E4M3Fn>(&path).is_err());
}

/// ml_dtypes' rounding of float32 values (`np.float32(x).astype(kind)`): every value, tie,
/// neighbour of a tie, overflow, infinity and NaN of `encode.json`.
#[test]
fn encode_matches_ml_dtypes_rounding() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in rows("encode.json", "rows") {
        let row = row.as_array().unwrap();
        let kind = MlType::from_name(row[0].as_str().unwrap()).unwrap();
        let bits = u32::from_str_radix(row[1].as_str().unwrap(), 16).unwrap();
        let want = row[2].as_u64().unwrap() as u16;
        let x = f32::from_bits(bits);
        let got = kind.encode(f64::from(x));
        // NaN: any NaN code of the kind is the same value (payloads are not kept by numpy's
        // print or ==), but the sign and the code ml_dtypes picks are checked too.
        if got != want {
            failures.push(format!(
                "{kind} {x:e} ({bits:08x}): got {got:#x}, ml_dtypes {want:#x}"
            ));
        }
        checked += 1;
    }
    assert!(checked > 10_000, "{checked}");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        {
            let mut shown: Vec<&String> = Vec::new();
            for k in MlType::ALL {
                shown.extend(
                    failures
                        .iter()
                        .filter(|f| f.starts_with(&format!("{k} ")))
                        .take(4),
                );
            }
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        }
    );
}

/// `str()` of each ml_dtypes scalar: what numpy prints for the elements.
#[test]
fn format_code_is_ml_dtypes_str() {
    for e in rows("manifest.json", "files") {
        let kind = kind_of(&e);
        if e["file"].as_str().unwrap() == "scalar_bfloat16.npy" {
            let data = hex(e["data_hex"].as_str().unwrap());
            let code = u16::from_le_bytes([data[0], data[1]]);
            assert_eq!(kind.format_code(code), e["str"].as_str().unwrap());
        }
    }
    // The same through the types' Display.
    assert_eq!(Float8E4M3Fn::from_f32(0.1).to_string(), "0.101562");
    assert_eq!(Float8E5M2::from_f32(1e30).to_string(), "inf");
}

/// A dynamic read with the hint, written back with `write_dyn`: the bytes `np.save` wrote
/// (the values encode back to their codes, NaN payloads and the high bits of sub-byte codes
/// aside: those files are skipped, their codes are not values `write_dyn` could know).
#[test]
fn write_dyn_of_hinted_reads_is_np_save() {
    let mut checked = 0;
    for e in rows("manifest.json", "files") {
        let kind = kind_of(&e);
        let file = e["file"].as_str().unwrap();
        if file.starts_with("codes_") {
            continue;
        }
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let options = ReadOptions::default().hint(Some(kind));
        let a = NpyReader::with_options(&bytes[..], &options)
            .unwrap()
            .read_dyn()
            .unwrap();
        let mut out = Vec::new();
        npy_core::write_dyn_to(&mut out, &a, None).unwrap();
        assert_eq!(out, bytes, "{file}");
        checked += 1;
    }
    assert!(checked >= 32, "{checked}");
    // Values the type cannot hold are refused when the array is built, naming the dtype.
    let refuse = |kind: MlType, v: DynValue| {
        let header = npy_core::Header::new(DType::Ml(kind), vec![1]);
        let err = npy_core::DynArray::new(header, vec![v]).unwrap_err();
        assert!(err.to_string().contains(kind.name()), "{err}");
    };
    refuse(MlType::Float8E4M3Fn, DynValue::Float(1e10));
    refuse(MlType::Int4, DynValue::Int(8));
    refuse(MlType::BFloat16, DynValue::Int(1));
}
