package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakePeer is the command of testdata/fake_peer.sh printing out (or failing, for "fail").
func fakePeer(t *testing.T, out string) []string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	script, err := filepath.Abs("testdata/fake_peer.sh")
	require.NoError(t, err)
	return []string{"sh", script, out}
}

func esResults(values map[string]any) string {
	m := map[string]any{}
	for k, v := range values {
		m[k] = map[string]any{"type": k, "value": v, "details": map[string]any{"x": 1}}
	}
	b, _ := json.Marshal(map[string]any{"run": "score", "metrics": m})
	return string(b)
}

func TestRunCompare(t *testing.T) {
	es := fakePeer(t, esResults(map[string]any{"bleu": 27.5, "confusion_matrix": []any{[]any{1, 2}, []any{3, 4}}}))
	tasks := []Task{{
		Name: "BLEU", Input: "corpus.jsonl", Records: 1234, Evalstream: es,
		Peers: []Peer{
			{Name: "same", Version: "1.0", Argv: fakePeer(t, `{"bleu": 27.5, "confusion_matrix": [[1, 2], [3, 4]]}`)},
			{Name: "close", Argv: fakePeer(t, `{"bleu": 27.500000000000004}`)},
			{Name: "other", Argv: fakePeer(t, `{"bleu": 27.6}`)},
			{Name: "matrix", Argv: fakePeer(t, `{"confusion_matrix": [[1, 2], [4, 3]]}`)},
			{Name: "unknown-metric", Argv: fakePeer(t, `{"chrf": 50}`)},
			{Name: "broken", Argv: fakePeer(t, "fail")},
			{Name: "garbage", Argv: fakePeer(t, "not json")},
			{Name: "absent", Missing: "not installed"},
			{Name: "refuses", Argv: fakePeer(t, "not-applicable")},
		},
	}}
	var calls []string
	var lastDone, lastTotal int
	rep, err := RunCompare(context.Background(), tasks, CompareOptions{Repeat: 3, Progress: func(done, total int, what string) {
		calls = append(calls, what)
		lastDone, lastTotal = done, total
	}})
	require.NoError(t, err)
	require.Len(t, rep.Tasks, 1)
	tr := rep.Tasks[0]
	require.Len(t, tr.Evalstream.CPU, 3)
	require.Equal(t, 27.5, tr.Values["bleu"])

	byName := map[string]PeerResult{}
	for _, p := range tr.Peers {
		byName[p.Name] = p
	}
	for _, c := range []struct {
		peer   string
		agree  bool
		scores string
		err    string
	}{
		{"same", true, "identical", ""},
		{"close", true, "agree (relative difference 1.3e-16)", ""},
		{"other", false, "DIFFERENT: bleu: peer 27.600000000000001, evalstream 27.5", ""},
		{"matrix", false, "DIFFERENT: confusion_matrix: peer [[1,2],[4,3]], evalstream [[1,2],[3,4]]", ""},
		{"unknown-metric", false, "DIFFERENT: chrf: evalstream has no such metric", ""},
		{"broken", false, "", "exit status 4: fake peer: cannot read the corpus"},
		{"garbage", false, "", `want a JSON object of scores on the last line of its output, got "not json"`},
	} {
		p := byName[c.peer]
		require.Equal(t, c.agree, p.Agree, c.peer)
		require.Equal(t, c.scores, p.Scores, c.peer)
		if c.err != "" {
			require.Contains(t, p.Error, c.err, c.peer)
			require.Empty(t, p.Timings.CPU, "%s: a failed peer is not run again", c.peer)
			continue
		}
		require.Empty(t, p.Error, c.peer)
		require.Len(t, p.Timings.CPU, 3, c.peer)
		require.Len(t, p.Timings.Wall, 3, c.peer)
		require.Equal(t, ratio(median(p.Timings.CPU), median(tr.Evalstream.CPU)), p.RatioCPU, c.peer)
		require.Equal(t, ratio(median(p.Timings.Wall), median(tr.Evalstream.Wall)), p.RatioWall, c.peer)
	}
	absent := byName["absent"]
	require.Equal(t, "not installed", absent.Missing)
	require.Nil(t, absent.Timings)
	require.False(t, absent.Agree)
	refuses := byName["refuses"]
	require.Equal(t, "not applicable: it takes one reference per record", refuses.Missing)
	require.Nil(t, refuses.Timings)
	require.Empty(t, refuses.Error)

	// Disagreeing and failed peers are problems; a missing or refusing one is not.
	require.Equal(t, 5, rep.Problems)
	problems := rep.ProblemLines()
	require.Len(t, problems, 5)
	require.Contains(t, problems, "BLEU: other: scores disagree: DIFFERENT: bleu: peer 27.600000000000001, evalstream 27.5")

	// The runs alternate: evalstream, then each peer that runs, in every round; a failed peer
	// (or refusing) peer is skipped in the later rounds but counted, so that the progress
	// reaches its total.
	require.Equal(t, 3*9+1, len(calls))
	require.Equal(t, "BLEU: evalstream (run 1 of 3)", calls[0])
	require.Equal(t, "BLEU: same (run 1 of 3)", calls[1])
	require.Equal(t, "BLEU: evalstream (run 2 of 3)", calls[9])
	require.Equal(t, "done", calls[len(calls)-1])
	require.Equal(t, lastTotal, lastDone)
	require.Equal(t, 3*9, lastTotal)

	var table, md bytes.Buffer
	rep.Print(&table)
	rep.Markdown(&md)
	for _, want := range []string{"same 1.0", "absent  ", "not installed", "FAILED: ", "PROBLEM: BLEU: other"} {
		require.Contains(t, table.String(), want)
	}
	for _, want := range []string{"| BLEU | corpus.jsonl (1,234 records) | same 1.0 |", "| absent | not installed |", "on " + rep.Machine.String()} {
		require.Contains(t, md.String(), want)
	}
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	require.Contains(t, string(b), `"ratio_cpu"`)
}

// A failed evalstream run ends its task, reported, and the comparison goes on.
func TestRunCompareEvalstreamFails(t *testing.T) {
	good := Task{Name: "chrF", Evalstream: fakePeer(t, esResults(map[string]any{"chrf": 50.0})),
		Peers: []Peer{{Name: "p", Argv: fakePeer(t, `{"chrf": 50}`)}}}
	for _, c := range []struct {
		name, out, want string
	}{
		{"exit status", "fail", "exit status 4: fake peer: cannot read the corpus"},
		{"no metrics", `{"metrics": {}}`, "results JSON: no metrics"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := Task{Name: "BLEU", Evalstream: fakePeer(t, c.out), Peers: []Peer{{Name: "p", Argv: fakePeer(t, `{"bleu": 1}`)}}}
			var done, total int
			rep, err := RunCompare(context.Background(), []Task{bad, good}, CompareOptions{Repeat: 2,
				Progress: func(d, tt int, _ string) { done, total = d, tt }})
			require.NoError(t, err)
			require.Len(t, rep.Tasks, 2)
			require.Contains(t, rep.Tasks[0].Error, c.want)
			require.Empty(t, rep.Tasks[0].Peers[0].Timings.CPU, "the peers of a failed task do not run")
			require.Empty(t, rep.Tasks[1].Error)
			require.True(t, rep.Tasks[1].Peers[0].Agree)
			require.Equal(t, 1, rep.Problems)
			require.Equal(t, []string{"BLEU: evalstream failed: " + rep.Tasks[0].Error}, rep.ProblemLines())
			require.Equal(t, total, done)
			var md bytes.Buffer
			rep.Markdown(&md)
			require.Contains(t, md.String(), "| BLEU | ")
			require.Contains(t, md.String(), " | evalstream | failed: ")
		})
	}
}

func TestSummarizeRatios(t *testing.T) {
	tr := TaskResult{
		Evalstream: Timings{CPU: []float64{0.5, 9, 1}, Wall: []float64{2, 1, 3, 4}},
		Values:     map[string]any{"bleu": 1.0},
		Peers: []PeerResult{
			{Name: "a", Timings: &Timings{CPU: []float64{3, 1, 2}, Wall: []float64{10, 30}}, Values: map[string]any{"bleu": 1.0}},
			{Name: "b", Missing: "not installed"},
			{Name: "c", Error: "exit status 1"},
		},
	}
	for _, tm := range []*Timings{&tr.Evalstream, tr.Peers[0].Timings} {
		tm.MedianCPU, tm.MedianWall = median(tm.CPU), median(tm.Wall)
	}
	require.Equal(t, 1, tr.summarize(1e-9))
	require.Equal(t, 2.0, tr.Peers[0].RatioCPU)  // 2 / 1
	require.Equal(t, 8.0, tr.Peers[0].RatioWall) // 20 / 2.5
	require.Equal(t, "identical", tr.Peers[0].Scores)
	require.Zero(t, tr.Peers[1].RatioCPU)
}

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		a, b any
		same bool
	}{
		{1.0, 1.0, true},
		{1.0, 1.0 + 1e-12, true},
		{1.0, 1.0 + 1e-6, false},
		{0.0, 0.0, true},
		{0.0, 1e-300, false},
		{nil, nil, true},
		{nil, 0.0, false},
		{1.0, "1", false},
		{[]any{1.0, 2.0}, []any{1.0, 2.0}, true},
		{[]any{1.0, 2.0}, []any{1.0}, false},
		{[]any{[]any{1.0}}, []any{[]any{2.0}}, false},
		{"x", "x", true},
	} {
		same, _ := sameValue(c.a, c.b, 1e-9)
		require.Equal(t, c.same, same, "%v vs %v", c.a, c.b)
	}
}

func TestPlanCompareFindsPeers(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	fakePython, err := filepath.Abs("testdata/fake_python.sh")
	require.NoError(t, err)
	for _, c := range []struct {
		name, python, cc string
		want             map[string]string // peer -> Missing ("" = runs)
	}{
		{"fake interpreter", fakePython, "no-such-cc",
			map[string]string{"sacrebleu": "", "jiwer": "", "bleuscore": "not installed", "rouge-rust": "not installed",
				"duckdb": "not installed", "minimal C n-gram counter": "not available: no C compiler (no-such-cc)"}},
		{"no interpreter", "/nonexistent/python3", "no-such-cc",
			map[string]string{"sacrebleu": "not installed (no Python interpreter /nonexistent/python3)", "polars": "not installed (no Python interpreter /nonexistent/python3)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tasks, err := PlanCompare(context.Background(), CompareSetup{Evalstream: "/bin/evalstream", Python: c.python, CC: c.cc,
				TextRecords: 20, ClassRecords: 50, Dir: dir})
			require.NoError(t, err)
			require.Len(t, tasks, len(compareTasks))
			got := map[string]string{}
			for _, task := range tasks {
				require.Equal(t, "/bin/evalstream", task.Evalstream[0])
				require.Equal(t, task.Input, task.Evalstream[len(task.Evalstream)-1], "evalstream reads the task's input")
				for _, p := range task.Peers {
					got[p.Name] = p.Missing
					if p.Missing == "" && p.Name != "minimal C n-gram counter" {
						require.Equal(t, c.python, p.Argv[0])
						require.Equal(t, task.Input, p.Argv[3], "the peer reads the task's input")
						require.Equal(t, "0.0-fake", p.Version)
					}
				}
				if task.Name == "BLEU-13a" {
					require.Equal(t, int64(20), task.Records)
				}
			}
			for peer, missing := range c.want {
				require.Equal(t, missing, got[peer], peer)
			}
		})
	}
	_, err = PlanCompare(context.Background(), CompareSetup{Tasks: []string{"bleu", "nope"}, Dir: t.TempDir()})
	require.ErrorContains(t, err, `unknown task "nope"`)
}

// The C n-gram counter gives sacrebleu's BLEU on the WMT17 systems of testdata/text (the
// goldens of sacrebleu 2.6.0), from the corpus as writeTokenized prepares it.
func TestNgramCounterMatchesSacrebleu(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	var golden struct {
		Systems map[string]struct {
			BLEU float64 `json:"bleu"`
			File string  `json:"file"`
		} `json:"systems"`
	}
	b, err := os.ReadFile("../testdata/text/sacrebleu.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &golden))
	require.NotEmpty(t, golden.Systems)
	mustWriteCounter(t, dir)
	missing, _ := compileCounter(context.Background(), cc, dir)
	require.Empty(t, missing)
	refs := readLines(t, "../testdata/text/newstest2017.ref.de")
	for name, sys := range golden.Systems {
		hyps := readLines(t, filepath.Join("../testdata/text", sys.File))
		require.Len(t, hyps, len(refs))
		var jsonl strings.Builder
		for i := range hyps {
			rec, err := json.Marshal(map[string]any{"prediction": hyps[i], "references": []string{refs[i]}})
			require.NoError(t, err)
			jsonl.Write(rec)
			jsonl.WriteByte('\n')
		}
		in := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(in, []byte(jsonl.String()), 0o644))
		n, err := writeTokenized(in, filepath.Join(dir, "hyp.tok"), filepath.Join(dir, "ref.tok"))
		require.NoError(t, err)
		require.Equal(t, int64(len(hyps)), n)
		out, _, _, err := runMeasured(context.Background(), []string{filepath.Join(dir, "ngram_counter"), filepath.Join(dir, "hyp.tok"), filepath.Join(dir, "ref.tok")})
		require.NoError(t, err)
		v, err := peerValues(out)
		require.NoError(t, err)
		same, rel := sameValue(v["bleu"], sys.BLEU, 1e-12)
		require.True(t, same, "%s: counter %v, sacrebleu %v (relative difference %g)", name, v["bleu"], sys.BLEU, rel)
	}

	// Records the counter cannot take make it "not available", not an error.
	in := filepath.Join(dir, "multi.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(`{"prediction": "a b", "references": ["a b"]}`+"\n"+`{"prediction": "a", "references": ["a", "b"]}`+"\n"), 0o644))
	n, err := writeTokenized(in, filepath.Join(dir, "hyp.tok"), filepath.Join(dir, "ref.tok"))
	require.ErrorIs(t, err, errCounterInput)
	require.Equal(t, int64(2), n)
	require.ErrorContains(t, err, "(record 2)")
}

func mustWriteCounter(t *testing.T, dir string) {
	t.Helper()
	b, err := peerFiles.ReadFile("peers/ngram_counter.c")
	require.NoError(t, err)
	src := filepath.Join(dir, "ngram_counter.c")
	require.NoError(t, os.WriteFile(src, b, 0o644))
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestCompareProgressTotals(t *testing.T) {
	// Missing peers are not runs; every other peer runs Repeat times.
	tasks := []Task{{Name: "a", Evalstream: fakePeer(t, esResults(map[string]any{"x": 1.0})), Peers: []Peer{{Name: "m", Missing: "not installed"}}}}
	var totals []int
	_, err := RunCompare(context.Background(), tasks, CompareOptions{Repeat: 2, Progress: func(done, total int, what string) {
		totals = append(totals, total)
		require.LessOrEqual(t, done, total, fmt.Sprint(what))
	}})
	require.NoError(t, err)
	require.Equal(t, []int{2, 2, 2}, totals)
}
