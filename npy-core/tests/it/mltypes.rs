//! ml_dtypes element types (issue 26): bfloat16, float8/float6/float4, int4/uint4/int2/uint2.
//!
//! Every expected value comes from `fixtures/mltypes/` (written by numpy 2.4.6 + ml_dtypes
//! 0.7.0, `xtask/fixtures_mltypes.py`): the files `np.save` wrote, ml_dtypes' value of every
//! code, and its rounding of a sweep of float32 values (`encode.json`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use half::bf16;
use npy_core::{
    dtype::MlType,
    element::{
        Float4E2M1Fn, Float6E2M3Fn, Float6E3M2Fn, Float8E3M4, Float8E4M3, Float8E4M3B11FnUz,
        Float8E4M3Fn, Float8E4M3FnUz, Float8E5M2, Float8E5M2FnUz, Float8E8M0Fnu, Int2, Int4, UInt2,
        UInt4,
    },
    DType, DynValue, MemoryOrder, NpyElement, NpyReader, ReadOptions, WriteOptions,
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
        let got: Vec<DynValue> = a.iter_c_order().map(Cow::into_owned).collect();
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
            MemoryOrder::Fortran
        } else {
            MemoryOrder::C
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
        npy_core::dynamic::write_dyn_to(&mut out, &a).unwrap();
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

/// A value of `variants.json` (`values`, or a record field's) as an f64.
fn values_f64(v: &Json) -> Vec<f64> {
    v.as_array().unwrap().iter().map(json_f64).collect()
}

/// Big-endian ml_dtypes files (`dtype.newbyteorder('>')`, as ml_dtypes and numpy write them):
/// the one-byte kinds (`'>f1'`, `'>V1'`) have no byte order and read, with the hint or as the
/// requested type, to ml_dtypes' values; bfloat16 (`'>V2'`, its bytes swapped by ml_dtypes)
/// is refused with the hint and as `bf16`, since numpy's `|V2` loses the order, and without
/// either it reads as numpy reads it (`|V2`).
#[test]
fn big_endian_files_read_or_are_refused_by_ml_dtypes_rules() {
    let mut checked = 0;
    for e in rows("variants.json", "files") {
        let file = e["file"].as_str().unwrap();
        if !file.starts_with("be_") {
            continue;
        }
        let kind = kind_of(&e);
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let options = ReadOptions::default().hint(Some(kind));
        if kind == MlType::BFloat16 {
            assert_eq!(e["descr"], ">V2");
            let err = NpyReader::with_options(&bytes[..], &options).unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("'>V2'") && msg.contains("big-endian"), "{msg}");
            let r = NpyReader::new(&bytes[..]).unwrap();
            assert_eq!(*r.dtype(), DType::Void(2), "numpy reads it as |V2");
            assert!(r.parsed_header().hinted_dtype(kind).is_err());
            // NpyReader::with_hint cannot fail: it leaves the dtype as numpy reads it.
            let r = r.with_hint(Some(kind));
            assert_eq!(*r.dtype(), DType::Void(2));
            let err = NpyReader::new(&bytes[..])
                .unwrap()
                .read_vec::<bf16>()
                .unwrap_err();
            assert!(err.to_string().contains("'>V2'"), "{err}");
            checked += 1;
            continue;
        }
        let want = e["values"].as_array().unwrap();
        let a = NpyReader::with_options(&bytes[..], &options)
            .unwrap()
            .read_dyn()
            .unwrap();
        assert_eq!(a.dtype(), &DType::Ml(kind), "{file}");
        let got: Vec<DynValue> = a.iter_c_order().map(Cow::into_owned).collect();
        assert_eq!(got.len(), want.len(), "{file}");
        for (g, w) in got.iter().zip(want) {
            if kind.is_integer() {
                assert_eq!(*g, DynValue::Int(w.as_i64().unwrap()), "{file}");
            } else {
                assert!(
                    same(g.as_f64().unwrap(), json_f64(w)),
                    "{file}: {g:?} vs {w}"
                );
            }
        }
        // The one-byte file's bytes are the little-endian file's: the typed read agrees.
        let typed: Vec<f64> = match kind {
            MlType::Float8E5M2 => npy_core::read::<Float8E5M2>(dir().join(file))
                .unwrap()
                .into_vec()
                .into_iter()
                .map(Float8E5M2::to_f64)
                .collect(),
            MlType::Float8E4M3Fn => npy_core::read::<Float8E4M3Fn>(dir().join(file))
                .unwrap()
                .into_vec()
                .into_iter()
                .map(Float8E4M3Fn::to_f64)
                .collect(),
            MlType::Int4 => npy_core::read::<Int4>(dir().join(file))
                .unwrap()
                .into_vec()
                .into_iter()
                .map(Int4::to_f64)
                .collect(),
            other => panic!("{file}: no typed check for {other}"),
        };
        let want: Vec<f64> = want
            .iter()
            .map(|w| w.as_i64().map_or_else(|| json_f64(w), |i| i as f64))
            .collect();
        assert_eq!(typed.len(), want.len(), "{file}");
        assert!(
            typed.iter().zip(&want).all(|(g, w)| same(*g, *w)),
            "{file}: {typed:?} vs {want:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 4);
}

/// A record whose fields are ml_dtypes types, as numpy + ml_dtypes write it: `'<f1'` fields
/// (and a `'<f1'` subarray) read as `float8_e5m2`, as a top-level `'<f1'` does; `'<V2'` and
/// `'<V1'` fields stay void (the hint is for a whole array's descr); `write_dyn` gives back
/// the data bytes `np.save` wrote.
#[test]
fn f1_record_fields_read_as_float8_e5m2() {
    let e = rows("variants.json", "files")
        .into_iter()
        .find(|e| e["file"] == "rec_ml.npy")
        .unwrap();
    let bytes = std::fs::read(dir().join("rec_ml.npy")).unwrap();
    let a = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap();
    let DType::Record(rec) = a.dtype() else {
        panic!("{:?}", a.dtype());
    };
    let kinds: Vec<(&str, String)> = rec
        .fields()
        .iter()
        .map(|f| (&*f.name, f.dtype.to_string()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a", "<f1".to_owned()),
            ("s", "('<f1', (2,))".to_owned()),
            ("w", "<f4".to_owned()),
            ("b", "|V2".to_owned()),
            ("e", "|V1".to_owned())
        ]
    );
    assert_eq!(rec.fields()[0].dtype, DType::Ml(MlType::Float8E5M2));
    let fields = &e["fields"];
    let mut got = std::collections::BTreeMap::<&str, Vec<f64>>::new();
    for v in a.iter_c_order() {
        let DynValue::Record(items) = &*v else {
            panic!("{v:?}")
        };
        for (name, x) in items {
            let slot = got.entry(match name.as_str() {
                "a" => "a",
                "s" => "s",
                "w" => "w",
                _ => continue,
            });
            match x {
                DynValue::SubArray { values, .. } => slot
                    .or_default()
                    .extend(values.iter().map(|x| x.as_f64().unwrap())),
                x => slot.or_default().push(x.as_f64().unwrap()),
            }
        }
    }
    for name in ["a", "s", "w"] {
        let want = values_f64(&fields[name]);
        let g = &got[name];
        assert_eq!(g.len(), want.len(), "{name}");
        assert!(
            g.iter().zip(&want).all(|(g, w)| same(*g, *w)),
            "{name}: {g:?} vs {want:?}"
        );
    }
    // Written back, the data bytes are np.save's (the void fields' descr is numpy's `|V2`,
    // the type of a void field being lost on reading as numpy loses it).
    let mut out = Vec::new();
    npy_core::dynamic::write_dyn_to(&mut out, &a).unwrap();
    let data = hex(e["data_hex"].as_str().unwrap());
    assert_eq!(&out[out.len() - data.len()..], &data[..]);
    assert_eq!(&bytes[bytes.len() - data.len()..], &data[..]);
    // numpy itself refuses the descr: only a header reads '<f1' as a type.
    assert!("[('a', '<f1')]".parse::<DType>().is_err());
}

/// A typed read of another type from a file of what `np.save` writes for an ml_dtypes array
/// (`|V2`, `|V1`) names the ml_dtypes remedy: the element type, or the hint.
#[test]
fn type_mismatch_on_ml_dtypes_files_names_the_type() {
    let err = npy_core::read::<f32>(dir().join("small_bfloat16.npy")).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err.kind(), npy_core::ErrorKind::TypeMismatch { .. }),
        "{msg}"
    );
    assert!(
        msg.contains("'|V2'") && msg.contains("half::bf16") && msg.contains("--hint bfloat16"),
        "{msg}"
    );
    let msg = npy_core::read::<u16>(dir().join("small_bfloat16.npy"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("half::bf16"), "{msg}");
    let msg = npy_core::read::<f32>(dir().join("small_float8_e4m3fn.npy"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("'|V1'") && msg.contains("Float8E4M3Fn"),
        "{msg}"
    );
    // Other files get no such remedy.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.npy");
    npy_core::write(&path, &[1.0f64], &[1]).unwrap();
    let msg = npy_core::read::<f32>(&path).unwrap_err().to_string();
    assert!(!msg.contains("ml_dtypes"), "{msg}");
}
