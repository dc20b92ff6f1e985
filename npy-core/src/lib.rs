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
#![forbid(unsafe_code)]

pub mod dtype;
pub mod element;
mod error;
pub mod header;
mod info;
pub mod literal;
mod read;
mod write;

pub use half;
pub use num_complex;

pub use dtype::{
    ByteOrder, Canonical, DType, Field, Primitive, Record, SubArray, TimeKind, TimeType, TimeUnit,
};
pub use element::{Datetime64, NpyElement, Timedelta64, NAT};
pub use error::{Error, NotNpy};
pub use header::{Header, ParsedHeader, ReadOptions, Version};
pub use info::{Order, TensorInfo};
pub use read::{read, Elements, NpyArray, NpyReader, MAX_ZERO_SIZE_ELEMENTS};
pub use write::{write, FileStreamWriter, PathStreamWriter, StreamWriter, WriteOptions};
