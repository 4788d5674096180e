package fileread

import "github.com/apache/arrow/go/v15/arrow"

// Seg is a run of rows of one Arrow record that belongs to a batch.
type Seg struct {
	Rec     arrow.Record
	Cols    []int // per field: column of Rec, or a negative marker of the reader
	Row     int64 // first row in Rec
	FileRow int64 // its row index in the file
	K       int64 // rows
	Start   int   // index of its first record in the batch (when built)
	CapHint int
	Lazy    bool   // records not built yet (columnar batch)
	Where   string // the part of the file, for errors
}
