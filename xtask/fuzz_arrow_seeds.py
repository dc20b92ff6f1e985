"""Seeds of the `arrow` fuzz target: fixtures written by pyarrow as Arrow IPC files and
Parquet files (uncompressed, so that mutations reach the values; one file each zstd and
snappy), one column per fixture flattened, a fixed-size list column for a 2-D one, a
dictionary, a nullable, a string and a struct column.

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
for name, table in tables.items():
    feather.write_feather(table, out / f"{name}.arrow", compression="uncompressed")
    pq.write_table(table, out / f"{name}.parquet", compression="none")
pq.write_table(tables["mixed"], out / "mixed_zstd.parquet", compression="zstd")
pq.write_table(tables["mixed"], out / "mixed_snappy.parquet", compression="snappy")
