package sinks

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evalstream/evalstream/pipeline"
)

// SystemsTable prints the results of several systems (a text source) as one row per system
// and one column per metric, as sacrebleu does for several -i files. The corpus total over
// all systems is left out: pooling the segments of different systems means nothing. It is
// used by one goroutine.
type SystemsTable struct {
	W io.Writer
	// Field is the slice field naming the system ("system" for plain-text inputs).
	Field string
	// Systems are the system names in row order.
	Systems []string
}

// Write prints r.
func (t *SystemsTable) Write(_ context.Context, r *pipeline.Results) error {
	const digits = 6
	bySlice := map[string]pipeline.SliceResult{}
	for _, sl := range r.Slices {
		bySlice[sl.Key] = sl
	}
	header := []string{"system", "records"}
	for _, m := range r.Metrics {
		header = append(header, m.Name)
	}
	rows := [][]string{header}
	for _, name := range t.Systems {
		sl := bySlice[t.Field+"="+name]
		row := []string{name, strconv.FormatInt(sl.Records, 10)}
		vals := map[string]string{}
		for _, m := range sl.Metrics {
			vals[m.Name] = FormatResult(m.Result, digits)
		}
		for _, m := range r.Metrics {
			v, ok := vals[m.Name]
			if !ok {
				v = "null (no records)"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	width := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+2))
			}
		}
		b.WriteString("\n")
	}
	line(rows[0])
	dashes := make([]string, len(header))
	for i := range dashes {
		dashes[i] = strings.Repeat("-", width[i])
	}
	line(dashes)
	for _, row := range rows[1:] {
		line(row)
	}
	b.WriteString("signatures:\n")
	for _, m := range r.Metrics {
		fmt.Fprintf(&b, "  %s: %s\n", m.Name, m.Signature)
	}
	fmt.Fprintf(&b, "records: %d scored, %d skipped (all systems)\n", r.Records, r.Skipped)
	writeBadRecords(&b, r)
	_, err := io.WriteString(t.W, b.String())
	return err
}

// Close does nothing.
func (t *SystemsTable) Close() error { return nil }
