package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sinks/htmlreport"
)

// isResultsJSON says whether a report input is a results JSON (an object) rather than a
// saved state (which starts with the state magic, never with '{').
func isResultsJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// loadReportRun reads the run a report shows: one results JSON, or state files merged.
func loadReportRun(paths []string) (*htmlreport.Run, error) {
	var states []string
	var results []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, runtimeErr(err)
		}
		if isResultsJSON(b) {
			results = append(results, p)
		} else {
			states = append(states, p)
		}
	}
	switch {
	case len(results) > 0 && len(states) > 0:
		return nil, usageErr("give either one results JSON or state files, not both (results: %s; states: %s)", strings.Join(results, ", "), strings.Join(states, ", "))
	case len(results) > 1:
		return nil, usageErr("results JSON files cannot be merged (their sufficient statistics are not in them): give one, or the state files")
	case len(results) == 1:
		return readResultsRun(results[0])
	}
	acc, err := mergeStateFiles(states)
	if err != nil {
		return nil, err
	}
	run, err := htmlreport.FromResults(acc.Results())
	if err != nil {
		return nil, runtimeErr(err)
	}
	return run, nil
}

func readResultsRun(path string) (*htmlreport.Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, runtimeErr(err)
	}
	if !isResultsJSON(b) {
		acc, err := pipeline.DecodeState(b)
		if err != nil {
			return nil, runtimeErr(fmt.Errorf("%s: %w", path, err))
		}
		run, err := htmlreport.FromResults(acc.Results())
		if err != nil {
			return nil, runtimeErr(fmt.Errorf("%s: %w", path, err))
		}
		return run, nil
	}
	run, err := htmlreport.ParseResults(b)
	if err != nil {
		return nil, runtimeErr(fmt.Errorf("%s: %w", path, err))
	}
	return run, nil
}

// writeHTMLReport renders run (with the optional baseline and history files) to out.
func writeHTMLReport(out string, inputs []string, run *htmlreport.Run, baseline, history string) error {
	in := htmlreport.Input{Run: run, Source: strings.Join(inputs, ", "), Direction: sinks.MetricDirection}
	if baseline != "" {
		b, err := readResultsRun(baseline)
		if err != nil {
			return err
		}
		in.Baseline, in.BaselineName = b, baseline
	}
	if history != "" {
		h, err := htmlreport.ReadHistory(history)
		if err != nil {
			return runtimeErr(err)
		}
		in.History = h
	}
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, in); err != nil {
		return runtimeErr(err)
	}
	if err := sinks.WriteFileAtomic(out, buf.Bytes()); err != nil {
		return runtimeErr(err)
	}
	return nil
}
