//! Keeps the module graph one-way: every module may use only modules of lower layers.
//!
//! The layers are the code map of `ARCHITECTURE.md`, bottom first. The test reads `src/` and
//! checks every `crate::…` path (imports and inline paths, `$crate::` in macros) against this
//! table, so a new upward edge fails with the file, the path and both layers named. Modules of
//! one layer do not use each other either; submodules of a folder module (`dtype/descr.rs`)
//! may use their siblings, which stay inside the module.

use std::path::{Path, PathBuf};

/// Top-level modules, bottom layer first; modules in one entry are independent of each other.
const LAYERS: &[&[&str]] = &[
    &["format"],
    &["literal", "codec"],
    &["dtype"],
    &["error"],
    &["io"],
    &["header"],
    &["element", "meta"],
    &["info"],
    &["read"],
    &["write"],
    &["view"],
    &["mmap"],
    &["dynamic"],
    &["records"],
    &["ndarray", "serde_impls"],
];

/// Files that sit outside the graph: the crate root declares and re-exports everything, and
/// this file names every module.
const OUTSIDE: &[&str] = &["lib", "layers"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("src/ entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `X` of every `crate::X` path in `code` (comments removed), with grouped imports
/// `crate::{X, Y::Z}` split.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                found.extend(
                    inner
                        .split(',')
                        .map(|item| ident(item.trim()))
                        .filter(|s| !s.is_empty()),
                );
            } else {
                found.push(ident(rest));
            }
        }
    }
    found
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn module_graph_is_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("file under src/");
        let first = rel.components().next().expect("non-empty path");
        let module = Path::new(first.as_os_str())
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 module name")
            .to_owned();
        if OUTSIDE.contains(&module.as_str()) {
            continue;
        }
        let Some(own) = layer_of(&module) else {
            problems.push(format!(
                "{}: module `{module}` is not in LAYERS (src/layers.rs); add it to its layer",
                rel.display()
            ));
            continue;
        };
        let code = std::fs::read_to_string(file).expect("readable source");
        for target in crate_paths(&code) {
            if target == module {
                continue;
            }
            match layer_of(&target) {
                Some(layer) if layer < own => {}
                Some(layer) => problems.push(format!(
                    "{}: `crate::{target}` reaches from layer {own} (`{module}`) to layer \
                     {layer} (`{target}`); a module may use only lower layers",
                    rel.display()
                )),
                None => problems.push(format!(
                    "{}: `crate::{target}` is not a module of LAYERS; import items through \
                     the module that defines them",
                    rel.display()
                )),
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn paths_are_found() {
    let code = "use crate::dtype::{DType, Field};\nuse crate::{error::Error, io};\n\
                let x = crate::format::MAGIC; // crate::ignored\n$crate::records::x";
    assert_eq!(
        crate_paths(code),
        ["dtype", "error", "io", "format", "records"]
    );
}
