//! Hostile Arrow IPC and Parquet input: every truncation and many byte flips of a valid file
//! give a typed error (or, where the damage misses what is read, a result), never a panic, and
//! leave no output behind.

use npy_arrow::{convert, ConvertOptions};

fn valid(dir: &std::path::Path, ext: &str) -> Vec<u8> {
    let src = dir.join("src.npy");
    let mut header = npy_core::Header::new(
        "[('id', '<i8'), ('name', '<U4'), ('when', '<M8[ms]')]"
            .parse()
            .unwrap(),
        vec![5],
    );
    header.fortran_order = false;
    let mut bytes = header.to_bytes(None).unwrap();
    for i in 0..5i64 {
        bytes.extend_from_slice(&i.to_le_bytes());
        for c in ['a', 'b', 'c', 'd'] {
            bytes.extend_from_slice(&u32::from(c).to_le_bytes());
        }
        bytes.extend_from_slice(&(i * 1000).to_le_bytes());
    }
    std::fs::write(&src, bytes).unwrap();
    let out = dir.join(format!("valid.{ext}"));
    let mut options = ConvertOptions::new();
    options.batch_rows = Some(2);
    convert(&src, &out, &options).unwrap();
    std::fs::read(out).unwrap()
}

fn damaged_inputs_never_panic(ext: &str) {
    let dir = tempfile::tempdir().unwrap();
    let good = valid(dir.path(), ext);
    let input = dir.path().join(format!("bad.{ext}"));
    let out = dir.path().join("out.npy");
    let mut errors = 0;
    let mut cases: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
    for at in 0..good.len() {
        for flip in [0xffu8, 0x80, 0x01] {
            let mut b = good.clone();
            b[at] ^= flip;
            cases.push(b);
        }
    }
    for case in &cases {
        std::fs::write(&input, case).unwrap();
        match convert(&input, &out, &ConvertOptions::new()) {
            Ok(()) => {
                let _ = std::fs::remove_file(&out);
            }
            Err(e) => {
                errors += 1;
                assert_eq!(e.path(), Some(input.as_path()), "{e}");
                assert!(!out.exists());
            }
        }
    }
    // Every truncation is an error at least.
    assert!(
        errors >= good.len(),
        "{errors} errors of {} cases",
        cases.len()
    );
}

#[test]
fn damaged_ipc_files_are_errors_not_panics() {
    damaged_inputs_never_panic("arrow");
}

#[cfg(feature = "parquet")]
#[test]
fn damaged_parquet_files_are_errors_not_panics() {
    damaged_inputs_never_panic("parquet");
}

/// Arrays whose elements hold no bytes, as numpy writes them (a record with a zero-size
/// subarray field, a record of no fields; `np.zeros(3, 'V0')` where the project's Python
/// writes it): each converts to Parquet or is refused with a typed error naming the file,
/// never a panic of the Parquet writer (which asserts a binary width of at least 1) and never a
/// partial output. The review of 2026-12-01 found `V0` panicking.
#[cfg(feature = "parquet")]
#[test]
fn zero_width_columns_to_parquet_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = vec![
        npy_test_support::fixture("rec_zero_sub.npy"),
        npy_test_support::fixture("rec_empty.npy"),
    ];
    if let Some(python) = npy_test_support::python::python_for("V0 written by numpy") {
        let v0 = dir.path().join("v0.npy");
        let script = "import numpy as np, sys; np.save(sys.argv[1], np.zeros(3, 'V0'))";
        npy_test_support::python::run_script(&python, script, [v0.as_os_str()]);
        inputs.push(v0);
    }
    for input in inputs {
        let out = dir
            .path()
            .join(input.file_name().unwrap())
            .with_extension("parquet");
        let result = std::panic::catch_unwind(|| convert(&input, &out, &ConvertOptions::new()));
        let Ok(result) = result else {
            panic!("{}: the conversion panicked", input.display());
        };
        if let Err(e) = result {
            // Parquet's refusal names the output; a record of no fields has no Arrow
            // column at all, which names the input.
            match e.kind() {
                npy_arrow::ErrorKind::NoParquetType { .. } => {
                    assert_eq!(e.path(), Some(out.as_path()), "{e}");
                }
                npy_arrow::ErrorKind::UnsupportedDType { .. } => {
                    assert_eq!(e.path(), Some(input.as_path()), "{e}");
                }
                _ => panic!("{}: {e}", input.display()),
            }
            assert!(!out.exists(), "{}", input.display());
        }
    }
}

/// The `arrow` fuzz target's finding of 2026-12-01 (450 bytes): an IPC file whose record
/// batch names a buffer of 327,681 bytes in a body of 8. arrow-ipc panics slicing it
/// (`Buffer::slice_with_length`); npy-arrow contains that panic as `ErrorKind::Malformed`,
/// naming the input and writing nothing.
const IPC_BUFFER_PAST_BODY: &[&str] = &[
    "4152524f57310000ffffffff700000001000000000000a000c000600050008000a000000000104000c000000",
    "080008000000040008000000040000000100000014000000100014000800060007000c000000100010000000",
    "00000106100000001800000004000000000000000100000061000000040004000400000000000000ffffffff",
    "8800000014000000000000000c0016000600050008000c000c00000000030400180000000800000000000000",
    "00000a0018000c00040008000a0000003c000000100000000500000000000000000000000200000000000000",
    "0000000000000000000000000000000000000000010005000000000000000000010000000500000000000000",
    "00000000000000001100000000000000ffffffff00000000100000000c001400060008000c0010000c000000",
    "0000040038000000280000000400000001000000800000000000000090000000000000000800000000000000",
    "0000000000000000080008000000040008000000040000000100000014000000100014000800060007000c00",
    "0000100010000000000001061000000018000000040000000000000001000000610000000400040004000000",
    "980000004152524f5731",
];

#[test]
fn an_ipc_buffer_past_its_body_is_malformed() {
    let hex: String = IPC_BUFFER_PAST_BODY.concat();
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(bytes.len(), 450);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("finding.arrow");
    let out = dir.path().join("out.npy");
    std::fs::write(&input, &bytes).unwrap();
    let e = convert(&input, &out, &ConvertOptions::new()).unwrap_err();
    assert!(
        matches!(e.kind(), npy_arrow::ErrorKind::Malformed(why) if why.contains("cannot exceed the existing length")),
        "{e}"
    );
    assert_eq!(e.path(), Some(input.as_path()));
    assert!(!out.exists());
}

/// Rows that hold no bytes, in 128-byte headers numpy's `write_array_header_1_0` writes
/// (`V0` of 2^62 rows, `u1` of shape (2^62, 0), `S0` of 2^40 rows): converting them is
/// refused at once with `ErrorKind::UnbackedRows`, naming the input and writing nothing; the
/// review of 2026-12-01 found `.arrow` passing 256 MiB of output and `.parquet` running past
/// 20 s. A few such rows still convert.
#[test]
fn rows_without_bytes_past_the_limit_are_refused() {
    let Some(python) = npy_test_support::python::python_for("zero-size rows written by numpy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let names = ["v0.npy", "u1.npy", "s0.npy", "small.npy"];
    let paths = names.map(|n| dir.path().join(n));
    let script = "import numpy as np, sys\n\
        cases = [('|V0', (2**62,)), ('|u1', (2**62, 0)), ('|S0', (2**40,)), ('|V0', (3,))]\n\
        for path, (descr, shape) in zip(sys.argv[1:], cases):\n\
        \x20   with open(path, 'wb') as f:\n\
        \x20       np.lib.format.write_array_header_1_0(f, {'descr': descr, 'fortran_order': False, 'shape': shape})\n";
    npy_test_support::python::run_script(&python, script, &paths);
    let mut exts = vec!["arrow"];
    if cfg!(feature = "parquet") {
        exts.push("parquet");
    }
    for ext in exts {
        for input in &paths[..3] {
            let out = dir.path().join("out").with_extension(ext);
            let e = convert(input, &out, &ConvertOptions::new()).unwrap_err();
            match e.kind() {
                npy_arrow::ErrorKind::UnbackedRows { limit, .. } => {
                    assert_eq!(*limit, npy_arrow::MAX_UNBACKED_ROWS);
                    assert_eq!(e.path(), Some(input.as_path()), "{e}");
                }
                // V0 has no Parquet type at all, which is said first.
                npy_arrow::ErrorKind::NoParquetType { .. } if ext == "parquet" => {}
                _ => panic!("{}: {e}", input.display()),
            }
            assert!(!out.exists());
        }
    }
    let out = dir.path().join("small.arrow");
    convert(&paths[3], &out, &ConvertOptions::new()).unwrap();
}

/// The second review of issue 23 (`f_v0F_arrow.sh`): a 128-byte `V0` header in Fortran
/// order, shape (2^20, 2^20) or (2^10, 2^10, 2^20), converted to `.arrow` ran past 20 s (the
/// transpose to C order walked its 2^40 elements, which hold no bytes), where the same header
/// in C order converts at once. Elements without bytes have nothing to move: the Fortran
/// file's output is now the C-order file's, byte for byte (the format's rule: the logical
/// values, and there are none to differ).
#[test]
fn fortran_order_rows_without_bytes_convert_as_c_order_ones() {
    let Some(python) = npy_test_support::python::python_for("zero-size arrays written by numpy")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (c_dir, f_dir) = (dir.path().join("c"), dir.path().join("f"));
    std::fs::create_dir_all(&c_dir).unwrap();
    std::fs::create_dir_all(&f_dir).unwrap();
    let shapes = ["(2**20, 2**20)", "(2**10, 2**10, 2**20)", "(3, 0, 2)"];
    let mut paths = Vec::new();
    for i in 0..shapes.len() {
        paths.push(c_dir.join(format!("a{i}.npy")));
        paths.push(f_dir.join(format!("a{i}.npy")));
    }
    let script = format!(
        "import numpy as np, sys\n\
         shapes = [{}]\n\
         for i, shape in enumerate(shapes):\n\
         \x20   for path, f in ((sys.argv[1 + 2 * i], False), (sys.argv[2 + 2 * i], True)):\n\
         \x20       with open(path, 'wb') as out:\n\
         \x20           descr = '|V0' if i < 2 else '<f4'\n\
         \x20           np.lib.format.write_array_header_1_0(out, {{'descr': descr, 'fortran_order': f, 'shape': shape}})\n",
        shapes.join(", ")
    );
    npy_test_support::python::run_script(&python, &script, &paths);
    for pair in paths.chunks(2) {
        let outs = pair
            .iter()
            .map(|p| p.with_extension("arrow"))
            .collect::<Vec<_>>();
        for (input, out) in pair.iter().zip(&outs) {
            convert(input, out, &ConvertOptions::new())
                .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        }
        assert_eq!(
            std::fs::read(&outs[0]).unwrap(),
            std::fs::read(&outs[1]).unwrap(),
            "{}",
            pair[1].display()
        );
    }
}
