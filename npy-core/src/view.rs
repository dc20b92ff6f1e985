//! Zero-copy views: the elements of a `.npy` file held in memory, borrowed in place when the
//! file's dtype is the element type's in-memory layout (native byte order), the data is aligned
//! for the type and all there. [`NpyView::new`] says which check failed; [`view_or_copy`]
//! decodes a copy instead. The casts are bytemuck's checked ones: no `unsafe` here.

use std::borrow::Cow;

use bytemuck::checked::{self, CheckedCastError};
use bytemuck::{CheckedBitPattern, PodCastError};

use crate::codec::first_noncanonical_bool;
use crate::dtype::{DType, Primitive};
use crate::element::{bulk_kind, mismatch, Bulk, NpyElement};
use crate::error::{Error, ErrorKind};
use crate::header::Header;
use crate::meta::{element_accessors, meta_accessors, ArrayMeta};
use crate::read::ReadOptions;
use crate::read::{NpyArray, NpyReader};

/// A `.npy` file's array, borrowed from the bytes of the whole file without copying.
///
/// `T` is a type whose every byte pattern is checked or valid ([`CheckedBitPattern`]): the
/// numbers (`i8`–`u64`, `f16`, `f32`, `f64`, `Complex<f32>`, `Complex<f64>`) and `bool` (when
/// every byte is 0 or 1; numpy writes others for masks viewed as bool, see
/// [`NpyView::new`]). Types decoded element by element (`String`, `Vec<u8>`, datetimes) have
/// no view; read them with [`crate::read()`] or [`NpyReader`].
///
/// ```compile_fail
/// // A `String` cannot be borrowed from UCS-4 bytes: this does not compile.
/// let v = npy_core::NpyView::<String>::new(&[]);
/// ```
///
/// # Examples
/// ```
/// use npy_core::{ErrorKind, NpyView, MemoryOrder, WriteOptions};
/// let mut file = Vec::new();
/// WriteOptions::new().write_to(&mut file, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
///
/// // The data starts at byte 128; an f64 view needs it 8-aligned in memory.
/// let mut words = vec![0u64; file.len().div_ceil(8) + 1];
/// let aligned = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..file.len()];
/// aligned.copy_from_slice(&file);
/// let view = NpyView::<f64>::new(aligned)?;
/// assert_eq!(view.shape(), [2, 3]);
/// assert_eq!(view.order(), MemoryOrder::C);
/// assert_eq!(view.get(&[1, 0]), Some(&4.0));
/// assert_eq!(view.data(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
///
/// // One byte further on, the data is misaligned: an error, never a bad read.
/// let shifted = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut words)[1..=file.len()];
/// shifted.copy_from_slice(&file);
/// let err = NpyView::<f64>::new(shifted).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::Misaligned { offset: 128, align: 8 }));
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct NpyView<'a, T> {
    meta: ArrayMeta,
    data: &'a [T],
}

impl<'a, T: NpyElement + CheckedBitPattern> NpyView<'a, T> {
    /// Parses the header at the start of `bytes` (a whole `.npy` file) and borrows the data
    /// after it as `&'a [T]` in the file's memory order ([`NpyView`]'s example); bytes after the
    /// data are ignored, as numpy ignores them. Zero elements view whatever the alignment.
    ///
    /// # Errors
    /// - header errors of [`Header::read`] ([`ErrorKind::NotNpy`], [`ErrorKind::Truncated`], ...);
    /// - [`ErrorKind::ObjectArray`] for arrays of Python objects;
    /// - [`ErrorKind::TypeMismatch`] when the file's dtype is not `T`'s in any byte order;
    /// - [`ErrorKind::NotViewable`] when it is, but byte-swapped or decoded element by element;
    /// - [`ErrorKind::Truncated`] when `bytes` ends before the header's `nbytes` of data;
    /// - [`ErrorKind::Misaligned`] when the data's address is not a multiple of `T`'s alignment;
    /// - [`ErrorKind::NonCanonicalBool`] for a `bool` byte other than 0 and 1, which numpy reads
    ///   as `True` but a Rust `bool` cannot hold ([`view_or_copy`] decodes such data).
    pub fn new(bytes: &'a [u8]) -> Result<Self, Error> {
        NpyView::with_options(bytes, &ReadOptions::default())
    }

    /// [`NpyView::new`] with header read options.
    ///
    /// # Errors
    /// As [`NpyView::new`].
    pub fn with_options(bytes: &'a [u8], options: &ReadOptions) -> Result<Self, Error> {
        let meta = ArrayMeta::new(Header::read_with(&mut &bytes[..], options)?)?;
        let data = view_data(bytes, &meta)?;
        Ok(NpyView { meta, data })
    }
}

impl<'a, T> NpyView<'a, T> {
    /// A view of `data`, which [`view_data`] checked against `meta` (the maps' views).
    #[cfg_attr(not(feature = "mmap"), allow(dead_code))]
    pub(crate) fn from_checked(meta: ArrayMeta, data: &'a [T]) -> Self {
        debug_assert_eq!(meta.num_elements(), data.len() as u64);
        NpyView { meta, data }
    }

    meta_accessors!();
    element_accessors!('a);

    /// The elements in memory order ([`NpyView::order`]), borrowed from the input.
    pub fn data(&self) -> &'a [T] {
        self.data
    }

    /// Copies the view into an owned array (same shape, order and elements).
    pub fn to_array(&self) -> NpyArray<T>
    where
        T: Clone,
    {
        // A view holds exactly its shape's elements: `view_data` checked them on creation.
        NpyArray::from_meta_and_data(self.meta.clone(), self.data.to_vec())
    }
}

/// What [`view_or_copy`] returns: the header's shape and order, and the elements, borrowed or
/// decoded; it dereferences to them, `&[T]` in memory order.
#[derive(Debug, Clone)]
pub struct ViewOrCopy<'a, T: Clone> {
    meta: ArrayMeta,
    data: Cow<'a, [T]>,
}

impl<'a, T: Clone> ViewOrCopy<'a, T> {
    meta_accessors!();

    /// The elements in memory order ([`ViewOrCopy::order`]).
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// Whether the elements are borrowed from the file's bytes (no copy was made).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.data, Cow::Borrowed(_))
    }

    /// The elements, borrowed or owned.
    pub fn into_data(self) -> Cow<'a, [T]> {
        self.data
    }

    /// The array with its elements owned (copied now if they were borrowed).
    pub fn into_owned(self) -> NpyArray<T> {
        // view_or_copy built the elements from this metadata.
        NpyArray::from_meta_and_data(self.meta, self.data.into_owned())
    }
}

impl<T: NpyElement + Clone> From<NpyArray<T>> for ViewOrCopy<'_, T> {
    /// The owned array, as a `ViewOrCopy` that holds a copy.
    fn from(array: NpyArray<T>) -> Self {
        let (meta, data) = array.into_meta_and_data();
        ViewOrCopy {
            meta,
            data: Cow::Owned(data),
        }
    }
}

impl<T: Clone> std::ops::Deref for ViewOrCopy<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.data
    }
}

/// The array of the `.npy` file in `bytes` (the header's shape and order), its elements in memory
/// order borrowed when [`NpyView::new`] can view them, else decoded (byte-swapped, misaligned,
/// `bool` bytes other than 0 and 1 read `true` as numpy does, `T` decoded element by element).
///
/// # Errors
/// Header errors, [`ErrorKind::ObjectArray`], [`ErrorKind::TypeMismatch`],
/// [`ErrorKind::Truncated`] and the value errors of `T`; never [`ErrorKind::Misaligned`],
/// [`ErrorKind::NotViewable`] or [`ErrorKind::NonCanonicalBool`].
///
/// # Examples
/// ```
/// use npy_core::{view::view_or_copy, ByteOrder, MemoryOrder, WriteOptions};
/// let mut file = Vec::new();
/// WriteOptions::new()
///     .byte_order(ByteOrder::Big)
///     .write_to(&mut file, &[1i32, -2, 3, 4, 5, 6], &[2, 3])?;
/// // Big-endian data cannot be borrowed on a little-endian machine; it is decoded instead.
/// let a = view_or_copy::<i32>(&file)?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.order(), MemoryOrder::C);
/// assert_eq!(*a, [1, -2, 3, 4, 5, 6]);
/// assert!(!a.is_borrowed());
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn view_or_copy<T: NpyElement + CheckedBitPattern>(
    bytes: &[u8],
) -> Result<ViewOrCopy<'_, T>, Error> {
    let meta = ArrayMeta::new(Header::read(&mut &bytes[..])?)?;
    let data = match view_data::<T>(bytes, &meta) {
        Ok(data) => Cow::Borrowed(data),
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::Misaligned { .. }
                    | ErrorKind::NotViewable { .. }
                    | ErrorKind::NonCanonicalBool { .. }
            ) =>
        {
            let available = bytes.len() - data_start(bytes, &meta);
            let mut r = NpyReader::new(bytes)?.with_available_bytes(available as u64);
            Cow::Owned(r.read_vec()?)
        }
        Err(e) => return Err(e),
    };
    Ok(ViewOrCopy { meta, data })
}

/// Where the data starts in `bytes` (within it: the header was read from it; clamped even so).
pub(crate) fn data_start(bytes: &[u8], meta: &ArrayMeta) -> usize {
    usize::try_from(meta.data_offset()).map_or(bytes.len(), |o| o.min(bytes.len()))
}

/// Checks that the data after the header of `meta` in `bytes` can be borrowed as `[T]` and
/// borrows it: the one validation of views and maps.
pub(crate) fn view_data<'a, T: NpyElement + CheckedBitPattern>(
    bytes: &'a [u8],
    meta: &ArrayMeta,
) -> Result<&'a [T], Error> {
    let dtype = meta.dtype();
    dtype.refuse_object()?;
    T::plan(dtype)?;
    let refuse = |reason| Err(not_viewable::<T>(dtype, reason));
    match bulk_kind::<T>(dtype) {
        Bulk::Native(_) => {}
        Bulk::Swapped(_) => return refuse("the bytes are byte-swapped"),
        Bulk::No if is_bool_layout::<T>(dtype) => {}
        Bulk::No => {
            return refuse("the type is decoded element by element and has no in-memory view")
        }
    }
    if std::mem::size_of::<T>() as u64 != dtype.itemsize() {
        // Only a hand-written NpyElement whose bulk layout claims more than its size allows.
        return refuse("the type's size in memory is not the dtype's itemsize");
    }
    let offset = meta.data_offset();
    let nbytes = meta.nbytes();
    let start = data_start(bytes, meta);
    let available = bytes.len().saturating_sub(start) as u64;
    let data = usize::try_from(nbytes)
        .ok()
        .and_then(|n| bytes.get(start..)?.get(..n))
        .ok_or_else(|| Error::truncated("array data", nbytes, available))?;
    if nbytes == 0 {
        if !meta.is_empty() {
            // Elements of zero size (an empty record): no bytes to borrow them from.
            return refuse("its elements take no bytes to borrow");
        }
        // Nothing to borrow: an empty slice needs no alignment.
        return Ok(&[]);
    }
    let view = checked::try_cast_slice::<u8, T>(data).map_err(|e| match e {
        CheckedCastError::PodCastError(PodCastError::TargetAlignmentGreaterAndInputNotAligned) => {
            Error::new(ErrorKind::Misaligned {
                offset,
                align: std::mem::align_of::<T>(),
            })
        }
        CheckedCastError::InvalidBitPattern => Error::new(match first_noncanonical_bool(data) {
            // numpy reads the byte as True; a Rust bool cannot hold it in memory.
            Some((at, byte)) if is_bool_layout::<T>(dtype) => ErrorKind::NonCanonicalBool {
                byte,
                offset: offset + at as u64,
            },
            _ => ErrorKind::InvalidBitPattern {
                requested: T::rust_name(),
            },
        }),
        // A size mismatch: only a `T` whose checked cast disagrees with its own size (checked
        // above to be the itemsize) gets here; refused rather than trusted.
        CheckedCastError::PodCastError(_) => not_viewable::<T>(
            dtype,
            "the data's bytes do not cast to whole elements of the type",
        ),
    })?;
    debug_assert_eq!(view.len() as u64, meta.num_elements());
    Ok(view)
}

/// `bool` (and any one-byte type that numpy calls `|b1`): no bulk layout, since not every byte
/// is a valid value, but a view once the checked cast has seen only 0 and 1.
fn is_bool_layout<T: NpyElement>(dtype: &DType) -> bool {
    let is_bool = |d: &DType| matches!(d, DType::Number(Primitive::Bool, _));
    std::mem::size_of::<T>() == 1 && is_bool(dtype) && is_bool(&T::npy_dtype())
}

#[cold]
fn not_viewable<T: NpyElement>(dtype: &DType, reason: &'static str) -> Error {
    match mismatch::<T>(dtype).into_kind() {
        ErrorKind::TypeMismatch {
            file, requested, ..
        } => Error::new(ErrorKind::NotViewable {
            file,
            requested,
            reason,
        }),
        kind => Error::new(kind),
    }
}
