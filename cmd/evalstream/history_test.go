package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/sinks"
	corpuswriter "github.com/evalstream/evalstream/sinks/corpus"
	"github.com/evalstream/evalstream/stream"
)

func TestGitHead(t *testing.T) {
	const idA = "0123456789abcdef0123456789abcdef01234567"
	const idB = "89abcdef0123456789abcdef0123456789abcdef"
	write := func(t *testing.T, p, s string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) (workDir string)
		want  string
	}{
		{"loose ref, from a subdirectory", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(root, ".git", "refs", "heads", "main"), idA+"\n")
			require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
			return filepath.Join(root, "a", "b")
		}, idA},
		{"packed ref", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(root, ".git", "packed-refs"), "# pack-refs with: peeled fully-peeled sorted\n"+idB+" refs/heads/other\n"+idA+" refs/heads/main\n")
			return root
		}, idA},
		{"detached HEAD", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), idB+"\n")
			return root
		}, idB},
		{"linked worktree: .git file, refs in the common directory", func(t *testing.T, root string) string {
			common := filepath.Join(root, "main", ".git")
			write(t, filepath.Join(common, "refs", "heads", "feature"), idB+"\n")
			wtGit := filepath.Join(common, "worktrees", "wt")
			write(t, filepath.Join(wtGit, "HEAD"), "ref: refs/heads/feature\n")
			write(t, filepath.Join(wtGit, "commondir"), "../..\n")
			write(t, filepath.Join(root, "wt", ".git"), "gitdir: "+wtGit+"\n")
			return filepath.Join(root, "wt")
		}, idB},
		{"unborn branch", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
			return root
		}, ""},
		{"garbage HEAD", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "not a commit\n")
			return root
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			require.Equal(t, tt.want, gitHead(tt.setup(t, root)))
		})
	}
}

func TestFingerprintHashesFirstMiB(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, fingerprintBytes+10)
	for i := range big {
		big[i] = byte(i)
	}
	p1, p2 := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(p1, big, 0o644))
	big[len(big)-1]++ // past the first MiB: same hash, same size
	require.NoError(t, os.WriteFile(p2, big, 0o644))
	a, err := fingerprintFile(p1)
	require.NoError(t, err)
	b, err := fingerprintFile(p2)
	require.NoError(t, err)
	sum := sha256.Sum256(big[:fingerprintBytes])
	require.Equal(t, hex.EncodeToString(sum[:]), a.SHA256)
	require.Equal(t, a.SHA256, b.SHA256)
	require.Equal(t, int64(fingerprintBytes+10), a.Size)

	_, err = fingerprintFile(filepath.Join(dir, "missing"))
	require.ErrorContains(t, err, "missing")
}

func TestRunLabel(t *testing.T) {
	for in, want := range map[string]string{
		"configs/nightly.yaml":    "nightly",
		"nightly.2026-11-25.yaml": "nightly",
		"/x/plain":                "plain",
		".hidden.yaml":            ".hidden",
	} {
		require.Equal(t, want, runLabel(in), in)
	}
}

// TestHistoryLine runs the same evaluation over the same data under two dated file names:
// the history lines share the metrics signature (not the config signature, which covers the
// path), carry the run label, version, timing and the inputs' fingerprints, and their results
// equal the JSON sink's.
func TestHistoryLine(t *testing.T) {
	dir := t.TempDir()
	recs := corpus(40, 3)
	for _, f := range []string{"in-2026-11-24.jsonl", "in-2026-11-25.jsonl"} {
		require.NoError(t, corpuswriter.Write(filepath.Join(dir, f), recs))
	}
	before := time.Now().UTC()
	var lines []map[string]any
	for i, f := range []string{"in-2026-11-24.jsonl", "in-2026-11-25.jsonl"} {
		cfg := writeConfig(t, dir, "nightly", f, "")
		b, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, append(b, []byte("  - {type: jsonl, path: out/history.jsonl}\n")...), 0o644))
		args := []string{"run", "-c", cfg}
		if i == 1 {
			args = append(args, "--run-name", "second", "--git-commit", "abc123")
		}
		r := run(t, dir, args...)
		require.Equal(t, 0, r.code, r.stderr)
		raw, err := os.ReadFile(filepath.Join(dir, "out", "history.jsonl"))
		require.NoError(t, err)
		all := strings.Split(strings.TrimSpace(string(raw)), "\n")
		require.Len(t, all, i+1)
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(all[i]), &line))
		lines = append(lines, line)

		// The results in the line are the JSON sink's, which carries the same description
		// of the run before them (its duration measured at its own, earlier write).
		js, err := os.ReadFile(filepath.Join(dir, "out", "nightly.json"))
		require.NoError(t, err)
		var want, got map[string]any
		require.NoError(t, json.Unmarshal(js, &want))
		for _, k := range []string{"run", "started_at", "version", "git_commit", "input", "metrics_signature"} {
			require.Equal(t, line[k], want[k], k)
			delete(want, k)
		}
		require.GreaterOrEqual(t, line["duration_s"], want["duration_s"])
		delete(want, "duration_s")
		got = line["results"].(map[string]any)
		require.Equal(t, want, got)

		fp, err := fingerprintFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Equal(t, []any{map[string]any{"path": f, "size": float64(fp.Size), "sha256_first_mib": fp.SHA256}}, line["input"])
		require.Equal(t, buildinfo.Version, line["version"])
		started, err := time.Parse(time.RFC3339Nano, line["started_at"].(string))
		require.NoError(t, err)
		require.False(t, started.Before(before.Truncate(time.Second)))
		require.GreaterOrEqual(t, line["duration_s"].(float64), 0.0)
	}
	require.Equal(t, "nightly", lines[0]["run"])
	require.Equal(t, "second", lines[1]["run"])
	require.Equal(t, "abc123", lines[1]["git_commit"])
	require.Equal(t, lines[0]["metrics_signature"], lines[1]["metrics_signature"])
	require.NotEqual(t, lines[0]["config_signature"], lines[1]["config_signature"])
	require.Regexp(t, `^sha256:[0-9a-f]{16}$`, lines[0]["metrics_signature"])
}

// TestScoreHistoryFingerprintsEveryInput: score's history line names every input file.
func TestScoreHistoryFingerprintsEveryInput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "a.jsonl"), corpus(10, 4)))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "b.jsonl"), corpus(10, 5)))
	r := run(t, dir, "score", "--metric", "accuracy:prediction=cls", "--output", "h.jsonl", "a.jsonl", "b.jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	raw, err := os.ReadFile(filepath.Join(dir, "h.jsonl"))
	require.NoError(t, err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(raw, &line))
	require.Equal(t, "score", line["run"])
	in := line["input"].([]any)
	require.Len(t, in, 2)
	require.Equal(t, "a.jsonl", in[0].(map[string]any)["path"])
	require.Equal(t, "b.jsonl", in[1].(map[string]any)["path"])
}

// TestMergeRefusesOverlap: merge and report refuse a state merged with itself (the same file
// under one or two names, or a copy) or with a state covering one of the same input files,
// naming both state files; states of disjoint inputs merge, and the merged state carries the
// union. State files stay deterministic.
func TestMergeRefusesOverlap(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "in"), 0o755))
	for i, f := range []string{"a", "b", "c"} {
		require.NoError(t, corpuswriter.Write(filepath.Join(dir, "in", f+".jsonl"), corpus(20, int64(10+i))))
	}
	save := func(name string, inputs ...string) string {
		args := []string{"score", "--metric", "accuracy:prediction=cls", "--format", "json", "--save-state", name}
		r := run(t, dir, append(args, inputs...)...)
		require.Equal(t, 0, r.code, r.stderr)
		return name
	}
	a := save("a.state", "in/a.jsonl")
	save("a-again.state", "in/a.jsonl")
	abytes, err := os.ReadFile(filepath.Join(dir, "a.state"))
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(dir, "a-again.state"))
	require.NoError(t, err)
	require.Equal(t, abytes, again, "a state is the same bytes for the same input")
	b := save("b.state", "in/b.jsonl")
	bc := save("bc.state", "in/b.jsonl", "in/c.jsonl")
	c := save("c.state", "in/c.jsonl")
	require.NoError(t, os.Symlink("a.state", filepath.Join(dir, "a-link.state")))

	tests := []struct {
		name   string
		states []string
		want   []string // in stderr; nil: merge succeeds
	}{
		{"disjoint", []string{a, b, c}, nil},
		{"itself", []string{a, a}, []string{"a.state and a.state are the same state file"}},
		{"itself under another name", []string{a, "a-link.state"}, []string{"a.state and a-link.state are the same state file"}},
		{"a copy", []string{a, "a-again.state"}, []string{"a.state and a-again.state both cover input"}},
		{"partial overlap", []string{a, b, bc}, []string{"b.state and bc.state both cover input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"merge", "-o", "out.state"}, {"report", "--format", "json"}} {
				r := run(t, dir, append(cmd, tt.states...)...)
				if tt.want == nil {
					require.Equal(t, 0, r.code, r.stderr)
					continue
				}
				require.Equal(t, 1, r.code, r.stdout)
				for _, w := range tt.want {
					require.Contains(t, r.stderr, w)
				}
			}
		})
	}

	// The merged state covers a, b and c: merging it again with any of them is refused.
	r := run(t, dir, "merge", "-o", "abc.state", a, b, c)
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, "merge", "-o", "x.state", "abc.state", bc)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "abc.state and bc.state both cover input")
	// The merged state equals, byte for byte, the state of one run over the three files.
	whole := save("whole.state", "in/a.jsonl", "in/b.jsonl", "in/c.jsonl")
	wb, err := os.ReadFile(filepath.Join(dir, whole))
	require.NoError(t, err)
	mb, err := os.ReadFile(filepath.Join(dir, "abc.state"))
	require.NoError(t, err)
	require.Equal(t, wb, mb)
}

// TestRunName: the run label of the results JSON and the CSV comes from --run-name, else the
// config's run_name, else the config file's base name; score's is "score" unless given.
func TestRunName(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "in.jsonl"), corpus(20, 6)))
	tests := []struct {
		name  string
		extra string
		args  []string
		want  string
	}{
		{"config file name", "", nil, "nightly"},
		{"run_name key", "run_name: model-b\n", nil, "model-b"},
		{"flag over key", "run_name: model-b\n", []string{"--run-name", "from-flag"}, "from-flag"},
		{"key set on the command line", "", []string{"--set", "run_name=via-set"}, "via-set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeConfig(t, dir, "nightly", "in.jsonl", tt.extra)
			r := run(t, dir, append([]string{"run", "-c", cfg}, tt.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			b, err := os.ReadFile(filepath.Join(dir, "out", "nightly.json"))
			require.NoError(t, err)
			var res map[string]any
			require.NoError(t, json.Unmarshal(b, &res))
			require.Equal(t, tt.want, res["run"])
			require.Equal(t, buildinfo.Version, res["version"])
		})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "score"},
		{[]string{"--run-name", "adhoc"}, "adhoc"},
	} {
		r := run(t, dir, append([]string{"score", "--metric", "accuracy:prediction=cls", "--format", "json", "in.jsonl"}, tt.args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
		require.Equal(t, tt.want, res["run"])
		require.Contains(t, res, "metrics_signature")
	}
}

// TestInputsNowAddsKafkaRanges: a Kafka run's topics get the offset ranges of their own
// partitions as the engine reports them at the write; the job's inputs stay as they were.
func TestInputsNowAddsKafkaRanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranges []stream.Range
		want   []sinks.Input
	}{
		{"no snapshot yet", nil, []sinks.Input{{Topic: "a"}, {Topic: "b"}}},
		{"by topic", []stream.Range{{Topic: "a", Partition: 0, Start: 0, End: 5}, {Topic: "a", Partition: 1, Start: 3, End: 3}, {Topic: "b", Partition: 0, Start: 7, End: 9}},
			[]sinks.Input{
				{Topic: "a", Partitions: []sinks.PartitionRange{{Partition: 0, StartOffset: 0, EndOffset: 5}, {Partition: 1, StartOffset: 3, EndOffset: 3}}},
				{Topic: "b", Partitions: []sinks.PartitionRange{{Partition: 0, StartOffset: 7, EndOffset: 9}}},
			}},
		{"a topic no longer read", []stream.Range{{Topic: "c", Partition: 0, End: 1}}, []sinks.Input{{Topic: "a"}, {Topic: "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &job{inputs: []sinks.Input{{Topic: "a"}, {Topic: "b"}}, covered: func() []stream.Range { return tc.ranges }}
			require.Equal(t, tc.want, j.inputsNow())
			require.Equal(t, []sinks.Input{{Topic: "a"}, {Topic: "b"}}, j.inputs)
		})
	}
}
