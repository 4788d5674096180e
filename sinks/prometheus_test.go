package sinks

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

func sampleResults(records int64, window *pipeline.WindowSpan) *pipeline.Results {
	return &pipeline.Results{
		Records: records, Skipped: 2, Errors: map[string]int64{"late record": 1, "invalid json": 1},
		Metrics: []pipeline.MetricResult{
			{Name: "bleu", Type: "bleu", Result: core.Result{Value: 0.25}},
			{Name: "f1", Type: "f1", Result: core.Result{Value: []float64{0.5, 1}}},
			{Name: "cm", Type: "confusion_matrix", Result: core.Result{Value: [][]float64{{1, 0}, {2, 3}}}},
			{Name: "ppl", Type: "perplexity", Result: core.Undefined("no records", nil)},
		},
		Slices: []pipeline.SliceResult{{Key: `model="a"\b`, Records: 3, Metrics: []pipeline.MetricResult{{Name: "bleu", Type: "bleu", Result: core.Result{Value: 0.5}}}}},
		Window: window,
	}
}

func TestPrometheusExposition(t *testing.T) {
	p, err := NewPrometheus("127.0.0.1:0")
	require.NoError(t, err)
	defer p.Close()
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	ctx := context.Background()
	require.NoError(t, p.Write(ctx, sampleResults(10, nil)))
	now = now.Add(2 * time.Second)
	require.NoError(t, p.Write(ctx, sampleResults(20, nil)))
	start := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	require.NoError(t, p.Write(ctx, sampleResults(4, &pipeline.WindowSpan{Start: start, End: start.Add(time.Minute)})))
	p.SetLag(map[string]int64{"topic-a/0": 5, "topic-a/1": 0})

	resp, err := http.Get("http://" + p.Addr() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"))
	got := string(body)
	for _, line := range []string{
		`evalstream_metric_value{scope="total",metric="bleu",type="bleu",slice=""} 0.25`,
		`evalstream_metric_value{scope="total",metric="f1",type="f1",slice="",index="1"} 1`,
		`evalstream_metric_value{scope="total",metric="cm",type="confusion_matrix",slice="",row="1",col="0"} 2`,
		`evalstream_metric_value{scope="total",metric="bleu",type="bleu",slice="model=\"a\"\\b"} 0.5`,
		`evalstream_metric_value{scope="window",metric="bleu",type="bleu",slice=""} 0.25`,
		`evalstream_records{scope="total",slice=""} 20`,
		`evalstream_records{scope="window",slice=""} 4`,
		`evalstream_bad_records{reason="all"} 2`,
		`evalstream_bad_records{reason="late record"} 1`,
		`evalstream_records_per_second 5`,
		`evalstream_window_start_seconds 1.7145576e+09`,
		`evalstream_consumer_lag{topic="topic-a",partition="0"} 5`,
		`# TYPE evalstream_metric_value gauge`,
	} {
		require.Contains(t, got, line+"\n")
	}
	require.NotContains(t, got, `metric="ppl"`, "undefined values are not exposed")
	// every sample line is name{labels} value
	for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		require.Regexp(t, `^evalstream_[a-z_]+(\{.*\})? \S+$`, l)
	}
	require.NoError(t, p.Close())
}

func TestKafkaMessages(t *testing.T) {
	start := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	msgs, err := KafkaMessages("run1", sampleResults(10, &pipeline.WindowSpan{Start: start, End: start.Add(time.Minute)}))
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, "run1/2024-05-01T10:00:00Z/*", string(msgs[0].Key))
	require.Equal(t, `run1/2024-05-01T10:00:00Z/model="a"\b`, string(msgs[1].Key))
	require.True(t, strings.HasPrefix(string(msgs[0].Value), `{"run":"run1","slice":null,"records":10,`))
	require.Contains(t, string(msgs[1].Value), `"slice":"model=\"a\"\\b","records":3,`)
	require.Contains(t, string(msgs[1].Value), `"window":{"end":"2024-05-01T10:01:00Z","start":"2024-05-01T10:00:00Z"}`)
	total, err := KafkaMessages("run1", sampleResults(10, nil))
	require.NoError(t, err)
	require.Equal(t, "run1/total/*", string(total[0].Key))
	// Same results, same messages: re-emission is idempotent.
	again, err := KafkaMessages("run1", sampleResults(10, nil))
	require.NoError(t, err)
	require.Equal(t, total, again)
}

func TestDeadLetterLog(t *testing.T) {
	path := t.TempDir() + "/dead/bad.jsonl"
	l := NewDeadLetterLog(path)
	dl := []pipeline.DeadLetter{
		{Pos: pipeline.Position{Topic: "t", Partition: 1, Offset: 5, Row: -1}, Reason: "invalid json", Error: "x", Raw: []byte(`{"a`)},
		{Pos: pipeline.Position{Topic: "t", Partition: 1, Offset: 6, Row: 2}, Reason: "invalid arrow", Error: "y", Raw: []byte{0xff}},
	}
	require.NoError(t, l.Write(context.Background(), dl[:1]))
	require.NoError(t, l.Write(context.Background(), dl[1:]))
	b, err := readAll(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(b), "\n")
	require.Len(t, lines, 2)
	require.Equal(t, `{"error":"x","offset":5,"partition":1,"payload":"{\"a","position":"t/1/5","reason":"invalid json","topic":"t"}`, lines[0])
	require.Contains(t, lines[1], `"payload_base64":"/w=="`)
	require.Contains(t, lines[1], `"row":2`)
}

func readAll(path string) (string, error) {
	b, err := osReadFile(path)
	return string(b), err
}

var osReadFile = func(p string) ([]byte, error) { return os.ReadFile(p) }
