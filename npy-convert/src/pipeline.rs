//! The two-buffer pipeline that overlaps reading and writing, and the plain streaming copy.

use super::swap::Swap;
use super::Input;
use npy_core::__private::{per_chunk, COPY_CHUNK_BYTES};
use npy_core::Error;

/// A byte buffer aligned for every scalar up to 16 bytes, so the swaps and the tile copies
/// take their word-wise loops.
pub(super) struct Buffer(Vec<u128>);

impl Buffer {
    pub(super) fn new(bytes: usize) -> Buffer {
        Buffer(vec![0; bytes.div_ceil(16)])
    }

    pub(super) fn bytes(&mut self) -> &mut [u8] {
        npy_core::bytemuck::cast_slice_mut(&mut self.0)
    }
}

/// Runs `fill` on each job, in order, on a second thread, into one of two buffers made by
/// `make`, while this thread runs `drain` on the buffer filled before: reading overlaps
/// writing. A single job runs on this thread. Stops at the first error (either side's), which
/// it returns.
pub(super) fn overlapped<J: Send>(
    mut jobs: impl Iterator<Item = J> + Send,
    make: impl Fn() -> Buffer,
    fill: impl Fn(&mut Buffer, &J) -> Result<(), Error> + Sync,
    mut drain: impl FnMut(&mut Buffer, J) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(first) = jobs.next() else {
        return Ok(());
    };
    let mut buf = make();
    fill(&mut buf, &first)?;
    let mut jobs = jobs.peekable();
    if jobs.peek().is_none() {
        return drain(&mut buf, first);
    }
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel(1);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Buffer>(1);
        // The channel has room for it.
        let _ = empty_tx.send(make());
        let fill = &fill;
        scope.spawn(move || {
            for job in jobs {
                // Both ends close when this thread's partner stops (an error).
                let Ok(mut buf) = empty_rx.recv() else { return };
                let filled = fill(&mut buf, &job).map(|()| (buf, job));
                let stop = filled.is_err();
                if full_tx.send(filled).is_err() || stop {
                    return;
                }
            }
        });
        drain(&mut buf, first)?;
        let _ = empty_tx.send(buf);
        // Ends when the filling thread has sent its last job and dropped its end.
        while let Ok(filled) = full_rx.recv() {
            let (mut buf, job) = filled?;
            drain(&mut buf, job)?;
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}

/// Copies the data as it is stored (swapped) through two buffers of whole elements, one read
/// and swapped while the other is passed to `write` ([`overlapped`]); `progress(done, total)`
/// after each, `done` counting the input's data bytes written.
pub(super) fn stream(
    input: &Input,
    itemsize: usize,
    swap: &Swap,
    budget: usize,
    write: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Error> {
    let unit = itemsize.max(1);
    let chunk = per_chunk(unit, budget.min(COPY_CHUNK_BYTES)) * unit;
    let chunk = (chunk as u64).min(input.nbytes) as usize;
    let nbytes = input.nbytes;
    // (offset, bytes) of each step.
    let steps = (0..nbytes.div_ceil(chunk.max(1) as u64)).map(|i| {
        let at = i * chunk as u64;
        (at, (nbytes - at).min(chunk as u64) as usize)
    });
    overlapped(
        steps,
        || Buffer::new(chunk),
        |buf, &(at, k)| {
            let b = &mut buf.bytes()[..k];
            input.read_at(b, at)?;
            swap.apply(b);
            Ok(())
        },
        |buf, (at, k)| {
            write(&buf.bytes()[..k])?;
            progress(at + k as u64, nbytes);
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-thread pipeline drains every job in order, and stops at the first error of
    /// either side (returning it, never hanging), whatever the number of jobs.
    #[test]
    fn overlapped_keeps_order_and_stops_at_errors() {
        let fail = |what: &'static str| Error::from(std::io::Error::other(what));
        for jobs in [0u32, 1, 2, 10] {
            let mut seen = Vec::new();
            let fill = |b: &mut Buffer, &j: &u32| {
                b.bytes()[0] = j as u8;
                Ok(())
            };
            overlapped(
                0..jobs,
                || Buffer::new(1),
                fill,
                |b, j| {
                    seen.push((b.bytes()[0], j));
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(seen, (0..jobs).map(|j| (j as u8, j)).collect::<Vec<_>>());
        }
        for bad in [0u32, 1, 5, 9] {
            let mut drained = Vec::new();
            let fill = |_: &mut Buffer, &j: &u32| if j == bad { Err(fail("fill")) } else { Ok(()) };
            let err = overlapped(
                0..10,
                || Buffer::new(1),
                fill,
                |_, j| {
                    drained.push(j);
                    Ok(())
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("fill"), "{err}");
            assert_eq!(drained, (0..bad).collect::<Vec<_>>());
            let err = overlapped(
                0..10,
                || Buffer::new(1),
                |_, _| Ok(()),
                |_, j| {
                    if j == bad {
                        Err(fail("drain"))
                    } else {
                        Ok(())
                    }
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("drain"), "{err}");
        }
    }
}
