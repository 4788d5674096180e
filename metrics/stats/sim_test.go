package stats_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/stretchr/testify/require"
)

// Simulations with a known truth (statistics.md §5). Every sample draws n records from a
// population whose metric value is known — analytically, or as the metric over a whole
// fixed pool that the records are resampled from — and gets its own bootstrap seed, so the
// samples are independent. Seeds are fixed: the figures below are deterministic, and the
// tests fail if a change to the weights, the replicate states or the interval breaks
// their calibration.

// skipUnderRace skips a simulation in a -race build, where it would take minutes: the
// simulations fold millions of replicate records in one goroutine, so the race detector
// has nothing to find in them. .ci/run runs them in a separate invocation without -race
// (see the line after the -race run).
func skipUnderRace(t *testing.T) {
	if raceDetector {
		t.Skip("simulation: run without -race (.ci/run does)")
	}
}

func intVal(i int64) core.Value        { return core.Value{Kind: core.Int, Int: i} }
func floatVal(f float64) core.Value    { return core.Value{Kind: core.Float, Float: f} }
func tokensVal(s []string) core.Value  { return core.Value{Kind: core.StringList, Strs: s} }
func refsVal(s ...[]string) core.Value { return core.Value{Kind: core.StringLists, Lists: s} }

// simCase is a population: draw gives the values (in the metric's field order) of one
// record drawn from it, truth is the metric's value on the population. For a per-class
// metric, class says which component's interval is checked.
type simCase struct {
	name  string
	entry map[string]any
	n     int
	truth float64
	class int
	// samples is the number of independent samples drawn (default 1000).
	samples int
	draw    func(rng *rand.Rand) []core.Value
}

// foldSample folds the rows into a bootstrap state of m with the given set-up, the way the
// pipeline's folder does: row i is the unit of row i (a file without a key) and the rows
// share one memo.
func foldSample(t testing.TB, m *metrics.Metric, cfg stats.Config, rows [][]core.Value) *stats.BootstrapState {
	bm, err := m.WithCI(cfg)
	require.NoError(t, err)
	s := bm.Metric.NewState().(*stats.BootstrapState)
	var memo core.Memo
	for i, vals := range rows {
		memo.Next()
		ex := core.Example{Values: vals, Seq: uint64(i), Unit: stats.UnitOfRow(int64(i)), Memo: &memo}
		require.NoError(t, bm.Check(&ex), "row %d", i)
		s.Add(&ex, 1)
	}
	return s
}

// coverage returns how many of `samples` 95% intervals contain the truth.
func coverage(t *testing.T, c simCase, samples, resamples int) int {
	m, err := metrics.New(c.entry)
	require.NoError(t, err)
	covered := 0
	rows := make([][]core.Value, c.n)
	for s := range samples {
		rng := rand.New(rand.NewSource(int64(s)*7919 + 1))
		for i := range rows {
			rows[i] = c.draw(rng)
		}
		cfg := stats.Config{Method: stats.MethodPoisson, Resamples: resamples, Level: 0.95, Seed: uint64(s) + 1}
		r := foldSample(t, m, cfg, rows).Result()
		require.NotNil(t, r.CI, "sample %d: no interval (%s)", s, r.Reason)
		require.Zero(t, r.CI.Undefined, "sample %d", s)
		var low, high float64
		switch v := r.CI.Low.(type) {
		case float64:
			low, high = v, r.CI.High.(float64)
		case []float64:
			low, high = v[c.class], r.CI.High.([]float64)[c.class]
		default:
			require.Failf(t, "interval", "sample %d: low is a %T", s, v)
		}
		require.LessOrEqual(t, low, high)
		if low <= c.truth && c.truth <= high {
			covered++
		}
	}
	return covered
}

// TestCoverageOfPoissonIntervals: 95% Poisson-bootstrap percentile intervals (B = 200)
// contain the population value in 93–97% of independent samples (1000 per metric; 400 for
// BLEU, whose replicates each cost a full segment update until bleu has a vectorised
// replicate path), for accuracy, binary and macro F1, Pearson's r and corpus BLEU. With
// these seeds: accuracy 95.2%, binary F1 93.7%, macro F1 94.0%, Pearson 95.5%, BLEU 95.2%.
func TestCoverageOfPoissonIntervals(t *testing.T) {
	skipUnderRace(t)
	const resamples = 200
	cases := []simCase{
		accuracyCase(), binaryF1Case(), macroF1Case(), pearsonCase(), bleuCase(t),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			samples := c.samples
			if samples == 0 {
				samples = 1000
			}
			k := coverage(t, c, samples, resamples)
			rate := float64(k) / float64(samples)
			t.Logf("%s: n = %d, truth %.6f: %d of %d intervals cover it (%.1f%%)", c.name, c.n, c.truth, k, samples, 100*rate)
			require.GreaterOrEqual(t, rate, 0.93, "coverage of %s", c.name)
			require.LessOrEqual(t, rate, 0.97, "coverage of %s", c.name)
		})
	}
}

// accuracyCase: a prediction is right with probability 0.8.
func accuracyCase() simCase {
	return simCase{
		name: "accuracy", entry: map[string]any{"type": "accuracy"}, n: 200, truth: 0.8,
		draw: func(rng *rand.Rand) []core.Value {
			label := int64(rng.Intn(3))
			pred := label
			if rng.Float64() >= 0.8 {
				pred = (label + 1 + int64(rng.Intn(2))) % 3
			}
			return []core.Value{intVal(pred), intVal(label)}
		},
	}
}

// drawCell draws a (prediction, label) pair from a joint distribution given as
// joint[label][prediction].
func drawCell(rng *rand.Rand, joint [][]float64) []core.Value {
	u := rng.Float64()
	for y, row := range joint {
		for p, q := range row {
			if u < q {
				return []core.Value{intVal(int64(p)), intVal(int64(y))}
			}
			u -= q
		}
	}
	last := len(joint) - 1
	return []core.Value{intVal(int64(last)), intVal(int64(last))}
}

// f1Of is the F1 of class k under the joint distribution: 2·P(k,k) / (P(pred k) + P(label k)).
func f1Of(joint [][]float64, k int) float64 {
	var predK, labelK float64
	for y := range joint {
		predK += joint[y][k]
		labelK += joint[k][y]
	}
	return 2 * joint[k][k] / (predK + labelK)
}

// binaryF1Case: TP 0.30, FN 0.15, FP 0.10, TN 0.45, so F1 = 0.6 / 0.85: the positive
// class's component of the per-class F1 (average none).
func binaryF1Case() simCase {
	joint := [][]float64{{0.45, 0.10}, {0.15, 0.30}}
	return simCase{
		name: "f1_binary", entry: map[string]any{"type": "f1", "compat": "sklearn"}, n: 300,
		truth: f1Of(joint, 1), class: 1,
		draw: func(rng *rand.Rand) []core.Value { return drawCell(rng, joint) },
	}
}

// macroF1Case: three unbalanced classes with different confusions.
func macroF1Case() simCase {
	joint := [][]float64{
		{0.40, 0.05, 0.05},
		{0.06, 0.20, 0.04},
		{0.04, 0.06, 0.10},
	}
	return simCase{
		name: "f1_macro", entry: map[string]any{"type": "f1", "compat": "sklearn", "average": "macro"}, n: 300,
		truth: (f1Of(joint, 0) + f1Of(joint, 1) + f1Of(joint, 2)) / 3,
		draw:  func(rng *rand.Rand) []core.Value { return drawCell(rng, joint) },
	}
}

// pearsonCase: a standard bivariate normal with correlation 0.6.
func pearsonCase() simCase {
	const rho = 0.6
	return simCase{
		name: "pearson", entry: map[string]any{"type": "pearson"}, n: 200, truth: rho,
		draw: func(rng *rand.Rand) []core.Value {
			x := rng.NormFloat64()
			y := rho*x + math.Sqrt(1-rho*rho)*rng.NormFloat64()
			return []core.Value{floatVal(x), floatVal(y)}
		},
	}
}

// bleuPool is a fixed pool of (hypothesis, reference) segments: references of 5–20 words
// from a Zipf-like vocabulary, hypotheses that substitute, drop and insert words. It is
// built from its own seed, independent of the samples.
func bleuPool(size int) [][2][]string {
	rng := rand.New(rand.NewSource(20261125))
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	pool := make([][2][]string, size)
	for i := range pool {
		ref := make([]string, 5+rng.Intn(16))
		for j := range ref {
			ref[j] = word()
		}
		var hyp []string
		for _, w := range ref {
			switch u := rng.Float64(); {
			case u < 0.15:
				hyp = append(hyp, word())
			case u < 0.20:
				// dropped
			case u < 0.30:
				hyp = append(hyp, w, word())
			default:
				hyp = append(hyp, w)
			}
		}
		pool[i] = [2][]string{hyp, ref}
	}
	return pool
}

// bleuCase: segments resampled from a fixed pool; the truth is the corpus BLEU of the
// whole pool (hypotheses are longer than references on average, so the brevity penalty,
// not smooth at ratio 1, stays 1). 600 segments per sample: on this pool the percentile
// interval undercovers on small samples — at 150 segments the replicates' stderr is about
// 6% below the estimate's true spread and 93.8% of 2000 intervals covered — and is
// calibrated from about 600 on. The segments are given as tokens, which sacrebleu's
// BLEU does not tokenize again: the n-gram statistics are those of text, the simulation
// is faster.
func bleuCase(t *testing.T) simCase {
	entry := map[string]any{"type": "bleu"}
	pool := bleuPool(2000)
	m, err := metrics.New(entry)
	require.NoError(t, err)
	st := m.NewState()
	for i, seg := range pool {
		ex := core.Example{Values: []core.Value{tokensVal(seg[0]), refsVal(seg[1])}, Seq: uint64(i)}
		require.NoError(t, m.Check(&ex))
		st.Add(&ex, 1)
	}
	r := st.Result()
	truth := r.Value.(float64)
	return simCase{
		name: "bleu", entry: entry, n: 600, truth: truth, samples: 400,
		draw: func(rng *rand.Rand) []core.Value {
			seg := pool[rng.Intn(len(pool))]
			return []core.Value{tokensVal(seg[0]), refsVal(seg[1])}
		},
	}
}

// pairedPValue is the delta and two-sided p-value of stats.PairedBootstrap (statistics.md
// §2) between two states scored with the same seed and units.
func pairedPValue(t testing.TB, base, cand *stats.BootstrapState) (delta, p float64) {
	r, err := stats.PairedBootstrap(base, cand)
	require.NoError(t, err)
	return r.Delta, r.P
}

// pairedRejections runs `trials` paired tests of two systems on n segments of varying
// difficulty: the baseline is right on a segment with probability q ~ U(0.3, 0.95), the
// candidate with probability q + effect, independently given q. It returns how many
// trials reject at alpha 0.05 and the mean delta.
func pairedRejections(t *testing.T, trials, n, resamples int, effect float64) (int, float64) {
	m, err := metrics.New(map[string]any{"type": "accuracy"})
	require.NoError(t, err)
	rejected := 0
	var sumDelta float64
	base, cand := make([][]core.Value, n), make([][]core.Value, n)
	correct := func(rng *rand.Rand, p float64) []core.Value {
		if rng.Float64() < p {
			return []core.Value{intVal(1), intVal(1)}
		}
		return []core.Value{intVal(0), intVal(1)}
	}
	for trial := range trials {
		rng := rand.New(rand.NewSource(int64(trial)*104729 + 3))
		for i := range n {
			q := 0.3 + 0.65*rng.Float64()
			base[i] = correct(rng, q)
			cand[i] = correct(rng, q+effect)
		}
		// Same seed and units for both systems: their replicates are paired.
		cfg := stats.Config{Method: stats.MethodPoisson, Resamples: resamples, Level: 0.95, Seed: uint64(trial) + 1}
		delta, p := pairedPValue(t, foldSample(t, m, cfg, base), foldSample(t, m, cfg, cand))
		sumDelta += delta
		if p < 0.05 {
			rejected++
		}
	}
	return rejected, sumDelta / float64(trials)
}

// TestPairedBootstrapNullRejectionRate: two systems drawn from one distribution; the
// paired bootstrap test rejects at alpha 0.05 in 3–7% of 1000 trials (4.9% with these
// seeds). The p-value is computed here from the replicates with statistics.md §2's
// formula; once the compare API exists these trials belong to it.
func TestPairedBootstrapNullRejectionRate(t *testing.T) {
	skipUnderRace(t)
	const trials, n, resamples = 1000, 200, 200
	k, meanDelta := pairedRejections(t, trials, n, resamples, 0)
	rate := float64(k) / trials
	t.Logf("null: %d of %d trials reject at alpha 0.05 (%.1f%%); mean delta %.5f", k, trials, 100*rate, meanDelta)
	require.GreaterOrEqual(t, rate, 0.03)
	require.LessOrEqual(t, rate, 0.07)
}

// TestPairedBootstrapPower: a candidate right 10 points more often per segment (accuracy
// about 0.72 against 0.625, capped at 1 on the easiest segments) on 400 segments is found
// different in more than 80% of 400 trials (88.5% with these seeds).
func TestPairedBootstrapPower(t *testing.T) {
	skipUnderRace(t)
	const trials, n, resamples = 400, 400, 200
	k, meanDelta := pairedRejections(t, trials, n, resamples, 0.10)
	rate := float64(k) / trials
	t.Logf("effect +0.10 on %d segments: %d of %d trials reject at alpha 0.05 (power %.1f%%); mean delta %.5f", n, k, trials, 100*rate, meanDelta)
	require.Greater(t, rate, 0.80)
	require.InDelta(t, 0.10, meanDelta, 0.01)
}
