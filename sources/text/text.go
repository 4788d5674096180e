// Package text reads plain-text inputs the way sacrebleu and jiwer take them: one system's
// hypotheses per file, one segment per line, and one or more reference files aligned with
// them line by line. Each line of a hypothesis file becomes one record
// {prediction: line, references: [line of each reference file], system: NAME}, so every text
// metric reads it with its default fields.
//
// Lines are split on "\n" only and lose their trailing whitespace (Python's str.rstrip, as
// sacrebleu's reader does: "\r", spaces, tabs, Unicode spaces and \x1c-\x1f); a UTF-8 byte
// order mark at the start of a file is dropped. Files are gzip-decompressed when they start
// with the gzip magic bytes, whatever their name. The path "-" reads standard input (at most
// one input may be "-").
//
// By default the records come system-major (every line of the first file, then of the
// second...). With Config.SegmentMajor they come segment-major: line 1 of every system, then
// line 2 of every system..., so that a worker meets one segment's systems together and a
// metric can reuse its work on the segment's references (see metrics/bleu); a record's Seq,
// position and values do not depend on the order.
//
// Memory: the references are held in memory for the whole run and one hypothesis file at a
// time (every hypothesis file, segment-major); record strings alias those buffers and stay
// valid after Batch.Release.
package text

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Fields a text record can fill; any other requested field is Missing.
const (
	FieldPrediction = "prediction"
	FieldReferences = "references"
	FieldSystem     = "system"
)

// ErrInput is wrapped by every error about how the inputs fit together (no references, two
// inputs reading stdin, two systems with the same name, files with different line counts):
// they are found before any record is scored, and the caller fixes the command line.
var ErrInput = errors.New("text inputs do not fit together")

// Config names the files of a text source.
type Config struct {
	// Hypotheses holds one file per system, in the order the systems are reported and their
	// records are numbered.
	Hypotheses []string
	// References holds one file per reference; every file has as many lines as each
	// hypothesis file.
	References []string
	// Stdin is read for the path "-"; nil means os.Stdin.
	Stdin io.Reader
	// SegmentMajor emits the records segment by segment (every system's line i before any
	// line i+1) instead of system by system. That holds every hypothesis file in memory, so
	// it applies only while they are at most SegmentMajorMaxBytes together (decompressed);
	// larger inputs come system by system, one file in memory at a time. The records, their
	// Seq and their content are the same either way; only their order differs.
	SegmentMajor bool
}

// SegmentMajorMaxBytes bounds the memory Config.SegmentMajor may take for the hypotheses.
var SegmentMajorMaxBytes int64 = 256 << 20

// lines is a decoded text file: the file's content and its lines (substrings of it).
type lines struct {
	path  string
	lines []string
	bytes int64
}

// Source reads the records of every system in turn. It implements pipeline.Source and
// pipeline.Sizer. It is used by one goroutine (the pipeline's reader), not concurrently.
type Source struct {
	hyps      []string
	names     []string
	refs      []lines
	stdin     *lines // the content of "-", read at Open
	fields    []string
	batchSize int
	total     int64

	sys int    // the system being read
	cur *lines // its lines, loaded when its turn comes
	row int

	// Segment-major: every system's lines, loaded by the first Next; sys and row are then
	// the next record's system and line.
	segmentMajor bool
	all          []lines
}

// SystemName is the name a hypothesis file's system is reported under: the file's base
// name without its compression extension (.gz) and without one text extension (.txt, .hyp,
// .out, .ref, .trans, .detok, .tok), so that "out/online-A.de.txt.gz" is "online-A.de".
// Standard input is "stdin".
func SystemName(path string) string {
	if path == Stdin {
		return "stdin"
	}
	name := filepath.Base(path)
	for _, ext := range []string{".gz", ".gzip"} {
		if n, ok := strings.CutSuffix(name, ext); ok && n != "" {
			name = n
			break
		}
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".txt", ".hyp", ".out", ".ref", ".trans", ".detok", ".tok":
		if n := strings.TrimSuffix(name, filepath.Ext(name)); n != "" {
			name = n
		}
	}
	return name
}

// Open checks the inputs and reads the references (and standard input, when named). Line
// counts are compared before anything is scored: an error wrapping ErrInput names both files
// and their counts. fields are the fields the pipeline asked for, in order. Cancelling ctx
// stops the wait for standard input and for a FIFO (whose writer stays open, or has not
// opened it yet).
func Open(ctx context.Context, cfg Config, fields []string, batchSize int) (*Source, error) {
	if len(cfg.Hypotheses) == 0 {
		return nil, fmt.Errorf("%w: no hypothesis file", ErrInput)
	}
	if len(cfg.References) == 0 {
		return nil, fmt.Errorf("%w: no reference file (give one or more -r REF)", ErrInput)
	}
	if batchSize < 1 {
		batchSize = 1
	}
	stdinUsers := 0
	for _, p := range append(append([]string(nil), cfg.Hypotheses...), cfg.References...) {
		if p == Stdin {
			stdinUsers++
		}
	}
	if stdinUsers > 1 {
		return nil, fmt.Errorf("%w: standard input (-) is named %d times; at most one input can read it", ErrInput, stdinUsers)
	}
	s := &Source{hyps: cfg.Hypotheses, fields: fields, batchSize: batchSize, segmentMajor: cfg.SegmentMajor}
	seen := map[string]string{}
	for _, h := range cfg.Hypotheses {
		n := SystemName(h)
		if prev, ok := seen[n]; ok {
			return nil, fmt.Errorf("%w: %s and %s both name the system %q; rename one", ErrInput, prev, h, n)
		}
		seen[n] = h
		s.names = append(s.names, n)
	}
	in := cfg.Stdin
	if in == nil {
		in = os.Stdin
	}
	if stdinUsers == 1 {
		l, err := readStdin(ctx, in)
		if err != nil {
			return nil, err
		}
		s.stdin = &l
	}
	for _, r := range cfg.References {
		l, err := s.load(ctx, r)
		if err != nil {
			return nil, err
		}
		if len(s.refs) > 0 && len(l.lines) != len(s.refs[0].lines) {
			return nil, mismatch(s.refs[0].path, len(s.refs[0].lines), l.path, len(l.lines))
		}
		s.refs = append(s.refs, l)
	}
	want := len(s.refs[0].lines)
	for _, h := range cfg.Hypotheses {
		n, size, err := s.count(ctx, h)
		if err != nil {
			return nil, err
		}
		if n != want {
			return nil, mismatch(displayPath(h), n, s.refs[0].path, want)
		}
		s.total += size
	}
	s.segmentMajor = s.segmentMajor && s.total <= SegmentMajorMaxBytes
	return s, nil
}

// Systems returns the system names in hypothesis-file order.
func (s *Source) Systems() []string { return s.names }

// TotalBytes is the size of the hypothesis files (decompressed), for progress.
func (s *Source) TotalBytes() int64 { return s.total }

func mismatch(a string, an int, b string, bn int) error {
	return fmt.Errorf("%w: %s has %d lines but %s has %d; hypothesis and reference files must be line-aligned", ErrInput, a, an, b, bn)
}

func displayPath(p string) string {
	if p == Stdin {
		return "<stdin>"
	}
	return p
}

// load reads a whole input.
func (s *Source) load(ctx context.Context, path string) (lines, error) {
	if path == Stdin {
		return *s.stdin, nil
	}
	f, err := fileread.OpenFile(ctx, path)
	if err != nil {
		return lines{}, fmt.Errorf("sources: %w", err)
	}
	defer f.Close()
	return readLines(path, f)
}

// count returns the number of lines of an input and its decompressed size without keeping
// its content.
func (s *Source) count(ctx context.Context, path string) (int, int64, error) {
	if path == Stdin {
		return len(s.stdin.lines), s.stdin.bytes, nil
	}
	f, err := fileread.OpenFile(ctx, path)
	if err != nil {
		return 0, 0, fmt.Errorf("sources: %w", err)
	}
	defer f.Close()
	r, closeZ, err := sources.MaybeGunzip(f)
	if err != nil {
		return 0, 0, fmt.Errorf("sources: %s: %w", path, err)
	}
	defer closeZ()
	buf := make([]byte, 256<<10)
	var n int
	var size int64
	last := byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			size += int64(k)
			for _, c := range buf[:k] {
				if c == '\n' {
					n++
				}
			}
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("sources: %s: %w", path, err)
		}
	}
	if last != '\n' {
		n++ // a last line without a newline
	}
	return n, size, nil
}

// readStdin reads standard input to its end, or until ctx is cancelled: a blocked read
// cannot be interrupted, so it runs on its own goroutine, which is left behind (the process
// is exiting) when ctx ends first.
func readStdin(ctx context.Context, in io.Reader) (lines, error) {
	type res struct {
		l   lines
		err error
	}
	done := make(chan res, 1)
	go func() {
		l, err := readLines(Stdin, in)
		done <- res{l, err}
	}()
	select {
	case r := <-done:
		return r.l, r.err
	case <-ctx.Done():
		return lines{}, fmt.Errorf("sources: reading standard input: %w", context.Cause(ctx))
	}
}

// readLines reads r (decompressing gzip) and splits it into lines.
func readLines(path string, r io.Reader) (lines, error) {
	zr, closeZ, err := sources.MaybeGunzip(r)
	if err != nil {
		return lines{}, fmt.Errorf("sources: %s: %w", displayPath(path), err)
	}
	defer closeZ()
	b, err := io.ReadAll(zr)
	if err != nil {
		return lines{}, fmt.Errorf("sources: %s: %w", displayPath(path), err)
	}
	content := string(b)
	out := lines{path: displayPath(path), bytes: int64(len(b))}
	content = strings.TrimSuffix(content, "\n")
	if len(b) == 0 {
		return out, nil
	}
	out.lines = strings.Split(content, "\n")
	for i, l := range out.lines {
		out.lines[i] = strings.TrimRightFunc(l, pySpace)
	}
	return out, nil
}

// pySpace is Python's str.isspace for one rune: Unicode white space plus the separators
// \x1c-\x1f. Invalid UTF-8 decodes to U+FFFD, which is not a space, so a bad byte is kept.
func pySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Next returns the next batch of records: of the current system, or segment-major the next
// records in segment order.
func (s *Source) Next(ctx context.Context) (*pipeline.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.segmentMajor {
		return s.nextSegmentMajor(ctx)
	}
	for s.cur == nil || s.row >= len(s.cur.lines) {
		if s.cur != nil {
			s.sys++
			s.cur, s.row = nil, 0
		}
		if s.sys >= len(s.hyps) {
			return nil, io.EOF
		}
		l, err := s.loadHyp(ctx, s.sys)
		if err != nil {
			return nil, err
		}
		s.cur = &l
	}
	n := min(s.batchSize, len(s.cur.lines)-s.row)
	b, refs := s.newBatch(n)
	for i := range n {
		s.fill(b, refs, i, s.sys, s.cur, s.row+i)
	}
	s.row += n
	return b, nil
}

// nextSegmentMajor is Next with Config.SegmentMajor: the records of line row of every
// system, then of the next line, batchSize at a time.
func (s *Source) nextSegmentMajor(ctx context.Context) (*pipeline.Batch, error) {
	if s.sys >= len(s.hyps) { // the end, or closed
		return nil, io.EOF
	}
	if s.all == nil {
		s.all = make([]lines, len(s.hyps))
		for i := range s.hyps {
			l, err := s.loadHyp(ctx, i)
			if err != nil {
				s.all = nil
				return nil, err
			}
			s.all[i] = l
		}
	}
	left := (len(s.refs[0].lines)-s.row)*len(s.hyps) - s.sys
	if left <= 0 {
		s.sys = len(s.hyps)
		return nil, io.EOF
	}
	n := min(s.batchSize, left)
	b, refs := s.newBatch(n)
	for i := range n {
		s.fill(b, refs, i, s.sys, &s.all[s.sys], s.row)
		if s.sys++; s.sys == len(s.hyps) {
			s.sys, s.row = 0, s.row+1
		}
	}
	return b, nil
}

// loadHyp reads system sys's hypothesis file and checks its line count again.
func (s *Source) loadHyp(ctx context.Context, sys int) (lines, error) {
	l, err := s.load(ctx, s.hyps[sys])
	if err != nil {
		return lines{}, err
	}
	if want := len(s.refs[0].lines); len(l.lines) != want {
		// The file changed since Open counted it.
		return lines{}, fmt.Errorf("sources: %s: has %d lines now, %d when the run started", l.path, len(l.lines), want)
	}
	return l, nil
}

// newBatch returns a batch of n records whose values are to be filled, and room for their
// references (len(s.refs) per record).
func (s *Source) newBatch(n int) (*pipeline.Batch, []string) {
	b := &pipeline.Batch{Records: make([]pipeline.Record, n)}
	vals := make([]core.Value, n*len(s.fields))
	for i := range n {
		b.Records[i].Values = vals[i*len(s.fields) : (i+1)*len(s.fields) : (i+1)*len(s.fields)]
	}
	return b, make([]string, n*len(s.refs))
}

// fill makes record i of b line row of system sys (whose lines are hyp); refs is newBatch's
// room for the references.
func (s *Source) fill(b *pipeline.Batch, refs []string, i, sys int, hyp *lines, row int) {
	rec := &b.Records[i]
	rec.Seq = uint64(sys)<<48 | uint64(row)
	rec.Pos = pipeline.Position{File: hyp.path, Row: int64(row)}
	pred := hyp.lines[row]
	b.Bytes += int64(len(pred)) + 1
	rr := refs[i*len(s.refs) : (i+1)*len(s.refs) : (i+1)*len(s.refs)]
	for k := range s.refs {
		rr[k] = s.refs[k].lines[row]
	}
	for k, f := range s.fields {
		switch f {
		case FieldPrediction:
			rec.Values[k] = core.Value{Kind: core.String, Str: pred}
		case FieldReferences:
			rec.Values[k] = core.Value{Kind: core.StringList, Strs: rr}
		case FieldSystem:
			rec.Values[k] = core.Value{Kind: core.String, Str: s.names[sys]}
		}
	}
	rec.Err = checkUTF8(hyp.path, pred, s.refs, row)
	rec.UTF8Checked = rec.Err == nil
}

// checkUTF8 rejects a line pair holding invalid UTF-8, naming the file and line at fault.
func checkUTF8(hypPath, pred string, refs []lines, row int) *core.RecordError {
	if !utf8.ValidString(pred) {
		return &core.RecordError{Reason: "invalid utf-8", Field: FieldPrediction, Detail: fmt.Sprintf("%s:%d is not valid UTF-8", hypPath, row+1)}
	}
	for _, r := range refs {
		if !utf8.ValidString(r.lines[row]) {
			return &core.RecordError{Reason: "invalid utf-8", Field: FieldReferences, Detail: fmt.Sprintf("%s:%d is not valid UTF-8", r.path, row+1)}
		}
	}
	return nil
}

// Close releases the buffers; the source reads no more.
func (s *Source) Close() error {
	s.cur, s.refs, s.stdin, s.all = nil, nil, nil, nil
	s.sys = len(s.hyps)
	return nil
}
