//go:build unix

package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// wmt17Corpus is the shared WMT17 en-de corpus (16 systems × 3004 segments); the compare
// benchmark skips without it.
const wmt17Corpus = "../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz"

// wmt17Text writes the corpus into dir as sacrebleu takes it: one hypothesis file per system
// (SYSTEM.txt) and the reference (newstest2017.ref.de). It returns the systems, uedin-nmt
// first, as `sacrebleu ref -i uedin-nmt.txt <the others> --paired-bs` lists them.
func wmt17Text(b *testing.B, dir string) []string {
	b.Helper()
	f, err := os.Open(wmt17Corpus)
	if err != nil {
		b.Skipf("no WMT17 data: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(b, err)
	hyps := map[string]*strings.Builder{}
	var refs []string
	first := "" // the first system's records give the reference lines
	lines := bufio.NewScanner(zr)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r struct {
			System     string   `json:"system"`
			Prediction string   `json:"prediction"`
			References []string `json:"references"`
		}
		require.NoError(b, json.Unmarshal(lines.Bytes(), &r))
		h := hyps[r.System]
		if h == nil {
			h = &strings.Builder{}
			hyps[r.System] = h
		}
		if first == "" {
			first = r.System
		}
		if r.System == first {
			refs = append(refs, r.References[0])
		}
		h.WriteString(r.Prediction + "\n")
	}
	require.NoError(b, lines.Err())
	systems := []string{"uedin-nmt"}
	for s, h := range hyps {
		require.NoError(b, os.WriteFile(filepath.Join(dir, s+".txt"), []byte(h.String()), 0o644))
		if s != systems[0] {
			systems = append(systems, s)
		}
	}
	slices.Sort(systems[1:])
	require.NoError(b, os.WriteFile(filepath.Join(dir, "newstest2017.ref.de"), []byte(strings.Join(refs, "\n")+"\n"), 0o644))
	return systems
}

// BenchmarkCompareSacrebleu is `evalstream compare` of the 16 WMT17 systems against
// uedin-nmt with BLEU and chrF in method sacrebleu — the work of `sacrebleu ref -i
// uedin-nmt.txt <15 others> -m bleu chrf --paired-bs` (and --paired-ar): reading the text
// files, segment statistics, every system's interval and the paired tests. It runs in
// process (no race-built binary); cpu-s/op is the process's CPU time per compare.
func BenchmarkCompareSacrebleu(b *testing.B) {
	dir := b.TempDir()
	systems := wmt17Text(b, dir)
	hyps := make([]string, len(systems))
	for i, s := range systems {
		hyps[i] = filepath.Join(dir, s+".txt")
	}
	cfg := filepath.Join(dir, "wmt17.yaml")
	require.NoError(b, os.WriteFile(cfg, []byte(fmt.Sprintf(
		"source: {type: text, hypotheses: [%s], references: [%s]}\nmetrics: [{type: bleu}, {type: chrf}]\nci: {method: sacrebleu}\n",
		strings.Join(hyps, ", "), filepath.Join(dir, "newstest2017.ref.de"))), 0o644))
	for _, test := range []string{"bs", "ar"} {
		b.Run(test, func(b *testing.B) {
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				err := cmdCompare(context.Background(), []string{"-c", cfg, "--baseline", systems[0], "--test", test, "--format", "json"}, io.Discard, io.Discard)
				require.NoError(b, err)
			}
			b.ReportMetric((processCPU(b)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the process's user + system CPU time: the machines that run these
// benchmarks are shared, so wall time says little, and compare folds on several workers.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
