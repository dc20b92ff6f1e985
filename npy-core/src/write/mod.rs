//! Writing arrays: slices ([`write`](fn@crate::write), [`WriteOptions`]), streams of rows of
//! unknown count ([`StreamWriter`]), appends to existing files ([`NpyAppender`]). Every path
//! writer writes through npy-fs's `AtomicFile` (its rules: [`npy_fs::PendingFile`]).

use std::io::{Seek, Write};
use std::path::Path;

use crate::codec::{checked_product, per_chunk, swap_in_place, CHUNK_BYTES};
use crate::dtype::{ByteOrder, DType};
use crate::element::{bulk_kind, Bulk, NpyElement};
use crate::error::{Error, ErrorKind, PathContext};
use crate::format::{AsShape, MemoryOrder, Version};
use crate::header::Header;

mod append;
mod stream;

pub use append::{append, AppendOptions, NpyAppender};
pub(crate) use npy_fs::AtomicFile;
pub use stream::{PathStreamWriter, StreamWriter};

/// Writes the file at `path` as every path writer of the crate does: into npy-fs's
/// [`AtomicFile`], renamed into place once `write` succeeded; an error names the file.
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut AtomicFile) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut file = AtomicFile::create(path).at_path(path)?;
    write(&mut file).at_path(path)?;
    Ok(file.commit().at_path(path)?)
}

/// Writes `data` (in C order, `shape` outermost first, any [`AsShape`]: `&[2, 3]`, a `&[u64]`,
/// an ndarray's `a.shape()`) to `path` as `np.save` would: the type's default dtype in the
/// machine's byte order, format 1.0 unless the header needs more. Atomic: written beside `path`
/// and renamed over it, so an error or a crash never leaves a partial file there (every path
/// writer's rules, symlinks, special files, the append lock, permissions: [`npy_fs::PendingFile`]).
///
/// # Errors
/// [`ErrorKind::LengthMismatch`] when `data.len()` is not the product of `shape`; I/O errors.
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-write-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("x.npy");
/// npy_core::write(&path, &[1u16, 2, 3, 4], &[2, 2])?;
/// let bytes = std::fs::read(&path)?;
/// assert_eq!(bytes.len(), 128 + 8);
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn write<T: NpyElement>(
    path: impl AsRef<Path>,
    data: &[T],
    shape: impl AsShape,
) -> Result<(), Error> {
    WriteOptions::new().write_path(path, data, shape)
}

/// How to write an array: dtype, memory order, byte order and format version.
///
/// # Examples
/// ```
/// use npy_core::{ByteOrder, NpyReader, MemoryOrder, WriteOptions};
/// let mut out = Vec::new();
/// WriteOptions::new()
///     .byte_order(ByteOrder::Big)
///     .order(MemoryOrder::Fortran)
///     .write_to(&mut out, &[1.5f64, 2.5, 3.5, 4.5], &[2, 2])?;
/// let r = NpyReader::new(&out[..])?;
/// assert_eq!(r.dtype().to_string(), ">f8");
/// assert!(r.header().fortran_order);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    pub(crate) dtype: Option<DType>,
    pub(crate) order: Option<MemoryOrder>,
    byte_order: Option<ByteOrder>,
    version: Option<Version>,
}

/// The slice writers' and appends' one check that `len` elements (of `itemsize` bytes) fill
/// `shape`: [`ErrorKind::SizeOverflow`] for an element count past 64 bits,
/// [`ErrorKind::LengthMismatch`] for another count.
pub(crate) fn check_data_len(shape: &[u64], itemsize: u64, len: usize) -> Result<(), Error> {
    let expected = checked_product(1, shape).ok_or_else(|| size_overflow(shape, itemsize))?;
    same_len("data for the shape", expected, len as u64)
}

/// [`ErrorKind::LengthMismatch`] (`what`) unless `found` is `expected`.
pub(crate) fn same_len(what: &'static str, expected: u64, found: u64) -> Result<(), Error> {
    if found == expected {
        return Ok(());
    }
    Err(Error::new(ErrorKind::LengthMismatch {
        what,
        expected,
        found,
    }))
}

/// [`ErrorKind::SizeOverflow`] for an array of `shape` whose elements are `itemsize` bytes.
#[cold]
pub(crate) fn size_overflow(shape: &[u64], itemsize: u64) -> Error {
    Error::new(ErrorKind::SizeOverflow {
        shape: shape.to_vec(),
        itemsize,
    })
}

impl WriteOptions {
    /// numpy's defaults: the element type's dtype, C order (for ndarray arrays: the array's own
    /// layout, as `np.save`), the machine's byte order, the smallest version that holds the header.
    pub fn new() -> Self {
        Self::default()
    }

    /// The memory order the file is written in (and its header declares): for slices
    /// ([`WriteOptions::write_to`]) the order the data is given in; ndarray arrays (feature
    /// `ndarray`, `WriteOptions::write_ndarray_to`) are written in it whatever their layout.
    #[must_use]
    pub fn order(mut self, order: MemoryOrder) -> Self {
        self.order = Some(order);
        self
    }

    /// The byte order to write multi-byte values in.
    #[must_use]
    pub fn byte_order(mut self, byte_order: ByteOrder) -> Self {
        self.byte_order = Some(byte_order);
        self
    }

    /// A format version to use instead of numpy's choice; a header it cannot hold is an error.
    #[must_use]
    pub fn version(mut self, version: Version) -> Self {
        self.version = Some(version);
        self
    }

    /// An explicit dtype (e.g. the width of a string type, or `'>f8'`): written as given, unless
    /// [`WriteOptions::byte_order`] is also set, which then applies to it.
    #[must_use]
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    pub(crate) fn resolve<T: NpyElement>(&self, data: &[T]) -> Result<(DType, T::Plan), Error> {
        self.resolve_dtype::<T>(self.dtype.clone().unwrap_or_else(|| T::dtype_for(data)))
    }

    /// `dtype` with the byte-order option applied, and the plan to write `T` as it.
    pub(crate) fn resolve_dtype<T: NpyElement>(
        &self,
        mut dtype: DType,
    ) -> Result<(DType, T::Plan), Error> {
        if let Some(order) = self.byte_order {
            dtype = dtype.with_byte_order(order);
        }
        let plan = T::plan(&dtype)?;
        Ok((dtype, plan))
    }

    /// The header for elements of `dtype` in an array of `shape` written in `order`, as
    /// `np.save`: a subarray dtype (`[T; N]`) is stored as its base with its dimensions appended
    /// to the shape (C order only, where that is the same bytes); `fortran_order` is
    /// [`Header::fortran_order_for`]'s.
    pub(crate) fn header(
        &self,
        dtype: DType,
        shape: &[u64],
        order: MemoryOrder,
    ) -> Result<Header, Error> {
        let mut shape = shape.to_vec();
        let dtype = match dtype {
            DType::SubArray(s) => {
                if order == MemoryOrder::Fortran {
                    return Err(Error::new(ErrorKind::Unsupported {
                        operation: "writing subarray elements ([T; N]) in Fortran order",
                        reason: "numpy stores them as trailing dimensions of the shape, which \
                                 only C order keeps together"
                            .into(),
                    }));
                }
                let (dims, base) = s.flatten();
                shape.extend_from_slice(&dims);
                base.clone()
            }
            dtype => dtype,
        };
        let header = Header {
            dtype,
            fortran_order: Header::fortran_order_for(&shape, order),
            shape,
        };
        header.nbytes()?;
        Ok(header)
    }

    /// Writes header and data (in the memory order of [`WriteOptions::order`]) to `w`.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`], [`ErrorKind::TypeMismatch`] for an explicit dtype that `T` does
    /// not fit, [`ErrorKind::ValueTooLong`], header errors of [`Header::to_bytes`], I/O errors.
    pub fn write_to<W: Write, T: NpyElement>(
        &self,
        mut w: W,
        data: &[T],
        shape: impl AsShape,
    ) -> Result<(), Error> {
        let shape: &[u64] = &shape.to_dims();
        let (dtype, plan) = self.resolve(data)?;
        check_data_len(shape, dtype.itemsize(), data.len())?;
        let header = self.header(dtype.clone(), shape, self.order.unwrap_or(MemoryOrder::C))?;
        w.write_all(&header.to_bytes(self.version)?)?;
        write_elements(&mut w, &dtype, &plan, data)?;
        w.flush()?;
        Ok(())
    }

    #[cfg(feature = "ndarray")] // used by the ndarray writers only
    /// Writes the header of an array of `shape` in `order` with elements of `dtype` (already
    /// resolved), then `values` (exactly the shape's elements, in `order`) in chunks of
    /// [`CHUNK_BYTES`]: memory bounded by one chunk of cloned elements, whatever the array.
    pub(crate) fn write_values<'v, W, T, I>(
        &self,
        mut w: W,
        (dtype, plan): (DType, T::Plan),
        shape: &[u64],
        order: MemoryOrder,
        values: I,
    ) -> Result<(), Error>
    where
        W: Write,
        T: NpyElement + Clone + 'v,
        I: IntoIterator<Item = &'v T>,
    {
        let header = self.header(dtype.clone(), shape, order)?;
        w.write_all(&header.to_bytes(self.version)?)?;
        let per_chunk = (CHUNK_BYTES / (dtype.itemsize() as usize).max(1)).max(1);
        let mut values = values.into_iter();
        let mut buf: Vec<T> = Vec::new();
        loop {
            buf.clear();
            buf.extend(values.by_ref().take(per_chunk).cloned());
            if buf.is_empty() {
                break;
            }
            write_elements(&mut w, &dtype, &plan, &buf)?;
        }
        w.flush()?;
        Ok(())
    }

    /// [`WriteOptions::write_to`] to `path`, atomically as [`write()`](fn@crate::write).
    ///
    /// # Errors
    /// As [`WriteOptions::write_to`].
    pub fn write_path<T: NpyElement>(
        &self,
        path: impl AsRef<Path>,
        data: &[T],
        shape: impl AsShape,
    ) -> Result<(), Error> {
        write_atomic(path.as_ref(), |file| self.write_to(file, data, shape))
    }

    /// Starts a streaming writer to `w` for rows of `row_shape`, counted at
    /// [`StreamWriter::finish`]: shape `(n, *row_shape)` in C order, `(*row_shape, n)` in
    /// Fortran order (the axis outermost in memory, where numpy reserves header room for
    /// Fortran arrays), so rows append.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for `[T; N]` elements in Fortran order;
    /// [`ErrorKind::TypeMismatch`]; header and I/O errors.
    ///
    /// # Examples
    /// Rows of 3 values appended along the last axis of a Fortran-order array:
    /// ```
    /// use npy_core::{NpyReader, MemoryOrder, WriteOptions};
    /// let mut file = std::io::Cursor::new(Vec::new());
    /// let mut w = WriteOptions::new()
    ///     .order(MemoryOrder::Fortran)
    ///     .stream_to::<_, f64>(&mut file, &[3])?;
    /// for i in 0..5 {
    ///     w.push_row(&[i as f64, 0.5, -1.0])?;
    /// }
    /// w.finish()?;
    /// let mut r = NpyReader::new(&file.get_ref()[..])?;
    /// assert_eq!((r.shape(), r.order()), (&[3, 5][..], MemoryOrder::Fortran));
    /// assert_eq!(r.read_vec::<f64>()?[..4], [0.0, 0.5, -1.0, 1.0]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn stream_to<W: Write + Seek, T: NpyElement>(
        &self,
        w: W,
        row_shape: impl AsShape,
    ) -> Result<StreamWriter<W, T>, Error> {
        StreamWriter::new(self, w, &row_shape.to_dims())
    }

    /// [`WriteOptions::stream_to`] a file that appears at `path` only once
    /// [`PathStreamWriter::finish`] succeeds.
    ///
    /// # Errors
    /// As [`WriteOptions::stream_to`].
    pub fn create_stream<T: NpyElement>(
        &self,
        path: impl AsRef<Path>,
        row_shape: impl AsShape,
    ) -> Result<PathStreamWriter<T>, Error> {
        let path = path.as_ref();
        let file = AtomicFile::create(path).at_path(path)?;
        let stream = StreamWriter::new(self, file, &row_shape.to_dims());
        stream.map(PathStreamWriter::new).at_path(path)
    }
}

fn write_elements<W: Write, T: NpyElement>(
    w: &mut W,
    dtype: &DType,
    plan: &T::Plan,
    data: &[T],
) -> Result<(), Error> {
    match bulk_kind::<T>(dtype) {
        Bulk::Native(layout) => {
            w.write_all(layout.as_bytes(data))?;
            return Ok(());
        }
        Bulk::Swapped(layout) => {
            let (bytes, unit) = (layout.as_bytes(data), layout.swap_unit());
            let mut buf = Vec::with_capacity(CHUNK_BYTES.min(bytes.len()));
            for chunk in bytes.chunks(per_chunk(unit, CHUNK_BYTES) * unit) {
                buf.clear();
                buf.extend_from_slice(chunk);
                swap_in_place(&mut buf, unit);
                w.write_all(&buf)?;
            }
            return Ok(());
        }
        Bulk::No => {}
    }
    let itemsize = dtype.itemsize() as usize;
    if itemsize == 0 {
        return Ok(());
    }
    let per_chunk = (CHUNK_BYTES / itemsize).max(1);
    let mut buf = vec![0u8; per_chunk.min(data.len()) * itemsize];
    for values in data.chunks(per_chunk) {
        let bytes = &mut buf[..values.len() * itemsize];
        for (v, dst) in values.iter().zip(bytes.chunks_exact_mut(itemsize)) {
            v.write(plan, dst)?;
        }
        w.write_all(bytes)?;
    }
    Ok(())
}

/// Writing back what [`read`](fn@crate::read) returned.
impl<T: NpyElement> crate::read::NpyArray<T> {
    /// Writes the array to `path` (atomically, as [`write()`](fn@crate::write)) as `np.save`
    /// writes what `np.load` returned: same shape, memory order (`fortran_order`, which
    /// `write(path, a.data(), a.shape())` would lose) and dtype with its byte order, so a file
    /// `np.save` wrote comes back byte for byte. An element type that cannot be written as the
    /// array's dtype (an `<i4` file read as `i64` with
    /// [`Casting::Safe`](crate::read::Casting::Safe)) is written as its own, as after `astype`.
    ///
    /// # Errors
    /// As [`WriteOptions::write_path`]: I/O errors, naming `path`.
    ///
    /// # Examples
    /// ```
    /// use npy_core::{NpyArray, MemoryOrder};
    /// # let dir = std::env::temp_dir().join(format!("npy-core-write-array-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// // [[1, 2, 3], [4, 5, 6]] stored column by column:
    /// let a = NpyArray::from_parts(vec![2, 3], MemoryOrder::Fortran, vec![1i16, 4, 2, 5, 3, 6])?;
    /// a.write(dir.join("f.npy"))?;
    /// let b = npy_core::read::<i16>(dir.join("f.npy"))?;
    /// assert_eq!(b.order(), MemoryOrder::Fortran);
    /// assert_eq!(b.get(&[0, 1]), Some(&2));
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let mut options = WriteOptions::new().order(self.order());
        options.dtype = Some(self.dtype().clone());
        if options.resolve(self.data()).is_err() {
            options.dtype = None; // the element type's own
        }
        options.write_path(path, self.data(), self.shape())
    }
}
