//! Appending along the growth axis: every simple-dtype fixture rebuilt by appends is
//! byte-identical to the file `np.save` wrote for the whole array (so numpy's growth room
//! sufficed and the header was rewritten in place); headers of other writers (rewritten in
//! place when the dict fits, else the whole file atomically); mismatches; a process killed
//! while appending; processes appending at once. Appending whole files and concatenating are
//! npy-convert's (its `join` tests).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use npy_core::{
    append, read, write::AppendOptions, ErrorKind, Header, MemoryOrder, NpyAppender, NpyReader,
    WriteOptions,
};
use npy_test_support::growth::{options_for, raw_npy_v1_f4, slices};
use npy_test_support::*;
use serde_json::Value as Json;

/// Writes the first slice of a fixture with the slice writer, appends the others one by one,
/// and compares the bytes with numpy's file.
struct Rebuild<'a>(&'a Json, &'a Path);

impl Visitor for Rebuild<'_> {
    type Out = Result<(), String>;

    fn visit<T: Elem>(self) -> Result<(), String> {
        let (e, dir) = (self.0, self.1);
        let (name, original, a) = read_fixture::<T>(e)?;
        let (parts, one) = slices(a.data(), a.shape(), a.order());
        let path = dir.join(name);
        let opts = options_for::<T>(e);
        if parts.is_empty() {
            // Shape (0,): start from it and append an empty block.
            opts.write_path(&path, a.data(), a.shape())
                .map_err(|err| format!("write: {err}"))?;
            append::<T>(&path, &[], &[0]).map_err(|err| format!("append: {err}"))?;
        } else {
            opts.write_path(&path, &parts[0], &one)
                .map_err(|err| format!("write: {err}"))?;
            // The first half through one appender, the rest each through its own.
            let mut w = NpyAppender::open(&path).map_err(|err| format!("open: {err}"))?;
            let half = parts.len() / 2 + 1;
            for p in &parts[1..half] {
                w.append(p, &one).map_err(|err| format!("append: {err}"))?;
            }
            if w.rewrites() != 0 {
                return Err("numpy's growth room did not suffice".into());
            }
            drop(w);
            for p in &parts[half..] {
                append(&path, p, &one).map_err(|err| format!("append: {err}"))?;
            }
        }
        let ours = fs::read(&path).unwrap();
        if ours != original {
            return Err(format!(
                "{} bytes, numpy {}; header {:?}",
                ours.len(),
                original.len(),
                String::from_utf8_lossy(&ours[..ours.len().min(128)])
            ));
        }
        Ok(())
    }
}

#[test]
fn appends_rebuild_every_fixture_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let (mut c, mut f) = (0, 0);
    for e in simple_fixtures() {
        if shape_of(&e).is_empty() {
            continue;
        }
        match order_of(&e) {
            MemoryOrder::C => c += 1,
            MemoryOrder::Fortran => f += 1,
        }
        if let Some(Err(msg)) = dispatch(&dtype_of(&e), Rebuild(&e, dir.path())) {
            failures.push(format!("{}: {msg}", e["file"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        c >= 80 && f >= 20,
        "only {c} C-order and {f} Fortran-order fixtures"
    );
}

#[test]
fn mismatches_name_both_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.npy");
    npy_core::write(&path, &[0f32; 12], &[3, 4]).unwrap();
    let before = fs::read(&path).unwrap();
    let mut w = NpyAppender::open(&path).unwrap();
    let err = w.append(&[0f64; 4], &[1, 4]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::AppendMismatch { .. }));
    assert_eq!(err.path(), Some(path.as_path()));
    assert_eq!(
        err.kind().to_string(),
        "file has dtype '<f4' (float32) shape (3, 4); cannot append dtype f64 ('<f8') shape \
         (1, 4) along axis 0: appended data needs the file's dtype and shape (n, 4)"
    );
    let err = w.append(&[0f32; 5], &[1, 5]).unwrap_err();
    assert!(err.to_string().contains("shape (1, 5)"), "{err}");
    let err = w.append(&[0f32; 4], &[4]).unwrap_err();
    assert!(err.to_string().contains("shape (4,)"), "{err}");
    let err = w.append(&[0f32; 3], &[1, 4]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LengthMismatch { .. }));
    drop(w);
    assert_eq!(
        fs::read(&path).unwrap(),
        before,
        "a refused append changes nothing"
    );

    // The growth axis of a Fortran-order file is the last.
    let f = dir.path().join("f.npy");
    WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .write_path(&f, &[0i16; 6], &[2, 3])
        .unwrap();
    let mut w = NpyAppender::open(&f).unwrap();
    assert_eq!(w.axis(), 1);
    let err = w.append(&[0i16; 3], &[3, 1]).unwrap_err();
    assert!(err.to_string().contains("along axis 1"), "{err}");
    assert!(err.to_string().contains("shape (2, n)"), "{err}");
    w.append(&[7i16, 8], &[2, 1]).unwrap();
    drop(w);
    let a = read::<i16>(&f).unwrap();
    assert_eq!(a.shape(), [2, 4]);
    assert_eq!(a.data()[6..], [7, 8]);
}

#[test]
fn zero_d_and_truncated_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let scalar = fixture("f8_le_c_scalar.npy");
    let err = NpyAppender::open(&scalar).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported { .. }), "{err}");
    let short = dir.path().join("short.npy");
    let mut bytes = fs::read(fixture("f8_le_c_5.npy")).unwrap();
    bytes.truncate(bytes.len() - 1);
    fs::write(&short, &bytes).unwrap();
    let err = NpyAppender::open(&short).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
}

#[test]
fn a_rejected_value_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    WriteOptions::new()
        .dtype("<U2".parse().unwrap())
        .write_path(&path, &["ab".to_string()], &[1])
        .unwrap();
    let before = fs::read(&path).unwrap();
    let rows = ["cd".to_string(), "too long".to_string()];
    let err = append(&path, &rows, &[2]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ValueTooLong { .. }),
        "{err}"
    );
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn headers_without_growth_room() {
    let dir = tempfile::tempdir().unwrap();
    let expected = fs::read(fixture("f4_le_c_5.npy")).unwrap();
    let values = read::<f32>(fixture("f4_le_c_5.npy"))
        .unwrap()
        .data()
        .to_vec();

    // A compact dict (numpy reads it) with no room at all: the first append rewrites the file
    // with numpy's header, which is then the fixture byte for byte.
    let compact = "{'descr':'<f4','fortran_order':False,'shape':(3,)}";
    let path = dir.path().join("compact.npy");
    fs::write(
        &path,
        raw_npy_v1_f4(compact, compact.len() + 1, &values[..3]),
    )
    .unwrap();
    let mut w = NpyAppender::open(&path).unwrap();
    w.append(&values[3..4], &[1]).unwrap();
    assert_eq!(w.rewrites(), 1);
    w.append(&values[4..], &[1]).unwrap();
    assert_eq!(w.rewrites(), 1, "the rewritten header has numpy's room");
    drop(w);
    assert_eq!(fs::read(&path).unwrap(), expected);
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left");

    // numpy's dict without the growth spaces, in a roomy header: rewritten in place, the data
    // staying where it was.
    let plain = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
    let path = dir.path().join("plain.npy");
    fs::write(&path, raw_npy_v1_f4(plain, 118, &values[..3])).unwrap();
    let mut w = NpyAppender::open(&path).unwrap();
    w.append(&values[3..], &[2]).unwrap();
    assert_eq!(w.rewrites(), 0);
    assert_eq!(w.parsed_header().data_offset(), 128);
    drop(w);
    let ours = fs::read(&path).unwrap();
    assert_eq!(&ours[128..], &expected[128..]);
    let r = NpyReader::open(&path).unwrap();
    assert_eq!(r.shape(), [5]);
    assert!(r
        .parsed_header()
        .text
        .starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"));
}

#[test]
fn bytes_after_the_array_are_replaced() {
    // The state a crash between data and header leaves: the old header and stray data after
    // the array. The file reads as the old array; the next append writes over the strays.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    npy_core::write(&path, &[1u32, 2], &[2]).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(&[0xAA; 12]);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(read::<u32>(&path).unwrap().data(), [1, 2]);
    append(&path, &[3u32], &[1]).unwrap();
    let a = read::<u32>(&path).unwrap();
    assert_eq!(a.data(), [1, 2, 3]);
    assert_eq!(fs::metadata(&path).unwrap().len(), 128 + 12);
}

const CHILD_ENV: &str = "NPY_APPEND_TEST_CHILD";
const ROW: usize = 512;

/// A row of `ROW` values that says which child wrote it, and its number.
fn row(child: u64, seq: u64) -> Vec<u64> {
    let mut r = vec![child << 32 | seq; ROW];
    r[0] = child;
    r[1] = seq;
    r
}

/// Runs `child_process` of this test binary with `args` in its environment.
fn spawn_child(args: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "append::child_process",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_ENV, args)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// The child side of the multi-process tests (`NPY_APPEND_TEST_CHILD="path child count
/// sync"`): appends `count` rows of [`row`], each through a freshly opened appender, so that
/// children interleave. Without the variable (a plain `--ignored` run) it has nothing to do.
#[test]
#[ignore = "run by concurrent_processes_lose_nothing and a_killed_appender_leaves_a_valid_file"]
fn child_process() {
    let Ok(args) = std::env::var(CHILD_ENV) else {
        return;
    };
    let args: Vec<&str> = args.split(' ').collect();
    let path = PathBuf::from(args[0]);
    let child: u64 = args[1].parse().unwrap();
    let count: u64 = args[2].parse().unwrap();
    let options = AppendOptions::new().sync(args[3] == "sync");
    for seq in 0..count {
        let mut w = options.open(&path).unwrap();
        w.append(&row(child, seq), &[1, ROW as u64]).unwrap();
    }
}

/// Rows of the file, checked to be [`row`]s; returns `(child, seq)` of each.
fn rows_of(path: &Path) -> Vec<(u64, u64)> {
    let a = read::<u64>(path).unwrap();
    assert_eq!(a.shape()[1], ROW as u64);
    a.data()
        .chunks(ROW)
        .map(|r| {
            assert_eq!(r, row(r[0], r[1]), "a row is whole");
            (r[0], r[1])
        })
        .collect()
}

#[test]
fn concurrent_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.npy");
    // A compact header with no room: the first append rewrites the file while the others wait
    // on the old one, which they must notice.
    let dict = "{'descr':'<u8','fortran_order':False,'shape':(0,512)}";
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(dict.len() as u16 + 1).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.push(b'\n');
    fs::write(&path, bytes).unwrap();
    let (children, count) = (4u64, 40u64);
    let procs: Vec<_> = (0..children)
        .map(|c| spawn_child(&format!("{} {c} {count} nosync", path.display())))
        .collect();
    for mut p in procs {
        assert!(p.wait().unwrap().success());
    }
    let mut seen = rows_of(&path);
    assert_eq!(seen.len() as u64, children * count);
    seen.sort_unstable();
    let all: Vec<_> = (0..children)
        .flat_map(|c| (0..count).map(move |s| (c, s)))
        .collect();
    assert_eq!(seen, all, "every row exactly once");
    // Each child's rows are in its own order.
    let r = NpyReader::open(&path).unwrap();
    assert_eq!(
        r.parsed_header().text.len() as u64 + 10,
        128,
        "numpy's header after the rewrite"
    );
}

#[test]
fn a_killed_appender_leaves_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.npy");
    npy_core::write::<u64>(&path, &[], &[0, ROW as u64]).unwrap();
    let mut total_before = 0;
    for (round, wait_ms) in [3u64, 7, 13, 21, 34].into_iter().enumerate() {
        let mut p = spawn_child(&format!("{} {round} 100000 sync", path.display()));
        std::thread::sleep(Duration::from_millis(wait_ms * 10));
        p.kill().unwrap();
        p.wait().unwrap();
        // Whatever the moment of the kill: a file numpy's rules read, holding whole rows of
        // this round after the earlier ones, in order, at most the one being written missing.
        let rows = rows_of(&path);
        assert!(rows.len() >= total_before);
        for (i, &(child, seq)) in rows[total_before..].iter().enumerate() {
            assert_eq!((child, seq), (round as u64, i as u64));
        }
        let h = Header::read(&mut fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(h.header.shape, [rows.len() as u64, ROW as u64]);
        total_before = rows.len();
    }
    // ... and appending goes on from there.
    append(&path, &row(9, 0), &[1, ROW as u64]).unwrap();
    assert_eq!(rows_of(&path).len(), total_before + 1);
    let len = fs::metadata(&path).unwrap().len();
    assert_eq!(len, 128 + (total_before as u64 + 1) * ROW as u64 * 8);
}

#[test]
fn the_growth_room_holds_the_largest_dimension() {
    // numpy's room is GROWTH_AXIS_MAX_DIGITS (21) digits; its largest dimension (npy_intp,
    // i64::MAX) has 19. Rows of no elements reach it without data: the header stays as long,
    // in place.
    assert_eq!(npy_core::header::GROWTH_AXIS_MAX_DIGITS, 21);
    let max = npy_core::header::MAX_NUMPY_SIZE;
    assert_eq!(max, 9_223_372_036_854_775_807);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty_rows.npy");
    npy_core::write::<u8>(&path, &[], &[0, 0]).unwrap();
    let before = fs::read(&path).unwrap();
    let mut w = NpyAppender::open(&path).unwrap();
    w.append::<u8>(&[], &[max, 0]).unwrap();
    assert_eq!(w.rewrites(), 0);
    assert_eq!(w.parsed_header().data_offset(), before.len() as u64);
    // One row more is past numpy's npy_intp (np.load: "negative dimensions are not allowed"):
    // refused, the file as it was.
    let err = w.append::<u8>(&[], &[1, 0]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::SizeOverflow { .. }),
        "{err}"
    );
    drop(w);
    let h = Header::read(&mut fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(h.header.shape, [max, 0]);
    assert_eq!(h.data_offset(), before.len() as u64);
    assert!(h.text.starts_with(
        "{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807, 0), }"
    ));
}

#[cfg(feature = "derive")]
#[test]
fn records_append_by_field_name() {
    #[derive(npy_core::NpyElement, Debug, Clone, PartialEq)]
    struct Sample {
        t: f64,
        #[npy(width = 3)]
        tag: String,
        ok: bool,
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.npy");
    let rows: Vec<Sample> = (0..5)
        .map(|i| Sample {
            t: f64::from(i) / 2.0,
            tag: format!("s{i}"),
            ok: i % 2 == 0,
        })
        .collect();
    npy_core::write(&path, &rows[..1], &[1]).unwrap();
    append(&path, &rows[1..3], &[2]).unwrap();
    append(&path, &rows[3..], &[2]).unwrap();
    assert_eq!(npy_core::read::<Sample>(&path).unwrap().into_vec(), rows);
    // A record type without the file's fields is named as such.
    #[derive(npy_core::NpyElement, Debug, Clone, PartialEq)]
    struct Other {
        u: f64,
    }
    let err = append(&path, &[Other { u: 0.0 }], &[1]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::MissingField { .. }),
        "{err}"
    );
}

#[test]
fn subarray_elements_stand_for_the_trailing_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("xyz.npy");
    npy_core::write::<f32>(&path, &[], &[0, 3]).unwrap();
    append(&path, &[[1f32, 2.0, 3.0], [4.0, 5.0, 6.0]], &[2]).unwrap();
    let a = read::<f32>(&path).unwrap();
    assert_eq!(a.shape(), [2, 3]);
    assert_eq!(a.data(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let err = append(&path, &[[0f32; 2]], &[1]).unwrap_err();
    assert!(err.to_string().contains("shape (1, 2)"), "{err}");
}
