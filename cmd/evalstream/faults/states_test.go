//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const stateMagic = "EVALSTREAM-STATE\n"

// A damaged state given to report or merge: exit 1, a message naming the file and what is
// wrong with it, nothing on stdout (never a number) and no merged state written.
func TestDamagedStates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.jsonl", `{"cls": 1, "label": 1}`+"\n"+`{"cls": 0, "label": 1}`+"\n")
	r := run(t, dir, "score", "--metric", "accuracy:prediction=cls", "--save-state", "good.state", "a.jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	good, err := os.ReadFile(filepath.Join(dir, "good.state"))
	require.NoError(t, err)
	t.Logf("a state of %d bytes", len(good))

	// refused checks report and, when all, report with a good state and merge.
	refused := func(t *testing.T, file, want string, all bool) {
		t.Helper()
		cmds := [][]string{{"report", "--format", "json", file}}
		if all {
			cmds = append(cmds, []string{"report", "good.state", file}, []string{"merge", "-o", "merged.state", "good.state", file})
		}
		for _, args := range cmds {
			r := run(t, dir, args...)
			require.Equal(t, 1, r.code, "%v: %s", args, r.stderr)
			require.Regexp(t, want, r.firstLine(), "%v", args)
			require.Empty(t, r.stdout, "%v: never a number", args)
			_, err := os.Stat(filepath.Join(dir, "merged.state"))
			require.True(t, os.IsNotExist(err), "no merged state")
		}
	}

	t.Run("truncated at every byte", func(t *testing.T) {
		for n := 0; n < len(good); n++ {
			write(t, dir, "cut.state", string(good[:n]))
			want := `^evalstream: cut.state: invalid state file: (checksum mismatch \(truncated or corrupted\)|truncated)$`
			if n < len(stateMagic) {
				want = `^evalstream: cut.state: invalid state file: not an evalstream state file$`
			}
			refused(t, "cut.state", want, n%50 == 0)
		}
		r := run(t, dir, "report", "cut.state")
		t.Logf("exit %d: %s", r.code, r.firstLine())
	})
	t.Run("a flipped byte anywhere", func(t *testing.T) {
		for i := 0; i < len(good); i++ {
			c := []byte(string(good))
			c[i] ^= 0xff
			write(t, dir, "flip.state", string(c))
			want := `^evalstream: flip.state: invalid state file: checksum mismatch \(truncated or corrupted\)$`
			switch {
			case i < len(stateMagic):
				want = `^evalstream: flip.state: invalid state file: not an evalstream state file$`
			case i == len(stateMagic):
				want = `^evalstream: flip.state: invalid state file: format version 253, this build reads versions 1 to 2 \(written by a newer evalstream, or corrupted\)$`
			}
			refused(t, "flip.state", want, i%50 == 0)
		}
		r := run(t, dir, "report", "flip.state")
		t.Logf("exit %d: %s", r.code, r.firstLine())
	})
	t.Run("from a future format version", func(t *testing.T) {
		c := []byte(string(good))
		c[len(stateMagic)] = 3
		write(t, dir, "future.state", string(c))
		refused(t, "future.state", `^evalstream: future.state: invalid state file: format version 3, this build reads versions 1 to 2 \(written by a newer evalstream, or corrupted\)$`, true)
		r := run(t, dir, "report", "future.state")
		t.Logf("exit %d: %s", r.code, r.firstLine())
	})
	t.Run("not a state", func(t *testing.T) {
		write(t, dir, "empty.state", "")
		refused(t, "empty.state", `^evalstream: empty.state: invalid state file: not an evalstream state file$`, true)
		refused(t, "a.jsonl", `^evalstream: a.jsonl: invalid state file: not an evalstream state file$`, true)
		refused(t, "missing.state", `^evalstream: open missing.state: no such file or directory$`, true)
		require.NoError(t, os.Mkdir(filepath.Join(dir, "dir.state"), 0o755))
		refused(t, "dir.state", `^evalstream: read dir.state: is a directory$`, true)
	})
	t.Run("metric options differ", func(t *testing.T) {
		for _, spec := range []string{"f1:prediction=cls,average=macro", "f1:prediction=cls,average=micro"} {
			r := run(t, dir, "score", "--metric", spec, "--save-state", spec[len(spec)-5:]+".state", "a.jsonl")
			require.Equal(t, 0, r.code, r.stderr)
		}
		for _, pair := range [][2]string{{"macro.state", "micro.state"}, {"good.state", "micro.state"}} {
			for _, args := range [][]string{
				{"report", "--format", "json", pair[0], pair[1]},
				{"merge", "-o", "merged.state", pair[0], pair[1]},
			} {
				r := run(t, dir, args...)
				require.Equal(t, 1, r.code, "%v: %s", args, r.stderr)
				require.Regexp(t, `^evalstream: `+pair[1]+`: incompatible metric states: metric 0 is \w+ \(.+\) in one state and \w+ \(.+\) in the other \(they differ in .+\)$`, r.firstLine())
				require.Empty(t, r.stdout, "never a number")
				_, err := os.Stat(filepath.Join(dir, "merged.state"))
				require.True(t, os.IsNotExist(err), "no merged state")
				t.Logf("exit %d: %s", r.code, r.firstLine())
			}
		}
	})
}
