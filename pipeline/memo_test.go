package pipeline

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
)

// The metrics of a plan share a record's derived data through the Folder's core.Memo (the
// ROUGE metrics with the same options tokenize a record once). Records here are decoded into
// one recycled buffer, each record's strings at the same addresses and lengths as the last
// one's, with slices (two states per metric and record) and a metric reading another field:
// every metric must give exactly what it gives alone, on strings of its own.
func TestFolderMemoWithRecycledBuffers(t *testing.T) {
	specs := []map[string]any{
		{"type": "rouge_n", "n": 1, "stem": true},
		{"type": "rouge_n", "n": 2, "stem": true},
		{"type": "rouge_n", "n": 1, "stem": true, "prediction": "alt"},
		{"type": "rouge_l", "compat": "rouge-score", "stem": true},
		{"type": "rouge_lsum", "stem": true}, // last: the next record's first metric reads what it read
	}
	var ms []*metrics.Metric
	for _, s := range specs {
		m, err := metrics.New(s)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	rng := rand.New(rand.NewSource(3))
	words := strings.Fields("cats running ran the dog dogs home houses quickly quick a b c")
	// text returns n bytes of words and newlines (padded), so that every record's strings
	// have the same lengths.
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(4) == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()[:n]
	}
	type rec struct{ pred, ref, alt, lang string }
	var recs []rec
	for i := 0; i < 300; i++ {
		recs = append(recs, rec{text(40), text(30), text(40), fmt.Sprint("l", i%3)})
	}

	plan := NewPlan(ms, []string{"lang"})
	values := func(r rec) []core.Value {
		v := make([]core.Value, len(plan.Fields))
		v[plan.FieldIndex("prediction")] = core.Value{Kind: core.String, Str: r.pred}
		v[plan.FieldIndex("references")] = core.Value{Kind: core.StringList, Strs: []string{r.ref}}
		v[plan.FieldIndex("alt")] = core.Value{Kind: core.String, Str: r.alt}
		v[plan.FieldIndex("lang")] = core.Value{Kind: core.String, Str: r.lang}
		return v
	}

	// One folder, every record's strings in the same buffer.
	acc, f := NewAccumulator(plan), NewFolder(plan)
	buf := make([]byte, 40+30+40)
	refs := make([]string, 1)
	for _, r := range recs {
		copy(buf, r.pred+r.ref+r.alt)
		refs[0] = unsafe.String(&buf[40], 30)
		v := values(r)
		v[plan.FieldIndex("prediction")].Str = unsafe.String(&buf[0], 40)
		v[plan.FieldIndex("references")].Strs = refs
		v[plan.FieldIndex("alt")].Str = unsafe.String(&buf[70], 40)
		rec := Record{Values: v}
		require.Nil(t, f.Check(&rec))
		f.Add(acc, &rec, 1)
	}
	got := acc.Results()

	for i, m := range ms {
		alone := NewPlan([]*metrics.Metric{m}, []string{"lang"})
		a, af := NewAccumulator(alone), NewFolder(alone)
		for _, r := range recs {
			v := make([]core.Value, len(alone.Fields))
			all := values(r)
			for j, name := range alone.Fields {
				v[j] = all[plan.FieldIndex(name)]
			}
			rec := Record{Values: v}
			af.Add(a, &rec, 1)
		}
		want := a.Results()
		require.Equal(t, want.Metrics[0].Result, got.Metrics[i].Result, "%v", specs[i])
		for k, s := range want.Slices {
			require.Equal(t, s.Metrics[0].Result, got.Slices[k].Metrics[i].Result, "%v slice %s", specs[i], s.Key)
		}
	}
}
