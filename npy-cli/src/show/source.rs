//! The values `npy show` prints, read from the file in bounded chunks.
//!
//! [`Values`] yields the elements of an array in logical C order, all of them or only those a
//! summarised print shows (numpy's `_leading_trailing`: `edgeitems` at each edge of each
//! axis, [`PrintOptions::shown`]). It reads them with [`NpyReader::read_dyn_range`], at most
//! [`CHUNK_ELEMENTS`] elements (and about [`CHUNK_BYTES`] of data) at a time, so memory does not
//! grow with the file. A C-order array read whole is read front to back; otherwise each chunk
//! of wanted elements is read as spans of nearby memory-order elements (three at each edge of
//! a summarised C-order row; every `shape[0]`-th element when a Fortran-order array is walked
//! in C order, read through when `shape[0]` is at most [`GAP_ELEMENTS`], one by one beyond).

use std::collections::VecDeque;
use std::io::{Read, Seek};

use npy_core::{DynValue, Error, NpyReader};
use npy_print::PrintOptions;

/// Most elements decoded at once.
pub const CHUNK_ELEMENTS: u64 = 1 << 16;
/// Data bytes decoded at once (at least one element).
pub const CHUNK_BYTES: u64 = 1 << 20;
/// Largest gap (in elements) between wanted elements that is read through rather than
/// skipped with a seek: a Fortran-order array walked in C order wants every `shape[0]`-th
/// element, and reading a few between is cheaper than a system call per element.
const GAP_ELEMENTS: u64 = 64;

/// The elements of an array in C order, read chunk by chunk; see the module docs.
#[derive(Debug)]
pub struct Values<'a, R> {
    reader: &'a mut NpyReader<R>,
    chunk: u64,
    walk: Walk,
    buf: VecDeque<DynValue>,
}

/// Which elements are next.
#[derive(Debug)]
enum Walk {
    /// Memory order is C order and every element is wanted: `next..end`.
    Sequential { next: u64, end: u64 },
    /// A multi-index walk over the shown indices of each axis, C order.
    Indexed {
        /// Per axis: its length, and the memory-order stride of one step along it.
        axes: Vec<(u64, u64)>,
        summarise: bool,
        /// Which indices a summarised print shows.
        options: PrintOptions,
        /// Position along each axis as a count of shown indices; `None` when done.
        at: Option<Vec<u64>>,
    },
}

impl<'a, R: Read + Seek> Values<'a, R> {
    /// The elements of `reader`'s array (its shape and order), only the shown ones when
    /// `summarise` (those `options` shows).
    pub fn new(
        reader: &'a mut NpyReader<R>,
        summarise: bool,
        options: PrintOptions,
    ) -> Values<'a, R> {
        let shape = reader.shape().to_vec();
        let fortran = reader.order() == npy_core::MemoryOrder::Fortran;
        let itemsize = reader.dtype().itemsize().max(1);
        let chunk = (CHUNK_BYTES / itemsize).clamp(1, CHUNK_ELEMENTS);
        let walk = if shape.contains(&0) {
            Walk::Sequential { next: 0, end: 0 }
        } else if !summarise && (!fortran || shape.len() < 2) {
            Walk::Sequential {
                next: 0,
                end: reader.num_elements(),
            }
        } else {
            let mut strides = vec![1u64; shape.len()];
            if fortran {
                for i in 1..shape.len() {
                    strides[i] = strides[i - 1] * shape[i - 1];
                }
            } else {
                for i in (0..shape.len().saturating_sub(1)).rev() {
                    strides[i] = strides[i + 1] * shape[i + 1];
                }
            }
            Walk::Indexed {
                axes: shape.iter().copied().zip(strides).collect(),
                summarise,
                options,
                at: Some(vec![0; shape.len()]),
            }
        };
        Values {
            reader,
            chunk,
            walk,
            buf: VecDeque::new(),
        }
    }

    /// Every element of `reader`'s array in memory order (C or Fortran): what fitting a
    /// format needs, whose result does not depend on the order.
    pub fn memory_order(reader: &'a mut NpyReader<R>) -> Values<'a, R> {
        let end = if reader.shape().contains(&0) {
            0
        } else {
            reader.num_elements()
        };
        let chunk = (CHUNK_BYTES / reader.dtype().itemsize().max(1)).clamp(1, CHUNK_ELEMENTS);
        Values {
            reader,
            chunk,
            walk: Walk::Sequential { next: 0, end },
            buf: VecDeque::new(),
        }
    }

    /// Reads the next chunk into the buffer; false when the walk is over.
    fn refill(&mut self) -> Result<bool, Error> {
        match &mut self.walk {
            Walk::Sequential { next, end } => {
                if next == end {
                    return Ok(false);
                }
                let stop = (*next + self.chunk).min(*end);
                let range = *next..stop;
                *next = stop;
                self.buf.extend(self.reader.read_dyn_range(range)?);
            }
            Walk::Indexed {
                axes,
                summarise,
                options,
                at,
            } => {
                let mut offsets = Vec::new();
                while let Some(pos) = at.as_mut() {
                    if offsets.len() as u64 == self.chunk {
                        break;
                    }
                    let mut offset = 0u64;
                    for (&k, &(n, stride)) in pos.iter().zip(axes.iter()) {
                        offset += index(options, n, *summarise, k) * stride;
                    }
                    offsets.push(offset);
                    // Advance, last axis fastest.
                    let mut axis = pos.len();
                    loop {
                        if axis == 0 {
                            *at = None;
                            break;
                        }
                        axis -= 1;
                        pos[axis] += 1;
                        if pos[axis] < options.shown_count(&[axes[axis].0], *summarise) {
                            break;
                        }
                        pos[axis] = 0;
                    }
                }
                if offsets.is_empty() {
                    return Ok(false);
                }
                // Spans of nearby offsets (gaps of at most GAP_ELEMENTS, at most a chunk
                // long), each read once, the wanted elements kept.
                let mut start = 0;
                for i in 1..=offsets.len() {
                    let split = i == offsets.len()
                        || offsets[i] <= offsets[i - 1]
                        || offsets[i] - offsets[i - 1] > GAP_ELEMENTS
                        || offsets[i] - offsets[start] >= self.chunk;
                    if split {
                        let first = offsets[start];
                        let span = self.reader.read_dyn_range(first..offsets[i - 1] + 1)?;
                        let mut span = span.into_iter().map(Some).collect::<Vec<_>>();
                        for &o in &offsets[start..i] {
                            let v = span[(o - first) as usize].take();
                            self.buf.extend(v);
                        }
                        start = i;
                    }
                }
            }
        }
        Ok(true)
    }
}

/// The index along an axis of length `n` of the `k`-th shown position.
fn index(options: &PrintOptions, n: u64, summarise: bool, k: u64) -> u64 {
    match options.shown(n, summarise) {
        (lead, Some(trail)) if k >= lead.end => trail.start + (k - lead.end),
        _ => k,
    }
}

impl<R: Read + Seek> Iterator for Values<'_, R> {
    type Item = Result<DynValue, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() {
            match self.refill() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
        self.buf.pop_front().map(Ok)
    }
}
