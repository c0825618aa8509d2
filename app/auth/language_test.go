package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// page requests path as a browser asking for acceptLanguage and returns the document.
func page(t *testing.T, c *authtest.Client, path, acceptLanguage string) *goquery.Document {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.BaseURL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Language", acceptLanguage)
	resp := c.Send(t, req)
	require.Equal(t, http.StatusOK, resp.StatusCode, path)
	return document(t, resp)
}

func lang(doc *goquery.Document) string {
	l, _ := doc.Find("html").Attr("lang")
	return l
}

// switchTo presses the header's switch on doc, as a browser would.
func switchTo(t *testing.T, c *authtest.Client, doc *goquery.Document, code string) *http.Response {
	t.Helper()
	form := doc.Find(`form[data-testid="language-switch"]`)
	require.Equal(t, 1, form.Length(), "the page has the switch")
	require.Equal(t, 1, form.Find(`button[value="`+code+`"]`).Length(), "it offers %s", code)
	token, _ := form.Find(`input[name="_csrf"]`).Attr("value")
	next, _ := form.Find(`input[name="next"]`).Attr("value")
	return c.Send(t, formRequest(t, c.BaseURL+"/language", url.Values{"_csrf": {token}, "next": {next}, "lang": {code}}))
}

func TestTheBrowsersLanguageChoosesTheSignInPage(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	browser := authtest.Anonymous(t, b.url)
	zh := page(t, browser, "/login", "zh-CN,zh;q=0.9,en;q=0.8")
	require.Equal(t, "zh-CN", lang(zh))
	require.Equal(t, "中文", strings.TrimSpace(zh.Find(`[data-testid="language-current"]`).Text()))
	en := page(t, browser, "/login", "fr-FR,fr;q=0.9")
	require.Equal(t, "en", lang(en), "neither language asked for: English")
	require.Equal(t, "English", strings.TrimSpace(en.Find(`[data-testid="language-current"]`).Text()))
}

// TestTheSwitchHoldsAcrossSignIn chooses 中文 on the sign-in page of an English
// browser, signs in, and finds the choice on the user: another browser of theirs,
// asking for English, reads Chinese after its sign-in, until they switch back.
func TestTheSwitchHoldsAcrossSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	browser := authtest.Anonymous(t, b.url)
	resp := switchTo(t, browser, page(t, browser, "/login?next=%2Fsettings%2Ftokens", "en"), "zh-CN")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	require.Equal(t, "/login?next=%2Fsettings%2Ftokens", resp.Header.Get("Location"), "back where it was, with its next")
	require.Equal(t, "zh-CN", lang(page(t, browser, "/login", "en")), "the cookie outweighs Accept-Language")

	addr := email("Lin", "example.com")
	resp = localSignIn(t, browser, "Lin", addr, "/settings/tokens")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, authtest.Body(t, resp))
	var stored string
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT locale FROM app_user WHERE email = $1", strings.ToLower(addr)).Scan(&stored))
	require.Equal(t, "zh-CN", stored, "the choice is the user's now")
	tokens := page(t, browser, "/settings/tokens", "en")
	require.Equal(t, "zh-CN", lang(tokens))
	require.Contains(t, tokens.Find("header.site nav").Text(), "诊断")

	other := authtest.Anonymous(t, b.url)
	require.Equal(t, "en", lang(page(t, other, "/login", "en")))
	resp = localSignIn(t, other, "Lin", addr, "/settings/tokens")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	otherTokens := page(t, other, "/settings/tokens", "en")
	require.Equal(t, "zh-CN", lang(otherTokens), "the user's choice, in a browser that never chose")

	resp = switchTo(t, other, otherTokens, "en")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/settings/tokens", resp.Header.Get("Location"))
	require.Equal(t, "en", lang(page(t, other, "/settings/tokens", "zh-CN")), "at once, whatever the browser asks for")
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT locale FROM app_user WHERE email = $1", strings.ToLower(addr)).Scan(&stored))
	require.Equal(t, "en", stored)
}

func TestTheSwitchRefusesWhatItDoesNotOffer(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	browser := authtest.Anonymous(t, b.url)
	doc := page(t, browser, "/login", "en")
	token, _ := doc.Find(`form[data-testid="language-switch"] input[name="_csrf"]`).Attr("value")

	resp := browser.Send(t, formRequest(t, b.url+"/language", url.Values{"_csrf": {token}, "lang": {"fr"}}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	for _, c := range resp.Cookies() {
		require.NotEqual(t, auth.LanguageCookie, c.Name, "nothing is kept")
	}
	resp = browser.Send(t, formRequest(t, b.url+"/language", url.Values{"lang": {"zh-CN"}}))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "without the CSRF token")
	require.Equal(t, "en", lang(page(t, browser, "/login", "en")), "the refused switches changed nothing")

	resp = browser.Send(t, formRequest(t, b.url+"/language", url.Values{"_csrf": {token}, "lang": {"zh-CN"}, "next": {"https://evil.example/"}}))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/", resp.Header.Get("Location"), "never to another site")
}
