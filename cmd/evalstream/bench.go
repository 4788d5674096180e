package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources"
)

// benchMixes are the synthetic workloads of `evalstream bench`: the metrics they run and
// how their corpus is generated.
var benchMixes = map[string]struct {
	metrics []string
	file    string
	gen     func(rng *rand.Rand, i int) map[string]any
}{
	"bleu":           {[]string{"bleu"}, "corpus.jsonl", genTranslation},
	"chrf":           {[]string{"chrf"}, "corpus.jsonl", genTranslation},
	"text":           {[]string{"bleu", "chrf", "rouge_n:n=1,stem=true", "rouge_n:n=2,stem=true", "rouge_l:compat=rouge-score,stem=true", "rouge_lsum:stem=true"}, "corpus.jsonl", genTranslation},
	"rouge":          {[]string{"rouge_n:n=1,stem=true", "rouge_n:n=2,stem=true", "rouge_l:compat=rouge-score,stem=true", "rouge_lsum:stem=true"}, "corpus.jsonl", genTranslation},
	"classification": {[]string{"accuracy", "f1:compat=sklearn,average=macro", "mcc", "confusion_matrix:num_classes=5"}, "corpus.arrow", genClassification},
	"regression":     {[]string{"pearson", "spearman"}, "corpus.arrow", genRegression},
}

var benchWords = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more can who said
market government people year model system evaluation translation result quality score number running quickly`)

func genSentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[rng.Intn(len(benchWords))]
	}
	return strings.Join(w, " ") + "."
}

func genTranslation(rng *rand.Rand, i int) map[string]any {
	n := 8 + rng.Intn(30)
	ref := genSentence(rng, n)
	pred := genSentence(rng, n+rng.Intn(5)-2)
	return map[string]any{"id": int64(i), "prediction": pred, "references": []any{ref}}
}

func genClassification(rng *rand.Rand, i int) map[string]any {
	return map[string]any{"prediction": int64(rng.Intn(5)), "label": int64(rng.Intn(5))}
}

func genRegression(rng *rand.Rand, i int) map[string]any {
	y := rng.NormFloat64()
	return map[string]any{"prediction": y + rng.NormFloat64()*0.5, "label": math.Round(y*10) / 10}
}

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	mix := fs.String("mix", "text", "synthetic workload: bleu|chrf|text|rouge|classification|regression")
	n := fs.Int("records", 200000, "records to generate for the synthetic corpus")
	input := fs.String("input", "", "benchmark this file (or glob/directory) instead of a synthetic corpus")
	var metricSpecs stringList
	fs.Var(&metricSpecs, "metric", "TYPE[:opt=val,...] to run instead of the mix's metrics (repeatable)")
	workers := fs.Int("workers", 0, "worker goroutines (0 = one per CPU)")
	batch := fs.Int("batch-size", config.DefaultBatchSize, "records per batch")
	repeat := fs.Int("repeat", 1, "run the scoring pass this many times and report the best")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	m, ok := benchMixes[*mix]
	if !ok && len(metricSpecs) == 0 {
		return usageErr("--mix must be one of bleu|chrf|text|rouge|classification|regression")
	}
	specs := metricSpecs
	if len(specs) == 0 {
		specs = m.metrics
	}
	path := *input
	if path == "" {
		dir, err := os.MkdirTemp("", "evalstream-bench-")
		if err != nil {
			return runtimeErr(err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, m.file)
		rng := rand.New(rand.NewSource(1))
		recs := make([]map[string]any, *n)
		for i := range recs {
			recs[i] = m.gen(rng, i)
		}
		if err := sources.WriteCorpus(path, recs); err != nil {
			return runtimeErr(err)
		}
	}
	cfg := &config.Config{
		Source:   config.Source{Type: "file", Path: path},
		Pipeline: config.Pipeline{Workers: *workers, BatchSize: *batch, OnError: "skip"},
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
	files, err := sources.Expand(sources.FileConfig{Path: path, Format: "auto"})
	if err != nil {
		return runtimeErr(err)
	}
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	open := func() (pipeline.Source, error) {
		return sources.OpenFiles(sources.FileConfig{Path: path, Format: "auto"}, j.plan.Fields, *batch, cfg.Source.MaxRecordBytes)
	}

	// Stage 1: decode only (one reader, as in a run).
	decodeStart := time.Now()
	src, err := open()
	if err != nil {
		return runtimeErr(err)
	}
	var decoded int64
	for {
		b, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			src.Close()
			return runtimeErr(err)
		}
		decoded += int64(len(b.Records))
		if b.Release != nil {
			b.Release()
		}
	}
	src.Close()
	decode := time.Since(decodeStart)

	// Stage 2: the whole scoring pass (decode + tokenize + fold + merge), best of --repeat.
	var best time.Duration
	var acc *pipeline.Accumulator
	var progress *pipeline.Progress
	var allocs uint64
	for r := 0; r < max(1, *repeat); r++ {
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		src, err := open()
		if err != nil {
			return runtimeErr(err)
		}
		p := &pipeline.Progress{}
		start := time.Now()
		a, err := pipeline.Run(ctx, src, pipeline.Config{Plan: j.plan, Workers: *workers, Policy: j.policy(), Progress: p})
		el := time.Since(start)
		src.Close()
		if err != nil {
			return runtimeErr(err)
		}
		runtime.ReadMemStats(&ms1)
		if best == 0 || el < best {
			best, acc, progress, allocs = el, a, p, ms1.Mallocs-ms0.Mallocs
		}
	}
	res := acc.Results()
	w := *workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	recs := float64(acc.Records + acc.Skipped)
	fmt.Fprintf(stdout, "evalstream bench: %s, %d records, %.1f MB, %d workers, batch %d, GOMAXPROCS %d\n", path, int64(recs), float64(size)/1e6, w, *batch, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "metrics: %s\n", strings.Join(specs, "  "))
	row := func(name string, d time.Duration, extra string) {
		fmt.Fprintf(stdout, "  %-22s %10.3f s  %12.0f records/s  %8.1f MB/s  %s\n", name, d.Seconds(), recs/d.Seconds(), float64(size)/1e6/d.Seconds(), extra)
	}
	row("decode only (1 reader)", decode, "")
	row("score (whole pass)", best, fmt.Sprintf("decode share %.0f%%", 100*decode.Seconds()/best.Seconds()))
	fmt.Fprintf(stdout, "  %-22s %10.6f s\n", "merge", float64(progress.MergeNanos.Load())/1e9)
	fmt.Fprintf(stdout, "  allocations            %10.1f per record\n", float64(allocs)/recs)
	if rss, ok := peakRSS(); ok {
		fmt.Fprintf(stdout, "  peak RSS               %10.1f MB\n", float64(rss)/1e6)
	}
	if decoded != int64(recs) {
		fmt.Fprintf(stdout, "  warning: decode pass saw %d records, scoring pass %d\n", decoded, int64(recs))
	}
	for _, mr := range res.Metrics {
		fmt.Fprintf(stdout, "  %-22s %v\n", mr.Name, formatBenchValue(mr.Value))
	}
	if acc.Skipped > 0 {
		fmt.Fprintf(stdout, "  bad records: %d %v\n", acc.Skipped, acc.Errors)
	}
	return nil
}

func formatBenchValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', 17, 64)
	}
	return fmt.Sprint(v)
}

// peakRSS reads the process's peak resident set size (Linux).
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, err := strconv.ParseInt(f[1], 10, 64)
				return kb * 1024, err == nil
			}
		}
	}
	return 0, false
}
