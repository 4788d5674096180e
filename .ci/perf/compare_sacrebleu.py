#!/usr/bin/env python3
"""Times `evalstream compare` against `sacrebleu --paired-bs` / `--paired-ar` on the same
files and checks that both give the same p-values (issue 14: >= 50x faster, same p-values).

Called by compare_sacrebleu.sh, which builds evalstream, provides a venv with the pinned
sacrebleu and numpy, and writes the WMT17 systems as text files. Per test (bs, ar) it runs,
in turns, evalstream, sacrebleu, evalstream, ... (--runs sacrebleu runs, two evalstream runs
around each), measuring each whole process's CPU time (user + system, from wait4) and wall
time; ratios are of the medians.

sacrebleu runs as its CLI (`sacrebleu REF -i BASE SYS... -m bleu chrf --paired-bs -f text`:
its default JSON output crashes on paired results under numpy 2), in-process through
sacrebleu.sacrebleu.main with PairedTest.__call__ wrapped to keep its results, so that the
p-values compared are the exact floats the CLI prints rounded. evalstream runs
`evalstream compare -c wmt17.yaml --baseline BASE --test bs|ar --format json`.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SACREBLEU = r'''
import json, os, sys
import sacrebleu.significance as sig
from sacrebleu.sacrebleu import main
orig = sig.PairedTest.__call__
def call(self):
    sigs, scores = orig(self)
    out = {}
    for k, rows in scores.items():
        if k == "System":
            continue
        out[k] = [{"system": name, "score": float(r.score),
                   "p_value": None if r.p_value is None else float(r.p_value),
                   "mean": None if r.mean is None else float(r.mean),
                   "half_width": None if r.ci is None else float(r.ci)}
                  for name, r in zip(scores["System"], rows)]
    with open(os.environ["CMP_RESULTS"], "w") as f:
        json.dump(out, f)
    return sigs, scores
sig.PairedTest.__call__ = call
sys.argv = ["sacrebleu"] + sys.argv[1:]
sys.exit(main())
'''

METRICS = {"BLEU": "bleu", "chrF2": "chrf"}


def timed(cmd, cwd, env=None):
    """Runs cmd to completion; returns (cpu seconds, wall seconds, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            sys.exit("%s failed (%d):\n%s" % (" ".join(cmd), p.returncode, err.read().decode()))
        return ru.ru_utime + ru.ru_stime, wall, out.read().decode()


def system_name(path):
    name = path.removeprefix("Baseline: ")
    return name.removesuffix(".txt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--evalstream", required=True)
    ap.add_argument("--work", required=True, help="directory with the text files and wmt17.yaml")
    ap.add_argument("--python", required=True, help="the venv's python (sacrebleu, numpy)")
    ap.add_argument("--runs", type=int, default=3, help="sacrebleu runs per test")
    ap.add_argument("--tests", default="bs,ar")
    ap.add_argument("--baseline", default="uedin-nmt")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    a.python = os.path.abspath(a.python)
    with open(os.path.join(work, "systems.txt")) as f:
        systems = f.read().split()
    hyps = [a.baseline + ".txt"] + [s + ".txt" for s in systems if s != a.baseline]
    versions = subprocess.run([a.python, "-c", "import sacrebleu, numpy; print(sacrebleu.__version__, numpy.__version__)"],
                              capture_output=True, text=True, check=True).stdout.split()
    print("sacrebleu %s, numpy %s; %d systems, baseline %s; CPU = user + system of the whole process"
          % (versions[0], versions[1], len(hyps), a.baseline))
    ok = True
    for test in a.tests.split(","):
        flag = {"bs": "--paired-bs", "ar": "--paired-ar"}[test]
        results = os.path.join(work, "sacrebleu-%s.json" % test)
        sb_cmd = [a.python, "-c", SACREBLEU, "newstest2017.ref.de", "-i"] + hyps + ["-m", "bleu", "chrf", flag, "-f", "text"]
        es_cmd = [a.evalstream, "compare", "-c", "wmt17.yaml", "--baseline", a.baseline, "--test", test, "--format", "json"]
        env = dict(os.environ, CMP_RESULTS=results)
        env.pop("SACREBLEU_SEED", None)  # its default seed, 12345, as in wmt17.yaml
        sb, es = [], []
        es_out = None
        for r in range(a.runs):
            c, w, es_out = timed(es_cmd, work)
            es.append((c, w))
            c, w, _ = timed(sb_cmd, work, env)
            sb.append((c, w))
            c, w, es_out = timed(es_cmd, work)
            es.append((c, w))
            print("  %s run %d: sacrebleu %.2f s CPU (%.2f wall), evalstream %.3f / %.3f s CPU" %
                  (test, r + 1, sb[-1][0], sb[-1][1], es[-2][0], es[-1][0]), flush=True)
        sbc, sbw = statistics.median(x[0] for x in sb), statistics.median(x[1] for x in sb)
        esc, esw = statistics.median(x[0] for x in es), statistics.median(x[1] for x in es)
        print("%s: sacrebleu %s %.2f s CPU (wall %.2f), evalstream compare --test %s %.3f s CPU (wall %.3f): "
              "%.1fx CPU, %.1fx wall (medians of %d and %d runs)"
              % (test, flag, sbc, sbw, test, esc, esw, sbc / esc, sbw / esw, len(sb), len(es)))
        with open(results) as f:
            ref = json.load(f)
        got = json.loads(es_out)["metrics"]
        same, n, scores_differ = True, 0, []
        for key, rows in ref.items():
            mine = {row["system"]: row for row in got[METRICS[key]]}
            for row in rows:
                name = system_name(row["system"])
                m = mine[name]
                if abs(m["value"] - row["score"]) > 1e-9 * max(1.0, abs(row["score"])):
                    scores_differ.append("%s %s %r (sacrebleu %r)" % (key, name, m["value"], row["score"]))
                if row["p_value"] is None:
                    continue
                n += 1
                if m.get("p_value") != row["p_value"]:
                    print("  %s %s: p = %r, sacrebleu p = %r" % (key, name, m.get("p_value"), row["p_value"]))
                    same = False
        ps = sorted({row["p_value"] for rows in ref.values() for row in rows if row["p_value"] is not None})
        print("  %s p-values: %s (%d p-values, distinct: %s)"
              % (test, "identical to sacrebleu's" if same else "DIFFER", n, ", ".join("%.6g" % p for p in ps)))
        # A system file starting with a byte order mark (online-A in WMT17) scores
        # differently: sacrebleu keeps the mark in the first segment, evalstream's text
        # source drops it.
        print("  scores: %s" % ("identical" if not scores_differ else "differ: " + "; ".join(scores_differ)))
        ok = ok and same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
