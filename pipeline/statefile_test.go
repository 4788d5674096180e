package pipeline

import (
	"testing"

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
	for n := 0; n < len(b); n += 1 + n/16 {
		_, err := DecodeState(b[:n])
		require.ErrorIs(t, err, ErrStateFormat, "truncated to %d", n)
	}
	for i := 0; i < len(b); i += 3 {
		c := append([]byte(nil), b...)
		c[i] ^= 0x10
		_, err := DecodeState(c)
		require.ErrorIs(t, err, ErrStateFormat, "flip at %d", i)
	}
	// Another format version.
	c := append([]byte(nil), b...)
	c[len(stateMagic)] = 99
	_, err = DecodeState(c)
	require.ErrorContains(t, err, "checksum")
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

func str(s string) core.Value     { return core.Value{Kind: core.String, Str: s} }
func strs(s ...string) core.Value { return core.Value{Kind: core.StringList, Strs: s} }
func integer(i int64) core.Value  { return core.Value{Kind: core.Int, Int: i} }
func float(f float64) core.Value  { return core.Value{Kind: core.Float, Float: f} }
