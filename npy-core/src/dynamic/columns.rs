//! [`DynColumns`]: a dynamic read held as one typed column per leaf field, not as a tree.
//!
//! [`read_dyn`](crate::read_dyn) builds a [`DynValue`] per element, and for a record a name and
//! a node per field per element: on a 1M-record file of five fields that is 9.6× the file's
//! size in memory. [`read_columns`] reads the same files into columns that hold the file's
//! bytes of each leaf field, gathered field by field in one pass per 8 MiB chunk: numbers,
//! datetimes and `U` strings in the machine's byte order (so that numbers can be viewed as
//! `&[T]`), `S`/`V`/longdouble bytes as stored. Memory is about the data's size (padding
//! dropped), plus one chunk. The tree form stays available per element
//! ([`DynColumns::element`]), decoded by the same decoder as `read_dyn`, so both give equal
//! values.

use std::io::Read;
use std::path::Path;

use super::decode::Decoder;
use super::DynValue;
use crate::dtype::{DType, Record, SubArray};
use crate::error::{Error, ErrorKind, PathContext};
use crate::format::ByteOrder;
use crate::meta::{meta_accessors, ArrayMeta};
use crate::read::{Decode, NpyReader};

/// Bytes of file data gathered per chunk.
const CHUNK_BYTES: usize = 8 << 20;

/// One leaf field of a record (or the whole element of a non-record dtype), as a column.
#[derive(Debug, Clone)]
pub struct Column {
    path: Vec<String>,
    dtype: DType,
    offset: usize,
    width: usize,
    /// Byte swapping needed at gather time: the size of the swapped unit (0: none).
    swap: usize,
    /// The column's bytes, `width` per element; `u64`s so that any number type can be viewed
    /// in place (alignment 8).
    words: Vec<u64>,
    len: usize,
    decoder: Decoder,
}

impl Column {
    /// The field's names from the top-level record down (`["pos", "x"]`); empty for the
    /// element of a non-record array.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// The column's dtype: the field's, in the machine's byte order for numbers, datetimes
    /// and `U` strings (a subarray field keeps its subarray dtype).
    pub fn dtype(&self) -> &DType {
        &self.dtype
    }

    /// Bytes per element.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The column's bytes: `width()` per element, in the array's memory order.
    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len * self.width]
    }

    /// The values as `&[T]` when `T`'s dtype is the column's (a subarray field of `n` values
    /// gives `n` per element), in place; `None` otherwise.
    ///
    /// # Examples
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("r.npy");
    /// let dtype = "[('id', '>i8'), ('score', '<f4')]".parse()?;
    /// let mut bytes = npy_core::Header::new(dtype, vec![2]).to_bytes(None)?;
    /// for (id, score) in [(7i64, 0.5f32), (-1, 2.0)] {
    ///     bytes.extend_from_slice(&id.to_be_bytes());
    ///     bytes.extend_from_slice(&score.to_le_bytes());
    /// }
    /// std::fs::write(&path, bytes)?;
    /// let cols = npy_core::read_columns(&path)?;
    /// assert_eq!(cols.column("id").unwrap().values::<i64>(), Some(&[7i64, -1][..]));
    /// assert_eq!(cols.column("score").unwrap().values::<f32>(), Some(&[0.5f32, 2.0][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn values<T: crate::element::NpyElement + bytemuck::Pod>(&self) -> Option<&[T]> {
        let base = match &self.dtype {
            DType::SubArray(s) => s.flatten().1.clone(),
            d => d.clone(),
        };
        if T::npy_dtype() != base {
            return None;
        }
        bytemuck::try_cast_slice(self.bytes()).ok()
    }

    /// Element `i` of the column as a [`DynValue`] (as `read_dyn` decodes it).
    ///
    /// # Errors
    /// `None` when `i` is out of bounds.
    pub fn value(&self, i: usize) -> Option<DynValue> {
        if i >= self.len {
            return None;
        }
        let b = &self.bytes()[i * self.width..(i + 1) * self.width];
        self.decoder.decode(b).ok()
    }
}

/// An array of any dtype as columns ([`read_columns`]); see the module docs.
#[derive(Debug, Clone)]
pub struct DynColumns {
    meta: ArrayMeta,
    columns: Vec<Column>,
}

impl DynColumns {
    meta_accessors!();

    /// Number of elements (records, for a record dtype).
    pub fn len(&self) -> usize {
        // In memory: every column holds this many values, so it fits.
        self.meta.num_elements() as usize
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// The leaf columns, in the dtype's field order (depth first).
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column of the field at dotted `path` (`"pos.x"`; `""` for a non-record array).
    pub fn column(&self, path: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.path.join(".") == path)
    }

    /// Element `i` (memory order, as [`DynArray::values`](crate::DynArray::values)) as the
    /// tree `read_dyn` gives: a [`DynValue::Record`] for records.
    pub fn element(&self, i: usize) -> Option<DynValue> {
        if i as u64 >= self.meta.num_elements() {
            return None;
        }
        let mut next = 0;
        Some(self.build(self.meta.dtype(), i, &mut next))
    }

    /// The elements as trees, in memory order.
    pub fn iter(&self) -> impl Iterator<Item = DynValue> + '_ {
        (0..self.meta.num_elements() as usize).filter_map(|i| self.element(i))
    }

    fn build(&self, dtype: &DType, i: usize, next: &mut usize) -> DynValue {
        match dtype {
            DType::Record(r) => DynValue::Record(
                r.fields()
                    .iter()
                    .map(|f| (f.name.to_string(), self.build(&f.dtype, i, next)))
                    .collect(),
            ),
            _ => {
                let c = &self.columns[*next];
                *next += 1;
                // Unreachable from input: every column was filled with one value per element
                // of the array, and `i` is below its length.
                c.value(i).expect("columns hold every element")
            }
        }
    }
}

/// The machine-order dtype of a leaf and the unit its gathered bytes are swapped in.
fn native_leaf(dtype: &DType) -> (DType, usize) {
    let swap = |o: ByteOrder, unit: usize| {
        if o == ByteOrder::NATIVE || o == ByteOrder::NotApplicable {
            (o, 0)
        } else {
            (ByteOrder::NATIVE, unit)
        }
    };
    match dtype {
        DType::Number(p, o) => {
            use crate::dtype::Primitive::*;
            let unit = match p {
                C64 => 4,
                C128 => 8,
                // x87 / binary128 bytes are kept as stored (their decoder reads the order).
                LongDouble { .. } | CLongDouble { .. } => return (dtype.clone(), 0),
                _ => p.itemsize() as usize,
            };
            let (o, s) = swap(*o, unit);
            (DType::Number(*p, o), s)
        }
        DType::Time(t, o) => {
            let (o, s) = swap(*o, 8);
            (DType::Time(*t, o), s)
        }
        DType::Unicode(n, o) => {
            let (o, s) = swap(*o, 4);
            (DType::Unicode(*n, o), s)
        }
        DType::SubArray(sub) => {
            let (base, s) = native_leaf(sub.base());
            // The shape was valid for the file's base, so it is for the same base re-ordered.
            let rebuilt = SubArray::new(base, sub.shape().to_vec())
                .map_or_else(|_| dtype.clone(), DType::SubArray);
            (rebuilt, s)
        }
        other => (other.clone(), 0),
    }
}

fn leaves(
    dtype: &DType,
    offset: usize,
    path: &mut Vec<String>,
    out: &mut Vec<Column>,
) -> Result<(), Error> {
    if let DType::Record(r) = dtype {
        return record_leaves(r, offset, path, out);
    }
    let (native, swap) = native_leaf(dtype);
    out.push(Column {
        path: path.clone(),
        decoder: Decoder::new(&native)?,
        width: dtype.itemsize() as usize,
        dtype: native,
        offset,
        swap,
        words: Vec::new(),
        len: 0,
    });
    Ok(())
}

fn record_leaves(
    r: &Record,
    offset: usize,
    path: &mut Vec<String>,
    out: &mut Vec<Column>,
) -> Result<(), Error> {
    for f in r.fields() {
        path.push(f.name.to_string());
        leaves(&f.dtype, offset + f.offset as usize, path, out)?;
        path.pop();
    }
    Ok(())
}

/// Reads the `.npy` file at `path`, whatever its dtype (object arrays aside), into
/// [`DynColumns`]: one column per leaf field (see the module docs).
///
/// Allocation is bounded by the file: a header claiming more data than the file holds is
/// [`ErrorKind::Truncated`] before any column is allocated, and the columns together hold at
/// most the data's bytes.
///
/// # Errors
/// I/O and header errors, [`ErrorKind::Truncated`], [`ErrorKind::ObjectArray`](crate::ErrorKind::ObjectArray)
/// (object arrays hold a pickle: use [`read_dyn`](crate::read_dyn)), each naming `path`.
///
/// # Examples
/// ```
/// use npy_core::DynValue;
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("p.npy");
/// let dtype = "[('x', '<f4'), ('tag', '<U3')]".parse()?;
/// let mut bytes = npy_core::Header::new(dtype, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(&1.5f32.to_le_bytes());
/// for c in ['a', 'b', '\0'] {
///     bytes.extend_from_slice(&u32::from(c).to_le_bytes());
/// }
/// std::fs::write(&path, bytes)?;
/// let cols = npy_core::read_columns(&path)?;
/// assert_eq!(cols.columns().len(), 2);
/// let e = cols.element(0).unwrap();
/// assert_eq!(e.field("x"), Some(&DynValue::Float(1.5)));
/// assert_eq!(e, npy_core::read_dyn(&path)?.values()[0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_columns(path: impl AsRef<Path>) -> Result<DynColumns, Error> {
    let path = path.as_ref();
    read_columns_at(path).at_path(path)
}

fn read_columns_at(path: &Path) -> Result<DynColumns, Error> {
    let reader = NpyReader::open(path)?;
    let meta = reader.meta().clone();
    let dtype = meta.dtype().clone();
    // Object arrays hold one pickle, not fields: refused by name (read_dyn decodes them).
    dtype.refuse_object()?;
    let nbytes = meta.nbytes();
    let available = std::fs::metadata(path)?
        .len()
        .saturating_sub(meta.data_offset());
    if available < nbytes {
        return Err(Error::new(ErrorKind::Truncated {
            what: "array data",
            needed: nbytes,
            found: available,
        }));
    }
    let mut columns = Vec::new();
    leaves(&dtype, 0, &mut Vec::new(), &mut columns)?;
    let n = meta.num_elements() as usize;
    let itemsize = meta.itemsize() as usize;
    for c in &mut columns {
        // Sizes proven by the file's length: n × width ≤ n × itemsize ≤ nbytes.
        c.words = vec![0u64; (n * c.width).div_ceil(8)];
        c.len = n;
    }
    if itemsize == 0 {
        // Elements of no bytes (`S0`, `[]`): nothing to read, however many the shape claims.
        return Ok(DynColumns { meta, columns });
    }
    let mut data = reader.into_inner();
    let rows_per = (CHUNK_BYTES / itemsize.max(1)).max(1);
    let mut chunk = vec![0u8; rows_per.min(n) * itemsize];
    let mut done = 0usize;
    while done < n {
        let rows = rows_per.min(n - done);
        let buf = &mut chunk[..rows * itemsize];
        data.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::new(ErrorKind::Truncated {
                    what: "array data",
                    needed: nbytes,
                    found: (done * itemsize) as u64,
                })
            } else {
                e.into()
            }
        })?;
        for c in &mut columns {
            gather(c, buf, itemsize, done, rows);
        }
        done += rows;
    }
    Ok(DynColumns { meta, columns })
}

/// Copies field `c` of `rows` records of `buf` into its column from element `first` on,
/// swapping to the machine's order where its dtype needs it.
fn gather(c: &mut Column, buf: &[u8], itemsize: usize, first: usize, rows: usize) {
    let w = c.width;
    if w == 0 {
        return;
    }
    let out: &mut [u8] = bytemuck::cast_slice_mut(&mut c.words);
    let out = &mut out[first * w..(first + rows) * w];
    if itemsize == w && c.offset == 0 {
        out.copy_from_slice(&buf[..rows * w]);
    } else {
        for (dst, src) in out.chunks_exact_mut(w).zip(buf.chunks_exact(itemsize)) {
            dst.copy_from_slice(&src[c.offset..c.offset + w]);
        }
    }
    if c.swap > 1 {
        for unit in out.chunks_exact_mut(c.swap) {
            unit.reverse();
        }
    }
}
