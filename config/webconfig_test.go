package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// secret stands for a value that must never be printed back.
const secret = "s3cr3t-value-XYZ"

func TestParseWebConfig(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
	require.NoError(t, err)
	const dir = "/etc/evalstream"
	base := func() *WebConfig { return &WebConfig{HTTP2: true, Users: map[string]string{}} }
	tlsBase := func() *WebTLS {
		return &WebTLS{CertFile: "/etc/evalstream/s.crt", KeyFile: "/etc/evalstream/s.key", MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13}
	}
	withTLS := func(f func(*WebTLS)) *WebConfig {
		c := base()
		c.TLS = tlsBase()
		f(c.TLS)
		return c
	}
	const certs = "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
	for _, c := range []struct {
		name, yaml string
		want       *WebConfig
	}{
		{"empty file", "", base()},
		{"comments only", "# nothing yet\n", base()},
		{"empty mapping", "{}\n", base()},
		{"null sections", "tls_server_config:\nhttp_server_config:\nbasic_auth_users:\nrate_limit:\n", base()},
		{"certificate files relative to the file", certs, withTLS(func(*WebTLS) {})},
		{"absolute paths kept", "tls_server_config: {cert_file: /a/s.crt, key_file: /b/s.key}\n", withTLS(func(t *WebTLS) { t.CertFile, t.KeyFile = "/a/s.crt", "/b/s.key" })},
		{"inline cert and key", "tls_server_config: {cert: CERT, key: " + secret + "}\n", withTLS(func(t *WebTLS) { t.CertFile, t.KeyFile, t.Cert, t.Key = "", "", "CERT", secret })},
		{"TLS 1.3 only", certs + "  min_version: TLS13\n", withTLS(func(t *WebTLS) { t.MinVersion = tls.VersionTLS13 })},
		{"TLS 1.0 when asked", certs + "  min_version: TLS10\n  max_version: TLS12\n", withTLS(func(t *WebTLS) { t.MinVersion, t.MaxVersion = tls.VersionTLS10, tls.VersionTLS12 })},
		{"TLS 1.1", certs + "  min_version: TLS11\n", withTLS(func(t *WebTLS) { t.MinVersion = tls.VersionTLS11 })},
		{"cipher suites", certs + "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256]\n",
			withTLS(func(t *WebTLS) {
				t.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}
			})},
		{"curve preferences", certs + "  curve_preferences: [X25519, CurveP256, CurveP384, CurveP521]\n",
			withTLS(func(t *WebTLS) {
				t.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}
			})},
		{"prefer_server_cipher_suites accepted and ignored", certs + "  prefer_server_cipher_suites: false\n", withTLS(func(*WebTLS) {})},
		{"NoClientCert", certs + "  client_auth_type: NoClientCert\n", withTLS(func(*WebTLS) {})},
		{"RequestClientCert", certs + "  client_auth_type: RequestClientCert\n", withTLS(func(t *WebTLS) { t.ClientAuth = tls.RequestClientCert })},
		{"RequireAnyClientCert", certs + "  client_auth_type: RequireAnyClientCert\n", withTLS(func(t *WebTLS) { t.ClientAuth = tls.RequireAnyClientCert })},
		{"RequireClientCert, the older name", certs + "  client_auth_type: RequireClientCert\n", withTLS(func(t *WebTLS) { t.ClientAuth = tls.RequireAnyClientCert })},
		{"VerifyClientCertIfGiven", certs + "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n",
			withTLS(func(t *WebTLS) { t.ClientAuth, t.ClientCAFile = tls.VerifyClientCertIfGiven, "/etc/evalstream/ca.crt" })},
		{"RequireAndVerifyClientCert with an inline CA", certs + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca: CA\n",
			withTLS(func(t *WebTLS) { t.ClientAuth, t.ClientCA = tls.RequireAndVerifyClientCert, "CA" })},
		{"client allowed SANs", certs + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [scraper.example, 10.0.0.1]\n",
			withTLS(func(t *WebTLS) {
				t.ClientAuth, t.ClientCAFile, t.ClientAllowedSANs = tls.RequireAndVerifyClientCert, "/etc/evalstream/ca.crt", []string{"scraper.example", "10.0.0.1"}
			})},
		{"TLS settings without a certificate leave TLS off", "tls_server_config: {min_version: TLS13, cipher_suites: [TLS_AES_128_GCM_SHA256]}\n", base()},
		{"cipher suites HTTP/2 cannot use, without HTTP/2", certs + "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\nhttp_server_config: {http2: false}\n",
			func() *WebConfig {
				c := withTLS(func(t *WebTLS) { t.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384} })
				c.HTTP2 = false
				return c
			}()},
		{"cipher suites without an AES-128-GCM one, HTTP/2 on, TLS 1.3 only", certs + "  min_version: TLS13\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n",
			withTLS(func(t *WebTLS) {
				t.MinVersion, t.CipherSuites = tls.VersionTLS13, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}
			})},
		{"a quoted user named null", "basic_auth_users:\n  \"null\": " + string(hash) + "\n", func() *WebConfig { c := base(); c.Users = map[string]string{"null": string(hash)}; return c }()},
		{"http2 off", "http_server_config: {http2: false}\n", func() *WebConfig { c := base(); c.HTTP2 = false; return c }()},
		{"headers", "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    X-Content-Type-Options: nosniff\n    Strict-Transport-Security: max-age=31536000\n    X-XSS-Protection: '1; mode=block'\n    Content-Security-Policy: default-src 'self'\n",
			func() *WebConfig {
				c := base()
				c.Headers = map[string]string{"X-Frame-Options": "deny", "X-Content-Type-Options": "nosniff", "Strict-Transport-Security": "max-age=31536000", "X-XSS-Protection": "1; mode=block", "Content-Security-Policy": "default-src 'self'"}
				return c
			}()},
		{"basic auth users", "basic_auth_users:\n  scraper: " + string(hash) + "\n", func() *WebConfig { c := base(); c.Users = map[string]string{"scraper": string(hash)}; return c }()},
		{"rate limit", "rate_limit: {interval: 500ms, burst: 3}\n", func() *WebConfig { c := base(); c.RateInterval, c.RateBurst = 500*time.Millisecond, 3; return c }()},
		{"rate limit disabled by a zero interval", "rate_limit: {interval: 0s, burst: 0}\n", base()},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseWebConfig([]byte(c.yaml), dir)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestParseWebConfigRefuses(t *testing.T) {
	const certs = "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
	for _, c := range []struct {
		name, yaml, want string
	}{
		{"not YAML", "tls_server_config: [\n", "yaml: "},
		{"unknown key", "basic_auth_user:\n  scraper: " + secret + "\n", "line 1: field basic_auth_user not found"},
		{"unknown TLS key", "tls_server_config:\n  cert_fil: " + secret + "\n", "line 2: field cert_fil not found"},
		{"rate_limit is not the toolkit's rate_limiter", "rate_limiter: {burst: 1}\n", "field rate_limiter not found"},
		{"duplicate key", "tls_server_config: {}\ntls_server_config: {}\n", `mapping key "tls_server_config" already defined`},
		{"two documents", "{}\n---\nbasic_auth_users: {a: " + secret + "}\n", "more than one YAML document"},
		{"users given as a string", "basic_auth_users: " + secret + "\n", "line 1: cannot unmarshal !!str (value hidden) into map[string]string"},
		// yaml.v3 would drop these entries from the map: a lone user named null would turn
		// authentication off.
		{"user named null", "basic_auth_users:\n  null: " + secret + "\n", "line 2: a key that YAML reads as null"},
		{"user named ~", "basic_auth_users:\n  scraper: x\n  ~: " + secret + "\n", "line 3: a key that YAML reads as null"},
		{"user with an empty name", "basic_auth_users:\n  ? \n  : " + secret + "\n", "line 2: a key that YAML reads as null"},
		{"header named NULL", "http_server_config:\n  headers: {NULL: " + secret + "}\n", "line 2: a key that YAML reads as null"},
		{"top-level key Null", "Null: " + secret + "\n", "line 1: a key that YAML reads as null"},
		{"a value with backquotes", "rate_limit: {interval: 1s, burst: \"a`" + secret + "`b\"}\n", "cannot unmarshal !!str (value hidden) into int"},
		{"password not hashed", "basic_auth_users:\n  scraper: " + secret + "\n", `basic_auth_users: the password of user "scraper" is not a bcrypt hash`},
		{"http2 not a boolean", "http_server_config: {http2: " + secret + "}\n", "cannot unmarshal !!str (value hidden) into bool"},
		{"header not allowed", "http_server_config:\n  headers: {Server: " + secret + "}\n", `http_server_config.headers: header "Server" can not be configured (one of Content-Security-Policy, Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options, X-XSS-Protection)`},
		{"header value not allowed", "http_server_config:\n  headers: {X-Frame-Options: " + secret + "}\n", "http_server_config.headers.X-Frame-Options: expected one of deny, sameorigin"},
		{"header names are case-sensitive, as in the toolkit", "http_server_config:\n  headers: {x-frame-options: deny}\n", `header "x-frame-options" can not be configured`},
		{"rate limit interval not a duration", "rate_limit: {interval: " + secret + ", burst: 1}\n", "rate_limit.interval: expected a duration"},
		{"rate limit interval in Prometheus days", "rate_limit: {interval: 1d, burst: 1}\n", "rate_limit.interval: expected a duration"},
		{"negative rate limit interval", "rate_limit: {interval: -1s, burst: 1}\n", "rate_limit.interval: expected a duration"},
		{"rate limit burst 0", "rate_limit: {interval: 1s}\n", "rate_limit.burst: expected a positive number"},
		{"missing cert", "tls_server_config: {key_file: s.key}\n", "tls_server_config: missing one of cert or cert_file"},
		{"missing key", "tls_server_config: {cert_file: s.crt}\n", "tls_server_config: missing one of key or key_file"},
		{"client auth alone", "tls_server_config: {client_auth_type: RequireAndVerifyClientCert}\n", "tls_server_config: missing one of cert or cert_file"},
		{"cert and cert_file", certs + "  cert: " + secret + "\n", "tls_server_config: both cert and cert_file are set"},
		{"key and key_file", certs + "  key: " + secret + "\n", "tls_server_config: both key and key_file are set"},
		{"client_ca and client_ca_file", certs + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca: " + secret + "\n  client_ca_file: ca.crt\n", "tls_server_config: both client_ca and client_ca_file are set"},
		{"client auth type unknown", certs + "  client_auth_type: " + secret + "\n", "tls_server_config: client_auth_type: expected one of NoClientCert, RequestClientCert, RequireAndVerifyClientCert, RequireAnyClientCert, RequireClientCert, VerifyClientCertIfGiven"},
		{"client CA without client auth", certs + "  client_ca_file: ca.crt\n", "tls_server_config: client CA's have been configured without a Client Auth Policy"},
		{"client CA with NoClientCert", certs + "  client_auth_type: NoClientCert\n  client_ca: " + secret + "\n", "client CA's have been configured without a Client Auth Policy"},
		{"TLS version unknown", certs + "  min_version: " + secret + "\n", "tls_server_config: min_version: expected one of TLS10, TLS11, TLS12, TLS13"},
		{"TLS version spelled as Go's constant", certs + "  max_version: VersionTLS13\n", "tls_server_config: max_version: expected one of"},
		{"max below min", certs + "  min_version: TLS13\n  max_version: TLS12\n", "tls_server_config: max_version is below min_version"},
		{"max below the default min", certs + "  max_version: TLS11\n", "tls_server_config: max_version is below min_version"},
		{"cipher suite unknown", certs + "  cipher_suites: [TLS_AES_128_GCM_SHA256, " + secret + "]\n", "tls_server_config: cipher_suites[1]: not a cipher suite of crypto/tls.CipherSuites()"},
		{"insecure cipher suite", certs + "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n", "tls_server_config: cipher_suites[0]: not a cipher suite of crypto/tls.CipherSuites()"},
		{"cipher suites not a list", certs + "  cipher_suites: " + secret + "\n", "cannot unmarshal !!str (value hidden) into []string"},
		{"cipher suites HTTP/2 cannot use", certs + "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n", "tls_server_config.cipher_suites: HTTP/2 (http_server_config.http2, on by default) needs"},
		{"curve unknown", certs + "  curve_preferences: [" + secret + "]\n", "tls_server_config: curve_preferences[0]: expected one of CurveP256, CurveP384, CurveP521, X25519"},
		{"SANs not a list", certs + "  client_allowed_sans: " + secret + "\n", "cannot unmarshal !!str (value hidden) into []string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseWebConfig([]byte(c.yaml), "/etc/evalstream")
			require.Nil(t, got)
			require.ErrorContains(t, err, c.want)
			require.NotContains(t, err.Error(), secret[:6])
			require.NotContains(t, err.Error(), "config.web", "no Go type names")
		})
	}
}

// testCert writes a certificate for 127.0.0.1 with the given SANs, signed by parent (or
// self-signed when parent is nil), and its key under dir; it returns their paths and PEM.
type testCert struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
	keyPEM  []byte
	certPath,
	keyPath string
}

func newTestCert(t *testing.T, dir, name string, parent *testCert, dns []string, uris []string) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              dns,
		EmailAddresses:        []string{name + "@example.org"},
		BasicConstraintsValid: true,
		IsCA:                  parent == nil,
	}
	for _, u := range uris {
		pu, err := url.Parse(u)
		require.NoError(t, err)
		tmpl.URIs = append(tmpl.URIs, pu)
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	c := &testCert{key: key,
		certPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		certPath: filepath.Join(dir, name+".crt"), keyPath: filepath.Join(dir, name+".key")}
	c.cert, err = x509.ParseCertificate(der)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(c.certPath, c.certPEM, 0o644))
	require.NoError(t, os.WriteFile(c.keyPath, c.keyPEM, 0o600))
	return c
}

func TestServerTLSConfig(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCert(t, dir, "ca", nil, nil, nil)
	srv := newTestCert(t, dir, "server", ca, []string{"localhost"}, nil)
	newTestCert(t, dir, "other", nil, nil, nil) // other.key: a key that is not server.crt's
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.pem"), []byte("no PEM here\n"), 0o644))
	indent := func(pem []byte) string {
		return "|\n    " + strings.ReplaceAll(strings.TrimSpace(string(pem)), "\n", "\n    ")
	}
	for _, c := range []struct {
		name, yaml, want string
		check            func(*testing.T, *tls.Config)
	}{
		{"no TLS", "basic_auth_users: {}\n", "", func(t *testing.T, cfg *tls.Config) { require.Nil(t, cfg) }},
		{"files, relative", "tls_server_config: {cert_file: server.crt, key_file: server.key}\n", "", func(t *testing.T, cfg *tls.Config) {
			require.Len(t, cfg.Certificates, 1)
			require.Equal(t, srv.cert.Raw, cfg.Certificates[0].Certificate[0])
			require.Equal(t, uint16(tls.VersionTLS12), cfg.MinVersion, "TLS 1.2 at least unless the file says otherwise")
			require.Equal(t, uint16(tls.VersionTLS13), cfg.MaxVersion)
			require.Equal(t, tls.NoClientCert, cfg.ClientAuth)
			require.Nil(t, cfg.ClientCAs)
			require.Nil(t, cfg.VerifyPeerCertificate)
			require.Nil(t, cfg.CipherSuites)
			require.Nil(t, cfg.CurvePreferences)
		}},
		{"inline", "tls_server_config:\n  cert: " + indent(srv.certPEM) + "\n  key: " + indent(srv.keyPEM) + "\n", "", func(t *testing.T, cfg *tls.Config) {
			require.Equal(t, srv.cert.Raw, cfg.Certificates[0].Certificate[0])
		}},
		{"client CA file, SANs, suites, curves", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [a]\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n  curve_preferences: [CurveP384]\n  min_version: TLS13\nhttp_server_config: {http2: false}\n", "", func(t *testing.T, cfg *tls.Config) {
			require.Equal(t, tls.RequireAndVerifyClientCert, cfg.ClientAuth)
			require.True(t, cfg.ClientCAs.Equal(poolOf(ca.cert)))
			require.NotNil(t, cfg.VerifyPeerCertificate)
			require.Equal(t, []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}, cfg.CipherSuites)
			require.Equal(t, []tls.CurveID{tls.CurveP384}, cfg.CurvePreferences)
			require.Equal(t, uint16(tls.VersionTLS13), cfg.MinVersion)
		}},
		{"inline client CA", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: VerifyClientCertIfGiven\n  client_ca: " + indent(ca.certPEM) + "\n", "", func(t *testing.T, cfg *tls.Config) {
			require.True(t, cfg.ClientCAs.Equal(poolOf(ca.cert)))
		}},
		{"cert file missing", "tls_server_config: {cert_file: nocert.pem, key_file: server.key}\n", "tls_server_config: failed to read cert_file (relative paths are relative to the web config's directory): no such file or directory", nil},
		{"key file missing", "tls_server_config: {cert_file: server.crt, key_file: nokey.pem}\n", "tls_server_config: failed to read key_file", nil},
		{"CA file missing", "tls_server_config: {cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: noca.pem}\n", "tls_server_config: failed to read client_ca_file", nil},
		{"CA file without a certificate", "tls_server_config: {cert_file: server.crt, key_file: server.key, client_auth_type: RequireAndVerifyClientCert, client_ca_file: empty.pem}\n", "tls_server_config: client CA: no PEM certificate found", nil},
		{"key of another certificate", "tls_server_config: {cert_file: server.crt, key_file: other.key}\n", "failed to load X509KeyPair (the certificate and key): tls: private key does not match public key", nil},
		{"inline key not PEM", "tls_server_config: {cert_file: server.crt, key: " + secret + "}\n", "failed to load X509KeyPair", nil},
		{"cert and key swapped", "tls_server_config: {cert_file: server.key, key_file: server.crt}\n", "failed to load X509KeyPair", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "web.yml")
			require.NoError(t, os.WriteFile(path, []byte(c.yaml), 0o600))
			wc, err := CheckWebConfig(path)
			if c.want != "" {
				require.ErrorContains(t, err, "web config "+path+": ")
				require.ErrorContains(t, err, c.want)
				require.NotContains(t, err.Error(), secret[:6])
				require.NotContains(t, err.Error(), "nokey", "the path is a value of the file")
				return
			}
			require.NoError(t, err)
			cfg, err := wc.ServerTLSConfig()
			require.NoError(t, err)
			c.check(t, cfg)
		})
	}
}

func poolOf(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

func TestVerifyClientSAN(t *testing.T) {
	dir := t.TempDir()
	client := newTestCert(t, dir, "client", nil, []string{"scraper.example"}, []string{"spiffe://example.org/prometheus"})
	raw := [][]byte{client.cert.Raw}
	for _, c := range []struct {
		name    string
		raw     [][]byte
		allowed []string
		want    string
	}{
		{"DNS name", raw, []string{"other", "scraper.example"}, ""},
		{"IP address", raw, []string{"127.0.0.1"}, ""},
		{"e-mail address", raw, []string{"client@example.org"}, ""},
		{"URI", raw, []string{"spiffe://example.org/prometheus"}, ""},
		{"the common name is not a SAN", raw, []string{"client"}, "none of the SANs of client_allowed_sans"},
		{"no match", raw, []string{"Scraper.example", "10.0.0.1"}, "none of the SANs of client_allowed_sans"},
		{"empty list", raw, []string{}, "none of the SANs"},
		{"no certificate", nil, []string{"scraper.example"}, "the client sent no certificate"},
		{"not a certificate", [][]byte{[]byte("junk")}, []string{"scraper.example"}, "client certificate: x509: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := verifyClientSAN(c.raw, c.allowed)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
		})
	}
}

// FuzzParseWebConfig: any file is parsed or refused, never a panic.
func FuzzParseWebConfig(f *testing.F) {
	for _, seed := range []string{
		"",
		"tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [a]\n  min_version: TLS13\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n  curve_preferences: [X25519]\n",
		"http_server_config: {http2: false, headers: {X-Frame-Options: deny}}\nrate_limit: {interval: 1s, burst: 2}\n",
		"basic_auth_users: {a: $2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseWebConfig(b, "/etc")
		require.True(t, (c == nil) != (err == nil))
	})
}
