#!/usr/bin/env bash
# Classification over a 10M-row Parquet file against duckdb's GROUP BY ALL and polars'
# group_by (issue 19: evalstream >= 1.5x faster than duckdb, CPU and wall), and text metrics
# from Parquet against the same corpus from JSONL (<= 1.2x). See parquet_duckdb.py for what
# is timed and how.
#
# Not part of .ci/run: generating the files and the runs take minutes. Usage:
#   .ci/perf/parquet_duckdb.sh [--runs N] [--rows N] [--only int|str|text] ...
# Inputs are written once into .cache/perf-work; the venv (duckdb, pyarrow, polars pinned in
# parquet_duckdb.requirements.txt) is created once in .cache/perf-parquet-venv (or
# $PERF_PARQUET_VENV). Both are ignored by git.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${PERF_PARQUET_VENV:-.cache/perf-parquet-venv}
req=.ci/perf/parquet_duckdb.requirements.txt
have=$("$venv/bin/pip" freeze 2>/dev/null | grep -cxF -f "$req" || true)
if [ ! -x "$venv/bin/python" ] || [ "$have" != "$(grep -c . "$req")" ]; then
  echo "== creating the Python venv in $venv ($(tr '\n' ' ' < "$req"))" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$req"
fi
work=.cache/perf-work
mkdir -p "$work"
echo "== building evalstream (static, as the container image and the README build it)" >&2
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream
exec "$venv/bin/python" .ci/perf/parquet_duckdb.py --evalstream "$work/evalstream" --work "$work" "$@"
