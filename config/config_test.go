package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

const good = `
source: {type: file, path: data/*.jsonl}
pipeline: {workers: 2, batch_size: 64}
slice_by: [lang]
metrics:
  - type: bleu
    tokenize: 13a
  - name: acc
    type: accuracy
sinks:
  - type: stdout
  - type: json
    path: out/results.json
`

func TestParseDefaultsAndValidate(t *testing.T) {
	c, err := Parse([]byte(good), nil)
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	require.Equal(t, "auto", c.Source.Format)
	require.Equal(t, "fail", c.Pipeline.OnError)
	require.Equal(t, 64, c.Pipeline.BatchSize)
	require.Equal(t, "bleu", c.Metrics[0]["name"])
	require.Equal(t, "13a", c.Metrics[0]["tokenize"])
	require.Equal(t, DefaultMaxRecordBytes, c.Source.MaxRecordBytes)
}

func TestUnknownKeysListValidKeys(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"source: {type: file, paht: x}\n", `unknown key "paht" in source (valid keys: brokers, connect_timeout, emit_interval, format, group, hypotheses, isolation, max_record_bytes, mode, path, `},
		{"pipelin: {}\n", `unknown key "pipelin" in the top level (valid keys: ci, gate, metrics, pipeline, run_name, sinks, slice_by, source, state, window)`},
		{"sinks: [{type: json, pth: x}]\n", `unknown key "pth" in a sink`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml), nil)
		require.Error(t, err)
		require.Contains(t, err.Error(), tt.want)
	}
}

func TestSetOverrides(t *testing.T) {
	c, err := Parse([]byte(good), []string{"pipeline.workers=7", "metrics[0].ngram=2", "source.path=other.arrow", "sinks[2].type=csv", "sinks[2].path=o.csv", "slice_by=[a, b]"})
	require.NoError(t, err)
	require.Equal(t, 7, c.Pipeline.Workers)
	require.Equal(t, 2, c.Metrics[0]["ngram"])
	require.Equal(t, "other.arrow", c.Source.Path)
	require.Equal(t, "csv", c.Sinks[2].Type)
	require.Equal(t, []string{"a", "b"}, c.SliceBy)
	_, err = Parse([]byte(good), []string{"metrics[5].x=1"})
	require.ErrorContains(t, err, "out of range")
	_, err = Parse([]byte(good), []string{"novalue"})
	require.ErrorContains(t, err, "want key.path=value")
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c, err := Parse([]byte(`
source: {type: file, format: csv, brokers: [x]}
pipeline: {batch_size: -1, on_error: ignore, max_bad: "abc", workers: -2}
slice_by: [a, a]
metrics:
  - type: bleu
  - type: bleu
  - name: x
sinks:
  - type: json
  - type: prometheus
  - type: teletype
`), nil)
	require.NoError(t, err)
	err = c.Validate()
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"source.path: required for a file source",
		"source.format: must be one of auto|jsonl|arrow|arrows|parquet",
		"source.brokers: only applies to a kafka source",
		"pipeline.batch_size: must be >= 1",
		"pipeline.on_error: must be one of fail|skip|dead_letter",
		"pipeline.max_bad: must be a count",
		"pipeline.workers: must be >= 0",
		"slice_by[1]: duplicate field",
		`metrics[1].name: "bleu" is already used by metrics[0]`,
		"metrics[2].type: required",
		"sinks[0].path: required for a json sink",
		"sinks[1]: the prometheus sink serves /metrics in continuous kafka mode only",
		"sinks[2].type: must be one of",
	} {
		require.Contains(t, msg, want)
	}
	require.GreaterOrEqual(t, strings.Count(msg, "\n"), 12)
}

func TestMaxBad(t *testing.T) {
	tests := []struct {
		p         Pipeline
		n         int64
		f         float64
		frac, unl bool
	}{
		{Pipeline{OnError: "fail"}, 0, 0, false, false},
		{Pipeline{OnError: "skip"}, 0, 0, false, true},
		{Pipeline{OnError: "skip", MaxBad: "10"}, 10, 0, false, false},
		{Pipeline{OnError: "skip", MaxBad: "0.01"}, 0, 0.01, true, false},
		{Pipeline{OnError: "skip", MaxBad: "5%"}, 0, 0.05, true, false},
	}
	for _, tt := range tests {
		n, f, frac, unl, err := tt.p.MaxBadLimit()
		require.NoError(t, err)
		require.Equal(t, []any{tt.n, tt.f, tt.frac, tt.unl}, []any{n, f, frac, unl}, "%+v", tt.p)
	}
	_, _, _, _, err := Pipeline{MaxBad: "1.5"}.MaxBadLimit()
	require.Error(t, err)
}

func TestKafkaValidation(t *testing.T) {
	c, err := Parse([]byte(`
source: {type: kafka, brokers: ["127.0.0.1:9092"], topic: t, mode: continuous, start: middle}
window: {type: tumbling, size: 5m, time: event}
metrics: [{type: accuracy}]
sinks: [{type: prometheus}]
`), nil)
	require.NoError(t, err)
	err = c.Validate()
	require.ErrorContains(t, err, "source.start: must be one of earliest|latest|committed")
	require.ErrorContains(t, err, "window.field: required when window.time is event")
	require.NotContains(t, err.Error(), "prometheus")
	require.Equal(t, DefaultPromAddr, c.Sinks[0].Addr)
}

func TestKafkaIsolationAndTLSFiles(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("pem"), 0o600))
	const base = "source: {type: kafka, brokers: [\"127.0.0.1:9092\"], topic: t%s}\nmetrics: [{type: accuracy}]\nsinks: [{type: stdout}]\n"
	tests := []struct {
		name, source string
		want         []string // problems; none when empty
	}{
		{"defaults", "", nil},
		{"read_uncommitted", ", isolation: read_uncommitted", nil},
		{"bad isolation", ", isolation: committed", []string{"source.isolation: must be one of read_committed|read_uncommitted, got \"committed\""}},
		{"negative connect_timeout", ", connect_timeout: -1s", []string{"source.connect_timeout: must be positive"}},
		{"tls files exist", fmt.Sprintf(", tls: {ca_file: %q}", ca), nil},
		{"tls files missing", fmt.Sprintf(", tls: {ca_file: %q, cert_file: %q, key_file: %q}", filepath.Join(dir, "nope.pem"), filepath.Join(dir, "c.pem"), dir),
			[]string{"source.tls.ca_file: stat " + filepath.Join(dir, "nope.pem") + ": no such file or directory", "source.tls.cert_file: stat", "source.tls.key_file: " + dir + " is a directory"}},
		{"cert without key", fmt.Sprintf(", tls: {cert_file: %q}", ca), []string{"source.tls: cert_file and key_file go together"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(fmt.Sprintf(base, tt.source)), nil)
			require.NoError(t, err)
			err = c.Validate()
			if len(tt.want) == 0 {
				require.NoError(t, err)
				if tt.source == "" {
					require.Equal(t, "read_committed", c.Source.Isolation)
					require.Equal(t, DefaultConnectTimeout, c.Source.ConnectTimeout)
				}
				return
			}
			for _, w := range tt.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("metrics: [{type: bleu, ngram: [1, {a: b}]}]\nsinks: &a [*a]"))
	f.Add([]byte("source: !!binary xyz"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b, []string{"pipeline.workers=2"})
		if err == nil {
			_ = c.Validate()
		}
	})
}

func TestPrometheusWebConfigValidation(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("hunter2-pass"), bcrypt.MinCost)
	require.NoError(t, err)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	good := write("good.yml", "basic_auth_users:\n  scraper: "+string(hash)+"\n")
	plain := write("plain.yml", "basic_auth_users:\n  scraper: hunter2-pass\n")
	const head = "source: {type: kafka, brokers: [\"127.0.0.1:9092\"], topic: t, mode: continuous}\nmetrics: [{type: accuracy}]\n"
	for _, c := range []struct {
		name, sinks, want string
	}{
		{"no web config", "sinks: [{type: prometheus}]", ""},
		{"basic auth without TLS", fmt.Sprintf("sinks: [{type: prometheus, web_config: %q}]", good), ""},
		{"missing file", "sinks: [{type: prometheus, web_config: nowhere.yml}]", "sinks[0].web_config: web config: open nowhere.yml: no such file or directory"},
		{"password not hashed", fmt.Sprintf("sinks: [{type: prometheus, web_config: %q}]", plain), `sinks[0].web_config: web config ` + plain + `: basic_auth_users: the password of user "scraper" is not a bcrypt hash`},
		{"not a prometheus sink", fmt.Sprintf("sinks: [{type: stdout}, {type: json, path: r.json, web_config: %q}]", good), "sinks[1].web_config: only applies to a prometheus sink"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(head+c.sinks), nil)
			require.NoError(t, err)
			err = cfg.Validate()
			if c.want == "" {
				require.NoError(t, err)
				require.Equal(t, "127.0.0.1:9464", cfg.Sinks[0].Addr, "the default binds the loopback interface only")
				return
			}
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), "hunter2-pass")
			require.NotContains(t, err.Error(), "hunter")
		})
	}
}
