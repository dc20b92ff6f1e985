//! numpy's layout in a table's schema metadata (`numpy:descr`, `numpy:shape`) is used only
//! when it agrees with the table: metadata that lies about the rows, the columns' names,
//! kinds or tensor shapes, or that does not parse, leaves the mapping's result unchanged (the
//! crate docs' table: one Int32 column of 3 rows is a `<i4` array of shape `(3,)`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeListArray, Int32Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use npy_arrow::{convert, ConvertOptions, NUMPY_DESCR_KEY, NUMPY_SHAPE_KEY};

/// An IPC file of `columns` with `metadata` in its schema.
fn tabne(dir: &Path, columns: Vec<(Field, ArrayRef)>, metadata: &[(&str, &str)]) -> PathBuf {
    let metadata: HashMap<String, String> = metadata
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
    let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
    let path = dir.join("t.arrow");
    let file = std::fs::File::create(&path).unwrap();
    let mut w = arrow_ipc::writer::FileWriter::try_new(file, &schema).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    path
}

/// The `.npy` the table at `path` converts to: its descr, shape and data bytes.
fn back(path: &Path) -> (String, Vec<u64>, Vec<u8>) {
    let out = path.with_extension("npy");
    convert(path, &out, &ConvertOptions::new()).unwrap();
    let reader = npy_core::NpyReader::open(&out).unwrap();
    let meta = reader.meta().clone();
    let mut data = Vec::new();
    std::io::Read::read_to_end(&mut reader.into_inner(), &mut data).unwrap();
    (meta.dtype().to_string(), meta.shape().to_vec(), data)
}

fn ints(name: &str, values: &[i32]) -> (Field, ArrayRef) {
    (
        Field::new(name, DataType::Int32, false),
        Arc::new(Int32Array::from(values.to_vec())),
    )
}

fn ne(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

#[test]
fn layout_metadata_that_disagrees_with_the_table_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let too_many = format!(
        "[{}]",
        ["3"; 1]
            .iter()
            .chain(["1"; 64].iter())
            .copied()
            .collect::<Vec<_>>()
            .join(",")
    );
    for (descr, shape) in [
        // rows: 0-d claimed of 3 rows; 2 rows claimed.
        ("<i4", "[]"),
        ("<i4", "[2]"),
        // axes the column does not hold; axes no i32 list can hold.
        ("<i4", "[3, 2]"),
        ("<i4", "[3, 4294967296, 4294967296]"),
        // names and kinds the column does not have.
        ("[('y', '<i4')]", "[3]"),
        ("<f8", "[3]"),
        ("[('x', '<i4'), ('z', '<i4')]", "[3]"),
        // objects, a bare subarray, text that is no descr or shape.
        ("|O", "[3]"),
        ("('<i4', (1,))", "[3]"),
        ("[('x', '<i4'", "[3]"),
        ("", "[3]"),
        ("<i4", "[-3]"),
        ("<i4", "[3.0]"),
        ("<i4", "{\"shape\": [3]}"),
        ("<i4", "[1e400]"),
        ("<i4", too_many.as_str()),
    ] {
        let path = tabne(
            dir.path(),
            vec![ints("x", &[1, 2, 3])],
            &[(NUMPY_DESCR_KEY, descr), (NUMPY_SHAPE_KEY, shape)],
        );
        let (d, s, data) = back(&path);
        assert_eq!(
            (d.as_str(), s.as_slice()),
            ("<i4", &[3u64][..]),
            "{descr} {shape}"
        );
        assert_eq!(data, ne(&[1, 2, 3]), "{descr} {shape}");
    }
    // One key alone is no layout.
    let path = tabne(
        dir.path(),
        vec![ints("x", &[1, 2, 3])],
        &[(NUMPY_DESCR_KEY, "[('x', '<i4')]")],
    );
    assert_eq!(back(&path).0, "<i4");
}

#[test]
fn layout_metadata_that_agrees_restores_numpys_shape_and_records() {
    let dir = tempfile::tempdir().unwrap();
    // 0-d: one row.
    let path = tabne(
        dir.path(),
        vec![ints("x", &[7])],
        &[(NUMPY_DESCR_KEY, "<i4"), (NUMPY_SHAPE_KEY, "[]")],
    );
    assert_eq!(back(&path), ("<i4".into(), vec![], ne(&[7])));
    // A record of one field stays a record (numpy's descr of `[('x', '<i4')]`).
    let path = tabne(
        dir.path(),
        vec![ints("x", &[1, 2, 3])],
        &[
            (NUMPY_DESCR_KEY, "[('x', '<i4')]"),
            (NUMPY_SHAPE_KEY, "[3]"),
        ],
    );
    assert_eq!(
        back(&path),
        ("[('x', '<i4')]".into(), vec![3], ne(&[1, 2, 3]))
    );
    // A (2, 2) record array of fields a, b: each column a tensor of shape [2]; numpy holds
    // each element's a and b together: (a00, b00), (a01, b01), (a10, b10), (a11, b11).
    let tensor = |name: &str, values: &[i32]| -> (Field, ArrayRef) {
        let item = Arc::new(Field::new("item", DataType::Int32, true));
        let list = FixedSizeListArray::try_new(
            item.clone(),
            2,
            Arc::new(Int32Array::from(values.to_vec())),
            None,
        )
        .unwrap();
        let meta = HashMap::from([
            (
                "ARROW:extension:name".to_owned(),
                "arrow.fixed_shape_tensor".to_owned(),
            ),
            (
                "ARROW:extension:metadata".to_owned(),
                "{\"shape\":[2]}".to_owned(),
            ),
        ]);
        (
            Field::new(name, DataType::FixedSizeList(item, 2), false).with_metadata(meta),
            Arc::new(list),
        )
    };
    let columns = || vec![tensor("a", &[1, 2, 3, 4]), tensor("b", &[10, 20, 30, 40])];
    let path = tabne(
        dir.path(),
        columns(),
        &[
            (NUMPY_DESCR_KEY, "[('a', '<i4'), ('b', '<i4')]"),
            (NUMPY_SHAPE_KEY, "[2, 2]"),
        ],
    );
    assert_eq!(
        back(&path),
        (
            "[('a', '<i4'), ('b', '<i4')]".into(),
            vec![2, 2],
            ne(&[1, 10, 2, 20, 3, 30, 4, 40])
        )
    );
    // The same table claiming 2 rows of shape (2, 3): the tensors do not hold 3 elements, so
    // the mapping's records of subarrays, row by row.
    let path = tabne(
        dir.path(),
        columns(),
        &[
            (NUMPY_DESCR_KEY, "[('a', '<i4'), ('b', '<i4')]"),
            (NUMPY_SHAPE_KEY, "[2, 3]"),
        ],
    );
    assert_eq!(
        back(&path),
        (
            "[('a', '<i4', (2,)), ('b', '<i4', (2,))]".into(),
            vec![2],
            ne(&[1, 2, 10, 20, 3, 4, 30, 40])
        )
    );
}
