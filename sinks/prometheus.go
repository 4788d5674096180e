package sinks

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
)

// Prometheus serves the latest results on an HTTP /metrics endpoint in the Prometheus text
// format (see promtext.go): metric values over all records so far (scope="total") and over the
// latest closed window (scope="window"), per slice; record counts, bad records by reason,
// records per second and consumer lag per partition.
//
// TLS and basic auth come from an exporter-toolkit web config file, as for every Prometheus
// exporter (config.WebConfig); the file is re-read on each connection and request, so
// certificates and users can be rotated without a restart.
//
// Write and SetLag may be called from one goroutine while HTTP requests read concurrently;
// all methods are safe for concurrent use.
type Prometheus struct {
	ln       net.Listener
	srv      *http.Server
	scheme   string
	errLog   *log.Logger
	done     chan struct{}
	serveErr error // set before done is closed
	now      func() time.Time

	mu       sync.Mutex
	total    *pipeline.Results
	window   *pipeline.Results
	rate     float64
	lastRecs int64
	lastAt   time.Time
	lastEmit time.Time
	lag      map[string]int64
	lastSize int // bytes of the last exposition: the next one's buffer starts that large
}

// NewPrometheus listens on addr ("127.0.0.1:9464", ":9464", "127.0.0.1:0") and serves
// /metrics until Close. webConfig is an exporter-toolkit web config file (TLS, basic auth) or
// empty for plain HTTP without authentication; it is checked before listening, so a bad file
// is an error here rather than a server that refuses every scrape. Problems met while serving
// (TLS handshakes, a web config that stopped parsing) are logged to logw, never with a value
// from the web config.
func NewPrometheus(addr, webConfig string, logw io.Writer) (*Prometheus, error) {
	var wc *config.WebConfig
	var tlsConfig *tls.Config
	if webConfig != "" {
		var err error
		if wc, err = config.LoadWebConfig(webConfig); err == nil {
			tlsConfig, err = wc.ServerTLSConfig()
		}
		if err != nil {
			return nil, fmt.Errorf("prometheus sink: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("prometheus sink: listen on %s: %w", addr, err)
	}
	errLog := log.New(logw, "evalstream: prometheus sink: ", 0)
	p := &Prometheus{ln: ln, scheme: "http", errLog: errLog, done: make(chan struct{}), now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", p.serveMetrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "evalstream: metrics at /metrics")
	})
	var handler http.Handler = mux
	if wc != nil {
		handler = newWebGuard(wc, mux, errLog)
	}
	p.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errLog}
	if tlsConfig != nil {
		p.scheme = "https"
		// As the toolkit: TLS and HTTP/2 are decided here; everything else is read again
		// for each connection.
		http2 := wc.HTTP2
		if !http2 {
			p.srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
		}
		srv := p.srv
		tlsConfig.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			c, err := config.LoadWebConfig(webConfig)
			if err != nil {
				return nil, err
			}
			cfg, err := c.ServerTLSConfig()
			if err == nil && cfg == nil {
				err = fmt.Errorf("web config %s: tls_server_config no longer enables TLS (restart to serve plain HTTP)", webConfig)
			}
			if err != nil {
				return nil, err
			}
			// ServeTLS registered the HTTP/2 handler before accepting this connection, unless
			// http2 is off here or by GODEBUG=http2server=0.
			cfg.NextProtos = []string{"http/1.1"}
			if http2 && srv.TLSNextProto["h2"] != nil {
				cfg.NextProtos = []string{"h2", "http/1.1"}
			}
			return cfg, nil
		}
		p.srv.TLSConfig = tlsConfig
	}
	go func() {
		defer close(p.done)
		var err error
		if p.srv.TLSConfig != nil {
			err = p.srv.ServeTLS(ln, "", "")
		} else {
			err = p.srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			// ServeTLS can fail before it accepts; closed, the port refuses rather than hangs.
			_ = ln.Close()
			p.serveErr = fmt.Errorf("prometheus sink: serve on %s: %w", ln.Addr(), err)
			errLog.Printf("stopped serving: %v", err)
		}
	}()
	return p, nil
}

// Addr returns the address the endpoint listens on.
func (p *Prometheus) Addr() string { return p.ln.Addr().String() }

// URL returns the metrics URL: https when the web config enables TLS.
func (p *Prometheus) URL() string { return p.scheme + "://" + p.Addr() + "/metrics" }

// Write records r: per-window results (r.Window set) replace the window scope, others the
// total scope and update records per second.
func (p *Prometheus) Write(_ context.Context, r *pipeline.Results) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.lastEmit = now
	if r.Window != nil {
		if p.window == nil || !r.Window.Start.Before(p.window.Window.Start) {
			p.window = r
		}
		return nil
	}
	if !p.lastAt.IsZero() {
		if dt := now.Sub(p.lastAt).Seconds(); dt > 0 {
			p.rate = float64(r.Records+r.Skipped-p.lastRecs) / dt
		}
	}
	p.lastRecs, p.lastAt = r.Records+r.Skipped, now
	p.total = r
	return nil
}

// SetLag records the consumer lag per "topic/partition".
func (p *Prometheus) SetLag(lag map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lag = lag
}

// Close stops the HTTP server. It returns the error that stopped serving early, if one did
// (it was also logged when it happened).
func (p *Prometheus) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	<-p.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err == nil {
		err = p.serveErr
	}
	return err
}

// webGuard applies a web config to each request as the exporter-toolkit does: it reads the
// file again (a file that stopped parsing answers 500 and is logged), applies the rate
// limit, sets the configured headers and, when the file lists users, requires basic auth.
// Safe for concurrent use.
type webGuard struct {
	path    string
	next    http.Handler
	limiter *rate.Limiter // from the file as it was at start, as with the toolkit; nil: none
	log     *log.Logger

	// bcryptMu runs one bcrypt comparison at a time, as the toolkit does: each costs tens of
	// milliseconds of CPU by design.
	bcryptMu sync.Mutex
	mu       sync.Mutex
	// checked caches the outcome of a comparison by a SHA-256 of user, hash and password, so
	// that a scraper does not pay bcrypt on every scrape and no password is kept in memory.
	checked map[[sha256.Size]byte]bool
}

// authCacheSize bounds the cache of checked credentials; when full it is emptied, which
// costs the next scrape of each scraper one bcrypt comparison.
const authCacheSize = 100

// fakeHash is compared against when the user is unknown, so that the time of a refusal does
// not tell whether the user exists. It is the toolkit's (cost 10, of "fakepassword").
const fakeHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"

func newWebGuard(c *config.WebConfig, next http.Handler, errLog *log.Logger) *webGuard {
	g := &webGuard{path: c.Path, next: next, log: errLog, checked: map[[sha256.Size]byte]bool{}}
	if c.RateInterval > 0 {
		g.limiter = rate.NewLimiter(rate.Every(c.RateInterval), c.RateBurst)
	}
	return g
}

func (g *webGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := config.LoadWebConfig(g.path)
	if err != nil {
		g.log.Printf("unable to read the web config: %v", err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	if g.limiter != nil && !g.limiter.Allow() {
		http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		return
	}
	for k, v := range c.Headers {
		w.Header().Set(k, v)
	}
	if len(c.Users) == 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	if user, pass, ok := r.BasicAuth(); ok && g.authorized(c.Users, user, pass) {
		g.next.ServeHTTP(w, r)
		return
	}
	w.Header().Set("WWW-Authenticate", "Basic")
	http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
}

// authorized reports whether pass is the password of user in users (user → bcrypt hash).
func (g *webGuard) authorized(users map[string]string, user, pass string) bool {
	hash, known := users[user]
	if !known {
		hash = fakeHash
	}
	// Hex keeps the three parts apart: no part can contain the separator.
	key := sha256.Sum256([]byte(hex.EncodeToString([]byte(user)) + ":" + hex.EncodeToString([]byte(hash)) + ":" + hex.EncodeToString([]byte(pass))))
	g.mu.Lock()
	ok, cached := g.checked[key]
	g.mu.Unlock()
	if !cached {
		g.bcryptMu.Lock()
		ok = bcrypt.CompareHashAndPassword([]byte(hash), []byte(pass)) == nil // constant-time compare inside
		g.bcryptMu.Unlock()
		g.mu.Lock()
		if len(g.checked) >= authCacheSize {
			clear(g.checked)
		}
		g.checked[key] = ok
		g.mu.Unlock()
	}
	return ok && known
}
