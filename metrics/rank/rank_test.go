package rank

import (
	"encoding/hex"
	"math"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

func build(t *testing.T, typ string, opts map[string]any) (core.Metric, error) {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	if err != nil {
		return nil, err
	}
	for _, r := range m.Roles() {
		o.String(r.Name, r.Field)
	}
	return m, o.Err()
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		want string // "" = valid
	}{
		{"auroc", map[string]any{}, ""},
		{"auroc", map[string]any{"multi_class": "ovo", "average": "weighted"}, ""},
		{"auroc", map[string]any{"multi_class": "ovo", "average": "none"}, "average: none is not available with multi_class ovo"},
		{"auroc", map[string]any{"max_fpr": 0.5}, ""},
		{"auroc", map[string]any{"max_fpr": 1}, ""},
		{"auroc", map[string]any{"max_fpr": 0}, "max_fpr: must be in (0, 1]"},
		{"auroc", map[string]any{"max_fpr": 1.5}, "max_fpr: must be in (0, 1]"},
		{"auroc", map[string]any{"max_fpr": 0.5, "multi_class": "ovr"}, "max_fpr: is binary only"},
		{"auroc", map[string]any{"max_fpr": 0.5, "average": "weighted"}, "max_fpr: is binary only"},
		{"auroc", map[string]any{"thresholds": 10}, "thresholds: does not apply to compat sklearn"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": 10}, ""},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": 1}, "thresholds: must be >= 2"},
		{"auroc", map[string]any{"compat": "torchmetrics", "multi_class": "ovo"}, "multi_class: must be one of ovr"},
		{"auroc", map[string]any{"average": "micro"}, "average: must be one of"},
		{"average_precision", map[string]any{"max_fpr": 0.5}, "max_fpr: does not apply"},
		{"average_precision", map[string]any{"multi_class": "ovr"}, "multi_class: does not apply"},
		{"average_precision", map[string]any{"compat": "torchmetrics", "thresholds": 100, "average": "none"}, ""},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{0.0, 0.5, 1.0}}, ""},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": "0.2, 0.4"}, ""},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": "[0.3]"}, ""},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{0.5, 0.2}}, "thresholds: a list must be strictly increasing"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{0.2, 0.2}}, "thresholds: a list must be strictly increasing"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{0.1, 0.10000000001}}, "after rounding to float32"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{0.5, 1.5}}, "thresholds: must be in [0, 1]"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": []any{}}, "thresholds: a list needs 1 to"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": "[0.1, x]"}, "thresholds: must be a list of numbers"},
		{"auroc", map[string]any{"thresholds": []any{0.5}}, "thresholds: does not apply to compat sklearn"},
	} {
		_, err := build(t, tc.typ, tc.opts)
		if tc.want == "" {
			require.NoError(t, err, "%s %v", tc.typ, tc.opts)
		} else {
			require.ErrorContains(t, err, tc.want, "%s %v", tc.typ, tc.opts)
		}
	}
}

func ex(pred any, label any) core.Example {
	return core.Example{Values: []core.Value{core.FromJSON(pred), core.FromJSON(label)}}
}

func TestRejections(t *testing.T) {
	sk, err := build(t, "auroc", nil)
	require.NoError(t, err)
	tm, err := build(t, "auroc", map[string]any{"compat": "torchmetrics"})
	require.NoError(t, err)
	for _, tc := range []struct {
		m      core.Metric
		pred   any
		label  any
		reason string
	}{
		{sk, 0.3, int64(1), ""},
		{sk, -7.5, true, ""},
		{sk, []any{0.2, 0.8}, int64(0), ""},
		{sk, []any{0.2, 0.3, 0.5}, 2.0, ""},
		{sk, nil, int64(1), "missing field"},
		{sk, 0.3, nil, "missing field"},
		{sk, "x", int64(1), "wrong type"},
		{sk, 0.3, "1", ""}, // a class name
		{sk, []any{0.4, 0.6}, "neg", ""},
		{sk, []any{0.2, 0.3, 0.5}, "a", ""}, // column j is the j-th sorted name
		{tm, 0.3, "a", "wrong type"},
		{sk, 0.3, "", "missing field"},
		{sk, 0.3, "\xff", "invalid utf-8"},
		{sk, 0.3, []any{"a"}, "wrong type"},
		{sk, 0.3, 1.5, "wrong type"},
		{sk, []any{0.3}, int64(0), "wrong length"},
		{sk, []any{}, int64(0), "wrong length"},
		{sk, 0.3, int64(2), "label out of range"},
		{sk, 0.3, int64(-1), "label out of range"},
		{sk, []any{0.2, 0.3, 0.5}, int64(3), "label out of range"},
		{sk, []any{0.2, 0.3, 0.6}, int64(0), "scores do not sum to 1"},
		{sk, math.NaN(), int64(0), "non-finite value"},
		{sk, math.Inf(1), int64(0), "non-finite value"},
		{tm, 1.5, int64(0), "probability out of range"},
		{tm, []any{0.2, 0.3, 0.6}, int64(0), ""}, // torchmetrics does not need a sum of 1
		{tm, []any{-0.2, 0.6, 0.6}, int64(0), "probability out of range"},
	} {
		e := ex(tc.pred, tc.label)
		err := tc.m.Check(&e)
		if tc.reason == "" {
			require.NoError(t, err, "%v %v", tc.pred, tc.label)
			continue
		}
		var re *core.RecordError
		require.ErrorAs(t, err, &re, "%v %v", tc.pred, tc.label)
		require.Equal(t, tc.reason, re.Reason, "%v %v: %v", tc.pred, tc.label, err)
	}
}

func TestRaggedScoresAreNull(t *testing.T) {
	m, err := build(t, "auroc", map[string]any{"compat": "torchmetrics"})
	require.NoError(t, err)
	exs := []core.Example{ex(0.3, int64(0)), ex(0.7, int64(1)), ex([]any{0.2, 0.3, 0.5}, int64(2))}
	st := m.NewState()
	for i := range exs {
		require.NoError(t, m.Check(&exs[i]))
		st.Add(&exs[i], 1)
	}
	res := st.Result()
	require.Nil(t, res.Value)
	require.Equal(t, "ragged scores", res.Reason)
	require.Equal(t, []int{2, 3}, res.Details["widths"])
	goldentest.CheckLaws(t, m, exs)
}

// TestBinnedErrorBound checks that binned AUROC stays within details.bin_error_bound of the
// exact value (itself checked against scikit-learn by the goldens), on scores with and
// without ties, scores of exactly 0 and 1, and several threshold counts.
func TestBinnedErrorBound(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	exact, err := build(t, "auroc", nil)
	require.NoError(t, err)
	for _, n := range []any{2, 3, 10, 101, 1000, []any{0.0, 0.3, 0.35, 0.9, 1.0}, []any{0.0, 1.0}} {
		binned, err := build(t, "auroc", map[string]any{"compat": "torchmetrics", "thresholds": n})
		require.NoError(t, err)
		for trial := 0; trial < 20; trial++ {
			se, sb := exact.NewState(), binned.NewState()
			for i := 0; i < 500; i++ {
				label := int64(rng.Intn(2))
				x := math.Min(1, math.Max(0, 0.25*float64(label)+rng.Float64()))
				switch trial % 4 {
				case 1:
					x = math.Round(x*20) / 20
				case 2:
					x = math.Round(x)
				}
				e := ex(x, label)
				se.Add(&e, 1)
				sb.Add(&e, 1)
			}
			re, rb := se.Result(), sb.Result()
			require.NotNil(t, re.Value)
			bound := rb.Details["bin_error_bound"].(float64)
			diff := math.Abs(re.Value.(float64) - rb.Value.(float64))
			require.LessOrEqual(t, diff, bound+1e-12, "n=%d trial %d: exact %v binned %v", n, trial, re.Value, rb.Value)
			if n == any(1000) && trial%4 == 0 {
				require.Less(t, bound, 0.002, "fine bins on continuous scores")
			}
		}
	}
}

// TestThresholdListBound: a threshold list that does not span [0, 1] has no bound in its
// details (the binned curve then misses (0, 0) or (1, 1)); its signature names the list.
func TestThresholdListBound(t *testing.T) {
	for _, tc := range []struct {
		list  []any
		bound bool
		sig   string
	}{
		{[]any{0.0, 0.5, 1.0}, true, "thresholds:[0,0.5,1]"},
		{[]any{0.2, 0.5, 1.0}, false, "thresholds:[0.20000000298023224,0.5,1]"},
		{[]any{0.0, 0.5}, false, "thresholds:[0,0.5]"},
	} {
		m, err := build(t, "auroc", map[string]any{"compat": "torchmetrics", "thresholds": tc.list})
		require.NoError(t, err)
		require.Contains(t, m.Signature(), tc.sig)
		s := m.NewState()
		for i, x := range []float64{0.1, 0.4, 0.6, 0.9} {
			e := ex(x, int64(i%2))
			s.Add(&e, 1)
		}
		_, ok := s.Result().Details["bin_error_bound"]
		require.Equal(t, tc.bound, ok, "%v", tc.list)
	}
}

func TestStateDecoding(t *testing.T) {
	for _, opts := range []map[string]any{nil, {"compat": "torchmetrics", "thresholds": 5}} {
		m, err := build(t, "auroc", opts)
		require.NoError(t, err)
		st := m.NewState()
		for i, x := range []float64{0.1, 0.4, 0.4, 0.9} {
			e := ex(x, int64(i%2))
			st.Add(&e, 1)
		}
		b, err := st.MarshalBinary()
		require.NoError(t, err)
		back, err := m.DecodeState(b)
		require.NoError(t, err)
		require.Equal(t, goldentest.Fingerprint(st.Result()), goldentest.Fingerprint(back.Result()))
		for i := range b {
			// Flipping any byte gives an error or a valid state, never a panic.
			c := append([]byte(nil), b...)
			c[i] ^= 0xff
			if s, err := m.DecodeState(c); err == nil {
				_ = s.Result()
			}
		}
		other, err := build(t, "average_precision", nil)
		require.NoError(t, err)
		_, err = other.DecodeState(b)
		require.ErrorIs(t, err, core.ErrIncompatible)
		require.ErrorIs(t, st.Merge(other.NewState()), core.ErrIncompatible)
	}
}

// TestBucket checks the arithmetic bucket lookup against a linear count, on the thresholds,
// their float64 neighbours and random scores.
func TestBucket(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{2, 3, 7, 11, 100, 1000, 4097} {
		m, err := build(t, "auroc", map[string]any{"compat": "torchmetrics", "thresholds": n})
		require.NoError(t, err)
		r := m.(*Metric)
		var xs []float64
		for _, th := range r.thr {
			xs = append(xs, th, math.Nextafter(th, 2), math.Nextafter(th, -1))
		}
		for i := 0; i < 2000; i++ {
			xs = append(xs, rng.Float64())
		}
		for _, x := range xs {
			want := 0
			for _, th := range r.thr {
				if th <= x {
					want++
				}
			}
			require.Equal(t, want, r.bucket(x), "n=%d x=%v", n, x)
		}
	}
}

func TestClassNameReasons(t *testing.T) {
	ab := []core.Example{ex(0.2, "a"), ex(0.7, "b")}
	for _, tc := range []struct {
		name   string
		typ    string
		opts   map[string]any
		exs    []core.Example
		reason string
		help   string
	}{
		{"ap without pos_label", "average_precision", nil, ab, "pos_label needed", "pos_label=1 is not a valid label. It should be one of ['a' 'b']"},
		{"ap pos_label not a class", "average_precision", map[string]any{"pos_label": "c"}, ab, "pos_label is not a class", "pos_label=c is not a valid label. It should be one of ['a' 'b']"},
		{"ap ids pos_label 2", "average_precision", map[string]any{"pos_label": 2}, []core.Example{ex(0.2, int64(0)), ex(0.7, int64(1))}, "pos_label is not a class", "pos_label=2 is not a valid label"},
		{"ap multiclass pos_label", "average_precision", map[string]any{"pos_label": 0}, []core.Example{ex([]any{0.2, 0.3, 0.5}, int64(0))}, "pos_label with multiclass scores", "fixed to 1 for multiclass"},
		{"auroc one name", "auroc", nil, []core.Example{ex(0.2, "a"), ex(0.7, "a")}, "only one class present", ""},
		{"auroc three names", "auroc", nil, append(ab, ex(0.5, "c")), "more than two class names", "multi_class must be in ('ovo', 'ovr')"},
		{"ap three names", "average_precision", map[string]any{"pos_label": "a"}, append(ab, ex(0.5, "c")), "more than two class names", "pos_label is fixed to 1"},
		{"mixed", "auroc", nil, append(ab, ex(0.5, int64(1))), "mixed class ids and names", "in one form"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := build(t, tc.typ, tc.opts)
			require.NoError(t, err)
			st := m.NewState()
			for i := range tc.exs {
				require.NoError(t, m.Check(&tc.exs[i]))
				st.Add(&tc.exs[i], 1)
			}
			res := st.Result()
			require.Nil(t, res.Value)
			require.Equal(t, tc.reason, res.Reason)
			if tc.help != "" {
				require.Contains(t, res.Details["help"], tc.help)
			}
		})
	}
}

// TestClassNameMergeOrder merges states that saw the names in opposite orders (the second
// state's only name sorts before the first's), so labels are renumbered on both sides.
func TestClassNameMergeOrder(t *testing.T) {
	m, err := build(t, "auroc", nil)
	require.NoError(t, err)
	a, b, whole := m.NewState(), m.NewState(), m.NewState()
	for _, e := range []core.Example{ex(0.9, "pos"), ex(0.4, "pos")} {
		a.Add(&e, 1)
		whole.Add(&e, 1)
	}
	for _, e := range []core.Example{ex(0.3, "neg"), ex(0.5, "neg")} {
		b.Add(&e, 1)
		whole.Add(&e, 1)
	}
	require.NoError(t, a.Merge(b))
	require.Equal(t, 0.75, a.Result().Value)
	require.Equal(t, whole.Result().Value, a.Result().Value)
	ab, err := a.MarshalBinary()
	require.NoError(t, err)
	wb, err := whole.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, wb, ab)
	require.Equal(t, byte(namedStateVersion), ab[0])
}

func TestIDStatesKeepFormatVersion1(t *testing.T) {
	m, err := build(t, "auroc", nil)
	require.NoError(t, err)
	st := m.NewState()
	e := ex(0.3, int64(1))
	st.Add(&e, 1)
	b, err := st.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, byte(stateVersion), b[0])
	back, err := m.DecodeState(b)
	require.NoError(t, err)
	b2, err := back.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, b, b2)
}

// TestOldStatesDecode decodes states written before class names existed (by main at 4e52c52:
// records (0.3, 1), (0.7, 0), ([0.2, 0.3, 0.5], 2), each weight 2) and re-encodes them byte
// for byte.
func TestOldStatesDecode(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		hex  string
	}{
		{"auroc", nil, "0152747970653a6175726f637c636f6d7061743a736b6c6561726e7c617665726167653a6d6163726f7c6d756c74695f636c6173733a6f76727c6d61785f6670723a6e6f6e657c76657273696f6e3a302e312e30020202333333333333d33f0004666666666666e63f040003019a9999999999c93f00000401333333333333d33f00000401000000000000e03f000004"},
		{"average_precision", nil, "0141747970653a617665726167655f707265636973696f6e7c636f6d7061743a736b6c6561726e7c617665726167653a6d6163726f7c76657273696f6e3a302e312e30020202333333333333d33f0004666666666666e63f040003019a9999999999c93f00000401333333333333d33f00000401000000000000e03f000004"},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": 5}, "0164747970653a6175726f637c636f6d7061743a746f7263686d6574726963737c617665726167653a6d6163726f7c6d756c74695f636c6173733a6f76727c6d61785f6670723a6e6f6e657c7468726573686f6c64733a357c76657273696f6e3a302e312e3002020c00000000000404000000000003120000000000040000000000000000000000001200000000000000000400000000000000000012000000000000000000000004000000000000"},
		{"average_precision", map[string]any{"compat": "torchmetrics", "thresholds": 5}, "0153747970653a617665726167655f707265636973696f6e7c636f6d7061743a746f7263686d6574726963737c617665726167653a6d6163726f7c7468726573686f6c64733a357c76657273696f6e3a302e312e3002020c00000000000404000000000003120000000000040000000000000000000000001200000000000000000400000000000000000012000000000000000000000004000000000000"},
	} {
		m, err := build(t, tc.typ, tc.opts)
		require.NoError(t, err)
		b, err := hex.DecodeString(tc.hex)
		require.NoError(t, err)
		st, err := m.DecodeState(b)
		require.NoError(t, err, tc.typ)
		again, err := st.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, again, tc.typ)
		fresh := m.NewState()
		for _, e := range []core.Example{ex(0.3, int64(1)), ex(0.7, int64(0)), ex([]any{0.2, 0.3, 0.5}, int64(2))} {
			fresh.Add(&e, 2)
		}
		fb, err := fresh.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, b, fb, tc.typ)
	}
}

// A state of ids that went through its bytes still counts as having seen ids: merged with a
// state of names it is "mixed class ids and names", as it is merged in memory.
func TestDecodedIDStateMixedWithNames(t *testing.T) {
	m, err := build(t, "auroc", nil)
	require.NoError(t, err)
	named, ids := m.NewState(), m.NewState()
	for _, r := range []struct {
		p float64
		l string
	}{{0.9, "b"}, {0.2, "a"}} {
		e := ex(r.p, r.l)
		named.Add(&e, 1)
	}
	for _, r := range []struct {
		p float64
		l int
	}{{0.9, 0}, {0.2, 1}} {
		e := ex(r.p, r.l)
		ids.Add(&e, 1)
	}
	b, err := ids.MarshalBinary()
	require.NoError(t, err)
	decoded, err := m.DecodeState(b)
	require.NoError(t, err)
	for _, other := range []core.State{ids, decoded} {
		s, err := core.CopyState(m, named)
		require.NoError(t, err)
		require.NoError(t, s.Merge(other))
		require.Equal(t, "mixed class ids and names", s.Result().Reason)
	}
}

// TestDecodeRejectsInconsistentNames: saved bytes whose class names disagree with the counts
// are corrupt. A name without records cannot be in a state (a name is added with its first
// record): decoded, it would shift which sorted name a score column belongs to in merges
// and decide the one-name rules of Result.
func TestDecodeRejectsInconsistentNames(t *testing.T) {
	fold := func(t *testing.T, typ string, opts map[string]any, exs ...core.Example) (core.Metric, *State) {
		m, err := build(t, typ, opts)
		require.NoError(t, err)
		s := m.NewState().(*State)
		for i := range exs {
			s.Add(&exs[i], 1)
		}
		return m, s
	}
	for _, tc := range []struct {
		name   string
		typ    string
		opts   map[string]any
		exs    []core.Example
		break_ func(s *State)
	}{
		{"a binary name without records", "average_precision", nil, []core.Example{ex(0.2, "a"), ex(0.7, "a")},
			func(s *State) { s.names = append(s.names, "b") }},
		{"a multiclass name without records", "auroc", nil,
			[]core.Example{ex([]any{0.2, 0.3, 0.5}, "a"), ex([]any{0.6, 0.3, 0.1}, "b")},
			func(s *State) { s.names = append(s.names, "c") }},
		{"a binned name without records", "auroc", map[string]any{"compat": "torchmetrics", "thresholds": 4},
			[]core.Example{ex(0.2, int64(0))},
			func(s *State) { s.seen, s.names = seenNames, []string{"a", "b"} }},
		{"counts of a state that no longer counts", "auroc", nil, []core.Example{ex(0.2, int64(0)), ex(0.7, int64(1))},
			func(s *State) { s.seen = seenIDs | seenNames }},
		// Merged into a state of ids, it would make it "mixed class ids and names".
		{"class kinds without records", "auroc", nil, []core.Example{ex(0.2, "a"), ex(0.7, int64(1))},
			func(s *State) { s.tables = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := fold(t, tc.typ, tc.opts, tc.exs...)
			goldentest.RequireCorruptWhenBroken(t, m, s, tc.break_)
		})
	}
}

// TestDecodeTruncated: every proper prefix of a state's bytes is corrupt.
func TestDecodeTruncated(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		exs  []core.Example
	}{
		{"average_precision", map[string]any{"pos_label": "b"}, []core.Example{ex(0.2, "a"), ex(0.7, "b"), ex(0.4, "b")}},
		{"auroc", nil, []core.Example{ex([]any{0.2, 0.3, 0.5}, "c"), ex([]any{0.6, 0.3, 0.1}, "a"), ex([]any{0.1, 0.1, 0.8}, "b")}},
		{"auroc", nil, []core.Example{ex(0.2, "a"), ex(0.7, int64(1))}},
		{"auroc", map[string]any{"compat": "torchmetrics", "thresholds": 3}, []core.Example{ex(0.2, int64(0)), ex(0.7, int64(1))}},
		{"average_precision", nil, []core.Example{ex(0.2, int64(0)), ex([]any{0.2, 0.3, 0.5}, int64(2))}},
	} {
		m, err := build(t, tc.typ, tc.opts)
		require.NoError(t, err)
		s := m.NewState()
		for i := range tc.exs {
			s.Add(&tc.exs[i], 1)
		}
		t.Run(tc.typ, func(t *testing.T) { goldentest.RequireCorruptPrefixes(t, m, s) })
	}
}

// TestAPOneName: average_precision_score with string labels of one class scores, with a
// warning only: 1.0 when pos_label is that class, else 0.0 — also without pos_label, whose
// default 1 (an integer) is no class name, not even "1" (scikit-learn 1.9.1).
func TestAPOneName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  map[string]any
		label string
		want  float64
	}{
		{"no pos_label", nil, "cat", 0},
		{"no pos_label, name 1", nil, "1", 0},
		{"pos_label is the name", map[string]any{"pos_label": "cat"}, "cat", 1},
		{"pos_label is another name", map[string]any{"pos_label": "dog"}, "cat", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := build(t, "average_precision", tc.opts)
			require.NoError(t, err)
			parts := []core.State{m.NewState(), m.NewState()}
			for i, x := range []float64{0.1, 0.9, 0.3, 0.3} {
				e := ex(x, tc.label)
				parts[i%2].Add(&e, 1)
			}
			require.NoError(t, parts[0].Merge(parts[1]))
			res := parts[0].Result()
			require.Equal(t, tc.want, res.Value, res.Reason)
			require.Equal(t, []string{tc.label}, res.Details["classes"])
			if tc.want == 0 {
				require.Contains(t, res.Details["note"], "No positive class found in y_true")
			}
		})
	}
}

// TestAPOneIDPosLabel: with class ids of one class only, a pos_label that is no class does
// not raise in scikit-learn (it checks pos_label against the labels present only when there
// are two): every record is negative and average_precision_score is 0.0 with a warning.
func TestAPOneIDPosLabel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pos    any
		label  int64
		want   any
		reason string
	}{
		{"pos_label 2, ids 0", 2, 0, 0.0, ""},
		{"pos_label name, ids 1", "a", 1, 0.0, ""},
		{"pos_label 0, ids 1", 0, 1, 0.0, ""},
		{"pos_label 1, ids 1", 1, 1, 1.0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := build(t, "average_precision", map[string]any{"pos_label": tc.pos})
			require.NoError(t, err)
			s := m.NewState()
			for _, x := range []float64{0.1, 0.9, 0.3} {
				e := ex(x, tc.label)
				s.Add(&e, 1)
			}
			res := s.Result()
			require.Equal(t, tc.want, res.Value, res.Reason)
		})
	}
	// Both ids present: a pos_label that is neither raises in scikit-learn.
	m, err := build(t, "average_precision", map[string]any{"pos_label": 2})
	require.NoError(t, err)
	s := m.NewState()
	for i, x := range []float64{0.1, 0.9} {
		e := ex(x, int64(i))
		s.Add(&e, 1)
	}
	require.Equal(t, "pos_label is not a class", s.Result().Reason)
}
