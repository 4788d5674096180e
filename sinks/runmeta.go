package sinks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// RunMeta describes one run for the history (the JSONL sink) and the results JSON (the json
// sink, score --format json): what ran, when, on which inputs and with which build, so that
// runs can be grouped and trended. The results object proper (records, metrics, slices)
// stays byte-identical across runs of the same input; these fields sit beside it.
type RunMeta struct {
	// Run is the run's label (--run-name, else the config file's base name, else "score").
	Run       string    `json:"run"`
	StartedAt time.Time `json:"-"`
	// Duration is the wall time from the start of the run to this write.
	Duration time.Duration `json:"-"`
	Version  string        `json:"version"`
	// GitCommit is the commit checked out in the working directory's git work tree, or the
	// one given by flag; empty outside a work tree.
	GitCommit string  `json:"git_commit,omitempty"`
	Inputs    []Input `json:"input"`
	// MetricsSignature depends on the metrics' names, types and options only (not on paths
	// or the source), so that nightly runs over dated files group together.
	MetricsSignature string `json:"metrics_signature"`
}

// Input fingerprints one input: a file by its path, size and the SHA-256 of its first MiB
// (enough to tell files apart cheaply; not a content hash of large files), or a Kafka topic
// by name and the offsets of each partition the results cover.
type Input struct {
	Path       string           `json:"path,omitempty"`
	Size       int64            `json:"size,omitempty"`
	SHA256     string           `json:"sha256_first_mib,omitempty"`
	Topic      string           `json:"topic,omitempty"`
	Partitions []PartitionRange `json:"partitions,omitempty"`
}

// PartitionRange is the offsets of one partition of a Kafka input that the results cover:
// [StartOffset, EndOffset), EndOffset being the next offset to read (Kafka's own "end
// offset" sense); equal when nothing was read.
type PartitionRange struct {
	Partition   int   `json:"partition"`
	StartOffset int64 `json:"start_offset"`
	EndOffset   int64 `json:"end_offset"`
}

// runFields is the JSON layout of a RunMeta, shared by the history lines and the results
// JSON. Field order is the output order.
type runFields struct {
	Run              *string  `json:"run,omitempty"`
	StartedAt        string   `json:"started_at,omitempty"`
	DurationS        *float64 `json:"duration_s,omitempty"`
	Version          string   `json:"version,omitempty"`
	GitCommit        string   `json:"git_commit,omitempty"`
	Input            []Input  `json:"input"`
	MetricsSignature string   `json:"metrics_signature,omitempty"`
}

// fields returns m's JSON layout: the run label and duration always, the inputs as an empty
// list when there are none (a run of standard input still says it had inputs).
func (m RunMeta) fields() *runFields {
	d := m.Duration.Seconds()
	f := &runFields{Run: &m.Run, DurationS: &d, StartedAt: m.StartedAt.UTC().Format(time.RFC3339Nano),
		Version: m.Version, GitCommit: m.GitCommit, MetricsSignature: m.MetricsSignature, Input: m.Inputs}
	if f.Input == nil {
		f.Input = []Input{}
	}
	return f
}

// withMeta returns the results object raw with m's fields first, before its own keys.
func withMeta(raw []byte, m RunMeta) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m.fields()); err != nil {
		return nil, fmt.Errorf("run description: %w", err)
	}
	head := bytes.TrimSpace(b.Bytes())
	body := bytes.TrimSpace(raw)
	if len(head) < 2 || len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("results JSON: not an object")
	}
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, body[1:]...), nil
}
