package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// sumMetric is a test metric: the exact sum of the prediction field. It rejects NaN.
type sumMetric struct{}

func (sumMetric) Roles() []core.Role {
	return []core.Role{{Name: "prediction", Field: "x", Required: true, Accepts: []core.Kind{core.Float}}}
}
func (sumMetric) Signature() string { return "sum" }
func (sumMetric) Check(ex *core.Example) error {
	v, ok := ex.Values[0].Number()
	if !ok {
		return core.Reject("wrong type", "prediction", "want a number, got %s", ex.Values[0].Kind)
	}
	if math.IsNaN(v) {
		return core.Reject("non-finite value", "prediction", "NaN")
	}
	return nil
}
func (sumMetric) NewState() core.State { return &sumState{} }
func (sumMetric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	s := &sumState{n: d.Varint(), sum: d.Sum()}
	return s, d.Finish()
}

type sumState struct {
	n   int64
	sum core.Sum
}

func (s *sumState) Add(ex *core.Example, w int64) {
	v, _ := ex.Values[0].Number()
	s.n += w
	s.sum.AddWeighted(v, w)
}
func (s *sumState) Merge(o core.State) error {
	os, ok := o.(*sumState)
	if !ok {
		return core.Incompatible(s, o)
	}
	s.n += os.n
	s.sum.Merge(&os.sum)
	return nil
}
func (s *sumState) Result() core.Result {
	if s.n == 0 {
		return core.Undefined("no records", nil)
	}
	return core.Result{Value: s.sum.Float(), Details: map[string]any{"n": s.n}}
}
func (s *sumState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Varint(s.n)
	e.Sum(&s.sum)
	return e.B, nil
}

// memSource serves records from memory in batches.
type memSource struct {
	recs  []Record
	batch int
	pos   int
	fail  error // returned after the records when set
	delay time.Duration
}

func (m *memSource) Next(ctx context.Context) (*Batch, error) {
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if m.pos >= len(m.recs) {
		if m.fail != nil {
			return nil, m.fail
		}
		return nil, io.EOF
	}
	end := min(m.pos+m.batch, len(m.recs))
	b := &Batch{Records: m.recs[m.pos:end], Bytes: int64(end - m.pos)}
	m.pos = end
	return b, nil
}
func (m *memSource) Close() error { return nil }

func testPlan(sliceBy ...string) *Plan {
	m := &metrics.Metric{Metric: sumMetric{}, Name: "sum", Type: "sum", Fields: []string{"x"}}
	return NewPlan([]*metrics.Metric{m}, sliceBy)
}

func records(n int, bad map[int]bool) []Record {
	recs := make([]Record, n)
	for i := range recs {
		x := math.Sin(float64(i)) * math.Pow(10, float64(i%17-8))
		if bad[i] {
			x = math.NaN()
		}
		recs[i] = Record{
			Values: []core.Value{{Kind: core.Float, Float: x}, {Kind: core.String, Str: fmt.Sprint("g", i%3)}},
			Seq:    uint64(i), Pos: Position{File: "mem", Row: int64(i)},
		}
	}
	return recs
}

func fingerprint(t *testing.T, a *Accumulator) string {
	b, err := a.Results().MarshalJSON()
	require.NoError(t, err)
	return string(b)
}

func TestRunDeterministicAcrossWorkersAndBatches(t *testing.T) {
	plan := testPlan("g")
	recs := records(5000, nil)
	var want string
	for _, workers := range []int{1, 2, 7} {
		for _, batch := range []int{1, 13, 4096} {
			acc, err := Run(context.Background(), &memSource{recs: recs, batch: batch}, Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "fail"}})
			require.NoError(t, err)
			got := fingerprint(t, acc)
			if want == "" {
				want = got
				require.Contains(t, got, `"records":5000`)
				require.Contains(t, got, `"g=g2"`)
			}
			require.Equal(t, want, got, "workers=%d batch=%d", workers, batch)
		}
	}
}

type captureOutput struct {
	mu   sync.Mutex
	dead []DeadLetter
}

func (c *captureOutput) WriteBatch(_ context.Context, dead []DeadLetter, _ []ExampleRow) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = append(c.dead, dead...)
	return nil
}

func TestBadRecordPolicies(t *testing.T) {
	plan := testPlan()
	bad := map[int]bool{3: true, 500: true, 501: true, 4000: true}
	recs := records(5000, bad)
	good := records(5000, nil)
	var goodOnly []Record
	for i, r := range good {
		if !bad[i] {
			goodOnly = append(goodOnly, r)
		}
	}
	clean, err := Run(context.Background(), &memSource{recs: goodOnly, batch: 100}, Config{Plan: plan, Policy: Policy{OnError: "fail"}})
	require.NoError(t, err)

	// skip: the metrics equal those of the good records alone, bit for bit.
	acc, err := Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Workers: 3, Policy: Policy{OnError: "skip", Unlimited: true}})
	require.NoError(t, err)
	require.Equal(t, int64(4), acc.Skipped)
	require.Equal(t, map[string]int64{"non-finite value": 4}, acc.Errors)
	require.Equal(t, clean.Results().Metrics, acc.Results().Metrics)

	// fail: the first bad record is named.
	_, err = Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Workers: 1, Policy: Policy{OnError: "fail"}})
	var bre *BadRecordError
	require.ErrorAs(t, err, &bre)
	require.Equal(t, "mem:4", bre.Pos.String())
	require.Contains(t, err.Error(), `bad record at mem:4: field "x": non-finite value: NaN`)

	// max_bad as a count.
	_, err = Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "skip", MaxBad: 3}})
	require.ErrorIs(t, err, ErrTooManyBad)
	_, err = Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Workers: 2, Policy: Policy{OnError: "skip", MaxBad: 4}})
	require.NoError(t, err)
	// max_bad as a fraction: 4/5000 = 0.0008.
	_, err = Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Policy: Policy{OnError: "skip", IsFraction: true, MaxBadFraction: 0.0005}})
	require.ErrorIs(t, err, ErrTooManyBad)
	_, err = Run(context.Background(), &memSource{recs: recs, batch: 7}, Config{Plan: plan, Policy: Policy{OnError: "skip", IsFraction: true, MaxBadFraction: 0.001}})
	require.NoError(t, err)

	// dead_letter: every bad record exactly once, in input order whatever the workers.
	for _, workers := range []int{1, 4} {
		out := &captureOutput{}
		acc, err = Run(context.Background(), &memSource{recs: recs, batch: 3}, Config{Plan: plan, Workers: workers, Output: out, Policy: Policy{OnError: "dead_letter", Unlimited: true}})
		require.NoError(t, err)
		require.Len(t, out.dead, 4)
		for i, row := range []int64{3, 500, 501, 4000} {
			require.Equal(t, row, out.dead[i].Pos.Row)
			require.Equal(t, "non-finite value", out.dead[i].Reason)
			require.NotNil(t, out.dead[i].Record)
		}
		require.Equal(t, clean.Results().Metrics, acc.Results().Metrics)
	}
}

func TestRunStopsOnSourceErrorAndCancel(t *testing.T) {
	plan := testPlan()
	before := runtime.NumGoroutine()
	boom := errors.New("disk on fire")
	_, err := Run(context.Background(), &memSource{recs: records(100, nil), batch: 10, fail: boom}, Config{Plan: plan, Workers: 3})
	require.ErrorIs(t, err, boom)

	ctx, cancel := context.WithCancel(context.Background())
	src := &memSource{recs: records(100000, nil), batch: 1, delay: time.Millisecond}
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err = Run(ctx, src, Config{Plan: plan, Workers: 3, Output: &captureOutput{}})
	require.ErrorIs(t, err, context.Canceled)
	requireNoLeak(t, before)
}

func TestAccumulatorMergeLaws(t *testing.T) {
	plan := testPlan("g")
	recs := records(300, nil)
	fold := func(rs []Record) *Accumulator {
		a := NewAccumulator(plan)
		f := NewFolder(plan)
		for i := range rs {
			require.Nil(t, f.Check(&rs[i]))
			f.Add(a, &rs[i], 1)
		}
		return a
	}
	whole := fingerprint(t, fold(recs))
	a, b, c := fold(recs[:100]), fold(recs[100:250]), fold(recs[250:])
	require.NoError(t, c.Merge(a))
	require.NoError(t, b.Merge(c))
	require.Equal(t, whole, fingerprint(t, b))
	empty := NewAccumulator(plan)
	require.NoError(t, empty.Merge(b))
	require.Equal(t, whole, fingerprint(t, empty))
}

// requireNoLeak waits for the goroutine count to fall back to before and dumps the stacks
// when it does not.
func requireNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), before, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestErrorExamplesDeterministic: the positions named per reason are the first ones in input
// order whatever the worker count, the batch size or the order partial states are merged in.
func TestErrorExamplesDeterministic(t *testing.T) {
	plan := testPlan()
	bad := map[int]bool{}
	for _, i := range []int{4999, 17, 3, 2500, 1024, 11, 4000, 12} {
		bad[i] = true
	}
	recs := records(5000, bad)
	recs[40].Values[0] = core.Value{Kind: core.Float, Float: math.Inf(1)}
	recs[4100].Values[0] = core.Value{Kind: core.FloatList, Floats: []float64{1, math.Inf(-1)}}
	want := []string{"mem:4", "mem:12", "mem:13", "mem:18", "mem:41"}
	for _, workers := range []int{1, 2, 5} {
		for _, batch := range []int{1, 7, 1000} {
			acc, err := Run(context.Background(), &memSource{recs: recs, batch: batch}, Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "skip", Unlimited: true}})
			require.NoError(t, err)
			require.Equal(t, map[string]int64{ReasonNonFinite: 10}, acc.Errors)
			require.Equal(t, map[string][]string{ReasonNonFinite: want}, acc.Results().ErrorExamples, "workers=%d batch=%d", workers, batch)

			// The record a failing run names is the first bad one (fail), or the one past
			// max_bad, in input order.
			var bre *BadRecordError
			_, err = Run(context.Background(), &memSource{recs: recs, batch: batch}, Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "fail"}})
			require.ErrorAs(t, err, &bre)
			require.Equal(t, "mem:4", bre.Pos.String(), "workers=%d batch=%d", workers, batch)
			_, err = Run(context.Background(), &memSource{recs: recs, batch: batch}, Config{Plan: plan, Workers: workers, Policy: Policy{OnError: "skip", MaxBad: 3}})
			require.ErrorAs(t, err, &bre)
			require.ErrorIs(t, err, ErrTooManyBad)
			require.Equal(t, "mem:18", bre.Pos.String(), "workers=%d batch=%d", workers, batch)
		}
	}

	// Partial states of disjoint record ranges merge to the same examples in any order.
	parts := make([]*Accumulator, 4)
	for p := range parts {
		acc, err := Run(context.Background(), &memSource{recs: recs[p*1250 : (p+1)*1250], batch: 64}, Config{Plan: plan, Policy: Policy{OnError: "skip", Unlimited: true}})
		require.NoError(t, err)
		parts[p] = acc
	}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		total := NewAccumulator(plan)
		for _, p := range order {
			require.NoError(t, total.Merge(parts[p]))
		}
		require.Equal(t, want, total.Results().ErrorExamples[ReasonNonFinite], "order %v", order)
	}
}

// TestRunRamp: workers held back by Config.Ramp give the results of the pool without one,
// whether the ramp opens before the input is all handed out, after it, or never.
func TestRunRamp(t *testing.T) {
	plan := testPlan("g")
	recs := records(5000, nil)
	want, err := Run(context.Background(), &memSource{recs: recs, batch: 13}, Config{Plan: plan, Workers: 3, Policy: Policy{OnError: "fail"}})
	require.NoError(t, err)
	opened := make(chan struct{})
	close(opened)
	for _, c := range []struct {
		name string
		ramp chan struct{}
	}{
		{"open from the start", opened},
		{"never opened", make(chan struct{})},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc, err := Run(context.Background(), &memSource{recs: recs, batch: 13}, Config{Plan: plan, Workers: 3, Ramp: c.ramp, Policy: Policy{OnError: "fail"}})
			require.NoError(t, err)
			require.Equal(t, fingerprint(t, want), fingerprint(t, acc))
		})
	}
	t.Run("opened during the run", func(t *testing.T) {
		ramp := make(chan struct{})
		src := &memSource{recs: recs, batch: 13}
		go func() {
			time.Sleep(time.Millisecond)
			close(ramp)
		}()
		acc, err := Run(context.Background(), src, Config{Plan: plan, Workers: 3, Ramp: ramp, Policy: Policy{OnError: "fail"}})
		require.NoError(t, err)
		require.Equal(t, fingerprint(t, want), fingerprint(t, acc))
	})
}
