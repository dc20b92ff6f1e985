//! `ndarray` interop (feature `ndarray`): read files into [`Array`]s whose dimension is the
//! target type's, with the file's memory order kept; view views and maps as [`ArrayView`]s;
//! write arrays of any layout in the order asked for.

use std::io::{Read, Write};
use std::path::Path;

use ::ndarray::{
    Array, ArrayBase, ArrayView, ArrayViewD, Data, Dimension, IxDyn, RawData, Shape, ShapeBuilder,
    ShapeError,
};

use crate::codec::saturating_product;
use crate::element::NpyElement;
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::{AsShape, MemoryOrder};
use crate::read::ReadOptions;
use crate::read::{NpyArray, NpyReader};
use crate::view::NpyView;
use crate::write::{NpyAppender, WriteOptions};

/// Reads the `.npy` file at `path` into an ndarray [`Array`] whose dimension `D` comes from the
/// target type (`Array2<f32>` a 2-d file, `ArrayD<f32>` any), a fixed `D` checked against the
/// header before the data is read. A Fortran-order file keeps its data as read, with Fortran
/// strides, so every index holds the value numpy shows there.
///
/// # Errors
/// [`ErrorKind::DimensionMismatch`] for a fixed `D` and another number of dimensions;
/// [`ErrorKind::PlatformLimit`] for a shape ndarray cannot hold (more than `isize::MAX`
/// elements); every error of [`crate::read()`]. Each names the file.
///
/// # Examples
/// ```
/// use ndarray::{arr2, Array2, ArrayD};
/// # let dir = std::env::temp_dir().join(format!("npy-core-nd-read-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("m.npy");
/// let a: Array2<i32> = arr2(&[[1, 2, 3], [4, 5, 6]]);
/// npy_core::write_ndarray(&path, &a.t())?; // transposed: written in Fortran order
/// let b: Array2<i32> = npy_core::read_ndarray(&path)?;
/// assert_eq!(b, a.t());
/// assert_eq!(b[[2, 0]], 3);
/// let any: ArrayD<i32> = npy_core::read_ndarray(&path)?; // any number of dimensions
/// assert_eq!(any.shape(), [3, 2]);
/// let err = npy_core::read_ndarray::<i32, ndarray::Ix3>(&path).unwrap_err();
/// assert!(matches!(err.kind(), npy_core::ErrorKind::DimensionMismatch { expected: 3, .. }));
/// let safe = npy_core::ReadOptions::default().casting(npy_core::read::Casting::Safe);
/// let wide: Array2<f64> = npy_core::read_ndarray_with(&path, &safe)?; // i4 read as f8
/// assert_eq!(wide[[2, 0]], 3.0);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn read_ndarray<T: NpyElement, D: Dimension>(
    path: impl AsRef<Path>,
) -> Result<Array<T, D>, Error> {
    read_ndarray_with(path, &ReadOptions::default())
}

/// [`read_ndarray`] with [`ReadOptions`] (casting, strict bools, header limits, threads), as
/// [`read_with`](crate::read::read_with) is [`read`](fn@crate::read) with them (example:
/// [`read_ndarray`]'s, a widening read).
///
/// # Errors
/// As [`read_ndarray`] and [`read_with`](crate::read::read_with). Each names the file.
pub fn read_ndarray_with<T: NpyElement, D: Dimension>(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Array<T, D>, Error> {
    let path = path.as_ref();
    let mut r = NpyReader::open_with(path, options)?;
    r.read_ndarray().at_path(path)
}

impl<R: Read> NpyReader<R> {
    /// Reads the rest of the array as [`read_ndarray`] reads a file.
    ///
    /// # Errors
    /// As [`NpyArray::into_ndarray`]; every error of [`NpyReader::read_vec`].
    ///
    /// # Examples
    /// ```
    /// use ndarray::Array2;
    /// let mut bytes = Vec::new();
    /// npy_core::WriteOptions::new().write_to(&mut bytes, &[1u8, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let a: Array2<u8> = npy_core::NpyReader::new(&bytes[..])?.read_ndarray()?;
    /// assert_eq!(a[[1, 0]], 4);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn read_ndarray<T: NpyElement, D: Dimension>(&mut self) -> Result<Array<T, D>, Error> {
        // A subarray element type ([U; N]) takes the file's trailing dimensions when it reads
        // (`read_vec`), so its number of dimensions is known only then.
        if !matches!(T::npy_dtype(), crate::dtype::DType::SubArray(_)) {
            check_ndim::<D>(self.shape())?;
        }
        let data = self.read_vec::<T>()?;
        NpyArray::from_meta(self.meta().clone(), data)?.into_ndarray()
    }
}

impl<T> NpyArray<T> {
    /// The array as an ndarray [`Array`] of dimension `D`, as [`read_ndarray`] gives it,
    /// without copying the elements.
    ///
    /// # Errors
    /// [`ErrorKind::DimensionMismatch`] and [`ErrorKind::PlatformLimit`], as [`read_ndarray`].
    ///
    /// # Examples
    /// ```
    /// use ndarray::Array2;
    /// use npy_core::{NpyArray, MemoryOrder};
    /// let a = NpyArray::from_parts(vec![2, 2], MemoryOrder::Fortran, vec![1u8, 2, 3, 4])?;
    /// let m: Array2<u8> = a.into_ndarray()?;
    /// assert_eq!(m[[0, 1]], 3);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn into_ndarray<D: Dimension>(self) -> Result<Array<T, D>, Error> {
        let (shape, order, data) = self.into_parts();
        to_ndarray(&shape, order, |dim| Array::from_shape_vec(dim, data))
    }
}

impl<'a, T> NpyView<'a, T> {
    /// The view as an ndarray [`ArrayView`] of dimension `D` (`IxDyn` for any) over the same
    /// bytes, Fortran strides for Fortran-order data.
    ///
    /// # Errors
    /// As [`NpyArray::into_ndarray`].
    ///
    /// # Examples
    /// ```
    /// use ndarray::Ix2;
    /// use npy_core::NpyView;
    /// let mut bytes = Vec::new();
    /// npy_core::WriteOptions::new().write_to(&mut bytes, &[1u8, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let view = NpyView::<u8>::new(&bytes)?;
    /// let a = view.as_ndarray::<Ix2>()?;
    /// assert_eq!(a.column(1).to_vec(), [2, 5]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn as_ndarray<D: Dimension>(&self) -> Result<ArrayView<'a, T, D>, Error> {
        to_ndarray(self.shape(), self.order(), |dim| {
            ArrayViewD::from_shape(dim, self.data())
        })
    }
}

#[cfg(feature = "mmap")]
impl<T> crate::mmap::NpyMmapMut<T>
where
    T: NpyElement + bytemuck::CheckedBitPattern + bytemuck::NoUninit,
{
    /// The mapped array as an [`ArrayViewMutD`](::ndarray::ArrayViewMutD) (Fortran strides
    /// for Fortran-order data); writes through it reach the file.
    ///
    /// # Errors
    /// [`ErrorKind::PlatformLimit`] for a shape ndarray cannot hold.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{NpyMmapMut, MemoryOrder};
    /// # let dir = std::env::temp_dir().join(format!("npy-core-nd-mmap-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("image.npy");
    /// // SAFETY: the file is new and only this map touches it.
    /// let mut m = unsafe { NpyMmapMut::<u8>::create(&path, &[2, 3], MemoryOrder::Fortran)? };
    /// m.as_ndarray_mut()?.index_axis_mut(ndarray::Axis(0), 1).fill(7); // the second row
    /// drop(m);
    /// let a = npy_core::read_ndarray::<u8, ndarray::IxDyn>(&path)?;
    /// assert_eq!(a.as_slice_memory_order(), Some(&[0, 7, 0, 7, 0, 7][..]));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn as_ndarray_mut(&mut self) -> Result<::ndarray::ArrayViewMutD<'_, T>, Error> {
        let shape = self.shape().to_vec();
        let dim = nd_shape(&shape, self.order()).at_path(self.path())?;
        ::ndarray::ArrayViewMutD::from_shape(dim, self.data_mut()).map_err(|_| shape_error(&shape))
    }
}

#[cfg(feature = "mmap")]
impl<T: NpyElement + bytemuck::CheckedBitPattern> crate::mmap::NpyMmap<T> {
    /// The mapped array as [`NpyView::as_ndarray`] gives a view, borrowing the mapping.
    ///
    /// # Errors
    /// As [`NpyView::as_ndarray`]; each names the file.
    ///
    /// # Examples
    /// ```
    /// use ndarray::Ix2;
    /// use npy_core::NpyMmap;
    /// # let dir = std::env::temp_dir().join(format!("npy-core-nd-mmap-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("m.npy");
    /// npy_core::write(&path, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// // SAFETY: nothing modifies the file while it is mapped.
    /// let m = unsafe { NpyMmap::<f32>::open(&path)? };
    /// let a = m.as_ndarray::<Ix2>()?;
    /// assert_eq!(a.sum(), 21.0);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn as_ndarray<D: Dimension>(&self) -> Result<ArrayView<'_, T, D>, Error> {
        self.view().as_ndarray().at_path(self.path())
    }
}

/// The array `make` builds over `shape` in `order` (Fortran strides for Fortran order), as
/// dimension `D`; a fixed `D` is checked first.
fn to_ndarray<S: RawData, D: Dimension>(
    shape: &[u64],
    order: MemoryOrder,
    make: impl FnOnce(Shape<IxDyn>) -> Result<ArrayBase<S, IxDyn>, ShapeError>,
) -> Result<ArrayBase<S, D>, Error> {
    check_ndim::<D>(shape)?;
    make(nd_shape(shape, order)?)
        .map_err(|_| shape_error(shape))?
        .into_dimensionality::<D>()
        .map_err(|_| dimension_mismatch::<D>(shape))
}

/// Writes `array` of any layout to `path` as `np.save` would (atomically, as [`crate::write()`]):
/// as [`WriteOptions::write_ndarray_path`] (which takes other options) with the defaults.
///
/// # Errors
/// As [`WriteOptions::write_path`]; each names the file.
///
/// # Examples
/// ```
/// use ndarray::{s, Array};
/// # let dir = std::env::temp_dir().join(format!("npy-core-nd-write-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("every_other.npy");
/// let a = Array::from_shape_vec((2, 4), (0..8u8).collect()).unwrap();
/// npy_core::write_ndarray(&path, &a.slice(s![.., ..;2]))?;
/// let back = npy_core::read::<u8>(&path)?;
/// assert_eq!(back.shape(), [2, 2]);
/// assert_eq!(back.data(), [0, 2, 4, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn write_ndarray<T, S, D>(path: impl AsRef<Path>, array: &ArrayBase<S, D>) -> Result<(), Error>
where
    T: NpyElement + Clone,
    S: Data<Elem = T>,
    D: Dimension,
{
    WriteOptions::new().write_ndarray_path(path, array)
}

impl WriteOptions {
    /// Writes `array` to `w` in the order set with [`WriteOptions::order`], or without one in
    /// `np.save`'s: Fortran for an array Fortran- but not C-contiguous, else C (strided, negative
    /// strides, a transposed slice). An array contiguous in that order is written from its
    /// memory in one piece, any other element by element in chunks of 64 KiB of cloned elements
    /// (never a copy of the array). The dtype, byte order and version apply as in
    /// [`WriteOptions::write_to`]; without a dtype, a type sized by its values (`String`,
    /// `Vec<u8>`, records holding them) is sized from the array's memory, or from one copy of a
    /// non-contiguous array.
    ///
    /// # Errors
    /// As [`WriteOptions::write_to`]; [`ErrorKind::Unsupported`] for subarray elements
    /// (`[T; N]`) in Fortran order.
    ///
    /// # Examples
    /// ```
    /// use ndarray::arr2;
    /// use npy_core::{NpyReader, MemoryOrder, WriteOptions};
    /// let a = arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
    /// let mut out = Vec::new();
    /// WriteOptions::new().write_ndarray_to(&mut out, &a.t())?; // the layout decides
    /// let mut r = NpyReader::new(&out[..])?;
    /// assert!(r.header().fortran_order);
    /// assert_eq!(r.read_vec::<f32>()?, [1.0, 2.0, 3.0, 4.0]); // a's memory, unchanged
    ///
    /// let mut out = Vec::new();
    /// WriteOptions::new().order(MemoryOrder::Fortran).write_ndarray_to(&mut out, &a)?;
    /// let mut r = NpyReader::new(&out[..])?;
    /// assert!(r.header().fortran_order);
    /// assert_eq!(r.read_vec::<f32>()?, [1.0, 3.0, 2.0, 4.0]); // column by column
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn write_ndarray_to<W, T, S, D>(&self, w: W, array: &ArrayBase<S, D>) -> Result<(), Error>
    where
        W: Write,
        T: NpyElement + Clone,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let nd_shape = array.shape();
        let shape: &[u64] = &nd_shape.to_dims();
        let fortran = array.as_slice().is_none() && array.t().as_slice().is_some();
        let np_save = MemoryOrder::from_fortran_order(fortran);
        let order = self.order.unwrap_or(np_save);
        let values = in_memory_order(array, order);
        if let Some(data) = values.to_slice() {
            return self.clone().order(order).write_to(w, data, shape);
        }
        let dtype = match &self.dtype {
            Some(dtype) => dtype.clone(),
            None => match array.as_slice_memory_order() {
                // dtype_for depends on the values, not on their order.
                Some(memory) => T::dtype_for(memory),
                None if T::pod_layout().is_some() => T::npy_dtype(),
                None => T::dtype_for(&array.iter().cloned().collect::<Vec<T>>()),
            },
        };
        let resolved = self.resolve_dtype::<T>(dtype)?;
        self.write_values(w, resolved, shape, order, values.iter())
    }

    /// [`WriteOptions::write_ndarray_to`] to `path`, atomically as [`crate::write()`].
    ///
    /// # Errors
    /// As [`WriteOptions::write_ndarray_to`]; each names the file.
    ///
    /// # Examples
    /// ```
    /// use ndarray::{arr2, Array2};
    /// use npy_core::{MemoryOrder, WriteOptions};
    /// # let dir = std::env::temp_dir().join(format!("npy-core-nd-wpath-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("f.npy");
    /// let a = arr2(&[[1i64, 2, 3], [4, 5, 6]]);
    /// WriteOptions::new().order(MemoryOrder::Fortran).write_ndarray_path(&path, &a)?;
    /// let back = npy_core::read::<i64>(&path)?;
    /// assert_eq!(back.order(), MemoryOrder::Fortran);
    /// assert_eq!(back.data(), [1, 4, 2, 5, 3, 6]);
    /// let same: Array2<i64> = npy_core::read_ndarray(&path)?;
    /// assert_eq!(same, a);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn write_ndarray_path<T, S, D>(
        &self,
        path: impl AsRef<Path>,
        array: &ArrayBase<S, D>,
    ) -> Result<(), Error>
    where
        T: NpyElement + Clone,
        S: Data<Elem = T>,
        D: Dimension,
    {
        crate::write::write_atomic(path.as_ref(), |file| self.write_ndarray_to(file, array))
    }
}

impl NpyAppender {
    /// Appends `array` of any layout, as [`NpyAppender::append`] its elements: an array
    /// contiguous in the file's memory order is written from its memory, any other is copied
    /// into that order first (memory: one copy of `array`).
    ///
    /// # Errors
    /// As [`NpyAppender::append`].
    ///
    /// # Examples
    /// ```
    /// use ndarray::{arr2, s};
    /// # let dir = std::env::temp_dir().join(format!("npy-core-nd-append-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("rows.npy");
    /// let a = arr2(&[[1i64, 2], [3, 4], [5, 6]]);
    /// npy_core::write_ndarray(&path, &a.slice(s![..1, ..]))?;
    /// let mut file = npy_core::NpyAppender::open(&path)?;
    /// file.append_ndarray(&a.slice(s![1.., ..]))?;
    /// file.append_ndarray(&a.t().t())?; // any layout
    /// drop(file);
    /// assert_eq!(npy_core::read::<i64>(&path)?.shape(), [6, 2]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn append_ndarray<T, S, D>(&mut self, array: &ArrayBase<S, D>) -> Result<(), Error>
    where
        T: NpyElement + Clone,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let values = in_memory_order(array, self.header().order());
        match values.to_slice() {
            Some(data) => self.append(data, array.shape()),
            None => self.append(&values.iter().cloned().collect::<Vec<T>>(), array.shape()),
        }
    }
}

/// `array`'s elements in `order` as a C-order view (its reversed axes for Fortran order), whose
/// `to_slice` is `array`'s memory when that is contiguous in `order`.
fn in_memory_order<S: Data, D: Dimension>(
    array: &ArrayBase<S, D>,
    order: MemoryOrder,
) -> ArrayView<'_, S::Elem, D> {
    match order {
        MemoryOrder::C => array.view(),
        MemoryOrder::Fortran => array.t(),
    }
}

fn check_ndim<D: Dimension>(shape: &[u64]) -> Result<(), Error> {
    match D::NDIM {
        Some(n) if n != shape.len() => Err(dimension_mismatch::<D>(shape)),
        _ => Ok(()),
    }
}

#[cold]
fn dimension_mismatch<D: Dimension>(shape: &[u64]) -> Error {
    Error::new(ErrorKind::DimensionMismatch {
        shape: shape.to_vec(),
        expected: D::NDIM.unwrap_or(shape.len()),
    })
}

/// `shape` as ndarray's dynamic shape, with Fortran strides for Fortran-order data.
fn nd_shape(shape: &[u64], order: MemoryOrder) -> Result<::ndarray::Shape<IxDyn>, Error> {
    let dims = shape.iter().map(|&d| to_usize(d, "dimension"));
    Ok(IxDyn(&dims.collect::<Result<Vec<usize>, Error>>()?).set_f(order.is_fortran()))
}

/// `ndarray` refuses a shape only when its element count exceeds `isize::MAX` (the data always
/// holds the shape's elements).
#[cold]
fn shape_error(shape: &[u64]) -> Error {
    Error::new(ErrorKind::PlatformLimit {
        what: "number of ndarray elements",
        value: saturating_product(shape),
    })
}
