package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"
)

// layoutRecords has a column of each kind, and "u", unique strings of 600 bytes whose
// dictionary passes the 1 MiB limit after about 1,750 rows.
func layoutRecords(n int) []map[string]any {
	classes := []string{"cat", "dog", "bird"}
	recs := make([]map[string]any, n)
	for i := range recs {
		recs[i] = map[string]any{
			"s":  classes[i%3],
			"i":  int64(i % 5),
			"f":  float64(i%4) / 2,
			"b":  i%2 == 0,
			"ls": []string{classes[i%3], classes[(i+1)%3]},
			"lf": []float64{float64(i % 3)},
			"u":  fmt.Sprintf("%08d", i) + strings.Repeat("x", 592),
		}
		if i%7 == 0 {
			recs[i]["s"] = nil
		}
	}
	return recs
}

// chunkLayout is what one column chunk's metadata says about its pages.
type chunkLayout struct {
	dictPage bool
	data     []string // encodings of the data pages, as encoding_stats lists them
	codec    compress.Compression
}

// TestParquetLayout checks that Write's and WriteFunc's files have pyarrow's default layout
// (row groups of up to 1Mi rows, dictionary pages with PLAIN fallback past 1 MiB, no
// dictionary for booleans, snappy) and that WriteChunks keeps its small row groups, with the
// same values.
func TestParquetLayout(t *testing.T) {
	dir := t.TempDir()
	recs := layoutRecords(2500)
	dict := chunkLayout{dictPage: true, data: []string{"RLE_DICTIONARY"}, codec: compress.Codecs.Snappy}
	wantCols := map[string]chunkLayout{
		"b":               {data: []string{"PLAIN"}, codec: compress.Codecs.Snappy},
		"f":               dict,
		"i":               dict,
		"lf.list.element": dict,
		"ls.list.element": dict,
		"s":               dict,
		"u":               {dictPage: true, data: []string{"PLAIN", "RLE_DICTIONARY"}, codec: compress.Codecs.Snappy},
	}
	tests := []struct {
		name      string
		write     func(path string) error
		rowGroups []int64
		cols      map[string]chunkLayout // some columns of the first row group
	}{
		{"Write", func(p string) error { return Write(p, recs) }, []int64{2500}, wantCols},
		{"WriteFunc", func(p string) error { return WriteFunc(p, len(recs), func(i int) map[string]any { return recs[i] }) }, []int64{2500}, wantCols},
		{"WriteChunks", func(p string) error { return WriteChunks(p, recs, 1000) }, []int64{1000, 1000, 500}, map[string]chunkLayout{"i": dict, "b": wantCols["b"]}},
		{"WriteFunc past 1Mi rows", func(p string) error {
			return WriteFunc(p, maxRowGroupRows+3, func(i int) map[string]any { return map[string]any{"i": int64(i % 5)} })
		}, []int64{maxRowGroupRows, 3}, map[string]chunkLayout{"i": dict}},
		{"empty", func(p string) error { return Write(p, nil) }, []int64{0}, nil},
	}
	tables := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".parquet")
			require.NoError(t, tc.write(path))
			pf, err := file.OpenParquetFile(path, false)
			require.NoError(t, err)
			defer pf.Close()
			var rowGroups []int64
			for g := 0; g < pf.NumRowGroups(); g++ {
				rowGroups = append(rowGroups, pf.MetaData().RowGroup(g).NumRows())
			}
			require.Equal(t, tc.rowGroups, rowGroups)
			if tc.cols != nil {
				rg := pf.MetaData().RowGroup(0)
				got := map[string]chunkLayout{}
				for c := 0; c < rg.NumColumns(); c++ {
					cc, err := rg.ColumnChunk(c)
					require.NoError(t, err)
					l := chunkLayout{dictPage: cc.HasDictionaryPage(), codec: cc.Compression()}
					for _, s := range cc.EncodingStats() {
						if s.PageType.String() != "DICTIONARY_PAGE" && !slices.Contains(l.data, s.Encoding.String()) {
							l.data = append(l.data, s.Encoding.String())
						}
					}
					slices.Sort(l.data)
					if _, ok := tc.cols[cc.PathInSchema().String()]; ok {
						got[cc.PathInSchema().String()] = l
					}
				}
				require.Equal(t, tc.cols, got)
			}
			if tc.rowGroups[0] == 2500 || tc.name == "WriteChunks" {
				fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
				require.NoError(t, err)
				tbl, err := fr.ReadTable(context.Background())
				require.NoError(t, err)
				defer tbl.Release()
				var sb strings.Builder
				tr := array.NewTableReader(tbl, 700)
				defer tr.Release()
				for tr.Next() {
					require.NoError(t, array.RecordToJSON(tr.Record(), &sb))
				}
				sum := sha256.Sum256([]byte(sb.String()))
				require.Contains(t, sb.String(), `"u":"00002499x`)
				tables[tc.name] = hex.EncodeToString(sum[:]) // not the 1.5 MB of JSON in a failure
			}
		})
	}
	require.Len(t, tables, 3)
	require.Equal(t, tables["Write"], tables["WriteFunc"])
	require.Equal(t, tables["Write"], tables["WriteChunks"])
}
