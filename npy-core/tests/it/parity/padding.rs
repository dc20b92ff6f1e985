//! Bytes the values do not determine survive `read_dyn` → `write_dyn`, as numpy keeps them
//! (`np.save(np.load(f))` writes the bytes read): record padding with non-zero bytes
//! (`fixtures/parity/pad_*`: a saved multi-field view, `align=True` gaps, explicit offsets,
//! nested records and subarrays of records, Fortran order, 0-d) and bool bytes other than
//! 0 and 1 (`bool_*`).

use npy_core::{dynamic::write_dyn_to, DType, DynArray, Header, NpyReader};
use std::borrow::Cow;

use super::support::{files, path};

fn round_trip(a: &DynArray) -> Vec<u8> {
    let mut out = Vec::new();
    write_dyn_to(&mut out, a).expect("write_dyn_to");
    out
}

#[test]
fn read_dyn_then_write_dyn_gives_the_bytes_read() {
    let mut checked = 0;
    for kind in ["padding", "bool"] {
        for entry in files(kind) {
            let name = entry["file"].as_str().expect("file");
            let numpy = std::fs::read(path(name)).expect("fixture");
            let a = npy_core::read_dyn(path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                round_trip(&a) == numpy,
                "{name}: bytes differ after the round trip"
            );
            // From a stream too (no file length known).
            let a = NpyReader::new(&numpy[..]).and_then(|mut r| r.read_dyn());
            assert!(round_trip(&a.unwrap()) == numpy, "{name}: from a stream");
            checked += 1;
        }
    }
    assert!(checked >= 11, "{checked}");
}

/// An array built from values alone has numpy's padding of a new array (zeros) and bools 0
/// and 1: the kept bytes belong to the array read, not to its values.
#[test]
fn arrays_built_from_values_write_zero_padding() {
    let name = "pad_offsets_gaps.npy";
    let numpy = std::fs::read(path(name)).expect("fixture");
    let read = npy_core::read_dyn(path(name)).unwrap();
    let DType::Record(record) = read.dtype().clone() else {
        panic!("{name}: a record dtype");
    };
    let built = DynArray::new(
        Header::new(read.dtype().clone(), read.shape().to_vec()),
        read.iter().map(Cow::into_owned).collect(),
    )
    .unwrap();
    assert_eq!(built, read, "equal values: equal arrays");
    let ours = round_trip(&built);
    let (o, t) = (
        NpyReader::new(&ours[..]).unwrap().data_offset() as usize,
        NpyReader::new(&numpy[..]).unwrap().data_offset() as usize,
    );
    let size = record.itemsize() as usize;
    let mut gap_bytes = 0;
    for (ours, theirs) in ours[o..].chunks(size).zip(numpy[t..].chunks(size)) {
        for i in 0..size {
            let in_field = record.fields().iter().any(|f| {
                let start = f.offset as usize;
                (start..start + f.dtype.itemsize() as usize).contains(&i)
            });
            if in_field {
                assert_eq!(ours[i], theirs[i], "{name}: field byte {i}");
            } else {
                assert_eq!(ours[i], 0, "{name}: padding byte {i}");
                gap_bytes += usize::from(theirs[i] != 0);
            }
        }
    }
    assert!(
        gap_bytes > 0,
        "{name}: the fixture's gaps hold non-zero bytes"
    );
}
