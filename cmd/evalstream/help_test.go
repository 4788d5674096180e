package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryCommandHasHelp: -h and --help of every command exit 0 and print a description,
// two examples and (for commands with flags) the flags.
func TestEveryCommandHasHelp(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		flags []string // some flags the help must list
	}{
		{[]string{"run"}, []string{"-c", "-set", "-save-state"}},
		{[]string{"score"}, []string{"-metric", "-output", "-max-bad"}},
		{[]string{"merge"}, []string{"-o"}},
		{[]string{"report"}, []string{"-format", "-from-kafka", "-brokers"}},
		{[]string{"validate"}, []string{"-c", "-set"}},
		{[]string{"compare"}, []string{"-baseline", "-system-field", "-test", "-trials", "-alpha", "-format"}},
		{[]string{"gate"}, []string{"-c", "-set", "-format"}},
		{[]string{"list"}, nil},
		{[]string{"bench"}, []string{"-mix", "-records", "-input"}},
		{[]string{"bench", "--kafka", "127.0.0.1:1"}, []string{"-partitions"}},
		{[]string{"version"}, nil},
	} {
		for _, h := range []string{"-h", "--help"} {
			t.Run(strings.Join(tc.args, " ")+" "+h, func(t *testing.T) {
				r := run(t, dir, append(append([]string(nil), tc.args...), h)...)
				require.Equal(t, 0, r.code, r.stderr)
				out := r.stderr
				require.True(t, strings.HasPrefix(out, "Usage: evalstream "+tc.args[0]), out)
				_, after, ok := strings.Cut(out, "\nExamples:\n")
				require.True(t, ok, "no Examples section:\n%s", out)
				examples := regexp.MustCompile(`(?m)^  evalstream `+tc.args[0]).FindAllString(after, -1)
				require.GreaterOrEqual(t, len(examples), 2, "want two examples:\n%s", out)
				desc := strings.SplitN(out, "\n\n", 3)
				require.Len(t, desc, 3)
				require.Greater(t, len(desc[1]), 100, "want a description paragraph:\n%s", out)
				for _, f := range tc.flags {
					require.Regexp(t, `(?m)^  `+regexp.QuoteMeta(f)+`\b`, out)
				}
			})
		}
	}
	// "evalstream help CMD" is "evalstream CMD -h".
	r := run(t, dir, "help", "merge")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "Usage: evalstream merge -o OUT.state STATE...")
	require.Contains(t, run(t, dir, "--help").stdout, `"evalstream COMMAND -h" describes a command`)
}

// TestListNamesReferenceLibraries: every metric's `matches` line names one library per
// preset, and each pinned version agrees with the golden generators' requirements.
func TestListNamesReferenceLibraries(t *testing.T) {
	r := run(t, t.TempDir(), "list")
	require.Equal(t, 0, r.code, r.stderr)
	compat := regexp.MustCompile(`(?m)^  compat:   (.*)\n  matches:  (.*)$`).FindAllStringSubmatch(r.stdout, -1)
	types := regexp.MustCompile(`(?m)^[a-z_0-9]+$`).FindAllString(r.stdout, -1)
	require.Len(t, compat, len(types), "one matches line per metric type")
	for _, m := range compat {
		presets, libs := strings.Split(m[1], " | "), strings.Split(m[2], " | ")
		require.Len(t, libs, len(presets), m[0])
		for i, p := range presets {
			_, known := presetLibraries[p]
			require.True(t, known, "preset %q has no library in presetLibraries", p)
			require.Equal(t, presetLibraries[p], libs[i])
		}
	}
	require.Contains(t, r.stdout, "  compat:   sklearn | mindnlp\n  matches:  scikit-learn 1.9.1 | MindNLP\n")

	// The versions printed are the versions the goldens were generated with.
	f, err := os.Open(filepath.Join("..", "..", "testdata", "goldens", "requirements.txt"))
	require.NoError(t, err)
	defer f.Close()
	pins := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ver, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=="); ok {
			pins[strings.ToLower(name)] = ver
		}
	}
	require.NoError(t, sc.Err())
	for preset, pkg := range map[string]string{"sacrebleu": "sacrebleu", "rouge-score": "rouge-score", "nltk": "nltk", "sklearn": "scikit-learn", "scipy": "scipy", "ignite": "pytorch-ignite", "jiwer": "jiwer", "torchmetrics": "torchmetrics"} {
		require.NotEmpty(t, pins[pkg], pkg)
		require.True(t, strings.HasSuffix(presetLibraries[preset], " "+pins[pkg]), "%s: list says %q, requirements pin %s", preset, presetLibraries[preset], pins[pkg])
	}
}
