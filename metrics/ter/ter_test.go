package ter

import (
	"errors"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/tokenize"
	"github.com/stretchr/testify/require"
)

func build(t testing.TB, opts map[string]any) *Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := New(o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m.(*Metric)
}

func text(pred string, refs ...string) *core.Example {
	return &core.Example{Values: []core.Value{{Kind: core.String, Str: pred}, {Kind: core.StringList, Strs: refs}}}
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts map[string]any
		bad  string
	}{
		{"defaults", map[string]any{}, ""},
		{"all on", map[string]any{"normalized": true, "no_punct": true, "asian_support": true, "case_sensitive": true, "scale": 100}, ""},
		{"unknown preset", map[string]any{"compat": "torchmetrics"}, "compat"},
		{"bad scale", map[string]any{"scale": 10}, "scale"},
		{"not a bool", map[string]any{"normalized": "yes please"}, "normalized"},
		{"unknown option", map[string]any{"lowercase": true}, "lowercase"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := core.NewOptions(tc.opts)
			_, err := New(o)
			require.NoError(t, err)
			if tc.bad == "" {
				require.NoError(t, o.Err())
				return
			}
			require.ErrorContains(t, o.Err(), tc.bad)
		})
	}
}

func TestSignature(t *testing.T) {
	require.Equal(t, "type:ter|compat:sacrebleu|case:lc|tok:tercom|norm:no|punct:yes|asian:no|scale:1|version:"+buildinfo.Version,
		build(t, nil).Signature())
	require.Equal(t, "type:ter|compat:sacrebleu|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|scale:100|version:"+buildinfo.Version,
		build(t, map[string]any{"normalized": true, "no_punct": true, "asian_support": true, "case_sensitive": true, "scale": 100}).Signature())
}

func TestCheck(t *testing.T) {
	m := build(t, nil)
	for _, tc := range []struct {
		name   string
		ex     *core.Example
		reason string
	}{
		{"ok", text("a b", "a b"), ""},
		{"empty strings are fine", text("", ""), ""},
		{"no references", text("a", []string{}...), "empty references"},
		{"missing prediction", &core.Example{Values: []core.Value{{Kind: core.Missing}, {Kind: core.String, Str: "a"}}}, "missing field"},
		{"number prediction", &core.Example{Values: []core.Value{{Kind: core.Float, Float: 1}, {Kind: core.String, Str: "a"}}}, "wrong type"},
		{"invalid utf-8", text("a\xff", "a"), "invalid utf-8"},
		{"one field", &core.Example{Values: []core.Value{{Kind: core.String, Str: "a"}}}, "missing field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := m.Check(tc.ex)
			if tc.reason == "" {
				require.NoError(t, err)
				return
			}
			var re *core.RecordError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tc.reason, re.Reason)
			// Add ignores what Check rejects for its shape, and never panics.
			s := m.NewState()
			s.Add(tc.ex, 1)
		})
	}
}

// TestPunctClass pins the character class of the Tercom punctuation rule: Go must read
// "([{-~[-` -&(-+:-@/])" as Python does.
func TestPunctClass(t *testing.T) {
	var got []byte
	for c := byte(0); c < 0x80; c++ {
		if rePunct().MatchString(string(rune(c))) {
			got = append(got, c)
		}
	}
	require.Equal(t, " !\"#$%&()*+/:;<=>?@[\\]^_`{|}~", string(got))
}

func TestPrepare(t *testing.T) {
	for _, tc := range []struct {
		opts textOptions
		in   string
		want string // tokens joined by spaces
	}{
		{textOptions{}, "The CAT, sat. \t", "the cat, sat."},
		{textOptions{caseSensitive: true}, "The CAT", "The CAT"},
		{textOptions{noPunct: true}, `a.b, "c"? (d)!:;`, "ab c d"},
		{textOptions{noPunct: true, asian: true}, "東京。（テスト）", "東京テスト"},
		{textOptions{normalized: true}, "it's 1,000.5 &amp; 3-4 a.b", "it 's 1,000.5 & 3 - 4 a . b"},
		{textOptions{normalized: true, asian: true}, "東京は、", "東 京 は 、"},
		{textOptions{asian: true}, "東京は", "東京は"}, // asian_support alone does nothing
		{textOptions{}, " \u00a0 ", ""},
	} {
		got := strings.Join(tokenize.PySplit(tc.opts.prepare(tc.in)), " ")
		require.Equal(t, tc.want, got, "%+v %q", tc.opts, tc.in)
	}
}

func TestResultEdges(t *testing.T) {
	m := build(t, nil)
	s := m.NewState()
	r := s.Result()
	require.Nil(t, r.Value)
	require.Equal(t, "no records", r.Reason)

	s.Add(text("", ""), 1)
	require.Equal(t, 0.0, s.Result().Value) // nothing to edit, nothing to match
	s.Add(text("a b", " "), 1)
	require.Equal(t, 1.0, s.Result().Value) // empty references, non-empty hypothesis
	require.Equal(t, int64(2), s.Result().Details["num_edits"])
	s.Add(text("a b c d", "a b c d"), 3) // weight 3
	require.Equal(t, 2.0/12, s.Result().Value)
	require.Equal(t, 12.0, s.Result().Details["ref_length"])
	require.Equal(t, "type:ter|compat:sacrebleu|nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|scale:1|version:"+buildinfo.Version,
		s.Result().Details["signature"])
	s.Add(text("x", "x", "y"), 1)
	require.Contains(t, s.Result().Details["signature"], "nrefs:var")
}

func TestStateCodec(t *testing.T) {
	m := build(t, nil)
	s := m.NewState()
	s.Add(text("the cat sat on the mat", "the mat the cat sat on", "a cat sat"), 2)
	s.Add(text("x", ""), 1)
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	d, err := m.DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, s.Result(), d.Result())

	_, err = m.DecodeState(b[:len(b)-1])
	require.ErrorIs(t, err, core.ErrCorruptState)
	_, err = build(t, map[string]any{"normalized": true}).DecodeState(b)
	require.ErrorIs(t, err, core.ErrIncompatible)
	require.ErrorIs(t, build(t, map[string]any{"scale": 100}).NewState().Merge(s), core.ErrIncompatible)

	// n = 0 with edits is inconsistent.
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(m.Signature())
	for _, x := range []int64{0, 0, 0, 5, 0} {
		e.Varint(x)
	}
	var sum core.Sum
	e.Sum(&sum)
	_, err = m.DecodeState(e.B)
	require.ErrorIs(t, err, core.ErrCorruptState)
}

func TestTokenListInputs(t *testing.T) {
	m := build(t, nil)
	a := m.NewState()
	a.Add(&core.Example{Values: []core.Value{
		{Kind: core.StringList, Strs: []string{"The", "cat", "sat"}},
		{Kind: core.StringLists, Lists: [][]string{{"the", "sat", "cat"}}},
	}}, 1)
	b := m.NewState()
	b.Add(text("The cat sat", "the sat cat"), 1)
	require.Equal(t, b.Result(), a.Result())
}

func TestBeamErrorIsNotAPanic(t *testing.T) {
	require.True(t, errors.Is(errBeam, errBeam))
	var a aligner
	e, err := a.edits([]int32{1, 2, 3}, nil)
	require.NoError(t, err)
	require.Equal(t, int64(3), e)
}

// TestMemo: a record folded into two states (overall and a slice) is scored once through
// core.Memo, and a stored result is never used for other values or another record.
func TestMemo(t *testing.T) {
	m := build(t, nil)
	var memo core.Memo
	a, b, plain := m.NewState(), m.NewState(), m.NewState()
	recs := []*core.Example{text("a b c", "c b a"), text("x y", "x y z"), text("x y", "y x", "x")}
	for _, ex := range recs {
		memo.Next()
		ex.Memo = &memo
		a.Add(ex, 1)
		b.Add(ex, 2)
		plain.Add(&core.Example{Values: ex.Values}, 1)
	}
	require.Equal(t, plain.Result(), a.Result())
	require.Equal(t, int64(2)*a.Result().Details["num_edits"].(int64), b.Result().Details["num_edits"])

	// Same record, other options: its own key.
	other := build(t, map[string]any{"case_sensitive": true})
	memo.Next()
	ex := text("A B", "a b")
	ex.Memo = &memo
	s1, s2 := m.NewState(), other.NewState()
	s1.Add(ex, 1)
	s2.Add(ex, 1)
	require.Equal(t, 0.0, s1.Result().Value)
	require.Equal(t, 1.0, s2.Result().Value)
	// Same memo generation, different values (another metric's fields): recomputed.
	ex2 := text("c d", "a b")
	ex2.Memo = &memo
	s3 := m.NewState()
	s3.Add(ex2, 1)
	require.Equal(t, 1.0, s3.Result().Value)
}
