package jsonl

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

func benchLines(n int) [][]byte { return valtest.BenchLines(n) }

func BenchmarkJSONLDecode(b *testing.B) {
	lines := benchLines(4096)
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	fields := []string{"prediction", "references", "label"}
	d := newJSONDecoder(fields)
	out := make([]core.Value, len(fields))
	b.SetBytes(size / int64(len(lines)))
	b.ReportAllocs()
	b.ResetTimer()
	var ar fileread.Arena
	for i := 0; i < b.N; i++ {
		if i%4096 == 0 {
			ar = fileread.Arena{} // a fresh batch
		}
		if _, rerr := d.decode(lines[i%len(lines)], out, &ar); rerr != nil {
			b.Fatal(rerr)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkJSONLDecodeEncodingJSON is the baseline: encoding/json into a map.
func BenchmarkJSONLDecodeEncodingJSON(b *testing.B) {
	lines := benchLines(4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(lines[i%len(lines)]))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			b.Fatal(err)
		}
		_ = core.FromJSON(m["prediction"])
		_ = core.FromJSON(m["references"])
		_ = core.FromJSON(m["label"])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
