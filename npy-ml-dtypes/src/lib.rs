//! The number formats of the Python package [ml_dtypes](https://github.com/jax-ml/ml-dtypes)
//! (JAX, TensorFlow, Keras), which numpy itself does not know: bfloat16, the float8, float6
//! and float4 kinds, int4/uint4/int2/uint2.
//!
//! [`MlType`] is the table of kinds: each one's name, width and numpy's view of it
//! ([`MlType::kind`], the descr [`MlType::type_str`] that `np.save` writes), and its encoding:
//! [`MlType::decode`] gives a code's exact value, [`MlType::encode`] the code ml_dtypes'
//! `astype` rounds a float64 to, [`MlType::format_code`] what `str()` of the scalar prints.
//! [`Float8E4M3Fn`] … [`UInt2`] are the one-byte element types, one per kind, plain data
//! ([`bytemuck::Pod`]) as ml_dtypes stores them. bfloat16 has no type here: it is the `half`
//! crate's `bf16` (npy-core re-exports it as `npy_core::half::bf16`).
//!
//! This crate knows nothing of `.npy` files: npy-core reads and writes these types (the
//! `DType::Ml` dtype, the hint that tells a reader the type np.save's descr lost) and
//! re-exports them as `npy_core::dtype::MlType` and `npy_core::element::Float8E4M3Fn`, ….
//!
//! # Where the rules come from
//! The encodings (each [`MlType`] variant's doc) follow ml_dtypes' `float8.h` and `intn.h` and
//! the Open Compute Project's FP8 (E4M3, E5M2) and MX (float6, float4, the E8M0 scale)
//! specifications. Where those leave a case open (NaN into a kind without one, values out of
//! an integer kind's range, the bits above a sub-byte kind's width), ml_dtypes 0.7.0 was
//! measured. The workspace's `fixtures/mltypes/` (`manifest.json`, `encode.json`), written by
//! numpy and ml_dtypes, holds ml_dtypes' value of every code of every kind and its rounding of
//! a sweep of floats; npy-core's tests (`tests/it/mltypes.rs`) compare [`MlType::decode`] and
//! [`MlType::encode`] with all of them.
//!
//! # Examples
//! ```
//! use npy_ml_dtypes::{Float8E4M3Fn, MlType};
//!
//! let x = Float8E4M3Fn::from_f64(0.3); // rounded to the nearest E4M3 value
//! assert_eq!((x.to_bits(), x.to_f64()), (0x2a, 0.3125));
//! assert_eq!(x.to_string(), "0.3125"); // as str() of the ml_dtypes scalar
//! assert!(Float8E4M3Fn::from_f64(1000.0).to_f64().is_nan()); // no infinity: NaN (1000 rounds past 448)
//!
//! let t = MlType::from_name("bfloat16").unwrap();
//! assert_eq!((t.encode(1.0), t.itemsize()), (0x3f80, 2));
//! assert_eq!(MlType::Int4.decode(0xf), -1.0);
//! ```

#![forbid(unsafe_code)]
#![allow(
    clippy::doc_markdown,
    reason = "ml_dtypes' type names (float8_e4m3fn, int4, …) are written as ml_dtypes spells them"
)]

mod kind;
mod scalar;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use kind::MlType;
pub use scalar::{
    Float4E2M1Fn, Float6E2M3Fn, Float6E3M2Fn, Float8E3M4, Float8E4M3, Float8E4M3B11FnUz,
    Float8E4M3Fn, Float8E4M3FnUz, Float8E5M2, Float8E5M2FnUz, Float8E8M0Fnu, Int2, Int4, UInt2,
    UInt4,
};
