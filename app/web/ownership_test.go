package web_test

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// designTaskRoutes are the task routes of docs/architecture.md#security-model; the walk
// must find at least these, and walks every other task route registered later too.
var designTaskRoutes = []string{
	"GET /tasks/:id", "GET /tasks/:id/progress", "POST /tasks/:id/cancel", "POST /tasks/:id/rerun",
	"POST /tasks/:id/delete", "DELETE /tasks/:id", "GET /tasks/:id/conversations/:seq",
	"GET /tasks/:id/report.json", "GET /tasks/:id/actions.csv", "GET /tasks/:id/findings.csv", "GET /tasks/:id/report.md",
	"GET /tasks/:id/conversations", "POST /tasks/:id/clusters/:cluster/expected",
	"DELETE /tasks/:id/clusters/:cluster/expected", "POST /tasks/:id/clusters/:cluster/expected/delete",
}

// taskRoutes returns the registered routes that address one task: /tasks/:id...
func taskRoutes(routes []*echo.Route) []*echo.Route {
	var out []*echo.Route
	for _, r := range routes {
		if (r.Path == "/tasks/:id" || strings.HasPrefix(r.Path, "/tasks/:id/")) && !strings.HasPrefix(r.Method, "echo_") {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *echo.Route) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Method, b.Method))
	})
	return out
}

func TestTaskRoutesAreFoundWhateverIsRegistered(t *testing.T) {
	t.Parallel()
	e := echo.New()
	h := func(echo.Context) error { return nil }
	e.GET("/tasks", h)
	e.GET("/tasks/new", h)
	e.GET("/tasks/:id", h)
	e.POST("/tasks/:id/something-added-later", h)
	e.GET("/tasksets/:id", h)
	e.RouteNotFound("/*", h)
	var got []string
	for _, r := range taskRoutes(e.Routes()) {
		got = append(got, r.Method+" "+r.Path)
	}
	require.Equal(t, []string{"GET /tasks/:id", "POST /tasks/:id/something-added-later"}, got)
}

// TestAnotherUsersTaskIs404OnEveryTaskRoute walks every registered task route as Bob
// with Alice's task id: each answers 404 (never 403, so an id tells nothing), and the
// task and its conversations are unchanged afterwards. As a control, Alice's own GETs
// of the same routes are not 404.
func TestAnotherUsersTaskIs404OnEveryTaskRoute(t *testing.T) {
	t.Parallel()
	pool := dbtest.Pool(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	alice := authtest.SignIn(t, pool, ts.URL, "alice.owner-walk@example.com")
	bob := authtest.SignIn(t, pool, ts.URL, "bob.owner-walk@example.com")
	taskID := insertTask(t, pool, alice.User.ID)
	before := snapshot(t, pool, taskID, alice.User.ID, bob.User.ID)

	routes := taskRoutes(srv.Routes())
	var walked []string
	for _, r := range routes {
		walked = append(walked, r.Method+" "+r.Path)
	}
	require.Subset(t, walked, designTaskRoutes, "every task route of the design is registered and walked")

	shownEscaped := false
	for _, r := range routes {
		path := strings.NewReplacer(":id", taskID, ":seq", "1", ":cluster", "0", "*", "x").Replace(r.Path)
		for _, variant := range []string{"page", "htmx"} {
			req, err := http.NewRequest(r.Method, ts.URL+path, nil)
			require.NoError(t, err)
			if variant == "htmx" {
				req.Header.Set("HX-Request", "true")
			}
			resp := bob.Send(t, withToken(t, req, bob.CSRFToken, variant))
			require.Equal(t, http.StatusNotFound, resp.StatusCode, "Bob: %s %s (%s): %s", r.Method, path, variant, authtest.Body(t, resp))
		}
		if r.Method == http.MethodGet {
			resp := alice.Get(t, path)
			require.NotEqual(t, http.StatusNotFound, resp.StatusCode, "Alice, the owner: GET %s", path)
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				body := authtest.Body(t, resp)
				for _, raw := range []string{"<script>alert(1)", "<img src=x onerror"} {
					require.NotContains(t, body, raw, "uploaded text is shown escaped: GET %s", path)
				}
				shownEscaped = shownEscaped || strings.Contains(body, "&lt;script&gt;alert(1)")
			}
		}
		t.Logf("walked %s %s: 404 for another user", r.Method, r.Path)
	}
	require.True(t, shownEscaped, "the pages show the uploaded markup, as text")
	require.Equal(t, before, snapshot(t, pool, taskID, alice.User.ID, bob.User.ID), "the task is unchanged")
}

// withToken adds the CSRF token the way the page would send it: a form field for a
// plain form (which can only POST), the header for htmx.
func withToken(t *testing.T, req *http.Request, token, variant string) *http.Request {
	t.Helper()
	if req.Method == http.MethodGet {
		return req
	}
	if variant == "htmx" || req.Method != http.MethodPost {
		req.Header.Set("X-CSRF-Token", token)
		return req
	}
	form, err := http.NewRequest(req.Method, req.URL.String(), strings.NewReader("_csrf="+token))
	require.NoError(t, err)
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return form
}

// insertTask writes a task of owner with one conversation directly, so the walk does
// not depend on the upload. Its title and messages carry markup, which every page
// must show escaped.
func insertTask(t *testing.T, pool *pgxpool.Pool, owner int64) string {
	t.Helper()
	ctx := context.Background()
	var id string
	require.NoError(t, pool.QueryRow(ctx,
		`INSERT INTO analysis_task (owner_user_id, title, conversation_count) VALUES ($1, 'Alice''s <script>alert(1)</script> bot', 1) RETURNING id::text`,
		owner).Scan(&id))
	_, err := pool.Exec(ctx,
		`INSERT INTO task_conversation (task_id, owner_user_id, seq, external_id, messages, message_count)
		 VALUES ($1, $2, 1, 'c1', '[{"role":"user","content":"hi <img src=x onerror=alert(2)>"},{"role":"assistant","content":"hello <script>alert(1)</script>"}]', 2)`,
		id, owner)
	require.NoError(t, err)
	return id
}

// snapshot is everything a request could have changed: the task row, its
// conversations, and how many tasks either user has.
func snapshot(t *testing.T, pool *pgxpool.Pool, taskID string, users ...int64) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), `
		SELECT concat_ws(' | ',
		  (SELECT to_jsonb(a)::text FROM analysis_task a WHERE a.id = $1),
		  (SELECT jsonb_agg(to_jsonb(c) ORDER BY c.seq)::text FROM task_conversation c WHERE c.task_id = $1),
		  (SELECT count(*)::text FROM analysis_task WHERE owner_user_id = ANY($2)))`,
		taskID, users).Scan(&s))
	return s
}
