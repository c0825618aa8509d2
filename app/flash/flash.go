// Package flash carries a one-time message across a redirect ("You are signed out.",
// "Task deleted.") in a short-lived cookie; the next full page shows it once.
package flash

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

const (
	cookieName = "checkup_flash"
	maxAge     = 60   // seconds: long enough for the redirect, short enough to never linger
	maxLength  = 1000 // bytes: the upload's notice with labels, warnings and a hint fits
	infoPrefix = "i."
	errPrefix  = "e."
)

// Messages writes the cookie. Secure comes from the settings (an https BASE_URL), as
// the session cookie's does, and not from the request: behind a proxy that ends TLS
// the request itself arrives over http. A Secure cookie is a __Host- one too, which a
// sibling subdomain cannot set.
type Messages struct{ Secure bool }

func (m Messages) name() string {
	if m.Secure {
		return "__Host-" + cookieName
	}
	return cookieName
}

// Set shows message on the next full page.
func (m Messages) Set(c echo.Context, message string) { m.set(c, infoPrefix, message) }

// Error shows message as an error on the next full page.
func (m Messages) Error(c echo.Context, message string) { m.set(c, errPrefix, message) }

// Take returns the message for this page, if any, and forgets it.
func (m Messages) Take(c echo.Context) (message string, isError bool) {
	ck, err := c.Cookie(m.name())
	if err != nil || ck.Value == "" {
		return "", false
	}
	m.write(c, "", -1)
	kind, encoded := ck.Value[:min(2, len(ck.Value))], ck.Value[min(2, len(ck.Value)):]
	b, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil || (kind != infoPrefix && kind != errPrefix) {
		return "", false
	}
	return string(b), kind == errPrefix
}

func (m Messages) set(c echo.Context, prefix, message string) {
	if len(message) > maxLength {
		message = message[:maxLength]
	}
	message = strings.ToValidUTF8(message, "")
	m.write(c, prefix+base64.RawURLEncoding.EncodeToString([]byte(message)), maxAge)
}

func (m Messages) write(c echo.Context, value string, age int) {
	c.SetCookie(&http.Cookie{
		Name: m.name(), Value: value, Path: "/", MaxAge: age,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: m.Secure,
	})
}
