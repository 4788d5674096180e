package sinks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// exampleRows returns n rows with every kind of id (string, number, absent), slices and
// null scores.
func exampleRows(n int) []pipeline.ExampleRow {
	rows := make([]pipeline.ExampleRow, n)
	for i := range rows {
		r := pipeline.ExampleRow{Seq: uint64(i) + 1<<63, Pos: pipeline.Position{File: "a.jsonl", Row: int64(i)}}
		switch i % 3 {
		case 0:
			r.ID = core.Value{Kind: core.String, Str: fmt.Sprintf("id-%d", i)}
		case 1:
			r.ID = core.Value{Kind: core.Int, Int: int64(-i)}
		}
		if i%4 == 0 {
			r.Slice = "lang=de"
		}
		a, b := float64(i)/8, -float64(i)
		r.Scores = []*float64{&a, &b}
		if i%5 == 0 {
			r.Scores[1] = nil
		}
		rows[i] = r
	}
	return rows
}

// TestExamplesParquetMatchesJSONL writes the same rows as Parquet and JSON Lines and reads
// the Parquet file with pqarrow: the types are those the pqarrow-based writer produced and
// the values those of the JSON Lines file, across row groups.
func TestExamplesParquetMatchesJSONL(t *testing.T) {
	dir := t.TempDir()
	pq, jl := filepath.Join(dir, "ex.parquet"), filepath.Join(dir, "ex.jsonl")
	rows := exampleRows(parquetRowGroup + 1000)
	for _, p := range []string{pq, jl} {
		rf, err := NewRecordFiles("", p, "", []string{"bleu", "chrf"})
		require.NoError(t, err)
		require.NoError(t, rf.WriteBatch(context.Background(), nil, rows[:10]))
		require.NoError(t, rf.WriteBatch(context.Background(), nil, rows[10:]))
		require.NoError(t, rf.Commit())
	}

	pf, err := file.OpenParquetFile(pq, false)
	require.NoError(t, err)
	defer pf.Close()
	require.Equal(t, 2, pf.NumRowGroups())
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	require.Equal(t, []arrow.Field{
		{Name: "seq", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "position", Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "slice", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bleu", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "chrf", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, withoutMetadata(tbl.Schema().Fields()))

	got := make([]map[string]any, tbl.NumRows())
	for i := range got {
		got[i] = map[string]any{"scores": map[string]any{}}
	}
	tr := array.NewTableReader(tbl, 1<<20)
	defer tr.Release()
	row := 0
	for tr.Next() {
		rec := tr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			g := got[row+i]
			g["seq"] = rec.Column(0).(*array.Uint64).Value(i)
			g["position"] = rec.Column(1).(*array.String).Value(i)
			for c, name := range []string{"id", "slice"} {
				if col := rec.Column(2 + c).(*array.String); col.IsValid(i) {
					g[name] = col.Value(i)
				}
			}
			for c, name := range []string{"bleu", "chrf"} {
				if col := rec.Column(4 + c).(*array.Float64); col.IsValid(i) {
					g["scores"].(map[string]any)[name] = col.Value(i)
				}
			}
		}
		row += int(rec.NumRows())
	}
	require.Equal(t, len(rows), row)

	f, err := os.Open(jl)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		var want map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&want))
		require.Equal(t, normalize(want), normalize(got[i]), "row %d", i)
	}
	require.NoError(t, sc.Err())
}

func withoutMetadata(fs []arrow.Field) []arrow.Field {
	for i := range fs {
		fs[i].Metadata = arrow.Metadata{}
	}
	return fs
}

// normalize renders a row as text: ids as the Parquet file holds them (text), numbers by
// their decimal value.
func normalize(m map[string]any) string {
	if id, ok := m["id"].(json.Number); ok {
		m["id"] = id.String()
	}
	b, _ := json.Marshal(m)
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&v)
	out, _ := json.Marshal(v)
	return string(out)
}
