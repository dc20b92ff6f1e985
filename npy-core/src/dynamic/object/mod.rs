//! The `O` dtype (feature `pickle`): the Python values an object array holds, and the hook
//! through which a pickle codec decodes and encodes them.
//!
//! An object array's data is one pickle. npy-core does not read pickles itself: a dynamic
//! read given an [`ObjectCodec`] ([`NpyReader::read_dyn_using`](crate::NpyReader::read_dyn_using),
//! [`write_dyn_to_using`](crate::dynamic::write_dyn_to_using)) hands the pickle to it; without one,
//! object arrays are refused with [`ErrorKind::ObjectArray`](crate::ErrorKind::ObjectArray),
//! whose message names the crate that has the codec, npy-pickle (its interpreter never
//! imports, calls or looks up anything).
//!
//! The values live here because a [`DynValue::Object`](crate::DynValue::Object) holds one and a [`PyObject`] may hold
//! a [`DynArray`]:
//!
//! - `value.rs`: [`PyObject`], [`NpyScalar`], [`PyDType`] (their `repr` is in the crate npy-print);
//! - `globals.rs`: [`PyGlobal`], the classes and functions a value may name.
//!
//! # Examples
//! ```
//! use npy_core::object::PyObject;
//! let v = PyObject::List(vec![PyObject::Int(1), PyObject::None]); // Python's [1, None]
//! assert_eq!(v.type_name(), "list");
//! ```

mod globals;
mod value;

use std::fmt;
use std::io::{Read, Write};

pub use globals::PyGlobal;
pub use num_bigint::BigInt;
pub use value::{NpyScalar, PyDType, PyObject};

use super::DynArray;
use crate::error::Error;
use crate::header::Header;

/// Python's limit on the decimal digits of an `int` converted to or from text
/// (`sys.int_info.default_max_str_digits`, Python 3.11 and later): `str(n)`, `int(s)` and
/// `json.dumps` refuse more, because the conversion takes time quadratic in the digits.
pub const MAX_INT_DIGITS: usize = 4300;

/// Bits from which [`int_decimal`] keeps the last text it made (below, converting is cheaper
/// than comparing).
const CACHED_BITS: u64 = 1024;

/// Digits from which a conversion is charged its work ([`int_decimal_work`]).
const WORK_FREE_DIGITS: u64 = 1024;

/// What [`int_decimal`] made of an int.
type Decimal = Result<String, u64>;

std::thread_local! {
    /// The last large int [`int_decimal`] converted on this thread, with what it made of it.
    static LAST_DECIMAL: std::cell::RefCell<Option<(BigInt, Decimal)>> =
        const { std::cell::RefCell::new(None) };
}

/// The fewest decimal digits `n` has: `n` ≥ 2^(bits−1) has at least
/// ⌊(bits − 1) × log10 2⌋ + 1.
fn digits_at_least(n: &BigInt) -> u64 {
    n.bits().saturating_sub(1) * 30_103 / 100_000 + 1
}

/// What [`int_decimal`] already made of `n`, when `n` is the last large int it converted.
fn cached(n: &BigInt) -> Option<Decimal> {
    if n.bits() < CACHED_BITS {
        return None;
    }
    LAST_DECIMAL.with(|last| match &*last.borrow() {
        Some((m, made)) if m == n => Some(made.clone()),
        _ => None,
    })
}

/// Python's `str(n)` of an int: its decimal digits, `-` before a negative one; or, when it
/// has more than [`MAX_INT_DIGITS`] digits (where Python raises `ValueError`), `Err` with the
/// number of digits it has at least.
///
/// Most ints past the limit are told from their size alone (bits × log10 2), before any
/// conversion. An int equal to the last large one converted on this thread reuses what was
/// made of it: a pickle's memo makes one int into many equal copies. Converting takes time
/// quadratic in the digits; [`int_decimal_work`] is what a caller with a budget charges.
///
/// # Errors
/// The digits the int has at least, when that passes [`MAX_INT_DIGITS`].
///
/// # Examples
/// ```
/// use npy_core::object::{int_decimal, BigInt, MAX_INT_DIGITS};
/// assert_eq!(int_decimal(&BigInt::from(-42i32)).as_deref(), Ok("-42"));
/// let big = BigInt::from(10u32).pow(MAX_INT_DIGITS as u32 - 1); // 4300 digits
/// assert_eq!(int_decimal(&big).map(|t| t.len()), Ok(MAX_INT_DIGITS));
/// assert_eq!(int_decimal(&(big * 10u32)), Err(MAX_INT_DIGITS as u64 + 1));
/// ```
pub fn int_decimal(n: &BigInt) -> Result<String, u64> {
    let at_least = digits_at_least(n);
    if at_least > MAX_INT_DIGITS as u64 {
        return Err(at_least);
    }
    if let Some(made) = cached(n) {
        return made;
    }
    let text = n.to_string();
    let digits = text.trim_start_matches('-').len();
    let made = if digits > MAX_INT_DIGITS {
        Err(digits as u64)
    } else {
        Ok(text)
    };
    if n.bits() >= CACHED_BITS {
        LAST_DECIMAL.with(|last| *last.borrow_mut() = Some((n.clone(), made.clone())));
    }
    made
}

/// Bytes of an output budget that [`int_decimal`] of `n` is charged besides its text, for the
/// time it takes: converting d digits to decimal is quadratic, so an int whose size says it
/// has d > 1,024 digits at least is charged d² / 1,024 bytes (18 KB for 4,300 digits: a 64
/// MiB budget then pays for about 3,000 such conversions, 0.3 s, where it would pay for
/// 15,000 by their text alone); none when no conversion is made (the int is the cached one,
/// or refused by its size).
///
/// # Examples
/// ```
/// use npy_core::object::{int_decimal_work, BigInt};
/// assert_eq!(int_decimal_work(&BigInt::from(7u32)), 0);
/// let n = BigInt::from(10u32).pow(4299); // 4300 digits; 14,281 bits say 4,299 at least
/// assert_eq!(int_decimal_work(&n), 4299 * 4299 / 1024);
/// npy_core::object::int_decimal(&n).unwrap();
/// assert_eq!(int_decimal_work(&n), 0); // its text is kept: no conversion to pay for
/// ```
pub fn int_decimal_work(n: &BigInt) -> u64 {
    let digits = digits_at_least(n);
    if digits <= WORK_FREE_DIGITS || digits > MAX_INT_DIGITS as u64 || cached(n).is_some() {
        return 0;
    }
    digits * digits / 1024
}

/// Decodes an object array's pickle into values and encodes values into numpy's pickle: the
/// hook through which npy-core's dynamic reads and writes handle dtypes holding `O`.
///
/// npy-core has no implementation; `npy_pickle::PickleCodec` is the one to use (an
/// interpreter that never executes anything, with a memory budget). A codec must bound the
/// bytes it reads and the memory it builds: `data` is the rest of the input, of any length.
///
/// # Examples
/// A codec that refuses everything, and what a read through it gives:
/// ```
/// use std::io::{Read, Write};
/// use npy_core::object::ObjectCodec;
/// use npy_core::{error::Category, DType, DynArray, Error, ErrorKind, Header};
///
/// #[derive(Debug)]
/// struct Refuse;
/// impl ObjectCodec for Refuse {
///     fn decode(&self, header: &Header, _data: &mut dyn Read) -> Result<DynArray, Error> {
///         Err(Error::from_codec(Category::Unsupported, format!("decoding {}", header.dtype)))
///     }
///     fn encode(&self, _array: &DynArray, _out: &mut dyn Write) -> Result<(), Error> {
///         Err(Error::from_codec(Category::Unsupported, "encoding"))
///     }
/// }
///
/// let mut bytes = Header::new(DType::Object, vec![1]).to_bytes(None)?;
/// bytes.extend_from_slice(b"\x80\x04N.");
/// let mut reader = npy_core::NpyReader::new(&bytes[..])?;
/// let err = reader.read_dyn_using(&Refuse).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::Pickle { .. }));
/// assert_eq!(err.to_string(), "object array: decoding |O");
/// // Without a codec, the refusal names the crate that decodes objects.
/// let err = npy_core::NpyReader::new(&bytes[..])?.read_dyn().unwrap_err();
/// assert!(err.to_string().contains("npy-pickle"));
/// # Ok::<(), Error>(())
/// ```
pub trait ObjectCodec: fmt::Debug + Send + Sync {
    /// Decodes the data of the array `header` describes (a dtype holding `O`: an object
    /// array, or records with object fields) from `data`, the rest of the input after the
    /// header. The array returned must be the one `header` describes.
    ///
    /// # Errors
    /// Whatever the codec refuses, as [`ErrorKind::Pickle`](crate::ErrorKind::Pickle) (made
    /// with [`Error::from_codec`]); I/O errors of `data`.
    fn decode(&self, header: &Header, data: &mut dyn Read) -> Result<DynArray, Error>;

    /// Writes the data of `array`, whose dtype holds `O`, to `out` (the header is written
    /// already).
    ///
    /// # Errors
    /// Values the codec cannot encode, usually [`ErrorKind::Pickle`](crate::ErrorKind::Pickle);
    /// I/O errors of `out`.
    fn encode(&self, array: &DynArray, out: &mut dyn Write) -> Result<(), Error>;
}

/// What the pickle crate needs of npy-core's dynamic codec, and nothing else should use:
/// the values of a dtype decoded from and encoded into their bytes.
#[doc(hidden)]
pub mod internals {
    use std::io::Write;
    use std::path::Path;

    use crate::error::ErrorKind;

    /// An npy-core error of `kind`, for the refusals npy-pickle shares with npy-core (a
    /// value the dtype cannot hold, a dtype that is not `|O`).
    #[cold]
    pub fn error(kind: ErrorKind) -> Error {
        Error::new(kind)
    }

    use crate::dtype::DType;
    use crate::dynamic::{DynArray, DynValue};
    use crate::error::{Error, PathContext};
    use crate::meta::ArrayMeta;
    use crate::read::NpyArray;
    use crate::write::AtomicFile;

    /// Bytes one element of `dtype` takes once decoded: its [`DynValue`] and everything that
    /// value owns (a subarray field is a value per element), saturating. What a pickled numpy
    /// scalar of `dtype` costs each time it is decoded or copied.
    pub fn decoded_bytes(dtype: &DType) -> u64 {
        crate::dynamic::budget::dyn_cost(dtype)
    }

    /// The `n` elements of `dtype` (which holds no object) in `bytes`, whose length the
    /// caller checked to be `n` × the itemsize.
    ///
    /// # Errors
    /// A dtype the dynamic decoder does not read; values it refuses;
    /// [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) when `bytes` is shorter than
    /// `n` elements.
    pub fn decode_all(dtype: &DType, bytes: &[u8], n: u64) -> Result<Vec<DynValue>, Error> {
        crate::dynamic::decode::decode_all(dtype, bytes, n)
    }

    /// The array `header` describes (a dtype without objects) holding the elements in
    /// `bytes` (memory order, the file's byte order), whose length the caller checked to be
    /// the header's element count × the itemsize: a numeric array inside an object array's
    /// pickle, gathered into columns without a tree per element.
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) when `bytes` does not
    /// hold the header's elements; a dtype holding objects; a shape over numpy's size.
    pub fn array_from_bytes(
        header: crate::header::Header,
        bytes: &[u8],
    ) -> Result<DynArray, Error> {
        crate::dynamic::array_from_bytes(header, bytes)
    }

    /// The elements' bytes of `array` (memory order, the dtype's byte order: what a file
    /// holds after the header), for an array held in columns; `None` for a dtype holding
    /// objects.
    pub fn array_bytes(array: &DynArray) -> Option<Vec<u8>> {
        crate::dynamic::array_bytes(array)
    }

    /// Encodes `value` as an element of `dtype` into `dst` (itemsize bytes).
    ///
    /// # Errors
    /// A value that `dtype` cannot hold.
    pub fn encode(dtype: &DType, value: &DynValue, dst: &mut [u8]) -> Result<(), Error> {
        crate::dynamic::encode::encode(dtype, value, dst)
    }

    /// An array of `meta` holding `data` (elements that are not [`NpyElement`]s: the Rust
    /// values of an object array's elements).
    ///
    /// [`NpyElement`]: crate::NpyElement
    ///
    /// # Errors
    /// [`ErrorKind::LengthMismatch`](crate::ErrorKind::LengthMismatch) when `data` does not
    /// hold `meta`'s elements.
    pub fn npy_array<T>(meta: ArrayMeta, data: Vec<T>) -> Result<NpyArray<T>, Error> {
        NpyArray::from_meta(meta, data)
    }

    /// Writes the file at `path` atomically, as the crate's path writers do (a temporary file
    /// renamed into place once `write` succeeded), the error naming the file.
    ///
    /// # Errors
    /// What `write` returns; creating, writing or renaming the temporary file.
    pub fn write_file(
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let go = || -> Result<(), Error> {
            let mut file = AtomicFile::create(path)?;
            write(&mut file)?;
            Ok(file.commit()?)
        };
        go().at_path(path)
    }
}

/// The data of an array whose dtype holds `O`, decoded by `codec` from the rest of the input.
pub(super) fn read_array<R: Read>(
    reader: &mut crate::read::NpyReader<R>,
    codec: &dyn ObjectCodec,
) -> Result<DynArray, Error> {
    let header = reader.header().clone();
    let mut rest = reader.rest();
    codec.decode(&header, &mut rest)
}

/// Writes the data of an array whose dtype holds `O` through `codec`, after its header.
pub(super) fn write_array(
    w: &mut dyn Write,
    array: &DynArray,
    codec: &dyn ObjectCodec,
) -> Result<(), Error> {
    codec.encode(array, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache gives each int its own text: equal ints the text once made, unequal ones
    /// (alternating, or one digit apart) theirs, as num-bigint's `to_string` writes them.
    #[test]
    fn int_decimal_reuses_only_the_text_of_an_equal_int() {
        let a: BigInt = BigInt::from(7u32).pow(1200) - 1u32;
        let b: BigInt = -(&a);
        let c = BigInt::from(7u32).pow(1200);
        for n in [&a, &a, &b, &a, &c, &c, &b] {
            assert_eq!(int_decimal(n), Ok(n.to_string()));
        }
        // 10^4300 has 4301 digits, but its size says 4,300 at least: converted to find the
        // 4,301, and the refusal kept, so a second reference costs no conversion (the review's
        // `c_same_4301d_P_list_70k` converted it for each of 70,000 references).
        let limit = BigInt::from(10u32).pow(MAX_INT_DIGITS as u32);
        assert!(int_decimal_work(&limit) > 0);
        assert_eq!(int_decimal(&limit), Err(MAX_INT_DIGITS as u64 + 1));
        assert_eq!(int_decimal_work(&limit), 0);
        assert_eq!(int_decimal(&limit), Err(MAX_INT_DIGITS as u64 + 1));
        // 10^4300 - 1 has 4300 digits: converted.
        let nines: BigInt = &limit - 1u32;
        assert_eq!(int_decimal(&nines), Ok("9".repeat(MAX_INT_DIGITS)));
        assert_eq!(
            int_decimal(&-&nines),
            Ok(format!("-{}", "9".repeat(MAX_INT_DIGITS)))
        );
        // Far past the limit: refused from its size, nothing to charge.
        let huge = BigInt::from(10u32).pow(5000);
        assert_eq!(int_decimal_work(&huge), 0);
        assert!(int_decimal(&huge).is_err());
    }
}
