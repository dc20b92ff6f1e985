//! The paths that reinterpret bytes, small enough for Miri (`cargo xtask miri`): bulk reads
//! into `Vec<T>` through bytemuck casts, byte swaps in place (aligned word-wise and unaligned
//! byte-wise), caller buffers, streamed iteration, views and `view_or_copy`, for every bulk
//! type in both byte orders. In-memory buffers only: no file system.

use std::io::Cursor;

use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{ByteOrder, ErrorKind, NpyElement, NpyReader, NpyView, WriteOptions};

/// A few values of each type, awkward ones included.
trait Samples: NpyElement + Copy + PartialEq + std::fmt::Debug + bytemuck::CheckedBitPattern {
    fn samples() -> Vec<Self>;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Samples for $t {
            fn samples() -> Vec<Self> {
                vec![0, 1, <$t>::MAX, <$t>::MIN, 0x5a as $t, (<$t>::MAX / 3)]
            }
        }
    )*};
}
ints!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Samples for f32 {
    fn samples() -> Vec<Self> {
        vec![0.0, -0.0, 1.5, f32::MIN_POSITIVE, f32::MAX, f32::INFINITY]
    }
}

impl Samples for f64 {
    fn samples() -> Vec<Self> {
        vec![0.0, -2.5, 1e-310, f64::MAX, f64::NEG_INFINITY, 0.1]
    }
}

impl Samples for f16 {
    fn samples() -> Vec<Self> {
        [0.0f32, 1.0, -65504.0, 0.000061]
            .iter()
            .map(|&x| f16::from_f32(x))
            .collect()
    }
}

impl Samples for Complex<f32> {
    fn samples() -> Vec<Self> {
        vec![Complex::new(1.0, -1.0), Complex::new(0.0, 3.5)]
    }
}

impl Samples for Complex<f64> {
    fn samples() -> Vec<Self> {
        vec![Complex::new(1.0, -1.0), Complex::new(f64::MAX, 1e-300)]
    }
}

impl Samples for bool {
    fn samples() -> Vec<Self> {
        vec![true, false, false, true, true]
    }
}

/// `data` in memory, starting `shift` bytes past an 8-aligned address.
fn shifted(data: &[u8], shift: usize) -> (Vec<u64>, usize) {
    let mut words = vec![0u64; (data.len() + shift).div_ceil(8) + 1];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[shift..shift + data.len()]
        .copy_from_slice(data);
    (words, shift)
}

fn round_trip<T: Samples>() {
    let values = T::samples();
    // One-byte types have no byte order to swap: little only. (Under Miri each header parse
    // is the slow part, so the combinations are kept to the ones that differ.)
    let orders: &[ByteOrder] = if std::mem::size_of::<T>() == 1 {
        &[ByteOrder::Little]
    } else {
        &[ByteOrder::Little, ByteOrder::Big]
    };
    for &order in orders {
        let mut file = Vec::new();
        WriteOptions::new()
            .byte_order(order)
            .write_to(&mut file, &values, &[values.len() as u64])
            .unwrap();
        let what = format!("{} {order:?}", T::rust_name());

        // Owned read with the length known: one allocation, the bulk path (and the swap when
        // the order is not native).
        let r = NpyReader::new(Cursor::new(&file)).unwrap();
        let avail = file.len() as u64 - r.parsed_header().data_offset();
        let got: Vec<T> = r.with_available_bytes(avail).read_vec().unwrap();
        assert_eq!(got, values, "{what}: read_vec");

        // Stream of unknown length: chunked growth.
        let got: Vec<T> = NpyReader::new(&file[..]).unwrap().read_vec().unwrap();
        assert_eq!(got, values, "{what}: stream");

        // Into a caller's buffer, in two parts.
        let mut r = NpyReader::new(&file[..]).unwrap();
        let mut out = values.clone();
        let (a, b) = out.split_at_mut(values.len() / 2);
        a.iter_mut()
            .chain(b.iter_mut())
            .for_each(|v| *v = values[0]);
        r.read_into(a).unwrap();
        r.read_into(b).unwrap();
        assert_eq!(out, values, "{what}: read_into");

        // Element by element.
        let mut r = NpyReader::new(&file[..]).unwrap();
        let got: Vec<T> = r.iter().unwrap().map(Result::unwrap).collect();
        assert_eq!(got, values, "{what}: iter");

        // Views aligned, one byte off and half a word off: borrowed when native and aligned,
        // copied otherwise, never a misaligned read.
        for shift in [0, 1, 4] {
            let (words, s) = shifted(&file, shift);
            let bytes = &bytemuck::cast_slice::<u64, u8>(&words)[s..s + file.len()];
            match NpyView::<T>::new(bytes) {
                Ok(v) => assert_eq!(v.data(), &values[..], "{what}: view at +{shift}"),
                Err(e) => assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::Misaligned { .. } | ErrorKind::NotViewable { .. }
                    ),
                    "{what}: view at +{shift}: {e:?}"
                ),
            }
            let copy = npy_core::view::view_or_copy::<T>(bytes).unwrap();
            assert_eq!(&copy[..], &values[..], "{what}: view_or_copy at +{shift}");
        }
    }
}

#[test]
fn every_bulk_type_round_trips_in_both_byte_orders() {
    round_trip::<i8>();
    round_trip::<i16>();
    round_trip::<i32>();
    round_trip::<i64>();
    round_trip::<u8>();
    round_trip::<u16>();
    round_trip::<u32>();
    round_trip::<u64>();
    round_trip::<f16>();
    round_trip::<f32>();
    round_trip::<f64>();
    round_trip::<Complex<f32>>();
    round_trip::<Complex<f64>>();
    round_trip::<bool>();
}

#[test]
fn bool_view_refuses_other_bytes() {
    let mut file = Vec::new();
    WriteOptions::new()
        .write_to(&mut file, &[true, false], &[2])
        .unwrap();
    let last = file.len() - 1;
    file[last] = 2;
    assert!(NpyView::<bool>::new(&file).is_err());
    // The copy decodes the byte as numpy does (True), never borrowing it as a bool.
    let copy = npy_core::view::view_or_copy::<bool>(&file).unwrap();
    assert!(!copy.is_borrowed());
    assert_eq!(*copy, [true, true]);
}

#[test]
fn dynamic_reads_of_swapped_and_record_data() {
    // read_dyn decodes byte by byte (no casts), but reaches the same readers.
    let mut file = Vec::new();
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_to(&mut file, &[1.5f64, -2.0, 3.25], &[3])
        .unwrap();
    let a = NpyReader::new(&file[..]).unwrap().read_dyn().unwrap();
    assert_eq!(a.element(2), Some(npy_core::DynValue::Float(3.25)));
}
