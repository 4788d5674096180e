package asr

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// TestAlignerMatchesRapidfuzz checks the aligner against rapidfuzz's Levenshtein.editops on
// the sequences of testdata/editops.json (written by testdata/goldens/gen_asr.py), including
// long pairs that take rapidfuzz's Hirschberg path.
func TestAlignerMatchesRapidfuzz(t *testing.T) {
	b, err := os.ReadFile("testdata/editops.json")
	require.NoError(t, err)
	var f struct {
		Cases [][]any `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.Greater(t, len(f.Cases), 1000)
	var al aligner
	hirschberg := 0
	for i, c := range f.Cases {
		a, b := appendRunes(nil, c[0].(string)), appendRunes(nil, c[1].(string))
		want := counts{subs: int64(c[2].(float64)), dels: int64(c[3].(float64)), ins: int64(c[4].(float64))}
		want.hits = int64(len(a)) - want.subs - want.dels
		require.Equal(t, want, al.align(a, b), "case %d (lengths %d, %d)", i, len(a), len(b))
		if len(a)*len(b) >= 1<<22 {
			hirschberg++
		}
	}
	require.Greater(t, hirschberg, 5, "the file must hold pairs that take the Hirschberg path")
}

// TestAlignerIsMinimal checks on random pairs that the alignment costs the Levenshtein
// distance of a plain dynamic programme, and that its counts add up.
func TestAlignerIsMinimal(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var al aligner
	for n := 0; n < 3000; n++ {
		k := 1 + rng.Intn(5)
		a := make([]int32, rng.Intn(150))
		b := make([]int32, rng.Intn(150))
		for i := range a {
			a[i] = int32(rng.Intn(k)) + int32(rng.Intn(2))*1000 // some symbols outside the ASCII table
		}
		for i := range b {
			b[i] = int32(rng.Intn(k)) + int32(rng.Intn(2))*1000
		}
		c := al.align(a, b)
		d := dpDistance(a, b)
		require.Equal(t, d, c.subs+c.dels+c.ins, "pair %d", n)
		require.Equal(t, int64(len(a)), c.hits+c.subs+c.dels)
		require.Equal(t, int64(len(b)), c.hits+c.subs+c.ins)
		require.Equal(t, d, al.distance(a, b))
	}
}

func dpDistance(a, b []int32) int64 {
	prev := make([]int64, len(b)+1)
	cur := make([]int64, len(b)+1)
	for j := range prev {
		prev[j] = int64(j)
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = int64(i)
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestJiwerWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"a b", []string{"a", "b"}},
		{"a\tb", []string{"a\tb"}},                // a lone tab joins
		{"a\u00a0b c", []string{"a\u00a0b", "c"}}, // so does a no-break space
		{"a\t\tb", []string{"a", "b"}},            // two whitespace characters separate
		{"a \tb", []string{"a", "b"}},
		{"\ta\t", []string{"a"}}, // stripped ends
		{"  a   b  ", []string{"a", "b"}},
		{"a\x1cb", []string{"a\x1cb"}},
		{"a\x1c\x1cb", []string{"a", "b"}},
		{"a\u200bb", []string{"a\u200bb"}}, // not whitespace in Python
	} {
		require.Equal(t, tc.want, jiwerWords(nil, tc.in), "%q", tc.in)
	}
}

func TestPySplit(t *testing.T) {
	require.NotNil(t, pySplit)
	require.Equal(t, []string{"a", "b"}, pySplit(nil, " a\u00a0b\x1c"))
}

func build(t *testing.T, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	o.String("prediction", "prediction")
	o.String("references", "references")
	require.NoError(t, o.Err())
	return m
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]any
		err  string
	}{
		{map[string]any{"compat": "torchmetrics", "lowercase": true}, "lowercase: does not apply with compat: torchmetrics"},
		{map[string]any{"compat": "torchmetrics", "remove_punctuation": false}, "remove_punctuation: does not apply"},
		{map[string]any{"compat": "sclite"}, "compat: must be one of jiwer|torchmetrics"},
		{map[string]any{"lowercase": "maybe"}, "lowercase: must be true or false"},
		{map[string]any{"tokenize": "13a"}, "tokenize: unknown option"},
	} {
		o := core.NewOptions(tc.opts)
		_, err := NewWER(o)
		require.NoError(t, err)
		require.ErrorContains(t, o.Err(), tc.err, "%v", tc.opts)
	}
	a := build(t, "wer", map[string]any{"lowercase": true})
	b := build(t, "wer", nil)
	require.NotEqual(t, a.Signature(), b.Signature())
	require.Contains(t, a.Signature(), "lc:yes")
	require.Contains(t, build(t, "mer", map[string]any{"compat": "torchmetrics"}).Signature(), "compat:torchmetrics")
}

func ex(pred, refs any) core.Example {
	return core.Example{Values: []core.Value{core.FromJSON(pred), core.FromJSON(refs)}}
}

func TestCheck(t *testing.T) {
	m := build(t, "wer", nil)
	for _, tc := range []struct {
		ex     core.Example
		reason string
	}{
		{ex("a", "a"), ""},
		{ex("a", []any{"a"}), ""},
		{ex("", ""), ""},
		{ex(nil, "a"), "missing field"},
		{core.Example{Values: []core.Value{{Kind: core.Missing}, core.FromJSON("a")}}, "missing field"},
		{ex("a", nil), "missing field"},
		{ex([]any{"a"}, "a"), "wrong type"},
		{ex(3, "a"), "wrong type"},
		{ex("a", []any{}), "empty references"},
		{ex("a", []any{"a", "b"}), "multiple references"},
		{ex("a", []any{[]any{"a"}}), "wrong type"},
		{ex("\xff", "a"), "invalid utf-8"},
		{ex("a", "\xff"), "invalid utf-8"},
		{ex("a", []any{"\xff"}), "invalid utf-8"},
	} {
		err := m.Check(&tc.ex)
		if tc.reason == "" {
			require.NoError(t, err)
			continue
		}
		var re *core.RecordError
		require.ErrorAs(t, err, &re)
		require.Equal(t, tc.reason, re.Reason)
	}
}

func TestSentenceScore(t *testing.T) {
	for _, tc := range []struct {
		typ, pred, ref string
		opts           map[string]any
		want           float64
		ok             bool
	}{
		{"wer", "the cat sat", "the cat sat on", nil, 0.25, true},
		{"wer", "a b", "", nil, 2, true}, // jiwer: the number of insertions
		{"cer", "ab", "abcd", nil, 0.5, true},
		// Both have a 2-edit alignment with one hit; rapidfuzz (so jiwer) picks two
		// substitutions for the first and a deletion and an insertion for the second.
		{"mer", "b c", "a b", nil, 1, true},
		{"mer", "y x", "x y", nil, 2.0 / 3, true},
		{"wip", "", "", nil, 1, true},
		{"wer", "a", "", map[string]any{"compat": "torchmetrics"}, 0, false},
		{"wer", "A, b", "a b", map[string]any{"lowercase": true, "remove_punctuation": true}, 0, true},
	} {
		m := build(t, tc.typ, tc.opts)
		e := ex(tc.pred, tc.ref)
		require.NoError(t, m.Check(&e))
		got, ok := m.(core.SentenceScorer).SentenceScore(&e)
		require.Equal(t, tc.ok, ok, "%s %q %q", tc.typ, tc.pred, tc.ref)
		if ok {
			require.InDelta(t, tc.want, got, 1e-15, "%s %q %q", tc.typ, tc.pred, tc.ref)
		}
	}
}

// TestMemoSharesAlignment checks that metrics sharing a core.Memo get the same counts as
// without it, and that a memo entry of another record or other texts is not reused.
func TestMemoSharesAlignment(t *testing.T) {
	wer := build(t, "wer", nil)
	mer := build(t, "mer", nil)
	var memo core.Memo
	recs := [][2]string{{"a b c", "a c"}, {"x y", "y x"}, {"x y", "x y"}}
	a, b := wer.NewState(), mer.NewState()
	plainA, plainB := wer.NewState(), mer.NewState()
	for _, r := range recs {
		memo.Next()
		e := ex(r[0], r[1])
		e.Memo = &memo
		a.Add(&e, 1)
		b.Add(&e, 1)
		// A record whose fields differ (another field mapping) must not read the entry.
		other := ex(r[1], r[0])
		other.Memo = &memo
		c := mer.NewState()
		c.Add(&other, 1)
		plain := mer.NewState()
		o2 := ex(r[1], r[0])
		plain.Add(&o2, 1)
		require.Equal(t, goldentest.Fingerprint(plain.Result()), goldentest.Fingerprint(c.Result()))
		p := ex(r[0], r[1])
		plainA.Add(&p, 1)
		plainB.Add(&p, 1)
	}
	require.Equal(t, goldentest.Fingerprint(plainA.Result()), goldentest.Fingerprint(a.Result()))
	require.Equal(t, goldentest.Fingerprint(plainB.Result()), goldentest.Fingerprint(b.Result()))
}

func TestDecodeStateErrors(t *testing.T) {
	m := build(t, "wer", nil)
	s := m.NewState()
	e := ex("a b", "a c d")
	s.Add(&e, 2)
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	_, err = m.DecodeState(b)
	require.NoError(t, err)
	_, err = build(t, "wer", map[string]any{"lowercase": true}).DecodeState(b)
	require.ErrorIs(t, err, core.ErrIncompatible)
	require.ErrorIs(t, build(t, "cer", nil).NewState().Merge(s), core.ErrIncompatible)
	// Negative and inconsistent counts are corrupt.
	var enc core.Encoder
	enc.Byte(stateVersion)
	enc.String(m.Signature())
	enc.Int64s([]int64{1, 0, 0, 0, 5, 1})
	_, err = m.DecodeState(enc.B)
	require.ErrorIs(t, err, core.ErrCorruptState)
	enc = core.Encoder{}
	enc.Byte(stateVersion)
	enc.String(m.Signature())
	enc.Int64s([]int64{-1, 0, 0, 0, 0, 1})
	_, err = m.DecodeState(enc.B)
	require.ErrorIs(t, err, core.ErrCorruptState)
	_, err = m.DecodeState(append(b, 0))
	require.ErrorIs(t, err, core.ErrCorruptState)
}

func TestNoRecords(t *testing.T) {
	for _, typ := range []string{"wer", "cer", "mer", "wil", "wip"} {
		r := build(t, typ, nil).NewState().Result()
		require.Nil(t, r.Value)
		require.Equal(t, "no records", r.Reason)
	}
}

func TestInterner(t *testing.T) {
	var in interner
	for round := 0; round < 3; round++ {
		in.reset()
		for i := 0; i < 500; i++ { // grows several times
			require.Equal(t, int32(i), in.id(fmt.Sprint("w", round, "-", i)))
		}
		for i := 0; i < 500; i++ {
			require.Equal(t, int32(i), in.id(fmt.Sprint("w", round, "-", i)))
		}
	}
	in.reset()
	require.Equal(t, int32(0), in.id("w0-1"), "a new pair numbers from 0")
	for _, sl := range in.slots {
		if sl.gen != in.gen {
			require.Empty(t, sl.s, "a slot of an old pair must not keep its text")
		}
	}
}

// TestBandedWalkMatchesMatrix forces the banded walk (used for long pairs with few
// differences, where rapidfuzz records only a band) and checks it against the bit matrix
// and against rapidfuzz's counts.
func TestBandedWalkMatchesMatrix(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var al aligner
	for n := 0; n < 2000; n++ {
		k := 1 + rng.Intn(4)
		a := make([]int32, rng.Intn(200))
		for i := range a {
			a[i] = int32(rng.Intn(k))
		}
		b := append([]int32(nil), a...)
		for e := rng.Intn(12); e > 0 && len(b) > 0; e-- {
			p := rng.Intn(len(b))
			switch rng.Intn(3) {
			case 0:
				b[p] = int32(rng.Intn(k))
			case 1:
				b = append(b[:p], b[p+1:]...)
			default:
				b = append(b[:p], append([]int32{int32(rng.Intn(k))}, b[p:]...)...)
			}
		}
		if rng.Intn(4) == 0 {
			b = b[:rng.Intn(len(b)+1)]
		}
		want := al.align(a, b)
		old := fullMatrixLimit
		fullMatrixLimit = 0
		got := al.align(a, b)
		fullMatrixLimit = old
		require.Equal(t, want, got, "pair %d: %v / %v", n, a, b)
	}
	// And on the rapidfuzz cases.
	fullMatrixLimit = 0
	defer func() { fullMatrixLimit = 1 << 20 }()
	TestAlignerMatchesRapidfuzz(t)
}

// TestLongNearIdenticalPair is a pair of 60,000-character texts with a few edits: the
// banded walk keeps the memory small (a full bit matrix would take 900 MB).
func TestLongNearIdenticalPair(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	a := make([]int32, 60000)
	for i := range a {
		a[i] = int32(rng.Intn(40))
	}
	b := append([]int32(nil), a...)
	b[10] = 99
	b = append(b[:29000], b[29001:]...)
	b[31000] = 98
	b = append(b[:59000], append([]int32{97}, b[59000:]...)...)
	var al aligner
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c := al.align(a, b)
	runtime.ReadMemStats(&after)
	require.Equal(t, int64(4), c.subs+c.dels+c.ins)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}

// TestTextsMatchJiwer runs random texts (case, ASCII and Unicode punctuation, every kind of
// whitespace) through the text transforms and the aligner, against jiwer's process_words and
// process_characters under each option set and torchmetrics' edit distances
// (testdata/texts.json, written by testdata/goldens/gen_asr.py).
func TestTextsMatchJiwer(t *testing.T) {
	b, err := os.ReadFile("testdata/texts.json")
	require.NoError(t, err)
	var f struct {
		Options [][2]bool `json:"options"`
		Cases   [][]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.Greater(t, len(f.Cases), 500)
	var sc scratch
	for i, c := range f.Cases {
		var pred, ref string
		require.NoError(t, json.Unmarshal(c[0], &pred))
		require.NoError(t, json.Unmarshal(c[1], &ref))
		for k, o := range f.Options {
			for j, chars := range []bool{false, true} {
				var want [4]int64
				require.NoError(t, json.Unmarshal(c[2+2*k+j], &want))
				got := textOpts{chars: chars, lower: o[0], punct: o[1]}.pair(&sc, pred, ref)
				require.Equal(t, want, [4]int64{got.hits, got.subs, got.dels, got.ins},
					"case %d, lowercase %v, remove_punctuation %v, chars %v: %q / %q", i, o[0], o[1], chars, pred, ref)
			}
		}
		for j, chars := range []bool{false, true} {
			var want int64
			require.NoError(t, json.Unmarshal(c[2+2*len(f.Options)+j], &want))
			got := textOpts{torch: true, chars: chars}.pair(&sc, pred, ref)
			require.Equal(t, want, got.subs+got.dels+got.ins, "case %d torchmetrics chars %v: %q / %q", i, chars, pred, ref)
		}
	}
}
