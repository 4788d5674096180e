package stats

import (
	"errors"
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
	return &Bootstrap{Metric: m, Config: c, sig: m.Signature() + c.signature(), memo: "stats.poisson" + c.signature()}
}

// Signature implements core.Metric: the wrapped signature plus the resampling set-up.
func (b *Bootstrap) Signature() string { return b.sig }

// NewState implements core.Metric. Replicates are allocated at the first Add, so empty
// states (most slices of a fresh worker) stay small.
func (b *Bootstrap) NewState() core.State {
	return &BootstrapState{m: b, Main: b.Metric.NewState()}
}

// BootstrapState is a main state and its replicates. It is not safe for concurrent use.
type BootstrapState struct {
	m    *Bootstrap
	Main core.State
	// Reps holds one state per replicate, or nil while nothing was added.
	Reps []core.State
	ws   []int64
}

type weightsMemo struct {
	unit uint64
	w    []uint8
}

// weights returns the record's Poisson weights, shared through the memo by every metric
// and slice the record is folded into.
func (s *BootstrapState) weights(ex *core.Example) []uint8 {
	v, current := ex.Memo.Lookup(s.m.memo)
	wm, _ := v.(*weightsMemo)
	if current && wm.unit == ex.Unit {
		return wm.w
	}
	if wm == nil {
		wm = &weightsMemo{w: make([]uint8, s.m.Config.Resamples)}
	}
	wm.unit = ex.Unit
	PoissonWeights(s.m.Config.Seed, ex.Unit, wm.w)
	ex.Memo.Store(s.m.memo, wm)
	return wm.w
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
	s.Main.Add(ex, weight)
	w := s.weights(ex)
	s.ensureReps()
	if ra, ok := s.Main.(core.ReplicaAdder); ok {
		if s.ws == nil {
			s.ws = make([]int64, len(w))
		}
		for i, x := range w {
			s.ws[i] = int64(x) * weight
		}
		ra.AddReplicas(ex, s.Reps, s.ws)
		return
	}
	for i, x := range w {
		if x != 0 {
			s.Reps[i].Add(ex, int64(x)*weight)
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
		b, err := s.MarshalBinary()
		if err != nil {
			return err
		}
		c, err := s.m.DecodeState(b)
		if err != nil {
			return err
		}
		o = c.(*BootstrapState)
	}
	if err := s.Main.Merge(o.Main); err != nil {
		return err
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
	r.CI = s.interval(r.Value)
	return r
}

// ReplicateValues returns the value of every replicate (nil where undefined, or where the
// state has no replicates yet).
func (s *BootstrapState) ReplicateValues() []any {
	out := make([]any, s.m.Config.Resamples)
	if s.Reps == nil {
		return out
	}
	for i, st := range s.Reps {
		out[i] = st.Result().Value
	}
	return out
}

func (s *BootstrapState) interval(value any) *core.Interval {
	c := s.m.Config
	iv := &core.Interval{Level: c.Level, Method: c.Method, Resamples: c.Resamples, Seed: c.Seed}
	reps := s.ReplicateValues()
	switch v := value.(type) {
	case float64:
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
		los, his, ses := make([]float64, len(v)), make([]float64, len(v)), make([]float64, len(v))
		vals := make([]float64, 0, len(reps))
		for k := range v {
			vals = vals[:0]
			for _, r := range reps {
				if fs, ok := r.([]float64); ok && len(fs) == len(v) && !math.IsNaN(fs[k]) && !math.IsInf(fs[k], 0) {
					vals = append(vals, fs[k])
				} else if k == 0 {
					iv.Undefined++
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
	e.Bool(s.Reps != nil)
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
	if d.Bool() {
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
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return st, nil
}

// ErrNoReplicates is wrapped when a paired test or interval needs replicates a state lacks.
var ErrNoReplicates = errors.New("state has no bootstrap replicates")
