#!/usr/bin/env bash
# Regenerates every metric golden from the real reference libraries, pinned in
# requirements.txt (sacrebleu, rouge-score, nltk, scikit-learn, scipy, pytorch-ignite + torch).
# Go tests only read the committed JSON files; they never need Python.
#
#   testdata/goldens/generate.sh            # venv in .cache/goldenvenv (or $GOLDEN_VENV)
#
# Torch comes from PyPI (the pytorch.org CPU index is not reachable from our machines), so
# the first install downloads a few GB. MindNLP and PaddleNLP need their own frameworks and
# are not installed: their goldens come from small re-implementations inside the generators,
# asserted against every seed value first.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${GOLDEN_VENV:-$root/.cache/goldenvenv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q -r "$root/testdata/goldens/requirements.txt"
cd "$root"
for gen in metrics/tokenize/testdata/gen_tables.py metrics/tokenize/testdata/gen_golden.py \
           metrics/asr/testdata/gen_tables.py \
           metrics/stats/testdata/gen_percentile.py \
           testdata/goldens/gen_bleu.py testdata/goldens/gen_rouge.py testdata/goldens/gen_text.py \
           testdata/goldens/gen_classify.py testdata/goldens/gen_regress.py \
           testdata/goldens/gen_asr.py testdata/goldens/gen_regerr.py testdata/goldens/gen_prob.py \
           testdata/goldens/gen_rank.py testdata/goldens/gen_ter.py; do
  echo "== $gen"
  "$venv/bin/python" "$gen"
done
echo "== testdata/goldens/gen_retrieval.py"
"$venv/bin/python" testdata/goldens/gen_retrieval.py
echo "== testdata/goldens/gen_report.py"
"$venv/bin/python" testdata/goldens/gen_report.py
echo "== testdata/goldens/gen_names.py"
"$venv/bin/python" testdata/goldens/gen_names.py
echo "== testdata/goldens/gen_probnames.py"
"$venv/bin/python" testdata/goldens/gen_probnames.py
# sacrebleu's --confidence/--paired-bs/--paired-ar numbers and numpy's RNG draws (metrics/stats).
echo "== testdata/goldens/gen_sacrebleu_stats.py"
"$venv/bin/python" testdata/goldens/gen_sacrebleu_stats.py
gofmt -w metrics/tokenize/tables.go 2>/dev/null || true
echo "goldens regenerated; run: go test ./metrics/..."
