"""Writes the non-finite-value fixtures with pyarrow (the writer users have).

Run from this directory with the pinned requirements (pip install -r requirements.txt):
    python gen.py
dirty.arrow / dirty.arrows / dirty.parquet hold good records and records with NaN and ±Inf
in float and list<float> columns; dirty.jsonl holds the same records except the NaN ones
(JSON has no NaN; ±Inf is written as 1e999 / -1e999, which parses to ±Inf); clean.jsonl holds
the good records alone. Every dirty file must give the metrics of clean.jsonl exactly.
"""
import json
import math

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

WORDS = "the cat sat on a mat dog ran far away from home".split()


def good(i):
    pred = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 6 + i % 4))
    ref = " ".join(WORDS[(i * k + 1) % len(WORDS)] for k in range(1, 7))
    s = [((i * 7) % 10) / 10, ((i * 3) % 10) / 10, ((i * 5) % 10) / 10]
    return {"id": i, "pred": pred, "refs": [ref, pred], "label": i % 3, "scores": s,
            "x": i * 0.5 - 3.25, "y": (i * i) % 11 * 0.25}


records = []
bad_rows = {  # row -> change making it bad
    3: {"x": math.inf},
    5: {"y": -math.inf},
    8: {"scores": [0.1, math.inf, 0.2]},
    11: {"scores": [-math.inf, 0.3, 0.0]},
    14: {"x": math.nan},
    17: {"scores": [0.5, math.nan, 0.1]},
}
for i in range(24):
    r = good(i)
    r.update(bad_rows.get(i, {}))
    records.append(r)

schema = pa.schema([("id", pa.int64()), ("pred", pa.string()), ("refs", pa.list_(pa.string())),
                    ("label", pa.int64()), ("scores", pa.list_(pa.float64())),
                    ("x", pa.float64()), ("y", pa.float64())])
table = pa.Table.from_pylist(records, schema=schema)
feather.write_feather(table, "dirty.arrow", compression="uncompressed")
with ipc.new_stream("dirty.arrows", schema) as w:
    w.write_table(table, max_chunksize=10)
pq.write_table(table, "dirty.parquet", row_group_size=10)


def dump(r):
    def enc(v):
        if isinstance(v, float) and math.isinf(v):
            return "1e999" if v > 0 else "-1e999"
        if isinstance(v, list):
            return "[" + ", ".join(enc(x) for x in v) + "]"
        return json.dumps(v)
    return "{" + ", ".join(f"{json.dumps(k)}: {enc(v)}" for k, v in r.items()) + "}"


def has_nan(r):
    return any(isinstance(v, float) and math.isnan(v) for v in r.values()) or any(
        math.isnan(x) for x in r["scores"])


with open("dirty.jsonl", "w") as f:
    for r in records:
        if not has_nan(r):
            f.write(dump(r) + "\n")
with open("clean.jsonl", "w") as f:
    for i, r in enumerate(records):
        if i not in bad_rows:
            f.write(json.dumps(r) + "\n")
