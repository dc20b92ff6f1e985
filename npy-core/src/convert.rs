//! Rewriting a file with another byte order, memory order or format version, values unchanged,
//! for any dtype (records included; object arrays refused).

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use crate::codec::{per_chunk, saturating_product, swap_in_place, Stepper, COPY_CHUNK_BYTES};
use crate::dtype::{ByteOrder, DType, Primitive};
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::{Order, Version};
use crate::header::Header;
use crate::io::read_up_to;
use crate::read::NpyReader;
use crate::write::AtomicFile;

/// What [`convert_file`] changes; `None` keeps the input's setting.
///
/// # Examples
/// ```
/// use npy_core::{ByteOrder, ConvertOptions, Order};
/// let mut options = ConvertOptions::default();
/// options.byte_order = Some(ByteOrder::Big);
/// options.order = Some(Order::Fortran);
/// assert!(!options.maps_input());
/// ```
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
    /// Map the input instead of reading its data into memory when the memory order changes.
    map_input: bool,
}

impl ConvertOptions {
    /// These options, memory-mapping the input when the memory order changes (feature
    /// `mmap`), so that files larger than memory can be transposed: the operating system pages
    /// the input in as the transposition walks it. Without this, changing the memory order
    /// reads the input's data into memory (byte-order and version changes always stream).
    ///
    /// # Safety
    /// While [`convert_file`] runs, no one may modify or truncate the input file: its pages
    /// are the mapped memory, so a change is undefined behaviour and a truncation faults
    /// (`SIGBUS`), as for [`NpyMmap::open`](crate::NpyMmap::open).
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)] // an unsafe contract; the function itself does nothing unsafe
    #[must_use]
    pub unsafe fn map_input(mut self) -> Self {
        self.map_input = true;
        self
    }

    /// Whether `ConvertOptions::map_input` (feature `mmap`) was chosen.
    pub fn maps_input(&self) -> bool {
        self.map_input
    }
}

/// A run of `count` scalars of `unit` bytes starting at `offset` within an element, each
/// reversed when the byte order changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SwapRun {
    offset: usize,
    unit: usize,
    count: usize,
}

/// Where the scalars of an element of `dtype` sit (from byte `base`), for swapping them into
/// `target` order.
fn swap_runs(
    dtype: &DType,
    base: usize,
    target: ByteOrder,
    out: &mut Vec<SwapRun>,
) -> Result<(), Error> {
    match dtype {
        DType::Number(_, o) | DType::Time(_, o)
            if *o != ByteOrder::NotApplicable && *o != target =>
        {
            let size = to_usize(dtype.itemsize(), "itemsize")?;
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
                count: to_usize(*n, "'U' length")?,
            });
        }
        DType::Record(r) => {
            for f in r.fields() {
                let offset = to_usize(f.offset, "record field offset")?;
                swap_runs(&f.dtype, base + offset, target, out)?;
            }
        }
        DType::SubArray(s) => {
            // With scalars in the base (item > 0), n × item is the subarray's itemsize, which
            // fits: the runs below stay in the element.
            let item = to_usize(s.base().itemsize(), "itemsize")?;
            let n = to_usize(saturating_product(s.shape()), "subarray length")?;
            let mut inner = Vec::new();
            swap_runs(s.base(), 0, target, &mut inner)?;
            if let [one] = inner.as_slice() {
                if one.offset == 0 && one.unit * one.count == item {
                    // Contiguous scalars of one size: a single run for the whole subarray.
                    out.push(SwapRun {
                        offset: base,
                        count: one.count * n,
                        ..*one
                    });
                    return Ok(());
                }
            }
            if !inner.is_empty() {
                for i in 0..n {
                    let at = base + i * item;
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

/// Swaps the scalars of one element in place.
fn apply(runs: &[SwapRun], element: &mut [u8]) {
    for r in runs {
        swap_in_place(&mut element[r.offset..r.offset + r.unit * r.count], r.unit);
    }
}

/// Rewrites the `.npy` file `src` as `dst` with the settings in `options`, preserving every
/// value (numpy's `np.save(dst, np.load(src).astype(new_dtype, order=...))`).
///
/// Memory stays bounded when only the byte order or version changes (the data streams through
/// a 1 MiB buffer). Changing the memory order needs random access to the input: it is read
/// into memory, or mapped when the options say so (`ConvertOptions::map_input`, feature
/// `mmap`). The output is written atomically (temporary file, then rename), so `dst` may equal
/// `src`.
///
/// # Errors
/// Header errors, [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`], header-writing errors
/// for an explicit version, I/O errors; each names the file it concerns ([`Error::path`]).
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
    convert(src, dst, *options).at_path(src)
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

fn convert(src: &Path, dst: &Path, options: ConvertOptions) -> Result<(), Error> {
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
    let mut file = reader.into_file()?;
    let copy = Copy {
        itemsize,
        runs: &runs,
        nbytes,
    };
    if transpose {
        let source = Source::open(&mut file, data_offset, nbytes, options.map_input)?;
        copy.transposed(source.bytes(), &header.shape, target_order, &mut out)?;
    } else {
        copy.streamed(&mut file, &mut out)?;
    }
    out.file.commit().at_path(dst)
}

/// How to copy the data: elements of `itemsize` bytes, each swapped by `runs`.
struct Copy<'a> {
    itemsize: usize,
    runs: &'a [SwapRun],
    nbytes: u64,
}

impl Copy<'_> {
    fn truncated(&self, found: u64) -> Error {
        Error::new(ErrorKind::Truncated {
            what: "array data",
            needed: self.nbytes,
            found,
        })
    }

    /// Copies the data as it is stored, through a buffer of whole elements.
    fn streamed(&self, src: &mut File, out: &mut Output<'_>) -> Result<(), Error> {
        let chunk = per_chunk(self.itemsize, COPY_CHUNK_BYTES) * self.itemsize.max(1);
        let mut buf = vec![0u8; chunk.min(to_usize(self.nbytes, "array data bytes")?)];
        let mut done = 0u64;
        while done < self.nbytes {
            let k = (buf.len() as u64).min(self.nbytes - done) as usize;
            let got = read_up_to(src, &mut buf[..k])?;
            if got < k {
                return Err(self.truncated(done + got as u64));
            }
            if !self.runs.is_empty() {
                buf[..k]
                    .chunks_exact_mut(self.itemsize)
                    .for_each(|e| apply(self.runs, e));
            }
            out.write(&buf[..k])?;
            done += k as u64;
        }
        Ok(())
    }

    /// Writes `src` (the data in the other order) element by element in `target` order.
    fn transposed(
        &self,
        src: &[u8],
        shape: &[u64],
        target: Order,
        out: &mut Output<'_>,
    ) -> Result<(), Error> {
        let dims: Vec<usize> = shape
            .iter()
            .map(|&d| to_usize(d, "dimension"))
            .collect::<Result<_, _>>()?;
        // Strides (bytes) of the source, whose fastest axis is the target's slowest.
        let mut strides = vec![0usize; dims.len()];
        let mut acc = self.itemsize;
        for axis in 0..dims.len() {
            let a = match target {
                Order::C => axis,
                Order::Fortran => dims.len() - 1 - axis,
            };
            strides[a] = acc;
            acc *= dims[a];
        }
        let mut walk = Stepper::new(shape, target);
        let mut buf = Vec::with_capacity(COPY_CHUNK_BYTES + self.itemsize);
        let mut offset = 0usize;
        while walk.index().is_some() {
            let start = buf.len();
            buf.extend_from_slice(&src[offset..offset + self.itemsize]);
            apply(self.runs, &mut buf[start..]);
            if buf.len() >= COPY_CHUNK_BYTES {
                out.write(&buf)?;
                buf.clear();
            }
            let Some(advanced) = walk.step() else { break };
            // The faster axes went back to 0; the one that advanced moved one step.
            offset += strides[advanced];
            let reset = match target {
                Order::C => advanced + 1..dims.len(),
                Order::Fortran => 0..advanced,
            };
            for r in reset {
                offset -= strides[r] * (dims[r] - 1);
            }
        }
        out.write(&buf)
    }
}

/// The input's data bytes with random access: read into memory, or mapped.
enum Source {
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap, usize, usize),
    Owned(Vec<u8>),
}

impl Source {
    /// The `nbytes` of data of `file` (positioned at the data, which starts at `offset`).
    fn open(file: &mut File, offset: u64, nbytes: u64, map: bool) -> Result<Source, Error> {
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
        if map {
            // SAFETY: `Mmap::map` is unsafe because the mapped bytes alias the file. The
            // caller of `ConvertOptions::map_input` promised that no one modifies or truncates
            // the input while the conversion runs; the map is read-only and lives only in this
            // call, and every access below is a bounds-checked slice of it.
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::Mmap::map(&*file)? };
            return Ok(Source::Mapped(map, start, n));
        }
        let _ = (map, start);
        // The file's length, checked above, backs the allocation.
        let mut data = Vec::with_capacity(n);
        file.take(nbytes).read_to_end(&mut data)?;
        if data.len() < n {
            return Err(Error::new(ErrorKind::Truncated {
                what: "array data",
                needed: nbytes,
                found: data.len() as u64,
            }));
        }
        Ok(Source::Owned(data))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(feature = "mmap")]
            Source::Mapped(m, start, n) => m.get(*start..*start + *n).unwrap_or(&[]),
            Source::Owned(v) => v,
        }
    }
}
