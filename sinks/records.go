package sinks

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// RecordFiles writes the per-record side outputs of a run: dead letters (rejected records
// with payload, position and reason) and per-record sentence scores, to JSONL (or Parquet) files.
// Files appear only when Commit is called after a successful run. It implements
// pipeline.Output and is used by one goroutine.
type RecordFiles struct {
	dead, rows   *AtomicFile
	deadW, rowsW *bufio.Writer
	rowsParquet  *examplesParquet
	metrics      []string
}

// NewRecordFiles opens the outputs; an empty path disables that output. metricNames names
// the scores of ExampleRows in plan order. Scores go to Parquet when examplesPath ends in
// .parquet (or format is "parquet"), to JSONL otherwise.
func NewRecordFiles(deadPath, examplesPath, format string, metricNames []string) (*RecordFiles, error) {
	rf := &RecordFiles{metrics: metricNames}
	var err error
	if deadPath != "" {
		if rf.dead, err = CreateAtomic(deadPath); err != nil {
			return nil, err
		}
		rf.deadW = bufio.NewWriterSize(rf.dead, 1<<16)
	}
	if examplesPath != "" {
		if rf.rows, err = CreateAtomic(examplesPath); err != nil {
			rf.Abort()
			return nil, err
		}
		if format == "parquet" || (format == "" && strings.HasSuffix(examplesPath, ".parquet")) {
			if rf.rowsParquet, err = newExamplesParquet(rf.rows, metricNames); err != nil {
				rf.Abort()
				return nil, err
			}
		} else {
			rf.rowsW = bufio.NewWriterSize(rf.rows, 1<<16)
		}
	}
	return rf, nil
}

// WriteBatch writes one batch's dead letters and scores.
func (rf *RecordFiles) WriteBatch(_ context.Context, dead []pipeline.DeadLetter, rows []pipeline.ExampleRow) error {
	if rf.deadW != nil {
		for _, d := range dead {
			b, err := DeadLetterJSON(d)
			if err == nil {
				b = append(b, '\n')
				_, err = rf.deadW.Write(b)
			}
			if err != nil {
				return fmt.Errorf("dead letters: %w", err)
			}
		}
	}
	if rf.rowsParquet != nil {
		return rf.rowsParquet.write(rows)
	}
	if rf.rowsW != nil {
		for _, r := range rows {
			scores := map[string]any{}
			for i, s := range r.Scores {
				if s != nil {
					scores[rf.metrics[i]] = *s
				}
			}
			line := map[string]any{"seq": r.Seq, "position": r.Pos.String(), "scores": scores}
			if r.ID.Present() {
				line["id"] = ValueJSON(r.ID)
			}
			if r.Slice != "" {
				line["slice"] = r.Slice
			}
			if err := writeLine(rf.rowsW, line); err != nil {
				return fmt.Errorf("examples: %w", err)
			}
		}
	}
	return nil
}

func writeLine(w *bufio.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Finish flushes and syncs the files without moving them into place (see
// AtomicFile.Finish); on error they are removed.
func (rf *RecordFiles) Finish() error {
	if rf.rowsParquet != nil {
		if err := rf.rowsParquet.close(); err != nil {
			rf.Abort()
			return err
		}
		rf.rowsParquet = nil
		rf.rowsW = bufio.NewWriter(rf.rows) // nothing buffered; lets the loop below finish it
	}
	for _, p := range []struct {
		f    *AtomicFile
		w    *bufio.Writer
		what string
	}{{rf.dead, rf.deadW, "dead letters"}, {rf.rows, rf.rowsW, "examples"}} {
		if p.f == nil {
			continue
		}
		err := p.w.Flush()
		if err == nil {
			err = p.f.Finish()
		}
		if err != nil {
			rf.Abort()
			return fmt.Errorf("%s: %w", p.what, err)
		}
	}
	return nil
}

// Commit finishes the files (Finish) and moves them into place.
func (rf *RecordFiles) Commit() error {
	if err := rf.Finish(); err != nil {
		return err
	}
	for _, f := range []*AtomicFile{rf.dead, rf.rows} {
		if f == nil {
			continue
		}
		if err := f.Commit(); err != nil {
			rf.Abort()
			return err
		}
	}
	return nil
}

// Abort removes the temporary files.
func (rf *RecordFiles) Abort() {
	if rf.dead != nil {
		rf.dead.Abort()
	}
	if rf.rows != nil {
		rf.rows.Abort()
	}
}

// ValueJSON converts a record value to a JSON-encodable Go value.
func ValueJSON(v core.Value) any {
	switch v.Kind {
	case core.String:
		return stringJSON(v.Str)
	case core.StringList:
		return stringsJSON(v.Strs)
	case core.StringLists:
		out := make([]any, len(v.Lists))
		for i, l := range v.Lists {
			out[i] = stringsJSON(l)
		}
		return out
	case core.Int:
		return v.Int
	case core.Bool:
		return v.Int != 0
	case core.Float:
		return floatJSON(v.Float)
	case core.FloatList:
		out := make([]any, len(v.Floats))
		for i, x := range v.Floats {
			out[i] = floatJSON(x)
		}
		return out
	case core.Map:
		// encoding/json sorts the keys; of a key repeated in an Arrow map, the last value
		// is kept, as a JSON reader would keep it.
		out := make(map[string]any, len(v.Strs))
		for i, k := range v.Strs {
			out[k] = floatJSON(v.Floats[i])
		}
		return out
	}
	return nil
}

// floatJSON renders NaN and ±Inf, which JSON cannot hold, as the strings Python's json
// module reads back as floats ("NaN", "Infinity", "-Infinity"), so that a dead letter keeps
// the value that got it rejected.
func floatJSON(x float64) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return x
}

// stringJSON renders a string that is not valid UTF-8 (Arrow binary, a corrupt string) as
// {"base64": ...}: encoding/json would silently replace its bytes.
func stringJSON(s string) any {
	if utf8.ValidString(s) {
		return s
	}
	return map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))}
}

func stringsJSON(ss []string) any {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			out := make([]any, len(ss))
			for i, s := range ss {
				out[i] = stringJSON(s)
			}
			return out
		}
	}
	return ss
}
