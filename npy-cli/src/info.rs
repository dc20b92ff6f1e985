//! `npy info`: what each file holds, read from its header alone.

use std::borrow::Cow;
use std::fmt::{Display, Write as _};
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use npy_core::{ByteOrder, DType, Error, TensorInfo};
use serde::Serialize;

use crate::format::{printable, shape, thousands};

/// The `--json` fields, for `npy info --help`: the one list of them (the crate docs point here).
const JSON_FIELDS: &str = "\
JSON output (--json):
  One object per line per file, in the order the files were given. Fields:
    name           the file stem (a .npy file stores no name)
    path           the path as given on the command line
    file_size      size of the file, in bytes
    version        format version: \"1.0\", \"2.0\" or \"3.0\"
    header_len     the HEADER_LEN field: bytes of header text, padding and newline included
    data_offset    offset of the array data from the start of the file, in bytes
    descr          the dtype as the header writes it, without the quotes of a simple one:
                   \"<f4\", \"|S7\", \"[('x', '<f4'), ('id', '<i8')]\"
    canonical      the canonical number type (\"float32\", \"int64\", \"bool\", ...) or ml_dtypes
                   type (\"float8_e5m2\" for '<f1', \"bfloat16\" with --hint bfloat16), or null
                   for longdouble, datetime64, timedelta64, S, U, V, O and record dtypes
    shape          the dimensions, outermost first ([] for a 0-d array)
    fortran_order  true when the data is in Fortran (column-major) order
    itemsize       bytes per element
    nbytes         bytes of data the header describes: product of shape times itemsize
    byte_order     \"little\", \"big\" or \"na\" (does not apply: 1-byte types, S, V, O, records)
    header         the header text exactly as stored, padding spaces and newline included

Exit status:
  0 when every file was read and holds all the data its header describes; 1 when a file could
  not be read (the error goes to stderr as `npy: FILE: message` and the other files are still
  described) or is shorter than its header promises (a warning says so).";

/// Summarise .npy files and .npz archives from their headers: dtype, shape, sizes, layout.
///
/// Reads only the header of each file (and its size), never the data; an .npz archive is
/// described member by member, each under its key (--json adds "member", the key numpy
/// uses, and `"compressed_size"`; `"file_size"` is then the member's size).
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_FIELDS)]
pub struct Args {
    /// The .npy files (or .npz archives, or .safetensors files) to describe.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Print one JSON object per line per file instead of text (fields: see --help).
    #[arg(long)]
    json: bool,

    /// Describe the data as this ml_dtypes type (bfloat16, float8_e4m3fn, int4, ...: see
    /// `npy show --help`), as `npy show --hint` reads it: numpy with ml_dtypes saves bfloat16
    /// as '<V2' and the one-byte kinds as '<V1'. A file (or member) whose descr is not what
    /// numpy saves for TYPE is an error.
    #[allow(clippy::doc_markdown, reason = "clap help text, printed as written")]
    #[arg(long, value_name = "TYPE", value_parser = crate::format::parse_hint)]
    hint: Option<npy_core::dtype::MlType>,
}

/// Runs `npy info`.
pub fn run(args: &Args) -> ExitCode {
    let mut out = io::stdout().lock();
    let mut failed = false;
    let mut blocks = 0usize;
    for path in &args.files {
        if crate::safetensors::is_safetensors(path) {
            if args.hint.is_some() {
                complain(
                    path,
                    &"--hint applies to .npy and .npz files: a .safetensors file names its \
                      dtypes (BF16, F8_E4M3, F8_E5M2)",
                );
                failed = true;
                continue;
            }
            let (ok, n) = crate::safetensors::info(path, args.json, blocks, &mut out);
            failed |= !ok;
            blocks += n;
            continue;
        }
        // A URL: the object's first GET tells an archive from an array.
        let remote = if crate::remote::is_url(path) {
            match crate::remote::open(path) {
                Ok(object) => Some(object),
                Err(e) => {
                    complain(path, &e);
                    failed = true;
                    continue;
                }
            }
        } else {
            None
        };
        if let Some(object) = remote.as_ref().filter(|o| crate::remote::is_zip(o)) {
            // Every member's local and `.npy` headers in one coalesced read (a few requests
            // for any member count), not one or two requests a member.
            let npz = crate::remote::prefetched(npy_npz::NpzArchive::new(object.clone()));
            let (ok, n) = crate::npz::info_of(path, npz, args.json, args.hint, blocks, &mut out);
            failed |= !ok;
            blocks += n;
            continue;
        }
        // npz integration point: an archive is described member by member.
        if remote.is_none() && crate::npz::is_npz(path) {
            // A scipy.sparse archive says so first (a line of its own; --json: an object with
            // "sparse"), then its members as any archive's.
            // One that scipy's load_npz refuses says why instead.
            let line = match npy_sparse::detect(path) {
                Ok(Some(sparse)) => Some(sparse_line(path, &sparse, args.json)),
                Ok(None) => None,
                Err(e) => sparse_refusal(path, &e, args.json),
            };
            if let Some(Err(e)) = line.map(|l| out.write_all(l.as_bytes())) {
                return output_failed(&e);
            }
            let (ok, n) = crate::npz::info(path, args.json, args.hint, blocks, &mut out);
            failed |= !ok;
            blocks += n;
            continue;
        }
        let mut report = match Report::read(path, remote) {
            Ok(r) => r,
            Err(e) => {
                complain(path, &e);
                failed = true;
                continue;
            }
        };
        if let Err(m) = apply_hint(&mut report.info, args.hint) {
            complain(path, &m);
            failed = true;
            continue;
        }
        let shortfall = report.shortfall();
        failed |= shortfall.is_some();
        let text = if args.json {
            if let Some(w) = &shortfall {
                complain(path, &format_args!("warning: {w}"));
            }
            match serde_json::to_string(&report.json()) {
                Ok(line) => line + "\n",
                Err(e) => {
                    complain(path, &e);
                    continue;
                }
            }
        } else {
            let mut text = if blocks > 0 {
                "\n".to_owned()
            } else {
                String::new()
            };
            report.write_text(&mut text, shortfall.as_deref());
            text
        };
        blocks += 1;
        if let Err(e) = out.write_all(text.as_bytes()) {
            return output_failed(&e);
        }
    }
    if let Err(e) = out.flush() {
        return output_failed(&e);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The line `npy info` prints for a scipy.sparse archive: `FILE: scipy.sparse csr_matrix,
/// 4 × 4, 6 stored elements, data <f8, index <i4`, or a JSON object with `"sparse"`.
fn sparse_line(path: &Path, s: &npy_sparse::SparseInfo, json: bool) -> String {
    let class = format!(
        "{}_{}",
        s.format.name(),
        if s.is_array { "array" } else { "matrix" }
    );
    if json {
        let v = serde_json::json!({
            "path": path.display().to_string(),
            "sparse": {
                "format": s.format.name(),
                "class": class,
                "shape": s.shape,
                "stored": s.stored,
                "nnz": s.nnz,
                "data_descr": s.data_dtype.to_string(),
                "index_descr": s.index_dtype.to_string(),
                "blocksize": s.blocksize,
            }
        });
        return format!("{v}\n");
    }
    let blocks = s
        .blocksize
        .map(|[r, c]| format!(", blocks {r} × {c}"))
        .unwrap_or_default();
    format!(
        "{}: scipy.sparse {class}, {}, {} stored elements{blocks}, data {}, index {}\n",
        printable(&path.display().to_string()),
        shape(&s.shape),
        thousands(s.nnz),
        s.data_dtype,
        s.index_dtype
    )
}

/// The line `npy info` prints for an archive with a `format` member that scipy's `load_npz`
/// refuses (`FILE: not a valid dia matrix: number of diagonals (1) does not match the number
/// of offsets (5)`) or that a summary does not read (too many DIA offsets); `--json`: an
/// object with `"sparse_invalid"`. `None` for an archive npy-npz cannot read (its members'
/// listing reports that).
fn sparse_refusal(path: &Path, e: &npy_sparse::Error, json: bool) -> Option<String> {
    let message = match e {
        npy_sparse::Error::NotValid { class, reason, .. } => {
            format!("not a valid {class}: {reason}")
        }
        npy_sparse::Error::Budget {
            member,
            elements,
            limit,
            ..
        } => format!(
            "scipy.sparse archive not summarised: member {member:?} holds {} elements, more \
             than the {} a summary reads",
            thousands(*elements),
            thousands(*limit)
        ),
        _ => return None,
    };
    if json {
        let v = serde_json::json!({
            "path": path.display().to_string(),
            "sparse_invalid": message,
        });
        return Some(format!("{v}\n"));
    }
    Some(format!(
        "{}: {message}\n",
        printable(&path.display().to_string())
    ))
}

/// `npy: FILE: message` on stderr. A closed stderr is not worth a panic.
pub(crate) fn complain(path: &Path, message: &dyn Display) {
    let path = path.display().to_string();
    let _ = writeln!(io::stderr(), "npy: {}: {message}", printable(&path));
}

pub(crate) fn output_failed(e: &io::Error) -> ExitCode {
    // `npy info ... | head` closing the pipe early is not an error worth a message.
    if e.kind() != io::ErrorKind::BrokenPipe {
        let _ = writeln!(io::stderr(), "npy: writing output: {e}");
    }
    ExitCode::FAILURE
}

/// The header `info` describes.
fn parsed_of(info: &TensorInfo) -> npy_core::header::ParsedHeader {
    let mut header = npy_core::Header::new(info.dtype.clone(), info.shape.clone());
    header.fortran_order = info.order == npy_core::MemoryOrder::Fortran;
    npy_core::header::ParsedHeader {
        header,
        version: info.version,
        header_len: info.header_len,
        text: info.header.clone(),
    }
}

/// [`apply_hint`] for a member of an archive: a member whose descr the hint does not fit is
/// described as it is (an archive holds bfloat16 weights beside float32 and int64 arrays);
/// a hint that fits but is refused (a big-endian `'>V2'`) is still an error.
pub(crate) fn apply_hint_where_fits(
    info: &mut TensorInfo,
    hint: Option<npy_core::dtype::MlType>,
) -> Result<(), String> {
    let Some(h) = hint else {
        return Ok(());
    };
    let parsed = parsed_of(info);
    match parsed.hinted_dtype(h) {
        Ok(None) => Ok(()),
        _ => apply_hint(info, hint),
    }
}

/// `info` with its dtype read through `--hint` ([`crate::format::hinted`]): the hinted
/// dtype, its canonical name (none) and byte order; `Err` with the message when the hint does
/// not fit. No hint: `info` as it is.
pub(crate) fn apply_hint(
    info: &mut TensorInfo,
    hint: Option<npy_core::dtype::MlType>,
) -> Result<(), String> {
    let Some(hint) = hint else {
        return Ok(());
    };
    let parsed = parsed_of(info);
    let dtype = crate::format::hinted(&parsed, hint)?;
    info.canonical = dtype.canonical();
    info.byte_order = dtype.byte_order();
    info.dtype = dtype;
    Ok(())
}

/// One file: its header summary and its size.
#[derive(Debug)]
pub(crate) struct Report<'a> {
    pub(crate) path: &'a Path,
    pub(crate) info: TensorInfo,
    /// Bytes of the file (of the member, for an archive's member).
    pub(crate) file_size: u64,
}

impl<'a> Report<'a> {
    /// The report of the file at `path`, or of the remote object opened from it.
    fn read(
        path: &'a Path,
        remote: Option<crate::remote::BlockingObject>,
    ) -> Result<Report<'a>, Error> {
        if let Some(object) = remote {
            let (info, file_size) = crate::remote::info(path, object)?;
            return Ok(Report {
                path,
                info,
                file_size,
            });
        }
        let file = npy_fs::open_regular(path)?;
        let file_size = file.metadata()?.len();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let info = TensorInfo::from_reader(name, &mut BufReader::new(file))?;
        Ok(Report {
            path,
            info,
            file_size,
        })
    }

    /// Bytes after the header.
    fn data_in_file(&self) -> u64 {
        self.file_size.saturating_sub(self.info.data_offset)
    }

    /// The warning for a file shorter than its header promises. Object arrays are exempt: their
    /// data is a pickle, whose length the header does not give.
    pub(crate) fn shortfall(&self) -> Option<String> {
        let held = self.data_in_file();
        (!self.info.dtype.has_object() && held < self.info.nbytes).then(|| {
            format!(
                "file holds {} data bytes, header promises {}",
                thousands(held),
                thousands(self.info.nbytes)
            )
        })
    }

    pub(crate) fn json(&self) -> Json<'_> {
        let i = &self.info;
        Json {
            name: &i.name,
            path: self.path.to_string_lossy(),
            file_size: self.file_size,
            version: i.version.to_string(),
            header_len: i.header_len,
            data_offset: i.data_offset,
            descr: i.dtype.to_string(),
            canonical: i
                .canonical
                .map(npy_core::dtype::Canonical::name)
                .or(match &i.dtype {
                    DType::Ml(t) => Some(t.name()),
                    _ => None,
                }),
            shape: &i.shape,
            fortran_order: i.order == npy_core::MemoryOrder::Fortran,
            itemsize: i.itemsize,
            nbytes: i.nbytes,
            byte_order: i.byte_order.name(),
            header: &i.header,
        }
    }

    /// The text block: the name, then one labelled line per property.
    pub(crate) fn write_text(&self, out: &mut String, shortfall: Option<&str>) {
        let i = &self.info;
        line(out, "", printable(&i.name));
        let descr = i.dtype.to_string();
        match (i.canonical, &i.dtype) {
            (Some(c), _) => row(
                out,
                "dtype",
                format_args!("{} {}", printable(&descr), c.name()),
            ),
            // An ml_dtypes type (a `<f1` descr, or a hint): its name, as numpy with ml_dtypes
            // names the dtype.
            (None, DType::Ml(t)) => row(out, "dtype", format_args!("{} {t}", printable(&descr))),
            (None, _) => row(out, "dtype", printable(&descr)),
        }
        if let DType::Record(r) = &i.dtype {
            write_fields(out, r.fields());
        }
        row(out, "shape", shape(&i.shape));
        if i.dtype.has_object() {
            let held = thousands(self.data_in_file());
            row(
                out,
                "data bytes",
                format_args!("{held} (a pickle of Python objects)"),
            );
        } else {
            row(out, "data bytes", thousands(i.nbytes));
        }
        row(out, "file size", thousands(self.file_size));
        row(out, "version", i.version);
        row(out, "data offset", thousands(i.data_offset));
        row(out, "order", i.order);
        row(
            out,
            "byte order",
            match i.byte_order {
                ByteOrder::NotApplicable => "n/a",
                o => o.name(),
            },
        );
        row(
            out,
            "header",
            printable(i.header.trim_end_matches([' ', '\n'])),
        );
        if let Some(w) = shortfall {
            row(out, "warning", w);
        }
    }
}

/// The `--json` object; field order is the documented order.
#[derive(Debug, Serialize)]
pub(crate) struct Json<'a> {
    name: &'a str,
    path: Cow<'a, str>,
    file_size: u64,
    version: String,
    header_len: u64,
    data_offset: u64,
    descr: String,
    canonical: Option<&'static str>,
    shape: &'a [u64],
    fortran_order: bool,
    itemsize: u64,
    nbytes: u64,
    byte_order: &'static str,
    header: &'a str,
}

/// Width of the label column, two-space indent included.
const LABEL: usize = 15;

fn row(out: &mut String, label: &str, value: impl Display) {
    line(out, &format!("  {label:<width$}", width = LABEL - 2), value);
}

fn line(out: &mut String, prefix: &str, value: impl Display) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{prefix}{value}");
}

/// One line per record field under the dtype: name, descr, offset (and title, if any).
fn write_fields(out: &mut String, fields: &[npy_core::dtype::Field]) {
    let rows: Vec<(Cow<'_, str>, String, &npy_core::dtype::Field)> = fields
        .iter()
        .map(|f| {
            let name = if f.name.is_empty() {
                Cow::Borrowed("''")
            } else {
                printable(&f.name)
            };
            (name, printable(&f.dtype.to_string()).into_owned(), f)
        })
        .collect();
    let name_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let descr_w = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    for (name, descr, f) in &rows {
        let mut l = format!(
            "    {name:<name_w$}  {descr:<descr_w$}  offset {}",
            thousands(f.offset)
        );
        if let Some(t) = &f.title {
            let _ = write!(l, "  title {}", printable(t));
        }
        line(out, "", l);
    }
}
