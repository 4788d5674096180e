package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/compare"
	"github.com/evalstream/evalstream/sources/text"
)

// cmdCompare is `evalstream compare` (statistics.md §2): paired tests of candidates against
// a baseline, from saved states or from one input holding every system.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", stderr)
	baseline := fs.String("baseline", "", "the baseline: a state file (with STATE arguments) or a value of --system-field (with -c)")
	cfgPath := fs.String("c", "", "a pipeline config whose input holds every system (with --system-field)")
	fs.StringVar(cfgPath, "config", "", "same as -c")
	systemField := fs.String("system-field", "", "with -c: the record field naming the system (default: system for a text source)")
	testName := fs.String("test", compare.TestBootstrap, "bs (paired bootstrap) | ar (paired approximate randomization; with -c only)")
	trials := fs.Int("trials", stats.DefaultTrials, "--test ar: randomization trials")
	alpha := fs.Float64("alpha", 0.05, "significance level: p < alpha is marked significant")
	format := fs.String("format", "table", "output: table|json")
	noProgress := fs.Bool("no-progress", false, "with -c: show no progress on stderr (default: a line redrawn on a terminal, a log line every 10 s otherwise)")
	var sets stringList
	fs.Var(&sets, "set", "with -c: override a config value: key.path=value (repeatable)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *baseline == "":
		return usageErr("compare needs --baseline (a state file, or with -c a system name)")
	case *testName != compare.TestBootstrap && *testName != compare.TestRandomization:
		return usageErr("--test must be bs or ar, got %q", *testName)
	case !(*alpha > 0 && *alpha < 1):
		return usageErr("--alpha %v is not strictly between 0 and 1", *alpha)
	case *trials < 1 || *trials > maxTrials:
		return usageErr("--trials %d is outside 1..%d", *trials, maxTrials)
	case *format != "table" && *format != "json":
		return usageErr("--format must be table or json, got %q", *format)
	}
	opt := compare.Options{Test: *testName, Alpha: *alpha, Trials: *trials}
	var systems []compare.System
	var base int
	if *cfgPath != "" {
		if len(pos) > 0 {
			return usageErr("with -c, compare takes no STATE arguments (got %s)", strings.Join(pos, " "))
		}
		systems, base, err = compareFromConfig(ctx, *cfgPath, sets, *systemField, *baseline, *noProgress, &opt, stderr)
	} else {
		switch {
		case *systemField != "" || len(sets) > 0:
			return usageErr("--system-field and --set go with -c PIPELINE.yaml")
		case len(pos) == 0:
			return usageErr("compare needs candidate STATE files after --baseline BASE.state (or -c PIPELINE.yaml --system-field FIELD)")
		}
		systems, err = compareFromStates(append([]string{*baseline}, pos...), &opt)
		if err == nil && *testName == compare.TestRandomization && opt.CI.Method == stats.MethodPoisson {
			return usageErr("--test ar needs the inputs folded by compare itself (-c PIPELINE.yaml --system-field FIELD): saved states carry bootstrap replicates, not randomization trials; use --test bs with states")
		}
	}
	if err != nil {
		return err
	}
	rep, err := compare.Compare(ctx, systems, base, opt)
	if err != nil {
		if errors.Is(err, stats.ErrUnpaired) || errors.Is(err, stats.ErrNoReplicates) {
			return usageErr("%v", err)
		}
		return runtimeErr(err)
	}
	if *format == "json" {
		raw, err := rep.MarshalJSON()
		if err != nil {
			return runtimeErr(err)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			return runtimeErr(err)
		}
		out.WriteByte('\n')
		_, err = stdout.Write(out.Bytes())
		return err
	}
	return rep.WriteTable(stdout, 4)
}

// compareSegmentMajor is whether compare -c has a text source feed its records segment by
// segment; a test turns it off to check that the order changes no byte of the output.
var compareSegmentMajor = true

// maxTrials bounds --trials: a randomization state holds two states per trial.
const maxTrials = 1000000

// compareFromStates reads saved states, one system each (named by the file's base name
// without its extension, or by its path when two base names are equal), and checks that
// they pair: same resampling set-up, metrics and slice fields.
func compareFromStates(paths []string, opt *compare.Options) ([]compare.System, error) {
	names := make([]string, len(paths))
	seen := map[string]int{}
	for i, p := range paths {
		b := filepath.Base(p)
		names[i] = strings.TrimSuffix(b, filepath.Ext(b))
		seen[names[i]]++
	}
	var systems []compare.System
	var first *pipeline.Accumulator
	for i, p := range paths {
		acc, err := pipeline.ReadStateFile(p)
		if err != nil {
			return nil, runtimeErr(err)
		}
		ci := acc.Plan().CI()
		if ci == nil {
			return nil, usageErr("%s: saved without ci (its states have no bootstrap replicates): run it with a `ci:` section to compare it", p)
		}
		if ci.Method != stats.MethodPoisson && ci.Method != stats.MethodSacrebleu {
			return nil, usageErr("%s: ci.method %s: compare tests states of method poisson or sacrebleu", p, ci.Method)
		}
		if first == nil {
			first = acc
			opt.CI = *ci
			for _, m := range acc.Plan().Metrics {
				opt.Names = append(opt.Names, m.Name)
			}
		} else {
			if err := stats.SameConfig(opt.CI, *ci); err != nil {
				return nil, usageErr("%s vs %s: %v", paths[0], p, err)
			}
			if err := sameMetrics(first.Plan(), acc.Plan()); err != nil {
				return nil, usageErr("%s vs %s: %v", paths[0], p, err)
			}
		}
		name := names[i]
		if seen[name] > 1 {
			name = p
		}
		s := compare.System{Name: name, States: acc.States, Slices: map[string][]core.State{}}
		for k, sl := range acc.Slices {
			s.Slices[k] = sl.States
		}
		systems = append(systems, s)
	}
	return systems, nil
}

// sameMetrics names the first difference between two plans' metrics or slice fields.
func sameMetrics(a, b *pipeline.Plan) error {
	if !slices.Equal(a.SliceBy, b.SliceBy) {
		return fmt.Errorf("%w: slice_by %v vs %v", stats.ErrUnpaired, a.SliceBy, b.SliceBy)
	}
	if len(a.Metrics) != len(b.Metrics) {
		return fmt.Errorf("%w: %d metrics vs %d", stats.ErrUnpaired, len(a.Metrics), len(b.Metrics))
	}
	for i, ma := range a.Metrics {
		mb := b.Metrics[i]
		switch {
		case ma.Name != mb.Name:
			return fmt.Errorf("%w: metric %d is %s vs %s", stats.ErrUnpaired, i, ma.Name, mb.Name)
		case ma.Signature() != mb.Signature():
			return fmt.Errorf("%w: metric %s: options or versions differ (%s; signatures %s vs %s)", stats.ErrUnpaired, ma.Name, core.SigDiff(ma.Signature(), mb.Signature()), ma.Signature(), mb.Signature())
		}
	}
	return nil
}

// compareFromConfig folds a pipeline's input with the system field as the first slice
// field and returns one system per value of it (baseline index base); a system's totals
// are the merge of its slices. Pairing needs the same resampling unit for a segment in
// every system: the ci.key field, or for a text source each hypothesis file's line number.
func compareFromConfig(ctx context.Context, cfgPath string, sets []string, field, baseline string, noProgress bool, opt *compare.Options, stderr io.Writer) ([]compare.System, int, error) {
	cfg, err := config.Load(cfgPath, sets)
	if err != nil {
		return nil, 0, usageErr("%v", err)
	}
	isText := cfg.Source.Type == "text"
	switch {
	case cfg.Source.Type == "kafka":
		return nil, 0, usageErr("%s: compare -c reads files (source type file or text), not Kafka: save states per system and compare those", cfgPath)
	case field == "" && isText:
		field = text.FieldSystem
	case field == "":
		return nil, 0, usageErr("compare -c needs --system-field FIELD (the record field naming the system)")
	case isText && field != text.FieldSystem:
		return nil, 0, usageErr("--system-field %s: a text source names its systems in the field %q", field, text.FieldSystem)
	}
	if cfg.CI == nil && isText {
		// Line numbers pair the hypothesis files; only the resampling set-up is missing.
		seed := uint64(config.DefaultCISeed)
		cfg.CI = &config.CI{Method: stats.MethodPoisson, Resamples: config.DefaultCIResamples, Level: config.DefaultCILevel, Seed: &seed}
	}
	switch {
	case cfg.CI == nil || (cfg.CI.Key == "" && !isText):
		return nil, 0, usageErr("%s: comparing systems within one input needs ci.key, the field naming the segment (e.g. --set ci.key=id): without it a record's unit is its row in the file, which differs between systems", cfgPath)
	case cfg.CI.Method != stats.MethodPoisson && cfg.CI.Method != stats.MethodSacrebleu:
		return nil, 0, usageErr("%s: ci.method %s: compare supports methods poisson and sacrebleu", cfgPath, cfg.CI.Method)
	}
	if len(cfg.Sinks) == 0 {
		cfg.Sinks = []config.Sink{{Type: "stdout"}} // compare prints its own output; run's need for a sink does not apply
	}
	sliceBy := []string{field}
	for _, f := range cfg.SliceBy {
		if f != field {
			sliceBy = append(sliceBy, f)
		}
	}
	cfg.SliceBy = sliceBy
	j, err := buildJob(cfg)
	if err != nil {
		return nil, 0, err
	}
	// compare writes no sink and no per-record file of the config.
	j.cfg.Sinks = nil
	j.noProgress = noProgress
	// Every system's line i comes before line i+1: a worker then scores a segment's systems
	// one after another and the text metrics reuse their work on its references. The order
	// changes no result (states sort their segments by Seq; sums are exact).
	j.segmentMajor = compareSegmentMajor
	ms := j.plan.Metrics
	if ci := j.plan.CI(); ci != nil {
		opt.CI = *ci
	} else {
		ci := cfg.CI
		opt.CI = stats.Config{Method: ci.Method, Resamples: ci.Resamples, Level: ci.Level, Seed: *ci.Seed, Key: ci.Key}
	}
	for _, m := range ms {
		opt.Names = append(opt.Names, m.Name)
	}
	all := ms
	// Method sacrebleu's states run ar themselves (stats.Pairer); poisson states get the
	// randomization trials beside them.
	if opt.Test == compare.TestRandomization && opt.CI.Method == stats.MethodPoisson {
		for _, m := range ms {
			b, ok := m.Metric.(*stats.Bootstrap)
			if !ok {
				return nil, 0, runtimeErr(fmt.Errorf("metric %s has no bootstrap", m.Name))
			}
			ar := *m
			ar.Name = m.Name + "#ar"
			ar.Metric = stats.NewRandomization(b.Metric, opt.Trials, opt.CI.Seed)
			all = append(all, &ar)
		}
	}
	j.plan = pipeline.NewPlan(all, cfg.SliceBy)
	src, err := j.openSource(ctx)
	if err != nil {
		return nil, 0, sourceErr(err)
	}
	defer src.Close()
	acc, out, err := j.fold(ctx, src, stderr)
	if err != nil {
		return nil, 0, err
	}
	if out != nil {
		if err := out.Finish(); err != nil {
			out.Abort()
			return nil, 0, runtimeErr(err)
		}
		if err := out.Commit(); err != nil {
			return nil, 0, runtimeErr(err)
		}
	}
	if err := noRecordsErr(acc); err != nil {
		return nil, 0, err
	}
	systems, err := splitSystems(acc, all, len(ms), field, cfg.SliceBy[1:])
	if err != nil {
		return nil, 0, err
	}
	names := make([]string, len(systems))
	base := -1
	for i, s := range systems {
		names[i] = s.Name
		if s.Name == baseline {
			base = i
		}
	}
	if base < 0 {
		return nil, 0, usageErr("--baseline %q is not a value of %s in the input (systems: %s)", baseline, field, strings.Join(names, ", "))
	}
	if len(systems) < 2 {
		return nil, 0, usageErr("the input holds one system (%s); compare needs a baseline and at least one candidate", names[0])
	}
	return systems, base, nil
}

// splitSystems turns the slices of an accumulator sliced by the system field first (then
// by rest) into one system per value, sorted by name. States 0..n-1 are the bootstrap
// states, n..2n-1 (when present) the randomization states of the same metrics.
func splitSystems(acc *pipeline.Accumulator, ms []*metrics.Metric, n int, field string, rest []string) ([]compare.System, error) {
	type part struct {
		sub    string
		states []core.State
	}
	bySystem := map[string][]part{}
	prefix := field + "="
	for key, sl := range acc.Slices {
		v, ok := strings.CutPrefix(key, prefix)
		if !ok {
			return nil, runtimeErr(fmt.Errorf("slice %q does not start with %s", key, prefix))
		}
		sub := ""
		if len(rest) > 0 {
			sep := "," + rest[0] + "="
			if strings.Count(v, sep) != 1 {
				return nil, usageErr("slice %q: cannot tell the %s value from the %s value (a value contains %q)", key, field, rest[0], sep)
			}
			v, sub, _ = strings.Cut(v, sep)
			sub = rest[0] + "=" + sub
		}
		bySystem[v] = append(bySystem[v], part{sub, sl.States})
	}
	names := make([]string, 0, len(bySystem))
	for v := range bySystem {
		names = append(names, v)
	}
	sort.Strings(names)
	out := make([]compare.System, 0, len(names))
	for _, name := range names {
		parts := bySystem[name]
		sort.Slice(parts, func(i, j int) bool { return parts[i].sub < parts[j].sub })
		total := make([]core.State, len(ms))
		for i, m := range ms {
			total[i] = m.NewState()
			for _, p := range parts {
				if err := total[i].Merge(p.states[i]); err != nil {
					return nil, runtimeErr(fmt.Errorf("system %s, metric %s: %w", name, m.Name, err))
				}
			}
		}
		s := compare.System{Name: name, States: total[:n]}
		if len(ms) > n {
			s.AR = total[n:]
		}
		if len(rest) > 0 {
			s.Slices = map[string][]core.State{}
			s.ARSlices = map[string][]core.State{}
			for _, p := range parts {
				s.Slices[p.sub] = p.states[:n]
				if len(ms) > n {
					s.ARSlices[p.sub] = p.states[n:]
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

const compareHelp = `Usage: evalstream compare --baseline BASE.state CAND.state... [--format table|json] [--alpha A]
       evalstream compare -c PIPELINE.yaml --system-field FIELD --baseline NAME [--test bs|ar] [--trials N]

Is a candidate system really better than the baseline? For every metric (and every slice)
it prints the baseline's and each candidate's value with its confidence interval, the delta
(candidate − baseline, in the metric's own units, whatever its better direction), the
delta's interval and a two-sided p-value, marked * when p < alpha. With saved states (run
with a ci: section and --save-state; systems named by the file's base name) the test is the
paired bootstrap over the states' shared-weight replicates: the states must have the same
ci key, seed, resamples and metric options, else exit 2 naming the difference. With -c, one
input holds every system (the field --system-field names it): it is folded once with that
field as the first slice field; pairing needs ci.key (the field naming the segment) except
for a text source, whose hypothesis files pair line by line. --test ar (paired approximate
randomization, --trials, default 10000) works only with -c: its per-trial kept and swapped
statistics are accumulated while compare folds the input (memory: 2 × trials states per
metric and system), and saved states do not carry them; its delta interval is the paired
bootstrap's. Per-class and matrix values are shown but not tested. With slice_by, every
slice that all systems have is compared too.

Examples:
  evalstream compare --baseline base.state cand1.state cand2.state
  evalstream compare -c wmt17.yaml --system-field system --baseline uedin-nmt --test ar --format json

Flags:
`

const gateHelp = `Usage: evalstream gate -c GATE.yaml [--set key.path=value]... [--format table|json] RESULTS_OR_STATE

Applies the gate: section of a config (a pipeline config, or a file holding just gate:) to
saved results: a results JSON, a history JSONL (its last line) or a saved state (which
allows significant_only rules). Rules bound a metric overall, in one slice (slice: lang=de)
or in every slice (slices: all): min, max, max_drop and max_drop_relative (a change against
gate.baseline in the metric's worse direction, as evalstream list prints it), and
significant_only (a drop fails only when the paired bootstrap between the baseline's and the
run's states gives p < gate.alpha). Prints one PASS/FAIL line per rule. Exit 0 when every
rule passes, 3 when one fails, 2 for a bad gate (unknown metric, a metric without a better
direction, a relative drop on a zero baseline, significant_only without replicates).
"evalstream run" applies a pipeline's gate itself, after writing its results.

Examples:
  evalstream gate -c gate.yaml out/results.json
  evalstream gate -c gate.yaml --set gate.alpha=0.01 --format json nightly.state

Flags:
`
