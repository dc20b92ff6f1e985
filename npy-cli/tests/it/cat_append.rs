//! `npy cat` and `npy append` end to end: numpy's files rebuilt from their pieces byte for
//! byte, mismatches refused with FILE unchanged, and `cat` in bounded memory.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{fixture, npy};
use npy_core::{MemoryOrder, WriteOptions};

/// numpy's `f8` fixture of `order` cut along its growth axis: the first slice and the rest,
/// written by npy-core into `dir`.
fn pieces(dir: &Path, order: MemoryOrder) -> (PathBuf, PathBuf, PathBuf) {
    let name = match order {
        MemoryOrder::C => "f8_le_c_2x3x4.npy",
        MemoryOrder::Fortran => "f8_le_f_2x3x4.npy",
    };
    let a = npy_core::read::<f64>(fixture(name)).unwrap();
    let (head, tail) = (dir.join("head.npy"), dir.join("tail.npy"));
    let w = WriteOptions::new().order(order);
    match order {
        MemoryOrder::C => {
            w.write_path(&head, &a.data()[..12], &[1, 3, 4]).unwrap();
            w.write_path(&tail, &a.data()[12..], &[1, 3, 4]).unwrap();
        }
        MemoryOrder::Fortran => {
            w.write_path(&head, &a.data()[..6], &[2, 3, 1]).unwrap();
            w.write_path(&tail, &a.data()[6..], &[2, 3, 3]).unwrap();
        }
    }
    (head, tail, fixture(name))
}

#[test]
fn cat_rebuilds_numpys_file() {
    let dir = tempfile::tempdir().unwrap();
    let (head, tail, numpy) = pieces(dir.path(), MemoryOrder::C);
    let out = dir.path().join("out.npy");
    let o = npy([
        "cat".as_ref(),
        out.as_os_str(),
        head.as_os_str(),
        tail.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(&out).unwrap(), fs::read(&numpy).unwrap());

    // numpy's empty and 5-element files: the 5-element one again. OUT may be an input.
    let five = dir.path().join("five.npy");
    fs::copy(fixture("u1_na_c_5.npy"), &five).unwrap();
    let o = npy([
        "cat".as_ref(),
        five.as_os_str(),
        fixture("u1_na_c_0.npy").as_os_str(),
        five.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        fs::read(&five).unwrap(),
        fs::read(fixture("u1_na_c_5.npy")).unwrap()
    );
}

#[test]
fn cat_refuses_what_does_not_concatenate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let o = npy([
        "cat".as_ref(),
        out.as_os_str(),
        fixture("f8_le_c_2x3x4.npy").as_os_str(),
        fixture("f4_le_c_2x3x4.npy").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("f4_le_c_2x3x4.npy"), "{err}");
    assert!(err.contains("'<f4'") && err.contains("'<f8'"), "{err}");
    let o = npy([
        "cat".as_ref(),
        out.as_os_str(),
        fixture("f8_le_f_2x3x4.npy").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("npy convert --order C"), "{err}");
    assert!(!out.exists(), "nothing written");
    let o = npy(["cat".as_ref(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "IN is required");
}

#[test]
fn append_rebuilds_numpys_file_in_either_order() {
    for order in [MemoryOrder::C, MemoryOrder::Fortran] {
        let dir = tempfile::tempdir().unwrap();
        let (head, tail, numpy) = pieces(dir.path(), order);
        let o = npy(["append".as_ref(), head.as_os_str(), tail.as_os_str()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            fs::read(&head).unwrap(),
            fs::read(&numpy).unwrap(),
            "{order:?}"
        );
    }
}

#[test]
fn append_checks_every_input_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let (head, tail, _) = pieces(dir.path(), MemoryOrder::C);
    let before = fs::read(&head).unwrap();
    let o = npy([
        "append".as_ref(),
        "--no-sync".as_ref(),
        head.as_os_str(),
        tail.as_os_str(),
        fixture("f8_le_c_5.npy").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("f8_le_c_5.npy"), "{err}");
    assert!(
        err.contains("shape (5,)") && err.contains("(n, 3, 4)"),
        "{err}"
    );
    assert_eq!(fs::read(&head).unwrap(), before, "FILE unchanged");
}

/// A write that fails (here the file-size limit, `EFBIG`) names the file being written: the
/// output of `cat`, the file appended to. It once named the source being copied.
#[cfg(unix)]
#[test]
fn a_failed_write_names_the_output_not_the_source() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.npy");
    // 256 KiB of data, past the 64-block limit below (dash counts 512-byte blocks, bash 1 KiB).
    npy_core::write(&source, &vec![1.5f64; 32 << 10], &[32 << 10]).unwrap();
    let target = dir.path().join("target.npy");
    npy_core::write(&target, &[0.5f64], &[1]).unwrap();
    let out = dir.path().join("out.npy");
    let limited = |args: &[&std::ffi::OsStr]| {
        Command::new("sh")
            .arg("-c")
            // SIGXFSZ ignored: the write fails with EFBIG instead of killing the process.
            .arg("trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_npy"))
            .args(args)
            .output()
            .unwrap()
    };
    for (args, written) in [
        (
            vec!["cat".as_ref(), out.as_os_str(), source.as_os_str()],
            &out,
        ),
        (
            vec!["append".as_ref(), target.as_os_str(), source.as_os_str()],
            &target,
        ),
    ] {
        let o = limited(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&*written.to_string_lossy()) && !err.contains("source.npy"),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists(), "nothing written");
    assert_eq!(npy_core::read::<f64>(&target).unwrap().data(), [0.5]);
}
