#!/usr/bin/env bash
# `evalstream compare` against `sacrebleu --paired-bs` and `--paired-ar` (issue 14's goal:
# >= 50x faster, the same p-values): the 16 WMT17 en-de systems and their reference as text
# files, BLEU + chrF, sacrebleu's seed 12345, evalstream with `ci: {method: sacrebleu}`. It
# prints CPU and wall medians of the two tools run in turns, their ratios, and whether every
# p-value is the same float (see compare_sacrebleu.py). Not part of .ci/run: with the default
# 3 runs it takes about 6 minutes, almost all of it sacrebleu's.
#
# Usage: .ci/perf/compare_sacrebleu.sh [--wmt PATH] [--runs N] [--tests bs,ar] [--baseline NAME]
# --wmt: the WMT17 newstest2017 en-de outputs as JSON Lines (.gz allowed; fields system,
# prediction, references; each system's records in segment order). Default:
# ../shared/data/wmt17/newstest2017-en-de.jsonl.gz.
# The venv (sacrebleu and numpy pinned in compare_sacrebleu.requirements.txt) is created once
# in .cache/cmp-venv (or $PERF_VENV); the inputs and the binary go to .cache/cmp-work. Both are
# ignored by git.
set -euo pipefail
cd "$(dirname "$0")/../.."

wmt=../shared/data/wmt17/newstest2017-en-de.jsonl.gz
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --wmt) wmt=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -f "$wmt" ] || { echo "no WMT17 corpus at $wmt (use --wmt PATH)" >&2; exit 2; }

venv=${PERF_VENV:-.cache/cmp-venv}
reqs=.ci/perf/compare_sacrebleu.requirements.txt
if [ ! -x "$venv/bin/python" ]; then
  echo "== creating the Python venv in $venv" >&2
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r "$reqs" # the pins; nothing is fetched when they are met

work=.cache/cmp-work
mkdir -p "$work"
echo "== building evalstream (static, as the README builds it)" >&2
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream

echo "== writing the systems and the reference as text files" >&2
"$venv/bin/python" - "$wmt" "$work" <<'EOF'
import gzip, json, sys
path, work = sys.argv[1], sys.argv[2]
opener = gzip.open if path.endswith(".gz") else open
hyps, refs = {}, []
with opener(path, "rt", encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        h = hyps.setdefault(r["system"], [])
        if len(hyps) == 1:
            assert len(r["references"]) == 1, "one reference per segment"
            refs.append(r["references"][0])
        h.append(r["prediction"])
for name, lines in hyps.items():
    assert len(lines) == len(refs), "%s has %d segments, the first system %d" % (name, len(lines), len(refs))
    assert not any("\n" in x or "\r" in x for x in lines)
    with open("%s/%s.txt" % (work, name), "w", encoding="utf-8") as f:
        f.write("".join(x + "\n" for x in lines))
with open(work + "/newstest2017.ref.de", "w", encoding="utf-8") as f:
    f.write("".join(x + "\n" for x in refs))
names = sorted(hyps)
with open(work + "/systems.txt", "w") as f:
    f.write("\n".join(names) + "\n")
# Every system's hypotheses, so that `compare -c` sees what sacrebleu -i gets; the order does
# not matter to compare (the baseline is named on the command line).
with open(work + "/wmt17.yaml", "w") as f:
    f.write("source: {type: text, hypotheses: [%s], references: [newstest2017.ref.de]}\n"
            % ", ".join(n + ".txt" for n in names))
    f.write("metrics: [{type: bleu, scale: 100}, {type: chrf, scale: 100}]\n")
    f.write("ci: {method: sacrebleu, seed: 12345}\n")
EOF

exec "$venv/bin/python" .ci/perf/compare_sacrebleu.py --evalstream "$PWD/$work/evalstream" --work "$work" \
  --python "$venv/bin/python" "${args[@]}"
