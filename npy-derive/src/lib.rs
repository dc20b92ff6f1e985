//! `#[derive(NpyElement)]` for [`npy-core`](https://docs.rs/npy-core): Rust structs as NumPy
//! structured (record) dtypes.
//!
//! Use it through npy-core's `derive` feature (`npy_core::NpyElement` is both the trait and
//! this derive); the attributes and the reading rules are documented there.
//!
//! ```
//! use npy_core::NpyElement;
//!
//! #[derive(NpyElement, Debug, PartialEq)]
//! struct Point {
//!     x: f32,
//!     y: f32,
//!     id: i64,
//! }
//!
//! assert_eq!(
//!     Point::npy_dtype().to_string(),
//!     "[('x', '<f4'), ('y', '<f4'), ('id', '<i8')]"
//! );
//! ```
//!
//! The code lives in `attr.rs` (the `#[npy(...)]` attributes) and `expand.rs` (checks and the
//! generated impl).

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod attr;
mod expand;

use proc_macro::TokenStream;

/// Implements `npy_core::NpyElement` for a struct as a record dtype: fields by name, packed by
/// default, `#[npy(align)]` for numpy's `align=True` layout, `#[npy(pod)]` (on a `#[repr(C)]`
/// `bytemuck::Pod` struct) to read and write files of exactly its layout in bulk.
///
/// See `npy_core::NpyElement` (the derive's re-export) for the attributes.
#[proc_macro_derive(NpyElement, attributes(npy))]
pub fn derive_npy_element(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
