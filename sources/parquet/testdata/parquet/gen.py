"""Writes the Parquet interop fixtures: the same records with the real writers users have
(pyarrow, duckdb, polars, pinned in requirements.txt), in every compression, encoding and page
version those writers offer, and once as JSON Lines (records.jsonl), the twin every fixture
must decode to exactly (sources/parquet/parquet_interop_test.go).

    python3 -m venv /tmp/venv-pq && /tmp/venv-pq/bin/pip install -r requirements.txt
    /tmp/venv-pq/bin/python sources/parquet/testdata/parquet/gen.py

The files are committed: Go tests never need Python. Row groups of 50 rows and pages of at
most 20 rows make every file span several row groups and pages (lists across pages too).
"""

import json
import os
import random
import struct
from decimal import Decimal

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
N = 120
rnd = random.Random(13)


def f32(x):
    """x rounded to the nearest float32, as the exact double it widens to."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def maybe(v, p=0.15):
    return None if rnd.random() < p else v


def dec(digits, scale, big=False):
    """A random decimal with at most `digits` digits, `scale` of them after the point."""
    n = rnd.randrange(0, 10 ** rnd.randint(1, digits))
    if big and rnd.random() < 0.3:
        n = 10 ** (digits - 1) + rnd.randrange(0, 10 ** (digits - 1))  # all digits used
    if rnd.random() < 0.4:
        n = -n
    return Decimal(n).scaleb(-scale)


words = ["the", "cat", "sat", "on", "a", "mat", "über", "日本", "", "x" * 30]
rows = []
for i in range(N):
    rows.append({
        "id": i,
        "i32": maybe(rnd.choice([0, 1, -1, 2**31 - 1, -(2**31), rnd.randint(-1000, 1000)])),
        "i64": maybe(rnd.choice([0, -1, 2**63 - 1, -(2**63), rnd.randint(-10**15, 10**15)])),
        "f32": maybe(f32(rnd.choice([0.0, -0.0, 0.1, -2.5, 1e30, -1e-30, rnd.uniform(-100, 100)]))),
        "f64": maybe(rnd.choice([0.0, 0.1, -2.5, 1e300, 5e-324, 3.0, rnd.uniform(-1e6, 1e6)])),
        "b": maybe(rnd.random() < 0.5),
        "s": maybe(rnd.choice(words[:4]) if rnd.random() < 0.7 else " ".join(rnd.choices(words, k=rnd.randint(0, 6)))),
        "toks": maybe(rnd.choices(words, k=rnd.randint(0, 5))),
        "scores": maybe([rnd.choice([0.25, 0.5, 1.0, rnd.random()]) for _ in range(rnd.randint(0, 4))]),
        "label": rnd.randint(0, 3),
        # Decimals of every physical type: INT32 (precision <= 9), INT64 (<= 18),
        # FIXED_LEN_BYTE_ARRAY (any precision), negative values, scale 0.
        "d9_2": maybe(dec(9, 2, True)),
        "d18_4": maybe(dec(18, 4, True)),
        "d5_0": maybe(dec(5, 0, True)),
        "d38_10": maybe(dec(38, 10, True)),
        "d38_0": maybe(dec(38, 0, True)),
        "d2_1": maybe(Decimal(rnd.choice(["0.5", "-0.5", "0.1", "9.9", "-9.9", "0.0", "1.0"]))),
    })

schema = pa.schema([
    ("id", pa.int64()), ("i32", pa.int32()), ("i64", pa.int64()), ("f32", pa.float32()),
    ("f64", pa.float64()), ("b", pa.bool_()), ("s", pa.string()), ("toks", pa.list_(pa.string())),
    ("scores", pa.list_(pa.float64())), ("label", pa.int64()),
    ("d9_2", pa.decimal128(9, 2)), ("d18_4", pa.decimal128(18, 4)), ("d5_0", pa.decimal128(5, 0)),
    ("d38_10", pa.decimal128(38, 10)), ("d38_0", pa.decimal128(38, 0)), ("d2_1", pa.decimal128(2, 1)),
])
# decimal256 beyond decimal128's 38 digits: pyarrow only (duckdb and polars stop at 38).
wide = [maybe(dec(76, 20, True)) for _ in range(N)]
table = pa.Table.from_pylist(rows, schema=schema)
wide_table = table.append_column(pa.field("d76_20", pa.decimal256(76, 20)), pa.array(wide, pa.decimal256(76, 20)))


def jsonl_value(v):
    if isinstance(v, Decimal):
        return format(v, "f")  # the decimal literal itself: JSON reads it as the same number
    return json.dumps(v, ensure_ascii=False)


with open(os.path.join(HERE, "records.jsonl"), "w", encoding="utf-8") as f:
    for r, w in zip(rows, wide):
        r = dict(r, d76_20=w)
        f.write("{" + ",".join(f"{json.dumps(k)}:{jsonl_value(v)}" for k, v in r.items()) + "}\n")

small = dict(row_group_size=50, max_rows_per_page=20, write_batch_size=10, write_statistics=False)
ints = ["id", "i32", "i64", "label"]
floats = ["f32", "f64"]
decs_int = ["d9_2", "d18_4", "d5_0"]  # INT32/INT64 with store_decimal_as_integer
decs_flba = ["d38_10", "d38_0", "d2_1", "d76_20"]


def pyarrow_file(name, tbl=wide_table, **kw):
    pq.write_table(tbl, os.path.join(HERE, name), **{**small, **kw})


# Compression: LZ4_RAW (pyarrow's "lz4"), and the others for completeness.
pyarrow_file("pa_lz4.parquet", compression="lz4")
pyarrow_file("pa_lz4_v2.parquet", compression="lz4", data_page_version="2.0")
pyarrow_file("pa_zstd_v2_dict.parquet", compression="zstd", data_page_version="2.0")
pyarrow_file("pa_gzip_plain.parquet", compression="gzip", use_dictionary=False)
pyarrow_file("pa_brotli.parquet", compression="brotli")
pyarrow_file("pa_none_v1_plaindict.parquet", compression="none", version="1.0")  # PLAIN_DICTIONARY
# BYTE_STREAM_SPLIT for every physical type it allows: FLOAT, DOUBLE, INT32, INT64, FLBA.
bss = {c: "BYTE_STREAM_SPLIT" for c in ints + floats + decs_int + decs_flba}
pyarrow_file("pa_bss_v1.parquet", use_dictionary=False, column_encoding=bss, store_decimal_as_integer=True)
pyarrow_file("pa_bss_v2_lz4.parquet", use_dictionary=False, column_encoding=bss, store_decimal_as_integer=True,
             data_page_version="2.0", compression="lz4")
pyarrow_file("pa_bss_flag.parquet", use_byte_stream_split=["f32", "f64"])  # the documented switch
# The DELTA encodings and RLE booleans.
delta = {**{c: "DELTA_BINARY_PACKED" for c in ints + decs_int}, "s": "DELTA_LENGTH_BYTE_ARRAY",
         "toks.list.element": "DELTA_BYTE_ARRAY", "d38_10": "DELTA_BYTE_ARRAY", "d38_0": "DELTA_BYTE_ARRAY",
         "b": "RLE"}
pyarrow_file("pa_delta_v1.parquet", use_dictionary=False, column_encoding=delta, store_decimal_as_integer=True)
pyarrow_file("pa_delta_v2_snappy.parquet", use_dictionary=False, column_encoding=delta, store_decimal_as_integer=True,
             data_page_version="2.0", compression="snappy")

# duckdb: its default writer, LZ4, and PARQUET_VERSION V2 (BYTE_STREAM_SPLIT floats, DELTA
# integers and strings, data pages v2).
con = duckdb.connect()
con.execute("SET threads TO 1")  # keeps the row order
con.register("t", table)
for name, opts in [("duck_default.parquet", ""), ("duck_lz4.parquet", ", COMPRESSION lz4"),
                   ("duck_v2.parquet", ", PARQUET_VERSION V2"),
                   ("duck_v2_zstd.parquet", ", PARQUET_VERSION V2, COMPRESSION zstd")]:
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{os.path.join(HERE, name)}' (FORMAT parquet, ROW_GROUP_SIZE 50{opts})")
# duckdb's default type for a literal such as 0.5 is DECIMAL: what a user's SQL export writes.
con.execute(f"COPY (SELECT id, CASE WHEN id % 3 = 0 THEN 0.5 WHEN id % 3 = 1 THEN -12.25 ELSE 3 END AS lit "
            f"FROM range({N}) r(id) ORDER BY id) TO '{os.path.join(HERE, 'duck_literals.parquet')}' (FORMAT parquet)")
with open(os.path.join(HERE, "duck_literals.jsonl"), "w") as f:
    for i in range(N):
        f.write(json.dumps({"id": i, "lit": [0.5, -12.25, 3.0][i % 3]}).replace("3.0}", "3.00}") + "\n")

# polars: LZ4 (LZ4_RAW), its default (zstd) and data pages v2 where it offers them.
df = pl.from_arrow(table)
df.write_parquet(os.path.join(HERE, "pl_lz4.parquet"), compression="lz4", row_group_size=50, data_page_size=512)
df.write_parquet(os.path.join(HERE, "pl_default.parquet"), row_group_size=50)
print("wrote", sorted(f for f in os.listdir(HERE) if f.endswith((".parquet", ".jsonl"))))
