// Package stages holds the per-record transforms between a source and the metric states
// that are not tied to one source format: event-time extraction, tumbling-window
// assignment, per-partition watermarks and lateness (Tracker), and the merge of
// per-partition window states into per-window results (View).
//
// Windows are decided per Kafka partition from that partition's own records only: the
// partition's watermark is the largest event time it has seen, a window [start, end) closes
// for the partition when its watermark reaches end + allowed_lateness, and a record whose
// window is already closed is late. Because a partition's records always arrive in offset
// order, these decisions do not depend on timing, on how partitions are spread over
// instances, or on crashes and restarts: replaying a topic (backfill) yields the same windows.
package stages

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
)

// Spec configures tumbling windows. The zero value is invalid; see NewSpec.
type Spec struct {
	// Size is the window length; windows are aligned to the Unix epoch.
	Size time.Duration
	// Lateness is how long after a window's end records for it are still accepted.
	Lateness time.Duration
	// Field is the index, in the plan's fields, of the record field holding the event time;
	// -1 means the Kafka message timestamp.
	Field int
	// FieldName names Field in error messages.
	FieldName string
}

// NewSpec returns a window spec: field is the plan index of the event-time field, or -1 to
// use message timestamps.
func NewSpec(size, lateness time.Duration, field int, fieldName string) (*Spec, error) {
	if size <= 0 {
		return nil, fmt.Errorf("window size must be > 0, got %v", size)
	}
	if lateness < 0 {
		return nil, fmt.Errorf("allowed lateness must be >= 0, got %v", lateness)
	}
	return &Spec{Size: size, Lateness: lateness, Field: field, FieldName: fieldName}, nil
}

// Start returns the start (Unix nanoseconds) of the window holding t (Unix nanoseconds).
func (s *Spec) Start(t int64) int64 {
	size := int64(s.Size)
	st := t - t%size
	if t%size < 0 {
		st -= size
	}
	return st
}

// closesAt returns the watermark at which the window starting at start closes.
func (s *Spec) closesAt(start int64) int64 {
	return satAdd(satAdd(start, int64(s.Size)), int64(s.Lateness))
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Span returns the window [start, start+Size) as times.
func (s *Spec) Span(start int64) (time.Time, time.Time) {
	return time.Unix(0, start).UTC(), time.Unix(0, start+int64(s.Size)).UTC()
}

// EventTime reads an event time: an RFC 3339 string ("2024-05-01T10:00:00Z", fractional
// seconds allowed) or a number of seconds since the Unix epoch. Numbers too large to be
// seconds are read as milliseconds (>= 1e11), microseconds (>= 1e14) or nanoseconds
// (>= 1e17), so Kafka-style millisecond timestamps work as they are. It returns Unix
// nanoseconds, or a *core.RecordError with reason "missing field" or "wrong type".
func EventTime(v core.Value, field string) (int64, *core.RecordError) {
	switch v.Kind {
	case core.Missing, core.Null:
		return 0, &core.RecordError{Reason: "missing field", Field: field, Detail: "the window's event time is missing"}
	case core.String:
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v.Str))
		if err != nil {
			return 0, &core.RecordError{Reason: "wrong type", Field: field, Detail: fmt.Sprintf("event time %q is not an RFC 3339 time (e.g. 2024-05-01T10:00:00Z)", clip(v.Str))}
		}
		return t.UnixNano(), nil
	case core.Int:
		return epochInt(v.Int, field)
	case core.Float:
		return epochFloat(v.Float, field)
	}
	return 0, &core.RecordError{Reason: "wrong type", Field: field, Detail: fmt.Sprintf("event time must be an RFC 3339 string or an epoch number, got %s", v.Kind)}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func epochInt(x int64, field string) (int64, *core.RecordError) {
	a := x
	if a < 0 {
		a = -a
	}
	var mul int64
	switch {
	case a < 1e11:
		mul = 1e9
	case a < 1e14:
		mul = 1e6
	case a < 1e17:
		mul = 1e3
	default:
		mul = 1
	}
	if mul > 1 && (x > math.MaxInt64/mul || x < math.MinInt64/mul) {
		return 0, &core.RecordError{Reason: "wrong type", Field: field, Detail: "event time out of range"}
	}
	return x * mul, nil
}

func epochFloat(x float64, field string) (int64, *core.RecordError) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, &core.RecordError{Reason: "wrong type", Field: field, Detail: "event time is not a finite number"}
	}
	if x == math.Trunc(x) && math.Abs(x) < 9e18 {
		return epochInt(int64(x), field)
	}
	a := math.Abs(x)
	var mul float64
	switch {
	case a < 1e11:
		mul = 1e9
	case a < 1e14:
		mul = 1e6
	case a < 1e17:
		mul = 1e3
	default:
		mul = 1
	}
	// Split into whole and fractional parts so that seconds keep nanosecond precision.
	whole, frac := math.Modf(x)
	ns := whole*mul + math.Round(frac*mul)
	if math.Abs(ns) >= 9.2e18 {
		return 0, &core.RecordError{Reason: "wrong type", Field: field, Detail: "event time out of range"}
	}
	return int64(whole)*int64(mul) + int64(math.Round(frac*mul)), nil
}
