package sacrebleu_test

import (
	"math"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/bleu"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/metrics/stats/sacrebleu"
	"github.com/evalstream/evalstream/metrics/ter"
	"github.com/stretchr/testify/require"
)

func sacreConfig(seed uint64) stats.Config {
	return stats.Config{Method: stats.MethodSacrebleu, Resamples: 1000, Level: 0.95, Seed: seed}
}

func wrapped(t testing.TB, typ string, scale string, c stats.Config) *sacrebleu.Metric {
	t.Helper()
	ctor := map[string]func(*core.Options) (core.Metric, error){"bleu": bleu.NewBLEU, "chrf": bleu.NewCHRF, "ter": ter.New}[typ]
	o := core.NewOptions(map[string]any{"scale": scale})
	m, err := ctor(o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	w, err := sacrebleu.New(m, c)
	require.NoError(t, err)
	return w
}

// TestStateConfidence folds the WMT17 slice's systems through the wrapped metric, in shards
// merged in random orders, and requires sacrebleu's --confidence numbers (the goldens) bit
// for bit, on the metric's scale.
func TestStateConfidence(t *testing.T) {
	g := loadGolden(t)
	exs := readSlice(t, g.Corpora.WMT17.File)
	for _, c := range g.Cases {
		if c.Corpus != "wmt17" || c.Kind != "confidence" {
			continue
		}
		for _, scale := range []string{"100", "1"} {
			m := wrapped(t, c.Metric, scale, sacreConfig(c.Seed))
			div := 1.0
			if scale == "1" {
				div = 100
			}
			recs := exs[c.System]
			rng := rand.New(rand.NewSource(int64(c.Seed)))
			shards := make([]core.State, 3)
			for i := range shards {
				shards[i] = m.NewState()
			}
			for _, i := range rng.Perm(len(recs)) {
				shards[rng.Intn(3)].Add(&recs[i], 1)
			}
			st := shards[2]
			require.NoError(t, st.Merge(shards[0]))
			require.NoError(t, st.Merge(shards[1]))
			b, err := st.MarshalBinary()
			require.NoError(t, err)
			back, err := m.DecodeState(b)
			require.NoError(t, err)
			for _, s := range []core.State{st, back} {
				r := s.Result()
				require.NotNil(t, r.CI, "%s %s", c.Metric, c.System)
				require.Equal(t, *c.Mean/div, *r.CI.Mean, "%s %s mean", c.Metric, c.System)
				require.Equal(t, *c.HalfWidth/div, *r.CI.HalfWidth, "%s %s half-width", c.Metric, c.System)
				require.Equal(t, "sacrebleu", r.CI.Method)
				require.Less(t, r.CI.Low.(float64), r.CI.High.(float64))
				require.InDelta(t, *c.Score/div, r.Value.(float64), 1e-12*div)
			}
		}
	}
}

// TestStateLaws checks the merge laws, the round trip and weighted adds (goldentest), and
// that the interval, which Fingerprint does not cover, is bit-identical across splits.
func TestStateLaws(t *testing.T) {
	g := loadGolden(t)
	recs := readSlice(t, g.Corpora.WMT17.File)["LIUM-NMT"][:60]
	for _, typ := range []string{"bleu", "chrf", "ter"} {
		m := wrapped(t, typ, "1", sacreConfig(12345))
		goldentest.CheckLaws(t, m, recs)
		whole := m.NewState()
		for i := range recs {
			whole.Add(&recs[i], 1)
		}
		want := whole.Result().CI
		require.NotNil(t, want)
		a, b := m.NewState(), m.NewState()
		for i := len(recs) - 1; i >= 0; i-- {
			[]core.State{a, b}[i%2].Add(&recs[i], 1)
		}
		require.NoError(t, b.Merge(a))
		require.Equal(t, want, b.Result().CI, typ)
		require.NoError(t, b.Merge(b)) // self-merge doubles every segment
		st, _ := b.(*sacrebleu.State).Segments()
		require.Equal(t, 2*len(recs), st.Rows())
	}
}

func TestNewRejects(t *testing.T) {
	o := core.NewOptions(map[string]any{"compat": "nltk"})
	nltk, err := bleu.NewBLEU(o)
	require.NoError(t, err)
	_, err = sacrebleu.New(nltk, sacreConfig(1))
	require.ErrorContains(t, err, "compat nltk")
	o = core.NewOptions(map[string]any{"average": "macro"})
	macro, err := bleu.NewBLEU(o)
	require.NoError(t, err)
	_, err = sacrebleu.New(macro, sacreConfig(1))
	require.ErrorContains(t, err, "macro")
	o = core.NewOptions(nil)
	b, err := bleu.NewBLEU(o)
	require.NoError(t, err)
	c := sacreConfig(1)
	c.Level = 0.9
	_, err = sacrebleu.New(b, c)
	require.ErrorContains(t, err, "95%")
	c = sacreConfig(1)
	c.Resamples = 0
	_, err = sacrebleu.New(b, c)
	require.ErrorContains(t, err, "resamples")
}

func TestDecodeCorrupt(t *testing.T) {
	g := loadGolden(t)
	recs := readSlice(t, g.Corpora.WMT17.File)["C-3MA"][:5]
	m := wrapped(t, "ter", "1", sacreConfig(7))
	st := m.NewState()
	for i := range recs {
		st.Add(&recs[i], 1)
	}
	b, err := st.MarshalBinary()
	require.NoError(t, err)
	for n := 0; n < len(b); n++ {
		_, err := m.DecodeState(b[:n])
		require.Error(t, err, "%d of %d bytes", n, len(b))
	}
	// A statistic that is not a count: the last float64 of the state.
	bad := append([]byte(nil), b...)
	copy(bad[len(bad)-8:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // NaN
	_, err = m.DecodeState(bad)
	require.ErrorIs(t, err, core.ErrCorruptState)
}

func TestErrors(t *testing.T) {
	sc := scorer(t, "ter")
	one := sacrebleu.Stats{Dim: 2, Data: []float64{1, 3, 0, 2}}
	cases := []struct {
		name string
		run  func() error
		want error
	}{
		{"empty", func() error { _, err := sacrebleu.Confidence(sc, sacrebleu.Stats{Dim: 2}, 10, 1); return err }, sacrebleu.ErrEmpty},
		{"no resamples", func() error { _, err := sacrebleu.Confidence(sc, one, 0, 1); return err }, sacrebleu.ErrSamples},
		{"shape", func() error {
			_, err := sacrebleu.PairedBS(sc, one, []sacrebleu.Stats{{Dim: 2, Data: []float64{1, 2}}}, 10, 1)
			return err
		}, sacrebleu.ErrShape},
		{"bs seed 0", func() error { _, err := sacrebleu.PairedBS(sc, one, []sacrebleu.Stats{one}, 10, 0); return err }, sacrebleu.ErrSeedZero},
		{"ar seed 0", func() error { _, err := sacrebleu.PairedAR(sc, one, []sacrebleu.Stats{one}, 10, -1, 0); return err }, sacrebleu.ErrSeedZero},
		{"ar no trials", func() error { _, err := sacrebleu.PairedAR(sc, one, []sacrebleu.Stats{one}, 0, -1, 1); return err }, sacrebleu.ErrSamples},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { require.ErrorIs(t, c.run(), c.want) })
	}
	// Seed 0 is fine for one system's interval: sacrebleu seeds default_rng(0) then.
	res, err := sacrebleu.Confidence(sc, one, 10, 0)
	require.NoError(t, err)
	require.False(t, math.IsNaN(res.Mean))
}

// TestStatePairedTest compares every system of the WMT17 slice with the baseline through
// the states' own paired tests (what `evalstream compare` runs from saved states) and
// requires sacrebleu's --paired-bs and --paired-ar p-values bit for bit.
func TestStatePairedTest(t *testing.T) {
	g := loadGolden(t)
	exs := readSlice(t, g.Corpora.WMT17.File)
	n := 0
	for _, c := range g.Cases {
		test := map[string]string{"paired-bs": "bs", "paired-ar": "ar"}[c.Kind]
		if c.Corpus != "wmt17" || test == "" || (test == "ar" && c.ARConfidence != -1) {
			continue
		}
		m := wrapped(t, c.Metric, "100", sacreConfig(c.Seed))
		fold := func(system string) core.State {
			st := m.NewState()
			for i := range exs[system] {
				st.Add(&exs[system][i], 1)
			}
			return st
		}
		base := fold(c.Baseline).(stats.Pairer)
		for _, r := range c.Results[1:] {
			p, err := base.PairedTest(test, fold(r.System), c.Resamples)
			require.NoError(t, err)
			require.Equal(t, *r.PValue, p.P, "%s %s %s seed %d", c.Metric, c.Kind, r.System, c.Seed)
			require.InDelta(t, r.Score-c.Results[0].Score, p.Delta, 1e-9)
			n++
		}
	}
	require.Greater(t, n, 20)
}

// TestStateMemo checks that what a state derives for its interval and paired tests follows
// the state: adds and merges after a result change it exactly as a state folded afresh, and
// concurrent reads of results agree (run with -race).
func TestStateMemo(t *testing.T) {
	g := loadGolden(t)
	exs := readSlice(t, g.Corpora.WMT17.File)
	base, cand := exs[g.Corpora.WMT17.Systems[0]][:80], exs[g.Corpora.WMT17.Systems[1]][:80]
	for _, typ := range []string{"bleu", "chrf", "ter"} {
		m := wrapped(t, typ, "1", sacreConfig(12345))
		fold := func(recs []core.Example) core.State {
			st := m.NewState()
			for i := range recs {
				st.Add(&recs[i], 1)
			}
			return st
		}
		wantB, wantC := fold(base), fold(cand)
		wantP, err := wantB.(stats.Pairer).PairedTest("bs", wantC, 0)
		require.NoError(t, err)

		b, c := fold(base[:30]), fold(cand[:30])
		early := b.Result().CI
		_, err = b.(stats.Pairer).PairedTest("bs", c, 0)
		require.NoError(t, err)
		for i := 30; i < 50; i++ {
			b.Add(&base[i], 1)
			c.Add(&cand[i], 1)
		}
		require.NotEqual(t, early, b.Result().CI, typ)
		_, err = b.(stats.Pairer).PairedTest("bs", c, 0)
		require.NoError(t, err)
		require.NoError(t, b.Merge(fold(base[50:])))
		require.NoError(t, c.Merge(fold(cand[50:])))

		results := make(chan core.Result, 4)
		for range 4 {
			go func() { results <- b.Result() }()
		}
		for range 4 {
			require.Equal(t, wantB.Result(), <-results, typ)
		}
		require.Equal(t, wantC.Result(), c.Result(), typ)
		p, err := b.(stats.Pairer).PairedTest("bs", c, 0)
		require.NoError(t, err)
		// (DeltaLow and DeltaHigh are NaN: sacrebleu computes no delta interval.)
		require.Equal(t, []float64{wantP.Base, wantP.Cand, wantP.P}, []float64{p.Base, p.Cand, p.P}, typ)
	}
}

// A state keeps its segments' statistics in chunks and Merge takes the other state's chunks
// without copying: both states must go on adding without seeing each other's segments, and
// a record added with weight w must be w segments, across chunk boundaries.
func TestStateChunks(t *testing.T) {
	g := loadGolden(t)
	recs := readSlice(t, g.Corpora.WMT17.File)["LIUM-NMT"][:90]
	for _, typ := range []string{"bleu", "chrf"} {
		m := wrapped(t, typ, "1", sacreConfig(12345))
		fold := func(weight int64, parts ...[]core.Example) core.State {
			s := m.NewState()
			for _, p := range parts {
				for i := range p {
					s.Add(&p[i], weight)
				}
			}
			return s
		}
		segments := func(s core.State) sacrebleu.Stats {
			st, _ := s.(*sacrebleu.State).Segments()
			return st
		}
		a, b := fold(1, recs[:20]), fold(1, recs[20:30])
		require.NoError(t, a.Merge(b))
		for i := 30; i < 60; i++ {
			b.Add(&recs[i], 1)
			a.Add(&recs[i+30], 1)
		}
		require.Equal(t, segments(fold(1, recs[:30], recs[60:90])), segments(a), typ)
		require.Equal(t, segments(fold(1, recs[20:60])), segments(b), typ)
		ab, err := a.MarshalBinary()
		require.NoError(t, err)
		dec, err := m.DecodeState(ab)
		require.NoError(t, err)
		dec.Add(&recs[0], 1)
		require.Equal(t, segments(fold(1, recs[:30], recs[60:90], recs[:1])), segments(dec), typ)

		heavy := fold(5, recs[:30])
		var once []core.Example
		for i := range recs[:30] {
			for range 5 {
				once = append(once, recs[i])
			}
		}
		require.Equal(t, segments(fold(1, once)), segments(heavy), typ)
	}
}

// TestStateBytesOrderFree: a state's bytes list its segments in input order, whatever order
// the workers added and merged them in (a saved state is an output: same input, same bytes).
func TestStateBytesOrderFree(t *testing.T) {
	g := loadGolden(t)
	recs := readSlice(t, g.Corpora.WMT17.File)["LIUM-NMT"][:60]
	for _, typ := range []string{"bleu", "chrf"} {
		m := wrapped(t, typ, "1", sacreConfig(12345))
		fold := func(order []int) core.State {
			s := m.NewState()
			for _, i := range order {
				s.Add(&recs[i], 1)
			}
			return s
		}
		var inOrder, reversed []int
		for i := range recs {
			inOrder = append(inOrder, i)
			reversed = append([]int{i}, reversed...)
		}
		want, err := fold(inOrder).MarshalBinary()
		require.NoError(t, err)
		merged := fold(reversed[:25])
		require.NoError(t, merged.Merge(fold(reversed[25:])))
		for _, s := range []core.State{fold(reversed), merged} {
			got, err := s.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, want, got, typ)
		}
	}
}
