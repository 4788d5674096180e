package main

import (
	"flag"
	"fmt"
	"strings"
)

// commandHelp is what `evalstream CMD -h` prints before the flags: a description and two
// examples. score keeps its longer text in scoreHelp (commands.go).
var commandHelp = map[string]string{
	"compare": compareHelp, // compare.go
	"gate":    gateHelp,    // compare.go
	"run": `Usage: evalstream run -c PIPELINE.yaml [--set key.path=value]... [--save-state PATH]

Runs the pipeline a config describes: reads records from its source (files, plain-text
systems or Kafka), scores them with its metrics on a pool of workers and writes the results
to its sinks (stdout table, json, csv, jsonl history, examples, kafka, prometheus). Every
value of the config can be overridden with --set; "evalstream validate" checks a config
first. Exit 0 on success; 1 on a runtime failure, including a run that scored no record
(whatever on_error) or had more bad records than pipeline.max_bad; 2 on a config error; 3
when the config's gate: fails (the results and sinks are still written); 130 or 143 when
stopped by SIGINT or SIGTERM (no results written). A continuous Kafka run (source.mode:
continuous) is a service: it applies its gate to every window and total it emits (each
results object carries its verdict; failures are logged on stderr) and is not stopped by a
failing gate; SIGINT/SIGTERM end it normally (exit 0, final results written).

Examples:
  evalstream run -c pipeline.yaml
  evalstream run -c pipeline.yaml --set 'source.path=data/2026-11-25/*.parquet' --save-state part1.state

Flags:
`,
	"merge": `Usage: evalstream merge -o OUT.state STATE...

Merges partial states, written by run or score with --save-state (on other machines or on
other shards of the input), into one state file, exactly as if one run had read all of the
input. States whose metrics or options differ are refused. "evalstream report" prints the
results of the merged state.

Examples:
  evalstream merge -o all.state shard1.state shard2.state shard3.state
  evalstream merge -o week.state daily/*.state && evalstream report week.state

Flags:
`,
	"report": `Usage: evalstream report [--format table|json] STATE...
       evalstream report --from-kafka STATE_TOPIC (--brokers ADDR[,ADDR] | -c PIPELINE.yaml) [--format json]

Computes the final metrics from saved states: several state files are merged first. With
--from-kafka, it merges the latest snapshot of every partition in a Kafka state topic (the
state.topic of Kafka pipelines running on several instances) into the global results; the
connection (brokers, TLS, SASL) comes from --brokers or from a pipeline config's source.

Examples:
  evalstream report --format json shard1.state shard2.state
  evalstream report --from-kafka evalstream-state -c pipeline.yaml

Flags:
`,
	"validate": `Usage: evalstream validate -c PIPELINE.yaml [--set key.path=value]...

Checks a pipeline config without running it and prints every problem at once, each with
its config path (source.path: ..., metrics[1].tokenize: ...): unknown keys at every level,
unknown metric types and options (with a "did you mean" for near misses), invalid values,
input files that do not exist or cannot be read (a file source's path, glob or directory
must select at least one file; a text source's hypotheses and references must exist), output
files whose directory cannot be written or created (sinks, dead letters), TLS files and a
prometheus sink's web config. Nothing is written and no broker is contacted. Exit 0 when the
config is valid, 2 otherwise (problems on stderr).

Examples:
  evalstream validate -c pipeline.yaml
  evalstream validate -c pipeline.yaml --set 'source.path=data/2026-11-25/*.parquet'

Flags:
`,
	"list": `Usage: evalstream list

Lists every metric type: what its value is, whether higher or lower is better, the reference
implementation it matches (its compat presets, the first the default), the input fields it
reads and the value types they accept, its options with their defaults, the records it
rejects and its memory use; then the input shapes and every rejection reason.

Examples:
  evalstream list
  evalstream list | grep -A12 '^bleu$'

Flags:
`,
	"bench": `Usage: evalstream bench [flags]
       evalstream bench --kafka BROKERS [flags]
       evalstream bench --compare [--python PY] [--tasks LIST] [flags]

Measures throughput stage by stage (read, decode, tokenize, score) on a synthetic corpus of
one of the mixes, or on your own file with --input, and reports records per second, the
scaling over worker counts and the peak memory; the results of every pass are checked to be
identical. With --kafka it produces the mix to a fresh topic and compares evalstream's
consume+score with raw kafka-go fetching of the same topic. With --compare it runs the peers
installed in --python's interpreter (sacrebleu, bleuscore, rouge-score, rouge-score-rs,
rouge-rust, jiwer, duckdb, polars) and a minimal C n-gram counter (when a C compiler is
there) as whole processes on the same files as evalstream, in turns, and prints the medians
of their CPU and wall times, the ratios, and whether the scores agree (exit 1 when they do
not, or a run fails; a peer not installed, or that cannot take the input, is listed as such).

Examples:
  evalstream bench --mix text --records 500000 --workers 1,2,4
  evalstream bench --input 'data/*.parquet' --metric bleu --metric chrf --repeat 3
  evalstream bench --compare --python .venv/bin/python --tasks bleu,rouge --repeat 7

Flags:
`,
	"version": `Usage: evalstream version

Prints the evalstream release, which also enters state files and metric signatures (so a
state or a score can be traced to the binary that made it).

Examples:
  evalstream version                       # prints "evalstream X.Y.Z"
  evalstream version | cut -d' ' -f2       # the number alone, e.g. for a CI log

`,
}

// withHelp makes fs print the command's description and examples before its flags on -h.
func withHelp(fs *flag.FlagSet, cmd string) *flag.FlagSet {
	if cmd == "bench --kafka" || cmd == "bench --compare" {
		cmd = "bench"
	}
	if text, ok := commandHelp[cmd]; ok {
		fs.Usage = func() {
			fmt.Fprint(fs.Output(), text)
			fs.PrintDefaults()
		}
	}
	return fs
}

// presetLibraries names the library each `compat` preset reproduces, for `evalstream list`.
// A version is the one the golden values were generated with (testdata/goldens/
// requirements.txt; TestListNamesReferenceLibraries keeps the two equal); the others were
// reproduced from the library's source.
var presetLibraries = map[string]string{
	"sacrebleu":    "sacrebleu 2.6.0",
	"rouge-score":  "Google rouge-score 0.1.2",
	"nltk":         "NLTK 3.9.1",
	"sklearn":      "scikit-learn 1.9.1",
	"scipy":        "SciPy 1.17.1",
	"ignite":       "PyTorch-Ignite 0.5.5",
	"jiwer":        "jiwer 4.0.0",
	"torchmetrics": "TorchMetrics 1.9.0",
	"mindnlp":      "MindNLP",
	"paddle":       "PaddleNLP",
	"squad":        "the SQuAD v1.1 evaluation script",
	"trec_eval":    "trec_eval (pytrec_eval-terrier 0.5.11)",
}

// referenceLine is the libraries of a metric's presets, in preset order.
func referenceLine(presets []string) string {
	var out []string
	for _, p := range presets {
		if lib, ok := presetLibraries[p]; ok {
			out = append(out, lib)
		} else {
			out = append(out, p)
		}
	}
	return strings.Join(out, " | ")
}
