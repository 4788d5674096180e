package classify

import (
	"fmt"
	"math/big"
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// naiveKappa is sklearn's cohen_kappa_score written out over all class pairs, in exact
// rationals: the O(K) expected sums of State.kappa must equal it bit for bit.
func naiveKappa(preds, labels []int64, weights string) (float64, bool) {
	seen := map[int64]bool{}
	for i := range preds {
		seen[preds[i]], seen[labels[i]] = true, true
	}
	var classes []int64
	for k := range seen {
		classes = append(classes, k)
	}
	sort.Slice(classes, func(i, j int) bool { return classes[i] < classes[j] })
	pos := map[int64]int64{}
	for i, k := range classes {
		pos[k] = int64(i)
	}
	w := func(i, j int64) int64 {
		switch weights {
		case "linear":
			return max(i-j, j-i)
		case "quadratic":
			return (i - j) * (i - j)
		}
		return b2i(i != j)
	}
	rows, cols := map[int64]int64{}, map[int64]int64{}
	var obs int64
	for i := range preds {
		rows[labels[i]]++
		cols[preds[i]]++
		obs += w(pos[labels[i]], pos[preds[i]])
	}
	exp := new(big.Int)
	for _, a := range classes {
		for _, b := range classes {
			exp.Add(exp, big.NewInt(w(pos[a], pos[b])*rows[a]*cols[b]))
		}
	}
	if exp.Sign() == 0 {
		return 0, false
	}
	k := new(big.Rat).SetFrac(big.NewInt(obs*int64(len(preds))), exp)
	f, _ := k.Float64()
	return 1 - f, true
}

func TestKappaMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	for trial := 0; trial < 90; trial++ {
		weights := []string{"none", "linear", "quadratic"}[trial%3]
		// Up to 600 distinct ids (the matrix goes sparse past 256), drawn from a wide range so
		// positions differ from ids.
		nIDs := []int{1, 2, 3, 7, 40, 600}[trial/3%6]
		ids := make([]int64, nIDs)
		for i := range ids {
			ids[i] = rng.Int63n(5000)
		}
		n := 1 + rng.Intn(800)
		preds, labels := make([]int64, n), make([]int64, n)
		for i := range preds {
			labels[i] = ids[rng.Intn(nIDs)]
			preds[i] = labels[i]
			if rng.Intn(2) == 0 {
				preds[i] = ids[rng.Intn(nIDs)]
			}
		}
		m := build(t, "cohen_kappa", map[string]any{"weights": weights})
		s := m.NewState()
		for i := range preds {
			s.Add(ex(preds[i], labels[i]), 1)
		}
		res := s.Result()
		want, ok := naiveKappa(preds, labels, weights)
		name := fmt.Sprintf("trial %d weights %s ids %d n %d", trial, weights, nIDs, n)
		if !ok {
			require.Nil(t, res.Value, name)
			require.Equal(t, "only one class", res.Reason, name)
			continue
		}
		require.Equal(t, want, res.Value, name)
	}
}

func TestKappaAndBalancedEdges(t *testing.T) {
	cases := []struct {
		name          string
		typ           string
		opts          map[string]any
		preds, labels []any
		want          any
		reason        string
	}{
		{"kappa no records", "cohen_kappa", nil, nil, nil, nil, "no records"},
		{"kappa one class", "cohen_kappa", map[string]any{"weights": "quadratic"}, ints(4, 4), ints(4, 4), nil, "only one class"},
		// sklearn: cohen_kappa_score([0, 2, 5, 5], [2, 2, 5, 0], weights="linear") = 0.1428571428571429
		{"kappa linear positions", "cohen_kappa", map[string]any{"weights": "linear"}, ints(2, 2, 5, 0), ints(0, 2, 5, 5), 0.1428571428571429, ""},
		{"kappa symmetric", "cohen_kappa", map[string]any{"weights": "linear"}, ints(0, 2, 5, 5), ints(2, 2, 5, 0), 0.1428571428571429, ""},
		{"balanced no records", "balanced_accuracy", nil, nil, nil, nil, "no records"},
		{"balanced single true class", "balanced_accuracy", nil, ints(0, 0, 1), ints(0, 0, 0), 2.0 / 3, ""},
		{"balanced adjusted single true class", "balanced_accuracy", map[string]any{"adjusted": true}, ints(0, 0, 1), ints(0, 0, 0), nil, "adjusted with a single true class"},
		// classes 7 and 9 only predicted: left out of the mean, as sklearn does
		{"balanced only predicted", "balanced_accuracy", nil, ints(7, 9, 1, 1), ints(0, 0, 1, 1), 0.5, ""},
		{"balanced adjusted", "balanced_accuracy", map[string]any{"adjusted": "true"}, ints(0, 1, 0, 0, 0, 1), ints(0, 1, 0, 0, 1, 0), 0.25, ""},
		{"balanced booleans", "balanced_accuracy", nil, []any{true, true}, []any{true, false}, 0.5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, build(t, c.typ, c.opts), c.preds, c.labels)
			require.Equal(t, c.want, res.Value)
			require.Equal(t, c.reason, res.Reason)
		})
	}
}

func TestKappaBalancedOptions(t *testing.T) {
	for _, c := range []struct {
		typ     string
		opts    map[string]any
		problem string
	}{
		{"cohen_kappa", map[string]any{"weights": "cubic"}, "weights: must be one of none|linear|quadratic"},
		{"cohen_kappa", map[string]any{"compat": "mindnlp"}, "compat: must be one of sklearn"},
		{"cohen_kappa", map[string]any{"num_classes": 3}, "num_classes: unknown option"},
		{"balanced_accuracy", map[string]any{"adjusted": "maybe"}, "adjusted: must be true or false"},
		{"balanced_accuracy", map[string]any{"average": "macro"}, "average: unknown option"},
	} {
		o := core.NewOptions(c.opts)
		_, err := ctor(c.typ, o)
		if err == nil {
			err = o.Err()
		}
		require.ErrorContains(t, err, c.problem, "%s %v", c.typ, c.opts)
	}
	sigs := map[string]bool{}
	for _, opts := range []map[string]any{nil, {"weights": "linear"}, {"weights": "quadratic"}} {
		sigs[build(t, "cohen_kappa", opts).Signature()] = true
	}
	for _, opts := range []map[string]any{nil, {"adjusted": true}} {
		sigs[build(t, "balanced_accuracy", opts).Signature()] = true
	}
	require.Len(t, sigs, 5, "every option is in the signature")
	a, b := build(t, "cohen_kappa", nil), build(t, "cohen_kappa", map[string]any{"weights": "linear"})
	require.ErrorIs(t, a.NewState().Merge(b.NewState()), core.ErrIncompatible)
}
