package stats

import (
	"fmt"
	"math"
	"strconv"

	"github.com/evalstream/evalstream/metrics/core"
)

// DefaultTrials is the number of approximate-randomization trials of `compare --test ar`.
const DefaultTrials = 10000

// Randomization is a metric whose states carry, per trial t of a paired approximate
// randomization test, the part of the records whose swap bit is 0 (Keep[t]) and the part
// whose bit is 1 (Swap[t]). The bit depends only on (seed, unit, t), so the two systems
// scored on the same units agree on which segments trial t swaps, and the permuted systems
// are A_t = Keep_A[t] + Swap_B[t] and B_t = Keep_B[t] + Swap_A[t] — accumulated streaming,
// merged like any state. A state costs 2·trials states of the wrapped metric. It is
// immutable and safe for concurrent use, like the metric it wraps.
type Randomization struct {
	core.Metric
	Trials int
	Seed   uint64
	sig    string
	memo   string
}

// NewRandomization wraps m for trials ≥ 1 trials with the given seed.
func NewRandomization(m core.Metric, trials int, seed uint64) *Randomization {
	tag := "|ar:T=" + strconv.Itoa(trials) + ",seed=" + strconv.FormatUint(seed, 10)
	return &Randomization{Metric: m, Trials: trials, Seed: seed, sig: core.SigExtend(m.Signature(), tag[1:]), memo: "stats.ar" + tag}
}

// Signature implements core.Metric.
func (r *Randomization) Signature() string { return r.sig }

// NewState implements core.Metric; trial states are allocated at the first Add.
func (r *Randomization) NewState() core.State {
	return &RandomizationState{m: r, Main: r.Metric.NewState()}
}

// RandomizationState is a main state and its per-trial kept and swapped parts. It is not
// safe for concurrent use.
type RandomizationState struct {
	m    *Randomization
	Main core.State
	// Keep and Swap hold one state per trial, or are nil while nothing was added.
	Keep, Swap []core.State
	wk, wsw    []int64
}

type bitsMemo struct {
	unit uint64
	bits []uint8
}

// SwapBits fills dst with the swap bit of the unit for trials 0..len(dst)-1: independent
// fair coin flips that depend only on (seed, unit, trial).
func SwapBits(seed, unit uint64, dst []uint8) {
	// A domain constant keeps the bits independent of the Poisson weights of the same seed.
	base := mix64(mix64(seed^0x243f6a8885a308d3+golden) ^ mix64(unit^0x13198a2e03707344))
	for c := 0; c*64 < len(dst); c++ {
		h := mix64(base + uint64(c)*golden)
		for i := 0; i < 64 && c*64+i < len(dst); i++ {
			dst[c*64+i] = uint8(h>>i) & 1
		}
	}
}

func (s *RandomizationState) bits(ex *core.Example) []uint8 {
	v, current := ex.Memo.Lookup(s.m.memo)
	bm, _ := v.(*bitsMemo)
	if current && bm.unit == ex.Unit {
		return bm.bits
	}
	if bm == nil {
		bm = &bitsMemo{bits: make([]uint8, s.m.Trials)}
	}
	bm.unit = ex.Unit
	SwapBits(s.m.Seed, ex.Unit, bm.bits)
	ex.Memo.Store(s.m.memo, bm)
	return bm.bits
}

func (s *RandomizationState) ensure() {
	if s.Keep == nil {
		s.Keep = make([]core.State, s.m.Trials)
		s.Swap = make([]core.State, s.m.Trials)
		for i := range s.Keep {
			s.Keep[i] = s.m.Metric.NewState()
			s.Swap[i] = s.m.Metric.NewState()
		}
	}
}

// Add implements core.State: the main state gets the record, and per trial either the kept
// or the swapped part does.
func (s *RandomizationState) Add(ex *core.Example, weight int64) {
	s.Main.Add(ex, weight)
	bits := s.bits(ex)
	s.ensure()
	if ra, ok := s.Main.(core.ReplicaAdder); ok {
		if s.wk == nil {
			s.wk, s.wsw = make([]int64, len(bits)), make([]int64, len(bits))
		}
		for i, b := range bits {
			s.wk[i], s.wsw[i] = int64(1-b)*weight, int64(b)*weight
		}
		ra.AddReplicas(ex, s.Keep, s.wk)
		ra.AddReplicas(ex, s.Swap, s.wsw)
		return
	}
	for i, b := range bits {
		if b == 0 {
			s.Keep[i].Add(ex, weight)
		} else {
			s.Swap[i].Add(ex, weight)
		}
	}
}

// Merge implements core.State.
func (s *RandomizationState) Merge(other core.State) error {
	o, ok := other.(*RandomizationState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if o == s { // merging a state into itself: read from a copy
		c, err := core.CopyState(s.m, s)
		if err != nil {
			return err
		}
		o = c.(*RandomizationState)
	}
	if err := s.Main.Merge(o.Main); err != nil {
		return err
	}
	if o.Keep == nil {
		return nil
	}
	s.ensure()
	for i := range s.Keep {
		if err := s.Keep[i].Merge(o.Keep[i]); err != nil {
			return err
		}
		if err := s.Swap[i].Merge(o.Swap[i]); err != nil {
			return err
		}
	}
	return nil
}

// Result implements core.State: the main result.
func (s *RandomizationState) Result() core.Result { return s.Main.Result() }

const randomizationVersion = 1

// MarshalBinary implements core.State.
func (s *RandomizationState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(randomizationVersion)
	put := func(st core.State) error {
		b, err := st.MarshalBinary()
		if err != nil {
			return err
		}
		e.String(string(b))
		return nil
	}
	if err := put(s.Main); err != nil {
		return nil, err
	}
	e.Bool(s.Keep != nil)
	for i := range s.Keep {
		if err := put(s.Keep[i]); err != nil {
			return nil, err
		}
		if err := put(s.Swap[i]); err != nil {
			return nil, err
		}
	}
	return e.B, nil
}

// DecodeState implements core.Metric.
func (r *Randomization) DecodeState(data []byte) (core.State, error) {
	d := core.NewDecoder(data)
	d.Version("randomization state", randomizationVersion)
	get := func() (core.State, error) {
		b := d.String()
		if err := d.Err(); err != nil {
			return nil, d.Finish()
		}
		return r.Metric.DecodeState([]byte(b))
	}
	st := &RandomizationState{m: r}
	var err error
	if st.Main, err = get(); err != nil {
		return nil, err
	}
	if d.Bool() {
		st.Keep, st.Swap = make([]core.State, r.Trials), make([]core.State, r.Trials)
		for i := range st.Keep {
			if st.Keep[i], err = get(); err != nil {
				return nil, err
			}
			if st.Swap[i], err = get(); err != nil {
				return nil, err
			}
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return st, nil
}

// PairedRandomization is the paired approximate randomization test of statistics.md §2:
// with δ̂ = cand − base, p = (1 + #{t : |score(B_t) − score(A_t)| ≥ |δ̂|}) / (T' + 1), where
// A_t and B_t are the systems with trial t's segments swapped and T' counts the trials whose
// permuted scores are both defined. The result has no delta interval (NaN).
func PairedRandomization(base, cand *RandomizationState) (Paired, error) {
	if base.m.sig != cand.m.sig {
		return Paired{}, fmt.Errorf("%w: metric signatures differ (%s vs %s)", ErrUnpaired, base.m.sig, cand.m.sig)
	}
	if base.Keep == nil || cand.Keep == nil {
		return Paired{}, fmt.Errorf("%w: a system has no records", ErrUndefined)
	}
	bv, err := scalar(base.Main.Result().Value)
	if err != nil {
		return Paired{}, err
	}
	cv, err := scalar(cand.Main.Result().Value)
	if err != nil {
		return Paired{}, err
	}
	p := Paired{Base: bv, Cand: cv, Delta: cv - bv, DeltaLow: math.NaN(), DeltaHigh: math.NaN()}
	ad := math.Abs(p.Delta)
	extreme := 0
	permuted := func(keep, swap core.State) (float64, error) {
		st := base.m.Metric.NewState()
		if err := st.Merge(keep); err != nil {
			return 0, err
		}
		if err := st.Merge(swap); err != nil {
			return 0, err
		}
		return scalar(st.Result().Value)
	}
	for t := range base.Keep {
		a, errA := permuted(base.Keep[t], cand.Swap[t])
		b, errB := permuted(cand.Keep[t], base.Swap[t])
		if errA != nil || errB != nil {
			for _, e := range []error{errA, errB} {
				if e != nil && e != ErrUndefined {
					return Paired{}, e
				}
			}
			p.Undefined++
			continue
		}
		p.Draws++
		if math.Abs(b-a) >= ad {
			extreme++
		}
	}
	p.P = float64(1+extreme) / float64(p.Draws+1)
	return p, nil
}
