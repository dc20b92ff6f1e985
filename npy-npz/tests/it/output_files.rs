//! What the archive writers leave behind (issue 21: path writers that lose nothing; issue 23:
//! nothing left on an error), and the workspace README's `.npz` snippet.

use std::fs;
use std::path::Path;
use std::process::Command;

use npy_core::WriteOptions;
use npy_npz::{NpzArchive, NpzWriter};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

type Failing<'a> = (
    &'static str,
    Box<dyn Fn() -> Result<(), npy_npz::Error> + 'a>,
);

/// A failed or dropped archive leaves the directory and the existing file as they were.
#[test]
fn errors_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("out.npz");
    fs::write(&out, b"old").unwrap();
    let before = listing(d);
    let failing: Vec<Failing> = vec![
        (
            "npz of a duplicate key",
            Box::new(|| {
                let mut w = NpzWriter::create(&out)?;
                w.add("x", &[1u8], &[1])?;
                w.add("x", &[1u8], &[1])?;
                w.finish()
            }),
        ),
        (
            "npz dropped unfinished",
            Box::new(|| {
                let mut w = NpzWriter::create(&out)?;
                w.add("x", &[1u8], &[1])?;
                drop(w);
                Err(npy_npz::Error::from(std::io::Error::other("dropped")))
            }),
        ),
    ];
    for (what, f) in failing {
        assert!(f().is_err(), "{what} must fail");
        assert_eq!(listing(d), before, "{what}: left something");
        assert_eq!(fs::read(&out).unwrap(), b"old", "{what}: target changed");
    }
}

/// Issue 21: the README's `.npz` snippet — `NpzWriter::create(p)?`, `.add("x", &v, &[n])?`,
/// `.finish()?` — puts the archive at the path, and so does rustc's suggestion for an unused
/// result (`let _ = w.finish()?;`); np.load reads it. The two-phase form keeps the file away
/// until its commit.
#[test]
fn the_readme_npz_snippet_writes_the_file() {
    let readme = include_str!("../../../README.md");
    assert!(
        readme.contains(r#"`NpzWriter::create(p)?`, `.add("x", &v, &[n])?`, `.finish()?`"#),
        "the README's snippet changed: update this test with it"
    );
    let dir = tempfile::tempdir().unwrap();
    let (v, n) = (vec![0.5f32, 1.5, 2.5], 3u64);
    let p = dir.path().join("readme.npz");
    let snippet = || -> Result<(), npy_npz::Error> {
        let mut w = NpzWriter::create(&p)?;
        w.add("x", &v, &[n])?;
        w.finish()?;
        Ok(())
    };
    snippet().unwrap();
    assert!(p.exists(), "finish() put the archive in place");
    assert_eq!(
        NpzArchive::open(&p)
            .unwrap()
            .read::<f32>("x")
            .unwrap()
            .data(),
        v
    );
    let q = dir.path().join("let_underscore.npz");
    let suggestion = || -> Result<(), npy_npz::Error> {
        let mut w = NpzWriter::create(&q)?;
        w.add("x", &v, &[n])?;
        #[allow(
            clippy::let_unit_value,
            clippy::ignored_unit_patterns,
            reason = "what rustc suggests users write"
        )]
        let _ = w.finish()?;
        Ok(())
    };
    suggestion().unwrap();
    assert!(q.exists(), "let _ = finish()? loses nothing");
    // The two-phase forms.
    let r = dir.path().join("pending.npz");
    let mut w = NpzWriter::create(&r).unwrap();
    w.add("x", &v, &[n]).unwrap();
    let pending = w.finish_pending().unwrap();
    assert!(!r.exists());
    pending.commit().unwrap();
    assert!(r.exists());
    let s = dir.path().join("pending.npy");
    let mut w = WriteOptions::new().create_stream::<f32>(&s, &[1]).unwrap();
    w.push_row(&[1.0]).unwrap();
    let pending = w.finish_pending().unwrap();
    assert!(!s.exists());
    pending.commit().unwrap();
    assert_eq!(npy_core::read::<f32>(&s).unwrap().data(), [1.0]);
    assert_eq!(
        listing(dir.path()),
        [
            "let_underscore.npz",
            "pending.npy",
            "pending.npz",
            "readme.npz"
        ]
    );
    if let Some(python) =
        npy_test_support::python::python_for("np.load of the README's npz snippet")
    {
        let o = Command::new(python)
            .args([
                "-c",
                "import sys, numpy as np; print(np.load(sys.argv[1])['x'].tolist())",
            ])
            .arg(&p)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "[0.5, 1.5, 2.5]");
    }
}

/// Issue 23 F7, as npy-core's writers: a FIFO, a socket, a directory, a symlink to a device,
/// a dangling symlink are never replaced nor written into by `NpzWriter::create`.
#[test]
fn special_outputs_are_refused_and_left_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
    fs::create_dir(d.join("dir")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("to_null")).unwrap();
    std::os::unix::fs::symlink("missing.npz", d.join("dangling")).unwrap();
    let before = listing(d);
    for (name, found) in [
        ("fifo", "a FIFO"),
        ("dir", "a directory"),
        ("to_null", "a character device"),
        (
            "dangling",
            "a symlink to a missing file (never written through, as cp does)",
        ),
    ] {
        let out = d.join(name);
        let err = (|| {
            let mut w = NpzWriter::create(&out)?;
            w.add("x", &[1u8], &[1])?;
            w.finish()
        })()
        .expect_err(name);
        assert!(
            matches!(err.kind(), npy_npz::ErrorKind::Npy(e) if matches!(
                e.kind(),
                npy_core::ErrorKind::NotRegularFile { role: "output", found: f } if *f == found
            )),
            "{name}: {err}"
        );
        assert_eq!(err.path(), Some(out.as_path()), "{name}: {err}");
        assert_eq!(
            err.to_string().matches(&*out.to_string_lossy()).count(),
            1,
            "{err}"
        );
    }
    assert_eq!(listing(d), before, "nothing created or removed");
    assert!(!d.join("missing.npz").exists());
}

/// Issue 23 F14: a FIFO without a writer, a device or a directory as an archive to open is
/// refused at once, never waited on.
#[test]
fn special_inputs_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = Command::new("mkfifo")
        .arg(d.join("fifo"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
    for (input, found) in [
        (d.join("fifo"), "a FIFO"),
        (Path::new("/dev/zero").to_owned(), "a character device"),
        (d.to_owned(), "a directory"),
    ] {
        let (tx, rx) = std::sync::mpsc::channel();
        let path = input.clone();
        std::thread::spawn(move || {
            let _ = tx.send(NpzArchive::open(&path).map(drop));
        });
        let err = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("NpzArchive::open waited on a special file")
            .expect_err(found);
        assert_eq!(err.path(), Some(input.as_path()), "{err}");
        match err.kind() {
            npy_npz::ErrorKind::Npy(e) => match e.kind() {
                npy_core::ErrorKind::NotRegularFile { role, found: f } => {
                    assert_eq!((*role, *f), ("input", found), "{err}");
                }
                npy_core::ErrorKind::Io(_) if found != "a FIFO" => {}
                _ => panic!("{found}: {err}"),
            },
            _ => panic!("{found}: {err}"),
        }
    }
}
