package prob

import (
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

func ex(pred, label any) *core.Example {
	vals := []core.Value{{Kind: core.Missing}, {Kind: core.Missing}}
	if pred != nil {
		vals[0] = core.FromJSON(pred)
	}
	if label != nil {
		vals[1] = core.FromJSON(label)
	}
	return &core.Example{Values: vals}
}

func build(t *testing.T, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		want string
	}{
		{"log_loss", map[string]any{"eps": "tiny"}, "eps: must be a number or none"},
		{"log_loss", map[string]any{"eps": 0.0}, "eps: must be in (0, 0.5)"},
		{"log_loss", map[string]any{"eps": 0.5}, "eps: must be in (0, 0.5)"},
		{"log_loss", map[string]any{"normalize": "maybe"}, "normalize: must be true or false"},
		{"log_loss", map[string]any{"compat": "torchmetrics"}, "compat: must be one of sklearn"},
		{"log_loss", map[string]any{"pos_label": 0}, "pos_label: unknown option"},
		{"brier", map[string]any{"pos_label": ""}, "pos_label: must be 0, 1 or a class name"},
		{"brier", map[string]any{"eps": 0.1}, "eps: unknown option"},
		{"calibration_error", map[string]any{"n_bins": 0}, "n_bins: must be >= 1"},
		{"calibration_error", map[string]any{"n_bins": MaxBins + 1}, "n_bins: must be <= 100000"},
		{"calibration_error", map[string]any{"n_bins": 2.5}, "n_bins: must be an integer"},
		{"calibration_error", map[string]any{"norm": "l3"}, "norm: must be one of l1|l2|max"},
		{"calibration_error", map[string]any{"compat": "sklearn"}, "compat: must be one of torchmetrics"},
	} {
		t.Run(tc.typ+"/"+tc.want, func(t *testing.T) {
			o := core.NewOptions(tc.opts)
			_, err := ctor(tc.typ, o)
			require.NoError(t, err)
			require.ErrorContains(t, o.Err(), tc.want)
		})
	}
}

func TestSignatures(t *testing.T) {
	sigs := map[string]bool{}
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		want string
	}{
		{"log_loss", nil, "type:log_loss|compat:sklearn|eps:none|normalize:yes|version:" + buildinfo.Version},
		{"log_loss", map[string]any{"eps": "1e-15", "normalize": false}, "type:log_loss|compat:sklearn|eps:1e-15|normalize:no|version:" + buildinfo.Version},
		{"brier", nil, "type:brier|compat:sklearn|version:" + buildinfo.Version},
		{"brier", map[string]any{"pos_label": 1}, "type:brier|compat:sklearn|pos_label:1|version:" + buildinfo.Version},
		{"brier", map[string]any{"pos_label": "+1"}, "type:brier|compat:sklearn|pos_label:+1|version:" + buildinfo.Version},
		{"brier", map[string]any{"pos_label": 0}, "type:brier|compat:sklearn|pos_label:0|version:" + buildinfo.Version},
		{"calibration_error", nil, "type:calibration_error|compat:torchmetrics|n_bins:15|norm:l1|version:" + buildinfo.Version},
		{"calibration_error", map[string]any{"n_bins": "7", "norm": "max"}, "type:calibration_error|compat:torchmetrics|n_bins:7|norm:max|version:" + buildinfo.Version},
	} {
		sig := build(t, tc.typ, tc.opts).Signature()
		require.Equal(t, tc.want, sig)
		sigs[sig] = true
	}
	require.Len(t, sigs, 8)
}

func TestRejections(t *testing.T) {
	list := []any{0.2, 0.8}
	for _, tc := range []struct {
		name        string
		typ         string
		opts        map[string]any
		pred, label any
		reason      string
		field       string
	}{
		{"missing prediction", "log_loss", nil, nil, 1, "missing field", "prediction"},
		{"missing label", "brier", nil, 0.5, nil, "missing field", "label"},
		{"string prediction", "calibration_error", nil, "0.5", 1, "wrong type", "prediction"},
		{"string list", "log_loss", nil, []any{"a", "b"}, 1, "wrong type", "prediction"},
		{"empty list", "brier", nil, []any{}, 0, "wrong length", "prediction"},
		{"NaN", "log_loss", nil, math.NaN(), 1, "non-finite value", "prediction"},
		{"Inf in list", "calibration_error", nil, []any{0.5, math.Inf(1)}, 1, "non-finite value", "prediction"},
		{"above 1", "log_loss", nil, 1.0000000000000002, 1, "probability out of range", "prediction"},
		{"negative in list", "calibration_error", nil, []any{0.5, -0.25, 0.75}, 1, "probability out of range", "prediction"},
		{"one-element list above 1", "brier", nil, []any{2.0}, 1, "probability out of range", "prediction"},
		{"fractional label", "log_loss", nil, 0.5, 0.5, "wrong type", "label"},
		{"NaN label", "brier", nil, 0.5, math.NaN(), "non-finite value", "label"},
		{"list label", "calibration_error", nil, 0.5, []any{0.0, 1.0}, "wrong type", "label"},
		{"negative label", "log_loss", nil, list, -1, "label out of range", "label"},
		{"binary label 2", "calibration_error", nil, 0.5, 2, "label out of range", "label"},
		{"label beyond list", "brier", nil, list, 2, "label out of range", "label"},
		{"pos_label with a list", "brier", map[string]any{"pos_label": 1}, list, 1, "wrong type", "prediction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, tc.typ, tc.opts)
			err := m.Check(ex(tc.pred, tc.label))
			var re *core.RecordError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tc.reason, re.Reason, err.Error())
			require.Equal(t, tc.field, re.Field)
			// A rejected record added anyway changes nothing.
			s := m.NewState()
			s.Add(ex(tc.pred, tc.label), 1)
			require.Equal(t, "no records", s.Result().Reason)
		})
	}
	// Accepted edge shapes: integer and boolean probabilities, a one-element list, an
	// integral float label, and a list with pos_label left unset.
	for _, typ := range []string{"log_loss", "brier", "calibration_error"} {
		m := build(t, typ, nil)
		for _, e := range []*core.Example{ex(1, 1), ex(true, false), ex([]any{0.5}, 1), ex(0.5, 1.0), ex(list, 1)} {
			require.NoError(t, m.Check(e), typ)
		}
	}
}

func TestNullResults(t *testing.T) {
	three := []any{0.2, 0.3, 0.5}
	for _, tc := range []struct {
		typ    string
		recs   [][2]any
		reason string
	}{
		{"log_loss", nil, "no records"},
		{"brier", nil, "no records"},
		{"calibration_error", nil, "no records"},
		{"log_loss", [][2]any{{0.5, 0}, {three, 2}}, "ragged scores"},
		{"brier", [][2]any{{[]any{0.5, 0.5}, 1}, {three, 2}}, "ragged scores"},
		{"calibration_error", [][2]any{{0.5, 0}, {three, 2}}, "ragged scores"},
		{"log_loss", [][2]any{{0.5, 0}, {0.9, 0}}, "fewer than 2 classes"},
		{"brier", [][2]any{{three, 0}}, "fewer than 2 classes"},
		{"log_loss", [][2]any{{three, 1}, {three, 0}}, "class count mismatch"},
		{"brier", [][2]any{{three, 1}}, "class count mismatch"},
	} {
		m := build(t, tc.typ, nil)
		s := m.NewState()
		for _, r := range tc.recs {
			e := ex(r[0], r[1])
			require.NoError(t, m.Check(e))
			s.Add(e, 1)
		}
		res := s.Result()
		require.Nil(t, res.Value, "%s %v", tc.typ, tc.recs)
		require.Equal(t, tc.reason, res.Reason, "%s %v", tc.typ, tc.recs)
		require.Equal(t, tc.reason, res.Details["reason"])
	}
	// A binary Brier score needs no second class (sklearn's binary path accepts one).
	m := build(t, "brier", nil)
	s := m.NewState()
	s.Add(ex(0.25, 0), 1)
	require.Equal(t, 0.0625, s.Result().Value)
}

// TestRaggedAcrossShards: widths seen only in different shards still make the merged state
// ragged, whatever the merge order.
func TestRaggedAcrossShards(t *testing.T) {
	for _, typ := range []string{"log_loss", "brier", "calibration_error"} {
		m := build(t, typ, nil)
		a, b, c := m.NewState(), m.NewState(), m.NewState()
		a.Add(ex([]any{0.5, 0.5}, 1), 1)
		b.Add(ex([]any{0.5, 0.5}, 0), 1)
		c.Add(ex([]any{0.2, 0.3, 0.5}, 2), 1)
		require.NoError(t, a.Merge(b))
		require.NotNil(t, a.Result().Value, typ)
		require.NoError(t, c.Merge(a))
		require.Equal(t, "ragged scores", c.Result().Reason, typ)
		require.NoError(t, a.Merge(c))
		require.Equal(t, "ragged scores", a.Result().Reason, typ)
	}
}

func TestLogLossValues(t *testing.T) {
	// Hand-computed: p(label) = 0.8 and 1 − 0.25; with eps 0.1 the 0 becomes 0.1, 1 becomes 0.9.
	m := build(t, "log_loss", nil)
	s := m.NewState()
	s.Add(ex(0.8, 1), 1)
	s.Add(ex(0.25, 0), 1)
	require.InDelta(t, (-math.Log(0.8)-math.Log(0.75))/2, s.Result().Value.(float64), 1e-15)

	m = build(t, "log_loss", map[string]any{"eps": 0.1, "normalize": false})
	s = m.NewState()
	s.Add(ex([]any{1.0, 0.0}, 1), 1)
	s.Add(ex([]any{1.0, 0.0}, 0), 2)
	require.InDelta(t, -math.Log(0.1)-2*math.Log(0.9), s.Result().Value.(float64), 1e-15)

	// Without eps, p = 0 is clipped to machine epsilon: −ln(2^-52) = 52 ln 2.
	m = build(t, "log_loss", map[string]any{"normalize": false})
	s = m.NewState()
	s.Add(ex(0.0, 1), 1)
	s.Add(ex(1.0, 1), 1)
	require.InDelta(t, 52*math.Ln2, s.Result().Value.(float64), 1e-13)
}

func TestBrierValues(t *testing.T) {
	m := build(t, "brier", map[string]any{"pos_label": 0})
	s := m.NewState()
	s.Add(ex(0.75, 0), 1) // P(label 0) = 0.75, label 0: (1 − 0.75)²
	s.Add(ex(0.5, 1), 1)  // (0 − 0.5)²
	require.Equal(t, (0.0625+0.25)/2, s.Result().Value)

	// Three columns are not halved; two are.
	m = build(t, "brier", nil)
	s = m.NewState()
	s.Add(ex([]any{0.5, 0.25, 0.25}, 0), 1)
	s.Add(ex([]any{0.0, 0.0, 1.0}, 2), 1)
	s.Add(ex([]any{0.0, 1.0, 0.0}, 1), 1)
	require.Equal(t, (0.25+0.0625+0.0625)/3, s.Result().Value)
	s = m.NewState()
	s.Add(ex([]any{0.75, 0.25}, 1), 1)
	s.Add(ex([]any{0.75, 0.25}, 0), 1)
	require.Equal(t, (2*0.5625+2*0.0625)/2/2, s.Result().Value)
}

func TestBins(t *testing.T) {
	m := build(t, "calibration_error", map[string]any{"n_bins": 5}).(*Calibration)
	require.Equal(t, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, m.edges64)
	for _, tc := range []struct {
		c    float64
		want int
	}{{0, 0}, {0.1999, 0}, {0.2, 1}, {0.5999999999999999, 2}, {0.6, 3}, {0.9999999999999999, 4}, {1, 5}} {
		require.Equal(t, tc.want, bin(m.edges64, tc.c), "%v", tc.c)
	}
	// float32 with 15 bins (torch's values): edge 3 is 0.20000001788, above float32(0.2), so a
	// multiclass confidence of 0.2 lands in bin 2 while a binary (float64) 0.2 is on edge 3.
	m = build(t, "calibration_error", nil).(*Calibration)
	require.Equal(t, float32(0.20000001788139343), m.edges32[3])
	require.Equal(t, 2, bin(m.edges32, float32(0.2)))
	require.Equal(t, 3, bin(m.edges64, 0.2))
	require.Equal(t, float32(0.5999999642372131), m.edges32[9])
	require.Equal(t, 9, bin(m.edges32, float32(0.6)))
	require.Equal(t, 15, bin(m.edges32, float32(1)))

	// Every edge goes to its own (upper) bin; edges are increasing.
	for _, n := range []int{1, 2, 3, 7, 15, 100, 999, MaxBins} {
		e64, e32 := linspace(n)
		require.Len(t, e64, n+1)
		require.Equal(t, 0.0, e64[0])
		require.Equal(t, 1.0, e64[n])
		for i := range e64 {
			require.Equal(t, i, bin(e64, e64[i]))
			require.Equal(t, i, bin(e32, e32[i]))
		}
	}
}

func TestCalibrationValues(t *testing.T) {
	// Two bins. Bin 0: confidences 0.25, 0.25, one correct: |0.5 − 0.25| = 0.25.
	// Bin 1: 0.75 correct: |1 − 0.75| = 0.25. Bin 2 (exactly 1.0): correct: 0.
	recs := [][2]any{{0.25, 1}, {0.25, 0}, {0.75, 1}, {1.0, 1}}
	for norm, want := range map[string]float64{
		"l1":  (0.25*2 + 0.25*1) / 4,
		"l2":  math.Sqrt((0.0625*2 + 0.0625) / 4),
		"max": 0.25,
	} {
		m := build(t, "calibration_error", map[string]any{"n_bins": 2, "norm": norm})
		s := m.NewState()
		for _, r := range recs {
			s.Add(ex(r[0], r[1]), 1)
		}
		require.InDelta(t, want, s.Result().Value.(float64), 1e-15, norm)
	}
	// Multiclass: top-1 is the first maximum; a tie picks class 0.
	m := build(t, "calibration_error", map[string]any{"n_bins": 2})
	s := m.NewState()
	s.Add(ex([]any{0.5, 0.5}, 0), 1)
	s.Add(ex([]any{0.5, 0.5}, 1), 1)
	require.Equal(t, 0.0, s.Result().Value)
}

func TestDecodeState(t *testing.T) {
	for _, typ := range []string{"log_loss", "brier", "calibration_error"} {
		m := build(t, typ, nil)
		s := m.NewState()
		s.Add(ex([]any{0.25, 0.75}, 1), 2)
		b, err := s.MarshalBinary()
		require.NoError(t, err)
		back, err := m.DecodeState(b)
		require.NoError(t, err)
		require.Equal(t, s.Result(), back.Result())

		_, err = m.DecodeState(append(append([]byte(nil), b...), 0))
		require.ErrorIs(t, err, core.ErrCorruptState, typ)
		_, err = m.DecodeState([]byte{9})
		require.ErrorIs(t, err, core.ErrCorruptState, typ)

		other := map[string]map[string]any{"log_loss": {"normalize": false}, "brier": {"pos_label": 0}, "calibration_error": {"n_bins": 3}}[typ]
		o := build(t, typ, other)
		_, err = o.DecodeState(b)
		require.ErrorIs(t, err, core.ErrIncompatible, typ)
		require.ErrorIs(t, o.NewState().Merge(s), core.ErrIncompatible, typ)
	}
}

// TestLogLossOldStateDecodes decodes a log_loss state of class ids written before class names
// existed (by main at 4e52c52) and re-encodes it byte for byte. (brier's default signature
// no longer names pos_label, which an explicit pos_label: 1 distinguishes from the default:
// its states of then are refused, as any state of another signature.)
func TestLogLossOldStateDecodes(t *testing.T) {
	for typ, old := range map[string]string{
		"log_loss": "0141747970653a6c6f675f6c6f73737c636f6d7061743a736b6c6561726e7c6570733a6e6f6e657c6e6f726d616c697a653a7965737c76657273696f6e3a302e312e300c0002000000000000b03c9c357cbc09cf1840010104",
	} {
		oldStateDecodes(t, typ, old)
	}
}

func oldStateDecodes(t *testing.T, typ, old string) {
	m := build(t, typ, nil)
	b, err := hex.DecodeString(old)
	require.NoError(t, err)
	st, err := m.DecodeState(b)
	require.NoError(t, err)
	again, err := st.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, b, again)
	fresh := m.NewState()
	for _, e := range [][2]any{{0.3, int64(1)}, {0.7, int64(0)}, {[]any{0.2, 0.3, 0.5}, int64(2)}} {
		fresh.Add(ex(e[0], e[1]), 2)
	}
	fb, err := fresh.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, b, fb)
}

// TestLogLossNames checks the class-name cases whose splits matter: the greater name seen
// only in another shard, and ids and names in different shards.
func TestLogLossNames(t *testing.T) {
	m := build(t, "log_loss", nil)
	fold := func(recs ...[2]any) core.State {
		s := m.NewState()
		for _, r := range recs {
			s.Add(ex(r[0], r[1]), 1)
		}
		return s
	}
	// sklearn: log_loss(["pos", "neg"], [0.8, 0.3]) = (−log 0.8 − log 0.7) / 2.
	want := (-math.Log(0.8) - math.Log(1-0.3)) / 2
	for _, order := range []bool{false, true} {
		a, b := fold([2]any{0.8, "pos"}), fold([2]any{0.3, "neg"})
		if order {
			a, b = b, a
		}
		require.NoError(t, a.Merge(b))
		require.InDelta(t, want, a.Result().Value, 1e-15)
		ab, err := a.MarshalBinary()
		require.NoError(t, err)
		wb, err := fold([2]any{0.3, "neg"}, [2]any{0.8, "pos"}).MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, wb, ab)
	}
	for _, tc := range []struct {
		name   string
		a, b   core.State
		reason string
	}{
		{"ids then names", fold([2]any{0.8, int64(1)}), fold([2]any{0.3, "neg"}), "mixed class ids and names"},
		{"names then ids", fold([2]any{0.3, "neg"}), fold([2]any{0.8, int64(1)}), "mixed class ids and names"},
		{"three names, binary", fold([2]any{0.3, "a"}, [2]any{0.3, "b"}), fold([2]any{0.8, "c"}), "class count mismatch"},
		{"one name", fold([2]any{0.3, "a"}), fold([2]any{0.8, "a"}), "fewer than 2 classes"},
		{"ragged", fold([2]any{0.3, "a"}), fold([2]any{[]any{0.2, 0.8}, "b"}), "ragged scores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.a.Merge(tc.b))
			res := tc.a.Result()
			require.Nil(t, res.Value)
			require.Equal(t, tc.reason, res.Reason)
			b, err := tc.a.MarshalBinary()
			require.NoError(t, err)
			back, err := m.DecodeState(b)
			require.NoError(t, err)
			require.Equal(t, tc.reason, back.Result().Reason)
		})
	}
}

func TestBrierNames(t *testing.T) {
	m := build(t, "brier", map[string]any{"pos_label": "pos"})
	require.Contains(t, m.Signature(), "|pos_label:pos|")
	a, b := m.NewState(), m.NewState()
	a.Add(ex(0.8, "pos"), 1)
	b.Add(ex(0.3, "neg"), 1)
	require.NoError(t, b.Merge(a))
	// sklearn: brier_score_loss(["pos", "neg"], [0.8, 0.3], pos_label="pos") = (0.04 + 0.09) / 2.
	require.InDelta(t, 0.065, b.Result().Value, 1e-15)
	require.Equal(t, []string{"neg", "pos"}, b.Result().Details["classes"])

	noPos := build(t, "brier", nil)
	s := noPos.NewState()
	s.Add(ex(0.8, "pos"), 1)
	require.Equal(t, "pos_label needed", s.Result().Reason)
	require.Contains(t, s.Result().Details["help"], "y_true takes value in {'pos'} and pos_label is not specified")

	id := build(t, "brier", map[string]any{"pos_label": 1})
	require.Contains(t, id.Signature(), "|pos_label:1|")
	_, err := ctor("brier", core.NewOptions(map[string]any{"pos_label": ""}))
	require.NoError(t, err) // the problem is in the options
	o := core.NewOptions(map[string]any{"pos_label": ""})
	_, _ = ctor("brier", o)
	require.ErrorContains(t, o.Err(), "pos_label")
}

func TestLogLossTooManyNames(t *testing.T) {
	m := build(t, "log_loss", nil)
	s := m.NewState()
	for i := range MaxNameClasses + 1 {
		s.Add(ex(0.5, fmt.Sprintf("c%03d", i)), 1)
	}
	res := s.Result()
	require.Nil(t, res.Value)
	require.Equal(t, "too many class names", res.Reason)
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	back, err := m.DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, "too many class names", back.Result().Reason)

	wide := make([]any, MaxNameClasses+1)
	for i := range wide {
		wide[i] = 1.0 / float64(len(wide))
	}
	err = m.Check(ex(wide, "a"))
	var re *core.RecordError
	require.ErrorAs(t, err, &re)
	require.Equal(t, "wrong length", re.Reason)
}

// A pos_label that reads as a number other than 0/1 is a class name, as in scikit-learn:
// brier_score_loss(["+1", "-1"], [0.9, 0.1], pos_label="+1") == 0.01.
func TestBrierNumericLookingPosLabel(t *testing.T) {
	m := build(t, "brier", map[string]any{"pos_label": "+1"})
	s := m.NewState()
	s.Add(ex(0.9, "+1"), 1)
	s.Add(ex(0.1, "-1"), 1)
	require.InDelta(t, 0.01, s.Result().Value, 1e-15)
}

// TestDecodeRejectsInconsistentStates: bytes whose parts disagree (a name's column count
// against the prediction width, counts against the shape) are corrupt, not a state whose
// result would silently skip or invent a column.
func TestDecodeRejectsInconsistentStates(t *testing.T) {
	named := func(typ string, opts map[string]any, recs ...[2]any) func(t *testing.T) (core.Metric, core.State) {
		return func(t *testing.T) (core.Metric, core.State) {
			m := build(t, typ, opts)
			s := m.NewState()
			for _, r := range recs {
				s.Add(ex(r[0], r[1]), 2)
			}
			return m, s
		}
	}
	binLog := named("log_loss", nil, [2]any{0.8, "pos"}, [2]any{0.3, "neg"})
	listLog := named("log_loss", nil, [2]any{[]any{0.2, 0.3, 0.5}, "a"}, [2]any{[]any{0.6, 0.3, 0.1}, "b"}, [2]any{[]any{0.1, 0.1, 0.8}, "c"})
	binBrier := named("brier", map[string]any{"pos_label": "pos"}, [2]any{0.8, "pos"}, [2]any{0.3, "neg"})
	listBrier := named("brier", nil, [2]any{[]any{0.2, 0.8}, "pos"}, [2]any{[]any{0.7, 0.3}, "neg"})
	idLog := named("log_loss", nil, [2]any{[]any{0.2, 0.3, 0.5}, int64(2)}, [2]any{[]any{0.6, 0.3, 0.1}, int64(0)})
	idBrier := named("brier", nil, [2]any{0.3, int64(1)}, [2]any{0.6, int64(0)})
	calib := named("calibration_error", nil, [2]any{0.3, int64(1)}, [2]any{0.6, int64(0)})
	names := func(s core.State) *names {
		switch s := s.(type) {
		case *LogLossState:
			return &s.names
		case *BrierState:
			return &s.names
		}
		panic("no names")
	}
	sums := func(s core.State) *sumState {
		switch s := s.(type) {
		case *LogLossState:
			return &s.sumState
		case *BrierState:
			return &s.sumState
		}
		panic("no sumState")
	}
	for _, tc := range []struct {
		name   string
		state  func(t *testing.T) (core.Metric, core.State)
		break_ func(s core.State)
	}{
		{"log_loss: a name with one column of two", binLog, func(s core.State) { e := &names(s).entries[1]; e.cols = e.cols[:1] }},
		{"log_loss: a name with three columns of two", binLog, func(s core.State) { e := &names(s).entries[0]; e.grow(3) }},
		{"log_loss: a name with two columns of three", listLog, func(s core.State) { e := &names(s).entries[2]; e.cols = e.cols[:2] }},
		{"log_loss: names without a width", binLog, func(s core.State) { sums(s).shape.width = 0 }},
		{"log_loss: names wider than the name limit", listLog, func(s core.State) { sums(s).shape.width = MaxNameClasses + 1 }},
		{"brier: a binary name without its column", binBrier, func(s core.State) { names(s).entries[0].cols = nil }},
		{"brier: a binary name with list columns", binBrier, func(s core.State) { names(s).entries[0].grow(3) }},
		{"brier: a list name missing a correction column", listBrier, func(s core.State) { e := &names(s).entries[1]; e.cols = e.cols[:2] }},
		{"log_loss: record counts of names wrap around", listLog, func(s core.State) {
			// MaxInt64 + MaxInt64 + 4 wraps to 2 = the record count.
			t := names(s)
			t.entries[0].n, t.entries[1].n, t.entries[2].n = math.MaxInt64, math.MaxInt64, 4
			sums(s).n = 2
		}},
		{"log_loss ids: records without a width", idLog, func(s core.State) { sums(s).shape.width = 0 }},
		{"log_loss ids: a label beyond the columns", idLog, func(s core.State) { sums(s).shape.maxLabel = 3 }},
		{"log_loss ids: records without a label", idLog, func(s core.State) { sums(s).shape.maxLabel = -1 }},
		{"brier ids: label 2 with a binary prediction", idBrier, func(s core.State) { sums(s).shape.maxLabel = 2 }},
		{"brier ids: a sum without records", idBrier, func(s core.State) { sums(s).n = 0 }},
		{"calibration: a class id in its shape", calib, func(s core.State) { s.(*CalibrationState).shape.maxLabel = 1 }},
		{"calibration: records without a width", calib, func(s core.State) { s.(*CalibrationState).shape.width = 0 }},
		{"calibration: a bin's confidence above its count", calib, func(s core.State) {
			c := s.(*CalibrationState)
			for i := range c.conf {
				if c.count[i] > 0 {
					c.conf[i].Add(float64(c.count[i]))
					return
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := tc.state(t)
			goldentest.RequireCorruptWhenBroken(t, m, s, tc.break_)
		})
	}
}

// TestDecodeTruncated: every proper prefix of a state's bytes is corrupt (an error, never a
// panic or a state).
func TestDecodeTruncated(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		opts map[string]any
		recs [][2]any
	}{
		{"log_loss", nil, [][2]any{{0.8, "pos"}, {0.3, "neg"}, {0.4, "neg"}}},
		{"log_loss", nil, [][2]any{{[]any{0.2, 0.3, 0.5}, "a"}, {[]any{0.6, 0.3, 0.1}, "b"}}},
		{"log_loss", nil, [][2]any{{0.8, "pos"}, {0.3, int64(1)}}},
		{"brier", map[string]any{"pos_label": "pos"}, [][2]any{{0.8, "pos"}, {0.3, "neg"}}},
		{"brier", nil, [][2]any{{[]any{0.2, 0.8}, "b"}, {[]any{0.7, 0.3}, "a"}}},
		{"brier", nil, [][2]any{{0.2, int64(1)}, {0.7, int64(0)}}},
		{"calibration_error", map[string]any{"n_bins": 3}, [][2]any{{0.2, int64(1)}, {0.7, int64(0)}}},
	} {
		m := build(t, tc.typ, tc.opts)
		s := m.NewState()
		for _, r := range tc.recs {
			s.Add(ex(r[0], r[1]), 1)
		}
		t.Run(tc.typ, func(t *testing.T) { goldentest.RequireCorruptPrefixes(t, m, s) })
	}
}
