//! Bool bytes (N22): numpy reads any non-zero `b1` byte as True. The `bool` files of
//! `fixtures/parity/` hold every byte value, 0/255 masks, bool fields and subarrays of records,
//! and Fortran order, each with numpy's `tolist()`; every reader gives numpy's values, the
//! strict check refuses exactly the bytes other than 0 and 1, and views refuse to borrow them.

use npy_core::{
    read::read_with, read_dyn, view::view_or_copy, Error, ErrorKind, NpyReader, NpyView,
    ReadOptions,
};
use serde_json::Value as Json;

use super::support::{files, path, tolist};

fn strict() -> ReadOptions {
    ReadOptions::default().strict_bools(true)
}

/// numpy's values in the file's memory order, flattened (bool arrays only).
fn numpy_memory_order(entry: &Json, fortran: bool) -> Vec<bool> {
    let shape: Vec<usize> = entry["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let mut c_order = Vec::new();
    fn flatten(j: &Json, out: &mut Vec<bool>) {
        match j {
            Json::Array(items) => items.iter().for_each(|i| flatten(i, out)),
            Json::Bool(b) => out.push(*b),
            other => panic!("not a bool: {other}"),
        }
    }
    flatten(&entry["tolist"], &mut c_order);
    if !fortran {
        return c_order;
    }
    // 2-d Fortran order: column by column.
    let (rows, cols) = (shape[0], shape[1]);
    (0..cols)
        .flat_map(|j| (0..rows).map(move |i| (i, j)))
        .map(|(i, j)| c_order[i * cols + j])
        .collect()
}

#[test]
fn every_reader_reads_bool_bytes_as_numpy() {
    for entry in files("bool") {
        let name = entry["file"].as_str().expect("file");
        let p = path(name);
        // read_dyn: numpy's tolist(), records and subarray fields included.
        let a = read_dyn(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tolist(&a), entry["tolist"], "{name}: read_dyn");
        let bytes = std::fs::read(&p).expect("read");
        let data_offset = NpyReader::new(&bytes[..]).expect("header").data_offset();
        // The strict check refuses the first byte other than 0 and 1 in a bool position.
        let err = NpyReader::with_options(&bytes[..], &strict())
            .and_then(|mut r| r.read_dyn())
            .expect_err(name);
        let ErrorKind::InvalidBool { byte, offset } = *err.kind() else {
            panic!("{name}: {err}");
        };
        assert!(byte > 1 && offset >= data_offset, "{name}: {err}");
        assert_eq!(
            bytes[offset as usize], byte,
            "{name}: the offset names the byte"
        );
        if entry["descr"] != "|b1" {
            continue;
        }
        // Typed reads, whole and by iterator, and the copy of view_or_copy.
        let fortran = a.order().is_fortran();
        let want = numpy_memory_order(&entry, fortran);
        let typed = npy_core::read::<bool>(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(typed.data(), want, "{name}: read::<bool>");
        let iterated: Vec<bool> = NpyReader::open(&p)
            .expect("open")
            .iter::<bool>()
            .expect("iter")
            .collect::<Result<_, _>>()
            .expect("iterate");
        assert_eq!(iterated, want, "{name}: iter::<bool>");
        let copy = view_or_copy::<bool>(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!copy.is_borrowed(), "{name}: a copy, not a view");
        assert_eq!(*copy, want, "{name}: view_or_copy");
        // A Rust bool cannot hold the byte: the view names it and where it is.
        assert!(
            matches!(
                NpyView::<bool>::new(&bytes).map_err(Error::into_kind),
                Err(ErrorKind::NonCanonicalBool { byte: b, offset: o }) if b == byte && o == offset
            ),
            "{name}: view"
        );
        let err = read_with::<bool>(&p, &strict()).expect_err(name);
        assert!(
            matches!(*err.kind(), ErrorKind::InvalidBool { byte: b, offset: o } if b == byte && o == offset),
            "{name}: {err}"
        );
    }
}

/// A top-level bool subarray dtype is saved as a bool array with a longer shape: read as
/// `[bool; 3]` elements, numpy's values again.
#[test]
fn bool_subarrays_as_arrays() {
    let entry = files("bool")
        .into_iter()
        .find(|f| f["file"] == "bool_subarray.npy")
        .expect("bool_subarray.npy");
    let want: Vec<[bool; 3]> = entry["tolist"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let row: Vec<bool> = row
                .as_array()
                .expect("row")
                .iter()
                .map(|b| b.as_bool().expect("bool"))
                .collect();
            row.try_into().expect("3 bools")
        })
        .collect();
    let p = path("bool_subarray.npy");
    assert_eq!(npy_core::read::<[bool; 3]>(&p).unwrap().data(), want);
    assert!(matches!(
        read_with::<[bool; 3]>(&p, &strict()).map_err(Error::into_kind),
        Err(ErrorKind::InvalidBool { .. })
    ));
}

/// Maps check the same rule as views at open.
#[cfg(feature = "mmap")]
#[test]
fn bool_maps_refuse_bytes_a_rust_bool_cannot_hold() {
    let p = path("bool_mask255.npy");
    // SAFETY: a committed fixture nobody writes while the test runs.
    #[allow(unsafe_code)]
    let err = unsafe { npy_core::NpyMmap::<bool>::open(&p) }.expect_err("0xff is no Rust bool");
    assert!(
        matches!(err.kind(), ErrorKind::NonCanonicalBool { byte: 0xff, .. }),
        "{err}"
    );
    assert_eq!(err.path(), Some(p.as_path()));
    // Canonical bytes map as before.
    let mut ok = Vec::new();
    npy_core::WriteOptions::new()
        .write_to(&mut ok, &[true, false], &[2])
        .unwrap();
    assert_eq!(
        NpyView::<bool>::new(&ok).unwrap().data(),
        [true, false],
        "0 and 1 are borrowed"
    );
    // The message says numpy reads the byte as True and what to do instead.
    let text = err.to_string();
    assert!(
        text.contains("True") && text.contains("view_or_copy"),
        "{text}"
    );
}
