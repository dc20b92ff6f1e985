//! Writing safetensors from `.npy` and `.npz` files, as `safetensors.numpy.save_file` writes.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use npy_convert::ConvertOptions;
use npy_core::{dtype::MlType, header::ParsedHeader, ByteOrder, DType, MemoryOrder};
use npy_npz::NpzArchive;
use tempfile::NamedTempFile;

use crate::dtype::SafeDType;
use crate::error::{Error, ErrorKind};

/// Bytes of each copy thread's buffer: 1 MiB. A conversion holds one per thread (at most
/// [`MAX_THREADS`]), an inflate state per deflated member being copied, the headers, and for
/// a member that must change byte order or memory order (copied alone), npy-core's
/// `convert_file` buffers (3 × 8 MiB): peak memory stays under 64 MiB whatever the sizes.
pub const COPY_BUFFER_BYTES: usize = 1 << 20;

/// Options of [`to_safetensors`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToOptions {
    /// The ml_dtypes type of members whose descr lost it (`'<V2'` bfloat16, `'<V1'` float8):
    /// see `npy_core::ReadOptions::hint`. Without it such members are refused.
    pub hint: Option<MlType>,
    /// Threads copying members at once (`None`: the machine's parallelism), at most
    /// [`MAX_THREADS`].
    pub threads: Option<NonZeroUsize>,
}

impl ToOptions {
    /// These options with a type hint.
    #[must_use]
    pub fn hint(mut self, hint: Option<MlType>) -> Self {
        self.hint = hint;
        self
    }

    /// These options copying members on `threads` threads at once (1: one after the other),
    /// at most [`MAX_THREADS`]. The output is the same whatever the count.
    #[must_use]
    pub fn with_threads(mut self, threads: NonZeroUsize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// The threads a conversion uses: [`ToOptions::threads`], else the machine's parallelism,
    /// at most [`MAX_THREADS`].
    fn thread_count(&self) -> usize {
        self.threads
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, NonZeroUsize::get)
            .min(MAX_THREADS)
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

/// The refusal of `member`'s `dtype`, which safetensors lacks; `hint`, the type hint given
/// (a raw void it did not fit is then refused for its size, not for a missing hint).
fn unsupported(member: &str, dtype: &DType, hint: Option<MlType>) -> Error {
    let reason = match dtype {
        DType::Void(_) if hint.is_some() => {
            "raw bytes of another size than the hint's type (bfloat16 is 2 bytes, the other \
             ml_dtypes types 1): give the type of the bytes' size"
        }
        DType::Record(_) | DType::SubArray(_) => {
            "records (structured dtypes) have no safetensors dtype"
        }
        DType::Bytes(_) | DType::Unicode(..) => "strings have no safetensors dtype",
        DType::Object => "object arrays hold Python objects, not numbers",
        DType::Void(_) => {
            "raw bytes: give the ml_dtypes type (bfloat16, float8_e4m3fn, ...) with `npy convert --hint TYPE` or `ToOptions::default().hint(Some(MlType::BFloat16))`"
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
    // A hint applies to the members it fits (an archive mixes them); a big-endian '>V2'
    // with a bfloat16 hint is refused (npy_core::header::ParsedHeader::hinted_dtype).
    if let Some(h) = hint {
        if let Some(d) = parsed.hinted_dtype(h)? {
            parsed.header.dtype = d;
        }
    }
    let dtype = SafeDType::from_npy(&parsed.header.dtype)
        .ok_or_else(|| unsupported(&name, &parsed.header.dtype, hint))?;
    let nbytes = parsed.header.nbytes()?;
    Ok(Source {
        name,
        key,
        parsed,
        dtype,
        nbytes,
    })
}

/// Whether the open input `file` starts as a zip archive does (an `.npz`), else it is read as
/// an `.npy`.
fn is_npz(file: &File) -> Result<bool, Error> {
    let mut magic = [0u8; 4];
    let n = read_full(&mut At { file, at: 0 }, &mut magic).map_err(|e| Error::io(e, "reading"))?;
    Ok(n == 4 && (&magic == b"PK\x03\x04" || &magic == b"PK\x05\x06"))
}

/// A [`Read`] over `file` from byte `at`, by positional reads: the input is opened once and
/// every reader of it (the magic, the header, each copy, on any thread) reads at its own
/// offsets, never from the file's shared position.
struct At<'a> {
    file: &'a File,
    at: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = npy_core::ReadAt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// An npy-npz error about the archive `src` (opened from a file, so the archive does not know
/// its path): named by it.
fn npz_error(src: &Path) -> impl Fn(npy_npz::Error) -> Error + '_ {
    move |e| Error::from(e.with_path(src)).at(src)
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
/// Members are copied on several threads at once ([`ToOptions::with_threads`]), each into its
/// own range of the output. The output appears complete or not at all (temporary file beside
/// it, then rename).
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
    // The input is opened once (issue 40): the magic, the headers and the data are read from
    // this handle.
    let file = File::open(src).map_err(|e| Error::io(e, "opening").at(src))?;
    let mut sources = Vec::new();
    let mut npz = None;
    if is_npz(&file).map_err(|e| e.at(src))? {
        let archive = NpzArchive::new(&file).map_err(npz_error(src))?;
        let keys: Vec<String> = archive
            .members()
            .iter()
            .map(|m| m.key().to_owned())
            .collect();
        for key in keys {
            let parsed = archive.header(&key).map_err(npz_error(src))?;
            let s = source(key.clone(), Some(key.clone()), parsed, options.hint)
                .map_err(|e| e.at(src).in_member(&key))?;
            sources.push(s);
        }
        npz = Some(archive);
    } else {
        let mut f = io::BufReader::new(At { file: &file, at: 0 });
        let parsed = npy_core::Header::read(&mut f).map_err(|e| Error::from(e).at(src))?;
        let stem = src
            .file_stem()
            .map_or_else(|| "arr_0".to_owned(), |s| s.to_string_lossy().into_owned());
        sources.push(source(stem, None, parsed, options.hint).map_err(|e| e.at(src))?);
    }
    // The safetensors crate's order: dtype descending, then name.
    sources.sort_by(|a, b| b.dtype.cmp(&a.dtype).then_with(|| a.name.cmp(&b.name)));
    let json = header_json(&sources);
    // Where each tensor's bytes go in the output: back to back after the header.
    let mut offsets = Vec::with_capacity(sources.len());
    let mut at = 8 + json.len() as u64;
    for s in &sources {
        offsets.push(at);
        at = at.checked_add(s.nbytes).ok_or_else(|| {
            Error::new(ErrorKind::InvalidTensor {
                name: s.name.clone(),
                reason: format!(
                    "{} data bytes do not fit in a file after the others",
                    s.nbytes
                ),
            })
            .at(src)
        })?;
    }

    let mut tmp = temp_beside(dst)?;
    let werr = |e: io::Error| Error::io(e, "writing").at(dst);
    tmp.write_all(&(json.len() as u64).to_le_bytes())
        .map_err(werr)?;
    tmp.write_all(&json).map_err(werr)?;
    {
        let out = tmp.offsets().map_err(werr)?;
        let job = Job {
            src,
            file: &file,
            dst,
            npz: npz.as_ref(),
            sources: &sources,
            offsets: &offsets,
            out,
        };
        // Members already in safetensors' layout are copied on `threads` threads at once,
        // each to its own range of the output; the others (swapped or reordered through
        // temporary files) one at a time after them, so their buffers are never doubled.
        let (direct, staged): (Vec<usize>, Vec<usize>) =
            (0..sources.len()).partition(|&i| as_stored(&sources[i].parsed));
        job.copy_parallel(&direct, options.thread_count())?;
        for i in staged {
            job.in_source(i, job.copy_staged(i))?;
        }
    }
    persist(tmp, dst)
}

/// The most threads [`to_safetensors`] copies members on (each holds a
/// [`COPY_BUFFER_BYTES`] buffer and, for a deflated member, an inflate state of about
/// 300 KiB): 8, so its memory stays bounded on any machine.
pub const MAX_THREADS: usize = 8;

/// What every member's copy shares.
struct Job<'a, R> {
    src: &'a Path,
    /// The input, open once: an `.npy` source's data is read from it (an `.npz` member's
    /// through `npz`, over the same file).
    file: &'a File,
    dst: &'a Path,
    npz: Option<&'a NpzArchive<R>>,
    sources: &'a [Source],
    /// The output offset of each source's bytes.
    offsets: &'a [u64],
    out: npy_fs::OffsetWriter<'a>,
}

impl<R: npy_core::ReadAt + Sync> Job<'_, R> {
    /// Copies the sources `which` (each already in safetensors' layout) on up to `threads`
    /// threads, each taking the next member when done with one. On an error the others stop
    /// after their current piece; the error of the first member (in output order) that
    /// failed is returned.
    fn copy_parallel(&self, which: &[usize], threads: usize) -> Result<(), Error> {
        let threads = threads.clamp(1, MAX_THREADS).min(which.len());
        if threads <= 1 {
            let mut buf = vec![0u8; COPY_BUFFER_BYTES];
            for &i in which {
                self.in_source(i, self.copy_direct(i, &mut buf, &AtomicBool::new(false)))?;
            }
            return Ok(());
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let failed: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut buf = vec![0u8; COPY_BUFFER_BYTES];
                    while !stop.load(Ordering::Relaxed) {
                        let Some(&i) = which.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        if let Err(e) = self.in_source(i, self.copy_direct(i, &mut buf, &stop)) {
                            stop.store(true, Ordering::Relaxed);
                            failed
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .push((i, e));
                        }
                    }
                });
            }
        });
        let mut failed = failed
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        failed.sort_by_key(|(i, _)| *i);
        match failed.into_iter().next() {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    fn read_error(&self, i: usize) -> impl Fn(io::Error) -> Error + '_ {
        move |e| Error::io(e, format!("copying member {:?}", self.sources[i].name)).at(self.src)
    }

    /// `result`, its error naming source `i`'s `.npz` member (an `.npy` source is none).
    fn in_source<T>(&self, i: usize, result: Result<T, Error>) -> Result<T, Error> {
        result.map_err(|e| match &self.sources[i].key {
            Some(key) => e.in_member(key),
            None => e,
        })
    }

    /// Copies source `i`'s data bytes (already C order, little-endian) to its place in the
    /// output, through `buf`; gives up early when `stop` is set (another member failed).
    fn copy_direct(&self, i: usize, buf: &mut [u8], stop: &AtomicBool) -> Result<(), Error> {
        let s = &self.sources[i];
        match (self.npz, &s.key) {
            (Some(npz), Some(key)) => {
                let mut m = npz.open_member(key).map_err(npz_error(self.src))?;
                npy_core::Header::read(&mut m).map_err(|e| Error::from(e).at(self.src))?;
                self.copy_from(i, &mut m, buf, stop)
            }
            _ => {
                let mut f = At {
                    file: self.file,
                    at: s.parsed.data_offset(),
                };
                self.copy_from(i, &mut f, buf, stop)
            }
        }
    }

    /// Copies source `i`'s `nbytes` from `input` (positioned at its first data byte) to the
    /// output, a full `buf` per write.
    fn copy_from(
        &self,
        i: usize,
        input: &mut impl Read,
        buf: &mut [u8],
        stop: &AtomicBool,
    ) -> Result<(), Error> {
        let s = &self.sources[i];
        let rerr = self.read_error(i);
        let mut copied = 0u64;
        while copied < s.nbytes {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let want = usize::try_from(s.nbytes - copied).map_or(buf.len(), |l| l.min(buf.len()));
            let got = read_full(input, &mut buf[..want]).map_err(&rerr)?;
            self.out
                .write_all_at(&buf[..got], self.offsets[i] + copied)
                .map_err(|e| Error::io(e, "writing").at(self.dst))?;
            copied += got as u64;
            if got < want {
                return Err(short(s, copied).at(self.src));
            }
        }
        Ok(())
    }

    /// Copies source `i` (big-endian or Fortran order) to its place in the output as C-order
    /// little-endian bytes, through npy-core's bounded-memory conversion on disk. An `.npz`
    /// member is inflated to a temporary file first (kept until the conversion is done).
    fn copy_staged(&self, i: usize) -> Result<(), Error> {
        let s = &self.sources[i];
        let (src, rerr) = (self.src, self.read_error(i));
        let mut staged: Option<NamedTempFile> = None;
        let (input, name): (File, PathBuf) = match (self.npz, &s.key) {
            (Some(npz), Some(key)) => {
                let tmp = staged.insert(NamedTempFile::new().map_err(&rerr)?);
                let mut m = npz.open_member(key).map_err(npz_error(src))?;
                m.copy_to(&mut tmp.as_file())
                    .map_err(|e| Error::from(e).at(src))?;
                (
                    tmp.as_file().try_clone().map_err(&rerr)?,
                    tmp.path().to_owned(),
                )
            }
            // The input's own handle again (a duplicate, not a second open).
            _ => (self.file.try_clone().map_err(&rerr)?, src.to_owned()),
        };
        let (_converted, mut f) = stored_layout(input, &name, &rerr).map_err(|e| e.at(src))?;
        drop(staged);
        let mut buf = vec![0u8; COPY_BUFFER_BYTES];
        self.copy_from(i, &mut f, &mut buf, &AtomicBool::new(false))
    }
}

/// The `.npy` file open as `input` (named `name` in errors) rewritten little-endian in C
/// order (safetensors' layout) by npy-convert's bounded-memory conversion into a temporary
/// file, returned with that file opened at its first data byte (the file is removed when the
/// first is dropped). `rerr` makes the I/O errors.
fn stored_layout(
    input: File,
    name: &Path,
    rerr: &dyn Fn(io::Error) -> Error,
) -> Result<(NamedTempFile, File), Error> {
    let converted = NamedTempFile::new().map_err(rerr)?;
    let options = ConvertOptions::new()
        .byte_order(ByteOrder::Little)
        .order(MemoryOrder::C);
    npy_convert::convert_open_file(input, name, converted.path(), &options).map_err(Error::from)?;
    let mut f = File::open(converted.path()).map_err(rerr)?;
    let parsed = npy_core::Header::read(&mut io::BufReader::new(&mut f))?;
    f.seek(SeekFrom::Start(parsed.data_offset()))
        .map_err(rerr)?;
    Ok((converted, f))
}

/// Reads into `buf` until it is full or `input` ends; the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A source that ended after `copied` of its data bytes.
fn short(s: &Source, copied: u64) -> Error {
    Error::from(npy_core::Error::from(io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "member {:?} holds {copied} of its {} data bytes",
            s.name, s.nbytes
        ),
    )))
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

/// The output file, written as npy-core writes every path ([`npy_fs::PendingFile`]: an
/// unnamed or unpredictable temporary file beside `dst`, the umask's mode or the replaced
/// file's, the append lock honoured, a device, FIFO or directory at `dst` refused).
pub(crate) fn temp_beside(dst: &Path) -> Result<npy_fs::PendingFile, Error> {
    npy_fs::PendingFile::create(dst).map_err(|e| Error::from(e).at(dst))
}

/// Puts the finished output in place (synced, then renamed over `dst`).
pub(crate) fn persist(tmp: npy_fs::PendingFile, dst: &Path) -> Result<(), Error> {
    tmp.commit().map_err(|e| Error::from(e).at(dst))
}

/// A safetensors file of one tensor, written from the tensor's data as it comes: the bytes an
/// `.npy` file of the tensor's [`npy_core::Header`] holds after its header, pushed through
/// [`Write`] by a producer that knows the header before the data (a table converted to an
/// array, whose rows its metadata gives). The file is byte for byte what [`to_safetensors`]
/// writes for an `.npy` file of that header and data, with the same rules: big-endian data is
/// written little-endian and Fortran-order data in C order, [`ToOptions::hint`] gives
/// `'<V2'`/`'<V1'` data its ml_dtypes type, and the output appears complete or not at all
/// (temporary file beside it, renamed over it by [`TensorWriter::finish`]; dropped unfinished,
/// nothing is written).
///
/// Memory: data already little-endian in C order goes to the output as it comes (through the
/// output file's buffer); other data is staged in a temporary `.npy` file and rewritten by
/// npy-core's bounded-memory conversion when finished, as [`to_safetensors`] rewrites such a
/// file (buffers of [`COPY_BUFFER_BYTES`] and npy-core's), whatever the size.
///
/// # Examples
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::io::Write;
/// let dir = tempfile::tempdir()?;
/// let dst = dir.path().join("t.safetensors");
/// let header = npy_core::Header::new("<f4".parse()?, vec![2]);
/// let mut w = npy_safetensors::TensorWriter::create(&dst, "t", &header, &Default::default())?;
/// w.write_all(&1.5f32.to_le_bytes())?;
/// w.write_all(&2.5f32.to_le_bytes())?;
/// w.finish()?;
/// let file = npy_safetensors::SafetensorsFile::open(&dst)?;
/// assert_eq!(file.header().tensors()[0].shape(), &[2u64][..]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TensorWriter {
    dst: PathBuf,
    name: String,
    /// Data bytes the header promises.
    nbytes: u64,
    /// Data bytes taken so far.
    taken: u64,
    out: npy_fs::PendingFile,
    /// For data not in safetensors' layout: the `.npy` file it is staged in (header written),
    /// rewritten by [`TensorWriter::finish`].
    staged: Option<io::BufWriter<NamedTempFile>>,
}

impl TensorWriter {
    /// Starts the safetensors file `dst` holding one tensor named `name`, of the dtype and
    /// shape of `header` (its `fortran_order` saying how the data comes): the file's header is
    /// written now, the data bytes ([`Header::nbytes`](npy_core::Header::nbytes) of them) go
    /// through [`Write`], and [`TensorWriter::finish`] completes the file.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] naming `name` for a dtype safetensors lacks (records,
    /// strings, objects, raw void without a hint, ...), before anything is created; npy-core's
    /// errors for a header whose size overflows or that the hint refuses; the output file's
    /// errors ([`npy_fs::PendingFile::create`]: a directory, FIFO or device at `dst`), naming
    /// `dst`; I/O errors.
    pub fn create(
        dst: impl AsRef<Path>,
        name: &str,
        header: &npy_core::Header,
        options: &ToOptions,
    ) -> Result<TensorWriter, Error> {
        let dst = dst.as_ref();
        // The header as an `.npy` file holds it: read back, it is what `to_safetensors` sees
        // (the text the hint's byte-order check reads), the dtype kept as given.
        let npy_head = header.to_bytes(None)?;
        let mut parsed = npy_core::Header::read(&mut &npy_head[..])?;
        parsed.header = header.clone();
        let source = source(name.to_owned(), None, parsed, options.hint)?;
        let json = header_json(std::slice::from_ref(&source));
        let werr = |e: io::Error| Error::io(e, "writing").at(dst);
        let staged = if as_stored(&source.parsed) {
            None
        } else {
            let tmp = NamedTempFile::new()
                .map_err(|e| Error::io(e, format!("staging tensor {name:?}")).at(dst))?;
            let mut w = io::BufWriter::with_capacity(COPY_BUFFER_BYTES, tmp);
            w.write_all(&npy_head)
                .map_err(|e| Error::io(e, format!("staging tensor {name:?}")).at(dst))?;
            Some(w)
        };
        let mut out = temp_beside(dst)?;
        out.write_all(&(json.len() as u64).to_le_bytes())
            .map_err(werr)?;
        out.write_all(&json).map_err(werr)?;
        Ok(TensorWriter {
            dst: dst.to_owned(),
            name: source.name,
            nbytes: source.nbytes,
            taken: 0,
            out,
            staged,
        })
    }

    /// Completes the file: staged data rewritten little-endian in C order and copied in,
    /// then the file synced and renamed over the output.
    ///
    /// # Errors
    /// npy-core's `UnexpectedEof` I/O error when fewer data bytes came than the header
    /// promises (nothing is written); npy-core's conversion errors; I/O errors; each naming
    /// the output.
    pub fn finish(mut self) -> Result<(), Error> {
        let dst = self.dst.clone();
        if self.taken < self.nbytes {
            return Err(Error::from(npy_core::Error::from(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "tensor {:?} was given {} of its {} data bytes",
                    self.name, self.taken, self.nbytes
                ),
            )))
            .at(&dst));
        }
        if let Some(staged) = self.staged.take() {
            let rerr = |e: io::Error| Error::io(e, format!("staging tensor {:?}", self.name));
            let staged = staged
                .into_inner()
                .map_err(|e| rerr(e.into_error()).at(&dst))?;
            let input = staged.as_file().try_clone().map_err(|e| rerr(e).at(&dst))?;
            let (_converted, f) =
                stored_layout(input, staged.path(), &rerr).map_err(|e| e.at(&dst))?;
            drop(staged);
            let copied =
                io::copy(&mut f.take(self.nbytes), &mut self.out).map_err(|e| rerr(e).at(&dst))?;
            if copied != self.nbytes {
                return Err(rerr(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the rewritten data holds {copied} of {} bytes", self.nbytes),
                ))
                .at(&dst));
            }
        }
        persist(self.out, &dst)
    }
}

/// Takes the tensor's data bytes. Bytes past the [`Header::nbytes`](npy_core::Header::nbytes)
/// the header promises are refused (`InvalidInput`), none of them taken.
impl Write for TensorWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.nbytes - self.taken;
        if buf.len() as u64 > left {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "tensor {:?} holds {} data bytes, {} more were given after {}",
                    self.name,
                    self.nbytes,
                    buf.len(),
                    self.taken
                ),
            ));
        }
        let n = match &mut self.staged {
            Some(w) => w.write(buf)?,
            None => self.out.write(buf)?,
        };
        self.taken += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.staged {
            Some(w) => w.flush(),
            None => self.out.flush(),
        }
    }
}
