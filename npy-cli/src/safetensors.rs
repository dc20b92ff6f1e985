//! `.safetensors` files in `npy info` and `npy convert` (and `npy show`, in `show/`).

use std::io::Write;
use std::path::Path;

use npy_safetensors::{SafetensorsFile, TensorEntry};
use serde::Serialize;

use crate::format::{printable, shape, thousands};

/// Whether `path` names a safetensors file (by its extension, as the format has no magic).
pub fn is_safetensors(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("safetensors"))
}

/// One tensor in `npy info --json`.
#[derive(Debug, Serialize)]
struct TensorJson<'a> {
    name: &'a str,
    path: String,
    member: &'a str,
    /// The safetensors dtype (`"F32"`, `"BF16"`).
    dtype: &'static str,
    /// The numpy descr the tensor converts to.
    descr: String,
    shape: &'a [u64],
    nbytes: u64,
    /// Offset of the tensor's data from the start of the file.
    data_offset: u64,
}

/// `npy info` of a safetensors file: a line for the file, then one per tensor (or one JSON
/// object per tensor). Returns whether it was read, and how many blocks were printed.
pub fn info(path: &Path, json: bool, blocks: usize, out: &mut impl Write) -> (bool, usize) {
    let file = match SafetensorsFile::open(path) {
        Ok(f) => f,
        Err(e) => {
            crate::info::complain(path, &e.kind());
            return (false, 0);
        }
    };
    let h = file.header();
    let tensor_line = |t: &TensorEntry| {
        format!(
            "  {}  {} ({})  {}  {} bytes\n",
            printable(t.name()),
            t.dtype().name(),
            SafetensorsFile::npy_header(t).dtype,
            shape(t.shape()),
            thousands(t.nbytes())
        )
    };
    let mut text = String::new();
    if json {
        for t in h.tensors() {
            let j = TensorJson {
                name: t.name(),
                path: path.display().to_string(),
                member: t.name(),
                dtype: t.dtype().name(),
                descr: SafetensorsFile::npy_header(t).dtype.to_string(),
                shape: t.shape(),
                nbytes: t.nbytes(),
                data_offset: h.data_start() + t.data_range().start,
            };
            match serde_json::to_string(&j) {
                Ok(line) => text.push_str(&(line + "\n")),
                Err(e) => {
                    crate::info::complain(path, &e);
                    return (false, 0);
                }
            }
        }
    } else {
        if blocks > 0 {
            text.push('\n');
        }
        let data: u64 = h.tensors().iter().map(TensorEntry::nbytes).sum();
        text.push_str(&format!(
            "{}: safetensors, {} tensors, {} bytes of data\n",
            printable(&path.display().to_string()),
            h.tensors().len(),
            thousands(data)
        ));
        if let Some(m) = h.metadata() {
            for (k, v) in m {
                text.push_str(&format!("  metadata {}: {}\n", printable(k), printable(v)));
            }
        }
        for t in h.tensors() {
            text.push_str(&tensor_line(t));
        }
    }
    if out.write_all(text.as_bytes()).is_err() {
        return (false, 1);
    }
    (true, 1)
}
