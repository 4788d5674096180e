package sinks

import (
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
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// testPKI is a CA and the certificates it signed, written under dir as NAME.crt and NAME.key.
type testPKI struct {
	t    *testing.T
	dir  string
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestPKI(t *testing.T, dir string) *testPKI {
	p := &testPKI{t: t, dir: dir}
	p.ca, p.key = p.issue("ca", nil, true)
	p.pool = x509.NewCertPool()
	p.pool.AddCert(p.ca)
	return p
}

// issue writes a certificate for 127.0.0.1 and dnsNames, signed by the CA (self-signed when
// the PKI has no CA yet, or when selfSigned).
func (p *testPKI) issue(name string, dnsNames []string, selfSigned bool) (*x509.Certificate, *ecdsa.PrivateKey) {
	t := p.t
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              dnsNames,
		BasicConstraintsValid: true,
		IsCA:                  selfSigned,
	}
	parent, parentKey := tmpl, key
	if !selfSigned {
		parent, parentKey = p.ca, p.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert, key
}

// clientCert loads NAME.crt and NAME.key as a client certificate.
func (p *testPKI) clientCert(name string) tls.Certificate {
	c, err := tls.LoadX509KeyPair(filepath.Join(p.dir, name+".crt"), filepath.Join(p.dir, name+".key"))
	require.NoError(p.t, err)
	return c
}

// startSink writes web to dir/web.yml and serves a fed sink with it.
func startSink(t *testing.T, dir, web string) (*Prometheus, *syncBuffer) {
	t.Helper()
	path := filepath.Join(dir, "web.yml")
	require.NoError(t, os.WriteFile(path, []byte(web), 0o600))
	logs := &syncBuffer{}
	p, err := NewPrometheus("127.0.0.1:0", path, logs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	feed(t, p)
	return p, logs
}

// get scrapes url over a new connection with tlsConfig.
func get(t *testing.T, url string, tlsConfig *tls.Config, http2 bool) (*http.Response, string, error) {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: http2, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

func TestPrometheusClientCertificates(t *testing.T) {
	dir := t.TempDir()
	pki := newTestPKI(t, dir)
	pki.issue("server", nil, false)
	pki.issue("scraper", []string{"scraper.example"}, false)
	pki.issue("intruder", []string{"intruder.example"}, false)
	pki.issue("forged", []string{"scraper.example"}, true) // the allowed SAN, not from the CA
	p, _ := startSink(t, dir, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"+
		"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [scraper.example]\n")
	for _, c := range []struct {
		name   string
		client string
		ok     bool
	}{
		{"a certificate of the CA with an allowed SAN", "scraper", true},
		{"no client certificate", "", false},
		{"a certificate of the CA without an allowed SAN", "intruder", false},
		{"a self-signed certificate with an allowed SAN", "forged", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := &tls.Config{RootCAs: pki.pool}
			if c.client != "" {
				cfg.Certificates = []tls.Certificate{pki.clientCert(c.client)}
			}
			resp, body, err := get(t, p.URL(), cfg, false)
			if !c.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			requireFedValues(t, body)
		})
	}
}

func TestPrometheusTLSVersionsAndHTTP2(t *testing.T) {
	const certs = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	for _, c := range []struct {
		name                 string
		web                  string
		clientMin, clientMax uint16
		http2                bool
		wantProto            string // "" when the handshake must fail
	}{
		{"TLS 1.2 by default", certs, tls.VersionTLS12, tls.VersionTLS12, false, "HTTP/1.1"},
		{"TLS 1.3 by default", certs, tls.VersionTLS13, tls.VersionTLS13, false, "HTTP/1.1"},
		{"no TLS 1.1 by default", certs, tls.VersionTLS10, tls.VersionTLS11, false, ""},
		{"min_version TLS13 refuses TLS 1.2", certs + "  min_version: TLS13\n", tls.VersionTLS12, tls.VersionTLS12, false, ""},
		{"max_version TLS12 refuses TLS 1.3", certs + "  max_version: TLS12\n", tls.VersionTLS13, tls.VersionTLS13, false, ""},
		{"cipher_suites", certs + "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n", tls.VersionTLS12, tls.VersionTLS12, true, "HTTP/2.0"},
		{"cipher_suites without HTTP/2's", certs + "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\nhttp_server_config: {http2: false}\n", tls.VersionTLS12, tls.VersionTLS12, true, "HTTP/1.1"},
		{"cipher_suites none the certificate can use", certs + "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n", tls.VersionTLS12, tls.VersionTLS12, false, ""},
		{"HTTP/2 by default", certs, tls.VersionTLS12, tls.VersionTLS13, true, "HTTP/2.0"},
		{"http2: false", certs + "http_server_config: {http2: false}\n", tls.VersionTLS12, tls.VersionTLS13, true, "HTTP/1.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pki := newTestPKI(t, dir)
			pki.issue("server", nil, false)
			p, logs := startSink(t, dir, c.web)
			resp, body, err := get(t, p.URL(), &tls.Config{RootCAs: pki.pool, MinVersion: c.clientMin, MaxVersion: c.clientMax}, c.http2)
			if c.wantProto == "" {
				require.Error(t, err)
				require.NoError(t, p.Close())
				require.Contains(t, logs.String(), "TLS handshake error")
				return
			}
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, c.wantProto, resp.Proto)
			require.LessOrEqual(t, resp.TLS.Version, c.clientMax)
			requireFedValues(t, body)
		})
	}
}

func TestPrometheusHeadersAndRateLimit(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	require.NoError(t, err)
	// An hour between tokens: the third request within the test is refused, whatever the timing.
	p, _ := startSink(t, dir, fmt.Sprintf("http_server_config:\n  headers: {X-Frame-Options: deny, X-Content-Type-Options: nosniff}\n"+
		"rate_limit: {interval: 1h, burst: 2}\nbasic_auth_users: {scraper: %s}\n", hash))
	for i, want := range []int{http.StatusUnauthorized, http.StatusOK, http.StatusTooManyRequests, http.StatusTooManyRequests} {
		code, h, _ := scrape(t, http.DefaultClient, p.URL(), "scraper", map[bool]string{true: "wrong", false: "pw"}[i == 0])
		require.Equal(t, want, code, "request %d", i)
		if want != http.StatusTooManyRequests {
			require.Equal(t, "deny", h.Get("X-Frame-Options"), "headers on answers and refusals alike")
			require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
		}
	}
}

// TestPrometheusWebConfigRotation changes users and certificate under a running sink, then
// breaks the file: each connection and request reads it again.
func TestPrometheusWebConfigRotation(t *testing.T) {
	const secret = "rotated-secret-pass"
	dir := t.TempDir()
	pki := newTestPKI(t, dir)
	first, _ := pki.issue("server", nil, false)
	hashA, err := bcrypt.GenerateFromPassword([]byte("password-a"), bcrypt.MinCost)
	require.NoError(t, err)
	hashB, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
	require.NoError(t, err)
	const certs = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	p, logs := startSink(t, dir, fmt.Sprintf("%sbasic_auth_users: {a: %s}\n", certs, hashA))
	path := filepath.Join(dir, "web.yml")
	client := func() *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pki.pool}, DisableKeepAlives: true}}
	}
	req := func(user, pass string) (int, *x509.Certificate) {
		r, err := http.NewRequest(http.MethodGet, p.URL(), nil)
		require.NoError(t, err)
		r.SetBasicAuth(user, pass)
		resp, err := client().Do(r)
		require.NoError(t, err)
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.TLS.PeerCertificates[0]
	}
	code, cert := req("a", "password-a")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, first.Raw, cert.Raw)

	second, _ := pki.issue("server", nil, false)
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf("%sbasic_auth_users: {b: %s}\n", certs, hashB)), 0o600))
	code, cert = req("a", "password-a")
	require.Equal(t, http.StatusUnauthorized, code, "a removed user is refused at once, cached or not")
	require.Equal(t, second.Raw, cert.Raw, "the new certificate from the next connection on")
	code, _ = req("b", secret)
	require.Equal(t, http.StatusOK, code)

	// A file that no longer loads fails the handshakes; it is logged without its values.
	require.NoError(t, os.WriteFile(path, []byte(certs+"basic_auth_users: {b: "+secret+"}\n"), 0o600))
	_, err = client().Get(p.URL())
	require.Error(t, err)
	require.NoError(t, p.Close())
	require.Contains(t, logs.String(), `basic_auth_users: the password of user "b" is not a bcrypt hash`)
	requireNoSecret(t, logs.String(), secret, string(hashB))
}

// TestPrometheusWebConfigBrokenWhileServing: without TLS the file is read for each request; a
// request that finds it broken gets 500 and the problem is logged without its values.
func TestPrometheusWebConfigBrokenWhileServing(t *testing.T) {
	const secret = "broken-secret-pass"
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
	require.NoError(t, err)
	p, logs := startSink(t, dir, fmt.Sprintf("basic_auth_users: {scraper: %s}\n", hash))
	require.Equal(t, "http://"+p.Addr()+"/metrics", p.URL(), "basic auth without TLS serves plain HTTP")
	code, _, body := scrape(t, http.DefaultClient, p.URL(), "scraper", secret)
	require.Equal(t, http.StatusOK, code)
	requireFedValues(t, body)
	for _, broken := range []string{
		"basic_auth_users: {scraper: " + secret + "}\n",
		"basic_auth_users: " + secret + "\n",
		"tls_server_config: {cert_file: " + secret + ".crt}\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "web.yml"), []byte(broken), 0o600))
		code, _, body = scrape(t, http.DefaultClient, p.URL(), "scraper", secret)
		require.Equal(t, http.StatusInternalServerError, code)
		require.NotContains(t, body, "evalstream_")
	}
	require.NoError(t, p.Close())
	require.Contains(t, logs.String(), "unable to read the web config: web config ")
	requireNoSecret(t, logs.String(), secret, string(hash))
}
