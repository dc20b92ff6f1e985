//! Memory-mapped files (feature `mmap`): a `.npy` file's array viewed in place, paged in by the
//! operating system as it is touched.
//!
//! As memmap2's `Mmap::map`, opening a map is `unsafe`: the mapped memory *is* the file, and
//! nothing in a process can stop another one from changing it. The caller states, with the
//! `unsafe` block, that no one will. To keep the hazard out of the program entirely, map the
//! file yourself and borrow it with [`NpyView`], or read it with [`crate::read`].

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;

use bytemuck::CheckedBitPattern;
use memmap2::Mmap;

use crate::element::NpyElement;
use crate::error::{Error, PathContext};
use crate::header::{Header, ReadOptions};
use crate::meta::{meta_accessors, ArrayMeta};
use crate::read::NpyArray;
use crate::view::{data_start, view_data, NpyView};

/// Maps the `.npy` file at `path` read-only and views its array as `[T]` without reading it.
///
/// Shorthand for [`NpyMmap::open`]; see there for what a view needs.
///
/// # Safety
/// As [`NpyMmap::open`]: the file must not be modified or truncated while the map exists.
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
/// // SAFETY: the file is ours and nothing writes to it while it is mapped.
/// let m = unsafe { npy_core::mmap::<f32>(&path)? };
/// assert_eq!(m.shape(), [2, 2]);
/// assert_eq!(m.data(), [0.5, 1.5, 2.5, 3.5]);
/// assert_eq!(m.get(&[1, 0]), Some(&2.5));
/// # Ok::<(), npy_core::Error>(())
/// ```
#[allow(unsafe_code)] // an unsafe contract, forwarded to NpyMmap::open
pub unsafe fn mmap<T: NpyElement + CheckedBitPattern>(
    path: impl AsRef<Path>,
) -> Result<NpyMmap<T>, Error> {
    // SAFETY: the caller upholds NpyMmap::open's contract, which is this function's.
    unsafe { NpyMmap::open(path) }
}

/// A `.npy` file mapped read-only into memory, its array viewed as `[T]` in the file's memory
/// order.
///
/// The mapping starts on a page boundary, so the data is aligned for every element type when
/// its offset in the file is a multiple of the type's alignment: numpy and this crate pad the
/// header to a multiple of 64 bytes, and files of numpy before 1.9 (16 bytes) still suit
/// every type up to 16-byte alignment. Any other offset is
/// [`ErrorKind::Misaligned`](crate::ErrorKind::Misaligned) at [`NpyMmap::open`].
///
/// Everything is checked once, at [`NpyMmap::open`] (header, dtype, length, alignment, and
/// every `bool` byte); the accessors then cost nothing and cannot fail.
///
/// # Examples
/// ```
/// use npy_core::{NpyMmap, Order};
/// # let dir = std::env::temp_dir().join(format!("npy-core-mmap-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("v.npy");
/// npy_core::write(&path, &[1u16, 2, 3, 4, 5, 6], &[3, 2])?;
/// // SAFETY: nothing modifies the file in place while it is mapped (npy_core's path writers
/// // replace a file by renaming a new one over it, which leaves the mapped one intact).
/// let m = unsafe { NpyMmap::<u16>::open(&path)? };
/// assert_eq!((m.shape(), m.order(), m.len()), (&[3, 2][..], Order::C, 6));
/// npy_core::write(&path, &[9u16; 6], &[3, 2])?;
/// assert_eq!(m.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyMmap<T> {
    map: Mmap,
    meta: ArrayMeta,
    /// Byte offset of the data in the map.
    start: usize,
    /// Elements of the data.
    len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: NpyElement + CheckedBitPattern> NpyMmap<T> {
    /// Maps the file at `path` read-only and checks that its array can be viewed as `[T]`.
    ///
    /// # Safety
    /// The file must not be modified or truncated, by this process or another, while the
    /// returned value exists. The mapped pages *are* the file: a change would alter values
    /// behind the shared `&[T]` this type hands out (undefined behaviour), and a truncation
    /// makes the next access fault (`SIGBUS` on Unix). This crate's own path writers
    /// ([`crate::write`], [`crate::WriteOptions::write_path`],
    /// [`crate::WriteOptions::create_stream`]) never modify an existing file: they write a new
    /// one and rename it over the path, which leaves a mapped file intact. Do not write into a
    /// mapped file through [`crate::WriteOptions::stream_to`] or
    /// [`crate::WriteOptions::write_to`] on a handle of your own.
    ///
    /// # Errors
    /// I/O errors of opening and mapping the file, and every error of [`NpyView::new`]:
    /// [`ErrorKind::TypeMismatch`](crate::ErrorKind::TypeMismatch),
    /// [`ErrorKind::NotViewable`](crate::ErrorKind::NotViewable) (byte-swapped data: use
    /// [`crate::read`] instead), [`ErrorKind::Truncated`](crate::ErrorKind::Truncated),
    /// [`ErrorKind::Misaligned`](crate::ErrorKind::Misaligned),
    /// [`ErrorKind::NonCanonicalBool`](crate::ErrorKind::NonCanonicalBool), header errors; each names
    /// the file.
    #[allow(unsafe_code)] // an unsafe contract, forwarded to open_with
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        // SAFETY: the caller upholds open_with's contract, which is this function's.
        unsafe { NpyMmap::open_with(path, &ReadOptions::default()) }
    }

    /// [`NpyMmap::open`] with header read options.
    ///
    /// # Safety
    /// As [`NpyMmap::open`].
    ///
    /// # Errors
    /// As [`NpyMmap::open`].
    #[allow(unsafe_code)] // an unsafe contract; the mapping below relies on it
    pub unsafe fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self, Error> {
        let path = path.as_ref();
        let map = || -> Result<Self, Error> {
            let file = File::open(path)?;
            // SAFETY: `Mmap::map` is unsafe because the mapped bytes alias the file; the
            // caller promised that no one modifies or truncates it while this value lives. The
            // map is read-only and private to this value.
            let map = unsafe { Mmap::map(&file)? };
            let meta = ArrayMeta::new(Header::read_with(&mut &map[..], options)?)?;
            let len = view_data::<T>(&map, &meta)?.len();
            Ok(NpyMmap {
                start: data_start(&map, &meta),
                len,
                map,
                meta,
                _t: PhantomData,
            })
        };
        map().at_path(path)
    }

    /// The elements in memory order ([`NpyMmap::order`]), borrowed from the mapping.
    #[allow(unsafe_code)]
    pub fn data(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `open` checked, through `view_data`, that the `len` elements of `T` at byte
        // `start` of the map lie inside it, are aligned for `T` and each hold a valid bit
        // pattern of `T`. The map's length and contents do not change while `self` lives: the
        // map is private and read-only, and the caller of `open` promised the file is not
        // modified or truncated. The borrow of `self` keeps the map alive.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(self.start).cast::<T>(), self.len)
        }
    }

    /// The array as a view borrowed from the mapping.
    pub fn view(&self) -> NpyView<'_, T> {
        NpyView::from_checked(self.meta.clone(), self.data())
    }

    /// The element at a logical index (one entry per dimension), whatever the memory order.
    pub fn get(&self, index: &[u64]) -> Option<&T> {
        self.meta.index_of(index).and_then(|i| self.data().get(i))
    }

    /// Copies the array into an owned one.
    pub fn to_array(&self) -> NpyArray<T> {
        self.view().to_array()
    }
}

impl<T> NpyMmap<T> {
    meta_accessors!();

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole mapped file, header included, in bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.map
    }
}
