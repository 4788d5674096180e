package stats

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/evalstream/evalstream/metrics/core"
)

// The CI methods.
const (
	MethodPoisson   = "poisson"
	MethodSacrebleu = "sacrebleu"
	MethodNone      = "none"
)

// Config is the resampling set-up of a run (config `ci`). Two states pair, and merge, only
// when their Configs are equal.
type Config struct {
	Method    string  `json:"method"`
	Resamples int     `json:"resamples"`
	Level     float64 `json:"level"`
	Seed      uint64  `json:"seed"`
	// Key is the record field naming the resampling unit; empty = the record's position.
	Key string `json:"key,omitempty"`
}

// signature is the part of a metric signature that the bootstrap adds.
func (c Config) signature() string {
	s := "|ci:" + c.Method + ",B=" + strconv.Itoa(c.Resamples) + ",level=" + strconv.FormatFloat(c.Level, 'g', -1, 64) + ",seed=" + strconv.FormatUint(c.Seed, 10)
	if c.Key != "" {
		s += ",key=" + c.Key
	}
	return s
}

// Bootstrap is a metric whose states carry, beside the main state, c.Resamples replicate
// states fed with Poisson(1) weights (method poisson). It is immutable and safe for
// concurrent use, like the metric it wraps.
type Bootstrap struct {
	core.Metric
	Config Config
	sig    string
	memo   string
}

// NewBootstrap wraps m. c must be valid and of method poisson.
func NewBootstrap(m core.Metric, c Config) *Bootstrap {
	return &Bootstrap{Metric: m, Config: c, sig: core.SigExtend(m.Signature(), c.signature()[1:]), memo: "stats.poisson" + c.signature()}
}

// Signature implements core.Metric: the wrapped signature with the resampling set-up (ci)
// before its version.
func (b *Bootstrap) Signature() string { return b.sig }

// CIConfig is the resampling set-up; sacrebleu.Metric has the same method, so that the
// pipeline can find the `ci` of a plan whichever method wraps its metrics.
func (b *Bootstrap) CIConfig() Config { return b.Config }

// NewState implements core.Metric. Replicates are allocated at the first Add, so empty
// states (most slices of a fresh worker) stay small.
func (b *Bootstrap) NewState() core.State {
	st := &BootstrapState{m: b, Main: b.Metric.NewState()}
	if vs, ok := st.Main.(core.SumVectorState); ok {
		st.dim = vs.VectorLen()
	}
	return st
}

// BootstrapState is a main state and its replicates. It is not safe for concurrent use.
type BootstrapState struct {
	m    *Bootstrap
	Main core.State
	// Reps holds one state per replicate, or nil while nothing was added. When Main is a
	// core.SumVectorState with a vector of length dim > 0, Reps stays nil and vec holds the
	// replicates' sums instead, replicate b at vec[b·dim : (b+1)·dim].
	Reps []core.State
	dim  int
	vec  []int64
	row  []int64 // scratch: one record's contribution
	// sel and ws are scratch: the replicates a record goes to and its weights there.
	sel []core.State
	ws  []int64
}

// weightsMemo holds a record's weights in sparse form: the replicates with a non-zero
// weight (63% of them) and those weights, so that folds loop without a branch per replicate.
type weightsMemo struct {
	unit uint64
	idx  []int32
	w    []int64
}

// weights returns the record's non-zero Poisson weights, shared through the memo by every
// metric and slice the record is folded into.
func (s *BootstrapState) weights(ex *core.Example) *weightsMemo {
	v, current := ex.Memo.Lookup(s.m.memo)
	wm, _ := v.(*weightsMemo)
	if current && wm.unit == ex.Unit {
		return wm
	}
	B := s.m.Config.Resamples
	if wm == nil {
		wm = &weightsMemo{idx: make([]int32, B+1), w: make([]int64, B+1)}
	}
	wm.unit = ex.Unit
	n := sparseWeights(s.m.Config.Seed, ex.Unit, B, wm.idx[:B+1], wm.w[:B+1])
	wm.idx, wm.w = wm.idx[:n], wm.w[:n]
	ex.Memo.Store(s.m.memo, wm)
	return wm
}

func (s *BootstrapState) ensureReps() {
	if s.Reps == nil {
		s.Reps = make([]core.State, s.m.Config.Resamples)
		for i := range s.Reps {
			s.Reps[i] = s.m.Metric.NewState()
		}
	}
}

// Add implements core.State: the main state gets weight, replicate b gets weight·w_b.
func (s *BootstrapState) Add(ex *core.Example, weight int64) {
	if s.dim > 0 {
		s.addVector(ex, weight)
		return
	}
	s.Main.Add(ex, weight)
	wm := s.weights(ex)
	s.ensureReps()
	s.sel, s.ws = s.sel[:0], s.ws[:0]
	for k, b := range wm.idx {
		s.sel = append(s.sel, s.Reps[b])
		s.ws = append(s.ws, wm.w[k]*weight)
	}
	if ra, ok := s.Main.(core.ReplicaAdder); ok {
		ra.AddReplicas(ex, s.sel, s.ws)
		return
	}
	for k, st := range s.sel {
		st.Add(ex, s.ws[k])
	}
}

func (s *BootstrapState) addVector(ex *core.Example, weight int64) {
	vs := s.Main.(core.SumVectorState)
	if weight != 1 {
		vs.Add(ex, weight-1)
	}
	if s.row == nil {
		s.row = make([]int64, s.dim)
	}
	if !vs.AddVector(ex, s.row) {
		return
	}
	wm := s.weights(ex)
	if s.vec == nil {
		s.vec = make([]int64, s.dim*s.m.Config.Resamples)
	}
	addRows(s.vec, s.row, wm.idx, wm.w, weight)
}

// addRows adds weight·w[k]·row to row idx[k] of vec (rows of len(row)), for every k. It
// is the bootstrap's inner loop: unrolled by four, without bounds checks inside.
func addRows(vec, row []int64, idx []int32, w []int64, weight int64) {
	d := len(row)
	w = w[:len(idx)]
	for k, b := range idx {
		m := w[k] * weight
		dst := vec[int(b)*d:][:d]
		j := 0
		for ; j+4 <= d; j += 4 {
			r, t := row[j:j+4:j+4], dst[j:j+4:j+4]
			t[0] += m * r[0]
			t[1] += m * r[1]
			t[2] += m * r[2]
			t[3] += m * r[3]
		}
		for ; j < d; j++ {
			dst[j] += m * row[j]
		}
	}
}

// Merge implements core.State.
func (s *BootstrapState) Merge(other core.State) error {
	o, ok := other.(*BootstrapState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if o == s { // merging a state into itself: read from a copy
		c, err := core.CopyState(s.m, s)
		if err != nil {
			return err
		}
		o = c.(*BootstrapState)
	}
	if err := s.Main.Merge(o.Main); err != nil {
		return err
	}
	if o.vec != nil {
		if s.vec == nil {
			s.vec = make([]int64, len(o.vec))
		}
		for i, x := range o.vec {
			s.vec[i] += x
		}
	}
	if o.Reps == nil {
		return nil
	}
	s.ensureReps()
	for i := range s.Reps {
		if err := s.Reps[i].Merge(o.Reps[i]); err != nil {
			return err
		}
	}
	return nil
}

// Result implements core.State: the main result with its percentile interval.
func (s *BootstrapState) Result() core.Result {
	r := s.Main.Result()
	if r.Value == nil {
		return r
	}
	r.CI = s.interval(r)
	return r
}

// HasReplicates reports whether anything was folded into the replicates.
func (s *BootstrapState) HasReplicates() bool { return s.Reps != nil || s.vec != nil }

// ReplicateValues returns the value of every replicate (nil where undefined, or where the
// state has no replicates yet).
func (s *BootstrapState) ReplicateValues() []any {
	out := make([]any, s.m.Config.Resamples)
	if s.vec != nil {
		vs := s.Main.(core.SumVectorState)
		for b := range out {
			out[b] = vs.VectorResult(s.vec[b*s.dim : (b+1)*s.dim]).Value
		}
		return out
	}
	if s.Reps == nil {
		return out
	}
	for i, st := range s.Reps {
		out[i] = st.Result().Value
	}
	return out
}

func (s *BootstrapState) interval(res core.Result) *core.Interval {
	c := s.m.Config
	iv := &core.Interval{Level: c.Level, Method: c.Method, Resamples: c.Resamples, Seed: c.Seed}
	switch v := res.Value.(type) {
	case float64:
		reps := s.ReplicateValues()
		vals := make([]float64, 0, len(reps))
		for _, r := range reps {
			if f, ok := r.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
				vals = append(vals, f)
			} else {
				iv.Undefined++
			}
		}
		if len(vals) == 0 {
			return nil
		}
		lo, hi, se := Spread(vals, c.Level)
		iv.Low, iv.High, iv.Stderr = lo, hi, se
	case []float64:
		// A class's interval comes from the replicates whose results list it, matched by
		// class: sklearn-style per-class results list the classes seen, and a replicate
		// that lacks a rare class still holds the others (matched by position, it would
		// be dropped for every class, or misread). Undefined counts the replicates that
		// lack a class or hold a non-finite value for one.
		labels, ok := ClassLabels(res, len(v))
		if !ok {
			return nil
		}
		reps := s.replicateClasses()
		for _, r := range reps {
			if len(r) < len(v) {
				iv.Undefined++
			}
		}
		los, his, ses := make([]float64, len(v)), make([]float64, len(v)), make([]float64, len(v))
		vals := make([]float64, 0, len(reps))
		for k := range v {
			key := ClassKey(labels[k])
			vals = vals[:0]
			for _, r := range reps {
				if x, ok := r[key]; ok {
					vals = append(vals, x)
				}
			}
			los[k], his[k], ses[k] = Spread(vals, c.Level)
		}
		iv.Low, iv.High, iv.Stderr = los, his, ses
	default:
		return nil // a matrix: no interval
	}
	return iv
}

// stateVersion is BootstrapState's own format version.
const stateVersion = 1

// MarshalBinary implements core.State.
func (s *BootstrapState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	mb, err := s.Main.MarshalBinary()
	if err != nil {
		return nil, err
	}
	e.String(string(mb))
	// 0: no replicates yet, 1: one state per replicate, 2: the block of sum vectors.
	switch {
	case s.vec != nil:
		e.Byte(2)
		e.Int64s(s.vec)
	case s.Reps != nil:
		e.Byte(1)
	default:
		e.Byte(0)
	}
	for _, r := range s.Reps {
		rb, err := r.MarshalBinary()
		if err != nil {
			return nil, err
		}
		e.String(string(rb))
	}
	return e.B, nil
}

// DecodeState implements core.Metric.
func (b *Bootstrap) DecodeState(data []byte) (core.State, error) {
	d := core.NewDecoder(data)
	d.Version("bootstrap state", stateVersion)
	st := &BootstrapState{m: b}
	mb := d.String()
	if d.Err() != nil {
		return nil, d.Finish()
	}
	main, err := b.Metric.DecodeState([]byte(mb))
	if err != nil {
		return nil, err
	}
	st.Main = main
	if vs, ok := main.(core.SumVectorState); ok {
		st.dim = vs.VectorLen()
	}
	switch kind := d.Byte(); {
	case kind == 2 && st.dim > 0:
		st.vec = d.Int64s()
		if d.Err() == nil && len(st.vec) != st.dim*b.Config.Resamples {
			return nil, fmt.Errorf("%w: bootstrap state holds %d sums, want %d", core.ErrCorruptState, len(st.vec), st.dim*b.Config.Resamples)
		}
	case kind == 1 && st.dim == 0:
		st.Reps = make([]core.State, b.Config.Resamples)
		for i := range st.Reps {
			rb := d.String()
			if d.Err() != nil {
				break
			}
			if st.Reps[i], err = b.Metric.DecodeState([]byte(rb)); err != nil {
				return nil, err
			}
		}
	case kind != 0 && d.Err() == nil:
		return nil, fmt.Errorf("%w: bootstrap replicates of kind %d", core.ErrCorruptState, kind)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return st, nil
}

// ErrNoReplicates is wrapped when a paired test or interval needs replicates a state lacks.
var ErrNoReplicates = errors.New("state has no bootstrap replicates")

// ReplicateCost says, for `evalstream list`, how the bootstrap keeps the replicates of m
// (with its default options) and what one replicate costs in memory.
func ReplicateCost(m core.Metric) string {
	st := m.NewState()
	if vs, ok := st.(core.SumVectorState); ok && vs.VectorLen() > 0 {
		return fmt.Sprintf("a vector of %d integers per replicate (%d bytes; B = 1000: %d KiB per state)", vs.VectorLen(), 8*vs.VectorLen(), 8*vs.VectorLen()*1000/1024)
	}
	if _, ok := st.(core.ReplicaAdder); ok {
		return "one state per replicate (its memory as above), the record decoded once for all"
	}
	return "one state per replicate (its memory as above), the record folded into each"
}
