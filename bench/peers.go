package bench

import (
	"bufio"
	"compress/gzip"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// The peers of `evalstream bench --compare`: which tools compute which task's scores, how
// they are found, and the files they read.

// peerFiles are the drivers: peers.py runs each Python peer (and probes which are
// installed); ngram_counter.c is the minimal C n-gram counter, BLEU's floor.
//
//go:embed peers/peers.py peers/ngram_counter.c
var peerFiles embed.FS

// pythonPeer is a peer run by peers.py: its name there, the module whose presence means it
// is installed and the distribution that gives its version.
type pythonPeer struct {
	driver, name, module, dist, note string
}

// compareTask is a task of the comparison: evalstream's metrics (each named as the peers
// name their scores) and the peers.
type compareTask struct {
	key, name string
	metrics   []string
	class     bool // reads the classification Parquet file, not the text JSONL
	peers     []pythonPeer
	counter   bool // the C n-gram counter is a peer
}

var (
	sacrebleuPeer = func(which string) pythonPeer {
		return pythonPeer{"sacrebleu-" + which, "sacrebleu", "sacrebleu", "sacrebleu", ""}
	}
	compareTasks = []compareTask{
		{key: "bleu", name: "BLEU-13a", metrics: []string{"bleu:scale=100"}, counter: true,
			peers: []pythonPeer{sacrebleuPeer("bleu"), {"bleuscore", "bleuscore", "bleuscore", "bleuscore", "Rust; ×100"}}},
		{key: "chrf", name: "chrF", metrics: []string{"chrf:scale=100"}, peers: []pythonPeer{sacrebleuPeer("chrf")}},
		{key: "ter", name: "TER", metrics: []string{"ter:scale=100"}, peers: []pythonPeer{sacrebleuPeer("ter")}},
		{key: "rouge", name: "ROUGE-1/2/L/Lsum, stemming", metrics: []string{"rouge_n:name=rouge1,n=1,stem=true", "rouge_n:name=rouge2,n=2,stem=true",
			"rouge_l:name=rougeL,compat=rouge-score,stem=true", "rouge_lsum:name=rougeLsum,stem=true"},
			peers: []pythonPeer{{"rouge-score", "rouge-score", "rouge_score", "rouge-score", ""}, {"rouge-score-rs", "rouge-score-rs", "rouge_score_rs", "rouge-score-rs", "Rust"}}},
		{key: "rouge-nostem", name: "ROUGE-1/2/L, no stemming", metrics: []string{"rouge_n:name=rouge1,n=1", "rouge_n:name=rouge2,n=2",
			"rouge_l:name=rougeL,compat=rouge-score"},
			peers: []pythonPeer{{"rouge-rust", "rouge-rust", "fast_rouge", "rouge-rust", "Rust"}}},
		{key: "wer", name: "WER", metrics: []string{"wer"}, peers: []pythonPeer{{"jiwer-wer", "jiwer", "jiwer", "jiwer", ""}}},
		{key: "cer", name: "CER", metrics: []string{"cer"}, peers: []pythonPeer{{"jiwer-cer", "jiwer", "jiwer", "jiwer", ""}}},
		{key: "classification", name: "accuracy + F1 + confusion, Parquet", class: true,
			metrics: []string{"accuracy", "f1:name=f1,compat=sklearn,average=macro", "confusion_matrix:num_classes=%d"},
			peers:   []pythonPeer{{"duckdb", "duckdb", "duckdb", "duckdb", "GROUP BY ALL"}, {"polars", "polars", "polars", "polars", "scan_parquet + group_by"}}},
	}
)

// CompareTaskNames lists the tasks of the comparison, for usage messages.
func CompareTaskNames() string {
	var s []string
	for _, t := range compareTasks {
		s = append(s, t.key)
	}
	return strings.Join(s, ",")
}

// ErrUnknownTask is wrapped when CompareSetup.Tasks names a task that does not exist.
var ErrUnknownTask = errors.New("unknown task")

// CompareSetup says what PlanCompare plans.
type CompareSetup struct {
	// Evalstream is the evalstream binary the tasks run (`score --format json`).
	Evalstream string
	// Python is the interpreter the Python peers run in ("" = python3); a peer its
	// interpreter cannot import is "not installed".
	Python string
	// CC is the C compiler of the n-gram counter ("" = $CC, else cc); without one the
	// counter is "not available".
	CC string
	// Tasks are the task keys to run (nil = all, see CompareTaskNames).
	Tasks []string
	// TextInput is the JSON Lines file (prediction, references) of the text tasks; when
	// empty, TextRecords summaries of the rouge mix are generated (its predictions reuse
	// spans of their references, so every n-gram order matches).
	TextInput   string
	TextRecords int
	// ClassInput is the Parquet file (integer label and prediction in 0..NumClasses-1) of
	// the classification task; when empty, ClassRecords rows of the classification mix
	// (5 classes) are generated.
	ClassInput   string
	ClassRecords int
	NumClasses   int
	// Dir receives the drivers, the generated corpora and the files derived for the C
	// counter; the caller removes it.
	Dir string
}

// PlanCompare finds the installed peers, writes the drivers and inputs into s.Dir, compiles
// the C n-gram counter when a compiler is there, and returns the tasks for RunCompare.
func PlanCompare(ctx context.Context, s CompareSetup) ([]Task, error) {
	selected := map[string]bool{}
	for _, k := range s.Tasks {
		found := false
		for _, t := range compareTasks {
			found = found || t.key == k
		}
		if !found {
			return nil, fmt.Errorf("%w %q (tasks: %s)", ErrUnknownTask, k, CompareTaskNames())
		}
		selected[k] = true
	}
	var tasks []compareTask
	needText, needClass := false, false
	for _, t := range compareTasks {
		if len(selected) == 0 || selected[t.key] {
			tasks = append(tasks, t)
			needText, needClass = needText || !t.class, needClass || t.class
		}
	}
	for _, name := range []string{"peers.py", "ngram_counter.c"} {
		b, err := peerFiles.ReadFile("peers/" + name)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(s.Dir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	k := s.NumClasses
	if k <= 0 {
		k = 5
	}
	textIn, classIn := s.TextInput, s.ClassInput
	var textRecords, classRecords int64
	if needText && textIn == "" {
		textIn = filepath.Join(s.Dir, "summaries.jsonl")
		if err := WriteCorpus(textIn, Mixes["rouge"], s.TextRecords); err != nil {
			return nil, fmt.Errorf("write the text corpus: %w", err)
		}
	}
	if needClass && classIn == "" {
		classIn = filepath.Join(s.Dir, "classification.parquet")
		if err := WriteCorpus(classIn, Mixes["classification"], s.ClassRecords); err != nil {
			return nil, fmt.Errorf("write the classification corpus: %w", err)
		}
		classRecords, k = int64(s.ClassRecords), 5
	}

	// The counter reads the text corpus tokenized (13a) into line-aligned plain text.
	var counter Peer
	if needText {
		n, err := writeTokenized(textIn, filepath.Join(s.Dir, "hyp.tok"), filepath.Join(s.Dir, "ref.tok"))
		textRecords = n
		counter = Peer{Name: "minimal C n-gram counter", Note: "pre-tokenized text: no JSON, no 13a",
			Argv: []string{filepath.Join(s.Dir, "ngram_counter"), filepath.Join(s.Dir, "hyp.tok"), filepath.Join(s.Dir, "ref.tok")}}
		if errors.Is(err, errCounterInput) {
			counter.Missing = "not available: " + err.Error()
		} else if err != nil {
			return nil, err
		} else {
			var compiler string
			counter.Missing, compiler = compileCounter(ctx, s.CC, s.Dir)
			counter.Note = compiler + "; " + counter.Note
		}
	}

	installed, why := probePython(ctx, s.Python, filepath.Join(s.Dir, "peers.py"), tasks)
	py := s.Python
	if py == "" {
		py = "python3"
	}
	var out []Task
	for _, t := range tasks {
		input, records := textIn, textRecords
		if t.class {
			input, records = classIn, classRecords
		}
		argv := []string{s.Evalstream, "score", "--format", "json", "--no-progress"}
		for _, m := range t.metrics {
			if strings.Contains(m, "%d") {
				m = fmt.Sprintf(m, k)
			}
			argv = append(argv, "--metric", m)
		}
		task := Task{Name: t.name, Input: input, Records: records, Evalstream: append(argv, input)}
		for _, p := range t.peers {
			peer := Peer{Name: p.name, Note: p.note}
			if v, ok := installed[p.name]; ok {
				peer.Version = v
				peer.Argv = []string{py, filepath.Join(s.Dir, "peers.py"), p.driver, input}
				if t.class {
					peer.Argv = append(peer.Argv, fmt.Sprint(k))
				}
			} else {
				peer.Missing = why
			}
			task.Peers = append(task.Peers, peer)
		}
		if t.counter {
			task.Peers = append(task.Peers, counter)
		}
		out = append(out, task)
	}
	return out, nil
}

// probePython asks the interpreter which peers it can import and their versions. When the
// interpreter cannot be run, every peer is missing; why says so.
func probePython(ctx context.Context, python, driver string, tasks []compareTask) (map[string]string, string) {
	if python == "" {
		python = "python3"
	}
	args := []string{driver, "probe"}
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, p := range t.peers {
			if !seen[p.name] {
				seen[p.name] = true
				args = append(args, p.name+"="+p.module+":"+p.dist)
			}
		}
	}
	if _, err := exec.LookPath(python); err != nil {
		return nil, fmt.Sprintf("not installed (no Python interpreter %s)", python)
	}
	out, err := exec.CommandContext(ctx, python, args...).Output()
	var found map[string]*string
	if err == nil {
		err = json.Unmarshal(out, &found)
	}
	if err != nil {
		return nil, fmt.Sprintf("not installed (%s cannot run the probe: %v)", python, err)
	}
	installed := map[string]string{}
	for name, v := range found {
		if v != nil {
			installed[name] = *v
		}
	}
	return installed, "not installed"
}

// compileCounter compiles the n-gram counter in dir. It returns why the counter is not
// available ("" when it is) and how it was compiled, for the report.
func compileCounter(ctx context.Context, cc, dir string) (missing, version string) {
	if cc == "" {
		cc = os.Getenv("CC")
	}
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return fmt.Sprintf("not available: no C compiler (%s)", cc), filepath.Base(cc)
	}
	out, err := exec.CommandContext(ctx, cc, "-O2", "-o", filepath.Join(dir, "ngram_counter"), filepath.Join(dir, "ngram_counter.c"), "-lm").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("not available: %s -O2 failed: %v: %s", cc, err, truncate(strings.TrimSpace(string(out)), 200)), filepath.Base(cc)
	}
	return "", filepath.Base(cc) + " -O2"
}

// errCounterInput is wrapped when the text corpus has records the counter cannot take.
var errCounterInput = errors.New("the counter takes one string prediction and one reference per record")

// writeTokenized writes the predictions and references of a JSON Lines text corpus (.gz
// allowed), tokenized by 13a (sacrebleu's default) with tokens joined by spaces, one record
// per line, and returns the number of records.
func writeTokenized(input, hypPath, refPath string) (int64, error) {
	f, err := os.Open(input)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(input, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", input, err)
		}
		defer gz.Close()
		r = gz
	}
	tok, err := tokenize.NewAppend("13a")
	if err != nil {
		return 0, err
	}
	hf, err := os.Create(hypPath)
	if err != nil {
		return 0, err
	}
	defer hf.Close()
	rf, err := os.Create(refPath)
	if err != nil {
		return 0, err
	}
	defer rf.Close()
	hw, rw := bufio.NewWriter(hf), bufio.NewWriter(rf)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var n int64
	var buf []string
	var bad error
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		n++
		if bad != nil {
			continue // keep counting the records
		}
		var rec struct {
			Prediction any `json:"prediction"`
			References any `json:"references"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", input, n, err)
		}
		hyp, ok := rec.Prediction.(string)
		ref, ok2 := rec.References.(string)
		if l, ok3 := rec.References.([]any); ok3 && len(l) == 1 {
			ref, ok2 = l[0].(string)
		}
		if !ok || !ok2 {
			bad = fmt.Errorf("%w (record %d)", errCounterInput, n)
			continue
		}
		buf = tok(buf[:0], hyp)
		hw.WriteString(strings.Join(buf, " "))
		hw.WriteByte('\n')
		buf = tok(buf[:0], ref)
		rw.WriteString(strings.Join(buf, " "))
		rw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", input, err)
	}
	if err := hw.Flush(); err != nil {
		return 0, err
	}
	if err := rw.Flush(); err != nil {
		return 0, err
	}
	return n, bad
}
