package pipeline

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// Run returns its first worker's accumulator with the others merged in, instead of an empty
// accumulator that took them all: results and state files must be the same as the empty
// one's would be (the merge identity, here for real metrics with slices, rejections and
// their examples), for any worker count.
func TestRunFirstWorkerIsMergeIdentity(t *testing.T) {
	plan := realPlan(t)
	sp, err := metrics.New(map[string]any{"type": "spearman", "prediction": "x", "label": "y"})
	require.NoError(t, err)
	plan = NewPlan(append(append([]*metrics.Metric(nil), plan.Metrics...), sp), plan.SliceBy)
	recs := make([]Record, 3000)
	for i := range recs {
		vals := make([]core.Value, len(plan.Fields))
		set := func(field string, v core.Value) { vals[plan.FieldIndex(field)] = v }
		x := math.Sin(float64(i)) * 3
		if i%7 == 0 {
			x = math.Copysign(0, -1)
		}
		if i%701 == 5 {
			x = math.NaN() // rejected: errors and their examples
		}
		set("prediction", str(fmt.Sprint("the cat sat ", i%5)))
		set("references", strs("the cat sat on the mat", "a cat sat"))
		set("cls", integer(int64(i%2)))
		set("label", integer(1))
		set("x", float(x))
		set("y", float(float64(i%11)))
		set("lang", str(fmt.Sprint("l", i%3)))
		recs[i] = Record{Values: vals, Seq: uint64(i), Pos: Position{File: "mem", Row: int64(i)}}
	}
	var want string
	var wantState []byte
	for _, workers := range []int{1, 2, 3} {
		acc, err := Run(context.Background(), &memSource{recs: recs, batch: 97}, Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "skip", Unlimited: true}})
		require.NoError(t, err)
		empty := NewAccumulator(plan)
		require.NoError(t, empty.Merge(acc))
		got := fingerprint(t, acc)
		require.Equal(t, fingerprint(t, empty), got, "workers=%d", workers)
		st, err := EncodeState(acc)
		require.NoError(t, err)
		st2, err := EncodeState(empty)
		require.NoError(t, err)
		require.Equal(t, st2, st, "workers=%d", workers)
		if want == "" {
			want, wantState = got, st
			require.Contains(t, got, `"non-finite value":5`)
		}
		require.Equal(t, want, got, "workers=%d", workers)
		require.Equal(t, wantState, st, "workers=%d", workers)
	}
}
