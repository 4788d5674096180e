// Package kafka reads model outputs from Kafka topics with crash-safe, exactly-once metric
// state. Each partition's state (running total, open windows, watermark) lives in memory with
// the consumer of that partition and is snapshotted, together with the offset it covers, as
// one message of a compacted state topic. On start and after every rebalance, the owner of a
// partition restores the latest snapshot and seeks to its offset, so no record is counted
// twice or lost, whatever is killed when. Consumer-group offsets are committed only up to
// what a durable snapshot covers.
//
// Messages are decoded into pipeline records (JSON objects like JSONL lines, or Arrow IPC
// streams); the message key, headers, partition, offset and timestamp are fields too.
package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
)

// Defaults of Config.
const (
	DefaultCheckpointInterval = 5 * time.Second
	DefaultSessionTimeout     = 10 * time.Second
	DefaultStateMaxBytes      = 64 << 20
	DefaultMaxRecordBytes     = 16 << 20
	DefaultConnectTimeout     = 30 * time.Second
)

// Isolation levels of Config.Isolation.
const (
	ReadCommitted   = "read_committed"
	ReadUncommitted = "read_uncommitted"
)

// Config configures a Consumer. Fields left zero take the documented defaults.
type Config struct {
	// Brokers are the bootstrap addresses (host:port). Required.
	Brokers []string
	// Topics are read completely: every partition. Required.
	Topics []string
	// Group is the consumer group: instances with the same group split the partitions. Empty
	// means no group: this instance reads every partition itself.
	Group string
	// Format of message values: "json" (default) or "arrow".
	Format string
	// Start is where a partition without a snapshot begins: "earliest" (default), "latest"
	// or "committed" (the group's committed offset, else earliest). A partition with a
	// snapshot always resumes from it.
	Start string
	// Mode is "bounded" (default: read up to the end offsets seen at start, then stop) or
	// "continuous" (until the context is cancelled).
	Mode string
	// StateTopic is the compacted topic of snapshots. Empty keeps state in memory only:
	// then nothing survives a restart.
	StateTopic string
	// StateMaxBytes bounds one snapshot message (the state topic is created with this
	// max.message.bytes). Default 64 MiB.
	StateMaxBytes int
	// DeadLetterTopic receives rejected records (Consumer.WriteDeadLetters). Optional.
	DeadLetterTopic string
	// CheckpointInterval is how often each partition's state is snapshotted (and offsets
	// committed). Default 5s.
	CheckpointInterval time.Duration
	// MaxRecordBytes bounds one message value; larger ones are bad records ("record too
	// large"). Default 16 MiB.
	MaxRecordBytes int
	// Fields is the projection: the record fields every Record.Values holds, in order.
	Fields []string
	// TLS, when set, encrypts every connection.
	TLS *tls.Config
	// SASL, when set, authenticates every connection.
	SASL sasl.Mechanism
	// Isolation is ReadCommitted (default: fetch up to the last stable offset and never
	// hand out a record of an aborted transaction) or ReadUncommitted (every record up to
	// the high watermark, aborted ones included). Transaction markers are skipped in both.
	Isolation string
	// ConnectTimeout bounds each attempt to connect to a broker, and the first contact with
	// the cluster at start: a broker that does not answer, or a peer that does not speak
	// Kafka, is then an error naming the address. Default 30s.
	ConnectTimeout time.Duration
	// SessionTimeout of the consumer group: how long a dead member keeps its partitions.
	// Default 10s (the broker's minimum is usually 6s).
	SessionTimeout time.Duration
	// Logf receives progress and retry messages; nil discards them.
	Logf func(format string, args ...any)
}

func (c *Config) bounded() bool { return c.Mode != "continuous" }

func (c *Config) committed() bool { return c.Isolation != ReadUncommitted }

// isolation is the Kafka isolation level of c.Isolation.
func (c *Config) isolation() kafkago.IsolationLevel {
	if c.committed() {
		return kafkago.ReadCommitted
	}
	return kafkago.ReadUncommitted
}

// Validate fills defaults and returns every problem at once.
func (c *Config) Validate() error {
	var errs []string
	if len(c.Brokers) == 0 {
		errs = append(errs, "brokers: at least one broker address is required")
	}
	if len(c.Topics) == 0 {
		errs = append(errs, "topics: at least one topic is required")
	}
	seen := map[string]bool{}
	for _, t := range c.Topics {
		if t == "" || seen[t] {
			errs = append(errs, fmt.Sprintf("topics: empty or duplicate topic %q", t))
		}
		seen[t] = true
	}
	if c.StateTopic != "" && seen[c.StateTopic] {
		errs = append(errs, "state topic must differ from the topics read")
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Format, "json")
	def(&c.Start, "earliest")
	def(&c.Mode, "bounded")
	def(&c.Isolation, ReadCommitted)
	if c.Format != "json" && c.Format != "arrow" {
		errs = append(errs, fmt.Sprintf("format: must be json or arrow, got %q", c.Format))
	}
	if c.Start != "earliest" && c.Start != "latest" && c.Start != "committed" {
		errs = append(errs, fmt.Sprintf("start: must be earliest, latest or committed, got %q", c.Start))
	}
	if c.Mode != "bounded" && c.Mode != "continuous" {
		errs = append(errs, fmt.Sprintf("mode: must be bounded or continuous, got %q", c.Mode))
	}
	if c.Isolation != ReadCommitted && c.Isolation != ReadUncommitted {
		errs = append(errs, fmt.Sprintf("isolation: must be %s or %s, got %q", ReadCommitted, ReadUncommitted, c.Isolation))
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, fmt.Sprintf("connect_timeout: must be positive, got %v", c.ConnectTimeout))
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.CheckpointInterval <= 0 {
		c.CheckpointInterval = DefaultCheckpointInterval
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.StateMaxBytes <= 0 {
		c.StateMaxBytes = DefaultStateMaxBytes
	}
	if c.MaxRecordBytes <= 0 {
		c.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if len(errs) > 0 {
		return errors.New("kafka source: " + strings.Join(errs, "; "))
	}
	return nil
}

func (c *Config) dialer() *kafkago.Dialer {
	return &kafkago.Dialer{Timeout: c.connectTimeout(), DualStack: true, TLS: c.TLS, SASLMechanism: c.SASL, ClientID: "evalstream"}
}

// connectTimeout is ConnectTimeout, or its default for a config that was not validated.
func (c *Config) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// transport returns a kafka-go transport with the config's TLS, SASL and connect timeout.
func (c *Config) transport() *kafkago.Transport {
	t := Transport(c.TLS, c.SASL)
	t.DialTimeout = c.connectTimeout()
	return t
}

// Transport returns a kafka-go transport with the config's TLS and SASL settings.
func Transport(t *tls.Config, m sasl.Mechanism) *kafkago.Transport {
	return &kafkago.Transport{TLS: t, SASL: m, ClientID: "evalstream", DialTimeout: 10 * time.Second, MetadataTTL: 5 * time.Second}
}

// TLSConfig builds a TLS config from PEM files: an optional CA bundle (else the system
// roots), an optional client certificate and key.
func TLSConfig(caFile, certFile, keyFile string, insecureSkipVerify bool) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecureSkipVerify} //nolint:gosec // opt-in
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("tls ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca_file %s: no PEM certificate found", caFile)
		}
		t.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("tls: cert_file and key_file go together")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("tls client certificate: %w", err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}

// SASLMechanism returns the kafka-go mechanism for plain, scram-sha-256 or scram-sha-512.
func SASLMechanism(mechanism, user, password string) (sasl.Mechanism, error) {
	switch mechanism {
	case "plain":
		return plain.Mechanism{Username: user, Password: password}, nil
	case "scram-sha-256", "scram-sha-512":
		return newSCRAM(mechanism, user, password)
	}
	return nil, fmt.Errorf("sasl mechanism must be plain, scram-sha-256 or scram-sha-512, got %q", mechanism)
}
