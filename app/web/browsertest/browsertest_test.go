package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/web/browsertest"
)

func TestStartDrivesAPageAndTakesAScreenshot(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>t</title><p id="p">航空客服 &lt;ok&gt;</p>`)
	}))
	t.Cleanup(srv.Close)
	ctx := browsertest.Start(t, 30*time.Second)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL)))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#p")))
	require.NoError(t, err)
	require.Equal(t, "航空客服 <ok>", text)
	path := browsertest.Screenshot(t, ctx, "hello")
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Positive(t, info.Size())
}
