package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources"
)

// fingerprintBytes is how much of each input file its fingerprint hashes: enough to tell
// files apart, cheap for files of any size.
const fingerprintBytes = 1 << 20

// runLabel is the default run label for a config file: its base name without extensions
// ("nightly" for configs/nightly.yaml and nightly.v2.yaml; a leading dot is kept).
func runLabel(cfgPath string) string {
	base := filepath.Base(cfgPath)
	if i := strings.IndexByte(base[1:], '.'); i >= 0 {
		base = base[:i+1]
	}
	return base
}

// metricsSignature identifies what a run's metrics compute: their names and signatures
// (type and every option), nothing about paths or the source, so that runs over different
// (dated) files of the same evaluation share it. The signatures' version is left out: a
// nightly series stays one series across upgrades, and each line carries its version.
func (j *job) metricsSignature() string {
	h := sha256.New()
	for _, m := range j.plan.Metrics {
		fmt.Fprintf(h, "%s=%s\n", m.Name, core.SigOptions(m.Signature()))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// runMeta describes the run for the history; called at each history write, so that the
// duration is measured up to that write.
func (j *job) runMeta() sinks.RunMeta {
	d := j.emitted
	if d == 0 {
		d = time.Since(j.startedAt)
	}
	return sinks.RunMeta{
		Run:              j.label,
		StartedAt:        j.startedAt,
		Duration:         d,
		Version:          buildinfo.Version,
		GitCommit:        j.gitCommit,
		Inputs:           j.inputsNow(),
		MetricsSignature: j.metricsSignature(),
	}
}

// inputsNow returns the inputs of the run with, for a Kafka run, the offset ranges of each
// topic's partitions that the results cover now (inputs itself is not modified).
func (j *job) inputsNow() []sinks.Input {
	if j.covered == nil {
		return j.inputs
	}
	rs := j.covered()
	out := make([]sinks.Input, len(j.inputs))
	for i, in := range j.inputs {
		in.Partitions = nil
		for _, r := range rs {
			if in.Topic != "" && r.Topic == in.Topic {
				in.Partitions = append(in.Partitions, sinks.PartitionRange{Partition: r.Partition, StartOffset: r.Start, EndOffset: r.End})
			}
		}
		out[i] = in
	}
	return out
}

// startRun records the start of the run and fingerprints its inputs (before they are read,
// so that a file growing during the run is described as it was at the start). The run label
// defaults to "score" for a job without a config file; the git commit, when not given, is
// that of the working directory's git work tree, if any.
func (j *job) startRun() error {
	j.startedAt = time.Now()
	if j.label == "" {
		j.label = "score"
	}
	if j.gitCommit == "" {
		if wd, err := os.Getwd(); err == nil {
			j.gitCommit = gitHead(wd)
		}
	}
	ins, err := j.fingerprintInputs()
	if err != nil {
		return err
	}
	j.inputs = ins
	return nil
}

// fingerprintInputs fingerprints the job's input files (every file a glob or directory
// selects, in reading order), or names its Kafka topics. Standard input ("-") and FIFOs are
// named but not hashed: they can be read only once.
func (j *job) fingerprintInputs() ([]sinks.Input, error) {
	src := j.cfg.Source
	var paths []string
	switch src.Type {
	case "kafka":
		var out []sinks.Input
		for _, t := range append([]string{src.Topic}, src.Topics...) {
			if t != "" {
				out = append(out, sinks.Input{Topic: t})
			}
		}
		return out, nil
	case "text":
		paths = append(append(paths, src.Hypotheses...), src.References...)
	case "file":
		if j.inputFiles != nil {
			paths = j.inputFiles
			break
		}
		ps, err := sources.Expand(sources.FileConfig{Path: src.Path, Format: src.Format})
		if err != nil {
			return nil, sourceErr(err)
		}
		paths = ps
	}
	out := make([]sinks.Input, 0, len(paths))
	for _, p := range paths {
		if p == "-" {
			out = append(out, sinks.Input{Path: p})
			continue
		}
		in, err := fingerprintFile(p)
		if err != nil {
			return nil, runtimeErr(err)
		}
		out = append(out, in)
	}
	return out, nil
}

// fingerprintFile returns p's size and the SHA-256 of its first MiB. A FIFO or device is
// only named, as standard input is: what would be hashed is gone for the run, and its open
// and reads can wait for a writer for ever.
func fingerprintFile(p string) (sinks.Input, error) {
	if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
		return sinks.Input{Path: p}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return sinks.Input{}, fmt.Errorf("fingerprint input: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sinks.Input{}, fmt.Errorf("fingerprint input: %w", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, fingerprintBytes)); err != nil {
		return sinks.Input{}, fmt.Errorf("fingerprint input %s: %w", p, err)
	}
	return sinks.Input{Path: p, Size: st.Size(), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// gitHead returns the commit checked out in the git work tree containing dir, read from the
// repository's files (HEAD, the loose ref or packed-refs; a linked worktree's .git file is
// followed), or "" when dir is in no work tree or HEAD cannot be resolved. It runs no git
// process: the history must not depend on git being installed.
func gitHead(dir string) string {
	for d := dir; ; {
		gitDir, ok := findGitDir(d)
		if ok {
			return resolveHead(gitDir)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// findGitDir returns the git directory of the work tree rooted at d, if d is one.
func findGitDir(d string) (string, bool) {
	p := filepath.Join(d, ".git")
	st, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		return p, true
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	return target, true
}

// resolveHead resolves HEAD in gitDir to a commit id. Refs of a linked worktree live in the
// common directory named by its commondir file.
func resolveHead(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref:")
	if !ok {
		if isCommitID(head) {
			return head
		}
		return ""
	}
	ref = strings.TrimSpace(ref)
	dirs := []string{gitDir}
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			if id := strings.TrimSpace(string(b)); isCommitID(id) {
				return id
			}
		}
	}
	for _, d := range dirs {
		if id, err := packedRef(filepath.Join(d, "packed-refs"), ref); err == nil && id != "" {
			return id
		}
	}
	return ""
}

// packedRef looks ref up in a packed-refs file.
func packedRef(path, ref string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && isCommitID(id) {
			return id, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("not found")
}

// isCommitID reports whether s is a hex SHA-1 or SHA-256 object id.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// inputIDs identifies the job's fingerprinted input files for saved states (see
// pipeline.Accumulator.Covers). An id depends on a file's size and the hash of its first
// MiB, not on its path, so that a copy or a renamed file is recognised; standard input and
// Kafka topics have none.
func (j *job) inputIDs() []string {
	var ids []string
	for _, in := range j.inputs {
		if in.SHA256 == "" {
			continue
		}
		ids = append(ids, inputID(in))
	}
	return ids
}

func inputID(in sinks.Input) string {
	h := sha256.Sum256(fmt.Appendf(nil, "evalstream-input\x00%d\x00%s", in.Size, in.SHA256))
	return hex.EncodeToString(h[:8])
}

// coverage remembers, while states are merged, which state file covered which input, so
// that an overlap names both files.
type coverage struct {
	owner map[string]string // input id -> state file
	files []string
	stats []os.FileInfo
}

// add records the inputs of the state read from path, failing when path is a state given
// before (the same file, even under another name: states without input ids, written by
// older builds, would otherwise be counted twice silently) or when a state given before
// covers one of the same inputs.
func (c *coverage) add(path string, a *pipeline.Accumulator) error {
	if st, err := os.Stat(path); err == nil {
		for i, prev := range c.stats {
			if prev != nil && os.SameFile(prev, st) {
				return fmt.Errorf("%s and %s are the same state file: merging it with itself would count its records twice", c.files[i], path)
			}
		}
		c.stats = append(c.stats, st)
	} else {
		c.stats = append(c.stats, nil)
	}
	c.files = append(c.files, path)
	if c.owner == nil {
		c.owner = map[string]string{}
	}
	for _, id := range a.Covers {
		if prev, ok := c.owner[id]; ok {
			return fmt.Errorf("%s and %s both cover input %s (same size and first MiB): merging them would count its records twice: %w", prev, path, id, pipeline.ErrOverlap)
		}
	}
	for _, id := range a.Covers {
		c.owner[id] = path
	}
	return nil
}
