package auth

import (
	"encoding/base64"
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// stateCookie ties an OAuth round trip to the browser that started it. It lives ten
// minutes, is scoped to /auth/ (to the whole site over https, where it is a __Host-
// cookie: stateCookiePath) and is deleted by the callback, so a state is good for one
// callback only.
const (
	stateCookie = "checkup_oauth_state"
	statePath   = "/auth/"
	stateMaxAge = 600
)

// stateCookiePath is the state cookie's name and path: a __Host- cookie must be for
// the path /.
func (a *Auth) stateCookiePath() (name, path string) {
	if a.cfg.SecureCookies() {
		return a.cookieName(stateCookie), "/"
	}
	return stateCookie, statePath
}

// oauthState is what the state cookie holds between /auth/{provider} and its callback.
type oauthState struct {
	State    string `json:"s"`
	Provider string `json:"p"`
	Session  string `json:"g"` // the marshalled goth session
	Next     string `json:"n"`
}

func (a *Auth) setState(c echo.Context, st oauthState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	name, path := a.stateCookiePath()
	a.setCookie(c, name, base64.RawURLEncoding.EncodeToString(b), path, stateMaxAge)
	return nil
}

// takeState returns the state the browser started with and deletes the cookie,
// whatever the callback's outcome.
func (a *Auth) takeState(c echo.Context) (oauthState, bool) {
	name, path := a.stateCookiePath()
	raw := cookieValue(c, name)
	if raw == "" {
		return oauthState{}, false
	}
	a.clearCookie(c, name, path)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return oauthState{}, false
	}
	var st oauthState
	if json.Unmarshal(b, &st) != nil || st.State == "" {
		return oauthState{}, false
	}
	return st, true
}
