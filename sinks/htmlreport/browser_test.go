package htmlreport

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// chromium finds a headless Chromium. Without one the browser tests skip, unless
// EVALSTREAM_REQUIRE_CHROMIUM is set (CI installs Chromium and sets it, so there a missing
// browser fails instead of passing silently).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("EVALSTREAM_REQUIRE_CHROMIUM") != "" {
		t.Fatal("EVALSTREAM_REQUIRE_CHROMIUM is set but no chromium is on PATH")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); browser test skipped")
	return ""
}

// runChromium loads a file URL in headless Chromium with networking off and returns
// stdout and stderr. The deadline only stops a hung browser; nothing asserts on time.
func runChromium(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
		// any host name resolves nowhere: a request that slipped past the page's CSP fails
		"--host-resolver-rules=MAP * ~NOTFOUND"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run(), "chromium: %s", e.String())
	return o.String(), e.String()
}

// consoleLines are the page's console messages (errors, CSP violations) in Chromium's log.
func consoleLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

func TestBrowserRendersReport(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := render(t, hostileInput(t))
	path := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(path, page, 0o644))
	url := "file://" + path

	dom, stderr := runChromium(t, bin, "--dump-dom", url)
	require.Empty(t, consoleLines(stderr), "console messages (errors or blocked requests)")
	// the DOM the browser built has what the page promises
	require.Contains(t, dom, `<table class="metrics">`)
	require.Equal(t, 4, strings.Count(dom, `<tr data-metric=`))
	require.Equal(t, 3, strings.Count(dom, `class="slices"`)-1, "three slice charts (plus the slice table)")
	require.Equal(t, 1, strings.Count(dom, `class="confusion"`))
	require.Equal(t, 2, strings.Count(dom, `class="trend"`))
	require.Equal(t, 6, strings.Count(dom, "<svg"))
	require.NotContains(t, dom, "<script")
	require.NotContains(t, dom, "<img")
	require.Contains(t, dom, "&lt;script&gt;alert('metric')&lt;/script&gt;")

	shot := filepath.Join(dir, "report.png")
	_, stderr = runChromium(t, bin, "--window-size=1200,2400", "--hide-scrollbars", "--screenshot="+shot, url)
	require.Empty(t, consoleLines(stderr))
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	// non-blank: a rendered page has many colours (text antialiasing, bars, heatmap shades)
	// and a fair share of non-background pixels
	colours := map[[3]uint32]bool{}
	ink := 0
	bg := img.At(0, 0)
	br, bgc, bb, _ := bg.RGBA()
	bnds := img.Bounds()
	for y := bnds.Min.Y; y < bnds.Max.Y; y += 2 {
		for x := bnds.Min.X; x < bnds.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if r != br || g != bgc || b != bb {
				ink++
			}
		}
	}
	total := bnds.Dx() * bnds.Dy() / 4
	require.Greater(t, len(colours), 50, "screenshot has too few colours: blank page?")
	require.Greater(t, ink, total/50, "screenshot is almost all background")
}

// TestBrowserRendersDecisions loads the page of a run with intervals and a failed gate: the
// browser's DOM shows the gate verdict, every interval of the results JSON in the table, and
// the calibration, window and trend charts.
func TestBrowserRendersDecisions(t *testing.T) {
	bin := chromium(t)
	in := decisionsInput(t)
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, render(t, in), 0o644))
	dom, stderr := runChromium(t, bin, "--dump-dom", "file://"+path)
	require.Empty(t, consoleLines(stderr), "console messages (errors or blocked requests)")
	require.Contains(t, dom, `<section class="gate fail" id="gate">`)
	require.Equal(t, 1, strings.Count(dom, `class="calibration"`))
	require.Equal(t, 5, strings.Count(dom, `aria-label="windows:`))
	require.Equal(t, 5, strings.Count(dom, `aria-label="trend:`))
	for _, m := range in.Run.Metrics {
		if lo, hi, ok := m.CI.Bounds(); ok {
			require.Contains(t, dom, `<td class="num ci" title="[`+full(lo)+`, `+full(hi)+`]">[`+short(lo)+`, `+short(hi)+`]</td>`, m.Name)
		}
	}
}

// TestBrowserDetectsRequests proves the console check can fail: a page that tries to load an
// image and run a script (both blocked by the report's CSP) leaves console messages.
func TestBrowserDetectsRequests(t *testing.T) {
	bin := chromium(t)
	page := render(t, Input{Run: loadRun(t, "testdata/classification.json")})
	bad := bytes.Replace(page, []byte("<main>"), []byte(`<main><img src="http://example.invalid/x.png"><script>console.error("x")</script>`), 1)
	path := filepath.Join(t.TempDir(), "bad.html")
	require.NoError(t, os.WriteFile(path, bad, 0o644))
	_, stderr := runChromium(t, bin, "--dump-dom", "file://"+path)
	require.Len(t, consoleLines(stderr), 2, stderr)
}
