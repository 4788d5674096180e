package prob

import "github.com/evalstream/evalstream/metrics/core"

// sumState is what the log_loss and brier states hold: the record count, the exact sum of
// the per-record terms and the shape of the records (a few hundred bytes). It is not safe
// for concurrent use.
type sumState struct {
	n     int64
	sum   core.Sum
	shape shape
}

// merge adds o's count, sum and shape exactly.
func (s *sumState) merge(o *sumState) {
	s.n += o.n
	s.sum.Merge(&o.sum)
	s.shape.merge(&o.shape)
}

// marshal writes the state version, the metric's signature, the count, the sum and the shape.
func (s *sumState) marshal(sig string) []byte {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(sig)
	e.Varint(s.n)
	e.Sum(&s.sum)
	s.shape.encode(&e)
	return e.B
}

// unmarshalSumState reads what marshal wrote for the metric name with signature sig.
func unmarshalSumState(b []byte, name, sig string) (sumState, error) {
	d := core.NewDecoder(b)
	if err := decodeHeader(d, name, stateVersion, sig); err != nil {
		return sumState{}, err
	}
	s := sumState{shape: newShape()}
	s.n = d.Varint()
	s.sum = d.Sum()
	if err := s.shape.decode(d); err != nil {
		return sumState{}, err
	}
	if err := d.Finish(); err != nil {
		return sumState{}, err
	}
	if s.n < 0 {
		return sumState{}, corrupt(name + ": negative count")
	}
	if !s.shape.fitsIDs(s.n) || (s.n == 0 && !s.sum.IsZero()) {
		return sumState{}, corrupt(name + ": record count, width and class ids disagree")
	}
	return s, nil
}
