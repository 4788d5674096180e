#!/usr/bin/env bash
# Prints the README's table of evalstream against its peers (issue 19), as Markdown, with the
# date and the machine: `evalstream bench --compare` over the peers pinned in
# peers-requirements.txt (installed once into .cache/perf-peers-venv, or $PERF_PEERS_VENV).
#
# Not part of .ci/run (minutes). Usage:
#   .ci/perf/readme_table.sh [--quick] [--only text|rouge-small|ter|classification] [bench --compare flags]
# The text tasks read WMT17 newstest2017 en-de ($WMT17, default
# /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz, decompressed once into .cache/perf-work),
# or generated summaries when it is absent; TER, which takes sacrebleu minutes over WMT17, reads
# $TER_RECORDS (default 2000) generated summaries; classification reads a generated Parquet file
# of $CLASS_RECORDS rows (default 10,000,000); the small-corpus ROUGE row reads 1,500 generated
# summaries (issue 19's small corpus). --quick: 2,000 summaries for every text task,
# 1,000,000 rows, 3 runs each. --only GROUP: the rows of one group of tasks (text: BLEU to CER; rouge-small;
# ter; classification: the Parquet rows), to re-measure them after a change without the ten
# minutes of the whole table. Other flags go to every `bench --compare` (e.g. --repeat 7).
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
only=
while [ $# -gt 0 ]; do
  case "$1" in
  --quick) quick=1; shift ;;
  --only)
    case "${2:-}" in text|rouge-small|ter|classification) only=$2 ;; *) echo "--only: text, rouge-small, ter or classification" >&2; exit 2 ;; esac
    shift 2 ;;
  *) break ;;
  esac
done
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
header=1
rows() {
  if [ "$header" = 1 ]; then compare "$@"; else compare "$@" | tail -n +5; fi
  header=0
}
if [ -z "$only" ] || [ "$only" = text ]; then rows --tasks bleu,chrf,rouge,rouge-nostem,wer,cer "${text[@]}" "$@"; fi
if [ -z "$only" ] || [ "$only" = rouge-small ]; then rows --tasks rouge --records 1500 "$@"; fi
if [ -z "$only" ] || [ "$only" = ter ]; then rows --tasks ter --records "$ter_records" "$@"; fi
if [ -z "$only" ] || [ "$only" = classification ]; then rows --tasks classification --classification-records "$class_records" "$@"; fi
