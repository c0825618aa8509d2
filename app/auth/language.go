package auth

import (
	"cmp"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// LanguageCookie keeps the language a browser chose (the header's 中文 / English
// switch), so the sign-in page reads in it and the choice reaches the user at sign-in.
const LanguageCookie = "checkup_lang"

// languageMaxAge is how long a browser keeps its choice: a year, renewed at each switch.
const languageMaxAge = 365 * 24 * 60 * 60

// errNoLanguage refuses a switch to a language Checkup does not have.
var errNoLanguage = echo.NewHTTPError(http.StatusBadRequest, locale.Msg("errors.no_language"))

// Localizer is the language the request is answered in: the signed-in user's choice,
// else the browser's (its cookie), else what its Accept-Language asks for, else
// English. The API reads no cookie and no choice: a script gets what its
// Accept-Language asks for.
func (a *Auth) Localizer(c echo.Context) *locale.Localizer {
	b := a.deps.Locales
	api := c.Get(accessKey) == Token
	if u, ok := UserFrom(c); ok && !api {
		if l, ok := b.For(u.Locale); ok {
			return l
		}
	}
	if !api {
		if l, ok := b.For(cookieValue(c, a.cookieName(LanguageCookie))); ok {
			return l
		}
	}
	return b.Match(c.Request().Header.Get("Accept-Language"))
}

// ChooseLanguage is the switch: POST /language with lang (a locale code) and next
// (where to go back to). The choice is kept in the browser's cookie and, for a
// signed-in user, on the user, so it holds in their other browsers and after the next
// sign-in.
func (a *Auth) ChooseLanguage(c echo.Context) error {
	code := c.FormValue("lang")
	if _, ok := a.deps.Locales.For(code); !ok {
		return errNoLanguage
	}
	if u, ok := UserFrom(c); ok && u.Locale != code {
		if err := a.store.SetLocale(c.Request().Context(), u.Owner(), code); err != nil {
			return err
		}
		// The other instances drop the session when the notification comes; this one,
		// whose next page is the redirect's, at once.
		a.cache.Evict(key(hashToken(cookieValue(c, a.cookieName(SessionCookie)))))
	}
	a.setCookie(c, a.cookieName(LanguageCookie), code, "/", languageMaxAge)
	return c.Redirect(http.StatusSeeOther, backTo(c.FormValue("next")))
}

// backTo is where the switch goes back to: next when it is a page of this site, the
// sign-in page with its own next included, else the home page.
func backTo(next string) string {
	if u, err := url.Parse(next); err == nil && next != "" && u.Path == "/login" && u.Host == "" && u.Scheme == "" && strings.HasPrefix(next, "/") {
		return loginURL(safeNext(u.Query().Get("next")))
	}
	return cmp.Or(safeNext(next), "/")
}

// keepLanguage stores on a user who just signed in the language their browser chose
// before, when it differs from the one on record: the latest choice wins.
func (a *Auth) keepLanguage(c echo.Context, u store.User) error {
	code := cookieValue(c, a.cookieName(LanguageCookie))
	if _, ok := a.deps.Locales.For(code); !ok || code == u.Locale {
		return nil
	}
	return a.store.SetLocale(c.Request().Context(), u.Owner(), code)
}
