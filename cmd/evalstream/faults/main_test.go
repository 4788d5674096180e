//go:build linux

package faults

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// binary is the evalstream binary under test, built once by TestMain.
var binary string

// spawnEnv makes the test binary a spawner (see spawn); rssEnv names the file it reports to.
const (
	spawnEnv = "EVALSTREAM_FAULTS_SPAWN"
	rssEnv   = "EVALSTREAM_FAULTS_RSS_FILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(spawnEnv) == "1" {
		os.Exit(spawn())
	}
	dir, err := os.MkdirTemp("", "evalstream-faults-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "evalstream")
	if out, err := exec.Command("go", "build", "-o", binary, "github.com/evalstream/evalstream/cmd/evalstream").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build failed: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// spawn runs os.Args[1:] and writes the child's peak RSS in KiB to the file named by
// rssEnv. Linux charges a child, at exec, the peak RSS of the process it was forked from
// (exec_mmap keeps the old mm's high-water mark): measured from the test process, a child
// would inherit the test's own peak. The spawner is a fresh, small process, so what it
// reports is the child's peak, give or take the spawner's few MiB.
func spawn() int {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return 125
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(os.Getenv(rssEnv), []byte(strconv.FormatInt(ru.Maxrss, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

type result struct {
	stdout, stderr string
	code           int
	signaled       bool  // killed by a signal (code is -1)
	maxRSS         int64 // bytes; measured by runRSS only
}

// firstLine is the first line of the message on stderr, as a user sees it.
func (r result) firstLine() string {
	line, _, _ := strings.Cut(r.stderr, "\n")
	return line
}

func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return wait(t, start(t, dir, binary, args...))
}

// runRSS runs the binary through a spawner and measures its peak RSS.
func runRSS(t *testing.T, dir string, args ...string) result {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	c := start(t, dir, os.Args[0], append([]string{binary}, args...)...)
	c.Env = append(os.Environ(), spawnEnv+"=1", rssEnv+"="+rssFile)
	r := wait(t, c)
	b, err := os.ReadFile(rssFile)
	require.NoError(t, err, "the spawner reports the peak RSS: %s", r.stderr)
	kib, err := strconv.ParseInt(string(b), 10, 64)
	require.NoError(t, err)
	r.maxRSS = kib << 10
	return r
}

type cmd struct {
	*exec.Cmd
	out, errb *bytes.Buffer
	started   bool
}

func start(t *testing.T, dir, bin string, args ...string) *cmd {
	t.Helper()
	c := &cmd{Cmd: exec.Command(bin, args...), out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	c.Dir = dir
	c.Stdout, c.Stderr = c.out, c.errb
	return c
}

func wait(t *testing.T, c *cmd) result {
	t.Helper()
	var err error
	if c.started {
		err = c.Wait()
	} else {
		err = c.Run()
	}
	r := result{stdout: c.out.String(), stderr: c.errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signaled = true
		}
	} else {
		require.NoError(t, err)
	}
	return r
}

// write creates a file under dir.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// files lists the regular files under root (relative paths), temporary ones included.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// requireNoOutputs checks that a failed run left nothing in dir: no result, no temporary file.
func requireNoOutputs(t *testing.T, dir string) {
	t.Helper()
	require.Empty(t, files(t, dir), "a failed run leaves no file, partial or temporary")
}

// requireNoTempIn checks that no temporary file of an atomic write is left in dir.
func requireNoTempIn(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), ".tmp-", "temporary file left in %s", dir)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
