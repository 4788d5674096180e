package sinks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalstream/evalstream/pipeline"
)

// Prometheus serves the latest results on an HTTP /metrics endpoint in the Prometheus text
// exposition format (version 0.0.4): metric values over all records so far
// (scope="total") and over the latest closed window (scope="window"), per slice; record
// counts, bad records by reason, records per second and consumer lag per partition.
//
// Write and SetLag may be called from one goroutine while HTTP requests read concurrently;
// all methods are safe for concurrent use.
type Prometheus struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
	now  func() time.Time

	mu       sync.Mutex
	total    *pipeline.Results
	window   *pipeline.Results
	rate     float64
	lastRecs int64
	lastAt   time.Time
	lastEmit time.Time
	lag      map[string]int64
}

// NewPrometheus listens on addr (":9464", "127.0.0.1:0") and serves /metrics until Close.
func NewPrometheus(addr string) (*Prometheus, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("prometheus sink: listen on %s: %w", addr, err)
	}
	p := &Prometheus{ln: ln, done: make(chan struct{}), now: time.Now}
	mux := http.NewServeMux()
	mux.Handle("/metrics", p)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "evalstream: metrics at /metrics")
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// Addr returns the address the endpoint listens on.
func (p *Prometheus) Addr() string { return p.ln.Addr().String() }

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
	return err
}

// ServeHTTP writes the exposition.
func (p *Prometheus) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(p.Exposition()))
}

// Exposition renders the current state in the text format.
func (p *Prometheus) Exposition() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	family := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	family("evalstream_metric_value", "gauge", "Metric value over all records so far (scope=total) or over the latest closed window (scope=window); per-class values carry index, matrices row and col.")
	for _, sc := range []struct {
		name string
		r    *pipeline.Results
	}{{"total", p.total}, {"window", p.window}} {
		if sc.r == nil {
			continue
		}
		writeValues(&b, sc.name, "", sc.r.Metrics)
		for _, s := range sc.r.Slices {
			writeValues(&b, sc.name, s.Key, s.Metrics)
		}
	}
	family("evalstream_records", "gauge", "Records scored, over all records so far (scope=total) or in the latest closed window (scope=window).")
	for _, sc := range []struct {
		name string
		r    *pipeline.Results
	}{{"total", p.total}, {"window", p.window}} {
		if sc.r == nil {
			continue
		}
		writeSample(&b, "evalstream_records", labels("scope", sc.name, "slice", ""), float64(sc.r.Records))
		for _, s := range sc.r.Slices {
			writeSample(&b, "evalstream_records", labels("scope", sc.name, "slice", s.Key), float64(s.Records))
		}
	}
	if p.total != nil {
		family("evalstream_bad_records", "gauge", "Bad records (rejected, late or undecodable) so far, by reason.")
		writeSample(&b, "evalstream_bad_records", labels("reason", "all"), float64(p.total.Skipped))
		reasons := make([]string, 0, len(p.total.Errors))
		for k := range p.total.Errors {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		for _, k := range reasons {
			writeSample(&b, "evalstream_bad_records", labels("reason", k), float64(p.total.Errors[k]))
		}
		family("evalstream_records_per_second", "gauge", "Records (scored and bad) per second between the last two emissions.")
		writeSample(&b, "evalstream_records_per_second", "", p.rate)
	}
	if p.window != nil {
		family("evalstream_window_start_seconds", "gauge", "Start of the latest closed window (Unix seconds).")
		writeSample(&b, "evalstream_window_start_seconds", "", float64(p.window.Window.Start.UnixNano())/1e9)
		family("evalstream_window_end_seconds", "gauge", "End of the latest closed window (Unix seconds).")
		writeSample(&b, "evalstream_window_end_seconds", "", float64(p.window.Window.End.UnixNano())/1e9)
	}
	if len(p.lag) > 0 {
		family("evalstream_consumer_lag", "gauge", "Messages between the broker's end offset and the offset covered by the partition's latest durable snapshot.")
		keys := make([]string, 0, len(p.lag))
		for k := range p.lag {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			topic, part := k, ""
			if i := strings.LastIndexByte(k, '/'); i >= 0 {
				topic, part = k[:i], k[i+1:]
			}
			writeSample(&b, "evalstream_consumer_lag", labels("topic", topic, "partition", part), float64(p.lag[k]))
		}
	}
	if !p.lastEmit.IsZero() {
		family("evalstream_last_emit_timestamp_seconds", "gauge", "When results were last emitted (Unix seconds).")
		writeSample(&b, "evalstream_last_emit_timestamp_seconds", "", float64(p.lastEmit.UnixNano())/1e9)
	}
	return b.String()
}

func writeValues(b *strings.Builder, scope, slice string, ms []pipeline.MetricResult) {
	for _, m := range ms {
		base := []string{"scope", scope, "metric", m.Name, "type", m.Type, "slice", slice}
		v := reflect.ValueOf(m.Value)
		switch {
		case m.Value == nil:
			continue
		case v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32:
			writeSample(b, "evalstream_metric_value", labels(base...), v.Float())
		case v.Kind() == reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				e := v.Index(i)
				if e.Kind() == reflect.Slice {
					for j := 0; j < e.Len(); j++ {
						if f, ok := asFloat(e.Index(j)); ok {
							writeSample(b, "evalstream_metric_value", labels(append(base, "row", strconv.Itoa(i), "col", strconv.Itoa(j))...), f)
						}
					}
					continue
				}
				if f, ok := asFloat(e); ok {
					writeSample(b, "evalstream_metric_value", labels(append(base, "index", strconv.Itoa(i))...), f)
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

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// labels renders name/value pairs as {a="x",b="y"}.
func labels(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(kv[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func writeSample(b *strings.Builder, name, lbls string, v float64) {
	b.WriteString(name)
	b.WriteString(lbls)
	b.WriteByte(' ')
	switch {
	case math.IsNaN(v):
		b.WriteString("NaN")
	case math.IsInf(v, 1):
		b.WriteString("+Inf")
	case math.IsInf(v, -1):
		b.WriteString("-Inf")
	default:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte('\n')
}
