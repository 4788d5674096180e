// Package bench is the benchmark harness of `evalstream bench`: synthetic workloads (Mixes)
// and their corpora, the stages of a file run timed apart (read and split, decode, tokenize,
// score per worker count), and the Kafka pass that compares bounded consume+score with raw
// kafka-go fetching of the same topic. The command parses the flags and builds the plan;
// Go benchmarks and other front ends can drive the same measurements.
//
// Imports: pipeline, sources, sources/kafka, sinks (results JSON), config (defaults) and
// metrics. It starts goroutines only through pipeline.Run and kafka-go; it is not safe for
// concurrent use (it reads process-wide counters: CPU time, allocations, peak RSS).
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/tokenize"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks/corpus"
	"github.com/evalstream/evalstream/sources"
)

// Mix is a synthetic workload of `evalstream bench`: the metrics it runs, how its corpus
// is generated, and the tokenizers its metrics apply (for the tokenize stage).
type Mix struct {
	Metrics []string
	File    string // the corpus's file name (its format)
	Gen     func(rng *rand.Rand, i int) map[string]any
	Toks    []string // tokenize.New names; "rouge+stem" is the stemming rouge tokenizer
}

var rougeMetrics = []string{"rouge_n:n=1,stem=true", "rouge_n:n=2,stem=true", "rouge_l:compat=rouge-score,stem=true", "rouge_lsum:stem=true"}

// Mixes are the workloads by name.
var Mixes = map[string]Mix{
	"bleu":           {[]string{"bleu"}, "corpus.jsonl", genTranslation, []string{"13a"}},
	"chrf":           {[]string{"chrf"}, "corpus.jsonl", genTranslation, nil},
	"text":           {append([]string{"bleu", "chrf"}, rougeMetrics...), "corpus.jsonl", genTranslation, []string{"13a", "rouge+stem"}},
	"rouge":          {rougeMetrics, "corpus.jsonl", genSummary, []string{"rouge+stem"}},
	"classification": {[]string{"accuracy", "f1:compat=sklearn,average=macro", "mcc", "confusion_matrix:num_classes=5"}, "corpus.arrow", genClassification, nil},
	"regression":     {[]string{"pearson", "spearman"}, "corpus.arrow", genRegression, nil},
}

// MixNames lists the names of Mixes, for usage messages.
func MixNames() string { return "bleu|chrf|text|rouge|classification|regression" }

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
	label := int64(rng.Intn(5))
	pred := label
	if rng.Intn(10) < 3 {
		pred = int64(rng.Intn(5))
	}
	return map[string]any{"prediction": pred, "label": label}
}

func genRegression(rng *rand.Rand, i int) map[string]any {
	y := rng.NormFloat64()
	return map[string]any{"prediction": y + rng.NormFloat64()*0.5, "label": math.Round(y*10) / 10}
}

// The summarization corpus (mix rouge) imitates news highlights: sentences of English words
// drawn from a Zipf law over a vocabulary of inflected forms (so stemming has work to do),
// with a long tail of made-up names, numbers and punctuation. A reference has 3-4 sentences
// joined by "\n" (rougeLsum's sentence split); the prediction reuses spans of it, as an
// extractive summary does, with substitutions.
var (
	sumRoots = strings.Fields(`report govern nation elect vote announc investig police court charg
		attack kill die injur famili child school student teacher hospit doctor patient health
		compani market share price rise fall increas decreas econom bank money tax budget
		plan propos law rule minist presid leader parti campaign support oppos protest
		citi town villag road bridg build hous home fire flood storm weather rain wind
		team player game match win lose season coach club leagu score goal record
		scientist research studi discov develop test result show suggest claim warn
		water food energi power oil gas climat environ protect forest anim speci
		travel flight airport passeng train station crash accid driver vehicl
		music film star actor singer award festiv book author write publish read`)
	sumSuffixes = []string{"", "", "", "e", "es", "ed", "ing", "er", "ers", "ation", "ations", "ment", "ments", "ly", "ness", "ive", "ity", "al", "ally", "ional"}
	sumFunction = strings.Fields(`the the the a a an of of of to to in in and and for on with at by from
		that is was were are has have had be been will would said says after before over
		about into more than who which their its his her they it this new two three first last`)
	sumSyll = strings.Fields(`ka lo mi ran te vos bel dor an ri ste mar qu el in on za pe li gor`)
)

type sumVocab struct {
	words []string
	zipf  *rand.Zipf
}

func newSumVocab(rng *rand.Rand) *sumVocab {
	v := &sumVocab{}
	for _, r := range sumRoots {
		for _, s := range sumSuffixes {
			v.words = append(v.words, r+s)
		}
	}
	rng.Shuffle(len(v.words), func(i, j int) { v.words[i], v.words[j] = v.words[j], v.words[i] })
	v.zipf = rand.NewZipf(rng, 1.07, 3, uint64(len(v.words)-1))
	return v
}

func (v *sumVocab) word(rng *rand.Rand) string {
	switch x := rng.Intn(100); {
	case x < 45:
		return sumFunction[rng.Intn(len(sumFunction))]
	case x < 50: // a name: the long tail
		n := 2 + rng.Intn(3)
		var b strings.Builder
		for k := 0; k < n; k++ {
			b.WriteString(sumSyll[rng.Intn(len(sumSyll))])
		}
		s := b.String()
		return strings.ToUpper(s[:1]) + s[1:]
	case x < 53:
		return strconv.Itoa(rng.Intn(2000))
	}
	return v.words[v.zipf.Uint64()]
}

func (v *sumVocab) sentence(rng *rand.Rand, n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = v.word(rng)
	}
	return w
}

func joinSentence(w []string) string {
	if len(w) == 0 {
		return "."
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

var summaryVocab *sumVocab

func genSummary(rng *rand.Rand, i int) map[string]any {
	if summaryVocab == nil || i == 0 {
		summaryVocab = newSumVocab(rand.New(rand.NewSource(99)))
	}
	v := summaryVocab
	nref := 3 + rng.Intn(2)
	ref := make([]string, nref)
	pred := make([]string, 3)
	for s := 0; s < nref; s++ {
		words := v.sentence(rng, 10+rng.Intn(16))
		ref[s] = joinSentence(words)
		if s < len(pred) {
			// Keep a span of the reference sentence, change some words, add some.
			lo := rng.Intn(len(words) / 3)
			hi := len(words) - rng.Intn(len(words)/3)
			p := append([]string(nil), words[lo:hi]...)
			for k := range p {
				if rng.Intn(5) == 0 {
					p[k] = v.word(rng)
				}
			}
			p = append(p, v.sentence(rng, rng.Intn(6))...)
			if rng.Intn(4) == 0 {
				p[len(p)/2] += ","
			}
			pred[s] = joinSentence(p)
		}
	}
	return map[string]any{"id": int64(i), "prediction": strings.Join(pred, "\n"), "references": []any{strings.Join(ref, "\n")}}
}

// Run is one scoring pass.
type Run struct {
	Workers    int     `json:"workers"`
	Seconds    float64 `json:"seconds"`
	RecordsSec float64 `json:"records_per_s"`
	MBSec      float64 `json:"mb_per_s"`
	Merge      float64 `json:"merge_seconds"`
	Allocs     float64 `json:"allocs_per_record"`
	AllocBytes float64 `json:"alloc_bytes_per_record"`
	GCs        uint32  `json:"gc_cycles"`
	results    *pipeline.Results
}

// Report is what `bench --json` prints.
type Report struct {
	Input    string           `json:"input"`
	Records  int64            `json:"records"`
	Bad      int64            `json:"bad_records"`
	MB       float64          `json:"mb"`
	Metrics  []string         `json:"metrics"`
	Batch    int              `json:"batch_size"`
	Procs    int              `json:"gomaxprocs"`
	Read     float64          `json:"read_split_seconds,omitempty"`
	Decode   float64          `json:"decode_seconds,omitempty"`
	Tokenize float64          `json:"tokenize_seconds,omitempty"`
	Runs     []Run            `json:"runs"`
	Scaling  float64          `json:"scaling,omitempty"`
	Same     bool             `json:"identical_results"`
	PeakRSS  int64            `json:"peak_rss_bytes"`
	Values   map[string]any   `json:"values"`
	Errors   map[string]int64 `json:"errors,omitempty"`

	read, decoded int64 // records the read and decode stages saw
	last          *pipeline.Results
}

// FileOptions configures RunFile.
type FileOptions struct {
	// Input is the file (or glob or directory) to read.
	Input string
	// Plan and Policy are the run's, built from a config of the metrics Specs.
	Plan   *pipeline.Plan
	Policy pipeline.Policy
	Specs  []string
	// Mix names the tokenizers of the tokenize stage, unless MetricSpecs (the --metric
	// flags) replaced its metrics.
	Mix         Mix
	MetricSpecs []string
	// Workers lists the worker counts to run; each pass is repeated Repeat times (best kept).
	Workers        []int
	Repeat         int
	Batch          int
	MaxRecordBytes int
	// ScoreOnly skips the read, decode and tokenize stages.
	ScoreOnly bool
	// CPUProfile and MemProfile, when set, are where the profiles of the scoring passes go.
	CPUProfile, MemProfile string
	// Stderr receives warnings.
	Stderr io.Writer
	// Progress, when set, counts the records and bytes every pass reads, cumulatively over
	// the passes, for a progress display (its MergeNanos too); ProgressStart is then called
	// before the first pass with the bytes all the passes will read.
	Progress      *pipeline.Progress
	ProgressStart func(totalBytes int64)
}

// RunFile measures the stages of a run over the files of o.Input apart (read and split,
// decode, tokenize; each on one goroutine), then the whole scoring pass per worker count.
func RunFile(ctx context.Context, o FileOptions) (*Report, error) {
	files, err := sources.Expand(sources.FileConfig{Path: o.Input, Format: "auto"})
	if err != nil {
		return nil, err
	}
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	open := func() (pipeline.Source, error) {
		return sources.OpenFiles(sources.FileConfig{Path: o.Input, Format: "auto"}, o.Plan.Fields, o.Batch, o.MaxRecordBytes)
	}
	rep := &Report{Input: o.Input, MB: float64(size) / 1e6, Metrics: o.Specs, Batch: o.Batch, Procs: runtime.GOMAXPROCS(0)}
	prog := o.Progress
	if prog == nil {
		prog = &pipeline.Progress{}
	}
	if o.ProgressStart != nil {
		passes := max(1, o.Repeat) * len(o.Workers)
		if !o.ScoreOnly {
			passes += 2 // read+split, decode
		}
		o.ProgressStart(size * int64(passes))
	}

	var read, decoded int64
	if !o.ScoreOnly {
		if err := benchStages(ctx, rep, o.Mix, o.MetricSpecs, o.Plan, open, prog, &read, &decoded); err != nil {
			return nil, err
		}
	}

	// Stage 4: the whole scoring pass (read, decode, tokenize, fold, merge), per worker
	// count, best of --repeat.
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	if o.MemProfile != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			f, err := os.Create(o.MemProfile)
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(o.Stderr, "evalstream bench: memprofile: %v\n", err)
			}
		}()
	}
	// The repeats go round the worker counts (1, 2, 1, 2, ...), so that a burst of other
	// activity on the machine does not weigh on one count only; the best run of each counts.
	rep.Same = true
	rep.Runs = make([]Run, len(o.Workers))
	for r := 0; r < max(1, o.Repeat); r++ {
		for i, w := range o.Workers {
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			src, err := open()
			if err != nil {
				return nil, err
			}
			merge0 := prog.MergeNanos.Load()
			start := time.Now()
			a, err := pipeline.Run(ctx, src, pipeline.Config{Plan: o.Plan, Workers: w, Policy: o.Policy, Progress: prog})
			el := time.Since(start)
			src.Close()
			if err != nil {
				return nil, err
			}
			runtime.ReadMemStats(&ms1)
			recs := float64(a.Records + a.Skipped)
			run := Run{Workers: w, Seconds: el.Seconds(), RecordsSec: recs / el.Seconds(), MBSec: float64(size) / 1e6 / el.Seconds(),
				Merge: float64(prog.MergeNanos.Load()-merge0) / 1e9, Allocs: float64(ms1.Mallocs-ms0.Mallocs) / max(recs, 1),
				AllocBytes: float64(ms1.TotalAlloc-ms0.TotalAlloc) / max(recs, 1), GCs: ms1.NumGC - ms0.NumGC, results: a.Results()}
			rep.Records, rep.Bad, rep.Errors = a.Records+a.Skipped, a.Skipped, a.Errors
			if !sameResults(run.results, rep.Runs[0].resultsOr(run.results)) {
				rep.Same = false
			}
			if rep.Runs[i].Seconds == 0 || run.Seconds < rep.Runs[i].Seconds {
				rep.Runs[i] = run
			}
		}
	}
	if len(rep.Runs) > 1 {
		rep.Scaling = rep.Runs[len(rep.Runs)-1].RecordsSec / rep.Runs[0].RecordsSec
	}
	if rss, ok := peakRSS(); ok {
		rep.PeakRSS = rss
	}
	rep.Values = map[string]any{}
	last := rep.Runs[len(rep.Runs)-1].results
	for _, mr := range last.Metrics {
		rep.Values[mr.Name] = mr.Value
	}
	rep.read, rep.decoded, rep.last = read, decoded, last
	return rep, nil
}

// Print writes the report as a table.
func (rep *Report) Print(w io.Writer) { printBench(w, rep, rep.read, rep.decoded, rep.last) }

// benchStages measures the stages of a run apart, each on one goroutine: reading and
// splitting the input, decoding it, and the mix's tokenizers.
func benchStages(ctx context.Context, rep *Report, m Mix, metricSpecs []string, plan *pipeline.Plan, open func() (pipeline.Source, error), prog *pipeline.Progress, read, decoded *int64) error {
	// Stage 1: read and split only (what the single reader goroutine of a run does).
	readStart := time.Now()
	err := drainSource(ctx, open, pipeline.WithDeferredDecode(ctx), func(b *pipeline.Batch) error {
		n := int64(len(b.Records))
		if b.Columns != nil && len(b.Records) == 0 {
			n = int64(b.Columns.N)
		}
		*read += n
		prog.Records.Add(n)
		prog.Bytes.Add(b.Bytes)
		return nil
	})
	if err != nil {
		return err
	}
	rep.Read = time.Since(readStart).Seconds()

	// Stage 2: decode on one goroutine; stage 3: the mix's tokenizers on the decoded text, on
	// one goroutine (timed apart).
	// The tokenizers run as the metrics run them: appending into a reused slice, and the
	// rouge tokenizer with its stem cache.
	var toks []tokenize.AppendFunc
	if len(metricSpecs) == 0 {
		for _, name := range m.Toks {
			if name == "rouge+stem" {
				rt := tokenize.NewRougeTokenizer(true)
				toks = append(toks, func(dst []string, s string) []string {
					rt.Reset()
					return rt.Append(dst, s)
				})
				continue
			}
			fn, err := tokenize.NewAppend(name)
			if err != nil {
				return err
			}
			toks = append(toks, fn)
		}
	}
	var tokBuf []string
	textFields := []int{plan.FieldIndex("prediction"), plan.FieldIndex("references")}
	var tokTime time.Duration
	decodeStart := time.Now()
	err = drainSource(ctx, open, ctx, func(b *pipeline.Batch) error {
		*decoded += int64(len(b.Records))
		prog.Records.Add(int64(len(b.Records)))
		prog.Bytes.Add(b.Bytes)
		if len(toks) == 0 {
			return nil
		}
		t0 := time.Now()
		for i := range b.Records {
			for _, f := range textFields {
				if f < 0 {
					continue
				}
				v := b.Records[i].Values[f]
				for _, tok := range toks {
					switch v.Kind {
					case core.String:
						tokBuf = tok(tokBuf[:0], v.Str)
					case core.StringList:
						for _, s := range v.Strs {
							tokBuf = tok(tokBuf[:0], s)
						}
					}
				}
			}
		}
		tokTime += time.Since(t0)
		return nil
	})
	if err != nil {
		return err
	}
	rep.Decode = (time.Since(decodeStart) - tokTime).Seconds()
	rep.Tokenize = tokTime.Seconds()

	return nil
}

// drainSource reads a fresh source to the end with ctx, calling fn for every batch.
func drainSource(ctx context.Context, open func() (pipeline.Source, error), nctx context.Context, fn func(*pipeline.Batch) error) error {
	src, err := open()
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		b, err := src.Next(nctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(b)
		if b.Release != nil {
			b.Release()
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// resultsOr returns the run's results, or def for a run not made yet.
func (r Run) resultsOr(def *pipeline.Results) *pipeline.Results {
	if r.results == nil {
		return def
	}
	return r.results
}

// sameResults reports whether two runs computed identical metrics (values and details).
func sameResults(a, b *pipeline.Results) bool {
	return a.Records == b.Records && a.Skipped == b.Skipped && reflect.DeepEqual(a.Metrics, b.Metrics)
}

func printBench(w io.Writer, rep *Report, read, decoded int64, res *pipeline.Results) {
	recs := float64(rep.Records)
	fmt.Fprintf(w, "evalstream bench: %s, %d records, %.1f MB, batch %d, GOMAXPROCS %d\n", rep.Input, rep.Records, rep.MB, rep.Batch, rep.Procs)
	fmt.Fprintf(w, "metrics: %s\n", strings.Join(rep.Metrics, "  "))
	row := func(name string, secs float64, extra string) {
		fmt.Fprintf(w, "  %-26s %9.3f s %13.0f records/s %9.1f MB/s  %s\n", name, secs, recs/secs, rep.MB/secs, extra)
	}
	if rep.Read > 0 { // not --score-only
		row("read+split (1 reader)", rep.Read, "")
		row("decode (1 goroutine)", rep.Decode, "")
	}
	if rep.Tokenize > 0 {
		row("tokenize (1 goroutine)", rep.Tokenize, "the mix's tokenizers alone")
	}
	for _, r := range rep.Runs {
		row(fmt.Sprintf("score, %d worker(s)", r.Workers), r.Seconds,
			fmt.Sprintf("merge %.6f s, %.2f allocs (%.0f B)/record, %d GCs", r.Merge, r.Allocs, r.AllocBytes, r.GCs))
	}
	if rep.Scaling > 0 {
		fmt.Fprintf(w, "  %-26s %9.2fx (%d -> %d workers); identical results: %v\n", "scaling", rep.Scaling, rep.Runs[0].Workers, rep.Runs[len(rep.Runs)-1].Workers, rep.Same)
	}
	if rep.PeakRSS > 0 {
		fmt.Fprintf(w, "  %-26s %9.1f MB\n", "peak RSS (process)", float64(rep.PeakRSS)/1e6)
	}
	if rep.Read > 0 && (decoded != rep.Records || read != rep.Records) {
		fmt.Fprintf(w, "  warning: the read and decode passes saw %d and %d records, scoring %d\n", read, decoded, rep.Records)
	}
	for _, mr := range res.Metrics {
		fmt.Fprintf(w, "  %-26s %v\n", mr.Name, formatBenchValue(mr.Value))
	}
	if rep.Bad > 0 {
		fmt.Fprintf(w, "  bad records: %d %v\n", rep.Bad, rep.Errors)
	}
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

// WriteCorpus writes n records of m's synthetic corpus to path (its extension names the
// format, as corpus.WriteFunc writes it). The corpus depends only on m and n.
func WriteCorpus(path string, m Mix, n int) error {
	rng := rand.New(rand.NewSource(1))
	return corpus.WriteFunc(path, n, func(i int) map[string]any { return m.Gen(rng, i) })
}
