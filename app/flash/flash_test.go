package flash_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/flash"
)

// carry sets a message in one response and returns the next request's context with
// the cookie the browser would send back, and that request's recorder.
func carry(t *testing.T, set func(echo.Context)) (echo.Context, *httptest.ResponseRecorder) {
	t.Helper()
	e := echo.New()
	first := httptest.NewRecorder()
	set(e.NewContext(httptest.NewRequest(http.MethodPost, "/", nil), first))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, c := range first.Result().Cookies() {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	return e.NewContext(req, rec), rec
}

func TestAMessageIsShownOnceAndEscapingIsTheTemplatesJob(t *testing.T) {
	t.Parallel()
	c, rec := carry(t, func(c echo.Context) { flash.Messages{}.Set(c, `Task "<b>x</b>" deleted; 删除了`) })
	msg, isErr := flash.Messages{}.Take(c)
	require.Equal(t, `Task "<b>x</b>" deleted; 删除了`, msg)
	require.False(t, isErr)
	require.Contains(t, rec.Header().Get("Set-Cookie"), "Max-Age=0", "taken messages are forgotten")

	c, _ = carry(t, func(c echo.Context) { flash.Messages{}.Error(c, "a"+strings.Repeat("é", 800)) })
	msg, isErr = flash.Messages{}.Take(c)
	require.True(t, isErr)
	require.LessOrEqual(t, len(msg), 1000)
	require.True(t, utf8.ValidString(msg), "a long message is cut between characters")
	require.True(t, strings.HasPrefix(msg, "aéé"))
}

// Secure is the setting's: a request over http (as behind a proxy that ends TLS)
// still gets a Secure cookie when BASE_URL is https.
func TestTheCookieIsSecureBySetting(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{true, false} {
		rec := httptest.NewRecorder()
		flash.Messages{Secure: secure}.Set(echo.New().NewContext(httptest.NewRequest(http.MethodPost, "http://example.com/", nil), rec), "Saved.")
		cookies := rec.Result().Cookies()
		require.Len(t, cookies, 1)
		require.Equal(t, secure, cookies[0].Secure)
		require.Equal(t, secure, cookies[0].Name == "__Host-checkup_flash", "a Secure notice is host-only")
	}
}

func TestATamperedCookieShowsNothing(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: "checkup_flash", Value: "x.!!!"})
	msg, _ := flash.Messages{}.Take(echo.New().NewContext(req, httptest.NewRecorder()))
	require.Empty(t, msg)
}
