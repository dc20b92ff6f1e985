//! Inputs that once crashed, hung or over-allocated (found by fuzzing, `tests/alloc_bound.rs`
//! and review), kept as bytes so they never come back.

use npy_core::{DynValue, Error, NpyReader};

/// `\x93NUMPY` 2.0, the header dict, then `data`.
fn npy2(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}\n");
    let mut out = b"\x93NUMPY\x02\x00".to_vec();
    out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn long_field_names_do_not_multiply_into_dynamic_values() {
    // Each record value holds its field's name: a 1 MiB name over 4,096 one-byte records
    // asked read_dyn for 4 GiB from a 1 MiB file.
    let name = "n".repeat(1 << 20);
    let bytes = npy2(&format!("[('{name}', '|u1')]"), "(4096,)", &[7; 4096]);
    let err = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap_err();
    assert!(matches!(err, Error::AllocationLimit { .. }), "{err:?}");

    // So did a shape of 100,000 ones, cloned into each subarray value.
    let dims = vec!["1"; 100_000].join(", ");
    let bytes = npy2(&format!("[('a', '|u1', ({dims},))]"), "(4096,)", &[7; 4096]);
    let err = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap_err();
    assert!(matches!(err, Error::AllocationLimit { .. }), "{err:?}");

    // Ordinary names and shapes are far inside the bound.
    let bytes = npy2("[('flag', '|b1'), ('v', '|u1', (2, 2))]", "(3,)", &[1; 15]);
    let a = NpyReader::new(&bytes[..]).unwrap().read_dyn().unwrap();
    assert_eq!(a.values[2].field("flag"), Some(&DynValue::Bool(true)));
}
