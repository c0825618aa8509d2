package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/markbates/goth"
	"github.com/stretchr/testify/require"
)

func TestEmailVerifiedNeedsTheProvidersWord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		raw  map[string]any
		want bool
	}{
		{"no claim", map[string]any{"email": "a@example.org"}, false},
		{"email_verified true", map[string]any{"email_verified": true}, true},
		{"email_verified false", map[string]any{"email_verified": false}, false},
		{"email_verified as a string", map[string]any{"email_verified": "true"}, true},
		{"Google's verified_email", map[string]any{"verified_email": true}, true},
		{"a claim of another type", map[string]any{"email_verified": 1.0}, false},
	} {
		got, err := Provider{}.emailVerified(ctx, goth.User{Email: "a@example.org", RawData: c.raw})
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, got, c.name)
	}
}

// GitHub's profile may show an address GitHub never verified: the verdict is the one
// its /user/emails list gives for that address.
func TestGitHubEmailVerifiedFromItsEmailList(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode([]map[string]any{
			{"email": "Ann@Example.org", "verified": true, "primary": true},
			{"email": "ann@corp.example", "verified": false},
		})
	}))
	t.Cleanup(api.Close)
	p := Provider{emailsURL: api.URL, client: api.Client()}
	ctx := context.Background()
	for email, want := range map[string]bool{"ann@example.org": true, "ann@corp.example": false, "else@example.org": false, "": false} {
		got, err := p.emailVerified(ctx, goth.User{Email: email, AccessToken: "tok", RawData: map[string]any{"email_verified": true}})
		require.NoError(t, err, email)
		require.Equal(t, want, got, email)
	}
	_, err := p.emailVerified(ctx, goth.User{Email: "ann@example.org", AccessToken: "wrong"})
	require.Error(t, err, "a failed lookup is an error, not a verdict")
}
