package parquet

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// Open opens a Parquet file: the footer and schema are read with arrow/go's parquet/file,
// column chunks through this package's page readers, and the records are converted by
// package arrow (arrowsrc.OpenRecords). Errors wrap fileread.ErrCorrupt and name the row group.
func Open(fi fileread.Info, s *fileread.Options) (fileread.Reader, error) {
	return arrowsrc.OpenRecords(fi, s, func(f arrowsrc.File, mem memory.Allocator) (arrowsrc.RecordIter, error) {
		props := parquet.NewReaderProperties(mem)
		props.BufferedStreamEnabled = true
		props.BufferSize = 256 << 10
		pf, err := file.NewParquetReader(f, file.WithReadProps(props))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		it, err := newParquetIter(pf, f, s.Fields, s.BatchSize, mem)
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		return it, nil
	})
}
