package auth

import (
	"cmp"
	"net/http"
	"net/url"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/views/pages"
)

// loginForm is the sign-in page's state: where to go next and, after a refused local
// sign-in, what was typed and why it was refused.
type loginForm struct {
	Next, Name, Email, Error string
}

// LoginPage shows the sign-in page: GET /login?next=/path. Someone already signed in
// goes straight on.
func (a *Auth) LoginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if _, ok := UserFrom(c); ok {
		return c.Redirect(http.StatusSeeOther, cmp.Or(next, "/"))
	}
	return a.renderLogin(c, http.StatusOK, loginForm{Next: next})
}

// Logout ends the session: POST /logout. The row is deleted, so the old cookie signs
// nobody in again, wherever it was copied.
func (a *Auth) Logout(c echo.Context) error {
	if token := cookieValue(c, a.cookieName(SessionCookie)); token != "" {
		hash := hashToken(token)
		if err := a.store.EndSession(c.Request().Context(), hash); err != nil {
			return err
		}
		a.cache.Evict(key(hash)) // here at once; the other instances when the notification arrives
	}
	a.clearCookie(c, a.cookieName(SessionCookie), "/")
	a.logger(c).Info("signed out")
	a.flash.Set(c, a.Localizer(c).T("login.signed_out"))
	return c.Redirect(http.StatusSeeOther, "/login")
}

// renderLogin shows the sign-in page. Asked for under a name that is not this
// Checkup's own, the local form is left out, and a page that would offer nothing else
// is refused.
func (a *Auth) renderLogin(c echo.Context, status int, form loginForm) error {
	local := a.cfg.LocalSignIn() && a.ownRequest(c.Request())
	if a.cfg.LocalSignIn() && !local && len(a.deps.Providers) == 0 {
		return a.foreignHost(c)
	}
	a.ensurePreSession(c)
	v := pages.LoginView{
		Local: local, Next: form.Next, Name: form.Name, Email: form.Email, Error: form.Error,
	}
	for _, p := range a.deps.Providers {
		href := "/auth/" + p.Name()
		if form.Next != "" {
			href += "?next=" + url.QueryEscape(form.Next)
		}
		v.Providers = append(v.Providers, pages.ProviderLink{Name: p.Name(), Label: p.Label, URL: templ.SafeURL(href)})
	}
	return render(c, status, pages.Login(a.deps.Page(c, a.Localizer(c).T("login.title")), v))
}

// problem shows why a sign-in did not happen, with the allowed domains when the
// allow-list refused it.
func (a *Auth) problem(c echo.Context, status int, message locale.Text, allowedDomains []string) error {
	l := a.Localizer(c)
	v := pages.SignInProblemView{Message: l.Text(message), AllowedDomains: allowedDomains}
	return render(c, status, pages.SignInProblem(a.deps.Page(c, l.T("signin.title")), v))
}
