package stages

import (
	"errors"
	"fmt"
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// ReasonLate is the bad-record reason of a record whose window has already closed.
const ReasonLate = "late record"

// ErrPayload is wrapped by every error about an unreadable tracker payload.
var ErrPayload = errors.New("invalid window state")

const (
	payloadMagic   = "ESTR"
	payloadVersion = 1
)

// Tracker is the accumulation state of one Kafka partition: the running total, the open
// windows and the partition's watermark, plus the windows closed since the last Ack. It is
// not safe for concurrent use; the partition's consumer owns it.
type Tracker struct {
	plan  *pipeline.Plan
	spec  *Spec // nil without windows
	Total *pipeline.Accumulator
	open  map[int64]*pipeline.Accumulator
	// wm is the largest event time seen (Unix ns); valid when hasWM.
	wm     int64
	hasWM  bool
	closed []ClosedWindow
}

// ClosedWindow is a window whose contents are final for this partition.
type ClosedWindow struct {
	Start int64
	Acc   *pipeline.Accumulator
}

// NewTracker returns an empty tracker; spec is nil when the run has no windows.
func NewTracker(plan *pipeline.Plan, spec *Spec) *Tracker {
	return &Tracker{plan: plan, spec: spec, Total: pipeline.NewAccumulator(plan), open: map[int64]*pipeline.Accumulator{}}
}

// Watermark returns the partition's watermark (Unix ns) and whether it has one.
func (t *Tracker) Watermark() (int64, bool) { return t.wm, t.hasWM }

// OpenWindows returns the starts of the open windows, sorted.
func (t *Tracker) OpenWindows() []int64 { return sortedKeys(t.open) }

// Fold folds one record into the total and its window. msgTime is the message timestamp
// (Unix ns), used when the spec reads message time. A rejected record (undecodable, no
// valid event time, late, or refused by a metric) is counted in the total (and, when it has
// a window, in the window) and returned as a Rejection; the caller applies the bad-record
// policy.
func (t *Tracker) Fold(f *pipeline.Folder, rec *pipeline.Record, msgTime int64) *pipeline.Rejection {
	if rec.Err != nil {
		t.Total.Reject(rec.Err.Reason, rec)
		return &pipeline.Rejection{Reason: rec.Err.Reason, Field: rec.Err.Field, Err: rec.Err}
	}
	if t.spec == nil {
		if rej := f.Check(rec); rej != nil {
			t.Total.Reject(rej.Reason, rec)
			return rej
		}
		f.Add(t.Total, rec, 1)
		return nil
	}
	ts := msgTime
	if t.spec.Field >= 0 {
		var rerr *core.RecordError
		if ts, rerr = EventTime(rec.Values[t.spec.Field], t.spec.FieldName); rerr != nil {
			t.Total.Reject(rerr.Reason, rec)
			return &pipeline.Rejection{Reason: rerr.Reason, Field: rerr.Field, Err: rerr}
		}
	}
	start := t.spec.Start(ts)
	if t.hasWM && t.spec.closesAt(start) <= t.wm {
		t.Total.Reject(ReasonLate, rec)
		end := start + int64(t.spec.Size)
		err := &core.RecordError{Reason: ReasonLate, Field: t.spec.FieldName, Detail: fmt.Sprintf("its window ending %s closed when the partition's watermark reached %s (allowed lateness %v)", fmtNs(end), fmtNs(t.wm), t.spec.Lateness)}
		return &pipeline.Rejection{Reason: ReasonLate, Field: t.spec.FieldName, Err: err}
	}
	win := t.open[start]
	if win == nil {
		win = pipeline.NewAccumulator(t.plan)
		t.open[start] = win
	}
	rej := f.Check(rec)
	if rej != nil {
		t.Total.Reject(rej.Reason, rec)
		win.Reject(rej.Reason, rec)
	} else {
		f.Add(t.Total, rec, 1)
		f.Add(win, rec, 1)
	}
	if !t.hasWM || ts > t.wm {
		t.wm, t.hasWM = ts, true
		t.closeUpTo()
	}
	return rej
}

func fmtNs(ns int64) string {
	s, _ := (&Spec{Size: 1}).Span(ns)
	return s.Format("2006-01-02T15:04:05.999999999Z07:00")
}

// closeUpTo moves the windows the watermark has passed to the closed list.
func (t *Tracker) closeUpTo() {
	for _, start := range sortedKeys(t.open) {
		if t.spec.closesAt(start) > t.wm {
			break
		}
		t.closed = append(t.closed, ClosedWindow{Start: start, Acc: t.open[start]})
		delete(t.open, start)
	}
}

// HasClosed reports whether windows closed since the last Ack.
func (t *Tracker) HasClosed() bool { return len(t.closed) > 0 }

// Closed returns the windows closed since the last Ack, by start. The caller must make them
// durable before the next snapshot that no longer lists them, then call Ack.
func (t *Tracker) Closed() []ClosedWindow { return t.closed }

// Ack forgets the closed windows once they are durable.
func (t *Tracker) Ack() { t.closed = nil }

// MarshalBinary encodes the tracker's state (total, watermark, open windows). Windows
// closed but not yet acknowledged are not in it: the caller writes them (Closed) before the
// snapshot, in the same ordered write.
func (t *Tracker) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.B = append(e.B, payloadMagic...)
	e.Byte(payloadVersion)
	e.Bool(t.hasWM)
	e.Varint(t.wm)
	b, err := pipeline.EncodeState(t.Total)
	if err != nil {
		return nil, err
	}
	e.String(string(b))
	keys := sortedKeys(t.open)
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		b, err := pipeline.EncodeState(t.open[k])
		if err != nil {
			return nil, err
		}
		e.Varint(k)
		e.String(string(b))
	}
	return e.B, nil
}

// Restore replaces the tracker's state by a payload written by MarshalBinary. The payload
// must hold the same metrics and slices as the tracker's plan.
func (t *Tracker) Restore(payload []byte) error {
	p, err := ParsePayload(payload)
	if err != nil {
		return err
	}
	total, err := pipeline.DecodeState(p.Total)
	if err != nil {
		return fmt.Errorf("%w: total: %v", ErrPayload, err)
	}
	fresh := pipeline.NewAccumulator(t.plan)
	if err := pipeline.SameShape(fresh, total); err != nil {
		return fmt.Errorf("the saved state was computed with other metrics or slices (%v); use a new state topic or group for the new configuration", err)
	}
	open := map[int64]*pipeline.Accumulator{}
	for _, w := range p.Windows {
		a, err := pipeline.DecodeState(w.State)
		if err != nil {
			return fmt.Errorf("%w: window %s: %v", ErrPayload, fmtNs(w.Start), err)
		}
		open[w.Start] = a
	}
	if len(open) > 0 && t.spec == nil {
		return fmt.Errorf("the saved state has windows but this run has none; use a new state topic or group")
	}
	t.Total, t.open, t.wm, t.hasWM, t.closed = total, open, p.Watermark, p.HasWatermark, nil
	if t.spec != nil && t.hasWM {
		t.closeUpTo() // a changed allowed_lateness closes windows at once
	}
	return nil
}

// Payload is a parsed tracker payload; states are still encoded.
type Payload struct {
	HasWatermark bool
	Watermark    int64
	Total        []byte
	Windows      []WindowState
}

// WindowState is one window's encoded accumulator.
type WindowState struct {
	Start int64
	State []byte
}

// ParsePayload splits a payload without decoding the metric states.
func ParsePayload(b []byte) (*Payload, error) {
	if len(b) < len(payloadMagic) || string(b[:len(payloadMagic)]) != payloadMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrPayload)
	}
	d := core.NewDecoder(b[len(payloadMagic):])
	if v := d.Byte(); v != payloadVersion && d.Err() == nil {
		return nil, fmt.Errorf("%w: version %d, this build reads %d", ErrPayload, v, payloadVersion)
	}
	p := &Payload{HasWatermark: d.Bool(), Watermark: d.Varint()}
	p.Total = []byte(d.String())
	n := d.Len(2)
	for i := 0; i < n; i++ {
		p.Windows = append(p.Windows, WindowState{Start: d.Varint(), State: []byte(d.String())})
	}
	if err := d.Finish(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	return p, nil
}

// DecodeTotal returns the running total held in a payload.
func DecodeTotal(payload []byte) (*pipeline.Accumulator, error) {
	p, err := ParsePayload(payload)
	if err != nil {
		return nil, err
	}
	a, err := pipeline.DecodeState(p.Total)
	if err != nil {
		return nil, fmt.Errorf("%w: total: %v", ErrPayload, err)
	}
	return a, nil
}

func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
