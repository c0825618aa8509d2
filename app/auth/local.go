package auth

import (
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/store"
)

// LocalProvider is the provider name of users who signed in with the local form;
// their provider_user_id is their lower-cased email.
const LocalProvider = "local"

// LocalSignIn signs in with a name and an email and no password: POST /auth/local.
// It exists only while the configuration offers it (no provider and a loopback
// address, or AUTH_DEV_LOGIN=true); otherwise it is a 404. A request addressed to
// another host than this Checkup's own is refused (ownRequest).
func (a *Auth) LocalSignIn(c echo.Context) error {
	if !a.cfg.LocalSignIn() {
		return echo.ErrNotFound
	}
	if !a.ownRequest(c.Request()) {
		return a.foreignHost(c)
	}
	form := loginForm{
		Name:  strings.TrimSpace(c.FormValue("name")),
		Email: strings.ToLower(strings.TrimSpace(c.FormValue("email"))),
		Next:  safeNext(c.FormValue("next")),
	}
	if addr, err := mail.ParseAddress(form.Email); err != nil || addr.Address != form.Email {
		form.Error = a.Localizer(c).T("login.bad_email")
		return a.renderLogin(c, http.StatusUnprocessableEntity, form)
	}
	if utf8.RuneCountInString(form.Name) > 100 {
		form.Error = a.Localizer(c).T("login.long_name")
		return a.renderLogin(c, http.StatusUnprocessableEntity, form)
	}
	if form.Name == "" {
		form.Name = localPart(form.Email)
	}
	id := store.Identity{Provider: LocalProvider, ProviderUserID: form.Email, Email: form.Email, Name: form.Name}
	return a.finishSignIn(c, id, true, form.Next)
}
