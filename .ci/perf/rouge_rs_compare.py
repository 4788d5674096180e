"""Times rouge-score-rs against evalstream on one JSONL file (see rouge_rs.sh).

Usage: rouge_rs_compare.py RUNS FILE EVALSTREAM...

The peer and every evalstream binary run in turns, RUNS times each, one process at a time.
CPU is user+sys of each whole process (wait4 rusage of the child); the peer also reports the
CPU of its score_batch call alone (time.process_time, all threads). Records must have one
reference (score_batch takes one target per prediction). The peer's means are math.fsum of
its per-record scores over n; evalstream's are exact sums, so both print the correctly
rounded mean and must agree to the last digit.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

PEER = r'''
import json, math, sys, time
t0 = time.process_time()
from rouge_score_rs import rouge_scorer
preds, refs = [], []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        d = json.loads(line)
        r = d["references"]
        if not (isinstance(r, list) and len(r) == 1):
            sys.exit("every record needs exactly one reference")
        preds.append(d["prediction"]); refs.append(r[0])
types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
sc = rouge_scorer.RougeScorer(types, use_stemmer=True)
t1 = time.process_time()
out = sc.score_batch(refs, preds)
t2 = time.process_time()
n = len(out)
for t in types:
    print(t, repr(math.fsum(s[t].fmeasure for s in out) / n), repr(math.fsum(s[t].precision for s in out) / n), repr(math.fsum(s[t].recall for s in out) / n))
print(f"cpu_score {t2-t1:.6f}", file=sys.stderr)
'''

METRICS = ["rouge_n:name=rouge1,n=1,stem=true", "rouge_n:name=rouge2,n=2,stem=true",
           "rouge_l:name=rougeL,compat=rouge-score,stem=true", "rouge_lsum:name=rougeLsum,stem=true"]


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout, p.stderr


def main():
    runs, path, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    margs = [a for m in METRICS for a in ("--metric", m)]
    peer_cpu, peer_score, es_cpu = [], [], {b: [] for b in bins}
    outs = {}
    for _ in range(runs):
        c, out, err = cpu_of([sys.executable, "-c", PEER, path])
        peer_cpu.append(c)
        peer_score.append(float(err.decode().split("cpu_score ")[1]))
        outs["peer"] = out
        for b in bins:
            c, out, _ = cpu_of([b, "score", "--format", "json"] + margs + [path])
            es_cpu[b].append(c)
            outs[b] = out
    import rouge_score_rs
    med = statistics.median
    print(f"{os.path.basename(path)}: rouge-score-rs {rouge_score_rs.__version__}, {runs} runs in turns; "
          f"CPU medians: peer whole process {med(peer_cpu):.3f} s, its score_batch alone {med(peer_score):.3f} s")
    peer = {l.split()[0]: l.split()[1:] for l in outs["peer"].decode().splitlines()}
    for b in bins:
        d = json.loads(outs[b])["metrics"]
        same = all([repr(d[t]["value"]), repr(d[t]["details"]["precision"]), repr(d[t]["details"]["recall"])] == peer[t]
                   for t in peer)
        e = med(es_cpu[b])
        print(f"  {b}: CPU {e:.3f} s; peer whole / evalstream {med(peer_cpu) / e:.2f}x, "
              f"peer score_batch alone / evalstream whole {med(peer_score) / e:.2f}x; "
              f"mean P/R/F {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
