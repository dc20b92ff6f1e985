//! Conformance against the numpy-written fixture set (`fixtures/`, `cargo xtask fixtures`).
//!
//! Every expected value comes from `fixtures/manifest.json`, which numpy 2.4.6 produced together
//! with the files; nothing here is derived from this crate's own output.

use std::fs;

use npy_core::{format::Version, DType, Header, MemoryOrder, TensorInfo};
use npy_test_support::{fixtures_dir, manifest, sha256_hex};
use serde_json::Value as Json;

fn u64s(v: &Json) -> Vec<u64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|d| d.as_u64().expect("u64"))
        .collect()
}

fn version_of(v: &Json) -> Version {
    match (v[0].as_u64(), v[1].as_u64()) {
        (Some(1), Some(0)) => Version::V1_0,
        (Some(2), Some(0)) => Version::V2_0,
        (Some(3), Some(0)) => Version::V3_0,
        other => panic!("manifest version {other:?}"),
    }
}

/// numpy's view of a field dtype: the element dtype with nested subarrays flattened into one
/// shape, as the manifest records it (`"descr"` of the base, `"shape"` the full shape).
fn flatten(dt: &DType) -> (&DType, Vec<u64>) {
    let mut shape = Vec::new();
    let mut cur = dt;
    while let DType::SubArray(s) = cur {
        shape.extend_from_slice(s.shape());
        cur = s.base();
    }
    (cur, shape)
}

/// Hex of sha256.

#[test]
fn manifest_is_complete() {
    let m = manifest();
    // fixtures/README.md: "216 files, all written by np.save".
    assert_eq!(m.len(), 216);
    for e in &m {
        assert!(
            fixtures_dir().join(e["file"].as_str().unwrap()).is_file(),
            "{}",
            e["file"]
        );
    }
}

#[test]
fn every_fixture_reads_as_numpy_describes_it() {
    let mut failures = Vec::new();
    for e in manifest() {
        let file = e["file"].as_str().unwrap().to_owned();
        if let Err(msg) = check_one(&e) {
            failures.push(format!("{file}: {msg}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

macro_rules! check_eq {
    ($what:expr, $got:expr, $want:expr) => {{
        let (g, w) = (&$got, &$want);
        if g != w {
            return Err(format!("{}: got {:?}, want {:?}", $what, g, w));
        }
    }};
}

fn check_one(e: &Json) -> Result<(), String> {
    let file = e["file"].as_str().unwrap();
    let path = fixtures_dir().join(file);
    let bytes = fs::read(&path).map_err(|err| err.to_string())?;
    check_eq!(
        "file_size",
        bytes.len() as u64,
        e["file_size"].as_u64().unwrap()
    );

    let mut r = &bytes[..];
    let parsed = Header::read(&mut r).map_err(|err| format!("Header::read: {err}"))?;
    let h = &parsed.header;
    let version = version_of(&e["version"]);
    let header_len = e["header_len"].as_u64().unwrap();
    let data_offset = e["data_offset"].as_u64().unwrap();
    let shape = u64s(&e["shape"]);
    let fortran = e["fortran_order"].as_bool().unwrap();
    let itemsize = e["itemsize"].as_u64().unwrap();
    let nbytes = e["nbytes"].as_u64().unwrap();
    let canonical = e["canonical"].as_str();
    let byte_order = e["byte_order"].as_str().unwrap();
    let descr = e["descr"].as_str().unwrap();

    check_eq!("version", parsed.version, version);
    check_eq!("header_len", parsed.header_len, header_len);
    check_eq!("data_offset", parsed.data_offset(), data_offset);
    check_eq!(
        "reader position",
        bytes.len() - r.len(),
        data_offset as usize
    );
    check_eq!("shape", h.shape, shape);
    check_eq!("fortran_order", h.fortran_order, fortran);
    check_eq!("itemsize", h.dtype.itemsize(), itemsize);
    check_eq!("nbytes", h.nbytes().map_err(|e| e.to_string())?, nbytes);
    check_eq!(
        "canonical",
        h.dtype.canonical().map(npy_core::dtype::Canonical::name),
        canonical
    );
    check_eq!("byte_order", h.dtype.byte_order().name(), byte_order);
    check_eq!("header text", parsed.text, e["header"].as_str().unwrap());
    check_eq!("descr repr", h.dtype.to_descr_value().to_string(), descr);
    check_eq!(
        "dtype.kind",
        h.dtype.kind().to_string(),
        e["kind"].as_str().unwrap()
    );
    match &h.dtype {
        DType::Record(_) => check_eq!("Display", h.dtype.to_string(), descr),
        simple => {
            check_eq!("Display", format!("'{simple}'"), descr);
            check_eq!(
                "type_str",
                simple.type_str(),
                e["dtype_str"].as_str().unwrap()
            );
        }
    }
    // The manifest's descr parses back to the same dtype.
    let reparsed: DType = descr
        .trim_matches('\'')
        .parse()
        .map_err(|err| format!("descr {descr} does not parse: {err}"))?;
    check_eq!("descr parse", reparsed, h.dtype);

    match (&h.dtype, e.get("fields")) {
        (DType::Record(rec), Some(fields)) => {
            let fields = fields.as_array().unwrap();
            check_eq!("field count", rec.fields().len(), fields.len());
            for (f, want) in rec.fields().iter().zip(fields) {
                let name = want["name"].as_str().unwrap();
                check_eq!("field name", f.name, name);
                check_eq!("field title", f.title.as_deref(), want["title"].as_str());
                check_eq!(
                    format!("field {name} offset"),
                    f.offset,
                    want["offset"].as_u64().unwrap()
                );
                check_eq!(
                    format!("field {name} itemsize"),
                    f.dtype.itemsize(),
                    want["itemsize"].as_u64().unwrap()
                );
                let (base, sub_shape) = flatten(&f.dtype);
                check_eq!(
                    format!("field {name} shape"),
                    sub_shape,
                    u64s(&want["shape"])
                );
                check_eq!(
                    format!("field {name} descr"),
                    base.to_descr_value().to_string(),
                    want["descr"].as_str().unwrap()
                );
                // Lookup by name and by title finds this field.
                check_eq!(format!("field({name})"), rec.field(name), Some(f));
                if let Some(t) = &f.title {
                    check_eq!(format!("field({t})"), rec.field(t), Some(f));
                }
            }
        }
        (DType::Record(_), None) => return Err("record without manifest fields".into()),
        (_, Some(_)) => return Err("manifest lists fields, dtype is not a record".into()),
        (_, None) => {}
    }

    // Data: exactly nbytes, with numpy's sha256.
    let data = &bytes[data_offset as usize..];
    check_eq!("data length", data.len() as u64, nbytes);
    check_eq!(
        "data sha256",
        sha256_hex(data),
        e["data_sha256"].as_str().unwrap()
    );

    // TensorInfo agrees.
    let info = TensorInfo::from_path(&path).map_err(|err| format!("TensorInfo: {err}"))?;
    check_eq!("info.name", info.name, file.trim_end_matches(".npy"));
    check_eq!("info.dtype", info.dtype, h.dtype);
    check_eq!("info.shape", info.shape, shape);
    check_eq!(
        "info.order",
        info.order,
        if fortran {
            MemoryOrder::Fortran
        } else {
            MemoryOrder::C
        }
    );
    check_eq!("info.itemsize", info.itemsize, itemsize);
    check_eq!("info.nbytes", info.nbytes, nbytes);
    check_eq!("info.data_offset", info.data_offset, data_offset);
    check_eq!("info.version", info.version, version);
    check_eq!("info.header_len", info.header_len, header_len);
    check_eq!(
        "info.canonical",
        info.canonical.map(npy_core::dtype::Canonical::name),
        canonical
    );
    check_eq!("info.byte_order", info.byte_order.name(), byte_order);
    check_eq!("info.header", info.header, e["header"].as_str().unwrap());

    // The writer reproduces numpy's bytes exactly, with numpy's version choice.
    let written = Header {
        dtype: h.dtype.clone(),
        fortran_order: fortran,
        shape: shape.clone(),
    }
    .to_bytes(None)
    .map_err(|err| format!("to_bytes: {err}"))?;
    if written[..] != bytes[..data_offset as usize] {
        return Err(format!(
            "to_bytes differs from numpy:\n  ours:  {:?}\n  numpy: {:?}",
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&bytes[..data_offset as usize])
        ));
    }
    // And the explicit version numpy used gives the same bytes.
    let explicit = h.to_bytes(Some(version)).map_err(|e| e.to_string())?;
    check_eq!("to_bytes(Some(version))", explicit, written);
    // to_text is the header text up to numpy's padding (its growth-axis spaces included).
    let text = e["header"].as_str().unwrap();
    let ours = h.to_text();
    check_eq!(
        "to_text",
        ours.trim_end(),
        text.trim_end_matches([' ', '\n'])
    );
    if !text.starts_with(&ours) {
        return Err(format!(
            "to_text {ours:?} is not a prefix of numpy's {text:?}"
        ));
    }
    Ok(())
}

#[test]
fn the_format_card_test_vector() {
    // ../shared/format-card.txt: w_f32.npy is float32 4 x 64, 1,152 bytes, header
    // "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }", 1,024 data bytes.
    let info = TensorInfo::from_path(fixtures_dir().join("w_f32.npy")).unwrap();
    assert_eq!(info.name, "w_f32");
    assert_eq!(info.dtype.to_string(), "<f4");
    assert_eq!(
        info.canonical.map(npy_core::dtype::Canonical::name),
        Some("float32")
    );
    assert_eq!(info.shape, [4, 64]);
    assert_eq!(info.nbytes, 1024);
    assert_eq!(info.data_offset % 64, 0);
    assert_eq!(info.data_offset + info.nbytes, 1152);
    assert!(info
        .header
        .starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }"));
    assert_eq!(info.byte_order.name(), "little");
    assert_eq!(info.order.as_char(), 'C');
}

/// `NpyArray::write` writes back what `read` returned as `np.save(np.load(f))` does: for every
/// fixture of a number dtype that `np.save` wrote (version 1.0), in either byte order and
/// memory order, the bytes are the fixture's own.
#[test]
fn written_back_arrays_are_what_numpy_wrote() {
    fn back<T: npy_core::NpyElement>(src: &std::path::Path, out: &std::path::Path) -> Vec<u8> {
        let a = npy_core::read::<T>(src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        a.write(out).unwrap();
        fs::read(out).unwrap()
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("back.npy");
    let mut checked = 0;
    for e in manifest() {
        if version_of(&e["version"]) != Version::V1_0 {
            continue;
        }
        let src = fixtures_dir().join(e["file"].as_str().unwrap());
        let bytes = match e["canonical"].as_str() {
            Some("bool") => back::<bool>(&src, &out),
            Some("int8") => back::<i8>(&src, &out),
            Some("int16") => back::<i16>(&src, &out),
            Some("int32") => back::<i32>(&src, &out),
            Some("int64") => back::<i64>(&src, &out),
            Some("uint8") => back::<u8>(&src, &out),
            Some("uint16") => back::<u16>(&src, &out),
            Some("uint32") => back::<u32>(&src, &out),
            Some("uint64") => back::<u64>(&src, &out),
            Some("float16") => back::<half::f16>(&src, &out),
            Some("float32") => back::<f32>(&src, &out),
            Some("float64") => back::<f64>(&src, &out),
            Some("complex64") => back::<num_complex::Complex<f32>>(&src, &out),
            Some("complex128") => back::<num_complex::Complex<f64>>(&src, &out),
            _ => continue,
        };
        assert!(bytes == fs::read(&src).unwrap(), "{}", src.display());
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} fixtures checked");
}
