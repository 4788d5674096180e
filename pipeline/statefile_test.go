package pipeline

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

func realPlan(t testing.TB) *Plan {
	var ms []*metrics.Metric
	for _, e := range []map[string]any{
		{"type": "bleu"},
		{"type": "rouge_l", "compat": "rouge-score"},
		{"type": "accuracy", "prediction": "cls"},
		{"type": "pearson", "prediction": "x", "label": "y"},
		{"type": "distinct"},
	} {
		m, err := metrics.New(e)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	return NewPlan(ms, []string{"lang"})
}

func TestStateFileRoundTrip(t *testing.T) {
	plan := realPlan(t)
	acc := NewAccumulator(plan)
	f := NewFolder(plan)
	rec := func(pred string, cls int64, x float64, lang string) Record {
		vals := make([]core.Value, len(plan.Fields))
		set := func(field string, v core.Value) { vals[plan.FieldIndex(field)] = v }
		set("prediction", str(pred))
		set("references", strs("the cat sat on the mat", "a cat sat"))
		set("cls", integer(cls))
		set("label", integer(1))
		set("x", float(x))
		set("y", float(x*x))
		set("lang", str(lang))
		return Record{Values: vals}
	}
	for i, r := range []Record{rec("the cat sat", 1, 0.5, "de"), rec("a dog", 0, 1.5, "fr"), rec("the cat sat on the mat", 1, 2.5, "de")} {
		require.Nil(t, f.Check(&r), "record %d", i)
		f.Add(acc, &r, 1)
	}
	acc.Reject("invalid json", &Record{Seq: 7, Pos: Position{File: "a.jsonl", Row: 6}})
	b, err := EncodeState(acc)
	require.NoError(t, err)
	back, err := DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, fingerprint(t, acc), fingerprint(t, back))
	require.Equal(t, map[string][]ErrorExample{"invalid json": {{Seq: 7, Pos: "a.jsonl:7"}}}, back.ErrorExamples)
	b2, err := EncodeState(back)
	require.NoError(t, err)
	require.Equal(t, b, b2, "encoding is canonical")

	// Every truncation and every single-bit flip is detected.
	for n := 0; n < len(b); n++ {
		a, err := DecodeState(b[:n])
		require.ErrorIs(t, err, ErrStateFormat, "truncated to %d", n)
		require.Nil(t, a)
	}
	for i := 0; i < len(b); i++ {
		c := append([]byte(nil), b...)
		c[i] ^= 0x10
		a, err := DecodeState(c)
		require.ErrorIs(t, err, ErrStateFormat, "flip at %d", i)
		require.Nil(t, a)
	}
}

// reseal replaces the header of a state and recomputes its checksum, as a state written by
// another release (or edited by hand) would have it: the checksum does not catch these.
func reseal(t testing.TB, b []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	d := core.NewDecoder(b[len(stateMagic)+1 : len(b)-4])
	var h map[string]any
	require.NoError(t, json.Unmarshal([]byte(d.String()), &h))
	require.NoError(t, d.Err())
	edit(h)
	hb, err := json.Marshal(h)
	require.NoError(t, err)
	var e core.Encoder
	e.B = append(e.B, b[:len(stateMagic)+1]...)
	e.String(string(hb))
	e.B = append(e.B, d.B...)
	sum := crc32.ChecksumIEEE(e.B)
	return append(e.B, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
}

func TestStateFileRefusals(t *testing.T) {
	plan := realPlan(t)
	acc := NewAccumulator(plan)
	acc.Records = 3
	b, err := EncodeState(acc)
	require.NoError(t, err)
	metric := func(name string) func(h map[string]any) map[string]any {
		return func(h map[string]any) map[string]any {
			for _, m := range h["metrics"].([]any) {
				if m := m.(map[string]any); m["name"] == name {
					return m
				}
			}
			t.Fatalf("no metric %s", name)
			return nil
		}
	}
	bleu := metric("bleu")
	for _, tc := range []struct {
		name string
		data func() []byte
		want string
	}{
		{"future version, whatever follows", func() []byte {
			c := append([]byte(nil), b[:len(stateMagic)]...)
			return append(c, stateVersion+1, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0)
		}, fmt.Sprintf("format version %d, this build reads versions 1 to %d (written by a newer evalstream, or corrupted)", stateVersion+1, stateVersion)},
		{"version 0", func() []byte {
			c := append([]byte(nil), b...)
			c[len(stateMagic)] = 0
			return c
		}, "format version 0, this build reads versions 1 to"},
		{"options differ from the signature", func() []byte {
			return reseal(t, b, func(h map[string]any) { bleu(h)["options"] = map[string]any{"ngram": 2} })
		}, `(they differ in ngram: 4 vs 2; a state of another evalstream version, or edited)`},
		{"another release", func() []byte {
			return reseal(t, b, func(h map[string]any) {
				sig := bleu(h)["signature"].(string)
				bleu(h)["signature"] = core.SigOptions(sig) + "|version:0.0.1-old"
			})
		}, "metric bleu: saved by evalstream 0.0.1-old, this is evalstream " + buildinfo.Version + ": a state is finished (merge, report, compare, resume from a state topic) by the release that wrote it"},
		{"invalid options", func() []byte {
			return reseal(t, b, func(h map[string]any) { bleu(h)["options"] = map[string]any{"ngram": 0} })
		}, "metric bleu: ngram: must be >= 1"},
		{"unknown option", func() []byte {
			return reseal(t, b, func(h map[string]any) { bleu(h)["options"] = map[string]any{"colour": "blue"} })
		}, "metric bleu"},
		{"unknown metric type", func() []byte {
			return reseal(t, b, func(h map[string]any) { bleu(h)["type"] = "bleurt" })
		}, "metric bleu"},
		{"another metric's state", func() []byte {
			return reseal(t, b, func(h map[string]any) {
				ms := h["metrics"].([]any)
				ms[0], ms[2] = ms[2], ms[0]
			})
		}, "metric accuracy"},
		{"a metric less", func() []byte {
			return reseal(t, b, func(h map[string]any) { h["metrics"] = h["metrics"].([]any)[1:] })
		}, "invalid state file"},
		{"header not JSON", func() []byte {
			var e core.Encoder
			e.B = append(e.B, b[:len(stateMagic)+1]...)
			e.String("{not json")
			sum := crc32.ChecksumIEEE(e.B)
			return append(e.B, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
		}, "bad header"},
		{"trailing bytes", func() []byte {
			c := append([]byte(nil), b[:len(b)-4]...)
			c = append(c, 0)
			sum := crc32.ChecksumIEEE(c)
			return append(c, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
		}, "trailing bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := DecodeState(tc.data())
			require.ErrorIs(t, err, ErrStateFormat)
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, a, "never a number")
		})
	}
}

func FuzzDecodeStateFile(f *testing.F) {
	plan := realPlan(f)
	acc := NewAccumulator(plan)
	b, err := EncodeState(acc)
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte(stateMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeState(data)
		if err == nil {
			_ = a.Results()
		}
	})
}

// FuzzDecodeStateBody gets past the checksum, which stops almost every input of
// FuzzDecodeStateFile: it seals the fuzzed body with a correct one, so that the header and
// every metric's state decoder see arbitrary bytes. Decoding must fail with ErrStateFormat
// or give an accumulator whose results can be computed and encoded again.
func FuzzDecodeStateBody(f *testing.F) {
	plan := realPlan(f)
	acc := NewAccumulator(plan)
	fo := NewFolder(plan)
	r := Record{Values: make([]core.Value, len(plan.Fields))}
	r.Values[plan.FieldIndex("prediction")] = str("the cat sat")
	r.Values[plan.FieldIndex("references")] = strs("the cat sat on the mat")
	r.Values[plan.FieldIndex("cls")] = integer(1)
	r.Values[plan.FieldIndex("label")] = integer(1)
	r.Values[plan.FieldIndex("x")] = float(0.5)
	r.Values[plan.FieldIndex("y")] = float(0.25)
	r.Values[plan.FieldIndex("lang")] = str("de")
	if fo.Check(&r) == nil {
		fo.Add(acc, &r, 1)
	}
	for _, a := range []*Accumulator{NewAccumulator(plan), acc} {
		b, err := EncodeState(a)
		require.NoError(f, err)
		f.Add(b[len(stateMagic)+1 : len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := append([]byte(stateMagic), stateVersion)
		c = append(c, body...)
		sum := crc32.ChecksumIEEE(c)
		c = append(c, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
		a, err := DecodeState(c)
		if err != nil {
			require.ErrorIs(t, err, ErrStateFormat)
			require.Nil(t, a)
			return
		}
		_ = a.Results()
		_, err = EncodeState(a)
		require.NoError(t, err)
	})
}

func str(s string) core.Value     { return core.Value{Kind: core.String, Str: s} }
func strs(s ...string) core.Value { return core.Value{Kind: core.StringList, Strs: s} }
func integer(i int64) core.Value  { return core.Value{Kind: core.Int, Int: i} }
func float(f float64) core.Value  { return core.Value{Kind: core.Float, Float: f} }

// TestStateCovers: the ids of the inputs a state covers survive a round trip in canonical
// (sorted, deduplicated) form; merges union them and refuse an overlap without changing
// the receiver; a header without them (older states) reads as covering unknown inputs.
func TestStateCovers(t *testing.T) {
	plan := realPlan(t)
	a := NewAccumulator(plan)
	a.SetCovers([]string{"c", "a", "c"})
	require.Equal(t, []string{"a", "c"}, a.Covers)
	b, err := EncodeState(a)
	require.NoError(t, err)
	back, err := DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, back.Covers)
	b2, err := EncodeState(back)
	require.NoError(t, err)
	require.Equal(t, b, b2)

	old := reseal(t, b, func(h map[string]any) { delete(h, "covers") })
	oldAcc, err := DecodeState(old)
	require.NoError(t, err)
	require.Empty(t, oldAcc.Covers)
	unsorted := reseal(t, b, func(h map[string]any) { h["covers"] = []string{"z", "a", "z"} })
	u, err := DecodeState(unsorted)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "z"}, u.Covers)

	tests := []struct {
		name      string
		into, add []string
		overlap   []string
		union     []string
	}{
		{"disjoint", []string{"a", "c"}, []string{"b", "d"}, nil, []string{"a", "b", "c", "d"}},
		{"unknown into known", nil, []string{"b"}, nil, []string{"b"}},
		{"known into unknown", []string{"a"}, nil, nil, []string{"a"}},
		{"both unknown", nil, nil, nil, nil},
		{"self", []string{"a", "c"}, []string{"a", "c"}, []string{"a", "c"}, nil},
		{"partial", []string{"a", "b", "c"}, []string{"c", "d"}, []string{"c"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := NewAccumulator(plan), NewAccumulator(plan)
			x.SetCovers(tt.into)
			y.SetCovers(tt.add)
			x.Records, y.Records = 2, 3
			require.Equal(t, tt.overlap, x.Overlap(y))
			err := x.Merge(y)
			if tt.overlap != nil {
				require.ErrorIs(t, err, ErrOverlap)
				require.ErrorContains(t, err, tt.overlap[0])
				require.EqualValues(t, 2, x.Records, "a refused merge changes nothing")
				return
			}
			require.NoError(t, err)
			require.EqualValues(t, 5, x.Records)
			require.Equal(t, tt.union, x.Covers)
		})
	}
}
