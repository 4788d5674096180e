#!/usr/bin/env bash
# Prints the README's table of evalstream against its peers (issue 19), as Markdown, with the
# date and the machine: `evalstream bench --compare` over the peers pinned in
# peers-requirements.txt (installed once into .cache/perf-peers-venv, or $PERF_PEERS_VENV).
#
# Not part of .ci/run (minutes). Usage: .ci/perf/readme_table.sh [--quick] [bench --compare flags]
# The text tasks read WMT17 newstest2017 en-de ($WMT17, default
# /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz, decompressed once into .cache/perf-work),
# or generated summaries when it is absent; TER, which takes sacrebleu minutes over WMT17, reads
# $TER_RECORDS (default 2000) generated summaries; classification reads a generated Parquet file
# of $CLASS_RECORDS rows (default 10,000,000). --quick: 2,000 summaries for every text task,
# 1,000,000 rows, 3 runs each. Other flags go to every `bench --compare` (e.g. --repeat 7).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${PERF_PEERS_VENV:-.cache/perf-peers-venv}
reqs=.ci/perf/peers-requirements.txt
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$reqs" "$venv/requirements.txt"; then
  echo "== installing the peers into $venv ($reqs)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet -r "$reqs"
  cp "$reqs" "$venv/requirements.txt"
fi
work=.cache/perf-work
mkdir -p "$work"
echo "== building evalstream (static, as the container image and the README build it)" >&2
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream

quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
class_records=${CLASS_RECORDS:-10000000}
ter_records=${TER_RECORDS:-2000}
text=()
if [ "$quick" = 1 ]; then
  class_records=1000000
  set -- --repeat 3 "$@"
else
  wmt=${WMT17:-/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz}
  if [ -f "$wmt" ]; then
    [ -s "$work/wmt17.jsonl" ] || gzip -dc "$wmt" > "$work/wmt17.jsonl"
    text=(--input "$work/wmt17.jsonl")
  fi
fi
compare() { "$work/evalstream" bench --compare --python "$venv/bin/python" --format markdown "$@"; }

# One table: the first run prints the date, the machine and the header; the others add rows.
compare --tasks bleu,chrf,rouge,rouge-nostem,wer,cer "${text[@]}" "$@"
compare --tasks ter --records "$ter_records" "$@" | tail -n +5
compare --tasks classification --classification-records "$class_records" "$@" | tail -n +5
