//! `concatenate` and `append_files` against numpy: every simple-dtype fixture cut in two and
//! joined again is byte-identical to the file `np.save` wrote for the whole array; a source of
//! another dtype is refused; progress reports every data byte once; a truncated source leaves
//! the file as it was.

use std::fs;
use std::path::{Path, PathBuf};

use npy_convert::{append_files, append_files_with_progress, concatenate};
use npy_core::{read, write::AppendOptions, ErrorKind, MemoryOrder, NpyAppender, WriteOptions};
use npy_test_support::growth::{options_for, raw_npy_v1_f4, slices};
use npy_test_support::{
    dispatch, dtype_of, read_fixture, shape_of, simple_fixtures, Elem, Visitor,
};
use serde_json::Value as Json;

/// Splits each fixture into a first-slice file and a rest file (npy-core's slice writer), then
/// joins them with `append_files` and, in C order, with `concatenate`: numpy's bytes again.
struct Join<'a>(&'a Json, &'a Path);

impl Visitor for Join<'_> {
    type Out = Result<(), String>;

    fn visit<T: Elem>(self) -> Result<(), String> {
        let (e, dir) = (self.0, self.1);
        let (name, original, a) = read_fixture::<T>(e)?;
        let (parts, one) = slices(a.data(), a.shape(), a.order());
        if parts.len() < 2 {
            return Ok(());
        }
        let opts = options_for::<T>(e);
        let (head, tail) = (
            dir.join(format!("head_{name}")),
            dir.join(format!("tail_{name}")),
        );
        opts.write_path(&head, &parts[0], &one).unwrap();
        let rest: Vec<T> = parts[1..].concat();
        let mut rest_shape = a.shape().to_vec();
        let axis = if a.order() == MemoryOrder::Fortran {
            rest_shape.len() - 1
        } else {
            0
        };
        rest_shape[axis] -= 1;
        opts.write_path(&tail, &rest, &rest_shape).unwrap();
        if a.order() == MemoryOrder::C {
            let out = dir.join(format!("cat_{name}"));
            concatenate(&out, &[&head, &tail]).map_err(|err| format!("concatenate: {err}"))?;
            if fs::read(&out).unwrap() != original {
                return Err("concatenate differs from numpy".into());
            }
        }
        NpyAppender::open(&head)
            .and_then(|mut w| append_files(&mut w, &[&tail]))
            .map_err(|err| format!("append_files: {err}"))?;
        if fs::read(&head).unwrap() != original {
            return Err("append_files differs from numpy".into());
        }
        Ok(())
    }
}

#[test]
fn append_files_and_concatenate_rebuild_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for e in simple_fixtures() {
        if shape_of(&e).is_empty() {
            continue;
        }
        if let Some(Err(msg)) = dispatch(&dtype_of(&e), Join(&e, dir.path())) {
            failures.push(format!("{}: {msg}", e["file"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A source of another byte order is another dtype (numpy's `'>f4'` is not `'<f4'`): refused,
/// naming it, and the file left as it was.
#[test]
fn a_source_of_another_byte_order_is_another_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    npy_core::write(&path, &[0f32; 12], &[3, 4]).unwrap();
    let before = fs::read(&path).unwrap();
    let other = dir.path().join("be.npy");
    WriteOptions::new()
        .byte_order(npy_core::ByteOrder::Big)
        .write_path(&other, &[0f32; 4], &[1, 4])
        .unwrap();
    let mut w = NpyAppender::open(&path).unwrap();
    let err = append_files(&mut w, &[&other]).unwrap_err();
    assert!(err.to_string().contains("dtype '>f4'"), "{err}");
    assert_eq!(err.path(), Some(path.as_path()));
    drop(w);
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "a refused append changes nothing"
    );
}

/// `concatenate_with_progress` reports every data byte once, in increasing steps from
/// `(0, total)` to `(total, total)`: 3 MiB across three inputs, copied in 1 MiB buffers.
#[test]
fn concatenation_progress_is_monotone_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (a, rows) = one_mib_of_rows(dir.path());
    let out = dir.path().join("out.npy");
    let mut seen = Vec::new();
    let header =
        npy_convert::concatenate_with_progress(&out, &[&a, &a, &a], |d, t| seen.push((d, t)))
            .unwrap();
    assert_eq!(header.shape, [3 * rows, 4]);
    assert_progress(&seen, 3 << 20);
}

/// A file of 1 MiB of `(rows, 4)` f32 (all 1.5) in `dir`, and its row count.
fn one_mib_of_rows(dir: &Path) -> (PathBuf, u64) {
    let a = dir.join("a.npy");
    let rows = (1 << 20) / 16;
    npy_core::write(&a, &vec![1.5f32; rows * 4], &[rows as u64, 4]).unwrap();
    (a, rows as u64)
}

/// Progress calls from `(0, total)` to `(total, total)` in increasing steps, one per 1 MiB
/// buffer at least.
fn assert_progress(seen: &[(u64, u64)], total: u64) {
    assert_eq!(seen.first(), Some(&(0, total)));
    assert_eq!(seen.last(), Some(&(total, total)));
    assert!(
        seen.windows(2).all(|w| w[0].0 < w[1].0 && w[1].1 == total),
        "{seen:?}"
    );
    assert!(
        seen.len() as u64 > total >> 20,
        "one call per buffer: {seen:?}"
    );
}

/// `append_files_with_progress` reports every data byte once, in increasing steps from
/// `(0, total)` to `(total, total)` (3 MiB from three sources, 1 MiB buffers), and grows the
/// file to what numpy's concatenation gives; a mismatching source stops it before any call.
#[test]
fn append_progress_is_monotone_and_complete() {
    let dir = tempfile::tempdir().unwrap();
    let (a, rows) = one_mib_of_rows(dir.path());
    let file = dir.path().join("grow.npy");
    npy_core::write(&file, &[0f32; 4], &[1, 4]).unwrap();
    let mut seen = Vec::new();
    let mut w = AppendOptions::new().sync(false).open(&file).unwrap();
    append_files_with_progress(&mut w, &[&a, &a, &a], |d, t| seen.push((d, t))).unwrap();
    drop(w);
    assert_progress(&seen, 3 << 20);
    let grown = read::<f32>(&file).unwrap();
    assert_eq!(grown.shape(), [1 + 3 * rows, 4]);
    assert!(grown.data()[..4].iter().all(|&v| v == 0.0));
    assert!(grown.data()[4..].iter().all(|&v| v == 1.5));

    let other = dir.path().join("other.npy");
    npy_core::write(&other, &[1i32; 4], &[1, 4]).unwrap();
    let mut calls = 0;
    let mut w = AppendOptions::new().open(&file).unwrap();
    let err = append_files_with_progress(&mut w, &[&a, &other], |_, _| calls += 1).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::AppendMismatch { .. }),
        "{err}"
    );
    assert_eq!(calls, 0);
}

/// As a new user would try it: sources of different sizes (one of no rows) give one `total`,
/// the sum of their data bytes, and calls from `(0, total)` to `(total, total)`; a Fortran-order
/// file grows along its last axis; all-empty sources give the single call `(0, 0)`.
#[test]
fn append_progress_with_uneven_and_empty_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (big, rows) = one_mib_of_rows(dir.path());
    let small = dir.path().join("small.npy");
    npy_core::write(&small, &[2.5f32; 12], &[3, 4]).unwrap();
    let empty = dir.path().join("empty.npy");
    npy_core::write::<f32>(&empty, &[], &[0, 4]).unwrap();
    let file = dir.path().join("grow.npy");
    npy_core::write(&file, &[0f32; 4], &[1, 4]).unwrap();
    let mut seen = Vec::new();
    let mut w = AppendOptions::new().sync(false).open(&file).unwrap();
    append_files_with_progress(&mut w, &[&small, &empty, &big, &empty, &small], |d, t| {
        seen.push((d, t));
    })
    .unwrap();
    drop(w);
    // Every data byte: 2 × 3 rows × 4 f32 + 1 MiB.
    let total = 2 * 3 * 4 * 4 + (1 << 20);
    assert_eq!(seen.first(), Some(&(0, total)));
    assert_eq!(seen.last(), Some(&(total, total)));
    assert!(
        seen.windows(2).all(|w| w[0].0 < w[1].0 && w[1].1 == total),
        "{seen:?}"
    );
    let grown = read::<f32>(&file).unwrap();
    assert_eq!(grown.shape(), [1 + 3 + rows + 3, 4]);
    let data = grown.data();
    assert!(data[..4].iter().all(|&v| v == 0.0));
    assert!(data[4..16].iter().all(|&v| v == 2.5));
    assert!(data[16..16 + 4 * rows as usize].iter().all(|&v| v == 1.5));
    assert!(data[16 + 4 * rows as usize..].iter().all(|&v| v == 2.5));

    let mut seen = Vec::new();
    let mut w = NpyAppender::open(&file).unwrap();
    append_files_with_progress(&mut w, &[&empty, &empty], |d, t| seen.push((d, t))).unwrap();
    drop(w);
    assert_eq!(seen, [(0, 0)]);

    // Fortran order: [[1, 2], [3, 4]] stored column by column, grown by a (2, 1) column
    // and a (2, 3) block, gives columns 1 3 | 2 4 | 5 6 | 7 8 | 9 10 | 11 12.
    let f = WriteOptions::new().order(MemoryOrder::Fortran);
    let ff = dir.path().join("f.npy");
    f.write_path(&ff, &[1i16, 3, 2, 4], &[2, 2]).unwrap();
    let col = dir.path().join("col.npy");
    f.write_path(&col, &[5i16, 6], &[2, 1]).unwrap();
    let block = dir.path().join("block.npy");
    f.write_path(&block, &[7i16, 8, 9, 10, 11, 12], &[2, 3])
        .unwrap();
    let mut seen = Vec::new();
    let mut w = NpyAppender::open(&ff).unwrap();
    append_files_with_progress(&mut w, &[&col, &block], |d, t| seen.push((d, t))).unwrap();
    drop(w);
    assert_eq!(seen.first(), Some(&(0, 16)));
    assert_eq!(seen.last(), Some(&(16, 16)));
    let a = read::<i16>(&ff).unwrap();
    assert_eq!(a.shape(), [2, 6]);
    assert_eq!(a.data(), [1, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
}

/// A source shorter than its header claims, after a good one: the calls stop short of
/// `total`, the error is `Truncated` naming the source, and the file is byte for byte as it
/// was, both for an in-place append and for one that rewrites the file (no growth room).
#[test]
fn a_truncated_source_leaves_the_file_and_stops_progress() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.npy");
    npy_core::write(&good, &[1f32; 8], &[2, 4]).unwrap();
    let cut = dir.path().join("cut.npy");
    npy_core::write(&cut, &[2f32; 40], &[10, 4]).unwrap();
    let len = fs::metadata(&cut).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&cut)
        .unwrap()
        .set_len(len - 20)
        .unwrap();
    let in_place = dir.path().join("in_place.npy");
    npy_core::write(&in_place, &[0f32; 4], &[1, 4]).unwrap();
    // A header of another writer, without numpy's growth room: appends rewrite the file.
    let tight = dir.path().join("tight.npy");
    let dict = "{'descr':'<f4','fortran_order':False,'shape':(1,4)}";
    fs::write(&tight, raw_npy_v1_f4(dict, dict.len() + 1, &[0.0; 4])).unwrap();
    assert_eq!(read::<f32>(&tight).unwrap().shape(), [1, 4]);
    for file in [&in_place, &tight] {
        let before = fs::read(file).unwrap();
        let mut seen = Vec::new();
        let mut w = NpyAppender::open(file).unwrap();
        let err = append_files_with_progress(&mut w, &[&good, &cut], |d, t| seen.push((d, t)))
            .unwrap_err();
        drop(w);
        assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
        assert_eq!(err.path(), Some(cut.as_path()), "{err}");
        // The format's rule: 10 × 4 f32 claimed, 20 bytes short.
        assert_eq!(
            err.kind().to_string(),
            ErrorKind::Truncated {
                what: "array data",
                needed: 160,
                found: 140
            }
            .to_string()
        );
        // The good source's 32 bytes reported; the cut one fails within its only chunk, which
        // is neither written nor reported.
        assert_eq!(seen, [(0, 32 + 160), (32, 32 + 160)]);
        assert_eq!(fs::read(file).unwrap(), before, "{}", file.display());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 4, "no temporary file left: {names:?}");
    }
    // The second case did take the rewrite path: the same good source alone rewrites it.
    let mut w = NpyAppender::open(&tight).unwrap();
    append_files(&mut w, &[&good]).unwrap();
    assert_eq!(w.rewrites(), 1);
}
