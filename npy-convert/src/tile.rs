//! The memory-order half of a conversion: tiles, their runs, and the in-memory transpose.

use super::pipeline::{overlapped, Buffer};
use super::swap::Swap;
use super::{Input, Output};
use npy_core::format::MemoryOrder;
use npy_core::Error;

/// Bytes of one tile of a memory-order change (`convert_file`), held three times (two as read,
/// one filling while the other is transposed, and one as written): about 1448 × 1448 `f32`
/// elements, so runs on both sides are 5 KiB or more, and a tile stays in L2 while it is
/// transposed. Measured on the 512 MiB (8192, 16384) `f32` transpose: 0.47–0.51 s with 8 MiB,
/// 0.62–0.67 s with 16 MiB, 0.51–0.59 s and more with 2 or 4 MiB.
pub(crate) const TILE_BYTES: usize = 8 << 20;

/// The axes of `shape` longer than 1, as `u64` extents in the source's memory order, fastest
/// first (axes of length 1 change no offset, so they are dropped; the target's memory order
/// is the reverse of this list).
pub(super) fn source_axes(shape: &[u64], order: MemoryOrder) -> Vec<u64> {
    let mut axes: Vec<u64> = shape.iter().copied().filter(|&d| d > 1).collect();
    if order == MemoryOrder::C {
        axes.reverse();
    }
    axes
}

/// The tiled transposition of an order change. The order change reverses the axes: with the
/// extents `dims` listed in the source's memory order, fastest first, the target's fastest
/// axis is the last. Tiles of `tile` elements per axis cover the array; each is read as
/// runs contiguous in the source (along its first axes, merged while the tile covers an
/// axis whole), transposed in memory, and written as runs contiguous in the target (along
/// its last axes, merged likewise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tiling {
    dims: Vec<u64>,
    tile: Vec<u64>,
    itemsize: usize,
}

impl Tiling {
    /// Tile extents for at most `budget` bytes a tile (at least one element): about the
    /// square root of the budget's elements along the source's fastest axes, the rest along
    /// the target's, so runs on both sides are long; a partly covered axis is cut into
    /// tiles of equal length (no one-element edge tiles).
    pub(super) fn new(dims: Vec<u64>, itemsize: usize, budget: usize) -> Tiling {
        let n = dims.len();
        let elements = (budget / itemsize.max(1)).max(1) as u64;
        let share = elements.isqrt().max(1);
        let mut tile = vec![1u64; n];
        let mut used = 1u64;
        let mut partial = n;
        for k in 0..n {
            tile[k] = dims[k].min((share / used).max(1));
            used *= tile[k];
            if tile[k] < dims[k] {
                partial = k;
                break;
            }
        }
        if partial < n {
            for k in (partial..n).rev() {
                let room = (elements / used).max(1);
                if k == partial {
                    tile[k] = dims[k].min(tile[k] * room);
                    break;
                }
                tile[k] = dims[k].min(room);
                used *= tile[k];
                if tile[k] < dims[k] {
                    break;
                }
            }
        }
        for (t, &d) in tile.iter_mut().zip(&dims) {
            *t = d.div_ceil(d.div_ceil(*t));
        }
        Tiling {
            dims,
            tile,
            itemsize,
        }
    }

    /// Strides (elements) of the source and of the target.
    fn strides(&self) -> (Vec<u64>, Vec<u64>) {
        let n = self.dims.len();
        let mut src = vec![1u64; n];
        let mut dst = vec![1u64; n];
        for k in 1..n {
            src[k] = src[k - 1] * self.dims[k - 1];
            dst[n - 1 - k] = dst[n - k] * self.dims[n - k];
        }
        (src, dst)
    }

    /// Transposes the input into `out`, whose data starts at byte `out_offset`.
    pub(super) fn run(
        &self,
        input: &Input,
        swap: &Swap,
        out: &mut Output<'_>,
        out_offset: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), Error> {
        let n = self.dims.len();
        let w = self.itemsize as u64;
        let (src_strides, dst_strides) = self.strides();
        // Source runs lie along the axes a tile covers whole and the first it does not; target
        // runs likewise from the last axis down. Every tile has the same such axes.
        let first = (0..n)
            .find(|&k| self.tile[k] != self.dims[k])
            .unwrap_or(n - 1);
        let last = (0..n)
            .rev()
            .find(|&k| self.tile[k] != self.dims[k])
            .unwrap_or(0);
        let full: Vec<usize> = self.tile.iter().map(|&t| t as usize).collect();
        // Tiles hold at most the budget (or one element) and a little padding.
        let room = Blocks::new(&full, first, last, self.itemsize).len() * self.itemsize;
        let extent = |start: &[u64]| -> Vec<usize> {
            (0..n)
                .map(|k| self.tile[k].min(self.dims[k] - start[k]) as usize)
                .collect()
        };
        let mut b = Buffer::new(room);
        let mut done = 0u64;
        overlapped(
            TileStarts::new(&self.tile, &self.dims),
            || Buffer::new(room),
            |a, start| {
                let extent = extent(start);
                let blocks = Blocks::new(&extent, first, last, self.itemsize);
                let a = &mut a.bytes()[..blocks.len() * self.itemsize];
                let run = extent[..=first].iter().product::<usize>() * self.itemsize;
                let pitch = blocks.src_pitch * self.itemsize;
                let base: u64 = (0..n).map(|k| start[k] * src_strides[k]).sum();
                let mut at = 0;
                let steps: Vec<usize> = (first + 1..n).collect();
                for_each_run(base, &extent, &steps, &src_strides, |offset| {
                    input.read_at(&mut a[at..at + run], offset * w)?;
                    at += pitch;
                    Ok(())
                })
            },
            |a, start| {
                let extent = extent(&start);
                let blocks = Blocks::new(&extent, first, last, self.itemsize);
                let len = blocks.len() * self.itemsize;
                let (a, b) = (&a.bytes()[..len], &mut b.bytes()[..len]);
                transpose_tile(a, b, &blocks, self.itemsize);
                swap.apply(b);
                let run = extent[last..].iter().product::<usize>() * self.itemsize;
                let pitch = blocks.dst_pitch * self.itemsize;
                let base: u64 = (0..n).map(|k| start[k] * dst_strides[k]).sum();
                let mut at = 0;
                let steps: Vec<usize> = (0..last).rev().collect();
                for_each_run(base, &extent, &steps, &dst_strides, |offset| {
                    out.write_at(&b[at..at + run], out_offset + offset * w)?;
                    at += pitch;
                    Ok(())
                })?;
                done += (extent.iter().product::<usize>() * self.itemsize) as u64;
                progress(done, input.nbytes);
                Ok(())
            },
        )
    }
}

/// The first index of each tile of `tile` over `dims`, the last axis (the target's fastest)
/// fastest, so that writes move forward.
struct TileStarts<'a> {
    tile: &'a [u64],
    dims: &'a [u64],
    next: Option<Vec<u64>>,
}

impl<'a> TileStarts<'a> {
    fn new(tile: &'a [u64], dims: &'a [u64]) -> Self {
        TileStarts {
            tile,
            dims,
            next: Some(vec![0; dims.len()]),
        }
    }
}

impl Iterator for TileStarts<'_> {
    type Item = Vec<u64>;

    fn next(&mut self) -> Option<Vec<u64>> {
        let here = self.next.take()?;
        let mut next = here.clone();
        for k in (0..next.len()).rev() {
            next[k] += self.tile[k];
            if next[k] < self.dims[k] {
                self.next = Some(next);
                break;
            }
            next[k] = 0;
        }
        Some(here)
    }
}

/// Calls `f` with the offset (elements, from `base`) of each run of a tile of `extent`:
/// `steps` are the axes the runs step along, fastest first, with `strides` (elements).
fn for_each_run(
    base: u64,
    extent: &[usize],
    steps: &[usize],
    strides: &[u64],
    mut f: impl FnMut(u64) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut index = vec![0usize; steps.len()];
    let mut offset = base;
    loop {
        f(offset)?;
        let mut j = 0;
        loop {
            let Some(&k) = steps.get(j) else {
                return Ok(());
            };
            index[j] += 1;
            offset += strides[k];
            if index[j] < extent[k] {
                break;
            }
            offset -= strides[k] * extent[k] as u64;
            index[j] = 0;
            j += 1;
        }
    }
}

/// Elements a leaf of the in-memory transposition moves: its source and target lines stay
/// in L1.
const LEAF_BYTES: usize = 16 << 10;

/// Writes the tile `src` (elements of `itemsize` bytes in the source's order, laid out as
/// `blocks` says) into `dst` in the target's order.
fn transpose_tile(src: &[u8], dst: &mut [u8], blocks: &Blocks, itemsize: usize) {
    fn typed<T: npy_core::bytemuck::Pod>(src: &[u8], dst: &mut [u8], blocks: &Blocks) -> bool {
        match (
            npy_core::bytemuck::try_cast_slice::<u8, T>(src),
            npy_core::bytemuck::try_cast_slice_mut::<u8, T>(dst),
        ) {
            (Ok(s), Ok(d)) => {
                blocks.run(s, d, 1);
                true
            }
            _ => false,
        }
    }
    let done = match itemsize {
        1 => typed::<u8>(src, dst, blocks),
        2 => typed::<u16>(src, dst, blocks),
        4 => typed::<u32>(src, dst, blocks),
        8 => typed::<u64>(src, dst, blocks),
        16 => typed::<u128>(src, dst, blocks),
        _ => false,
    };
    if !done {
        blocks.run(src, dst, itemsize);
    }
}

/// A cache-oblivious axis reversal of a tile: halves its longest axis until a block holds at
/// most `leaf` elements, then copies the block line by line along its longer end axis (the
/// source's fastest, read in sequence, or the target's fastest, written in sequence).
///
/// Both sides are packed but for the runs of the file: a run of 4 KiB or more of elements
/// under 64 bytes (`first`, the last axis of a source run; `last`, the first of a target
/// run) is followed by about 64 bytes of padding, so that the lines of a block, one run apart, do not all fall in the same cache
/// set when a run is a multiple of 4 KiB.
struct Blocks {
    extent: Vec<usize>,
    /// Strides (elements) of the source and of the target.
    src: Vec<usize>,
    dst: Vec<usize>,
    /// Elements from one run to the next in each buffer.
    src_pitch: usize,
    dst_pitch: usize,
    /// Elements of the buffers.
    src_len: usize,
    dst_len: usize,
    leaf: usize,
}

impl Blocks {
    fn new(extent: &[usize], first: usize, last: usize, itemsize: usize) -> Blocks {
        // Elements of 64 bytes or more span whole lines already: no padding (which would
        // double a tile of one large element).
        let pitch = |run: usize| {
            if run * itemsize >= 4096 && itemsize < 64 {
                run + 64 / itemsize
            } else {
                run
            }
        };
        let n = extent.len();
        let src_pitch = pitch(extent[..=first].iter().product());
        let dst_pitch = pitch(extent[last..].iter().product());
        let mut src = vec![1usize; n];
        let mut dst = vec![1usize; n];
        for k in 1..n {
            src[k] = if k == first + 1 {
                src_pitch
            } else {
                src[k - 1] * extent[k - 1]
            };
            let k = n - 1 - k;
            dst[k] = if k + 1 == last {
                dst_pitch
            } else {
                dst[k + 1] * extent[k + 1]
            };
        }
        Blocks {
            src_len: src_pitch * extent[first + 1..].iter().product::<usize>(),
            dst_len: dst_pitch * extent[..last].iter().product::<usize>(),
            extent: extent.to_vec(),
            src,
            dst,
            src_pitch,
            dst_pitch,
            leaf: (LEAF_BYTES / itemsize.max(1)).max(1),
        }
    }

    /// Elements of the larger buffer.
    fn len(&self) -> usize {
        self.src_len.max(self.dst_len)
    }

    /// Elements are `w` values of `T` each (1 for the typed copies, the itemsize for bytes).
    fn run<T: Copy>(&self, s: &[T], d: &mut [T], w: usize) {
        let mut block = self.extent.clone();
        let mut index = vec![0usize; block.len()];
        self.split(s, d, w, (0, 0), &mut block, &mut index);
    }

    fn split<T: Copy>(
        &self,
        s: &[T],
        d: &mut [T],
        w: usize,
        (i, j): (usize, usize),
        block: &mut [usize],
        index: &mut [usize],
    ) {
        if block.iter().product::<usize>() <= self.leaf {
            return self.leaf(s, d, w, (i, j), block, index);
        }
        let (k, &whole) = block
            .iter()
            .enumerate()
            .max_by_key(|&(k, &e)| (e, std::cmp::Reverse(k)))
            .unwrap_or((0, &1));
        let half = whole / 2;
        block[k] = half;
        self.split(s, d, w, (i, j), block, index);
        block[k] = whole - half;
        let next = (i + half * self.src[k], j + half * self.dst[k]);
        self.split(s, d, w, next, block, index);
        block[k] = whole;
    }

    fn leaf<T: Copy>(
        &self,
        s: &[T],
        d: &mut [T],
        w: usize,
        (mut i, mut j): (usize, usize),
        block: &[usize],
        index: &mut [usize],
    ) {
        let n = block.len();
        // The source's fastest axis has stride 1 in the source, the target's in the target.
        let inner = if block[n - 1] > block[0] { n - 1 } else { 0 };
        let len = block[inner];
        index.fill(0);
        loop {
            if inner == 0 {
                let stride = self.dst[0];
                if w == 1 {
                    let to = d[j..].iter_mut().step_by(stride);
                    s[i..i + len].iter().zip(to).for_each(|(x, y)| *y = *x);
                } else {
                    let from = s[i * w..(i + len) * w].chunks_exact(w);
                    let to = d[j * w..].chunks_mut(w).step_by(stride);
                    from.zip(to).for_each(|(x, y)| y.copy_from_slice(x));
                }
            } else {
                let stride = self.src[n - 1];
                if w == 1 {
                    let from = s[i..].iter().step_by(stride);
                    from.zip(&mut d[j..j + len]).for_each(|(x, y)| *y = *x);
                } else {
                    let from = s[i * w..].chunks(w).step_by(stride);
                    let to = d[j * w..(j + len) * w].chunks_exact_mut(w);
                    from.zip(to).for_each(|(x, y)| y.copy_from_slice(x));
                }
            }
            let mut k = 0;
            loop {
                if k == n {
                    return;
                }
                if k != inner {
                    index[k] += 1;
                    i += self.src[k];
                    j += self.dst[k];
                    if index[k] < block[k] {
                        break;
                    }
                    i -= self.src[k] * block[k];
                    j -= self.dst[k] * block[k];
                    index[k] = 0;
                }
                k += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TILE_BYTES;
    use super::*;

    /// Elements of the source runs and target runs of a whole tile of `t`.
    fn runs(t: &Tiling) -> (u64, u64) {
        let n = t.dims.len();
        let first = (0..n).find(|&k| t.tile[k] != t.dims[k]).unwrap_or(n - 1);
        let last = (0..n).rev().find(|&k| t.tile[k] != t.dims[k]).unwrap_or(0);
        (
            t.tile[..=first].iter().product(),
            t.tile[last..].iter().product(),
        )
    }

    /// Issue 10's pathological shapes at full size: tiles stay within the budget, and runs on
    /// both sides stay long (no system call per element), whichever side the long axis is on:
    /// at least a quarter of the square root of the budget's elements (the share of each side,
    /// halved at most once by rounding down to whole elements of the partly covered axis and
    /// once by cutting it into equal tiles).
    #[test]
    fn tiles_of_pathological_shapes_keep_both_runs_long() {
        let m = 64 << 20;
        // Extents in the source's memory order, fastest first.
        for dims in [
            vec![2, m],
            vec![m, 2],
            vec![2, 4096, 8192, 2],
            vec![8192, 16384],
            vec![3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
            vec![2049, 2049],
            vec![1_000_003, 3, 7],
        ] {
            let t = Tiling::new(dims.clone(), 4, TILE_BYTES);
            let floor = (TILE_BYTES as u64 / 4).isqrt() / 4;
            let elements: u64 = t.tile.iter().product();
            assert!(elements * 4 <= TILE_BYTES as u64, "{dims:?}: {:?}", t.tile);
            let (src, dst) = runs(&t);
            assert!(
                src >= floor && dst >= floor,
                "{dims:?}: tile {:?}, runs {src} {dst}",
                t.tile
            );
            // The `c` tiles of an axis are within `c` of each other's length: no slivers.
            for (&d, &e) in dims.iter().zip(&t.tile) {
                let c = d.div_ceil(e);
                assert!(d - (c - 1) * e + c > e, "{dims:?}: {:?}", t.tile);
            }
        }
    }

    /// At its boundary the budget holds exactly one element; below it, still one.
    #[test]
    fn a_budget_smaller_than_an_element_is_one_element() {
        for budget in [0, 1, 15] {
            let t = Tiling::new(vec![5, 7], 16, budget);
            assert_eq!(t.tile, [1, 1]);
        }
        let t = Tiling::new(vec![5, 7], 16, 32);
        assert_eq!(t.tile.iter().product::<u64>(), 2);
        let t = Tiling::new(vec![5, 7], 16, 35 * 16);
        assert_eq!(t.tile, [5, 7]);
        // A tile of one element larger than the budget is that element, unpadded.
        let t = Tiling::new(vec![3, 4], 32 << 20, TILE_BYTES);
        assert_eq!(t.tile, [1, 1]);
        assert_eq!(Blocks::new(&[1, 1], 0, 1, 32 << 20).len(), 1);
    }

    /// The integration test `order_changes_with_long_runs_in_several_tiles` relies on these
    /// tilings padding the runs of one side.
    #[test]
    fn long_runs_are_padded() {
        for (dims, itemsize, budget) in [
            (vec![4200, 100], 4, 600_000),
            (vec![4200, 100], 16, 1 << 20),
            (vec![4200, 100], 5, 600_000),
        ] {
            let t = Tiling::new(dims.clone(), itemsize, budget);
            assert!(t.tile[0] < 4200 && t.tile[1] == 100, "{:?}", t.tile);
            let extent: Vec<usize> = t.tile.iter().map(|&e| e as usize).collect();
            let b = Blocks::new(&extent, 0, 0, itemsize);
            assert!(b.src_pitch > extent[0], "{:?}", t.tile);
        }
    }
}
