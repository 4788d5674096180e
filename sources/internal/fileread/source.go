package fileread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/pipeline"
)

// Source is a pipeline.Source reading a list of files in order, one Reader at a time. It
// is used by a single goroutine; its batches may be released on any goroutine.
type Source struct {
	files []Info
	o     Options // what the readers need; o.Decoders is shared by the files
	open  OpenFunc
	total int64

	idx      int    // index of the current file
	cur      Reader // nil between files
	reported int64  // bytes of the current file already reported in batches
	pending  int64  // bytes of finished empty files not reported yet
	batchNo  int    // batches emitted from the current file
	outRows  int64  // records of the batches emitted so far
	outBytes int64  // bytes of the batches emitted so far
	closed   bool
}

// OpenFunc opens the reader of one file; the source calls it when it reaches the file.
type OpenFunc func(fi Info, o *Options) (Reader, error)

// NewSource returns a source reading files in order, each through the Reader open returns,
// projecting records onto fields, batchSize records per batch (> 0); maxRecordBytes > 0
// bounds a record (package sources' OpenFiles documents the batches it hands out).
func NewSource(files []Info, fields []string, batchSize, maxRecordBytes int, mem memory.Allocator, open OpenFunc) (*Source, error) {
	s := &Source{o: Options{Fields: slices.Clone(fields), BatchSize: batchSize, MaxRecord: maxRecordBytes, Mem: mem}, open: open}
	for _, fi := range files {
		s.files = append(s.files, fi)
		s.total += fi.Size
	}
	if len(s.files) >= 1<<(64-SeqRowBits) {
		return nil, fmt.Errorf("sources: %d files selected, at most %d supported", len(s.files), 1<<(64-SeqRowBits)-1)
	}
	return s, nil
}

var (
	_ pipeline.Source = (*Source)(nil)
	_ pipeline.Sizer  = (*Source)(nil)
)

// TotalBytes is the total size of the selected files (pipeline.Sizer).
func (s *Source) TotalBytes() int64 { return s.total }

// Next returns the next batch, or io.EOF after the last one.
func (s *Source) Next(ctx context.Context) (*pipeline.Batch, error) {
	if s.closed {
		return nil, errors.New("sources: Next on a closed source")
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if s.idx >= len(s.files) {
				return nil, io.EOF
			}
			s.o.Ctx = ctx
			r, err := s.open(s.files[s.idx], &s.o)
			if err != nil {
				s.idx = len(s.files) // a failed source stays failed
				return nil, err
			}
			s.cur, s.reported, s.batchNo = r, 0, 0
		}
		fi := s.files[s.idx]
		b := NewBuilder(fi.Path, s.idx, len(s.o.Fields))
		b.Deferred = pipeline.DeferredDecode(ctx)
		b.Columns = pipeline.ColumnsAccepted(ctx)
		b.MaxBytes = s.batchBytes()
		err := s.cur.Fill(b, s.nextBatchSize(pipeline.Consumers(ctx)))
		if err != nil && err != io.EOF {
			b.Release()
			s.closeCurrent()
			s.idx = len(s.files)
			return nil, err
		}
		var nbytes int64
		if err == io.EOF {
			if cerr := s.cur.Close(); cerr != nil {
				b.Release()
				s.cur = nil
				s.idx = len(s.files)
				return nil, fmt.Errorf("sources: close %s: %w", fi.Path, cerr)
			}
			s.cur = nil
			s.idx++
			nbytes = max(fi.Size-s.reported, 0)
		} else {
			nbytes = max(min(s.cur.BytesRead(), fi.Size)-s.reported, 0)
		}
		s.reported += nbytes
		if b.Rows == 0 {
			s.pending += nbytes
			b.Release()
			continue
		}
		s.batchNo++
		batch := b.Finish()
		batch.Bytes = nbytes + s.pending
		s.pending = 0
		s.outRows += int64(b.Rows)
		s.outBytes += batch.Bytes
		return batch, nil
	}
}

// BatchShare bounds the share of the input a batch of lines covers: at most 1/BatchShare of
// its bytes (but not less than minBatchBytes). A run holds a few batches at a time (those
// being folded, those queued and the one being read), and a batch's buffers (records,
// unescaped strings, and in deferred mode its lines) are reused once it is released. With
// batches of a small share of the input, a short run reuses most of them instead of taking
// fresh memory (a page fault per 4 KiB) for the whole input: a file of 1,500 summaries was
// two batches, the first of 1,024 records. An input of BatchShare full batches or more is
// read in full batches, as before.
const BatchShare = 32

// minBatchBytes is the least a batch is bounded to: below it, the cost of a batch (handing it
// to a worker, waking it) is no longer small next to its records'.
const minBatchBytes = 32 << 10

// batchBytes is the Builder.MaxBytes of a batch.
func (s *Source) batchBytes() int {
	return int(max(s.total/BatchShare, minBatchBytes))
}

// nextBatchSize is the number of records of the next batch. With several consumers, the last
// batches of the input shrink to a share of what is left (estimated from the bytes per record
// so far), down to tailBatchMin records, so that the consumers finish at about the same time:
// with full batches to the end, all but one of them would wait for up to a whole batch. The
// results never depend on where batches end.
func (s *Source) nextBatchSize(consumers int) int {
	const tailBatchMin = 64
	n := s.o.BatchSize
	if consumers < 2 || n <= tailBatchMin || s.outRows == 0 || s.outBytes <= 0 {
		return n
	}
	left := float64(max(s.total-s.outBytes, 0)) * float64(s.outRows) / float64(s.outBytes)
	return int(max(min(left/float64(2*consumers), float64(n)), tailBatchMin))
}

func (s *Source) closeCurrent() {
	if s.cur != nil {
		_ = s.cur.Close()
		s.cur = nil
	}
}

// Close releases the open file, if any. It is safe to call more than once.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cur != nil {
		err := s.cur.Close()
		s.cur = nil
		if err != nil {
			return fmt.Errorf("sources: close %s: %w", s.files[s.idx].Path, err)
		}
	}
	return nil
}

// Current returns the reader of the file being read, or nil between files. Tests of a
// format's reader inspect it.
func (s *Source) Current() Reader { return s.cur }
