//! What the READMEs tell a user to write, so that a test can hold each line to code that
//! compiles and runs: the lines of every fenced `rust` block, and the code spans of one column of a
//! Markdown table.

use std::fs;
use std::path::Path;

/// The lines of the README's fenced `rust` blocks (`rust,ignore` too: the README shows them without
/// a harness), each trimmed, its `//` comment dropped, blank lines left out.
///
/// # Panics
/// When the file cannot be read.
pub fn rust_lines(readme: &Path) -> Vec<String> {
    let text = fs::read_to_string(readme)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", readme.display()));
    let mut lines = Vec::new();
    let mut in_rust = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            in_rust = !in_rust && info.split(',').next() == Some("rust");
            continue;
        }
        if in_rust {
            let code = t.split(" //").next().unwrap_or(t).trim();
            if !code.is_empty() && !code.starts_with("//") {
                lines.push(code.to_owned());
            }
        }
    }
    lines
}

/// The `code spans` of column `column` (0 = the first) in the README's table whose header row
/// names `header` in that column, row by row.
///
/// # Panics
/// When the file cannot be read or has no such table.
pub fn table_spans(readme: &Path, header: &str, column: usize) -> Vec<String> {
    let text = fs::read_to_string(readme)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", readme.display()));
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let mut spans = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if !line.trim_start().starts_with('|') {
            in_table = false;
            continue;
        }
        let row = cells(line);
        if row.get(column).is_some_and(|c| c == header) {
            in_table = true;
            continue;
        }
        if !in_table
            || row
                .iter()
                .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        let Some(cell) = row.get(column) else {
            continue;
        };
        let mut parts = cell.split('`');
        parts.next();
        while let (Some(code), rest) = (parts.next(), parts.next()) {
            spans.push(code.to_owned());
            if rest.is_none() {
                break;
            }
        }
    }
    assert!(
        !spans.is_empty(),
        "{} has no table with {header:?} in column {column}",
        readme.display()
    );
    spans
}

/// Whether `source` holds `code`, white space compared loosely (runs of spaces as one).
pub fn holds(source: &str, code: &str) -> bool {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    squash(source).contains(&squash(code))
}
