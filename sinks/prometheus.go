package sinks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
)

// Prometheus serves the latest results on an HTTP /metrics endpoint, encoded by client_golang
// (the text format, or protobuf when the scraper asks for it): metric values over all records
// so far (scope="total") and over the latest closed window (scope="window"), per slice; record
// counts, bad records by reason, records per second and consumer lag per partition.
//
// TLS and basic auth come from an exporter-toolkit web config file, as for every Prometheus
// exporter; the file is re-read on each connection and request, so certificates and users can
// be rotated without a restart.
//
// Write and SetLag may be called from one goroutine while HTTP requests read concurrently;
// all methods are safe for concurrent use.
type Prometheus struct {
	ln       net.Listener
	srv      *http.Server
	scheme   string
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
}

// NewPrometheus listens on addr ("127.0.0.1:9464", ":9464", "127.0.0.1:0") and serves
// /metrics until Close. webConfig is an exporter-toolkit web config file (TLS, basic auth) or
// empty for plain HTTP without authentication; it is checked before listening, so a bad file
// is an error here rather than a server that refuses every scrape. Problems met while serving
// (TLS handshakes, a web config that stopped parsing) are logged to logw, never with a value
// from the web config.
func NewPrometheus(addr, webConfig string, logw io.Writer) (*Prometheus, error) {
	scheme := "http"
	if webConfig != "" {
		c, err := config.CheckWebConfig(webConfig)
		if err != nil {
			return nil, fmt.Errorf("prometheus sink: %w", err)
		}
		if c.TLSConfig.IsEnabled() {
			scheme = "https"
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("prometheus sink: listen on %s: %w", addr, err)
	}
	p := &Prometheus{ln: ln, scheme: scheme, done: make(chan struct{}), now: time.Now}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{p})
	errLog := log.New(logw, "evalstream: prometheus sink: ", 0)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: errLog,
		// A sample that cannot be encoded (see collect) costs that sample, not the scrape.
		ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "evalstream: metrics at /metrics")
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errLog}
	logger := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{
		// The toolkit logs at Info where it listens and whether TLS is on; the run prints the
		// URL itself (URL), so only warnings and errors are worth a line.
		Level: slog.LevelWarn,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindString {
				a.Value = slog.StringValue(config.RedactQuoted(a.Value.String()))
			}
			return a
		},
	}))
	flags := &web.FlagConfig{WebConfigFile: &webConfig}
	go func() {
		defer close(p.done)
		err := web.Serve(ln, p.srv, flags, logger)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.serveErr = fmt.Errorf("prometheus sink: serve on %s: %s", ln.Addr(), config.RedactQuoted(err.Error()))
			errLog.Printf("stopped serving: %s", config.RedactQuoted(err.Error()))
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

// Close stops the HTTP server.
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

// Gauges of the exposition. evalstream_metric_value has three label sets (scalar, per-class
// index, matrix row and col) in one family, which the text format allows; the collector is
// therefore unchecked (Describe sends nothing) and the registry takes the families as collected.
const metricValueHelp = "Metric value over all records so far (scope=total) or over the latest closed window (scope=window); per-class values carry index, matrices row and col."

var (
	descValue      = prometheus.NewDesc("evalstream_metric_value", metricValueHelp, []string{"scope", "metric", "type", "slice"}, nil)
	descValueIndex = prometheus.NewDesc("evalstream_metric_value", metricValueHelp, []string{"scope", "metric", "type", "slice", "index"}, nil)
	descValueCell  = prometheus.NewDesc("evalstream_metric_value", metricValueHelp, []string{"scope", "metric", "type", "slice", "row", "col"}, nil)
	descRecords    = prometheus.NewDesc("evalstream_records", "Records scored, over all records so far (scope=total) or in the latest closed window (scope=window).", []string{"scope", "slice"}, nil)
	descBad        = prometheus.NewDesc("evalstream_bad_records", "Bad records (rejected, late or undecodable) so far, by reason.", []string{"reason"}, nil)
	descRate       = prometheus.NewDesc("evalstream_records_per_second", "Records (scored and bad) per second between the last two emissions.", nil, nil)
	descWinStart   = prometheus.NewDesc("evalstream_window_start_seconds", "Start of the latest closed window (Unix seconds).", nil, nil)
	descWinEnd     = prometheus.NewDesc("evalstream_window_end_seconds", "End of the latest closed window (Unix seconds).", nil, nil)
	descLag        = prometheus.NewDesc("evalstream_consumer_lag", "Messages between the broker's end offset and the offset covered by the partition's latest durable snapshot.", []string{"topic", "partition"}, nil)
	descLastEmit   = prometheus.NewDesc("evalstream_last_emit_timestamp_seconds", "When results were last emitted (Unix seconds).", nil, nil)
)

// collector hands the sink's state to the registry on each scrape.
type collector struct{ p *Prometheus }

// Describe sends nothing: the collector is unchecked (see descValue).
func (collector) Describe(chan<- *prometheus.Desc) {}

func (c collector) Collect(ch chan<- prometheus.Metric) { c.p.collect(ch) }

// collect sends one gauge per sample. It holds p.mu for the scrape so that total, window and
// rate are from the same emission.
func (p *Prometheus) collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	defer p.mu.Unlock()
	scopes := []struct {
		name string
		r    *pipeline.Results
	}{{"total", p.total}, {"window", p.window}}
	for _, sc := range scopes {
		if sc.r == nil {
			continue
		}
		sendValues(ch, sc.name, "", sc.r.Metrics)
		for _, s := range sc.r.Slices {
			sendValues(ch, sc.name, s.Key, s.Metrics)
		}
	}
	for _, sc := range scopes {
		if sc.r == nil {
			continue
		}
		gauge(ch, descRecords, float64(sc.r.Records), sc.name, "")
		for _, s := range sc.r.Slices {
			gauge(ch, descRecords, float64(s.Records), sc.name, s.Key)
		}
	}
	if p.total != nil {
		gauge(ch, descBad, float64(p.total.Skipped), "all")
		reasons := make([]string, 0, len(p.total.Errors))
		for k := range p.total.Errors {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		for _, k := range reasons {
			gauge(ch, descBad, float64(p.total.Errors[k]), k)
		}
		gauge(ch, descRate, p.rate)
	}
	if p.window != nil {
		gauge(ch, descWinStart, float64(p.window.Window.Start.UnixNano())/1e9)
		gauge(ch, descWinEnd, float64(p.window.Window.End.UnixNano())/1e9)
	}
	for k, v := range p.lag {
		topic, part := k, ""
		if i := strings.LastIndexByte(k, '/'); i >= 0 {
			topic, part = k[:i], k[i+1:]
		}
		gauge(ch, descLag, float64(v), topic, part)
	}
	if !p.lastEmit.IsZero() {
		gauge(ch, descLastEmit, float64(p.lastEmit.UnixNano())/1e9)
	}
}

func sendValues(ch chan<- prometheus.Metric, scope, slice string, ms []pipeline.MetricResult) {
	for _, m := range ms {
		v := reflect.ValueOf(m.Value)
		switch {
		case m.Value == nil:
			continue
		case v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32:
			gauge(ch, descValue, v.Float(), scope, m.Name, m.Type, slice)
		case v.Kind() == reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				e := v.Index(i)
				if e.Kind() == reflect.Slice {
					for j := 0; j < e.Len(); j++ {
						if f, ok := asFloat(e.Index(j)); ok {
							gauge(ch, descValueCell, f, scope, m.Name, m.Type, slice, strconv.Itoa(i), strconv.Itoa(j))
						}
					}
					continue
				}
				if f, ok := asFloat(e); ok {
					gauge(ch, descValueIndex, f, scope, m.Name, m.Type, slice, strconv.Itoa(i))
				}
			}
		}
	}
}

func asFloat(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int()), true
	case reflect.Interface:
		return asFloat(v.Elem())
	}
	return 0, false
}

// gauge sends one sample. Label values must be UTF-8 in every Prometheus format, and a slice
// key holds the record's raw bytes: invalid bytes are written as \xNN so the sample is kept.
// Two keys that differ only there would collide; the registry then keeps the first and the
// handler logs the second (ContinueOnError) rather than failing the scrape.
func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labelValues ...string) {
	for i, lv := range labelValues {
		if !utf8.ValidString(lv) {
			labelValues[i] = escapeInvalidUTF8(lv)
		}
	}
	m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, v, labelValues...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	ch <- m
}

func escapeInvalidUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
