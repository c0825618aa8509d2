package config

import (
	"log/slog"
	"net/url"
	"strings"
)

// masked stands in for a secret that is set.
const masked = "********"

// Summary lists the effective value of every setting — defaults and derived values
// filled in — under its variable's name in lower case, with secrets masked, for the one
// log line at start-up: an operator sees what the process runs with, and no secret
// ever reaches the logs. A database URL keeps its user, host and database so the
// operator can tell which server it is; its password and parameters are dropped.
func Summary(cfg Config) []slog.Attr {
	var attrs []slog.Attr
	for _, s := range settings(&cfg) {
		v := s.show()
		if s.Secret && v != "" {
			v = mask(v)
		}
		attrs = append(attrs, slog.String(strings.ToLower(s.Name), v))
	}
	return attrs
}

// mask hides a secret; a PostgreSQL URL keeps what identifies the server: its host and
// port, in the URL's authority or in its query (a Unix socket's directory).
func mask(v string) string {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return masked
	}
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	server := url.Values{}
	for _, key := range []string{"host", "port"} {
		if value := u.Query().Get(key); value != "" {
			server.Set(key, value)
		}
	}
	if u.Host == "" && server.Get("host") == "" {
		return masked
	}
	shown.RawQuery = server.Encode()
	if u.User != nil {
		shown.User = url.User(u.User.Username())
	}
	return shown.String()
}
