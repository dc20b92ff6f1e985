//! Writing safetensors from `.npy` and `.npz` files, as `safetensors.numpy.save_file` writes.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use npy_core::{ByteOrder, ConvertOptions, DType, MlType, Order, ParsedHeader};
use npy_npz::NpzArchive;
use tempfile::NamedTempFile;

use crate::dtype::SafeDType;
use crate::error::{Error, ErrorKind};

/// Bytes of the output buffer (and of each copy): 1 MiB. A conversion holds this, the
/// headers, and for a member that must change byte order or memory order, npy-core's
/// `convert_file` buffers (3 × 8 MiB): peak memory stays under 64 MiB whatever the sizes.
pub const COPY_BUFFER_BYTES: usize = 1 << 20;

/// Options of [`to_safetensors`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToOptions {
    /// The ml_dtypes type of members whose descr lost it (`'<V2'` bfloat16, `'<V1'` float8):
    /// see `npy_core::ReadOptions::hint`. Without it such members are refused.
    pub hint: Option<MlType>,
}

impl ToOptions {
    /// These options with a type hint.
    #[must_use]
    pub fn hint(mut self, hint: Option<MlType>) -> Self {
        self.hint = hint;
        self
    }
}

/// One array to write: where it comes from and what it is.
struct Source {
    name: String,
    /// The `.npz` key, or `None` for a `.npy` source.
    key: Option<String>,
    parsed: ParsedHeader,
    dtype: SafeDType,
    nbytes: u64,
}

fn unsupported(member: &str, dtype: &DType) -> Error {
    let reason = match dtype {
        DType::Record(_) | DType::SubArray(_) => {
            "records (structured dtypes) have no safetensors dtype"
        }
        DType::Bytes(_) | DType::Unicode(..) => "strings have no safetensors dtype",
        DType::Object => "object arrays hold Python objects, not numbers",
        DType::Void(_) => {
            "raw bytes: give the ml_dtypes type with a hint (bfloat16, float8_e4m3fn, ...)"
        }
        DType::Time(..) => "datetime64/timedelta64 have no safetensors dtype",
        _ => "no safetensors dtype holds it",
    };
    Error::new(ErrorKind::Unsupported {
        member: member.to_owned(),
        dtype: format!("'{dtype}'"),
        reason,
    })
}

fn source(
    name: String,
    key: Option<String>,
    mut parsed: ParsedHeader,
    hint: Option<MlType>,
) -> Result<Source, Error> {
    if let Some(d) = hint.and_then(|h| parsed.header.dtype.with_hint(h)) {
        parsed.header.dtype = d;
    }
    let dtype = SafeDType::from_npy(&parsed.header.dtype)
        .ok_or_else(|| unsupported(&name, &parsed.header.dtype))?;
    let nbytes = parsed.header.nbytes()?;
    Ok(Source {
        name,
        key,
        parsed,
        dtype,
        nbytes,
    })
}

fn is_npz(path: &Path) -> Result<bool, Error> {
    let mut magic = [0u8; 4];
    let mut f = File::open(path).map_err(|e| Error::io(e, "opening"))?;
    let n = f.read(&mut magic).map_err(|e| Error::io(e, "reading"))?;
    Ok(n == 4 && (&magic == b"PK\x03\x04" || &magic == b"PK\x05\x06"))
}

/// The header JSON `safetensors` writes for `sources` in that order (offsets back to back),
/// padded with spaces to a multiple of 8 bytes.
fn header_json(sources: &[Source]) -> Vec<u8> {
    let mut s = String::from("{");
    let mut at = 0u64;
    for (i, src) in sources.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let name = serde_json::to_string(&src.name).expect("a String always serialises");
        let shape: Vec<String> = src.parsed.header.shape.iter().map(u64::to_string).collect();
        let end = at + src.nbytes;
        s.push_str(&format!(
            "{name}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{at},{end}]}}",
            src.dtype.name(),
            shape.join(",")
        ));
        at = end;
    }
    s.push('}');
    let mut bytes = s.into_bytes();
    let pad = (8 - bytes.len() % 8) % 8;
    bytes.resize(bytes.len() + pad, b' ');
    bytes
}

/// Converts an `.npz` archive (every member) or an `.npy` file (one tensor named by the
/// file's stem) to a safetensors file at `dst`, byte for byte as
/// `safetensors.numpy.save_file(dict(np.load(src)), dst)` writes it: tensors sorted by dtype
/// (largest first, the safetensors crate's order) then name, compact JSON padded with spaces
/// to a multiple of 8 bytes. Big-endian data is written little-endian and Fortran-order data
/// in C order (as the values, not the memory: `save_file` itself writes a Fortran array's
/// memory as if it were C order). Members are streamed: peak memory is bounded by
/// [`COPY_BUFFER_BYTES`] and npy-core's conversion buffers, whatever the sizes, deflated
/// members included (a member that needs reordering is inflated to a temporary file first).
/// The output appears complete or not at all (temporary file beside it, then rename).
///
/// # Errors
/// [`ErrorKind::Unsupported`] naming the member for records, strings, object arrays, raw void
/// without a hint, and other dtypes safetensors lacks (checked for every member before
/// anything is written); npy-core's errors reading the sources; I/O errors.
pub fn to_safetensors(
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ToOptions,
) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    let mut sources = Vec::new();
    let mut npz = None;
    if is_npz(src).map_err(|e| e.at(src))? {
        let archive = NpzArchive::open(src).map_err(|e| Error::from(e).at(src))?;
        let keys: Vec<String> = archive
            .members()
            .iter()
            .map(|m| m.key().to_owned())
            .collect();
        for key in keys {
            let parsed = archive.header(&key).map_err(|e| Error::from(e).at(src))?;
            sources
                .push(source(key.clone(), Some(key), parsed, options.hint).map_err(|e| e.at(src))?);
        }
        npz = Some(archive);
    } else {
        let mut f =
            io::BufReader::new(File::open(src).map_err(|e| Error::io(e, "opening").at(src))?);
        let parsed = npy_core::Header::read(&mut f).map_err(|e| Error::from(e).at(src))?;
        let stem = src
            .file_stem()
            .map_or_else(|| "arr_0".to_owned(), |s| s.to_string_lossy().into_owned());
        sources.push(source(stem, None, parsed, options.hint).map_err(|e| e.at(src))?);
    }
    // The safetensors crate's order: dtype descending, then name.
    sources.sort_by(|a, b| b.dtype.cmp(&a.dtype).then_with(|| a.name.cmp(&b.name)));
    let json = header_json(&sources);

    let mut tmp = temp_beside(dst)?;
    {
        let mut out = BufWriter::with_capacity(COPY_BUFFER_BYTES, &mut tmp);
        let werr = |e: io::Error| Error::io(e, "writing").at(dst);
        out.write_all(&(json.len() as u64).to_le_bytes())
            .map_err(werr)?;
        out.write_all(&json).map_err(werr)?;
        for s in &sources {
            copy_c_little(src, npz.as_ref(), s, &mut out)?;
        }
        out.flush().map_err(werr)?;
    }
    persist(tmp, dst)
}

/// Whether the stored bytes already are the C-order little-endian bytes safetensors wants.
fn as_stored(p: &ParsedHeader) -> bool {
    let h = &p.header;
    let c_order = !h.fortran_order || h.shape.iter().filter(|&&d| d > 1).count() <= 1;
    let little = matches!(
        h.dtype.byte_order(),
        ByteOrder::Little | ByteOrder::NotApplicable
    );
    c_order && little
}

/// Copies the data of `s` to `out` as C-order little-endian bytes.
fn copy_c_little<R: npy_core::ReadAt>(
    src: &Path,
    npz: Option<&NpzArchive<R>>,
    s: &Source,
    out: &mut impl Write,
) -> Result<(), Error> {
    let rerr = |e: io::Error| Error::io(e, format!("copying member {:?}", s.name)).at(src);
    let check = |copied: u64| {
        if copied == s.nbytes {
            Ok(())
        } else {
            Err(Error::from(npy_core::Error::from(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "member {:?} holds {copied} of its {} data bytes",
                    s.name, s.nbytes
                ),
            )))
            .at(src))
        }
    };
    if as_stored(&s.parsed) {
        let copied = match (npz, &s.key) {
            (Some(npz), Some(key)) => {
                let mut m = npz.open_member(key).map_err(|e| Error::from(e).at(src))?;
                npy_core::Header::read(&mut m).map_err(|e| Error::from(e).at(src))?;
                io::copy(&mut (&mut m).take(s.nbytes), out).map_err(rerr)?
            }
            _ => {
                let mut f = File::open(src).map_err(rerr)?;
                f.seek(SeekFrom::Start(s.parsed.data_offset()))
                    .map_err(rerr)?;
                io::copy(&mut f.take(s.nbytes), out).map_err(rerr)?
            }
        };
        return check(copied);
    }
    // Reorder and swap through npy-core's bounded-memory conversion, on disk.
    // A member is inflated to a temporary file first (kept until the conversion is done).
    let mut staged: Option<NamedTempFile> = None;
    let input: PathBuf = match (npz, &s.key) {
        (Some(npz), Some(key)) => {
            let tmp = staged.insert(NamedTempFile::new().map_err(rerr)?);
            let mut m = npz.open_member(key).map_err(|e| Error::from(e).at(src))?;
            m.copy_to(&mut tmp.as_file())
                .map_err(|e| Error::from(e).at(src))?;
            tmp.path().to_owned()
        }
        _ => src.to_owned(),
    };
    let converted = NamedTempFile::new().map_err(rerr)?;
    let options = ConvertOptions::new()
        .byte_order(ByteOrder::Little)
        .order(Order::C);
    npy_core::convert_file(&input, converted.path(), &options)
        .map_err(|e| Error::from(e).at(src))?;
    let mut f = File::open(converted.path()).map_err(rerr)?;
    let parsed = npy_core::Header::read(&mut io::BufReader::new(&mut f))
        .map_err(|e| Error::from(e).at(src))?;
    f.seek(SeekFrom::Start(parsed.data_offset()))
        .map_err(rerr)?;
    let copied = io::copy(&mut f.take(s.nbytes), out).map_err(rerr)?;
    drop(staged);
    check(copied)
}

/// The output file, written as npy-core writes every path ([`npy_core::PendingFile`]: an
/// unnamed or unpredictable temporary file beside `dst`, the umask's mode or the replaced
/// file's, the append lock honoured, a device, FIFO or directory at `dst` refused).
pub(crate) fn temp_beside(dst: &Path) -> Result<npy_core::PendingFile, Error> {
    npy_core::PendingFile::create(dst).map_err(|e| Error::from(e).at(dst))
}

/// Puts the finished output in place (synced, then renamed over `dst`).
pub(crate) fn persist(tmp: npy_core::PendingFile, dst: &Path) -> Result<(), Error> {
    tmp.commit().map_err(|e| Error::from(e).at(dst))
}
