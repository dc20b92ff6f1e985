//! Typed arrays ([`NpyArray`]) print as the dynamic ones: each shown element is encoded as the
//! array's dtype stores it and decoded as a [`DynValue`], one at a time.

use std::borrow::Cow;

use super::layout::{ArrayDisplay, Elements};
use super::PrintOptions;
use npy_core::__private::ElementDecoder;
use npy_core::dtype::DType;
use npy_core::DynValue;
use npy_core::NpyArray;
use npy_core::NpyElement;

/// A typed array seen as [`DynValue`]s: its dtype, how its elements encode to that dtype, and
/// how those bytes decode.
struct Typed<'a, T: NpyElement> {
    array: &'a NpyArray<T>,
    dtype: DType,
    codec: Option<(T::Plan, ElementDecoder)>,
}

impl<'a, T: NpyElement> Typed<'a, T> {
    /// The array's own dtype when its elements encode to it (a `>f8` file read as `f64`),
    /// else the type's dtype for the values (an `f4` file widened to `f64` prints as float64,
    /// which its values are).
    fn new(array: &'a NpyArray<T>) -> Typed<'a, T> {
        let codec = |dtype: &DType| Some((T::plan(dtype).ok()?, ElementDecoder::new(dtype).ok()?));
        let own = array.dtype().clone();
        if let Some(c) = codec(&own) {
            return Typed {
                array,
                dtype: own,
                codec: Some(c),
            };
        }
        let dtype = T::dtype_for(array.data());
        Typed {
            array,
            codec: codec(&dtype),
            dtype,
        }
    }
}

impl<T: NpyElement> Elements for Typed<'_, T> {
    fn dtype(&self) -> &DType {
        &self.dtype
    }

    fn shape(&self) -> &[u64] {
        self.array.shape()
    }

    fn value(&self, index: &[u64]) -> Option<Cow<'_, DynValue>> {
        let (plan, decoder) = self.codec.as_ref()?;
        let element = self.array.data().get(self.array.meta().index_of(index)?)?;
        let mut bytes = vec![0u8; usize::try_from(self.dtype.itemsize()).ok()?];
        element.write(plan, &mut bytes).ok()?;
        decoder.decode(&bytes).ok().map(Cow::Owned)
    }
}

/// `array` printed with `options` ([`Print`](crate::Print) of a typed array).
pub(crate) fn display<T: NpyElement>(
    array: &NpyArray<T>,
    options: PrintOptions,
) -> ArrayDisplay<'_> {
    ArrayDisplay::typed(Box::new(Typed::new(array)), options)
}
