package web_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// taskBundle is a real server on the shared test database with two signed-in users.
type taskBundle struct {
	pool   *pgxpool.Pool
	server *web.Server
	url    string
	alice  *authtest.Client
	bob    *authtest.Client
}

func setupTasks(t *testing.T) taskBundle {
	t.Helper()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return taskBundle{
		pool: pool, server: srv, url: ts.URL,
		alice: authtest.SignIn(t, pool, ts.URL, "alice-"+uuid.NewString()+"@example.com"),
		bob:   authtest.SignIn(t, pool, ts.URL, "bob-"+uuid.NewString()+"@example.com"),
	}
}

// htmx sends a request the way htmx does: with HX-Request and the CSRF header.
func htmx(t *testing.T, c *authtest.Client, method, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, c.BaseURL+path, nil)
	require.NoError(t, err)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", c.CSRFToken)
	return c.Send(t, req)
}

func parse(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(authtest.Body(t, resp)))
	require.NoError(t, err)
	return doc
}

func testid(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

// parseCell parses a table-cell fragment in the table context a browser swaps it into
// (outside a table, an HTML parser drops a bare <td>).
func parseCell(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<table><tr>" + authtest.Body(t, resp) + "</tr></table>"))
	require.NoError(t, err)
	return doc
}
