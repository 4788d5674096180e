package sacrebleu_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/evalstream/evalstream/metrics/bleu"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats/sacrebleu"
	"github.com/evalstream/evalstream/metrics/ter"
	"github.com/stretchr/testify/require"
)

const goldenDir = "../../../testdata/goldens/"

// golden mirrors testdata/goldens/stats/sacrebleu_stats.json (gen_sacrebleu_stats.py: the real
// sacrebleu 2.6.0 with numpy 2.x).
type golden struct {
	Corpora struct {
		WMT17 struct {
			File    string   `json:"file"`
			Systems []string `json:"systems"`
		} `json:"wmt17"`
		Tiny struct {
			Refs    []string            `json:"refs"`
			Systems map[string][]string `json:"systems"`
			Order   []string            `json:"order"`
		} `json:"tiny"`
	} `json:"corpora"`
	// Stats[corpus][metric][system] are the per-segment statistics.
	Stats map[string]map[string]map[string][][]float64 `json:"stats"`
	Cases []goldenCase                                 `json:"cases"`
}

type goldenCase struct {
	Corpus       string   `json:"corpus"`
	Metric       string   `json:"metric"`
	Kind         string   `json:"kind"`
	Seed         uint64   `json:"seed"`
	Resamples    int      `json:"resamples"`
	ARConfidence int      `json:"ar_confidence"`
	System       string   `json:"system"`
	Baseline     string   `json:"baseline"`
	Score        *float64 `json:"score"`
	Mean         *float64 `json:"mean"`
	HalfWidth    *float64 `json:"half_width"`
	Error        string   `json:"error"`
	Results      []struct {
		System    string   `json:"system"`
		Score     float64  `json:"score"`
		PValue    *float64 `json:"p_value"`
		Mean      *float64 `json:"mean"`
		HalfWidth *float64 `json:"half_width"`
	} `json:"results"`
}

func loadGolden(t testing.TB) golden {
	t.Helper()
	b, err := os.ReadFile(goldenDir + "stats/sacrebleu_stats.json")
	require.NoError(t, err)
	var g golden
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Cases)
	return g
}

// scorer builds the metric type with its default (sacrebleu) options and scale 100, so that
// its numbers are sacrebleu's.
func scorer(t testing.TB, typ string) core.SegmentScorer {
	t.Helper()
	ctor := map[string]func(*core.Options) (core.Metric, error){"bleu": bleu.NewBLEU, "chrf": bleu.NewCHRF, "ter": ter.New}[typ]
	require.NotNil(t, ctor, typ)
	o := core.NewOptions(map[string]any{"scale": "100"})
	m, err := ctor(o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	ss, err := m.(core.SegmentStatser).SegmentScorer()
	require.NoError(t, err)
	return ss
}

func toStats(rows [][]float64) sacrebleu.Stats {
	s := sacrebleu.Stats{Dim: len(rows[0])}
	for _, r := range rows {
		s.Data = append(s.Data, r...)
	}
	return s
}

// eq compares a golden number exactly: float32 and float64 values survive JSON unchanged.
func eq(t *testing.T, want *float64, got float64, what string) {
	t.Helper()
	if want == nil {
		require.True(t, math.IsNaN(got), "%s: sacrebleu has none, got %v", what, got)
		return
	}
	require.Equal(t, *want, got, "%s", what)
}

func TestGoldens(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Cases {
		name := fmt.Sprintf("%s/%s/%s/seed%d/%s%s", c.Corpus, c.Metric, c.Kind, c.Seed, c.System, c.Baseline)
		if c.Kind == "paired-ar" {
			name += fmt.Sprintf("/T%d/conf%d", c.Resamples, c.ARConfidence)
		}
		t.Run(name, func(t *testing.T) {
			sc := scorer(t, c.Metric)
			stats := g.Stats[c.Corpus][c.Metric]
			switch c.Kind {
			case "confidence":
				res, err := sacrebleu.Confidence(sc, toStats(stats[c.System]), c.Resamples, c.Seed)
				if c.Error != "" {
					require.ErrorIs(t, err, sacrebleu.ErrMixed, "sacrebleu: %s", c.Error)
					return
				}
				require.NoError(t, err)
				eq(t, c.Score, res.Score, "score")
				eq(t, c.Mean, res.Mean, "mean")
				eq(t, c.HalfWidth, res.HalfWidth, "half-width")
			case "paired-bs", "paired-ar":
				base := toStats(stats[c.Results[0].System])
				var systems []sacrebleu.Stats
				for _, r := range c.Results[1:] {
					systems = append(systems, toStats(stats[r.System]))
				}
				var res []sacrebleu.Result
				var err error
				if c.Kind == "paired-bs" {
					res, err = sacrebleu.PairedBS(sc, base, systems, c.Resamples, c.Seed)
				} else {
					res, err = sacrebleu.PairedAR(sc, base, systems, c.Resamples, c.ARConfidence, c.Seed)
				}
				require.NoError(t, err)
				require.Len(t, res, len(c.Results))
				for i, w := range c.Results {
					require.Equal(t, w.Score, res[i].Score, "%s score", w.System)
					eq(t, w.PValue, res[i].PValue, w.System+" p-value")
					eq(t, w.Mean, res[i].Mean, w.System+" mean")
					eq(t, w.HalfWidth, res[i].HalfWidth, w.System+" half-width")
				}
			default:
				t.Fatalf("unknown case kind %q", c.Kind)
			}
		})
	}
}

// readSlice reads the WMT17 slice: per system, its records in file order.
func readSlice(t testing.TB, file string) map[string][]core.Example {
	t.Helper()
	f, err := os.Open(goldenDir + file)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	out := map[string][]core.Example{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			System     string   `json:"system"`
			Prediction string   `json:"prediction"`
			References []string `json:"references"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		refs := make([]any, len(r.References))
		for i, s := range r.References {
			refs[i] = s
		}
		out[r.System] = append(out[r.System], core.Example{
			Seq:    uint64(len(out[r.System])),
			Values: []core.Value{core.FromJSON(r.Prediction), core.FromJSON(refs)},
		})
	}
	require.NoError(t, sc.Err())
	return out
}

// TestSegmentStats checks every metric's SegmentStats against sacrebleu's
// _extract_corpus_statistics on both corpora.
func TestSegmentStats(t *testing.T) {
	g := loadGolden(t)
	corpora := map[string]map[string][]core.Example{"wmt17": readSlice(t, g.Corpora.WMT17.File), "tiny": {}}
	tiny := g.Corpora.Tiny
	for sys, hyps := range tiny.Systems {
		for i, h := range hyps {
			corpora["tiny"][sys] = append(corpora["tiny"][sys], core.Example{
				Seq: uint64(i), Values: []core.Value{core.FromJSON(h), core.FromJSON([]any{tiny.Refs[i]})},
			})
		}
	}
	for corpus, byMetric := range g.Stats {
		for typ, bySys := range byMetric {
			sc := scorer(t, typ)
			for sys, want := range bySys {
				exs := corpora[corpus][sys]
				require.Len(t, exs, len(want), "%s %s", corpus, sys)
				for i := range exs {
					got, err := sc.SegmentStats(&exs[i], nil)
					require.NoError(t, err)
					require.Len(t, got, sc.StatsLen())
					require.Equal(t, want[i], got, "%s %s %s segment %d", corpus, typ, sys, i)
				}
			}
		}
	}
}
