package text

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

func TestSystemName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"sysA.txt", "sysA"},
		{"out/online-B.de.txt.gz", "online-B.de"},
		{"newstest2017.online-A.0.de", "newstest2017.online-A.0.de"},
		{"a/b/model.hyp", "model"},
		{"x.gz", "x"},
		{".txt", ".txt"},
		{"-", "stdin"},
		{"run.TXT", "run"},
	} {
		require.Equal(t, tc.want, SystemName(tc.path), tc.path)
	}
}

func gzBytes(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// readAll reads every record of a source opened on the given files, in Seq order. It checks
// the order they come in: by Seq, or with cfg.SegmentMajor by line and then system.
func readAll(t *testing.T, cfg Config, fields []string, batch int) ([]string, error) {
	t.Helper()
	s, err := Open(context.Background(), cfg, fields, batch)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []string
	var seqs []uint64
	order := func(seq uint64) uint64 {
		if cfg.SegmentMajor && s.segmentMajor { // line, then system
			return seq<<16 | seq>>48
		}
		return seq
	}
	for {
		b, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			idx := make([]int, len(out))
			for i := range idx {
				idx[i] = i
			}
			sort.Slice(idx, func(a, b int) bool { return seqs[idx[a]] < seqs[idx[b]] })
			var sorted []string
			for _, i := range idx {
				sorted = append(sorted, out[i])
			}
			return sorted, nil
		}
		require.NoError(t, err)
		for _, r := range b.Records {
			if len(seqs) > 0 {
				require.Greater(t, order(r.Seq), order(seqs[len(seqs)-1]))
			}
			seqs = append(seqs, r.Seq)
			var parts []string
			for _, v := range r.Values {
				switch v.Kind {
				case core.String:
					parts = append(parts, v.Str)
				case core.StringList:
					parts = append(parts, "["+strings.Join(v.Strs, "|")+"]")
				default:
					parts = append(parts, v.Kind.String())
				}
			}
			line := r.Pos.String() + " " + strings.Join(parts, " ")
			if r.Err != nil {
				line += " ERR " + r.Err.Error()
			}
			out = append(out, line)
		}
	}
}

func TestRecords(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"h.txt":    []byte("\uFEFFa b \r\nc\x1f\n\n"),
		"h2.txt":   gzBytes(t, "x\ny\nz"),
		"r1.txt":   []byte("A\nC\t\nE\n"),
		"r2.txt":   []byte("a2\nc2\ne2"),
		"bad.txt":  []byte("ok\n\xffno\nok\n"),
		"short":    []byte("1\n"),
		"empty":    nil,
		"empty2":   nil,
		"blank1":   []byte("\n"),
		"blankref": []byte("r\n"),
	}
	for n, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	fields := []string{FieldPrediction, FieldReferences, FieldSystem, "label"}
	for _, tc := range []struct {
		name  string
		cfg   Config
		want  []string
		err   string
		input bool // the error wraps ErrInput
	}{
		{name: "two systems two refs", cfg: Config{Hypotheses: []string{p("h.txt"), p("h2.txt")}, References: []string{p("r1.txt"), p("r2.txt")}}, want: []string{
			p("h.txt") + ":1 \uFEFFa b [A|a2] h missing",
			p("h.txt") + ":2 c [C|c2] h missing",
			p("h.txt") + ":3  [E|e2] h missing",
			p("h2.txt") + ":1 x [A|a2] h2 missing",
			p("h2.txt") + ":2 y [C|c2] h2 missing",
			p("h2.txt") + ":3 z [E|e2] h2 missing",
		}},
		{name: "stdin hypotheses", cfg: Config{Hypotheses: []string{"-"}, References: []string{p("r2.txt")}, Stdin: strings.NewReader("s1\ns2\ns3\n")}, want: []string{
			"<stdin>:1 s1 [a2] stdin missing", "<stdin>:2 s2 [c2] stdin missing", "<stdin>:3 s3 [e2] stdin missing",
		}},
		{name: "invalid utf-8", cfg: Config{Hypotheses: []string{p("bad.txt")}, References: []string{p("r1.txt")}}, want: []string{
			p("bad.txt") + ":1 ok [A] bad missing",
			p("bad.txt") + ":2 \xffno [C] bad missing ERR field \"prediction\": invalid utf-8: " + p("bad.txt") + ":2 is not valid UTF-8",
			p("bad.txt") + ":3 ok [E] bad missing",
		}},
		{name: "invalid utf-8 in a reference", cfg: Config{Hypotheses: []string{p("r1.txt")}, References: []string{p("bad.txt")}}, want: []string{
			p("r1.txt") + ":1 A [ok] r1 missing",
			p("r1.txt") + ":2 C [\xffno] r1 missing ERR field \"references\": invalid utf-8: " + p("bad.txt") + ":2 is not valid UTF-8",
			p("r1.txt") + ":3 E [ok] r1 missing",
		}},
		{name: "empty files", cfg: Config{Hypotheses: []string{p("empty")}, References: []string{p("empty2")}}, want: nil},
		{name: "one empty line", cfg: Config{Hypotheses: []string{p("blank1")}, References: []string{p("blankref")}}, want: []string{p("blank1") + ":1  [r] blank1 missing"}},
		{name: "short hypothesis", cfg: Config{Hypotheses: []string{p("short")}, References: []string{p("r1.txt")}}, err: "short has 1 lines but " + p("r1.txt") + " has 3", input: true},
		{name: "short reference", cfg: Config{Hypotheses: []string{p("h.txt")}, References: []string{p("r1.txt"), p("short")}}, err: "r1.txt has 3 lines but " + p("short") + " has 1", input: true},
		{name: "stdin twice", cfg: Config{Hypotheses: []string{"-"}, References: []string{"-"}, Stdin: strings.NewReader("")}, err: "named 2 times", input: true},
		{name: "no references", cfg: Config{Hypotheses: []string{p("h.txt")}}, err: "no reference file", input: true},
		{name: "same system name", cfg: Config{Hypotheses: []string{p("h.txt"), p("h")}, References: []string{p("r1.txt")}}, err: "both name the system \"h\"", input: true},
		{name: "missing file", cfg: Config{Hypotheses: []string{p("nope")}, References: []string{p("r1.txt")}}, err: "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				batch        int
				segmentMajor bool
			}{{1, false}, {2, false}, {1024, false}, {1, true}, {3, true}, {1024, true}} {
				cfg := tc.cfg
				cfg.SegmentMajor = c.segmentMajor
				got, err := readAll(t, cfg, fields, c.batch)
				if tc.err != "" {
					require.ErrorContains(t, err, tc.err)
					require.Equal(t, tc.input, errors.Is(err, ErrInput))
					return
				}
				require.NoError(t, err)
				require.Equal(t, tc.want, got)
				if s, ok := tc.cfg.Stdin.(*strings.Reader); ok {
					_, _ = s.Seek(0, io.SeekStart)
				}
			}
		})
	}
}

// TestSegmentMajorBudget: segment-major order holds every hypothesis file in memory, so it
// applies only while they fit SegmentMajorMaxBytes; past it the records come system by
// system, the same records with the same Seq.
func TestSegmentMajorBudget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	cfg := Config{
		Hypotheses:   []string{write("a.txt", "a1\na2\na3\n"), write("b.txt", "b1\nb2\nb3\n")},
		References:   []string{write("ref.txt", "r1\nr2\nr3\n")},
		SegmentMajor: true,
	}
	fields := []string{"prediction", "references"}
	plain := cfg
	plain.SegmentMajor = false
	want, err := readAll(t, plain, fields, 2)
	require.NoError(t, err)
	defer func(old int64) { SegmentMajorMaxBytes = old }(SegmentMajorMaxBytes)
	for _, tc := range []struct {
		budget       int64
		segmentMajor bool
	}{{18, true}, {17, false}, {0, false}} { // the hypotheses are 18 bytes
		SegmentMajorMaxBytes = tc.budget
		s, err := Open(context.Background(), cfg, fields, 2)
		require.NoError(t, err)
		require.Equal(t, tc.segmentMajor, s.segmentMajor, "budget %d", tc.budget)
		require.NoError(t, s.Close())
		got, err := readAll(t, cfg, fields, 2)
		require.NoError(t, err)
		require.Equal(t, want, got, "budget %d", tc.budget)
	}
}
