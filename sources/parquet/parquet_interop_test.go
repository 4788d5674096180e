package parquet

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/stretchr/testify/require"
)

// The fixtures under testdata/parquet are written by gen.py with pyarrow, duckdb and polars
// (pinned in requirements.txt): LZ4_RAW, BYTE_STREAM_SPLIT of every physical type, the
// DELTA encodings, RLE booleans, dictionaries (PLAIN_DICTIONARY and RLE_DICTIONARY), data
// pages v1 and v2, every codec, and DECIMAL on INT32, INT64 and FIXED_LEN_BYTE_ARRAY. Each
// holds the records of its JSONL twin, field for field.

// interopFields are the fields of records.jsonl.
var interopFields = []string{"id", "i32", "i64", "f32", "f64", "b", "s", "toks", "scores", "label",
	"d9_2", "d18_4", "d5_0", "d38_10", "d38_0", "d2_1", "d76_20"}

// readCanon reads fields of a file (in batches of batchSize) as canonical values per row.
func readCanon(t *testing.T, path string, fields []string, batchSize int) [][]string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	src, err := openFiles(FileConfig{Path: path}, fields, batchSize, 0, mem)
	require.NoError(t, err)
	d := drain(t, src)
	mem.AssertSize(t, 0)
	rows := make([][]string, len(d.recs))
	for i, r := range d.recs {
		require.Empty(t, r.Err, "%s row %d", path, i)
		rows[i] = r.Vals
	}
	return rows
}

// parquetColumns are the top-level field names of a Parquet file.
func parquetColumns(t *testing.T, path string) map[string]bool {
	pf, err := file.OpenParquetFile(path, false)
	require.NoError(t, err)
	defer pf.Close()
	out := map[string]bool{}
	root := pf.MetaData().Schema.Root()
	for i := 0; i < root.NumFields(); i++ {
		out[root.Field(i).Name()] = true
	}
	return out
}

func TestParquetWritersMatchJSONL(t *testing.T) {
	dir := filepath.Join("testdata", "parquet")
	want := readCanon(t, filepath.Join(dir, "records.jsonl"), interopFields, 1000)
	require.Len(t, want, 120)
	paths, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	require.NoError(t, err)
	sort.Strings(paths)
	n := 0
	for _, path := range paths {
		if strings.HasPrefix(filepath.Base(path), "duck_literals") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			cols := parquetColumns(t, path)
			// duckdb and polars stop at 38 digits: only pyarrow writes d76_20.
			require.Len(t, cols, len(interopFields)-map[bool]int{true: 0, false: 1}[cols["d76_20"]])
			for _, bs := range []int{7, 1000} {
				got := readCanon(t, path, interopFields, bs)
				require.Len(t, got, len(want))
				for i := range want {
					for f, name := range interopFields {
						if cols[name] {
							require.Equal(t, want[i][f], got[i][f], "batch size %d, row %d, field %s", bs, i, name)
						} else {
							require.Equal(t, "missing", got[i][f])
						}
					}
				}
			}
		})
	}
	require.Equal(t, 17, n)
	// duckdb's type for the literal 0.5 is DECIMAL.
	lit := filepath.Join(dir, "duck_literals.parquet")
	require.Equal(t, readCanon(t, filepath.Join(dir, "duck_literals.jsonl"), []string{"id", "lit"}, 1000),
		readCanon(t, lit, []string{"id", "lit"}, 1000))
}
