package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"reflect"
	"sort"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// stateMagic starts every saved state file; stateVersion is its format version. Version 2
// added the error examples after the error counts; version 1 files are still read. The
// header's optional "covers" list needs no new version: older readers ignore the key, and
// states without it read as covering unknown inputs.
const (
	stateMagic   = "EVALSTREAM-STATE\n"
	stateVersion = 2
)

// ErrStateFormat is wrapped by every error about an unreadable state file.
var ErrStateFormat = errors.New("invalid state file")

type stateHeader struct {
	Format  int           `json:"format"`
	Metrics []stateMetric `json:"metrics"`
	SliceBy []string      `json:"slice_by,omitempty"`
	// Covers is Accumulator.Covers.
	Covers []string `json:"covers,omitempty"`
	// CI is the resampling set-up of states saved with bootstrap replicates; older readers
	// fail on it through the signatures, which include it.
	CI *stats.Config `json:"ci,omitempty"`
}

type stateMetric struct {
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Options   json.RawMessage `json:"options"`
	Signature string          `json:"signature"`
}

// EncodeState serializes an accumulator with a self-describing header (metric types,
// options, signatures, slice fields, format version) and a CRC-32 trailer.
func EncodeState(a *Accumulator) ([]byte, error) {
	h := stateHeader{Format: stateVersion, SliceBy: a.plan.SliceBy, Covers: a.Covers, CI: a.plan.ci}
	for _, m := range a.plan.Metrics {
		opts, err := m.CanonicalOptions()
		if err != nil {
			return nil, err
		}
		h.Metrics = append(h.Metrics, stateMetric{Name: m.Name, Type: m.Type, Options: opts, Signature: m.Signature()})
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var e core.Encoder
	e.B = append(e.B, stateMagic...)
	e.Byte(stateVersion)
	e.String(string(hb))
	e.Varint(a.Records)
	e.Varint(a.Skipped)
	reasons := make([]string, 0, len(a.Errors))
	for k := range a.Errors {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	e.Uvarint(uint64(len(reasons)))
	for _, k := range reasons {
		e.String(k)
		e.Varint(a.Errors[k])
	}
	for _, k := range reasons {
		ex := a.ErrorExamples[k]
		e.Uvarint(uint64(len(ex)))
		for _, x := range ex {
			e.Uvarint(x.Seq)
			e.String(x.Pos)
		}
	}
	writeStates := func(states []core.State) error {
		for i, s := range states {
			b, err := s.MarshalBinary()
			if err != nil {
				return fmt.Errorf("metric %s: %w", a.plan.Metrics[i].Name, err)
			}
			e.String(string(b))
		}
		return nil
	}
	if err := writeStates(a.States); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(a.Slices))
	for k := range a.Slices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.String(k)
		e.Varint(a.Slices[k].Records)
		if err := writeStates(a.Slices[k].States); err != nil {
			return nil, err
		}
	}
	sum := crc32.ChecksumIEEE(e.B)
	e.B = append(e.B, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
	return e.B, nil
}

// DecodeState reads a state written by EncodeState, rebuilding its metrics from the header.
// It fails with an error wrapping ErrStateFormat on any corruption, on another format
// version, or when this build computes a metric differently (its signature changed).
func DecodeState(b []byte) (*Accumulator, error) {
	if !bytes.HasPrefix(b, []byte(stateMagic)) {
		return nil, fmt.Errorf("%w: not an evalstream state file", ErrStateFormat)
	}
	if len(b) < len(stateMagic)+5 {
		return nil, fmt.Errorf("%w: truncated", ErrStateFormat)
	}
	// The version comes before the checksum: another version may lay out the rest (the
	// checksum included) differently, and the user must learn that the file may come from
	// another release rather than only that it does not check out.
	version := b[len(stateMagic)]
	if version < 1 || version > stateVersion {
		by := "a newer evalstream, or corrupted"
		if version < 1 {
			by = "no evalstream release: corrupted"
		}
		return nil, fmt.Errorf("%w: format version %d, this build reads versions 1 to %d (written by %s)", ErrStateFormat, version, stateVersion, by)
	}
	body, trailer := b[:len(b)-4], b[len(b)-4:]
	if sum := crc32.ChecksumIEEE(body); trailer[0] != byte(sum) || trailer[1] != byte(sum>>8) || trailer[2] != byte(sum>>16) || trailer[3] != byte(sum>>24) {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupted)", ErrStateFormat)
	}
	d := core.NewDecoder(body[len(stateMagic)+1:])
	var h stateHeader
	if err := json.Unmarshal([]byte(d.String()), &h); err != nil || d.Err() != nil {
		return nil, fmt.Errorf("%w: bad header: %v", ErrStateFormat, errors.Join(err, d.Err()))
	}
	var ms []*metrics.Metric
	for _, sm := range h.Metrics {
		entry := map[string]any{}
		if len(sm.Options) > 0 {
			if err := json.Unmarshal(sm.Options, &entry); err != nil {
				return nil, fmt.Errorf("%w: metric %s options: %v", ErrStateFormat, sm.Name, err)
			}
		}
		entry["type"] = sm.Type
		entry["name"] = sm.Name
		m, err := metrics.New(entry)
		if err == nil && h.CI != nil {
			m, err = m.WithCI(*h.CI)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: metric %s: %v", ErrStateFormat, sm.Name, err)
		}
		if m.Signature() != sm.Signature && core.SigOptions(m.Signature()) == core.SigOptions(sm.Signature) {
			// Only the release differs: the computation may have changed in between, so
			// states merge only within one release.
			return nil, fmt.Errorf("%w: metric %s: saved by evalstream %s, this is evalstream %s: a state is finished (merge, report, compare, resume from a state topic) by the release that wrote it; use evalstream %s, or start a new state (a new state topic or group)",
				ErrStateFormat, sm.Name, core.SigVersion(sm.Signature), core.SigVersion(m.Signature()), core.SigVersion(sm.Signature))
		}
		if m.Signature() != sm.Signature {
			return nil, fmt.Errorf("%w: metric %s: saved with signature %q, but its options give %q in this build (they differ in %s; a state of another evalstream version, or edited); re-run with the version that wrote it", ErrStateFormat, sm.Name, sm.Signature, m.Signature(), core.SigDiff(sm.Signature, m.Signature()))
		}
		ms = append(ms, m)
	}
	a := NewAccumulator(NewPlan(ms, h.SliceBy))
	a.SetCovers(h.Covers)
	a.Records = d.Varint()
	a.Skipped = d.Varint()
	n := d.Len(2)
	reasons := make([]string, n)
	for i := range reasons {
		reasons[i] = d.String()
		a.Errors[reasons[i]] = d.Varint()
	}
	if version >= 2 {
		for _, k := range reasons {
			m := d.Len(2)
			if m > MaxErrorExamples {
				return nil, fmt.Errorf("%w: %d error examples for %q, at most %d", ErrStateFormat, m, k, MaxErrorExamples)
			}
			for j := 0; j < m; j++ {
				seq := d.Uvarint()
				a.ErrorExamples[k] = append(a.ErrorExamples[k], ErrorExample{Seq: seq, Pos: d.String()})
			}
		}
	}
	readStates := func(states []core.State) error {
		for i := range states {
			raw := d.String()
			if err := d.Err(); err != nil {
				return err
			}
			s, err := ms[i].DecodeState([]byte(raw))
			if err != nil {
				return fmt.Errorf("metric %s: %w", ms[i].Name, err)
			}
			states[i] = s
		}
		return nil
	}
	if err := readStates(a.States); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStateFormat, err)
	}
	ns := d.Len(2)
	for i := 0; i < ns; i++ {
		k := d.String()
		s := &Slice{Records: d.Varint(), States: newStates(a.plan)}
		if err := readStates(s.States); err != nil {
			return nil, fmt.Errorf("%w: slice %s: %v", ErrStateFormat, k, err)
		}
		a.Slices[k] = s
	}
	if err := d.Finish(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStateFormat, err)
	}
	return a, nil
}

// ReadStateFile reads and decodes a state file.
func ReadStateFile(path string) (*Accumulator, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := DecodeState(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// SameShape reports whether two accumulators hold the same metrics (names, types,
// signatures, order) and slice fields, so that they can be merged.
func SameShape(a, b *Accumulator) error {
	pa, pb := a.plan, b.plan
	if !reflect.DeepEqual(pa.SliceBy, pb.SliceBy) && !(len(pa.SliceBy) == 0 && len(pb.SliceBy) == 0) {
		return fmt.Errorf("%w: slice_by %v vs %v", core.ErrIncompatible, pa.SliceBy, pb.SliceBy)
	}
	if len(pa.Metrics) != len(pb.Metrics) {
		return fmt.Errorf("%w: %d metrics vs %d", core.ErrIncompatible, len(pa.Metrics), len(pb.Metrics))
	}
	for i := range pa.Metrics {
		ma, mb := pa.Metrics[i], pb.Metrics[i]
		if ma.Name != mb.Name || ma.Type != mb.Type || ma.Signature() != mb.Signature() {
			return fmt.Errorf("%w: metric %d is %s (%s) in one state and %s (%s) in the other (they differ in %s)", core.ErrIncompatible, i, ma.Name, ma.Signature(), mb.Name, mb.Signature(), core.SigDiff(ma.Signature(), mb.Signature()))
		}
	}
	return nil
}
