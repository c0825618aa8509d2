package auth_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
)

func TestStateChangingRequestWithoutCSRFTokenIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	c := authtest.SignIn(t, b.pool, b.url, email("ed", "example.com"))
	other := authtest.SignIn(t, b.pool, b.url, email("fay", "example.com"))

	for name, req := range map[string]func() *http.Request{
		"no token": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, b.url+"/logout", nil)
			return r
		},
		"empty form field": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, b.url+"/logout", strings.NewReader(url.Values{"_csrf": {""}}.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		},
		"another session's token": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, b.url+"/logout", nil)
			r.Header.Set(auth.CSRFHeader, other.CSRFToken)
			return r
		},
		"token in the query string": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, b.url+"/logout?_csrf="+url.QueryEscape(c.CSRFToken), nil)
			return r
		},
	} {
		resp := c.Send(t, req())
		require.Equal(t, http.StatusForbidden, resp.StatusCode, name)
		require.Contains(t, authtest.Body(t, resp), "security token is missing or out of date", name)
		require.True(t, signedIn(t, c), "%s: the session is still valid", name)
	}

	resp := c.Do(t, http.MethodPost, "/logout", nil, "")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "the htmx header is accepted")
	require.False(t, signedIn(t, c))
}

func TestMultipartFormCarriesTheTokenAsItsFirstField(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	c := authtest.SignIn(t, b.pool, b.url, email("gus", "example.com"))
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField(auth.CSRFField, c.CSRFToken))
	require.NoError(t, w.Close())
	req, err := http.NewRequest(http.MethodPost, b.url+"/logout", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	require.Equal(t, http.StatusSeeOther, c.Send(t, req).StatusCode)
	require.False(t, signedIn(t, c))
}
