//! Reading array data: owned arrays ([`read`](fn@crate::read), [`NpyArray`]), and the streaming
//! [`NpyReader`] (caller buffers, iteration, random access).
//!
//! Every read allocates only what the input can back: the file's length (or, for a stream, the
//! bytes that arrived) bounds the data, and [`MAX_EXPANSION`] the Rust elements decoded from it.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use crate::codec::{checked_product, permute_to_c_order};
use crate::element::NpyElement;
use crate::error::{Error, ErrorKind, PathContext};
use crate::format::MemoryOrder;
use crate::header::Header;
use crate::meta::{element_accessors, meta_accessors};

mod parallel;
pub(crate) mod positional;
mod reader;

pub use crate::header::options::{Casting, ReadOptions};
pub use crate::meta::ArrayMeta;
pub use parallel::PARALLEL_MIN_BYTES;
pub use positional::Positional;
pub(crate) use reader::Decode;
pub use reader::{Elements, NpyReader};

/// Capacity of the [`BufReader`] of a reader opened from a path ([`NpyReader::open`]): 8 KiB,
/// as [`BufReader::new`]. Smaller reads (a row, an element) are served from it; larger ones
/// (bulk reads, the 64 KiB chunks of decoded types) go straight to the file.
pub const FILE_BUFFER_BYTES: usize = 8 << 10;

/// The reader [`NpyReader::open`] returns: the file behind a [`BufReader`] of
/// [`FILE_BUFFER_BYTES`].
pub type NpyFileReader = NpyReader<BufReader<File>>;

/// How many bytes of Rust elements a typed read may allocate per byte of array data
/// (`Vec<u8>` elements of `S1` data take 24 bytes each, the largest ratio of the built-in types).
pub const MAX_EXPANSION: u64 = 32;

/// Bytes of Rust elements a typed read may allocate beyond [`MAX_EXPANSION`] times the data:
/// what elements that take no file bytes (`S0`, empty records, zero-length subarrays) may cost.
pub const MAX_UNBACKED_BYTES: u64 = 64 << 20;

/// Refuses to materialise `n` elements of `T` from `nbytes` of data when that would take more
/// than `nbytes × MAX_EXPANSION + MAX_UNBACKED_BYTES` bytes of memory.
pub(crate) fn check_expansion<T>(n: u64, nbytes: u64) -> Result<(), Error> {
    let each = std::mem::size_of::<T>() as u64;
    let limit = nbytes
        .saturating_mul(MAX_EXPANSION)
        .saturating_add(MAX_UNBACKED_BYTES);
    if n.saturating_mul(each) > limit {
        return Err(Error::allocation_limit(
            "the elements of a typed read",
            n,
            each,
        ));
    }
    Ok(())
}

/// An owned array: shape, memory order and the elements in that order ([`read`](fn@crate::read)
/// shows one).
#[derive(Debug, Clone)]
pub struct NpyArray<T> {
    meta: ArrayMeta,
    data: Vec<T>,
}

impl<T: NpyElement> NpyArray<T> {
    /// An array from its parts, with the header `np.save` would write for it
    /// ([`NpyElement::dtype_for`] of the data as its dtype).
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`] when `data.len()` is not the product of `shape`;
    /// [`ErrorKind::SizeOverflow`] for a shape whose size exceeds numpy's (2^63 − 1).
    pub fn from_parts(shape: Vec<u64>, order: MemoryOrder, data: Vec<T>) -> Result<Self, Error> {
        let expected = checked_product(1, &shape);
        if expected != Some(data.len() as u64) {
            return Err(Error::new(ErrorKind::LengthMismatch {
                what: "array data for its shape",
                expected: expected.unwrap_or(u64::MAX),
                found: data.len() as u64,
            }));
        }
        let mut header = Header::new(T::dtype_for(&data), shape);
        header.fortran_order = order.is_fortran();
        NpyArray::from_meta(ArrayMeta::from_header(header)?, data)
    }
}

impl<T> NpyArray<T> {
    /// An array of `meta` holding `data` (its elements in `meta`'s order).
    pub(crate) fn from_meta(meta: ArrayMeta, data: Vec<T>) -> Result<Self, Error> {
        meta.check_len("array data for its shape", data.len())?;
        Ok(NpyArray { meta, data })
    }

    meta_accessors!();
    element_accessors!('_);

    /// The elements in memory order ([`NpyArray::order`]).
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The elements in memory order, mutably.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The elements **in the file's memory order** ([`NpyArray::order`]), giving up the shape:
    /// for a Fortran-order file that is column by column, not the row-by-row order numpy's
    /// `a.flat` shows ([`NpyArray::into_c_order_vec`] gives that, with an example of both).
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The metadata and the elements.
    pub(crate) fn into_meta_and_data(self) -> (ArrayMeta, Vec<T>) {
        (self.meta, self.data)
    }

    /// The array of `meta` holding `data`, which the caller knows to be exactly its elements
    /// (a view's, or an array's of that metadata): unchecked.
    pub(crate) fn from_meta_and_data(meta: ArrayMeta, data: Vec<T>) -> Self {
        NpyArray { meta, data }
    }

    /// The elements in C order (last index fastest; numpy's `a.flat`, `a.ravel()`), whatever
    /// the file's order, giving up the shape. A C-order array is returned as it is; a
    /// Fortran-order one is rearranged in place (no second copy: one extra bit per element).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{NpyArray, MemoryOrder};
    /// // [[1, 2, 3], [4, 5, 6]] stored column by column:
    /// let a = NpyArray::from_parts(vec![2, 3], MemoryOrder::Fortran, vec![1u8, 4, 2, 5, 3, 6])?;
    /// assert_eq!(a.clone().into_vec(), [1, 4, 2, 5, 3, 6]);
    /// assert_eq!(a.into_c_order_vec(), [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn into_c_order_vec(self) -> Vec<T> {
        let mut data = self.data;
        permute_to_c_order(&mut data, self.meta.shape(), self.meta.order());
        data
    }

    /// `(shape, order, data)`.
    pub fn into_parts(self) -> (Vec<u64>, MemoryOrder, Vec<T>) {
        (self.meta.shape().to_vec(), self.meta.order(), self.data)
    }
}

/// Equal arrays have the same shape, order and elements (the stored header text may differ).
impl<T: PartialEq> PartialEq for NpyArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self.shape() == other.shape() && self.order() == other.order() && self.data == other.data
    }
}

/// Reads the `.npy` file at `path` into an owned array of `T`. A header claiming more data
/// than the file holds is [`ErrorKind::Truncated`] before anything large is allocated;
/// trailing bytes after the data are ignored, as numpy ignores them. `bool` reads any non-zero
/// byte as `true`, as numpy ([`ReadOptions::strict_bools`] for the strict check).
///
/// # Errors
/// Header errors and those of [`NpyReader::read_vec`], naming the file.
///
/// # Examples
/// ```
/// use npy_core::read::{read_with, Casting, ReadOptions};
/// let path = std::env::temp_dir().join(format!("npy-core-read-{}.npy", std::process::id()));
/// npy_core::write(&path, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let a = npy_core::read::<f32>(&path)?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.get(&[1, 0]), Some(&4.0));
/// assert!(npy_core::read::<f64>(&path).is_err()); // exact by default; `read_with` can widen:
/// let wide = read_with::<f64>(&path, &ReadOptions::default().casting(Casting::Safe))?;
/// assert_eq!(wide.data()[3], 4.0);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn read<T: NpyElement>(path: impl AsRef<Path>) -> Result<NpyArray<T>, Error> {
    read_with(path, &ReadOptions::default())
}

/// [`read`](fn@crate::read) with options ([`ReadOptions`]; [`Casting::Safe`] reads an `<f4`
/// file as `f64`, as numpy's `astype(np.float64)` would: `read`'s example shows it).
///
/// # Errors
/// As [`read`](fn@crate::read); with [`ReadOptions::strict_bools`], [`ErrorKind::InvalidBool`]
/// for a `b1` byte other than 0 and 1 (naming its offset in the file).
pub fn read_with<T: NpyElement>(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<NpyArray<T>, Error> {
    let path = path.as_ref();
    let mut r = NpyReader::open_with(path, options)?;
    let data = r.read_vec().at_path(path)?;
    NpyArray::from_meta(r.meta().clone(), data).at_path(path)
}

#[cfg(test)]
mod tests {
    use super::MAX_EXPANSION;
    use crate::dtype::DType;
    use crate::element::{units, Datetime64, NpyElement, Timedelta64};

    /// The smallest member of each dtype family (numpy's itemsizes; subarrays of one element),
    /// each in both byte orders where it has one.
    const DTYPES: [&str; 25] = [
        "|b1",
        "|i1",
        "|u1",
        "<i2",
        "<u2",
        ">f2",
        "<f2",
        "<i4",
        "<u4",
        "<f4",
        "<i8",
        "<u8",
        "<f8",
        "<c8",
        ">c8",
        "<c16",
        "|S1",
        "<U1",
        ">U1",
        "<M8[s]",
        "<m8[ns]",
        "('|u1', (1,))",
        "('|S1', (1,))",
        "('<U1', (1,))",
        "('<f4', (1,))",
    ];

    /// A hint given after opening reads the dtype as [`ReadOptions::hint`] does when opening.
    #[test]
    fn with_hint_reads_the_dtype_through_the_hint() {
        use crate::dtype::MlType;
        let mut bytes = crate::header::Header::new("|V1".parse().unwrap(), vec![2])
            .to_bytes(None)
            .unwrap();
        bytes.extend_from_slice(&[0x38, 0xc0]);
        let r = super::NpyReader::new(&bytes[..]).unwrap();
        let r = r.with_hint(Some(MlType::Float8E4M3Fn));
        assert_eq!(*r.dtype(), DType::Ml(MlType::Float8E4M3Fn));
    }

    /// The smallest itemsize (bytes) of a dtype `T` reads, as its own or widened.
    fn smallest_itemsize<T: NpyElement>() -> u64 {
        DTYPES
            .iter()
            .map(|d| d.parse::<DType>().unwrap())
            .filter(|d| T::plan(d).is_ok() || T::widening(d).is_some())
            .map(|d| d.itemsize())
            .min()
            .unwrap_or_else(|| panic!("{} reads none of the dtypes", T::rust_name()))
    }

    /// Every element type takes at most `MAX_EXPANSION` bytes per data byte of the smallest
    /// dtype it reads: `Vec<u8>` and `String` (24 bytes) from `|S1`, `Complex<f64>` (16) widened
    /// from `|b1`, ...
    #[test]
    fn every_element_type_fits_the_expansion_at_its_smallest_dtype() {
        fn fits<T: NpyElement>() {
            let each = std::mem::size_of::<T>() as u64;
            let smallest = smallest_itemsize::<T>();
            assert!(
                each <= MAX_EXPANSION * smallest,
                "{}: {each} bytes from {smallest}",
                T::rust_name()
            );
        }
        use half::f16;
        use num_complex::Complex;
        fits::<bool>();
        fits::<i8>();
        fits::<u8>();
        fits::<i16>();
        fits::<u16>();
        fits::<i32>();
        fits::<u32>();
        fits::<i64>();
        fits::<u64>();
        fits::<f16>();
        fits::<f32>();
        fits::<f64>();
        fits::<Complex<f32>>();
        fits::<Complex<f64>>();
        fits::<Vec<u8>>();
        fits::<String>();
        fits::<Datetime64<units::S>>();
        fits::<Timedelta64<units::Ns>>();
        fits::<[u8; 1]>();
        fits::<[Vec<u8>; 1]>();
        fits::<[String; 1]>();
        fits::<[f32; 1]>();
    }
}
