package bleu

import (
	"testing"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// TestAddSegment requires AddSegment to be Add followed by SegmentStats: the same state
// (byte for byte) and the same statistics, for every weight and for records a state ignores,
// whether a second state folding the record (as a slice's state does after the overall one)
// takes them from the record's memo or not.
func TestAddSegment(t *testing.T) {
	recs := []rec{
		seed1, seed2, {"", []string{"a"}}, {"a b c", []string{""}}, {"a b c", []string{"a b c", "a b"}},
		{toks("x y"), refLists("x y z")}, {"Ein 28-jähriger Koch wurde tot aufgefunden.", "Ein 28-jähriger Koch, tot aufgefunden."},
	}
	unusable := core.Example{Values: []core.Value{{Kind: core.Null}, {Kind: core.String, Str: "a"}}}
	for _, c := range []struct {
		typ  string
		opts map[string]any
	}{
		{"bleu", nil}, {"bleu", map[string]any{"effective_order": true, "scale": 100}},
		{"bleu", map[string]any{"tokenize": "intl", "lowercase": true}},
		{"chrf", nil}, {"chrf", map[string]any{"word_order": 2, "scale": 100}},
		{"chrf", map[string]any{"whitespace": true}},
	} {
		m := build(t, c.typ, c.opts)
		sc, err := m.(core.SegmentStatser).SegmentScorer()
		require.NoError(t, err)
		viaAdd, viaSeg, viaMemo := m.NewState(), m.NewState(), m.NewState()
		var want, got, memoed []float64
		var memo core.Memo
		for i, r := range recs {
			ex := example(r, uint64(i))
			w := int64(i%3 + 1)
			viaAdd.Add(&ex, w)
			want, err = sc.SegmentStats(&ex, want)
			require.NoError(t, err)
			memo.Next()
			ex.Memo = &memo
			got, err = viaSeg.(core.SegmentAdder).AddSegment(&ex, w, got)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s %v record %d", c.typ, c.opts, i)
			memoed, err = viaMemo.(core.SegmentAdder).AddSegment(&ex, w, memoed)
			require.NoError(t, err)
			require.Equal(t, want, memoed, "%s %v record %d from the memo", c.typ, c.opts, i)
			// Other values (another field read by the same metric) are not taken from it.
			other := example(recs[(i+1)%len(recs)], uint64(i))
			other.Memo = &memo
			x, err := sc.SegmentStats(&other, nil)
			require.NoError(t, err)
			y, err := m.NewState().(core.SegmentAdder).AddSegment(&other, 1, nil)
			require.NoError(t, err)
			require.Equal(t, x, y)
		}
		for _, st := range []core.State{viaSeg, viaMemo} {
			a, err := viaAdd.MarshalBinary()
			require.NoError(t, err)
			b, err := st.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, a, b, "%s %v", c.typ, c.opts)
		}
		viaAdd.Add(&unusable, 1)
		_, err = viaSeg.(core.SegmentAdder).AddSegment(&unusable, 1, got)
		require.ErrorIs(t, err, errUnusable)
		a, err := viaAdd.MarshalBinary()
		require.NoError(t, err)
		b, err := viaSeg.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, a, b, "%s %v", c.typ, c.opts)
		require.Equal(t, viaAdd.Result(), viaSeg.Result())
	}
	// A preset without sacrebleu's statistics still adds, and says why there are none.
	m := build(t, "bleu", map[string]any{"compat": "nltk"})
	viaAdd, viaSeg := m.NewState(), m.NewState()
	ex := example(seed1, 0)
	viaAdd.Add(&ex, 2)
	out, err := viaSeg.(core.SegmentAdder).AddSegment(&ex, 2, nil)
	require.ErrorContains(t, err, "no sacrebleu segment statistics")
	require.Empty(t, out)
	require.Equal(t, viaAdd.Result(), viaSeg.Result())
}

// BLEU keeps the tokens and chrF the n-gram tables of the last record's references, for the
// next records with the same references (a segment's systems, as compare feeds them). A
// state folding the records one after another must equal the merge of one fresh state per
// record, also when a reference's bytes change in place between two records (a source
// reusing its buffer: the kept copy must not alias it).
func TestKeptReferences(t *testing.T) {
	buf := []byte("Der Hund lief im Park.")
	aliased := unsafe.String(&buf[0], len(buf))
	type step struct {
		r      rec
		mutate string // new bytes for buf before the record
	}
	steps := []step{
		{r: rec{"Der Hund lief.", []string{aliased}}},
		{r: rec{"Ein Hund lief im Park.", []string{aliased}}},
		{r: rec{"Die Katze sah.", []string{aliased}}, mutate: "Die Katze sah im Haus."},
		{r: rec{"Die Katze sah im Haus.", []string{aliased}}},
		{r: rec{"a b c d", []string{"a b c d e", "a b x d"}}},
		{r: rec{"a b x d", []string{"a b c d e", "a b x d"}}},
		{r: rec{"a b x d", []string{"a b c d e"}}},
		{r: rec{"a b x d e", []string{"a b c d e", "a b x d", "e"}}},
		{r: rec{"A B C", []string{"a b c"}}},
		{r: rec{"a b c", []string{"a b c"}}},
		{r: rec{"", []string{"a b c"}}},
		{r: rec{"a  b\tc", "a b c"}},
		{r: rec{"a b c", "a b c"}},
	}
	for _, c := range []struct {
		typ  string
		opts map[string]any
	}{
		{"bleu", nil}, {"bleu", map[string]any{"tokenize": "intl", "lowercase": true}},
		{"bleu", map[string]any{"compat": "nltk"}}, {"bleu", map[string]any{"compat": "mindnlp"}},
		{"chrf", nil}, {"chrf", map[string]any{"word_order": 2, "lowercase": true}},
		{"chrf", map[string]any{"whitespace": true, "char_order": 3}},
	} {
		copy(buf, "Der Hund lief im Park.")
		m := build(t, c.typ, c.opts)
		running, merged := m.NewState(), m.NewState()
		for i, s := range steps {
			if s.mutate != "" {
				require.Len(t, s.mutate, len(buf))
				copy(buf, s.mutate)
			}
			ex := example(s.r, uint64(i))
			running.Add(&ex, 1)
			fresh := m.NewState()
			fresh.Add(&ex, 1)
			require.NoError(t, merged.Merge(fresh))
			a, err := running.MarshalBinary()
			require.NoError(t, err)
			b, err := merged.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, b, a, "%s %v after record %d", c.typ, c.opts, i)
		}
		require.Equal(t, merged.Result(), running.Result())
	}
}
