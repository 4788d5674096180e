package stages

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

func TestSpecStart(t *testing.T) {
	s, err := NewSpec(time.Minute, 0, -1, "")
	require.NoError(t, err)
	min := int64(time.Minute)
	for _, c := range []struct{ t, want int64 }{
		{0, 0}, {1, 0}, {min - 1, 0}, {min, min}, {-1, -min}, {-min, -min}, {-min - 1, -2 * min},
	} {
		require.Equal(t, c.want, s.Start(c.t), "start of %d", c.t)
	}
	_, err = NewSpec(0, 0, -1, "")
	require.Error(t, err)
	_, err = NewSpec(time.Second, -1, -1, "")
	require.Error(t, err)
}

func TestEventTime(t *testing.T) {
	ref := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	ns := ref.UnixNano()
	for _, c := range []struct {
		name   string
		v      core.Value
		want   int64
		reason string
	}{
		{"rfc3339", core.Value{Kind: core.String, Str: "2024-05-01T10:00:00Z"}, ns, ""},
		{"rfc3339 offset", core.Value{Kind: core.String, Str: "2024-05-01T12:00:00+02:00"}, ns, ""},
		{"rfc3339 nano", core.Value{Kind: core.String, Str: "2024-05-01T10:00:00.123456789Z"}, ns + 123456789, ""},
		{"epoch seconds", core.Value{Kind: core.Int, Int: ref.Unix()}, ns, ""},
		{"epoch millis", core.Value{Kind: core.Int, Int: ref.UnixMilli() + 5}, ns + 5e6, ""},
		{"epoch micros", core.Value{Kind: core.Int, Int: ref.UnixMicro() + 5}, ns + 5e3, ""},
		{"epoch nanos", core.Value{Kind: core.Int, Int: ns + 5}, ns + 5, ""},
		{"float seconds", core.Value{Kind: core.Float, Float: float64(ref.Unix()) + 0.5}, ns + 5e8, ""},
		{"float whole", core.Value{Kind: core.Float, Float: float64(ref.Unix())}, ns, ""},
		{"missing", core.Value{}, 0, "missing field"},
		{"null", core.Value{Kind: core.Null}, 0, "missing field"},
		{"bad string", core.Value{Kind: core.String, Str: "yesterday"}, 0, "wrong type"},
		{"bool", core.Value{Kind: core.Bool, Int: 1}, 0, "wrong type"},
		{"list", core.Value{Kind: core.StringList}, 0, "wrong type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, rerr := EventTime(c.v, "ts")
			if c.reason != "" {
				require.NotNil(t, rerr)
				require.Equal(t, c.reason, rerr.Reason)
				require.Equal(t, "ts", rerr.Field)
				return
			}
			require.Nil(t, rerr)
			require.Equal(t, c.want, got)
		})
	}
}

// testPlan has exact_match over prediction/references, sliced by lang, with ts extra.
func testPlan(t *testing.T) *pipeline.Plan { return testPlanB(t) }

func testPlanB(t testing.TB) *pipeline.Plan {
	m, err := metrics.New(map[string]any{"type": "exact_match"})
	require.NoError(t, err)
	return pipeline.NewPlan([]*metrics.Metric{m}, []string{"lang"}, "ts")
}

func rec(p *pipeline.Plan, pred, ref, lang string, ts time.Time) pipeline.Record {
	vals := make([]core.Value, len(p.Fields))
	for i, f := range p.Fields {
		switch f {
		case "prediction":
			vals[i] = core.Value{Kind: core.String, Str: pred}
		case "references":
			vals[i] = core.Value{Kind: core.StringList, Strs: []string{ref}}
		case "lang":
			vals[i] = core.Value{Kind: core.String, Str: lang}
		case "ts":
			vals[i] = core.Value{Kind: core.String, Str: ts.UTC().Format(time.RFC3339Nano)}
		}
	}
	return pipeline.Record{Values: vals}
}

func TestTrackerWindowsLatenessRestore(t *testing.T) {
	plan := testPlan(t)
	spec, err := NewSpec(time.Minute, 20*time.Second, plan.FieldIndex("ts"), "ts")
	require.NoError(t, err)
	tr := NewTracker(plan, spec)
	f := pipeline.NewFolder(plan)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	fold := func(sec int, pred string) *pipeline.Rejection {
		r := rec(plan, pred, "a", "de", base.Add(time.Duration(sec)*time.Second))
		return tr.Fold(f, &r, 0)
	}
	require.Nil(t, fold(10, "a"))
	require.Nil(t, fold(50, "b"))
	require.Nil(t, fold(70, "a")) // window 1 opens
	require.Nil(t, fold(30, "a")) // out of order, window 0 still open (closes at 80s)
	require.False(t, tr.HasClosed())
	require.Nil(t, fold(80, "a")) // watermark 80s closes window 0
	require.True(t, tr.HasClosed())
	rej := fold(59, "a") // window 0 is closed: late
	require.NotNil(t, rej)
	require.Equal(t, ReasonLate, rej.Reason)
	require.Equal(t, []int64{int64(time.Minute) + base.UnixNano()}, tr.OpenWindows())
	closed := tr.Closed()
	require.Len(t, closed, 1)
	require.Equal(t, int64(3), closed[0].Acc.Records)
	require.Equal(t, int64(5), tr.Total.Records)
	require.Equal(t, int64(1), tr.Total.Errors[ReasonLate])

	// A record without a valid time is bad; it does not move the watermark.
	bad := rec(plan, "a", "a", "de", base)
	bad.Values[plan.FieldIndex("ts")] = core.Value{Kind: core.String, Str: "soon"}
	rej = tr.Fold(f, &bad, 0)
	require.Equal(t, "wrong type", rej.Reason)

	// The snapshot holds the open windows; closed ones travel separately until Ack.
	b, err := tr.MarshalBinary()
	require.NoError(t, err)
	tr.Ack()
	require.False(t, tr.HasClosed())
	back := NewTracker(plan, spec)
	require.NoError(t, back.Restore(b))
	b2, err := back.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, b, b2)
	wm, ok := back.Watermark()
	require.True(t, ok)
	require.Equal(t, base.Add(80*time.Second).UnixNano(), wm)
	require.Equal(t, tr.Total.Results(), back.Total.Results())

	// Restoring into a plan with other metrics is refused.
	m, err := metrics.New(map[string]any{"type": "bleu"})
	require.NoError(t, err)
	other := NewTracker(pipeline.NewPlan([]*metrics.Metric{m}, nil), nil)
	require.Error(t, other.Restore(b))
	require.Error(t, other.Restore([]byte("garbage")))
}

func TestViewEmitsCompleteWindowsOnce(t *testing.T) {
	plan := testPlan(t)
	spec, err := NewSpec(time.Minute, 0, plan.FieldIndex("ts"), "ts")
	require.NoError(t, err)
	f := pipeline.NewFolder(plan)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	p0, p1 := NewTracker(plan, spec), NewTracker(plan, spec)
	fold := func(tr *Tracker, sec int) {
		r := rec(plan, "a", "a", "de", base.Add(time.Duration(sec)*time.Second))
		require.Nil(t, tr.Fold(f, &r, 0))
	}
	v := NewView(plan, spec)
	v.SetPartitions([]string{"t/0", "t/1"})
	put := func(part string, tr *Tracker, idle bool) {
		for _, c := range tr.Closed() {
			b, err := pipeline.EncodeState(c.Acc)
			require.NoError(t, err)
			v.PutFinal(part, c.Start, b)
		}
		b, err := tr.MarshalBinary()
		require.NoError(t, err)
		require.NoError(t, v.PutSnapshot(part, b, false, idle))
		tr.Ack()
	}
	fold(p0, 5)
	fold(p0, 65) // p0 closes window 0
	put("t/0", p0, false)
	require.Empty(t, v.Ready(), "partition 1 has not reported")
	fold(p1, 10)
	put("t/1", p1, false)
	require.Empty(t, v.Ready(), "partition 1 has window 0 open")
	fold(p1, 61)
	put("t/1", p1, false)
	ready := v.Ready()
	require.Equal(t, []int64{base.UnixNano()}, ready)
	r, err := v.Window(ready[0])
	require.NoError(t, err)
	require.Equal(t, int64(2), r.Records)
	require.Equal(t, base, r.Window.Start)
	v.MarkEmitted(ready[0])
	require.Empty(t, v.Ready(), "emitted once")
	// A replayed final of a sealed window changes nothing.
	p1b := NewTracker(plan, spec)
	fold(p1b, 10)
	fold(p1b, 61)
	put("t/1", p1b, false)
	require.Empty(t, v.Ready())

	// An idle partition does not hold windows back; its open state counts and a later
	// change re-emits the window.
	fold(p0, 130)
	put("t/0", p0, false)
	require.Empty(t, v.Ready())
	require.NoError(t, v.PutSnapshot("t/1", mustMarshal(t, p1), false, true))
	ready = v.Ready()
	require.Equal(t, []int64{base.Add(time.Minute).UnixNano()}, ready)
	r, err = v.Window(ready[0])
	require.NoError(t, err)
	require.Equal(t, int64(2), r.Records) // p0's 65 and p1's 61
	v.MarkEmitted(ready[0])
	fold(p1, 62)
	require.NoError(t, v.PutSnapshot("t/1", mustMarshal(t, p1), false, true))
	require.Equal(t, []int64{base.Add(time.Minute).UnixNano()}, v.Ready(), "the idle partition's window changed")
	r, err = v.Window(ready[0])
	require.NoError(t, err)
	require.Equal(t, int64(3), r.Records)

	total, err := v.Total()
	require.NoError(t, err)
	require.Equal(t, int64(6), total.Records)
}

func mustMarshal(t *testing.T, tr *Tracker) []byte {
	b, err := tr.MarshalBinary()
	require.NoError(t, err)
	return b
}

func FuzzParsePayload(f *testing.F) {
	plan := pipeline.NewPlan(nil, nil)
	tr := NewTracker(plan, nil)
	b, _ := tr.MarshalBinary()
	f.Add(b)
	f.Add([]byte("ESTR\x01\x01\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePayload(b)
		if err == nil {
			_, _ = pipeline.DecodeState(p.Total)
		}
	})
}
