"""Seeds of the `arrow` fuzz target: fixtures written by pyarrow as Arrow IPC files and
Parquet files (uncompressed, so that mutations reach the values; one file each zstd and
snappy), one column per fixture flattened, a fixed-size list column for a 2-D one, a
dictionary, a nullable, a string and a struct column; and tables holding numpy's layout in
their schema metadata (`numpy:descr`, `numpy:shape`, as npy-arrow writes it: a 0-d array, a
record of one field, a (2, 2) record array of tensor columns; issue 42, r16).

Usage: fuzz_arrow_seeds.py FIXTURES_DIR OUT_DIR
"""
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

fixtures, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
names = ["f4_le_c_2x3x4", "f8_le_c_5", "i8_le_c_5", "u1_na_c_2x3x4", "b1_na_c_5",
         "i2_le_c_0", "f2_le_c_5", "M8ns_le_c_5", "m8ms_le_c_5"]
tables = {}
for name in names:
    a = np.load(fixtures / f"{name}.npy")
    tables[name] = pa.table({"a": pa.array(a.ravel())})
grid = np.load(fixtures / "f4_le_c_2x3x4.npy").reshape(6, 4)
tables["fixed_size_list"] = pa.table(
    {"a": pa.FixedSizeListArray.from_arrays(pa.array(grid.ravel()), 4)})
tables["mixed"] = pa.table({
    "x": pa.array([1.5, None, 3.0]),
    "s": pa.array(["a", "bc", None]),
    "d": pa.array(["u", "v", "u"]).dictionary_encode(),
    "t": pa.array([{"p": 1, "q": 2.0}, {"p": 3, "q": 4.0}, None]),
    "i": pa.array([1, 2, 3], pa.int32()),
})
layout = lambda t, descr, shape: t.replace_schema_metadata(
    {"numpy:descr": descr, "numpy:shape": shape})
tables["layout_zero_d"] = layout(pa.table({"a": pa.array([2.5])}), "<f8", "[]")
tables["layout_one_field"] = layout(
    pa.table({"x": pa.array([1, 2, 3], pa.int32())}), "[('x', '<i4')]", "[3]")
tensor = pa.fixed_shape_tensor(pa.int32(), [2])
tables["layout_records_2d"] = layout(pa.table({
    "a": pa.ExtensionArray.from_storage(
        tensor, pa.FixedSizeListArray.from_arrays(pa.array([1, 2, 3, 4], pa.int32()), 2)),
    "b": pa.ExtensionArray.from_storage(
        tensor, pa.FixedSizeListArray.from_arrays(pa.array([5, 6, 7, 8], pa.int32()), 2)),
}), "[('a', '<i4'), ('b', '<i4')]", "[2, 2]")
for name, table in tables.items():
    feather.write_feather(table, out / f"{name}.arrow", compression="uncompressed")
    pq.write_table(table, out / f"{name}.parquet", compression="none")
pq.write_table(tables["mixed"], out / "mixed_zstd.parquet", compression="zstd")
pq.write_table(tables["mixed"], out / "mixed_snappy.parquet", compression="snappy")
