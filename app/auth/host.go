package auth

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// The local sign-in asks for no password, so it must only ever answer this Checkup's
// own pages. A page of another site whose name an attacker points at 127.0.0.1 (DNS
// rebinding) is, to the browser, of the same origin as the server it reaches; but its
// requests carry the attacker's name in Host, and from another page in Origin. They
// are refused: the sign-in answers only to BASE_URL's host, a loopback address, or
// localhost (which only the person at this machine can have typed).

// ownRequest reports whether the request is addressed to this Checkup: its Host is
// one of its own, and so is its Origin when the browser sent one ("null", the origin
// of a sandboxed or opaque page, is no one's). Ports are not compared: a name or
// address of the machine itself cannot be taken over by another site.
func (a *Auth) ownRequest(r *http.Request) bool {
	if !a.ownHost(r.Host) {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && a.ownHost(u.Host)
}

// ownHost reports whether hostport names this Checkup: BASE_URL's host, localhost or a
// loopback address.
func (a *Auth) ownHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" {
		return false
	}
	if base, err := url.Parse(a.cfg.BaseURL); err == nil && strings.EqualFold(host, base.Hostname()) {
		return true
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// foreignHost refuses the local sign-in for a request addressed to another name.
func (a *Auth) foreignHost(c echo.Context) error {
	a.logger(c).Warn("local sign-in refused for a foreign host", "host", c.Request().Host, "origin", c.Request().Header.Get("Origin"))
	return a.problem(c, http.StatusForbidden, locale.Msg("signin.foreign_host", "URL", a.cfg.BaseURL+"/login"), nil)
}
