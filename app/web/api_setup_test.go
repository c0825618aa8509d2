package web_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// apiBundle is a real server on the shared test database, with the API's document
// loaded to check its answers against.
type apiBundle struct {
	pool     *pgxpool.Pool
	server   *web.Server
	url      string
	contract *contract
}

// setupAPI starts a server with the settings of env over the defaults, its BASE_URL
// its own address, so the URLs it answers with can be followed.
func setupAPI(t *testing.T, env map[string]string) apiBundle {
	t.Helper()
	pool := dbtest.Pool(t)
	ts := httptest.NewUnstartedServer(nil)
	cfg, _, err := config.Load(func(k string) string {
		if k == "BASE_URL" {
			return "http://" + ts.Listener.Addr().String()
		}
		return env[k]
	})
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.DiscardHandler)})
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return apiBundle{pool: pool, server: srv, url: ts.URL, contract: loadContract(t, ts.URL)}
}

// apiUser is a signed-in user with a browser session and a token of their own.
type apiUser struct {
	browser *authtest.Client
	api     *authtest.APIClient
}

func (b apiBundle) user(t *testing.T, name string) apiUser {
	t.Helper()
	browser := authtest.SignIn(t, b.pool, b.url, name+"-"+uuid.NewString()+"@example.com")
	return apiUser{browser: browser, api: authtest.NewAPIClient(b.url, authtest.NewToken(t, b.pool, browser.User, name+"'s CI"))}
}

// call sends method to path as route (the echo route it is for) with c's token, and
// checks the answer against the document; it returns the status and the body.
func (b apiBundle) call(t *testing.T, c *authtest.APIClient, method, route, path string) (int, []byte) {
	t.Helper()
	resp := c.Do(t, method, path, nil, "")
	return resp.StatusCode, b.contract.check(t, method, route, resp)
}

// uploadAPI posts parts to POST /api/v1/tasks with c's token and checks the answer.
func (b apiBundle) uploadAPI(t *testing.T, c *authtest.APIClient, parts ...part) (int, []byte) {
	t.Helper()
	body, contentType := multipartBody(t, parts...)
	resp := c.Do(t, http.MethodPost, "/api/v1/tasks", body, contentType)
	return resp.StatusCode, b.contract.check(t, http.MethodPost, "/api/v1/tasks", resp)
}

// apiErr is the API's error body.
type apiErr struct {
	Error        string   `json:"error"`
	Field        string   `json:"field"`
	Problems     []string `json:"problems"`
	MoreProblems int      `json:"more_problems"`
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(body, &v), "%s", body)
	return v
}
