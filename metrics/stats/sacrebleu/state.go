package sacrebleu

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// Metric is a bleu, chrf or ter metric with `ci.method: sacrebleu`: its states keep, beside
// the wrapped state, every segment's sacrebleu statistics, and its results carry sacrebleu's
// `--confidence` interval. It is immutable and safe for concurrent use, like the metric it
// wraps.
type Metric struct {
	core.Metric
	Config stats.Config
	scorer core.SegmentScorer
	sig    string
	// kept is the column sums of the last state's resamples, which the next state reuses
	// for the statistics they share (see keptColumns).
	kept *keptColumns
}

// planCache keeps the last resamples drawn and the last paired-ar swaps. The draws depend
// on nothing but the seed, the number of segments and of resamples or trials, so every
// metric shares one cache (plans): the metrics of a compare (bleu and chrf), and every
// system's state, draw the same ones, once (a few bits per resample or trial and segment:
// see plan and swaps). The cached values are immutable.
type planCache struct {
	mu        sync.Mutex
	last      *plan
	lastSeed  uint64
	swaps     *swaps
	swapsSeed uint64
}

var plans planCache

// swaps returns the paired-ar swaps of the metric's seed for n segments and trials trials.
func (m *Metric) swaps(n, trials int) *swaps {
	plans.mu.Lock()
	defer plans.mu.Unlock()
	if sw := plans.swaps; sw != nil && plans.swapsSeed == m.Config.Seed && sw.n == n && sw.trials == trials {
		return sw
	}
	plans.swaps, plans.swapsSeed = drawSwaps(m.Config.Seed, n, trials), m.Config.Seed
	return plans.swaps
}

// plan returns the resamples of the metric's set-up for n segments.
func (m *Metric) plan(n int) (*plan, error) {
	plans.mu.Lock()
	defer plans.mu.Unlock()
	if p := plans.last; p != nil && plans.lastSeed == m.Config.Seed && p.n == n && p.resamples == m.Config.Resamples {
		return p, nil
	}
	p, err := newPlan(m.Config.Seed, n, m.Config.Resamples)
	if err != nil {
		return nil, err
	}
	plans.last, plans.lastSeed = p, m.Config.Seed
	return p, nil
}

// New wraps m, which must give a core.SegmentScorer; c must have method sacrebleu, level 0.95
// and at least one resample.
func New(m core.Metric, c stats.Config) (*Metric, error) {
	ss, ok := m.(core.SegmentStatser)
	if !ok {
		return nil, fmt.Errorf("ci.method sacrebleu needs sacrebleu's segment statistics, which only types bleu, chrf and ter have")
	}
	sc, err := ss.SegmentScorer()
	if err != nil {
		return nil, fmt.Errorf("ci.method sacrebleu: %w", err)
	}
	switch {
	case c.Method != stats.MethodSacrebleu:
		return nil, fmt.Errorf("sacrebleu.New: ci.method is %q", c.Method)
	case c.Level != 0.95:
		return nil, fmt.Errorf("ci.method sacrebleu computes 95%% intervals only, not %v", c.Level)
	case c.Resamples < 1:
		return nil, fmt.Errorf("ci.resamples must be at least 1, not %d", c.Resamples)
	}
	// The same ci pair as a poisson stats.Bootstrap adds, with this method's name.
	sig := "ci:" + c.Method + ",B=" + strconv.Itoa(c.Resamples) +
		",level=" + strconv.FormatFloat(c.Level, 'g', -1, 64) + ",seed=" + strconv.FormatUint(c.Seed, 10)
	if c.Key != "" {
		sig += ",key=" + c.Key
	}
	return &Metric{Metric: m, Config: c, scorer: sc, sig: core.SigExtend(m.Signature(), sig), kept: &keptColumns{}}, nil
}

// Signature implements core.Metric: the wrapped signature plus the resampling set-up.
func (m *Metric) Signature() string { return m.sig }

// CIConfig is the resampling set-up (method sacrebleu). The pipeline needs it, as it needs a
// stats.Bootstrap's Config, to record units and to write the `ci` header of saved states.
func (m *Metric) CIConfig() stats.Config { return m.Config }

// Scorer is the wrapped metric's core.SegmentScorer, for paired tests on states' Segments.
func (m *Metric) Scorer() core.SegmentScorer { return m.scorer }

// NewState implements core.Metric.
func (m *Metric) NewState() core.State { return &State{m: m, Main: m.Metric.NewState()} }

// Memory is what a state holds per segment, for `evalstream list`.
func (m *Metric) Memory() string {
	return fmt.Sprintf("%d bytes per segment (its %d statistics as float64, Seq and unit); the process keeps the last resamples drawn, shared by every metric (about 0.4 bytes per segment and resample) and paired-ar swaps (2 bits per segment and trial), and the metric a reference to the last interval's statistics and their sums in every resample (8 bytes per statistic and resample)", 16+8*m.scorer.StatsLen(), m.scorer.StatsLen())
}

// segment identifies one stored segment: its record's Seq (input order) and resampling unit
// (the record's key, for checking that paired systems list the same segments).
type segment struct{ seq, unit uint64 }

// State is a main state and the statistics of every segment folded into it, in the order they
// were added (Segments sorts them into input order). It is not safe for concurrent use.
type State struct {
	m    *Metric
	Main core.State
	segs []segment
	// chunks hold StatsLen values per segment, segment after segment in the order of segs,
	// in chunks of whole segments: a chunk never moves to grow, and Merge takes the other
	// state's chunks without copying them, capped so that neither state appends into memory
	// the other reads.
	chunks [][]float64
	// failed counts records whose statistics could not be computed (a TER alignment
	// failure); a state with any has no interval, since its segments no longer pair up.
	failed int64
	// memo is what Result and PairedTest derive from the segments, computed once; Add and
	// Merge drop it. It is atomic so that reading results stays free of data races.
	memo atomic.Pointer[derived]
}

// derived is what a state's segments give: the segments in input order, the system's
// sacrebleu score and its resample scores with the metric's set-up (or why there are none).
// It is immutable.
type derived struct {
	st    Stats
	units []uint64
	score float64
	boot  scores
	err   error
}

// derive returns the state's derived values, computing them when the state changed.
func (s *State) derive() *derived {
	if d := s.memo.Load(); d != nil {
		return d
	}
	d := &derived{}
	d.st, d.units = s.Segments()
	if len(d.units) > 0 {
		d.score = exactScore(s.m.scorer, d.st)
		p, err := s.m.plan(len(d.units))
		if err == nil {
			d.boot, err = bootstrapScores(s.m.scorer, d.st, p, s.m.kept)
		}
		d.err = err
	}
	s.memo.Store(d)
	return d
}

// Add implements core.State: the record is one segment, stored weight times.
func (s *State) Add(ex *core.Example, weight int64) {
	if weight < 1 {
		s.Main.Add(ex, weight)
		return
	}
	s.memo.Store(nil)
	d := s.m.scorer.StatsLen()
	c := s.room(d)
	n := len(c)
	var err error
	if sa, ok := s.Main.(core.SegmentAdder); ok {
		// One pass over the segment's n-grams for the main state and the statistics.
		c, err = sa.AddSegment(ex, weight, c)
	} else {
		s.Main.Add(ex, weight)
		c, err = s.m.scorer.SegmentStats(ex, c)
	}
	if err != nil || len(c) != n+d {
		s.chunks[len(s.chunks)-1] = c[:n]
		s.failed += weight
		return
	}
	s.chunks[len(s.chunks)-1] = c
	seg := segment{seq: ex.Seq, unit: ex.Unit}
	s.segs = append(s.segs, seg)
	row := c[n : n+d]
	for w := int64(1); w < weight; w++ {
		s.segs = append(s.segs, seg)
		c := s.room(d)
		s.chunks[len(s.chunks)-1] = append(c, row...)
	}
}

// Chunk sizes, in segments: they double from the first to the largest, so that a state of
// a few segments (a small slice) stays small and a large one allocates few chunks.
const (
	firstChunk = 16
	maxChunk   = 4096
)

// room returns the last chunk after making sure it has room for one more segment of d
// values (a new chunk when not).
func (s *State) room(d int) []float64 {
	if k := len(s.chunks); k > 0 {
		if c := s.chunks[k-1]; cap(c)-len(c) >= d {
			return c
		}
	}
	segs := firstChunk
	if k := len(s.chunks); k > 0 {
		segs = min(maxChunk, 2*cap(s.chunks[k-1])/d)
	}
	s.chunks = append(s.chunks, make([]float64, 0, max(segs, firstChunk)*d))
	return s.chunks[len(s.chunks)-1]
}

// rows returns each segment's statistics in the order of segs (views into the chunks).
func (s *State) rows() [][]float64 {
	d := s.m.scorer.StatsLen()
	out := make([][]float64, 0, len(s.segs))
	for _, c := range s.chunks {
		for i := 0; i+d <= len(c); i += d {
			out = append(out, c[i:i+d:i+d])
		}
	}
	return out
}

// values is the number of statistics held (StatsLen per segment).
func (s *State) values() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}

// Merge implements core.State.
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if o == s { // merging a state into itself: read from a copy
		c := &State{m: o.m, segs: slices.Clone(o.segs), chunks: slices.Clone(o.chunks), failed: o.failed}
		var err error
		if c.Main, err = core.CopyState(o.m.Metric, o.Main); err != nil {
			return err
		}
		o = c
	}
	s.memo.Store(nil)
	if err := s.Main.Merge(o.Main); err != nil {
		return err
	}
	s.segs = append(s.segs, o.segs...)
	for _, c := range o.chunks {
		if len(c) > 0 {
			s.chunks = append(s.chunks, c[:len(c):len(c)])
		}
	}
	s.failed += o.failed
	return nil
}

// Segments returns the statistics of every segment in input order (by Seq; equal Seqs, which
// only repeated adds of one record give, by unit and then content) and each segment's
// resampling unit. The returned memory is new; the state is not changed.
func (s *State) Segments() (Stats, []uint64) {
	d := s.m.scorer.StatsLen()
	rows := s.rows()
	idx := s.order(rows)
	st := Stats{Dim: d, Data: make([]float64, 0, len(s.segs)*d)}
	units := make([]uint64, len(idx))
	for k, i := range idx {
		st.Data = append(st.Data, rows[i]...)
		units[k] = s.segs[i].unit
	}
	return st, units
}

// order returns the indices of the segments (rows: s.rows()) in input order: by record
// sequence number, then unit, then statistics, so that it does not depend on the order the
// workers added and merged them.
func (s *State) order(rows [][]float64) []int {
	idx := make([]int, len(s.segs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(s.segs[a].seq, s.segs[b].seq); c != 0 {
			return c
		}
		if c := cmp.Compare(s.segs[a].unit, s.segs[b].unit); c != 0 {
			return c
		}
		return slices.Compare(rows[a], rows[b])
	})
	return idx
}

// Failed is the number of records (weighted) whose statistics could not be computed.
func (s *State) Failed() int64 { return s.failed }

// Result implements core.State: the main result with sacrebleu's `--confidence` interval on
// the metric's scale. There is none when the value is undefined, when a record's statistics
// failed, or where sacrebleu itself raises (ErrMixed).
func (s *State) Result() core.Result {
	r := s.Main.Result()
	if r.Value == nil || s.failed > 0 || len(s.segs) == 0 {
		return r
	}
	c := s.m.Config
	d := s.derive()
	if d.err != nil {
		return r
	}
	res, err := confidence(d.score, d.boot)
	if err != nil {
		return r
	}
	sc := s.m.scorer.Scaled
	mean, hw := sc(res.Mean), sc(res.HalfWidth)
	r.CI = &core.Interval{
		Low: sc(res.Mean - res.HalfWidth), High: sc(res.Mean + res.HalfWidth), Stderr: sc(res.Stderr),
		Level: c.Level, Method: c.Method, Resamples: c.Resamples, Seed: c.Seed,
		Mean: &mean, HalfWidth: &hw,
	}
	return r
}

// stateVersion is State's own format version.
const stateVersion = 1

// MarshalBinary implements core.State.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	mb, err := s.Main.MarshalBinary()
	if err != nil {
		return nil, err
	}
	e.String(string(mb))
	e.Varint(s.failed)
	// The segments in input order (Segments), so that the bytes do not depend on the order
	// the workers added and merged them.
	rows := s.rows()
	idx := s.order(rows)
	e.Uvarint(uint64(len(idx)))
	for _, i := range idx {
		e.Uvarint(s.segs[i].seq)
		e.Uvarint(s.segs[i].unit)
	}
	// As e.Float64s of the rows one after another.
	e.Uvarint(uint64(s.values()))
	for _, i := range idx {
		for _, x := range rows[i] {
			e.Float64(x)
		}
	}
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("sacrebleu ci", stateVersion)
	mb := d.String()
	if d.Err() != nil {
		return nil, d.Finish()
	}
	main, err := m.Metric.DecodeState([]byte(mb))
	if err != nil {
		return nil, err
	}
	s := &State{m: m, Main: main, failed: d.Varint()}
	n := d.Len(2)
	s.segs = make([]segment, n)
	for i := range s.segs {
		s.segs[i] = segment{seq: d.Uvarint(), unit: d.Uvarint()}
	}
	data := d.Float64s()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.failed < 0 || len(data) != n*m.scorer.StatsLen() {
		return nil, fmt.Errorf("%w: sacrebleu ci state holds %d statistics for %d segments of %d", core.ErrCorruptState, len(data), n, m.scorer.StatsLen())
	}
	if len(data) > 0 {
		s.chunks = [][]float64{data[:len(data):len(data)]}
	}
	for _, x := range data {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("%w: sacrebleu ci state holds a statistic %v", core.ErrCorruptState, x)
		}
	}
	return s, nil
}

// PairedTest implements stats.Pairer: sacrebleu's --paired-bs (test "bs", with the
// set-up's resamples) or --paired-ar (test "ar", trials trials, no confidence resamples:
// the states' own intervals are sacrebleu's --confidence) between the receiver, the
// baseline, and cand, with sacrebleu's own
// resampling, seed handling and p-value formulas. Both systems must list the same segments
// (units) in the same order, as sacrebleu's line-aligned files do. It has no delta interval
// (sacrebleu computes none): DeltaLow and DeltaHigh are NaN.
func (s *State) PairedTest(test string, cand core.State, trials int) (stats.Paired, error) {
	o, ok := cand.(*State)
	if !ok || o.m.sig != s.m.sig {
		return stats.Paired{}, fmt.Errorf("%w: the candidate's metric is another one (%s)", stats.ErrUnpaired, cand.(interface{ Result() core.Result }).Result().Reason)
	}
	bd, cd := s.derive(), o.derive()
	if !slices.Equal(bd.units, cd.units) {
		return stats.Paired{}, fmt.Errorf("%w: the systems do not list the same segments in the same order (%d and %d segments)", stats.ErrUnpaired, len(bd.units), len(cd.units))
	}
	if s.failed > 0 || o.failed > 0 {
		return stats.Paired{}, fmt.Errorf("%w: some segments' statistics could not be computed", stats.ErrUndefined)
	}
	c := s.m.Config
	var res []Result
	var err error
	switch test {
	case "bs":
		// PairedBS on the states' own resample scores: every system's are drawn from the
		// same plan, as sacrebleu's fresh generators with one seed draw the same indices.
		if err = check(bd.st, cd.st); err == nil && c.Seed == 0 {
			err = ErrSeedZero
		}
		if err == nil {
			err = cmp.Or(bd.err, cd.err)
		}
		if err == nil {
			res = []Result{{Score: bd.score}, {Score: cd.score, PValue: bsPValue(bd.score, bd.boot, cd.score, cd.boot)}}
		}
	case "ar":
		// PairedAR with the swaps every candidate's test draws alike.
		switch err = check(bd.st, cd.st); {
		case err != nil:
		case trials < 1:
			err = ErrSamples
		case c.Seed == 0:
			err = ErrSeedZero
		default:
			res, err = pairedAR(s.m.scorer, bd.st, []Stats{cd.st}, s.m.swaps(len(bd.units), trials), -1, c.Seed)
		}
	default:
		return stats.Paired{}, fmt.Errorf("unknown paired test %q (bs or ar)", test)
	}
	if err != nil {
		return stats.Paired{}, err
	}
	scaled := s.m.scorer.Scaled
	base, cnd := scaled(res[0].Score), scaled(res[1].Score)
	draws := c.Resamples
	if test == "ar" {
		draws = trials
	}
	return stats.Paired{Base: base, Cand: cnd, Delta: cnd - base, DeltaLow: math.NaN(), DeltaHigh: math.NaN(), P: res[1].PValue, Draws: draws}, nil
}
