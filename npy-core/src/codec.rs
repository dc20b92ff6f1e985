//! The scalar codec: the one home of the small rules every path shares.
//!
//! Typed elements (`element/`), dynamic values (`dynamic/`), views and conversion all decode
//! and encode through these functions, so a rule is written once: byte order ([`Endian`],
//! [`Scalar`]: numbers from and to their bytes, [`swap_in_place`]); `b1` bytes ([`decode_bool`]:
//! non-zero is true, as numpy; [`encode_bool`], [`first_noncanonical_bool`]); `S` and `U`
//! strings ([`trim_nuls`], [`ucs4_code_points`], [`encode_bytes`], [`encode_ucs4`]); shapes
//! ([`checked_product`], [`nonzero_product`], [`saturating_product`]); memory order
//! ([`flat_index`], [`Stepper`]); how much to handle per step ([`CHUNK_BYTES`],
//! [`SWAP_CHUNK_BYTES`], [`COPY_CHUNK_BYTES`], [`per_chunk`]).

use half::f16;
use num_complex::Complex;

use crate::format::{ByteOrder, MemoryOrder};

/// Bytes decoded per step on the element-by-element paths (reading, writing, streaming) and
/// read per step from streams of unknown length: large enough to amortise calls, small enough
/// to stay in L1/L2.
pub(crate) const CHUNK_BYTES: usize = 64 << 10;

/// Bytes read per step before an in-place byte swap: small enough that the swap finds them in
/// L2, large enough that one `read` call moves a lot.
pub(crate) const SWAP_CHUNK_BYTES: usize = 256 << 10;

/// Bytes copied per step by a streaming conversion (file to file, optionally swapped): larger
/// steps, since each costs two system calls; small enough that the swap and the write find
/// the step still in L2 (4 MiB steps measured no faster).
pub const COPY_CHUNK_BYTES: usize = 1 << 20;

/// Whole elements of `itemsize` bytes per step of `chunk` bytes: at least one.
pub fn per_chunk(itemsize: usize, chunk: usize) -> usize {
    (chunk / itemsize.max(1)).max(1)
}

/// Byte order to decode a scalar with: `NotApplicable` (one-byte types) reads as little-endian,
/// which is every order for one byte. The plan of the number elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endian(pub(crate) bool);

impl Endian {
    /// The order of data in `order`.
    pub(crate) fn of(order: ByteOrder) -> Endian {
        Endian(order == ByteOrder::Big)
    }

    /// Whether the data is big-endian.
    pub(crate) fn is_big(self) -> bool {
        self.0
    }
}

/// A number that is its bytes in either order: the integers, `f16`, `f32`, `f64`.
pub(crate) trait Scalar: Copy {
    /// Bytes of one value.
    const SIZE: usize;

    /// The value in the first [`Scalar::SIZE`] bytes of `src` (`src` is exactly that long).
    fn decode(src: &[u8], endian: Endian) -> Self;

    /// Writes the value into `dst` (exactly [`Scalar::SIZE`] bytes).
    fn encode(self, dst: &mut [u8], endian: Endian);
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();

            #[inline]
            fn decode(src: &[u8], endian: Endian) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(src);
                if endian.is_big() {
                    <$t>::from_be_bytes(b)
                } else {
                    <$t>::from_le_bytes(b)
                }
            }

            #[inline]
            fn encode(self, dst: &mut [u8], endian: Endian) {
                dst.copy_from_slice(&if endian.is_big() {
                    self.to_be_bytes()
                } else {
                    self.to_le_bytes()
                });
            }
        }
    )*};
}

scalar!(i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64);

/// `c8` and `c16`: the real part, then the imaginary part, each in the byte order.
impl<F: Scalar> Scalar for Complex<F> {
    const SIZE: usize = 2 * F::SIZE;

    #[inline]
    fn decode(src: &[u8], endian: Endian) -> Self {
        let (re, im) = src.split_at(F::SIZE);
        Complex::new(F::decode(re, endian), F::decode(im, endian))
    }

    #[inline]
    fn encode(self, dst: &mut [u8], endian: Endian) {
        let (re, im) = dst.split_at_mut(F::SIZE);
        self.re.encode(re, endian);
        self.im.encode(im, endian);
    }
}

/// Reverses every `unit`-byte chunk of `bytes` in place: the byte swap of bulk reads and
/// writes, and of conversion.
pub fn swap_in_place(bytes: &mut [u8], unit: usize) {
    match unit {
        2 => swap_words::<u16>(bytes, u16::swap_bytes),
        4 => swap_words::<u32>(bytes, u32::swap_bytes),
        8 => swap_words::<u64>(bytes, u64::swap_bytes),
        _ => bytes
            .chunks_exact_mut(unit.max(1))
            .for_each(<[u8]>::reverse),
    }
}

fn swap_words<W: bytemuck::Pod>(bytes: &mut [u8], swap: fn(W) -> W) {
    // Aligned buffers (every Vec<T> of a bulk type) take the word-wise loop, which compiles to
    // vector shuffles; anything else the byte-wise one.
    match bytemuck::try_cast_slice_mut::<u8, W>(bytes) {
        Ok(words) => words.iter_mut().for_each(|w| *w = swap(*w)),
        Err(_) => bytes
            .chunks_exact_mut(std::mem::size_of::<W>())
            .for_each(<[u8]>::reverse),
    }
}

/// A `b1` byte as numpy reads it: any non-zero byte is `True`. numpy itself writes bytes other
/// than 1 (a 0/255 mask viewed as bool is saved as 0x00/0xFF), so they are data, not damage;
/// [`first_noncanonical_bool`] finds them for the strict check and for views.
#[inline]
pub(crate) fn decode_bool(byte: u8) -> bool {
    byte != 0
}

/// The `b1` byte to store for `value` over the byte `stored` there: `true` keeps a non-zero
/// stored byte (so that an array read and written back keeps numpy's bytes, as `np.save` of a
/// loaded array does), anything else is 0 or 1.
#[inline]
pub(crate) fn encode_bool(value: bool, stored: u8) -> u8 {
    u8::from(value) * stored.max(1)
}

/// The first byte of `bytes` (all `b1`) that is not 0 or 1 (the only bytes a Rust `bool` can
/// hold in memory, and the only ones
/// [`ReadOptions::strict_bools`](crate::ReadOptions::strict_bools) accepts): its index and value.
pub(crate) fn first_noncanonical_bool(bytes: &[u8]) -> Option<(usize, u8)> {
    bytes.iter().position(|&b| b > 1).map(|i| (i, bytes[i]))
}

/// An `S` value as numpy's item access gives it: the bytes without trailing NULs (inner NULs kept).
pub(crate) fn trim_nuls(src: &[u8]) -> &[u8] {
    let end = src.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    &src[..end]
}

/// The code points of a `U` value (UCS-4 in `endian`), without trailing NULs, as numpy's item
/// access gives them; not checked to be Unicode scalar values.
pub(crate) fn ucs4_code_points(src: &[u8], endian: Endian) -> impl Iterator<Item = u32> + '_ {
    let units = src.chunks_exact(4).map(move |c| u32::decode(c, endian));
    let len = units.clone().rposition(|cp| cp != 0).map_or(0, |i| i + 1);
    units.take(len)
}

/// Writes an `S` value into `dst`, NUL-padded; `false` (and nothing written) when it is longer.
pub(crate) fn encode_bytes(value: &[u8], dst: &mut [u8]) -> bool {
    let Some((head, tail)) = dst.split_at_mut_checked(value.len()) else {
        return false;
    };
    head.copy_from_slice(value);
    tail.fill(0);
    true
}

/// Writes code points as a `U` value into `dst` (UCS-4 in `endian`), NUL-padded; `false` when
/// they do not fit (what was written is then unspecified).
pub(crate) fn encode_ucs4(
    code_points: impl Iterator<Item = u32>,
    dst: &mut [u8],
    endian: Endian,
) -> bool {
    let mut slots = dst.chunks_exact_mut(4);
    for cp in code_points {
        match slots.next() {
            Some(slot) => cp.encode(slot, endian),
            None => return false,
        }
    }
    slots.for_each(|slot| slot.fill(0));
    true
}

/// `start` × the product of `dims`, if it fits in 64 bits.
pub(crate) fn checked_product(start: u64, dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(start, |a, &d| a.checked_mul(d))
}

/// `start` × every non-zero dimension, checked, and whether a dimension is zero: numpy's rule
/// for an array's size (`PyArray_NewFromDescr`), where a zero dimension does not excuse the
/// others wherever it stands.
pub(crate) fn nonzero_product(start: u64, dims: &[u64]) -> Option<(u64, bool)> {
    dims.iter()
        .try_fold((start, false), |(p, zero), &d| match d {
            0 => Some((p, true)),
            _ => Some((p.checked_mul(d)?, zero)),
        })
}

/// The product of `dims`, saturating at `u64::MAX`: for budgets, where "too many" is enough.
pub fn saturating_product(dims: &[u64]) -> u64 {
    dims.iter().fold(1u64, |a, &d| a.saturating_mul(d))
}

/// Position in memory of a logical index (one entry per dimension) of an array of `shape`
/// stored in `order`; `None` out of range.
pub(crate) fn flat_index(shape: &[u64], order: MemoryOrder, index: &[u64]) -> Option<usize> {
    if index.len() != shape.len() || index.iter().zip(shape).any(|(i, d)| i >= d) {
        return None;
    }
    let step = |flat: Option<u64>, (i, d): (&u64, &u64)| flat?.checked_mul(*d)?.checked_add(*i);
    let flat = match order {
        MemoryOrder::C => index.iter().zip(shape).fold(Some(0), step),
        MemoryOrder::Fortran => index.iter().zip(shape).rev().fold(Some(0), step),
    }?;
    usize::try_from(flat).ok()
}

/// Rearranges `values`, an array of `shape` stored in `order`, into C order in place (nothing
/// to do for C order or fewer than two dimensions). Follows the permutation's cycles with
/// swaps, so the extra memory is one bit per element, not a second array.
///
/// `values.len()` must be the product of `shape` (the callers' arrays are checked); otherwise
/// the values are left as they are.
pub(crate) fn permute_to_c_order<T>(values: &mut [T], shape: &[u64], order: MemoryOrder) {
    if order == MemoryOrder::C
        || shape.len() < 2
        || checked_product(1, shape) != Some(values.len() as u64)
    {
        return;
    }
    // The memory position of the element whose C-order position is `c`.
    let mut index = vec![0u64; shape.len()];
    let mut source = |mut c: u64| -> usize {
        for (i, &d) in index.iter_mut().zip(shape).rev() {
            *i = c % d;
            c /= d;
        }
        flat_index(shape, order, &index).unwrap_or(0)
    };
    let mut done = vec![0u64; values.len().div_ceil(64)];
    for start in 0..values.len() {
        if done[start / 64] & (1 << (start % 64)) != 0 {
            continue;
        }
        let mut at = start;
        loop {
            done[at / 64] |= 1 << (at % 64);
            let from = source(at as u64);
            if from == start {
                break;
            }
            values.swap(at, from);
            at = from;
        }
    }
}

/// Walks the multi-indices of a shape in the memory order of C or Fortran order: the last
/// axis fastest for C, the first for Fortran.
#[derive(Debug, Clone)]
pub(crate) struct Stepper {
    index: Vec<u64>,
    shape: Vec<u64>,
    order: MemoryOrder,
    done: bool,
}

impl Stepper {
    /// At the first index of `shape` (done at once when `shape` has no elements).
    pub(crate) fn new(shape: &[u64], order: MemoryOrder) -> Stepper {
        Stepper {
            index: vec![0; shape.len()],
            shape: shape.to_vec(),
            order,
            done: shape.contains(&0),
        }
    }

    /// The current index; `None` once every index was visited.
    pub(crate) fn index(&self) -> Option<&[u64]> {
        (!self.done).then_some(&self.index[..])
    }

    /// Moves to the next index. Returns the axis that advanced (the axes faster than it went
    /// back to 0), or `None` when the walk is over.
    pub(crate) fn step(&mut self) -> Option<usize> {
        if self.done {
            return None;
        }
        let (n, fortran) = (self.index.len(), self.order.is_fortran());
        for k in 0..n {
            let axis = if fortran { k } else { n - 1 - k };
            self.index[axis] += 1;
            if self.index[axis] < self.shape[axis] {
                return Some(axis);
            }
            self.index[axis] = 0;
        }
        self.done = true;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place cycle walk gives what reading every C-order index from Fortran memory
    /// gives (NEP 1's index rule, `flat_index`), on shapes with long and short cycles.
    #[test]
    fn permuting_to_c_order_reads_every_index_once() {
        for shape in [
            &[2u64, 3][..],
            &[5, 7],
            &[1, 9],
            &[9, 1],
            &[3, 1, 4],
            &[2, 3, 4, 5],
            &[4, 0, 3],
            &[6],
        ] {
            let n = checked_product(1, shape).unwrap() as usize;
            let memory: Vec<u32> = (0..n as u32).collect();
            let mut want = Vec::new();
            let mut walk = Stepper::new(shape, MemoryOrder::C);
            while let Some(index) = walk.index() {
                want.push(memory[flat_index(shape, MemoryOrder::Fortran, index).unwrap()]);
                walk.step();
            }
            let mut got = memory.clone();
            permute_to_c_order(&mut got, shape, MemoryOrder::Fortran);
            assert_eq!(got, want, "{shape:?}");
            let mut c = memory.clone();
            permute_to_c_order(&mut c, shape, MemoryOrder::C);
            assert_eq!(c, memory);
        }
    }

    #[test]
    fn stepping_follows_memory_order() {
        let walk = |order| {
            let mut s = Stepper::new(&[2, 3], order);
            let mut seen = Vec::new();
            while let Some(ix) = s.index() {
                seen.push((ix[0], ix[1]));
                s.step();
            }
            seen
        };
        assert_eq!(
            walk(MemoryOrder::C),
            [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
        );
        assert_eq!(
            walk(MemoryOrder::Fortran),
            [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
        );
        assert_eq!(Stepper::new(&[3, 0], MemoryOrder::C).index(), None);
        let mut scalar = Stepper::new(&[], MemoryOrder::C);
        assert_eq!(scalar.index(), Some(&[][..]));
        assert_eq!(scalar.step(), None);
        assert_eq!(scalar.index(), None);
    }

    #[test]
    fn flat_index_in_both_orders() {
        assert_eq!(flat_index(&[2, 3], MemoryOrder::C, &[1, 0]), Some(3));
        assert_eq!(flat_index(&[2, 3], MemoryOrder::Fortran, &[1, 0]), Some(1));
        assert_eq!(flat_index(&[2, 3], MemoryOrder::C, &[2, 0]), None);
        assert_eq!(flat_index(&[2, 3], MemoryOrder::C, &[0]), None);
        assert_eq!(flat_index(&[], MemoryOrder::C, &[]), Some(0));
    }

    #[test]
    fn strings() {
        assert_eq!(trim_nuls(b"a\0b\0\0"), b"a\0b");
        let le: Vec<u8> = [0x61u32, 0, 0x62, 0, 0]
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        let cps: Vec<u32> = ucs4_code_points(&le, Endian(false)).collect();
        assert_eq!(cps, [0x61, 0, 0x62]);
        let mut dst = [9u8; 12];
        assert!(encode_ucs4(
            [0x61, 0x62].into_iter(),
            &mut dst,
            Endian(true)
        ));
        assert_eq!(dst, [0, 0, 0, 0x61, 0, 0, 0, 0x62, 0, 0, 0, 0]);
        assert!(!encode_ucs4(
            [1, 2, 3, 4].into_iter(),
            &mut dst,
            Endian(true)
        ));
        let mut s = [9u8; 3];
        assert!(encode_bytes(b"ab", &mut s));
        assert_eq!(s, *b"ab\0");
        assert!(!encode_bytes(b"abcd", &mut s));
    }

    #[test]
    fn products() {
        assert_eq!(checked_product(1, &[]), Some(1));
        assert_eq!(checked_product(1, &[1 << 32, 1 << 32]), None);
        assert_eq!(checked_product(0, &[1 << 32, 1 << 32]), Some(0));
        assert_eq!(nonzero_product(8, &[1 << 62, 0]), None);
        assert_eq!(nonzero_product(8, &[3, 0]), Some((24, true)));
        assert_eq!(saturating_product(&[u64::MAX, 2]), u64::MAX);
    }
}
