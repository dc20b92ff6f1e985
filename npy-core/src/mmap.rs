//! Memory-mapped files (feature `mmap`): a `.npy` file's array viewed in place, paged in by the
//! operating system as it is touched.

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;

use bytemuck::CheckedBitPattern;
use memmap2::Mmap;

use crate::codec::flat_index;
use crate::element::NpyElement;
use crate::error::{Error, PathContext};
use crate::format::Order;
use crate::header::{Header, ParsedHeader, ReadOptions};
use crate::read::NpyArray;
use crate::view::{order_of, view_data, NpyView};

/// Maps the `.npy` file at `path` read-only and views its array as `[T]` without reading it.
///
/// Shorthand for [`NpyMmap::open`]; see there for what a view needs and for the contract on
/// the file while it is mapped.
///
/// # Errors
/// As [`NpyMmap::open`].
///
/// # Examples
/// ```
/// # let dir = std::env::temp_dir().join(format!("npy-core-mmap-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("w.npy");
/// npy_core::write(&path, &[0.5f32, 1.5, 2.5, 3.5], &[2, 2])?;
/// let m = npy_core::mmap::<f32>(&path)?;
/// assert_eq!(m.shape(), [2, 2]);
/// assert_eq!(m.data(), [0.5, 1.5, 2.5, 3.5]);
/// assert_eq!(m.get(&[1, 0]), Some(&2.5));
/// # Ok::<(), npy_core::Error>(())
/// ```
pub fn mmap<T: NpyElement + CheckedBitPattern>(
    path: impl AsRef<Path>,
) -> Result<NpyMmap<T>, Error> {
    NpyMmap::open(path)
}

/// A `.npy` file mapped read-only into memory, its array viewed as `[T]` in the file's memory
/// order.
///
/// The mapping starts on a page boundary, so the data is aligned for every element type when
/// its offset in the file is a multiple of the type's alignment: numpy and this crate pad the
/// header to a multiple of 64 bytes, and files of numpy before 1.9 (16 bytes) still suit
/// every type up to 16-byte alignment. Any other offset is [`ErrorKind::Misaligned`](crate::ErrorKind::Misaligned) at
/// [`NpyMmap::open`].
///
/// # The file must not change while it is mapped
///
/// The mapped pages *are* the file: if another program (or this one, through another handle)
/// writes to the file in place or truncates it while an `NpyMmap` exists, the `&[T]` this type
/// hands out would change under a shared borrow, or touching it would fault (`SIGBUS` on
/// Unix). That is undefined behaviour which this type cannot prevent. This crate's own
/// path writers ([`crate::write`], [`crate::WriteOptions::write_path`],
/// [`crate::WriteOptions::create_stream`]) never modify an existing file: they write a new file
/// and rename it over the path, which leaves a mapped file intact (the mapping keeps the old
/// contents). Replace files the same way; do not write into a mapped file through
/// [`crate::WriteOptions::stream_to`] or [`crate::WriteOptions::write_to`] on a file you opened
/// yourself.
///
/// # Examples
/// ```
/// use npy_core::{NpyMmap, Order};
/// # let dir = std::env::temp_dir().join(format!("npy-core-mmap-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("v.npy");
/// npy_core::write(&path, &[1u16, 2, 3, 4, 5, 6], &[3, 2])?;
/// let m = NpyMmap::<u16>::open(&path)?;
/// assert_eq!((m.shape(), m.order(), m.len()), (&[3, 2][..], Order::C, 6));
/// // Replacing the file is safe: the mapping keeps the contents it was opened with.
/// npy_core::write(&path, &[9u16; 6], &[3, 2])?;
/// assert_eq!(m.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyMmap<T> {
    map: Mmap,
    parsed: ParsedHeader,
    _t: PhantomData<fn() -> T>,
}

impl<T: NpyElement + CheckedBitPattern> NpyMmap<T> {
    /// Maps the file at `path` read-only and checks that its array can be viewed as `[T]`.
    ///
    /// # Errors
    /// I/O errors of opening and mapping the file, and every error of [`NpyView::new`]:
    /// [`ErrorKind::TypeMismatch`](crate::ErrorKind::TypeMismatch), [`ErrorKind::NotViewable`](crate::ErrorKind::NotViewable) (byte-swapped data: use
    /// [`crate::read`] instead), [`ErrorKind::Truncated`](crate::ErrorKind::Truncated), [`ErrorKind::Misaligned`](crate::ErrorKind::Misaligned),
    /// [`ErrorKind::InvalidBool`](crate::ErrorKind::InvalidBool), header errors.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        NpyMmap::open_with(path, &ReadOptions::default())
    }

    /// [`NpyMmap::open`] with header read options.
    ///
    /// # Errors
    /// As [`NpyMmap::open`].
    pub fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let path = path.as_ref();
        NpyMmap::map_file(path, options).at_path(path)
    }

    fn map_file(path: &Path, options: &ReadOptions) -> Result<Self, Error> {
        let file = File::open(path)?;
        // SAFETY: `Mmap::map` is unsafe because the returned `&[u8]` aliases the file: if the
        // file is modified or truncated while mapped, memory behind a shared borrow changes
        // (or faults). The map is read-only and private to this value; nothing in this crate
        // writes to an existing file in place (its path writers replace files by rename), and
        // the type's documentation makes not modifying a mapped file the caller's contract.
        // Every read of the bytes below goes through safe, bounds-checked slice and checked
        // bytemuck casts, so a malformed file is an error, not undefined behaviour.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file)? };
        let parsed = Header::read_with(&mut &map[..], options)?;
        view_data::<T>(&map, &parsed)?;
        Ok(NpyMmap {
            map,
            parsed,
            _t: PhantomData,
        })
    }

    /// The array as a view borrowed from the mapping.
    ///
    /// `bool` data is checked again (every byte 0 or 1), which reads the whole array; for the
    /// number types this is free.
    pub fn view(&self) -> NpyView<'_, T> {
        match NpyView::from_parsed(&self.map, self.parsed.clone()) {
            Ok(v) => v,
            Err(e) => panic!("{}", changed(&e)),
        }
    }

    /// The elements in memory order ([`NpyMmap::order`]), borrowed from the mapping. See
    /// [`NpyMmap::view`] for the cost with `bool`.
    pub fn data(&self) -> &[T] {
        match view_data::<T>(&self.map, &self.parsed) {
            Ok(d) => d,
            Err(e) => panic!("{}", changed(&e)),
        }
    }

    /// The element at a logical index (one entry per dimension), whatever the memory order.
    pub fn get(&self, index: &[u64]) -> Option<&T> {
        flat_index(self.shape(), self.order(), index).and_then(|i| self.data().get(i))
    }

    /// Copies the array into an owned one.
    pub fn to_array(&self) -> NpyArray<T> {
        self.view().to_array()
    }
}

impl<T> NpyMmap<T> {
    /// Logical shape, outermost first.
    pub fn shape(&self) -> &[u64] {
        &self.parsed.header.shape
    }

    /// Memory order of [`NpyMmap::data`].
    pub fn order(&self) -> Order {
        order_of(&self.parsed.header)
    }

    /// The header dict.
    pub fn header(&self) -> &Header {
        &self.parsed.header
    }

    /// The header with its version, length and text.
    pub fn parsed_header(&self) -> &ParsedHeader {
        &self.parsed
    }

    /// Offset of the data from the start of the file, in bytes.
    pub fn data_offset(&self) -> u64 {
        self.parsed.data_offset()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        // The data was checked at open to fit in the mapping, so the count fits in usize.
        self.parsed
            .header
            .num_elements()
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole mapped file, header included, in bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.map
    }
}

/// The one way a view validated at open can fail later: the file changed under the mapping.
#[cold]
fn changed(e: &Error) -> String {
    format!("the mapped .npy file was modified while mapped, which NpyMmap's contract forbids: {e}")
}
