//! Read and write NumPy `.npy` files: typed and dynamic arrays, ndarray, records as structs,
//! streaming, memory maps, and the header itself, with bounded memory on untrusted input.
//!
//! # Quick start
//!
//! One call per task (the other crates of the workspace in the last rows):
//!
//! | task | the call |
//! |---|---|
//! | read a file into a `Vec` | [`read::<T>(path)`](fn@crate::read) gives an [`NpyArray`] (shape, order, `into_vec()`, `into_c_order_vec()`); [`read_with`](crate::read::read_with) takes [`ReadOptions`] |
//! | read into ndarray | `read_ndarray::<f32, Ix2>(path)` (feature `ndarray`; `IxDyn` for any number of dimensions); `read_ndarray_with` for options |
//! | map a file | `unsafe { NpyMmap::<T>::open(path) }` (feature `mmap`) |
//! | view bytes in memory | [`NpyView::<T>::new(&bytes)`](NpyView::new) (zero copy); [`view_or_copy`](crate::view::view_or_copy) when they may be misaligned |
//! | stream rows | [`NpyReader::open(path)`](NpyReader::open), then `read_into`, `iter`, `read_range` |
//! | records as structs | `#[derive(NpyElement)]` (feature `derive`), then `read::<T>` / `write` as for numbers |
//! | any dtype, decided at run time | [`read_dyn(path)`](read_dyn) gives a [`DynArray`]: one typed [`Column`](crate::dynamic::Column) per leaf field ([`DynArray::columns`], numbers as `&[T]` by [`Column::values`](crate::dynamic::Column::values)), each element as a [`DynValue`] tree when asked ([`DynArray::get`], [`DynArray::iter`]) |
//! | the header only | [`TensorInfo::from_path`] (a summary); [`Header::read`] (the dict, version and data offset) |
//! | write back what `read` returned (its order and dtype) | [`NpyArray::write(path)`](NpyArray::write); [`write_dyn(path, &array)`](write_dyn) for a [`DynArray`] |
//! | write | [`write(path, &data, shape)`](write()); [`WriteOptions`] for dtype, order, byte order, version, then [`WriteOptions::write_path`] (or [`WriteOptions::write_to`] for any `Write`) |
//! | write a stream of rows | [`WriteOptions::create_stream`] |
//! | append rows | [`append(path, &rows, shape)`](append); [`NpyAppender`] for many appends |
//! | change byte order, memory order or version of a file | crate `npy-convert`: `convert_file` with `ConvertOptions` (the data rewritten in bounded memory, any dtype) |
//! | read from any range source (a buffer, a user type, a remote object) | [`NpyReader::open_at(source)`](crate::NpyReader::open_at) over a [`ReadAt`]: the header in one read, rows and ranges in one read each |
//! | `.npz` archives | crate `npy-npz`: `npy_npz::NpzArchive::open(path)`, `npy_npz::NpzWriter` |
//! | object arrays (dtype `O`) | crate `npy-pickle`: `npy_pickle::read_dyn(path)`, `npy_pickle::read_objects` |
//! | arrays in S3, GCS, Azure or over HTTP | crate `npy-object-store`: `RemoteNpy` (async), `BlockingObject` (a [`ReadAt`] for [`NpyReader::open_at`]) |
//! | print as numpy does | crate `npy-print`: `npy_print::str(&array)` (numpy's `str()`), `npy_print::repr(&array)`; `npy_print::PrintOptions` for threshold, edge items, width |
//! | inspect or convert files from the shell | crate `npy-cli`, command `npy`: `npy info FILE...` (`--json`), `npy show`, `npy header`, `npy convert IN OUT` (`npy --help`) |
//!
//! | feature | adds |
//! |---|---|
//! | (none) | [`read`](fn@crate::read), [`write()`], [`NpyReader`], [`NpyView`], [`read_dyn`], [`Header`], streaming writers, [`append`](fn@crate::append) / [`NpyAppender`] |
//! | `ndarray` | `read_ndarray` (`read_ndarray_with` for options), `write_ndarray`, `NpyReader::read_ndarray`, `as_ndarray` on views and maps, `WriteOptions::write_ndarray_path` |
//! | `derive` | `#[derive(NpyElement)]`: a struct as a numpy record (structured dtype) |
//! | `mmap` | `NpyMmap`: map a file and borrow its elements; `NpyMmapMut`: create or open one writable |
//! | `serde` | `Serialize`/`Deserialize` for the header types |
//! | `chrono` | conversions of `Datetime64` / `Timedelta64` to and from chrono's `DateTime<Utc>`, `NaiveDateTime` and `TimeDelta` |
//!
//! Each task below is also a runnable program in `examples/`
//! (`cargo run -p npy-core --example NAME --all-features`).
//!
//! **Load a matrix into ndarray** (feature `ndarray`; example `load_matrix`). The dimension is
//! the one you ask for, checked against the file; `ArrayD` takes any.
//! ```no_run
//! # #[cfg(feature = "ndarray")]
//! # fn main() -> Result<(), npy_core::Error> {
//! let m: ndarray::Array2<f32> = npy_core::read_ndarray("weights.npy")?;
//! # Ok(()) }
//! # #[cfg(not(feature = "ndarray"))] fn main() {}
//! ```
//!
//! **Save a `Vec`** (example `save_vec`): data in C order and a shape (`&[2, 3]`, a `&[u64]`, or
//! ndarray's `a.shape()`). [`WriteOptions`] sets dtype, C/Fortran order, byte order and version.
//! ```no_run
//! let v: Vec<f64> = vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
//! npy_core::write("v.npy", &v, &[2, 3])?;
//! let back = npy_core::read::<f64>("v.npy")?; // shape, order and the elements
//! let flat: Vec<f64> = back.into_c_order_vec(); // C order even from a Fortran-order file
//! # Ok::<(), npy_core::Error>(())
//! ```
//!
//! **Read numpy records into a struct** (feature `derive`; example `read_records`). Fields
//! match by name, in any order, in any byte order.
//! ```no_run
//! # #[cfg(feature = "derive")]
//! # fn main() -> Result<(), npy_core::Error> {
//! #[derive(npy_core::NpyElement)]
//! struct Point { x: f32, y: f32, id: i64 }
//! let points: Vec<Point> = npy_core::read("points.npy")?.into_vec();
//! # Ok(()) }
//! # #[cfg(not(feature = "derive"))] fn main() {}
//! ```
//!
//! **Edit a header**: [`Header::read`] gives the dict, the version and
//! the data offset; [`Header::to_bytes`] writes a header as `np.save` pads it; the crate npy-convert's
//! `convert_file` changes byte order, memory order or version with the data.
//! ```no_run
//! let bytes = std::fs::read("a.npy")?;
//! let parsed = npy_core::Header::read(&mut &bytes[..])?;
//! let mut header = parsed.header.clone();
//! header.shape = vec![3, 2]; // same elements, another shape
//! let mut out = header.to_bytes(None)?;
//! out.extend_from_slice(&bytes[parsed.data_offset() as usize..]);
//! std::fs::write("a.npy", out)?;
//! # Ok::<(), npy_core::Error>(())
//! ```
//!
//! **Stream a large file** (example `stream_large`): rows of unknown count to a path (the file
//! appears at `finish`, and only then), and reads into one reused buffer.
//! ```no_run
//! let mut w = npy_core::WriteOptions::new().create_stream::<f32>("big.npy", &[1024])?;
//! w.push_row(&[0.5; 1024])?;
//! w.finish()?; // dropping `w` instead writes nothing
//! let mut r = npy_core::NpyReader::open("big.npy")?;
//! let mut buf = vec![0f32; 1 << 16];
//! while r.remaining() > 0 {
//!     let n = (r.remaining() as usize).min(buf.len());
//!     r.read_into(&mut buf[..n])?;
//! }
//! # Ok::<(), npy_core::Error>(())
//! ```
//!
//! **Map a file** (feature `mmap`, plus `ndarray` for the view; example `map_file`). `unsafe`:
//! you promise nobody modifies the file while it is mapped.
//! ```no_run
//! # #[cfg(all(feature = "mmap", feature = "ndarray"))]
//! # fn main() -> Result<(), npy_core::Error> {
//! // SAFETY: nothing writes to weights.npy while `m` lives.
//! let m = unsafe { npy_core::NpyMmap::<f32>::open("weights.npy")? };
//! let slice: &[f32] = m.data(); // the file's pages, no copy
//! let view = m.as_ndarray::<ndarray::Ix2>()?; // an ArrayView2 of the same pages
//! # Ok(()) }
//! # #[cfg(not(all(feature = "mmap", feature = "ndarray")))] fn main() {}
//! ```
//!
//! **Handle errors** (example `handle_errors`): one [`Error`] type; match on [`Error::kind`], sort
//! with [`Error::classify`]; an error from a function that takes a path names the file
//! ([`Error::path`]).
//! ```no_run
//! use npy_core::{error::Category, ErrorKind};
//! match npy_core::read::<f64>("ints.npy") {
//!     Ok(a) => println!("{:?}", a.shape()),
//!     Err(e) if matches!(e.kind(), ErrorKind::TypeMismatch { .. }) => eprintln!("{e}"),
//!     Err(e) if e.classify() == Category::Io => eprintln!("cannot read: {e}"),
//!     Err(e) => return Err(e),
//! }
//! # Ok::<(), npy_core::Error>(())
//! ```
//!
//! # What the crate holds
//!
//! A `.npy` file is `\x93NUMPY`, a format version (1.0, 2.0 or 3.0), a little-endian header
//! length, a Python-literal header dict `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }`
//! padded so the data starts at a multiple of 64 bytes, then the array bytes in C or Fortran
//! order (NEP 1; numpy's `numpy/lib/_format_impl.py` is the reference implementation).
//!
//! Beyond the task table:
//! - Readers opened from a path buffer small reads (8 KiB) and read large bulk ranges on
//!   several threads ([`ReadOptions::threads`]).
//! - [`DType`] models every dtype a header can describe, records included; [`DType::Ml`] the
//!   ml_dtypes types (bfloat16, float8, int4, …: [`MlType`](crate::dtype::MlType) and the
//!   element types come from the crate npy-ml-dtypes, re-exported) that numpy saves as `'<V2'`,
//!   `'<V1'` or `'<f1'`, read back through a hint ([`ReadOptions::hint`], or the requested type:
//!   [`half::bf16`], [`Float8E4M3Fn`](crate::element::Float8E4M3Fn), …).
//! - [`literal`] is the Python-literal codec the header uses; [`ArrayMeta`](crate::read::ArrayMeta)
//!   is what every reader, view, map and array knows about its array.
//! - [`NpyAppender`] grows a file along its growth axis in place and crash-safe, under a file
//!   lock; `NpyMmapMut` (feature `mmap`) creates a sparse file and fills it in place.
//! - Object arrays (`|O`) hold a pickle of Python values, which is not the format: the crate
//!   npy-pickle owns Python's object model (`npy_pickle::PyObject`), its `repr` and the
//!   interpreter. npy-core has only the hook it plugs into: [`ObjectCodec`](crate::dynamic::ObjectCodec)
//!   (given to [`NpyReader::read_dyn_using`]) and [`ObjectValue`](crate::dynamic::ObjectValue),
//!   what a [`DynValue::Object`] holds, opaque here.
//!
//! The crate's layout, bottom layer first, and the path from bytes to values are in
//! `ARCHITECTURE.md` beside this crate's `Cargo.toml`.
//!
//! # Untrusted input
//!
//! A `.npy` file from a stranger can be read with this crate. What reading one (header
//! parsing, [`read`](fn@crate::read), [`read_dyn`], [`NpyReader`], [`NpyView`], [`TensorInfo`])
//! guarantees, whatever the bytes:
//!
//! - **No panic, no undefined behaviour.** Every malformed input is an [`Error`]. The crate is
//!   `#![deny(unsafe_code)]` except the memory map (see below; `mmap.rs`) and one
//!   `Vec::set_len` after an in-place field write in the header fast path (`dtype/descr.rs`);
//!   the huge-page hint its reads give large buffers is the crate npy-fs's one `unsafe` call
//!   (`madvise`, its `hugepage.rs`). Byte reinterpretation goes
//!   through bytemuck's checked casts and is run under Miri (`cargo xtask miri`). Fuzzed with
//!   cargo-fuzz (`fuzz/`) and tested with a hostile table and seeded mutations of every fixture
//!   (`tests/it/malformed.rs`, `tests/alloc_bound.rs`).
//! - **Bounded allocation.** Nothing is sized by what a header *claims*: data is allocated only
//!   once the file's length shows it exists (a stream of unknown length grows as bytes
//!   arrive), and a claim the file cannot back is [`ErrorKind::Truncated`] first. Peak memory is in
//!   proportion to the bytes the input actually holds:
//!   - the header: at most about 48 bytes per header byte (the literal tree; measured worst
//!     31×), so at most 768 MiB at the default 16 MiB header limit, far less for real headers;
//!   - typed reads: the Rust elements, at most [`MAX_EXPANSION`](crate::read::MAX_EXPANSION) bytes per data byte plus
//!     [`MAX_UNBACKED_BYTES`](crate::read::MAX_UNBACKED_BYTES) for zero-size elements (`f32` from `<f4` is exactly 1×), plus a
//!     64 KiB decode chunk; views and memory maps allocate nothing for the data;
//!   - [`read_dyn`]: the data's bytes in columns (padding included, nothing per element) plus
//!     a 1 MiB read chunk; the [`DynValue`] trees of its elements, built when asked for, at
//!     most [`MAX_DYN_EXPANSION`](crate::dynamic::MAX_DYN_EXPANSION) bytes per data byte plus [`DYN_ALLOWANCE`](crate::dynamic::DYN_ALLOWANCE) for all of them
//!     (checked at the read); elements over [`MAX_DYN_ITEMSIZE`](crate::dynamic::MAX_DYN_ITEMSIZE) are refused;
//!   - object arrays: npy-pickle's budget (`npy_pickle::PICKLE_BUDGET`, 128 MiB in all; its
//!     crate docs say what it counts).
//!
//!   Beyond these, [`ErrorKind::AllocationLimit`] before anything is allocated.
//! - **Time linear in the input.** The header parser is one left-to-right pass with no
//!   backtracking; repeated dict keys are found by hashing (`tests/it/header_time.rs` checks the
//!   worst constructs we found at the 16 MiB limit). Reading data is linear in the data.
//! - **Bounded stack.** Nesting deeper than [`literal::DEFAULT_MAX_DEPTH`] (128) levels is an
//!   error, not a stack overflow; 100,000 levels of any bracket fail at once (npy-pickle
//!   bounds a pickle's values the same way).
//! - **No code execution.** Object arrays (`|O`, anywhere in a record or subarray) hold
//!   pickles, which numpy loads by executing them. This crate never decodes them itself:
//!   [`read_dyn`] refuses them with [`ErrorKind::ObjectArray`], typed reads, views and maps
//!   refuse them from the header alone, and only [`NpyReader::read_dyn_using`] hands them to
//!   an [`ObjectCodec`](crate::dynamic::ObjectCodec): npy-pickle's never imports, calls or
//!   looks up anything (its crate docs list what it accepts). A file that *is* a pickle
//!   (`np.save` of a non-array) is [`NotNpy::Pickle`](crate::error::NotNpy::Pickle).
//!
//! ## Limits, and how to raise them
//!
//! | limit | default | where |
//! |---|---|---|
//! | header length | [`header::DEFAULT_MAX_HEADER_LEN`] (16 MiB; numpy: 10,000 bytes) | [`ReadOptions::max_header_len`] |
//! | literal nesting | [`literal::DEFAULT_MAX_DEPTH`] (128) | [`ReadOptions::max_depth`] |
//! | dimensions | [`header::MAX_DIMS`] (64, numpy's `NPY_MAXDIMS`) | fixed, as numpy |
//! | `S`/`U`/`V` itemsize | 2³¹ − 1 bytes (numpy keeps it in a C `int`) | fixed, as numpy |
//! | datetime multiplier | 2³¹ − 1 | fixed, as numpy |
//! | array bytes | dimensions, element count and shape × itemsize at most 2^63 − 1, numpy's `npy_intp` ([`ErrorKind::SizeOverflow`]) | fixed |
//! | typed read memory | [`MAX_EXPANSION`](crate::read::MAX_EXPANSION) × data + [`MAX_UNBACKED_BYTES`](crate::read::MAX_UNBACKED_BYTES) | fixed; read in parts with [`NpyReader::read_into`] or [`NpyReader::iter`] |
//! | zero-size values in `read_dyn` | counted in the tree; elements of no bytes: [`DYN_ALLOWANCE`](crate::dynamic::DYN_ALLOWANCE) | fixed |
//! | `read_dyn` element | [`MAX_DYN_ITEMSIZE`](crate::dynamic::MAX_DYN_ITEMSIZE) (1 GiB) | fixed; use typed reads or views |
//! | `read_dyn` trees (all elements) | [`MAX_DYN_EXPANSION`](crate::dynamic::MAX_DYN_EXPANSION) × data + [`DYN_ALLOWANCE`](crate::dynamic::DYN_ALLOWANCE) | fixed; use typed reads or views |
//! | object-array pickles | npy-pickle's `PickleLimits` (128 MiB, 128 levels) | `npy_pickle::PickleCodec::with_limits` |
//!
//! Pass [`ReadOptions`] to [`read_with`](crate::read::read_with), [`Header::read_with`], [`NpyReader::with_options`],
//! [`NpyReader::open_with`], [`NpyView::with_options`] or [`TensorInfo::from_reader_with`]. The
//! same options carry the two data choices: [`ReadOptions::strict_bools`] (refuse `b1` bytes
//! other than 0 and 1, which numpy reads as `True`) and [`ReadOptions::casting`] (widening
//! typed reads, numpy's safe casts). Raising the header limit
//! raises the header's share of memory with it (about 48 bytes per byte of the new limit).
//!
//! ## Not guaranteed
//!
//! - **Memory maps of files changed while mapped.** `NpyMmap` and `NpyMmapMut` (feature `mmap`)
//!   borrow the file's pages: another process truncating the file
//!   makes the next access fault (`SIGBUS`), and one writing to it changes values under a
//!   shared reference, which Rust's rules do not allow. So, as memmap2's `Mmap::map`, they are
//!   `unsafe` to call: the caller promises nobody else writes the file while it is mapped.
//!   Read untrusted files that may change with [`read`](fn@crate::read) or [`NpyReader`] instead.
//! - **The values themselves.** A valid file can hold anything its dtype allows: NaNs,
//!   infinities, NaT, huge or negative numbers, strings with control characters or lone
//!   surrogates ([`UcsString`](crate::dynamic::UcsString)), shapes that do not match what the caller expects. Check
//!   values and shapes before trusting them (as indices, sizes, file names, ...).
//! - **Memory in proportion is still memory.** A 10 GB file reads into 10 GB; limit the size
//!   of files you accept, or read them in parts.
//! - **Other formats.** `.npz` archives are read by the crate `npy-npz` (its own guarantees
//!   are listed there); the `.npy` entry points recognise one ([`NotNpy::Npz`](crate::error::NotNpy::Npz)) and point
//!   there.
//!
//! # From async code (tokio and other runtimes)
//!
//! The crate's I/O is blocking (files, memory maps, `std::io::Read`), and it has no async
//! dependency. From a task of an async runtime, either run the read on the runtime's blocking
//! pool (`spawn_blocking`), or read the bytes with the runtime's own I/O and parse them in
//! memory, which does no I/O at all ([`NpyReader::new`] over a slice, [`view_or_copy`](crate::view::view_or_copy),
//! `npy_npz::NpzArchive::new` over the bytes):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let path = std::env::temp_dir().join(format!("npy-core-async-{}.npy", std::process::id()));
//! # npy_core::write(&path, &[1.0f32, 2.0, 3.0], &[3])?;
//! // 1. The blocking read, on tokio's blocking pool.
//! let p = path.clone();
//! let a = tokio::task::spawn_blocking(move || npy_core::read::<f32>(p)).await??;
//! // 2. The file's bytes read asynchronously, then parsed in memory.
//! let bytes = tokio::fs::read(&path).await?;
//! let b = npy_core::NpyReader::new(&bytes[..])?.read_vec::<f32>()?;
//! assert_eq!(a.data(), b);
//! # std::fs::remove_file(&path)?;
//! # Ok(()) }
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod codec;
pub mod dtype;
pub mod dynamic;
pub mod element;
pub mod error;
pub mod format;
pub mod header;
mod info;
mod io;
#[cfg(test)]
mod layers;
pub mod literal;
mod meta;
#[cfg(feature = "mmap")]
mod mmap;
#[cfg(feature = "ndarray")]
mod ndarray;
pub mod read;
mod records;
#[cfg(feature = "serde")]
mod serde_impls;
pub mod view;
pub mod write;

/// bytemuck, whose `Pod` a `#[npy(pod)]` record implements and whose `CheckedBitPattern`
/// bounds the element types of views and maps; re-exported so that bounds in users' code and
/// compiler messages name one path.
pub use bytemuck;
/// half, whose `f16` is numpy's float16 and `bf16` ml_dtypes' bfloat16 (element types of this
/// crate); re-exported so that users' code names the version this crate implements them for.
pub use half;
pub use num_complex;

#[cfg(feature = "ndarray")]
pub use crate::ndarray::{read_ndarray, read_ndarray_with, write_ndarray};
pub use dtype::DType;
pub use dynamic::{read_dyn, write_dyn, DynArray, DynValue};
pub use element::{Datetime64, NpyElement};
pub use error::{Error, ErrorKind};
pub use format::{ByteOrder, MemoryOrder};
pub use header::Header;
pub use info::TensorInfo;
pub use io::ReadAt;
#[cfg(feature = "mmap")]
pub use mmap::{NpyMmap, NpyMmapMut};
#[cfg(feature = "derive")]
pub use npy_derive::NpyElement;
pub use read::{read, NpyArray, NpyReader, ReadOptions};

/// Not public API: the pieces `#[derive(NpyElement)]`'s generated code and the workspace's own
/// crates use (record plans, the plain-data layout proof, byte order, the Python-literal
/// writers, the readers' buffer sizes, what the printer npy-print decodes and lays out
/// with). Anything here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::codec::Endian;
    /// For npy-convert: the copy budget and byte-swapping it shares with the reader.
    pub use crate::codec::{per_chunk, saturating_product, swap_in_place, COPY_CHUNK_BYTES};
    /// For npy-pickle: the dynamic codec's decoders and encoders its interpreter and pickler use.
    pub use crate::dynamic::object::internals as objects;
    /// For npy-print: a typed array's elements decoded one at a time as [`DynValue`](crate::DynValue)s.
    pub use crate::dynamic::ElementDecoder;
    pub use crate::element::{PodLayout, Widening};
    /// For npy-print: the shortest round-trip digits engine `write_repr_float` also uses.
    pub use crate::literal::digits::{scalar_str, Digits, FloatKind};
    pub use crate::literal::repr::{
        write_repr_bytes, write_repr_code_points, write_repr_float, write_repr_str,
    };
    /// For npy-object-store and npy-npz: the budgets and plumbing of positional reads.
    pub use crate::read::positional::{
        header_extent, FetchedRange, SourceCursor, FIRST_READ_BYTES, MAX_WINDOW_BYTES,
        READ_AHEAD_BYTES,
    };
    pub use crate::read::{FILE_BUFFER_BYTES, PARALLEL_MIN_BYTES};
    pub use crate::records::__private::*;
    pub use crate::records::{FieldPlan, RecordPlan};
    /// For npy-serde: the markers its deserializer shares with npy-core's `Deserialize` impls.
    #[cfg(feature = "serde")]
    pub use crate::serde_impls::{TUPLE_KEY, VALUE_TOKEN};

    use crate::{DynArray, DynValue, Error, NpyAppender};

    /// For npy-print: element `i` of `array` in memory order, borrowed where the array holds
    /// it as a value (objects are never copied to be printed), else built.
    pub fn dyn_element(array: &DynArray, i: usize) -> Option<std::borrow::Cow<'_, DynValue>> {
        array.element_cow(i)
    }

    /// For npy-convert's `append_files`: grows `appender`'s growth axis by `added` rows,
    /// `write_data` writing exactly their data bytes, as [`NpyAppender::append`](crate::NpyAppender::append)
    /// does (in place, or by an atomic rewrite when the header has no room).
    pub fn grow_appender(
        appender: &mut NpyAppender,
        added: u64,
        write_data: impl FnOnce(&mut dyn std::io::Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        appender.grow(added, write_data)
    }
}

pub use view::NpyView;
pub use write::{append, write, NpyAppender, StreamWriter, WriteOptions};
