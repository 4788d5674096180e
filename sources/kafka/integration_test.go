package kafka_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// The integration tests run against a real broker: start one with
// `.ci/kafka/kafka-ci.sh start` and set EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092. The
// broker-restart test also needs EVALSTREAM_KAFKA_CTL=.ci/kafka/kafka-ci.sh (it stops and
// resumes that broker).

func brokers(t *testing.T) []string {
	t.Helper()
	b := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if b == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set: start a broker with `.ci/kafka/kafka-ci.sh start` and export EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092 to run the Kafka integration tests")
	}
	return strings.Split(b, ",")
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// evalstreamBin builds the evalstream binary once per test process.
func evalstreamBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "evalstream-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "evalstream")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "../../cmd/evalstream")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// uniqueName returns a topic or group name unique to this test run.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%04d", prefix, time.Now().UnixNano()%1e10, rand.Intn(10000))
}

func createTopic(t *testing.T, addrs []string, topic string, partitions int) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addrs...), Timeout: 20 * time.Second}
	// Retried: after the broker-restart test, the shared transport may hold connections the
	// restart closed (unexpected EOF), or the broker may not serve requests yet.
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var resp *kafkago.CreateTopicsResponse
		resp, err = c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}}})
		if err == nil {
			if err = resp.Errors[topic]; errors.Is(err, kafkago.TopicAlreadyExists) {
				err = nil // an earlier attempt created it
			}
		}
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	require.NoError(t, err)
	// wait until the metadata shows every partition with a leader
	require.Eventually(t, func() bool {
		m, err := c.Metadata(context.Background(), &kafkago.MetadataRequest{Topics: []string{topic}})
		if err != nil || len(m.Topics) != 1 || m.Topics[0].Error != nil || len(m.Topics[0].Partitions) != partitions {
			return false
		}
		for _, p := range m.Topics[0].Partitions {
			if p.Leader.ID < 0 {
				return false
			}
		}
		return true
	}, 30*time.Second, 100*time.Millisecond)
}

// msg is a message to produce to a given partition.
type msg struct {
	Partition int
	Key       []byte
	Value     []byte
	Headers   []kafkago.Header
	Time      time.Time
}

// produce writes msgs in order, each to its partition.
func produce(t *testing.T, addrs []string, topic string, msgs []msg) {
	t.Helper()
	w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), Topic: topic, Balancer: partitionBalancer{}, RequiredAcks: kafkago.RequireAll, BatchSize: 1000, BatchTimeout: 10 * time.Millisecond}
	defer w.Close()
	out := make([]kafkago.Message, len(msgs))
	for i, m := range msgs {
		h := append([]kafkago.Header{{Key: "x-partition", Value: []byte(fmt.Sprint(m.Partition))}}, m.Headers...)
		out[i] = kafkago.Message{Key: m.Key, Value: m.Value, Headers: h, Time: m.Time}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for len(out) > 0 {
		n := min(len(out), 5000)
		require.NoError(t, w.WriteMessages(ctx, out[:n]...))
		out = out[n:]
	}
}

// partitionBalancer routes by the x-partition header the test sets.
type partitionBalancer struct{}

func (partitionBalancer) Balance(m kafkago.Message, partitions ...int) int {
	for _, h := range m.Headers {
		if h.Key == "x-partition" {
			var p int
			fmt.Sscan(string(h.Value), &p)
			return partitions[p%len(partitions)]
		}
	}
	return partitions[0]
}

// wmtRecords reads n records of the shared WMT17 corpus (16 systems x 3004 sentences), as
// JSON lines.
func wmtRecords(t *testing.T, n int) [][]byte {
	t.Helper()
	f, err := os.Open("../../../shared/data/wmt17/newstest2017-en-de.jsonl.gz")
	if os.IsNotExist(err) {
		f, err = os.Open(filepath.Join(os.Getenv("EVALSTREAM_SHARED"), "data/wmt17/newstest2017-en-de.jsonl.gz"))
	}
	if err != nil {
		return syntheticRecords(n)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out [][]byte
	for sc.Scan() && len(out) < n {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return out
}

// syntheticRecords is the fallback when the shared corpus is not beside the repository.
func syntheticRecords(n int) [][]byte {
	r := rand.New(rand.NewSource(7))
	words := strings.Fields("der die das ein eine Haus Katze Hund läuft schnell langsam groß klein über unter Straße Stadt Baum rot blau grün")
	sent := func() string {
		k := 3 + r.Intn(12)
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	out := make([][]byte, n)
	for i := range out {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("s%d", i), "system": fmt.Sprintf("sys%d", i%5), "prediction": sent(), "references": []string{sent()}})
		out[i] = b
	}
	return out
}

// systemOf returns the "system" field of a JSON record.
func systemOf(t *testing.T, rec []byte) string {
	var v struct{ System string }
	require.NoError(t, json.Unmarshal(rec, &v))
	return v.System
}

// spread assigns records to partitions (by index) and returns the messages plus the
// per-partition JSONL files of the same records in partition/offset order, the file-mode
// equivalent of the topic.
func spread(t *testing.T, recs [][]byte, partitions int, dir string) ([]msg, []string) {
	t.Helper()
	per := make([][]byte, partitions)
	var msgs []msg
	r := rand.New(rand.NewSource(1))
	for i, rec := range recs {
		p := r.Intn(partitions)
		msgs = append(msgs, msg{Partition: p, Key: []byte(fmt.Sprint(i)), Value: rec, Headers: []kafkago.Header{{Key: "model", Value: []byte(systemOf(t, rec))}}})
		per[p] = append(append(per[p], rec...), '\n')
	}
	var files []string
	for p, b := range per {
		f := filepath.Join(dir, fmt.Sprintf("part-%02d.jsonl", p))
		require.NoError(t, os.WriteFile(f, b, 0o644))
		files = append(files, f)
	}
	return msgs, files
}

const textMetrics = `metrics:
  - {type: bleu}
  - {type: chrf}
  - {type: rouge_l}
  - {type: exact_match}
`

type runResult struct {
	code           int
	stdout, stderr string
}

// run runs the binary with a timeout; env adds variables.
func run(t *testing.T, timeout time.Duration, env []string, args ...string) runResult {
	t.Helper()
	bin := evalstreamBin(t) // built before the clock starts: the first build takes minutes
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.Truef(t, ok, "run %v: %v\n%s", args, err, se.String())
		code = ee.ExitCode()
		if ctx.Err() != nil {
			t.Fatalf("evalstream %v timed out after %v\nstderr:\n%s", args, timeout, tail(se.String()))
		}
	}
	return runResult{code, so.String(), se.String()}
}

func tail(s string) string {
	if len(s) > 6000 {
		return "..." + s[len(s)-6000:]
	}
	return s
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// fileResults runs evalstream over files (file mode) and returns the results JSON.
func fileResults(t *testing.T, dir, path, extra string) string {
	t.Helper()
	out := filepath.Join(dir, "file-results.json")
	cfg := writeFile(t, filepath.Join(dir, "file.yaml"), fmt.Sprintf("source: {type: file, path: %q}\n%s%ssinks:\n  - {type: json, path: %q}\n", path, extra, textMetrics, out))
	r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "file run failed:\n%s", r.stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	return withoutRunMeta(string(b))
}

// readFile reads an output file; a results JSON without its run's description (times,
// inputs: they differ between runs by design), as report prints results.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return withoutRunMeta(string(b))
}

// withoutRunMeta removes the run's description that the json sink writes before the results'
// own keys, which start with "records"; other content is returned as it is.
func withoutRunMeta(s string) string {
	if !strings.HasPrefix(s, "{\n  \"run\": ") {
		return s
	}
	if i := strings.Index(s, "\n  \"records\": "); i > 0 {
		return "{" + s[i:]
	}
	return s
}

// kafkaConfig writes a pipeline config reading topic.
func kafkaConfig(t *testing.T, dir, name string, addrs []string, topic, group, stateTopic, extraSource, extra, sinks string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "source:\n  type: kafka\n  brokers: [%s]\n  topic: %s\n", strings.Join(addrs, ", "), topic)
	if group != "" {
		fmt.Fprintf(&b, "  group: %s\n", group)
	}
	b.WriteString(extraSource)
	if stateTopic != "" {
		fmt.Fprintf(&b, "state: {topic: %s}\n", stateTopic)
	}
	b.WriteString(extra)
	b.WriteString(textMetrics)
	b.WriteString("sinks:\n" + sinks)
	return writeFile(t, filepath.Join(dir, name), b.String())
}

func TestBoundedEqualsFileMode(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, group, state := uniqueName("bounded"), uniqueName("g"), uniqueName("state")
	createTopic(t, addrs, topic, 4)
	recs := wmtRecords(t, 8000)
	msgs, _ := spread(t, recs, 4, dir)
	produce(t, addrs, topic, msgs)
	want := fileResults(t, dir, filepath.Join(dir, "part-*.jsonl"), "slice_by: [system]\n")

	out := filepath.Join(dir, "kafka.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, group, state, "  mode: bounded\n", "slice_by: [system]\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	start := time.Now()
	r := run(t, 3*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "kafka run failed:\n%s", tail(r.stderr))
	t.Logf("bounded run over %d records in 4 partitions: %v\n%s", len(recs), time.Since(start), r.stderr)
	require.Equal(t, want, readFile(t, out), "bounded Kafka results must equal file-mode results bit for bit")
	// The run's description names the topic and, per partition, the offsets scored: all of
	// each partition of the fresh topic, [0, its message count).
	perPart := make([]int64, 4)
	for _, m := range msgs {
		perPart[m.Partition]++
	}
	var wantRanges []any
	for p, n := range perPart {
		wantRanges = append(wantRanges, map[string]any{"partition": float64(p), "start_offset": float64(0), "end_offset": float64(n)})
	}
	wantInput := []any{map[string]any{"topic": topic, "partitions": wantRanges}}
	requireInput := func(path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var res map[string]any
		require.NoError(t, json.Unmarshal(b, &res))
		require.Equal(t, wantInput, res["input"])
	}
	requireInput(out)

	// report --from-kafka merges the partitions' snapshots into the same results.
	rep := run(t, time.Minute, nil, "report", "--from-kafka", state, "--brokers", strings.Join(addrs, ","), "--format", "json")
	require.Equalf(t, 0, rep.code, "report failed:\n%s", rep.stderr)
	require.Equal(t, want, rep.stdout)

	// A second run over the same group resumes the finished snapshots: nothing new, same
	// results, and it does not hang on partitions that have nothing left.
	r = run(t, time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "second run failed:\n%s", tail(r.stderr))
	require.Equal(t, want, readFile(t, out))
	requireInput(out) // restored from the snapshots: the same ranges

	// Slicing by a header gives the same slices as the field the header copies.
	out2 := filepath.Join(dir, "kafka-header.json")
	cfg2 := kafkaConfig(t, dir, "k2.yaml", addrs, topic, "", "", "", "slice_by: [header.model]\n", fmt.Sprintf("  - {type: json, path: %q}\n", out2))
	r = run(t, 3*time.Minute, nil, "run", "-c", cfg2)
	require.Equalf(t, 0, r.code, "header run failed:\n%s", tail(r.stderr))
	require.Equal(t, strings.ReplaceAll(want, `"system=`, `"header.model=`), readFile(t, out2))
}

// start starts the binary without waiting.
func start(t *testing.T, env []string, stderr io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(evalstreamBin(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = io.Discard
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	return cmd
}

// killed reports whether the process was ended by SIGKILL.
func killed(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// waitTimeout waits for cmd, killing it after d.
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("process did not finish within %v", d)
		return nil
	}
}

// committed returns the group's committed offset per partition.
func committed(t *testing.T, addrs []string, group, topic string, partitions int) map[int]int64 {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addrs...), Timeout: 20 * time.Second}
	var ps []int
	for p := 0; p < partitions; p++ {
		ps = append(ps, p)
	}
	resp, err := c.OffsetFetch(context.Background(), &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: ps}})
	require.NoError(t, err)
	out := map[int]int64{}
	for _, p := range resp.Topics[topic] {
		out[p.Partition] = p.CommittedOffset
	}
	return out
}

func TestKillNineRestart(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, group, state := uniqueName("kill"), uniqueName("g"), uniqueName("state")
	const parts = 4
	createTopic(t, addrs, topic, parts)
	// Enough records that the job outlasts its kill points: each killed run makes progress,
	// and a job that finishes early leaves the rest of the plan untested (the records
	// twice, so that it does).
	recs := wmtRecords(t, 48000)
	recs = append(recs, recs...)
	msgs, _ := spread(t, recs, parts, dir)
	produce(t, addrs, topic, msgs)
	perPart := map[int]int64{}
	for _, m := range msgs {
		perPart[m.Partition]++
	}
	want := fileResults(t, dir, filepath.Join(dir, "part-*.jsonl"), "slice_by: [system]\n")

	out := filepath.Join(dir, "kafka.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, group, state, "  mode: bounded\n  emit_interval: 20ms\n", "slice_by: [system]\npipeline: {workers: 2}\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	env := []string{"EVALSTREAM_KAFKA_SESSION_TIMEOUT=6s"}

	// Kill points: every named step twice (at a random count), then kills at random times.
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	type kill struct{ point string }
	var plan []kill
	for _, p := range []string{"fetch", "process", "checkpoint", "snapshot", "commit"} {
		for i := 0; i < 2; i++ {
			// The first few checkpoints: the job must outlast the whole plan, and each
			// checkpoint covers 20 ms of every partition's progress.
			n := 1 + r.Intn(3)
			if p == "fetch" || p == "process" {
				n = 200 + r.Intn(1500)
			}
			plan = append(plan, kill{fmt.Sprintf("%s:%d", p, n)})
		}
	}
	plan = append(plan, kill{"time"}, kill{"time"}, kill{"time"})
	r.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })

	kills := 0
	finished := false
	for i, k := range plan {
		var se lockedBuffer
		e := env
		if k.point != "time" {
			e = append(append([]string(nil), env...), "EVALSTREAM_KAFKA_CRASHPOINT="+k.point)
		}
		cmd := start(t, e, &se, "run", "-c", cfg)
		if k.point == "time" {
			// Within the job's duration (an uninterrupted run of it takes about 4 s here,
			// half of it starting and joining the group): a later kill often came after
			// the job had finished, which left kill points of the plan untried.
			d := time.Duration(300+r.Intn(900)) * time.Millisecond
			go func() {
				time.Sleep(d)
				_ = cmd.Process.Signal(syscall.SIGKILL)
			}()
			k.point = "time:" + d.String()
		}
		err := waitTimeout(t, cmd, 3*time.Minute)
		restored := strings.Count(se.String(), "restored snapshot")
		switch {
		case killed(err):
			kills++
			t.Logf("run %2d: killed at %-16s (%d partitions restored from snapshots at start)", i+1, k.point, restored)
		case err == nil:
			t.Logf("run %2d: finished before %s", i+1, k.point)
			finished = true
		default:
			t.Fatalf("run %d (%s) failed: %v\n%s", i+1, k.point, err, tail(se.String()))
		}
		if finished {
			break
		}
	}
	if !finished {
		res := run(t, 3*time.Minute, env, "run", "-c", cfg)
		require.Equalf(t, 0, res.code, "final run failed:\n%s", tail(res.stderr))
	}
	require.GreaterOrEqual(t, kills, 10, "the run must have been killed at 10 or more points")
	got := readFile(t, out)
	require.Equal(t, want, got, "results after %d kills must equal an uninterrupted run", kills)
	t.Logf("%d kill -9 points, %d records produced, results equal the file-mode run bit for bit", kills, len(recs))

	rep := run(t, time.Minute, nil, "report", "--from-kafka", state, "--brokers", strings.Join(addrs, ","), "--format", "json")
	require.Equalf(t, 0, rep.code, "report failed:\n%s", rep.stderr)
	require.Equal(t, want, rep.stdout)

	// Offsets are committed only up to what a durable snapshot covers, never beyond the end.
	// The group offset is advisory (the snapshot is the truth): a commit that races a
	// rebalance after a kill between snapshot and commit can leave it behind, which costs
	// nothing but a re-read of already-merged offsets that the snapshot skips.
	offs := committed(t, addrs, group, topic, parts)
	for p := 0; p < parts; p++ {
		require.LessOrEqual(t, offs[p], perPart[p], "committed offset of partition %d", p)
		if offs[p] != perPart[p] {
			t.Logf("partition %d: group offset %d behind the snapshot's %d (advisory)", p, offs[p], perPart[p])
		}
	}
}

func TestTwoInstancesOneKilled(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, group, state := uniqueName("scale"), uniqueName("g"), uniqueName("state")
	const parts = 4
	createTopic(t, addrs, topic, parts)
	recs := wmtRecords(t, 24000)
	msgs, _ := spread(t, recs, parts, dir)
	produce(t, addrs, topic, msgs)
	want := fileResults(t, dir, filepath.Join(dir, "part-*.jsonl"), "slice_by: [system]\n")

	outA, outB := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	src := "  mode: bounded\n  emit_interval: 200ms\n"
	cfgA := kafkaConfig(t, dir, "a.yaml", addrs, topic, group, state, src, "slice_by: [system]\npipeline: {workers: 1}\n", fmt.Sprintf("  - {type: json, path: %q}\n", outA))
	cfgB := kafkaConfig(t, dir, "b.yaml", addrs, topic, group, state, src, "slice_by: [system]\npipeline: {workers: 1}\n", fmt.Sprintf("  - {type: json, path: %q}\n", outB))
	env := []string{"EVALSTREAM_KAFKA_SESSION_TIMEOUT=6s"}
	var seA, seB lockedBuffer
	a := start(t, env, &seA, "run", "-c", cfgA)
	b := start(t, append(append([]string(nil), env...), "EVALSTREAM_KAFKA_CRASHPOINT=fetch:3000"), &seB, "run", "-c", cfgB)
	errB := waitTimeout(t, b, 3*time.Minute)
	require.Truef(t, killed(errB), "instance B should have been killed mid-run: %v\n%s", errB, tail(seB.String()))
	require.Contains(t, seB.String(), "assigned [", "instance B should have owned partitions")
	errA := waitTimeout(t, a, 3*time.Minute)
	require.NoErrorf(t, errA, "instance A failed:\n%s", tail(seA.String()))
	t.Logf("instance A:\n%s\ninstance B (killed):\n%s", seA.String(), seB.String())
	require.Equal(t, want, readFile(t, outA), "instance A's results after taking over B's partitions")
	rep := run(t, time.Minute, nil, "report", "--from-kafka", state, "--brokers", strings.Join(addrs, ","), "--format", "json")
	require.Equalf(t, 0, rep.code, "report failed:\n%s", rep.stderr)
	require.Equal(t, want, rep.stdout, "merged snapshots of both instances")
}
