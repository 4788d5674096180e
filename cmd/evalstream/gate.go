package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/gate"
)

// gateErr maps a gate error: a *gate.ConfigError is a config error (exit 2).
func gateErr(err error) error {
	var ce *gate.ConfigError
	if errors.As(err, &ce) {
		return &exitError{2, err}
	}
	return runtimeErr(err)
}

// errGateFailed is the error of a run or `gate` whose gate failed (exit 3).
func errGateFailed(v *gate.Verdict) error {
	failed := 0
	for _, r := range v.Rules {
		if !r.Passed {
			failed++
		}
	}
	return &exitError{3, fmt.Errorf("gate failed: %d of %d rule checks failed", failed, len(v.Rules))}
}

// prepareGate checks the config's gate against the job's metrics and loads its baseline
// before the run spends any time on its input.
func (j *job) prepareGate() error {
	g := j.cfg.Gate
	if g == nil {
		return nil
	}
	types := map[string]string{}
	for _, m := range j.plan.Metrics {
		types[m.Name] = m.Type
	}
	gt, err := gate.New(g, types, j.plan.CI())
	if err != nil {
		return gateErr(err)
	}
	j.gate = gt
	return nil
}

// applyGate evaluates the gate on the run's accumulator and puts its verdict into res.
func (j *job) applyGate(acc *pipeline.Accumulator, res *pipeline.Results) error {
	if j.gate == nil {
		return nil
	}
	v, err := j.gate.Evaluate(gate.FromRun(acc, res))
	if err != nil {
		return gateErr(err)
	}
	res.Gate, j.verdict = v, v
	return nil
}

// gateOutcome prints the verdict after the results (on stdout under the table, else on
// stderr) and returns the exit-3 error when the gate failed.
func (j *job) gateOutcome(stdout, stderr io.Writer) error {
	if j.verdict == nil {
		return nil
	}
	w := stderr
	for _, s := range j.cfg.Sinks {
		if s.Type == "stdout" {
			w = stdout
		}
	}
	for _, l := range j.verdict.Lines() {
		fmt.Fprintln(w, l)
	}
	if !j.verdict.Passed {
		return errGateFailed(j.verdict)
	}
	return nil
}

// cmdGate is `evalstream gate -c GATE.yaml RESULTS_OR_STATE`: the gate of a config applied
// to saved results.
func cmdGate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gate", stderr)
	cfgPath := fs.String("c", "", "a config with a top-level gate: section (a pipeline config's other sections are ignored)")
	fs.StringVar(cfgPath, "config", "", "same as -c")
	format := fs.String("format", "table", "output: table (one PASS/FAIL line per rule) | json (the gate object)")
	var sets stringList
	fs.Var(&sets, "set", "override a config value: key.path=value (repeatable)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *cfgPath == "" || len(pos) != 1:
		return usageErr("gate needs -c GATE.yaml and one RESULTS_OR_STATE file (a results JSON, a history JSONL or a saved state)")
	case *format != "table" && *format != "json":
		return usageErr("--format must be table or json, got %q", *format)
	}
	cfg, err := config.Load(*cfgPath, sets)
	if err != nil {
		return usageErr("%v", err)
	}
	if cfg.Gate == nil {
		return usageErr("%s: no gate: section", *cfgPath)
	}
	if _, err := os.Stat(pos[0]); err != nil {
		return runtimeErr(err)
	}
	cur, err := gate.ReadFile(pos[0])
	if err != nil {
		return runtimeErr(err)
	}
	g, err := gate.New(cfg.Gate, cur.Types, cur.CI)
	if err != nil {
		return gateErr(err)
	}
	v, err := g.Evaluate(cur)
	if err != nil {
		return gateErr(err)
	}
	if *format == "json" {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return runtimeErr(err)
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		for _, l := range v.Lines() {
			fmt.Fprintln(stdout, l)
		}
	}
	if !v.Passed {
		return errGateFailed(v)
	}
	return nil
}
