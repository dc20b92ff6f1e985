//! `ndarray` interop (feature `ndarray`): read files into [`ArrayD`] / [`Array`] with the
//! file's memory order kept, view them as [`ArrayViewD`], and write arrays of any layout.

use std::io::Write;
use std::path::Path;

use ::ndarray::{Array, ArrayBase, ArrayD, ArrayViewD, Data, Dimension, IxDyn, ShapeBuilder};

use crate::codec::saturating_product;
use crate::element::NpyElement;
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::Order;
use crate::read::{read, NpyArray, NpyReader};
use crate::view::NpyView;
use crate::write::{AtomicFile, NpyAppender, WriteOptions};

/// Reads the `.npy` file at `path` into an n-dimensional array of `T`.
///
/// A Fortran-order file becomes an array with Fortran strides over the data as read (no
/// reordering), so every logical index holds the value numpy shows at that index.
///
/// # Errors
/// Every error of [`crate::read`]; [`ErrorKind::PlatformLimit`] for a shape ndarray cannot hold (more
/// than `isize::MAX` elements).
///
/// # Examples
/// ```
/// use ndarray::{arr2, Array2};
/// # let dir = std::env::temp_dir().join(format!("npy-core-nd-read-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("m.npy");
/// let a: Array2<i32> = arr2(&[[1, 2, 3], [4, 5, 6]]);
/// npy_core::write_ndarray(&path, &a.t())?; // transposed: written in Fortran order
/// let b = npy_core::read_ndarray::<i32>(&path)?;
/// assert_eq!(b.shape(), [3, 2]);
/// assert_eq!(b, a.t().into_dyn());
/// assert_eq!(b[[2, 0]], 3);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn read_ndarray<T: NpyElement>(path: impl AsRef<Path>) -> Result<ArrayD<T>, Error> {
    let path = path.as_ref();
    read::<T>(path)?.into_ndarray().at_path(path)
}

/// Reads the `.npy` file at `path` into an array of fixed dimension `D` (`Ix2` for
/// [`Array2`](::ndarray::Array2)), checking the file's number of dimensions before reading the data.
///
/// # Errors
/// [`ErrorKind::DimensionMismatch`] when the file's shape has another number of dimensions;
/// otherwise as [`read_ndarray`].
///
/// # Examples
/// ```
/// use ndarray::{Array2, Ix2, Ix3};
/// # let dir = std::env::temp_dir().join(format!("npy-core-nd-dim-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("m.npy");
/// npy_core::write(&path, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let m: Array2<f64> = npy_core::read_ndarray_dim::<f64, Ix2>(&path)?;
/// assert_eq!(m[[1, 0]], 3.0);
/// let err = npy_core::read_ndarray_dim::<f64, Ix3>(&path).unwrap_err();
/// assert!(matches!(err.kind(), npy_core::ErrorKind::DimensionMismatch { expected: 3, .. }));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn read_ndarray_dim<T: NpyElement, D: Dimension>(
    path: impl AsRef<Path>,
) -> Result<Array<T, D>, Error> {
    let path = path.as_ref();
    let mut r = NpyReader::open(path)?;
    let mut read = || -> Result<Array<T, D>, Error> {
        check_ndim::<D>(r.shape())?;
        let data = r.read_vec::<T>()?;
        NpyArray::from_meta(r.meta().clone(), data)?.into_ndarray_dim()
    };
    read().at_path(path)
}

impl<T> NpyArray<T> {
    /// The array as an [`ArrayD`], without copying the elements: Fortran-order data gets
    /// Fortran strides.
    ///
    /// # Errors
    /// [`ErrorKind::PlatformLimit`] for a shape ndarray cannot hold (more than `isize::MAX` elements).
    pub fn into_ndarray(self) -> Result<ArrayD<T>, Error> {
        let (shape, order, data) = self.into_parts();
        let dim = IxDyn(&usize_shape(&shape)?);
        let array = match order {
            Order::C => Array::from_shape_vec(dim, data),
            Order::Fortran => Array::from_shape_vec(dim.f(), data),
        };
        array.map_err(|_| shape_error(&shape))
    }

    /// The array as an [`Array`] of fixed dimension `D`, without copying the elements.
    ///
    /// # Errors
    /// [`ErrorKind::DimensionMismatch`] for another number of dimensions; otherwise as
    /// [`NpyArray::into_ndarray`].
    pub fn into_ndarray_dim<D: Dimension>(self) -> Result<Array<T, D>, Error> {
        check_ndim::<D>(self.shape())?;
        let shape = self.shape().to_vec();
        self.into_ndarray()?
            .into_dimensionality::<D>()
            .map_err(|_| dimension_mismatch::<D>(&shape))
    }
}

/// [`NpyArray::into_ndarray_dim`] as a conversion (`ArrayD<T>` for any number of dimensions).
impl<T, D: Dimension> TryFrom<NpyArray<T>> for Array<T, D> {
    type Error = Error;

    fn try_from(a: NpyArray<T>) -> Result<Self, Error> {
        a.into_ndarray_dim()
    }
}

impl<'a, T> NpyView<'a, T> {
    /// The view as an [`ArrayViewD`] borrowing the same bytes (Fortran strides for
    /// Fortran-order data).
    ///
    /// # Errors
    /// [`ErrorKind::PlatformLimit`] for a shape ndarray cannot hold.
    pub fn as_ndarray(&self) -> Result<ArrayViewD<'a, T>, Error> {
        let dim = IxDyn(&usize_shape(self.shape())?);
        let view = match self.order() {
            Order::C => ArrayViewD::from_shape(dim, self.data()),
            Order::Fortran => ArrayViewD::from_shape(dim.f(), self.data()),
        };
        view.map_err(|_| shape_error(self.shape()))
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
    /// use npy_core::{NpyMmapMut, Order};
    /// # let dir = std::env::temp_dir().join(format!("npy-core-nd-mmap-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("image.npy");
    /// // SAFETY: the file is new and only this map touches it.
    /// let mut m = unsafe { NpyMmapMut::<u8>::create(&path, &[2, 3], Order::Fortran)? };
    /// m.as_ndarray_mut()?.index_axis_mut(ndarray::Axis(0), 1).fill(7); // the second row
    /// drop(m);
    /// let a = npy_core::read_ndarray::<u8>(&path)?;
    /// assert_eq!(a.as_slice_memory_order(), Some(&[0, 7, 0, 7, 0, 7][..]));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn as_ndarray_mut(&mut self) -> Result<::ndarray::ArrayViewMutD<'_, T>, Error> {
        let shape = self.shape().to_vec();
        let dim = IxDyn(&usize_shape(&shape)?);
        let order = self.order();
        let data = self.data_mut();
        let view = match order {
            Order::C => ::ndarray::ArrayViewMutD::from_shape(dim, data),
            Order::Fortran => ::ndarray::ArrayViewMutD::from_shape(dim.f(), data),
        };
        view.map_err(|_| shape_error(&shape))
    }
}

/// Writes `array` to `path` as `np.save` would (atomically, like [`crate::write`]), whatever its
/// memory layout: a C-contiguous array is written in one piece in C order, a
/// Fortran-contiguous one in one piece with `fortran_order: True`, any other (a strided slice,
/// negative strides, a transposed view of a slice) element by element in logical C order
/// through a copy.
///
/// # Errors
/// As [`WriteOptions::write_path`].
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
    /// Writes `array` to `w`, choosing the order from its layout as [`write_ndarray`] does.
    /// [`WriteOptions::order`] is not used: the array's layout decides; the dtype, byte order
    /// and version options apply.
    ///
    /// # Errors
    /// As [`WriteOptions::write_to`].
    ///
    /// # Examples
    /// ```
    /// use ndarray::arr2;
    /// use npy_core::{NpyReader, WriteOptions};
    /// let a = arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
    /// let mut out = Vec::new();
    /// WriteOptions::new().write_ndarray_to(&mut out, &a.t())?;
    /// let mut r = NpyReader::new(&out[..])?;
    /// assert!(r.header().fortran_order);
    /// assert_eq!(r.read_vec::<f32>()?, [1.0, 2.0, 3.0, 4.0]); // a's memory, unchanged
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn write_ndarray_to<W, T, S, D>(&self, w: W, array: &ArrayBase<S, D>) -> Result<(), Error>
    where
        W: Write,
        T: NpyElement + Clone,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
        if let Some(c) = array.as_slice() {
            return self.clone().order(Order::C).write_to(w, c, &shape);
        }
        // Fortran-contiguous with positive strides: the reversed axes are C-contiguous.
        let reversed = array.t();
        if let Some(f) = reversed.as_slice() {
            return self.clone().order(Order::Fortran).write_to(w, f, &shape);
        }
        let logical: Vec<T> = array.iter().cloned().collect();
        self.clone().order(Order::C).write_to(w, &logical, &shape)
    }

    /// Writes `array` to `path` atomically (a temporary file renamed over `path`), choosing the
    /// order as [`write_ndarray`] does.
    ///
    /// # Errors
    /// As [`WriteOptions::write_ndarray_to`].
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
        let path = path.as_ref();
        let write = || -> Result<(), Error> {
            let mut file = AtomicFile::create(path)?;
            self.write_ndarray_to(&mut file, array)?;
            file.commit()
        };
        write().at_path(path)
    }
}

impl NpyAppender {
    /// Appends `array`, whose shape must continue the file's along its growth axis, in any
    /// layout: an array already in the file's memory order (C-contiguous for a C-order file,
    /// Fortran-contiguous for a Fortran-order one) is written from its memory; any other is
    /// copied into that order first (memory: one copy of `array`).
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
        let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
        // Fortran order of `array` is C order of its reversed axes.
        let memory_order = if self.header().fortran_order {
            array.t()
        } else {
            array.view()
        };
        match memory_order.to_slice() {
            Some(data) => self.append(data, &shape),
            None => {
                let data: Vec<T> = memory_order.iter().cloned().collect();
                self.append(&data, &shape)
            }
        }
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

fn usize_shape(shape: &[u64]) -> Result<Vec<usize>, Error> {
    shape.iter().map(|&d| to_usize(d, "dimension")).collect()
}

/// `ndarray` refuses a shape only when its element count exceeds `isize::MAX` (the data always
/// holds the shape's elements).
#[cold]
fn shape_error(shape: &[u64]) -> Error {
    let elements = saturating_product(shape);
    Error::new(ErrorKind::PlatformLimit {
        what: "number of ndarray elements",
        value: elements,
    })
}
