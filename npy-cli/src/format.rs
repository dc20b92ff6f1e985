//! Small text helpers shared by the subcommands: thousands separators, shapes, and escaping
//! of text taken from a file before it reaches a terminal.

use std::fmt::Write;

/// `1024` as `"1,024"`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A shape as a person reads it: `4 × 64`, `5`, `3 × 0`, and `()` for a scalar (0-d array).
pub fn shape(dims: &[u64]) -> String {
    if dims.is_empty() {
        return "()".to_owned();
    }
    let mut out = String::new();
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            out.push_str(" × ");
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{d}");
    }
    out
}

/// `s` with control characters escaped (`\n`, `\u{1b}`), so that text read from a file
/// (header, field names, file names) cannot move the cursor or recolour the terminal: the
/// printer's own rule (npy-print's).
pub use npy_print::printable;

/// A remote input's local copy and its URL (`npy convert URL OUT` converts a downloaded
/// copy): the lines [`report`] writes name the URL where they would name the copy.
static COPY_OF_URL: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();

/// Makes [`report`] name `url` wherever a message names `copy`, its downloaded copy.
pub fn name_copy_as_url(copy: &std::path::Path, url: &std::path::Path) {
    let _ = COPY_OF_URL.set((copy.display().to_string(), url.display().to_string()));
}

/// Writes `npy: {line}` on stderr, with a downloaded copy's path replaced by its URL
/// ([`name_copy_as_url`]).
pub fn report(line: impl std::fmt::Display) {
    use std::io::Write as _;
    let mut line = line.to_string();
    if let Some((copy, url)) = COPY_OF_URL.get() {
        line = line.replace(copy.as_str(), url);
    }
    let _ = writeln!(std::io::stderr(), "npy: {line}");
}

/// Reports an error of a command that writes files as `npy: FILE: message` on stderr, FILE
/// being the file the error names (`fallback` when it names none), and returns exit status 1.
pub fn fail(e: &npy_core::Error, fallback: &std::path::Path) -> std::process::ExitCode {
    let path = e.path().unwrap_or(fallback).display().to_string();
    report(format_args!("{}: {}", printable(&path), describe(e)));
    std::process::ExitCode::FAILURE
}

/// The message of `e` for someone at the command line: the library's, except where it names a
/// Rust call the command line has an option for.
pub fn describe(e: &npy_core::Error) -> String {
    match e.kind() {
        npy_core::ErrorKind::NotNpy(npy_core::error::NotNpy::Npz) => {
            "this is an .npz archive (a zip of \
            .npy files): pick a member with --member KEY (`npy info FILE` lists the keys)"
                .to_owned()
        }
        npy_core::ErrorKind::ObjectArray { dtype } => format!(
            "file has dtype '{dtype}', an array of Python objects: `npy show` prints it (decoding \
             its pickle without executing anything); other commands do not rewrite object arrays"
        ),
        kind => kind.to_string(),
    }
}

/// `--hint TYPE`: an ml_dtypes type name (`bfloat16`, `float8_e4m3fn`, `int4`, …, or
/// safetensors' `BF16`, `F8_E4M3`, `F8_E5M2`).
pub fn parse_hint(s: &str) -> Result<npy_core::dtype::MlType, String> {
    npy_core::dtype::MlType::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = npy_core::dtype::MlType::ALL
            .iter()
            .map(|t| t.name())
            .collect();
        format!("unknown type {s:?}; expected one of {}", names.join(", "))
    })
}

/// What `--hint TYPE` makes of the array of `parsed`: the dtype read with it, or the message
/// saying why the hint does not fit (naming the file's dtype and the hint) or is refused (a
/// big-endian `'>V2'`). A hint is asked for by a user who believes the file holds that type:
/// one that does not fit is an error, never ignored.
pub fn hinted(
    parsed: &npy_core::header::ParsedHeader,
    hint: npy_core::dtype::MlType,
) -> Result<npy_core::DType, String> {
    match parsed.hinted_dtype(hint) {
        Ok(Some(dtype)) => Ok(dtype),
        Ok(None) => {
            let file = &parsed.header.dtype;
            let what = match file.canonical() {
                Some(c) => format!("'{file}' ({})", c.name()),
                None => format!("'{file}'"),
            };
            let saved = npy_core::DType::Ml(hint);
            let size = if hint.itemsize() == file.itemsize() {
                String::new()
            } else {
                format!(
                    ", {} byte(s) per element where the file has {}",
                    hint.itemsize(),
                    file.itemsize()
                )
            };
            Err(format!(
                "--hint {hint} does not fit: the file's dtype is {what}, and numpy with \
                 ml_dtypes saves {hint} as '{saved}'{size}"
            ))
        }
        Err(e) => Err(e.kind().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn thousands_separators() {
        for (n, want) in [
            (0, "0"),
            (7, "7"),
            (999, "999"),
            (1_000, "1,000"),
            (1_024, "1,024"),
            (1_152, "1,152"),
            (72_128, "72,128"),
            (100_000, "100,000"),
            (1_234_567, "1,234,567"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(thousands(n), want, "{n}");
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(shape(&[]), "()");
        assert_eq!(shape(&[0]), "0");
        assert_eq!(shape(&[5]), "5");
        assert_eq!(shape(&[3, 0]), "3 × 0");
        assert_eq!(shape(&[4, 64]), "4 × 64");
        assert_eq!(shape(&[2, 3, 4]), "2 × 3 × 4");
    }

    #[test]
    fn printable_escapes_controls_only() {
        assert_eq!(printable("{'descr': '<f4'}"), "{'descr': '<f4'}");
        assert_eq!(printable("整形 αβ"), "整形 αβ");
        assert_eq!(printable("a\nb\x1b[31m"), "a\\nb\\u{1b}[31m");
        assert!(matches!(printable("plain"), Cow::Borrowed(_)));
    }
}
