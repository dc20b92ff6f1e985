//! The failing inputs of issue 13 (`../shared/cases/turn2`, copied into `cases/`), with what
//! numpy 2.4.6 reads from each (its README records `np.load`'s result).

use std::borrow::Cow;
use std::path::PathBuf;

use npy_core::element::units::{Ns, S};
use npy_core::{element::Timedelta64, read, read_dyn, Datetime64, DynValue, NpyReader};

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/parity/cases")
        .join(name)
}

/// N2: headers whose descr is a numpy type name (`'datetime64[ns]'`, `'double'`, ...).
#[test]
fn n2_type_names_as_descr() {
    let dt = read::<Datetime64<Ns>>(case("N2_datetime64.npy")).unwrap();
    assert_eq!(
        dt.data(),
        [Datetime64::new(1_577_836_800_000_000_001), Datetime64::NAT]
    );
    let td = read::<Timedelta64<S>>(case("N2_timedelta64.npy")).unwrap();
    assert_eq!(td.data(), [Timedelta64::new(5), Timedelta64::new(-1)]);
    assert_eq!(read::<f64>(case("N2_double.npy")).unwrap().data(), [1.5]);
    assert_eq!(read::<u8>(case("N2_ubyte.npy")).unwrap().data(), [1, 2]);
    let ld = read_dyn(case("N2_float128.npy")).unwrap();
    assert_eq!(ld.dtype().to_string(), "<f16");
    assert_eq!(ld.element(0).and_then(|v| v.as_f64()), Some(1.5));
    for name in [
        "N2_datetime64",
        "N2_timedelta64",
        "N2_double",
        "N2_ubyte",
        "N2_float128",
    ] {
        let r = NpyReader::open(case(&format!("{name}.npy"))).unwrap();
        assert!(!r.dtype().to_string().is_empty(), "{name}");
    }
    assert!(matches!(
        read_dyn(case("N2_double.npy"))
            .unwrap()
            .iter()
            .map(Cow::into_owned)
            .collect::<Vec<_>>()[..],
        [DynValue::Float(x)] if x == 1.5
    ));
}

/// N22: `|b1` files holding 0x7f, and a 0/255 mask saved by `np.save` (numpy 2.4.6:
/// `[ True  True False  True]` and `[[False  True] [ True False]]`).
#[test]
fn n22_nonzero_bool_bytes_are_true() {
    assert_eq!(
        read::<bool>(case("N22_7f.npy")).unwrap().data(),
        [true, true, false, true]
    );
    let mask = read::<bool>(case("N22_mask255.npy")).unwrap();
    assert_eq!(mask.shape(), [2, 2]);
    assert_eq!(mask.data(), [false, true, true, false]);
    let dyn_mask = read_dyn(case("N22_mask255.npy")).unwrap();
    assert_eq!(
        dyn_mask.iter().map(Cow::into_owned).collect::<Vec<_>>(),
        [false, true, true, false].map(DynValue::Bool)
    );
    // The strict check finds the byte np.save wrote, at its place in the file.
    let strict = npy_core::ReadOptions::default().strict_bools(true);
    let err = npy_core::read::read_with::<bool>(case("N22_7f.npy"), &strict).unwrap_err();
    let data_offset = NpyReader::open(case("N22_7f.npy")).unwrap().data_offset();
    assert!(
        matches!(
            *err.kind(),
            npy_core::ErrorKind::InvalidBool { byte: 0x7f, offset } if offset == data_offset + 1
        ),
        "{err}"
    );
    // The message no longer claims numpy writes only 0 and 1.
    assert!(!err.to_string().contains("numpy writes only"), "{err}");
}

/// R13: `WriteOptions::new().order(MemoryOrder::Fortran).stream_to::<_, f64>(w, &[3])` was refused;
/// it now streams records of a fixed first axis along the last one, patched at `finish()`.
/// The file is the (3, 5) Fortran-order array whose memory order is the pushed order; numpy
/// reads it like any other (the byte-for-byte check against np.save is in `fstream.rs`).
#[test]
fn r13_fortran_order_streaming() {
    use npy_core::{MemoryOrder, WriteOptions};
    let mut file = std::io::Cursor::new(Vec::new());
    let mut w = WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .stream_to::<_, f64>(&mut file, &[3])
        .unwrap();
    let mut pushed = Vec::new();
    for i in 0..5 {
        let row = [f64::from(i), 0.5, -1.0];
        w.push_row(&row).unwrap();
        pushed.extend(row);
    }
    w.finish().unwrap();
    let bytes = file.into_inner();
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    assert_eq!(r.shape(), [3, 5]);
    assert_eq!(r.order(), MemoryOrder::Fortran);
    assert_eq!(r.read_vec::<f64>().unwrap(), pushed);
    // An unfinished writer's file claims no rows.
    let mut file = std::io::Cursor::new(Vec::new());
    let mut w = WriteOptions::new()
        .order(MemoryOrder::Fortran)
        .stream_to::<_, f64>(&mut file, &[3])
        .unwrap();
    w.push_row(&[1.0, 2.0, 3.0]).unwrap();
    drop(w);
    let r = NpyReader::new(&file.get_ref()[..]).unwrap();
    assert_eq!(r.shape(), [3, 0]);
}
