package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed style.css
var styleCSS string

//go:embed page.html.tmpl
var pageTmpl string

var tmpl = template.Must(template.New("page").Parse(pageTmpl))

// SmallSlice is the record count under which a slice is flagged: below about 30 records a
// rate's sampling error is too large to read a difference from the overall value as real.
const SmallSlice = 30

// maxHeatmapClasses bounds the confusion heatmap; a larger matrix is left to the JSON
// (a 100×100 grid of cells is unreadable on a page).
const maxHeatmapClasses = 30

// Input is what a page shows. Run is required; the rest is optional.
type Input struct {
	Title string
	// Source names where Run came from (files), shown in the header.
	Source   string
	Run      *Run
	Baseline *Run
	// BaselineName names the baseline in the table header.
	BaselineName string
	History      []HistoryPoint
	// Direction returns "higher", "lower" or "none" for a metric type (core.Doc.Direction),
	// to colour deltas; nil leaves deltas uncoloured.
	Direction func(metricType string) string
	// Generated is the time printed in the footer; zero omits it (deterministic output).
	Generated time.Time
}

// Render writes the page for in to w. It does not keep in; it is safe for concurrent use.
func Render(w io.Writer, in Input) error {
	if in.Run == nil {
		return fmt.Errorf("report: no results to render")
	}
	p := buildPage(in)
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

type cell struct {
	Text, Full string
}

type metricRow struct {
	Name, Type, Signature, Reason string
	Value                         cell
	HasBase                       bool
	Base, Delta                   cell
	DeltaClass                    string
}

type errorRow struct {
	Reason   string
	Count    int64
	Examples string
}

type sliceRow struct {
	Key     string
	Records int64
	Small   bool
	Values  []cell
}

type page struct {
	Title, Source, BaselineName, Generated string
	CSS                                    template.CSS
	Records, Skipped, Rejected             int64
	Window                                 *Window
	BaseRecords                            int64
	Errors                                 []errorRow
	Rows                                   []metricRow
	HasBaseline                            bool
	SliceCols                              []string
	SliceRows                              []sliceRow
	SliceCharts                            []*barChart
	Heatmaps                               []*heatmap
	Trends                                 []*lineChart
	HistoryRuns                            int
	SmallSlice                             int
}

func buildPage(in Input) *page {
	title := in.Title
	if title == "" {
		title = "evalstream report"
	}
	p := &page{Title: title, Source: in.Source, BaselineName: in.BaselineName, CSS: template.CSS(styleCSS),
		Records: in.Run.Records, Skipped: in.Run.Skipped, Window: in.Run.Window, SmallSlice: SmallSlice,
		HasBaseline: in.Baseline != nil, HistoryRuns: len(in.History)}
	if !in.Generated.IsZero() {
		p.Generated = in.Generated.UTC().Format(time.RFC3339)
	}
	if in.Baseline != nil {
		p.BaseRecords = in.Baseline.Records
	}
	reasons := make([]string, 0, len(in.Run.Errors))
	for k, n := range in.Run.Errors {
		p.Rejected += n
		reasons = append(reasons, k)
	}
	// most frequent reason first; ties by name so the page is deterministic
	sort.Slice(reasons, func(i, j int) bool {
		a, b := in.Run.Errors[reasons[i]], in.Run.Errors[reasons[j]]
		if a != b {
			return a > b
		}
		return reasons[i] < reasons[j]
	})
	for _, k := range reasons {
		p.Errors = append(p.Errors, errorRow{Reason: k, Count: in.Run.Errors[k], Examples: strings.Join(in.Run.ErrorExamples[k], ", ")})
	}
	for _, m := range in.Run.Metrics {
		p.Rows = append(p.Rows, buildRow(m, in))
	}
	buildSlices(p, in.Run)
	for _, m := range in.Run.Metrics {
		if h := buildHeatmap(m); h != nil {
			p.Heatmaps = append(p.Heatmaps, h)
		}
	}
	p.Trends = buildTrends(in.History)
	return p
}

func valueCell(v any) cell {
	switch t := v.(type) {
	case nil:
		return cell{Text: "null", Full: "null"}
	case float64:
		return cell{Text: short(t), Full: full(t)}
	case []any:
		var s, f []string
		for _, x := range t {
			c := valueCell(x)
			s = append(s, c.Text)
			f = append(f, c.Full)
		}
		return cell{Text: "[" + strings.Join(s, ", ") + "]", Full: "[" + strings.Join(f, ", ") + "]"}
	case map[string]any:
		// A report (classification_report): "key: value" entries, classes by id first.
		var s, f []string
		for _, k := range reportOrder(t) {
			c := valueCell(t[k])
			s = append(s, k+": "+c.Text)
			f = append(f, k+": "+c.Full)
		}
		return cell{Text: "{" + strings.Join(s, "; ") + "}", Full: "{" + strings.Join(f, "; ") + "}"}
	}
	s := fmt.Sprint(v)
	return cell{Text: s, Full: s}
}

// reportOrder orders an object's keys: integer keys (class ids) by value, then sklearn's
// statistics in its column order, then the rest ("accuracy", "macro avg", "weighted avg")
// sorted.
func reportOrder(obj map[string]any) []string {
	stats := []string{"precision", "recall", "f1-score", "support"}
	rank := func(k string) (int, int64) {
		if n, err := strconv.ParseInt(k, 10, 64); err == nil {
			return 0, n
		}
		if i := slices.Index(stats, k); i >= 0 {
			return 1, int64(i)
		}
		return 2, 0
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		gi, ni := rank(keys[i])
		gj, nj := rank(keys[j])
		if gi != gj {
			return gi < gj
		}
		if ni != nj {
			return ni < nj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func buildRow(m Metric, in Input) metricRow {
	r := metricRow{Name: m.Name, Type: m.Type, Signature: m.Signature, Reason: m.Reason, Value: valueCell(m.Value)}
	if in.Baseline == nil {
		return r
	}
	var base *Metric
	for i := range in.Baseline.Metrics {
		if in.Baseline.Metrics[i].Name == m.Name {
			base = &in.Baseline.Metrics[i]
			break
		}
	}
	if base == nil {
		r.Delta = cell{Text: "new", Full: "not in the baseline"}
		return r
	}
	r.HasBase = true
	r.Base = valueCell(base.Value)
	v, ok1 := m.Scalar()
	b, ok2 := base.Scalar()
	if !ok1 || !ok2 {
		r.Delta = cell{Text: "—", Full: "no delta: not two numbers"}
		return r
	}
	d := v - b
	r.Delta = cell{Text: signed(d), Full: full(d)}
	if in.Direction != nil && d != 0 {
		switch in.Direction(m.Type) {
		case "higher":
			r.DeltaClass = map[bool]string{true: "better", false: "worse"}[d > 0]
		case "lower":
			r.DeltaClass = map[bool]string{true: "better", false: "worse"}[d < 0]
		}
	}
	return r
}

// buildSlices fills the per-slice table (every scalar metric) and one bar chart per scalar
// metric that has a value in at least one slice.
func buildSlices(p *page, run *Run) {
	if len(run.Slices) == 0 {
		return
	}
	var cols []Metric
	for _, m := range run.Metrics {
		if _, ok := m.Scalar(); ok || m.Value == nil && isScalarType(run, m.Name) {
			cols = append(cols, m)
		}
	}
	for _, m := range cols {
		p.SliceCols = append(p.SliceCols, m.Name)
	}
	for _, s := range run.Slices {
		row := sliceRow{Key: s.Key, Records: s.Records, Small: s.Records < SmallSlice}
		for _, c := range cols {
			row.Values = append(row.Values, valueCell(metricValue(s.Metrics, c.Name)))
		}
		p.SliceRows = append(p.SliceRows, row)
	}
	for _, c := range cols {
		if ch := buildBarChart(c, run.Slices); ch != nil {
			p.SliceCharts = append(p.SliceCharts, ch)
		}
	}
}

// isScalarType says whether a metric that is null overall is a number in some slice.
func isScalarType(run *Run, name string) bool {
	for _, s := range run.Slices {
		if _, ok := metricValue(s.Metrics, name).(float64); ok {
			return true
		}
	}
	return false
}

func metricValue(ms []Metric, name string) any {
	for _, m := range ms {
		if m.Name == name {
			return m.Value
		}
	}
	return nil
}

// axis is a linear scale from data values to pixels.
type axis struct{ lo, hi, p0, p1 float64 }

func (a axis) at(v float64) float64 { return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0) }

type tick struct {
	Pos  string
	Text string
}

type bar struct {
	Label, Full, Tip  string
	Y, TextY, X, W    string
	ValueX, ValueText string
	Small             bool
}

type barChart struct {
	Metric, Title                      string
	Width, Height                      int
	Bars                               []bar
	Ticks                              []tick
	AxisY, RefX, RefTop, RefBot, RefTx string
	RefText                            string
	HasRef                             bool
	PlotL, PlotR                       string
}

func buildBarChart(m Metric, slices []Slice) *barChart {
	type sv struct {
		key     string
		records int64
		v       float64
	}
	var vals []sv
	for _, s := range slices {
		if v, ok := metricValue(s.Metrics, m.Name).(float64); ok {
			vals = append(vals, sv{s.Key, s.Records, v})
		}
	}
	if len(vals) == 0 {
		return nil
	}
	sort.SliceStable(vals, func(i, j int) bool { return vals[i].v > vals[j].v })
	overall, hasRef := m.Scalar()
	lo, hi := 0.0, 0.0
	for _, x := range vals {
		lo, hi = math.Min(lo, x.v), math.Max(hi, x.v)
	}
	if hasRef {
		lo, hi = math.Min(lo, overall), math.Max(hi, overall)
	}
	ticks := niceTicks(lo, hi, 5)
	lo, hi = math.Min(lo, ticks[0]), math.Max(hi, ticks[len(ticks)-1])
	const rowH, top, labelW, width, right = 24, 28, 190, 680, 80
	c := &barChart{Metric: m.Name, Width: width, HasRef: hasRef}
	c.Height = top + rowH*len(vals) + 30
	ax := axis{lo: lo, hi: hi, p0: labelW, p1: width - right}
	c.PlotL, c.PlotR = f2(ax.p0), f2(ax.p1)
	c.AxisY = f2(float64(top + rowH*len(vals) + 4))
	for _, t := range ticks {
		c.Ticks = append(c.Ticks, tick{Pos: f2(ax.at(t)), Text: short0(t)})
	}
	zero := ax.at(0)
	for i, x := range vals {
		y := float64(top + rowH*i)
		x0, x1 := zero, ax.at(x.v)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		label := x.key
		if len([]rune(label)) > 22 {
			label = string([]rune(label)[:21]) + "…"
		}
		small := x.records < SmallSlice
		tip := fmt.Sprintf("%s: %s = %s (%d records)", x.key, m.Name, full(x.v), x.records)
		if small {
			tip += fmt.Sprintf("; small slice (fewer than %d records)", SmallSlice)
		}
		c.Bars = append(c.Bars, bar{Label: label, Full: x.key, Tip: tip, Y: f2(y + 3), TextY: f2(y + 16),
			X: f2(x0), W: f2(math.Max(x1-x0, 0.5)), ValueX: f2(math.Max(x1, zero) + 4), ValueText: short(x.v), Small: small})
	}
	if hasRef {
		c.RefX = f2(ax.at(overall))
		c.RefTop, c.RefBot = f2(top-6), f2(float64(top+rowH*len(vals)+4))
		c.RefText = "overall " + short(overall)
		c.RefTx = f2(top - 10)
	}
	nSmall := 0
	for _, b := range c.Bars {
		if b.Small {
			nSmall++
		}
	}
	c.Title = fmt.Sprintf("slices: %s per slice, %d slices sorted by value", m.Name, len(vals))
	if hasRef {
		c.Title += ", overall " + full(overall) + " as a dashed line"
	}
	if nSmall > 0 {
		c.Title += fmt.Sprintf(", %d small (under %d records) drawn pale", nSmall, SmallSlice)
	}
	return c
}

// short0 renders an axis tick: round values need no padding digits.
func short0(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

type hcell struct {
	X, Y, TX, TY1, TY2 string
	Count, Rate, Tip   string
	Opacity            string
	Dark               bool
}

type heatmap struct {
	Metric, Title  string
	Width, Height  int
	Size           string
	Cells          []hcell
	ColLabels      []tick
	RowLabels      []tick
	XLabelX, XLabY string
	YLabelX, YLabY string
	Skipped        string
}

func buildHeatmap(m Metric) *heatmap {
	if m.Type != "confusion_matrix" {
		return nil
	}
	rows, ok := m.Value.([]any)
	if !ok || len(rows) == 0 {
		return nil
	}
	n := len(rows)
	mat := make([][]float64, n)
	for i, r := range rows {
		rr, ok := r.([]any)
		if !ok || len(rr) != n {
			return nil
		}
		for _, x := range rr {
			f, ok := x.(float64)
			if !ok {
				return nil
			}
			mat[i] = append(mat[i], f)
		}
	}
	h := &heatmap{Metric: m.Name}
	if n > maxHeatmapClasses {
		h.Skipped = fmt.Sprintf("%d classes: too many to draw; the matrix is in the table above and the results JSON", n)
		return h
	}
	const cs, left, top = 56, 70, 40
	h.Width, h.Height = left+cs*n+20, top+cs*n+50
	h.Size = strconv.Itoa(cs - 2)
	for i := range mat {
		var sum float64
		for _, x := range mat[i] {
			sum += x
		}
		h.RowLabels = append(h.RowLabels, tick{Pos: f2(float64(top + cs*i + cs/2 + 4)), Text: strconv.Itoa(i)})
		for j, x := range mat[i] {
			rate := 0.0
			if sum > 0 {
				rate = x / sum
			}
			px, py := float64(left+cs*j), float64(top+cs*i)
			rateText := "–"
			if sum > 0 {
				rateText = strconv.FormatFloat(rate*100, 'f', 1, 64) + "%"
			}
			h.Cells = append(h.Cells, hcell{X: f2(px + 1), Y: f2(py + 1), TX: f2(px + cs/2), TY1: f2(py + cs/2 - 2), TY2: f2(py + cs/2 + 13),
				Count: full(x), Rate: rateText, Opacity: f2(0.06 + 0.94*rate), Dark: rate > 0.5,
				Tip: fmt.Sprintf("true %d, predicted %d: %s records, %s of true %d", i, j, full(x), full(rate), i)})
		}
	}
	for j := 0; j < n; j++ {
		h.ColLabels = append(h.ColLabels, tick{Pos: f2(float64(left + cs*j + cs/2)), Text: strconv.Itoa(j)})
	}
	h.XLabelX, h.XLabY = f2(float64(left+cs*n/2)), f2(float64(top+cs*n+36))
	h.YLabelX, h.YLabY = f2(16), f2(float64(top+cs*n/2))
	h.Title = fmt.Sprintf("confusion: %s, %d classes, rows are true classes, columns predicted; cells show counts and row-normalised rates", m.Name, n)
	return h
}

type point struct {
	X, Y, Tip string
}

type lineChart struct {
	Metric, Title string
	Width, Height int
	Points        []point
	Path          string
	YTicks        []tick
	XTicks        []tick
	PlotL, PlotR  string
	PlotT, PlotB  string
}

// buildTrends draws one chart per scalar overall metric of the history, in the order the
// metrics first appear; runs where the metric is absent or null leave a gap in the line.
func buildTrends(hist []HistoryPoint) []*lineChart {
	if len(hist) == 0 {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, h := range hist {
		for _, m := range h.Run.Metrics {
			if _, ok := m.Scalar(); ok && !seen[m.Name] {
				seen[m.Name] = true
				names = append(names, m.Name)
			}
		}
	}
	var out []*lineChart
	for _, name := range names {
		out = append(out, buildTrend(name, hist))
	}
	return out
}

func buildTrend(name string, hist []HistoryPoint) *lineChart {
	const width, height, left, right, top, bottom = 680, 220, 70, 60, 16, 40
	c := &lineChart{Metric: name, Width: width, Height: height}
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, h := range hist {
		if v, ok := metricValue(h.Run.Metrics, name).(float64); ok {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			n++
		}
	}
	if lo == hi {
		pad := math.Max(math.Abs(lo)*0.05, 1e-3)
		lo, hi = lo-pad, hi+pad
	}
	ticks := niceTicks(lo, hi, 4)
	lo, hi = math.Min(lo, ticks[0]), math.Max(hi, ticks[len(ticks)-1])
	ay := axis{lo: lo, hi: hi, p0: height - bottom, p1: top}
	xAt := func(i int) float64 {
		if len(hist) == 1 {
			return (left + width - right) / 2
		}
		return left + float64(i)*float64(width-right-left)/float64(len(hist)-1)
	}
	c.PlotL, c.PlotR, c.PlotT, c.PlotB = f2(left), f2(width-right), f2(top), f2(height-bottom)
	for _, t := range ticks {
		c.YTicks = append(c.YTicks, tick{Pos: f2(ay.at(t)), Text: short0(t)})
	}
	var path strings.Builder
	pen := false
	for i, h := range hist {
		v, ok := metricValue(h.Run.Metrics, name).(float64)
		if !ok {
			pen = false
			continue
		}
		x, y := xAt(i), ay.at(v)
		if pen {
			path.WriteString(" L")
		} else {
			if path.Len() > 0 {
				path.WriteByte(' ')
			}
			path.WriteString("M")
		}
		pen = true
		path.WriteString(f2(x) + " " + f2(y))
		c.Points = append(c.Points, point{X: f2(x), Y: f2(y),
			Tip: fmt.Sprintf("%s: %s = %s (%d records)", h.Time.UTC().Format(time.RFC3339), name, full(v), h.Run.Records)})
	}
	c.Path = path.String()
	// label the first and last run and about four between them
	step := (len(hist) + 4) / 5
	for i := 0; i < len(hist); i += step {
		if i > 0 && len(hist)-1-i < step/2+1 && i != len(hist)-1 {
			continue
		}
		c.XTicks = append(c.XTicks, tick{Pos: f2(xAt(i)), Text: hist[i].Time.UTC().Format("2006-01-02 15:04")})
	}
	if last := len(hist) - 1; last > 0 && (len(c.XTicks) == 0 || c.XTicks[len(c.XTicks)-1].Text != hist[last].Time.UTC().Format("2006-01-02 15:04")) {
		c.XTicks = append(c.XTicks, tick{Pos: f2(xAt(last)), Text: hist[last].Time.UTC().Format("2006-01-02 15:04")})
	}
	c.Title = fmt.Sprintf("trend: %s over %d runs (%d with a value), from %s to %s", name, len(hist), n,
		hist[0].Time.UTC().Format(time.RFC3339), hist[len(hist)-1].Time.UTC().Format(time.RFC3339))
	return c
}
