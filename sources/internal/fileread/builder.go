package fileread

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// Reader reads the records of one file into batches.
type Reader interface {
	// Fill appends up to n records to b. It returns io.EOF (possibly with records added)
	// at the end of the file.
	Fill(b *Builder, n int) error
	// BytesRead is how many bytes of the file were consumed so far.
	BytesRead() int64
	Close() error
}

// Info is a file selected for reading and the format it is read with.
type Info struct {
	Path   string
	Format string
	Size   int64
}

// SeqRowBits is how many low bits of Record.Seq hold the row within its file; the high bits
// hold the file's index in sorted order.
const SeqRowBits = 40

// SeqOf is the Record.Seq of row of the file-th file.
func SeqOf(file int, row int64) uint64 { return uint64(file)<<SeqRowBits | uint64(row) }

// Builder accumulates the records of one batch and the resources they alias. A format's
// Reader fills it; the file source finishes it into a pipeline.Batch. It is used by one
// goroutine at a time (the reader's, then the consumer's for Decode).
type Builder struct {
	path    string
	file    int
	nf      int
	Records []pipeline.Record
	values  []core.Value // backing array of every record's Values
	Ar      Arena
	Held    []interface{ Release() } // Arrow records the batch's strings alias
	Rows    int                      // records in the batch, built or not yet (columns)
	// MaxBytes, when > 0, asks a reader of lines to end the batch once its lines hold that
	// many bytes, whatever the record count asked for (at least one record is added). The
	// source sets it (see BatchShare); readers of columns ignore it.
	MaxBytes int

	// Deferred decoding (pipeline.DeferredDecode): the reader only splits the input and
	// Decode finishes the batch on the consumer's goroutine.
	Deferred bool
	Columns  bool // the consumer also accepts columns (pipeline.ColumnsAccepted)
	Decode   func(b *Builder) error
	Cols     *pipeline.Columns
	Segs     []Seg        // Arrow rows to convert (deferred)
	rb       *recBuf      // where records and values came from, recycled on Release
	Chunks   []*LineChunk // JSON line buffers the batch aliases (deferred: released on Release)
}

// UseChunk notes that the batch aliases c. A deferred batch holds a reference until Release;
// a plain one pins c for good (its Raw stays valid after Release).
func (b *Builder) UseChunk(c *LineChunk) {
	if c == nil {
		return
	}
	if !b.Deferred {
		c.pinned.Store(true)
		return
	}
	if n := len(b.Chunks); n > 0 && b.Chunks[n-1] == c {
		return
	}
	c.refs.Add(1)
	b.Chunks = append(b.Chunks, c)
}

// recBuf is the records and values backing arrays of a batch. Release hands them to the next
// batch (through recBufs), so reading a file does not allocate (and zero, and later collect)
// a few hundred bytes per record.
type recBuf struct {
	records []pipeline.Record
	values  []core.Value
	ar      Arena // the batch's arena, kept with the arrays it last carved from
}

var recBufs sync.Pool // *recBuf

func getRecBuf(n, nf int) *recBuf {
	if rb, _ := recBufs.Get().(*recBuf); rb != nil && cap(rb.records) >= n && cap(rb.values) >= n*nf {
		return rb
	}
	return &recBuf{records: make([]pipeline.Record, 0, n), values: make([]core.Value, 0, n*nf)}
}

// NewBuilder returns the builder of a batch of records of nf values read from path, the
// file-th file of the source.
func NewBuilder(path string, file, nf int) *Builder {
	return &Builder{path: path, file: file, nf: nf}
}

// Add appends a record for row and returns it; its Values are all Missing.
func (b *Builder) Add(row int64, capHint int) *pipeline.Record {
	if b.Records == nil {
		b.rb = getRecBuf(capHint, b.nf)
		b.Records, b.values = b.rb.records[:0], b.rb.values[:0]
		if len(b.Ar.strs)+len(b.Ar.lists)+len(b.Ar.floats)+len(b.Ar.bytes) == 0 {
			b.Ar = b.rb.ar // nothing carved yet: reuse the recycled arena
			b.Ar.Reset()
		}
	}
	if len(b.values)+b.nf > cap(b.values) {
		// Never reallocate: earlier records point into the old backing array.
		b.values = make([]core.Value, 0, max(capHint, 16)*b.nf)
	}
	start := len(b.values)
	b.values = b.values[:start+b.nf]
	clear(b.values[start:]) // a recycled array holds values of an earlier batch
	b.Records = append(b.Records, pipeline.Record{
		Values: b.values[start : start+b.nf : start+b.nf],
		Seq:    SeqOf(b.file, row),
		Pos:    pipeline.Position{File: b.path, Row: row},
	})
	b.Rows++
	return &b.Records[len(b.Records)-1]
}

// Release gives back what the builder holds, for a batch that is not handed out.
func (b *Builder) Release() {
	for _, h := range b.Held {
		h.Release()
	}
	b.Held = nil
	if b.rb != nil {
		recBufs.Put(b.rb)
		b.rb = nil
	}
	for _, c := range b.Chunks {
		c.Release()
	}
	b.Chunks = nil
}

// Finish returns the batch, which owns what the builder held.
func (b *Builder) Finish() *pipeline.Batch {
	batch := &pipeline.Batch{Records: b.Records, Columns: b.Cols}
	if b.Decode != nil {
		var once sync.Once
		var err error
		batch.Decode = func() error {
			once.Do(func() {
				err = b.Decode(b)
				b.Decode, b.Segs = nil, nil
				batch.Records = b.Records
			})
			return err
		}
	}
	if len(b.Held) > 0 || b.rb != nil || len(b.Chunks) > 0 {
		held, chunks := b.Held, b.Chunks
		b.Held, b.Chunks = nil, nil
		var done atomic.Bool
		batch.Release = func() {
			if done.CompareAndSwap(false, true) {
				for _, h := range held {
					h.Release()
				}
				if rb := b.rb; rb != nil {
					b.rb = nil
					rb.ar = b.Ar
					recBufs.Put(rb)
				}
				for _, c := range chunks {
					c.Release()
				}
			}
		}
	}
	return batch
}

// FileError names the file (and where in it) an error happened.
func FileError(path, where string, err error) error {
	if where != "" {
		return fmt.Errorf("sources: %s: %s: %w", path, where, err)
	}
	return fmt.Errorf("sources: %s: %w", path, err)
}
