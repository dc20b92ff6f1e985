//! Memory-mapped views (feature `mmap`) over the numpy fixtures and hand-made files.
#![cfg(feature = "mmap")]

use std::fs;
use std::path::Path;

use npy_core::bytemuck::CheckedBitPattern;
use npy_core::{Error, ErrorKind, MemoryOrder, NpyElement, NpyMmap, NpyMmapMut};
use npy_test_support::fixture;
use serde_json::Value as Json;

/// [`npy_core::NpyMmap::open`], for the files of these tests.
fn mmap<T: NpyElement + CheckedBitPattern>(path: impl AsRef<Path>) -> Result<NpyMmap<T>, Error> {
    // SAFETY: the fixtures and these tests' temporary files are not modified in place while
    // mapped (the one test that replaces a mapped file does so by rename, which is allowed).
    unsafe { npy_core::NpyMmap::open(path) }
}

fn manifest_entry(file: &str) -> Json {
    let text = fs::read_to_string(fixture("manifest.json")).expect("manifest.json");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    m["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["file"] == file)
        .cloned()
        .unwrap_or_else(|| panic!("{file} not in the manifest"))
}

#[test]
fn format_card_file_maps_to_the_manifest_values() {
    let e = manifest_entry("w_f32.npy");
    let want: Vec<f32> = e["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter())
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(want.len(), 256);
    assert!(want.iter().enumerate().all(|(i, &v)| v == i as f32 / 8.0));

    let m = mmap::<f32>(fixture("w_f32.npy")).unwrap();
    assert_eq!(m.shape(), [4, 64]);
    assert_eq!(m.order(), MemoryOrder::C);
    assert_eq!(m.len(), 256);
    assert_eq!(m.data(), want);
    assert_eq!(m.get(&[1, 0]), Some(&8.0));
    // Borrowed from the mapping, right after the 128-byte header.
    let at = m.data().as_ptr() as usize - m.as_bytes().as_ptr() as usize;
    assert_eq!(at, 128);
    assert_eq!(m.data_offset(), 128);
    assert_eq!(m.view().data(), want);
    assert_eq!(m.to_array().data(), want);
}

#[test]
fn fortran_order_and_bool_fixtures_map() {
    let m = mmap::<i32>(fixture("i4_le_f_2x3x4.npy")).unwrap();
    let c = mmap::<i32>(fixture("i4_le_c_2x3x4.npy")).unwrap();
    assert_eq!(m.order(), MemoryOrder::Fortran);
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                assert_eq!(m.get(&[i, j, k]), c.get(&[i, j, k]));
            }
        }
    }
    let b = mmap::<bool>(fixture("b1_na_c_5.npy")).unwrap();
    assert_eq!(b.data(), [true, false, false, false, true]);
}

#[test]
fn byte_swapped_and_other_dtypes_are_refused() {
    let err = mmap::<f64>(fixture("f8_be_c_2x3x4.npy")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::NotViewable { .. }),
        "{err:?}"
    );
    let err = mmap::<f32>(fixture("f8_le_c_5.npy")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err:?}"
    );
    let err = mmap::<f32>(fixture("does-not-exist.npy")).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err:?}");
}

/// A format 1.0 `<f8` file whose data starts at `data_offset`.
fn f8_file(values: &[f64], data_offset: usize) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    let header_len = data_offset - 10;
    let mut text = dict.into_bytes();
    text.resize(header_len - 1, b' ');
    text.push(b'\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(header_len as u16).to_le_bytes());
    file.extend_from_slice(&text);
    file.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    file
}

#[test]
fn data_offset_alignment_is_checked_not_assumed() {
    let dir = tempfile::tempdir().unwrap();
    let values = [0.25, -1.0, 3e-300];
    // numpy < 1.9 padded headers to 16 bytes: f8 data at 80 is aligned in a mapping.
    let old = dir.path().join("old.npy");
    fs::write(&old, f8_file(&values, 80)).unwrap();
    assert_eq!(mmap::<f64>(&old).unwrap().data(), values);
    // At 84 it is not: an error, not a misaligned reference.
    let odd = dir.path().join("odd.npy");
    fs::write(&odd, f8_file(&values, 84)).unwrap();
    assert!(matches!(
        mmap::<f64>(&odd).map_err(Error::into_kind),
        Err(ErrorKind::Misaligned {
            offset: 84,
            align: 8
        })
    ));
    // The copying read does not care.
    assert_eq!(npy_core::read::<f64>(&odd).unwrap().data(), values);
}

#[test]
fn empty_and_truncated_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.npy");
    fs::write(&empty, b"").unwrap();
    assert!(matches!(
        mmap::<f32>(&empty).map_err(Error::into_kind),
        Err(ErrorKind::NotNpy(_))
    ));
    let short = dir.path().join("short.npy");
    let bytes = fs::read(fixture("w_f32.npy")).unwrap();
    fs::write(&short, &bytes[..bytes.len() - 4]).unwrap();
    assert!(matches!(
        mmap::<f32>(&short).map_err(Error::into_kind),
        Err(ErrorKind::Truncated {
            needed: 1024,
            found: 1020,
            ..
        })
    ));
    let zero = dir.path().join("zero.npy");
    npy_core::write::<f64>(&zero, &[], &[0, 3]).unwrap();
    let m = mmap::<f64>(&zero).unwrap();
    assert!(m.is_empty());
    assert_eq!(m.shape(), [0, 3]);
}

#[test]
fn replacing_a_mapped_file_by_rename_leaves_the_mapping_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.npy");
    let first: Vec<u32> = (0..1000).collect();
    npy_core::write(&path, &first, &[10, 100]).unwrap();
    let m = mmap::<u32>(&path).unwrap();
    // The crate's writers go through a temporary file and a rename.
    npy_core::write(&path, &vec![7u32; 1000], &[1000]).unwrap();
    assert_eq!(m.shape(), [10, 100]);
    assert_eq!(m.data(), first);
    assert_eq!(mmap::<u32>(&path).unwrap().data(), vec![7u32; 1000]);
}

/// Creates a writable map with a fixture's shape and order, fills it with the fixture's values
/// and compares the file with numpy's. numpy's `open_memmap(mode='w+')` writes its header with
/// `_write_array_header(fp, d, version=None)`, as `np.save` does, and extends the file to the
/// end of the data, so its file for these values is the fixture byte for byte.
fn create_and_fill<T: NpyElement + CheckedBitPattern + npy_core::bytemuck::NoUninit + Clone>(
    dir: &Path,
    name: &str,
) {
    let a = npy_core::read::<T>(fixture(name)).unwrap();
    let path = dir.join(name);
    // SAFETY: a new file of this test's, touched only through this map.
    let mut m = unsafe { NpyMmapMut::<T>::create(&path, a.shape(), a.order()).unwrap() };
    assert_eq!(m.len(), a.data().len());
    m.data_mut().clone_from_slice(a.data());
    m.flush().unwrap();
    drop(m);
    assert_eq!(
        fs::read(&path).unwrap(),
        fs::read(fixture(name)).unwrap(),
        "{name}"
    );
}

#[test]
fn create_then_fill_writes_numpys_file() {
    let dir = tempfile::tempdir().unwrap();
    create_and_fill::<f64>(dir.path(), "f8_le_c_2x3x4.npy");
    create_and_fill::<f64>(dir.path(), "f8_le_f_2x3x4.npy");
    create_and_fill::<f32>(dir.path(), "f4_le_c_5.npy");
    create_and_fill::<i16>(dir.path(), "i2_le_c_3x0.npy");
    create_and_fill::<u8>(dir.path(), "u1_na_c_0.npy");
    create_and_fill::<bool>(dir.path(), "b1_na_f_2x3x4.npy");
    create_and_fill::<npy_core::num_complex::Complex<f32>>(dir.path(), "c8_le_c_2x3x4.npy");
    create_and_fill::<u64>(dir.path(), "u8_le_c_scalar.npy");
}

#[test]
fn an_existing_file_maps_writable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.npy");
    fs::copy(fixture("i4_le_f_2x3x4.npy"), &path).unwrap();
    let before = npy_core::read::<i32>(&path).unwrap();
    // SAFETY: a copy of the fixture that only this map touches.
    let mut m = unsafe { NpyMmapMut::<i32>::open(&path).unwrap() };
    assert_eq!(m.order(), MemoryOrder::Fortran);
    assert_eq!(m.data(), before.data());
    *m.get_mut(&[1, 0, 0]).unwrap() = 77; // Fortran order: element 1 in memory
    assert_eq!(m.get(&[1, 0, 0]), Some(&77));
    assert_eq!(m.get_mut(&[2, 0, 0]), None);
    drop(m);
    let after = npy_core::read::<i32>(&path).unwrap();
    assert_eq!(after.data()[1], 77);
    assert_eq!(after.data()[2..], before.data()[2..]);

    // The read-only checks run here too: byte-swapped data cannot be a mutable view.
    let be = dir.path().join("be.npy");
    fs::copy(fixture("i4_be_c_2x3x4.npy"), &be).unwrap();
    // SAFETY: as above.
    let err = unsafe { NpyMmapMut::<i32>::open(&be) }.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::NotViewable { .. }), "{err}");
    assert_eq!(err.path(), Some(be.as_path()));
}

#[cfg(unix)]
#[test]
fn a_large_array_costs_no_disk_until_written() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.npy");
    // 2 GiB of f64: sparse creation does not depend on the size, but opening a map checks
    // every element's bit pattern, a loop over all of them in a debug build.
    let n: u64 = 1 << 28;
    // SAFETY: a new file of this test's, touched only through this map.
    let mut m = unsafe { NpyMmapMut::<f64>::create(&path, &[n], MemoryOrder::C).unwrap() };
    let disk = || fs::metadata(&path).unwrap().blocks() * 512;
    assert!(disk() < 1 << 20, "{} bytes on disk after create", disk());
    assert_eq!(m.len() as u64, n);
    m.data_mut()[0] = 1.0;
    m.data_mut()[(n - 1) as usize] = 2.0;
    m.flush().unwrap();
    drop(m);
    assert_eq!(fs::metadata(&path).unwrap().len(), 128 + n * 8);
    assert!(
        disk() < 1 << 20,
        "{} bytes on disk after two writes",
        disk()
    );
    let r = mmap::<f64>(&path).unwrap();
    assert_eq!(r.shape(), [n]);
    assert_eq!(
        (r.data()[0], r.data()[1], r.data()[(n - 1) as usize]),
        (1.0, 0.0, 2.0)
    );
}
