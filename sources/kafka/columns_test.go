package kafka

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// sumProc is a Processor whose state is a canonical function of the records it is given:
// the sums and count of the records whose fields are all non-negative integers, and a log
// of every other record (bad ones with their position, reason and raw value). Negative
// integers stand for records a metric rejects: ProcessColumns refuses a run holding one,
// as FoldColumns does when CheckIntColumns fails.
type sumProc struct {
	sums     []int64
	n        int64
	log      []string
	colCalls int
	colRecs  int64
}

func (p *sumProc) Process(recs []pipeline.Record, m *kafkago.Message) error {
	for _, r := range recs {
		if r.Seq != seqOf(m.Partition, m.Offset) || r.Pos.Offset != m.Offset || r.Pos.Topic != m.Topic {
			return fmt.Errorf("record of %s/%d/%d has position %v", m.Topic, m.Partition, m.Offset, r.Pos)
		}
		if r.Err != nil {
			p.log = append(p.log, fmt.Sprintf("bad %s %s/%s %q", r.Pos, r.Err.Reason, r.Err.Field, r.Raw))
			continue
		}
		ok := true
		for _, v := range r.Values {
			ok = ok && v.Kind == core.Int && v.Int >= 0
		}
		if !ok {
			p.log = append(p.log, fmt.Sprintf("rejected %s %s", r.Pos, strings.Join(canon(r.Values), ",")))
			continue
		}
		for i, v := range r.Values {
			p.sums[i] += v.Int
		}
		p.n++
	}
	return nil
}

func (p *sumProc) Pending() bool                   { return false }
func (p *sumProc) Checkpoint() (Checkpoint, error) { return Checkpoint{}, nil }
func (p *sumProc) Ack()                            {}
func (p *sumProc) Close()                          {}

// colProc is a sumProc that also folds integer columns.
type colProc struct{ sumProc }

func (p *colProc) Columnar() bool { return true }

func (p *colProc) ProcessColumns(c *pipeline.Columns) bool {
	for _, col := range c.Ints {
		if len(col) != c.N {
			panic("column length")
		}
		for _, v := range col {
			if v < 0 {
				return false
			}
		}
	}
	for i, col := range c.Ints {
		for _, v := range col {
			p.sums[i] += v
		}
	}
	p.n += int64(c.N)
	p.colCalls++
	p.colRecs += int64(c.N)
	return true
}

// randomMessages returns n messages of partition 2 from offset 10 (with gaps), mostly
// integer objects, with every kind of value the column path must leave to Decode.
func randomMessages(rng *rand.Rand, n int) []kafkago.Message {
	odd := []string{
		`{"label": "cat", "prediction": 1}`,
		`{"label": 1.5, "prediction": 1}`,
		`{"label": null, "prediction": 1}`,
		`{"prediction": 1}`,
		`{"label": 1, "prediction": 99999999999999999999}`,
		`{"label": 1, "prediction": [1, 2]}`,
		`{"label": {"a": 1}, "prediction": 2}`,
		`{"label": "caf\u00e9 \"x\"", "prediction": 2}`,
		`{"label": 1, "prediction": 2`,
		`[1, 2]`,
		`null`,
		"   ",
		"",
		`{"label": 1, "prediction": 2, "label": 3}`,
		`{"label": -1, "prediction": 2}`,
		`{"label": 1, "prediction": 2, "pad": "` + strings.Repeat("x", 200) + `"}`,
		"{\"label\": \"\xff\", \"prediction\": 2}",
		`{"label": true, "prediction": 0}`,
	}
	var out []kafkago.Message
	off := int64(10)
	for i := 0; i < n; i++ {
		m := kafkago.Message{Topic: "t", Partition: 2, Offset: off, HighWaterMark: 5000}
		switch k := rng.Intn(20); {
		case k < 14:
			m.Value = fmt.Appendf(nil, `{"id": %d, "label": %d, "prediction":%d}`, i, rng.Intn(5), rng.Intn(5))
		case k < 15:
			// a transaction marker (commit), and a marker-like value with another key
			m.Key, m.Value = []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 7}
			if rng.Intn(2) == 0 {
				m.Key = []byte("k")
			}
		case k < 16:
			m.Value = nil
		case k < 17:
			// a record the read_committed fetcher flagged (aborted transaction)
			m.Value, m.WriterData = []byte(`{"label": 1, "prediction": 1}`), skipped
		default:
			m.Value = []byte(odd[rng.Intn(len(odd))])
		}
		out = append(out, m)
		off += 1 + int64(rng.Intn(3)/2) // some offsets are missing (compaction, markers)
	}
	return out
}

// TestFoldColumnsMatchesRecords folds the same messages, in runs of random lengths, through
// the column path, through Process in runs (a ValueProcessor's lean runs) and through Process
// one message at a time: the processor's state, the partition's
// position and every bad record (with its position) must be the same.
func TestFoldColumnsMatchesRecords(t *testing.T) {
	fields := []string{"label", "prediction"}
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		msgs := randomMessages(rng, 1500)
		mode := "bounded"
		if seed%2 == 0 {
			mode = "continuous"
		}
		c := &Consumer{cfg: Config{Mode: mode, Fields: fields, Isolation: ReadUncommitted}}
		target := msgs[len(msgs)*2/3].Offset
		start := msgs[5].Offset

		ref := &sumProc{sums: make([]int64, 2)}
		refPS := &partState{tp: TopicPartition{"t", 2}, proc: ref, next: start}
		refDec := NewDecoder("json", fields, 220)
		for i := range msgs {
			require.NoError(t, c.fold(refPS, msgs[i:i+1], refDec, nil, target))
			if mode == "bounded" && refPS.next >= target {
				break
			}
		}

		// foldRuns folds the messages in runs of random lengths; a run may start before
		// ps.next (a fetch from an earlier offset).
		foldRuns := func(ps *partState, dec *Decoder, cb *colBuilder) {
			for rest := msgs; len(rest) > 0; {
				k := min(len(rest), 1+rng.Intn(60))
				from := max(0, len(msgs)-len(rest)-rng.Intn(3))
				require.NoError(t, c.fold(ps, msgs[from:len(msgs)-len(rest)+k], dec, cb, target))
				rest = rest[k:]
				if mode == "bounded" && ps.next >= target {
					break
				}
			}
		}
		cp := &colProc{sumProc{sums: make([]int64, 2)}}
		ps := &partState{tp: TopicPartition{"t", 2}, proc: cp, next: start}
		dec := NewDecoder("json", fields, 220)
		require.True(t, dec.columnar())
		foldRuns(ps, dec, newColBuilder(cp, len(fields)))
		// A ValueProcessor's lean runs: the same messages in runs, without columns.
		vp := &sumProc{sums: make([]int64, 2)}
		vps := &partState{tp: TopicPartition{"t", 2}, proc: vp, next: start}
		foldRuns(vps, NewDecoder("json", fields, 220), nil)
		require.Equal(t, ref.sums, vp.sums, "seed %d", seed)
		require.Equal(t, ref.log, vp.log, "seed %d", seed)
		require.Equal(t, refPS.next, vps.next, "seed %d", seed)
		require.Equal(t, refPS.idle, vps.idle, "seed %d", seed)

		require.Equal(t, ref.sums, cp.sums, "seed %d", seed)
		require.Equal(t, ref.n, cp.n, "seed %d", seed)
		require.Equal(t, ref.log, cp.log, "seed %d", seed)
		require.NotEmpty(t, ref.log)
		require.Equal(t, refPS.next, ps.next, "seed %d", seed)
		require.Equal(t, refPS.idle, ps.idle, "seed %d", seed)
		require.Equal(t, refPS.dirty, ps.dirty, "seed %d", seed)
		require.Positive(t, cp.colCalls, "seed %d: the column path was not taken", seed)
		require.Less(t, cp.colRecs, cp.n, "seed %d: some run fell back to Process", seed)
	}
}

// TestColumnsNotTried checks the decoder's and the builder's refusals: metadata fields
// and Arrow messages take the record path, and a partition of non-integer messages stops
// being tried as columns (each would be decoded twice) for a while.
func TestColumnsNotTried(t *testing.T) {
	require.False(t, NewDecoder("json", []string{"label", "key"}, 100).columnar())
	require.False(t, NewDecoder("json", []string{"label", "header.x"}, 100).columnar())
	require.False(t, NewDecoder("arrow", []string{"label"}, 100).columnar())

	dec := NewDecoder("json", []string{"label"}, 100)
	p := &colProc{sumProc{sums: make([]int64, 1)}}
	cb := newColBuilder(p, 1)
	var msgs []kafkago.Message
	for i := 0; i < missRun+10; i++ {
		msgs = append(msgs, kafkago.Message{Topic: "t", Offset: int64(i), Value: []byte(`{"label": "x"}`)})
	}
	msgs = append(msgs, kafkago.Message{Topic: "t", Offset: int64(len(msgs)), Value: []byte(`{"label": 3}`)})
	ps := &partState{proc: p}
	require.NoError(t, (&Consumer{cfg: Config{Mode: "continuous"}}).fold(ps, msgs, dec, cb, 0))
	require.Equal(t, int64(len(msgs)), ps.next)
	require.Zero(t, p.colCalls) // the integer message came during the pause
	require.Equal(t, int64(1), p.n)
	require.Len(t, p.log, len(msgs)-1)
	require.Equal(t, skipRun-11, cb.skip)
}

// TestLeanReadMatchesFull reads a partition holding every awkward kind of message (marker-
// like values with and without a marker key, empty and null values, values larger than a
// lean read takes, compressed batches, a start in the middle of a batch) lean and in full:
// the same messages must come out, the awkward ones in full (with their key).
func TestLeanReadMatchesFull(t *testing.T) {
	addrs := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if addrs == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set")
	}
	// Lean reads are a read_uncommitted fetcher's; the read_committed one (the protocol
	// package's fetch) must return the same messages of this non-transactional topic.
	cfg := Config{Brokers: strings.Split(addrs, ","), Topics: []string{"x"}, Isolation: ReadUncommitted}
	require.NoError(t, cfg.Validate())
	committedCfg := cfg
	committedCfg.Isolation = ReadCommitted
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := fmt.Sprintf("lean-read-%d-%04d", time.Now().UnixNano()%1e10, rand.Intn(10000))
	adm := newAdmin(&cfg)
	require.NoError(t, adm.ensureTopic(ctx, topic, nil))
	defer adm.client.DeleteTopics(context.Background(), &kafkago.DeleteTopicsRequest{Topics: []string{topic}})

	rng := rand.New(rand.NewSource(7))
	var want []kafkago.Message
	for i := 0; i < 3000; i++ {
		m := kafkago.Message{Value: fmt.Appendf(nil, `{"label": %d, "prediction": %d}`, i%5, i%3)}
		switch k := rng.Intn(40); {
		case k == 0:
			m.Key, m.Value = []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 3}
		case k == 1:
			m.Key, m.Value = []byte("key"), []byte{0, 0, 1, 2, 3, 4}
		case k == 2:
			m.Value = []byte{}
		case k == 3:
			m.Value = nil
		case k == 4:
			m.Value = []byte(`{"label": "` + strings.Repeat("y", 2*leanMinSpare+rng.Intn(2*leanMinSpare)) + `"}`)
		}
		want = append(want, m)
	}
	for i, comp := range []kafkago.Compression{0, kafkago.Gzip, 0, kafkago.Zstd} {
		w := &kafkago.Writer{Addr: kafkago.TCP(cfg.Brokers...), Topic: topic, RequiredAcks: kafkago.RequireAll, BatchSize: 100, BatchTimeout: time.Millisecond, Compression: comp, BatchBytes: 4 << 20}
		require.NoError(t, w.WriteMessages(ctx, want[i*750:(i+1)*750]...))
		require.NoError(t, w.Close())
	}

	// A small lean buffer, so that large values often do not fit.
	defer func(n int) { runBytes = n }(runBytes)
	runBytes = 3 * leanMinSpare
	tp := TopicPartition{topic, 0}
	bigFull := 0
	for _, start := range []int64{0, 1234, 2990} {
		full := newFetcher(&cfg, tp, start, 1<<20)
		var got []kafkago.Message
		for int64(len(got)) < int64(len(want))-start {
			var m kafkago.Message
			require.NoError(t, full.next(ctx, time.Now().Add(10*time.Second), &m))
			got = append(got, m)
		}
		full.close()
		for i, m := range got {
			require.Equal(t, start+int64(i), m.Offset)
			require.Equal(t, string(want[m.Offset].Value), string(m.Value))
		}

		committed := newFetcher(&committedCfg, tp, start, 1<<20)
		for _, g := range got {
			var m kafkago.Message
			require.NoError(t, committed.next(ctx, time.Now().Add(10*time.Second), &m))
			require.Equal(t, g.Offset, m.Offset)
			require.Equal(t, string(g.Value), string(m.Value), "offset %d", m.Offset)
			// kafka-go's batch reader returns an empty value as nil; this fetcher tells a
			// null value (a tombstone) from an empty one.
			require.Equal(t, want[m.Offset].Value == nil, m.Value == nil, "offset %d", m.Offset)
			require.Equal(t, string(g.Key), string(m.Key), "offset %d", m.Offset)
			require.Equal(t, g.HighWaterMark, m.HighWaterMark) // the last stable offset: no transactions
			require.Truef(t, g.Time.Equal(m.Time), "offset %d: time %v, want %v", m.Offset, m.Time, g.Time)
			require.False(t, isSkipped(&m), "offset %d", m.Offset)
		}
		committed.close()

		lean := newFetcher(&cfg, tp, start, 1<<20)
		var r run
		var fulls int
		for k := 0; k < len(got); {
			require.NoError(t, lean.read(ctx, time.Now().Add(10*time.Second), &r, 1+rng.Intn(100), true))
			require.NotEmpty(t, r.msgs)
			for _, m := range r.msgs {
				g := got[k]
				require.Equal(t, g.Offset, m.Offset)
				require.Equal(t, string(g.Value), string(m.Value), "offset %d", m.Offset)
				require.Equal(t, g.HighWaterMark, m.HighWaterMark)
				require.Equal(t, g.Partition, m.Partition)
				require.Equal(t, g.Topic, m.Topic)
				if m.Key != nil || !m.Time.IsZero() {
					fulls++
					require.Equal(t, g.Key, m.Key)
				}
				if len(g.Value) == 0 || len(g.Value) == 6 {
					require.False(t, m.Time.IsZero(), "offset %d was read lean", m.Offset)
					require.Equal(t, g.Value == nil, m.Value == nil, "offset %d", m.Offset)
				}
				if len(g.Value) > leanMinSpare && !m.Time.IsZero() {
					bigFull++
				}
				k++
			}
		}
		lean.close()
		require.Positive(t, fulls)
		require.Less(t, fulls, len(got)/2)
	}
	require.Positive(t, bigFull, "no large value was read again in full")
}
