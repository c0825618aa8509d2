package auth

import (
	"net/url"
	"strings"
)

// safeNext returns raw when it is a path on this site worth returning to after
// sign-in, and "" otherwise: never another host ("//evil", "/\evil", "https://..."),
// never the sign-in routes themselves, never the home page (the default anyway).
func safeNext(raw string) string {
	if len(raw) > 2000 || !strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "//") ||
		strings.ContainsAny(raw, "\\\r\n\t") {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	switch {
	case u.Path == "/", u.Path == "/login", u.Path == "/logout", strings.HasPrefix(u.Path, "/auth/"):
		return ""
	}
	return raw
}
