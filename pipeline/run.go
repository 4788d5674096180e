package pipeline

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
	"golang.org/x/sync/errgroup"
)

// Policy is what to do with bad records.
type Policy struct {
	// OnError is "fail", "skip" or "dead_letter".
	OnError string
	// MaxBad is the number of bad records tolerated (when !Unlimited and !IsFraction).
	MaxBad int64
	// MaxBadFraction is the tolerated share of bad records among all records, checked at
	// the end of the run (when IsFraction).
	MaxBadFraction float64
	IsFraction     bool
	Unlimited      bool
}

// DeadLetter is a rejected record with its original payload, position and reason.
type DeadLetter struct {
	Pos    Position
	Reason string
	Error  string
	Raw    []byte
	Record *Record // the decoded record when Raw is nil (Arrow/Parquet rows)
	Fields []string
}

// ExampleRow holds the sentence-level scores of one record, for the examples sink. Scores[i]
// belongs to the plan's metric i and is nil when that metric has no sentence score.
type ExampleRow struct {
	Seq    uint64
	Pos    Position
	ID     core.Value
	Slice  string
	Scores []*float64
}

// Output receives per-batch side outputs (dead letters, per-record scores) in input order:
// Run calls it from a single goroutine with batches in the order the source produced them.
type Output interface {
	WriteBatch(ctx context.Context, dead []DeadLetter, rows []ExampleRow) error
}

// Progress counts work done; safe for concurrent use.
type Progress struct {
	Records atomic.Int64
	Bad     atomic.Int64
	Bytes   atomic.Int64
	// MergeNanos is the time spent merging worker accumulators at the end of a run.
	MergeNanos atomic.Int64
}

// BadRecordError reports the bad record that failed the run: the first one under
// on_error: fail, or the one that went over max_bad (then it wraps ErrTooManyBad).
type BadRecordError struct {
	Pos       Position
	Rejection *Rejection
	MaxBad    int64
	OverLimit bool
}

func (e *BadRecordError) Error() string {
	if e.OverLimit {
		return fmt.Sprintf("%v: more than max_bad=%d; the last at %s: %v", ErrTooManyBad, e.MaxBad, e.Pos, e.Rejection)
	}
	return fmt.Sprintf("bad record at %s: %v", e.Pos, e.Rejection)
}

// Unwrap returns ErrTooManyBad when the record went over max_bad.
func (e *BadRecordError) Unwrap() error {
	if e.OverLimit {
		return ErrTooManyBad
	}
	return nil
}

// ErrTooManyBad is wrapped when the share of bad records exceeds max_bad.
var ErrTooManyBad = errors.New("too many bad records")

// Config configures Run.
type Config struct {
	Plan    *Plan
	Workers int // 0 = one per CPU
	Policy  Policy
	// Output, when set, receives dead letters and per-record scores in input order.
	Output Output
	// ExampleID is the field whose value identifies a record in ExampleRows ("" = none).
	ExampleID string
	// WantExamples asks workers to compute per-record sentence scores.
	WantExamples bool
	Progress     *Progress
	// Ramp, when not nil, holds back every worker but the first until it is closed (or the
	// input is all handed out): a short run then folds on one goroutine, a long one on all.
	Ramp <-chan struct{}
}

type job struct {
	idx int
	b   *Batch
}

type chunk struct {
	idx  int
	dead []DeadLetter
	rows []ExampleRow
}

// Run reads src to the end with a fixed pool of workers, each folding batches into its own
// accumulator, and returns their merge. It stops every goroutine it started before it
// returns, on success, on the first error, or when ctx is cancelled (then it returns
// ctx.Err()). It does not close src.
func Run(ctx context.Context, src Source, cfg Config) (*Accumulator, error) {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	progress := cfg.Progress
	if progress == nil {
		progress = &Progress{}
	}
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan job, workers)
	var chunks chan chunk
	if cfg.Output != nil {
		chunks = make(chan chunk, 2*workers)
	}

	// The workers finish decoding the batches (Batch.Decode), so the single reader goroutine
	// only splits the input; a columnar plan may also take batches as columns.
	rctx := WithDeferredDecode(gctx)
	if cfg.Plan.Columnar() && !cfg.WantExamples {
		rctx = WithColumns(gctx)
	}
	rctx = WithConsumers(rctx, workers)
	limit := newBadLimit(cfg.Policy)
	readerDone := make(chan struct{})
	g.Go(func() error {
		defer close(readerDone)
		defer close(jobs)
		for idx := 0; ; idx++ {
			if limit.exceeded() {
				return nil // the batches already handed out decide which record is named
			}
			b, err := src.Next(rctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			select {
			case jobs <- job{idx, b}:
			case <-gctx.Done():
				if b.Release != nil {
					b.Release()
				}
				return gctx.Err()
			}
		}
	})

	accs := make([]*Accumulator, workers)
	var wg errgroup.Group // workers, so chunks closes after all of them
	for w := 0; w < workers; w++ {
		acc := NewAccumulator(cfg.Plan)
		accs[w] = acc
		folder := NewFolder(cfg.Plan)
		folder.DeferDictAdds()
		wg.Go(func() error {
			if w > 0 && cfg.Ramp != nil {
				select {
				case <-cfg.Ramp:
				case <-readerDone:
				}
			}
			for j := range jobs {
				err := foldBatch(gctx, folder, acc, j, &cfg, limit, progress, chunks)
				if j.b.Release != nil {
					j.b.Release()
				}
				if err != nil {
					return err
				}
			}
			folder.FlushDicts(acc)
			return nil
		})
	}
	g.Go(func() error {
		err := wg.Wait()
		if chunks != nil {
			close(chunks)
		}
		if err != nil {
			// Drain so the reader is not blocked on a full channel.
			for j := range jobs {
				if j.b.Release != nil {
					j.b.Release()
				}
			}
		}
		return err
	})
	if chunks != nil {
		g.Go(func() error { return writeInOrder(gctx, cfg.Output, chunks) })
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := limit.err(); err != nil {
		return nil, err
	}
	mergeStart := time.Now()
	// The first worker's accumulator takes the others' (an empty one merged with it would
	// equal it, as the merge laws test, after a copy of every state: the whole of the
	// unbounded ones, such as Spearman's records).
	total := accs[0]
	for _, a := range accs[1:] {
		if err := total.Merge(a); err != nil {
			return nil, err
		}
	}
	progress.MergeNanos.Add(int64(time.Since(mergeStart)))
	if p := cfg.Policy; p.IsFraction && total.Skipped > 0 {
		share := float64(total.Skipped) / float64(total.Records+total.Skipped)
		if share > p.MaxBadFraction {
			return nil, fmt.Errorf("%w: %d of %d records (%.4g) are bad, max_bad is %g", ErrTooManyBad, total.Skipped, total.Records+total.Skipped, share, p.MaxBadFraction)
		}
	}
	return total, nil
}

func foldBatch(ctx context.Context, f *Folder, acc *Accumulator, j job, cfg *Config, limit *badLimit, progress *Progress, chunks chan chunk) error {
	var out chunk
	out.idx = j.idx
	if j.b.Columns != nil && f.FoldColumns(acc, j.b.Columns) {
		progress.Records.Add(int64(j.b.Columns.N))
		progress.Bytes.Add(j.b.Bytes)
		return sendChunk(ctx, chunks, out)
	}
	if err := DecodeBatch(j.b); err != nil {
		return err
	}
	idField := -1
	if cfg.ExampleID != "" {
		idField = f.plan.FieldIndex(cfg.ExampleID)
	}
	var good int64
	for i := range j.b.Records {
		rec := &j.b.Records[i]
		if rej := f.Check(rec); rej != nil {
			progress.Bad.Add(1)
			p := cfg.Policy
			if limit.add(j.idx, i, rec.Pos, rej) {
				continue // the run fails: the rest of the batch only finds later bad records
			}
			acc.Reject(rej.Reason, rec)
			if p.OnError == "dead_letter" && chunks != nil {
				dl := DeadLetter{Pos: rec.Pos, Reason: rej.Reason, Error: rej.Error()}
				if rec.Raw != nil {
					dl.Raw = append([]byte(nil), rec.Raw...)
				} else {
					dl.Record = cloneRecord(rec)
					dl.Fields = f.plan.Fields
				}
				out.dead = append(out.dead, dl)
			}
			continue
		}
		f.Add(acc, rec, 1)
		good++
		if cfg.WantExamples && chunks != nil {
			out.rows = append(out.rows, f.scoreRow(rec, idField))
		}
	}
	progress.Records.Add(good)
	progress.Bytes.Add(j.b.Bytes)
	return sendChunk(ctx, chunks, out)
}

// badLimit enforces a bad-record count limit (max_bad as a count, or on_error: fail, which
// tolerates none) so that the record named by the error is the same whatever the worker
// count: the (MaxBad+1)-th bad record in input order, not whichever a worker met first.
// Once the limit is exceeded the reader stops handing out batches; as batches are handed
// out in order and every one handed out is folded, the batches folded form a prefix of the
// input, and the (MaxBad+1)-th smallest (batch, row) among the bad records seen is the
// (MaxBad+1)-th of the input. It keeps the MaxBad+1 smallest only. Safe for concurrent use.
type badLimit struct {
	limited bool
	maxBad  int64
	fail    bool
	over    atomic.Bool
	mu      sync.Mutex
	seen    int64
	first   badHeap // max-heap of the smallest maxBad+1 bad records seen
}

type badRecord struct {
	batch, row int
	pos        Position
	rej        *Rejection
}

func (a badRecord) before(b badRecord) bool {
	if a.batch != b.batch {
		return a.batch < b.batch
	}
	return a.row < b.row
}

type badHeap []badRecord

func (h badHeap) Len() int           { return len(h) }
func (h badHeap) Less(i, j int) bool { return h[j].before(h[i]) }
func (h badHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *badHeap) Push(x any)        { *h = append(*h, x.(badRecord)) }
func (h *badHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newBadLimit(p Policy) *badLimit {
	return &badLimit{limited: !p.Unlimited && !p.IsFraction, maxBad: p.MaxBad, fail: p.OnError == "fail"}
}

// add counts a bad record (row of batch) and reports whether the limit is now exceeded.
func (l *badLimit) add(batch, row int, pos Position, rej *Rejection) bool {
	if !l.limited {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen++
	r := badRecord{batch, row, pos, rej}
	if int64(len(l.first)) <= l.maxBad {
		heap.Push(&l.first, r)
	} else if r.before(l.first[0]) {
		l.first[0] = r
		heap.Fix(&l.first, 0)
	}
	if l.seen > l.maxBad {
		l.over.Store(true)
	}
	return l.over.Load()
}

func (l *badLimit) exceeded() bool { return l.over.Load() }

// err returns the error naming the (MaxBad+1)-th bad record, once the run has stopped.
func (l *badLimit) err() error {
	if !l.over.Load() {
		return nil
	}
	r := l.first[0]
	return &BadRecordError{Pos: r.pos, Rejection: r.rej, MaxBad: l.maxBad, OverLimit: !l.fail || l.maxBad > 0}
}

// sendChunk passes a batch's side outputs to the ordered writer, when there is one.
func sendChunk(ctx context.Context, chunks chan chunk, out chunk) error {
	if chunks == nil {
		return nil
	}
	select {
	case chunks <- out:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scoreRow computes the sentence scores of the record just folded by f.Add (whose memo
// entries it reuses).
func (f *Folder) scoreRow(rec *Record, idField int) ExampleRow {
	row := ExampleRow{Seq: rec.Seq, Pos: rec.Pos, Scores: make([]*float64, len(f.plan.Metrics))}
	if idField >= 0 {
		row.ID = cloneValue(rec.Values[idField])
	}
	if len(f.plan.sliceIdx) > 0 {
		row.Slice = f.sliceKey(rec)
	}
	for i, m := range f.plan.Metrics {
		if s, ok := m.Metric.(core.SentenceScorer); ok {
			if v, ok := s.SentenceScore(f.example(i, rec)); ok {
				row.Scores[i] = &v
			}
		}
	}
	return row
}

// writeInOrder passes chunks to out in batch order, holding early ones back.
func writeInOrder(ctx context.Context, out Output, chunks <-chan chunk) error {
	pending := map[int]chunk{}
	next := 0
	var failed error
	for c := range chunks {
		if failed != nil {
			continue // keep draining so workers never block
		}
		pending[c.idx] = c
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if len(p.dead) == 0 && len(p.rows) == 0 {
				continue
			}
			if err := out.WriteBatch(ctx, p.dead, p.rows); err != nil {
				failed = err
				break
			}
		}
	}
	return failed
}

func cloneRecord(r *Record) *Record {
	c := &Record{Seq: r.Seq, Pos: r.Pos, Values: make([]core.Value, len(r.Values))}
	for i, v := range r.Values {
		c.Values[i] = cloneValue(v)
	}
	return c
}

// cloneValue deep-copies a value so it outlives the batch that owns its buffers.
func cloneValue(v core.Value) core.Value {
	c := v
	c.Str = stringsClone(v.Str)
	if v.Strs != nil {
		c.Strs = make([]string, len(v.Strs))
		for i, s := range v.Strs {
			c.Strs[i] = stringsClone(s)
		}
	}
	if v.Lists != nil {
		c.Lists = make([][]string, len(v.Lists))
		for i, l := range v.Lists {
			c.Lists[i] = make([]string, len(l))
			for j, s := range l {
				c.Lists[i][j] = stringsClone(s)
			}
		}
	}
	if v.Floats != nil {
		c.Floats = append([]float64(nil), v.Floats...)
	}
	return c
}

func stringsClone(s string) string {
	if s == "" {
		return ""
	}
	return string([]byte(s))
}
