package auth_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// bundle is a running Checkup on the shared test database.
type bundle struct {
	pool *pgxpool.Pool
	url  string
	cfg  config.Config
}

// setup starts the real server with env (on top of the defaults; BASE_URL and ADDR are
// the test server's), with the providers that configuration enables.
func setup(t testing.TB, env map[string]string) bundle {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	vars := map[string]string{"ADDR": ln.Addr().String(), "BASE_URL": base}
	for k, v := range env {
		vars[k] = v
	}
	cfg, _, err := config.Load(func(k string) string { return vars[k] })
	require.NoError(t, err)
	providers, err := auth.LoadProviders(context.Background(), cfg)
	require.NoError(t, err)
	pool := dbtest.Pool(t)
	logger := slog.New(slog.DiscardHandler)
	srv := httptest.NewUnstartedServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: logger, Providers: providers}).Handler())
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return bundle{pool: pool, url: base, cfg: cfg}
}

// email returns an address no other test uses, at domain.
func email(name, domain string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return name + "." + hex.EncodeToString(b) + "@" + domain
}

func document(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(authtest.Body(t, resp)))
	require.NoError(t, err)
	return doc
}

// sessionCookie returns the session cookie a response sets, or nil.
func sessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.MaxAge >= 0 && c.Value != "" {
			return c
		}
	}
	return nil
}

// withCookie requests path with exactly this session cookie and nothing else.
func withCookie(t *testing.T, b bundle, path string, cookie *http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.url+path, nil)
	require.NoError(t, err)
	req.AddCookie(cookie)
	return authtest.Anonymous(t, b.url).Send(t, req)
}

// signedIn reports whether the client's session lets it past Guard: a private route
// answers something other than the way to /login.
func signedIn(t *testing.T, c *authtest.Client) bool {
	t.Helper()
	resp := c.Get(t, "/")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	return resp.Header.Get("Location") == "/tasks"
}

// csrfFromHeaders reads the token out of the body's hx-headers JSON.
func csrfFromHeaders(t *testing.T, hxHeaders string) string {
	t.Helper()
	var h map[string]string
	require.NoError(t, json.Unmarshal([]byte(hxHeaders), &h))
	require.NotEmpty(t, h[auth.CSRFHeader])
	return h[auth.CSRFHeader]
}
