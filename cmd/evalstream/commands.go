package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sinks/htmlreport"
	"github.com/evalstream/evalstream/sources"
	"github.com/evalstream/evalstream/sources/kafka"
)

const scoreHelp = `Usage: evalstream score [flags] INPUT...
       evalstream score -r REF [-r REF2]... [flags] HYP...

Scores files without a config. INPUTs are JSONL / Arrow / Parquet files, globs or
directories, or "-" alone: an Arrow IPC stream or JSON Lines on stdin. With -r, the arguments are plain-text files as sacrebleu and jiwer take them:
each HYP file is one system (one segment per line), each -r file one reference, all
line-aligned; any extension, gzip read transparently, "-" for stdin (once). Each system is
reported as the slice system=NAME (its file's base name without .gz and one text extension
such as .txt/.hyp); several systems print a systems x metrics table. Flags may come before
or after the files.

Metrics: --metric TYPE[:opt=val,...], repeatable. name=NAME sets the name the result is
reported under (default the type; repeats of a type are numbered bleu, bleu_2, ...), e.g.
  --metric bleu:name=bleu_intl,tokenize=intl --metric chrf:name=chrf2,beta=2
See "evalstream list" for every type and option.

Examples:
  evalstream score -r newstest.de sysA.de sysB.de --metric bleu:scale=100 --metric chrf
  evalstream score --metric bleu --on-error skip --max-bad 0.01 --output out/results.csv data/*.jsonl

Exit codes: 0 success; 1 runtime failure, including a run that scored no record (whatever
the on-error policy: every record bad, or an empty input) and a run with more bad records
than --max-bad; 2 usage error, including hypothesis and reference files whose line counts
differ (found before anything is scored); 130 or 143 when stopped by SIGINT or SIGTERM
(no results written).

Flags:
`

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), scoreHelp)
		fs.PrintDefaults()
	}
	var metricSpecs, sliceBy, refFiles stringList
	fs.Var(&metricSpecs, "metric", "TYPE[:opt=val,...] (repeatable), e.g. bleu:tokenize=intl,ngram=4 or bleu:name=bleu4")
	fs.Var(&refFiles, "r", "plain-text reference file, line-aligned with every HYP file (repeatable: several references)")
	fs.Var(&refFiles, "ref", "same as -r")
	pred := fs.String("prediction", "", "prediction field (default: each metric's default, `prediction`)")
	refs := fs.String("references", "", "references field (default `references`)")
	label := fs.String("label", "", "label field (default `label`)")
	format := fs.String("format", "table", "output on stdout: table|json")
	output := fs.String("output", "", "also write the results to this file: .json, .csv or .jsonl (appended history)")
	workers := fs.Int("workers", 0, "worker goroutines (0 = one per CPU, after the first 30 ms of a run on one worker and one CPU)")
	batch := fs.Int("batch-size", config.DefaultBatchSize, "records per batch")
	inFormat := fs.String("input-format", "auto", "auto|jsonl|arrow|arrows|parquet (not with -r)")
	onError := fs.String("on-error", "fail", "bad records: fail|skip|dead_letter")
	deadLetter := fs.String("dead-letter", "", "write bad records to this JSONL file (implies --on-error dead_letter)")
	maxBad := fs.String("max-bad", "", "bad records tolerated before the run fails (exit 1): a count (10) or a fraction (0.01); default 0 with --on-error fail, unlimited otherwise")
	fs.Var(&sliceBy, "slice-by", "also report every metric per value of this field (repeatable)")
	savePath := fs.String("save-state", "", "also write the reduced metric states to this file")
	runName := fs.String("run-name", "score", "label of this run in the results JSON, CSV and history")
	noProgress := fs.Bool("no-progress", false, "show no progress on stderr (default: a line redrawn on a terminal, a log line every 10 s otherwise)")
	inputs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(inputs) == 0 {
		if len(refFiles) > 0 {
			return usageErr("score -r REF needs at least one hypothesis file (or - for stdin)")
		}
		return usageErr("score needs at least one INPUT file, glob or directory")
	}
	if len(metricSpecs) == 0 {
		return usageErr("score needs at least one --metric TYPE[:opt=val,...] (see evalstream list)")
	}
	if *format != "table" && *format != "json" {
		return usageErr("--format must be table or json, got %q", *format)
	}
	if *deadLetter != "" {
		if set["on-error"] && *onError != "dead_letter" {
			return usageErr("--dead-letter goes with --on-error dead_letter, not %q", *onError)
		}
		*onError = "dead_letter"
	} else if *onError == "dead_letter" {
		return usageErr("--on-error dead_letter needs --dead-letter FILE")
	}
	text := len(refFiles) > 0
	if text && set["input-format"] {
		return usageErr("--input-format does not apply to plain-text inputs (-r)")
	}
	src := config.Source{Type: "file", Path: inputs[0], Format: *inFormat}
	if text {
		src = config.Source{Type: "text", Hypotheses: inputs, References: refFiles}
	} else {
		if slices.Contains(inputs, sources.Stdin) && len(inputs) > 1 {
			return usageErr("standard input (-) is read alone: give it as the only INPUT")
		}
	}
	cfg := &config.Config{
		Source:   src,
		Pipeline: config.Pipeline{Workers: *workers, BatchSize: *batch, OnError: *onError, MaxBad: *maxBad},
		SliceBy:  sliceBy,
		Sinks:    []config.Sink{{Type: "stdout"}},
	}
	if *deadLetter != "" {
		cfg.Pipeline.DeadLetter.Path = *deadLetter
	}
	if *output != "" {
		typ, err := outputType(*output)
		if err != nil {
			return err
		}
		cfg.Sinks = append(cfg.Sinks, config.Sink{Type: typ, Path: *output})
	}
	names := map[string]int{}
	for _, spec := range metricSpecs {
		entry, err := parseMetricFlag(spec)
		if err != nil {
			return usageErr("--metric %q: %v", spec, err)
		}
		if err := applyFieldFlags(entry, *pred, *refs, *label); err != nil {
			return usageErr("--metric %q: %v", spec, err)
		}
		name := entry["name"].(string)
		if n := names[name]; n > 0 {
			if _, explicit := entry["explicit_name"]; !explicit {
				entry["name"] = fmt.Sprintf("%s_%d", name, n+1)
			}
		}
		delete(entry, "explicit_name")
		names[name]++
		cfg.Metrics = append(cfg.Metrics, entry)
	}
	cfg.ApplyDefaults()
	j, err := buildJob(cfg)
	if err != nil {
		return err
	}
	j.label, j.noProgress = *runName, *noProgress
	var source pipeline.Source
	switch {
	case text:
		ts, err := j.openSource(ctx)
		if err != nil {
			return sourceErr(err)
		}
		source = ts
	case inputs[0] == sources.Stdin:
		// Opened now, so that input whose format cannot be told is a usage error (exit 2)
		// before anything runs, as it is for files.
		ss, err := j.openSource(ctx)
		if errors.Is(err, sources.ErrFormat) {
			err = fmt.Errorf("%w\n(plain-text hypotheses on standard input, one segment per line: give the references with -r REF)", err)
		}
		if err != nil {
			return sourceErr(err)
		}
		source = ss
	default:
		var files []string
		for _, in := range inputs {
			fl, err := sources.Expand(sources.FileConfig{Path: in, Format: *inFormat})
			if errors.Is(err, sources.ErrFormat) {
				err = fmt.Errorf("%w\n(plain-text hypothesis files, one segment per line: give the references with -r REF)", err)
			}
			if err != nil {
				return sourceErr(err)
			}
			files = append(files, fl...)
		}
		j.inputFiles = files
		source = &chainSource{open: func(i int) (pipeline.Source, error) {
			return sources.OpenFiles(sources.FileConfig{Path: files[i], Format: *inFormat}, j.plan.Fields, *batch, cfg.Source.MaxRecordBytes)
		}, n: len(files)}
	}
	defer source.Close()
	if err := j.checkOutputs(*savePath); err != nil {
		return err
	}
	if err := j.startRun(); err != nil {
		return err
	}
	if c, ok := source.(*chainSource); ok {
		for _, in := range j.inputs {
			c.total += in.Size
		}
	}
	acc, out, err := j.fold(ctx, source, stderr)
	if err != nil {
		return err
	}
	if *format == "json" {
		var keep []config.Sink
		for _, s := range j.cfg.Sinks {
			if s.Type != "stdout" {
				keep = append(keep, s)
			}
		}
		j.cfg.Sinks = keep
		if err := j.emit(ctx, acc, out, stdout, *savePath); err != nil {
			return err
		}
		meta := j.runMeta()
		b, err := sinks.ResultsJSON(acc.Results(), &meta)
		if err != nil {
			return runtimeErr(err)
		}
		if _, err := stdout.Write(b); err != nil {
			return err
		}
		return noRecordsErr(acc)
	}
	if err := j.emit(ctx, acc, out, stdout, *savePath); err != nil {
		return err
	}
	return noRecordsErr(acc)
}

// outputType is the sink type that --output FILE writes, from the file's extension.
func outputType(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json", ".csv", ".jsonl":
		return ext[1:], nil
	default:
		return "", usageErr("--output %s: cannot tell the format from the extension %q; use .json, .csv or .jsonl", path, ext)
	}
}

// noRecordsErr fails a run that scored no record (exit 1), whatever the bad-record policy:
// a run whose every record was rejected (or whose input was empty) computed nothing, and a
// nightly job must not pass on it. The results are written before, so the reasons show.
func noRecordsErr(acc *pipeline.Accumulator) error {
	if acc.Records > 0 {
		return nil
	}
	if acc.Skipped > 0 {
		return runtimeErr(fmt.Errorf("no record was scored: all %d records were bad (their reasons are in the results); a run that scores nothing exits 1 whatever on_error", acc.Skipped))
	}
	return runtimeErr(errors.New("no record was scored: the input holds no records"))
}

// parseInterspersed parses flags that may come before, between or after the positional
// arguments (as sacrebleu and most CLIs allow); "--" ends the flags. It returns the
// positional arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseMetricFlag parses TYPE[:opt=val,...]. Values in brackets may contain commas
// (weights=[0.5,0.5]).
func parseMetricFlag(spec string) (map[string]any, error) {
	typ, opts, _ := strings.Cut(spec, ":")
	if typ == "" {
		return nil, errors.New("missing metric type")
	}
	entry := map[string]any{"type": typ, "name": typ}
	depth := 0
	start := 0
	var parts []string
	for i, r := range opts {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, opts[start:i])
				start = i + 1
			}
		}
	}
	if opts != "" {
		parts = append(parts, opts[start:])
	}
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("option %q: want key=value", p)
		}
		if k == "type" {
			return nil, errors.New("the type goes before the colon")
		}
		if k == "name" {
			entry["explicit_name"] = true
		}
		entry[k] = v
	}
	return entry, nil
}

// applyFieldFlags sets the --prediction/--references/--label field names on the metric's
// roles that exist.
func applyFieldFlags(entry map[string]any, pred, refs, label string) error {
	probe := map[string]any{}
	for k, v := range entry {
		if k != "explicit_name" {
			probe[k] = v
		}
	}
	m, err := metrics.New(probe)
	if err != nil {
		return nil // reported with every other problem by buildJob
	}
	for _, r := range m.Roles() {
		if _, set := entry[r.Name]; set {
			continue
		}
		switch {
		case r.Name == "prediction" && pred != "":
			entry[r.Name] = pred
		case r.Name == "references" && refs != "":
			entry[r.Name] = refs
		case r.Name == "label" && label != "":
			entry[r.Name] = label
		}
	}
	return nil
}

// chainSource reads several sources one after the other, keeping Seq globally increasing.
type chainSource struct {
	open func(i int) (pipeline.Source, error)
	n    int
	i    int
	cur  pipeline.Source
	// total is the size of all the files, for the progress display.
	total int64
}

// TotalBytes is the size of all the files (pipeline.Sizer).
func (c *chainSource) TotalBytes() int64 { return c.total }

func (c *chainSource) Next(ctx context.Context) (*pipeline.Batch, error) {
	for {
		if c.cur == nil {
			if c.i >= c.n {
				return nil, io.EOF
			}
			s, err := c.open(c.i)
			if err != nil {
				return nil, err
			}
			c.cur = s
		}
		b, err := c.cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			if err := c.cur.Close(); err != nil {
				return nil, err
			}
			c.cur = nil
			c.i++
			continue
		}
		if err != nil {
			return nil, err
		}
		for k := range b.Records {
			b.Records[k].Seq += uint64(c.i) << 48
		}
		return b, nil
	}
}

func (c *chainSource) Close() error {
	if c.cur != nil {
		return c.cur.Close()
	}
	return nil
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", stderr)
	out := fs.String("o", "", "output state file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErr("merge needs -o OUT.state and at least one STATE file")
	}
	acc, err := mergeStateFiles(fs.Args())
	if err != nil {
		return err
	}
	b, err := pipeline.EncodeState(acc)
	if err != nil {
		return runtimeErr(err)
	}
	if err := sinks.WriteFileAtomic(*out, b); err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(stdout, "merged %d states (%d records) into %s\n", fs.NArg(), acc.Records, *out)
	return nil
}

func mergeStateFiles(paths []string) (*pipeline.Accumulator, error) {
	var acc *pipeline.Accumulator
	cov := coverage{}
	for _, p := range paths {
		a, err := pipeline.ReadStateFile(p)
		if err != nil {
			return nil, runtimeErr(err)
		}
		if acc != nil {
			if err := pipeline.SameShape(acc, a); err != nil {
				return nil, runtimeErr(fmt.Errorf("%s: %w", p, err))
			}
		}
		if err := cov.add(p, a); err != nil {
			return nil, runtimeErr(err)
		}
		if acc == nil {
			acc = a
			continue
		}
		if err := acc.Merge(a); err != nil {
			return nil, runtimeErr(fmt.Errorf("%s: %w", p, err))
		}
	}
	return acc, nil
}

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	format := fs.String("format", "table", "output: table|json")
	fromKafka := fs.String("from-kafka", "", "merge every partition's latest snapshot in this Kafka state topic")
	brokers := fs.String("brokers", "", "Kafka brokers (comma-separated) for --from-kafka")
	cfgPath := fs.String("c", "", "for --from-kafka: a pipeline config whose Kafka source gives the brokers (unless --brokers), TLS and SASL settings")
	htmlOut := fs.String("html", "", "write a self-contained HTML report to this file (inputs: state files or one results JSON)")
	history := fs.String("history", "", "with --html: a history JSONL (the jsonl sink's file) to draw trends from")
	baseline := fs.String("baseline", "", "with --html: a results JSON or state file to show deltas against")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *htmlOut == "" && (*history != "" || *baseline != "") {
		return usageErr("--history and --baseline go with --html")
	}
	if *htmlOut != "" && *fromKafka == "" {
		if fs.NArg() == 0 {
			return usageErr("report --html needs STATE files or a results JSON")
		}
		run, err := loadReportRun(fs.Args())
		if err != nil {
			return err
		}
		return writeHTMLReport(*htmlOut, fs.Args(), run, *baseline, *history)
	}
	if *format != "table" && *format != "json" {
		return usageErr("--format must be table or json, got %q", *format)
	}
	if *fromKafka == "" && (*cfgPath != "" || *brokers != "") {
		return usageErr("-c and --brokers go with --from-kafka")
	}
	var acc *pipeline.Accumulator
	var err error
	switch {
	case *fromKafka != "":
		if fs.NArg() > 0 {
			return usageErr("give either --from-kafka or STATE files, not both")
		}
		kc := kafka.Config{StateTopic: *fromKafka}
		if *cfgPath != "" {
			cfg, err := config.Load(*cfgPath, nil)
			if err != nil {
				return usageErr("%v", err)
			}
			if cfg.Source.Type != "kafka" {
				return usageErr("%s: -c needs a config with a kafka source, got source type %q", *cfgPath, cfg.Source.Type)
			}
			kc.Brokers = cfg.Source.Brokers
			kc.ConnectTimeout = time.Duration(cfg.Source.ConnectTimeout)
			if err := kafkaSecurity(&kc, cfg.Source); err != nil {
				return err
			}
		}
		if *brokers != "" {
			kc.Brokers = strings.Split(*brokers, ",")
		}
		if len(kc.Brokers) == 0 {
			return usageErr("--from-kafka needs --brokers or -c with a Kafka config")
		}
		acc, err = reportFromKafka(ctx, kc)
	case fs.NArg() == 0:
		return usageErr("report needs STATE files or --from-kafka")
	default:
		acc, err = mergeStateFiles(fs.Args())
	}
	if err != nil {
		return err
	}
	res := acc.Results()
	if *htmlOut != "" {
		run, err := htmlreport.FromResults(res)
		if err != nil {
			return runtimeErr(err)
		}
		return writeHTMLReport(*htmlOut, []string{"kafka:" + *fromKafka}, run, *baseline, *history)
	}
	if *format == "json" {
		b, err := sinks.IndentedJSON(res)
		if err != nil {
			return runtimeErr(err)
		}
		_, err = stdout.Write(b)
		return err
	}
	return (&sinks.Table{W: stdout}).Write(ctx, res)
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("list takes no arguments")
	}
	var b strings.Builder
	b.WriteString("Metric types (option defaults in brackets; `compat` picks a preset, the first is the default;\n`matches` names the reference implementation of each preset, in the same order).\n")
	b.WriteString("Every metric also takes `name` and, per input role, the record field it reads.\n")
	b.WriteString("`sig` is each preset's signature with default options: type:T|compat:P|options in a fixed\norder|version:V (results add nrefs after compat where a record has references).\n\n")
	for _, d := range metrics.Docs() {
		fmt.Fprintf(&b, "%s\n", d.Type)
		fmt.Fprintf(&b, "  value:    %s\n", d.Value)
		fmt.Fprintf(&b, "  better:   %s\n", d.Direction)
		fmt.Fprintf(&b, "  compat:   %s\n", strings.Join(d.Presets, " | "))
		fmt.Fprintf(&b, "  matches:  %s\n", referenceLine(d.Presets))
		for _, p := range d.Presets {
			entry := map[string]any{"type": d.Type, "compat": p}
			for _, o := range d.Options {
				if o.Default == "required" {
					entry[o.Name] = 10
				}
			}
			if m, err := metrics.New(entry); err == nil {
				fmt.Fprintf(&b, "  sig:      %s\n", m.Signature())
			}
		}
		entry := map[string]any{"type": d.Type}
		for _, o := range d.Options {
			if o.Default == "required" { // the roles do not depend on its value
				entry[o.Name] = 1
			}
		}
		m, err := metrics.New(entry)
		if err == nil {
			for i, r := range m.Roles() {
				req := "optional"
				if r.Required {
					req = "required"
				}
				var kinds []string
				for _, k := range r.Accepts {
					kinds = append(kinds, k.String())
				}
				fmt.Fprintf(&b, "  input:    %-12s field [%s], %s, accepts %s\n", r.Name, m.Fields[i], req, strings.Join(kinds, " | "))
			}
		}
		for _, o := range d.Options {
			fmt.Fprintf(&b, "  option:   %-16s [%s] %s\n", o.Name, o.Default, o.Help)
		}
		for _, inv := range d.Invalid {
			fmt.Fprintf(&b, "  rejects:  %s\n", inv)
		}
		if d.Memory != "" {
			fmt.Fprintf(&b, "  memory:   %s\n", d.Memory)
		}
		if err == nil {
			ci := "no interval (not a score)"
			if d.Direction != core.DirectionNone {
				ci = "poisson: " + stats.ReplicateCost(m.Metric)
			}
			fmt.Fprintf(&b, "  ci:       %s\n", ci)
			sb := stats.Config{Method: stats.MethodSacrebleu, Resamples: 1000, Level: 0.95, Seed: 12345}
			if w, err := m.WithCI(sb); err == nil {
				if mem, ok := w.Metric.(interface{ Memory() string }); ok {
					fmt.Fprintf(&b, "            sacrebleu (--confidence, --paired-bs, --paired-ar exactly): %s\n", mem.Memory())
				}
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(`Input shapes (JSON value / Arrow type):
  text prediction     string (tokenized by the metric) | list<string> (tokens, never re-tokenized)
  text references     list<string> (references) | string (one reference) | list<list<string>> (pre-tokenized)
  class prediction    integer class id | class name (with the classes option) | list<float> scores (argmax, first maximum wins)
  class label         integer class id | class name (with the classes option) | list<float> one-hot
  regression          float | integer | decimal
  perplexity          list<float> probabilities/logits (with label) | list<float> token log-probs (input: logprobs)
  retrieval ranking   list<string> | list<integer> document ids in rank order (an integer id is its decimal string)
  retrieval judgments references: list of relevant ids | relevance: id -> integer grade (JSON object,
                      Arrow/Parquet map, list<struct<key, value>>, or a struct of numbers: its non-null fields)
  (Arrow/Parquet decimal: read as its JSON literal, an integer for scale 0 when it fits int64,
   otherwise the float nearest the exact value)

Values, whatever the format (JSON, Arrow, Parquet, Kafka JSON or Arrow messages):
  booleans            class ids 0 and 1 (JSON true/false, Arrow/Parquet bool); in a list, 0/1 entries;
                      never a regression value (wrong type)
  NaN, ±Inf           never scored: a record holding one in any field a metric reads is rejected as
                      "non-finite value" (JSON 1e999 is +Inf), the field and value named

Rejection reasons (the keys of results "errors"; results name, per reason, the first 5 rejected
records in input order in "error_examples", whatever the worker count):
  before any metric sees the record:
    invalid json            a JSON line or message that does not parse, or is not an object
    invalid utf-8           a string in a field read that is not valid UTF-8 (every format)
    record too large        a JSON line or message over source.max_record_bytes
    non-finite value        NaN or ±Inf in a field a metric reads (every format)
    invalid arrow           a Kafka message (format: arrow) that is not a valid Arrow IPC stream
    tombstone (null value)  a Kafka message whose value is null (its dead letter keeps the key)
    late record             with a window: its window had closed (allowed_lateness passed)
  by a metric (each metric's own cases are listed above under "rejects"):
`)
	seen := map[string]bool{}
	var reasons []string
	for _, d := range metrics.Docs() {
		for _, inv := range d.Invalid {
			r, _, _ := strings.Cut(inv, ":")
			if !seen[r] {
				seen[r] = true
				reasons = append(reasons, r)
			}
		}
	}
	sort.Strings(reasons)
	line := "   "
	for i, r := range reasons {
		if i > 0 {
			line += ","
		}
		if len(line)+1+len(r) > 96 {
			b.WriteString(line + "\n")
			line = "   "
		}
		line += " " + r
	}
	b.WriteString(line + "\n")
	_, err := io.WriteString(stdout, b.String())
	return err
}
