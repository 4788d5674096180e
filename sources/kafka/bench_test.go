package kafka

import (
	"testing"

	kafkago "github.com/segmentio/kafka-go"
)

func BenchmarkDecodeJSON(b *testing.B) {
	d := NewDecoder("json", []string{"prediction", "references", "header.model"}, 1<<20)
	m := &kafkago.Message{Topic: "t", Partition: 1, Offset: 5, Headers: []kafkago.Header{{Key: "model", Value: []byte("m")}},
		Value: []byte(`{"id": "x-1", "system": "sys", "prediction": "Ein 28-jähriger Koch, der vor kurzem nach San Francisco umgezogen war", "references": ["Ein 28-jähriger Koch, der vor kurzem nach San Francisco gezogen ist"]}`)}
	b.ReportAllocs()
	b.SetBytes(int64(len(m.Value)))
	for i := 0; i < b.N; i++ {
		if recs := d.Decode(m); recs[0].Err != nil {
			b.Fatal(recs[0].Err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkDecodeJSONReuse decodes as the consumer does: Reset after each message, so the
// decoder's memory is reused.
func BenchmarkDecodeJSONReuse(b *testing.B) {
	for _, c := range []struct{ name, value string }{
		{"text", `{"id": "x-1", "system": "sys", "prediction": "Ein 28-jähriger Koch, der vor kurzem nach San Francisco umgezogen war", "references": ["Ein 28-jähriger Koch, der vor kurzem nach San Francisco gezogen ist"]}`},
		{"classification", `{"label":3,"prediction":1}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := NewDecoder("json", []string{"prediction", "references", "label"}, 1<<20)
			m := &kafkago.Message{Topic: "t", Partition: 1, Offset: 5, Value: []byte(c.value)}
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Value)))
			for i := 0; i < b.N; i++ {
				if recs := d.Decode(m); recs[0].Err != nil {
					b.Fatal(recs[0].Err)
				}
				d.Reset()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
