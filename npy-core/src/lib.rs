//! Read and write NumPy `.npy` files.
//!
//! A `.npy` file is `\x93NUMPY`, a format version (1.0, 2.0 or 3.0), a little-endian header
//! length, a Python-literal header dict `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }`
//! padded so the data starts at a multiple of 64 bytes, then the array bytes in C or Fortran
//! order (NEP 1; numpy's `numpy/lib/_format_impl.py` is the reference implementation).
//!
//! - [`Header`] reads and writes the header, byte for byte as `np.save` writes it.
//! - [`DType`] models every dtype a header can describe, records included.
//! - [`TensorInfo`] summarises a file from its header.
//! - [`literal`] is the Python-literal codec the header uses.
//!
//! # Examples
//! ```
//! use npy_core::TensorInfo;
//! # let dir = std::env::temp_dir().join(format!("npy-core-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("w_f32.npy");
//! # let mut bytes = npy_core::Header::new("<f4".parse()?, vec![4, 64]).to_bytes(None)?;
//! # bytes.resize(bytes.len() + 1024, 0);
//! # std::fs::write(&path, bytes)?;
//! let info = TensorInfo::from_path(&path)?;
//! assert_eq!(info.name, "w_f32");
//! assert_eq!(info.dtype.to_string(), "<f4");
//! assert_eq!(info.shape, [4, 64]);
//! assert_eq!(info.nbytes, 1024);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod convert;
pub mod dtype;
mod dyn_write;
mod dynamic;
pub mod element;
mod error;
mod fast_header;
pub mod header;
mod info;
pub mod literal;
#[cfg(feature = "mmap")]
mod mmap;
#[cfg(feature = "ndarray")]
mod ndarray;
mod read;
pub mod records;
#[cfg(feature = "serde")]
pub mod serde_impls;
mod view;
mod write;

pub use half;
pub use num_complex;

#[cfg(feature = "ndarray")]
pub use crate::ndarray::{read_ndarray, read_ndarray_dim, write_ndarray};
pub use convert::{convert_file, ConvertOptions};
pub use dtype::{
    ByteOrder, Canonical, DType, Field, Primitive, Record, SubArray, TimeKind, TimeType, TimeUnit,
};
pub use dyn_write::{write_dyn, write_dyn_to};
pub use dynamic::{
    read_dyn, COrderIter, DynArray, DynValue, UcsString, DYN_ALLOWANCE, MAX_DYN_EXPANSION,
    MAX_DYN_ITEMSIZE,
};
pub use element::{Datetime64, NpyElement, Timedelta64, NAT};
pub use error::{Error, NotNpy};
pub use header::{Header, ParsedHeader, ReadOptions, Version};
pub use info::{Order, TensorInfo};
#[cfg(feature = "mmap")]
pub use mmap::{mmap, NpyMmap};
/// `#[derive(NpyElement)]`: a struct as a numpy structured (record) dtype (feature `derive`).
///
/// Each field becomes a record field of the same name (`f0`, `f1`, ... for a tuple struct), in
/// declaration order, packed (numpy's default layout). Field types are any [`NpyElement`]:
/// numbers, `bool`, `f16`, complex, datetimes, fixed arrays `[T; N]` (subarray fields), other
/// derived structs (nested records), and `String` / `Vec<u8>` (`U` / `S` strings: give them a
/// width with `#[npy(width = N)]`, or let [`NpyElement::dtype_for`] take the longest value when
/// writing). Generic parameters get an `NpyElement` bound.
///
/// Reading matches fields **by name** (or title), as numpy's structured assignment does: the
/// file may order fields differently, hold extra fields (skipped), padding and per-field byte
/// orders. A missing field is [`Error::MissingField`] (listing the file's fields), a field of
/// another type [`Error::FieldType`].
///
/// Attributes:
/// - `#[npy(rename = "name")]` on a field: the record field's name.
/// - `#[npy(width = N)]` on a `String` / `Vec<u8>` field (or arrays of them): a fixed width.
/// - `#[npy(align)]` on the struct: numpy's `align=True` layout (each field at a multiple of
///   its alignment, the itemsize rounded up to the largest; the gaps are written as
///   `('', '|Vn')` padding and zeroed).
/// - `#[npy(crate = "path")]` on the struct: where `npy_core` is (default `::npy_core`).
///
/// Fields are written in the machine's byte order, as numpy does; for big-endian files use
/// [`WriteOptions::byte_order`], which applies to every field. Reading accepts any byte order,
/// per field.
///
/// # Examples
/// ```
/// use npy_core::{DType, NpyElement};
///
/// #[derive(NpyElement, Debug, PartialEq)]
/// #[npy(align)]
/// struct Sample {
///     flag: u8,
///     #[npy(rename = "value")]
///     v: i32,
///     pos: [f32; 2],
///     #[npy(width = 4)]
///     tag: String,
/// }
///
/// let descr = Sample::npy_dtype().to_string();
/// assert_eq!(
///     descr,
///     "[('flag', '|u1'), ('', '|V3'), ('value', '<i4'), ('pos', '<f4', (2,)), ('tag', '<U4')]"
/// );
///
/// let mut bytes = Vec::new();
/// let rows = [Sample { flag: 1, v: -7, pos: [0.5, 2.0], tag: "ab".into() }];
/// npy_core::WriteOptions::new().write_to(&mut bytes, &rows, &[1])?;
/// let back = npy_core::NpyReader::new(&bytes[..])?.read_vec::<Sample>()?;
/// assert_eq!(back, rows);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[cfg(feature = "derive")]
pub use npy_derive::NpyElement;
pub use read::{
    read, Elements, NpyArray, NpyReader, MAX_EXPANSION, MAX_UNBACKED_BYTES, MAX_ZERO_SIZE_ELEMENTS,
};
pub use records::{read_records, write_records};
pub use view::{view_or_copy, NpyView};
pub use write::{write, FileStreamWriter, PathStreamWriter, StreamWriter, WriteOptions};
