package sinks

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evalstream/evalstream/pipeline"
)

// The Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/), written here byte for byte
// as client_golang v1.25.0 wrote it for the same families (testdata/prometheus_exposition.golden
// was captured from it): linking client_golang, its protobuf dependency and the
// exporter-toolkit cost every evalstream process ~2 ms of init, and the sink is used only in
// continuous Kafka mode. Only gauges are written, the only type the sink has. Protobuf is not
// offered: Prometheus accepts the text format from every target.

// expositionContentType is what promhttp sends for the text format, escaping parameter
// included (our names need no escaping).
const expositionContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

const metricValueHelp = "Metric value over all records so far (scope=total) or over the latest closed window (scope=window); per-class values carry index, matrices row and col."

// expo is one exposition being written. Each family's samples are added one after the other,
// never interleaved with another family's (the text format wants a family's lines together),
// so lines go straight to the output.
type expo struct {
	b bytes.Buffer
	// keep, when not nil, names the families to write.
	keep map[string]bool
	// dedupe is set when some label value had to be escaped (see family.add).
	dedupe bool
	// dropped lists the samples left out as duplicates.
	dropped []string
	line    []byte // scratch for a sample's labels
}

// family is one gauge family of an expo.
type family struct {
	e          *expo
	name, help string
	started    bool // HELP and TYPE written
	// seen holds the rendered label sets when deduplicating, so that two samples cannot end
	// up with the same labels.
	seen map[string]bool
}

func (e *expo) family(name, help string) *family {
	f := &family{e: e, name: name, help: help}
	if e.dedupe {
		f.seen = map[string]bool{}
	}
	return f
}

// add appends a gauge sample with labels given as name, value pairs. Label values must be
// UTF-8 in every Prometheus format, and a slice key holds a record's raw bytes: invalid bytes
// are written as \xNN so that the sample is kept. Two keys that differ only there render the
// same; the second is left out and named in dropped rather than making the scrape invalid.
// The family's HELP and TYPE lines come before its first sample, so that a family without
// samples is not written (the text format has no empty family).
func (f *family) add(v float64, kv ...string) {
	e := f.e
	if e.keep != nil && !e.keep[f.name] {
		return
	}
	l := e.line[:0]
	for i := 0; i+1 < len(kv); i += 2 {
		if i == 0 {
			l = append(l, '{')
		} else {
			l = append(l, ',')
		}
		val := kv[i+1]
		if !utf8.ValidString(val) {
			val = escapeInvalidUTF8(val)
		}
		l = append(l, kv[i]...)
		l = append(l, '=', '"')
		l = appendEscaped(l, val, true)
		l = append(l, '"')
	}
	if len(kv) > 0 {
		l = append(l, '}')
	}
	e.line = l
	if f.seen != nil {
		if f.seen[string(l)] {
			e.dropped = append(e.dropped, f.name+quotedLabels(kv))
			return
		}
		f.seen[string(l)] = true
	}
	if !f.started {
		f.started = true
		e.b.WriteString("# HELP ")
		e.b.WriteString(f.name)
		e.b.WriteByte(' ')
		e.b.Write(appendEscaped(nil, f.help, false))
		e.b.WriteString("\n# TYPE ")
		e.b.WriteString(f.name)
		e.b.WriteString(" gauge\n")
	}
	e.b.WriteString(f.name)
	e.b.Write(l)
	e.b.WriteByte(' ')
	writeFloat(&e.b, v)
	e.b.WriteByte('\n')
}

// appendEscaped appends s escaped as the text format escapes label values (quote set: \, "
// and newline) or HELP text (\ and newline).
func appendEscaped(dst []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '"' && quote:
			dst = append(dst, '\\', '"')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// writeFloat writes v as the text format spells it: NaN, +Inf, -Inf, 0 for both zeros, else
// the shortest decimal that reads back as v.
func writeFloat(b *bytes.Buffer, v float64) {
	switch {
	case v == 0:
		b.WriteByte('0')
	case math.IsNaN(v):
		b.WriteString("NaN")
	case math.IsInf(v, 1):
		b.WriteString("+Inf")
	case math.IsInf(v, -1):
		b.WriteString("-Inf")
	default:
		var num [32]byte
		b.Write(strconv.AppendFloat(num[:0], v, 'g', -1, 64))
	}
}

// quotedLabels renders labels for a log line, values Go-quoted after escaping invalid UTF-8.
func quotedLabels(kv []string) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		val := kv[i+1]
		if !utf8.ValidString(val) {
			val = escapeInvalidUTF8(val)
		}
		parts = append(parts, fmt.Sprintf("%s=%q", kv[i], val))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// exposition renders the current families under p.mu, so that total, window and rate are
// from the same emission; keep, when not nil, names the families to write (the name[] query
// parameter promhttp honours). Families without samples are left out (the text format has no
// empty family). The returned bytes are the caller's. The error, if any, names samples left
// out (see family.add); the text is served all the same.
func (p *Prometheus) exposition(keep map[string]bool) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	scopes := []struct {
		name string
		r    *pipeline.Results
	}{{"total", p.total}, {"window", p.window}}
	dedupe := false
	for _, sc := range scopes {
		if sc.r == nil {
			continue
		}
		for _, s := range sc.r.Slices {
			dedupe = dedupe || !utf8.ValidString(s.Key)
		}
		for k := range sc.r.Errors {
			dedupe = dedupe || !utf8.ValidString(k)
		}
	}
	for k := range p.lag {
		dedupe = dedupe || !utf8.ValidString(k)
	}
	e := &expo{keep: keep, dedupe: dedupe}
	e.b.Grow(p.lastSize)
	fam := e.family

	values := fam("evalstream_metric_value", metricValueHelp)
	records := fam("evalstream_records", "Records scored, over all records so far (scope=total) or in the latest closed window (scope=window).")
	for _, sc := range scopes {
		if sc.r == nil {
			continue
		}
		addValues(values, sc.name, "", sc.r.Metrics)
		for _, s := range sc.r.Slices {
			addValues(values, sc.name, s.Key, s.Metrics)
		}
	}
	for _, sc := range scopes {
		if sc.r == nil {
			continue
		}
		records.add(float64(sc.r.Records), "scope", sc.name, "slice", "")
		for _, s := range sc.r.Slices {
			records.add(float64(s.Records), "scope", sc.name, "slice", s.Key)
		}
	}
	if p.total != nil {
		bad := fam("evalstream_bad_records", "Bad records (rejected, late or undecodable) so far, by reason.")
		bad.add(float64(p.total.Skipped), "reason", "all")
		reasons := make([]string, 0, len(p.total.Errors))
		for k := range p.total.Errors {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		for _, k := range reasons {
			bad.add(float64(p.total.Errors[k]), "reason", k)
		}
		rate := fam("evalstream_records_per_second", "Records (scored and bad) per second between the last two emissions.")
		rate.add(p.rate)
	}
	if p.window != nil {
		start := fam("evalstream_window_start_seconds", "Start of the latest closed window (Unix seconds).")
		start.add(float64(p.window.Window.Start.UnixNano()) / 1e9)
		end := fam("evalstream_window_end_seconds", "End of the latest closed window (Unix seconds).")
		end.add(float64(p.window.Window.End.UnixNano()) / 1e9)
	}
	if len(p.lag) > 0 {
		lag := fam("evalstream_consumer_lag", "Messages between the broker's end offset and the offset covered by the partition's latest durable snapshot.")
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
			lag.add(float64(p.lag[k]), "topic", topic, "partition", part)
		}
	}
	if !p.lastEmit.IsZero() {
		last := fam("evalstream_last_emit_timestamp_seconds", "When results were last emitted (Unix seconds).")
		last.add(float64(p.lastEmit.UnixNano()) / 1e9)
	}
	p.lastSize = e.b.Len()
	if len(e.dropped) > 0 {
		return e.b.Bytes(), fmt.Errorf("left out %d sample(s) whose labels, after escaping invalid UTF-8, repeat another's: %s", len(e.dropped), strings.Join(e.dropped, ", "))
	}
	return e.b.Bytes(), nil
}

func addValues(f *family, scope, slice string, ms []pipeline.MetricResult) {
	for _, m := range ms {
		v := reflect.ValueOf(m.Value)
		switch {
		case m.Value == nil:
			continue
		case v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32:
			f.add(v.Float(), "scope", scope, "metric", m.Name, "type", m.Type, "slice", slice)
		case v.Kind() == reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				e := v.Index(i)
				if e.Kind() == reflect.Slice {
					for j := 0; j < e.Len(); j++ {
						if x, ok := asFloat(e.Index(j)); ok {
							f.add(x, "scope", scope, "metric", m.Name, "type", m.Type, "slice", slice, "row", strconv.Itoa(i), "col", strconv.Itoa(j))
						}
					}
					continue
				}
				if x, ok := asFloat(e); ok {
					f.add(x, "scope", scope, "metric", m.Name, "type", m.Type, "slice", slice, "index", strconv.Itoa(i))
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

// serveMetrics answers a scrape with the text format, gzip-compressed when the scraper
// prefers it (Prometheus sends Accept-Encoding: gzip), as promhttp did.
func (p *Prometheus) serveMetrics(w http.ResponseWriter, r *http.Request) {
	var keep map[string]bool
	if names := r.URL.Query()["name[]"]; len(names) > 0 {
		keep = make(map[string]bool, len(names))
		for _, n := range names {
			keep[n] = true
		}
	}
	body, err := p.exposition(keep)
	if err != nil {
		// A sample left out costs that sample, not the scrape.
		p.errLog.Println("error gathering metrics:", err)
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", expositionContentType)
	if !prefersGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // a scraper that went away is not our error
		return
	}
	h.Set("Content-Encoding", "gzip")
	gz := gzipPool.Get().(*gzip.Writer)
	gz.Reset(w)
	_, _ = gz.Write(body)
	_ = gz.Close()
	gzipPool.Put(gz)
}

var gzipPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// prefersGzip negotiates the content coding as promhttp (gddo's NegotiateContentEncoding)
// did between identity and gzip: gzip only when some entry naming it (or "*") has a higher
// quality than every entry naming identity (or "*"), and that quality is not 0.
func prefersGzip(accept []string) bool {
	identityQ, gzipQ := -1.0, -1.0
	for _, line := range accept {
		for _, spec := range strings.Split(line, ",") {
			name, params, _ := strings.Cut(spec, ";")
			name = strings.TrimSpace(name)
			q := 1.0
			if params = strings.TrimSpace(params); params != "" {
				v, ok := strings.CutPrefix(params, "q=")
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if !ok || err != nil || f < 0 || f > 1 {
					continue
				}
				q = f
			}
			if name == "identity" || name == "*" {
				identityQ = max(identityQ, q)
			}
			if name == "gzip" || name == "*" {
				gzipQ = max(gzipQ, q)
			}
		}
	}
	return gzipQ > identityQ && gzipQ > 0
}
