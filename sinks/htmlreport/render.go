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
	"sync"
	"time"
)

//go:embed style.css
var styleCSS string

//go:embed page.html.tmpl
var pageTmpl string

// tmpl is parsed on the first Render, not at start-up: parsing costs about half a
// millisecond, which every run of the binary would pay, most of them without a report.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageTmpl))
})

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
	// Windows are the per-window results of a windowed Kafka run, oldest first.
	Windows []*Run
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
	if err := tmpl().Execute(w, p); err != nil {
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
	CI                            cell
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
	Meta                                   []MetaItem
	Gate                                   *gateView
	HasCI                                  bool
	CILevel                                string
	Calibrations                           []*reliability
	Windows                                []*lineChart
}

type gateView struct {
	Passed   bool
	Baseline string
	Rules    []gateRow
}

type gateRow struct {
	Metric, Slice, Verdict, Reason string
	Value, Base, Delta, P          cell
	Passed                         bool
}

func optCell(v *float64) cell {
	if v == nil {
		return cell{Text: "—", Full: "none"}
	}
	return valueCell(*v)
}

func buildGate(g *Gate) *gateView {
	if g == nil {
		return nil
	}
	v := &gateView{Passed: g.Passed, Baseline: g.Baseline}
	for _, r := range g.Rules {
		row := gateRow{Metric: r.Metric, Slice: "overall", Reason: r.Reason, Passed: r.Passed, Verdict: "FAIL",
			Value: optCell(r.Value), Base: optCell(r.Baseline), Delta: optCell(r.Delta), P: optCell(r.PValue)}
		if r.Slice != nil {
			row.Slice = *r.Slice
		}
		if r.Passed {
			row.Verdict = "PASS"
		}
		v.Rules = append(v.Rules, row)
	}
	return v
}

// ciCell renders an interval: `[low, high]`, per component for per-class values.
func ciCell(c *CI) cell {
	if c == nil {
		return cell{}
	}
	if lo, hi, ok := c.Bounds(); ok {
		return cell{Text: "[" + short(lo) + ", " + short(hi) + "]", Full: "[" + full(lo) + ", " + full(hi) + "]"}
	}
	los, ok1 := c.Low.([]any)
	his, ok2 := c.High.([]any)
	if !ok1 || !ok2 || len(los) != len(his) {
		return cell{}
	}
	var t, f []string
	for i := range los {
		lo, hi := valueCell(los[i]), valueCell(his[i])
		t = append(t, "["+lo.Text+", "+hi.Text+"]")
		f = append(f, "["+lo.Full+", "+hi.Full+"]")
	}
	return cell{Text: strings.Join(t, " "), Full: strings.Join(f, " ")}
}

func buildPage(in Input) *page {
	title := in.Title
	if title == "" {
		title = "evalstream report"
	}
	p := &page{Title: title, Source: in.Source, BaselineName: in.BaselineName, CSS: template.CSS(styleCSS),
		Records: in.Run.Records, Skipped: in.Run.Skipped, Window: in.Run.Window, SmallSlice: SmallSlice,
		HasBaseline: in.Baseline != nil, HistoryRuns: len(in.History), Meta: in.Run.Meta, Gate: buildGate(in.Run.Gate)}
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
		if m.CI != nil {
			p.HasCI = true
			p.CILevel = strconv.FormatFloat(m.CI.Level*100, 'g', -1, 64) + "%"
		}
		if c := buildReliability(m); c != nil {
			p.Calibrations = append(p.Calibrations, c)
		}
	}
	buildSlices(p, in.Run)
	for _, m := range in.Run.Metrics {
		if h := buildHeatmap(m); h != nil {
			p.Heatmaps = append(p.Heatmaps, h)
		}
	}
	p.Trends = buildTrends(in.History, in.Run.Gate)
	p.Windows = buildWindows(in.Windows)
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
	r := metricRow{Name: m.Name, Type: m.Type, Signature: m.Signature, Reason: m.Reason, Value: valueCell(m.Value), CI: ciCell(m.CI)}
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
	if m := findMetric(ms, name); m != nil {
		return m.Value
	}
	return nil
}

func findMetric(ms []Metric, name string) *Metric {
	for i := range ms {
		if ms[i].Name == name {
			return &ms[i]
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
	// HasCI draws the slice's interval as a whisker from WX1 to WX2 at height WY.
	HasCI        bool
	WX1, WX2, WY string
	WCapT, WCapB string
}

type barChart struct {
	Metric, Title                      string
	Width, Height                      int
	Bars                               []bar
	Ticks                              []tick
	AxisY, RefX, RefTop, RefBot, RefTx string
	RefText                            string
	HasRef, HasCI                      bool
	PlotL, PlotR                       string
}

func buildBarChart(m Metric, slices []Slice) *barChart {
	type sv struct {
		key     string
		records int64
		v       float64
		ci      *CI
	}
	var vals []sv
	for _, s := range slices {
		if sm := findMetric(s.Metrics, m.Name); sm != nil {
			if v, ok := sm.Scalar(); ok {
				vals = append(vals, sv{s.Key, s.Records, v, sm.CI})
			}
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
		if a, b, ok := x.ci.Bounds(); ok {
			lo, hi = math.Min(lo, a), math.Max(hi, b)
		}
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
		a, b, hasCI := x.ci.Bounds()
		if hasCI {
			tip += fmt.Sprintf("; %g%% interval [%s, %s]", x.ci.Level*100, full(a), full(b))
		}
		if small {
			tip += fmt.Sprintf("; small slice (fewer than %d records)", SmallSlice)
		}
		br := bar{Label: label, Full: x.key, Tip: tip, Y: f2(y + 3), TextY: f2(y + 16),
			X: f2(x0), W: f2(math.Max(x1-x0, 0.5)), ValueX: f2(math.Max(x1, zero) + 4), ValueText: short(x.v), Small: small}
		if hasCI {
			br.HasCI, br.WX1, br.WX2, br.WY = true, f2(ax.at(a)), f2(ax.at(b)), f2(y+12)
			br.WCapT, br.WCapB = f2(y+7), f2(y+17)
			br.ValueX = f2(math.Max(math.Max(x1, zero), ax.at(b)) + 4)
			c.HasCI = true
		}
		c.Bars = append(c.Bars, br)
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
	if c.HasCI {
		c.Title += ", confidence intervals as whiskers"
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

type limit struct {
	Y, Text, TextY string
}

type lineChart struct {
	Metric, Title string
	Width, Height int
	Points        []point
	Path          string
	// Band is the closed path of the confidence band, empty without intervals.
	Band string
	// Limits are horizontal lines: the gate's min/max bounds of the metric.
	Limits       []limit
	YTicks       []tick
	XTicks       []tick
	PlotL, PlotR string
	PlotT, PlotB string
}

// buildTrends draws one chart per scalar overall metric of the history, in the order the
// metrics first appear; runs where the metric is absent or null leave a gap in the line.
// The gate's absolute bounds for a metric (min, max) are drawn as limits.
func buildTrends(hist []HistoryPoint, gate *Gate) []*lineChart {
	return seriesCharts("trend", hist, gate)
}

// buildWindows draws, for a windowed run, one chart per scalar metric over the windows.
func buildWindows(windows []*Run) []*lineChart {
	var hist []HistoryPoint
	for _, w := range windows {
		if w.Window == nil {
			continue
		}
		t, err := time.Parse(time.RFC3339, w.Window.Start)
		if err != nil {
			continue
		}
		hist = append(hist, HistoryPoint{Time: t, Run: w})
	}
	return seriesCharts("windows", hist, nil)
}

func seriesCharts(kind string, hist []HistoryPoint, gate *Gate) []*lineChart {
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
		var lims []float64
		var labels []string
		if gate != nil {
			for _, r := range gate.Rules {
				if r.Metric != name || r.Slice != nil {
					continue
				}
				if r.Min != nil {
					lims, labels = append(lims, *r.Min), append(labels, "gate min "+short(*r.Min))
				}
				if r.Max != nil {
					lims, labels = append(lims, *r.Max), append(labels, "gate max "+short(*r.Max))
				}
			}
		}
		out = append(out, buildSeries(kind, name, hist, lims, labels))
	}
	return out
}

func buildSeries(kind, name string, hist []HistoryPoint, lims []float64, limLabels []string) *lineChart {
	const width, height, left, right, top, bottom = 680, 220, 70, 90, 16, 40
	c := &lineChart{Metric: name, Width: width, Height: height}
	lo, hi := math.Inf(1), math.Inf(-1)
	n, withCI := 0, 0
	for _, h := range hist {
		if m := findMetric(h.Run.Metrics, name); m != nil {
			if v, ok := m.Scalar(); ok {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				n++
				if a, b, ok := m.CI.Bounds(); ok {
					lo, hi = math.Min(lo, a), math.Max(hi, b)
					withCI++
				}
			}
		}
	}
	for _, l := range lims {
		lo, hi = math.Min(lo, l), math.Max(hi, l)
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
	var path, upper, lower strings.Builder
	pen := false
	flushBand := func() {
		if upper.Len() > 0 {
			if c.Band != "" {
				c.Band += " "
			}
			c.Band += "M" + upper.String() + " L" + lower.String() + " Z"
			upper.Reset()
			lower.Reset()
		}
	}
	var lowerPts []string
	for i, h := range hist {
		m := findMetric(h.Run.Metrics, name)
		var v float64
		ok := false
		if m != nil {
			v, ok = m.Scalar()
		}
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
		tip := fmt.Sprintf("%s: %s = %s (%d records)", h.Time.UTC().Format(time.RFC3339), name, full(v), h.Run.Records)
		if a, b, ok := m.CI.Bounds(); ok {
			tip += fmt.Sprintf(", %g%% interval [%s, %s]", m.CI.Level*100, full(a), full(b))
			if upper.Len() > 0 {
				upper.WriteString(" L")
			}
			upper.WriteString(f2(x) + " " + f2(ay.at(b)))
			lowerPts = append(lowerPts, f2(x)+" "+f2(ay.at(a)))
		} else {
			for k := len(lowerPts) - 1; k >= 0; k-- {
				if lower.Len() > 0 {
					lower.WriteString(" L")
				}
				lower.WriteString(lowerPts[k])
			}
			lowerPts = lowerPts[:0]
			flushBand()
		}
		c.Points = append(c.Points, point{X: f2(x), Y: f2(y), Tip: tip})
	}
	for k := len(lowerPts) - 1; k >= 0; k-- {
		if lower.Len() > 0 {
			lower.WriteString(" L")
		}
		lower.WriteString(lowerPts[k])
	}
	flushBand()
	c.Path = path.String()
	for i, l := range lims {
		y := ay.at(l)
		c.Limits = append(c.Limits, limit{Y: f2(y), Text: limLabels[i], TextY: f2(y + 4)})
	}
	// label the first and last point and about four between them
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
	what := "runs"
	if kind == "windows" {
		what = "windows"
	}
	c.Title = fmt.Sprintf("%s: %s over %d %s (%d with a value), from %s to %s", kind, name, len(hist), what, n,
		hist[0].Time.UTC().Format(time.RFC3339), hist[len(hist)-1].Time.UTC().Format(time.RFC3339))
	if withCI > 0 {
		c.Title += fmt.Sprintf("; shaded band: confidence interval (%d points)", withCI)
	}
	if len(lims) > 0 {
		c.Title += "; dashed lines: " + strings.Join(limLabels, ", ")
	}
	return c
}

// reliability is a reliability diagram: mean confidence against accuracy per bin.
type reliability struct {
	Metric, Title string
	Width, Height int
	Points        []rpoint
	Ticks         []tick
	YTicks        []tick
	PlotL, PlotR  string
	PlotT, PlotB  string
	Diag          string
}

type rpoint struct {
	X, Y, R, Tip string
}

// buildReliability draws a calibration_error's bins (details.bins): a point per non-empty
// bin at (mean confidence, accuracy), its area proportional to the bin's records, against
// the diagonal of perfect calibration. Other metrics give nil.
func buildReliability(m Metric) *reliability {
	if m.Type != "calibration_error" {
		return nil
	}
	bins, _ := m.Details["bins"].([]any)
	if len(bins) == 0 {
		return nil
	}
	const size, left, top, bottom, right = 300, 60, 16, 44, 20
	r := &reliability{Metric: m.Name, Width: left + size + right, Height: top + size + bottom}
	ax := axis{lo: 0, hi: 1, p0: left, p1: left + size}
	ay := axis{lo: 0, hi: 1, p0: top + size, p1: top}
	r.PlotL, r.PlotR, r.PlotT, r.PlotB = f2(left), f2(left+size), f2(top), f2(top+size)
	r.Diag = fmt.Sprintf("M%s %s L%s %s", f2(ax.at(0)), f2(ay.at(0)), f2(ax.at(1)), f2(ay.at(1)))
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		r.Ticks = append(r.Ticks, tick{Pos: f2(ax.at(t)), Text: short0(t)})
		r.YTicks = append(r.YTicks, tick{Pos: f2(ay.at(t)), Text: short0(t)})
	}
	var most float64
	for _, b := range bins {
		if bm, ok := b.(map[string]any); ok {
			if c, ok := bm["count"].(float64); ok {
				most = math.Max(most, c)
			}
		}
	}
	for _, b := range bins {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		conf, ok1 := bm["confidence"].(float64)
		acc, ok2 := bm["accuracy"].(float64)
		count, ok3 := bm["count"].(float64)
		lo, _ := bm["lo"].(float64)
		hi, _ := bm["hi"].(float64)
		if !ok1 || !ok2 || !ok3 || most == 0 {
			continue
		}
		r.Points = append(r.Points, rpoint{X: f2(ax.at(conf)), Y: f2(ay.at(acc)), R: f2(2 + 8*math.Sqrt(count/most)),
			Tip: fmt.Sprintf("bin [%s, %s]: %s records, mean confidence %s, accuracy %s", full(lo), full(hi), full(count), full(conf), full(acc))})
	}
	r.Title = fmt.Sprintf("calibration: %s reliability diagram, %d non-empty bins, mean confidence (x) against accuracy (y), point area by records; the diagonal is perfect calibration", m.Name, len(r.Points))
	return r
}
