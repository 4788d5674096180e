package stats

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// percentileFile is testdata/percentile.json, written by testdata/gen_percentile.py with numpy.
type percentileFile struct {
	Versions map[string]string `json:"versions"`
	Cases    []struct {
		Name       string    `json:"name"`
		Values     []float64 `json:"values"`
		Q          []float64 `json:"q"`
		Percentile []float64 `json:"percentile"`
		Spread     []struct {
			Level  float64  `json:"level"`
			Low    float64  `json:"low"`
			High   float64  `json:"high"`
			Stderr *float64 `json:"stderr"`
		} `json:"spread"`
	} `json:"cases"`
}

func loadPercentiles(t *testing.T) percentileFile {
	b, err := os.ReadFile("testdata/percentile.json")
	require.NoError(t, err)
	var f percentileFile
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Cases)
	return f
}

// requireBits compares floats bit for bit (so -0 and 0 differ), printing both in full.
func requireBits(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	require.Equal(t, math.Float64bits(want), math.Float64bits(got), append([]any{msg + ": want %.17g got %.17g"}, append(args, want, got)...)...)
}

// TestPercentileMatchesNumpy: Percentile(sorted, q/100) is np.percentile(x, q) to the bit
// (numpy divides q by 100 the same way).
func TestPercentileMatchesNumpy(t *testing.T) {
	f := loadPercentiles(t)
	t.Logf("goldens from numpy %s", f.Versions["numpy"])
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			sorted := slices.Clone(c.Values)
			slices.Sort(sorted)
			require.Len(t, c.Percentile, len(c.Q))
			for i, q := range c.Q {
				requireBits(t, c.Percentile[i], Percentile(sorted, q/100), "q=%v", q)
			}
		})
	}
}

// TestSpreadMatchesNumpy: Spread(x, level) is np.percentile(x, [low, high]) with the
// percentages of the level as written (0.95 → 2.5, 97.5) to the bit, and np.std(x, ddof=1)
// up to summation order.
func TestSpreadMatchesNumpy(t *testing.T) {
	f := loadPercentiles(t)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, s := range c.Spread {
				vals := slices.Clone(c.Values)
				low, high, se := Spread(vals, s.Level)
				requireBits(t, s.Low, low, "level %v low", s.Level)
				requireBits(t, s.High, high, "level %v high", s.Level)
				require.True(t, slices.IsSorted(vals), "Spread sorts its argument in place")
				if s.Stderr == nil {
					continue
				}
				if *s.Stderr == 0 {
					// numpy's pairwise mean of 500×0.1 is exact; the plain sum is not.
					require.InDelta(t, 0, se, 1e-15)
					continue
				}
				require.InEpsilon(t, *s.Stderr, se, 1e-12, "level %v stderr", s.Level)
			}
		})
	}
}

func TestSpreadEdges(t *testing.T) {
	tests := []struct {
		name            string
		values          []float64
		level           float64
		low, high       float64
		stderr          float64 // NaN: undefined
		stderrUndefined bool
	}{
		{name: "one value", values: []float64{0.3}, level: 0.95, low: 0.3, high: 0.3, stderrUndefined: true},
		{name: "two values", values: []float64{1, 0}, level: 0.5, low: 0.25, high: 0.75, stderr: math.Sqrt(0.5)},
		{name: "constant", values: []float64{2, 2, 2, 2}, level: 0.95, low: 2, high: 2, stderr: 0},
		// q·(n−1) = 0.025·40 = 1: exactly the second order statistic.
		{name: "41 values", values: seq(41), level: 0.95, low: 1, high: 39, stderr: math.Sqrt(41 * 42 / 12.0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			low, high, se := Spread(slices.Clone(tt.values), tt.level)
			require.Equal(t, tt.low, low)
			require.Equal(t, tt.high, high)
			if tt.stderrUndefined {
				require.True(t, math.IsNaN(se), "stderr of one value: got %v", se)
			} else {
				require.InDelta(t, tt.stderr, se, 1e-12)
			}
		})
	}
	low, high, se := Spread(nil, 0.95)
	require.True(t, math.IsNaN(low) && math.IsNaN(high) && math.IsNaN(se), "no values: NaN interval")
	require.True(t, math.IsNaN(Percentile(nil, 0.5)))
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(n - 1 - i)
	}
	return out
}
