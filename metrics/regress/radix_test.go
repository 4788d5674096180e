package regress

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The radix sorts give exactly the order of the comparison sorts they replace: keys
// ascending or descending with ties in index order, and the canonical order of records,
// on values with many ties, of every sign and magnitude, and on equal Seqs.
func TestRadixMatchesComparisonSort(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	special := []float64{0, 1, -1, math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1e-300, -1e300, 0.5, -0.5}
	value := func(kind int) float64 {
		switch kind {
		case 0: // few distinct values: long tie groups
			return float64(r.Intn(5))
		case 1:
			return special[r.Intn(len(special))]
		case 2: // integers, whose high digits are all equal
			return float64(r.Intn(1 << 20))
		default:
			return r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20))
		}
	}
	for trial := 0; trial < 300; trial++ {
		n := []int{0, 1, 2, 3, 64, 1000, 5000}[trial%7]
		kind := trial / 7 % 4
		recs := make([]obs, n)
		for i := range recs {
			// Seqs with repeats (inputs that share positions) in some trials.
			seq := uint64(r.Intn(2 * n))
			if trial%3 == 0 {
				seq = uint64(r.Intn(4))
			}
			recs[i] = obs{x: value(kind) + 0, y: value((kind+1)%4) + 0, seq: seq, w: 1 + int64(r.Intn(3))}
		}
		for _, desc := range []bool{false, true} {
			x := func(o *obs) float64 { return o.x }
			want := compareSortedKeys(recs, x, desc)
			got := sortedKeys(recs, x, desc)
			if n == 0 {
				require.Empty(t, got)
				continue
			}
			require.Equal(t, want, got, "trial %d desc %v", trial, desc)
		}
		want := slices.Clone(recs)
		slices.SortFunc(want, cmpObs)
		s := &SpearmanState{obs: slices.Clone(recs)}
		s.canon()
		if n == 0 {
			require.Empty(t, s.obs)
			continue
		}
		require.Equal(t, want, s.obs, "trial %d", trial)
	}
}

// permute moves element perm[k] to k, for random permutations (cycles of every length).
func TestPermute(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{0, 1, 2, 7, 64, 65, 1000} {
		perm := make([]uint32, n)
		for i := range perm {
			perm[i] = uint32(i)
		}
		r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		xs := make([]int, n)
		for i := range xs {
			xs[i] = 10 * i
		}
		want := make([]int, n)
		for k, p := range perm {
			want[k] = xs[p]
		}
		permute(xs, perm)
		require.Equal(t, want, xs)
	}
}
