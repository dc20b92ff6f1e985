//! `cargo xtask interop`: numpy reads what our writer writes, and our bytes are numpy's.
//!
//! For every top-level fixture in `fixtures/` whose dtype has a typed Rust element (bool,
//! integers, `f2`/`f4`/`f8`, `c8`/`c16`, datetime64/timedelta64 with multiplier 1, `S`, `U`),
//! the values are read with npy-core's typed reader and written back with its slice writer
//! (same memory order, byte order and dtype) into `<target>/interop/`; C-order fixtures with at
//! least one dimension are also written row by row with the streaming writer
//! (`stream_<name>`); fixtures of two or more dimensions are also written from an ndarray array
//! of the *other* memory layout with `WriteOptions::order` set to the fixture's order
//! (`nd_<name>`), so the order option's reordering path must produce numpy's bytes. Then
//! `xtask/interop.py` (numpy 2.4.6) `np.load`s each file and compares
//! dtype, shape, fortran_order and values with `np.load` of the fixture, and compares the bytes.
//!
//! Fixtures whose dtype has no typed element (records `rec_*`, void `V6`, longdouble and
//! clongdouble `f16`/`c32`, `m8[10ms]` with a unit multiplier) go through the dynamic path
//! instead: `read_dyn`, then `write_dyn`.

use std::fs;
use std::path::{Path, PathBuf};

use ndarray::ArrayD;
use npy_core::element::units;
use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{
    DType, Datetime64, NpyArray, NpyElement, NpyReader, Order, Primitive, TimeKind, TimeUnit,
    Timedelta64, WriteOptions,
};

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

    let written = write_all(&fixtures_dir(), &out_dir)?;
    let pairs_file = out_dir.join("pairs.tsv");
    let mut pairs = String::new();
    for (ours, original) in &written.pairs {
        pairs.push_str(&format!("{}\t{}\n", ours.display(), original.display()));
    }
    fs::write(&pairs_file, pairs)
        .map_err(|e| format!("cannot write {}: {e}", pairs_file.display()))?;
    eprintln!(
        "xtask: wrote {} files ({} by the streaming writer, {} from ndarray arrays of the other \
         layout) into {}",
        written.pairs.len(),
        written.streamed,
        written.reordered,
        out_dir.display()
    );
    if !written.skipped.is_empty() {
        eprintln!(
            "xtask: {} fixtures without a typed element went through read_dyn/write_dyn: {}",
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
    /// How many of the pairs came from an ndarray array of the other layout.
    pub reordered: usize,
    /// Fixture names without a typed element, written through `read_dyn`/`write_dyn`.
    pub skipped: Vec<String>,
}

/// Writes our version of every simple-dtype fixture in `fixtures` into `out_dir`.
pub fn write_all(fixtures: &Path, out_dir: &Path) -> Result<Written, String> {
    let mut names: Vec<String> = fs::read_dir(fixtures)
        .map_err(|e| format!("cannot list {}: {e}", fixtures.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".npy"))
        .collect();
    names.sort();
    let mut written = Written::default();
    for name in names {
        let src = fixtures.join(&name);
        let reader = NpyReader::open(&src).map_err(|e| format!("{name}: {e}"))?;
        let dtype = reader.dtype().clone();
        let c_rows = reader.order() == Order::C && !reader.shape().is_empty();
        let two_dims = reader.shape().len() >= 2;
        drop(reader);
        let job = WriteBack {
            src: &src,
            dtype: &dtype,
            dst: &out_dir.join(&name),
            stream_dst: c_rows.then(|| out_dir.join(format!("stream_{name}"))),
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
            Some(Ok((streamed, nd))) => {
                written.pairs.push((out_dir.join(&name), src.clone()));
                if streamed {
                    written
                        .pairs
                        .push((out_dir.join(format!("stream_{name}")), src.clone()));
                    written.streamed += 1;
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

/// Something done with the Rust element type of a dtype.
trait Visitor {
    type Out;
    fn visit<T: NpyElement + Clone>(self) -> Self::Out;
}

/// Reads a fixture typed, writes it back, and streams it row by row when it is C order.
struct WriteBack<'a> {
    src: &'a Path,
    dtype: &'a DType,
    dst: &'a Path,
    stream_dst: Option<PathBuf>,
    nd_dst: Option<PathBuf>,
}

impl Visitor for WriteBack<'_> {
    /// Whether a streamed file and an ndarray file were written too.
    type Out = Result<(bool, bool), npy_core::Error>;

    fn visit<T: NpyElement + Clone>(self) -> Self::Out {
        let a = npy_core::read::<T>(self.src)?;
        let mut options = WriteOptions::new()
            .order(a.order())
            .byte_order(self.dtype.byte_order());
        if T::npy_dtype().itemsize() == 0 {
            // Variable-width strings: the fixture's width, not the longest value's.
            options = options.dtype(self.dtype.clone());
        }
        options.write_path(self.dst, a.data(), a.shape())?;
        if let Some(nd_dst) = &self.nd_dst {
            // The same logical array in the other memory layout, written in the fixture's order.
            let c_data = a.clone().into_c_order_vec();
            let logical: ArrayD<T> =
                NpyArray::from_parts(a.shape().to_vec(), Order::C, c_data)?.into_ndarray()?;
            let other = match a.order() {
                Order::C => logical
                    .t()
                    .as_standard_layout()
                    .into_owned()
                    .reversed_axes(),
                Order::Fortran => logical,
            };
            options.write_ndarray_path(nd_dst, &other)?;
        }
        let nd = self.nd_dst.is_some();
        let Some(stream_dst) = self.stream_dst else {
            return Ok((false, nd));
        };
        let row_shape = &a.shape()[1..];
        let row_len = usize::try_from(row_shape.iter().product::<u64>()).unwrap_or(usize::MAX);
        let mut w = options.create_stream::<T>(&stream_dst, row_shape)?;
        for r in 0..a.shape()[0] as usize {
            w.push_row(&a.data()[r * row_len..(r + 1) * row_len])?;
        }
        w.finish()?;
        Ok((true, nd))
    }
}

/// Calls `v.visit::<T>()` with the element type for `dtype`; `None` when there is none.
fn dispatch<V: Visitor>(dtype: &DType, v: V) -> Option<V::Out> {
    use Primitive as P;
    Some(match dtype {
        DType::Number(p, _) => match p {
            P::Bool => v.visit::<bool>(),
            P::I8 => v.visit::<i8>(),
            P::I16 => v.visit::<i16>(),
            P::I32 => v.visit::<i32>(),
            P::I64 => v.visit::<i64>(),
            P::U8 => v.visit::<u8>(),
            P::U16 => v.visit::<u16>(),
            P::U32 => v.visit::<u32>(),
            P::U64 => v.visit::<u64>(),
            P::F16 => v.visit::<f16>(),
            P::F32 => v.visit::<f32>(),
            P::F64 => v.visit::<f64>(),
            P::C64 => v.visit::<Complex<f32>>(),
            P::C128 => v.visit::<Complex<f64>>(),
            _ => return None,
        },
        DType::Time(t, _) if t.multiplier == 1 => {
            macro_rules! units {
                ($($variant:ident => $u:ident),*) => {
                    match (t.kind, t.unit) {
                        $(
                            (TimeKind::Datetime, TimeUnit::$variant) => {
                                v.visit::<Datetime64<units::$u>>()
                            }
                            (TimeKind::Timedelta, TimeUnit::$variant) => {
                                v.visit::<Timedelta64<units::$u>>()
                            }
                        )*
                    }
                };
            }
            units!(
                Generic => Generic, Year => Y, Month => Mo, Week => W, Day => D, Hour => H,
                Minute => Min, Second => S, Millisecond => Ms, Microsecond => Us,
                Nanosecond => Ns, Picosecond => Ps, Femtosecond => Fs, Attosecond => As
            )
        }
        DType::Bytes(_) => v.visit::<Vec<u8>>(),
        DType::Unicode(..) => v.visit::<String>(),
        _ => return None,
    })
}
