#!/usr/bin/env bash
# Side-by-side performance comparison of evalstream and the tools users have today (issue 6):
# sacrebleu 2.6.0 (BLEU, chrF), rouge-score 0.1.2 (ROUGE with stemming) and numpy over
# pyarrow (classification), run on the same inputs in one go. It prints wall times of whole
# processes, the ratios against the targets, the scores side by side (they must agree), the
# worker scaling and the peak memory when the corpus grows 20x.
#
# Not part of .ci/run: it takes several minutes. Usage:
#   .ci/perf/compare.sh [--wmt PATH] [--runs N] [--quick] [--keep] [--no-kafka]
# --wmt: the WMT17 newstest2017 en-de outputs (JSONL, .gz allowed; fields prediction and
#        references). Default: ../shared/data/wmt17/newstest2017-en-de.jsonl.gz when it
#        exists, else a generated translation corpus of the same size.
# --runs N: best of N runs of each reference command, and of about max(N, 10) runs of each
# evalstream command, run in turns between them so that the machine's speed drift weighs on
# both alike (default 3: 12 evalstream runs). --quick: 1 run, smaller corpora, no 20x memory runs.
# --keep: keep the large corpora generated for the memory runs.
# --no-kafka: skip the Kafka section (bounded consume+score against the raw kafka-go fetch
# rate, on a real broker: $EVALSTREAM_KAFKA_BROKERS, else one started for the run).
# Inputs and the scripts run are kept in .cache/perf-work; the Python venv is created once in
# .cache/perf-venv (or $PERF_VENV). Both are ignored by git.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=${PERF_VENV:-.cache/perf-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sacrebleu, rouge_score, nltk, numpy, pyarrow' 2>/dev/null; then
  echo "== creating the Python venv in $venv (sacrebleu, rouge-score, nltk, numpy, pyarrow)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet sacrebleu==2.6.0 rouge-score==0.1.2 nltk==3.9.1 numpy pyarrow
fi

work=.cache/perf-work
mkdir -p "$work"
echo "== building evalstream (static, as the container image and the README build it)" >&2
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream

# Kafka section (issue 6): compare.py runs `evalstream bench --kafka` against
# $EVALSTREAM_KAFKA_BROKERS. When it is unset, a broker is started with .ci/kafka/kafka-ci.sh
# (which refuses when its broker already runs: that one is then used) and stopped at the end
# if this script started it. --no-kafka skips the section.
no_kafka=0
for a in "$@"; do [ "$a" = --no-kafka ] && no_kafka=1; done
if [ "$no_kafka" = 0 ] && [ -z "${EVALSTREAM_KAFKA_BROKERS:-}" ]; then
  echo "== starting a Kafka broker (.ci/kafka/kafka-ci.sh start)" >&2
  if .ci/kafka/kafka-ci.sh start >&2; then
    trap '.ci/kafka/kafka-ci.sh stop >&2' EXIT
  fi
  export EVALSTREAM_KAFKA_BROKERS="127.0.0.1:${KAFKA_PORT:-9092}"
  "$venv/bin/python" .ci/perf/compare.py --evalstream "$work/evalstream" --work "$work" "$@"
  exit
fi

exec "$venv/bin/python" .ci/perf/compare.py --evalstream "$work/evalstream" --work "$work" "$@"
