package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// The peer comparison of `evalstream bench --compare`: every task runs evalstream and the
// tools users already have (its peers) as whole processes over the same input, in turns, and
// reports the medians of their CPU and wall times, the ratios, and whether the scores agree.

// Peer is a tool that computes a task's scores in a process of its own. Its command prints
// one JSON object on stdout (its last line holding one): the scores under the names of
// evalstream's metrics, in evalstream's units.
type Peer struct {
	// Name is what the report calls the peer ("sacrebleu", "duckdb").
	Name string
	// Version is the peer's version, when known.
	Version string
	// Argv is the command to run; it is not run when Missing is set.
	Argv []string
	// Missing, when set, says why the peer is not run ("not installed", "not available: no
	// C compiler"); a missing peer is reported, it is not an error.
	Missing string
	// Note says how the peer's work differs from evalstream's, for the report ("reads
	// pre-tokenized text").
	Note string
}

// Task is one comparison: evalstream's metrics over one input against the peers that compute
// the same scores from the same data.
type Task struct {
	// Name names the task in the report ("BLEU-13a").
	Name string
	// Input is the file every process reads (a peer may read a file derived from it, said in
	// its Note).
	Input string
	// Records is the number of records of Input, for the report (0 = unknown).
	Records int64
	// Evalstream is the command of the evalstream run: `evalstream score --format json ...`,
	// whose results JSON names each metric as the peers name their scores.
	Evalstream []string
	Peers      []Peer
}

// CompareOptions configures RunCompare.
type CompareOptions struct {
	// Repeat is how many times each process runs (default 5); medians are reported.
	Repeat int
	// Tolerance is the largest relative difference between two scores that agree (default
	// 1e-9: the peers compute in float64 in other orders; an integer or a count must be equal).
	Tolerance float64
	// Progress, when set, is called before every process starts with the runs done, the runs
	// planned and what runs now, and once at the end with done == total. It is called from
	// the goroutine of RunCompare.
	Progress func(done, total int, what string)
}

// Machine describes where a comparison ran.
type Machine struct {
	OS    string `json:"os"`
	Arch  string `json:"arch"`
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
}

// Timings are the times of a command's runs, in run order, and their medians.
type Timings struct {
	CPU        []float64 `json:"cpu_seconds"`
	Wall       []float64 `json:"wall_seconds"`
	MedianCPU  float64   `json:"median_cpu_seconds"`
	MedianWall float64   `json:"median_wall_seconds"`
}

func (t *Timings) add(cpu, wall float64) {
	t.CPU = append(t.CPU, cpu)
	t.Wall = append(t.Wall, wall)
	t.MedianCPU, t.MedianWall = median(t.CPU), median(t.Wall)
}

// PeerResult is one peer's side of a task.
type PeerResult struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Note    string `json:"note,omitempty"`
	// Missing is why the peer was not run; the fields below are then empty.
	Missing string   `json:"missing,omitempty"`
	Timings *Timings `json:"timings,omitempty"`
	// RatioCPU and RatioWall are the peer's medians over evalstream's: above 1, evalstream
	// is faster.
	RatioCPU  float64        `json:"ratio_cpu,omitempty"`
	RatioWall float64        `json:"ratio_wall,omitempty"`
	Values    map[string]any `json:"values,omitempty"`
	// Agree reports whether every score the peer printed agrees with evalstream's (within
	// CompareOptions.Tolerance); Scores says how ("identical", or what differs).
	Agree  bool   `json:"scores_agree"`
	Scores string `json:"scores,omitempty"`
	// Error is set when a run of the peer failed (it is not run again).
	Error string `json:"error,omitempty"`
}

// TaskResult is a task's report.
type TaskResult struct {
	Name       string         `json:"task"`
	Input      string         `json:"input"`
	Records    int64          `json:"records,omitempty"`
	Evalstream Timings        `json:"evalstream"`
	Values     map[string]any `json:"values"`
	Peers      []PeerResult   `json:"peers"`
	// Error is set when evalstream's run failed (its peers are then not run).
	Error string `json:"error,omitempty"`
}

// CompareReport is what `bench --compare --format json` prints.
type CompareReport struct {
	Date    string       `json:"date"`
	Machine Machine      `json:"machine"`
	Repeat  int          `json:"repeat"`
	Tasks   []TaskResult `json:"tasks"`
	// Problems counts the peers whose scores disagree with evalstream's or whose runs failed.
	Problems int `json:"problems"`
}

// ProblemLines lists the peers whose scores disagree or whose runs failed, one line each.
func (rep *CompareReport) ProblemLines() []string {
	var out []string
	for _, t := range rep.Tasks {
		if t.Error != "" {
			out = append(out, fmt.Sprintf("%s: evalstream failed: %s", t.Name, t.Error))
			continue
		}
		for _, p := range t.Peers {
			switch {
			case p.Error != "":
				out = append(out, fmt.Sprintf("%s: %s failed: %s", t.Name, p.Name, p.Error))
			case p.Missing == "" && !p.Agree:
				out = append(out, fmt.Sprintf("%s: %s: scores disagree: %s", t.Name, p.Name, p.Scores))
			}
		}
	}
	return out
}

// RunCompare runs every task: in each of o.Repeat rounds, evalstream, then each peer that is
// not missing, one process at a time, so that the machine's drift and other load weigh on
// both alike. A peer whose run fails, or whose scores disagree with evalstream's, is
// reported in its PeerResult and counted in Problems; it does not stop the comparison, nor
// does a failed evalstream run, which ends its task (TaskResult.Error). A peer that refuses
// the input (exit status 3, "not applicable: WHY") is listed as missing. The error is ctx's
// when it ends the comparison. It is not safe for concurrent use with other measurements
// (the processes share the machine).
func RunCompare(ctx context.Context, tasks []Task, o CompareOptions) (*CompareReport, error) {
	repeat := o.Repeat
	if repeat <= 0 {
		repeat = 5
	}
	tol := o.Tolerance
	if tol == 0 {
		tol = 1e-9
	}
	rep := &CompareReport{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Machine: ThisMachine(), Repeat: repeat}
	done := 0
	taskRuns := func(t Task) int {
		n := 1
		for _, p := range t.Peers {
			if p.Missing == "" {
				n++
			}
		}
		return n * repeat
	}
	total := 0
	for _, t := range tasks {
		total += taskRuns(t)
	}
	progress := func(what string) {
		if o.Progress != nil {
			o.Progress(done, total, what)
		}
	}
	for _, t := range tasks {
		doneBefore := done
		tr := TaskResult{Name: t.Name, Input: t.Input, Records: t.Records, Peers: make([]PeerResult, len(t.Peers))}
		for i, p := range t.Peers {
			tr.Peers[i] = PeerResult{Name: p.Name, Version: p.Version, Note: p.Note, Missing: p.Missing}
			if p.Missing == "" {
				tr.Peers[i].Timings = &Timings{}
			}
		}
	rounds:
		for r := 0; r < repeat; r++ {
			progress(fmt.Sprintf("%s: evalstream (run %d of %d)", t.Name, r+1, repeat))
			out, cpu, wall, err := runMeasured(ctx, t.Evalstream)
			done++
			if err == nil && tr.Values == nil {
				tr.Values, err = evalstreamValues(out)
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				tr.Error = err.Error()
				done = doneBefore + taskRuns(t)
				break rounds
			}
			tr.Evalstream.add(cpu, wall)
			for i, p := range t.Peers {
				pr := &tr.Peers[i]
				if p.Missing != "" {
					continue
				}
				progress(fmt.Sprintf("%s: %s (run %d of %d)", t.Name, p.Name, r+1, repeat))
				done++
				if pr.Error != "" || pr.Missing != "" {
					continue
				}
				out, cpu, wall, err := runMeasured(ctx, p.Argv)
				if err == nil && pr.Values == nil {
					pr.Values, err = peerValues(out)
				}
				var na *notApplicableError
				switch {
				case err != nil && ctx.Err() != nil:
					return nil, ctx.Err()
				case errors.As(err, &na):
					pr.Missing, pr.Timings = na.why, nil
					continue
				case err != nil:
					pr.Error = err.Error()
					continue
				}
				pr.Timings.add(cpu, wall)
			}
		}
		if tr.Error != "" {
			rep.Problems++
		} else {
			rep.Problems += tr.summarize(tol)
		}
		rep.Tasks = append(rep.Tasks, tr)
	}
	progress("done")
	return rep, nil
}

// summarize computes the ratios of the peers' medians to evalstream's and compares their
// scores with evalstream's; it returns the number of peers that failed or disagree.
func (tr *TaskResult) summarize(tol float64) int {
	problems := 0
	for i := range tr.Peers {
		pr := &tr.Peers[i]
		if pr.Missing != "" {
			continue
		}
		if pr.Error != "" {
			problems++
			continue
		}
		pr.RatioCPU = ratio(pr.Timings.MedianCPU, tr.Evalstream.MedianCPU)
		pr.RatioWall = ratio(pr.Timings.MedianWall, tr.Evalstream.MedianWall)
		pr.Agree, pr.Scores = agreement(pr.Values, tr.Values, tol)
		if !pr.Agree {
			problems++
		}
	}
	return problems
}

// runMeasured runs argv to its end and returns its stdout, the CPU time (user+system, of the
// process and the children it waited for, from the kernel's rusage) and the wall time.
func runMeasured(ctx context.Context, argv []string) ([]byte, float64, float64, error) {
	if len(argv) == 0 {
		return nil, 0, 0, errors.New("no command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == notApplicableExit && strings.HasPrefix(msg, "not applicable: ") {
			return nil, 0, 0, &notApplicableError{msg}
		}
		if lines := strings.Split(msg, "\n"); len(lines) > 3 {
			msg = strings.Join(lines[len(lines)-3:], " | ")
		}
		if msg != "" {
			return nil, 0, 0, fmt.Errorf("%s: %w: %s", argv[0], err, msg)
		}
		return nil, 0, 0, fmt.Errorf("%s: %w", argv[0], err)
	}
	ps := cmd.ProcessState
	return stdout.Bytes(), (ps.UserTime() + ps.SystemTime()).Seconds(), wall, nil
}

// notApplicableExit is the exit status of a peer that cannot take the input (peers.py's
// not_applicable), with "not applicable: WHY" on its stderr.
const notApplicableExit = 3

// notApplicableError is a peer's refusal of the input: it is listed, not counted as a
// failure.
type notApplicableError struct{ why string }

func (e *notApplicableError) Error() string { return e.why }

// evalstreamValues takes the metric values out of a results JSON.
func evalstreamValues(out []byte) (map[string]any, error) {
	var res struct {
		Metrics map[string]struct {
			Value any `json:"value"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("results JSON: %w", err)
	}
	if len(res.Metrics) == 0 {
		return nil, errors.New("results JSON: no metrics")
	}
	v := make(map[string]any, len(res.Metrics))
	for name, m := range res.Metrics {
		v[name] = m.Value
	}
	return v, nil
}

// peerValues reads the JSON object on the last non-empty line of a peer's stdout.
func peerValues(out []byte) (map[string]any, error) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	var v map[string]any
	if err := json.Unmarshal([]byte(last), &v); err != nil || len(v) == 0 {
		return nil, fmt.Errorf("want a JSON object of scores on the last line of its output, got %q", truncate(last, 120))
	}
	return v, nil
}

// agreement compares every score a peer printed with evalstream's score of the same name:
// numbers within the relative tolerance tol, lists element by element, null with null.
func agreement(peer, es map[string]any, tol float64) (bool, string) {
	keys := make([]string, 0, len(peer))
	for k := range peer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var diffs []string
	exact, worst := true, 0.0
	for _, k := range keys {
		ev, ok := es[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: evalstream has no such metric", k))
			continue
		}
		same, rel := sameValue(peer[k], ev, tol)
		if !same {
			diffs = append(diffs, fmt.Sprintf("%s: peer %s, evalstream %s", k, truncate(fmtValue(peer[k]), 60), truncate(fmtValue(ev), 60)))
			continue
		}
		if rel != 0 {
			exact = false
			worst = max(worst, rel)
		}
	}
	switch {
	case len(diffs) > 0:
		return false, "DIFFERENT: " + strings.Join(diffs, "; ")
	case exact:
		return true, "identical"
	}
	return true, fmt.Sprintf("agree (relative difference %.1e)", worst)
}

// sameValue reports whether a and b (decoded JSON) agree, and the largest relative
// difference of the numbers in them.
func sameValue(a, b any, tol float64) (bool, float64) {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false, 0
		}
		if x == y {
			return true, 0
		}
		rel := math.Abs(x-y) / max(math.Abs(x), math.Abs(y))
		return rel <= tol, rel
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false, 0
		}
		worst := 0.0
		for i := range x {
			same, rel := sameValue(x[i], y[i], tol)
			if !same {
				return false, 0
			}
			worst = max(worst, rel)
		}
		return true, worst
	case nil:
		return b == nil, 0
	}
	return fmt.Sprint(a) == fmt.Sprint(b), 0
}

func fmtValue(v any) string {
	if f, ok := v.(float64); ok {
		return formatBenchValue(f)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ThisMachine describes the machine: OS, architecture, the CPU model (Linux: from
// /proc/cpuinfo) and the logical CPUs.
func ThisMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func (m Machine) String() string {
	s := fmt.Sprintf("%s/%s, %d cores", m.OS, m.Arch, m.Cores)
	if m.CPU != "" {
		s = m.CPU + ", " + s
	}
	return s
}

// label is the peer's name and version.
func (p PeerResult) label() string {
	if p.Version == "" {
		return p.Name
	}
	return p.Name + " " + p.Version
}

// Print writes the report as a table: one row per task and peer, the medians of the peer's
// and evalstream's CPU and wall times and their ratios, and whether the scores agree.
func (rep *CompareReport) Print(w io.Writer) {
	fmt.Fprintf(w, "evalstream bench --compare: %s; %s; medians of %d runs each, evalstream and the peers in turns, whole processes\n",
		rep.Date, rep.Machine, rep.Repeat)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tpeer\tpeer CPU / wall s\tevalstream CPU / wall s\tpeer ÷ evalstream CPU / wall\tscores")
	for _, t := range rep.Tasks {
		name := t.Name
		if t.Error != "" {
			fmt.Fprintf(tw, "%s\tevalstream\t-\t-\t-\tFAILED: %s\n", name, t.Error)
			continue
		}
		for _, p := range t.Peers {
			label := p.label()
			if p.Note != "" {
				label += " (" + p.Note + ")"
			}
			switch {
			case p.Missing != "":
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t%s\n", name, label, p.Missing)
			case p.Error != "":
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\tFAILED: %s\n", name, label, p.Error)
			default:
				fmt.Fprintf(tw, "%s\t%s\t%.3f / %.3f\t%.3f / %.3f\t%.2f× / %.2f×\t%s\n", name, label,
					p.Timings.MedianCPU, p.Timings.MedianWall, t.Evalstream.MedianCPU, t.Evalstream.MedianWall,
					p.RatioCPU, p.RatioWall, p.Scores)
			}
			name = ""
		}
		if len(t.Peers) == 0 {
			fmt.Fprintf(tw, "%s\t(no peers)\t\t%.3f / %.3f\t\t\n", name, t.Evalstream.MedianCPU, t.Evalstream.MedianWall)
		}
	}
	tw.Flush()
	for _, p := range rep.ProblemLines() {
		fmt.Fprintf(w, "PROBLEM: %s\n", p)
	}
}

// Markdown writes the report as a Markdown table (the README's performance table), with the
// date and the machine above it.
func (rep *CompareReport) Markdown(w io.Writer) {
	fmt.Fprintf(w, "Measured %s on %s by `evalstream bench --compare` (medians of %d runs, evalstream and the peers in turns; whole processes: start, read, score, print).\n\n",
		rep.Date, rep.Machine, rep.Repeat)
	fmt.Fprintln(w, "| task | input | peer | peer CPU / wall | evalstream CPU / wall | peer ÷ evalstream, CPU | wall | scores |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, t := range rep.Tasks {
		input := t.Input
		if i := strings.LastIndexAny(input, `/\`); i >= 0 {
			input = input[i+1:]
		}
		if t.Records > 0 {
			input = fmt.Sprintf("%s (%s records)", input, thousands(t.Records))
		}
		if t.Error != "" {
			fmt.Fprintf(w, "| %s | %s | evalstream | failed: %s | | | | |\n", t.Name, input, strings.ReplaceAll(t.Error, "|", "\\|"))
			continue
		}
		for _, p := range t.Peers {
			label := p.label()
			if p.Note != "" {
				label += " (" + p.Note + ")"
			}
			switch {
			case p.Missing != "":
				fmt.Fprintf(w, "| %s | %s | %s | %s | | | | |\n", t.Name, input, label, p.Missing)
			case p.Error != "":
				fmt.Fprintf(w, "| %s | %s | %s | failed: %s | | | | |\n", t.Name, input, label, strings.ReplaceAll(p.Error, "|", "\\|"))
			default:
				fmt.Fprintf(w, "| %s | %s | %s | %.3f s / %.3f s | %.3f s / %.3f s | **%s** | %s | %s |\n", t.Name, input, label,
					p.Timings.MedianCPU, p.Timings.MedianWall, t.Evalstream.MedianCPU, t.Evalstream.MedianWall,
					fmtRatio(p.RatioCPU), fmtRatio(p.RatioWall), strings.ReplaceAll(p.Scores, "|", "\\|"))
			}
		}
	}
}

func fmtRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
