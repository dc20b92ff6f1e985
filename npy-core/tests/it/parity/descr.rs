//! Descr strings: `fixtures/parity/descr.json` holds numpy's verdict on every name of
//! `np.sctypeDict`, every one-character code, kinds and sizes, datetime units, multipliers
//! and divisors, comma strings and near-misses, each with and without byte-order characters.
//! Every row is checked both ways (what numpy accepts is accepted as the same dtype, what it
//! refuses is refused), on its own and inside a header (general and fast header paths).

use npy_core::literal::Value;
use npy_core::{format::Version, DType, ErrorKind, Header, ReadOptions};

use super::support::{report, rows};

#[test]
fn every_descr_string_as_numpy() {
    let rows = rows("descr.json", "rows");
    let mut failures = Vec::new();
    for row in &rows {
        let s = row["descr"].as_str().expect("descr");
        let ours = DType::from_descr_value(&Value::Str(s.to_owned()));
        // The same string in a header, as np.save would quote it: the header fast path.
        let text = format!(
            "{{'descr': {}, 'fortran_order': False, 'shape': (), }}",
            Value::Str(s.to_owned())
        );
        let header = Header::from_text(&text, Version::V3_0, &ReadOptions::default());
        let verdict = match (row["ok"].as_bool(), &ours) {
            (Some(true), _)
                if row["canon"]
                    .as_str()
                    .is_some_and(|c| c.contains("StringDType")) =>
            {
                // np.load needs allow_pickle for StringDType ('T') arrays: refused as objects.
                match &ours {
                    Err(npy_core::dtype::DescrError::StringDType { .. }) if matches!(&header, Err(e) if matches!(e.kind(), ErrorKind::StringDType { .. })) => {
                        None
                    }
                    other => Some(format!("{other:?}, numpy: StringDType (pickled)")),
                }
            }
            (Some(true), Ok(dt)) => {
                let canon = row["canon"].as_str().expect("canon");
                let size = row["itemsize"].as_u64().expect("itemsize");
                (dt.to_string() != canon || dt.itemsize() != size).then(|| {
                    format!(
                        "{dt} ({} bytes), numpy {canon} ({size} bytes)",
                        dt.itemsize()
                    )
                })
            }
            (Some(true), Err(e)) => Some(format!("refused ({e}), numpy: {}", row["canon"])),
            (Some(false), Ok(dt)) => Some(format!(
                "accepted as {dt}, numpy refuses: {}",
                row.get("error")
                    .or(row.get("numpy_bug"))
                    .unwrap_or(&row["ok"])
            )),
            (Some(false), Err(_)) => None,
            (None, _) => panic!("row without a verdict: {row}"),
        };
        if let Some(v) = verdict {
            failures.push(format!("{s:?}: {v}"));
            continue;
        }
        let same = match (&ours, &header) {
            (Ok(a), Ok(h)) => *a == h.dtype,
            (Err(_), Err(_)) => true,
            // The one deliberate difference (issue 26): numpy refuses `'<f1'`, but ml_dtypes'
            // float8_e5m2 arrays are saved with it, so a header holding it is that type.
            (Err(_), Ok(h)) if matches!(s, "<f1" | ">f1" | "|f1" | "=f1") => {
                h.dtype == DType::Ml(npy_core::dtype::MlType::Float8E5M2)
            }
            _ => false,
        };
        if !same {
            failures.push(format!("{s:?}: alone {ours:?}, in a header {header:?}"));
        }
    }
    report("descr strings", rows.len(), &failures);
}

/// Descr values other than strings (`descr_values.json`): `(type, shape)` tuples and field
/// lists as a header may hold them, against numpy's `descr_to_dtype`.
#[test]
fn descr_values_as_numpy() {
    let rows = rows("descr_values.json", "rows");
    let mut failures = Vec::new();
    for row in &rows {
        let lit = row["literal"].as_str().expect("literal");
        let value = npy_core::literal::parse(lit, npy_core::literal::ParseOptions::default())
            .expect("a literal");
        let ours = DType::from_descr_value(&value);
        let string_dtype = row["canon"]
            .as_str()
            .is_some_and(|c| c.contains("StringDType"));
        let bad = match (row["ok"].as_bool().expect("ok"), &ours) {
            (true, Err(e))
                if string_dtype && matches!(e, npy_core::dtype::DescrError::StringDType { .. }) =>
            {
                None
            }
            (true, Ok(dt)) => (dt.to_string() != row["canon"].as_str().expect("canon"))
                .then(|| format!("{dt}, numpy {}", row["canon"])),
            (true, Err(e)) => Some(format!("refused ({e}), numpy {}", row["canon"])),
            (false, Ok(dt)) => Some(format!("accepted as {dt}, numpy: {}", row["error"])),
            (false, Err(_)) => None,
        };
        if let Some(b) = bad {
            failures.push(format!("{lit}: {b}"));
        }
    }
    report("descr values", rows.len(), &failures);
}
