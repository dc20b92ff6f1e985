//! `cargo xtask fixtures [--check]`: the NumPy `.npy` fixture set in `fixtures/`.
//!
//! The files are written by `xtask/fixtures.py` (run with the interpreter from
//! [`crate::python::numpy_python`], i.e. numpy 2.4.6). The script owns the
//! top-level `*.npy` files, `manifest.json` and `README.md` of the output
//! directory, and the same files in each sub-directory of [`OWNED_DIRS`]
//! (`object/`: object arrays, by `xtask/fixtures_object.py`; `npz/`: `.npz`
//! archives, by `xtask/fixtures_npz.py`); it deletes stale files and rewrites
//! everything.
//!
//! Each sub-directory in [`SUBSETS`] belongs entirely to its own generator script (run
//! after the main one, with the sub-directory as its output), which writes its own
//! manifest: `parity/` (`xtask/fixtures_parity.py`, numpy's and Python's verdicts on descr
//! strings, literals and safe casts, and the files of issue 13's parity kinds).
//!
//! With `--check` the set is regenerated into a temporary directory under the
//! target directory and compared byte for byte with `fixtures/`; any difference
//! is listed and the command fails.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::python::numpy_python;
use crate::workspace_root;

/// Entry point of the `fixtures` subcommand.
pub fn run(flags: &crate::flags::Fixtures) -> Result<(), String> {
    let check = flags.check;
    let fixtures_dir = fixtures_dir();
    if check {
        check_fixtures(&fixtures_dir)
    } else {
        let python = numpy_python()?;
        generate(&python, &fixtures_dir)
    }
}

/// Sub-directories of `fixtures/` and the script that owns all of each (`xtask/<script>`).
pub const SUBSETS: &[(&str, &str)] = &[
    ("parity", "fixtures_parity.py"),
    ("mltypes", "fixtures_mltypes.py"),
    ("sparse", "fixtures_sparse.py"),
];

/// The committed fixture directory, `<workspace>/fixtures`.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("fixtures")
}

/// The committed generator script, `<workspace>/xtask/fixtures.py`.
pub fn script_path() -> PathBuf {
    workspace_root().join("xtask").join("fixtures.py")
}

/// Runs the generator scripts with `python`, writing into `out_dir` (the main script) and
/// its [`SUBSETS`] sub-directories.
pub fn generate(python: &Path, out_dir: &Path) -> Result<(), String> {
    eprintln!(
        "xtask: {} {} {}",
        python.display(),
        script_path().display(),
        out_dir.display()
    );
    crate::python::run_script(python, "fixtures.py", [out_dir])?;
    for (dir, script) in SUBSETS {
        let sub = out_dir.join(dir);
        eprintln!(
            "xtask: {} xtask/{script} {}",
            python.display(),
            sub.display()
        );
        crate::python::run_script(python, script, [&sub])?;
    }
    Ok(())
}

/// Regenerates into a temporary directory and compares with `fixtures_dir`.
fn check_fixtures(fixtures_dir: &Path) -> Result<(), String> {
    let python = numpy_python()?;
    let tmp = crate::target_dir().join(format!("xtask-fixtures-check-{}", std::process::id()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(|e| format!("cannot remove {}: {e}", tmp.display()))?;
    }
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = generate(&python, &tmp).and_then(|()| compare_dirs(&tmp, fixtures_dir));
    // Best effort: a leftover directory under target/ is harmless.
    let _ = fs::remove_dir_all(&tmp);
    let differences = result?;
    if differences.is_empty() {
        eprintln!("xtask: {} is up to date", fixtures_dir.display());
        return Ok(());
    }
    let mut message = format!(
        "{} differs from what xtask/fixtures.py generates ({} file(s)):\n",
        fixtures_dir.display(),
        differences.len()
    );
    for difference in &differences {
        message.push_str(&format!("  {difference}\n"));
    }
    message.push_str("run `cargo xtask fixtures` to regenerate");
    Err(message)
}

/// One file that differs between the generated and the committed fixture set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Generated, but not present in the committed directory.
    Missing(String),
    /// Present in the committed directory (and owned by the generator), but no
    /// longer generated.
    Stale(String),
    /// Present in both with different bytes.
    Changed(String),
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Missing(name) => write!(f, "{name}: missing from fixtures/ (generated)"),
            Difference::Stale(name) => {
                write!(f, "{name}: stale (in fixtures/, no longer generated)")
            }
            Difference::Changed(name) => write!(f, "{name}: contents differ"),
        }
    }
}

/// Sub-directories of `fixtures/` the generator owns (their `*.npy`, `*.npz`,
/// `manifest.json` and `README.md`), compared by `--check` like the top level.
pub const OWNED_DIRS: &[&str] = &["object", "npz"];

/// Whether a file name (top level or in [`OWNED_DIRS`]) belongs to the generator.
pub fn is_owned(name: &str) -> bool {
    name.ends_with(".npy")
        || name.ends_with(".npz")
        || name == "manifest.json"
        || name == "README.md"
}

/// Top-level regular files of `dir` for which `owned` holds, sorted.
/// A directory that does not exist has none.
fn owned_files(dir: &Path, owned: impl Fn(&str) -> bool) -> Result<BTreeSet<String>, String> {
    let mut names = BTreeSet::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let is_file = entry
            .file_type()
            .map_err(|e| format!("cannot stat {}: {e}", entry.path().display()))?
            .is_file();
        if let (true, Some(name)) = (is_file, entry.file_name().to_str()) {
            if owned(name) {
                names.insert(name.to_string());
            }
        }
    }
    Ok(names)
}

/// Compares the generator-owned files of `generated` and `committed` byte for
/// byte; returns the differences sorted by file name.
pub fn compare_dirs(generated: &Path, committed: &Path) -> Result<Vec<Difference>, String> {
    let mut differences = compare_one(generated, committed, "", is_owned)?;
    for dir in OWNED_DIRS {
        differences.extend(compare_one(
            &generated.join(dir),
            &committed.join(dir),
            &format!("{dir}/"),
            is_owned,
        )?);
    }
    // A SUBSETS directory belongs wholly to its script: every file is compared.
    for (dir, _) in SUBSETS {
        differences.extend(compare_one(
            &generated.join(dir),
            &committed.join(dir),
            &format!("{dir}/"),
            |_| true,
        )?);
    }
    Ok(differences)
}

/// [`compare_dirs`] of one directory's files for which `owned` holds, names reported with
/// `prefix`.
fn compare_one(
    generated: &Path,
    committed: &Path,
    prefix: &str,
    owned: impl Fn(&str) -> bool + Copy,
) -> Result<Vec<Difference>, String> {
    let new = owned_files(generated, owned)?;
    let old = owned_files(committed, owned)?;
    let read =
        |path: PathBuf| fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()));
    let mut differences = Vec::new();
    for name in new.union(&old) {
        let shown = format!("{prefix}{name}");
        match (new.contains(name), old.contains(name)) {
            (true, false) => differences.push(Difference::Missing(shown)),
            (false, true) => differences.push(Difference::Stale(shown)),
            _ => {
                if read(generated.join(name))? != read(committed.join(name))? {
                    differences.push(Difference::Changed(shown));
                }
            }
        }
    }
    Ok(differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("xtask-test-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn ownership() {
        assert!(is_owned("a.npy"));
        assert!(is_owned("manifest.json"));
        assert!(is_owned("README.md"));
        assert!(!is_owned("notes.txt"));
        assert!(is_owned("a.npz")); // fixtures/npz/ holds numpy's archives
    }

    #[test]
    fn compare_reports_missing_stale_and_changed() {
        let generated = TempDir::new("gen");
        let committed = TempDir::new("com");
        fs::write(generated.0.join("same.npy"), b"x").unwrap();
        fs::write(committed.0.join("same.npy"), b"x").unwrap();
        fs::write(generated.0.join("changed.npy"), b"new").unwrap();
        fs::write(committed.0.join("changed.npy"), b"old").unwrap();
        fs::write(generated.0.join("manifest.json"), b"{}").unwrap();
        fs::write(committed.0.join("stale.npy"), b"s").unwrap();
        // not owned by the generator: ignored
        fs::write(committed.0.join("other.txt"), b"o").unwrap();
        fs::create_dir(committed.0.join("external.npy")).unwrap();
        // an owned sub-directory is compared too; other sub-directories are not
        fs::create_dir(generated.0.join("object")).unwrap();
        fs::create_dir(committed.0.join("object")).unwrap();
        fs::write(generated.0.join("object").join("o.npy"), b"new").unwrap();
        fs::write(committed.0.join("object").join("o.npy"), b"old").unwrap();
        fs::write(committed.0.join("object").join("gone.npy"), b"g").unwrap();
        fs::create_dir(committed.0.join("other")).unwrap();
        fs::write(committed.0.join("other").join("x.npy"), b"x").unwrap();

        let differences = compare_dirs(&generated.0, &committed.0).unwrap();
        assert_eq!(
            differences,
            vec![
                Difference::Changed("changed.npy".into()),
                Difference::Missing("manifest.json".into()),
                Difference::Stale("stale.npy".into()),
                Difference::Stale("object/gone.npy".into()),
                Difference::Changed("object/o.npy".into()),
            ]
        );
    }

    #[test]
    fn identical_dirs_have_no_differences() {
        let generated = TempDir::new("gen2");
        let committed = TempDir::new("com2");
        for dir in [&generated.0, &committed.0] {
            fs::write(dir.join("a.npy"), [0x93, b'N']).unwrap();
            fs::write(dir.join("README.md"), b"r").unwrap();
        }
        assert!(compare_dirs(&generated.0, &committed.0).unwrap().is_empty());
    }
}
