// Package authtest signs users in for tests of routes behind auth.Guard. Sessions are
// made by auth.SignIn, the same code a real sign-in runs, and stored in the test's
// database; Client sends the CSRF token with every state-changing request, the way
// htmx and the page forms do.
//
//	srv := httptest.NewServer(web.New(web.Deps{Config: cfg, Pool: pool, Logger: logger}).Handler())
//	alice := authtest.SignIn(t, pool, srv.URL, "alice@example.com")
//	resp := alice.Get(t, "/tasks")                         // signed in
//	resp = alice.PostForm(t, "/tasks/"+id+"/cancel", nil)   // _csrf added
//	resp = alice.Do(t, http.MethodDelete, "/tasks/"+id, nil, "") // X-CSRF-Token added
package authtest

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/store"
)

// Session is a signed-in session made directly in the database.
type Session struct {
	User      store.User
	Cookie    *http.Cookie // the session cookie, for a browser or a hand-made request
	CSRFToken string
}

// NewSession signs email in as a local user (created on first use) and returns the
// session cookie and its CSRF token.
func NewSession(tb testing.TB, pool *pgxpool.Pool, email string) Session {
	tb.Helper()
	email = strings.ToLower(email)
	id := store.Identity{Provider: auth.LocalProvider, ProviderUserID: email, Email: email, Name: strings.Split(email, "@")[0]}
	user, token, err := auth.SignIn(context.Background(), store.New(pool), id, "")
	if err != nil {
		tb.Fatalf("authtest: sign in %s: %v", email, err)
	}
	return Session{
		User:      user,
		Cookie:    &http.Cookie{Name: auth.SessionCookie, Value: token, Path: "/"},
		CSRFToken: auth.CSRFTokenFor(token),
	}
}

// Client is a browser for tests: a cookie jar and the CSRF token. It does not follow
// redirects, so tests see the 303s themselves.
type Client struct {
	HTTP      *http.Client
	BaseURL   string
	User      store.User // zero for an anonymous client
	CSRFToken string
}

// SignIn returns a client signed in as email on the server at baseURL.
func SignIn(tb testing.TB, pool *pgxpool.Pool, baseURL, email string) *Client {
	tb.Helper()
	s := NewSession(tb, pool, email)
	c := Anonymous(tb, baseURL)
	u, err := url.Parse(baseURL)
	if err != nil {
		tb.Fatalf("authtest: base URL: %v", err)
	}
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{s.Cookie})
	c.User, c.CSRFToken = s.User, s.CSRFToken
	return c
}

// Anonymous returns a client that is not signed in.
func Anonymous(tb testing.TB, baseURL string) *Client {
	tb.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		tb.Fatalf("authtest: cookie jar: %v", err)
	}
	return &Client{
		BaseURL: strings.TrimRight(baseURL, "/"),
		HTTP: &http.Client{
			Jar:           jar,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Owner is the signed-in user as the owner of their tasks, for store calls in tests.
func (c *Client) Owner() store.Owner { return c.User.Owner() }

// Get requests path.
func (c *Client) Get(tb testing.TB, path string) *http.Response {
	tb.Helper()
	return c.Do(tb, http.MethodGet, path, nil, "")
}

// PostForm posts form to path with the _csrf field added, like a page's form.
func (c *Client) PostForm(tb testing.TB, path string, form url.Values) *http.Response {
	tb.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set(auth.CSRFField, c.CSRFToken)
	return c.Do(tb, http.MethodPost, path, strings.NewReader(f.Encode()), "application/x-www-form-urlencoded")
}

// Do sends a request with the X-CSRF-Token header, like htmx.
func (c *Client) Do(tb testing.TB, method, path string, body io.Reader, contentType string) *http.Response {
	tb.Helper()
	req, err := http.NewRequest(method, c.BaseURL+path, body)
	if err != nil {
		tb.Fatalf("authtest: %s %s: %v", method, path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.CSRFToken != "" {
		req.Header.Set(auth.CSRFHeader, c.CSRFToken)
	}
	return c.Send(tb, req)
}

// Send sends req as it is: no CSRF token is added.
func (c *Client) Send(tb testing.TB, req *http.Request) *http.Response {
	tb.Helper()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		tb.Fatalf("authtest: %s %s: %v", req.Method, req.URL, err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Body reads and closes the response body.
func Body(tb testing.TB, resp *http.Response) string {
	tb.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("authtest: read body: %v", err)
	}
	return string(b)
}

// NewToken makes a personal access token named name for user, as /settings/tokens
// does, and returns it.
func NewToken(tb testing.TB, pool *pgxpool.Pool, user store.User, name string) string {
	tb.Helper()
	token, _, err := auth.IssueToken(context.Background(), store.New(pool), user.Owner(), name)
	if err != nil {
		tb.Fatalf("authtest: token for %s: %v", user.Email, err)
	}
	return token
}

// APIClient calls the API with a bearer token and no cookies, as a script does.
type APIClient struct {
	HTTP    *http.Client
	BaseURL string
	Token   string // sent as Authorization: Bearer; empty sends none
}

// NewAPIClient returns a client of the API at baseURL with token.
func NewAPIClient(baseURL, token string) *APIClient {
	return &APIClient{HTTP: &http.Client{}, BaseURL: strings.TrimRight(baseURL, "/"), Token: token}
}

// Do sends a request to path (under the server, e.g. /api/v1/tasks) with the token.
func (c *APIClient) Do(tb testing.TB, method, path string, body io.Reader, contentType string) *http.Response {
	tb.Helper()
	req, err := http.NewRequest(method, c.BaseURL+path, body)
	if err != nil {
		tb.Fatalf("authtest: %s %s: %v", method, path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		tb.Fatalf("authtest: %s %s: %v", method, path, err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp
}

// UploadFile posts the file at path to baseURL's /tasks as the upload form does,
// streamed from disk (an upload may be larger than the test would hold), and returns
// the response: a 303 to the new task when it was accepted.
func (s Session) UploadFile(tb testing.TB, baseURL, title, path string) *http.Response {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("authtest: upload: %v", err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := mw.WriteField(auth.CSRFField, s.CSRFToken)
		if err == nil {
			err = mw.WriteField("title", title)
		}
		var part io.Writer
		if err == nil {
			part, err = mw.CreateFormFile("file", filepath.Base(path))
		}
		if err == nil {
			_, err = io.Copy(part, f)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest(http.MethodPost, baseURL+"/tasks", pr)
	if err != nil {
		tb.Fatalf("authtest: upload: %v", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(s.Cookie)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("authtest: upload: %v", err)
	}
	return resp
}
