package sources

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/sinks/corpus"
)

func TestWriteCorpusFuncMatchesWriteCorpus(t *testing.T) {
	dir := t.TempDir()
	recs := testCorpus(2500, 11)
	// The first chunk must show every field and type: put a complete record first.
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe"}
	for _, name := range []string{"a.jsonl", "a.jsonl.gz", "a.arrow", "a.arrows", "a.parquet"} {
		p1, p2 := filepath.Join(dir, "1"+name), filepath.Join(dir, "2"+name)
		require.NoError(t, corpus.Write(p1, recs))
		require.NoError(t, corpus.WriteFunc(p2, len(recs), func(i int) map[string]any { return recs[i] }))
		if name == "a.jsonl" {
			b1, err := os.ReadFile(p1)
			require.NoError(t, err)
			b2, err := os.ReadFile(p2)
			require.NoError(t, err)
			require.Equal(t, string(b1), string(b2))
		}
		s1, err := OpenFiles(FileConfig{Path: p1}, fields, 100, 0)
		require.NoError(t, err)
		s2, err := OpenFiles(FileConfig{Path: p2}, fields, 100, 0)
		require.NoError(t, err)
		d1, d2 := drain(t, s1), drain(t, s2)
		require.Equal(t, len(d1.recs), len(d2.recs))
		for i := range d1.recs {
			d1.recs[i].File, d2.recs[i].File = "", ""
			require.Equal(t, d1.recs[i], d2.recs[i], "%s record %d", name, i)
		}
	}
	// Empty corpora and misfits.
	require.NoError(t, corpus.WriteFunc(filepath.Join(dir, "empty.arrow"), 0, nil))
	gen := func(i int) map[string]any {
		if i == 1500 {
			return map[string]any{"x": "text"}
		}
		return map[string]any{"x": int64(i)}
	}
	require.ErrorContains(t, corpus.WriteFunc(filepath.Join(dir, "bad.arrow"), 2000, gen), `record 1500: field "x": string does not fit the column's int64`)
	gen2 := func(i int) map[string]any {
		if i == 1999 {
			return map[string]any{"y": int64(1)}
		}
		return map[string]any{"x": 1.5}
	}
	require.ErrorContains(t, corpus.WriteFunc(filepath.Join(dir, "bad.jsonl"), 2000, gen2), `record 1999: field "y" is not in the first 1000 records`)
	intoFloat := func(i int) map[string]any {
		if i >= 1000 {
			return map[string]any{"x": int64(i)}
		}
		return map[string]any{"x": 1.5}
	}
	require.NoError(t, corpus.WriteFunc(filepath.Join(dir, "ok.parquet"), 2000, intoFloat))
}
