//! Readers opened from a path: buffered small reads (rows, elements, iterators, ranges), the
//! file given back at the position after what was read, and large bulk reads split over
//! threads (`ReadOptions::threads`), whose result must be the single-threaded one's.
//!
//! Expected values are the values written (the format stores them as they are: little-endian
//! `<u4` bytes are the integers; a `>u4` file's bytes are each integer's bytes reversed).

use std::io::{Read, Seek};

use npy_core::__private::PARALLEL_MIN_BYTES;
use npy_core::{ByteOrder, ErrorKind, NpyReader, ReadOptions, WriteOptions};

/// `n` counting `u32` values (3 per row) written at `path`, in `order`; their data offset.
fn counting(path: &std::path::Path, n: usize, order: ByteOrder) -> u64 {
    let values: Vec<u32> = (0..n as u32).collect();
    WriteOptions::new()
        .byte_order(order)
        .write_path(path, &values, &[n as u64 / 3, 3])
        .unwrap();
    NpyReader::open(path).unwrap().data_offset()
}

#[test]
fn rows_read_one_by_one_and_the_file_comes_back_after_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.npy");
    let n = 30_000; // 120,000 bytes: many buffer refills
    let offset = counting(&path, n, ByteOrder::Little);
    let mut r = NpyReader::open(&path).unwrap();
    let mut row = [0u32; 3];
    for i in 0..(n / 3) as u32 {
        r.read_into(&mut row).unwrap();
        assert_eq!(row, [3 * i, 3 * i + 1, 3 * i + 2]);
    }
    assert_eq!(r.remaining(), 0);

    // After some rows, the file is right after them, not at the end of the buffer.
    let mut r = NpyReader::open(&path).unwrap();
    for _ in 0..5 {
        r.read_into(&mut row).unwrap();
    }
    let mut f = r.into_file().unwrap();
    assert_eq!(f.stream_position().unwrap(), offset + 5 * 12);
    let mut next = [0u8; 4];
    f.read_exact(&mut next).unwrap();
    assert_eq!(u32::from_le_bytes(next), 15);

    // Nothing read: at the data offset. A partly used iterator: after the elements it gave.
    let mut f = NpyReader::open(&path).unwrap().into_file().unwrap();
    assert_eq!(f.stream_position().unwrap(), offset);
    let mut r = NpyReader::open(&path).unwrap();
    let first: Vec<u32> = r
        .iter::<u32>()
        .unwrap()
        .take(7)
        .map(Result::unwrap)
        .collect();
    assert_eq!(first, (0..7).collect::<Vec<_>>());
    let mut f = r.into_file().unwrap();
    assert_eq!(f.stream_position().unwrap(), offset + 7 * 4);
}

#[test]
fn seeks_and_ranges_through_the_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seek.npy");
    let n = 30_000;
    counting(&path, n, ByteOrder::Big);
    let mut r = NpyReader::open(&path).unwrap();
    let mut one = [0u32; 1];
    // Forwards and backwards, inside the buffer and far outside it.
    for index in [5u64, 3, 2_000, 1_999, 29_999, 0, 10_000, 10_001] {
        r.seek_to(index).unwrap();
        r.read_into(&mut one).unwrap();
        assert_eq!(u64::from(one[0]), index);
    }
    assert_eq!(r.read_rows::<u32>(2..4).unwrap(), [6, 7, 8, 9, 10, 11]);
    assert_eq!(
        r.read_range::<u32>(29_998..30_000).unwrap(),
        [29_998, 29_999]
    );
}

/// Large reads split over threads give what one thread gives, in both byte orders, into a new
/// vector and into a caller's buffer, from the start and from the middle.
#[test]
fn parallel_reads_match_the_single_threaded_read() {
    let dir = tempfile::tempdir().unwrap();
    // 2.5 × PARALLEL_MIN_BYTES of u32 (a multiple of 3): up to 2 threads by default.
    let n = (PARALLEL_MIN_BYTES * 5 / 2 / 4) / 3 * 3;
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let path = dir.path().join(format!("big-{order:?}.npy"));
        counting(&path, n, order);
        let want: Vec<u32> = (0..n as u32).collect();
        for threads in [0, 1, 2, 3, 8] {
            let options = ReadOptions::default().threads(threads);
            let a = npy_core::read::read_with::<u32>(&path, &options).unwrap();
            assert!(a.data() == want, "{order:?}, {threads} threads");

            // From element 1,000 on: the positional reads start at the reader's position.
            let mut r = NpyReader::open_with(&path, &options).unwrap();
            let mut head = vec![0u32; 1_000];
            r.read_into(&mut head).unwrap();
            let mut rest = vec![0u32; n - 1_000];
            r.read_into(&mut rest).unwrap();
            assert!(head == want[..1_000] && rest == want[1_000..], "{threads}");
            assert_eq!(r.remaining(), 0);
        }
    }
}

/// A file cut short after it was opened: the parallel read reports what was there.
#[test]
fn a_file_cut_short_mid_read_is_truncated_with_both_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.npy");
    let n = PARALLEL_MIN_BYTES * 3 / 4 / 3 * 3;
    let offset = counting(&path, n, ByteOrder::Little);
    let needed = n as u64 * 4;
    for (threads, keep) in [(3, needed / 2 + 1), (2, 10), (3, 0), (1, needed - 4)] {
        let r = NpyReader::open_with(&path, &ReadOptions::default().threads(threads)).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(offset + keep).unwrap();
        let mut r = r;
        let err = r.read_vec::<u32>().unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Truncated { needed: nd, found, .. }
                if *nd == needed && *found == keep),
            "{threads} threads, {keep} kept: {err}"
        );
        counting(&path, n, ByteOrder::Little);
    }
}
