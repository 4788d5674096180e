package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalstream/evalstream/bench"
	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/kafka"
)

// The flags of `evalstream bench` and the wiring of its passes; the harness is package bench.

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if benchModeRequested(args, "kafka") {
		return cmdBenchKafka(ctx, args, stdout, stderr)
	}
	if benchModeRequested(args, "compare") {
		return cmdBenchCompare(ctx, args, stdout, stderr)
	}
	fs := newFlagSet("bench", stderr)
	fs.String("kafka", "", "BROKERS: measure consume+score of the mix from a fresh Kafka topic against raw kafka-go fetching (bench --kafka BROKERS -h lists its flags)")
	fs.Bool("compare", false, "run the installed peers (sacrebleu, bleuscore, rouge-score, rouge-score-rs, rouge-rust, jiwer, duckdb, polars, a minimal C n-gram counter) and evalstream on the same files, in turns, and print CPU and wall medians and their ratios (bench --compare -h lists its flags)")
	noProgress := fs.Bool("no-progress", false, "show no progress on stderr (default: a line redrawn on a terminal, a log line every 10 s otherwise)")
	mix := fs.String("mix", "text", "synthetic workload: "+bench.MixNames())
	n := fs.Int("records", 200000, "records to generate for the synthetic corpus")
	input := fs.String("input", "", "benchmark this file (or glob/directory) instead of a synthetic corpus")
	var metricSpecs stringList
	fs.Var(&metricSpecs, "metric", "TYPE[:opt=val,...] to run instead of the mix's metrics (repeatable)")
	workersFlag := fs.String("workers", "0", "worker goroutines (0 = one per CPU); a list such as 1,2 runs each and reports the scaling")
	batch := fs.Int("batch-size", config.DefaultBatchSize, "records per batch")
	repeat := fs.Int("repeat", 1, "run each scoring pass this many times and report the best")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the scoring passes to this file (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the scoring passes to this file (go tool pprof -sample_index=alloc_objects)")
	writeCorpus := fs.String("write-corpus", "", "only write the mix's synthetic corpus (--records records) to this file (.jsonl[.gz], .arrow, .arrows, .parquet) and exit")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	scoreOnly := fs.Bool("score-only", false, "skip the read, decode and tokenize stages (the peak RSS is then that of scoring alone)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	m, ok := bench.Mixes[*mix]
	if !ok && (len(metricSpecs) == 0 || *input == "") {
		return usageErr("--mix must be one of %s", bench.MixNames())
	}
	var workerList []int
	for _, w := range strings.Split(*workersFlag, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || k < 0 {
			return usageErr("--workers: want a number or a list of numbers, got %q", *workersFlag)
		}
		if k == 0 {
			k = runtime.GOMAXPROCS(0)
		}
		workerList = append(workerList, k)
	}
	if *n < 0 {
		return usageErr("--records must be >= 0")
	}
	genCorpus := func(path string) error { return bench.WriteCorpus(path, m, *n) }
	if *writeCorpus != "" {
		if err := genCorpus(*writeCorpus); err != nil {
			return runtimeErr(err)
		}
		fmt.Fprintf(stdout, "wrote %d %s records to %s\n", *n, *mix, *writeCorpus)
		return nil
	}
	specs := metricSpecs
	if len(specs) == 0 {
		specs = m.Metrics
	}
	path := *input
	if path == "" {
		dir, err := os.MkdirTemp("", "evalstream-bench-")
		if err != nil {
			return runtimeErr(err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, m.File)
		if err := genCorpus(path); err != nil {
			return runtimeErr(err)
		}
	}
	cfg := &config.Config{
		Source:   config.Source{Type: "file", Path: path},
		Pipeline: config.Pipeline{Workers: workerList[0], BatchSize: *batch, OnError: "skip"},
		Sinks:    []config.Sink{{Type: "stdout"}},
	}
	for i, s := range specs {
		entry, err := parseMetricFlag(s)
		if err != nil {
			return usageErr("--metric %q: %v", s, err)
		}
		entry["name"] = fmt.Sprintf("%s#%d", entry["type"], i+1)
		delete(entry, "explicit_name")
		cfg.Metrics = append(cfg.Metrics, entry)
	}
	cfg.ApplyDefaults()
	j, err := buildJob(cfg)
	if err != nil {
		return err
	}
	// One progress line for all the passes: the share of the bytes they read together.
	prog := &pipeline.Progress{}
	stopProgress := func() {}
	rep, err := bench.RunFile(ctx, bench.FileOptions{Input: path, Plan: j.plan, Policy: j.policy(), Specs: specs, Mix: m, MetricSpecs: metricSpecs,
		Workers: workerList, Repeat: *repeat, Batch: *batch, MaxRecordBytes: cfg.Source.MaxRecordBytes, ScoreOnly: *scoreOnly,
		CPUProfile: *cpuProfile, MemProfile: *memProfile, Stderr: stderr,
		Progress: prog, ProgressStart: func(total int64) { stopProgress = newProgress(stderr, *noProgress).run(fileCounts(prog, total)) }})
	stopProgress()
	if err != nil {
		return runtimeErr(err)
	}
	if *asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return runtimeErr(err)
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	rep.Print(stdout)
	return nil
}

// benchModeRequested reports whether the bench arguments hold the flag --mode (or -mode,
// --mode=...): the flags of the Kafka and the peer comparison modes are their own.
func benchModeRequested(args []string, mode string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if name == mode+"=false" || name == mode+"=0" {
			return false // --compare=false
		}
		if name != a && (name == mode || strings.HasPrefix(name, mode+"=")) {
			return true
		}
	}
	return false
}

// cmdBenchKafka measures evalstream's bounded consume+score of a Kafka topic against the raw
// kafka-go fetch rate of the same topic (bench.RunKafka).
func cmdBenchKafka(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench --kafka", stderr)
	brokersFlag := fs.String("kafka", "", "BROKERS (host:port[,host:port]): produce the mix to a fresh topic and measure raw kafka-go fetching against evalstream's bounded consume+score")
	mix := fs.String("mix", "text", "synthetic workload: "+bench.MixNames())
	n := fs.Int("records", 200000, "records to generate and produce")
	var metricSpecs stringList
	fs.Var(&metricSpecs, "metric", "TYPE[:opt=val,...] to run instead of the mix's metrics (repeatable)")
	partitions := fs.Int("partitions", 4, "partitions of the topic")
	repeat := fs.Int("repeat", 1, "run each pass this many times, alternating, and report the best (and the median)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the first consume+score pass to this file (go tool pprof)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	isolation := fs.String("isolation", "read_committed", "isolation of the consume+score pass: read_committed (the default of a kafka source) or read_uncommitted")
	verbose := fs.Bool("v", false, "print the consumer's log, with the time since the pass began, to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var brokers []string
	for _, b := range strings.Split(*brokersFlag, ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	if len(brokers) == 0 {
		return usageErr("--kafka needs at least one broker address")
	}
	m, ok := bench.Mixes[*mix]
	if !ok {
		return usageErr("--mix must be one of %s", bench.MixNames())
	}
	if *n <= 0 || *partitions <= 0 || *repeat <= 0 {
		return usageErr("--records, --partitions and --repeat must be > 0")
	}
	mixName := *mix
	if len(metricSpecs) > 0 {
		mixName = ""
	}
	specs := []string(metricSpecs)
	if len(specs) == 0 {
		specs = m.Metrics
	}
	var entries []map[string]any
	for i, s := range specs {
		entry, err := parseMetricFlag(s)
		if err != nil {
			return usageErr("--metric %q: %v", s, err)
		}
		entry["name"] = fmt.Sprintf("%s#%d", entry["type"], i+1)
		delete(entry, "explicit_name")
		entries = append(entries, entry)
	}
	newCfg := func(src config.Source) *config.Config {
		cfg := &config.Config{Source: src, Pipeline: config.Pipeline{OnError: "skip"}, Sinks: []config.Sink{{Type: "stdout"}}}
		for _, e := range entries {
			c := make(map[string]any, len(e))
			for k, v := range e {
				c[k] = v
			}
			cfg.Metrics = append(cfg.Metrics, c)
		}
		cfg.ApplyDefaults()
		return cfg
	}

	rep, err := bench.RunKafka(ctx, bench.KafkaOptions{Brokers: brokers, Mix: m, MixName: mixName, Specs: specs, Records: *n,
		Partitions: *partitions, Repeat: *repeat, CPUProfile: *cpuProfile, Verbose: *verbose, Stderr: stderr,
		FilePlan: func(corpus string) (*pipeline.Plan, pipeline.Policy, error) {
			j, err := buildJob(newCfg(config.Source{Type: "file", Path: corpus}))
			if err != nil {
				return nil, pipeline.Policy{}, err
			}
			return j.plan, j.policy(), nil
		},
		PrepareConsume: func(ctx context.Context, topic, group, state string) (func(context.Context, io.Writer, string) error, error) {
			cfg := newCfg(config.Source{Type: "kafka", Brokers: brokers, Topic: topic, Group: group, Mode: "bounded", Isolation: *isolation})
			cfg.State.Topic = state
			j, err := buildJob(cfg)
			if err != nil {
				return nil, err
			}
			kc, _, err := j.kafkaSettings(io.Discard)
			if err != nil {
				return nil, err
			}
			if err := kafka.EnsureStateTopic(ctx, kc); err != nil {
				return nil, fmt.Errorf("create the state topic: %w", err)
			}
			return func(ctx context.Context, logs io.Writer, statePath string) error {
				return j.executeKafka(ctx, io.Discard, logs, statePath)
			}, nil
		},
	})
	if err != nil {
		return runtimeErr(err)
	}
	if *asJSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return runtimeErr(err)
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	rep.Print(stdout)
	if !rep.Same {
		return runtimeErr(errors.New("the Kafka results differ from file-mode scoring of the same records"))
	}
	return nil
}

// cmdBenchCompare runs evalstream and its peers on the same files (bench.PlanCompare,
// bench.RunCompare) and prints the ratios. Scores that disagree, or a run that fails, make
// it exit 1 after the report.
func cmdBenchCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench --compare", stderr)
	fs.Bool("compare", true, "run the installed peers and evalstream on the same files, in turns, and print CPU and wall medians and their ratios")
	python := fs.String("python", "", "the Python interpreter whose installed peers run (default $EVALSTREAM_BENCH_PYTHON, else python3)")
	cc := fs.String("cc", "", "C compiler of the minimal n-gram counter (default $CC, else cc; none found: the counter is \"not available\")")
	tasksFlag := fs.String("tasks", "", "tasks to run, comma-separated (default all): "+bench.CompareTaskNames())
	input := fs.String("input", "", "JSON Lines file (prediction, references; .gz allowed) of the text tasks, e.g. WMT17 (default: --records generated summaries)")
	n := fs.Int("records", 2000, "summaries to generate for the text tasks when there is no --input")
	classInput := fs.String("classification-input", "", "Parquet file of integer label and prediction columns for the classification task (default: --classification-records generated rows)")
	classN := fs.Int("classification-records", 1000000, "rows of the generated classification Parquet file")
	numClasses := fs.Int("num-classes", 5, "classes of --classification-input (labels and predictions in 0..N-1)")
	repeat := fs.Int("repeat", 5, "runs of each process; the medians are reported")
	format := fs.String("format", "table", "output: table|json|markdown (the README's performance table)")
	noProgress := fs.Bool("no-progress", false, "show no progress on stderr (default: a line redrawn on a terminal, a log line every 10 s otherwise)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("bench --compare takes no arguments, got %q (the text input is --input)", fs.Args())
	}
	if *format != "table" && *format != "json" && *format != "markdown" {
		return usageErr("--format must be table, json or markdown, got %q", *format)
	}
	if *n <= 0 || *classN <= 0 || *repeat <= 0 || *numClasses <= 0 {
		return usageErr("--records, --classification-records, --num-classes and --repeat must be > 0")
	}
	var tasks []string
	for _, t := range strings.Split(*tasksFlag, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tasks = append(tasks, t)
		}
	}
	py := *python
	if py == "" {
		py = os.Getenv("EVALSTREAM_BENCH_PYTHON")
	}
	exe, err := os.Executable()
	if err != nil {
		return runtimeErr(fmt.Errorf("find the evalstream binary: %w", err))
	}
	dir, err := os.MkdirTemp("", "evalstream-compare-")
	if err != nil {
		return runtimeErr(err)
	}
	defer os.RemoveAll(dir)
	// The progress: runs done of the runs planned, the one running, and the time left at the
	// pace so far.
	// The pace is that of the runs, without the preparation.
	var mu sync.Mutex
	var done, total int
	var runsStart time.Time
	what := "preparing: the corpora, the peers, the C counter"
	stopProgress := newProgress(stderr, *noProgress).run(func() progressCounts {
		mu.Lock()
		defer mu.Unlock()
		var el time.Duration
		if !runsStart.IsZero() {
			el = time.Since(runsStart)
		}
		return progressCounts{lag: -1, line: compareProgressLine(el, done, total, what)}
	})
	plan, err := bench.PlanCompare(ctx, bench.CompareSetup{Evalstream: exe, Python: py, CC: *cc, Tasks: tasks,
		TextInput: *input, TextRecords: *n, ClassInput: *classInput, ClassRecords: *classN, NumClasses: *numClasses, Dir: dir})
	if err != nil {
		stopProgress()
		if errors.Is(err, bench.ErrUnknownTask) {
			return usageErr("--tasks: %v", err)
		}
		return runtimeErr(err)
	}

	rep, err := bench.RunCompare(ctx, plan, bench.CompareOptions{Repeat: *repeat, Progress: func(d, t int, w string) {
		mu.Lock()
		if runsStart.IsZero() {
			runsStart = time.Now()
		}
		done, total, what = d, t, w
		mu.Unlock()
	}})
	stopProgress()
	if err != nil {
		return runtimeErr(err)
	}
	switch *format {
	case "json":
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return runtimeErr(err)
		}
		fmt.Fprintf(stdout, "%s\n", b)
	case "markdown":
		rep.Markdown(stdout)
	default:
		rep.Print(stdout)
	}
	if problems := rep.ProblemLines(); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "evalstream bench --compare: %s\n", p)
		}
		return runtimeErr(fmt.Errorf("%d problem(s): scores that disagree or runs that failed (see above)", len(problems)))
	}
	return nil
}

// compareProgressLine describes the progress of a comparison after el: the runs done of
// the runs planned, and the time left at the pace so far.
func compareProgressLine(el time.Duration, done, total int, what string) string {
	line := fmt.Sprintf("compare: %d of %d runs", done, total)
	if total > 0 {
		line += fmt.Sprintf(", %.0f%%", 100*float64(done)/float64(total))
	}
	if done > 0 && total > done {
		line += ", ETA " + (time.Duration(float64(el) * float64(total-done) / float64(done))).Round(time.Second).String()
	}
	if what != "" {
		line += "; " + what
	}
	return line
}
