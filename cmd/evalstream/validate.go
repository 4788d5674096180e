package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources"
)

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", stderr)
	cfgPath := fs.String("c", "", "pipeline config file (YAML or JSON)")
	fs.StringVar(cfgPath, "config", "", "same as -c")
	var sets stringList
	fs.Var(&sets, "set", "override a config value: key.path=value (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *cfgPath == "" || fs.NArg() > 0 {
		return usageErr("validate needs -c PIPELINE.yaml and no other arguments")
	}
	cfg, probs, err := config.LoadAll(*cfgPath, sets)
	if err != nil {
		return usageErr("%v", err)
	}
	all := append([]string(nil), probs...)
	all = append(all, configProblems(cfg)...)
	all = append(all, pathProblems(cfg)...)
	if len(all) > 0 {
		sort.Strings(all)
		return usageErr("invalid config:\n  %s", strings.Join(all, "\n  "))
	}
	// buildJob's own checks (those that need the metrics built) come last, then the gate's
	// (its baseline is read).
	j, err := buildJob(cfg)
	if err != nil {
		return err
	}
	if err := j.prepareGate(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ok (%d metrics, %d sinks)\n", *cfgPath, len(cfg.Metrics), len(cfg.Sinks))
	return nil
}

// configProblems is every structural problem of cfg: Validate's, and each metric's type and
// options as the metrics registry reports them, prefixed with the metric's path.
func configProblems(cfg *config.Config) []string {
	var probs []string
	if err := cfg.Validate(); err != nil {
		var p config.Problems
		if errors.As(err, &p) {
			probs = append(probs, p...)
		} else {
			probs = append(probs, err.Error())
		}
	}
	for i, entry := range cfg.Metrics {
		if _, ok := entry["type"]; !ok {
			continue // reported by Validate
		}
		if _, err := metrics.New(normalizeEntry(entry)); err != nil {
			if oe, ok := core.AsOptionError(err); ok {
				for _, p := range oe.Problems {
					probs = append(probs, fmt.Sprintf("metrics[%d].%s", i, p))
				}
			} else {
				probs = append(probs, fmt.Sprintf("metrics[%d]: %v", i, err))
			}
		}
	}
	return probs
}

// pathProblems checks the files a run would read and the directories it would write, as far
// as can be told without running: each problem names its config path. It creates nothing
// (a probe file in an existing directory is removed at once).
func pathProblems(cfg *config.Config) []string {
	var probs []string
	add := func(path string, err error) {
		probs = append(probs, fmt.Sprintf("%s: %v", path, err))
	}
	s := cfg.Source
	switch s.Type {
	case "file":
		if s.Path == "" || s.Path == sources.Stdin {
			break // empty is reported by Validate; stdin cannot be checked
		}
		files, err := sources.Expand(sources.FileConfig{Path: s.Path, Format: s.Format})
		if err != nil {
			add("source.path", err)
			break
		}
		for _, f := range files {
			if err := readable(f); err != nil {
				add("source.path", err)
			}
		}
	case "text":
		for _, list := range []struct {
			key   string
			paths []string
		}{{"source.hypotheses", s.Hypotheses}, {"source.references", s.References}} {
			for i, p := range list.paths {
				if p == "" || p == "-" {
					continue // empty is reported by Validate; stdin cannot be checked
				}
				if err := readable(p); err != nil {
					add(fmt.Sprintf("%s[%d]", list.key, i), err)
				}
			}
		}
	}
	if dl := cfg.Pipeline.DeadLetter; cfg.Pipeline.OnError == "dead_letter" && dl.Path != "" {
		if err := writable(dl.Path); err != nil {
			add("pipeline.dead_letter.path", err)
		}
	}
	for i, k := range cfg.Sinks {
		switch k.Type {
		case "json", "csv", "jsonl", "examples":
			if k.Path == "" {
				continue // reported by Validate
			}
			if err := writable(k.Path); err != nil {
				add(fmt.Sprintf("sinks[%d].path", i), err)
			} else if k.Type == "csv" {
				// Rows are appended under the file's header: another header is refused.
				if _, err := sinks.CheckCSVHeader(k.Path); err != nil {
					add(fmt.Sprintf("sinks[%d].path", i), err)
				}
			}
		}
	}
	return probs
}

// readable opens path for reading and fails on a directory.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return nil
}

// writable tells whether a run could write path: an existing file must open for writing (it
// is not truncated here), an existing directory is an error, and otherwise the nearest
// existing ancestor directory must let a file be created in it (the run creates the
// directories between).
func writable(path string) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory, not a file", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("cannot create %s: %s is not a directory", path, dir)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot create %s: %w", path, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("cannot create %s: %w", path, err)
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".evalstream-validate-*")
	if err != nil {
		return fmt.Errorf("cannot create %s: directory %s is not writable: %w", path, dir, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
