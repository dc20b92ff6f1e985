//! Rewriting a file with another byte order, memory order or format version, values unchanged,
//! for any dtype (records included; object arrays refused).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::codec::{per_chunk, saturating_product, swap_in_place, COPY_CHUNK_BYTES, TILE_BYTES};
use crate::dtype::{ByteOrder, DType, Primitive};
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::{Order, Version};
use crate::header::Header;
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
/// options.buffer_bytes = Some(4 << 20); // tiles of at most 4 MiB
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
    /// Bytes of each buffer of the conversion (`None`: 8 MiB). A memory-order change holds
    /// three buffers of this size (two tiles as read, one as written), a byte-order or version
    /// change two of at most 1 MiB (one read while the other is written); each holds at
    /// least one element. Tiles in memory add at most 64 bytes per run of 4 KiB or more (under
    /// 2 %) against cache conflicts. Smaller buffers mean shorter runs, so more reads and
    /// writes.
    pub buffer_bytes: Option<usize>,
}

impl ConvertOptions {
    /// Does nothing: [`convert_file`] no longer maps its input. A memory-order change now
    /// reads the input tile by tile in bounded memory, which is what mapping was for, without
    /// the mapping's contract. Kept (still `unsafe`, so callers' `unsafe` blocks stay
    /// needed) so that code written against it compiles.
    ///
    /// # Safety
    /// None needed: nothing is mapped.
    #[cfg(feature = "mmap")]
    #[allow(unsafe_code)] // an unsafe signature kept for compatibility
    #[deprecated(
        note = "convert_file transposes in bounded memory without mapping; this does nothing"
    )]
    #[must_use]
    pub unsafe fn map_input(self) -> Self {
        self
    }

    /// Always `false`: nothing is mapped (see the deprecated `ConvertOptions::map_input`).
    #[deprecated(note = "convert_file never maps its input")]
    pub fn maps_input(&self) -> bool {
        false
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
/// Memory stays bounded for every conversion, whatever the file's size: a byte-order or
/// version change streams the data through two buffers of at most 1 MiB (a second thread
/// reads and swaps one while the other is written), and a memory-order
/// change transposes it tile by tile through three buffers of at most
/// [`ConvertOptions::buffer_bytes`] (8 MiB by default) each, reading the input and writing
/// the output at explicit offsets (a second thread reads the next tile while this one
/// transposes and writes the last). Each buffer holds at least one element, so an itemsize
/// larger than the budget raises it to one element. The output is written atomically
/// (temporary file beside `dst`, synced, then renamed), so `dst` may equal `src`; a failure
/// leaves `dst` as it was.
///
/// Equivalent to [`convert_file_with_progress`] with a hook that does nothing.
///
/// # Errors
/// Header errors, [`ErrorKind::ObjectArray`], [`ErrorKind::Truncated`] (the input holds fewer
/// data bytes than its header says), header-writing errors for an explicit version, I/O
/// errors; each names the file it concerns ([`Error::path`]).
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
    convert_file_with_progress(src, dst, options, |_, _| {})
}

/// [`convert_file`], calling `progress(done, total)` as the data is written: `total` is the
/// array's data bytes (the header's, equal in input and output), `done` the data bytes
/// written so far. The first call is `(0, total)`, each later one has a larger `done`, and
/// the last one, made once every byte is written and before the output is synced and
/// renamed, is `(total, total)`; an error stops the calls. The calls come from the calling
/// thread, one per buffer written (at most 8 MiB apart with the default options), so the
/// hook can drive a progress bar without a clock of its own.
///
/// # Errors
/// As [`convert_file`].
///
/// # Examples
/// ```
/// use npy_core::{convert_file_with_progress, ConvertOptions, Order};
/// # let dir = std::env::temp_dir().join(format!("npy-core-progress-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
/// npy_core::write(&a, &[0f64; 1000], &[10, 100])?;
/// let mut options = ConvertOptions::default();
/// options.order = Some(Order::Fortran);
/// let mut seen = Vec::new();
/// convert_file_with_progress(&a, &b, &options, |done, total| seen.push((done, total)))?;
/// assert_eq!(seen.first(), Some(&(0, 8000)));
/// assert_eq!(seen.last(), Some(&(8000, 8000)));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn convert_file_with_progress(
    src: impl AsRef<Path>,
    dst: impl AsRef<Path>,
    options: &ConvertOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<(), Error> {
    let (src, dst) = (src.as_ref(), dst.as_ref());
    convert(src, dst, options, &mut progress).at_path(src)
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

    fn write_at(&mut self, bytes: &[u8], offset: u64) -> Result<(), Error> {
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| Error::from(e).with_path(self.path))
    }
}

/// The input's data: `nbytes` bytes from byte `offset` of `file`, read at explicit offsets
/// (never from wherever a reader left the file).
struct Input {
    file: File,
    offset: u64,
    nbytes: u64,
}

impl Input {
    /// Fills `buf` with the data bytes from data byte `at`.
    fn read_at(&self, buf: &mut [u8], at: u64) -> Result<(), Error> {
        match read_exact_at(&self.file, buf, self.offset + at) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                // The file shrank after its length was checked.
                let len = self.file.metadata()?.len();
                Err(truncated(self.nbytes, len.saturating_sub(self.offset)))
            }
            Err(e) => Err(e.into()),
        }
    }
}

fn truncated(needed: u64, found: u64) -> Error {
    Error::new(ErrorKind::Truncated {
        what: "array data",
        needed,
        found: found.min(needed),
    })
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(not(any(unix, windows)))]
fn read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

fn convert(
    src: &Path,
    dst: &Path,
    options: &ConvertOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    // A missing or special input is reported before the output is touched.
    drop(crate::io::open_regular(src)?);
    // Then the output: an existing one is locked (waiting for an appender), and only then is
    // the input read, so `convert F F` during `npy append F` sees the appended rows.
    let mut out = Output {
        file: AtomicFile::create(dst).at_path(dst)?,
        path: dst,
    };
    let (header, data_offset) = {
        let reader = NpyReader::open(src)?;
        (
            reader.header().clone(),
            reader.parsed_header().data_offset(),
        )
    };
    header.dtype.refuse_object()?;
    let src_order = Order::from_fortran_order(header.fortran_order);
    let target_dtype = match options.byte_order {
        Some(o) => header.dtype.with_byte_order(o),
        None => header.dtype.clone(),
    };
    let itemsize = to_usize(header.dtype.itemsize(), "itemsize")?;
    let mut runs = Vec::new();
    if let Some(o) = options
        .byte_order
        .filter(|o| *o != ByteOrder::NotApplicable)
    {
        swap_runs(&header.dtype, 0, o, &mut runs)?;
    }
    let swap = Swap::new(runs, itemsize);
    let fortran_order =
        Header::fortran_order_for(&header.shape, options.order.unwrap_or(src_order));
    let target_order = Order::from_fortran_order(fortran_order);
    let out_header = Header {
        dtype: target_dtype,
        fortran_order,
        shape: header.shape.clone(),
    };
    let nbytes = header.nbytes()?;
    let header_bytes = out_header.to_bytes(options.version)?;
    // Its own handle: the data is read at explicit offsets.
    let file = crate::io::open_regular(src)?;
    let available = file.metadata()?.len().saturating_sub(data_offset);
    if available < nbytes {
        return Err(truncated(nbytes, available));
    }
    let input = Input {
        file,
        offset: data_offset,
        nbytes,
    };
    out.write(&header_bytes)?;
    let budget = options.buffer_bytes.unwrap_or(TILE_BYTES);
    progress(0, nbytes);
    let axes = source_axes(&header.shape, src_order);
    if target_order != src_order && nbytes > 0 && axes.len() >= 2 {
        let plan = Tiling::new(axes, itemsize, budget);
        plan.run(&input, &swap, &mut out, header_bytes.len() as u64, progress)?;
    } else {
        // Fewer than two axes longer than 1: both orders are the same bytes.
        stream(&input, itemsize, &swap, budget, &mut out, progress)?;
    }
    out.file.commit().at_path(dst)
}

/// The byte swap of the conversion, applied to buffers of whole elements.
enum Swap {
    /// Nothing changes.
    None,
    /// Every `unit`-byte scalar of the buffer (one scalar type fills each element).
    Bulk(usize),
    /// The runs of each `itemsize`-byte element.
    PerElement(Vec<SwapRun>, usize),
}

impl Swap {
    fn new(runs: Vec<SwapRun>, itemsize: usize) -> Swap {
        // Neighbouring runs of one unit (packed fields of one type) are one run.
        let mut merged: Vec<SwapRun> = Vec::with_capacity(runs.len());
        for r in runs {
            match merged.last_mut() {
                Some(last)
                    if last.unit == r.unit && last.offset + last.unit * last.count == r.offset =>
                {
                    last.count += r.count;
                }
                _ => merged.push(r),
            }
        }
        match merged.as_slice() {
            [] => Swap::None,
            [one] if one.offset == 0 && one.unit * one.count == itemsize => Swap::Bulk(one.unit),
            _ => Swap::PerElement(merged, itemsize),
        }
    }

    /// Swaps every element of `buf` (whole elements).
    fn apply(&self, buf: &mut [u8]) {
        match self {
            Swap::None => {}
            Swap::Bulk(unit) => swap_in_place(buf, *unit),
            Swap::PerElement(runs, itemsize) => {
                buf.chunks_exact_mut(*itemsize).for_each(|e| apply(runs, e));
            }
        }
    }
}

/// A byte buffer aligned for every scalar up to 16 bytes, so the swaps and the tile copies
/// take their word-wise loops.
struct Buffer(Vec<u128>);

impl Buffer {
    fn new(bytes: usize) -> Buffer {
        Buffer(vec![0; bytes.div_ceil(16)])
    }

    fn bytes(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}

/// Runs `fill` on each job, in order, on a second thread, into one of two buffers made by
/// `make`, while this thread runs `drain` on the buffer filled before: reading overlaps
/// writing. A single job runs on this thread. Stops at the first error (either side's), which
/// it returns.
fn overlapped<J: Send>(
    mut jobs: impl Iterator<Item = J> + Send,
    make: impl Fn() -> Buffer,
    fill: impl Fn(&mut Buffer, &J) -> Result<(), Error> + Sync,
    mut drain: impl FnMut(&mut Buffer, J) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(first) = jobs.next() else {
        return Ok(());
    };
    let mut buf = make();
    fill(&mut buf, &first)?;
    let mut jobs = jobs.peekable();
    if jobs.peek().is_none() {
        return drain(&mut buf, first);
    }
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel(1);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Buffer>(1);
        // The channel has room for it.
        let _ = empty_tx.send(make());
        let fill = &fill;
        scope.spawn(move || {
            for job in jobs {
                // Both ends close when this thread's partner stops (an error).
                let Ok(mut buf) = empty_rx.recv() else { return };
                let filled = fill(&mut buf, &job).map(|()| (buf, job));
                let stop = filled.is_err();
                if full_tx.send(filled).is_err() || stop {
                    return;
                }
            }
        });
        drain(&mut buf, first)?;
        let _ = empty_tx.send(buf);
        // Ends when the filling thread has sent its last job and dropped its end.
        while let Ok(filled) = full_rx.recv() {
            let (mut buf, job) = filled?;
            drain(&mut buf, job)?;
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}

/// Copies the data as it is stored (swapped) through two buffers of whole elements, one read
/// and swapped while the other is written ([`overlapped`]).
fn stream(
    input: &Input,
    itemsize: usize,
    swap: &Swap,
    budget: usize,
    out: &mut Output<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    let unit = itemsize.max(1);
    let chunk = per_chunk(unit, budget.min(COPY_CHUNK_BYTES)) * unit;
    let chunk = (chunk as u64).min(input.nbytes) as usize;
    let nbytes = input.nbytes;
    // (offset, bytes) of each step.
    let steps = (0..nbytes.div_ceil(chunk.max(1) as u64)).map(|i| {
        let at = i * chunk as u64;
        (at, (nbytes - at).min(chunk as u64) as usize)
    });
    overlapped(
        steps,
        || Buffer::new(chunk),
        |buf, &(at, k)| {
            let b = &mut buf.bytes()[..k];
            input.read_at(b, at)?;
            swap.apply(b);
            Ok(())
        },
        |buf, (at, k)| {
            out.write(&buf.bytes()[..k])?;
            progress(at + k as u64, nbytes);
            Ok(())
        },
    )
}

/// The axes of `shape` longer than 1, as `u64` extents in the source's memory order, fastest
/// first (axes of length 1 change no offset, so they are dropped; the target's memory order
/// is the reverse of this list).
fn source_axes(shape: &[u64], order: Order) -> Vec<u64> {
    let mut axes: Vec<u64> = shape.iter().copied().filter(|&d| d > 1).collect();
    if order == Order::C {
        axes.reverse();
    }
    axes
}

/// The tiled transposition of an order change. The order change reverses the axes: with the
/// extents `dims` listed in the source's memory order, fastest first, the target's fastest
/// axis is the last. Tiles of `tile` elements per axis cover the array; each is read as
/// runs contiguous in the source (along its first axes, merged while the tile covers an
/// axis whole), transposed in memory, and written as runs contiguous in the target (along
/// its last axes, merged likewise).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tiling {
    dims: Vec<u64>,
    tile: Vec<u64>,
    itemsize: usize,
}

impl Tiling {
    /// Tile extents for at most `budget` bytes a tile (at least one element): about the
    /// square root of the budget's elements along the source's fastest axes, the rest along
    /// the target's, so runs on both sides are long; a partly covered axis is cut into
    /// tiles of equal length (no one-element edge tiles).
    fn new(dims: Vec<u64>, itemsize: usize, budget: usize) -> Tiling {
        let n = dims.len();
        let elements = (budget / itemsize.max(1)).max(1) as u64;
        let share = elements.isqrt().max(1);
        let mut tile = vec![1u64; n];
        let mut used = 1u64;
        let mut partial = n;
        for k in 0..n {
            tile[k] = dims[k].min((share / used).max(1));
            used *= tile[k];
            if tile[k] < dims[k] {
                partial = k;
                break;
            }
        }
        if partial < n {
            for k in (partial..n).rev() {
                let room = (elements / used).max(1);
                if k == partial {
                    tile[k] = dims[k].min(tile[k] * room);
                    break;
                }
                tile[k] = dims[k].min(room);
                used *= tile[k];
                if tile[k] < dims[k] {
                    break;
                }
            }
        }
        for (t, &d) in tile.iter_mut().zip(&dims) {
            *t = d.div_ceil(d.div_ceil(*t));
        }
        Tiling {
            dims,
            tile,
            itemsize,
        }
    }

    /// Strides (elements) of the source and of the target.
    fn strides(&self) -> (Vec<u64>, Vec<u64>) {
        let n = self.dims.len();
        let mut src = vec![1u64; n];
        let mut dst = vec![1u64; n];
        for k in 1..n {
            src[k] = src[k - 1] * self.dims[k - 1];
            dst[n - 1 - k] = dst[n - k] * self.dims[n - k];
        }
        (src, dst)
    }

    /// Transposes the input into `out`, whose data starts at byte `out_offset`.
    fn run(
        &self,
        input: &Input,
        swap: &Swap,
        out: &mut Output<'_>,
        out_offset: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), Error> {
        let n = self.dims.len();
        let w = self.itemsize as u64;
        let (src_strides, dst_strides) = self.strides();
        // Source runs lie along the axes a tile covers whole and the first it does not; target
        // runs likewise from the last axis down. Every tile has the same such axes.
        let first = (0..n)
            .find(|&k| self.tile[k] != self.dims[k])
            .unwrap_or(n - 1);
        let last = (0..n)
            .rev()
            .find(|&k| self.tile[k] != self.dims[k])
            .unwrap_or(0);
        let full: Vec<usize> = self.tile.iter().map(|&t| t as usize).collect();
        // Tiles hold at most the budget (or one element) and a little padding.
        let room = Blocks::new(&full, first, last, self.itemsize).len() * self.itemsize;
        let extent = |start: &[u64]| -> Vec<usize> {
            (0..n)
                .map(|k| self.tile[k].min(self.dims[k] - start[k]) as usize)
                .collect()
        };
        let mut b = Buffer::new(room);
        let mut done = 0u64;
        overlapped(
            TileStarts::new(&self.tile, &self.dims),
            || Buffer::new(room),
            |a, start| {
                let extent = extent(start);
                let blocks = Blocks::new(&extent, first, last, self.itemsize);
                let a = &mut a.bytes()[..blocks.len() * self.itemsize];
                let run = extent[..=first].iter().product::<usize>() * self.itemsize;
                let pitch = blocks.src_pitch * self.itemsize;
                let base: u64 = (0..n).map(|k| start[k] * src_strides[k]).sum();
                let mut at = 0;
                let steps: Vec<usize> = (first + 1..n).collect();
                for_each_run(base, &extent, &steps, &src_strides, |offset| {
                    input.read_at(&mut a[at..at + run], offset * w)?;
                    at += pitch;
                    Ok(())
                })
            },
            |a, start| {
                let extent = extent(&start);
                let blocks = Blocks::new(&extent, first, last, self.itemsize);
                let len = blocks.len() * self.itemsize;
                let (a, b) = (&a.bytes()[..len], &mut b.bytes()[..len]);
                transpose_tile(a, b, &blocks, self.itemsize);
                swap.apply(b);
                let run = extent[last..].iter().product::<usize>() * self.itemsize;
                let pitch = blocks.dst_pitch * self.itemsize;
                let base: u64 = (0..n).map(|k| start[k] * dst_strides[k]).sum();
                let mut at = 0;
                let steps: Vec<usize> = (0..last).rev().collect();
                for_each_run(base, &extent, &steps, &dst_strides, |offset| {
                    out.write_at(&b[at..at + run], out_offset + offset * w)?;
                    at += pitch;
                    Ok(())
                })?;
                done += (extent.iter().product::<usize>() * self.itemsize) as u64;
                progress(done, input.nbytes);
                Ok(())
            },
        )
    }
}

/// The first index of each tile of `tile` over `dims`, the last axis (the target's fastest)
/// fastest, so that writes move forward.
struct TileStarts<'a> {
    tile: &'a [u64],
    dims: &'a [u64],
    next: Option<Vec<u64>>,
}

impl<'a> TileStarts<'a> {
    fn new(tile: &'a [u64], dims: &'a [u64]) -> Self {
        TileStarts {
            tile,
            dims,
            next: Some(vec![0; dims.len()]),
        }
    }
}

impl Iterator for TileStarts<'_> {
    type Item = Vec<u64>;

    fn next(&mut self) -> Option<Vec<u64>> {
        let here = self.next.take()?;
        let mut next = here.clone();
        for k in (0..next.len()).rev() {
            next[k] += self.tile[k];
            if next[k] < self.dims[k] {
                self.next = Some(next);
                break;
            }
            next[k] = 0;
        }
        Some(here)
    }
}

/// Calls `f` with the offset (elements, from `base`) of each run of a tile of `extent`:
/// `steps` are the axes the runs step along, fastest first, with `strides` (elements).
fn for_each_run(
    base: u64,
    extent: &[usize],
    steps: &[usize],
    strides: &[u64],
    mut f: impl FnMut(u64) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut index = vec![0usize; steps.len()];
    let mut offset = base;
    loop {
        f(offset)?;
        let mut j = 0;
        loop {
            let Some(&k) = steps.get(j) else {
                return Ok(());
            };
            index[j] += 1;
            offset += strides[k];
            if index[j] < extent[k] {
                break;
            }
            offset -= strides[k] * extent[k] as u64;
            index[j] = 0;
            j += 1;
        }
    }
}

/// Elements a leaf of the in-memory transposition moves: its source and target lines stay
/// in L1.
const LEAF_BYTES: usize = 16 << 10;

/// Writes the tile `src` (elements of `itemsize` bytes in the source's order, laid out as
/// `blocks` says) into `dst` in the target's order.
fn transpose_tile(src: &[u8], dst: &mut [u8], blocks: &Blocks, itemsize: usize) {
    fn typed<T: bytemuck::Pod>(src: &[u8], dst: &mut [u8], blocks: &Blocks) -> bool {
        match (
            bytemuck::try_cast_slice::<u8, T>(src),
            bytemuck::try_cast_slice_mut::<u8, T>(dst),
        ) {
            (Ok(s), Ok(d)) => {
                blocks.run(s, d, 1);
                true
            }
            _ => false,
        }
    }
    let done = match itemsize {
        1 => typed::<u8>(src, dst, blocks),
        2 => typed::<u16>(src, dst, blocks),
        4 => typed::<u32>(src, dst, blocks),
        8 => typed::<u64>(src, dst, blocks),
        16 => typed::<u128>(src, dst, blocks),
        _ => false,
    };
    if !done {
        blocks.run(src, dst, itemsize);
    }
}

/// A cache-oblivious axis reversal of a tile: halves its longest axis until a block holds at
/// most `leaf` elements, then copies the block line by line along its longer end axis (the
/// source's fastest, read in sequence, or the target's fastest, written in sequence).
///
/// Both sides are packed but for the runs of the file: a run of 4 KiB or more of elements
/// under 64 bytes (`first`, the last axis of a source run; `last`, the first of a target
/// run) is followed by about 64 bytes of padding, so that the lines of a block, one run apart, do not all fall in the same cache
/// set when a run is a multiple of 4 KiB.
struct Blocks {
    extent: Vec<usize>,
    /// Strides (elements) of the source and of the target.
    src: Vec<usize>,
    dst: Vec<usize>,
    /// Elements from one run to the next in each buffer.
    src_pitch: usize,
    dst_pitch: usize,
    /// Elements of the buffers.
    src_len: usize,
    dst_len: usize,
    leaf: usize,
}

impl Blocks {
    fn new(extent: &[usize], first: usize, last: usize, itemsize: usize) -> Blocks {
        // Elements of 64 bytes or more span whole lines already: no padding (which would
        // double a tile of one large element).
        let pitch = |run: usize| {
            if run * itemsize >= 4096 && itemsize < 64 {
                run + 64 / itemsize
            } else {
                run
            }
        };
        let n = extent.len();
        let src_pitch = pitch(extent[..=first].iter().product());
        let dst_pitch = pitch(extent[last..].iter().product());
        let mut src = vec![1usize; n];
        let mut dst = vec![1usize; n];
        for k in 1..n {
            src[k] = if k == first + 1 {
                src_pitch
            } else {
                src[k - 1] * extent[k - 1]
            };
            let k = n - 1 - k;
            dst[k] = if k + 1 == last {
                dst_pitch
            } else {
                dst[k + 1] * extent[k + 1]
            };
        }
        Blocks {
            src_len: src_pitch * extent[first + 1..].iter().product::<usize>(),
            dst_len: dst_pitch * extent[..last].iter().product::<usize>(),
            extent: extent.to_vec(),
            src,
            dst,
            src_pitch,
            dst_pitch,
            leaf: (LEAF_BYTES / itemsize.max(1)).max(1),
        }
    }

    /// Elements of the larger buffer.
    fn len(&self) -> usize {
        self.src_len.max(self.dst_len)
    }

    /// Elements are `w` values of `T` each (1 for the typed copies, the itemsize for bytes).
    fn run<T: Copy>(&self, s: &[T], d: &mut [T], w: usize) {
        let mut block = self.extent.clone();
        let mut index = vec![0usize; block.len()];
        self.split(s, d, w, (0, 0), &mut block, &mut index);
    }

    fn split<T: Copy>(
        &self,
        s: &[T],
        d: &mut [T],
        w: usize,
        (i, j): (usize, usize),
        block: &mut [usize],
        index: &mut [usize],
    ) {
        if block.iter().product::<usize>() <= self.leaf {
            return self.leaf(s, d, w, (i, j), block, index);
        }
        let (k, &whole) = block
            .iter()
            .enumerate()
            .max_by_key(|&(k, &e)| (e, std::cmp::Reverse(k)))
            .unwrap_or((0, &1));
        let half = whole / 2;
        block[k] = half;
        self.split(s, d, w, (i, j), block, index);
        block[k] = whole - half;
        let next = (i + half * self.src[k], j + half * self.dst[k]);
        self.split(s, d, w, next, block, index);
        block[k] = whole;
    }

    fn leaf<T: Copy>(
        &self,
        s: &[T],
        d: &mut [T],
        w: usize,
        (mut i, mut j): (usize, usize),
        block: &[usize],
        index: &mut [usize],
    ) {
        let n = block.len();
        // The source's fastest axis has stride 1 in the source, the target's in the target.
        let inner = if block[n - 1] > block[0] { n - 1 } else { 0 };
        let len = block[inner];
        index.fill(0);
        loop {
            if inner == 0 {
                let stride = self.dst[0];
                if w == 1 {
                    let to = d[j..].iter_mut().step_by(stride);
                    s[i..i + len].iter().zip(to).for_each(|(x, y)| *y = *x);
                } else {
                    let from = s[i * w..(i + len) * w].chunks_exact(w);
                    let to = d[j * w..].chunks_mut(w).step_by(stride);
                    from.zip(to).for_each(|(x, y)| y.copy_from_slice(x));
                }
            } else {
                let stride = self.src[n - 1];
                if w == 1 {
                    let from = s[i..].iter().step_by(stride);
                    from.zip(&mut d[j..j + len]).for_each(|(x, y)| *y = *x);
                } else {
                    let from = s[i * w..].chunks(w).step_by(stride);
                    let to = d[j * w..(j + len) * w].chunks_exact_mut(w);
                    from.zip(to).for_each(|(x, y)| y.copy_from_slice(x));
                }
            }
            let mut k = 0;
            loop {
                if k == n {
                    return;
                }
                if k != inner {
                    index[k] += 1;
                    i += self.src[k];
                    j += self.dst[k];
                    if index[k] < block[k] {
                        break;
                    }
                    i -= self.src[k] * block[k];
                    j -= self.dst[k] * block[k];
                    index[k] = 0;
                }
                k += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Elements of the source runs and target runs of a whole tile of `t`.
    fn runs(t: &Tiling) -> (u64, u64) {
        let n = t.dims.len();
        let first = (0..n).find(|&k| t.tile[k] != t.dims[k]).unwrap_or(n - 1);
        let last = (0..n).rev().find(|&k| t.tile[k] != t.dims[k]).unwrap_or(0);
        (
            t.tile[..=first].iter().product(),
            t.tile[last..].iter().product(),
        )
    }

    /// Issue 10's pathological shapes at full size: tiles stay within the budget, and runs on
    /// both sides stay long (no system call per element), whichever side the long axis is on:
    /// at least a quarter of the square root of the budget's elements (the share of each side,
    /// halved at most once by rounding down to whole elements of the partly covered axis and
    /// once by cutting it into equal tiles).
    #[test]
    fn tiles_of_pathological_shapes_keep_both_runs_long() {
        let m = 64 << 20;
        // Extents in the source's memory order, fastest first.
        for dims in [
            vec![2, m],
            vec![m, 2],
            vec![2, 4096, 8192, 2],
            vec![8192, 16384],
            vec![3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
            vec![2049, 2049],
            vec![1_000_003, 3, 7],
        ] {
            let t = Tiling::new(dims.clone(), 4, TILE_BYTES);
            let floor = (TILE_BYTES as u64 / 4).isqrt() / 4;
            let elements: u64 = t.tile.iter().product();
            assert!(elements * 4 <= TILE_BYTES as u64, "{dims:?}: {:?}", t.tile);
            let (src, dst) = runs(&t);
            assert!(
                src >= floor && dst >= floor,
                "{dims:?}: tile {:?}, runs {src} {dst}",
                t.tile
            );
            // The `c` tiles of an axis are within `c` of each other's length: no slivers.
            for (&d, &e) in dims.iter().zip(&t.tile) {
                let c = d.div_ceil(e);
                assert!(d - (c - 1) * e + c > e, "{dims:?}: {:?}", t.tile);
            }
        }
    }

    /// At its boundary the budget holds exactly one element; below it, still one.
    #[test]
    fn a_budget_smaller_than_an_element_is_one_element() {
        for budget in [0, 1, 15] {
            let t = Tiling::new(vec![5, 7], 16, budget);
            assert_eq!(t.tile, [1, 1]);
        }
        let t = Tiling::new(vec![5, 7], 16, 32);
        assert_eq!(t.tile.iter().product::<u64>(), 2);
        let t = Tiling::new(vec![5, 7], 16, 35 * 16);
        assert_eq!(t.tile, [5, 7]);
        // A tile of one element larger than the budget is that element, unpadded.
        let t = Tiling::new(vec![3, 4], 32 << 20, TILE_BYTES);
        assert_eq!(t.tile, [1, 1]);
        assert_eq!(Blocks::new(&[1, 1], 0, 1, 32 << 20).len(), 1);
    }

    /// The integration test `order_changes_with_long_runs_in_several_tiles` relies on these
    /// tilings padding the runs of one side.
    #[test]
    fn long_runs_are_padded() {
        for (dims, itemsize, budget) in [
            (vec![4200, 100], 4, 600_000),
            (vec![4200, 100], 16, 1 << 20),
            (vec![4200, 100], 5, 600_000),
        ] {
            let t = Tiling::new(dims.clone(), itemsize, budget);
            assert!(t.tile[0] < 4200 && t.tile[1] == 100, "{:?}", t.tile);
            let extent: Vec<usize> = t.tile.iter().map(|&e| e as usize).collect();
            let b = Blocks::new(&extent, 0, 0, itemsize);
            assert!(b.src_pitch > extent[0], "{:?}", t.tile);
        }
    }

    /// The two-thread pipeline drains every job in order, and stops at the first error of
    /// either side (returning it, never hanging), whatever the number of jobs.
    #[test]
    fn overlapped_keeps_order_and_stops_at_errors() {
        let fail = |what: &'static str| Error::from(std::io::Error::other(what));
        for jobs in [0u32, 1, 2, 10] {
            let mut seen = Vec::new();
            let fill = |b: &mut Buffer, &j: &u32| {
                b.bytes()[0] = j as u8;
                Ok(())
            };
            overlapped(
                0..jobs,
                || Buffer::new(1),
                fill,
                |b, j| {
                    seen.push((b.bytes()[0], j));
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(seen, (0..jobs).map(|j| (j as u8, j)).collect::<Vec<_>>());
        }
        for bad in [0u32, 1, 5, 9] {
            let mut drained = Vec::new();
            let fill = |_: &mut Buffer, &j: &u32| if j == bad { Err(fail("fill")) } else { Ok(()) };
            let err = overlapped(
                0..10,
                || Buffer::new(1),
                fill,
                |_, j| {
                    drained.push(j);
                    Ok(())
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("fill"), "{err}");
            assert_eq!(drained, (0..bad).collect::<Vec<_>>());
            let err = overlapped(
                0..10,
                || Buffer::new(1),
                |_, _| Ok(()),
                |_, j| {
                    if j == bad {
                        Err(fail("drain"))
                    } else {
                        Ok(())
                    }
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("drain"), "{err}");
        }
    }

    #[test]
    fn swaps_of_packed_fields_of_one_unit_become_one_bulk_swap() {
        let run = |offset, unit, count| SwapRun {
            offset,
            unit,
            count,
        };
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1), run(4, 4, 2)], 12),
            Swap::Bulk(4)
        ));
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1), run(4, 2, 1)], 6),
            Swap::PerElement(..)
        ));
        assert!(matches!(
            Swap::new(vec![run(0, 4, 1)], 5),
            Swap::PerElement(..)
        ));
        assert!(matches!(Swap::new(vec![], 5), Swap::None));
    }
}
