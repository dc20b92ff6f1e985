//! Zero-copy views (`NpyView`, `view_or_copy`) over the numpy fixtures held in memory.
//!
//! Expected values come from `fixtures/manifest.json` (numpy's own `tolist()`), not from this
//! crate's readers. `std::fs::read` gives a buffer with no alignment promise, so every test
//! copies the file into `u64`-backed storage at a chosen byte shift: shift 0 is 8-aligned
//! (aligned for every element type), shift 1 misaligned for everything wider than a byte.

use std::borrow::Cow;
use std::fmt::Debug;
use std::fs;

use bytemuck::CheckedBitPattern;
use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{view::view_or_copy, Error, ErrorKind, Header, MemoryOrder, NpyElement, NpyView};
use npy_test_support::fixtures_dir;
use serde_json::Value as Json;

fn manifest() -> Vec<Json> {
    let text = fs::read_to_string(fixtures_dir().join("manifest.json")).expect("manifest.json");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    m["fixtures"].as_array().expect("fixtures list").clone()
}

fn entry(file: &str) -> Json {
    manifest()
        .into_iter()
        .find(|e| e["file"] == file)
        .unwrap_or_else(|| panic!("{file} not in the manifest"))
}

fn read_fixture(file: &str) -> Vec<u8> {
    fs::read(fixtures_dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// File bytes copied into 8-aligned storage, starting `shift` bytes in.
struct Aligned {
    words: Vec<u64>,
    shift: usize,
    len: usize,
}

impl Aligned {
    fn new(bytes: &[u8], shift: usize) -> Aligned {
        let mut words = vec![0u64; (bytes.len() + shift).div_ceil(8) + 1];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[shift..shift + bytes.len()]
            .copy_from_slice(bytes);
        Aligned {
            words,
            shift,
            len: bytes.len(),
        }
    }

    fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[self.shift..self.shift + self.len]
    }
}

/// The manifest's values, C order, one JSON value per element (a complex is `[re, im]`).
fn leaves(e: &Json) -> Vec<Json> {
    fn walk(v: &Json, depth: usize, out: &mut Vec<Json>) {
        if depth == 0 {
            out.push(v.clone());
        } else {
            for x in v.as_array().expect("nested list") {
                walk(x, depth - 1, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&e["data"], e["shape"].as_array().unwrap().len(), &mut out);
    out
}

fn shape_of(e: &Json) -> Vec<u64> {
    e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect()
}

/// Logical (C-order) multi-index of flat position `k`.
fn unravel(mut k: u64, shape: &[u64]) -> Vec<u64> {
    let mut idx = vec![0; shape.len()];
    for (i, d) in shape.iter().enumerate().rev() {
        idx[i] = k % d;
        k /= d;
    }
    idx
}

/// An element type with its value as numpy's `tolist()` writes it to JSON.
trait Expected: Sized + Debug {
    fn from_json(v: &Json) -> Self;
    fn same(&self, other: &Self) -> bool;
}

macro_rules! int_expected {
    ($($t:ty),*) => {$(
        impl Expected for $t {
            fn from_json(v: &Json) -> Self {
                if let Some(x) = v.as_i64() {
                    <$t>::try_from(x).unwrap()
                } else {
                    <$t>::try_from(v.as_u64().unwrap()).unwrap()
                }
            }
            fn same(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}
int_expected!(i8, i16, i32, i64, u8, u16, u32, u64);

fn json_f64(v: &Json) -> f64 {
    match v {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("float string {other}"),
        },
        _ => v.as_f64().expect("float"),
    }
}

/// Equal bits, both NaN, or one ulp apart (the manifest's decimal may round either way).
fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a.to_bits() == b.to_bits()
        || (a.is_sign_negative() == b.is_sign_negative() && a.to_bits().abs_diff(b.to_bits()) <= 1)
}

impl Expected for f64 {
    fn from_json(v: &Json) -> Self {
        json_f64(v)
    }
    fn same(&self, other: &Self) -> bool {
        same_f64(*self, *other)
    }
}

impl Expected for f32 {
    fn from_json(v: &Json) -> Self {
        json_f64(v) as f32
    }
    fn same(&self, other: &Self) -> bool {
        (self.is_nan() && other.is_nan()) || self.to_bits() == other.to_bits()
    }
}

impl Expected for f16 {
    fn from_json(v: &Json) -> Self {
        f16::from_f64(json_f64(v))
    }
    fn same(&self, other: &Self) -> bool {
        (self.is_nan() && other.is_nan()) || self.to_bits() == other.to_bits()
    }
}

impl<F: Expected> Expected for Complex<F> {
    fn from_json(v: &Json) -> Self {
        let parts = v.as_array().expect("[re, im]");
        Complex::new(F::from_json(&parts[0]), F::from_json(&parts[1]))
    }
    fn same(&self, other: &Self) -> bool {
        self.re.same(&other.re) && self.im.same(&other.im)
    }
}

impl Expected for bool {
    fn from_json(v: &Json) -> Self {
        v.as_bool().expect("bool")
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

/// Every logical index of `get` and, for C order, every memory position of `data` holds the
/// manifest's value.
fn check_values<T: Expected>(
    e: &Json,
    order: MemoryOrder,
    data: &[T],
    get: impl Fn(&[u64]) -> Option<T>,
) -> Result<(), String> {
    let want: Vec<T> = leaves(e).iter().map(T::from_json).collect();
    let shape = shape_of(e);
    if data.len() != want.len() {
        return Err(format!(
            "{} elements, manifest has {}",
            data.len(),
            want.len()
        ));
    }
    for (k, w) in want.iter().enumerate() {
        let idx = unravel(k as u64, &shape);
        let got = get(&idx).ok_or_else(|| format!("no element at {idx:?}"))?;
        if !got.same(w) {
            return Err(format!("at {idx:?}: {got:?}, manifest {w:?}"));
        }
        if order == MemoryOrder::C && !data[k].same(w) {
            return Err(format!("data[{k}]: {:?}, manifest {w:?}", data[k]));
        }
    }
    Ok(())
}

/// One fixture of a native-layout type: views in place when aligned, and checks the values.
/// Byte-swapped fixtures must refuse the view and decode through `view_or_copy`.
fn check_fixture<T>(e: &Json) -> Result<(), String>
where
    T: NpyElement + CheckedBitPattern + Expected + Clone,
{
    let file = e["file"].as_str().unwrap();
    let buf = Aligned::new(&read_fixture(file), 0);
    let bytes = buf.bytes();
    let swapped = e["byte_order"] == "big";
    match NpyView::<T>::new(bytes).map_err(Error::into_kind) {
        Ok(view) if !swapped => {
            if view.shape() != shape_of(e) {
                return Err(format!("shape {:?}", view.shape()));
            }
            let order = if e["fortran_order"] == true {
                MemoryOrder::Fortran
            } else {
                MemoryOrder::C
            };
            if view.order() != order {
                return Err(format!("order {:?}", view.order()));
            }
            // Zero copy: the slice points into the buffer, right after the header.
            if !view.is_empty() {
                let at = view.data().as_ptr() as usize - bytes.as_ptr() as usize;
                if at as u64 != e["data_offset"].as_u64().unwrap() {
                    return Err(format!("data borrowed from byte {at}"));
                }
            }
            check_values(e, order, view.data(), |i| view.get(i).copied())?;
            match view_or_copy::<T>(bytes) {
                Ok(a) if a.is_borrowed() && a.shape() == view.shape() => {}
                other => return Err(format!("view_or_copy did not borrow: {other:?}")),
            }
        }
        Err(ErrorKind::NotViewable { reason, .. }) if swapped => {
            if !reason.contains("byte-swapped") {
                return Err(format!("reason {reason:?}"));
            }
            let copy = match view_or_copy::<T>(bytes).map(npy_core::view::ViewOrCopy::into_data) {
                Ok(Cow::Owned(v)) => v,
                other => return Err(format!("view_or_copy on swapped data: {other:?}")),
            };
            let header = Header::read(&mut &bytes[..]).map_err(|e| e.to_string())?;
            let order = if header.header.fortran_order {
                MemoryOrder::Fortran
            } else {
                MemoryOrder::C
            };
            let array = npy_core::NpyArray::from_parts(header.header.shape, order, copy)
                .map_err(|e| e.to_string())?;
            check_values(e, order, array.data(), |i| array.get(i).copied())?;
        }
        other => return Err(format!("swapped={swapped}: {other:?}")),
    }
    Ok(())
}

#[test]
#[cfg_attr(miri, ignore = "parses the fixtures' manifest: too slow under Miri")]
fn every_native_number_fixture_views_in_place_and_swapped_ones_copy() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for e in manifest() {
        let dtype = e["dtype_str"].as_str().unwrap();
        let res = match &dtype[1..] {
            "i1" => check_fixture::<i8>(&e),
            "i2" => check_fixture::<i16>(&e),
            "i4" => check_fixture::<i32>(&e),
            "i8" => check_fixture::<i64>(&e),
            "u1" => check_fixture::<u8>(&e),
            "u2" => check_fixture::<u16>(&e),
            "u4" => check_fixture::<u32>(&e),
            "u8" => check_fixture::<u64>(&e),
            "f2" => check_fixture::<f16>(&e),
            "f4" => check_fixture::<f32>(&e),
            "f8" => check_fixture::<f64>(&e),
            "c8" => check_fixture::<Complex<f32>>(&e),
            "c16" => check_fixture::<Complex<f64>>(&e),
            "b1" => check_fixture::<bool>(&e),
            _ => continue,
        };
        checked += 1;
        if let Err(msg) = res {
            failures.push(format!("{}: {msg}", e["file"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 11 multi-byte dtypes × 8 files (both byte orders), i1, u1 and b1 × 6, w_f32 and
    // long_shape (u1, 16 dimensions).
    assert_eq!(checked, 11 * 8 + 3 * 6 + 2);
}

#[test]
fn format_card_file_views_as_arange_over_8() {
    let buf = Aligned::new(&read_fixture("w_f32.npy"), 0);
    let view = NpyView::<f32>::new(buf.bytes()).unwrap();
    assert_eq!(view.shape(), [4, 64]);
    assert_eq!(view.data_offset(), 128);
    assert_eq!(view.len(), 256);
    let want: Vec<f32> = (0..256).map(|i| i as f32 / 8.0).collect();
    assert_eq!(view.data(), want);
    assert_eq!(view.get(&[3, 63]), Some(&31.875));
    assert_eq!(
        view.to_array(),
        npy_core::read::<f32>(fixtures_dir().join("w_f32.npy")).unwrap()
    );
}

#[test]
#[cfg_attr(miri, ignore = "parses the fixtures' manifest: too slow under Miri")]
fn fortran_order_view_keeps_memory_order_and_indexes_logically() {
    let e = entry("f8_le_f_2x3x4.npy");
    let buf = Aligned::new(&read_fixture("f8_le_f_2x3x4.npy"), 0);
    let view = NpyView::<f64>::new(buf.bytes()).unwrap();
    assert_eq!(view.order(), MemoryOrder::Fortran);
    let want: Vec<f64> = leaves(&e).iter().map(json_f64).collect();
    // Memory order: the first index varies fastest, so element 1 is [1, 0, 0] = want[12].
    assert!(same_f64(view.data()[1], want[12]));
    assert!(same_f64(*view.get(&[1, 0, 0]).unwrap(), want[12]));
    assert!(same_f64(*view.get(&[0, 0, 1]).unwrap(), want[1]));
    assert_eq!(view.get(&[2, 0, 0]), None);
    assert_eq!(view.get(&[0, 0]), None);
}

#[test]
#[cfg_attr(miri, ignore = "parses the fixtures' manifest: too slow under Miri")]
fn misaligned_buffer_is_an_error_and_view_or_copy_copies() {
    let e = entry("f8_le_c_2x3x4.npy");
    let buf = Aligned::new(&read_fixture("f8_le_c_2x3x4.npy"), 1);
    let err = NpyView::<f64>::new(buf.bytes()).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Misaligned {
                offset: 128,
                align: 8
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("not aligned to 8 bytes"), "{err}");
    let Ok(Cow::Owned(copy)) =
        view_or_copy::<f64>(buf.bytes()).map(npy_core::view::ViewOrCopy::into_data)
    else {
        panic!("view_or_copy of misaligned data should copy");
    };
    let want: Vec<f64> = leaves(&e).iter().map(json_f64).collect();
    assert_eq!(copy.len(), want.len());
    assert!(copy.iter().zip(&want).all(|(a, b)| same_f64(*a, *b)));
    // One-byte types have no alignment to miss.
    let buf = Aligned::new(&read_fixture("u1_na_c_5.npy"), 1);
    assert_eq!(NpyView::<u8>::new(buf.bytes()).unwrap().len(), 5);
}

#[test]
#[cfg_attr(miri, ignore = "parses the fixtures' manifest: too slow under Miri")]
fn byte_swapped_file_is_not_viewable_and_the_copy_is_right() {
    let e = entry("f8_be_c_2x3x4.npy");
    let buf = Aligned::new(&read_fixture("f8_be_c_2x3x4.npy"), 0);
    let err = NpyView::<f64>::new(buf.bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "file has dtype '>f8' (float64), requested f64 ('<f8'): the bytes are byte-swapped; \
         use view_or_copy or a copying read"
    );
    let copy = view_or_copy::<f64>(buf.bytes()).unwrap();
    assert!(!copy.is_borrowed());
    let want: Vec<f64> = leaves(&e).iter().map(json_f64).collect();
    assert_eq!(want.len(), 24);
    assert!(copy.iter().zip(&want).all(|(a, b)| same_f64(*a, *b)));
}

#[test]
fn another_dtype_is_a_type_mismatch_for_view_and_copy() {
    let buf = Aligned::new(&read_fixture("f8_le_c_5.npy"), 0);
    for err in [
        NpyView::<f32>::new(buf.bytes()).unwrap_err(),
        view_or_copy::<f32>(buf.bytes()).unwrap_err(),
        NpyView::<i64>::new(buf.bytes()).unwrap_err(),
    ] {
        assert!(
            matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
            "{err:?}"
        );
    }
    let buf = Aligned::new(&read_fixture("i4_le_c_2x3x4.npy"), 0);
    let err = NpyView::<u32>::new(buf.bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "file has dtype '<i4' (int32), requested u32 ('<u4')"
    );
}

#[test]
fn short_data_is_truncated_and_trailing_bytes_are_ignored() {
    let mut file = read_fixture("i4_le_c_2x3x4.npy");
    let buf = Aligned::new(&file[..file.len() - 1], 0);
    for err in [
        NpyView::<i32>::new(buf.bytes()).unwrap_err(),
        view_or_copy::<i32>(buf.bytes()).unwrap_err(),
    ] {
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Truncated {
                    what: "array data",
                    needed: 96,
                    found: 95
                }
            ),
            "{err:?}"
        );
    }
    // The header alone.
    let buf = Aligned::new(&file[..128], 0);
    assert!(matches!(
        NpyView::<i32>::new(buf.bytes()).map_err(Error::into_kind),
        Err(ErrorKind::Truncated { found: 0, .. })
    ));
    file.extend_from_slice(b"trailing");
    let buf = Aligned::new(&file, 0);
    assert_eq!(NpyView::<i32>::new(buf.bytes()).unwrap().len(), 24);
}

#[test]
fn object_arrays_are_refused() {
    let mut file = Header::new("|O".parse().unwrap(), vec![2])
        .to_bytes(None)
        .unwrap();
    file.extend_from_slice(&[0x80; 16]);
    let buf = Aligned::new(&file, 0);
    assert!(matches!(
        NpyView::<u64>::new(buf.bytes()).map_err(Error::into_kind),
        Err(ErrorKind::ObjectArray { .. })
    ));
    assert!(matches!(
        view_or_copy::<u64>(buf.bytes()).map_err(Error::into_kind),
        Err(ErrorKind::ObjectArray { .. })
    ));
}

#[test]
fn not_npy_input_is_a_header_error() {
    assert!(matches!(
        NpyView::<f32>::new(b"").map_err(Error::into_kind),
        Err(ErrorKind::NotNpy(_))
    ));
    assert!(matches!(
        NpyView::<f32>::new(b"PK\x03\x04rest").map_err(Error::into_kind),
        Err(ErrorKind::NotNpy(_))
    ));
    assert!(matches!(
        NpyView::<f32>::new(b"\x93NUMPY\x01\x00\xff").map_err(Error::into_kind),
        Err(ErrorKind::Truncated { .. })
    ));
}

#[test]
fn bool_views_only_zero_and_one_bytes() {
    let file = read_fixture("b1_na_c_5.npy");
    let view = NpyView::<bool>::new(&file).unwrap();
    assert_eq!(view.data(), [true, false, false, false, true]);
    let mut bad = file.clone();
    let at = bad.len() - 2;
    bad[at] = 2;
    // numpy reads the byte as True, but a Rust bool cannot hold it: no view, naming where.
    assert!(matches!(
        NpyView::<bool>::new(&bad).map_err(Error::into_kind),
        Err(ErrorKind::NonCanonicalBool { byte: 2, offset }) if offset == at as u64
    ));
    // The copying read decodes it as numpy does (np.load gives [True, False, False, True, True]).
    let copy = view_or_copy::<bool>(&bad).unwrap();
    assert!(!copy.is_borrowed());
    assert_eq!(*copy, [true, false, false, true, true]);
    // b1 is not u1: no reinterpreting the bytes as another type.
    assert!(matches!(
        NpyView::<u8>::new(&bad).map_err(Error::into_kind),
        Err(ErrorKind::TypeMismatch { .. })
    ));
}

#[test]
fn empty_and_scalar_arrays() {
    // Zero elements need no alignment: an empty slice whatever the buffer.
    for (file, shape) in [("f8_le_c_0.npy", vec![0]), ("f8_le_c_3x0.npy", vec![3, 0])] {
        let buf = Aligned::new(&read_fixture(file), 1);
        let view = NpyView::<f64>::new(buf.bytes()).unwrap();
        assert!(view.is_empty());
        assert_eq!(view.shape(), shape);
        assert_eq!(view.to_array().len(), 0);
    }
    let buf = Aligned::new(&read_fixture("f8_le_c_scalar.npy"), 0);
    let view = NpyView::<f64>::new(buf.bytes()).unwrap();
    assert_eq!(view.shape(), [] as [u64; 0]);
    assert_eq!(view.data(), [f64::INFINITY]);
    assert_eq!(view.get(&[]), Some(&f64::INFINITY));
}

/// A format 1.0 file whose header is padded so that the data starts at `data_offset` (numpy
/// before 1.9 padded to 16 bytes; anything else is hand-made).
fn file_with_offset(descr: &str, n: usize, data_offset: usize, data: &[u8]) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}");
    let header_len = data_offset - 10;
    let mut text = dict.into_bytes();
    text.resize(header_len - 1, b' ');
    text.push(b'\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(header_len as u16).to_le_bytes());
    file.extend_from_slice(&text);
    file.extend_from_slice(data);
    file
}

#[test]
fn data_offset_alignment_decides_for_each_type() {
    let values = [1.5f64, -2.0, 1e300];
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    // 16-aligned (old numpy): fine for f8.
    let buf = Aligned::new(&file_with_offset("<f8", 3, 80, &data), 0);
    assert_eq!(NpyView::<f64>::new(buf.bytes()).unwrap().data(), values);
    // 4 bytes off: an f8 view is misaligned even from an aligned buffer...
    let buf = Aligned::new(&file_with_offset("<f8", 3, 84, &data), 0);
    assert!(matches!(
        NpyView::<f64>::new(buf.bytes()).map_err(Error::into_kind),
        Err(ErrorKind::Misaligned {
            offset: 84,
            align: 8
        })
    ));
    assert_eq!(*view_or_copy::<f64>(buf.bytes()).unwrap(), values);
    // ...while i4 data at the same offset views.
    let ints: Vec<u8> = [7i32, -8].iter().flat_map(|v| v.to_le_bytes()).collect();
    let buf = Aligned::new(&file_with_offset("<i4", 2, 84, &ints), 0);
    assert_eq!(NpyView::<i32>::new(buf.bytes()).unwrap().data(), [7, -8]);
}

#[test]
fn a_view_outlives_the_view_value() {
    let buf = Aligned::new(&read_fixture("i2_le_c_5.npy"), 0);
    let data: &[i16] = {
        let view = NpyView::<i16>::new(buf.bytes()).unwrap();
        view.data()
    };
    assert_eq!(data.len(), 5);
}
