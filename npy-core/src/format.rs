//! The format's vocabulary: the magic string, versions, alignment, limits, byte and memory order.
//!
//! The bottom of the crate: these are facts of NEP 1 and numpy's `numpy/lib/_format_impl.py`,
//! with no behaviour of their own, so every other module may use them and this one uses none.

use std::borrow::Cow;
use std::fmt;

/// The six bytes every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// numpy aligns the start of the data to this many bytes when writing (since numpy 1.14; older
/// files are 16-aligned, and reading does not require any alignment).
pub const ARRAY_ALIGN: u64 = 64;

/// numpy reserves room for a growth-axis dimension of this many digits when writing
/// (`GROWTH_AXIS_MAX_DIGITS`), so the shape can be rewritten in place.
pub const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The most dimensions an array may have: numpy's `NPY_MAXDIMS` (64 since numpy 2.0). Headers
/// with more are refused, as `np.load` refuses them.
pub const MAX_DIMS: usize = 64;

/// A `.npy` format version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// 1.0: u16 header length, latin-1 header.
    V1_0,
    /// 2.0: u32 header length, latin-1 header.
    V2_0,
    /// 3.0: u32 header length, UTF-8 header.
    V3_0,
}

impl Version {
    /// From the two version bytes: `None` for anything but (1,0), (2,0), (3,0) (a reader
    /// reports that as `ErrorKind::UnsupportedVersion`).
    pub fn from_bytes(major: u8, minor: u8) -> Option<Version> {
        Version::ALL
            .into_iter()
            .find(|v| v.bytes() == (major, minor))
    }

    /// Every version, oldest first.
    pub(crate) const ALL: [Version; 3] = [Version::V1_0, Version::V2_0, Version::V3_0];

    /// `(major, minor)`.
    pub fn bytes(self) -> (u8, u8) {
        match self {
            Version::V1_0 => (1, 0),
            Version::V2_0 => (2, 0),
            Version::V3_0 => (3, 0),
        }
    }

    /// Size in bytes of the header-length field: 2 for 1.0, 4 otherwise.
    pub fn len_field_size(self) -> u64 {
        match self {
            Version::V1_0 => 2,
            _ => 4,
        }
    }

    /// Bytes before the header text: magic, version, header length (10 or 12).
    pub fn prefix_len(self) -> u64 {
        MAGIC.len() as u64 + 2 + self.len_field_size()
    }

    /// The largest header length the version's field holds.
    pub fn max_header_len(self) -> u64 {
        (1 << (8 * self.len_field_size())) - 1
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = self.bytes();
        write!(f, "{a}.{b}")
    }
}

/// Byte order of a dtype, as numpy reports it in `dtype.str`.
///
/// numpy resolves `=` (and a missing byte-order character) to the machine's order and writes
/// `|` for types where byte order does not apply (one-byte types, `S`, `V`, `O`, records).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// `<`
    Little,
    /// `>`
    Big,
    /// `|`: byte order does not apply.
    NotApplicable,
}

impl ByteOrder {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };

    /// The character numpy uses for it: `<`, `>` or `|`.
    pub fn as_char(self) -> char {
        match self {
            ByteOrder::Little => '<',
            ByteOrder::Big => '>',
            ByteOrder::NotApplicable => '|',
        }
    }

    /// `"little"`, `"big"` or `"na"` (the names `npy info --json` prints).
    pub fn name(self) -> &'static str {
        match self {
            ByteOrder::Little => "little",
            ByteOrder::Big => "big",
            ByteOrder::NotApplicable => "na",
        }
    }

    /// Whether data in this order needs a byte swap to be read on this machine.
    pub fn needs_swap(self) -> bool {
        self != ByteOrder::NotApplicable && self != Self::NATIVE
    }
}

/// Memory order of the array data: numpy's `order='C'` or `order='F'`, the header's
/// `fortran_order`. (Not `Order`, so that it and ndarray's `Order` can both be imported.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    /// Row-major: the last index varies fastest (`fortran_order: False`).
    C,
    /// Column-major: the first index varies fastest (`fortran_order: True`).
    Fortran,
}

impl MemoryOrder {
    /// The order a header's `fortran_order` value declares.
    #[inline]
    pub fn from_fortran_order(fortran_order: bool) -> MemoryOrder {
        if fortran_order {
            MemoryOrder::Fortran
        } else {
            MemoryOrder::C
        }
    }

    /// Whether this is [`MemoryOrder::Fortran`] (the header's `fortran_order` value).
    pub fn is_fortran(self) -> bool {
        self == MemoryOrder::Fortran
    }

    /// The growth axis of an array of `ndim` dimensions in this order: the outermost in
    /// memory, along which rows append and numpy reserves room for digits in the header: the
    /// first in C order, the last in Fortran order (0 for a 0-d array, which has none).
    #[inline]
    pub(crate) fn growth_axis(self, ndim: usize) -> usize {
        match self {
            MemoryOrder::C => 0,
            MemoryOrder::Fortran => ndim.saturating_sub(1),
        }
    }

    /// `'C'` or `'F'`, as numpy's `order=` argument spells them.
    pub fn as_char(self) -> char {
        match self {
            MemoryOrder::C => 'C',
            MemoryOrder::Fortran => 'F',
        }
    }
}

impl fmt::Display for MemoryOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_char())
    }
}

/// A shape argument: the dimensions, outermost first, as `u64` (the header's type) or `usize`
/// (ndarray's and `Vec`'s), so that `npy_core::write(p, data, a.shape())` works with an
/// ndarray's `&[usize]` as with `&[2, 3]` (an integer literal array is `&[u64; N]`).
///
/// # Examples
/// ```
/// use npy_core::format::AsShape;
/// let from_usize: &[usize] = &[2, 3];
/// assert_eq!(&*from_usize.to_dims(), [2u64, 3]);
/// assert_eq!(&*(&[4u64, 5]).to_dims(), [4, 5]);
/// ```
pub trait AsShape {
    /// The dimensions as `u64`, borrowed when they already are. A `usize` that does not fit
    /// in 64 bits (on no platform Rust supports today) becomes `u64::MAX`, which every writer
    /// then refuses as too large.
    fn to_dims(&self) -> Cow<'_, [u64]>;
}

macro_rules! as_shape {
    ($to_dims:path: $($shape:ty),*) => {$(
        impl AsShape for $shape {
            fn to_dims(&self) -> Cow<'_, [u64]> {
                $to_dims(self)
            }
        }
    )*};
}

as_shape!(Cow::Borrowed: &[u64], &Vec<u64>);
as_shape!(usize_dims: &Vec<usize>, &[usize]);

// No `&[usize; N]`: with two array impls an integer literal shape (`&[2, 3]`) would no longer
// infer its type.
impl<const N: usize> AsShape for &[u64; N] {
    fn to_dims(&self) -> Cow<'_, [u64]> {
        Cow::Borrowed(&self[..])
    }
}

/// Dimensions given as `usize` (a length, ndarray's `shape()`), widened to `u64`.
fn usize_dims(dims: &[usize]) -> Cow<'static, [u64]> {
    let dims = dims.iter().map(|&d| u64::try_from(d).unwrap_or(u64::MAX));
    Cow::Owned(dims.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NEP 1: 1.0's `HEADER_LEN` is a little-endian u16, 2.0's and 3.0's a u32.
    #[test]
    fn header_len_limits_are_the_field_widths() {
        assert_eq!(Version::V1_0.max_header_len(), 65_535);
        assert_eq!(Version::V2_0.max_header_len(), 4_294_967_295);
        assert_eq!(Version::V3_0.max_header_len(), 4_294_967_295);
    }
}
