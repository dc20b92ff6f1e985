//! Typed arrays ([`NpyArray`]) print as the dynamic ones: each shown element is encoded as the
//! array's dtype stores it and decoded as a [`DynValue`], one at a time.

use std::borrow::Cow;
use std::fmt;

use super::layout::{ArrayDisplay, Elements};
use super::PrintOptions;
use crate::dtype::DType;
use crate::dynamic::{DynValue, ElementDecoder};
use crate::element::NpyElement;
use crate::read::NpyArray;

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

impl<T: NpyElement> NpyArray<T> {
    /// The array printed with `options`, as [`DynArray::display_with`](crate::DynArray::display_with)
    /// prints a dynamic one: `Display` is numpy's `str(arr)`, `{:#}` numpy's `repr(arr)`. The
    /// elements print as the array's dtype holds them (as the type's own dtype when they were
    /// widened on reading: an `f4` file read as `f64` prints as float64).
    ///
    /// # Examples
    /// ```
    /// use npy_core::print::PrintOptions;
    /// use npy_core::NpyArray;
    /// let a = NpyArray::from_parts(vec![2, 2], npy_core::Order::C, vec![0.5f32, 1.0, 1.5, 2e6])?;
    /// assert_eq!(a.to_string(), "[[5.0e-01 1.0e+00]\n [1.5e+00 2.0e+06]]");
    /// let narrow = PrintOptions::new().linewidth(20);
    /// assert_eq!(
    ///     format!("{:#}", a.display_with(&narrow)),
    ///     "array([[5.0e-01,\n        1.0e+00],\n       [1.5e+00,\n        2.0e+06]],\n      dtype=float32)"
    /// );
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    pub fn display_with(&self, options: &PrintOptions) -> ArrayDisplay<'_> {
        ArrayDisplay::typed(Box::new(Typed::new(self)), *options)
    }
}

impl<T: NpyElement> fmt::Display for NpyArray<T> {
    /// numpy's `str(arr)` with the default print options; `{:#}` is numpy's `repr(arr)`.
    ///
    /// # Examples
    /// ```
    /// use npy_core::NpyArray;
    /// let a = NpyArray::from_parts(vec![3], npy_core::Order::C, vec![1i32, -20, 300])?;
    /// assert_eq!(a.to_string(), "[  1 -20 300]");
    /// assert_eq!(format!("{a:#}"), "array([  1, -20, 300], dtype=int32)");
    /// let words = NpyArray::from_parts(vec![2], npy_core::Order::C, vec!["ab".to_string(), "c".into()])?;
    /// assert_eq!(words.to_string(), "['ab' 'c']");
    /// # Ok::<(), npy_core::Error>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.display_with(&PrintOptions::new()), f)
    }
}
