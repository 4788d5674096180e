// Package config defines the pipeline configuration: the YAML schema, its defaults, strict
// decoding (unknown keys are errors that list the valid keys), `--set key.path=value`
// overrides, and Validate, which reports every problem at once with its path.
package config

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is a whole pipeline: source -> metrics -> sinks.
type Config struct {
	// RunName labels the run in the results JSON, the CSV and the history (run); the
	// --run-name flag overrides it. Default: the config file's base name.
	RunName  string   `yaml:"run_name" json:"run_name,omitempty"`
	Source   Source   `yaml:"source" json:"source"`
	Pipeline Pipeline `yaml:"pipeline" json:"pipeline"`
	// SliceBy lists fields whose values split every metric into slices (reported besides the
	// overall value).
	SliceBy []string `yaml:"slice_by" json:"slice_by,omitempty"`
	// Metrics are option maps: `type`, optional `name` (defaults to the type), field names
	// (`prediction`, `references`, `label`, ...) and the metric's options inline.
	Metrics []map[string]any `yaml:"metrics" json:"metrics"`
	Sinks   []Sink           `yaml:"sinks" json:"sinks"`
	State   State            `yaml:"state" json:"state,omitempty"`
	Window  *Window          `yaml:"window" json:"window,omitempty"`
	// CI turns on confidence intervals for every metric (statistics.md §1).
	CI *CI `yaml:"ci" json:"ci,omitempty"`
	// Gate decides, after the metrics are computed, whether the build may ship
	// (statistics.md §3).
	Gate *Gate `yaml:"gate" json:"gate,omitempty"`
}

// CI configures the resampling that gives every metric a confidence interval.
type CI struct {
	// Method is poisson (the default), sacrebleu (bleu/chrf/ter: sacrebleu --confidence
	// exactly) or none.
	Method    string  `yaml:"method" json:"method"`
	Resamples int     `yaml:"resamples" json:"resamples"`
	Level     float64 `yaml:"level" json:"level"`
	// Seed is a pointer so that an explicit 0 is kept.
	Seed *uint64 `yaml:"seed" json:"seed"`
	// Key is the field naming the resampling unit (segment, document, user); empty = the
	// record's position.
	Key string `yaml:"key" json:"key,omitempty"`
}

// CI defaults (statistics.md §1).
const (
	DefaultCIResamples = 1000
	DefaultCILevel     = 0.95
	DefaultCISeed      = 12345
	MaxCIResamples     = 100000
)

// Source says where records come from.
type Source struct {
	// Type is "file" (default), "kafka" or "text".
	Type string `yaml:"type" json:"type"`
	// Hypotheses (text sources) holds one plain-text file per system, one segment per line;
	// References holds the line-aligned reference files (one per reference). "-" is stdin.
	Hypotheses []string `yaml:"hypotheses" json:"hypotheses,omitempty"`
	References []string `yaml:"references" json:"references,omitempty"`
	// Path is a file, a glob or a directory (file sources).
	Path string `yaml:"path" json:"path,omitempty"`
	// Format is auto (by extension; default) | jsonl | arrow | arrows | parquet for files, and
	// json (default) | arrow for Kafka messages.
	Format string `yaml:"format" json:"format,omitempty"`
	// MaxRecordBytes bounds one record (a JSON line or message); larger records are bad
	// records ("record too large"). Default 16 MiB.
	MaxRecordBytes int `yaml:"max_record_bytes" json:"max_record_bytes,omitempty"`

	Brokers      []string `yaml:"brokers" json:"brokers,omitempty"`
	Topic        string   `yaml:"topic" json:"topic,omitempty"`
	Topics       []string `yaml:"topics" json:"topics,omitempty"`
	Group        string   `yaml:"group" json:"group,omitempty"`
	Start        string   `yaml:"start" json:"start,omitempty"`                 // earliest (default) | latest | committed
	Mode         string   `yaml:"mode" json:"mode,omitempty"`                   // bounded (default) | continuous
	EmitInterval Duration `yaml:"emit_interval" json:"emit_interval,omitempty"` // continuous mode; default 30s
	TLS          *TLS     `yaml:"tls" json:"tls,omitempty"`
	SASL         *SASL    `yaml:"sasl" json:"sasl,omitempty"`
	// Isolation is read_committed (default: records of aborted transactions are never read)
	// or read_uncommitted (every record, aborted ones included).
	Isolation string `yaml:"isolation" json:"isolation,omitempty"`
	// ConnectTimeout bounds connecting to the brokers at start (default 30s): a broker that
	// does not answer, or a peer that does not speak Kafka, is an error after it.
	ConnectTimeout Duration `yaml:"connect_timeout" json:"connect_timeout,omitempty"`
}

// TLS configures a TLS connection to Kafka.
type TLS struct {
	CAFile             string `yaml:"ca_file" json:"ca_file,omitempty"`
	CertFile           string `yaml:"cert_file" json:"cert_file,omitempty"`
	KeyFile            string `yaml:"key_file" json:"key_file,omitempty"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify" json:"insecure_skip_verify,omitempty"`
}

// SASL configures Kafka authentication.
type SASL struct {
	Mechanism string `yaml:"mechanism" json:"mechanism"` // plain | scram-sha-256 | scram-sha-512
	Username  string `yaml:"username" json:"username"`
	Password  string `yaml:"password" json:"password"`
}

// Pipeline tunes the engine and the bad-record policy.
type Pipeline struct {
	// Workers is the number of scoring goroutines; 0 means one per CPU, after the first
	// 30 ms of a run on one worker and one CPU (a run that short would spend more CPU on a
	// second than it saves time).
	Workers int `yaml:"workers" json:"workers"`
	// BatchSize is the number of records per batch handed to a worker (default 1024).
	BatchSize int `yaml:"batch_size" json:"batch_size"`
	// OnError is fail (default) | skip | dead_letter.
	OnError string `yaml:"on_error" json:"on_error"`
	// MaxBad is how many bad records are tolerated before the run fails: a count ("10") or a
	// fraction of all records ("0.01"). Empty means 0 under fail and unlimited otherwise.
	MaxBad string `yaml:"max_bad" json:"max_bad,omitempty"`
	// DeadLetter is where rejected records go under on_error: dead_letter.
	DeadLetter DeadLetter `yaml:"dead_letter" json:"dead_letter,omitempty"`
}

// DeadLetter is a JSONL file or a Kafka topic.
type DeadLetter struct {
	Path  string `yaml:"path" json:"path,omitempty"`
	Topic string `yaml:"topic" json:"topic,omitempty"`
}

// Sink is one output.
type Sink struct {
	// Type is stdout | json | csv | jsonl | html | examples | kafka | prometheus.
	Type string `yaml:"type" json:"type"`
	// Path is the output file (json, csv, jsonl, html, examples).
	Path string `yaml:"path" json:"path,omitempty"`
	// Format of the examples sink: jsonl or parquet (default: parquet for a .parquet path,
	// jsonl otherwise).
	Format  string   `yaml:"format" json:"format,omitempty"`
	Topic   string   `yaml:"topic" json:"topic,omitempty"`
	Brokers []string `yaml:"brokers" json:"brokers,omitempty"`
	// Addr is the listen address of the prometheus sink (default 127.0.0.1:9464: only this
	// host can scrape unless the config says otherwise, e.g. ":9464" in a container).
	Addr string `yaml:"addr" json:"addr,omitempty"`
	// WebConfig is the prometheus sink's web config file (TLS and basic auth, in the
	// exporter-toolkit format every Prometheus exporter reads). Empty serves plain HTTP
	// without authentication.
	WebConfig string `yaml:"web_config" json:"web_config,omitempty"`
}

// State configures crash-safe state snapshots (Kafka sources).
type State struct {
	Topic string `yaml:"topic" json:"topic,omitempty"`
}

// Window configures time windows (Kafka sources).
type Window struct {
	Type            string   `yaml:"type" json:"type"` // tumbling
	Size            Duration `yaml:"size" json:"size"`
	Time            string   `yaml:"time" json:"time"` // event | message
	Field           string   `yaml:"field" json:"field,omitempty"`
	AllowedLateness Duration `yaml:"allowed_lateness" json:"allowed_lateness,omitempty"`
}

// Duration is a time.Duration written as "30s" or "5m" in YAML.
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (want e.g. 30s, 5m)", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Defaults used when a field is left empty.
const (
	DefaultBatchSize      = 1024
	DefaultMaxRecordBytes = 16 << 20
	DefaultEmitInterval   = Duration(30 * time.Second)
	DefaultConnectTimeout = Duration(30 * time.Second)
	DefaultPromAddr       = "127.0.0.1:9464"
)

// ApplyDefaults fills empty fields with their defaults.
func (c *Config) ApplyDefaults() {
	if c.Source.Type == "" {
		c.Source.Type = "file"
	}
	if c.Source.Format == "" {
		if c.Source.Type == "kafka" {
			c.Source.Format = "json"
		} else {
			c.Source.Format = "auto"
		}
	}
	if c.Source.MaxRecordBytes == 0 {
		c.Source.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if c.Source.Type == "kafka" {
		if c.Source.Start == "" {
			c.Source.Start = "earliest"
		}
		if c.Source.Mode == "" {
			c.Source.Mode = "bounded"
		}
		if c.Source.EmitInterval == 0 {
			c.Source.EmitInterval = DefaultEmitInterval
		}
		if c.Source.Isolation == "" {
			c.Source.Isolation = "read_committed"
		}
		if c.Source.ConnectTimeout == 0 {
			c.Source.ConnectTimeout = DefaultConnectTimeout
		}
	}
	if c.Pipeline.BatchSize == 0 {
		c.Pipeline.BatchSize = DefaultBatchSize
	}
	if c.Gate != nil {
		c.Gate.applyDefaults()
	}
	if ci := c.CI; ci != nil {
		if ci.Method == "" {
			ci.Method = "poisson"
		}
		if ci.Resamples == 0 {
			ci.Resamples = DefaultCIResamples
		}
		if ci.Level == 0 {
			ci.Level = DefaultCILevel
		}
		if ci.Seed == nil {
			seed := uint64(DefaultCISeed)
			ci.Seed = &seed
		}
	}
	if c.Pipeline.OnError == "" {
		c.Pipeline.OnError = "fail"
	}
	for i := range c.Sinks {
		if c.Sinks[i].Type == "prometheus" && c.Sinks[i].Addr == "" {
			c.Sinks[i].Addr = DefaultPromAddr
		}
	}
	for _, m := range c.Metrics {
		if _, ok := m["name"]; !ok && m != nil {
			if t, ok := m["type"]; ok {
				m["name"] = fmt.Sprint(t)
			}
		}
	}
}

// MaxBadLimit interprets MaxBad: a count (fraction = false) or a fraction of all records.
// unlimited is true when MaxBad is empty and the policy is not fail.
func (p Pipeline) MaxBadLimit() (count int64, fraction float64, isFraction, unlimited bool, err error) {
	s := strings.TrimSpace(p.MaxBad)
	if s == "" {
		return 0, 0, false, p.OnError != "fail", nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, 0, false, false, fmt.Errorf("must be >= 0")
		}
		return n, 0, false, false, nil
	}
	s = strings.TrimSuffix(s, "%")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, false, false, fmt.Errorf("must be a count (10) or a fraction (0.01), got %q", p.MaxBad)
	}
	if strings.HasSuffix(strings.TrimSpace(p.MaxBad), "%") {
		f /= 100
	}
	if f < 0 || f >= 1 {
		return 0, 0, false, false, fmt.Errorf("a fraction must be in [0, 1), got %q", p.MaxBad)
	}
	return 0, f, true, false, nil
}

// Problems collects configuration problems with their paths.
type Problems []string

func (p *Problems) add(path, format string, args ...any) {
	*p = append(*p, path+": "+fmt.Sprintf(format, args...))
}

// Error joins the problems, one per line.
func (p Problems) Error() string { return strings.Join(p, "\n") }

func oneOf(p *Problems, path, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	p.add(path, "must be one of %s, got %q", strings.Join(allowed, "|"), v)
}

// Validate checks the structure of the config (after ApplyDefaults) and the files a sink must
// read before it starts (a prometheus sink's web config, see CheckWebConfig), and returns every
// problem at once, or nil. Metric options are checked by the metrics registry (see
// cmd/evalstream).
func (c *Config) Validate() error {
	var p Problems
	s := c.Source
	oneOf(&p, "source.type", s.Type, "file", "kafka", "text")
	if s.Type != "text" {
		if len(s.Hypotheses) > 0 {
			p.add("source.hypotheses", "only applies to a text source")
		}
		if len(s.References) > 0 {
			p.add("source.references", "only applies to a text source")
		}
	}
	switch s.Type {
	case "text":
		validateText(&p, c)
	case "file":
		if s.Path == "" {
			p.add("source.path", "required for a file source")
		}
		oneOf(&p, "source.format", s.Format, "auto", "jsonl", "arrow", "arrows", "parquet")
		for _, k := range []struct {
			set  bool
			name string
		}{{len(s.Brokers) > 0, "brokers"}, {s.Topic != "", "topic"}, {len(s.Topics) > 0, "topics"}, {s.Group != "", "group"}, {s.Start != "", "start"}, {s.Mode != "", "mode"}, {s.Isolation != "", "isolation"}, {s.ConnectTimeout != 0, "connect_timeout"}} {
			if k.set {
				p.add("source."+k.name, "only applies to a kafka source")
			}
		}
		if c.Window != nil {
			p.add("window", "only applies to a kafka source")
		}
		if c.State.Topic != "" {
			p.add("state.topic", "only applies to a kafka source")
		}
	case "kafka":
		if len(s.Brokers) == 0 {
			p.add("source.brokers", "required for a kafka source")
		}
		if s.Topic == "" && len(s.Topics) == 0 {
			p.add("source.topic", "required for a kafka source (or source.topics)")
		}
		if s.Topic != "" && len(s.Topics) > 0 {
			p.add("source.topics", "give either topic or topics, not both")
		}
		if s.Path != "" {
			p.add("source.path", "only applies to a file source")
		}
		oneOf(&p, "source.format", s.Format, "json", "arrow")
		oneOf(&p, "source.start", s.Start, "earliest", "latest", "committed")
		oneOf(&p, "source.mode", s.Mode, "bounded", "continuous")
		oneOf(&p, "source.isolation", s.Isolation, "read_committed", "read_uncommitted")
		if s.ConnectTimeout < 0 {
			p.add("source.connect_timeout", "must be positive")
		}
		if s.EmitInterval < 0 {
			p.add("source.emit_interval", "must be positive")
		}
		if t := s.TLS; t != nil {
			// A missing file would otherwise surface only when the first connection is made.
			for _, f := range []struct{ name, path string }{{"ca_file", t.CAFile}, {"cert_file", t.CertFile}, {"key_file", t.KeyFile}} {
				if f.path == "" {
					continue
				}
				if st, err := os.Stat(f.path); err != nil {
					p.add("source.tls."+f.name, "%v", err)
				} else if st.IsDir() {
					p.add("source.tls."+f.name, "%s is a directory, not a PEM file", f.path)
				}
			}
			if (t.CertFile == "") != (t.KeyFile == "") {
				p.add("source.tls", "cert_file and key_file go together")
			}
		}
		if s.SASL != nil {
			oneOf(&p, "source.sasl.mechanism", s.SASL.Mechanism, "plain", "scram-sha-256", "scram-sha-512")
		}
	}
	if s.MaxRecordBytes < 0 {
		p.add("source.max_record_bytes", "must be >= 0")
	}
	if c.Pipeline.Workers < 0 {
		p.add("pipeline.workers", "must be >= 0 (0 = one per CPU)")
	}
	if c.Pipeline.BatchSize < 1 {
		p.add("pipeline.batch_size", "must be >= 1")
	}
	oneOf(&p, "pipeline.on_error", c.Pipeline.OnError, "fail", "skip", "dead_letter")
	if _, _, _, _, err := c.Pipeline.MaxBadLimit(); err != nil {
		p.add("pipeline.max_bad", "%v", err)
	}
	dl := c.Pipeline.DeadLetter
	if c.Pipeline.OnError == "dead_letter" {
		if dl.Path == "" && dl.Topic == "" {
			p.add("pipeline.dead_letter", "needs a path (or a topic with a kafka source) when on_error is dead_letter")
		}
		if dl.Path != "" && dl.Topic != "" {
			p.add("pipeline.dead_letter", "give either path or topic, not both")
		}
		if dl.Topic != "" && s.Type != "kafka" {
			p.add("pipeline.dead_letter.topic", "needs a kafka source")
		}
	} else if dl.Path != "" || dl.Topic != "" {
		p.add("pipeline.dead_letter", "only applies when on_error is dead_letter")
	}
	if len(c.Metrics) == 0 {
		p.add("metrics", "at least one metric is required")
	}
	names := map[string]int{}
	for i, m := range c.Metrics {
		path := fmt.Sprintf("metrics[%d]", i)
		t, ok := m["type"]
		if !ok || fmt.Sprint(t) == "" {
			p.add(path+".type", "required")
		}
		name := fmt.Sprint(m["name"])
		if name == "" || name == "<nil>" {
			continue
		}
		if j, dup := names[name]; dup {
			p.add(path+".name", "%q is already used by metrics[%d]; names must be unique", name, j)
		}
		names[name] = i
	}
	seen := map[string]bool{}
	for i, f := range c.SliceBy {
		if f == "" {
			p.add(fmt.Sprintf("slice_by[%d]", i), "must not be empty")
		}
		if seen[f] {
			p.add(fmt.Sprintf("slice_by[%d]", i), "duplicate field %q", f)
		}
		seen[f] = true
	}
	if len(c.Sinks) == 0 {
		p.add("sinks", "at least one sink is required (e.g. {type: stdout})")
	}
	for i, k := range c.Sinks {
		path := fmt.Sprintf("sinks[%d]", i)
		oneOf(&p, path+".type", k.Type, "stdout", "json", "csv", "jsonl", "html", "examples", "kafka", "prometheus")
		switch k.Type {
		case "json", "csv", "jsonl", "html", "examples":
			if k.Path == "" {
				p.add(path+".path", "required for a %s sink", k.Type)
			}
		case "kafka":
			if k.Topic == "" {
				p.add(path+".topic", "required for a kafka sink")
			}
			if len(k.Brokers) == 0 && len(s.Brokers) == 0 {
				p.add(path+".brokers", "required for a kafka sink (or a kafka source's brokers)")
			}
		case "prometheus":
			if s.Type != "kafka" || s.Mode != "continuous" {
				p.add(path, "the prometheus sink serves /metrics in continuous kafka mode only")
			}
			if k.WebConfig != "" {
				if _, err := CheckWebConfig(k.WebConfig); err != nil {
					p.add(path+".web_config", "%v", err)
				}
			}
		}
		if k.Type != "prometheus" && k.WebConfig != "" {
			p.add(path+".web_config", "only applies to a prometheus sink")
		}
		if k.Type == "examples" && k.Format != "" {
			oneOf(&p, path+".format", k.Format, "jsonl", "parquet")
		}
	}
	if ci := c.CI; ci != nil {
		oneOf(&p, "ci.method", ci.Method, "poisson", "sacrebleu", "none")
		if ci.Resamples < 2 || ci.Resamples > MaxCIResamples {
			p.add("ci.resamples", "%d is outside 2..%d", ci.Resamples, MaxCIResamples)
		}
		if !(ci.Level > 0 && ci.Level < 1) {
			p.add("ci.level", "%v is not strictly between 0 and 1", ci.Level)
		} else if ci.Method == "sacrebleu" && ci.Level != 0.95 {
			p.add("ci.level", "method sacrebleu computes 95%% intervals only, not %v", ci.Level)
		}
	}
	if c.Gate != nil {
		var names []string
		for _, m := range c.Metrics {
			names = append(names, fmt.Sprint(m["name"]))
		}
		p = append(p, c.Gate.Problems(names)...)
	}
	if w := c.Window; w != nil {
		oneOf(&p, "window.type", w.Type, "tumbling")
		if w.Size <= 0 {
			p.add("window.size", "must be > 0")
		}
		oneOf(&p, "window.time", w.Time, "event", "message")
		if w.Time == "event" && w.Field == "" {
			p.add("window.field", "required when window.time is event")
		}
		if w.AllowedLateness < 0 {
			p.add("window.allowed_lateness", "must be >= 0")
		}
	}
	if len(p) == 0 {
		return nil
	}
	sort.Strings(p)
	return p
}

// validateText checks a text source: hypothesis and reference files, at most one of them
// standard input, and none of the file- or Kafka-only keys.
func validateText(p *Problems, c *Config) {
	s := c.Source
	if len(s.Hypotheses) == 0 {
		p.add("source.hypotheses", "required for a text source: one file per system")
	}
	if len(s.References) == 0 {
		p.add("source.references", "required for a text source: one or more line-aligned reference files")
	}
	stdin := 0
	for i, h := range append(append([]string(nil), s.Hypotheses...), s.References...) {
		if h == "" {
			p.add("source", "empty path in hypotheses/references (entry %d)", i)
		}
		if h == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		p.add("source", "standard input (-) is named %d times in hypotheses/references; at most one input can read it", stdin)
	}
	if s.Format != "" && s.Format != "auto" && s.Format != "text" {
		p.add("source.format", "a text source reads plain text (gzip-compressed or not); got %q", s.Format)
	}
	for _, k := range []struct {
		set  bool
		name string
	}{{s.Path != "", "path"}, {len(s.Brokers) > 0, "brokers"}, {s.Topic != "", "topic"}, {len(s.Topics) > 0, "topics"}, {s.Group != "", "group"}, {s.Start != "", "start"}, {s.Mode != "", "mode"}, {s.Isolation != "", "isolation"}, {s.ConnectTimeout != 0, "connect_timeout"}} {
		if k.set {
			p.add("source."+k.name, "does not apply to a text source (use hypotheses and references)")
		}
	}
	if c.Window != nil {
		p.add("window", "only applies to a kafka source")
	}
	if c.State.Topic != "" {
		p.add("state.topic", "only applies to a kafka source")
	}
}
