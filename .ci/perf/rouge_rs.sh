#!/usr/bin/env bash
# ROUGE-1/2/L/Lsum with stemming against rouge-score-rs 0.2.1 (Rust, issue 19: >= 5x). Runs
# the peer's RougeScorer.score_batch and whole `evalstream score` processes on the same JSONL
# files in turns, and prints CPU medians (user+sys of each whole process; for the peer also
# the CPU of score_batch alone) and whether the mean P/R/F agree to the last digit.
#
# Not part of .ci/run. Usage: .ci/perf/rouge_rs.sh [--runs N] [FILE.jsonl ...]
# Without files: 1,500 generated summaries (evalstream bench --mix rouge) and, when present,
# WMT17 newstest2017 en-de ($WMT17, default /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz).
# The venv is created once in .cache/perf-rouge-venv (or $PERF_ROUGE_VENV).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${PERF_ROUGE_VENV:-.cache/perf-rouge-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import rouge_score_rs' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet rouge-score-rs==0.2.1
fi
work=.cache/perf-work
mkdir -p "$work"
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream # static, as the README builds it
runs=7
if [ "${1:-}" = "--runs" ]; then runs=$2; shift 2; fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  [ -f "$work/summaries-1500.jsonl" ] || "$work/evalstream" bench --mix rouge --records 1500 --write-corpus "$work/summaries-1500.jsonl" >/dev/null
  files=("$work/summaries-1500.jsonl")
  wmt=${WMT17:-/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz}
  if [ -f "$wmt" ]; then
    [ -f "$work/wmt17.jsonl" ] || gzip -dc "$wmt" > "$work/wmt17.jsonl"
    files+=("$work/wmt17.jsonl")
  fi
fi
for f in "${files[@]}"; do
  "$venv/bin/python" .ci/perf/rouge_rs_compare.py "$runs" "$f" "$work/evalstream"
done
