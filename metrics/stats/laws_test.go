package stats_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"testing"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/stretchr/testify/require"
)

// lawMetric lets goldentest.CheckLaws see the replicates: its states report the interval
// and every replicate value in Details, which goldentest.Fingerprint renders bit for bit,
// and give each example the unit of its row (Seq), as the pipeline does without a key.
type lawMetric struct{ *stats.Bootstrap }

func (m lawMetric) NewState() core.State {
	return &lawState{m.Bootstrap.NewState().(*stats.BootstrapState)}
}

func (m lawMetric) DecodeState(b []byte) (core.State, error) {
	s, err := m.Bootstrap.DecodeState(b)
	if err != nil {
		return nil, err
	}
	return &lawState{s.(*stats.BootstrapState)}, nil
}

type lawState struct{ *stats.BootstrapState }

func (s *lawState) Add(ex *core.Example, w int64) {
	e := *ex
	e.Unit = stats.UnitOfRow(int64(ex.Seq))
	s.BootstrapState.Add(&e, w)
}

func (s *lawState) Merge(o core.State) error {
	if l, ok := o.(*lawState); ok {
		o = l.BootstrapState
	}
	return s.BootstrapState.Merge(o)
}

func (s *lawState) Result() core.Result {
	r := s.BootstrapState.Result()
	d := maps.Clone(r.Details)
	if d == nil {
		d = map[string]any{}
	}
	d["replicates"] = s.ReplicateValues()
	if iv := r.CI; iv != nil {
		d["ci"] = []any{iv.Low, iv.High, iv.Stderr, iv.Undefined}
	}
	r.Details = d
	return r
}

// toGo turns a golden file's JSON numbers into the Go values a YAML config gives.
func toGo(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = toGo(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			out[k] = toGo(e)
		}
		return out
	}
	return v
}

var lawConfig = stats.Config{Method: stats.MethodPoisson, Resamples: 16, Level: 0.95, Seed: 12345}

// TestBootstrapStateLaws runs the merge laws of goldentest.CheckLaws — identity,
// commutativity, associativity, split invariance under random merge orders, the
// serialization round trip, truncated states refused, weighted adds — on the bootstrap
// states of every metric type, with the replicates and the interval in the fingerprint, on
// up to three golden cases per type (the records the reference libraries scored). It also
// checks self-merge (s ⊕ s = every record with weight 2) and that every replicate equals
// the wrapped metric's state folded with that replicate's Poisson weights (the
// vectorised ReplicaAdder path included).
func TestBootstrapStateLaws(t *testing.T) {
	files, err := filepath.Glob("../../testdata/goldens/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	perType := map[string]int{}
	for _, f := range files {
		gf := goldentest.Load(t, f)
		for _, c := range gf.Cases {
			typ := fmt.Sprint(c.Metric["type"])
			if c.Reject != "" || len(c.Records) < 5 || len(c.Records) > 400 || perType[typ] >= 3 {
				continue
			}
			perType[typ]++
			t.Run(filepath.Base(f)+"/"+c.Name, func(t *testing.T) {
				entry := toGo(map[string]any(c.Metric)).(map[string]any)
				m, err := metrics.New(entry)
				require.NoError(t, err)
				bm, err := m.WithCI(lawConfig)
				require.NoError(t, err)
				b := bm.Metric.(*stats.Bootstrap)
				exs := goldentest.Examples(m.Fields, c.Records)
				for i := range exs {
					require.NoError(t, b.Check(&exs[i]), "record %d", i)
				}
				lm := lawMetric{b}
				goldentest.CheckLaws(t, lm, exs)
				checkSelfMerge(t, lm, exs)
				checkReplicatesAreWeightedFolds(t, m.Metric, b, exs)
			})
		}
	}
	for _, d := range metrics.Docs() {
		require.Positive(t, perType[d.Type], "no golden case to test the bootstrap state of %s", d.Type)
	}
	t.Logf("bootstrap merge laws checked for %d types", len(perType))
}

func checkSelfMerge(t *testing.T, m lawMetric, exs []core.Example) {
	s, twice := m.NewState(), m.NewState()
	for i := range exs {
		s.Add(&exs[i], 1)
		twice.Add(&exs[i], 2)
	}
	require.NoError(t, s.Merge(s))
	require.Equal(t, goldentest.Fingerprint(twice.Result()), goldentest.Fingerprint(s.Result()), "s ⊕ s")
}

func checkReplicatesAreWeightedFolds(t *testing.T, inner core.Metric, b *stats.Bootstrap, exs []core.Example) {
	s := b.NewState().(*stats.BootstrapState)
	weights := make([][]uint8, len(exs))
	for i := range exs {
		e := exs[i]
		e.Unit = stats.UnitOfRow(int64(i))
		s.Add(&e, 1)
		weights[i] = make([]uint8, b.Config.Resamples)
		stats.PoissonWeights(b.Config.Seed, e.Unit, weights[i])
	}
	vals := s.ReplicateValues()
	require.Len(t, vals, b.Config.Resamples)
	for r := range b.Config.Resamples {
		direct := inner.NewState()
		for i := range exs {
			if w := weights[i][r]; w > 0 {
				direct.Add(&exs[i], int64(w))
			}
		}
		want := goldentest.Fingerprint(direct.Result())
		if s.Reps != nil { // states that keep sum vectors have values only
			require.Equal(t, want, goldentest.Fingerprint(s.Reps[r].Result()), "replicate %d", r)
		}
		require.Equal(t, goldentest.Fingerprint(core.Result{Value: direct.Result().Value}), goldentest.Fingerprint(core.Result{Value: vals[r]}), "ReplicateValues()[%d]", r)
	}
	// The main state is the wrapped metric's state, untouched by the replicates.
	main := inner.NewState()
	for i := range exs {
		main.Add(&exs[i], 1)
	}
	require.Equal(t, goldentest.Fingerprint(main.Result()), goldentest.Fingerprint(s.Main.Result()))
}

// TestBootstrapRefusesOtherSetups: states of different seeds, resample counts, levels or
// keys never merge (their replicates would not pair).
func TestBootstrapRefusesOtherSetups(t *testing.T) {
	m, err := metrics.New(map[string]any{"type": "accuracy"})
	require.NoError(t, err)
	base := lawConfig
	fill := func(c stats.Config) core.State {
		bm, err := m.WithCI(c)
		require.NoError(t, err)
		s := bm.Metric.NewState()
		ex := core.Example{Values: []core.Value{{Kind: core.Int, Int: 1}, {Kind: core.Int, Int: 1}}, Unit: 7}
		s.Add(&ex, 1)
		return s
	}
	others := map[string]stats.Config{}
	c := base
	c.Seed++
	others["seed"] = c
	c = base
	c.Resamples++
	others["resamples"] = c
	c = base
	c.Level = 0.9
	others["level"] = c
	c = base
	c.Key = "doc"
	others["key"] = c
	for name, oc := range others {
		t.Run(name, func(t *testing.T) {
			require.Error(t, fill(base).Merge(fill(oc)))
			require.Error(t, fill(oc).Merge(fill(base)))
		})
	}
	require.NoError(t, fill(base).Merge(fill(base)))
	// Nor with a plain state of the wrapped metric.
	require.Error(t, fill(base).Merge(m.Metric.NewState()))
}
