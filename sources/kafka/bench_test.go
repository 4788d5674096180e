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
