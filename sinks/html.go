package sinks

import (
	"bytes"
	"context"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks/htmlreport"
)

// HTML writes the self-contained HTML report (package report) of the results to a file,
// atomically. In a windowed run it keeps the last MaxReportWindows windows' results and
// charts them. It is not safe for concurrent use.
type HTML struct {
	Path    string
	windows []*htmlreport.Run
}

// MaxReportWindows bounds the windows an html sink keeps (and draws).
const MaxReportWindows = 500

// Write replaces the file with the report of r.
func (s *HTML) Write(_ context.Context, r *pipeline.Results) error {
	f, err := s.Stage(r)
	if err != nil {
		return err
	}
	return f.Commit()
}

// Stage writes the report of r to a temporary file (see Stager).
func (s *HTML) Stage(r *pipeline.Results) (*AtomicFile, error) {
	run, err := htmlreport.FromResults(r)
	if err != nil {
		return nil, err
	}
	if run.Window != nil {
		s.windows = append(s.windows, run)
		if len(s.windows) > MaxReportWindows {
			s.windows = s.windows[len(s.windows)-MaxReportWindows:]
		}
	}
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, htmlreport.Input{Run: run, Windows: s.windows, Direction: MetricDirection}); err != nil {
		return nil, err
	}
	return stage(s.Path, buf.Bytes())
}

// Close does nothing.
func (s *HTML) Close() error { return nil }

// MetricDirection returns a metric type's core.Doc.Direction ("" for an unknown type), for
// colouring deltas in a report.
func MetricDirection(metricType string) string {
	for _, d := range metrics.Docs() {
		if d.Type == metricType {
			return d.Direction
		}
	}
	return ""
}
