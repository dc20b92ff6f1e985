//! `[T; N]`: subarrays.

use super::{mismatch, NpyElement};
use crate::dtype::{DType, SubArray};
use crate::error::{to_usize, Error};

/// `[T; N]`: a subarray of `N` elements of `T` (`[[f32; 3]; 2]` is a `(2, 3)` subarray).
///
/// As a record field it is a subarray field. As the element of a whole array it is stored as
/// numpy stores such arrays: the base dtype with the subarray's dimensions appended to the
/// shape, so `write(path, &[[1i16, 2, 3], [4, 5, 6]], &[2])` writes a `'<i2'` array of shape
/// `(2, 3)`, and reading a C-order `(2, 3)` file as `[i16; 3]` gives 2 elements of shape `(2,)`.
impl<T: NpyElement, const N: usize> NpyElement for [T; N] {
    type Plan = (T::Plan, usize);
    fn npy_dtype() -> DType {
        let (base, mut shape) = match T::npy_dtype() {
            DType::SubArray(s) => {
                let (shape, base) = s.flatten();
                (base.clone(), shape)
            }
            d => (d, Vec::new()),
        };
        shape.insert(0, N as u64);
        match SubArray::new(base.clone(), shape) {
            Ok(s) => DType::SubArray(s),
            // Only for N == 0 nested in a zero-size base; fall back to the base itself.
            Err(_) => base,
        }
    }
    fn rust_name() -> String {
        format!("[{}; {N}]", T::rust_name())
    }
    fn plan(dtype: &DType) -> Result<Self::Plan, Error> {
        let DType::SubArray(s) = dtype else {
            return Err(mismatch::<Self>(dtype));
        };
        if s.shape().first() != Some(&(N as u64)) {
            return Err(mismatch::<Self>(dtype));
        }
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
        let mut out = Vec::with_capacity(N);
        for i in 0..N {
            out.push(T::read(&plan.0, &src[i * plan.1..(i + 1) * plan.1])?);
        }
        match out.try_into() {
            Ok(array) => Ok(array),
            Err(_) => unreachable!("exactly N elements were pushed"),
        }
    }
    fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
        for (i, v) in self.iter().enumerate() {
            v.write(&plan.0, &mut dst[i * plan.1..(i + 1) * plan.1])?;
        }
        Ok(())
    }
}
