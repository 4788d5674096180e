package pipeline

import (
	"context"
	"io"
	"sync/atomic"
	"testing"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// intSumMetric sums two integer roles; it rejects negative values. Its states fold integer
// columns too, counting how often they did.
type intSumMetric struct{ colsFolded *atomic.Int64 }

func (intSumMetric) Roles() []core.Role {
	return []core.Role{{Name: "a", Field: "a", Required: true}, {Name: "b", Field: "b", Required: true}}
}
func (intSumMetric) Signature() string { return "intsum" }
func (intSumMetric) Check(ex *core.Example) error {
	for i, v := range ex.Values {
		if v.Kind != core.Int {
			return core.Reject("wrong type", []string{"a", "b"}[i], "want an integer, got %s", v.Kind)
		}
		if v.Int < 0 {
			return core.Reject("label out of range", []string{"a", "b"}[i], "negative")
		}
	}
	return nil
}
func (m intSumMetric) NewState() core.State { return &intSumState{folded: m.colsFolded} }
func (intSumMetric) DecodeState([]byte) (core.State, error) {
	return nil, core.ErrCorruptState
}
func (intSumMetric) CheckIntColumns(cols [][]int64) bool {
	for _, c := range cols {
		for _, x := range c {
			if x < 0 {
				return false
			}
		}
	}
	return true
}

type intSumState struct {
	n, sa, sb int64
	folded    *atomic.Int64
}

func (s *intSumState) Add(ex *core.Example, w int64) {
	s.n += w
	s.sa += w * ex.Values[0].Int
	s.sb += w * ex.Values[1].Int
}
func (s *intSumState) AddIntColumns(cols [][]int64, w int64) {
	s.folded.Add(1)
	for i := range cols[0] {
		s.n += w
		s.sa += w * cols[0][i]
		s.sb += w * cols[1][i]
	}
}
func (s *intSumState) Merge(o core.State) error {
	x := o.(*intSumState)
	s.n, s.sa, s.sb = s.n+x.n, s.sa+x.sa, s.sb+x.sb
	return nil
}
func (s *intSumState) Result() core.Result {
	return core.Result{Value: float64(s.sa), Details: map[string]any{"n": s.n, "b": s.sb}}
}
func (s *intSumState) MarshalBinary() ([]byte, error) { return nil, nil }

// colSource hands out batches the way a file source does for a context from WithColumns:
// columns plus a Decode that builds the records, and deferred records otherwise.
type colSource struct {
	a, b    []int64
	batch   int
	pos     int
	decoded *atomic.Int64
}

func (s *colSource) Next(ctx context.Context) (*Batch, error) {
	if s.pos >= len(s.a) {
		return nil, io.EOF
	}
	lo, hi := s.pos, min(s.pos+s.batch, len(s.a))
	s.pos = hi
	b := &Batch{Bytes: int64(hi - lo)}
	build := func() {
		for i := lo; i < hi; i++ {
			b.Records = append(b.Records, Record{Seq: uint64(i), Pos: Position{File: "cols", Row: int64(i)},
				Values: []core.Value{{Kind: core.Int, Int: s.a[i]}, {Kind: core.Int, Int: s.b[i]}}})
		}
	}
	switch {
	case ColumnsAccepted(ctx):
		b.Columns = &Columns{N: hi - lo, Ints: [][]int64{s.a[lo:hi], s.b[lo:hi]}}
		b.Decode = func() error { s.decoded.Add(1); build(); return nil }
	case DeferredDecode(ctx):
		b.Decode = func() error { s.decoded.Add(1); build(); return nil }
	default:
		build()
	}
	return b, nil
}
func (s *colSource) Close() error { return nil }

func TestColumnsFoldLikeRecords(t *testing.T) {
	n := 5000
	a, b := make([]int64, n), make([]int64, n)
	for i := range a {
		a[i], b[i] = int64(i%97), int64(i*i%1013)
	}
	a[4321] = -1 // one bad record: its batch goes through the records
	var folded, decoded atomic.Int64
	m := &metrics.Metric{Metric: intSumMetric{colsFolded: &folded}, Name: "s", Type: "intsum", Fields: []string{"a", "b"}}
	plan := NewPlan([]*metrics.Metric{m}, nil)
	require.True(t, plan.Columnar())
	require.False(t, NewPlan([]*metrics.Metric{m}, []string{"a"}).Columnar(), "slices need records")
	other := &metrics.Metric{Metric: sumMetric{}, Name: "sum", Type: "sum", Fields: []string{"x"}}
	require.False(t, NewPlan([]*metrics.Metric{m, other}, nil).Columnar())

	var want string
	for _, workers := range []int{1, 2, 7} {
		for _, batch := range []int{1, 13, 4096} {
			folded.Store(0)
			decoded.Store(0)
			acc, err := Run(context.Background(), &colSource{a: a, b: b, batch: batch, decoded: &decoded},
				Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "skip", Unlimited: true}})
			require.NoError(t, err)
			require.Equal(t, int64(n-1), acc.Records)
			require.Equal(t, map[string]int64{"label out of range": 1}, acc.Errors)
			nb := int64((n + batch - 1) / batch)
			require.Equal(t, int64(1), decoded.Load(), "only the batch with the bad record is decoded")
			require.Equal(t, nb-1, folded.Load())
			got := fingerprint(t, acc)
			if want == "" {
				want = got
			}
			require.Equal(t, want, got, "workers=%d batch=%d", workers, batch)
		}
	}
	// Per-record scores need records: no columns then, every batch is decoded.
	decoded.Store(0)
	acc, err := Run(context.Background(), &colSource{a: a, b: b, batch: 100, decoded: &decoded},
		Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "skip", Unlimited: true}, WantExamples: true, Output: &captureOutput{}})
	require.NoError(t, err)
	require.Equal(t, int64(50), decoded.Load())
	require.Equal(t, want, fingerprint(t, acc))
}

func TestDecodeModes(t *testing.T) {
	ctx := context.Background()
	require.False(t, DeferredDecode(ctx))
	require.False(t, ColumnsAccepted(ctx))
	d := WithDeferredDecode(ctx)
	require.True(t, DeferredDecode(d))
	require.False(t, ColumnsAccepted(d))
	c := WithColumns(ctx)
	require.True(t, DeferredDecode(c))
	require.True(t, ColumnsAccepted(c))
	require.True(t, ColumnsAccepted(WithDeferredDecode(c)), "modes accumulate")

	calls := 0
	b := &Batch{Decode: func() error { calls++; return io.ErrUnexpectedEOF }, Columns: &Columns{}}
	require.ErrorIs(t, DecodeBatch(b), io.ErrUnexpectedEOF)
	require.Nil(t, b.Decode)
	require.Nil(t, b.Columns)
	require.NoError(t, DecodeBatch(b))
	require.Equal(t, 1, calls)
}

// A Decode error ends the run like a source error.
func TestDecodeErrorFailsRun(t *testing.T) {
	plan := testPlan()
	src := &errDecodeSource{}
	_, err := Run(context.Background(), src, Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "skip", Unlimited: true}})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

type errDecodeSource struct{ n int }

func (s *errDecodeSource) Next(ctx context.Context) (*Batch, error) {
	s.n++
	if s.n > 3 {
		return nil, io.EOF
	}
	return &Batch{Records: records(10, nil), Decode: func() error { return io.ErrUnexpectedEOF }}, nil
}
func (s *errDecodeSource) Close() error { return nil }

// BenchmarkRunRecords is the per-record overhead of the worker pool (Check, Add, batches).
func BenchmarkRunRecords(b *testing.B) {
	plan := testPlan()
	recs := records(100000, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), &memSource{recs: recs, batch: 1024}, Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "fail"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRunColumns folds integer columns (the classification path over Arrow files).
func BenchmarkRunColumns(b *testing.B) {
	var folded, decoded atomic.Int64
	m := &metrics.Metric{Metric: intSumMetric{colsFolded: &folded}, Name: "s", Type: "intsum", Fields: []string{"a", "b"}}
	plan := NewPlan([]*metrics.Metric{m}, nil)
	n := 1 << 20
	a, c := make([]int64, n), make([]int64, n)
	for i := range a {
		a[i], c[i] = int64(i%5), int64(i%7)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), &colSource{a: a, b: c, batch: 1024, decoded: &decoded}, Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "fail"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "records/s")
}
