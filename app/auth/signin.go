package auth

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// finishSignIn is the end of every sign-in: the domain allow-list, a fresh session
// (the browser's previous one retired), and the way back to where the user was going.
func (a *Auth) finishSignIn(c echo.Context, id store.Identity, verified bool, next string) error {
	if !a.admits(id.Email, verified) {
		a.logger(c).Info("sign-in refused by AUTH_ALLOWED_EMAIL_DOMAINS", "provider", id.Provider)
		return a.problem(c, http.StatusForbidden, refusal(id.Email, verified), a.cfg.AllowedDomains)
	}
	user, token, err := SignIn(c.Request().Context(), a.store, id, cookieValue(c, a.cookieName(SessionCookie)))
	if err != nil {
		return err
	}
	if err := a.keepLanguage(c, user); err != nil {
		return err
	}
	a.setSessionCookie(c, token)
	a.clearCookie(c, a.cookieName(preSessionCookie), "/")
	a.logger(c).Info("signed in", "user_id", user.ID, "provider", user.Provider)
	a.purgeExpired(c)
	return c.Redirect(http.StatusSeeOther, cmp.Or(next, "/"))
}

func refusal(email string, verified bool) locale.Text {
	switch {
	case email == "":
		return locale.Msg("signin.no_email")
	case !verified:
		return locale.Msg("signin.unverified", "Email", email)
	}
	return locale.Msg("signin.wrong_domain", "Email", email)
}

// purgeExpired deletes expired sessions now and then: sign-ins are rare enough, and
// the expires_at index makes it cheap. A failure only costs table space.
func (a *Auth) purgeExpired(c echo.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), 5*time.Second)
	defer cancel()
	if _, err := a.store.PurgeExpiredSessions(ctx); err != nil {
		a.logger(c).Warn("purging expired sessions failed", "err", err)
	}
}
