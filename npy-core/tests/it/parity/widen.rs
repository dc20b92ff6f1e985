//! Widening reads ([`Casting::Safe`]): `fixtures/parity/casting.json` holds numpy's
//! `np.can_cast(from, to, 'safe')` over every pair of number and time dtypes, and
//! `casting_values.json` the bytes of `astype(to)` of each `cast_*.npy` file (extremes, zero,
//! signs, NaN, infinities, subnormals, fractions, in both byte orders). Checked both ways: a
//! safe pair reads, with numpy's values; any other pair is refused; the default stays exact.

use npy_core::half::f16;
use npy_core::num_complex::Complex;
use npy_core::{
    read::{read_with, Casting},
    ByteOrder, Error, ErrorKind, NpyElement, NpyReader, ReadOptions, WriteOptions,
};

use super::support::{path, report, rows};

fn safe() -> ReadOptions {
    ReadOptions::default().casting(Casting::Safe)
}

/// The `cast_*.npy` file of a number descr (`<i4` → `cast_le_i4.npy`, `|u1` → `cast_u1.npy`).
fn source_file(descr: &str) -> String {
    let (order, code) = descr.split_at(1);
    match order {
        "<" => format!("cast_le_{code}.npy"),
        ">" => format!("cast_be_{code}.npy"),
        _ => format!("cast_{code}.npy"),
    }
}

/// Reads `file` as `T` under `options`, and gives the values' bytes as numpy's `astype(T)` lays
/// them out (little-endian; written by the crate's writer, which other tests check against
/// `np.save`).
fn read_as<T: NpyElement>(file: &str, options: &ReadOptions) -> Result<String, Error> {
    let a = read_with::<T>(path(file), options)?;
    let mut out = Vec::new();
    WriteOptions::new().byte_order(ByteOrder::Little).write_to(
        &mut out,
        a.data(),
        &[a.len() as u64],
    )?;
    let offset = NpyReader::new(&out[..])?.data_offset() as usize;
    Ok(out[offset..].iter().map(|b| format!("{b:02x}")).collect())
}

/// Reads `file` as the Rust type of numpy dtype `to`; `None` for dtypes with no number type
/// (datetimes and timedeltas, which widening does not cover).
fn read_as_dtype(file: &str, to: &str, options: &ReadOptions) -> Option<Result<String, Error>> {
    Some(match to {
        "|b1" => read_as::<bool>(file, options),
        "|i1" => read_as::<i8>(file, options),
        "<i2" => read_as::<i16>(file, options),
        "<i4" => read_as::<i32>(file, options),
        "<i8" => read_as::<i64>(file, options),
        "|u1" => read_as::<u8>(file, options),
        "<u2" => read_as::<u16>(file, options),
        "<u4" => read_as::<u32>(file, options),
        "<u8" => read_as::<u64>(file, options),
        "<f2" => read_as::<f16>(file, options),
        "<f4" => read_as::<f32>(file, options),
        "<f8" => read_as::<f64>(file, options),
        "<c8" => read_as::<Complex<f32>>(file, options),
        "<c16" => read_as::<Complex<f64>>(file, options),
        _ => return None,
    })
}

fn is_time(descr: &str) -> bool {
    descr.contains("M8") || descr.contains("m8")
}

/// Every pair of the table, from files of both byte orders: a read succeeds exactly when
/// numpy's safe casting allows it; without the option only the dtype itself reads.
#[test]
fn widening_pairs_are_numpys_safe_casts() {
    let pairs = rows("casting.json", "pairs");
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in &pairs {
        let (from, to) = (row["from"].as_str().unwrap(), row["to"].as_str().unwrap());
        let numpy_safe = row["safe"].as_bool().unwrap();
        if is_time(from) {
            // No widening from datetimes: numpy's calendar-unit casts are not covered.
            continue;
        }
        let orders: &[&str] = if from.starts_with('|') {
            &[""]
        } else {
            &["<", ">"]
        };
        for order in orders {
            let from = if order.is_empty() {
                from.to_owned()
            } else {
                format!("{order}{}", &from[1..])
            };
            let file = source_file(&from);
            let Some(ours) = read_as_dtype(&file, to, &safe()) else {
                // A time target: numpy casts integers to timedelta64 safely; no widening
                // reads them, so none may succeed by accident either.
                assert!(is_time(to));
                continue;
            };
            checked += 1;
            match (numpy_safe, &ours) {
                (true, Ok(_)) => {}
                (false, Err(e)) if matches!(e.kind(), ErrorKind::TypeMismatch { .. }) => {}
                (true, Err(e)) => failures.push(format!("{from} -> {to}: refused ({e})")),
                (false, r) => failures.push(format!("{from} -> {to}: numpy refuses, ours {r:?}")),
            }
            // The default is exact: only the dtype itself, in either byte order; its refusal
            // names Casting::Safe exactly when numpy casts safely.
            let exact = read_as_dtype(&file, to, &ReadOptions::default()).unwrap();
            let same = from[1..] == to[1..];
            if exact.is_ok() != same {
                failures.push(format!("{from} -> {to}: default casting gave {exact:?}"));
            }
            if let Err(e) = &exact {
                let hinted = matches!(
                    e.kind(),
                    ErrorKind::TypeMismatch {
                        safe_cast: true,
                        ..
                    }
                );
                let says = e.to_string().contains("Casting::Safe");
                if hinted != numpy_safe || says != numpy_safe {
                    failures.push(format!(
                        "{from} -> {to}: numpy safe {numpy_safe}, hint {hinted}, message {e}"
                    ));
                }
            }
        }
    }
    report("casting.json pairs", checked, &failures);
}

/// numpy's `astype` values for every safe pair, byte for byte (NaN payloads included).
#[test]
fn widening_values_are_numpys() {
    let values = rows("casting_values.json", "values");
    let mut failures = Vec::new();
    for row in &values {
        let (file, to) = (row["file"].as_str().unwrap(), row["to"].as_str().unwrap());
        let want = row["hex"].as_str().unwrap();
        match read_as_dtype(file, to, &safe()) {
            Some(Ok(hex)) if hex == want => {}
            Some(got) => failures.push(format!(
                "{} -> {to}: ours {got:?}, numpy {want}",
                row["from"]
            )),
            None => failures.push(format!("{to}: no Rust type")),
        }
    }
    report("casting_values.json", values.len(), &failures);
}

/// Widening works on every typed path: iteration, ranges, caller buffers, ndarray.
#[test]
fn widening_on_every_typed_path() {
    let file = path("cast_be_i2.npy");
    let want: Vec<i64> = npy_core::read::<i16>(&file)
        .unwrap()
        .data()
        .iter()
        .map(|&v| i64::from(v))
        .collect();
    let open = || NpyReader::open_with(&file, &safe()).unwrap();
    let iterated: Vec<i64> = open()
        .iter::<i64>()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(iterated, want);
    assert_eq!(open().read_range::<i64>(2..5).unwrap(), want[2..5]);
    let mut buf = vec![0i64; want.len()];
    open().read_into(&mut buf).unwrap();
    assert_eq!(buf, want);
    #[cfg(feature = "ndarray")]
    {
        let a = read_with::<i64>(&file, &safe())
            .unwrap()
            .into_ndarray::<ndarray::IxDyn>()
            .unwrap();
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), want);
    }
    // Narrowing is refused on every path too, naming both types.
    let err = open().iter::<i8>().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TypeMismatch { .. }),
        "{err}"
    );
}
