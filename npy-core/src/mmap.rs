//! Memory-mapped files (feature `mmap`): a `.npy` file's array viewed in place, paged in by the
//! operating system as it is touched; read-only ([`NpyMmap`]) or writable ([`NpyMmapMut`]).
//!
//! As memmap2's `Mmap::map`, opening a map is `unsafe`: the mapped memory *is* the file, which
//! another process may change; the caller's `unsafe` block says no one will. To keep the hazard
//! out of the program, borrow a map of your own with [`NpyView`], or use [`crate::read()`].

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::marker::PhantomData;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use bytemuck::{CheckedBitPattern, NoUninit};
use memmap2::{Mmap, MmapMut};

use crate::dtype::DType;
use crate::element::NpyElement;
use crate::error::{to_usize, Error, ErrorKind, PathContext};
use crate::format::MemoryOrder;
use crate::header::Header;
use crate::meta::{element_accessors, meta_accessors, ArrayMeta};
use crate::read::NpyArray;
use crate::read::ReadOptions;
use crate::view::{data_start, view_data, NpyView};

/// A `.npy` file mapped read-only into memory, its array viewed as `[T]` in the file's memory
/// order. Everything is checked once, at [`NpyMmap::open`] (header, dtype, length, alignment,
/// every `bool` byte); the accessors then cost nothing and cannot fail.
///
/// The mapping starts on a page boundary, so the data is aligned when its offset in the file
/// is a multiple of `T`'s alignment: numpy and this crate pad the header to a multiple of 64
/// bytes, numpy before 1.9 to 16 (enough for every type up to 16-byte alignment); any other
/// offset is [`ErrorKind::Misaligned`].
///
/// # Examples
/// ```
/// use npy_core::{NpyMmap, MemoryOrder};
/// let path = std::env::temp_dir().join(format!("npy-core-mmap-{}.npy", std::process::id()));
/// npy_core::write(&path, &[1u16, 2, 3, 4, 5, 6], &[3, 2])?;
/// // SAFETY: nothing modifies the file in place while it is mapped (npy_core's path writers
/// // replace a file by renaming a new one over it, which leaves the mapped one intact).
/// let m = unsafe { NpyMmap::<u16>::open(&path)? };
/// assert_eq!((m.shape(), m.order(), m.len()), (&[3, 2][..], MemoryOrder::C, 6));
/// npy_core::write(&path, &[9u16; 6], &[3, 2])?;
/// assert_eq!(m.data(), [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyMmap<T>(Mapping<Mmap, T>);

impl<T: NpyElement + CheckedBitPattern> NpyMmap<T> {
    /// Maps the file at `path` read-only and checks that its array can be viewed as `[T]`.
    ///
    /// # Safety
    /// The file must not be modified or truncated, by this process or another, while the
    /// returned value exists: the mapped pages *are* the file, so a change alters values behind
    /// the `&[T]` handed out (undefined behaviour) and a truncation makes the next access fault
    /// (`SIGBUS` on Unix). This crate's path writers ([`crate::write()`],
    /// [`crate::WriteOptions::write_path`], [`crate::WriteOptions::create_stream`]) write a new
    /// file and rename it over the path, which leaves a mapped one intact; do not write into a
    /// mapped file through [`crate::WriteOptions::stream_to`] or
    /// [`crate::WriteOptions::write_to`] on a handle of your own.
    ///
    /// # Errors
    /// I/O errors of opening and mapping the file, and those of [`NpyView::new`] (byte-swapped
    /// data is [`ErrorKind::NotViewable`]: use [`crate::read()`]); each names the file.
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
            let file = npy_fs::open_regular(path)?;
            // SAFETY: `Mmap::map` is unsafe because the mapped bytes alias the file; the
            // caller promised that no one modifies or truncates it while this value lives. The
            // map is read-only and private to this value.
            let map = unsafe { Mmap::map(&file)? };
            Mapping::new(map, path, options).map(NpyMmap)
        };
        map().at_path(path)
    }

    /// Copies the array into an owned one.
    pub fn to_array(&self) -> NpyArray<T> {
        self.view().to_array()
    }
}

impl<T> NpyMmap<T> {
    mapping_methods!();

    /// The whole mapped file, header included, in bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0.map
    }
}

/// A `.npy` file mapped writable, its array a mutable `[T]` in the file's memory order: numpy's
/// `np.lib.format.open_memmap` with `mode='w+'` ([`NpyMmapMut::create`]) or `mode='r+'`
/// ([`NpyMmapMut::open`]). Writes go to the file through the page cache; [`NpyMmapMut::flush`]
/// waits until they are on the disk (dropping the map does not). The checks at open, and the
/// promise asked of the caller, are [`NpyMmap`]'s.
///
/// # Examples
/// ```
/// use npy_core::{NpyMmapMut, MemoryOrder};
/// let path = std::env::temp_dir().join(format!("npy-core-mmap-mut-{}.npy", std::process::id()));
/// // SAFETY: the file is new and only this map touches it.
/// let mut m = unsafe { NpyMmapMut::<f32>::create(&path, &[2, 3], MemoryOrder::C)? };
/// m.data_mut()[4] = 1.5;
/// *m.get_mut(&[0, 1]).unwrap() = -2.0;
/// m.flush()?;
/// drop(m);
/// assert_eq!(npy_core::read::<f32>(&path)?.data(), [0.0, -2.0, 0.0, 0.0, 1.5, 0.0]);
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug)]
pub struct NpyMmapMut<T>(Mapping<MmapMut, T>);

impl<T: NpyElement + CheckedBitPattern + NoUninit> NpyMmapMut<T> {
    /// Creates the file at `path` (replacing any there) as `open_memmap(path, mode='w+',
    /// dtype=T's dtype, shape=shape, fortran_order=order is Fortran)` writes it, every element
    /// zero, and maps it writable. The zeros are not written but the file extended (`set_len`):
    /// on sparse files (ext4, XFS, btrfs, APFS, NTFS, tmpfs) disk space is taken only as pages
    /// are written ([`NpyMmap::open`]'s checks still read every `bool` byte). `T` must be viewable
    /// in native byte order: numbers, `bool`, complex, `#[npy(pod)]` records, arrays of them.
    ///
    /// # Safety
    /// As [`NpyMmap::open`]. The file is not created atomically: a reader may see it half filled.
    ///
    /// # Errors
    /// [`ErrorKind::NotViewable`] or [`ErrorKind::TypeMismatch`] for an element type that
    /// cannot be viewed, [`ErrorKind::Unsupported`] for subarray elements;
    /// [`ErrorKind::SizeOverflow`]; [`ErrorKind::PlatformLimit`] for an array larger than the
    /// address space; I/O errors. Each names the file.
    #[allow(unsafe_code)] // an unsafe contract, forwarded to map
    pub unsafe fn create(
        path: impl AsRef<Path>,
        shape: &[u64],
        order: MemoryOrder,
    ) -> Result<Self, Error> {
        let path = path.as_ref();
        let create = || -> Result<Self, Error> {
            let dtype = T::npy_dtype();
            if matches!(dtype, DType::SubArray(_)) {
                return Err(Error::new(ErrorKind::Unsupported {
                    operation: "creating a map of subarray elements ([T; N])",
                    reason: "numpy stores them as trailing dimensions; map the base type with \
                             the dimensions in the shape"
                        .into(),
                }));
            }
            let mut header = Header::new(dtype, shape.to_vec());
            // open_memmap writes the flag it is given, whatever the shape.
            header.fortran_order = order.is_fortran();
            let meta = ArrayMeta::from_header(header)?;
            let end = meta.data_offset().saturating_add(meta.nbytes());
            to_usize(end, "bytes of a memory map")?;
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)?;
            file.write_all(&meta.header().to_bytes(None)?)?;
            file.set_len(end)?;
            // SAFETY: the caller upholds map's contract, which is this function's.
            unsafe { Self::map(&file, path) }
        };
        create().at_path(path)
    }

    /// Maps the existing `.npy` file at `path` writable: `open_memmap(path, mode='r+')`.
    ///
    /// # Safety
    /// As [`NpyMmapMut::create`].
    ///
    /// # Errors
    /// As [`NpyMmap::open`].
    #[allow(unsafe_code)] // an unsafe contract, forwarded to map
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let open = || -> Result<Self, Error> {
            let file = OpenOptions::new().read(true).write(true).open(path)?;
            // SAFETY: the caller upholds map's contract, which is this function's.
            unsafe { Self::map(&file, path) }
        };
        open().at_path(path)
    }

    /// # Safety
    /// No one else modifies or truncates `file` while the returned value exists.
    #[allow(unsafe_code)]
    unsafe fn map(file: &File, path: &Path) -> Result<Self, Error> {
        // SAFETY: `MmapMut::map_mut` is unsafe because the mapped bytes alias the file; the
        // caller promised that no one else modifies or truncates it while this value lives.
        // The map is shared (writes reach the file) and owned by this value alone.
        let map = unsafe { MmapMut::map_mut(file)? };
        Mapping::new(map, path, &ReadOptions::default()).map(NpyMmapMut)
    }

    /// The elements in memory order, writable; writes reach the file.
    #[allow(unsafe_code)]
    pub fn data_mut(&mut self) -> &mut [T] {
        let m = &mut self.0;
        if m.len == 0 {
            return &mut [];
        }
        // SAFETY: as `Mapping::data` (its checks hold, and only values of `T: NoUninit` are
        // written here); the `&mut self` borrow makes this the only reference into the map's
        // data while it lives.
        unsafe { std::slice::from_raw_parts_mut(m.map.as_mut_ptr().add(m.start).cast(), m.len) }
    }

    /// The element at a logical index, writable.
    pub fn get_mut(&mut self, index: &[u64]) -> Option<&mut T> {
        let i = self.0.meta.index_of(index)?;
        self.data_mut().get_mut(i)
    }

    /// Writes the modified pages to the disk and waits for them (`msync`).
    ///
    /// # Errors
    /// I/O errors.
    pub fn flush(&self) -> Result<(), Error> {
        self.0
            .map
            .flush()
            .map_err(|e| Error::from(e).with_path(&self.0.path))
    }
}

impl<T> NpyMmapMut<T> {
    mapping_methods!();
}

/// What both maps hold: the map (`Mmap` or `MmapMut`, whose bytes stay put while it lives),
/// the array's metadata, the file, and where its checked elements lie.
#[derive(Debug)]
struct Mapping<M, T> {
    map: M,
    meta: ArrayMeta,
    /// The file mapped, named by errors of later calls.
    path: PathBuf,
    /// Byte offset of the data in the map.
    start: usize,
    /// Elements of the data.
    len: usize,
    _t: PhantomData<fn() -> T>,
}

impl<M: Deref<Target = [u8]>, T: NpyElement + CheckedBitPattern> Mapping<M, T> {
    /// Reads the header at the start of `map` and checks, through `view_data`, that the data
    /// after it can be borrowed as `[T]`: what makes [`Mapping::data`] sound.
    fn new(map: M, path: &Path, options: &ReadOptions) -> Result<Self, Error> {
        let meta = ArrayMeta::new(Header::read_with(&mut &map[..], options)?)?;
        let len = view_data::<T>(&map, &meta)?.len();
        Ok(Mapping {
            start: data_start(&map, &meta),
            len,
            map,
            meta,
            path: path.to_owned(),
            _t: PhantomData,
        })
    }
}

impl<M: Deref<Target = [u8]>, T> Mapping<M, T> {
    /// The elements in memory order: the one place a map's bytes become shared elements.
    #[allow(unsafe_code)]
    fn data(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `new` checked, through `view_data`, that the `len` elements of `T` at byte
        // `start` of the map lie inside it, are aligned for `T` and each hold a valid bit
        // pattern of `T`. The map's length and place do not change while `self` lives, nor do
        // its contents but through `NpyMmapMut::data_mut`, which writes values of `T` and
        // borrows `self` mutably; the caller of the unsafe constructor promised that no one
        // else modifies or truncates the file. The borrow of `self` keeps the map alive.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(self.start).cast::<T>(), self.len)
        }
    }
}

/// The methods both maps share, forwarding to their [`Mapping`]: written once.
macro_rules! mapping_methods {
    () => {
        meta_accessors!(0.meta);
        element_accessors!('_);

        /// The elements in memory order ([`Self::order`]), borrowed from the mapping.
        pub fn data(&self) -> &[T] {
            self.0.data()
        }

        /// The array as a view borrowed from the mapping.
        pub fn view(&self) -> NpyView<'_, T> {
            NpyView::from_checked(self.0.meta.clone(), self.data())
        }

        /// The file mapped.
        pub fn path(&self) -> &Path {
            &self.0.path
        }
    };
}
use mapping_methods;
