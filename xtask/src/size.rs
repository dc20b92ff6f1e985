//! `cargo xtask size`: each crate's non-test source lines and the public names at its root,
//! the two measures issue 40 sets targets on (npy-core: at most 14,000 lines and 45 names).
//!
//! Lines are every line of `src/**/*.rs` except those of `#[cfg(test)]` modules: inline ones
//! (from the attribute to the module's closing brace) and module files declared under the
//! attribute (`#[cfg(test)] mod tests;` leaves out `tests.rs` and `tests/`). Names are those a
//! user reaches as `krate::Name`: the items `pub use` brings to `lib.rs`'s root (each name of a
//! `{…}` list, a glob counted once), its `pub mod`s and the `pub` items defined there, less
//! those under `#[doc(hidden)]`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::workspace_root;

/// The crates measured: the workspace's published ones, bottom first, then npy-wasm (the npm
/// package's crate, not published to crates.io).
const CRATES: &[&str] = &[
    "npy-fs",
    "npy-ml-dtypes",
    "npy-core",
    "npy-convert",
    "npy-derive",
    "npy-serde",
    "npy-print",
    "npy-pickle",
    "npy-npz",
    "npy-safetensors",
    "npy-sparse",
    "npy-arrow",
    "npy-object-store",
    "npy-datafusion",
    "npy-cli",
    "npy-wasm",
];

/// Prints a table: crate, non-test lines, root names; then the workspace's total lines and
/// npy-core's share. With `files`, lists that crate's files and their non-test lines instead.
///
/// # Errors
/// A source file that cannot be read.
pub fn run(files: Option<&str>) -> Result<(), String> {
    let root = workspace_root();
    if let Some(name) = files {
        let src = root.join(name).join("src");
        let mut rows = file_lines(&src)?;
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (file, lines) in rows {
            let shown = file.strip_prefix(&src).unwrap_or(&file);
            println!("{lines:>6}  {}", shown.display());
        }
        return Ok(());
    }
    let mut rows = Vec::new();
    for name in CRATES {
        let dir = root.join(name);
        if !dir.exists() {
            continue;
        }
        let lines = crate_lines(&dir.join("src"))?;
        let lib = dir.join("src").join("lib.rs");
        let names = if lib.exists() {
            let text = fs::read_to_string(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
            root_names(&text).len()
        } else {
            0
        };
        rows.push((*name, lines, names));
    }
    let total: usize = rows.iter().map(|r| r.1).sum();
    println!("| crate | non-test lines | names at the root |");
    println!("|---|--:|--:|");
    for (name, lines, names) in &rows {
        println!("| {name} | {lines} | {names} |");
    }
    let core = rows.iter().find(|r| r.0 == "npy-core").map_or(0, |r| r.1);
    println!(
        "| all | {total} | |\nnpy-core holds {:.0} % of the lines",
        100.0 * core as f64 / total.max(1) as f64
    );
    Ok(())
}

/// Non-test lines of every `.rs` file under `src`.
fn crate_lines(src: &Path) -> Result<usize, String> {
    Ok(file_lines(src)?.iter().map(|(_, lines)| lines).sum())
}

/// Each non-test `.rs` file under `src` with its non-test lines.
fn file_lines(src: &Path) -> Result<Vec<(PathBuf, usize)>, String> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut texts = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        for module in test_modules_declared(&text) {
            let dir = module_dir(f);
            test_only.insert(dir.join(format!("{module}.rs")));
            test_only.insert(dir.join(&module));
        }
        texts.push((f.clone(), text));
    }
    Ok(texts
        .into_iter()
        .filter(|(f, _)| !test_only.iter().any(|t| f.starts_with(t)))
        .map(|(f, text)| {
            let lines = non_test_lines(&text);
            (f, lines)
        })
        .collect())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The directory where the modules `file` declares live: its own for `lib.rs`, `main.rs`
/// and `mod.rs`, else the directory named by its stem.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("."));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") | None => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
    }
}

/// Whether `line` is an attribute that compiles what follows only in tests.
fn is_test_cfg(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("#[cfg(")
        && (l.contains("(test)") || l.contains("(test,") || l.contains(" test)"))
}

/// Names of `#[cfg(test)] mod NAME;` declarations (modules in files of their own).
fn test_modules_declared(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !is_test_cfg(line) {
            continue;
        }
        let next = lines[i + 1..].iter().find(|l| !l.trim().starts_with("#["));
        if let Some(decl) = next.map(|l| l.trim()) {
            let decl = decl.strip_prefix("pub(crate) ").unwrap_or(decl);
            if let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) {
                out.push(name.trim().to_owned());
            }
        }
    }
    out
}

/// Lines of `text` outside inline `#[cfg(test)] mod … { … }` blocks.
fn non_test_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        if is_test_cfg(lines[i]) {
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().starts_with("#[") {
                j += 1;
            }
            if j < lines.len() && lines[j].contains("mod ") && lines[j].trim_end().ends_with('{') {
                // Skip to the brace that closes the module.
                let mut depth = 0i64;
                while j < lines.len() {
                    depth += braces(lines[j]);
                    j += 1;
                    if depth <= 0 {
                        break;
                    }
                }
                i = j;
                continue;
            }
        }
        count += 1;
        i += 1;
    }
    count
}

/// `{` less `}` on a line, outside string and char literals and `//` comments (enough for
/// this workspace's test modules).
fn braces(line: &str) -> i64 {
    let mut depth = 0;
    let mut in_str = false;
    let mut prev = ' ';
    for c in line.chars() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '/' if !in_str && prev == '/' => break,
            '{' if !in_str => depth += 1,
            '}' if !in_str => depth -= 1,
            _ => {}
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    depth
}

/// The public names at the root of a crate whose `lib.rs` is `text`.
fn root_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut hidden = false;
    let mut depth = 0i64;
    let mut statement = String::new();
    for line in text.lines() {
        let t = line.trim();
        if depth == 0 && statement.is_empty() {
            if t.starts_with("#[doc(hidden)]") {
                hidden = true;
                continue;
            }
            if t.starts_with("#[") || t.starts_with("//") || t.is_empty() {
                continue;
            }
        }
        if depth > 0 {
            depth += braces(t);
            continue;
        }
        if !statement.is_empty() || t.starts_with("pub use ") {
            statement.push_str(t);
            statement.push(' ');
            if t.ends_with(';') {
                if !hidden {
                    use_names(&statement, &mut names);
                }
                statement.clear();
                hidden = false;
            }
            continue;
        }
        for kind in [
            "pub mod ",
            "pub fn ",
            "pub struct ",
            "pub enum ",
            "pub trait ",
            "pub type ",
            "pub const ",
            "pub static ",
            "pub macro ",
            "pub unsafe fn ",
        ] {
            if let Some(rest) = t.strip_prefix(kind) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !hidden && !name.is_empty() {
                    names.insert(name);
                }
            }
        }
        hidden = false;
        depth += braces(t);
    }
    names
}

/// The names one `pub use …;` statement brings: the last segment of each path, its `as`
/// rename, or the glob itself.
fn use_names(statement: &str, names: &mut BTreeSet<String>) {
    let body = statement
        .trim()
        .trim_start_matches("pub use ")
        .trim_end_matches(';');
    let mut item = String::new();
    for c in body.chars() {
        if matches!(c, '{' | '}' | ',') {
            // Before a `{` is a path prefix (`a::`), which names nothing.
            push_name(&item, names);
            item.clear();
        } else {
            item.push(c);
        }
    }
    push_name(&item, names);
}

fn push_name(item: &str, names: &mut BTreeSet<String>) {
    let item = item.trim();
    if item.is_empty() || item.ends_with("::") {
        return;
    }
    let name = match item.split_once(" as ") {
        Some((_, alias)) => alias.trim(),
        None => item.rsplit("::").next().unwrap_or(item).trim(),
    };
    if name == "self" {
        let module = item.trim_end_matches("::self");
        names.insert(module.rsplit("::").next().unwrap_or(module).to_owned());
    } else if name == "*" {
        names.insert(format!("{item} (glob)"));
    } else if name != "_" && !name.is_empty() {
        names.insert(name.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_names_count_each_name_of_a_use_list_once() {
        let lib = "//! docs\n#![deny(x)]\nmod a;\npub mod b;\npub use a::{C, D as E, f::{G, H}};\n\
                   #[doc(hidden)]\npub use a::Hidden;\n#[doc(hidden)]\npub mod __private {\n    pub use a::X;\n}\n\
                   pub fn run() {}\npub use a::Z;\n";
        let names: Vec<_> = root_names(lib).into_iter().collect();
        assert_eq!(names, ["C", "E", "G", "H", "Z", "b", "run"]);
    }

    #[test]
    fn test_modules_are_not_counted() {
        let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { let s = \"}\"; }\n}\nfn b() {}\n";
        assert_eq!(non_test_lines(text), 2);
        assert_eq!(
            test_modules_declared("#[cfg(test)]\nmod tests;\n"),
            ["tests"]
        );
    }
}
