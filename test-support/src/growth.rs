//! Helpers of the tests that grow files along their growth axis (npy-core's appends,
//! npy-convert's `concatenate` and `append_files`): a fixture cut into slices along that axis,
//! the write options that reproduce a fixture's layout, and headers no numpy writes.

use npy_core::{MemoryOrder, WriteOptions};
use serde_json::Value as Json;

use crate::{dtype_of, order_of, Elem};

/// Options reproducing a fixture's memory order, byte order and (`S`/`U`) dtype.
pub fn options_for<T: Elem>(e: &Json) -> WriteOptions {
    let dt = dtype_of(e);
    let mut o = WriteOptions::new()
        .order(order_of(e))
        .byte_order(dt.byte_order());
    if T::npy_dtype().itemsize() == 0 {
        o = o.dtype(dt);
    }
    o
}

/// The array `data` of `shape` cut along its growth axis (0 in C order, the last in Fortran
/// order): the elements of each slice, in the file's memory order, and the shape of one slice.
pub fn slices<T: Clone>(data: &[T], shape: &[u64], order: MemoryOrder) -> (Vec<Vec<T>>, Vec<u64>) {
    let axis = if order == MemoryOrder::Fortran {
        shape.len() - 1
    } else {
        0
    };
    let n = usize::try_from(shape[axis]).expect("a fixture's dimension fits usize");
    let mut one = shape.to_vec();
    one[axis] = 1;
    let per = usize::try_from(one.iter().product::<u64>()).expect("a fixture's slice fits usize");
    let out = (0..n)
        .map(|i| data[i * per..(i + 1) * per].to_vec())
        .collect();
    (out, one)
}

/// A hand-made version 1.0 file of `<f4` `data`: the header's dict written `dict`, padded
/// with spaces and a newline to `header_len` bytes, so a test can give a header of another
/// writer (no growth room, a compact dict).
pub fn raw_npy_v1_f4(dict: &str, header_len: usize, data: &[f32]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    let len = u16::try_from(header_len).expect("a version 1.0 header under 64 KiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.resize(10 + header_len - 1, b' ');
    out.push(b'\n');
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}
