package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalstream/evalstream/cmd/evalstream/internal/startup"
	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/gate"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources"
	"github.com/evalstream/evalstream/sources/text"
	"github.com/evalstream/evalstream/stream"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return withHelp(fs, name) // help.go
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{0, errHelp}
		}
		return &exitError{2, err}
	}
	return nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	cfgPath := fs.String("c", "", "pipeline config file (YAML or JSON)")
	fs.StringVar(cfgPath, "config", "", "same as -c")
	savePath := fs.String("save-state", "", "also write the reduced metric states to this file (for merge/report)")
	runName := fs.String("run-name", "", "label of this run in the results JSON, CSV and history (default: the config's run_name, else the config file's base name)")
	gitCommit := fs.String("git-commit", "", "commit recorded in the history (default: HEAD of the working directory's git work tree)")
	noProgress := fs.Bool("no-progress", false, "show no progress on stderr (default: a line redrawn on a terminal, a log line every 10 s otherwise; percent and ETA of a file run or a bounded Kafka run, the lag of a continuous one)")
	var sets stringList
	fs.Var(&sets, "set", "override a config value: key.path=value (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *cfgPath == "" || fs.NArg() > 0 {
		return usageErr("run needs -c PIPELINE.yaml and no other arguments")
	}
	cfg, err := config.Load(*cfgPath, sets)
	if err != nil {
		return usageErr("%v", err)
	}
	j, err := buildJob(cfg)
	if err != nil {
		return err
	}
	if err := j.prepareGate(); err != nil { // gate.go
		return err
	}
	j.label, j.gitCommit, j.noProgress = *runName, *gitCommit, *noProgress
	if j.label == "" {
		j.label = cfg.RunName
	}
	if j.label == "" {
		j.label = runLabel(*cfgPath)
	}
	return j.execute(ctx, stdout, stderr, *savePath)
}

// job is a validated pipeline: config plus the metrics built from it.
type job struct {
	cfg  *config.Config
	plan *pipeline.Plan
	// systems names the systems of a text source, in hypothesis-file order.
	systems []string

	// The run's description for the history (see startRun): label and gitCommit may be
	// set before the run (flags); the rest is set by startRun.
	label     string
	gitCommit string
	startedAt time.Time
	// emitted, while an emission writes its sinks, is the duration they all report.
	emitted time.Duration
	inputs  []sinks.Input
	// covered, during a Kafka run, returns the offset ranges the results cover
	// (stream.Engine.Covered); runMeta adds them to the topics of inputs.
	covered func() []stream.Range
	// inputFiles, when set, are the input files (score's arguments, each expanded),
	// instead of those source.path selects.
	inputFiles []string
	// noProgress turns the progress display on stderr off (--no-progress).
	noProgress bool
	// segmentMajor has a text source give every system's line i before line i+1 (compare:
	// the metrics then reuse a segment's reference work across its systems).
	segmentMajor bool

	// gate is the config's gate, prepared before the run; verdict its outcome (gate.go).
	gate    *gate.Gate
	verdict *gate.Verdict
}

// buildJob validates the config and builds every metric, reporting every problem at once
// (exit code 2).
func buildJob(cfg *config.Config) (*job, error) {
	var probs []string
	if err := cfg.Validate(); err != nil {
		var p config.Problems
		if errors.As(err, &p) {
			probs = append(probs, p...)
		} else {
			probs = append(probs, err.Error())
		}
	}
	var ms []*metrics.Metric
	for i, entry := range cfg.Metrics {
		if _, ok := entry["type"]; !ok {
			continue // reported by Validate
		}
		m, err := metrics.New(normalizeEntry(entry))
		if err != nil {
			if oe, ok := core.AsOptionError(err); ok {
				for _, p := range oe.Problems {
					probs = append(probs, fmt.Sprintf("metrics[%d].%s", i, p))
				}
			} else {
				probs = append(probs, fmt.Sprintf("metrics[%d]: %v", i, err))
			}
			continue
		}
		if ci := cfg.CI; ci != nil {
			if m, err = m.WithCI(stats.Config{Method: ci.Method, Resamples: ci.Resamples, Level: ci.Level, Seed: *ci.Seed, Key: ci.Key}); err != nil {
				probs = append(probs, fmt.Sprintf("metrics[%d]: %v", i, err))
				continue
			}
		}
		ms = append(ms, m)
	}
	if len(probs) > 0 {
		sort.Strings(probs)
		return nil, usageErr("invalid config:\n  %s", strings.Join(probs, "\n  "))
	}
	var extra []string
	if cfg.Window != nil && cfg.Window.Time == "event" {
		extra = append(extra, cfg.Window.Field)
	}
	for _, s := range cfg.Sinks {
		if s.Type == "examples" {
			extra = append(extra, "id")
		}
	}
	var systems []string
	if cfg.Source.Type == "text" {
		for _, f := range cfg.SliceBy {
			if f != text.FieldSystem {
				return nil, usageErr("slice_by %q: plain-text records have only the fields prediction, references and system; they are always reported per system", f)
			}
		}
		// Every text record carries its system: results are always reported per system.
		for _, h := range cfg.Source.Hypotheses {
			systems = append(systems, text.SystemName(h))
		}
		if !slices.Contains(cfg.SliceBy, text.FieldSystem) {
			cfg.SliceBy = append([]string{text.FieldSystem}, cfg.SliceBy...)
		}
	}
	return &job{cfg: cfg, plan: pipeline.NewPlan(ms, cfg.SliceBy, extra...), systems: systems}, nil
}

// normalizeEntry turns YAML scalars into strings for the name and type keys.
func normalizeEntry(e map[string]any) map[string]any {
	out := make(map[string]any, len(e))
	for k, v := range e {
		if (k == "type" || k == "name") && v != nil {
			v = fmt.Sprint(v)
		}
		out[k] = v
	}
	return out
}

func (j *job) policy() pipeline.Policy {
	p := j.cfg.Pipeline
	n, f, isFrac, unlimited, _ := p.MaxBadLimit()
	return pipeline.Policy{OnError: p.OnError, MaxBad: n, MaxBadFraction: f, IsFraction: isFrac, Unlimited: unlimited}
}

// configSignature identifies what a run computes (metric signatures, slices, source), for
// the JSONL history.
func (j *job) configSignature() string {
	h := sha256.New()
	for _, m := range j.plan.Metrics {
		fmt.Fprintf(h, "%s=%s\n", m.Name, m.Signature())
	}
	fmt.Fprintf(h, "slice_by=%v\nsource=%s:%s%s%v\n", j.cfg.SliceBy, j.cfg.Source.Type, j.cfg.Source.Path, j.cfg.Source.Topic, j.cfg.Source.Topics)
	if j.cfg.Source.Type == "text" {
		fmt.Fprintf(h, "hypotheses=%q\nreferences=%q\n", j.cfg.Source.Hypotheses, j.cfg.Source.References)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

func (j *job) sinks(stdout io.Writer) []pipeline.Sink {
	var out []pipeline.Sink
	for _, s := range j.cfg.Sinks {
		switch s.Type {
		case "stdout":
			if len(j.systems) > 1 {
				out = append(out, &sinks.SystemsTable{W: stdout, Field: text.FieldSystem, Systems: j.systems})
			} else {
				out = append(out, &sinks.Table{W: stdout})
			}
		case "json":
			out = append(out, &sinks.JSON{Path: s.Path, Meta: j.runMeta})
		case "csv":
			out = append(out, &sinks.CSV{Path: s.Path, Meta: j.runMeta})
		case "html":
			out = append(out, &sinks.HTML{Path: s.Path, Meta: j.runMeta})
		case "jsonl":
			out = append(out, &sinks.JSONL{Path: s.Path, Signature: j.configSignature(), Meta: j.runMeta})
		}
	}
	return out
}

func (j *job) examplesSink() (path, format string) {
	for _, s := range j.cfg.Sinks {
		if s.Type == "examples" {
			return s.Path, s.Format
		}
	}
	return "", ""
}

func (j *job) openSource(ctx context.Context) (pipeline.Source, error) {
	c := j.cfg
	switch c.Source.Type {
	case "text":
		return text.Open(ctx, text.Config{Hypotheses: c.Source.Hypotheses, References: c.Source.References, SegmentMajor: j.segmentMajor}, j.plan.Fields, c.Pipeline.BatchSize)
	case "file":
		src, err := sources.OpenFiles(sources.FileConfig{Path: c.Source.Path, Format: c.Source.Format}, j.plan.Fields, c.Pipeline.BatchSize, c.Source.MaxRecordBytes)
		if err != nil {
			return nil, err
		}
		return src, nil
	}
	return nil, usageErr("source.type %q is not supported by this build", c.Source.Type)
}

// sourceErr maps an error selecting or opening the input files: a file whose format cannot
// be told, does not match source.format, or is not read (Feather V1) is a usage error (exit
// 2: the user sets the format or converts the file); anything else is a runtime failure.
func sourceErr(err error) error {
	if errors.Is(err, sources.ErrFormat) || errors.Is(err, text.ErrInput) {
		return &exitError{2, err}
	}
	return runtimeErr(err)
}

// execute runs the job to the end of its input and writes the results.
func (j *job) execute(ctx context.Context, stdout, stderr io.Writer, savePath string) error {
	if err := j.checkOutputs(savePath); err != nil {
		return err
	}
	if err := j.startRun(); err != nil {
		return err
	}
	if j.cfg.Source.Type == "kafka" {
		startup.AllCPUs() // a Kafka run has no one-CPU start (no fold)
		return j.executeKafka(ctx, stdout, stderr, savePath)
	}
	src, err := j.openSource(ctx)
	if err != nil {
		return sourceErr(err)
	}
	defer src.Close()
	acc, out, err := j.fold(ctx, src, stderr)
	if err != nil {
		return err
	}
	if err := j.emit(ctx, acc, out, stdout, savePath); err != nil {
		return err
	}
	if err := noRecordsErr(acc); err != nil {
		return err
	}
	return j.gateOutcome(stdout, stderr)
}

// checkOutputs fails (exit 1) when an output file of the job could not be written — its
// path is a directory, or its directory cannot be created or written — before the run
// spends any time on its input (or, for Kafka, connects).
func (j *job) checkOutputs(savePath string) error {
	kafka := j.cfg.Source.Type == "kafka"
	if savePath != "" {
		if err := sinks.CheckWritable(savePath); err != nil {
			return runtimeErr(err)
		}
	}
	if dl := j.cfg.Pipeline.DeadLetter; j.cfg.Pipeline.OnError == "dead_letter" && dl.Path != "" {
		check := sinks.CheckWritable // a file run replaces the file
		if kafka {
			check = sinks.CheckAppendable // a Kafka run appends to it
		}
		if err := check(dl.Path); err != nil {
			return runtimeErr(err)
		}
	}
	for _, s := range j.cfg.Sinks {
		var err error
		switch {
		case s.Type == "json" || s.Type == "html" || (s.Type == "examples" && !kafka):
			err = sinks.CheckWritable(s.Path)
		case s.Type == "jsonl":
			err = sinks.CheckAppendable(s.Path)
		case s.Type == "csv":
			// Rows are appended: a file with another header is refused before the run.
			if err = sinks.CheckAppendable(s.Path); err == nil {
				_, err = sinks.CheckCSVHeader(s.Path)
			}
		}
		if err != nil {
			return runtimeErr(err)
		}
	}
	return nil
}

// oneCPUStart is how long a run folds on one worker and one CPU before every worker starts,
// one per CPU (when pipeline.workers is 0 and GOMAXPROCS is not set). A short run ends
// before it: a second worker and running thread would have cost it more CPU than they save
// time (on 1,500 summaries, 1.1 MB, with four ROUGE metrics: 12% more CPU for 3 ms less wall
// time; the workers share a cold vocabulary, each faults in its own scratch, and the runtime
// spins and shoots down TLBs between the threads). A longer run loses at most this much of
// its parallel time. score and run of a file are on one CPU from the start of the process
// (package startup) until their fold ramps up or, with a fixed number of workers, starts.
const oneCPUStart = 30 * time.Millisecond

// fold runs the worker pool over src, with dead letters, per-record scores and progress.
// The dead letters and scores are written to temporary files that emit moves into place
// (out is nil when there are none).
func (j *job) fold(ctx context.Context, src pipeline.Source, stderr io.Writer) (*pipeline.Accumulator, *sinks.RecordFiles, error) {
	deadPath := ""
	if j.cfg.Pipeline.OnError == "dead_letter" {
		deadPath = j.cfg.Pipeline.DeadLetter.Path
	}
	exPath, exFormat := j.examplesSink()
	var out *sinks.RecordFiles
	if deadPath != "" || exPath != "" {
		var names []string
		for _, m := range j.plan.Metrics {
			names = append(names, m.Name)
		}
		var err error
		if out, err = sinks.NewRecordFiles(deadPath, exPath, exFormat, names); err != nil {
			return nil, nil, runtimeErr(err)
		}
	}
	progress := &pipeline.Progress{}
	stopProgress := startProgress(stderr, j.noProgress, progress, src)
	rc := pipeline.Config{Plan: j.plan, Workers: j.cfg.Pipeline.Workers, Policy: j.policy(), Progress: progress, WantExamples: exPath != "", ExampleID: "id"}
	if procs := startup.Procs(); rc.Workers == 0 && procs > 1 && os.Getenv("GOMAXPROCS") == "" {
		// One worker per CPU, but one worker on one CPU for the first oneCPUStart (see there).
		// score and run come here on one CPU already (startup); compare has run on all.
		rc.Workers = procs
		runtime.GOMAXPROCS(1)
		ramp := make(chan struct{})
		rc.Ramp = ramp
		t := time.AfterFunc(oneCPUStart, func() {
			startup.AllCPUs()
			close(ramp)
		})
		defer func() {
			t.Stop()
			startup.AllCPUs()
		}()
	} else {
		startup.AllCPUs()
	}
	if out != nil {
		rc.Output = out
	}
	acc, err := pipeline.Run(ctx, src, rc)
	stopProgress()
	if err != nil {
		if out != nil {
			out.Abort()
		}
		if ctx.Err() != nil {
			return nil, nil, runtimeErr(interrupted(ctx, progress.Records.Load()))
		}
		return nil, nil, runtimeErr(err)
	}
	return acc, out, nil
}

// interrupted is the error of a file run stopped by a signal.
func interrupted(ctx context.Context, records int64) error {
	cause := "interrupted"
	var s interruptSignal
	if errors.As(context.Cause(ctx), &s) {
		cause = "interrupted by " + s.name()
	}
	return fmt.Errorf("%s after %d records; no results written", cause, records)
}

// emit writes the results to every sink, the state file and the per-record files (out, may
// be nil) so that a failure changes none of them: the files are all written under
// temporary names first, then the JSONL history is appended, then the files are moved into
// place; the table is printed last.
func (j *job) emit(ctx context.Context, acc *pipeline.Accumulator, out *sinks.RecordFiles, stdout io.Writer, savePath string) error {
	res := acc.Results()
	if err := j.applyGate(acc, res); err != nil {
		return err
	}
	// Every sink of this emission describes the run alike (one duration), so that the html
	// sink's page equals the page of the json sink's file.
	j.emitted = time.Since(j.startedAt)
	defer func() { j.emitted = 0 }()
	var staged []*sinks.AtomicFile
	fail := func(err error) error {
		for _, f := range staged {
			f.Abort()
		}
		if out != nil {
			out.Abort()
		}
		return runtimeErr(err)
	}
	if out != nil {
		if err := out.Finish(); err != nil {
			return fail(err)
		}
	}
	if savePath != "" {
		acc.SetCovers(j.inputIDs())
		b, err := pipeline.EncodeState(acc)
		if err != nil {
			return fail(err)
		}
		f, err := sinks.CreateAtomic(savePath)
		if err != nil {
			return fail(err)
		}
		staged = append(staged, f)
		if _, err := f.Write(b); err != nil {
			return fail(err)
		}
		if err := f.Finish(); err != nil {
			return fail(err)
		}
	}
	var later []pipeline.Sink
	for _, s := range j.sinks(stdout) {
		st, ok := s.(sinks.Stager)
		if !ok {
			later = append(later, s)
			continue
		}
		f, err := st.Stage(res)
		if err != nil {
			return fail(err)
		}
		staged = append(staged, f)
	}
	// The history is appended before the files are renamed: an append can fail (a full
	// disk), a rename of a written file in its own directory practically cannot.
	var table []pipeline.Sink
	for _, s := range later {
		if isTable(s) {
			table = append(table, s)
			continue
		}
		if err := s.Write(ctx, res); err != nil {
			return fail(err)
		}
		if err := s.Close(); err != nil {
			return fail(err)
		}
	}
	if out != nil {
		if err := out.Commit(); err != nil {
			return fail(err)
		}
		out = nil
	}
	for i, f := range staged {
		if err := f.Commit(); err != nil {
			staged = staged[i+1:]
			return fail(err)
		}
	}
	for _, s := range table {
		if err := s.Write(ctx, res); err != nil {
			return runtimeErr(err)
		}
		if err := s.Close(); err != nil {
			return runtimeErr(err)
		}
	}
	return nil
}

// examplesPath is the examples sink's path, or "".
func (j *job) examplesPath() string {
	p, _ := j.examplesSink()
	return p
}

// isTable reports whether s prints to stdout; those sinks are written last, after every file
// is in place.
func isTable(s pipeline.Sink) bool {
	switch s.(type) {
	case *sinks.Table, *sinks.SystemsTable:
		return true
	}
	return false
}
