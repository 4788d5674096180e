#!/usr/bin/env bash
# Regenerates cmd/evalstream/default.pgo, the CPU profile `go build` uses for profile-guided
# optimization of the evalstream binary (https://go.dev/doc/pgo): hot calls such as the
# tokenizers' inner scans and the n-gram table probes get inlined. The profile merges
# `evalstream bench` runs of every synthetic mix (and of the WMT17 file with BLEU and chrF
# when it is there), each long enough to give a few thousand samples. Regenerate it after
# changing a hot path; a stale profile costs only the gain, never correctness. With
# EVALSTREAM_KAFKA_BROKERS set, `bench --kafka` profiles of the consume path are merged in.
#   [EVALSTREAM_KAFKA_BROKERS=HOST:PORT] .ci/perf/pgo.sh [--wmt PATH]
set -euo pipefail
cd "$(dirname "$0")/../.."

wmt=../shared/data/wmt17/newstest2017-en-de.jsonl.gz
[ "${1:-}" = --wmt ] && wmt=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -pgo=off -o "$work/evalstream" ./cmd/evalstream
es=$work/evalstream
profile() { # NAME ARGS...: a bench run with a CPU profile
  local name=$1
  shift
  echo "== $name" >&2
  "$es" bench --cpuprofile "$work/$name.prof" "$@" >/dev/null
}

if [ -f "$wmt" ]; then
  profile wmt-bleu --input "$wmt" --metric bleu --repeat 30
  profile wmt-chrf --input "$wmt" --metric chrf --repeat 10
else
  profile bleu --mix bleu --records 100000 --repeat 10
  profile chrf --mix chrf --records 50000 --repeat 5
fi
profile text --mix text --records 50000 --repeat 3
profile rouge --mix rouge --records 50000 --repeat 3
profile classification --mix classification --records 2000000 --repeat 5
profile regression --mix regression --records 1000000 --repeat 5
if [ -n "${EVALSTREAM_KAFKA_BROKERS:-}" ]; then # the consume path, when a broker is given
  profile kafka-classification --kafka "$EVALSTREAM_KAFKA_BROKERS" --mix classification --records 2000000
  profile kafka-text --kafka "$EVALSTREAM_KAFKA_BROKERS" --mix text --records 50000
fi

go tool pprof -proto "$work"/*.prof >cmd/evalstream/default.pgo
echo "wrote cmd/evalstream/default.pgo ($(wc -c <cmd/evalstream/default.pgo) bytes)" >&2
