package sources

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// BenchmarkParquetRead reads a 200k-row Parquet file (a string column and a list<string>
// column, four row groups, written by pqarrow so that the input does not depend on our
// writer) end to end.
func BenchmarkParquetRead(b *testing.B) {
	const n, rg = 200000, 50000
	rec := stringRecord(n)
	defer rec.Release()
	var recs []arrow.Record
	for off := int64(0); off < n; off += rg {
		s := rec.NewSlice(off, off+rg)
		defer s.Release()
		recs = append(recs, s)
	}
	path := filepath.Join(b.TempDir(), "read.parquet")
	writeArrowFile(b, path, FormatParquet, recs...)
	benchFile(b, path, []string{"prediction", "references"})
}
