package sinks

import "time"

// RunMeta describes one run for the history (the JSONL sink): what ran, when, on which
// inputs and with which build, so that lines can be grouped and trended. It is kept out of
// the results object itself: results stay byte-identical across runs of the same input.
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
// by name.
type Input struct {
	Path   string `json:"path,omitempty"`
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256_first_mib,omitempty"`
	Topic  string `json:"topic,omitempty"`
}
