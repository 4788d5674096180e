package sources

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/sinks/corpus"
)

// testCorpus returns n pseudo-random records covering every column type WriteCorpus
// infers, nulls and empty lists included (every record has every key).
func testCorpus(n int, seed uint64) []map[string]any {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]map[string]any, n)
	for i := range out {
		refs := make([]any, r.IntN(4))
		for j := range refs {
			refs[j] = randText(r, 12)
		}
		toks := make([][]string, r.IntN(3))
		for j := range toks {
			toks[j] = strings.Fields(randText(r, 10))
			if toks[j] == nil {
				toks[j] = []string{}
			}
		}
		scores := make([]float64, r.IntN(5))
		for j := range scores {
			scores[j] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
		rec := map[string]any{
			"prediction": randText(r, 20),
			"references": refs,
			"tokens":     toks,
			"label":      int64(r.IntN(5) - 1),
			"score":      r.Float64(),
			"scores":     scores,
			"ok":         r.IntN(2) == 0,
			"maybe":      nil,
		}
		if i%3 == 0 {
			rec["maybe"] = randText(r, 5)
		}
		if i%7 == 0 {
			rec["score"] = i // integers in a float column
		}
		if i%11 == 0 {
			rec["label"] = nil
			rec["references"] = nil
		}
		out[i] = rec
	}
	return out
}

func TestCorpusFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	recs := testCorpus(2500, 42)
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe", "absent"}

	// Expected values: encoding/json + core.FromJSON applied to the JSON Lines file.
	jsonl := filepath.Join(dir, "c.jsonl")
	require.NoError(t, corpus.Write(jsonl, recs))
	f, err := os.Open(jsonl)
	require.NoError(t, err)
	var want []gotRec
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for row := 0; sc.Scan(); row++ {
		vals, ok := oracle(sc.Bytes(), fields)
		require.True(t, ok, sc.Text())
		want = append(want, gotRec{Seq: uint64(row), Row: int64(row), Vals: canonAll(vals)})
	}
	require.NoError(t, sc.Err())
	require.NoError(t, f.Close())
	require.Len(t, want, len(recs))
	require.Equal(t, canon(fv(7)), want[7].Vals[4], "an integer in a float column reads back as a float")

	for _, name := range []string{"c.jsonl", "c.ndjson.gz", "c.arrow", "c.arrows", "c.parquet"} {
		path := filepath.Join(dir, name)
		if name != "c.jsonl" {
			require.NoError(t, corpus.Write(path, recs))
		}
		for _, bs := range []int{1, 13, 4096} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			src, err := openFiles(FileConfig{Path: path}, fields, bs, 0, mem)
			require.NoError(t, err)
			d := drain(t, src)
			mem.AssertSize(t, 0)
			require.Len(t, d.recs, len(want))
			for i := range d.recs {
				g := d.recs[i]
				require.Equal(t, path, g.File)
				require.Empty(t, g.Err)
				g.File, g.Raw = "", ""
				require.Equal(t, want[i], g, "%s batch %d record %d", name, bs, i)
			}
			if bs == 13 {
				for i, s := range d.sizes[:len(d.sizes)-1] {
					require.Equal(t, 13, s, "batch %d", i)
				}
			}
		}
	}
}

func TestWriteCorpusSchema(t *testing.T) {
	dir := t.TempDir()
	recs := []map[string]any{
		{"s": "x", "i": 1, "f": 1.5, "b": true, "ls": []string{"a"}, "lls": [][]string{{"a"}, {}}, "lf": []float64{1, 2.5}, "n": nil, "e": []any{}},
		{"s": nil, "i": int8(-2), "f": json.Number("2"), "b": false, "ls": []any{}, "lls": []any{[]any{"b"}}, "lf": []int{3}, "e": []any{}},
	}
	path := filepath.Join(dir, "s.jsonl")
	require.NoError(t, corpus.Write(path, recs))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, `{"b":true,"e":[],"f":1.5,"i":1,"lf":[1.0,2.5],"lls":[["a"],[]],"ls":["a"],"n":null,"s":"x"}
{"b":false,"e":[],"f":2.0,"i":-2,"lf":[3.0],"lls":[["b"]],"ls":[],"s":null}
`, string(b))
	for _, name := range []string{"s.arrow", "s.arrows", "s.parquet"} {
		p := filepath.Join(dir, name)
		require.NoError(t, corpus.Write(p, recs))
		src, err := OpenFiles(FileConfig{Path: p}, []string{"s", "i", "f", "b", "ls", "lls", "lf", "n", "e"}, 10, 0)
		require.NoError(t, err)
		d := drain(t, src)
		require.Equal(t, []string{`s:"x"`, "i:1", canon(fv(1.5)), "b:1", `sl:["a"]`, `sls:[["a"] []]`, canon(fl(1, 2.5)), "null", "sl:[]"}, d.recs[0].Vals, name)
		require.Equal(t, []string{"null", "i:-2", canon(fv(2)), "b:0", "sl:[]", `sls:[["b"]]`, canon(fl(3)), "null", "sl:[]"}, d.recs[1].Vals, name)
	}
}

func TestWriteCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		file string
		recs []map[string]any
		msg  string
	}{
		{"extension", "x.csv", nil, "unknown extension"},
		{"conflict", "x.jsonl", []map[string]any{{"a": "x"}, {"a": 1}}, `field "a": int64 conflicts with string`},
		{"nan", "x.arrow", []map[string]any{{"a": math.NaN()}}, "non-finite"},
		{"struct", "x.parquet", []map[string]any{{"a": map[string]any{}}}, "unsupported value type"},
		{"mixed list", "x.jsonl", []map[string]any{{"a": []any{"x", 1}}}, "mixes element types"},
		{"bad utf-8", "x.jsonl", []map[string]any{{"a": "\xff"}}, "not valid UTF-8"},
		{"list conflict", "x.jsonl", []map[string]any{{"a": []string{"x"}}, {"a": []float64{1}}}, "conflicts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			err := corpus.Write(p, tc.recs)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			_, serr := os.Stat(p)
			require.True(t, os.IsNotExist(serr), "no partial file left")
		})
	}
	// Empty corpora are valid files with no records.
	for _, name := range []string{"e.jsonl", "e.arrow", "e.arrows", "e.parquet"} {
		p := filepath.Join(dir, name)
		require.NoError(t, corpus.Write(p, nil))
		src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 10, 0)
		require.NoError(t, err)
		require.Empty(t, drain(t, src).recs)
	}
}

// TestWriteCorpusParquetReadsBack reads a corpus written as Parquet with pqarrow: the types
// and values are those of the same corpus written as an Arrow IPC file. (Write puts 2,500
// records in one row group; WriteChunks makes three. sinks/corpus checks that both read
// back the same.)
func TestWriteCorpusParquetReadsBack(t *testing.T) {
	dir := t.TempDir()
	recs := testCorpus(2500, 5)
	pq, ar := filepath.Join(dir, "c.parquet"), filepath.Join(dir, "c.arrow")
	require.NoError(t, corpus.WriteChunks(pq, recs, corpus.Chunk))
	require.NoError(t, corpus.Write(ar, recs))

	pf, err := file.OpenParquetFile(pq, false)
	require.NoError(t, err)
	defer pf.Close()
	require.Equal(t, 3, pf.NumRowGroups(), "a row group per %d records", corpus.Chunk)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	require.NoError(t, err)
	got, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer got.Release()

	f, err := os.Open(ar)
	require.NoError(t, err)
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	require.NoError(t, err)
	defer r.Close()
	var batches []arrow.Record
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.Record(i)
		require.NoError(t, err)
		rec.Retain()
		defer rec.Release()
		batches = append(batches, rec)
	}
	want := array.NewTableFromRecords(r.Schema(), batches)
	defer want.Release()

	require.Equal(t, want.NumRows(), got.NumRows())
	require.Equal(t, want.NumCols(), got.NumCols())
	for i := 0; i < int(want.NumCols()); i++ {
		wf, gf := want.Schema().Field(i), got.Schema().Field(i)
		require.Equal(t, wf.Name, gf.Name)
		// pqarrow names list elements after the repeated group ("list") without the
		// ARROW:schema metadata pqarrow's writer stored (pyarrow says "element" either way).
		require.Equal(t, wf.Type.String(), strings.ReplaceAll(gf.Type.String(), "<list:", "<item:"), wf.Name)
		require.True(t, gf.Nullable)
		require.Equal(t, columnJSON(t, want.Column(i)), columnJSON(t, got.Column(i)), wf.Name)
	}
}

// columnJSON is the JSON of the values of a column, whatever its chunks.
func columnJSON(t *testing.T, c *arrow.Column) []any {
	var out []any
	for _, chunk := range c.Data().Chunks() {
		b, err := json.Marshal(chunk)
		require.NoError(t, err)
		var vals []any
		require.NoError(t, json.Unmarshal(b, &vals))
		out = append(out, vals...)
	}
	return out
}
