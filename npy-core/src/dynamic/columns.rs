//! The storage of a [`DynArray`](crate::DynArray): one typed [`Column`] per leaf field, gathered
//! in one pass per chunk (numbers, datetimes and `U` strings in the machine's byte order; `S`,
//! `V`, longdouble and `b1` as stored, so that `b1` bytes other than 0 and 1 write back as read),
//! and the record padding beside them ([`Gaps`]), so that the elements' bytes are rebuilt exactly
//! ([`Columns::scatter`]). Memory is the data's size, plus one chunk while reading: a tree of
//! [`DynValue`]s per element (a node per element, a name and a node per field) took 9.6× the
//! file's size on a 1M-record file of five fields.

use super::decode::Decoder;
use super::DynValue;
use crate::dtype::DType;
use crate::error::Error;
use crate::format::ByteOrder;
use crate::read::Decode;

/// One leaf field of a record (or the whole element of a non-record dtype), as a column of a
/// [`DynArray`](crate::DynArray).
///
/// # Examples
/// ```
/// use npy_core::DynValue;
/// # let dir = tempfile::tempdir()?;
/// let path = dir.path().join("r.npy");
/// let dtype = "[('id', '>i8'), ('score', '<f4')]".parse()?;
/// let mut bytes = npy_core::Header::new(dtype, vec![2]).to_bytes(None)?;
/// for (id, score) in [(7i64, 0.5f32), (-1, 2.0)] {
///     bytes.extend_from_slice(&id.to_be_bytes());
///     bytes.extend_from_slice(&score.to_le_bytes());
/// }
/// std::fs::write(&path, bytes)?;
/// let a = npy_core::read_dyn(&path)?;
/// let id = a.column("id").unwrap();
/// assert_eq!(id.path(), ["id"]);
/// assert_eq!(id.dtype().to_string(), "<i8"); // the machine's order (little-endian here)
/// assert_eq!(id.values::<i64>()?, [7i64, -1]);
/// assert!(id.values::<u64>().is_err()); // another type than the column's
/// assert_eq!((id.value(1), id.value(2)), (Some(DynValue::Int(-1)), None));
/// assert_eq!(a.column("score").unwrap().values::<f32>()?, [0.5f32, 2.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Column {
    path: Vec<String>,
    dtype: DType,
    /// Where the field sits in the element, in bytes.
    offset: usize,
    width: usize,
    /// Byte swapping between the file's order and the column's: the size of the swapped unit
    /// (0: none).
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

    /// The column's dtype: the field's, in the machine's byte order for numbers, datetimes and `U`
    /// strings (a subarray field keeps its subarray dtype, a subarray of records is one column).
    pub fn dtype(&self) -> &DType {
        &self.dtype
    }

    /// Bytes per element.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of elements (the array's).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the column has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The column's bytes: [`Column::width`] per element, in the array's memory order, in the
    /// byte order of [`Column::dtype`].
    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len * self.width]
    }

    /// The column's storage, moved out (nothing is copied): 8-byte aligned words whose first
    /// [`Column::len`] × [`Column::width`] bytes are [`Column::bytes`]; the bytes after them,
    /// up to the next word, are zero. A caller hands the vector to another owner (an Arrow
    /// `Buffer::from_vec`) and views it as numbers of the column's dtype in place.
    ///
    /// # Examples
    /// ```
    /// use npy_core::WriteOptions;
    /// let mut bytes = Vec::new();
    /// WriteOptions::new().write_to(&mut bytes, &[1u8, 2, 3], &[3])?;
    /// let a = npy_core::NpyReader::new(&bytes[..])?.read_dyn()?;
    /// let words = a.into_columns().remove(0).into_words();
    /// assert_eq!(words, [u64::from_ne_bytes([1, 2, 3, 0, 0, 0, 0, 0])]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// The values as `&[T]`, in place, when `T`'s dtype is the column's (a subarray field of
    /// `n` values gives `n` per element). Numbers are in the machine's byte order whatever the
    /// file's, so a `>f4` file's column is read as `&[f32]` on any machine.
    ///
    /// # Errors
    /// [`ErrorKind::TypeMismatch`](crate::ErrorKind::TypeMismatch) naming both dtypes when `T`'s
    /// is another type or size.
    pub fn values<T: crate::element::NpyElement + bytemuck::Pod>(&self) -> Result<&[T], Error> {
        let base = match &self.dtype {
            DType::SubArray(s) => s.flatten().1.clone(),
            d => d.clone(),
        };
        if T::npy_dtype() != base {
            return Err(crate::element::mismatch::<T>(&base));
        }
        // The column's words are 8-byte aligned and hold whole elements of `base`, which is
        // `T`'s dtype: the cast cannot fail for a `T` of alignment 8 or less.
        bytemuck::try_cast_slice(self.bytes()).map_err(|_| crate::element::mismatch::<T>(&base))
    }

    /// Element `i` (memory order) as a [`DynValue`]; `None` out of range.
    pub fn value(&self, i: usize) -> Option<DynValue> {
        if i >= self.len {
            return None;
        }
        let b = &self.bytes()[i * self.width..(i + 1) * self.width];
        self.decoder.decode(b).ok()
    }

    /// Copies this field of `rows` elements of `buf` (whole elements of `itemsize` bytes, in
    /// the file's byte order) into the column from element `first` on, which exists.
    fn gather(&mut self, buf: &[u8], itemsize: usize, first: usize, rows: usize) {
        let w = self.width;
        if w == 0 {
            return;
        }
        let out: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
        let out = &mut out[first * w..(first + rows) * w];
        let o = self.offset;
        match w {
            _ if itemsize == w => out.copy_from_slice(&buf[..rows * w]),
            // The common widths as fixed-size copies (one load and store each, not a call).
            1 => gather_fixed::<1>(out, buf, itemsize, o),
            2 => gather_fixed::<2>(out, buf, itemsize, o),
            4 => gather_fixed::<4>(out, buf, itemsize, o),
            8 => gather_fixed::<8>(out, buf, itemsize, o),
            16 => gather_fixed::<16>(out, buf, itemsize, o),
            _ => {
                for (dst, src) in out.chunks_exact_mut(w).zip(buf.chunks_exact(itemsize)) {
                    dst.copy_from_slice(&src[o..o + w]);
                }
            }
        }
        if self.swap > 1 {
            crate::codec::swap_in_place(out, self.swap);
        }
    }

    /// Writes this field of elements `first..first + rows` into `buf` (whole elements, the
    /// file's byte order): the inverse of [`Column::gather`].
    fn scatter(&self, buf: &mut [u8], itemsize: usize, first: usize, rows: usize) {
        let w = self.width;
        if w == 0 {
            return;
        }
        let src = &self.bytes()[first * w..(first + rows) * w];
        for (dst, s) in buf.chunks_exact_mut(itemsize).zip(src.chunks_exact(w)) {
            let dst = &mut dst[self.offset..self.offset + w];
            dst.copy_from_slice(s);
            if self.swap > 1 {
                crate::codec::swap_in_place(dst, self.swap);
            }
        }
    }
}

/// [`Column::gather`] of a field of `W` bytes at `offset` of elements of `itemsize` bytes.
fn gather_fixed<const W: usize>(out: &mut [u8], buf: &[u8], itemsize: usize, offset: usize) {
    for (dst, src) in out.chunks_exact_mut(W).zip(buf.chunks_exact(itemsize)) {
        let field: &[u8; W] = src[offset..offset + W].try_into().unwrap_or(&[0; W]);
        dst.copy_from_slice(field);
    }
}

/// The bytes of a record no field covers (padding), kept as read so that a read array writes
/// back as stored.
#[derive(Debug, Clone)]
struct Gaps {
    /// `(offset, len)` of each uncovered range of the element.
    ranges: Vec<(usize, usize)>,
    /// Sum of the ranges' lengths: bytes kept per element.
    per: usize,
    bytes: Vec<u8>,
}

/// The columns of an array: its leaves, and the padding when the array keeps it.
#[derive(Debug, Clone)]
pub(super) struct Columns {
    pub(super) leaves: Vec<Column>,
    gaps: Option<Gaps>,
    itemsize: usize,
    len: usize,
}

impl Columns {
    /// Empty columns of `dtype` (no object), keeping records' padding bytes if `keep_gaps` (else
    /// written as zeros); grown by [`Columns::push`] or allocated by [`Columns::reserve_exact`].
    pub(super) fn new(dtype: &DType, keep_gaps: bool) -> Result<Columns, Error> {
        let mut leaves = Vec::new();
        collect_leaves(dtype, 0, &mut Vec::new(), &mut leaves)?;
        let itemsize = crate::error::to_usize(dtype.itemsize(), "itemsize")?;
        let gaps = (keep_gaps && dtype.has_gaps()).then(|| {
            let ranges = uncovered(&leaves, itemsize);
            Gaps {
                per: ranges.iter().map(|r| r.1).sum(),
                ranges,
                bytes: Vec::new(),
            }
        });
        Ok(Columns {
            leaves,
            gaps,
            itemsize,
            len: 0,
        })
    }

    /// Allocates room for `total` elements at once (zeroed: untouched pages until filled).
    /// `total` × the itemsize is backed by bytes the caller has or will read.
    pub(super) fn reserve_exact(&mut self, total: usize) {
        for c in &mut self.leaves {
            c.words = vec![0u64; (total * c.width).div_ceil(8)];
            npy_fs::advise_huge_pages(bytemuck::cast_slice_mut(&mut c.words));
        }
        if let Some(g) = &mut self.gaps {
            g.bytes = vec![0u8; total * g.per];
        }
    }

    /// Number of elements held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Appends the elements of `buf` (whole elements in the file's byte order), growing the
    /// columns when [`Columns::reserve_exact`] did not make room.
    pub(super) fn push(&mut self, buf: &[u8]) {
        let rows = buf.len().checked_div(self.itemsize).unwrap_or(0);
        self.push_rows(buf, rows);
    }

    /// Appends `rows` elements of no bytes, or of the bytes in `buf`.
    pub(super) fn push_rows(&mut self, buf: &[u8], rows: usize) {
        let first = self.len;
        let end = first + rows;
        for c in &mut self.leaves {
            let words = (end * c.width).div_ceil(8);
            c.words.resize(c.words.len().max(words), 0);
            c.gather(buf, self.itemsize, first, rows);
            c.len = end;
        }
        if let Some(g) = &mut self.gaps {
            g.bytes.resize(g.bytes.len().max(end * g.per), 0);
            if g.per > 0 {
                let out = &mut g.bytes[first * g.per..end * g.per];
                let rows_in = buf.chunks_exact(self.itemsize);
                for (dst, src) in out.chunks_exact_mut(g.per).zip(rows_in) {
                    let mut at = 0;
                    for &(o, l) in &g.ranges {
                        dst[at..at + l].copy_from_slice(&src[o..o + l]);
                        at += l;
                    }
                }
            }
        }
        self.len = end;
    }

    /// Writes elements `first..first + rows` (which exist) into `buf`, `rows` × itemsize
    /// bytes, as the file holds them: the padding as read, or zeros when it was not kept.
    pub(super) fn scatter(&self, buf: &mut [u8], first: usize, rows: usize) {
        let size = self.itemsize;
        if size == 0 {
            return;
        }
        match &self.gaps {
            Some(g) if g.per > 0 => {
                let src = &g.bytes[first * g.per..(first + rows) * g.per];
                for (dst, s) in buf.chunks_exact_mut(size).zip(src.chunks_exact(g.per)) {
                    let mut at = 0;
                    for &(o, l) in &g.ranges {
                        dst[o..o + l].copy_from_slice(&s[at..at + l]);
                        at += l;
                    }
                }
            }
            _ => buf.fill(0),
        }
        for c in &self.leaves {
            c.scatter(buf, size, first, rows);
        }
    }

    /// Element `i` (memory order, below the length) as the tree of `dtype`, the columns'
    /// dtype: a [`DynValue::Record`] for records.
    pub(super) fn element(&self, dtype: &DType, i: usize) -> Option<DynValue> {
        if i >= self.len {
            return None;
        }
        let mut next = 0;
        self.build(dtype, i, &mut next)
    }

    fn build(&self, dtype: &DType, i: usize, next: &mut usize) -> Option<DynValue> {
        match dtype {
            DType::Record(r) => {
                let mut fields = Vec::with_capacity(r.fields().len());
                for f in r.fields() {
                    fields.push((f.name.to_string(), self.build(&f.dtype, i, next)?));
                }
                Some(DynValue::Record(fields))
            }
            _ => {
                let c = self.leaves.get(*next)?;
                *next += 1;
                c.value(i)
            }
        }
    }

    /// Bytes the columns hold (the data without padding, plus the padding when kept).
    #[cfg(test)]
    pub(super) fn heap_bytes(&self) -> usize {
        self.leaves.iter().map(|c| c.words.len() * 8).sum::<usize>()
            + self.gaps.as_ref().map_or(0, |g| g.bytes.len())
    }
}

/// The `(offset, len)` ranges of an element of `itemsize` bytes that no leaf covers.
fn uncovered(leaves: &[Column], itemsize: usize) -> Vec<(usize, usize)> {
    let span = |c: &Column| (c.width > 0).then_some((c.offset, c.offset + c.width));
    let mut spans: Vec<(usize, usize)> = leaves.iter().filter_map(span).collect();
    spans.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for (start, end) in spans {
        if start > at {
            out.push((at, start - at));
        }
        at = at.max(end);
    }
    if itemsize > at {
        out.push((at, itemsize - at));
    }
    out
}

/// The machine-order dtype of a leaf and the unit its gathered bytes are swapped in.
fn native_leaf(dtype: &DType) -> (DType, usize) {
    use crate::dtype::Primitive::*;
    let base = match dtype {
        DType::SubArray(s) => s.flatten().1,
        d => d,
    };
    let unit = match base {
        DType::Number(C64, _) => 4,
        DType::Number(C128, _) => 8,
        // x87 / binary128 bytes are kept as stored (their decoder reads the order).
        DType::Number(LongDouble { .. } | CLongDouble { .. }, _) => 0,
        DType::Number(p, _) => p.itemsize() as usize,
        DType::Time(..) => 8,
        DType::Unicode(..) => 4,
        _ => 0,
    };
    match dtype.byte_order() {
        o if unit == 0 || o == ByteOrder::NATIVE || o == ByteOrder::NotApplicable => {
            (dtype.clone(), 0)
        }
        _ => (dtype.with_byte_order(ByteOrder::NATIVE), unit),
    }
}

/// Appends the leaf columns of `dtype`, at `offset` of the element and named by `path`, to `out`.
fn collect_leaves(
    dtype: &DType,
    offset: usize,
    path: &mut Vec<String>,
    out: &mut Vec<Column>,
) -> Result<(), Error> {
    if let DType::Record(r) = dtype {
        for f in r.fields() {
            path.push(f.name.to_string());
            let at = crate::error::to_usize(f.offset, "record field offset")?;
            // Record::new keeps every field inside its record, whose offset fits the itemsize.
            collect_leaves(&f.dtype, offset + at, path, out)?;
            path.pop();
        }
        return Ok(());
    }
    let (native, swap) = native_leaf(dtype);
    out.push(Column {
        path: path.clone(),
        decoder: Decoder::new(&native)?,
        width: crate::error::to_usize(dtype.itemsize(), "itemsize")?,
        dtype: native,
        offset,
        swap,
        words: Vec::new(),
        len: 0,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Record;

    /// The padding of a record with a gap between fields and at its end (numpy's
    /// `align=True` layout of `[('a', 'u1'), ('b', '<u4')]` plus 3 bytes of tail) is found,
    /// kept, and written back byte for byte.
    #[test]
    fn padding_is_kept_and_rebuilt() {
        let field = |name: &str, descr: &str, offset| crate::dtype::Field {
            name: name.into(),
            title: None,
            dtype: descr.parse().unwrap(),
            offset,
        };
        let fields = vec![field("a", "|u1", 0), field("b", "<u4", 4)];
        let dtype = DType::Record(Record::new(fields, 11).unwrap());
        let mut c = Columns::new(&dtype, true).unwrap();
        let g = c.gaps.as_ref().unwrap();
        assert_eq!(g.ranges, [(1, 3), (8, 3)]);
        let bytes: Vec<u8> = (0u8..22).collect();
        c.push(&bytes);
        assert_eq!(c.len(), 2);
        let mut back = vec![0xAA; 22];
        c.scatter(&mut back, 0, 2);
        assert_eq!(back, bytes);
        assert_eq!(c.heap_bytes(), 8 + 8 + 2 * 6);
        // Without keeping the padding, it is written as zeros.
        let mut c = Columns::new(&dtype, false).unwrap();
        c.push(&bytes);
        c.scatter(&mut back, 1, 1);
        assert_eq!(back[..11], [11, 0, 0, 0, 15, 16, 17, 18, 0, 0, 0]);
    }
}
