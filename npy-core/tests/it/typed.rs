//! Typed reads against numpy: every simple-dtype fixture read with its Rust element type equals
//! the values numpy recorded in `fixtures/manifest.json` (in logical C order, floats bit for
//! bit), through every read path; plus the reader's stream behaviour and its value and type
//! errors.

use std::fs;
use std::io::Cursor;
use std::path::PathBuf;

use npy_core::element::units;
use npy_core::num_complex::Complex;
use npy_core::{
    dtype::Primitive, read, read::read_with, ByteOrder, DType, Datetime64, Error, ErrorKind,
    Header, MemoryOrder, NpyArray, NpyReader, ReadOptions,
};
use npy_test_support::*;
use serde_json::Value as Json;

/// Reads one fixture as `T` every way the reader offers and compares with the manifest.
struct CheckTyped<'a>(&'a Json);

impl Visitor for CheckTyped<'_> {
    type Out = Result<(), String>;

    fn visit<T: Elem>(self) -> Result<(), String> {
        let e = self.0;
        let path = fixture(e["file"].as_str().unwrap());
        let a = read::<T>(&path).map_err(|err| format!("read: {err}"))?;
        if a.shape() != shape_of(e) {
            return Err(format!("shape {:?}, manifest {:?}", a.shape(), shape_of(e)));
        }
        if a.order() != order_of(e) {
            return Err(format!("order {:?}, manifest {:?}", a.order(), order_of(e)));
        }
        let ours = logical_c(&a);
        let expected = expected_values(e);
        if ours.len() != expected.len() {
            return Err(format!(
                "{} values, manifest {}",
                ours.len(),
                expected.len()
            ));
        }
        for (i, (x, v)) in ours.iter().zip(&expected).enumerate() {
            if !x.matches(v) {
                return Err(format!(
                    "value {i} (logical C order): ours {x:?}, numpy {v}"
                ));
            }
        }

        // The C-order accessor gives the manifest's logical C order, whatever the file's order.
        let c_order = a.clone().into_c_order_vec();
        for (i, (x, v)) in c_order.iter().zip(&expected).enumerate() {
            if !x.matches(v) {
                return Err(format!("into_c_order_vec value {i}: ours {x:?}, numpy {v}"));
            }
        }
        if c_order.len() != expected.len() {
            return Err(format!("into_c_order_vec: {} values", c_order.len()));
        }

        // The same memory-order data through the stream paths.
        let bytes = fs::read(&path).unwrap();
        let stream = NpyReader::new(&bytes[..])
            .and_then(|mut r| r.read_vec::<T>())
            .map_err(|err| format!("stream read_vec: {err}"))?;
        if !all_same(&stream, a.data()) {
            return Err("stream read_vec differs from read".into());
        }
        let mut r = NpyReader::open(&path).unwrap();
        let iterated: Vec<T> = r
            .iter::<T>()
            .map_err(|err| format!("iter: {err}"))?
            .collect::<Result<_, _>>()
            .map_err(|err| format!("iter item: {err}"))?;
        if !all_same(&iterated, a.data()) {
            return Err("iter differs from read".into());
        }
        // read_into with one buffer reused for every chunk (7 does not divide the sizes).
        let mut r = NpyReader::new(&bytes[..]).unwrap();
        let mut buf: Vec<T> = a.data().iter().take(7).cloned().collect();
        let mut chunked = Vec::new();
        while r.remaining() > 0 {
            let k = (r.remaining() as usize).min(buf.len());
            r.read_into(&mut buf[..k])
                .map_err(|err| format!("read_into: {err}"))?;
            chunked.extend_from_slice(&buf[..k]);
        }
        if !all_same(&chunked, a.data()) {
            return Err("read_into chunks differ from read".into());
        }
        Ok(())
    }
}

#[test]
fn every_simple_fixture_reads_typed_as_numpy_wrote_it() {
    assert_skips_are_expected();
    let fixtures = simple_fixtures();
    let mut failures = Vec::new();
    let (mut big, mut fortran) = (0, 0);
    for e in &fixtures {
        let dt = dtype_of(e);
        big += usize::from(dt.byte_order() == ByteOrder::Big);
        fortran += usize::from(order_of(e) == MemoryOrder::Fortran);
        if let Some(Err(msg)) = dispatch(&dt, CheckTyped(e)) {
            failures.push(format!("{}: {msg}", e["file"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 21 simple dtypes with typed readers (m8[10ms] has none), 6 to 8 files each, plus w_f32
    // and long_shape; both byte orders and both memory orders are among them.
    assert!(fixtures.len() >= 150, "only {} fixtures", fixtures.len());
    assert!(
        big >= 30 && fortran >= 40,
        "big-endian {big}, Fortran {fortran}"
    );
}

fn f8_fixture() -> (PathBuf, Vec<f64>) {
    let path = fixture("f8_le_c_2x3x4.npy");
    let all = read::<f64>(&path).unwrap().into_vec();
    assert_eq!(all.len(), 24);
    (path, all)
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn read_into_reuses_one_buffer_and_refuses_overlong_buffers() {
    let (path, all) = f8_fixture();
    let mut r = NpyReader::open(&path).unwrap();
    let mut buf = [0.0f64; 10];
    let ptr = buf.as_ptr();
    r.read_into(&mut buf).unwrap();
    assert!(same_bits(&buf, &all[..10]));
    r.read_into(&mut buf).unwrap();
    assert!(same_bits(&buf, &all[10..20]));
    assert_eq!(buf.as_ptr(), ptr);
    assert_eq!(r.remaining(), 4);
    match r.read_into(&mut buf).map_err(Error::into_kind) {
        Err(ErrorKind::LengthMismatch {
            expected: 4,
            found: 10,
            ..
        }) => {}
        other => panic!("expected LengthMismatch, got {other:?}"),
    }
    r.read_into(&mut buf[..4]).unwrap();
    assert!(same_bits(&buf[..4], &all[20..]));
    assert_eq!(r.remaining(), 0);

    // Byte-swapped bulk path and per-element path (String) with a reused buffer.
    let be = read::<f64>(fixture("f8_be_c_2x3x4.npy"))
        .unwrap()
        .into_vec();
    assert!(same_bits(&be, &all));
    let strings = read::<String>(fixture("U5_be_c_2x3x4.npy"))
        .unwrap()
        .into_vec();
    let mut r = NpyReader::open(fixture("U5_be_c_2x3x4.npy")).unwrap();
    let mut sbuf = vec![String::new(); 5];
    let mut got = Vec::new();
    while r.remaining() > 0 {
        let k = (r.remaining() as usize).min(5);
        r.read_into(&mut sbuf[..k]).unwrap();
        got.extend_from_slice(&sbuf[..k]);
    }
    assert_eq!(got, strings);
}

#[test]
fn iter_streams_the_elements_in_memory_order() {
    let (path, all) = f8_fixture();
    let mut r = NpyReader::open(&path).unwrap();
    let it = r.iter::<f64>().unwrap();
    assert_eq!(it.size_hint(), (24, Some(24)));
    let got: Vec<f64> = it.map(Result::unwrap).collect();
    assert!(same_bits(&got, &all));
    assert_eq!(r.remaining(), 0);
    assert_eq!(r.iter::<f64>().unwrap().count(), 0);

    // Fortran order: iteration is memory order, as `read` returns it.
    let f = read::<i32>(fixture("i4_be_f_2x3x4.npy")).unwrap();
    let mut r = NpyReader::open(fixture("i4_be_f_2x3x4.npy")).unwrap();
    let got: Vec<i32> = r.iter::<i32>().unwrap().map(Result::unwrap).collect();
    assert_eq!(got, f.data());
}

#[test]
fn read_range_read_rows_and_seek_to_on_a_c_order_fixture() {
    let (path, all) = f8_fixture();
    let mut r = NpyReader::open(&path).unwrap();
    assert!(same_bits(&r.read_range::<f64>(5..17).unwrap(), &all[5..17]));
    assert_eq!(r.remaining(), 24 - 17);
    assert!(same_bits(&r.read_range::<f64>(0..3).unwrap(), &all[..3]));
    assert!(r.read_range::<f64>(7..7).unwrap().is_empty());
    assert!(same_bits(&r.read_range::<f64>(23..24).unwrap(), &all[23..]));
    // Rows of (2, 3, 4): a row is 12 elements.
    assert!(same_bits(&r.read_rows::<f64>(1..2).unwrap(), &all[12..]));
    assert!(same_bits(&r.read_rows::<f64>(0..2).unwrap(), &all));
    assert!(same_bits(&r.read_rows::<f64>(0..1).unwrap(), &all[..12]));
    // With the last dimension as the element ([f64; 4]), a row is 3 elements; the streaming
    // reader once sized rows of 12 before folding and refused 1..2 as elements 12..24 of 6.
    // A refused range leaves the reader's shape as it was.
    assert!(r.read_rows::<[f64; 4]>(1..3).is_err());
    assert_eq!(r.shape(), [2, 3, 4]);
    let row: Vec<f64> = r.read_rows::<[f64; 4]>(1..2).unwrap().concat();
    assert!(same_bits(&row, &all[12..]));
    let positional = NpyReader::open_at(fs::read(&path).unwrap()).unwrap();
    let row: Vec<f64> = positional.read_rows::<[f64; 4]>(1..2).unwrap().concat();
    assert!(same_bits(&row, &all[12..]));
    let mut r = NpyReader::open(&path).unwrap();
    assert!(matches!(
        r.read_rows::<f64>(1..3).map_err(Error::into_kind),
        Err(ErrorKind::OutOfRange { .. })
    ));
    assert!(matches!(
        r.read_range::<f64>(20..25).map_err(Error::into_kind),
        Err(ErrorKind::OutOfRange { .. })
    ));

    r.seek_to(20).unwrap();
    assert_eq!(r.remaining(), 4);
    assert!(same_bits(&r.read_vec::<f64>().unwrap(), &all[20..]));
    r.seek_to(3).unwrap();
    let mut two = [0.0; 2];
    r.read_into(&mut two).unwrap();
    assert!(same_bits(&two, &all[3..5]));
    let next: Vec<f64> = r
        .iter::<f64>()
        .unwrap()
        .take(3)
        .map(Result::unwrap)
        .collect();
    assert!(same_bits(&next, &all[5..8]));
    r.seek_to(24).unwrap();
    assert_eq!(r.remaining(), 0);
    assert!(matches!(
        r.seek_to(25).map_err(Error::into_kind),
        Err(ErrorKind::OutOfRange { .. })
    ));

    // In-memory streams seek too; range reads on a big-endian, per-element type.
    let bytes = fs::read(fixture("U5_be_c_2x3x4.npy")).unwrap();
    let strings = read::<String>(fixture("U5_be_c_2x3x4.npy"))
        .unwrap()
        .into_vec();
    let mut r = NpyReader::new(Cursor::new(bytes)).unwrap();
    assert_eq!(r.read_rows::<String>(1..2).unwrap(), strings[12..]);
    assert_eq!(r.read_range::<String>(2..5).unwrap(), strings[2..5]);

    // Rows are not contiguous in Fortran order, and 0-d arrays have none.
    let mut f = NpyReader::open(fixture("f8_le_f_2x3x4.npy")).unwrap();
    assert!(matches!(
        f.read_rows::<f64>(0..1).map_err(Error::into_kind),
        Err(ErrorKind::Unsupported { .. })
    ));
    let mut s = NpyReader::open(fixture("f8_le_c_scalar.npy")).unwrap();
    assert!(matches!(
        s.read_rows::<f64>(0..1).map_err(Error::into_kind),
        Err(ErrorKind::Unsupported { .. })
    ));
}

#[test]
fn concatenated_arrays_read_one_after_another() {
    let names = [
        "f8_le_c_2x3x4.npy",
        "U5_be_f_2x3x4.npy",
        "b1_na_c_5.npy",
        "i2_le_c_0.npy",
        "c8_be_c_2x3x4.npy",
    ];
    let mut stream = Vec::new();
    for n in names {
        stream.extend(fs::read(fixture(n)).unwrap());
    }
    let mut s = &stream[..];
    let a = NpyReader::new(&mut s).unwrap().read_vec::<f64>().unwrap();
    assert!(same_bits(&a, &f8_fixture().1));
    let mut r = NpyReader::new(&mut s).unwrap();
    assert_eq!(r.order(), MemoryOrder::Fortran);
    let u: Vec<String> = r.iter::<String>().unwrap().map(Result::unwrap).collect();
    assert_eq!(u, read::<String>(fixture(names[1])).unwrap().into_vec());
    let mut r = NpyReader::new(&mut s).unwrap();
    let mut b = [false; 5];
    r.read_into(&mut b).unwrap();
    assert_eq!(b, *read::<bool>(fixture(names[2])).unwrap().data());
    let mut r = NpyReader::new(&mut s).unwrap();
    assert_eq!(r.shape(), [0]);
    assert!(r.read_vec::<i16>().unwrap().is_empty());
    let c = NpyReader::new(&mut s)
        .unwrap()
        .read_vec::<Complex<f32>>()
        .unwrap();
    let want = read::<Complex<f32>>(fixture(names[4])).unwrap().into_vec();
    assert!(all_same(&c, &want));
    assert!(s.is_empty(), "{} bytes left", s.len());
    assert!(matches!(
        NpyReader::new(&mut s).map_err(Error::into_kind),
        Err(ErrorKind::NotNpy(_))
    ));
}

#[test]
fn trailing_bytes_after_the_data_are_not_an_error() {
    let (_, all) = f8_fixture();
    let mut bytes = fs::read(fixture("f8_le_c_2x3x4.npy")).unwrap();
    bytes.extend_from_slice(b"trailing garbage \x93NUMPY");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trailing.npy");
    fs::write(&path, &bytes).unwrap();
    assert!(same_bits(&read::<f64>(&path).unwrap().into_vec(), &all));
    let mut s = &bytes[..];
    let got = NpyReader::new(&mut s).unwrap().read_vec::<f64>().unwrap();
    assert!(same_bits(&got, &all));
    assert_eq!(s, b"trailing garbage \x93NUMPY");
    let mut r = NpyReader::open(&path).unwrap();
    assert_eq!(r.iter::<f64>().unwrap().count(), 24);
}

#[test]
fn type_mismatch_names_the_file_dtype_and_the_rust_type() {
    let err = read::<Complex<f64>>(fixture("c8_le_c_5.npy")).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err:?}"
    );
    assert!(msg.contains("'<c8' (complex64)"), "{msg}");
    assert!(msg.contains("Complex<f64> ('<c16')"), "{msg}");

    // Units are part of the type.
    let err = read::<Datetime64<units::S>>(fixture("M8ns_le_c_5.npy")).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("M8[ns]") && msg.contains("M8[s]"), "{msg}");
    assert!(read::<Datetime64<units::Ns>>(fixture("M8ns_le_c_5.npy")).is_ok());

    // No widening, no sign change, no datetime as int, no m8[10ms] as m8[ms].
    for (file, err) in [
        (
            "i4_le_c_5.npy",
            read::<i64>(fixture("i4_le_c_5.npy")).map(drop),
        ),
        (
            "u8_le_c_5.npy",
            read::<i64>(fixture("u8_le_c_5.npy")).map(drop),
        ),
        (
            "M8s_le_c_5.npy",
            read::<i64>(fixture("M8s_le_c_5.npy")).map(drop),
        ),
        (
            "m8_10ms_le_c_5.npy",
            read::<npy_core::element::Timedelta64<units::Ms>>(fixture("m8_10ms_le_c_5.npy"))
                .map(drop),
        ),
        (
            "S7_na_c_5.npy",
            read::<String>(fixture("S7_na_c_5.npy")).map(drop),
        ),
        (
            "b1_na_c_5.npy",
            read::<u8>(fixture("b1_na_c_5.npy")).map(drop),
        ),
    ] {
        assert!(
            matches!(
                err.as_ref().map_err(Error::kind),
                Err(ErrorKind::TypeMismatch { .. })
            ),
            "{file}: {err:?}"
        );
    }
    // The stream reader checks before reading any data.
    let bytes = fs::read(fixture("c8_le_c_5.npy")).unwrap();
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    assert!(matches!(
        r.iter::<f32>().map_err(Error::into_kind),
        Err(ErrorKind::TypeMismatch { .. })
    ));
    assert!(matches!(
        r.read_into::<f64>(&mut []).map_err(Error::into_kind),
        Err(ErrorKind::TypeMismatch { .. })
    ));
    assert_eq!(r.remaining(), 5);
}

fn bool_file(data: &[u8]) -> Vec<u8> {
    let dt = DType::Number(Primitive::Bool, ByteOrder::NotApplicable);
    let mut bytes = Header::new(dt, vec![data.len() as u64])
        .to_bytes(None)
        .unwrap();
    bytes.extend_from_slice(data);
    bytes
}

/// numpy reads any non-zero `b1` byte as True (N22): so does every typed read by default, and
/// the strict check refuses the byte, naming its offset in the file.
#[test]
fn a_bool_byte_other_than_0_or_1_is_true_unless_strict() {
    let bytes = bool_file(&[0, 1, 2, 1]);
    let data_offset = bytes.len() as u64 - 4;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bool_2.npy");
    fs::write(&path, &bytes).unwrap();
    // numpy: np.frombuffer(bytes([0, 1, 2, 1]), bool).tolist() == [False, True, True, True]
    let numpy = [false, true, true, true];
    assert_eq!(read::<bool>(&path).unwrap().data(), numpy);
    assert_eq!(
        NpyReader::new(&bytes[..])
            .unwrap()
            .read_vec::<bool>()
            .unwrap(),
        numpy
    );
    let items: Vec<bool> = NpyReader::new(&bytes[..])
        .unwrap()
        .iter::<bool>()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(items, numpy);

    let strict = ReadOptions::default().strict_bools(true);
    let want_offset = data_offset + 2;
    assert!(matches!(
        read_with::<bool>(&path, &strict).map_err(Error::into_kind),
        Err(ErrorKind::InvalidBool { byte: 2, offset }) if offset == want_offset
    ));
    let mut r = NpyReader::with_options(&bytes[..], &strict).unwrap();
    assert!(matches!(
        r.read_vec::<bool>().map_err(Error::into_kind),
        Err(ErrorKind::InvalidBool { byte: 2, offset }) if offset == want_offset
    ));
    // The iterator hands out the elements before the byte, then the error, then nothing.
    let mut r = NpyReader::with_options(&bytes[..], &strict).unwrap();
    let items: Vec<_> = r
        .iter::<bool>()
        .unwrap()
        .map(|r| r.map_err(Error::into_kind))
        .collect();
    assert!(matches!(
        items[..],
        [Ok(false), Ok(true), Err(ErrorKind::InvalidBool { byte: 2, offset })]
            if offset == want_offset
    ));
    // Strict or not, 0 and 1 read as themselves.
    let good = bool_file(&[1, 0]);
    assert_eq!(
        NpyReader::with_options(&good[..], &strict)
            .unwrap()
            .read_vec::<bool>()
            .unwrap(),
        [true, false]
    );
    // The same bytes as u8 are fine only if the dtype says u8: here it is a mismatch.
    assert!(matches!(
        read::<u8>(&path).map_err(Error::into_kind),
        Err(ErrorKind::TypeMismatch { .. })
    ));
}

fn external(rel: &str) -> PathBuf {
    let p = npy_test_support::external_dir().join(rel);
    assert!(
        p.is_file(),
        "{} is missing from fixtures/external",
        p.display()
    );
    p
}

#[test]
fn a_lone_surrogate_is_invalid_unicode() {
    let path = external("npyz/unicode/surrogate.npy");
    match read::<String>(&path).map_err(Error::into_kind) {
        Err(ErrorKind::InvalidUnicode { code_point }) => {
            assert!((0xD800..0xE000).contains(&code_point), "{code_point:#x}");
        }
        other => panic!("expected InvalidUnicode, got {other:?}"),
    }
}

/// ndarray-npy's `example_bool_bad_value.npy` holds the bytes 98, 97 and 100 among its bools:
/// numpy reads them as True, so do we; the strict check refuses the first.
#[test]
fn ndarray_npy_bad_bool_value_reads_as_numpy() {
    let path = external("ndarray-npy/example_bool_bad_value.npy");
    let a = read::<bool>(&path).unwrap();
    // numpy 2.4.6: np.load(path).ravel().tolist()
    #[rustfmt::skip]
    let numpy = [
        true, false, true, false, true, true, true, true, false, true, true, false,
        true, false, true, true, false, true, false, true, true, false, true, false,
    ];
    assert_eq!(a.shape(), [2, 3, 4]);
    assert_eq!(a.data(), numpy);
    let err = read_with::<bool>(&path, &ReadOptions::default().strict_bools(true)).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidBool { byte: 98, .. }),
        "{err:?}"
    );
    assert_eq!(err.path(), Some(path.as_path()));
    let good = external("ndarray-npy/example_bool_standard.npy");
    let a: NpyArray<bool> = read(good).unwrap();
    assert!(!a.is_empty());
}

// Regressions: faults found by fuzzing and review, each with its failing input.

/// A partly used `iter` moved the reader past its whole read-ahead chunk.
#[test]
fn a_partly_used_iterator_loses_no_elements() {
    let src = fixture("i2_le_c_2x3x4.npy");
    let all = npy_core::read::<i16>(&src).unwrap().into_vec();
    let bytes = std::fs::read(&src).unwrap();
    let mut r = NpyReader::new(&bytes[..]).unwrap();
    let first: Vec<i16> = r
        .iter::<i16>()
        .unwrap()
        .take(2)
        .map(Result::unwrap)
        .collect();
    assert_eq!(r.remaining(), 22);
    let rest = r.read_vec::<i16>().unwrap();
    assert_eq!([first, rest].concat(), all);
    // With Seek, seeking after a partial iteration lands where asked.
    let mut r = NpyReader::new(std::io::Cursor::new(bytes)).unwrap();
    let _ = r.iter::<i16>().unwrap().next();
    assert_eq!(r.read_range::<i16>(5..7).unwrap(), all[5..7]);
}

/// A refusal names the way out when there is one: `Casting::Safe` for a dtype numpy widens
/// safely to the requested one (the full table is `parity::widen`), the safe object readers
/// for an object array.
#[test]
fn refusals_name_the_read_that_works() {
    let err = read::<f64>(fixture("f4_le_c_5.npy")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: file has dtype '<f4' (float32), requested f64 ('<f8'); numpy casts it safely: \
             read with ReadOptions::default().casting(Casting::Safe)",
            fixture("f4_le_c_5.npy").display()
        )
    );
    // Narrowing has no such way.
    let err = read::<f32>(fixture("f8_le_c_5.npy")).unwrap_err();
    assert!(!err.to_string().contains("Casting"), "{err}");
    // Following the hint works.
    let opts = npy_core::ReadOptions::default().casting(npy_core::read::Casting::Safe);
    assert!(npy_core::read::read_with::<f64>(fixture("f4_le_c_5.npy"), &opts).is_ok());

    let objects = npy_test_support::fixtures_dir().join("object");
    let file = fs::read_dir(&objects)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "npy"))
        .expect("an object-array fixture");
    let err = read::<f64>(&file).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ObjectArray { .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("npy_pickle::read_dyn") && msg.contains("npy_pickle::read_objects"),
        "{msg}"
    );
    // read_dyn has no codec: it refuses too, naming the crate that decodes objects.
    let err = npy_core::read_dyn(&file).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ObjectArray { .. }),
        "{err:?}"
    );
}

/// `StreamWriter::extend` writes the file `write_to` writes for the same elements, byte for
/// byte (`write_numpy.rs` holds those bytes to `np.save`'s); a value the dtype cannot hold stops
/// it, with the elements before it written.
#[test]
fn stream_extend_writes_what_a_slice_write_writes() {
    let (path, values) = f8_fixture();
    let numpy = fs::read(&path).unwrap();
    let header = npy_core::Header::read(&mut &numpy[..]).unwrap();
    let row: Vec<u64> = header.header.shape[1..].to_vec();
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = npy_core::WriteOptions::new()
        .stream_to::<_, f64>(&mut out, &row)
        .unwrap();
    let (first, rest) = values.split_at(values.len() / 3);
    w.extend(first).unwrap();
    w.extend(rest.iter().copied()).unwrap();
    w.finish().unwrap();
    let mut whole = Vec::new();
    npy_core::WriteOptions::new()
        .write_to(&mut whole, &values, &header.header.shape)
        .unwrap();
    let out = out.into_inner();
    assert_eq!(out, whole);
    assert_eq!(out, numpy, "np.save's own file");

    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = npy_core::WriteOptions::new()
        .dtype("<U2".parse().unwrap())
        .stream_to::<_, String>(&mut out, &[])
        .unwrap();
    let err = w
        .extend([
            "ab".to_owned(),
            "c".to_owned(),
            "def".to_owned(),
            "g".to_owned(),
        ])
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::ValueTooLong { len: 3, .. }),
        "{err:?}"
    );
    assert_eq!(w.elements_written(), 2);
}

/// `[T; N]`'s element codec sliced `src[i * item..]` without a check: given fewer bytes than
/// its subarray's itemsize (the readers always pass whole elements, but `NpyElement::read` and
/// `write` are public) it panicked (issue 40, panics audit). Now an error; whole elements
/// decode as the format's rules say (three little-endian `i4`).
#[test]
fn subarray_element_codec_refuses_short_buffers() {
    use npy_core::NpyElement;
    type A = [i32; 3];
    let i4 = DType::Number(Primitive::I32, ByteOrder::Little);
    let dtype = DType::SubArray(npy_core::dtype::SubArray::new(i4, vec![3]).unwrap());
    let plan = A::plan(&dtype).unwrap();
    let err = A::read(&plan, &[1, 0, 0, 0, 2]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
    let mut short = [0u8; 11];
    let err = [1, 2, 3].write(&plan, &mut short).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
    let whole = [1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    assert_eq!(A::read(&plan, &whole).unwrap(), [1, 2, -1]);
    let mut out = [0u8; 12];
    [1, 2, -1].write(&plan, &mut out).unwrap();
    assert_eq!(out, whole);
}
