#!/usr/bin/env bash
# WER/CER speed against jiwer 4 (issue 15: >= 20x over 100k utterances). Generates 100,000
# utterance pairs (asr_corpus.py, seeded), then times jiwer.wer / jiwer.cer on the in-memory
# lists (JSON parsing not timed) against whole `evalstream score --metric wer|cer` processes on
# the same JSONL, in turns, best of N, and checks that the values are identical.
#
# Not part of .ci/run. Usage: .ci/perf/asr.sh [--runs N]
# The venv (jiwer 4.0.0 and the rapidfuzz it pins; no torch) is created once in
# .cache/perf-asr-venv (or $PERF_ASR_VENV); inputs go to .cache/perf-work.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${PERF_ASR_VENV:-.cache/perf-asr-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import jiwer' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet jiwer==4.0.0 rapidfuzz==3.14.6
fi
work=.cache/perf-work
mkdir -p "$work"
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream
[ -f "$work/asr100k.jsonl" ] || "$venv/bin/python" .ci/perf/asr_corpus.py "$work/asr100k.jsonl"
exec "$venv/bin/python" .ci/perf/asr_compare.py "$work/asr100k.jsonl" "$work/evalstream" "$@"
