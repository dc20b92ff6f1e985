//! `#[npy(pod)]`: records whose file layout is the struct's `repr(C)` layout are read and
//! written in bulk (one read into the output, no per-field work); any other file (reordered or
//! extra fields, another byte order, numpy offsets that differ from the Rust ones) still goes
//! field by field. `bulk_path` (a hidden helper) tells which path a read takes.

use std::path::PathBuf;

use bytemuck::Zeroable as _;

use crate::common::{fixture, int, records, same_f32, same_f64};
use npy_core::__private::bulk_path;
use npy_core::{read, ByteOrder, Error, ErrorKind, NpyElement, NpyReader, WriteOptions};

/// The dtype of the `.npy` file at `path`.
fn file_dtype(path: &std::path::Path) -> npy_core::DType {
    NpyReader::open(path).unwrap().dtype().clone()
}

fn to_bytes<T: NpyElement>(values: &[T], options: WriteOptions) -> Vec<u8> {
    let mut out = Vec::new();
    options
        .write_to(&mut out, values, &[values.len() as u64])
        .unwrap();
    out
}

/// The records' memory, to compare values bit for bit (NaNs included).
fn bytes<T: bytemuck::Pod>(values: &[T]) -> &[u8] {
    bytemuck::cast_slice(values)
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npy-derive-pod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
#[npy(pod)]
#[repr(C)]
struct XyId {
    x: f32,
    y: f32,
    id: i64,
}

/// The same record under numpy's `align=True`: for these fields the aligned layout needs no
/// padding, so it is the packed one and the C one.
#[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
#[npy(align, pod)]
#[repr(C)]
struct XyIdAligned {
    x: f32,
    y: f32,
    id: i64,
}

/// The field-by-field twin, for comparison.
#[derive(NpyElement, Clone, Debug, PartialEq)]
struct XyIdSlow {
    x: f32,
    y: f32,
    id: i64,
}

fn check_xyid(got: &[XyId], file: &str) {
    let want = records(file);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        same_f32(g.x, &w["x"]);
        same_f32(g.y, &w["y"]);
        assert_eq!(g.id, int(&w["id"]));
    }
}

#[test]
#[cfg_attr(miri, ignore)] // parsing the 860 kB manifest takes minutes under Miri
fn rec_packed_reads_in_bulk_and_writes_numpy_bytes() {
    let path = fixture("rec_packed.npy");
    assert_eq!(XyId::npy_dtype(), file_dtype(&path));
    if cfg!(target_endian = "little") {
        assert_eq!(bulk_path::<XyId>(&file_dtype(&path)), "native");
    }
    assert_eq!(bulk_path::<XyIdSlow>(&file_dtype(&path)), "elementwise");

    let got = read::<XyId>(&path).unwrap().into_vec();
    check_xyid(&got, "rec_packed.npy");

    let file = std::fs::read(&path).unwrap();
    assert_eq!(to_bytes(&got, WriteOptions::new()), file);
    let out = temp_dir().join("packed.npy");
    npy_core::write(&out, &got, &[got.len() as u64]).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), file);

    // The other entry points take the same path.
    let mut buf = [XyId::zeroed(); 3];
    NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap();
    assert_eq!(bytes(&buf), bytes(&got));
    let mut r = NpyReader::open(&path).unwrap();
    assert_eq!(r.read_range::<XyId>(1..3).unwrap()[1].id, 23);
    let ids: Vec<i64> = NpyReader::open(&path)
        .unwrap()
        .iter::<XyId>()
        .unwrap()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(ids, [17, 20, 23]);
    // A stream of unknown length.
    let streamed: Vec<XyId> = NpyReader::new(&file[..]).unwrap().read_vec().unwrap();
    assert_eq!(bytes(&streamed), bytes(&got));
    // A view (or a copy, when the bytes are not aligned for XyId).
    let view = npy_core::view::view_or_copy::<XyId>(&file).unwrap();
    assert_eq!(bytes(&view), bytes(&got));
}

/// The bulk paths (`read_vec` from a file and from a stream, `read_into`, `read_range`, a view)
/// give the file's data bytes as the records' memory. Without the manifest, so that Miri
/// checks the casts.
#[test]
fn bulk_reads_are_the_files_data_bytes() {
    fn check<T: NpyElement + bytemuck::Pod + PartialEq + std::fmt::Debug>(file: &str) {
        let path = fixture(file);
        let bytes_of_file = std::fs::read(&path).unwrap();
        let r = NpyReader::open(&path).unwrap();
        let data = &bytes_of_file[r.parsed_header().data_offset() as usize..];
        if cfg!(target_endian = "little") {
            assert_eq!(bulk_path::<T>(r.dtype()), "native");
        }
        let got = read::<T>(&path).unwrap().into_vec();
        assert_eq!(bytes(&got), data);
        let streamed: Vec<T> = NpyReader::new(&bytes_of_file[..])
            .unwrap()
            .read_vec()
            .unwrap();
        assert_eq!(bytes(&streamed), data);
        let mut buf = vec![T::zeroed(); got.len()];
        NpyReader::open(&path).unwrap().read_into(&mut buf).unwrap();
        assert_eq!(bytes(&buf), data);
        let tail = NpyReader::open(&path)
            .unwrap()
            .read_range::<T>(1..got.len() as u64)
            .unwrap();
        assert_eq!(bytes(&tail), bytes(&got[1..]));
        let view = npy_core::view::view_or_copy::<T>(&bytes_of_file).unwrap();
        assert_eq!(bytes(&view), data);
        assert_eq!(to_bytes(&got, WriteOptions::new()), bytes_of_file);
    }
    check::<XyId>("rec_packed.npy");
    check::<XyIdAligned>("rec_packed.npy");
    check::<NestedPod>("rec_nested.npy");
}

#[test]
#[cfg_attr(miri, ignore)] // parsing the 860 kB manifest takes minutes under Miri
fn aligned_pod_struct_reads_in_bulk() {
    let path = fixture("rec_packed.npy");
    assert_eq!(XyIdAligned::npy_dtype(), XyId::npy_dtype());
    if cfg!(target_endian = "little") {
        assert_eq!(bulk_path::<XyIdAligned>(&file_dtype(&path)), "native");
    }
    let got = read::<XyIdAligned>(&path).unwrap().into_vec();
    let as_packed: Vec<XyId> = got
        .iter()
        .map(|r| XyId {
            x: r.x,
            y: r.y,
            id: r.id,
        })
        .collect();
    check_xyid(&as_packed, "rec_packed.npy");
    assert_eq!(
        to_bytes(&got, WriteOptions::new()),
        std::fs::read(&path).unwrap()
    );
}

#[test]
#[cfg_attr(miri, ignore)] // parsing the 860 kB manifest takes minutes under Miri
fn big_endian_file_goes_field_by_field() {
    let path = fixture("rec_be.npy");
    assert_eq!(bulk_path::<XyId>(&file_dtype(&path)), "elementwise");
    let got = read::<XyId>(&path).unwrap().into_vec();
    check_xyid(&got, "rec_be.npy");
    let be = to_bytes(&got, WriteOptions::new().byte_order(ByteOrder::Big));
    assert_eq!(be, std::fs::read(&path).unwrap());
}

#[test]
fn reordered_and_extra_fields_go_field_by_field() {
    #[derive(NpyElement)]
    struct IdYX {
        id: i64,
        y: f32,
        x: f32,
    }
    #[derive(NpyElement)]
    struct Wider {
        x: f32,
        y: f32,
        id: i64,
        w: f64,
    }
    let rows = [(0.5f32, -1.0f32, 7i64), (2.0, 3.5, -9)];
    let reordered: Vec<IdYX> = rows.iter().map(|&(x, y, id)| IdYX { id, y, x }).collect();
    let wider: Vec<Wider> = rows
        .iter()
        .map(|&(x, y, id)| Wider { x, y, id, w: 1.0 })
        .collect();
    for bytes in [
        to_bytes(&reordered, WriteOptions::new()),
        to_bytes(&wider, WriteOptions::new()),
    ] {
        let mut r = NpyReader::new(&bytes[..]).unwrap();
        assert_eq!(bulk_path::<XyId>(r.dtype()), "elementwise");
        let got: Vec<XyId> = r.read_vec().unwrap();
        let want: Vec<XyId> = rows.iter().map(|&(x, y, id)| XyId { x, y, id }).collect();
        assert_eq!(got, want);
    }
    // A file lacking a field is still the by-name error.
    #[derive(NpyElement)]
    struct XOnly {
        x: f32,
    }
    let bytes = to_bytes(&[XOnly { x: 1.0 }], WriteOptions::new());
    let err = NpyReader::new(&bytes[..])
        .unwrap()
        .read_vec::<XyId>()
        .unwrap_err();
    assert!(matches!(&err.kind(), ErrorKind::MissingField { field, .. } if field == "y"));
}

#[test]
fn bulk_and_field_by_field_write_the_same_bytes() {
    let n = if cfg!(miri) { 64 } else { 1000 };
    let rows: Vec<XyId> = (0..n)
        .map(|i| XyId {
            x: i as f32 * 0.5,
            y: -(i as f32),
            id: i * 3 - 500,
        })
        .collect();
    let slow: Vec<XyIdSlow> = rows
        .iter()
        .map(|r| XyIdSlow {
            x: r.x,
            y: r.y,
            id: r.id,
        })
        .collect();
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let options = || WriteOptions::new().byte_order(order);
        let bulk = to_bytes(&rows, options());
        assert_eq!(bulk, to_bytes(&slow, options()));
        let back: Vec<XyId> = NpyReader::new(&bulk[..]).unwrap().read_vec().unwrap();
        assert_eq!(back, rows);
    }
    // Streaming writes.
    let path = temp_dir().join("stream.npy");
    let mut w = WriteOptions::new()
        .create_stream::<XyId>(&path, &[])
        .unwrap();
    w.extend_from_slice(&rows[..10]).unwrap();
    w.push(&rows[10]).unwrap();
    w.extend_from_slice(&rows[11..]).unwrap();
    w.finish().unwrap();
    assert_eq!(read::<XyId>(&path).unwrap().into_vec(), rows);
}

#[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
#[npy(pod)]
#[repr(C)]
struct PointPod {
    x: f32,
    y: f32,
}

#[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
#[npy(pod)]
#[repr(C)]
struct NestedPod {
    p: PointPod,
    m: [[f64; 3]; 2],
}

#[test]
#[cfg_attr(miri, ignore)] // parsing the 860 kB manifest takes minutes under Miri
fn rec_nested_record_and_subarray_fields_read_in_bulk() {
    let path = fixture("rec_nested.npy");
    if cfg!(target_endian = "little") {
        assert_eq!(bulk_path::<NestedPod>(&file_dtype(&path)), "native");
    }
    let got = read::<NestedPod>(&path).unwrap().into_vec();
    let want = records("rec_nested.npy");
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        same_f32(g.p.x, &w["p"]["x"]);
        same_f32(g.p.y, &w["p"]["y"]);
        for i in 0..2 {
            for j in 0..3 {
                same_f64(g.m[i][j], &w["m"][i][j]);
            }
        }
    }
    assert_eq!(
        to_bytes(&got, WriteOptions::new()),
        std::fs::read(&path).unwrap()
    );
}

#[test]
fn tuple_and_packed_structs() {
    #[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
    #[npy(pod)]
    #[repr(C)]
    struct Pair(i32, f32);
    assert_eq!(
        Pair::npy_dtype().to_string().replace('>', "<"),
        "[('f0', '<i4'), ('f1', '<f4')]"
    );
    let rows = [Pair(1, 0.5), Pair(-3, 2.0)];
    let bytes = to_bytes(&rows, WriteOptions::new());
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    assert_eq!(bulk_path::<Pair>(r.dtype()), "native");
    assert_eq!(r.read_vec::<Pair>().unwrap(), rows);

    // `repr(C, packed)` is numpy's packed layout: a u8 then an i32 at offset 1.
    #[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
    #[npy(pod)]
    #[repr(C, packed)]
    struct Packed {
        a: u8,
        b: i32,
    }
    let rows = [Packed { a: 1, b: -2 }, Packed { a: 255, b: 7 }];
    let bytes = to_bytes(&rows, WriteOptions::new());
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    assert_eq!(bulk_path::<Packed>(r.dtype()), "native");
    assert_eq!(r.read_vec::<Packed>().unwrap(), rows);
}

#[test]
fn layouts_that_differ_are_never_cast() {
    // numpy's aligned layout puts `b` at 4; the packed Rust struct has it at 1.
    #[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
    #[npy(align, pod)]
    #[repr(C, packed)]
    struct Misplaced {
        a: u8,
        b: i32,
    }
    assert_eq!(
        bulk_path::<Misplaced>(&Misplaced::npy_dtype()),
        "elementwise"
    );
    let got = read::<Misplaced>(fixture("rec_aligned.npy"))
        .unwrap()
        .into_vec();
    // The manifest's values (not parsed here: too slow under Miri).
    let want = [(255, 2147483646), (1, 2), (254, -2)].map(|(a, b)| Misplaced { a, b });
    assert_eq!(got, want);
    assert_eq!(
        to_bytes(&got, WriteOptions::new()),
        std::fs::read(fixture("rec_aligned.npy")).unwrap()
    );

    // A field type whose memory is not its dtype's bytes (no bulk layout of its own).
    #[derive(bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
    #[repr(transparent)]
    struct Tenths(i32);
    impl NpyElement for Tenths {
        type Plan = <i32 as NpyElement>::Plan;
        fn npy_dtype() -> npy_core::DType {
            <i32 as NpyElement>::npy_dtype()
        }
        fn rust_name() -> String {
            "Tenths".into()
        }
        fn plan(dtype: &npy_core::DType) -> Result<Self::Plan, Error> {
            <i32 as NpyElement>::plan(dtype)
        }
        fn read(plan: &Self::Plan, src: &[u8]) -> Result<Self, Error> {
            Ok(Tenths(i32::read(plan, src)? * 10))
        }
        fn write(&self, plan: &Self::Plan, dst: &mut [u8]) -> Result<(), Error> {
            (self.0 / 10).write(plan, dst)
        }
    }
    #[derive(NpyElement, bytemuck::Pod, bytemuck::Zeroable, Clone, Copy, Debug, PartialEq)]
    #[npy(pod)]
    #[repr(C)]
    struct Run {
        t: Tenths,
        n: i32,
    }
    assert_eq!(bulk_path::<Run>(&Run::npy_dtype()), "elementwise");
    let rows = [Run {
        t: Tenths(50),
        n: 1,
    }];
    let bytes = to_bytes(&rows, WriteOptions::new());
    assert_eq!(&bytes[bytes.len() - 8..bytes.len() - 4], 5i32.to_ne_bytes());
    assert_eq!(
        NpyReader::new(&bytes[..])
            .unwrap()
            .read_vec::<Run>()
            .unwrap(),
        rows
    );
}
