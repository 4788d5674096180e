//go:build unix

package sacrebleu_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats/sacrebleu"
	"github.com/stretchr/testify/require"
)

// wmt17 is the shared WMT17 en-de corpus (16 systems × 3004 segments); benchmarks skip
// without it.
const wmt17 = "../../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz"

const benchBaseline = "uedin-nmt"

// wmtStats returns the segment statistics of every WMT17 system for the metric type,
// baseline first, as `sacrebleu -i uedin-nmt.txt <the other 15> --paired-*` orders them.
func wmtStats(b *testing.B, typ string) (core.SegmentScorer, []sacrebleu.Stats) {
	b.Helper()
	start := cpuTime(b)
	defer func() {
		b.Logf("%s statistics of 16×3004 segments (JSON decoding included): %.2fs CPU", typ, (cpuTime(b) - start).Seconds())
	}()
	f, err := os.Open(wmt17)
	if err != nil {
		b.Skipf("no WMT17 data: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(b, err)
	sc := scorer(b, typ)
	by := map[string]*sacrebleu.Stats{}
	var order []string
	lines := bufio.NewScanner(zr)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var r struct {
			System     string `json:"system"`
			Prediction string `json:"prediction"`
			References []any  `json:"references"`
		}
		require.NoError(b, json.Unmarshal(lines.Bytes(), &r))
		st := by[r.System]
		if st == nil {
			st = &sacrebleu.Stats{Dim: sc.StatsLen()}
			by[r.System] = st
			if r.System == benchBaseline {
				order = append([]string{r.System}, order...)
			} else {
				order = append(order, r.System)
			}
		}
		ex := core.Example{Values: []core.Value{core.FromJSON(r.Prediction), core.FromJSON(r.References)}}
		st.Data, err = sc.SegmentStats(&ex, st.Data)
		require.NoError(b, err)
	}
	require.NoError(b, lines.Err())
	out := make([]sacrebleu.Stats, len(order))
	for i, s := range order {
		out[i] = *by[s]
	}
	return sc, out
}

// BenchmarkPairedBS is `sacrebleu --paired-bs` (1000 resamples) of the 15 other WMT17 systems
// against uedin-nmt, from segment statistics.
func BenchmarkPairedBS(b *testing.B) {
	for _, typ := range []string{"bleu", "chrf"} {
		b.Run(typ, func(b *testing.B) {
			sc, st := wmtStats(b, typ)
			b.ReportAllocs()
			var res []sacrebleu.Result
			start := cpuTime(b)
			for b.Loop() {
				var err error
				res, err = sacrebleu.PairedBS(sc, st[0], st[1:], 1000, 12345)
				require.NoError(b, err)
			}
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
			logResults(b, res)
		})
	}
}

// BenchmarkPairedAR is `sacrebleu --paired-ar` (10,000 trials) of the same systems.
func BenchmarkPairedAR(b *testing.B) {
	for _, typ := range []string{"bleu", "chrf"} {
		b.Run(typ, func(b *testing.B) {
			sc, st := wmtStats(b, typ)
			b.ReportAllocs()
			var res []sacrebleu.Result
			start := cpuTime(b)
			for b.Loop() {
				var err error
				res, err = sacrebleu.PairedAR(sc, st[0], st[1:], 10000, -1, 12345)
				require.NoError(b, err)
			}
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
			logResults(b, res)
		})
	}
}

// logResults logs the results in sacrebleu's order, to hold against its table by eye.
func logResults(b *testing.B, res []sacrebleu.Result) {
	for i, r := range res {
		b.Logf("%2d score %.4f (μ = %.4f ± %.4f) p = %.4f", i, r.Score, r.Mean, r.HalfWidth, r.PValue)
	}
}

// cpuTime is the process's user + system CPU time. The machines that run these benchmarks
// are shared, so wall time says little; the code measured is single-threaded.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
