#!/usr/bin/env bash
# TER speed against sacrebleu (issue 15): `sacrebleu -m ter` on the 16 WMT17 en-de systems
# (48,064 lines; plain text files, as the CLI reads them) and `evalstream score --metric ter`
# on the same records as JSONL, one after the other in one run, with the scores side by side
# (they must be equal per system). Prints wall and CPU seconds of each whole process.
# Not part of .ci/run: sacrebleu needs minutes. Usage:
#   .ci/perf/ter.sh [WMT17.jsonl.gz]   (default ../shared/data/wmt17/newstest2017-en-de.jsonl.gz)
# Needs sacrebleu 2.6.0: $PERF_VENV (default .cache/perf-venv, created when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
wmt=${1:-../shared/data/wmt17/newstest2017-en-de.jsonl.gz}
venv=${PERF_VENV:-.cache/perf-venv}
if [ ! -x "$venv/bin/sacrebleu" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet sacrebleu==2.6.0
fi
venv=$(cd "$venv" && pwd)
work=.cache/perf-ter
mkdir -p "$work"
CGO_ENABLED=0 go build -trimpath -o "$work/evalstream" ./cmd/evalstream
zcat -f "$wmt" > "$work/wmt17.jsonl"
"$venv/bin/python" - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
systems, refs = {}, None
with open(os.path.join(work, "wmt17.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        systems.setdefault(r["system"], []).append(r)
first = next(iter(systems.values()))
for recs in systems.values():
    assert [r["references"] for r in recs] == [r["references"] for r in first]
assert all(len(r["references"]) == 1 for r in first)
for s in [r["references"][0] for r in first] + [r["prediction"] for rs in systems.values() for r in rs]:
    assert not any(c in s for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), "a line break inside a segment"
with open(os.path.join(work, "ref.txt"), "w", encoding="utf-8") as f:
    f.writelines(r["references"][0] + "\n" for r in first)
for name, recs in systems.items():
    with open(os.path.join(work, "sys." + name), "w", encoding="utf-8") as f:
        f.writelines(r["prediction"] + "\n" for r in recs)
PY
lines=$(wc -l < "$work/wmt17.jsonl")
cd "$work"
TIMEFORMAT='%R %U %S'
echo "== sacrebleu -m ter ($lines lines)" >&2
{ time "$venv/bin/sacrebleu" ref.txt -i sys.* -m ter -b -w 10 > sacrebleu.out 2> sacrebleu.err; } 2> sacrebleu.time
echo "== evalstream score --metric ter ($lines lines)" >&2
{ time ./evalstream score --metric ter:scale=100 --slice-by system --format json wmt17.jsonl > evalstream.out 2> evalstream.err; } 2> evalstream.time
python3 - <<'PY'
import json
sb = {r["system"][len("sys."):]: float(r["TER"]) for r in json.load(open("sacrebleu.out"))}
ev = json.load(open("evalstream.out"))
ours = {k[len("system="):]: v["metrics"]["ter"]["value"] for k, v in ev["slices"].items()}
bad = 0
for name, v in sorted(sb.items()):
    o = ours.get(name)
    same = o is not None and round(o, 10) == v
    bad += not same
    print(f"{name:22s} sacrebleu {v:.10f}  evalstream {o if o is None else format(o, '.10f')}  {'same' if same else 'DIFFERENT'}")
t = [float(x) for x in open("sacrebleu.time").read().split()]
e = [float(x) for x in open("evalstream.time").read().split()]
print(f"sacrebleu:  wall {t[0]:.2f} s, cpu {t[1] + t[2]:.2f} s")
print(f"evalstream: wall {e[0]:.2f} s, cpu {e[1] + e[2]:.2f} s")
print(f"ratio: wall {t[0] / e[0]:.0f}x, cpu {(t[1] + t[2]) / (e[1] + e[2]):.0f}x (target: 100x wall); systems differing: {bad}")
PY
