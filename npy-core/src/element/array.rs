//! `[T; N]`: subarrays.

use super::{mismatch, NpyElement};
use crate::dtype::{DType, SubArray};
use crate::error::{to_usize, Error, ErrorKind};

/// `[T; N]`: a subarray of `N` elements of `T` (`[[f32; 3]; 2]` is a `(2, 3)` subarray).
///
/// As a record field it is a subarray field. As the element of a whole array it is stored as
/// numpy stores such arrays: the base dtype with the subarray's dimensions appended to the
/// shape, so `write(path, &[[1i16, 2, 3], [4, 5, 6]], &[2])` writes a `'<i2'` array of shape
/// `(2, 3)`, and reading a C-order `(2, 3)` file as `[i16; 3]` gives 2 elements of shape `(2,)`.
impl<T: NpyElement, const N: usize> NpyElement for [T; N] {
    type Plan = (T::Plan, usize);
    fn npy_dtype() -> DType {
        let inner = T::npy_dtype();
        let (mut shape, base) = match &inner {
            DType::SubArray(s) => s.flatten(),
            d => (Vec::new(), d),
        };
        shape.insert(0, N as u64);
        // Only for N == 0 nested in a zero-size base; fall back to the base itself.
        SubArray::new(base.clone(), shape).map_or_else(|_| base.clone(), DType::SubArray)
    }
    fn rust_name() -> String {
        format!("[{}; {N}]", T::rust_name())
    }
    fn plan(dtype: &DType) -> Result<Self::Plan, Error> {
        let s = match dtype {
            DType::SubArray(s) if s.shape().first() == Some(&(N as u64)) => s,
            _ => return Err(mismatch::<Self>(dtype)),
        };
        let inner = if s.shape().len() == 1 {
            s.base().clone()
        } else {
            DType::SubArray(SubArray::new(s.base().clone(), s.shape()[1..].to_vec())?)
        };
        let plan = T::plan(&inner).map_err(|_| mismatch::<Self>(dtype))?;
        let item = to_usize(inner.itemsize(), "subarray element itemsize")?;
        Ok((plan, item))
    }
    fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error> {
        let (plan, item) = plan;
        let out = (0..N)
            .map(|i| T::read(plan, part(src, i, *item)?))
            .collect::<Result<Vec<T>, Error>>()?;
        // `map` over `0..N` yields N elements, so this is the array; an error all the same
        // rather than a panic.
        let len = out.len() as u64;
        out.try_into().map_err(|_| {
            Error::new(ErrorKind::LengthMismatch {
                what: "subarray elements",
                expected: N as u64,
                found: len,
            })
        })
    }
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
        let (plan, item) = plan;
        let len = dst.len();
        for (i, v) in self.iter().enumerate() {
            let slot = i
                .checked_mul(*item)
                .and_then(|at| dst.get_mut(at..)?.get_mut(..*item))
                .ok_or_else(|| short(len, N, *item))?;
            v.write(plan, slot)?;
        }
        Ok(())
    }
}

/// Element `i` (`item` bytes) of the subarray in `src`: `src` is one element of the subarray
/// dtype, `N × item` bytes by the plan (`[T; N]::plan`), checked here all the same.
fn part(src: &[u8], i: usize, item: usize) -> Result<&[u8], Error> {
    i.checked_mul(item)
        .and_then(|at| src.get(at..)?.get(..item))
        .ok_or_else(|| short(src.len(), i.saturating_add(1), item))
}

/// A buffer of `len` bytes that does not hold `n` subarray elements of `item` bytes.
#[cold]
fn short(len: usize, n: usize, item: usize) -> Error {
    let needed = (n as u64).saturating_mul(item as u64);
    Error::truncated("subarray element", needed, len as u64)
}
