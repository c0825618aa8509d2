// Package browsertest drives a real headless Chromium from Go tests with chromedp.
// Chromium is found at CHROMIUM_PATH, else as chromium, chromium-browser,
// google-chrome or /usr/bin/chromium. In CI (CI=true) a missing Chromium fails the
// test, since CI installs it; on a developer's machine the test is skipped with a
// sentence saying what to install.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// Find returns the path of the Chromium binary, or "" when there is none.
func Find() string {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start launches a headless Chromium with a fresh profile and returns a browser tab's
// context, bounded by timeout. The browser is stopped when the test ends.
func Start(tb testing.TB, timeout time.Duration) context.Context {
	tb.Helper()
	path := Find()
	if path == "" {
		const msg = "browsertest: Chromium not found; install it (Debian: apt-get install chromium) or set CHROMIUM_PATH"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(tb.Logf))
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	tb.Cleanup(func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("browsertest: start %s: %v", path, err)
	}
	return ctx
}

// ArtifactsDir is where tests write screenshots: CHECKUP_ARTIFACTS when set (CI sets
// it and keeps what is there as the run's artifacts), else a directory of the test's
// own under the system's temp dir that outlives the test; Screenshot writes each
// file's path to the test's log.
func ArtifactsDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("CHECKUP_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "checkup-artifacts", unsafeName.ReplaceAllString(tb.Name(), "_"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("browsertest: artifacts dir: %v", err)
	}
	return dir
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot saves a full-page PNG of the tab as <test name>-<name>.png in
// ArtifactsDir and returns its path.
func Screenshot(tb testing.TB, ctx context.Context, name string) string {
	tb.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.Fatalf("browsertest: screenshot %s: %v", name, err)
	}
	path := filepath.Join(ArtifactsDir(tb), unsafeName.ReplaceAllString(tb.Name()+"-"+name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatalf("browsertest: screenshot %s: %v", name, err)
	}
	tb.Logf("screenshot: %s", path)
	return path
}

// WaitFor polls the tab until the JavaScript expression is true, failing the test
// after timeout.
func WaitFor(tb testing.TB, ctx context.Context, expr string, timeout time.Duration) {
	tb.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		tb.Fatalf("browsertest: waiting for %s: %v", expr, err)
	}
}

// Download clicks the link the CSS selector names and returns the file the browser
// downloaded.
func Download(tb testing.TB, ctx context.Context, selector string) []byte {
	tb.Helper()
	dir := tb.TempDir()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			enabled := true
			_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &enabled})
			return err
		}),
		chromedp.Click(chromedp.CSS(selector)),
	)
	if err != nil {
		tb.Fatalf("browsertest: download %s: %v", selector, err)
	}
	for ev, err := range progress {
		if err != nil {
			tb.Fatalf("browsertest: download %s: %v", selector, err)
		}
		if ev.State != browser.DownloadProgressStateCompleted {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, ev.GUID))
		if err != nil {
			tb.Fatalf("browsertest: download %s: %v", selector, err)
		}
		return raw
	}
	tb.Fatalf("browsertest: the download of %s did not complete", selector)
	return nil
}
