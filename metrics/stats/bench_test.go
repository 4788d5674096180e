package stats_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
)

// benchCorpus is WMT17 newstest2017 en-de (16 systems, 48,064 lines) when the shared data
// is present (EVALSTREAM_WMT17, default ../../../shared/data/wmt17/...), else 20,000
// synthetic sentence pairs.
func benchCorpus(b *testing.B) []pipeline.Record {
	path := os.Getenv("EVALSTREAM_WMT17")
	if path == "" {
		path = "../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz"
	}
	var recs []pipeline.Record
	add := func(pred string, refs []string) {
		recs = append(recs, pipeline.Record{Values: []core.Value{{Kind: core.String, Str: pred}, {Kind: core.StringList, Strs: refs}},
			Pos: pipeline.Position{Row: int64(len(recs))}, UTF8Checked: true})
	}
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var x struct {
				Prediction string   `json:"prediction"`
				References []string `json:"references"`
			}
			if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
				b.Fatal(err)
			}
			add(x.Prediction, x.References)
		}
		b.Logf("corpus: %s (%d lines)", path, len(recs))
		return recs
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the a cat dog sat on mat house was is in of to and it he she they we new old big small red blue")
	sentence := func() string {
		n := 5 + r.IntN(25)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	for range 20000 {
		add(sentence(), []string{sentence()})
	}
	b.Logf("corpus: synthetic (%d lines)", len(recs))
	return recs
}

// BenchmarkBootstrapCost measures BLEU + chrF with 1,000 Poisson resamples against the point
// estimate alone on the same records, alternating passes in one run, and reports the ratio
// of the medians (statistics.md §4: goal ≤ 3×).
func BenchmarkBootstrapCost(b *testing.B) {
	recs := benchCorpus(b)
	plan := func(ci bool) *pipeline.Plan {
		var ms []*metrics.Metric
		for _, t := range []string{"bleu", "chrf"} {
			m, err := metrics.New(map[string]any{"type": t})
			if err != nil {
				b.Fatal(err)
			}
			if ci {
				if m, err = m.WithCI(stats.Config{Method: stats.MethodPoisson, Resamples: 1000, Level: 0.95, Seed: 12345}); err != nil {
					b.Fatal(err)
				}
			}
			ms = append(ms, m)
		}
		return pipeline.NewPlan(ms, nil)
	}
	pass := func(p *pipeline.Plan) time.Duration {
		start := time.Now()
		acc, f := pipeline.NewAccumulator(p), pipeline.NewFolder(p)
		for i := range recs {
			if rej := f.Check(&recs[i]); rej != nil {
				b.Fatal(rej)
			}
			f.Add(acc, &recs[i], 1)
		}
		_ = acc.Results()
		return time.Since(start)
	}
	point, boot := plan(false), plan(true)
	var tp, tb []time.Duration
	for range b.N {
		tp = append(tp, pass(point))
		tb = append(tb, pass(boot))
	}
	slices.Sort(tp)
	slices.Sort(tb)
	mp, mb := tp[len(tp)/2], tb[len(tb)/2]
	b.ReportMetric(float64(mb)/float64(mp), "ci/point")
	b.ReportMetric(float64(mp.Milliseconds()), "point-ms")
	b.ReportMetric(float64(mb.Milliseconds()), "ci-ms")
}
