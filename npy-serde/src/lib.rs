//! A serde data format for Python literals: the syntax of a NumPy `.npy` header dict.
//!
//! numpy writes a header with Python's `repr` and reads it with `ast.literal_eval`. This crate
//! maps serde's data model onto that literal subset, so any `Serialize` type can be written as
//! the text numpy writes and any `Deserialize` type read from the text numpy reads:
//!
//! | Python | Rust (serde) |
//! |---|---|
//! | `dict` `{'a': 1}` | map, struct; struct and map keys in insertion order |
//! | `tuple` `(1, 2)`, `(1,)`, `()` | tuple, tuple struct; also readable as a seq (`Vec`) |
//! | `list` `[1, 2]` | seq; also readable as a tuple |
//! | `str` `'a'` | `str`, `String`, `char` |
//! | `int` `3` | integers: the full `i64` and `u64` (and `i128`) range; out of the target type's range is a data error |
//! | `float` `1.0`, `1e+16` | `f32`, `f64`, written as Python's `repr` |
//! | `True` / `False` | `bool` |
//! | `None` | `Option::None`, `()`, unit structs |
//! | `bytes` `b'ab'` | serde bytes (`serde_bytes`, `Value::Bytes`) |
//! | `'Variant'` | a unit enum variant |
//! | `{'Variant': value}` | any other enum variant: a dict with the variant name as its one key |
//!
//! Floats: Python's `repr` writes infinity and NaN as `inf` and `nan`, which are names rather
//! than literals (`ast.literal_eval('inf')` fails), so serialising a non-finite float is a
//! [`Category::Data`] error by default; [`Serializer::non_finite_as_repr`] writes them anyway.
//!
//! Reading parses the text with [`npy_core::literal`] (the codec npy-core's header reader uses)
//! into a [`Value`], then drives the `Deserialize` impl over it; writing writes `repr` directly
//! with that module's helpers. Either way the text is exactly what Python's `repr` writes:
//! serialising numpy's header fields gives numpy's header dict.
//!
//! # Examples
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Header {
//!     descr: String,
//!     fortran_order: bool,
//!     shape: (u64, u64),
//! }
//!
//! let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64), }";
//! let h: Header = npy_serde::from_str(text)?;
//! assert_eq!(h.shape, (4, 64));
//! assert_eq!(
//!     npy_serde::to_string(&h)?,
//!     "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 64)}"
//! );
//!
//! // npy-core's own types implement serde (feature `serde`), in the same shape.
//! let header: npy_core::Header = npy_serde::from_str(text)?;
//! assert_eq!(npy_serde::to_string(&header)?, npy_serde::to_string(&h)?);
//! # Ok::<(), npy_serde::Error>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod de;
mod error;
mod ser;

pub use de::{from_reader, from_slice, from_str, from_str_with, from_value};
pub use error::{Category, Error, Result};
pub use npy_core::literal::Value;
pub use ser::{to_string, to_vec, to_writer, Compound, Serializer};
