package retrieval

import (
	"math"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

func strs(s ...string) core.Value  { return core.Value{Kind: core.StringList, Strs: s} }
func nums(f ...float64) core.Value { return core.Value{Kind: core.FloatList, Floats: f} }
func missing() core.Value          { return core.Value{Kind: core.Missing} }
func rel(keys []string, grades ...float64) core.Value {
	return core.Value{Kind: core.Map, Strs: keys, Floats: grades}
}

func example(pred, refs, relevance core.Value) core.Example {
	return core.Example{Values: []core.Value{pred, refs, relevance}}
}

func build(t *testing.T, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m
}

func TestOptions(t *testing.T) {
	tests := []struct {
		typ  string
		opts map[string]any
		sig  string // "" when the options are a config error
		err  string
	}{
		{"ndcg", nil, "type:ndcg|compat:trec_eval|k:none|relevance_threshold:1|version:" + buildinfo.Version, ""},
		{"ndcg", map[string]any{"k": 10}, "type:ndcg|compat:trec_eval|k:10|relevance_threshold:1|version:" + buildinfo.Version, ""},
		{"mrr", map[string]any{"k": "none"}, "type:mrr|compat:trec_eval|k:none|relevance_threshold:1|version:" + buildinfo.Version, ""},
		{"map", map[string]any{"k": "5", "relevance_threshold": 2}, "type:map|compat:trec_eval|k:5|relevance_threshold:2|version:" + buildinfo.Version, ""},
		{"hit_rate", map[string]any{"k": 3}, "type:hit_rate|compat:trec_eval|k:3|relevance_threshold:1|version:" + buildinfo.Version, ""},
		{"precision_at_k", nil, "", "k: precision_at_k needs k"},
		{"recall_at_k", map[string]any{"k": "none"}, "", "k: recall_at_k needs k"},
		{"hit_rate", nil, "", "k: hit_rate needs k"},
		{"ndcg", map[string]any{"k": 0}, "", "k: must be in 1.."},
		{"ndcg", map[string]any{"k": "ten"}, "", "k: must be none or an integer"},
		{"mrr", map[string]any{"relevance_threshold": 0}, "", "relevance_threshold: must be >= 1"},
		{"mrr", map[string]any{"compat": "ranx"}, "", "compat: must be one of trec_eval"},
	}
	for _, tc := range tests {
		t.Run(tc.typ+tc.err, func(t *testing.T) {
			o := core.NewOptions(tc.opts)
			m, err := ctor(tc.typ, o)
			require.NoError(t, err)
			if tc.err != "" {
				require.ErrorContains(t, o.Err(), tc.err)
				return
			}
			require.NoError(t, o.Err())
			require.Equal(t, tc.sig, m.Signature())
		})
	}
}

func TestCheckRejects(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		ex     core.Example
		reason string
		field  string
	}{
		{"no prediction", example(missing(), strs("a"), missing()), "missing field", "prediction"},
		{"null prediction", example(core.Value{Kind: core.Null}, strs("a"), missing()), "missing field", "prediction"},
		{"string prediction", example(core.Value{Kind: core.String, Str: "a"}, strs("a"), missing()), "wrong type", "prediction"},
		{"no judgments", example(strs("a"), missing(), missing()), "missing field", "references"},
		{"null judgments", example(strs("a"), core.Value{Kind: core.Null}, core.Value{Kind: core.Null}), "missing field", "references"},
		{"both judgments", example(strs("a"), strs("a"), rel([]string{"a"}, 1)), "ambiguous relevance", "relevance"},
		{"references not a list", example(strs("a"), core.Value{Kind: core.String, Str: "a"}, missing()), "wrong type", "references"},
		{"relevance not a map", example(strs("a"), missing(), strs("a")), "wrong type", "relevance"},
		{"relevance of strings", example(strs("a"), missing(), core.Value{Kind: core.Other}), "wrong type", "relevance"},
		{"fractional grade", example(strs("a"), missing(), rel([]string{"a"}, 0.5)), "wrong type", "relevance"},
		{"huge grade", example(strs("a"), missing(), rel([]string{"a"}, 1e12)), "wrong type", "relevance"},
		{"NaN grade", example(strs("a"), missing(), rel([]string{"a"}, nan)), "non-finite value", "relevance"},
		{"duplicate judged id", example(strs("a"), missing(), rel([]string{"a", "b", "a"}, 1, 2, 0)), "duplicate id", "relevance"},
		{"duplicate retrieved id", example(strs("a", "b", "a"), strs("a"), missing()), "duplicate id", "prediction"},
		{"duplicate retrieved integer id", example(nums(3, 1, 3), strs("1"), missing()), "duplicate id", "prediction"},
		{"fractional id", example(nums(1, 2.5), nums(1), missing()), "wrong type", "prediction"},
		{"id beyond 2^53", example(nums(1<<54), nums(1), missing()), "wrong type", "prediction"},
		{"NaN id", example(nums(1), nums(nan), missing()), "non-finite value", "references"},
	}
	for _, typ := range []string{"mrr", "ndcg"} {
		m := build(t, typ, nil)
		for _, tc := range tests {
			t.Run(typ+"/"+tc.name, func(t *testing.T) {
				err := m.Check(&tc.ex)
				var re *core.RecordError
				require.ErrorAs(t, err, &re)
				require.Equal(t, tc.reason, re.Reason, re.Error())
				require.Equal(t, tc.field, re.Field)
				// Add ignores what Check rejects.
				s := m.NewState()
				s.Add(&tc.ex, 1)
				require.Nil(t, s.Result().Value)
				require.Equal(t, "no records", s.Result().Reason)
			})
		}
	}
}

// TestScores pins per-query trec_eval values worked out by hand.
func TestScores(t *testing.T) {
	graded := example(strs("x", "b", "a", "y"), missing(), rel([]string{"a", "b", "c"}, 3, 1, 2))
	tests := []struct {
		typ  string
		opts map[string]any
		ex   core.Example
		want float64
	}{
		{"mrr", nil, graded, 0.5},
		{"mrr", map[string]any{"k": 1}, graded, 0},
		{"mrr", map[string]any{"relevance_threshold": 3}, graded, 1.0 / 3},
		{"map", nil, graded, (1.0/2 + 2.0/3) / 3},
		{"map", map[string]any{"k": 2}, graded, (1.0 / 2) / 3},
		{"precision_at_k", map[string]any{"k": 10}, graded, 2.0 / 10},
		{"recall_at_k", map[string]any{"k": 2}, graded, 1.0 / 3},
		{"hit_rate", map[string]any{"k": 1}, graded, 0},
		{"hit_rate", map[string]any{"k": 2}, graded, 1},
		{"ndcg", nil, graded, (1/math.Log2(3) + 3/math.Log2(4)) / (3 + 2/math.Log2(3) + 1/math.Log2(4))},
		{"ndcg", map[string]any{"k": 2}, graded, (1 / math.Log2(3)) / (3 + 2/math.Log2(3))},
		// Integer ids are their decimal strings: 7 matches "7".
		{"mrr", nil, example(nums(5, 7), strs("7"), missing()), 0.5},
		// An empty ranking of a judged query counts 0.
		{"ndcg", nil, example(strs(), strs("a"), missing()), 0},
	}
	for _, tc := range tests {
		m := build(t, tc.typ, tc.opts)
		require.NoError(t, m.Check(&tc.ex))
		got, ok := m.(core.SentenceScorer).SentenceScore(&tc.ex)
		require.True(t, ok)
		require.InDelta(t, tc.want, got, 1e-15, "%s %v", tc.typ, tc.opts)
	}
}

func TestWeightsAndUnjudged(t *testing.T) {
	m := build(t, "mrr", nil)
	a := example(strs("x", "a"), strs("a"), missing())
	b := example(strs("a"), strs("a"), missing())
	unjudged := example(strs("a"), strs(), missing())
	s := m.NewState()
	s.Add(&a, 3)
	s.Add(&b, 1)
	s.Add(&unjudged, 2)
	r := s.Result()
	require.Equal(t, (3*0.5+1)/4, r.Value)
	require.Equal(t, int64(4), r.Details["queries"])
	require.Equal(t, int64(2), r.Details["unjudged_queries"])
	_, ok := m.(core.SentenceScorer).SentenceScore(&unjudged)
	require.False(t, ok)

	only := m.NewState()
	only.Add(&unjudged, 1)
	require.Nil(t, only.Result().Value)
	require.Equal(t, "no judged queries", only.Result().Reason)
}

func TestDecodeStateErrors(t *testing.T) {
	m := build(t, "ndcg", map[string]any{"k": 10})
	s := m.NewState()
	e := example(strs("a", "b"), strs("b"), missing())
	s.Add(&e, 1)
	good, err := s.MarshalBinary()
	require.NoError(t, err)
	back, err := m.DecodeState(good)
	require.NoError(t, err)
	require.Equal(t, s.Result(), back.Result())

	for i := range good {
		_, err := m.DecodeState(good[:i])
		require.ErrorIs(t, err, core.ErrCorruptState, "truncated at %d", i)
	}
	_, err = m.DecodeState(append(append([]byte(nil), good...), 0))
	require.ErrorIs(t, err, core.ErrCorruptState)

	other := build(t, "ndcg", map[string]any{"k": 5})
	_, err = other.DecodeState(good)
	require.ErrorIs(t, err, core.ErrIncompatible)
	require.ErrorIs(t, other.NewState().Merge(s), core.ErrIncompatible)
}

// TestMemoSharesDecoding folds records as the pipeline does (every metric checks, then every
// state adds, one memo for all) and requires the results of folding without a memo, with
// bad records in between (rejected, never cached as valid).
func TestMemoSharesDecoding(t *testing.T) {
	var ms []core.Metric
	for _, typ := range []string{"mrr", "ndcg", "map", "hit_rate"} {
		ms = append(ms, build(t, typ, map[string]any{"k": 3}))
	}
	records := []core.Example{
		example(strs("a", "b", "c"), strs("b"), missing()),
		example(strs("a", "b", "a"), strs("b"), missing()), // duplicate: rejected
		example(strs("x", "a"), missing(), rel([]string{"a", "x"}, 2, 1)),
		example(nums(3, 4), nums(4), missing()),
		example(strs(), missing(), rel([]string{"a"}, 1)),
		example(strs("q"), strs(), missing()),
	}
	var memo core.Memo
	with, without := make([]core.State, len(ms)), make([]core.State, len(ms))
	for i, m := range ms {
		with[i], without[i] = m.NewState(), m.NewState()
	}
	rejected := 0
	for i := range records {
		plain := records[i]
		ex := records[i]
		ex.Seq, ex.Memo = uint64(i), &memo
		ok := true
		for _, m := range ms {
			err := m.Check(&ex)
			require.Equal(t, m.Check(&plain) == nil, err == nil, "record %d", i)
			ok = ok && err == nil
		}
		if !ok {
			rejected++
			continue
		}
		memo.Next()
		for k := range ms {
			with[k].Add(&ex, 1)
			with[k].Add(&ex, 2) // a slice's state folds the same record again
			without[k].Add(&plain, 3)
		}
	}
	require.Equal(t, 1, rejected)
	for k := range ms {
		require.Equal(t, without[k].Result(), with[k].Result(), ms[k].Signature())
	}
}
