//! [`ReadOptions`] and [`Casting`], in the header layer because every header read takes them.

use super::DEFAULT_MAX_HEADER_LEN;
use crate::dtype::MlType;
use crate::literal;

/// Options for reading: the header's limits and type hint, and how the data may be read.
/// Every call that reads a header takes them ([`Header::read_with`](super::Header::read_with),
/// [`Header::from_text`](super::Header::from_text)).
///
/// # Examples
/// ```
/// use npy_core::{read::Casting, ErrorKind, Header, NpyReader, ReadOptions, WriteOptions};
/// let mut bytes = Vec::new();
/// WriteOptions::new().write_to(&mut bytes, &[1i32, -2, 3], &[3])?;
/// let options = ReadOptions::new().max_header_len(64);
/// let err = Header::read_with(&mut &bytes[..], &options).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::HeaderTooLong { .. }));
/// // An `<i4` file reads as i64 only when asked: numpy casts i4 to i8 safely.
/// let options = ReadOptions::default().casting(Casting::Safe);
/// let mut r = NpyReader::with_options(&bytes[..], &options)?;
/// assert_eq!(r.read_vec::<i64>()?, [1, -2, 3]);
/// assert!(NpyReader::new(&bytes[..])?.read_vec::<i64>().is_err());
/// # Ok::<(), npy_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    max_header_len: u64,
    max_depth: usize,
    hint: Option<MlType>,
    strict_bools: bool,
    casting: Casting,
    threads: usize,
}

/// Which file dtypes a typed read (read, iterators, ranges, `ndarray`) accepts for an element
/// type, in numpy's terms (`np.can_cast(from, to, casting)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Casting {
    /// The type's own dtype, in either byte order (numpy's `'equiv'`): the default.
    #[default]
    Equiv,
    /// Also every number dtype numpy casts to the type's dtype with `casting='safe'` (`<i4` as
    /// `i64`, `<f4` as `f64`, `u1` as `u16` or `i16`, `b1` as any number, `i8` as `f64`), never
    /// narrowing. Values are what numpy's `astype` gives. Applies to `bool`, the integers,
    /// floats and complex numbers (not datetimes: numpy's unit casts between calendar units are
    /// not simple multiples).
    Safe,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_header_len: DEFAULT_MAX_HEADER_LEN,
            max_depth: literal::DEFAULT_MAX_DEPTH,
            hint: None,
            strict_bools: false,
            casting: Casting::Equiv,
            threads: 0,
        }
    }
}

impl ReadOptions {
    /// numpy's reading rules with the crate's limits: the default.
    pub fn new() -> Self {
        ReadOptions::default()
    }
}

/// `setter(param: Type), getter;` after the setter's docs: the builder method that sets the
/// field named as the setter, and the getter (`get_` and its name) that returns it.
macro_rules! accessors {
    ($($(#[$doc:meta])* $set:ident($arg:ident: $ty:ty), $get:ident;)*) => {
        impl ReadOptions {
            $(
                $(#[$doc])*
                #[must_use]
                pub fn $set(mut self, $arg: $ty) -> Self {
                    self.$set = $arg;
                    self
                }

                #[doc = concat!("The value [`ReadOptions::", stringify!($set), "`] sets.")]
                pub fn $get(&self) -> $ty {
                    self.$set
                }
            )*
        }
    };
}

accessors! {
    /// These options with another limit on the header length in bytes (default
    /// [`DEFAULT_MAX_HEADER_LEN`]); longer is [`HeaderTooLong`](crate::ErrorKind::HeaderTooLong).
    max_header_len(bytes: u64), get_max_header_len;

    /// These options with another nesting limit of the header literal (see
    /// [`literal::ParseOptions::max_depth`]; default [`literal::DEFAULT_MAX_DEPTH`]).
    max_depth(depth: usize), get_max_depth;

    /// These options with a type hint for descrs that lost their type: numpy with
    /// ml_dtypes writes bfloat16 as `'<V2'` and `float8_e4m3fn`, `int4`, … as `'<V1'`. With a
    /// hint, a header whose descr is what `np.save` writes for the hinted type is read as
    /// [`DType::Ml`](crate::DType::Ml) of it (see [`DType::with_hint`](crate::DType::with_hint));
    /// any other descr is read as it stands. `None`, the default, reads descrs as numpy does
    /// (`'<f1'`, which numpy cannot load, is `float8_e5m2` even so).
    ///
    /// # Examples
    /// ```
    /// use npy_core::{DType, dtype::MlType, NpyReader, ReadOptions};
    /// // What `np.save` writes for `np.array([1, -2], ml_dtypes.bfloat16)`.
    /// let mut bytes = npy_core::Header::new("|V2".parse()?, vec![2]).to_bytes(None)?;
    /// bytes.extend_from_slice(&[0x80, 0x3f, 0x00, 0xc0]);
    /// let options = ReadOptions::default().hint(Some(MlType::BFloat16));
    /// let mut r = NpyReader::with_options(&bytes[..], &options)?;
    /// assert_eq!(*r.dtype(), DType::Ml(MlType::BFloat16));
    /// let values: Vec<f64> = r.read_dyn()?.iter().filter_map(|v| v.as_f64()).collect();
    /// assert_eq!(values, [1.0, -2.0]);
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    hint(hint: Option<MlType>), get_hint;

    /// These options with the strict bool check on or off (off by default): on, a `b1` byte
    /// other than 0 and 1 is [`InvalidBool`](crate::ErrorKind::InvalidBool), not numpy's `true`.
    strict_bools(strict: bool), get_strict_bools;

    /// These options with another thread count for reads of large files: `0` (the default)
    /// uses [`std::thread::available_parallelism`], `1` reads on the calling thread alone.
    ///
    /// Only bulk reads of a reader opened from a path ([`crate::read()`],
    /// [`NpyReader::open`](crate::NpyReader::open) then `read_vec` or a large `read_into`) of
    /// element types whose bytes are their memory (numbers, in either byte order) use more
    /// than one thread, each reading its part of the file with positional reads (`pread`,
    /// Unix only) and swapping it while in cache; at most one thread per 8 MiB
    /// (`PARALLEL_MIN_BYTES`) of data; a stream reads on one. npy-npz's archives follow it too:
    /// a deflated member of at least 4 MiB is inflated on two threads unless this is 1.
    threads(threads: usize), get_threads;

    /// These options with another [`Casting`]: which file dtypes a typed read converts from
    /// (default [`Casting::Equiv`]: the type's own dtype in either byte order).
    casting(casting: Casting), get_casting;
}
