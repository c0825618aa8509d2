package auth

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSafeNextKeepsOnlyLocalPaths(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"/tasks":                  "/tasks",
		"/tasks/1?tab=actions#a":  "/tasks/1?tab=actions#a",
		"":                        "",
		"/":                       "",
		"/login?next=/tasks":      "",
		"/logout":                 "",
		"/auth/github":            "",
		"//evil.example/x":        "",
		"/\\evil.example":         "",
		"https://evil.example/":   "",
		"tasks":                   "",
		"javascript:alert(1)":     "",
		"/tasks\r\nSet-Cookie: x": "",
	} {
		require.Equal(t, want, safeNext(raw), "safeNext(%q)", raw)
	}
}
