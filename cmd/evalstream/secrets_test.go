package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// secretSet is every secret a pipeline config can point at: the Kafka SASL password, the
// Kafka client key, the Prometheus sink's basic-auth password and its bcrypt hash, and the
// sink's TLS key.
type secretSet struct {
	saslPassword, kafkaKey, webPassword, webHash, webKey string
	// Paths: the Kafka client cert/key and CA, the web config and the web certificate pool.
	kafkaCert, kafkaKeyPath, webConfig, webConfigPlain, webConfigBadKey string
	webPool                                                             *x509.CertPool
}

// writeSecrets makes the files of a secretSet under dir.
func writeSecrets(t *testing.T, dir string) secretSet {
	t.Helper()
	s := secretSet{saslPassword: "sasl-Pa55w0rd-Zq9", webPassword: "web-Pa55w0rd-Xk7"}
	s.kafkaCert, s.kafkaKeyPath, _ = selfSignedPair(t, dir, "kafka-client")
	webCert, webKey, pool := selfSignedPair(t, dir, "web")
	s.webPool = pool
	for path, dst := range map[string]*string{s.kafkaKeyPath: &s.kafkaKey, webKey: &s.webKey} {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		*dst = string(b)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(s.webPassword), bcrypt.MinCost)
	require.NoError(t, err)
	s.webHash = string(hash)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	s.webConfig = write("web.yml", fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prometheus: %s\n", webCert, webKey, s.webHash))
	// The password itself where the hash belongs: a mistake a user makes.
	s.webConfigPlain = write("web-plain.yml", fmt.Sprintf("basic_auth_users:\n  prometheus: %s\n", s.webPassword))
	// The Kafka client key with the web certificate: does not match.
	s.webConfigBadKey = write("web-badkey.yml", fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\n", webCert, s.kafkaKeyPath))
	return s
}

// requireNoSecrets fails when out holds a secret of s, the first 6 bytes of a password or
// hash (YAML errors quote 7 bytes and "..."), or any line of a key's PEM body.
func requireNoSecrets(t *testing.T, what, out string, s secretSet) {
	t.Helper()
	for _, p := range []string{s.saslPassword, s.webPassword, s.webHash} {
		require.NotContains(t, out, p[:6], "%s holds a secret:\n%s", what, out)
	}
	for _, k := range []string{s.kafkaKey, s.webKey} {
		for _, line := range strings.Split(k, "\n") {
			if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				require.NotContains(t, out, line, "%s holds a key:\n%s", what, out)
			}
		}
	}
}

// selfSignedPair writes a self-signed ECDSA certificate for 127.0.0.1 and its key.
func selfSignedPair(t *testing.T, dir, name string) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	certPath, keyPath = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

// secretConfig is a continuous Kafka pipeline with SASL, a TLS client key and a Prometheus
// sink behind TLS and basic auth.
func secretConfig(t *testing.T, dir, name, brokers, topic string, s secretSet, sasl bool) string {
	t.Helper()
	auth := fmt.Sprintf("  tls: {ca_file: %q, cert_file: %q, key_file: %q}\n  sasl: {mechanism: scram-sha-512, username: evalstream, password: %q}\n",
		s.kafkaCert, s.kafkaCert, s.kafkaKeyPath, s.saslPassword)
	if !sasl {
		auth = ""
	}
	cfg := fmt.Sprintf(`source:
  type: kafka
  brokers: [%q]
  topic: %s
  group: %s-g
  mode: continuous
  emit_interval: 200ms
%sstate: {topic: %s-state}
metrics: [{type: bleu}]
sinks:
  - {type: jsonl, path: results.jsonl}
  - {type: prometheus, addr: "127.0.0.1:0", web_config: %q}
`, brokers, topic, topic, auth, topic, s.webConfig)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(cfg), 0o600))
	return p
}

// TestSecretsNeverPrinted: `validate` and failing runs print no secret of the config — the
// SASL password, a TLS key, the basic-auth password or its hash — whatever the outcome. Each
// case would print one if a message quoted the value it complains about.
func TestSecretsNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	s := writeSecrets(t, dir)
	cfg := secretConfig(t, dir, "c.yaml", "127.0.0.1:1", "t", s, true)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"valid", []string{"validate", "-c", cfg}, 0, "ok (1 metrics, 2 sinks)"},
		{"another problem", []string{"validate", "-c", cfg, "--set", "pipeline.workers=-1"}, 2, "pipeline.workers: must be >= 0"},
		{"password where the sasl section belongs", []string{"validate", "-c", cfg, "--set", "source.sasl=" + s.saslPassword}, 2, "cannot unmarshal !!str (value hidden) into config.SASL"},
		{"a secret where the tls section belongs", []string{"validate", "-c", cfg, "--set", "source.tls=" + s.saslPassword}, 2, "cannot unmarshal !!str (value hidden) into config.TLS"},
		{"password instead of its hash", []string{"validate", "-c", cfg, "--set", "sinks[1].web_config=" + s.webConfigPlain}, 2, `sinks[1].web_config: web config ` + s.webConfigPlain + `: basic_auth_users: the password of user "prometheus" is not a bcrypt hash`},
		{"key that does not match", []string{"validate", "-c", cfg, "--set", "sinks[1].web_config=" + s.webConfigBadKey}, 2, "private key does not match public key"},
		{"missing web config", []string{"validate", "-c", cfg, "--set", "sinks[1].web_config=nowhere.yml"}, 2, "sinks[1].web_config: web config: open nowhere.yml: no such file or directory"},
		{"broker unreachable", []string{"run", "-c", cfg}, 1, "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, dir, c.args...)
			require.Equal(t, c.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stdout+r.stderr, c.want)
			requireNoSecrets(t, "the output", r.stdout+r.stderr, s)
		})
	}
	// No run got far enough to write results.
	_, err := os.Stat(filepath.Join(dir, "results.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestSecretsNeverPrintedByAKafkaRun runs a continuous pipeline against a real broker
// (skipped without EVALSTREAM_KAFKA_BROKERS) with the Prometheus sink behind TLS and basic
// auth: scrapes without and with credentials, then SIGTERM. No secret may appear in its
// output, its results file or the state snapshots it wrote to the state topic; a run with
// SASL against the broker (which has no SASL listener) fails without printing the password.
func TestSecretsNeverPrintedByAKafkaRun(t *testing.T) {
	brokers := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if brokers == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set: start a broker with `.ci/kafka/kafka-ci.sh start` and export EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092")
	}
	broker := strings.Split(brokers, ",")[0]
	dir := t.TempDir()
	s := writeSecrets(t, dir)
	topic := fmt.Sprintf("secrets-%d", time.Now().UnixNano())
	w := &kafkago.Writer{Addr: kafkago.TCP(broker), Topic: topic, AllowAutoTopicCreation: true, BatchTimeout: 10 * time.Millisecond}
	var msgs []kafkago.Message
	for i := 0; i < 20; i++ {
		msgs = append(msgs, kafkago.Message{Value: []byte(fmt.Sprintf(`{"prediction":"the cat sat %d","references":["the cat sat %d"]}`, i, i%3))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.Eventually(t, func() bool { return w.WriteMessages(ctx, msgs...) == nil }, time.Minute, 500*time.Millisecond, "produce to %s", topic)
	require.NoError(t, w.Close())

	cfg := secretConfig(t, dir, "c.yaml", broker, topic, s, false)
	cmd := exec.Command(binary, "run", "-c", cfg)
	cmd.Dir = dir
	var out lockedOutput
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	var url string
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`prometheus metrics on (https://\S+/metrics)`).FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, time.Minute, 100*time.Millisecond, "the run prints the https URL:\n%s", out.String())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.webPool}}, Timeout: 30 * time.Second}
	get := func(user, pass string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, _ := get("", "")
	require.Equal(t, http.StatusUnauthorized, code)
	code, _ = get("prometheus", s.webHash)
	require.Equal(t, http.StatusUnauthorized, code)
	var body string
	require.Eventually(t, func() bool {
		code, body = get("prometheus", s.webPassword)
		return code == http.StatusOK && strings.Contains(body, `evalstream_records{scope="total",slice=""} 20`)
	}, time.Minute, 200*time.Millisecond, "all 20 records scored")
	requireNoSecrets(t, "the scrape", body, s)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), out.String())

	requireNoSecrets(t, "the run's output", out.String(), s)
	results, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(results), `"records":20`)
	requireNoSecrets(t, "the results", string(results), s)
	// Every snapshot in the state topic, raw.
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: []string{broker}, Topic: topic + "-state", Partition: 0, MaxWait: 200 * time.Millisecond})
	defer r.Close()
	c := &kafkago.Client{Addr: kafkago.TCP(broker), Timeout: 10 * time.Second}
	off, err := c.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{topic + "-state": {kafkago.LastOffsetOf(0)}}})
	require.NoError(t, err)
	end := off.Topics[topic+"-state"][0].LastOffset
	require.Positive(t, end, "the run wrote snapshots")
	for n := int64(0); n < end; n++ {
		m, err := r.ReadMessage(ctx)
		require.NoError(t, err)
		requireNoSecrets(t, "a state snapshot", string(m.Key)+string(m.Value), s)
	}

	// SASL against a broker without SASL: a clear failure, not the password.
	sasl := filepath.Join(dir, "sasl.yaml")
	require.NoError(t, os.WriteFile(sasl, []byte(fmt.Sprintf(`source:
  type: kafka
  brokers: [%q]
  topic: %s
  sasl: {mechanism: scram-sha-512, username: evalstream, password: %q}
metrics: [{type: bleu}]
sinks: [{type: stdout}]
`, broker, topic, s.saslPassword)), 0o600))
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer scancel()
	sc := exec.CommandContext(sctx, binary, "run", "-c", sasl)
	sc.Dir = dir
	b, err := sc.CombinedOutput()
	require.Error(t, err, string(b))
	require.NoError(t, sctx.Err(), "the SASL failure must end the run:\n%s", b)
	requireNoSecrets(t, "the SASL failure", string(b), s)
}

// lockedOutput collects a process's output while the test reads it.
type lockedOutput struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *lockedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *lockedOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
