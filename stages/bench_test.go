package stages

import (
	"testing"
	"time"

	"github.com/evalstream/evalstream/pipeline"
)

func BenchmarkTrackerFold(b *testing.B) {
	plan := testPlanB(b)
	spec, _ := NewSpec(time.Minute, 10*time.Second, plan.FieldIndex("ts"), "ts")
	tr := NewTracker(plan, spec)
	f := pipeline.NewFolder(plan)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]pipeline.Record, 1000)
	for i := range recs {
		recs[i] = rec(plan, "a b c", "a b d", "de", base.Add(time.Duration(i)*100*time.Millisecond))
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := recs[i%len(recs)]
		tr.Fold(f, &r, 0)
		if tr.HasClosed() {
			tr.Ack()
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
