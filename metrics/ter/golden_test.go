package ter

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

const (
	goldenPath = "../../testdata/goldens/ter.json"
	wmtPath    = "../../testdata/goldens/wmt17/ter_systems.json"
	samplePath = "../../testdata/goldens/wmt17/ter_sample.jsonl.gz"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	if typ == "ter" {
		return New(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, goldenPath, ctor)
}

// TestGoldenSentenceScores checks SentenceScore against sacrebleu's TER.sentence_score of
// every golden record.
func TestGoldenSentenceScores(t *testing.T) {
	b, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			goldentest.Case
			Sentences []float64 `json:"sentence_scores"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	n := 0
	for _, c := range f.Cases {
		m, fields, err := goldentest.Build(c.Case, ctor)
		require.NoError(t, err, c.Name)
		exs := goldentest.Examples(fields, c.Records)
		require.Len(t, c.Sentences, len(exs), c.Name)
		for i := range exs {
			got, ok := m.(core.SentenceScorer).SentenceScore(&exs[i])
			require.True(t, ok, "%s record %d", c.Name, i)
			require.InDelta(t, c.Sentences[i], got, 1e-12*max(1, c.Sentences[i]), "%s record %d", c.Name, i)
			n++
		}
	}
	require.Greater(t, n, 500)
}

type wmtGolden struct {
	Systems map[string]struct {
		Records   int     `json:"records"`
		Value     float64 `json:"value"`
		Score     float64 `json:"score"`
		NumEdits  int64   `json:"num_edits"`
		RefLength float64 `json:"ref_length"`
	} `json:"systems"`
}

func loadWMTGolden(t testing.TB) wmtGolden {
	b, err := os.ReadFile(wmtPath)
	require.NoError(t, err)
	var g wmtGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.Len(t, g.Systems, 16)
	return g
}

type wmtRecord struct {
	System     string   `json:"system"`
	Prediction string   `json:"prediction"`
	References []string `json:"references"`
}

// readWMT reads WMT17 records (the format of /work/shared/data) grouped by system.
func readWMT(t testing.TB, path string) (map[string][]wmtRecord, []string) {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	dec := json.NewDecoder(zr)
	out := map[string][]wmtRecord{}
	var order []string
	for {
		var r wmtRecord
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		if _, ok := out[r.System]; !ok {
			order = append(order, r.System)
		}
		out[r.System] = append(out[r.System], r)
	}
	return out, order
}

func examplesOf(recs []wmtRecord) []core.Example {
	exs := make([]core.Example, len(recs))
	for i, r := range recs {
		exs[i] = core.Example{Seq: uint64(i), Values: []core.Value{
			{Kind: core.String, Str: r.Prediction},
			{Kind: core.StringList, Strs: r.References},
		}}
	}
	return exs
}

func checkSystems(t *testing.T, path string, want int) {
	g := loadWMTGolden(t)
	systems, order := readWMT(t, path)
	require.Len(t, order, want)
	m, err := New(core.NewOptions(map[string]any{"scale": 100}))
	require.NoError(t, err)
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			exp, ok := g.Systems[name]
			require.True(t, ok)
			exs := examplesOf(systems[name])
			require.Len(t, exs, exp.Records)
			st := m.NewState()
			for i := range exs {
				require.NoError(t, m.Check(&exs[i]))
				st.Add(&exs[i], 1)
			}
			res := st.Result()
			require.Equal(t, exp.NumEdits, res.Details["num_edits"])
			require.Equal(t, exp.RefLength, res.Details["ref_length"])
			require.Equal(t, exp.Score, res.Value)
		})
	}
}

// TestWMT17Sample scores the two committed WMT17 systems: corpus TER equal to sacrebleu's.
func TestWMT17Sample(t *testing.T) {
	checkSystems(t, samplePath, 2)
}

// TestWMT17All scores all 16 WMT17 en-de systems from the shared data when it is present
// (EVALSTREAM_WMT17 or ../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz).
func TestWMT17All(t *testing.T) {
	path := os.Getenv("EVALSTREAM_WMT17")
	if path == "" {
		path = "../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("WMT17 data not found at %s", path)
	}
	if testing.Short() {
		t.Skip("short mode")
	}
	checkSystems(t, path, 16)
}
