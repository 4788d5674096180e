package sinks

import (
	"bytes"
	"context"
	"flag"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenFeed writes results that exercise every family and every escaping rule: several
// slices in both scopes, bad-record reasons needing escapes, invalid UTF-8 (and a key that
// collides with its escaped form), special floats, per-class values of several element
// types, and lag for odd topic names.
func goldenFeed(t *testing.T, p *Prometheus) {
	t.Helper()
	now := time.Unix(1700000000, 250_000_000)
	p.mu.Lock()
	p.now = func() time.Time { return now }
	p.mu.Unlock()
	metrics := func(scale float64) []pipeline.MetricResult {
		return []pipeline.MetricResult{
			{Name: "bleu", Type: "bleu", Result: core.Result{Value: 0.1 * scale}},
			{Name: "big", Type: "regress", Result: core.Result{Value: 1.7976931348623157e308}},
			{Name: "tiny", Type: "regress", Result: core.Result{Value: 5e-324}},
			{Name: "third", Type: "regress", Result: core.Result{Value: 1.0 / 3}},
			{Name: "int_like", Type: "regress", Result: core.Result{Value: 1e21}},
			{Name: "neg_zero", Type: "regress", Result: core.Result{Value: math.Copysign(0, -1)}},
			{Name: "minus_one", Type: "regress", Result: core.Result{Value: -1.0}},
			{Name: "pinf", Type: "perplexity", Result: core.Result{Value: math.Inf(1)}},
			{Name: "ninf", Type: "regress", Result: core.Result{Value: math.Inf(-1)}},
			{Name: "nan", Type: "regress", Result: core.Result{Value: math.NaN()}},
			{Name: "f32", Type: "regress", Result: core.Result{Value: float32(0.1)}},
			{Name: "null", Type: "perplexity", Result: core.Undefined("no records", nil)},
			{Name: "an int", Type: "count", Result: core.Result{Value: 7}},
			{Name: "label", Type: "majority", Result: core.Result{Value: "cat"}},
			{Name: "f1", Type: "f1", Result: core.Result{Value: []float64{0.5, math.NaN(), 1, 2.5e-7}}},
			{Name: "ints", Type: "support", Result: core.Result{Value: []int{3, 0, 12}}},
			{Name: "mixed", Type: "per_class", Result: core.Result{Value: []any{1, 0.25, "x", nil, int64(9)}}},
			{Name: "cm", Type: "confusion_matrix", Result: core.Result{Value: [][]float64{{1, 0}, {2, 3e9}}}},
			{Name: "cmi", Type: "confusion_matrix", Result: core.Result{Value: [][]int64{{4, 5}, {6, 7}}}},
			{Name: "by_name", Type: "per_class", Result: core.Result{Value: map[string]float64{"a": 1}}},
			{Name: "weird \"name\"\\\n", Type: "bleu", Result: core.Result{Value: 0.75}},
		}
	}
	total := func(records int64) *pipeline.Results {
		return &pipeline.Results{
			Records: records, Skipped: 4,
			Errors: map[string]int64{
				"late record": 1, "invalid json": 1, "reason \"quoted\" \\ back\nslash": 1, "bad \xfe byte": 1,
			},
			Metrics: metrics(1),
			Slices: []pipeline.SliceResult{
				{Key: `model="a"\b`, Records: 3, Metrics: metrics(2)[:3]},
				{Key: "lang=d\xffe", Records: 7, Metrics: metrics(3)[:1]},
				{Key: `lang=d\xffe`, Records: 8, Metrics: metrics(4)[:1]},
				{Key: "multi\nline", Records: 1},
				{Key: "k=", Records: 2, Metrics: metrics(5)[14:15]},
				{Key: "ünïcödé=日本", Records: 4, Metrics: metrics(6)[:1]},
			},
		}
	}
	ctx := context.Background()
	require.NoError(t, p.Write(ctx, total(10)))
	now = now.Add(3 * time.Second)
	require.NoError(t, p.Write(ctx, total(37)))
	start := time.Date(2024, 5, 1, 10, 0, 0, 123_000_000, time.UTC)
	w := total(9)
	w.Window = &pipeline.WindowSpan{Start: start, End: start.Add(time.Minute)}
	w.Slices = w.Slices[:2]
	require.NoError(t, p.Write(ctx, w))
	p.SetLag(map[string]int64{"topic-a/0": 5, "topic-a/1": 0, "name/with/slashes/12": 1 << 53, "nopartition": 3, "t\xff/0": 2, "q\"t/1": 9})
}

// TestPrometheusExpositionGolden requires the scrape to be byte for byte the committed
// golden, which was first written by client_golang's text encoder (v1.25.0, expfmt v0.73.1)
// serving the same results, so that dropping the library changed nothing a scraper sees; and
// the body to survive a round trip through expfmt's parser and encoder unchanged.
func TestPrometheusExpositionGolden(t *testing.T) {
	var logs syncBuffer
	p, err := NewPrometheus("127.0.0.1:0", "", &logs)
	require.NoError(t, err)
	defer p.Close()
	goldenFeed(t, p)
	code, h, body := scrape(t, http.DefaultClient, p.URL(), "", "")
	require.Equal(t, http.StatusOK, code)
	got := "Content-Type: " + h.Get("Content-Type") + "\n\n" + body
	path := filepath.Join("testdata", "prometheus_exposition.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
	require.Equal(t, body, reencode(t, body), "the text as Prometheus's parser reads it and its encoder writes it back")
	require.NoError(t, p.Close())
	// One log line for the scrape, naming every sample left out.
	require.Equal(t, 1, bytes.Count([]byte(logs.String()), []byte("\n")), logs.String())
	require.Contains(t, logs.String(), `error gathering metrics: left out 2 sample(s) whose labels, after escaping invalid UTF-8, repeat another's: `+
		`evalstream_metric_value{scope="total",metric="bleu",type="bleu",slice="lang=d\\xffe"}, evalstream_records{scope="total",slice="lang=d\\xffe"}`+"\n")
}

// reencode parses an exposition with the Prometheus text parser and writes it back with
// expfmt's text encoder (the one client_golang serves with), families in their order in body.
func reencode(t *testing.T, body string) string {
	t.Helper()
	fams := parseExposition(t, body)
	var out bytes.Buffer
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, _, _ = strings.Cut(name, " ")
			_, err := expfmt.MetricFamilyToText(&out, fams[name])
			require.NoError(t, err)
		}
	}
	return out.String()
}
