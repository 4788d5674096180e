"""Times jiwer 4 against evalstream on one JSONL corpus (see asr.sh). Prints wall and CPU
times (best of N, run in turns) and their ratios; the machine may be shared, so the CPU
ratio is the steadier one."""
import argparse
import json
import resource
import subprocess
import time

import jiwer

ap = argparse.ArgumentParser()
ap.add_argument("path")
ap.add_argument("evalstream")
ap.add_argument("--runs", type=int, default=3)
a = ap.parse_args()
refs, hyps = [], []
with open(a.path) as f:
    for line in f:
        d = json.loads(line)
        refs.append(d["references"])
        hyps.append(d["prediction"])


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


print(f"{len(refs)} utterances, {sum(len(r.split()) for r in refs)} reference words")
for metric, fn in [("wer", jiwer.wer), ("cer", jiwer.cer)]:
    py_wall = py_cpu = go_wall = go_cpu = float("inf")
    for _ in range(a.runs):
        t, c = time.perf_counter(), time.process_time()
        want = fn(refs, hyps)
        py_wall, py_cpu = min(py_wall, time.perf_counter() - t), min(py_cpu, time.process_time() - c)
        t, c = time.perf_counter(), children_cpu()
        out = subprocess.run([a.evalstream, "score", "--format", "json", "--metric", metric, a.path],
                             capture_output=True, check=True).stdout
        go_wall, go_cpu = min(go_wall, time.perf_counter() - t), min(go_cpu, children_cpu() - c)
        got = json.loads(out)["metrics"][metric]["value"]
        assert got == want, (metric, got, want)
    print(f"{metric}: jiwer {py_wall:.3f} s wall, {py_cpu:.3f} s cpu | evalstream {go_wall:.3f} s wall, "
          f"{go_cpu:.3f} s cpu | ratio {py_wall / go_wall:.1f}x wall, {py_cpu / go_cpu:.1f}x cpu | value {want!r} (identical)")
