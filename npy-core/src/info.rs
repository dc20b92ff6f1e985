//! [`TensorInfo`]: the summary of one `.npy` file, read from its header alone.

use std::io::{BufReader, Read};
use std::path::Path;

use crate::dtype::{ByteOrder, Canonical, DType};
use crate::error::{Error, PathContext};
use crate::format::{MemoryOrder, Version};
use crate::header::{Header, ParsedHeader, ReadOptions};
use crate::meta::ArrayMeta;

/// What a `.npy` file holds, from its header: the tensor's name (a `.npy` file stores none:
/// the file stem), dtype, shape and layout.
///
/// # Examples
/// ```
/// use npy_core::TensorInfo;
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("w_f32.npy");
/// npy_core::write(&path, &vec![0f32; 256], &[4, 64])?;
/// let info = TensorInfo::from_path(&path)?;
/// assert_eq!(info.name, "w_f32");
/// assert_eq!((info.dtype.to_string(), &info.shape[..]), ("<f4".to_owned(), &[4, 64][..]));
/// assert_eq!((info.nbytes, info.data_offset), (1024, 128));
/// assert_eq!(info.canonical.map(|c| c.name()), Some("float32"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// The name: the file stem.
    pub name: String,
    /// The dtype (`descr`).
    pub dtype: DType,
    /// The canonical dtype of the number table, if the dtype has one.
    pub canonical: Option<Canonical>,
    /// Logical shape, outermost first, in both orders.
    pub shape: Vec<u64>,
    /// C or Fortran order.
    pub order: MemoryOrder,
    /// The dtype's byte order.
    pub byte_order: ByteOrder,
    /// Bytes per element.
    pub itemsize: u64,
    /// Bytes of array data: `prod(shape) × itemsize`.
    pub nbytes: u64,
    /// Offset of the data from the start of the file, in bytes.
    pub data_offset: u64,
    /// The format version.
    pub version: Version,
    /// The `HEADER_LEN` field, in bytes.
    pub header_len: u64,
    /// The header text as stored (padding included).
    pub header: String,
}

impl TensorInfo {
    /// Reads the header of the file at `path`.
    ///
    /// # Errors
    /// I/O errors and header errors ([`Header::read`]), naming the file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<TensorInfo, Error> {
        let path = path.as_ref();
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let read = || -> Result<TensorInfo, Error> {
            let mut r = BufReader::new(npy_fs::open_regular(path)?);
            TensorInfo::from_reader(name, &mut r)
        };
        read().at_path(path)
    }

    /// Reads a header from `r` (left at the start of the data) and names the tensor `name`.
    ///
    /// # Errors
    /// Header errors ([`Header::read`]).
    pub fn from_reader<R: Read + ?Sized>(
        name: impl Into<String>,
        r: &mut R,
    ) -> Result<TensorInfo, Error> {
        TensorInfo::from_reader_with(name, r, &ReadOptions::default())
    }

    /// [`TensorInfo::from_reader`] with a read's options (their header limits and type hint).
    ///
    /// # Errors
    /// As [`TensorInfo::from_reader`].
    pub fn from_reader_with<R: Read + ?Sized>(
        name: impl Into<String>,
        r: &mut R,
        options: &ReadOptions,
    ) -> Result<TensorInfo, Error> {
        let meta = ArrayMeta::new(Header::read_with(r, options)?)?;
        let (nbytes, offset) = (meta.nbytes(), meta.data_offset());
        let parsed = meta.into_parsed_header();
        Ok(TensorInfo::from_parts(name.into(), parsed, nbytes, offset))
    }

    /// The info of tensor `name` of header `parsed`, its data `nbytes` bytes at `data_offset`:
    /// the fields a header implies derived here for every way of making one.
    pub(crate) fn from_parts(
        name: String,
        parsed: ParsedHeader,
        nbytes: u64,
        data_offset: u64,
    ) -> TensorInfo {
        let h = parsed.header;
        TensorInfo {
            name,
            canonical: h.dtype.canonical(),
            byte_order: h.dtype.byte_order(),
            itemsize: h.dtype.itemsize(),
            dtype: h.dtype,
            shape: h.shape,
            order: MemoryOrder::from_fortran_order(h.fortran_order),
            nbytes,
            data_offset,
            version: parsed.version,
            header_len: parsed.header_len,
            header: parsed.text,
        }
    }
}
