package auth

import (
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/store"
)

// Keys of the request values Guard sets.
const (
	userKey   = "auth.user"
	csrfKey   = "auth.csrf"
	accessKey = "auth.access"
)

// UserFrom returns the signed-in user of the request, if any.
func UserFrom(c echo.Context) (store.User, bool) {
	u, ok := c.Get(userKey).(store.User)
	return u, ok
}

// OwnerFrom returns the owner of the request: the signed-in user. It is the only way
// a handler learns whose data to read, so a request cannot name another owner. It
// panics on a route Guard does not treat as Private, which is a wiring mistake (the
// recover middleware turns it into a 500).
func OwnerFrom(c echo.Context) store.Owner {
	u, ok := UserFrom(c)
	if !ok {
		panic("auth: OwnerFrom on a request without a signed-in user: " + c.Path() + " is not a private route")
	}
	return u.Owner()
}

// CSRFToken returns the token forms and htmx must send back with state-changing
// requests; empty when the request has neither a session nor a pre-session cookie.
func CSRFToken(c echo.Context) string {
	t, _ := c.Get(csrfKey).(string)
	return t
}
