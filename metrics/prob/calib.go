package prob

import (
	"math"
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
)

// MaxBins bounds n_bins (a state holds n_bins + 1 bins).
const MaxBins = 100000

// Calibration is the `calibration_error` metric (torchmetrics Binary/MulticlassCalibrationError).
// It is immutable and safe for concurrent use.
type Calibration struct {
	nBins int
	norm  string
	// edges64 and edges32 are torch.linspace(0, 1, n_bins+1) in float64 (the binary path) and
	// float32 (the multiclass path, which torchmetrics casts to float32).
	edges64 []float64
	edges32 []float32
	sig     string
}

// NewCalibration returns `calibration_error`: preset `torchmetrics`; options `n_bins` and
// `norm` (l1 = ECE, l2 = RMSCE, max = MCE).
func NewCalibration(o *core.Options) (core.Metric, error) {
	compat := o.String("compat", "torchmetrics", "torchmetrics")
	m := &Calibration{
		nBins: int(o.Int("n_bins", 15, 1, MaxBins)),
		norm:  o.String("norm", "l1", "l1", "l2", "max"),
	}
	m.edges64, m.edges32 = linspace(m.nBins)
	m.sig = core.NewSig("calibration_error", compat).Int("n_bins", int64(m.nBins)).Add("norm", m.norm).String()
	return m, nil
}

// linspace reproduces torch.linspace(0, 1, n+1) on the CPU bit for bit: step = 1/n in the
// dtype, the first half start + step·i and the second half end − step·(n − i), each with one
// rounding (the kernel's multiply-add is fused). For float32 the fused result is exact in
// float64 (a 24-bit step times an index below 2^20, plus 0 or 1), so one conversion rounds it
// once. testdata/goldens/gen_prob.py checks this against torch for n = 1..2000.
func linspace(n int) ([]float64, []float32) {
	steps := n + 1
	half := steps / 2
	e64 := make([]float64, steps)
	e32 := make([]float32, steps)
	step64 := 1 / float64(n)
	step32 := float64(float32(1) / float32(n))
	for i := 0; i < steps; i++ {
		if i < half {
			e64[i] = math.FMA(step64, float64(i), 0)
			e32[i] = float32(step32 * float64(i))
		} else {
			k := float64(steps - i - 1)
			e64[i] = math.FMA(-step64, k, 1)
			e32[i] = float32(1 - step32*k)
		}
	}
	return e64, e32
}

// Roles lists prediction and label.
func (m *Calibration) Roles() []core.Role { return roles }

// Signature identifies the metric and its options.
func (m *Calibration) Signature() string { return m.sig }

// Check validates the prediction and the label.
func (m *Calibration) Check(ex *core.Example) error {
	_, err := read(ex)
	return err
}

// NewState returns an empty state.
func (m *Calibration) NewState() core.State {
	k := m.nBins + 1
	return &CalibrationState{m: m, shape: newShape(), count: make([]int64, k), conf: make([]core.Sum, k), correct: make([]int64, k)}
}

// bin is torch.bucketize(c, edges, right=True) − 1: the number of edges <= c, minus one, so a
// value on an edge goes to the upper bin and 1.0 to an extra last bin of its own.
func bin[F float32 | float64](edges []F, c F) int {
	return sort.Search(len(edges), func(i int) bool { return edges[i] > c }) - 1
}

// observe returns a record's confidence, whether it is correct, and its bin. Binary: the
// probability of label 1 against the label, in float64. Multiclass: the top-1 probability
// (the first maximum, as torch.max) rounded to float32, correct when its class is the label.
func (m *Calibration) observe(r *record) (conf float64, correct int64, b int) {
	if r.width == 1 {
		return r.p, r.label, max(0, bin(m.edges64, r.p))
	}
	best := 0
	for i, x := range r.xs {
		if x > r.xs[best] {
			best = i
		}
	}
	c32 := float32(r.xs[best])
	if int64(best) == r.label {
		correct = 1
	}
	return float64(c32), correct, max(0, bin(m.edges32, c32))
}

// CalibrationState holds, per bin, the record count, the exact sum of the confidences and the
// number of correct records, plus the shape of the records: about 50 bytes per bin. It is not
// safe for concurrent use.
type CalibrationState struct {
	m       *Calibration
	shape   shape
	count   []int64
	conf    []core.Sum
	correct []int64
}

// Add folds one record weight times; records Check rejects are ignored.
func (s *CalibrationState) Add(ex *core.Example, weight int64) {
	r, err := read(ex)
	if err != nil || weight <= 0 {
		return
	}
	c, ok, b := s.m.observe(&r)
	s.shape.addWidth(r.width)
	s.count[b] += weight
	s.conf[b].AddWeighted(c, weight)
	s.correct[b] += ok * weight
}

// Merge adds other's bins.
func (s *CalibrationState) Merge(other core.State) error {
	o, ok := other.(*CalibrationState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.shape.merge(&o.shape)
	for i := range s.count {
		s.count[i] += o.count[i]
		s.conf[i].Merge(&o.conf[i])
		s.correct[i] += o.correct[i]
	}
	return nil
}

// MarshalBinary writes the signature, the shape and the bins.
func (s *CalibrationState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	s.shape.encode(&e)
	e.Int64s(s.count)
	e.Int64s(s.correct)
	for i := range s.conf {
		e.Sum(&s.conf[i])
	}
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Calibration) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	if err := decodeHeader(d, "calibration_error", stateVersion, m.sig); err != nil {
		return nil, err
	}
	s := m.NewState().(*CalibrationState)
	if err := s.shape.decode(d); err != nil {
		return nil, err
	}
	count, correct := d.Int64s(), d.Int64s()
	if d.Err() == nil && (len(count) != len(s.count) || len(correct) != len(s.correct)) {
		return nil, corrupt("calibration_error: wrong number of bins")
	}
	for i := range s.conf {
		s.conf[i] = d.Sum()
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	var total int64
	for i := range count {
		if count[i] < 0 || correct[i] < 0 || correct[i] > count[i] || total+count[i] < total {
			return nil, corrupt("calibration_error: bad bin counts")
		}
		// A confidence is a probability: a bin's sum is in [0, its count].
		if c := s.conf[i].Float(); !(c >= 0 && c <= float64(count[i])) {
			return nil, corrupt("calibration_error: a bin's confidence sum outside [0, its count]")
		}
		total += count[i]
	}
	// The shape records widths only (no class ids), of every record.
	if s.shape.maxLabel != -1 || (total == 0) != (s.shape.width == 0) || (total == 0 && s.shape.ragged) {
		return nil, corrupt("calibration_error: record count and width disagree")
	}
	copy(s.count, count)
	copy(s.correct, correct)
	return s, nil
}

// Result is torchmetrics' _ce_compute on the bins, from exact per-bin sums: with d_b = Σ
// correct − Σ confidence of bin b (exact, rounded once), n_b its count and N the total,
// l1 = Σ|d_b| / N, l2 = sqrt(Σ d_b² / n_b / N), max = max |d_b| / n_b.
func (s *CalibrationState) Result() core.Result {
	var n int64
	for _, c := range s.count {
		n += c
	}
	details := map[string]any{"n": n}
	if n == 0 {
		return core.Undefined("no records", details)
	}
	if s.shape.ragged {
		return core.Undefined("ragged scores", details)
	}
	var total core.Sum
	var worst float64
	for i, c := range s.count {
		if c == 0 {
			continue
		}
		d := s.conf[i].Clone()
		d = core.ScaleSum(&d, -1)
		d.AddWeighted(1, s.correct[i])
		df := d.Float()
		switch s.m.norm {
		case "l1":
			sign := 1.0
			if df < 0 {
				sign = -1
			}
			part := core.ScaleSum(&d, sign)
			total.Merge(&part)
		case "l2":
			total.Add(df * df / float64(c))
		case "max":
			worst = max(worst, math.Abs(df)/float64(c))
		}
	}
	var v float64
	switch s.m.norm {
	case "l1":
		v = total.Float() / float64(n)
	case "l2":
		v = math.Sqrt(total.Float() / float64(n))
	case "max":
		v = worst
	}
	if math.IsNaN(v) || math.IsInf(v, 0) { // only from a corrupt state
		return core.Undefined("overflow", details)
	}
	details["bins"] = s.reliability()
	return core.Result{Value: v, Details: details}
}

// reliability lists the non-empty bins with their mean confidence and accuracy: the points
// of a reliability diagram (the HTML report draws it).
func (s *CalibrationState) reliability() []map[string]any {
	var out []map[string]any
	for i, c := range s.count {
		if c == 0 {
			continue
		}
		lo, hi := 1.0, 1.0
		if i < s.m.nBins {
			lo, hi = s.m.edges64[i], s.m.edges64[i+1]
		}
		out = append(out, map[string]any{"lo": lo, "hi": hi, "count": c,
			"confidence": s.conf[i].Float() / float64(c), "accuracy": float64(s.correct[i]) / float64(c)})
	}
	return out
}
