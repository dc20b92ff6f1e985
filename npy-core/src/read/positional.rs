//! Arrays over a range source ([`ReadAt`]), [`NpyReader::open_at`]: what a remote store needs.
//! A source that pays per request (an object store, HTTP) is asked once for the header (twice if
//! longer than the first read) and once per range; decoding is the [`NpyReader`]'s own.

use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;

use super::{NpyArray, NpyReader, ReadOptions};
use crate::codec::checked_product;
use crate::element::NpyElement;
use crate::error::Error;
#[cfg(doc)]
use crate::error::ErrorKind;
use crate::header::{parse_prefix, Header, ParsedHeader, Prefix};
use crate::io::ReadAt;
use crate::meta::{check_within, ArrayMeta};

/// Bytes of the first read of [`NpyReader::open_at`]: the header of every array `np.save` writes
/// (128 bytes for up to a few dimensions, a few KiB for wide records) and the first rows of
/// many, which later reads then take from memory.
pub const FIRST_READ_BYTES: usize = 64 << 10;

/// The most bytes a [`SourceCursor`] buffers for a read decoded element by element or
/// byte-swapped: a range up to this size is one read of the source, a larger one one per this.
pub const MAX_WINDOW_BYTES: usize = 64 << 20;

/// Bytes a [`SourceCursor`] reads ahead for a small read outside a span, as a buffered reader.
pub const READ_AHEAD_BYTES: usize = 64 << 10;

/// Where the header that starts with `prefix` ends: `Some(data offset)` once `prefix` holds the
/// magic string, the version and the header length field (whether a remote reader's first read
/// held the header, or what to fetch next); `None` for a shorter prefix matching the magic.
///
/// # Errors
/// [`ErrorKind::NotNpy`] for a prefix that is not a `.npy` file's,
/// [`ErrorKind::UnsupportedVersion`], [`ErrorKind::HeaderTooLong`] (`options.get_max_header_len()`:
/// checked before any byte of the header itself is read).
pub fn header_extent(prefix: &[u8], options: &ReadOptions) -> Result<Option<u64>, Error> {
    Ok(match parse_prefix(prefix, options)? {
        Prefix::Whole(version, header_len) => Some(version.prefix_len() + header_len),
        Prefix::Short(_) => None,
    })
}

/// Reads the header at the start of `source`: one read of `first_read` bytes, then only for a
/// longer header reads of the rest, each at most as long as what is held (memory stays within
/// twice the source's bytes, whatever the length field claims). Returns it and the bytes read.
fn read_header<S: ReadAt + ?Sized>(
    source: &S,
    first_read: usize,
    options: &ReadOptions,
) -> Result<(ParsedHeader, Vec<u8>), Error> {
    let mut head = vec![0u8; first_read.max(16)];
    let n = source.read_at(&mut head, 0)?;
    head.truncate(n);
    // A short first read holds all there is: no read of the rest (the parse says what is missing).
    let end = if n == first_read.max(16) {
        header_extent(&head, options)?.unwrap_or(0)
    } else {
        0
    };
    while (head.len() as u64) < end {
        let have = head.len();
        let more = usize::try_from(end - have as u64)
            .unwrap_or(usize::MAX)
            .min(have.max(1));
        head.resize(have + more, 0);
        let got = source.read_at(&mut head[have..], have as u64)?;
        head.truncate(have + got);
        if got < more {
            break; // the source ended: the parse below says what is missing
        }
    }
    let parsed = Header::read_with(&mut &head[..], options)?;
    Ok((parsed, head))
}

/// A range source ([`ReadAt`]) read by position, what [`NpyReader::open_at`] reads through: its
/// reader's reads take `&self` (one reader, or its clones, cheap when `S` is, serves several
/// threads), each one read of exactly its bytes, none inside the first read's. A read's memory
/// is its output, plus for dtypes decoded element by element or byte-swapped the range's bytes
/// ([`MAX_WINDOW_BYTES`] at a time); nothing is sized by the header's claim before the source's
/// length backs it. Not a [`Read`]: `iter`, `read_into`, ... come from [`NpyReader::stream`].
#[derive(Debug, Clone)]
pub struct Positional<S> {
    source: S,
    options: ReadOptions,
    /// The source's length in bytes.
    size: u64,
    /// The first bytes of the source (the first read), served from memory.
    head: Vec<u8>,
}

/// The positional reader: `&self` reads of rows, element ranges, several ranges at once and
/// the whole array, each one read of the source.
///
/// # Examples
/// ```
/// use npy_core::{NpyReader, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &(0..12).collect::<Vec<i32>>(), &[4, 3])?;
/// let a = NpyReader::open_at(bytes)?; // any ReadAt: a File, a Vec<u8>, a remote object
/// assert_eq!(a.shape(), [4, 3]);
/// assert_eq!(a.read_rows::<i32>(1..3)?, [3, 4, 5, 6, 7, 8]);
/// assert_eq!(a.read_ranges::<i32>(&[0..2, 10..12])?, [vec![0, 1], vec![10, 11]]);
/// assert_eq!(a.row_byte_range(1..3)?, 128 + 12..128 + 36); // rows of 3 four-byte elements
/// assert_eq!(a.read_vec::<i32>()?.len(), 12);
/// # Ok::<(), npy_core::Error>(())
/// ```
impl<S: ReadAt> NpyReader<Positional<S>> {
    /// Reads the header of `source` (a first read of [`FIRST_READ_BYTES`]) and its length.
    ///
    /// # Errors
    /// Header errors ([`Header::read`]), [`ErrorKind::SizeOverflow`], the source's I/O errors.
    pub fn open_at(source: S) -> Result<Self, Error> {
        NpyReader::open_at_with(source, &ReadOptions::default())
    }

    /// [`NpyReader::open_at`] with read options (header limits, strict bools, casting, hint).
    ///
    /// # Errors
    /// As [`NpyReader::open_at`].
    pub fn open_at_with(source: S, options: &ReadOptions) -> Result<Self, Error> {
        NpyReader::open_at_reading(source, options, FIRST_READ_BYTES)
    }

    /// [`NpyReader::open_at_with`] whose first read is `first_read` bytes (at least 16): for a
    /// remote store that sized its first request itself.
    ///
    /// # Errors
    /// As [`NpyReader::open_at`].
    #[doc(hidden)]
    pub fn open_at_reading(
        source: S,
        options: &ReadOptions,
        first_read: usize,
    ) -> Result<Self, Error> {
        let (parsed, head) = read_header(&source, first_read, options)?;
        let size = source.size()?;
        let mut s = NpyReader::from_parts(source, parsed, size, options)?;
        s.inner_mut().head = head;
        Ok(s)
    }

    /// An array over `source` (`size` bytes) whose `header` was read already, e.g. by a remote
    /// reader's own first request; no read happens. The source may hold only part of the
    /// bytes (a [`FetchedRange`]): reads ask it for the bytes they decode and nothing else.
    ///
    /// # Errors
    /// [`ErrorKind::SizeOverflow`] when the header's sizes do not fit in 64 bits.
    #[doc(hidden)]
    pub fn from_parts(
        source: S,
        header: ParsedHeader,
        size: u64,
        options: &ReadOptions,
    ) -> Result<Self, Error> {
        let meta = ArrayMeta::new(header)?;
        let positional = Positional {
            source,
            options: *options,
            size,
            head: Vec::new(),
        };
        Ok(NpyReader::from_meta(positional, meta, options))
    }

    /// The source's length in bytes, as found when opening.
    pub fn source_len(&self) -> u64 {
        self.inner().size
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.inner().source
    }

    /// The source, giving up the header.
    pub fn into_source(self) -> S {
        self.into_inner().source
    }

    /// The bytes of the first read (header included), which reads take from memory.
    pub fn head(&self) -> &[u8] {
        &self.inner().head
    }

    /// A streaming reader of the data from its first element ([`NpyReader::iter`],
    /// [`NpyReader::read_into`], ...); its reads go to the source as they come.
    pub fn stream(&self) -> NpyReader<SourceCursor<'_, S>> {
        let p = self.inner();
        let cursor = SourceCursor {
            source: &p.source,
            head: &p.head,
            size: p.size,
            pos: self.data_offset(),
            span_end: self.data_offset(),
            window: Vec::new(),
            window_at: 0,
        };
        NpyReader::from_meta(cursor, self.meta().clone(), &p.options)
            .with_available_bytes(p.size.saturating_sub(self.data_offset()))
    }

    /// A reader whose cursor reads the bytes up to `span_end` in one read of the source.
    pub(crate) fn reader_to(&self, span_end: u64) -> NpyReader<SourceCursor<'_, S>> {
        let mut r = self.stream();
        r.inner_mut().span_end = span_end;
        r
    }

    /// The byte range in the source of elements `range` of `T` (memory order; a `[U; N]`
    /// counts one element per trailing subarray, as typed reads do).
    ///
    /// # Errors
    /// [`ErrorKind::OutOfRange`] for a reversed range or one past the end;
    /// [`ErrorKind::TypeMismatch`] when `T` does not read this dtype.
    pub fn byte_range<T: NpyElement>(&self, range: Range<u64>) -> Result<Range<u64>, Error> {
        let mut r = self.stream();
        let each = r.fold_for::<T>()?;
        check_within("element range", &range, r.num_elements())?;
        // Within the array's bytes, which fit in 64 bits.
        let at = self.data_offset();
        Ok(at + range.start * each..at + range.end * each)
    }

    /// The element range (memory order, in `T`) of rows `rows` of a C-order array.
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for Fortran-order or 0-d arrays, [`ErrorKind::OutOfRange`]
    /// for rows outside the array.
    pub fn row_elements<T: NpyElement>(&self, rows: Range<u64>) -> Result<Range<u64>, Error> {
        self.stream().row_elements_of::<T>(&rows)
    }

    /// The byte range in the source of rows `rows` of a C-order array, whatever its dtype:
    /// for callers that decode rows themselves (an Arrow batch of them).
    ///
    /// # Errors
    /// As [`NpyReader::row_elements`], without its type check.
    pub fn row_byte_range(&self, rows: Range<u64>) -> Result<Range<u64>, Error> {
        let dims = self.meta().row_dims(&rows)?;
        // Within the array's bytes, which fit in 64 bits (checked when the header was read;
        // a row of zero rows may not, and is never multiplied by more than 0).
        let row = checked_product(self.meta().itemsize(), dims).unwrap_or(u64::MAX);
        let at = self.data_offset();
        Ok(at.saturating_add(rows.start * row)..at.saturating_add(rows.end * row))
    }

    /// Reads the whole array into a vector, in the file's memory order: one read of the
    /// source (less what the first read holds).
    ///
    /// # Errors
    /// As [`NpyReader::read_vec`].
    pub fn read_vec<T: NpyElement>(&self) -> Result<Vec<T>, Error> {
        self.whole_reader::<T>()?.read_vec()
    }

    /// A reader of the whole array as `T`, its span set to the array's bytes so that the
    /// cursor reads them in one read of the source.
    fn whole_reader<T: NpyElement>(&self) -> Result<NpyReader<SourceCursor<'_, S>>, Error> {
        let mut r = self.reader_to(self.data_offset().saturating_add(self.meta().nbytes()));
        r.fold_for::<T>()?;
        Ok(r)
    }

    /// Reads the whole array with its shape and order.
    ///
    /// # Errors
    /// As [`NpyReader::read_vec`].
    pub fn read_array<T: NpyElement>(&self) -> Result<NpyArray<T>, Error> {
        let mut r = self.whole_reader::<T>()?;
        let data = r.read_vec()?;
        NpyArray::from_meta(r.meta().clone(), data)
    }

    /// Reads elements `range` (memory order) in one read of the source.
    ///
    /// # Errors
    /// As [`NpyReader::read_range`].
    pub fn read_range<T: NpyElement>(&self, range: Range<u64>) -> Result<Vec<T>, Error> {
        let bytes = self.byte_range::<T>(range.clone())?;
        // The reader folds subarray dimensions as `byte_range` did.
        self.reader_to(bytes.end).read_range(range)
    }

    /// Reads rows `rows` of a C-order array in one read of the source.
    ///
    /// # Errors
    /// As [`NpyReader::read_rows`].
    pub fn read_rows<T: NpyElement>(&self, rows: Range<u64>) -> Result<Vec<T>, Error> {
        self.read_range(self.row_elements::<T>(rows)?)
    }

    /// Reads several element ranges (memory order), their bytes fetched with one
    /// [`ReadAt::read_ranges`] call (one request per group of nearby ranges on a source that
    /// coalesces them).
    ///
    /// # Errors
    /// As [`NpyReader::read_range`] for each range, checked before anything is read.
    pub fn read_ranges<T: NpyElement>(&self, ranges: &[Range<u64>]) -> Result<Vec<Vec<T>>, Error> {
        let bytes = ranges
            .iter()
            .map(|r| self.byte_range::<T>(r.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        // The source's length shows the bytes are there before a buffer of each range's
        // length is allocated (a header may claim far more than the file holds).
        let p = self.inner();
        if let Some(r) = bytes.iter().find(|r| r.end > p.size) {
            return Err(Error::truncated(
                "array data",
                r.end - self.data_offset(),
                p.size.saturating_sub(self.data_offset()),
            ));
        }
        let fetched = p.source.read_ranges(&bytes)?;
        ranges
            .iter()
            .zip(bytes.iter().zip(fetched))
            .map(|(range, (at, data))| {
                let part = FetchedRange::new(at.start, data);
                NpyReader::from_parts(part, self.parsed_header().clone(), p.size, &p.options)?
                    .read_range::<T>(range.clone())
            })
            .collect()
    }
}

/// Bytes fetched from a larger source (its bytes at `offset..`), a [`ReadAt`] of them: for
/// decoding a range fetched by other means (an async request) with [`NpyReader::from_parts`].
#[derive(Debug, Clone)]
pub struct FetchedRange<B> {
    offset: u64,
    bytes: B,
}

impl<B: AsRef<[u8]>> FetchedRange<B> {
    /// `bytes`, found at `offset` of their source.
    pub fn new(offset: u64, bytes: B) -> Self {
        FetchedRange { offset, bytes }
    }

    /// Where the bytes start in their source.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The bytes.
    pub fn bytes(&self) -> &B {
        &self.bytes
    }
}

impl<B: AsRef<[u8]>> ReadAt for FetchedRange<B> {
    /// The end of the fetched bytes (the source may be longer).
    fn size(&self) -> io::Result<u64> {
        Ok(self.offset.saturating_add(self.bytes.as_ref().len() as u64))
    }

    /// Reads inside the fetched bytes; a read that starts before them is
    /// [`io::ErrorKind::InvalidInput`], one at or past their end reads 0 bytes.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let Some(rel) = offset.checked_sub(self.offset) else {
            let from = self.offset;
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("offset {offset} is before the fetched bytes (from {from})"),
            ));
        };
        self.bytes.as_ref().read_at(buf, rel)
    }
}

/// A [`Read`] + [`Seek`] cursor on a [`ReadAt`], what [`NpyReader::stream`] reads through: reads
/// inside the first read's bytes come from memory, one covering the rest of the span being read
/// goes to the source, a smaller one fetches the span's rest (at most [`MAX_WINDOW_BYTES`]; out
/// of a span, [`READ_AHEAD_BYTES`]) and serves the following reads from it.
#[derive(Debug)]
pub struct SourceCursor<'a, S: ?Sized> {
    source: &'a S,
    head: &'a [u8],
    size: u64,
    pos: u64,
    /// Where the current operation's bytes end: a read before it fetches up to it.
    span_end: u64,
    window: Vec<u8>,
    window_at: u64,
}

impl<S: ReadAt + ?Sized> Read for SourceCursor<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let window_end = self.window_at + self.window.len() as u64;
        let held = match usize::try_from(self.pos) {
            Ok(at) if at < self.head.len() => &self.head[at..],
            _ if self.pos >= self.window_at && self.pos < window_end => {
                &self.window[(self.pos - self.window_at) as usize..]
            }
            _ => &[],
        };
        if !held.is_empty() {
            let n = out.len().min(held.len());
            out[..n].copy_from_slice(&held[..n]);
            self.pos += n as u64;
            return Ok(n);
        }
        // Outside an operation's span (a streaming reader's small reads: a summary's edges),
        // read ahead as a buffered reader would.
        let span = match self.span_end.saturating_sub(self.pos) {
            0 => READ_AHEAD_BYTES as u64,
            n => n,
        };
        let fill = usize::try_from(span.min(self.size.saturating_sub(self.pos)))
            .unwrap_or(usize::MAX)
            .min(MAX_WINDOW_BYTES);
        if fill <= out.len() {
            let n = self.source.read_at(out, self.pos)?;
            self.pos += n as u64;
            return Ok(n);
        }
        self.window.clear();
        self.window.resize(fill, 0);
        let n = self.source.read_at(&mut self.window, self.pos)?;
        self.window.truncate(n);
        self.window_at = self.pos;
        let k = out.len().min(n);
        out[..k].copy_from_slice(&self.window[..k]);
        self.pos += k as u64;
        Ok(k)
    }
}

impl<S: ReadAt + ?Sized> Seek for SourceCursor<'_, S> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a seek before the start or past 2^64 bytes",
            )
        })?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::error::ErrorKind;

    /// A source that records every read (offset, length) it is asked for.
    struct Counting {
        bytes: Vec<u8>,
        reads: RefCell<Vec<(u64, usize)>>,
    }

    impl ReadAt for Counting {
        fn size(&self) -> io::Result<u64> {
            Ok(self.bytes.len() as u64)
        }
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.reads.borrow_mut().push((offset, buf.len()));
            self.bytes.read_at(buf, offset)
        }
    }

    /// A header claiming 2^40 elements over a file of a few bytes: a range of them is refused
    /// by the source's length, not allocated (a 1 TiB buffer aborted the process).
    #[test]
    fn read_ranges_past_the_source_are_refused_before_allocating() {
        let mut bytes = Header::new("|u1".parse().unwrap(), vec![1 << 40])
            .to_bytes(None)
            .unwrap();
        bytes.extend_from_slice(&[1, 2, 3]);
        let a = NpyReader::open_at(bytes).unwrap();
        assert_eq!(
            a.read_ranges::<u8>(&[0..3, 1..2]).unwrap(),
            [vec![1, 2, 3], vec![2]]
        );
        let err = a.read_ranges::<u8>(&[0..2, 0..1 << 40]).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Truncated { found: 3, .. }),
            "{err}"
        );
    }

    fn counting(bytes: Vec<u8>) -> Counting {
        Counting {
            bytes,
            reads: RefCell::new(Vec::new()),
        }
    }

    /// A `.npy` file of `data` (native byte order, C order): the header npy-core writes, then
    /// the bytes (the write module is a layer above this one).
    fn npy<T: NpyElement + bytemuck::Pod>(data: &[T], shape: &[u64]) -> Vec<u8> {
        let mut out = Header::new(T::npy_dtype(), shape.to_vec())
            .to_bytes(None)
            .unwrap();
        out.extend_from_slice(bytemuck::cast_slice(data));
        out
    }

    /// A header whose data offset is exactly `end` (a record dtype with a long field name
    /// sized to land there; `np.save` pads to 64 bytes, so `end` is a multiple of 64).
    fn header_ending_at(end: usize) -> Vec<u8> {
        for name_len in 1..end {
            let descr = format!("[('{}', '<u1')]", "a".repeat(name_len));
            let h = Header::new(descr.parse().unwrap(), vec![3]);
            let bytes = h.to_bytes(None).unwrap();
            if bytes.len() == end {
                let mut b = bytes;
                b.extend_from_slice(&[7, 8, 9]);
                return b;
            }
        }
        panic!("no header of {end} bytes");
    }

    /// The header in one read when it ends at, or before, the first read's end; two when it
    /// ends one byte (here: one padding block) after.
    #[test]
    fn header_takes_one_read_unless_longer_than_the_first() {
        for (end, first, reads) in [(256, 256, 1), (256, 257, 1), (320, 256, 2), (256, 255, 2)] {
            let src = counting(header_ending_at(end));
            let a = NpyReader::open_at_reading(&src, &ReadOptions::default(), first).unwrap();
            assert_eq!(a.data_offset(), end as u64);
            assert_eq!(src.reads.borrow().len(), reads, "end {end} first {first}");
            assert_eq!(src.reads.borrow()[0], (0, first));
            if reads == 2 {
                assert_eq!(src.reads.borrow()[1].0, first as u64);
            }
        }
    }

    /// Rows and ranges: one read each, of exactly their bytes; several ranges one call.
    #[test]
    fn rows_and_ranges_read_once_each() {
        let data: Vec<u16> = (0..4000).collect();
        let src = counting(npy(&data, &[1000, 4]));
        let a = NpyReader::open_at_reading(&src, &ReadOptions::default(), 64).unwrap();
        src.reads.borrow_mut().clear();
        assert_eq!(a.read_rows::<u16>(10..12).unwrap(), data[40..48]);
        assert_eq!(*src.reads.borrow(), [(128 + 80, 16)]);
        src.reads.borrow_mut().clear();
        // Decoded element by element (widened to u32): still one read.
        let opts = ReadOptions::default().casting(crate::read::Casting::Safe);
        let b = NpyReader::open_at_reading(&src, &opts, 64).unwrap();
        src.reads.borrow_mut().clear();
        let wide: Vec<u32> = b.read_range(100..3000).unwrap();
        assert_eq!(wide, (100..3000).collect::<Vec<u32>>());
        assert_eq!(*src.reads.borrow(), [(128 + 200, 5800)]);
        src.reads.borrow_mut().clear();
        let parts = a.read_ranges::<u16>(&[0..2, 3998..4000]).unwrap();
        assert_eq!(parts, [vec![0, 1], vec![3998, 3999]]);
        assert_eq!(src.reads.borrow().len(), 2); // the default read_ranges: one read each
        src.reads.borrow_mut().clear();
        assert_eq!(a.read_vec::<u16>().unwrap(), data);
        assert_eq!(*src.reads.borrow(), [(128, 8000)]);
    }

    /// Reads inside the first read's bytes cost nothing more.
    #[test]
    fn the_first_read_serves_small_arrays() {
        let src = counting(npy(&[1.5f64, 2.5, -1.0], &[3]));
        let a = NpyReader::open_at(&src).unwrap();
        assert_eq!(a.read_vec::<f64>().unwrap(), [1.5, 2.5, -1.0]);
        assert_eq!(a.read_dyn().unwrap().len(), 3);
        assert_eq!(src.reads.borrow().len(), 1);
    }

    /// A source shorter than its header claims: Truncated, without allocating the claim.
    #[test]
    fn short_sources_are_truncated_errors() {
        let mut bytes = npy(&[1u32; 100], &[100]);
        bytes.truncate(200);
        let a = NpyReader::open_at_reading(bytes, &ReadOptions::default(), 64).unwrap();
        let e = a.read_vec::<u32>().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
        let e = a.read_range::<u32>(90..101).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::OutOfRange { .. }), "{e}");
        // A header claiming 4 GiB of header bytes in a tiny source: refused by the limit.
        let mut huge = b"\x93NUMPY\x02\x00".to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        huge.resize(64, b' ');
        let e = NpyReader::open_at_reading(huge, &ReadOptions::default(), 16).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::HeaderTooLong { .. }), "{e}");
        // Within the limit but longer than the source: Truncated.
        let mut long = b"\x93NUMPY\x02\x00".to_vec();
        long.extend_from_slice(&(1u32 << 20).to_le_bytes());
        long.resize(100, b' ');
        let e = NpyReader::open_at_reading(long, &ReadOptions::default(), 16).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    }

    /// A streaming reader's small reads outside any span read ahead 64 KiB at a time.
    #[test]
    fn streaming_reads_ahead() {
        let data: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
        let src = counting(npy(&data, &[200_000]));
        let a = NpyReader::open_at_reading(&src, &ReadOptions::default(), 64).unwrap();
        src.reads.borrow_mut().clear();
        let mut r = a.stream();
        let mut three = [0u8; 3];
        r.read_into(&mut three).unwrap();
        r.read_into(&mut three).unwrap();
        assert_eq!(three, [3, 4, 5]);
        assert_eq!(*src.reads.borrow(), [(128, READ_AHEAD_BYTES)]);
    }

    #[test]
    fn header_extent_at_its_boundaries() {
        let o = ReadOptions::default();
        let bytes = npy(&[0u8; 4], &[4]);
        for n in 0..bytes.len() {
            let got = header_extent(&bytes[..n], &o);
            match n {
                0 => assert!(got.is_err()),
                1..=9 => assert_eq!(got.unwrap(), None, "{n}"),
                _ => assert_eq!(got.unwrap(), Some(128), "{n}"),
            }
        }
        assert!(header_extent(b"\x93NUMPY\x09\x00", &o).is_err());
        assert!(header_extent(b"PK\x03\x04 an npz", &o).is_err());
        let bytes = Header::new("<f4".parse().unwrap(), vec![4, 64])
            .to_bytes(None)
            .unwrap();
        assert_eq!(header_extent(&bytes[..12], &o).unwrap(), Some(128));
        assert_eq!(header_extent(&bytes[..7], &o).unwrap(), None);
    }

    /// A fetched range reads its own bytes at their offsets in the source, nothing before.
    #[test]
    fn fetched_ranges_read_at_their_offset() {
        let part = FetchedRange::new(100, vec![1u8, 2, 3]);
        let mut b = [0u8; 2];
        part.read_exact_at(&mut b, 101).unwrap();
        assert_eq!(b, [2, 3]);
        assert!(part.read_at(&mut b, 0).is_err()); // not fetched
    }
}
