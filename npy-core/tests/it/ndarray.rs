//! `ndarray` interop (feature `ndarray`): reading numpy's C and Fortran fixtures, writing every
//! layout, byte for byte against numpy where numpy wrote the same array.
#![cfg(feature = "ndarray")]

use std::fs;
use std::path::PathBuf;

use ndarray::{arr0, s, Array, Array3, ArrayD, Axis, Ix2, Ix3, IxDyn};
use npy_core::{
    read_ndarray, write_ndarray, ByteOrder, ErrorKind, MemoryOrder, NpyReader, NpyView,
    WriteOptions,
};
use npy_test_support::fixture;
use serde_json::Value as Json;

/// The logical (C-order) array numpy's manifest records for an integer fixture.
fn manifest_i32(file: &str) -> ArrayD<i32> {
    let text = fs::read_to_string(fixture("manifest.json")).expect("manifest.json");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    let e = m["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == file)
        .unwrap_or_else(|| panic!("{file} not in the manifest"))
        .clone();
    let shape: Vec<usize> = e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    fn walk(v: &Json, out: &mut Vec<i32>) {
        match v.as_array() {
            Some(xs) => xs.iter().for_each(|x| walk(x, out)),
            None => out.push(i32::try_from(v.as_i64().unwrap()).unwrap()),
        }
    }
    let mut values = Vec::new();
    walk(&e["data"], &mut values);
    ArrayD::from_shape_vec(IxDyn(&shape), values).unwrap()
}

fn temp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn fortran_fixture_and_its_c_twin_read_equal_with_the_manifest_values() {
    let want = manifest_i32("i4_le_c_2x3x4.npy");
    assert_eq!(manifest_i32("i4_le_f_2x3x4.npy"), want);
    let c = read_ndarray::<i32, IxDyn>(fixture("i4_le_c_2x3x4.npy")).unwrap();
    let f = read_ndarray::<i32, IxDyn>(fixture("i4_le_f_2x3x4.npy")).unwrap();
    assert_eq!(c, want);
    assert_eq!(f, want);
    assert!(c.is_standard_layout());
    // The Fortran file keeps its memory: Fortran strides, not a reordered copy.
    assert!(!f.is_standard_layout());
    assert!(f.t().is_standard_layout());
    assert_eq!(f.strides(), [1, 2, 6]);
    assert_eq!(f[[1, 2, 3]], want[[1, 2, 3]]);
    // Big-endian twins decode to the same arrays.
    assert_eq!(
        read_ndarray::<i32, IxDyn>(fixture("i4_be_f_2x3x4.npy")).unwrap(),
        want
    );
    assert_eq!(
        read_ndarray::<i32, IxDyn>(fixture("i4_be_c_2x3x4.npy")).unwrap(),
        want
    );
}

#[test]
fn fixed_dimension_reads_check_the_number_of_dimensions() {
    let a: Array3<i32> = read_ndarray::<i32, Ix3>(fixture("i4_le_f_2x3x4.npy")).unwrap();
    assert_eq!(a.into_dyn(), manifest_i32("i4_le_c_2x3x4.npy"));
    let err = read_ndarray::<i32, Ix2>(fixture("i4_le_c_2x3x4.npy")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::DimensionMismatch { ref shape, expected: 2 } if shape == &[2, 3, 4]),
        "{err:?}"
    );
    assert_eq!(err.path(), Some(fixture("i4_le_c_2x3x4.npy").as_path()));
    assert_eq!(
        err.kind().to_string(),
        "file has shape [2, 3, 4] (3 dimensions), requested a 2-dimensional array"
    );
    // Via TryFrom on an owned NpyArray.
    let owned = npy_core::read::<i32>(fixture("i4_le_c_2x3x4.npy")).unwrap();
    assert!(owned.clone().into_ndarray::<Ix2>().is_err());
    let a3 = owned.into_ndarray::<ndarray::Ix3>().unwrap();
    assert_eq!(a3.shape(), [2, 3, 4]);
    // Scalars are 0-dimensional.
    let s = read_ndarray::<i32, IxDyn>(fixture("i4_le_c_scalar.npy")).unwrap();
    assert_eq!(s.ndim(), 0);
    assert_eq!(s, manifest_i32("i4_le_c_scalar.npy"));
    let err = read_ndarray::<f32, IxDyn>(fixture("i4_le_c_scalar.npy")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TypeMismatch { .. }));
}

#[test]
fn c_and_fortran_arrays_write_byte_identical_to_numpy() {
    let dir = tempfile::tempdir().unwrap();
    let c = manifest_i32("i4_le_c_2x3x4.npy");
    // The same logical array with Fortran memory: reversed axes of a C array of shape (4, 3, 2).
    let f = c.t().as_standard_layout().into_owned().reversed_axes();
    assert_eq!(f, c);
    assert!(f.t().is_standard_layout() && !f.is_standard_layout());
    for (array, numpy) in [(&c, "i4_le_c_2x3x4.npy"), (&f, "i4_le_f_2x3x4.npy")] {
        let path = temp_path(&dir, numpy);
        write_ndarray(&path, array).unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            fs::read(fixture(numpy)).unwrap(),
            "{numpy}"
        );
        assert_eq!(read_ndarray::<i32, IxDyn>(&path).unwrap(), c);
    }
    // Options apply: big-endian, to a writer.
    let mut out = Vec::new();
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_ndarray_to(&mut out, &f)
        .unwrap();
    assert_eq!(out, fs::read(fixture("i4_be_f_2x3x4.npy")).unwrap());
    // 0-d.
    let path = temp_path(&dir, "scalar.npy");
    let scalar = manifest_i32("i4_le_c_scalar.npy");
    write_ndarray(&path, &scalar).unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        fs::read(fixture("i4_le_c_scalar.npy")).unwrap()
    );
    write_ndarray(&path, &arr0(5u8)).unwrap();
    assert_eq!(
        read_ndarray::<u8, IxDyn>(&path).unwrap(),
        arr0(5u8).into_dyn()
    );
}

#[test]
fn non_contiguous_arrays_write_in_logical_c_order() {
    let dir = tempfile::tempdir().unwrap();
    let c = manifest_i32("i4_le_c_2x3x4.npy");
    let a2 = c.clone().into_shape_with_order((6, 4)).unwrap();
    let cases: Vec<(&str, ArrayD<i32>)> = vec![
        (
            "every other column",
            a2.slice(s![.., ..;2]).to_owned().into_dyn(),
        ),
        (
            "every other row, transposed",
            a2.slice(s![..;2, ..]).t().to_owned().into_dyn(),
        ),
        (
            "reversed columns",
            a2.slice(s![.., ..;-1]).to_owned().into_dyn(),
        ),
        (
            "3-d middle slice",
            c.slice(s![.., 1.., ..;3]).to_owned().into_dyn(),
        ),
    ];
    let views = [
        a2.slice(s![.., ..;2]).into_dyn(),
        a2.slice(s![..;2, ..]).reversed_axes().into_dyn(),
        a2.slice(s![.., ..;-1]).into_dyn(),
        c.slice(s![.., 1.., ..;3]).into_dyn(),
    ];
    for ((name, want), view) in cases.iter().zip(&views) {
        assert!(
            view.as_slice().is_none() && view.t().as_slice().is_none(),
            "{name}"
        );
        let path = temp_path(&dir, "strided.npy");
        write_ndarray(&path, view).unwrap();
        let r = NpyReader::open(&path).unwrap();
        assert!(!r.header().fortran_order, "{name}");
        assert_eq!(read_ndarray::<i32, IxDyn>(&path).unwrap(), want, "{name}");
    }
    // Fixed-dimension arrays (Ix2) and views of views work the same.
    let path = temp_path(&dir, "two.npy");
    write_ndarray(&path, &a2.slice(s![1..;2, ..;2])).unwrap();
    let back = read_ndarray::<i32, Ix2>(&path).unwrap();
    assert_eq!(back, a2.slice(s![1..;2, ..;2]));
    assert_eq!(back.len_of(Axis(0)), 3);
}

#[test]
fn a_zero_copy_view_becomes_an_ndarray_view() {
    let bytes = fs::read(fixture("i4_le_f_2x3x4.npy")).unwrap();
    // i4 needs 4-byte alignment: copy into u32 storage.
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    let aligned = &bytemuck::cast_slice::<u32, u8>(&words)[..bytes.len()];
    let view = NpyView::<i32>::new(aligned).unwrap();
    let nd = view.as_ndarray::<IxDyn>().unwrap();
    assert_eq!(nd, manifest_i32("i4_le_c_2x3x4.npy"));
    assert_eq!(nd.as_ptr(), view.data().as_ptr());
    let fixed = view.as_ndarray::<Ix3>().unwrap();
    assert_eq!(fixed.into_dyn(), manifest_i32("i4_le_c_2x3x4.npy"));
    let err = view.as_ndarray::<Ix2>().unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::DimensionMismatch { expected: 2, .. }
    ));
}

#[test]
fn the_dimension_is_inferred_from_the_target_type() {
    let want = manifest_i32("i4_le_c_2x3x4.npy");
    let a: Array3<i32> = read_ndarray(fixture("i4_le_f_2x3x4.npy")).unwrap();
    assert_eq!(a.into_dyn(), want);
    let d: ArrayD<i32> = read_ndarray(fixture("i4_le_f_2x3x4.npy")).unwrap();
    assert_eq!(d, want);
    // The same from a reader.
    let file = fs::File::open(fixture("i4_be_f_2x3x4.npy")).unwrap();
    let mut r = NpyReader::new(file).unwrap();
    let b: Array3<i32> = r.read_ndarray().unwrap();
    assert_eq!(b.into_dyn(), want);
    let mut r = NpyReader::open(fixture("i4_le_c_2x3x4.npy")).unwrap();
    let err = r.read_ndarray::<i32, Ix2>().unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::DimensionMismatch { expected: 2, .. }
    ));
    // Nothing was read: the reader still holds the whole array.
    assert_eq!(r.remaining(), 24);
}

#[cfg(feature = "mmap")]
#[test]
fn a_map_becomes_an_ndarray_view_in_one_call() {
    let want = manifest_i32("i4_le_c_2x3x4.npy");
    for file in ["i4_le_c_2x3x4.npy", "i4_le_f_2x3x4.npy"] {
        // SAFETY: fixtures are not modified while the tests run.
        let m = unsafe { npy_core::NpyMmap::<i32>::open(fixture(file)).unwrap() };
        let a = m.as_ndarray::<Ix3>().unwrap();
        assert_eq!(a.into_dyn(), want, "{file}");
        assert_eq!(m.as_ndarray::<IxDyn>().unwrap().as_ptr(), m.data().as_ptr());
        assert!(matches!(
            m.as_ndarray::<Ix2>().unwrap_err().kind(),
            ErrorKind::DimensionMismatch { expected: 2, .. }
        ));
    }
}

/// `WriteOptions::order` takes effect for ndarray arrays whatever their layout: the bytes are
/// numpy's own file of that order.
#[test]
fn an_order_option_is_honoured_for_every_layout() {
    let c = manifest_i32("i4_le_c_2x3x4.npy");
    let f = c.t().as_standard_layout().into_owned().reversed_axes();
    // A non-contiguous view holding the same values: the middle of a wider array.
    let wide = ndarray::concatenate(Axis(2), &[c.view(), c.view(), c.view()])
        .unwrap()
        .as_standard_layout()
        .into_owned();
    let strided = wide.slice(s![.., .., 4..8]).into_dyn();
    assert_eq!(strided, c);
    assert!(strided.as_slice().is_none() && strided.t().as_slice().is_none());
    for (name, array) in [
        ("c", c.view()),
        ("f", f.view()),
        ("strided", strided.view()),
    ] {
        for (order, byte_order, numpy) in [
            (MemoryOrder::Fortran, ByteOrder::Little, "i4_le_f_2x3x4.npy"),
            (MemoryOrder::C, ByteOrder::Little, "i4_le_c_2x3x4.npy"),
            (MemoryOrder::Fortran, ByteOrder::Big, "i4_be_f_2x3x4.npy"),
            (MemoryOrder::C, ByteOrder::Big, "i4_be_c_2x3x4.npy"),
        ] {
            let mut out = Vec::new();
            WriteOptions::new()
                .order(order)
                .byte_order(byte_order)
                .write_ndarray_to(&mut out, &array)
                .unwrap();
            assert_eq!(out, fs::read(fixture(numpy)).unwrap(), "{name} as {numpy}");
        }
    }
}

#[test]
fn strings_take_their_width_from_the_values_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let c: ArrayD<String> = read_ndarray(fixture("U5_le_c_2x3x4.npy")).unwrap();
    let wide = ndarray::concatenate(Axis(2), &[c.view(), c.view()])
        .unwrap()
        .as_standard_layout()
        .into_owned();
    let strided = wide.slice(s![.., .., ..4]).into_dyn();
    assert!(strided.as_slice().is_none() && strided.t().as_slice().is_none());
    for (name, array) in [("c", c.view()), ("strided", strided)] {
        let path = temp_path(&dir, "u.npy");
        WriteOptions::new()
            .order(MemoryOrder::Fortran)
            .write_ndarray_path(&path, &array)
            .unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            fs::read(fixture("U5_le_f_2x3x4.npy")).unwrap(),
            "{name}"
        );
    }
}

/// The element-by-element path writes in chunks of 64 KiB: an array of several chunks, not a
/// multiple of one, comes back whole, in the order asked for.
#[test]
fn reordered_writes_cross_chunk_boundaries() {
    let rows = 203;
    let cols = 301; // 61,103 elements of 4 bytes: 3 chunks of 16,384 and a partial one
    let a = Array::from_shape_fn((rows, cols), |(i, j)| (i * 1000 + j) as i32);
    let mut out = Vec::new();
    WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_ndarray_to(&mut out, &a)
        .unwrap();
    let mut r = NpyReader::new(&out[..]).unwrap();
    assert!(r.header().fortran_order);
    let data = r.read_vec::<i32>().unwrap();
    // Fortran order: element (i, j) at i + j * rows (NEP 1).
    for ((i, j), &v) in a.indexed_iter() {
        assert_eq!(data[i + j * rows], v);
    }
}

#[test]
fn subarray_elements_in_fortran_order_are_refused() {
    let a = Array::from_elem((2, 2), [1u8, 2]);
    let err = WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_ndarray_to(Vec::new(), &a)
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
}

/// Shapes are `&[usize]` in ndarray: `write` takes them as they are.
#[test]
fn write_takes_an_ndarray_shape() {
    let dir = tempfile::tempdir().unwrap();
    let c = manifest_i32("i4_le_c_2x3x4.npy");
    let path = temp_path(&dir, "usize.npy");
    npy_core::write(&path, c.as_slice().unwrap(), c.shape()).unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        fs::read(fixture("i4_le_c_2x3x4.npy")).unwrap()
    );
    let dims: Vec<usize> = vec![2, 3, 4];
    let mut out = Vec::new();
    WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_to(
            &mut out,
            c.t().as_standard_layout().as_slice().unwrap(),
            &dims[..],
        )
        .unwrap();
    assert_eq!(out, fs::read(fixture("i4_le_f_2x3x4.npy")).unwrap());
}

/// numpy stores `[T; N]` elements as trailing dimensions: a (3, 2) `<f4` file is a 1-d array
/// of `[f32; 2]`, and the dimension check counts the element's dimensions out.
#[test]
fn subarray_elements_take_the_trailing_dimensions() {
    let mut bytes = Vec::new();
    WriteOptions::new()
        .write_to(&mut bytes, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])
        .unwrap();
    let a: ndarray::Array1<[f32; 2]> = NpyReader::new(&bytes[..]).unwrap().read_ndarray().unwrap();
    assert_eq!(a.to_vec(), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_ndarray::<[f32; 2], Ix2>()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::DimensionMismatch { expected: 2, .. }),
        "{err}"
    );
}

#[test]
fn appended_arrays_of_either_layout_rebuild_numpy_files() {
    // The C and Fortran fixtures hold the same logical values: each file is rebuilt from the
    // other's array, so every append after the first goes through the copying path, and from
    // its own, which is written from memory.
    let dir = tempfile::tempdir().unwrap();
    let c = read_ndarray::<f64, ndarray::IxDyn>(fixture("f8_le_c_2x3x4.npy")).unwrap();
    let f = read_ndarray::<f64, ndarray::IxDyn>(fixture("f8_le_f_2x3x4.npy")).unwrap();
    for (name, first, rest) in [
        ("f8_le_c_2x3x4.npy", &c, &f),
        ("f8_le_c_2x3x4.npy", &c, &c),
        ("f8_le_f_2x3x4.npy", &f, &c),
        ("f8_le_f_2x3x4.npy", &f, &f),
    ] {
        let path = temp_path(&dir, name);
        let fortran = name.contains("_f_");
        if fortran {
            write_ndarray(&path, &first.slice(s![.., .., ..1])).unwrap();
        } else {
            write_ndarray(&path, &first.slice(s![..1, .., ..])).unwrap();
        }
        let mut w = npy_core::NpyAppender::open(&path).unwrap();
        if fortran {
            w.append_ndarray(&rest.slice(s![.., .., 1..3])).unwrap();
            w.append_ndarray(&rest.slice(s![.., .., 3..])).unwrap();
        } else {
            w.append_ndarray(&rest.slice(s![1.., .., ..])).unwrap();
        }
        drop(w);
        assert_eq!(
            fs::read(&path).unwrap(),
            fs::read(fixture(name)).unwrap(),
            "{name} rebuilt"
        );
    }
}

/// Errors of a map's later calls name the mapped file, as its open does.
#[cfg(feature = "mmap")]
#[test]
fn map_errors_name_the_file() {
    let path = npy_test_support::fixture("f4_le_c_2x3x4.npy");
    // SAFETY: the fixtures are not modified while mapped.
    let m = unsafe { npy_core::NpyMmap::<f32>::open(&path) }.unwrap();
    assert_eq!(m.path(), path);
    let err = m.as_ndarray::<ndarray::Ix2>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::DimensionMismatch { expected: 2, .. }),
        "{err:?}"
    );
    assert_eq!(err.path(), Some(path.as_path()));
    assert!(
        err.to_string()
            .starts_with(&format!("{}: ", path.display())),
        "{err}"
    );
}

/// `read_ndarray_with` takes the options `read_with` takes: a widening read.
#[test]
fn read_ndarray_with_widens_as_numpys_astype() {
    let path = npy_test_support::fixture("f4_le_c_2x3x4.npy");
    let narrow: ndarray::Array3<f32> = npy_core::read_ndarray(&path).unwrap();
    let safe = npy_core::ReadOptions::default().casting(npy_core::read::Casting::Safe);
    let wide: ndarray::Array3<f64> = npy_core::read_ndarray_with(&path, &safe).unwrap();
    assert_eq!(wide.shape(), narrow.shape());
    for (w, n) in wide.iter().zip(narrow.iter()) {
        assert!(
            w.to_bits() == f64::from(*n).to_bits() || (w.is_nan() && n.is_nan()),
            "{w} {n}"
        );
    }
    let err = npy_core::read_ndarray::<f64, ndarray::Ix3>(&path).unwrap_err();
    assert!(err.to_string().contains("Casting::Safe"), "{err}");
}
