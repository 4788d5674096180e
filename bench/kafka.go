package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"golang.org/x/sync/errgroup"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources"
	"github.com/evalstream/evalstream/sources/kafka"
)

// kafkaTarget is the goal: bounded consume+score at 70% of the raw fetch rate.
const kafkaTarget = 0.70

// kafkaPass is the measurement of one way of reading the topic.
type kafkaPass struct {
	Seconds    float64   `json:"seconds"`
	RecordsSec float64   `json:"records_per_s"`
	MBSec      float64   `json:"mb_per_s"`
	CPU        float64   `json:"cpu_seconds"`        // user+system CPU time of this process
	Allocs     float64   `json:"allocs_per_record"`  // heap allocations of this process
	Runs       []float64 `json:"runs_records_per_s"` // every run, in order
	Median     float64   `json:"median_records_per_s"`
}

// meter measures a pass: wall time, CPU time and heap allocations of this process.
type meter struct {
	start   time.Time
	cpu     float64
	mallocs uint64
}

func startMeter() meter {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return meter{time.Now(), cpuSeconds(), ms.Mallocs}
}

// add records a pass measured by m that read records (mb megabytes).
func (p *kafkaPass) add(m meter, records int64, mb float64) {
	secs, cpu := time.Since(m.start).Seconds(), cpuSeconds()-m.cpu
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rs := float64(records) / secs
	p.Runs = append(p.Runs, rs)
	if p.Seconds == 0 || secs < p.Seconds {
		p.Seconds, p.RecordsSec, p.MBSec, p.CPU = secs, rs, mb/secs, cpu
		p.Allocs = float64(ms.Mallocs-m.mallocs) / float64(max(records, 1))
	}
	s := append([]float64(nil), p.Runs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		p.Median = s[n/2]
	} else {
		p.Median = (s[n/2-1] + s[n/2]) / 2
	}
}

// KafkaReport is what `bench --kafka --json` prints.
type KafkaReport struct {
	Brokers       []string       `json:"brokers"`
	Topic         string         `json:"topic"` // deleted at the end
	Mix           string         `json:"mix,omitempty"`
	Metrics       []string       `json:"metrics"`
	Records       int64          `json:"records"`
	MB            float64        `json:"mb"` // message values
	Partitions    int            `json:"partitions"`
	Procs         int            `json:"gomaxprocs"`
	Repeat        int            `json:"repeat"`
	FetchMaxBytes int            `json:"fetch_max_bytes"`
	FetchMaxWait  string         `json:"fetch_max_wait"`
	Produce       float64        `json:"produce_seconds"`
	RawReader     kafkaPass      `json:"raw_reader"`     // a kafka-go Reader per partition
	RawBatch      kafkaPass      `json:"raw_read_batch"` // a Conn.ReadBatch loop per partition
	RawMethod     string         `json:"raw_method"`     // the faster of the two, the reference
	Raw           kafkaPass      `json:"raw"`
	Consume       kafkaPass      `json:"consume_score"`
	Ratio         float64        `json:"ratio"` // best consume+score / best raw
	MedianRatio   float64        `json:"median_ratio"`
	Target        float64        `json:"target"`
	Met           bool           `json:"target_met"`
	FileScore     kafkaPass      `json:"file_score"` // file-mode scoring of the same records
	Same          bool           `json:"identical_to_file_mode"`
	Values        map[string]any `json:"values"`
}

// KafkaOptions configures RunKafka.
type KafkaOptions struct {
	Brokers []string
	// Mix generates Records records, produced as JSON Lines, one message each, to a fresh
	// topic of Partitions partitions; MixName names it in the report ("" when --metric
	// replaced its metrics, which Specs lists).
	Mix        Mix
	MixName    string
	Specs      []string
	Records    int
	Partitions int
	// Repeat runs each pass this many times, alternating; the best (and the median) count.
	Repeat int
	// CPUProfile, when set, is where the profile of the first consume+score pass goes.
	CPUProfile string
	// Verbose echoes the consumer's log, timed from the start of its pass, to Stderr.
	Verbose bool
	Stderr  io.Writer
	// FilePlan returns the plan and policy of file-mode scoring of corpus, the reference.
	FilePlan func(corpus string) (*pipeline.Plan, pipeline.Policy, error)
	// PrepareConsume sets up a bounded consume+score pass of topic by group with its state
	// in stateTopic (created before it returns, outside the timed pass); the returned func
	// runs the pass, logging to logs, and saves its total state to statePath.
	PrepareConsume func(ctx context.Context, topic, group, stateTopic string) (func(ctx context.Context, logs io.Writer, statePath string) error, error)
}

// RunKafka measures evalstream's bounded consume+score of a Kafka topic against the raw
// kafka-go fetch rate of the same topic (issue 6: at least 70%). The topic, the state topics
// and the groups it creates are deleted at the end.
func RunKafka(ctx context.Context, o KafkaOptions) (*KafkaReport, error) {
	// The records: the mix's synthetic corpus as JSON Lines, one message per line.
	dir, err := os.MkdirTemp("", "evalstream-bench-kafka-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "corpus.jsonl")
	if err := WriteCorpus(corpus, o.Mix, o.Records); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(corpus)
	if err != nil {
		return nil, err
	}
	values := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var size int64
	for _, v := range values {
		size += int64(len(v))
	}
	mb := float64(size) / 1e6
	rep := &KafkaReport{Brokers: o.Brokers, Metrics: o.Specs, Records: int64(len(values)), MB: mb, Partitions: o.Partitions,
		Procs: runtime.GOMAXPROCS(0), Repeat: o.Repeat, FetchMaxBytes: kafka.FetchMaxBytes(config.DefaultMaxRecordBytes),
		FetchMaxWait: kafka.FetchMaxWait.String(), Target: kafkaTarget}
	rep.Mix = o.MixName

	// The reference: file-mode scoring of the same lines.
	filePlan, filePolicy, err := o.FilePlan(corpus)
	if err != nil {
		return nil, err
	}
	var want []byte
	for r := 0; r < o.Repeat; r++ {
		src, err := sources.OpenFiles(sources.FileConfig{Path: corpus, Format: "auto"}, filePlan.Fields, config.DefaultBatchSize, config.DefaultMaxRecordBytes)
		if err != nil {
			return nil, err
		}
		m := startMeter()
		acc, err := pipeline.Run(ctx, src, pipeline.Config{Plan: filePlan, Workers: runtime.GOMAXPROCS(0), Policy: filePolicy})
		if err != nil {
			src.Close()
			return nil, err
		}
		rep.FileScore.add(m, acc.Records+acc.Skipped, mb)
		src.Close()
		if want, err = sinks.IndentedJSON(acc.Results()); err != nil {
			return nil, err
		}
		if r == 0 {
			rep.Values = map[string]any{}
			for _, mr := range acc.Results().Metrics {
				rep.Values[mr.Name] = mr.Value
			}
		}
	}

	// A fresh topic, deleted at the end with the state topics and groups of the runs.
	admin := &kafkago.Client{Addr: kafkago.TCP(o.Brokers...), Timeout: 30 * time.Second}
	base := fmt.Sprintf("evalstream-bench-%d-%04d", time.Now().UnixNano()%1e10, rand.Intn(10000))
	topic := base
	rep.Topic = topic
	created := []string{}
	var groups []string
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if len(groups) > 0 {
			_, _ = admin.DeleteGroups(cctx, &kafkago.DeleteGroupsRequest{GroupIDs: groups})
		}
		if len(created) > 0 {
			if _, err := admin.DeleteTopics(cctx, &kafkago.DeleteTopicsRequest{Topics: created}); err != nil {
				fmt.Fprintf(o.Stderr, "evalstream bench: deleting topics %v: %v\n", created, err)
			}
		}
	}()
	if err := benchCreateTopic(ctx, admin, topic, o.Partitions); err != nil {
		return nil, err
	}
	created = append(created, topic)
	start := time.Now()
	if err := benchProduce(ctx, o.Brokers, topic, values); err != nil {
		return nil, err
	}
	rep.Produce = time.Since(start).Seconds()
	first, end, err := benchOffsets(ctx, admin, topic, o.Partitions)
	if err != nil {
		return nil, err
	}
	var total int64
	for p := range end {
		total += end[p] - first[p]
	}
	if total != int64(len(values)) {
		return nil, fmt.Errorf("topic %s holds %d messages, %d were produced", topic, total, len(values))
	}

	maxBytes := kafka.FetchMaxBytes(config.DefaultMaxRecordBytes)
	rep.Same = true
	for r := 0; r < o.Repeat; r++ {
		// The passes alternate, so that a burst of other activity on the machine does not
		// weigh on one of them only.
		m := startMeter()
		got, gotBytes, err := rawReaders(ctx, o.Brokers, topic, first, end, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("raw kafka-go Reader pass: %w", err)
		}
		rep.RawReader.add(m, got, mb)
		if err := checkRaw(got, gotBytes, total, size); err != nil {
			return nil, err
		}

		m = startMeter()
		got, gotBytes, err = rawReadBatches(ctx, o.Brokers, topic, first, end, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("raw kafka-go Conn.ReadBatch pass: %w", err)
		}
		rep.RawBatch.add(m, got, mb)
		if err := checkRaw(got, gotBytes, total, size); err != nil {
			return nil, err
		}

		group, state := fmt.Sprintf("%s-g%d", base, r), fmt.Sprintf("%s-state%d", base, r)
		groups = append(groups, group)
		created = append(created, state)
		// The state topic is created before the timer, as the data topic is: a deployment
		// creates it once, not on every run.
		consume, err := o.PrepareConsume(ctx, topic, group, state)
		if err != nil {
			return nil, err
		}
		statePath := filepath.Join(dir, "kafka.state")
		logs := &timedLog{}
		if o.Verbose {
			logs.echo = o.Stderr
		}
		stopProfile := func() {}
		if o.CPUProfile != "" && r == 0 {
			if stopProfile, err = startCPUProfile(o.CPUProfile); err != nil {
				return nil, err
			}
		}
		m = startMeter()
		logs.start = m.start
		err = consume(ctx, logs, statePath)
		stopProfile()
		if err != nil {
			return nil, fmt.Errorf("consume+score pass: %w\n%s", err, logs.String())
		}
		acc, err := pipeline.ReadStateFile(statePath)
		if err != nil {
			return nil, err
		}
		rep.Consume.add(m, acc.Records+acc.Skipped, mb)
		fmt.Fprintf(logs, "evalstream bench: consume+score pass %d: %.0f records/s\n", r+1, rep.Consume.Runs[r])
		got2, err := sinks.IndentedJSON(acc.Results())
		if err != nil {
			return nil, err
		}
		if acc.Records+acc.Skipped != total || !bytes.Equal(got2, want) {
			rep.Same = false
		}
	}
	rep.Raw, rep.RawMethod = rep.RawReader, "reader"
	if rep.RawBatch.RecordsSec > rep.RawReader.RecordsSec {
		rep.Raw, rep.RawMethod = rep.RawBatch, "read_batch"
	}
	rep.Ratio = rep.Consume.RecordsSec / rep.Raw.RecordsSec
	rep.MedianRatio = rep.Consume.Median / max(rep.RawReader.Median, rep.RawBatch.Median)
	rep.Met = rep.Ratio >= kafkaTarget

	return rep, nil
}

// timedLog keeps a pass's log lines, prefixed with the time since the pass began, and
// echoes them when echo is set.
type timedLog struct {
	start time.Time
	buf   bytes.Buffer
	echo  io.Writer
}

func (l *timedLog) Write(p []byte) (int, error) {
	line := fmt.Sprintf("%8.3fs %s", time.Since(l.start).Seconds(), p)
	l.buf.WriteString(line)
	if l.echo != nil {
		io.WriteString(l.echo, line)
	}
	return len(p), nil
}

func (l *timedLog) String() string { return l.buf.String() }

// startCPUProfile starts a CPU profile written to path; stop ends it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func checkRaw(got, gotBytes, total, size int64) error {
	if got != total || gotBytes != size {
		return fmt.Errorf("raw pass read %d messages (%d bytes), want %d (%d bytes)", got, gotBytes, total, size)
	}
	return nil
}

// Print writes the report as a table.
func (rep *KafkaReport) Print(w io.Writer) { printKafkaBench(w, rep) }

func printKafkaBench(w io.Writer, rep *KafkaReport) {
	what := rep.Mix
	if what == "" {
		what = "custom metrics"
	}
	fmt.Fprintf(w, "evalstream bench --kafka %s: %s, %d records (%.1f MB of JSON message values), %d partitions, GOMAXPROCS %d, best of %d (median)\n",
		strings.Join(rep.Brokers, ","), what, rep.Records, rep.MB, rep.Partitions, rep.Procs, rep.Repeat)
	fmt.Fprintf(w, "metrics: %s\n", strings.Join(rep.Metrics, "  "))
	fmt.Fprintf(w, "fetch: MinBytes 1, MaxBytes %d, MaxWait %s (as the consumer); produced in %.2f s\n", rep.FetchMaxBytes, rep.FetchMaxWait, rep.Produce)
	row := func(name string, p kafkaPass, extra string) {
		fmt.Fprintf(w, "  %-38s %8.3f s %10.0f records/s (median %9.0f) %7.1f MB/s  cpu %5.2f s %5.2f allocs/rec  %s\n", name, p.Seconds, p.RecordsSec, p.Median, p.MBSec, p.CPU, p.Allocs, extra)
	}
	mark := func(m string) string {
		if m == rep.RawMethod {
			return "<- raw reference"
		}
		return ""
	}
	row("raw kafka-go, Reader per partition", rep.RawReader, mark("reader"))
	row("raw kafka-go, ReadBatch per partition", rep.RawBatch, mark("read_batch"))
	row("evalstream consume+score (bounded)", rep.Consume, "")
	row("file-mode score of the same records", rep.FileScore, "(for reference: the scoring ceiling)")
	met := "NO"
	if rep.Met {
		met = "yes"
	}
	fmt.Fprintf(w, "  %-36s %8.2f (median %.2f); target >= %.2f: %s\n", "ratio consume+score / raw", rep.Ratio, rep.MedianRatio, rep.Target, met)
	fmt.Fprintf(w, "  %-36s %v\n", "identical to file mode", rep.Same)
	names := make([]string, 0, len(rep.Values))
	for k := range rep.Values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  %-36s %v\n", k, formatBenchValue(rep.Values[k]))
	}
}

func benchCreateTopic(ctx context.Context, c *kafkago.Client, topic string, partitions int) error {
	resp, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}}})
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	if err := resp.Errors[topic]; err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		m, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
		if err == nil && len(m.Topics) == 1 && m.Topics[0].Error == nil && len(m.Topics[0].Partitions) == partitions {
			ready := true
			for _, p := range m.Topics[0].Partitions {
				ready = ready && p.Leader.ID >= 0
			}
			if ready {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("topic %s: no leader for every partition after 30 s", topic)
}

// benchProduce writes the values round-robin over the partitions, uncompressed.
func benchProduce(ctx context.Context, brokers []string, topic string, values [][]byte) error {
	w := &kafkago.Writer{Addr: kafkago.TCP(brokers...), Topic: topic, Balancer: &kafkago.RoundRobin{}, RequiredAcks: kafkago.RequireAll,
		BatchSize: 10000, BatchBytes: 1 << 20, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	msgs := make([]kafkago.Message, 0, 50000)
	for len(values) > 0 {
		k := min(len(values), cap(msgs))
		msgs = msgs[:0]
		for _, v := range values[:k] {
			msgs = append(msgs, kafkago.Message{Value: v})
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			return fmt.Errorf("produce: %w", err)
		}
		values = values[k:]
	}
	return nil
}

// benchOffsets returns the first and end offsets of every partition.
func benchOffsets(ctx context.Context, c *kafkago.Client, topic string, partitions int) (first, end map[int]int64, err error) {
	first, end = map[int]int64{}, map[int]int64{}
	for _, latest := range []bool{false, true} {
		req := &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{}}
		for p := 0; p < partitions; p++ {
			r := kafkago.FirstOffsetOf(p)
			if latest {
				r = kafkago.LastOffsetOf(p)
			}
			req.Topics[topic] = append(req.Topics[topic], r)
		}
		resp, err := c.ListOffsets(ctx, req)
		if err != nil {
			return nil, nil, fmt.Errorf("list offsets: %w", err)
		}
		for _, p := range resp.Topics[topic] {
			if p.Error != nil {
				return nil, nil, fmt.Errorf("list offsets of %s/%d: %w", topic, p.Partition, p.Error)
			}
			// The answer is filed under the timestamp the broker echoes (see sources/kafka).
			off := p.LastOffset
			if !latest && off < 0 {
				off = p.FirstOffset
			}
			if latest {
				end[p.Partition] = off
			} else {
				first[p.Partition] = off
			}
		}
	}
	if len(first) != partitions || len(end) != partitions {
		return nil, nil, fmt.Errorf("list offsets of %s: answers for %d and %d of %d partitions", topic, len(first), len(end), partitions)
	}
	return first, end, nil
}

// rawReaders reads every partition from first to end with one kafka-go Reader each (the
// consumer's fetch settings), in parallel, doing nothing with the messages but counting them.
func rawReaders(ctx context.Context, brokers []string, topic string, first, end map[int]int64, maxBytes int) (msgs, size int64, err error) {
	counts := make([][2]int64, len(end))
	g, gctx := errgroup.WithContext(ctx)
	for p := range end {
		g.Go(func() error {
			r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: brokers, Topic: topic, Partition: p, MinBytes: 1, MaxBytes: maxBytes, MaxWait: kafka.FetchMaxWait})
			defer r.Close()
			if err := r.SetOffset(first[p]); err != nil {
				return err
			}
			for off := first[p]; off < end[p]; {
				m, err := r.FetchMessage(gctx)
				if err != nil {
					return err
				}
				off = m.Offset + 1
				counts[p][0]++
				counts[p][1] += int64(len(m.Value))
			}
			return nil
		})
	}
	err = g.Wait()
	for _, c := range counts {
		msgs, size = msgs+c[0], size+c[1]
	}
	return msgs, size, err
}

// rawReadBatches reads every partition from first to end with a Conn.ReadBatch loop on a
// connection to its leader (the consumer's fetch settings), in parallel, doing nothing with
// the messages but counting them.
func rawReadBatches(ctx context.Context, brokers []string, topic string, first, end map[int]int64, maxBytes int) (msgs, size int64, err error) {
	counts := make([][2]int64, len(end))
	g, gctx := errgroup.WithContext(ctx)
	for p := range end {
		g.Go(func() error {
			conn, err := kafkago.DialLeader(gctx, "tcp", brokers[0], topic, p)
			if err != nil {
				return err
			}
			defer conn.Close()
			if _, err := conn.Seek(first[p], kafkago.SeekAbsolute); err != nil {
				return err
			}
			for off := first[p]; off < end[p]; {
				if err := gctx.Err(); err != nil {
					return err
				}
				if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
					return err
				}
				b := conn.ReadBatchWith(kafkago.ReadBatchConfig{MinBytes: 1, MaxBytes: maxBytes, MaxWait: kafka.FetchMaxWait})
				for {
					m, err := b.ReadMessage()
					if err != nil {
						break
					}
					off = m.Offset + 1
					counts[p][0]++
					counts[p][1] += int64(len(m.Value))
				}
				if err := b.Close(); err != nil && !errors.Is(err, io.EOF) {
					return err
				}
			}
			return nil
		})
	}
	err = g.Wait()
	for _, c := range counts {
		msgs, size = msgs+c[0], size+c[1]
	}
	return msgs, size, err
}
