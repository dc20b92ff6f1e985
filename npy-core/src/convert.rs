//! Rewriting a file with another byte order, memory order or format version, values unchanged,
//! for any dtype (records included; object arrays refused).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::dtype::{ByteOrder, DType, Primitive};
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::Order;
use crate::header::{Header, Version};
use crate::read::NpyReader;
use crate::write::AtomicFile;

const CHUNK_BYTES: usize = 1 << 20;

/// What [`convert_file`] changes; `None` keeps the input's setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// Byte order for every multi-byte scalar (`NotApplicable` keeps each as it is).
    pub byte_order: Option<ByteOrder>,
    /// Memory order of the output. As numpy, arrays with fewer than two dimensions are always
    /// written with `fortran_order: False` (both orders are the same bytes).
    pub order: Option<Order>,
    /// Format version (`None`: numpy's choice for the new header).
    pub version: Option<Version>,
}

/// A run of `count` scalars of `unit` bytes starting at `offset` within an element, each
/// reversed when the byte order changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SwapRun {
    offset: usize,
    unit: usize,
    count: usize,
}

/// Where the scalars of an element sit, for byte swapping: `(offset, unit, count, order)`.
fn swap_runs(
    dtype: &DType,
    base: usize,
    target: ByteOrder,
    out: &mut Vec<SwapRun>,
) -> Result<(), Error> {
    let too_big = || {
        Error::new(ErrorKind::PlatformLimit {
            what: "itemsize",
            value: dtype.itemsize(),
        })
    };
    match dtype {
        DType::Number(_, o) | DType::Time(_, o)
            if *o != ByteOrder::NotApplicable && *o != target =>
        {
            let size = usize::try_from(dtype.itemsize()).map_err(|_| too_big())?;
            let complex = matches!(
                dtype,
                DType::Number(
                    Primitive::C64 | Primitive::C128 | Primitive::CLongDouble { .. },
                    _
                )
            );
            let (unit, count) = if complex { (size / 2, 2) } else { (size, 1) };
            out.push(SwapRun {
                offset: base,
                unit,
                count,
            });
        }
        DType::Unicode(n, o) if *o != target => {
            out.push(SwapRun {
                offset: base,
                unit: 4,
                count: usize::try_from(*n).map_err(|_| too_big())?,
            });
        }
        DType::Record(r) => {
            for f in r.fields() {
                let off = base
                    .checked_add(usize::try_from(f.offset).map_err(|_| too_big())?)
                    .ok_or_else(too_big)?;
                swap_runs(&f.dtype, off, target, out)?;
            }
        }
        DType::SubArray(s) => {
            let n: u64 = s.shape().iter().product();
            let item = usize::try_from(s.base().itemsize()).map_err(|_| too_big())?;
            let mut inner = Vec::new();
            swap_runs(s.base(), 0, target, &mut inner)?;
            if let [one] = inner.as_slice() {
                if one.offset == 0 && one.unit * one.count == item {
                    // Contiguous scalars of one size: a single run for the whole subarray.
                    out.push(SwapRun {
                        offset: base,
                        unit: one.unit,
                        count: one.count * usize::try_from(n).map_err(|_| too_big())?,
                    });
                    return Ok(());
                }
            }
            if !inner.is_empty() {
                for i in 0..n {
                    let at = base + usize::try_from(i).map_err(|_| too_big())? * item;
                    out.extend(inner.iter().map(|r| SwapRun {
                        offset: at + r.offset,
                        ..*r
                    }));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn apply(runs: &[SwapRun], element: &mut [u8]) {
    for r in runs {
        for k in 0..r.count {
            let s = r.offset + k * r.unit;
            element[s..s + r.unit].reverse();
        }
    }
}

/// Rewrites the `.npy` file `src` as `dst` with the settings in `options`, preserving every
/// value (numpy's `np.save(dst, np.load(src).astype(new_dtype, order=...))`).
///
/// Memory stays bounded when only the byte order or version changes (the data streams through
/// a 1 MiB buffer). Changing the memory order needs random access to the input: with the `mmap`
/// feature the input is memory-mapped, otherwise it is read into memory. The output is written
/// atomically (temporary file, then rename), so `dst` may equal `src`.
///
/// # Errors
/// Header errors, [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`], header-writing errors for an
/// explicit version, I/O errors.
///
/// # Examples
/// ```
/// use npy_core::{convert_file, ByteOrder, ConvertOptions, Order};
/// # let dir = std::env::temp_dir().join(format!("npy-core-convert-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let mut options = ConvertOptions::default();
/// options.byte_order = Some(ByteOrder::Big);
/// options.order = Some(Order::Fortran);
/// convert_file(&a, &b, &options)?;
/// let back = npy_core::read::<i32>(&b)?;
/// assert_eq!(back.order(), Order::Fortran);
/// assert_eq!(back.data(), [1, 4, 2, 5, 3, 6]);
/// assert_eq!(back.get(&[1, 2]), Some(&6));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn convert_file(
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ConvertOptions,
) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    convert(src, dst, options).at_path(src)
}

/// The output file, whose errors name its path (the input's errors name the input).
struct Output<'a> {
    file: AtomicFile,
    path: &'a Path,
}

impl Output<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::from(e).with_path(self.path))
    }
}

fn convert(src: &Path, dst: &Path, options: &ConvertOptions) -> Result<(), Error> {
    let reader = NpyReader::open(src)?;
    let header = reader.header().clone();
    header.dtype.refuse_object()?;
    let src_order = reader.order();
    let target_dtype = match options.byte_order {
        Some(o) => header.dtype.with_byte_order(o),
        None => header.dtype.clone(),
    };
    let mut runs = Vec::new();
    if let Some(o) = options
        .byte_order
        .filter(|o| *o != ByteOrder::NotApplicable)
    {
        swap_runs(&header.dtype, 0, o, &mut runs)?;
    }
    let fortran_order =
        Header::fortran_order_for(&header.shape, options.order.unwrap_or(src_order));
    let target_order = Order::from_fortran_order(fortran_order);
    let out_header = Header {
        dtype: target_dtype,
        fortran_order,
        shape: header.shape.clone(),
    };
    let nbytes = header.nbytes()?;
    let itemsize = to_usize(header.dtype.itemsize(), "itemsize")?;
    let header_bytes = out_header.to_bytes(options.version)?;
    let mut out = Output {
        file: AtomicFile::create(dst).at_path(dst)?,
        path: dst,
    };
    out.write(&header_bytes)?;
    let transpose = header.shape.len() >= 2 && target_order != src_order && itemsize > 0;
    let data_offset = reader.parsed_header().data_offset();
    let mut file = reader.into_inner();
    if !transpose {
        stream_copy(&mut file, &mut out, nbytes, itemsize, &runs)?;
    } else {
        drop(file);
        let source = Source::open(src, data_offset, nbytes)?;
        transpose_copy(
            source.bytes(),
            &header.shape,
            src_order,
            itemsize,
            &runs,
            &mut out,
        )?;
    }
    out.file.commit().at_path(dst)
}

fn stream_copy(
    src: &mut File,
    out: &mut Output<'_>,
    nbytes: u64,
    itemsize: usize,
    runs: &[SwapRun],
) -> Result<(), Error> {
    // Whole elements per chunk (any size when elements take no bytes).
    let per_chunk = CHUNK_BYTES
        .checked_div(itemsize)
        .map_or(CHUNK_BYTES, |n| n.max(1) * itemsize);
    let mut buf = vec![0u8; per_chunk.min(usize::try_from(nbytes).unwrap_or(usize::MAX))];
    let mut left = nbytes;
    let mut done = 0u64;
    while left > 0 {
        let k = (buf.len() as u64).min(left) as usize;
        let got = crate::io::read_up_to(src, &mut buf[..k])?;
        if got < k {
            return Err(Error::new(ErrorKind::Truncated {
                what: "array data",
                needed: nbytes,
                found: done + got as u64,
            }));
        }
        if !runs.is_empty() {
            buf[..k]
                .chunks_exact_mut(itemsize)
                .for_each(|e| apply(runs, e));
        }
        out.write(&buf[..k])?;
        left -= k as u64;
        done += k as u64;
    }
    Ok(())
}

/// The input's data bytes with random access: mapped when the `mmap` feature is on.
enum Source {
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap, usize, usize),
    #[cfg_attr(feature = "mmap", allow(dead_code))]
    Owned(Vec<u8>),
}

impl Source {
    fn open(path: &Path, offset: u64, nbytes: u64) -> Result<Source, Error> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len.saturating_sub(offset) < nbytes {
            return Err(Error::new(ErrorKind::Truncated {
                what: "array data",
                needed: nbytes,
                found: len.saturating_sub(offset),
            }));
        }
        let start = to_usize(offset, "data offset")?;
        let n = to_usize(nbytes, "array data bytes")?;
        #[cfg(feature = "mmap")]
        {
            // SAFETY: the map is read-only and private to this call; the file is opened for
            // reading only. Another process truncating or rewriting the file while it is
            // mapped is the one hazard (see the `mmap` module's docs); npy-core's own writers
            // never modify a file in place, they replace it by rename.
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::Mmap::map(&file)? };
            Ok(Source::Mapped(map, start, n))
        }
        #[cfg(not(feature = "mmap"))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = file;
            file.seek(SeekFrom::Start(offset))?;
            let mut v = Vec::with_capacity(n);
            file.take(nbytes).read_to_end(&mut v)?;
            if v.len() < n {
                return Err(Error::new(ErrorKind::Truncated {
                    what: "array data",
                    needed: nbytes,
                    found: v.len() as u64,
                }));
            }
            let _ = start;
            Ok(Source::Owned(v))
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(feature = "mmap")]
            Source::Mapped(m, start, n) => m.get(*start..*start + *n).unwrap_or(&[]),
            Source::Owned(v) => v,
        }
    }
}

/// Writes `src` (elements in `src_order`) in the other order, element by element.
fn transpose_copy(
    src: &[u8],
    shape: &[u64],
    src_order: Order,
    itemsize: usize,
    runs: &[SwapRun],
    out: &mut Output<'_>,
) -> Result<(), Error> {
    let dims: Vec<usize> = shape
        .iter()
        .map(|&d| to_usize(d, "dimension"))
        .collect::<Result<_, _>>()?;
    let total: usize = dims.iter().product();
    if total == 0 {
        return Ok(());
    }
    // Strides (bytes) of the source layout.
    let mut strides = vec![0usize; dims.len()];
    let mut acc = itemsize;
    let axes: Vec<usize> = match src_order {
        Order::C => (0..dims.len()).rev().collect(),
        Order::Fortran => (0..dims.len()).collect(),
    };
    for &a in &axes {
        strides[a] = acc;
        acc *= dims[a];
    }
    // Output walks the target order: its fastest axis is the source's slowest.
    let walk: Vec<usize> = axes.iter().rev().copied().collect();
    let mut index = vec![0usize; dims.len()];
    let mut buf = Vec::with_capacity(CHUNK_BYTES + itemsize);
    let mut offset = 0usize;
    for _ in 0..total {
        let start = buf.len();
        buf.extend_from_slice(&src[offset..offset + itemsize]);
        if !runs.is_empty() {
            apply(runs, &mut buf[start..]);
        }
        if buf.len() >= CHUNK_BYTES {
            out.write(&buf)?;
            buf.clear();
        }
        for &a in &walk {
            index[a] += 1;
            offset += strides[a];
            if index[a] < dims[a] {
                break;
            }
            offset -= strides[a] * dims[a];
            index[a] = 0;
        }
    }
    out.write(&buf)?;
    Ok(())
}
