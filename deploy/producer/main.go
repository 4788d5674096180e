// Command producer writes example model outputs to a Kafka topic, for the docker-compose
// demo: machine-translation outputs (prediction, references) and classifier outputs
// (pred_class, label) of a few models, one JSON object per message, with the model in the
// message key and in a "model" header and the event time in "ts". It runs until
// interrupted, or until -n messages are written.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

var sentences = []string{
	"the cat sat on the mat",
	"a quick brown fox jumps over the lazy dog",
	"the weather is nice today",
	"we will meet at the station at noon",
	"the committee approved the new budget",
	"she reads a book in the garden",
	"prices rose sharply in the last quarter",
	"the museum opens again next week",
}

// degrade returns a noisy copy of s: the better the model, the fewer edits.
func degrade(r *rand.Rand, s string, quality float64) string {
	w := strings.Fields(s)
	for i := range w {
		if r.Float64() > quality {
			w[i] = []string{"a", "the", "some", "big", "old", "new"}[r.Intn(6)]
		}
	}
	if r.Float64() > quality && len(w) > 2 {
		w = w[:len(w)-1]
	}
	return strings.Join(w, " ")
}

func main() {
	brokers := flag.String("brokers", "localhost:29092", "comma-separated bootstrap brokers")
	topic := flag.String("topic", "model-outputs", "topic to write")
	rate := flag.Float64("rate", 20, "messages per second")
	n := flag.Int("n", 0, "stop after this many messages (0 = run until interrupted)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := &kafkago.Writer{Addr: kafkago.TCP(strings.Split(*brokers, ",")...), Topic: *topic, Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll, BatchTimeout: 50 * time.Millisecond, AllowAutoTopicCreation: true}
	defer w.Close()

	models := map[string]float64{"model-a": 0.9, "model-b": 0.75, "model-c": 0.6}
	names := []string{"model-a", "model-b", "model-c"}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	tick := time.NewTicker(time.Duration(float64(time.Second) / *rate))
	defer tick.Stop()
	for i := 0; *n == 0 || i < *n; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		model := names[r.Intn(len(names))]
		q := models[model]
		ref := sentences[r.Intn(len(sentences))]
		label := r.Intn(3)
		pred := label
		if r.Float64() > q {
			pred = r.Intn(3)
		}
		// Some outputs arrive a little late, as they do from real model servers.
		ts := time.Now().Add(-time.Duration(r.ExpFloat64()*2) * time.Second)
		v, _ := json.Marshal(map[string]any{
			"ts": ts.UTC().Format(time.RFC3339Nano), "model": model,
			"prediction": degrade(r, ref, q), "references": []string{ref},
			"pred_class": pred, "label": label,
		})
		err := w.WriteMessages(ctx, kafkago.Message{Key: []byte(model), Value: v, Headers: []kafkago.Header{{Key: "model", Value: []byte(model)}}})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Printf("write: %v (retrying)", err)
			time.Sleep(time.Second)
			continue
		}
		if i%100 == 0 {
			fmt.Printf("produced %d messages\n", i+1)
		}
	}
}
