package config

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gopkg.in/yaml.v3"
)

// WebConfig is a parsed web config file of a Prometheus sink, in the exporter-toolkit format
// every Prometheus exporter reads (tls_server_config, http_server_config, basic_auth_users,
// rate_limit: https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md),
// with the toolkit's defaults applied and relative paths joined to the file's directory.
//
// A WebConfig is immutable once LoadWebConfig returns it and safe for concurrent use; its maps
// and slices belong to it and must not be modified.
type WebConfig struct {
	// Path is the file the config was read from.
	Path string
	// TLS is nil when tls_server_config names no certificate, key, client CA or client auth
	// type: the endpoint then serves plain HTTP, as with the toolkit.
	TLS *WebTLS
	// HTTP2 is http_server_config.http2 (default true; TLS only).
	HTTP2 bool
	// Headers are the response headers of http_server_config.headers.
	Headers map[string]string
	// Users maps each basic_auth_users user to its bcrypt hash; empty means no authentication.
	Users map[string]string
	// RateInterval and RateBurst are rate_limit's token bucket; a zero interval disables it.
	RateInterval time.Duration
	RateBurst    int
}

// WebTLS is tls_server_config, with each file path joined to the config's directory and each
// name resolved to its crypto/tls constant. Exactly one of each pair (Cert/CertFile,
// Key/KeyFile, ClientCA/ClientCAFile) is set, except that the client CA may be absent.
type WebTLS struct {
	Cert, Key, ClientCA             string // inline PEM
	CertFile, KeyFile, ClientCAFile string
	ClientAuth                      tls.ClientAuthType
	MinVersion, MaxVersion          uint16
	CipherSuites                    []uint16
	CurvePreferences                []tls.CurveID
	// ClientAllowedSANs, when not nil, lists the SANs (DNS, IP, e-mail or URI) of which a
	// client certificate must carry one; an empty non-nil list admits no client certificate.
	ClientAllowedSANs []string
}

// The YAML of the file. Scalars the toolkit types are read as strings and resolved by
// LoadWebConfig, so that an error can name the key without quoting the value.
type webFile struct {
	TLS       *webFileTLS       `yaml:"tls_server_config"`
	HTTP      *webFileHTTP      `yaml:"http_server_config"`
	RateLimit *webFileRateLimit `yaml:"rate_limit"`
	Users     map[string]string `yaml:"basic_auth_users"`
}

type webFileTLS struct {
	Cert             string   `yaml:"cert"`
	Key              string   `yaml:"key"`
	ClientCA         string   `yaml:"client_ca"`
	CertFile         string   `yaml:"cert_file"`
	KeyFile          string   `yaml:"key_file"`
	ClientAuthType   string   `yaml:"client_auth_type"`
	ClientCAFile     string   `yaml:"client_ca_file"`
	CipherSuites     []string `yaml:"cipher_suites"`
	CurvePreferences []string `yaml:"curve_preferences"`
	MinVersion       string   `yaml:"min_version"`
	MaxVersion       string   `yaml:"max_version"`
	// PreferServerCipherSuites is accepted and ignored, as by the toolkit: crypto/tls has
	// chosen the cipher suite itself since Go 1.17.
	PreferServerCipherSuites bool     `yaml:"prefer_server_cipher_suites"`
	ClientAllowedSANs        []string `yaml:"client_allowed_sans"`
}

type webFileHTTP struct {
	HTTP2   *bool             `yaml:"http2"`
	Headers map[string]string `yaml:"headers"`
}

type webFileRateLimit struct {
	Burst    int    `yaml:"burst"`
	Interval string `yaml:"interval"`
}

// Enumerations as the toolkit spells them.
var (
	tlsVersions = map[string]uint16{"TLS10": tls.VersionTLS10, "TLS11": tls.VersionTLS11, "TLS12": tls.VersionTLS12, "TLS13": tls.VersionTLS13}
	tlsCurves   = map[string]tls.CurveID{"CurveP256": tls.CurveP256, "CurveP384": tls.CurveP384, "CurveP521": tls.CurveP521, "X25519": tls.X25519}
	clientAuths = map[string]tls.ClientAuthType{
		"": tls.NoClientCert, "NoClientCert": tls.NoClientCert, "RequestClientCert": tls.RequestClientCert,
		"RequireAnyClientCert": tls.RequireAnyClientCert, "RequireClientCert": tls.RequireAnyClientCert, // the toolkit's older name
		"VerifyClientCertIfGiven": tls.VerifyClientCertIfGiven, "RequireAndVerifyClientCert": tls.RequireAndVerifyClientCert,
	}
	// webHeaders are the response headers the toolkit lets a web config set, with the values
	// allowed where the header is an enumeration (nil: any value).
	webHeaders = map[string][]string{
		"Strict-Transport-Security": nil,
		"X-Content-Type-Options":    {"nosniff"},
		"X-Frame-Options":           {"deny", "sameorigin"},
		"X-XSS-Protection":          nil,
		"Content-Security-Policy":   nil,
	}
)

// LoadWebConfig reads and checks a web config file without reading the files it names (see
// CheckWebConfig). Unknown keys are errors; paths are relative to the file's directory.
//
// The error names the file and the key (a user or header name included) but never quotes a
// value from the file: a password hash or an inline private key must not reach a terminal, a
// CI log or a bug report. Safe for concurrent use; the WebConfig is the caller's.
func LoadWebConfig(path string) (*WebConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("web config: %w", err)
	}
	c, err := parseWebConfig(b, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("web config %s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// CheckWebConfig is LoadWebConfig followed by loading the certificate, key and client CAs, as
// the sink does when it starts, so that `evalstream validate` refuses what the sink would.
// Errors are as LoadWebConfig's. Safe for concurrent use.
func CheckWebConfig(path string) (*WebConfig, error) {
	c, err := LoadWebConfig(path)
	if err != nil {
		return nil, err
	}
	if _, err := c.ServerTLSConfig(); err != nil {
		return nil, err
	}
	return c, nil
}

func parseWebConfig(b []byte, dir string) (*WebConfig, error) {
	var f webFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document (the file holds one mapping)")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err == nil {
		if line := nullKeyLine(&root); line > 0 {
			return nil, fmt.Errorf("line %d: a key that YAML reads as null (null, ~ or nothing): quote it if it is a name", line)
		}
	}
	c := &WebConfig{HTTP2: true, Users: f.Users}
	if c.Users == nil {
		c.Users = map[string]string{}
	}
	users := make([]string, 0, len(c.Users))
	for u := range c.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		if _, err := bcrypt.Cost([]byte(c.Users[u])); err != nil {
			return nil, fmt.Errorf("basic_auth_users: the password of user %q is not a bcrypt hash (the exporter-toolkit stores hashes, not passwords: make one with `htpasswd -nBC 10 %s`)", u, u)
		}
	}
	if f.HTTP != nil {
		if f.HTTP.HTTP2 != nil {
			c.HTTP2 = *f.HTTP.HTTP2
		}
		names := make([]string, 0, len(f.HTTP.Headers))
		for k := range f.HTTP.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			allowed, ok := webHeaders[k]
			if !ok {
				return nil, fmt.Errorf("http_server_config.headers: header %q can not be configured (one of %s)", k, strings.Join(sortedKeys(webHeaders), ", "))
			}
			if allowed != nil && !slices.Contains(allowed, f.HTTP.Headers[k]) {
				return nil, fmt.Errorf("http_server_config.headers.%s: expected one of %s", k, strings.Join(allowed, ", "))
			}
		}
		c.Headers = f.HTTP.Headers
	}
	if r := f.RateLimit; r != nil && r.Interval != "" {
		d, err := time.ParseDuration(r.Interval)
		if err != nil || d < 0 {
			return nil, errors.New(`rate_limit.interval: expected a duration such as "1s" or "500ms" (0 disables the limiter)`)
		}
		if d > 0 && r.Burst < 1 {
			return nil, errors.New("rate_limit.burst: expected a positive number of requests (0 would refuse every request)")
		}
		c.RateInterval, c.RateBurst = d, r.Burst
	}
	if f.TLS != nil {
		t, err := parseWebTLS(f.TLS, dir)
		if err != nil {
			return nil, fmt.Errorf("tls_server_config: %w", err)
		}
		c.TLS = t
		// Go's HTTP/2 server refuses to start without one of these when TLS 1.2 can be
		// negotiated (RFC 7540 9.2.2; TLS 1.3 suites are not configurable).
		if t != nil && c.HTTP2 && t.MinVersion < tls.VersionTLS13 && len(t.CipherSuites) > 0 && !slices.Contains(t.CipherSuites, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) && !slices.Contains(t.CipherSuites, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) {
			return nil, errors.New("tls_server_config.cipher_suites: HTTP/2 (http_server_config.http2, on by default) needs TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 among them")
		}
	}
	return c, nil
}

// nullKeyLine returns the line of the first mapping key under n that YAML reads as null, 0
// when there is none. yaml.v3 drops such an entry from a Go map without a word, so a user or
// header named null or ~ would vanish (and with it, were it the only user, authentication);
// the toolkit (yaml v2) reads it as the name "". Such a file is refused.
func nullKeyLine(n *yaml.Node) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].ShortTag() == "!!null" {
				return n.Content[i].Line
			}
		}
	}
	for _, c := range n.Content {
		if line := nullKeyLine(c); line > 0 {
			return line
		}
	}
	return 0
}

// parseWebTLS resolves tls_server_config; it returns nil when TLS is not enabled, which the
// toolkit decides by the presence of a certificate, key, client CA or client auth type.
func parseWebTLS(f *webFileTLS, dir string) (*WebTLS, error) {
	if f.Cert == "" && f.Key == "" && f.ClientCA == "" && f.CertFile == "" && f.KeyFile == "" && f.ClientCAFile == "" && f.ClientAuthType == "" {
		return nil, nil
	}
	t := &WebTLS{
		Cert: f.Cert, Key: f.Key, ClientCA: f.ClientCA,
		CertFile: joinDir(dir, f.CertFile), KeyFile: joinDir(dir, f.KeyFile), ClientCAFile: joinDir(dir, f.ClientCAFile),
		MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13,
		ClientAllowedSANs: f.ClientAllowedSANs,
	}
	for _, p := range []struct{ inline, file, what string }{{f.Cert, f.CertFile, "cert"}, {f.Key, f.KeyFile, "key"}} {
		if p.inline == "" && p.file == "" {
			return nil, fmt.Errorf("missing one of %s or %s_file", p.what, p.what)
		}
		if p.inline != "" && p.file != "" {
			return nil, fmt.Errorf("both %s and %s_file are set: give one", p.what, p.what)
		}
	}
	if f.ClientCA != "" && f.ClientCAFile != "" {
		return nil, errors.New("both client_ca and client_ca_file are set: give one")
	}
	var ok bool
	if t.ClientAuth, ok = clientAuths[f.ClientAuthType]; !ok {
		names := sortedKeys(clientAuths)[1:] // without "", which sorts first
		return nil, fmt.Errorf("client_auth_type: expected one of %s", strings.Join(names, ", "))
	}
	if (f.ClientCA != "" || f.ClientCAFile != "") && t.ClientAuth == tls.NoClientCert {
		return nil, errors.New("client CA's have been configured without a Client Auth Policy (set client_auth_type, e.g. RequireAndVerifyClientCert)")
	}
	for _, v := range []struct {
		name, key string
		dst       *uint16
	}{{f.MinVersion, "min_version", &t.MinVersion}, {f.MaxVersion, "max_version", &t.MaxVersion}} {
		if v.name == "" {
			continue
		}
		if *v.dst, ok = tlsVersions[v.name]; !ok {
			return nil, fmt.Errorf("%s: expected one of %s", v.key, strings.Join(sortedKeys(tlsVersions), ", "))
		}
	}
	if t.MaxVersion < t.MinVersion {
		return nil, errors.New("max_version is below min_version: no connection could be made")
	}
	for i, name := range f.CipherSuites {
		id, ok := cipherSuite(name)
		if !ok {
			return nil, fmt.Errorf("cipher_suites[%d]: not a cipher suite of crypto/tls.CipherSuites() (the secure ones, by Go name, e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)", i)
		}
		t.CipherSuites = append(t.CipherSuites, id)
	}
	for i, name := range f.CurvePreferences {
		id, ok := tlsCurves[name]
		if !ok {
			return nil, fmt.Errorf("curve_preferences[%d]: expected one of %s", i, strings.Join(sortedKeys(tlsCurves), ", "))
		}
		t.CurvePreferences = append(t.CurvePreferences, id)
	}
	return t, nil
}

func cipherSuite(name string) (uint16, bool) {
	for _, cs := range tls.CipherSuites() {
		if cs.Name == name {
			return cs.ID, true
		}
	}
	return 0, false
}

// joinDir joins a relative path to dir; empty and absolute paths are kept.
func joinDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ServerTLSConfig reads the certificate, key and client CAs (from the files or inline) and
// returns the server's TLS configuration, or nil and no error when TLS is not enabled. Each
// call reads the files again and returns a new tls.Config (the caller's). The error names the
// file and key, never a value or a path from the file. Safe for concurrent use.
func (c *WebConfig) ServerTLSConfig() (*tls.Config, error) {
	t := c.TLS
	if t == nil {
		return nil, nil
	}
	fail := func(err error) (*tls.Config, error) {
		return nil, fmt.Errorf("web config %s: tls_server_config: %w", c.Path, err)
	}
	certPEM, err := readInlineOrFile(t.Cert, t.CertFile, "cert_file")
	if err != nil {
		return fail(err)
	}
	keyPEM, err := readInlineOrFile(t.Key, t.KeyFile, "key_file")
	if err != nil {
		return fail(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fail(fmt.Errorf("failed to load X509KeyPair (the certificate and key): %w", err))
	}
	cfg := &tls.Config{
		Certificates:     []tls.Certificate{cert},
		MinVersion:       t.MinVersion,
		MaxVersion:       t.MaxVersion,
		CipherSuites:     t.CipherSuites,
		CurvePreferences: t.CurvePreferences,
		ClientAuth:       t.ClientAuth,
	}
	if t.ClientCA != "" || t.ClientCAFile != "" {
		caPEM, err := readInlineOrFile(t.ClientCA, t.ClientCAFile, "client_ca_file")
		if err != nil {
			return fail(err)
		}
		cfg.ClientCAs = x509.NewCertPool()
		if !cfg.ClientCAs.AppendCertsFromPEM(caPEM) {
			return fail(errors.New("client CA: no PEM certificate found"))
		}
	}
	if t.ClientAllowedSANs != nil {
		allowed := t.ClientAllowedSANs
		cfg.VerifyPeerCertificate = func(rawCerts [][]byte, _ [][]*x509.Certificate) error {
			return verifyClientSAN(rawCerts, allowed)
		}
	}
	return cfg, nil
}

// readInlineOrFile returns the inline PEM or the content of the file. A failure names the key
// and the system's reason, not the path: the path is a value of the file.
func readInlineOrFile(inline, path, key string) ([]byte, error) {
	if path == "" {
		return []byte(inline), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("failed to read %s (relative paths are relative to the web config's directory): %w", key, err)
	}
	return b, nil
}

// verifyClientSAN accepts the client certificate (the first of rawCerts) when one of its
// subject alternative names is in allowed, as the toolkit's client_allowed_sans does. It is
// called after crypto/tls has verified the chain when client_auth_type asks for verification.
func verifyClientSAN(rawCerts [][]byte, allowed []string) error {
	if len(rawCerts) == 0 {
		return errors.New("client_allowed_sans is set but the client sent no certificate")
	}
	cert, err := x509.ParseCertificate(rawCerts[0])
	if err != nil {
		return fmt.Errorf("client certificate: %w", err)
	}
	sans := slices.Concat(cert.DNSNames, cert.EmailAddresses)
	for _, ip := range cert.IPAddresses {
		sans = append(sans, ip.String())
	}
	for _, u := range cert.URIs {
		sans = append(sans, u.String())
	}
	for _, s := range sans {
		if slices.Contains(allowed, s) {
			return nil
		}
	}
	return errors.New("the client certificate has none of the SANs of client_allowed_sans")
}

// yamlError turns a decoding error into one naming the line and key, with any quoted value
// hidden and without our Go type names.
func yamlError(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = goTypeName().ReplaceAllString(RedactQuoted(m), "")
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return errors.New(RedactQuoted(err.Error()))
}

// goTypeName matches the " in type config.webFileTLS" of yaml's unknown-field errors.
var goTypeName = lazyRegexp(` in type config\.\w+`)

// quoted matches the excerpts that YAML decoders put between backquotes in type errors
// ("cannot unmarshal !!str `hunter2` into ..."), from the first backquote to the last: a
// value may hold backquotes itself, and no other part of such a message has any.
var quoted = lazyRegexp("(?s)`.*`")

// RedactQuoted replaces every backquoted excerpt in a message from a YAML decoder by
// "(value hidden)", so that a secret given in the wrong place is not printed back.
func RedactQuoted(msg string) string {
	return quoted().ReplaceAllLiteralString(msg, "(value hidden)")
}
