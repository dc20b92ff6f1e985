//! `#[derive(NpyElement)]` for [`npy-core`](https://docs.rs/npy-core): Rust structs as NumPy
//! structured (record) dtypes.
//!
//! Use it through npy-core's `derive` feature (`npy_core::NpyElement` is both the trait and
//! this derive); the attributes and the reading rules are documented on [`NpyElement`].
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

/// `#[derive(NpyElement)]`: a struct as a numpy structured (record) dtype (npy-core's feature `derive`).
///
/// Needs the `derive` feature (`npy-core = { version = "0.1", features = ["derive"] }`);
/// without it rustc says "cannot find derive macro `NpyElement` in this scope" (the trait of
/// the same name exists either way).
///
/// Each field becomes a record field of the same name (`f0`, `f1`, ... for a tuple struct), in
/// declaration order, packed (numpy's default layout). Field types are any `NpyElement`:
/// numbers, `bool`, `f16`, complex, datetimes, fixed arrays `[T; N]` (subarray fields), other
/// derived structs (nested records), and `String` / `Vec<u8>` (`U` / `S` strings: give them a
/// width with `#[npy(width = N)]`, or let `NpyElement::dtype_for` take the longest value when
/// writing). Generic parameters get an `NpyElement` bound.
///
/// Reading matches fields **by name** (or title), as numpy's structured assignment does: the
/// file may order fields differently, hold extra fields (skipped), padding and per-field byte
/// orders. A missing field is `ErrorKind::MissingField` (listing the file's fields), a field of
/// another type `ErrorKind::FieldType`.
///
/// Attributes:
/// - `#[npy(rename = "name")]` on a field: the record field's name.
/// - `#[npy(width = N)]` on a `String` / `Vec<u8>` field (or arrays of them): a fixed width.
/// - `#[npy(align)]` on the struct: numpy's `align=True` layout (each field at a multiple of
///   its alignment, the itemsize rounded up to the largest; the gaps are written as
///   `('', '|Vn')` padding and zeroed).
/// - `#[npy(crate = "path")]` on the struct: where `npy_core` is (default `::npy_core`).
/// - `#[npy(pod)]` on a `#[repr(C)]` struct that implements `bytemuck::Pod` (derive
///   `bytemuck::Pod, bytemuck::Zeroable, Clone, Copy`; Pod proves there is no padding): the
///   fast path. A file whose dtype is exactly the struct's (same fields, order, offsets and
///   itemsize, in the machine's byte order) is read with one `read` into the output and
///   written from the struct's memory, without per-field work, and can be viewed in place
///   (`NpyView`, `view::view_or_copy`). Any other file (fields reordered or added, another
///   byte order) is read field by field, as without the attribute. The derive checks at run
///   time that numpy's offsets of the fields are the Rust ones and that every field type's
///   memory is its dtype's bytes (numbers, complex, arrays of them, other `#[npy(pod)]`
///   records); when not (`#[npy(align)]` on a `repr(C, packed)` struct, a field type with a
///   hand-written conversion) it never casts, and converts field by field. `#[npy(pod)]`
///   without `#[repr(C)]` is a compile error, and so is a struct that is not `Pod`. A
///   `repr(C)` struct with padding (`{a: u8, b: i32}`) cannot be `Pod`: numpy's packed layout
///   of such fields is `#[repr(C, packed)]`, its aligned layout (with gaps) stays field by
///   field.
///
/// Fields are written in the machine's byte order, as numpy does; for big-endian files use
/// `WriteOptions::byte_order`, which applies to every field. Reading accepts any byte order,
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
#[proc_macro_derive(NpyElement, attributes(npy))]
pub fn derive_npy_element(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
