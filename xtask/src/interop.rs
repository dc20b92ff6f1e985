//! `cargo xtask interop`: numpy reads what our writer writes, and our bytes are numpy's.
//!
//! For every top-level fixture in `fixtures/` whose dtype has a typed Rust element (bool,
//! integers, `f2`/`f4`/`f8`, `c8`/`c16`, datetime64/timedelta64 with multiplier 1, `S`, `U`),
//! the values are read with npy-core's typed reader and written back with its slice writer
//! (same memory order, byte order and dtype) into `<target>/interop/`; C-order fixtures with at
//! least one dimension are also written row by row with the streaming writer
//! (`stream_<name>`), and fixtures with at least one dimension are rebuilt by appends: the
//! first slice along the growth axis (the first axis in C order, the last in Fortran order)
//! with the slice writer, then every other slice with `npy_core::append` (`append_<name>`).
//! Native-order number and bool fixtures are also created with `NpyMmapMut::create` and filled
//! (`memmap_<name>`), which `interop.py` compares with numpy's `open_memmap(mode='w+')` file
//! of the same values. Fixtures of two or more dimensions are also written from an ndarray
//! array of the *other* memory layout with `WriteOptions::order` set to the fixture's order
//! (`nd_<name>`), so the order option's reordering path must produce numpy's bytes. Then
//! `xtask/interop.py` (numpy 2.4.6) `np.load`s each file and compares
//! dtype, shape, `fortran_order` and values with `np.load` of the fixture, and compares the bytes.
//!
//! Fixtures whose dtype has no typed element (records `rec_*`, void `V6`, longdouble and
//! clongdouble `f16`/`c32`, `m8[10ms]` with a unit multiplier) go through the dynamic path
//! instead: `read_dyn`, then `write_dyn`.
//!
//! Object arrays (`fixtures/object/`, dtype `|O`) go through `read_dyn` and `write_dyn` too
//! (npy-pickle's reader and writer, `object/<name>`); numpy loads ours with
//! `allow_pickle=True` and compares the values with the fixture's, type for type, and the bytes
//! where the fixture's manifest says numpy's bytes are reproducible. Fixtures holding values
//! the writer does not write (arrays of records inside the array) and records with object
//! fields are listed as skipped.

use std::fs;
use std::path::{Path, PathBuf};

use ndarray::ArrayD;
use npy_core::bytemuck::{CheckedBitPattern, NoUninit};
use npy_core::num_complex::Complex;
use npy_core::{
    dtype::Primitive, DType, MemoryOrder, NpyArray, NpyElement, NpyMmapMut, NpyReader, WriteOptions,
};
use npy_test_support::{dispatch, Elem, Visitor};

use crate::fixtures::fixtures_dir;
use crate::python::numpy_python;
use crate::target_dir;

pub mod show;

/// Entry point of the `interop` subcommand: the fixtures written back, then [`show::run`].
pub fn run(flags: &crate::flags::Interop) -> Result<(), String> {
    if !flags.show_only {
        write_back()?;
    }
    show::run(flags.seed, flags.count)
}

/// Our writers' files against numpy's fixtures (see the module docs).
fn write_back() -> Result<(), String> {
    let out_dir = target_dir().join("interop");
    if out_dir.exists() {
        fs::remove_dir_all(&out_dir)
            .map_err(|e| format!("cannot remove {}: {e}", out_dir.display()))?;
    }
    fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    let mut written = write_all(&fixtures_dir(), &out_dir)?;
    let objects = write_objects(&fixtures_dir().join("object"), &out_dir.join("object"))?;
    written.pairs.extend(objects.pairs);
    written.skipped.extend(objects.skipped);
    let archives =
        crate::interop_npz::write_archives(&fixtures_dir().join("npz"), &out_dir.join("npz"))?;
    written.pairs.extend(archives);
    let pairs_file = out_dir.join("pairs.tsv");
    let mut pairs = String::new();
    for (ours, original) in &written.pairs {
        pairs.push_str(&format!("{}\t{}\n", ours.display(), original.display()));
    }
    fs::write(&pairs_file, pairs)
        .map_err(|e| format!("cannot write {}: {e}", pairs_file.display()))?;
    eprintln!(
        "xtask: wrote {} files ({} by the streaming writer, {} by appends, {} as filled maps, \
         {} from ndarray arrays of the other layout) into {}",
        written.pairs.len(),
        written.streamed,
        written.appended,
        written.mapped,
        written.reordered,
        out_dir.display()
    );
    if !written.skipped.is_empty() {
        eprintln!(
            "xtask: {} fixtures without a typed element went through read_dyn/write_dyn, or were skipped: {}",
            written.skipped.len(),
            written.skipped.join(", ")
        );
    }

    crate::python::run_script(&numpy_python()?, "interop.py", [&pairs_file])
}

/// What [`write_all`] produced.
#[derive(Debug, Default)]
pub struct Written {
    /// `(our file, numpy's fixture)`.
    pub pairs: Vec<(PathBuf, PathBuf)>,
    /// How many of the pairs came from the streaming writer.
    pub streamed: usize,
    /// How many of the pairs were rebuilt by appends.
    pub appended: usize,
    /// How many of the pairs were created as writable maps and filled.
    pub mapped: usize,
    /// How many of the pairs came from an ndarray array of the other layout.
    pub reordered: usize,
    /// Fixture names without a typed element, written through `read_dyn`/`write_dyn`.
    pub skipped: Vec<String>,
}

/// Writes our version of every simple-dtype fixture in `fixtures` into `out_dir`.
pub fn write_all(fixtures: &Path, out_dir: &Path) -> Result<Written, String> {
    let names = sorted_names(fixtures, ".npy")?;
    let mut written = Written::default();
    for name in names {
        let src = fixtures.join(&name);
        let reader = NpyReader::open(&src).map_err(|e| format!("{name}: {e}"))?;
        let dtype = reader.dtype().clone();
        let c_rows = reader.order() == MemoryOrder::C && !reader.shape().is_empty();
        let has_axis = !reader.shape().is_empty();
        let two_dims = reader.shape().len() >= 2;
        drop(reader);
        let job = WriteBack {
            src: &src,
            dtype: &dtype,
            dst: &out_dir.join(&name),
            stream_dst: c_rows.then(|| out_dir.join(format!("stream_{name}"))),
            append_dst: has_axis.then(|| out_dir.join(format!("append_{name}"))),
            nd_dst: two_dims.then(|| out_dir.join(format!("nd_{name}"))),
        };
        match dispatch(&dtype, job) {
            None => {
                let array = npy_core::read_dyn(&src).map_err(|e| format!("{name}: {e}"))?;
                npy_core::write_dyn(out_dir.join(&name), &array)
                    .map_err(|e| format!("{name}: {e}"))?;
                written.pairs.push((out_dir.join(&name), src.clone()));
                written.skipped.push(name);
            }
            Some(Err(e)) => return Err(format!("{name}: {e}")),
            Some(Ok((streamed, appended, nd))) => {
                written.pairs.push((out_dir.join(&name), src.clone()));
                let memmap_dst = out_dir.join(format!("memmap_{name}"));
                if create_and_fill(&dtype, &src, &memmap_dst).map_err(|e| format!("{name}: {e}"))? {
                    written.pairs.push((memmap_dst, src.clone()));
                    written.mapped += 1;
                }
                if streamed {
                    written
                        .pairs
                        .push((out_dir.join(format!("stream_{name}")), src.clone()));
                    written.streamed += 1;
                }
                if appended {
                    written
                        .pairs
                        .push((out_dir.join(format!("append_{name}")), src.clone()));
                    written.appended += 1;
                }
                if nd {
                    written
                        .pairs
                        .push((out_dir.join(format!("nd_{name}")), src.clone()));
                    written.reordered += 1;
                }
            }
        }
    }
    Ok(written)
}

/// Writes our version of every object array (`|O`) in `fixtures` (`fixtures/object/`) into
/// `out_dir` with `read_dyn` and `write_dyn`; those the writer refuses are `skipped`.
pub fn write_objects(fixtures: &Path, out_dir: &Path) -> Result<Written, String> {
    fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let names = sorted_names(fixtures, ".npy")?;
    let mut written = Written::default();
    for name in names {
        let src = fixtures.join(&name);
        let array = npy_pickle::read_dyn(&src).map_err(|e| format!("object/{name}: {e}"))?;
        let dst = out_dir.join(&name);
        if *array.dtype() != DType::Object {
            written.skipped.push(format!("object/{name} (record)"));
            continue;
        }
        match npy_pickle::write_dyn(&dst, &array) {
            Ok(()) => written.pairs.push((dst, src)),
            Err(e) => match npy_pickle::PickleError::of(&e) {
                Some(p) => written.skipped.push(format!("object/{name} ({p})")),
                None => return Err(format!("object/{name}: {e}")),
            },
        }
    }
    Ok(written)
}

/// The names of the files in `dir` ending in `suffix`, sorted.
pub fn sorted_names(dir: &Path, suffix: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    names.sort();
    Ok(names)
}

/// Reads a fixture typed, writes it back, streams it row by row when it is C order, and
/// rebuilds it by appends when it has a dimension.
struct WriteBack<'a> {
    src: &'a Path,
    dtype: &'a DType,
    dst: &'a Path,
    stream_dst: Option<PathBuf>,
    append_dst: Option<PathBuf>,
    nd_dst: Option<PathBuf>,
}

impl Visitor for WriteBack<'_> {
    /// Whether a streamed file, an appended one and an ndarray file were written too.
    type Out = Result<(bool, bool, bool), npy_core::Error>;

    fn visit<T: Elem>(self) -> Self::Out {
        let a = npy_core::read::<T>(self.src)?;
        let mut options = WriteOptions::new()
            .order(a.order())
            .byte_order(self.dtype.byte_order());
        if T::npy_dtype().itemsize() == 0 {
            // Variable-width strings: the fixture's width, not the longest value's.
            options = options.dtype(self.dtype.clone());
        }
        options.write_path(self.dst, a.data(), a.shape())?;
        let appended = match &self.append_dst {
            Some(dst) => {
                rebuild_by_appends(&options, dst, a.data(), a.shape(), a.order())?;
                true
            }
            None => false,
        };
        if let Some(nd_dst) = &self.nd_dst {
            // The same logical array in the other memory layout, written in the fixture's order.
            let c_data = a.clone().into_c_order_vec();
            let logical: ArrayD<T> =
                NpyArray::from_parts(a.shape().to_vec(), MemoryOrder::C, c_data)?.into_ndarray()?;
            let other = match a.order() {
                MemoryOrder::C => logical
                    .t()
                    .as_standard_layout()
                    .into_owned()
                    .reversed_axes(),
                MemoryOrder::Fortran => logical,
            };
            options.write_ndarray_path(nd_dst, &other)?;
        }
        let nd = self.nd_dst.is_some();
        let Some(stream_dst) = self.stream_dst else {
            return Ok((false, appended, nd));
        };
        let row_shape = &a.shape()[1..];
        let row_len = usize::try_from(row_shape.iter().product::<u64>()).unwrap_or(usize::MAX);
        let mut w = options.create_stream::<T>(&stream_dst, row_shape)?;
        for r in 0..a.shape()[0] as usize {
            w.push_row(&a.data()[r * row_len..(r + 1) * row_len])?;
        }
        w.finish()?;
        Ok((true, appended, nd))
    }
}

/// Writes the first slice of `data` along the growth axis to `dst`, then appends the others
/// one at a time (each through its own `NpyAppender`, as separate runs of a program would).
fn rebuild_by_appends<T: NpyElement>(
    options: &WriteOptions,
    dst: &Path,
    data: &[T],
    shape: &[u64],
    order: MemoryOrder,
) -> Result<(), npy_core::Error> {
    let axis = if order == MemoryOrder::Fortran {
        shape.len() - 1
    } else {
        0
    };
    let mut one = shape.to_vec();
    one[axis] = shape[axis].min(1);
    let per = usize::try_from(one.iter().product::<u64>()).unwrap_or(usize::MAX);
    let first = per.min(data.len());
    options.write_path(dst, &data[..first], &one)?;
    one[axis] = 1;
    for i in 1..shape[axis] as usize {
        npy_core::append(dst, &data[i * per..(i + 1) * per], &one)?;
    }
    Ok(())
}

/// Creates `dst` as a writable map of `src`'s dtype, shape and order and fills it with `src`'s
/// values, for native-order numbers and bool; `false` for other dtypes.
fn create_and_fill(dtype: &DType, src: &Path, dst: &Path) -> Result<bool, npy_core::Error> {
    fn fill<T: NpyElement + CheckedBitPattern + NoUninit + Clone>(
        src: &Path,
        dst: &Path,
    ) -> Result<bool, npy_core::Error> {
        let a = npy_core::read::<T>(src)?;
        // SAFETY: a new file of this run's output folder, touched only through this map.
        let mut m = unsafe { NpyMmapMut::<T>::create(dst, a.shape(), a.order())? };
        m.data_mut().clone_from_slice(a.data());
        m.flush()?;
        Ok(true)
    }
    use Primitive as P;
    let DType::Number(p, order) = dtype else {
        return Ok(false);
    };
    if order.needs_swap() {
        return Ok(false);
    }
    match p {
        P::Bool => fill::<bool>(src, dst),
        P::I8 => fill::<i8>(src, dst),
        P::I16 => fill::<i16>(src, dst),
        P::I32 => fill::<i32>(src, dst),
        P::I64 => fill::<i64>(src, dst),
        P::U8 => fill::<u8>(src, dst),
        P::U16 => fill::<u16>(src, dst),
        P::U32 => fill::<u32>(src, dst),
        P::U64 => fill::<u64>(src, dst),
        P::F32 => fill::<f32>(src, dst),
        P::F64 => fill::<f64>(src, dst),
        P::C64 => fill::<Complex<f32>>(src, dst),
        P::C128 => fill::<Complex<f64>>(src, dst),
        _ => Ok(false),
    }
}
