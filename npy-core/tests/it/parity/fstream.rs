//! Streaming in Fortran order (R13): the rows grow the last axis. `fixtures/parity/fstream_*`
//! are `np.save` of Fortran-order arrays over dtypes, byte orders and shapes (empty, one row,
//! 1-d, trailing 1s, rows past one 64 KiB chunk); streaming each file's elements row by row
//! gives the same bytes, except where np.save's header for the final row count is shorter
//! than the longest any row count needs (reserved when the writer starts): then the header is
//! the same dict with 64 more spaces of padding, and the data the same bytes.

use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{ByteOrder, MemoryOrder, NpyElement, NpyReader, WriteOptions};

use super::support::{files, path};

/// Streams the elements of fixture `name` (read in its memory order) in Fortran order, one
/// row (index of the last axis) at a time, and returns the file written.
fn stream_like<T: NpyElement>(name: &str, order: ByteOrder) -> Vec<u8> {
    let a = npy_core::read::<T>(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let shape = a.shape().to_vec();
    let (rows, row_shape) = match shape.split_last() {
        Some((&n, rest)) => (n, rest.to_vec()),
        None => panic!("{name}: a 0-d array has no growth axis"),
    };
    let row_len = row_shape.iter().product::<u64>() as usize;
    let mut file = std::io::Cursor::new(Vec::new());
    let mut w = WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .byte_order(order)
        .stream_to::<_, T>(&mut file, &row_shape)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    for r in 0..rows as usize {
        w.push_row(&a.data()[r * row_len..(r + 1) * row_len])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    w.finish().unwrap_or_else(|e| panic!("{name}: {e}"));
    file.into_inner()
}

#[test]
fn fortran_streams_are_np_save_bytes() {
    let mut checked = 0;
    let mut padded = Vec::new();
    for entry in files("fstream") {
        let name = entry["file"].as_str().expect("file");
        let descr = entry["descr"].as_str().expect("descr");
        let order = match &descr[..1] {
            ">" => ByteOrder::Big,
            _ => ByteOrder::Little,
        };
        let ours = match &descr[1..] {
            "f8" => stream_like::<f64>(name, order),
            "f4" => stream_like::<f32>(name, order),
            "f2" => stream_like::<f16>(name, order),
            "i2" => stream_like::<i16>(name, order),
            "i4" => stream_like::<i32>(name, order),
            "i8" => stream_like::<i64>(name, order),
            "u1" => stream_like::<u8>(name, order),
            "u2" => stream_like::<u16>(name, order),
            "u8" => stream_like::<u64>(name, order),
            "c8" => stream_like::<Complex<f32>>(name, order),
            "b1" => stream_like::<bool>(name, order),
            other => panic!("{name}: no Rust type for {other}"),
        };
        let numpy = std::fs::read(path(name)).expect("fixture");
        let header = NpyReader::new(&ours[..]).expect("our header");
        assert_eq!(
            header.order().is_fortran(),
            entry["fortran_order"].as_bool().unwrap(),
            "{name}: fortran_order"
        );
        checked += 1;
        if ours.len() == numpy.len() {
            assert!(ours == numpy, "{name}: the bytes differ from np.save's");
            continue;
        }
        // The reserved header is longer: same dict, more padding, aligned data, same data.
        padded.push(name.to_owned());
        let theirs = NpyReader::new(&numpy[..]).expect("numpy's header");
        assert_eq!(header.header(), theirs.header(), "{name}: header dict");
        let (o, t) = (header.data_offset(), theirs.data_offset());
        assert!(
            o > t && (o - t) % 64 == 0 && o % 64 == 0,
            "{name}: {o} vs {t}"
        );
        assert_eq!(ours[o as usize..], numpy[t as usize..], "{name}: data");
        let text = |b: &[u8], end: u64| String::from_utf8(b[10..end as usize].to_vec()).unwrap();
        assert_eq!(
            text(&ours, o).trim_end(),
            text(&numpy, t).trim_end(),
            "{name}: text"
        );
    }
    assert!(checked >= 19, "{checked} files");
    // Only the file built for it (see FSTREAM in xtask/fixtures_parity.py).
    assert_eq!(padded, ["fstream_lef8_1x1x1x1x1x1x1x1x3.npy"]);
}
